// SPDX-License-Identifier: Apache-2.0
#include "store/doc_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

namespace neardup::store {
namespace {

std::string Dir(const char* tag) {
  auto p = std::filesystem::temp_directory_path() /
           (std::string("neardup_store_") + tag + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}

TEST(DocStoreTest, RowsRoundTripAndScanInArrivalOrder) {
  const std::string dir = Dir("rt");
  {
    auto st = DocStore::Open(dir, {});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(*(*st)->NextSeq(), 0u);
    DocStore::Batch b;
    (*st)->Prepare(&b);
    // Seqs out of write order and ids with every byte value: scans sort by seq.
    std::string odd_id("a\0b\xff", 4);
    b.PutNode({300, "late", "", 0xffffffffffffffffULL, -5});
    b.PutNode({2, odd_id, "late", 7, 1700000000000});
    b.PutNode({1, std::string(1000, 'x'), "", 0, 0});
    b.PutDoc("late", {300, -5, "{\"a\":1}", "text"});
    b.PutTime({"late", 99, true});
    b.PutMeta("counters", "1 2 3 4 5");
    ASSERT_TRUE((*st)->Write(&b, true).ok());
    EXPECT_EQ(*(*st)->NextSeq(), 301u);
  }
  auto st = DocStore::Open(dir, {});
  ASSERT_TRUE(st.ok());
  std::vector<NodeRow> rows;
  ASSERT_TRUE((*st)
                  ->ScanNodes([&](const NodeRow& r) {
                    rows.push_back(r);
                    return Status::OK();
                  })
                  .ok());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].seq, 1u);
  EXPECT_EQ(rows[0].id, std::string(1000, 'x'));
  EXPECT_EQ(rows[1].id, std::string("a\0b\xff", 4));
  EXPECT_EQ(rows[1].root, "late");
  EXPECT_EQ(rows[1].time, 1700000000000);
  EXPECT_EQ(rows[2].fingerprint, 0xffffffffffffffffULL);
  EXPECT_EQ(rows[2].time, -5);
  auto doc = (*st)->GetDoc("late");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->seq, 300u);
  EXPECT_EQ(doc->arrival, -5);
  EXPECT_EQ(doc->meta, "{\"a\":1}");
  EXPECT_EQ(doc->text, "text");
  std::vector<TimeRow> times;
  ASSERT_TRUE((*st)
                  ->ScanTimes([&](const TimeRow& r) {
                    times.push_back(r);
                    return Status::OK();
                  })
                  .ok());
  ASSERT_EQ(times.size(), 1u);
  EXPECT_TRUE(times[0].ghost);
  EXPECT_EQ(times[0].time, 99);
  EXPECT_EQ(*(*st)->GetMeta("counters"), "1 2 3 4 5");

  DocStore::Batch del;
  (*st)->Prepare(&del);
  del.DeleteDocument("late", 300);
  ASSERT_TRUE((*st)->Write(&del, true).ok());
  EXPECT_TRUE((*st)->GetDoc("late").status().IsNotFound());
  EXPECT_EQ(*(*st)->NextSeq(), 3u);
  size_t n = 0;
  ASSERT_TRUE((*st)->ScanTimes([&](const TimeRow&) { return ++n, Status::OK(); }).ok());
  EXPECT_EQ(n, 0u);
  // A callback error stops the scan and is returned.
  Status s = (*st)->ScanNodes([](const NodeRow&) { return Status::Internal("stop"); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  st->reset();
  std::filesystem::remove_all(dir);
}

// A format-2 or -3 store opens, and becomes format 4 when opened for
// writing; a read-only open leaves it as it is. An unknown format is refused.
TEST(DocStoreTest, OlderFormatsOpenAndAreMarkedFourWhenWritten) {
  const std::string dir = Dir("format");
  auto set_format = [&](std::string_view format) {
    auto st = DocStore::Open(dir, {});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    DocStore::Batch b;
    (*st)->Prepare(&b);
    b.PutMeta("format", format);
    ASSERT_TRUE((*st)->Write(&b, true).ok());
  };
  for (const char* older : {"neardup-store-2", "neardup-store-3"}) {
    set_format(older);
    {
      StoreOptions ro;
      ro.read_only = true;
      auto st = DocStore::Open(dir, ro);
      ASSERT_TRUE(st.ok()) << st.status().ToString();
      EXPECT_EQ(*(*st)->GetMeta("format"), older);
    }
    auto st = DocStore::Open(dir, {});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(*(*st)->GetMeta("format"), "neardup-store-4");
  }
  set_format("neardup-store-9");
  auto st = DocStore::Open(dir, {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), StatusCode::kFailedPrecondition) << st.status().ToString();
  EXPECT_NE(st.status().message().find("neardup-store-9"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(DocStoreTest, OpeningAMissingStoreWithoutCreateFails) {
  StoreOptions o;
  o.create_if_missing = false;
  auto st = DocStore::Open(Dir("missing"), o);
  EXPECT_FALSE(st.ok());
}

}  // namespace
}  // namespace neardup::store
