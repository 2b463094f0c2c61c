// SPDX-License-Identifier: Apache-2.0
// CheckStore (store_check.h): every check that can be made without
// changing the store, each failure a line of the report.
#include "store/store_check.h"

#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "base/status_macros.h"
#include "store/commit_record.h"
#include "store/db_config.h"
#include "store/doc_store.h"
#include "store/rows.h"
#include "verify/form.h"

namespace neardup::store {
namespace {

namespace fs = std::filesystem;

// Table files in `dir`, and the count and bytes of all its files.
std::set<std::string> ListFiles(const std::string& dir, CheckReport* r) {
  std::set<std::string> tables;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    ++r->files;
    r->bytes += it->file_size(fec);
    if (it.depth() == 0 && it->path().extension() == ".sst") {
      tables.insert(it->path().filename().string());
    }
  }
  return tables;
}

// Reads every block of each table file and checks it against its checksum.
void VerifyTables(const std::string& dir, const std::map<std::string, std::string>& tables,
                  CheckReport* r) {
  const DbConfig c = MakeDbConfig(8u << 20, nullptr);
  const rocksdb::Options options(c.db, c.families[0].options);
  for (const auto& [name, family] : tables) {
    rocksdb::SstFileReader reader(options);
    rocksdb::Status s = reader.Open(dir + "/" + name);
    if (s.ok()) s = reader.VerifyChecksum();
    if (!s.ok()) {
      r->damage.push_back("table file " + name +
                          (family.empty() ? "" : " (family " + family + ")") + ": " + s.ToString());
    }
  }
}

// The verification forms against the document rows: each form parses and
// has its document; `formless` (id -> whether the row holds the text) are
// the documents, and it is left with those that have no form.
void CheckForms(DocStore& st, std::unordered_map<std::string, bool>* formless, CheckReport* r) {
  uint64_t unreadable = 0, orphans = 0;
  std::string first_unreadable;
  std::vector<uint64_t> shingles;
  Status s = st.ScanForms([&](std::string_view id, std::string_view form) {
    if (formless->erase(std::string(id)) == 0) ++orphans;
    if (!verify::ReadForm(form, &shingles).ok() && unreadable++ == 0) first_unreadable = id;
    return Status::OK();
  });
  if (!s.ok()) {
    r->damage.push_back("reading the verification forms: " + s.ToString());
    return;
  }
  if (unreadable > 0) {
    r->damage.push_back(std::to_string(unreadable) + " verification forms cannot be read (the " +
                        "first: document '" + first_unreadable +
                        "'): verifying a candidate pair with one of them fails");
  }
  if (orphans > 0) {
    r->damage.push_back(std::to_string(orphans) + " verification forms have no document row");
  }
  if (formless->empty()) return;
  uint64_t textless = 0;
  for (const auto& [id, has_text] : *formless) textless += !has_text;
  r->notes.push_back(std::to_string(formless->size()) +
                     " documents have no verification form (stored before forms existed, or "
                     "by a pipeline without a verifier); " +
                     std::to_string(formless->size() - textless) +
                     " of them have their text, from which a verifier reads them");
}

// The rows against each other (store_check.h).
void CheckRows(DocStore& st, CheckReport* r) {
  std::unordered_map<std::string, uint64_t> node_of;  // id -> seq
  uint64_t rootless = 0;
  Status s = st.ScanNodes([&](const NodeRow& row) {
    if (!row.root.empty() && node_of.count(row.root) == 0) ++rootless;
    node_of.emplace(row.id, row.seq);
    return Status::OK();
  });
  if (!s.ok()) {
    r->damage.push_back("reading the node rows: " + s.ToString());
    return;
  }
  r->node_rows = node_of.size();
  uint64_t matched = 0, docs_alone = 0;
  std::unordered_map<std::string, bool> formless;  // id -> has its text
  s = st.ScanDocs([&](std::string_view id, const DocRow& row) {
    formless.emplace(std::string(id), !row.text.empty());
    auto it = node_of.find(std::string(id));
    (it != node_of.end() && it->second == row.seq ? matched : docs_alone)++;
    return Status::OK();
  });
  if (!s.ok()) r->damage.push_back("reading the document rows: " + s.ToString());
  if (s.ok()) CheckForms(st, &formless, r);
  uint64_t ghosts = 0;
  Status t = st.ScanTimes([&](const TimeRow& row) {
    if (row.ghost && node_of.count(row.id) != 0) ++ghosts;
    return Status::OK();
  });
  if (!t.ok()) r->damage.push_back("reading the time rows: " + t.ToString());
  r->documents = r->node_rows - ghosts;
  if (!s.ok()) return;
  if (const uint64_t alone = r->node_rows - matched; alone > 0) {
    r->damage.push_back(std::to_string(alone) + " node rows have no document row");
  }
  if (docs_alone > 0) {
    r->damage.push_back(std::to_string(docs_alone) + " document rows have no node row");
  }
  if (rootless > 0) {
    r->damage.push_back(std::to_string(rootless) +
                        " documents belong to a cluster whose first document is missing");
  }
  if (Status c = st.VerifyNodeCount(r->node_rows); !c.ok()) r->damage.push_back(c.message());
}

}  // namespace

Status NotInUse(const std::string& dir) {
  // Read from /proc/locks rather than tried: opening and closing the LOCK
  // file here would release a lock this process holds on it (POSIX locks
  // belong to the process and go with any close of the file).
  struct stat st = {};
  if (::stat((dir + "/LOCK").c_str(), &st) != 0) return Status::OK();
  char want[64];
  std::snprintf(want, sizeof(want), "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string field;
    while (fields >> field) {
      if (field != want) continue;
      return Status::FailedPrecondition("store " + dir +
                                        " is open for writing (a running `neardup serve`?): "
                                        "stop it first");
    }
  }
  return Status::OK();
}

Result<CheckReport> CheckStore(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound("no store in " + dir);
  NEARDUP_RETURN_IF_ERROR(NotInUse(dir));
  CheckReport r;
  const std::set<std::string> on_disk = ListFiles(dir, &r);
  if (r.files == 0) return Status::NotFound("no store in " + dir + " (no files)");
  auto committed = CommitRecord::Read(dir);
  if (!committed.ok()) r.damage.push_back(committed.status().message());
  StoreOptions o;
  o.create_if_missing = false;
  o.read_only = true;
  o.skip_checks = true;
  o.block_cache_bytes = 8u << 20;
  auto st = DocStore::Open(dir, o);
  if (!st.ok()) {
    r.damage.push_back(st.status().message());
    std::map<std::string, std::string> tables;
    for (const auto& name : on_disk) tables.emplace(name, "");
    VerifyTables(dir, tables, &r);
    return r;
  }
  DocStore& store = **st;
  if (committed.ok()) {
    if (Status s = CheckAcknowledged(dir, *committed, store.LatestSequence()); !s.ok()) {
      r.damage.push_back(s.message());
    }
  }
  if (auto format = store.GetMeta("format"); !format.ok()) {
    r.damage.push_back("store " + dir + " has no format record");
  }
  std::map<std::string, std::string> live;
  for (const auto& t : store.Tables()) live.emplace(t.name, t.family);
  VerifyTables(dir, live, &r);
  std::string orphans;
  for (const auto& name : on_disk) {
    if (live.count(name) == 0) orphans += " " + name;
  }
  if (!orphans.empty()) {
    r.notes.push_back(
        "table files the MANIFEST does not list (leftovers of a crash, or tables "
        "the MANIFEST lost track of):" +
        orphans);
  }
  CheckRows(store, &r);
  return r;
}

}  // namespace neardup::store
