// SPDX-License-Identifier: Apache-2.0
//
// Request metrics for /metrics (Prometheus text format 0.0.4): a counter
// per (route, status) and a latency histogram per route.
//
// Thread safety: Record() and Render() may be called from any thread.
#ifndef NEARDUP_APPS_SERVER_METRICS_H_
#define NEARDUP_APPS_SERVER_METRICS_H_

#include <array>
#include <map>
#include <string>
#include <utility>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "server/transport.h"

namespace neardup::server {

class RequestMetrics {
 public:
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.02,
                                                      0.05,   0.1,   0.2,   0.5,   1.0,  5.0};
  void Record(const std::string& route, int status, double seconds);
  // Appends the metric families to `out`.
  void Render(std::string* out) const;

  ConnectionStats connections;  // updated by the connection layer

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable base::Mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_ GUARDED_BY(mu_);
  std::map<std::string, Histogram> latency_ GUARDED_BY(mu_);
};

}  // namespace neardup::server

#endif  // NEARDUP_APPS_SERVER_METRICS_H_
