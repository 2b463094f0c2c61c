// SPDX-License-Identifier: Apache-2.0
// A damaged store is refused as it is, CheckStore names the damage, and
// RepairStore recovers what can be recovered and says what it gave up. One
// test per kind of damage: MANIFEST, CURRENT, table files and the
// write-ahead log, cut short, deleted or with a flipped bit. A "crash" is a
// copy of the directory taken while the store is open: the log holds what
// no table does yet.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "store/doc_store.h"
#include "store/store_check.h"
#include "verify/form.h"

namespace neardup::store {
namespace {

namespace fs = std::filesystem;

std::string CorruptDir(const std::string& tag) {
  auto p = fs::temp_directory_path() / ("neardup_corrupt_" + tag + "_" + std::to_string(getpid()));
  fs::remove_all(p);
  return p.string();
}

// Documents 0..n-1: every third starts a cluster, the next two join it.
void AddDocs(DocStore& st, uint64_t from, uint64_t to) {
  DocStore::Batch b;
  st.Prepare(&b);
  for (uint64_t i = from; i < to; ++i) {
    const std::string id = "d" + std::to_string(i);
    const std::string root = i % 3 == 0 ? "" : "d" + std::to_string(i - i % 3);
    b.PutNode({i, id, root, i * 7919, static_cast<int64_t>(i), "sketch"});
    b.PutDoc(id, {i, static_cast<int64_t>(i), "{}", std::string(200, 'a' + i % 26)});
    b.PutTime({id, static_cast<int64_t>(i), false});
  }
  ASSERT_TRUE(st.Write(&b, true).ok());
}

// Every regular file with its size, and the first bytes' hash of content.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    out[fs::relative(e.path(), dir).string()] = std::to_string(std::hash<std::string>()(content));
  }
  return out;
}

void CopyDir(const std::string& from, const std::string& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
  fs::remove(fs::path(to) / "LOCK");
}

std::vector<std::string> FilesLike(const std::string& dir, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(part) != std::string::npos) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void FlipBit(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char c = 0;
  f.get(c);
  c ^= 0x10;
  f.seekp(offset);
  f.put(c);
}

uint64_t Documents(const std::string& dir) {
  auto st = DocStore::Open(dir, {});
  EXPECT_TRUE(st.ok()) << st.status().ToString();
  if (!st.ok()) return 0;
  uint64_t n = 0;
  EXPECT_TRUE((*st)->ScanNodes([&](const NodeRow&) { return ++n, Status::OK(); }).ok());
  return n;
}

bool Mentions(const std::vector<std::string>& lines, const std::string& word) {
  for (const auto& l : lines) {
    if (l.find(word) != std::string::npos) return true;
  }
  return false;
}

class StoreCorruptionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& d : dirs_) {
      fs::remove_all(d);
      for (const auto& e : fs::directory_iterator(fs::path(d).parent_path())) {
        if (e.path().string().rfind(d + ".damaged-", 0) == 0) fs::remove_all(e.path());
      }
    }
  }
  std::string NewDir(const std::string& tag) {
    dirs_.push_back(CorruptDir(tag));
    return dirs_.back();
  }

  // A store of 300 documents in three table files (flushed after 100, 200,
  // 300), then 60 more only in the log, copied "at the crash" to `crashed`.
  // Returns the MANIFEST's size after the first flush.
  static std::vector<DocStore::TableFile> Tables(const std::string& dir,
                                                 const std::string& family) {
    StoreOptions o;
    o.read_only = true;
    auto st = DocStore::Open(dir, o);
    EXPECT_TRUE(st.ok());
    std::vector<DocStore::TableFile> out;
    if (!st.ok()) return out;
    for (const auto& t : (*st)->Tables()) {
      if (t.family == family) out.push_back(t);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
  }

  uint64_t BuildCrashed(const std::string& dir, const std::string& crashed) {
    auto st = DocStore::Open(dir, {});
    EXPECT_TRUE(st.ok());
    uint64_t manifest_after_first = 0;
    for (uint64_t part = 0; part < 3; ++part) {
      AddDocs(**st, part * 100, part * 100 + 100);
      EXPECT_TRUE((*st)->Flush().ok());
      if (part == 0) manifest_after_first = fs::file_size(FilesLike(dir, "MANIFEST").back());
    }
    AddDocs(**st, 300, 360);
    CopyDir(dir, crashed);
    return manifest_after_first;
  }

  // The store in `dir` is refused, untouched, and reported by CheckStore.
  void ExpectRefused(const std::string& dir, const std::string& what) {
    const auto before = Snapshot(dir);
    auto st = DocStore::Open(dir, {});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.status().code(), StatusCode::kCorruption) << st.status().ToString();
    EXPECT_NE(st.status().message().find(what), std::string::npos) << st.status().ToString();
    EXPECT_EQ(Snapshot(dir), before) << "a refused open changed the store";
    auto report = CheckStore(dir);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_FALSE(report->ok());
    EXPECT_TRUE(Mentions(report->damage, what)) << ::testing::PrintToString(report->damage);
    EXPECT_EQ(Snapshot(dir), before) << "CheckStore changed the store";
  }

  // Repairs `dir`: a dry run changes nothing, --yes leaves a sound store of
  // `documents` node rows and keeps the damaged one. Returns the lost lines.
  std::vector<std::string> ExpectRepaired(const std::string& dir, uint64_t documents) {
    const auto before = Snapshot(dir);
    auto dry = RepairStore(dir, false);
    EXPECT_TRUE(dry.ok()) << dry.status().ToString();
    if (!dry.ok()) return {};
    EXPECT_FALSE(dry->applied);
    EXPECT_EQ(dry->documents, documents);
    EXPECT_EQ(Snapshot(dir), before) << "a repair without apply changed the store";
    EXPECT_FALSE(fs::exists(dir + ".repair"));
    auto done = RepairStore(dir, true);
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    if (!done.ok()) return {};
    EXPECT_TRUE(done->applied);
    EXPECT_EQ(done->lost, dry->lost);
    EXPECT_EQ(Snapshot(done->kept), before) << "the damaged store is kept as it was";
    auto check = CheckStore(dir);
    EXPECT_TRUE(check.ok() && check->ok()) << ::testing::PrintToString(check->damage);
    EXPECT_EQ(Documents(dir), documents);
    return done->lost;
  }

 private:
  std::vector<std::string> dirs_;
};

TEST_F(StoreCorruptionTest, SoundStoreChecksAndReopensAfterACrash) {
  const std::string dir = NewDir("sound"), crashed = NewDir("sound_crash");
  BuildCrashed(dir, crashed);
  auto report = CheckStore(crashed);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok()) << ::testing::PrintToString(report->damage);
  EXPECT_EQ(report->documents, 360u);
  EXPECT_EQ(Documents(crashed), 360u);
  auto repair = RepairStore(crashed, true);
  ASSERT_TRUE(repair.ok());
  EXPECT_FALSE(repair->applied);  // nothing to repair
  // A store open for writing is refused, in this process too.
  auto st = DocStore::Open(crashed, {});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(CheckStore(crashed).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(RepairStore(crashed, true).status().code(), StatusCode::kFailedPrecondition);
}

// Verification forms: one that does not parse and one whose document is
// gone are damage (RocksDB's checksums pass: the bytes are as written);
// the repair drops both and keeps every document, which is then verified
// from its text. Documents without a form are a note, not damage.
TEST_F(StoreCorruptionTest, UnreadableAndOrphanFormsAreNamedAndDropped) {
  const std::string dir = NewDir("forms");
  {
    auto st = DocStore::Open(dir, {});
    ASSERT_TRUE(st.ok());
    AddDocs(**st, 0, 30);
    DocStore::Batch b;
    (*st)->Prepare(&b);
    std::string form;
    for (int i = 0; i < 20; ++i) {
      verify::MakeForm(nullptr, "text " + std::to_string(i), &form);
      b.PutForm("d" + std::to_string(i), form);
    }
    b.PutForm("d20", "\x7f not a form");
    b.PutForm("gone", form);
    ASSERT_TRUE((*st)->Write(&b, true).ok());
  }
  auto report = CheckStore(dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->documents, 30u);
  EXPECT_EQ(report->damage,
            (std::vector<std::string>{
                "1 verification forms cannot be read (the first: document 'd20'): verifying a "
                "candidate pair with one of them fails",
                "1 verification forms have no document row"}));
  EXPECT_TRUE(Mentions(report->notes, "9 documents have no verification form"))
      << ::testing::PrintToString(report->notes);
  const std::vector<std::string> lost = ExpectRepaired(dir, 30);
  EXPECT_TRUE(Mentions(lost, "1 verification forms that could not be read were dropped"));
  EXPECT_TRUE(Mentions(lost, "1 verification forms without a document row were dropped"));
  auto st = DocStore::Open(dir, {});
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE((*st)->GetForm("d19").ok());
  EXPECT_TRUE((*st)->GetForm("d20").status().IsNotFound());
  EXPECT_TRUE((*st)->GetForm("gone").status().IsNotFound());
  st->reset();
  auto again = CheckStore(dir);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(Mentions(again->notes, "10 documents have no verification form"));
}

TEST_F(StoreCorruptionTest, TruncatedManifestIsRefusedAndItsTablesRecovered) {
  const std::string dir = NewDir("manifest"), crashed = NewDir("manifest_crash");
  const uint64_t first = BuildCrashed(dir, crashed);
  // The MANIFEST loses the records of the second and third flush: RocksDB
  // alone opened this and deleted the two tables it no longer knew.
  fs::resize_file(FilesLike(crashed, "MANIFEST").back(), first);
  ExpectRefused(crashed, "MANIFEST");
  ExpectRepaired(crashed, 360);
}

TEST_F(StoreCorruptionTest, DeletedManifestIsRefusedAndRebuilt) {
  const std::string dir = NewDir("nomanifest"), crashed = NewDir("nomanifest_crash");
  BuildCrashed(dir, crashed);
  for (const auto& m : FilesLike(crashed, "MANIFEST")) fs::remove(m);
  ExpectRefused(crashed, "MANIFEST");
  ExpectRepaired(crashed, 360);
}

TEST_F(StoreCorruptionTest, DeletedCurrentIsRefusedNotReplacedByAnEmptyStore) {
  const std::string dir = NewDir("nocurrent"), crashed = NewDir("nocurrent_crash");
  BuildCrashed(dir, crashed);
  fs::remove(fs::path(crashed) / "CURRENT");
  ExpectRefused(crashed, "CURRENT");
  ExpectRepaired(crashed, 360);
}

TEST_F(StoreCorruptionTest, EmptyOrGarbledCurrentIsRefused) {
  const std::string dir = NewDir("badcurrent"), crashed = NewDir("badcurrent_crash");
  BuildCrashed(dir, crashed);
  fs::resize_file(fs::path(crashed) / "CURRENT", 0);
  ExpectRefused(crashed, "CURRENT");
  std::ofstream(fs::path(crashed) / "CURRENT") << "MANIFEST-999999\n";
  ExpectRefused(crashed, "MANIFEST-999999");
  ExpectRepaired(crashed, 360);
}

TEST_F(StoreCorruptionTest, DeletedOrTruncatedTableIsRefused) {
  const std::string dir = NewDir("table"), crashed = NewDir("table_crash");
  BuildCrashed(dir, crashed);
  const auto tables = Tables(crashed, "docs");
  ASSERT_EQ(tables.size(), 3u);
  const std::string path = crashed + "/" + tables[0].name;
  const std::string number = fs::path(path).stem();  // RocksDB names 000012.sst or .ldb
  fs::resize_file(path, fs::file_size(path) / 2);
  ExpectRefused(crashed, number);
  fs::remove(path);
  ExpectRefused(crashed, number);
  // The first flush's table of the docs family held the document rows of
  // 0..99: the repair drops those documents and says so.
  const auto lost = ExpectRepaired(crashed, 260);
  EXPECT_TRUE(Mentions(lost, "lost")) << ::testing::PrintToString(lost);
}

TEST_F(StoreCorruptionTest, FlippedBitInATableIsRefusedAndNamed) {
  const std::string dir = NewDir("flip"), crashed = NewDir("flip_crash");
  BuildCrashed(dir, crashed);
  const auto tables = Tables(crashed, "nodes");
  ASSERT_EQ(tables.size(), 3u);
  const std::string nodes_table = tables[0].name;
  FlipBit(crashed + "/" + nodes_table, 40);  // inside the first data block
  ExpectRefused(crashed, nodes_table);
  // The table is set aside whole: its 100 node rows, and with them the 100
  // documents (their other rows are dropped too); the rest is recovered.
  const auto lost = ExpectRepaired(crashed, 260);
  EXPECT_TRUE(Mentions(lost, "100 documents dropped")) << ::testing::PrintToString(lost);
}

TEST_F(StoreCorruptionTest, DeletedLogAfterACrashIsRefused) {
  const std::string dir = NewDir("nolog"), crashed = NewDir("nolog_crash");
  BuildCrashed(dir, crashed);
  for (const auto& l : FilesLike(crashed, ".log")) fs::remove(l);
  ExpectRefused(crashed, "write-ahead log");
  const auto lost = ExpectRepaired(crashed, 300);
  EXPECT_TRUE(Mentions(lost, "arrival numbers 300 to 359")) << ::testing::PrintToString(lost);
}

TEST_F(StoreCorruptionTest, TruncatedLogIsRefused) {
  const std::string dir = NewDir("cutlog"), crashed = NewDir("cutlog_crash");
  BuildCrashed(dir, crashed);
  const auto logs = FilesLike(crashed, ".log");
  ASSERT_FALSE(logs.empty());
  fs::resize_file(logs.back(), fs::file_size(logs.back()) / 2);
  ExpectRefused(crashed, "write-ahead log");
  ExpectRepaired(crashed, 300);
}

TEST_F(StoreCorruptionTest, FlippedBitInTheLogIsRefused) {
  const std::string dir = NewDir("fliplog"), crashed = NewDir("fliplog_crash");
  BuildCrashed(dir, crashed);
  const auto logs = FilesLike(crashed, ".log");
  ASSERT_FALSE(logs.empty());
  FlipBit(logs.back(), fs::file_size(logs.back()) / 2);
  ExpectRefused(crashed, "checksum");
  // The only record in the log is the batch of documents 300..359.
  const auto lost = ExpectRepaired(crashed, 300);
  EXPECT_TRUE(Mentions(lost, "RocksDB")) << ::testing::PrintToString(lost);
}

TEST_F(StoreCorruptionTest, DeletedLogAfterACleanCloseLosesNothing) {
  const std::string dir = NewDir("cleanlog");
  {
    auto st = DocStore::Open(dir, {});
    ASSERT_TRUE(st.ok());
    AddDocs(**st, 0, 50);
  }  // flushed on close
  for (const auto& l : FilesLike(dir, ".log")) fs::remove(l);
  EXPECT_EQ(Documents(dir), 50u);
}

TEST_F(StoreCorruptionTest, DiskBytesIsTheDirectorysSize) {
  const std::string dir = NewDir("size");
  auto st = DocStore::Open(dir, {});
  ASSERT_TRUE(st.ok());
  AddDocs(**st, 0, 300);
  ASSERT_TRUE((*st)->Flush().ok());
  AddDocs(**st, 300, 400);  // in the log only
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  EXPECT_EQ((*st)->DiskBytes(), total);
  EXPECT_GT(total, 400u * 200);  // at least the texts
}

}  // namespace
}  // namespace neardup::store
