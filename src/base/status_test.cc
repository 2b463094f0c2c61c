// SPDX-License-Identifier: Apache-2.0
#include "neardup/status.h"

#include <gtest/gtest.h>

#include "base/status_macros.h"

namespace neardup {
namespace {

Status FailIfNegative(int x) {
  if (x < 0) return Status::InvalidArgument("negative");
  return Status::OK();
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  NEARDUP_ASSIGN_OR_RETURN(int h, Half(x));
  NEARDUP_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status Chain(int x) {
  NEARDUP_RETURN_IF_ERROR(FailIfNegative(x));
  return Status::NotFound("reached end");
}

TEST(StatusTest, OkAndErrors) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "ok");
  Status s = Status::NotFound("doc 7");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.ToString(), "not_found: doc 7");
  EXPECT_EQ(s.WithContext("file a.jsonl:3").message(), "file a.jsonl:3: doc 7");
}

TEST(StatusTest, MacrosPropagate) {
  EXPECT_TRUE(Chain(-1).IsInvalidArgument());
  EXPECT_TRUE(Chain(1).IsNotFound());
  EXPECT_EQ(Quarter(8).value(), 2);
  EXPECT_FALSE(Quarter(6).ok());
  EXPECT_EQ(Quarter(6).status().message(), "odd");
}

TEST(StatusDeathTest, ValueOfErrorAborts) {
  Result<int> r = Status::Internal("boom");
  EXPECT_DEATH({ (void)r.value(); }, "CHECK failed");
}

}  // namespace
}  // namespace neardup
