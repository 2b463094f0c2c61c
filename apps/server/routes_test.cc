// SPDX-License-Identifier: Apache-2.0
// The route table's `waits` rows: exactly the handlers that wait on a
// durable write's group commit run on the transport's large pool; queries
// and reads run on the compute pool (transport.h).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "server/route.h"

namespace neardup::server {
namespace {

TEST(RoutesTest, OnlyTheWritesWaitOnOtherWork) {
  std::set<std::string> waits, compute;
  for (const Route& r : ApiRoutes()) {
    (r.waits ? waits : compute).insert(std::string(r.method) + " " + std::string(r.name));
  }
  EXPECT_EQ(waits,
            (std::set<std::string>{"POST add", "POST batch", "DELETE delete", "POST expire"}));
  EXPECT_TRUE(compute.count("POST query"));
  EXPECT_TRUE(compute.count("GET get"));
  EXPECT_TRUE(compute.count("GET similar"));
  // Every route that changes the store is a write; every other one only reads.
  for (const Route& r : ApiRoutes()) {
    const bool reads = r.method == "GET" || r.name == "query" || r.name == "explain";
    EXPECT_EQ(r.waits, !reads) << r.method << " " << r.pattern;
  }
}

}  // namespace
}  // namespace neardup::server
