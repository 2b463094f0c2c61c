// SPDX-License-Identifier: Apache-2.0
#include "server/metrics.h"

#include <cstdio>

namespace neardup::server {

void RequestMetrics::Record(const std::string& route, int status, double seconds) {
  base::MutexLock lock(mu_);
  ++requests_[{route, status}];
  Histogram& h = latency_[route];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++h.counts[i];
  }
  ++h.count;
  h.sum += seconds;
}

void RequestMetrics::Render(std::string* out) const {
  base::MutexLock lock(mu_);
  char buf[256];
  const std::pair<const char*, uint64_t> conn[] = {
      {"# TYPE neardup_http_connections gauge\nneardup_http_connections", connections.open},
      {"# TYPE neardup_http_connections_accepted_total counter\n"
       "neardup_http_connections_accepted_total",
       connections.accepted},
      {"# TYPE neardup_http_connections_over_limit_total counter\n"
       "neardup_http_connections_over_limit_total",
       connections.over_limit},
      {"# TYPE neardup_http_request_timeouts_total counter\nneardup_http_request_timeouts_total",
       connections.timeouts},
      {"# TYPE neardup_http_refused_total counter\nneardup_http_refused_total",
       connections.refused},
  };
  for (const auto& [head, v] : conn) {
    std::snprintf(buf, sizeof(buf), "%s %llu\n", head, static_cast<unsigned long long>(v));
    out->append(buf);
  }
  out->append("# HELP neardup_http_requests_total HTTP requests by route and status.\n");
  out->append("# TYPE neardup_http_requests_total counter\n");
  for (const auto& [key, n] : requests_) {
    std::snprintf(buf, sizeof(buf),
                  "neardup_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
                  key.first.c_str(), key.second, static_cast<unsigned long long>(n));
    out->append(buf);
  }
  out->append("# HELP neardup_http_request_duration_seconds Request latency by route.\n");
  out->append("# TYPE neardup_http_request_duration_seconds histogram\n");
  for (const auto& [route, h] : latency_) {
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      std::snprintf(buf, sizeof(buf),
                    "neardup_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n",
                    route.c_str(), kBuckets[i], static_cast<unsigned long long>(h.counts[i]));
      out->append(buf);
    }
    std::snprintf(buf, sizeof(buf),
                  "neardup_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n"
                  "neardup_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n"
                  "neardup_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
                  route.c_str(), static_cast<unsigned long long>(h.count), route.c_str(), h.sum,
                  route.c_str(), static_cast<unsigned long long>(h.count));
    out->append(buf);
  }
}

}  // namespace neardup::server
