// SPDX-License-Identifier: Apache-2.0
#include "tokenize/hmm_model.h"

#include <cstdlib>
#include <string>

#include "base/code_trie.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace neardup::tokenize {
namespace {

Status ParseDouble(std::string_view s, double* v) {
  std::string tmp(base::TrimAscii(s));
  char* end = nullptr;
  *v = std::strtod(tmp.c_str(), &end);
  if (tmp.empty() || end != tmp.c_str() + tmp.size()) {
    return Status::InvalidArgument("bad number '" + tmp + "'");
  }
  return Status::OK();
}

Status ParseRow(std::string_view line, double* out) {
  for (int i = 0; i < 4; ++i) {
    line = base::TrimAscii(line);
    const size_t sp = line.find_first_of(" \t");
    NEARDUP_RETURN_IF_ERROR(ParseDouble(line.substr(0, sp), &out[i]));
    line = sp == std::string_view::npos ? std::string_view() : line.substr(sp);
  }
  if (!base::TrimAscii(line).empty()) return Status::InvalidArgument("more than 4 numbers");
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<HmmModel>> HmmModel::Load(const std::string& path) {
  std::string text;
  NEARDUP_RETURN_IF_ERROR(base::ReadWholeFile(path, &text));
  std::unique_ptr<HmmModel> m(new HmmModel());
  m->dense_emit_.assign((kDenseLast - kDenseFirst) * 4, kMinLogProb);
  int row = 0;  // 0: start, 1-4: transitions, 5-8: emissions
  NEARDUP_RETURN_IF_ERROR(base::ForEachLine(text, [&](std::string_view line, size_t no) -> Status {
    line = base::TrimAscii(line);
    if (line.empty() || line[0] == '#') return Status::OK();
    const std::string where = path + ":" + std::to_string(no);
    if (row == 0) {
      NEARDUP_RETURN_IF_ERROR(ParseRow(line, m->start_.data()).WithContext(where));
    } else if (row <= 4) {
      NEARDUP_RETURN_IF_ERROR(ParseRow(line, m->trans_[row - 1].data()).WithContext(where));
    } else if (row <= 8) {
      const int state = row - 5;
      while (!line.empty()) {
        const size_t comma = line.find(',');
        std::string_view item = line.substr(0, comma);
        line = comma == std::string_view::npos ? std::string_view() : line.substr(comma + 1);
        const size_t colon = item.rfind(':');
        if (colon == std::string_view::npos)
          return Status::InvalidArgument(where + ": expected char:logp");
        auto cps = base::DecodeToCodePoints(item.substr(0, colon));
        if (!cps.ok() || cps->size() != 1)
          return Status::InvalidArgument(where + ": bad character");
        double v;
        NEARDUP_RETURN_IF_ERROR(ParseDouble(item.substr(colon + 1), &v).WithContext(where));
        const char32_t cp = (*cps)[0];
        if (cp >= kDenseFirst && cp < kDenseLast) {
          m->dense_emit_[(cp - kDenseFirst) * 4 + state] = v;
        } else {
          m->sparse_emit_[state][cp] = v;
        }
      }
    } else {
      return Status::InvalidArgument(where + ": unexpected extra line");
    }
    ++row;
    return Status::OK();
  }));
  if (row != 9)
    return Status::InvalidArgument(path + ": expected 9 data lines, found " + std::to_string(row));
  return m;
}

void HmmModel::Cut(const char32_t* chars, size_t n, std::vector<uint8_t>* states,
                   std::vector<uint32_t>* word_ends) const {
  if (n == 0) return;
  // The two possible predecessors of each state, lower letter first.
  static constexpr uint8_t kPrev[4][2] = {{kE, kS}, {kB, kM}, {kB, kM}, {kE, kS}};
  std::vector<uint8_t>& back = *states;
  back.resize(n * 4 + n);
  double v[4];
  for (int y = 0; y < 4; ++y) v[y] = start_[y] + Emit(y, chars[0]);
  for (size_t t = 1; t < n; ++t) {
    double nv[4];
    for (int y = 0; y < 4; ++y) {
      const double em = Emit(y, chars[t]);
      const uint8_t a = kPrev[y][0], b = kPrev[y][1];
      const double ca = v[a] + trans_[a][y] + em;
      const double cb = v[b] + trans_[b][y] + em;
      // jieba takes max over (prob, state) tuples: ties go to the later letter.
      if (cb >= ca) {
        nv[y] = cb;
        back[t * 4 + y] = b;
      } else {
        nv[y] = ca;
        back[t * 4 + y] = a;
      }
    }
    for (int y = 0; y < 4; ++y) v[y] = nv[y];
  }
  uint8_t* tags = back.data() + n * 4;
  tags[n - 1] = v[kS] >= v[kE] ? kS : kE;
  for (size_t t = n - 1; t > 0; --t) tags[t - 1] = back[t * 4 + tags[t]];
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    if (tags[i] == kE || tags[i] == kS) {
      word_ends->push_back(static_cast<uint32_t>(i + 1));
      next = i + 1;
    }
  }
  if (next < n) word_ends->push_back(static_cast<uint32_t>(n));
}

}  // namespace neardup::tokenize
