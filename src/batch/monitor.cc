// SPDX-License-Identifier: Apache-2.0
#include "batch/monitor.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "base/parallel.h"
#include "base/sanitizers.h"

namespace neardup::batch {

uint64_t CurrentRssBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

void ReleaseFreedMemory() {
#ifdef __GLIBC__
  // Under a sanitizer the allocator is the sanitizer's: glibc's arenas
  // are not the process's heap, and trimming them broke glibc's own
  // bookkeeping (an assertion at thread exit).
  if constexpr (!base::kSanitized) malloc_trim(0);
#endif
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

Monitor::Monitor(std::function<void(const BatchProgress&)> callback, const TempDir* tmp)
    : callback_(std::move(callback)), tmp_(tmp) {
  start_ = phase_start_ = last_tick_ = Clock::now();
  Sample();
  // Without the sampler (the process is at its thread limit) the samples
  // come from Tick() alone.
  (void)base::StartThread(&sampler_, "progress sampler", [this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stop_; })) {
      lock.unlock();
      Sample();
      lock.lock();
    }
  });
}

Monitor::~Monitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

double Monitor::Seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void Monitor::Sample() {
  const uint64_t rss = CurrentRssBytes();
  const uint64_t disk = tmp_ != nullptr ? tmp_->DiskBytes() : 0;
  const double t = Seconds();
  std::lock_guard<std::mutex> lock(samples_mu_);
  samples_.emplace_back(t, rss);
  peak_disk_ = std::max(peak_disk_, disk);
}

void Monitor::Phase(BatchPhase p, uint64_t total) {
  const auto now = Clock::now();
  if (phase_) {
    Report();  // where the phase ended
    phase_seconds_.emplace_back(*phase_, std::chrono::duration<double>(now - phase_start_).count());
  }
  phase_ = p;
  phase_start_ = now;
  total_ = total;
  done_.store(0, std::memory_order_relaxed);
  last_tick_ = now - std::chrono::seconds(1);
  Tick();
}

void Monitor::Tick() {
  if (!callback_ || !phase_) return;
  const auto now = Clock::now();
  if (now - last_tick_ < std::chrono::milliseconds(200)) return;
  last_tick_ = now;
  Report();
}

void Monitor::Report() {
  if (!callback_ || !phase_) return;
  BatchProgress p;
  p.phase = *phase_;
  // Acquire: the records counted before a unit was marked done are seen.
  p.done = done_.load(std::memory_order_acquire);
  p.total = total_;
  p.records = records_.load(std::memory_order_relaxed);
  p.seconds = Seconds();
  callback_(p);
}

void Monitor::Finish(BatchStats* stats) {
  if (phase_) {
    Report();
    phase_seconds_.emplace_back(*phase_,
                                std::chrono::duration<double>(Clock::now() - phase_start_).count());
    phase_.reset();
  }
  for (const auto& [p, s] : phase_seconds_) {
    bool found = false;
    for (auto& [q, t] : stats->phase_seconds) {
      if (q == p) t += s, found = true;
    }
    if (!found) stats->phase_seconds.emplace_back(p, s);
  }
  phase_seconds_.clear();
  Sample();
  std::lock_guard<std::mutex> lock(samples_mu_);
  stats->rss_samples = samples_;
  stats->peak_disk_bytes = std::max(stats->peak_disk_bytes, peak_disk_);
  stats->peak_rss_bytes = PeakRssBytes();
  stats->seconds = Seconds();
}

}  // namespace neardup::batch
