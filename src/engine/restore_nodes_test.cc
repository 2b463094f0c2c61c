// SPDX-License-Identifier: Apache-2.0
// RestoreNodes (a restart's node scan on a reader thread): a store of
// several batches restores exactly, whether the reader thread binds the ids
// (an empty engine) or the calling thread does (an engine that holds
// documents, or keeps its cluster orders), and a damaged row in the middle
// of a batch (bad sketches, a root never restored, an id restored twice) is
// named without the reader thread hanging or restoring past it.
#include "engine/restore_nodes.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/durable_access.h"
#include "engine/durable_test_util.h"

namespace neardup {
namespace {

using engine::EngineInternal;
using engine::EngineOf;
using testing_util::Edit;
using testing_util::OpenOrDie;
using testing_util::Opts;
using testing_util::Snapshot;
using testing_util::Story;
using testing_util::TempDir;

// More rows than two of the reader's batches (1,024 rows each).
constexpr int kDocs = 2600;

// Every restored id's cluster and fingerprint, in the order of `ids`.
std::string Records(const Engine& e, const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) {
    auto r = EngineInternal::Record(e, id);
    if (r.ok()) out += id + ">" + r->cluster + "/" + std::to_string(r->fingerprint) + " ";
  }
  return out;
}

// Adds kDocs documents, a third of them edits of 60 stories, and removes
// some (roots among them turn ghosts); returns the ids.
std::vector<std::string> Fill(DurableEngine& d) {
  std::mt19937 rng(5);
  std::vector<std::string> bases, ids;
  for (int i = 0; i < 60; ++i) bases.push_back(Story(rng, 80));
  std::vector<IncomingDocument> docs;
  for (int i = 0; i < kDocs; ++i) {
    std::string text = i % 3 == 0 ? Edit(rng, bases[rng() % bases.size()], 1) : Story(rng, 80);
    docs.push_back({"d" + std::to_string(i), std::move(text), 1000 + i, ""});
    ids.push_back(docs.back().id);
  }
  for (size_t at = 0; at < docs.size(); at += 200) {
    const size_t n = std::min<size_t>(200, docs.size() - at);
    for (const auto& r : d.AddBatch({docs.data() + at, n}, OnConflict::kError)) {
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
  }
  for (int i = 0; i < kDocs; i += 37) EXPECT_TRUE(d.Remove(ids[i]).ok());
  return ids;
}

// A store of Fill()'s documents at `dir`, closed.
void MakeStore(const std::string& dir) {
  auto d = OpenOrDie(Opts(dir));
  (void)Fill(*d);
  ASSERT_TRUE(d->Close().ok());
}

// The store at `dir`, read-only; null (and a failure) if it cannot open.
std::unique_ptr<store::DocStore> OpenReadOnly(const std::string& dir) {
  store::StoreOptions so;
  so.read_only = true;
  auto st = store::DocStore::Open(dir, so);
  EXPECT_TRUE(st.ok()) << st.status().ToString();
  return st.ok() ? std::move(*st) : nullptr;
}

TEST(RestoreNodesTest, ManyBatchesRestoreExactly) {
  TempDir dir;
  std::vector<std::string> ids;
  std::string before;
  {
    auto d = OpenOrDie(Opts(dir.str()));
    ids = Fill(*d);
    before = Snapshot(EngineOf(*d), ids);
    ASSERT_TRUE(d->Close().ok());
  }
  std::string records;  // every restored row's cluster and fingerprint
  {
    auto d = OpenOrDie(Opts(dir.str()));
    EXPECT_EQ(Snapshot(EngineOf(*d), ids), before);
    records = Records(EngineOf(*d), ids);
    ASSERT_TRUE(d->Close().ok());
  }
  // The same rows in batches of 7: dozens of batches, each restored one
  // handed back and decoded into again.
  std::unique_ptr<store::DocStore> st = OpenReadOnly(dir.str());
  ASSERT_NE(st, nullptr);
  auto made = Engine::Create(Opts(dir.str()).engine);
  ASSERT_TRUE(made.ok());
  EngineInternal::BeginRestore(**made, 0);
  const Result<uint64_t> n = engine::RestoreNodes(*st, **made, 7);
  EngineInternal::EndRestore(**made);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(Records(**made, ids), records);
  st.reset();
  auto d = OpenOrDie(Opts(dir.str()));
  EXPECT_EQ(*n, d->Stats().restored_documents);
  // Every row came back: the live documents and the ghost roots.
  size_t ghosts = 0;
  for (size_t at = before.find(",ghost,"); at != std::string::npos;
       at = before.find(",ghost,", at + 1)) {
    ++ghosts;
  }
  EXPECT_GT(ghosts, 0u);
  EXPECT_GT(d->Stats().restored_documents, 2u * 1024);
  EXPECT_EQ(d->Stats().restored_documents, d->Stats().engine.documents + ghosts);
}

// Rewrites row d1500 (inside the second batch of 64) with `damage`.
void DamageRow(const std::string& dir, const std::function<void(store::NodeRow*)>& damage) {
  store::StoreOptions so;
  auto st = store::DocStore::Open(dir, so);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  store::NodeRow bad;
  ASSERT_TRUE((*st)
                  ->ScanNodes([&](const store::NodeRow& row) {
                    if (row.id == "d1500") bad = row;
                    return Status::OK();
                  })
                  .ok());
  ASSERT_EQ(bad.id, "d1500");
  damage(&bad);
  store::DocStore::Batch b;
  (*st)->Prepare(&b);
  b.PutNode(bad);
  ASSERT_TRUE((*st)->Write(&b, true).ok());
}

// Restores the store at `dir` into a fresh engine in batches of 64 and
// expects row d1500 to stop it: Corruption naming `named` and saying
// `cause`; the rows before it restored, it and the rows after not.
void ExpectStopsAtRow1500(const std::string& dir, const std::string& named,
                          const std::string& cause) {
  std::unique_ptr<store::DocStore> st = OpenReadOnly(dir);
  ASSERT_NE(st, nullptr);
  auto made = Engine::Create(Opts(dir).engine);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Engine& engine = **made;
  EngineInternal::BeginRestore(engine, 10);                          // a hint far too small is fine
  const Result<uint64_t> n = engine::RestoreNodes(*st, engine, 64);  // mid-batch
  EngineInternal::EndRestore(engine);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), StatusCode::kCorruption);
  EXPECT_NE(n.status().message().find("'" + named + "'"), std::string::npos)
      << n.status().ToString();
  EXPECT_NE(n.status().message().find(cause), std::string::npos) << n.status().ToString();
  EXPECT_TRUE(EngineInternal::Record(engine, "d1499").ok());
  EXPECT_TRUE(EngineInternal::Record(engine, "d3").ok());
  EXPECT_FALSE(EngineInternal::Record(engine, "d1500").ok());
  EXPECT_FALSE(EngineInternal::Record(engine, "d1501").ok());
  EXPECT_FALSE(EngineInternal::Record(engine, "d2599").ok());
}

TEST(RestoreNodesTest, DamagedRowInABatchIsNamedAndRowsAfterItAreNotRestored) {
  TempDir dir;
  MakeStore(dir.str());
  DamageRow(dir.str(), [](store::NodeRow* row) { row->sketches = "not a sketch"; });
  ExpectStopsAtRow1500(dir.str(), "d1500", "");
  auto refused = DurableEngine::Open(Opts(dir.str()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kCorruption);
  EXPECT_NE(refused.status().message().find("'d1500'"), std::string::npos)
      << refused.status().ToString();
}

// The reader thread's binding refuses what EngineInternal::Restore refuses,
// and leaves no id bound past the row it stopped at.
TEST(RestoreNodesTest, RowWhoseRootWasNeverRestoredStopsTheRestore) {
  TempDir dir;
  MakeStore(dir.str());
  DamageRow(dir.str(), [](store::NodeRow* row) { row->root = "no-such-root"; });
  ExpectStopsAtRow1500(dir.str(), "d1500", "root 'no-such-root' of 'd1500' is not restored");
}

TEST(RestoreNodesTest, RowWhoseRootIsAMemberStopsTheRestore) {
  TempDir dir;
  MakeStore(dir.str());
  std::string member;  // restored before d1500, in a cluster rooted elsewhere
  {
    std::unique_ptr<store::DocStore> st = OpenReadOnly(dir.str());
    ASSERT_NE(st, nullptr);
    ASSERT_TRUE(st->ScanNodes([&](const store::NodeRow& row) {
                    if (member.empty() && !row.root.empty()) member = row.id;
                    return Status::OK();
                  }).ok());
  }
  ASSERT_FALSE(member.empty());
  ASSERT_LT(std::stoi(member.substr(1)), 1500);
  DamageRow(dir.str(), [&](store::NodeRow* row) { row->root = member; });
  ExpectStopsAtRow1500(dir.str(), "d1500", "root '" + member + "' of 'd1500' is not restored");
}

TEST(RestoreNodesTest, IdRestoredTwiceStopsTheRestore) {
  TempDir dir;
  MakeStore(dir.str());
  DamageRow(dir.str(), [](store::NodeRow* row) {
    row->id = "d3";  // restored long before, in the first batch
    row->root.clear();
  });
  ExpectStopsAtRow1500(dir.str(), "d3", "restored document 'd3' already exists");
}

// An engine that already holds a document, or keeps its cluster orders
// (no BeginRestore), binds on the calling thread: the same records.
TEST(RestoreNodesTest, EngineThatIsNotEmptyOrKeepsOrdersRestoresTheSame) {
  TempDir dir;
  std::vector<std::string> ids;
  std::string records;
  {
    auto d = OpenOrDie(Opts(dir.str()));
    ids = Fill(*d);
    records = Records(EngineOf(*d), ids);
    ASSERT_TRUE(d->Close().ok());
  }
  std::unique_ptr<store::DocStore> st = OpenReadOnly(dir.str());
  ASSERT_NE(st, nullptr);
  for (bool holds_one : {true, false}) {
    auto made = Engine::Create(Opts(dir.str()).engine);
    ASSERT_TRUE(made.ok());
    Engine& engine = **made;
    if (holds_one) {
      ASSERT_TRUE(engine.Add({"earlier", "a document added before the restore", 1}).ok());
      EngineInternal::BeginRestore(engine, 0);
    }
    const Result<uint64_t> n = engine::RestoreNodes(*st, engine, 100);
    if (holds_one) EngineInternal::EndRestore(engine);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(Records(engine, ids), records) << holds_one;
    EXPECT_EQ(EngineInternal::Record(engine, "earlier").ok(), holds_one);
  }
}

}  // namespace
}  // namespace neardup
