// SPDX-License-Identifier: Apache-2.0
#include "batch/record_errors.h"

#include <algorithm>

namespace neardup::batch {

void RecordErrors::Record(uint64_t line, Status s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (line < err_line_) {
    err_line_ = line;
    err_ = std::move(s);
    stop_line_.store(std::min(stop_line_.load(), line));
  }
}

void RecordErrors::Fatal(Status s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fatal_.ok()) fatal_ = std::move(s);
  stop_line_.store(0);
}

Status RecordErrors::First() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fatal_.ok() ? err_ : fatal_;
}

uint64_t RecordErrors::first_line() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fatal_.ok() ? err_line_ : 0;
}

void RecordErrors::AddSkip(uint64_t line, Status s) {
  std::lock_guard<std::mutex> lock(mu_);
  skips_.emplace_back(line, std::move(s));
}

void RecordErrors::AddSkips(Skips* skips) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& s : *skips) skips_.push_back(std::move(s));
  skips->clear();
}

Skips RecordErrors::TakeSkips() {
  Skips out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(skips_);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

void RecordErrors::DeliverSkips(const std::function<void(const Status&)>& on_skip) {
  const Skips skips = TakeSkips();
  if (!on_skip) return;
  for (const auto& [line, s] : skips) on_skip(s);
}

}  // namespace neardup::batch
