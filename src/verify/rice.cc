// SPDX-License-Identifier: Apache-2.0
#include "verify/rice.h"

#include <endian.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "base/status_macros.h"
#include "verify/varint.h"

namespace neardup::verify {
namespace {

// The k that minimizes the expected bits a value, k + 1 + mean gap / 2^k.
int RiceParameter(size_t n, int width) {
  if (n == 0) return 0;
  const double mean_gap = std::ldexp(1.0, width) / static_cast<double>(n);
  int best = 0;
  for (int k = 1; k < 32; ++k) {
    if (k + mean_gap / std::ldexp(1.0, k) < best + mean_gap / std::ldexp(1.0, best)) best = k;
  }
  return best;
}

// Writes LSB first into a buffer sized for the worst case, 32 bits a store.
class BitWriter {
 public:
  BitWriter(std::string* out, size_t max_bits) : out_(out) { out_->resize(max_bits / 8 + 16); }
  void Put(uint64_t bits, int count) {  // count <= 32, bits < 2^count
    acc_ |= bits << used_;
    used_ += count;
    if (used_ >= 32) {
      const uint32_t word = htole32(static_cast<uint32_t>(acc_));
      std::memcpy(out_->data() + at_, &word, 4);
      at_ += 4;
      acc_ >>= 32;
      used_ -= 32;
    }
  }
  void Flush() {
    for (; used_ > 0; used_ -= 8, acc_ >>= 8) (*out_)[at_++] = static_cast<char>(acc_ & 0xFF);
    out_->resize(at_);
  }

 private:
  std::string* out_;
  size_t at_ = 0;
  uint64_t acc_ = 0;
  int used_ = 0;
};

// Reads 57 bits at a time from a window of 8 bytes (zeros past the end).
class BitReader {
 public:
  explicit BitReader(std::string_view in) : in_(in), bits_(8 * in.size()) {}
  // The unary quotient: ones up to the next zero, which is consumed.
  bool Unary(uint64_t* q) {
    *q = 0;
    for (;;) {
      if (pos_ >= bits_) return false;
      const uint64_t w = Window();
      const int ones = std::countr_one(w);
      if (ones < 57) {
        *q += static_cast<uint64_t>(ones);
        pos_ += static_cast<size_t>(ones) + 1;
        return pos_ <= bits_;
      }
      *q += 57;
      pos_ += 57;
      if (*q > 0xFFFFFFFFull) return false;
    }
  }
  // One value's quotient and k low bits from one window when they fit in it
  // (the common case); false otherwise, with nothing consumed.
  bool Quick(int k, uint64_t* q, uint64_t* low) {
    if (pos_ + 57 > bits_) return false;
    const uint64_t w = Window();
    const int ones = std::countr_one(w);
    if (ones + 1 + k > 57) return false;
    *q = static_cast<uint64_t>(ones);
    *low = (w >> (ones + 1)) & ((uint64_t{1} << k) - 1);
    pos_ += static_cast<size_t>(ones + 1 + k);
    return true;
  }
  bool Bits(int count, uint64_t* v) {  // count <= 31
    if (pos_ + static_cast<size_t>(count) > bits_) return false;
    *v = Window() & ((uint64_t{1} << count) - 1);
    pos_ += static_cast<size_t>(count);
    return true;
  }

 private:
  uint64_t Window() const {
    const size_t byte = pos_ >> 3;
    uint64_t w = 0;
    if (byte + 8 <= in_.size()) {
      std::memcpy(&w, in_.data() + byte, 8);
    } else {
      std::memcpy(&w, in_.data() + byte, in_.size() - byte);
    }
    return le64toh(w) >> (pos_ & 7);
  }
  std::string_view in_;
  size_t bits_, pos_ = 0;
};

}  // namespace

void RiceEncode(std::span<const uint64_t> values, std::string* out, int width) {
  NEARDUP_CHECK(width >= 1 && width <= 32);
  const uint64_t max = (uint64_t{1} << width) - 1;
  const int k = RiceParameter(values.size(), width);
  PutVarint(values.size(), out);
  out->push_back(static_cast<char>(k));
  // The quotients sum to at most max >> k; each value adds a zero and k bits.
  thread_local std::string bits;
  BitWriter w(&bits, values.empty() ? 0 : (max >> k) + values.size() * static_cast<size_t>(k + 1));
  const uint64_t low_mask = (uint64_t{1} << k) - 1;
  uint64_t prev = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    NEARDUP_CHECK(values[i] <= max && (i == 0 || values[i] > prev));
    const uint64_t gap = values[i] - prev;
    prev = values[i];
    uint64_t q = gap >> k;
    if (q + 1 + static_cast<uint64_t>(k) <= 32) {  // the common case: one store
      w.Put(((uint64_t{1} << q) - 1) | ((gap & low_mask) << (q + 1)), static_cast<int>(q) + 1 + k);
      continue;
    }
    for (; q > 0; q -= std::min<uint64_t>(q, 32)) {
      const int ones = static_cast<int>(std::min<uint64_t>(q, 32));
      w.Put((uint64_t{1} << ones) - 1, ones);
    }
    w.Put(0, 1);
    w.Put(gap & low_mask, k);
  }
  w.Flush();
  PutVarint(bits.size(), out);
  out->append(bits);
}

bool RiceDecode(std::string_view* in, std::vector<uint64_t>* values, int width) {
  if (width < 1 || width > 32) return false;
  const uint64_t max = (uint64_t{1} << width) - 1;
  uint64_t n = 0, len = 0;
  if (!GetVarint(in, &n) || in->empty()) return false;
  const int k = static_cast<uint8_t>(in->front());
  in->remove_prefix(1);
  if (k > 31 || !GetVarint(in, &len) || len > in->size()) return false;
  if (n > 8 * len / static_cast<uint64_t>(k + 1)) return false;  // each value takes k + 1 bits
  BitReader r(in->substr(0, len));
  in->remove_prefix(len);
  values->resize(n);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t q = 0, low = 0;
    if (!r.Quick(k, &q, &low) && (!r.Unary(&q) || q > max || !r.Bits(k, &low))) return false;
    const uint64_t gap = (q << k) | low;
    if ((i > 0 && gap == 0) || gap > max - prev) return false;
    prev += gap;
    (*values)[i] = prev;
  }
  return true;
}

}  // namespace neardup::verify
