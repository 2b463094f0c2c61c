// SPDX-License-Identifier: Apache-2.0
// RepairStore (store_check.h): RocksDB's RepairDB on a copy of the store,
// then the rows made consistent again, then (when asked) the swap.
#include <rocksdb/db.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "base/status_macros.h"
#include "store/commit_record.h"
#include "store/db_config.h"
#include "store/doc_store.h"
#include "store/rows.h"
#include "store/store_check.h"
#include "verify/form.h"

namespace neardup::store {
namespace {

namespace fs = std::filesystem;

// Copies the files of `from` into `to` (created): tables are immutable and
// hard-linked when the file system allows, the rest copied.
Status CopyStore(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::create_directory(to, ec);
  if (ec) return Status::IOError("cannot create " + to + ": " + ec.message());
  for (const auto& e : fs::directory_iterator(from, ec)) {
    std::error_code fec;
    if (!e.is_regular_file(fec) || e.path().filename() == "LOCK") continue;
    const fs::path dest = fs::path(to) / e.path().filename();
    if (e.path().extension() == ".sst") {
      fs::create_hard_link(e.path(), dest, fec);
      if (!fec) continue;
      fec.clear();
    }
    fs::copy_file(e.path(), dest, fec);
    if (fec) return Status::IOError("cannot copy " + e.path().string() + ": " + fec.message());
  }
  if (ec) return Status::IOError("cannot list " + from + ": " + ec.message());
  return Status::OK();
}

// What RocksDB's repair says about what it skipped or set aside, without
// its source location; empty when the line says nothing of that.
std::string Reportable(std::string_view line) {
  if (line.find("Repaired rocksdb") != std::string_view::npos) return "";
  for (const char* w : {"dropping", "ignoring", "Corruption", "corrupt", "lost"}) {
    if (line.find(w) == std::string_view::npos) continue;
    if (line.front() == '[' && line.find("] ") != std::string_view::npos) {
      line.remove_prefix(line.find("] ") + 2);
    }
    return std::string(line);
  }
  return "";
}

// The largest file number among the store's files.
uint64_t LargestFileNumber(const std::string& dir) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("MANIFEST-", 0) == 0) name.erase(0, 9);
    n = std::max<uint64_t>(n, std::strtoull(name.c_str(), nullptr, 10));
  }
  return n;
}

// RepairDB knows a column family only from a table of it, and drops every
// log record that writes to one it does not know: with the only table of a
// family lost, every logged write would go too. So the copy gets a table of
// each family, made by a scratch store created the way stores are (the
// same family ids) and holding one deletion of a key no row has.
Status AddFamilyTables(const std::string& copy) {
  const std::string scratch = copy + ".families";
  std::error_code ec;
  fs::remove_all(scratch, ec);
  DbConfig c = MakeDbConfig(1u << 20, nullptr);
  c.db.create_if_missing = true;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(c.db, scratch, c.families, &handles, &raw);
  std::unique_ptr<rocksdb::DB> db(raw);
  for (size_t i = 0; s.ok() && i < handles.size(); ++i) {
    s = db->Delete(rocksdb::WriteOptions(), handles[i], "\xff neardup repair: no such row");
  }
  if (s.ok()) s = db->Flush(rocksdb::FlushOptions(), handles);
  std::vector<rocksdb::LiveFileMetaData> files;
  if (s.ok()) db->GetLiveFilesMetaData(&files);
  for (auto* h : handles) (void)db->DestroyColumnFamilyHandle(h);
  db.reset();
  uint64_t number = LargestFileNumber(copy) + 1;
  for (const auto& f : files) {
    char name[32];
    std::snprintf(name, sizeof(name), "/%06llu.sst", static_cast<unsigned long long>(number++));
    fs::copy_file(scratch + f.name, copy + name, ec);
    if (ec) break;
  }
  fs::remove_all(scratch);
  if (!s.ok()) return Status::IOError("making the tables of the column families: " + s.ToString());
  if (ec) return Status::IOError("copying a table of the column families: " + ec.message());
  return Status::OK();
}

struct Tally {
  uint64_t kept = 0, ghosts = 0, dropped = 0, docs_dropped = 0, moved = 0;
  uint64_t forms_unreadable = 0, forms_orphaned = 0;
};

// Makes the rows of the repaired copy consistent (store_check.h).
Status Reconcile(DocStore& st, Tally* t) {
  std::unordered_map<std::string, uint64_t> doc_seq;
  NEARDUP_RETURN_IF_ERROR(st.ScanDocs([&](std::string_view id, const DocRow& row) {
    doc_seq.emplace(std::string(id), row.seq);
    return Status::OK();
  }));
  DocStore::Batch b;
  st.Prepare(&b);
  std::unordered_set<std::string> kept;
  std::unordered_map<std::string, std::string> new_root;  // lost root -> its successor
  NEARDUP_RETURN_IF_ERROR(st.ScanNodes([&](const NodeRow& row) {
    auto d = doc_seq.find(row.id);
    if (d == doc_seq.end() || d->second != row.seq || kept.count(row.id) != 0) {
      b.DeleteNodeRow(row.seq);
      ++t->dropped;
      return Status::OK();
    }
    if (!row.root.empty() && kept.count(row.root) == 0) {
      NodeRow moved = row;
      auto [it, first] = new_root.emplace(row.root, row.id);
      moved.root = first ? std::string() : it->second;
      b.PutNode(moved);
      ++t->moved;
    }
    kept.insert(row.id);
    return Status::OK();
  }));
  for (const auto& [id, seq] : doc_seq) {
    if (kept.count(id) == 0) {
      b.DeleteDocRow(id);
      b.DeleteFormRow(id);
      ++t->docs_dropped;
    }
  }
  std::vector<uint64_t> shingles;
  NEARDUP_RETURN_IF_ERROR(st.ScanForms([&](std::string_view id, std::string_view form) {
    const std::string key(id);
    if (doc_seq.count(key) == 0) {
      b.DeleteFormRow(id);
      ++t->forms_orphaned;
    } else if (kept.count(key) != 0 && !verify::ReadForm(form, &shingles).ok()) {
      b.DeleteFormRow(id);
      ++t->forms_unreadable;
    }
    return Status::OK();
  }));
  NEARDUP_RETURN_IF_ERROR(st.ScanTimes([&](const TimeRow& row) {
    if (kept.count(row.id) == 0) {
      b.DeleteTimeRow(row.id);
    } else if (row.ghost) {
      ++t->ghosts;
    }
    return Status::OK();
  }));
  if (!st.GetMeta("format").ok()) b.PutMeta("format", kFormat);
  NEARDUP_RETURN_IF_ERROR(st.Write(&b, true));
  t->kept = kept.size();
  return st.SetNodeCount(t->kept);
}

// Runs the repair in `copy`, adding to `rep` what it gives up.
Status RepairCopy(const std::string& copy, const std::optional<Committed>& committed,
                  RepairReport* rep) {
  NEARDUP_RETURN_IF_ERROR(AddFamilyTables(copy));
  std::vector<std::string> log;
  const DbConfig c = MakeDbConfig(8u << 20, [&](std::string_view m) {
    if (std::string line = Reportable(m); !line.empty()) log.push_back(std::move(line));
  });
  const rocksdb::Status s = rocksdb::RepairDB(copy, c.db, c.families, c.families[0].options);
  if (!s.ok())
    return Status::IOError("RocksDB could not repair the copy " + copy + ": " + s.ToString());
  for (auto& line : log) rep->lost.push_back("RocksDB: " + line);
  std::error_code ec;
  fs::remove_all(fs::path(copy) / "lost", ec);  // the original keeps them
  StoreOptions o;
  o.create_if_missing = false;
  o.skip_checks = true;
  NEARDUP_ASSIGN_OR_RETURN(auto st, DocStore::Open(copy, o));
  const uint64_t recovered = st->LatestSequence();
  std::optional<uint64_t> recorded;
  if (auto v = st->GetMeta(kNodeCountKey); v.ok()) recorded = std::stoull(*v);
  if (!st->GetMeta("pipeline").ok()) {
    rep->lost.push_back(
        "the pipeline record is lost: the next open adopts the profile it is given");
  }
  Tally t;
  NEARDUP_RETURN_IF_ERROR(Reconcile(*st, &t));
  rep->documents = t.kept - t.ghosts;
  if (t.dropped + t.docs_dropped > 0) {
    rep->lost.push_back(std::to_string(t.dropped + t.docs_dropped) +
                        " documents dropped: their node row or document row was lost");
  }
  if (t.forms_unreadable > 0) {
    rep->lost.push_back(std::to_string(t.forms_unreadable) +
                        " verification forms that could not be read were dropped: their "
                        "documents are verified from their texts");
  }
  if (t.forms_orphaned > 0) {
    rep->lost.push_back(std::to_string(t.forms_orphaned) +
                        " verification forms without a document row were dropped");
  }
  if (t.moved > 0) {
    rep->lost.push_back(std::to_string(t.moved) +
                        " documents moved to a new cluster (the first document of theirs was "
                        "lost; the earliest surviving member is the new first)");
  }
  if (recorded && *recorded > t.kept) {
    rep->lost.push_back("the last surviving write left " + std::to_string(*recorded) +
                        " documents (node rows); the repaired store holds " +
                        std::to_string(t.kept) + ": " + std::to_string(*recorded - t.kept) +
                        " lost");
  }
  if (committed && committed->sequence > recovered) {
    NEARDUP_ASSIGN_OR_RETURN(const uint64_t next, st->NextSeq());
    std::string docs;
    if (committed->next_node > next) {
      docs = "; documents with arrival numbers " + std::to_string(next) + " to " +
             std::to_string(committed->next_node - 1) + " (at most " +
             std::to_string(committed->next_node - next) + ") are among them";
    }
    rep->lost.push_back("acknowledged writes " + std::to_string(recovered + 1) + " to " +
                        std::to_string(committed->sequence) +
                        " are in no file (the write-ahead log that held them is missing or "
                        "cut short)" +
                        docs);
  }
  return Status::OK();
}

}  // namespace

Result<RepairReport> RepairStore(const std::string& dir_in, bool apply) {
  std::string dir = dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  RepairReport rep;
  NEARDUP_ASSIGN_OR_RETURN(rep.before, CheckStore(dir));
  if (rep.before.ok()) {
    rep.documents = rep.before.documents;
    return rep;
  }
  auto committed = CommitRecord::Read(dir);  // a damaged record counts as none
  const std::string copy = dir + ".repair";
  std::error_code ec;
  fs::remove_all(copy, ec);
  Status s = CopyStore(dir, copy);
  if (s.ok()) s = RepairCopy(copy, committed.ok() ? *committed : std::nullopt, &rep);
  if (!s.ok() || !apply) {
    fs::remove_all(copy, ec);
    if (!s.ok()) return s;
    return rep;
  }
  rep.kept = dir + ".damaged-" + std::to_string(std::time(nullptr));
  fs::rename(dir, rep.kept, ec);
  if (ec) return Status::IOError("cannot move " + dir + " aside: " + ec.message());
  fs::rename(copy, dir, ec);
  if (ec) return Status::IOError("cannot move the repaired store to " + dir + ": " + ec.message());
  rep.applied = true;
  return rep;
}

}  // namespace neardup::store
