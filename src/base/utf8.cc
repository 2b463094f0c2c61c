// SPDX-License-Identifier: Apache-2.0
#include "base/utf8.h"

#include <cstring>

namespace neardup {
namespace {

// Length of the well-formed sequence starting at p (Unicode Table 3-7), or 0.
size_t WellFormedLength(const unsigned char* p, size_t avail) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  auto cont = [&](size_t i, unsigned char lo, unsigned char hi) {
    return i < avail && p[i] >= lo && p[i] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3)
    return cont(1, 0x80, 0xBF) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

// Length of the maximal subpart of an ill-formed sequence at p (>= 1).
size_t MaximalSubpart(const unsigned char* p, size_t avail) {
  const unsigned char c = p[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF)
    need = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  size_t i = 1;
  if (i < avail && p[i] >= lo && p[i] <= hi) {
    ++i;
    while (i < need && i < avail && p[i] >= 0x80 && p[i] <= 0xBF) ++i;
  }
  return i;
}

inline bool AllAscii8(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080ULL) == 0;
}

}  // namespace

Status ValidateUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && AllAscii8(p + i)) {
      i += 8;
      continue;
    }
    size_t len = WellFormedLength(p + i, n - i);
    if (len == 0) {
      return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(i));
    }
    i += len;
  }
  return Status::OK();
}

std::string ReplaceInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  std::string out;
  out.reserve(n);
  size_t i = 0;
  while (i < n) {
    size_t len = WellFormedLength(p + i, n - i);
    if (len > 0) {
      out.append(s.data() + i, len);
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      i += MaximalSubpart(p + i, n - i);
    }
  }
  return out;
}

namespace base {

int32_t DecodeUtf8Slow(std::string_view s, size_t* pos) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + *pos;
  const size_t len = WellFormedLength(p, s.size() - *pos);
  switch (len) {
    case 1:
      *pos += 1;
      return p[0];
    case 2:
      *pos += 2;
      return ((p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    case 3:
      *pos += 3;
      return ((p[0] & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    case 4:
      *pos += 4;
      return ((p[0] & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    default:
      *pos += 1;
      return -1;
  }
}

void AppendUtf8(int32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace base
}  // namespace neardup
