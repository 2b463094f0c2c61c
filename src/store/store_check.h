// SPDX-License-Identifier: Apache-2.0
//
// CheckStore and RepairStore: what `neardup store check` and `neardup store
// repair` do (docs/reliability.md, "Damaged stores").
//
// CheckStore reads the whole store and changes nothing: RocksDB's strict
// open (doc_store.h, Open), the commit record, every block of every table
// file against its checksum (file by file, so each damaged file is named),
// every row decoded, and the rows against each other: each node row has its
// document row and each document row its node row, each member's cluster
// root is there, each verification form parses (verify/form.h) and has its
// document row, and the node count matches the one the last write
// recorded. Documents without a form are a note (older stores). Table files that the MANIFEST does
// not list are reported as a note (after a crash they may be leftovers that RocksDB deletes).
//
// RepairStore never changes a store in place. It repairs a copy beside it,
// DIR.repair (table files hard-linked, the rest copied): RocksDB's RepairDB
// rebuilds the MANIFEST from the table files and the logs (log records that
// fail their checksum are skipped; a table that cannot be read whole is set
// aside), then the rows are made consistent again: a node row without its
// document row, or the reverse, is dropped with the document; a member
// whose cluster root is gone moves to a new cluster rooted at the earliest
// surviving member; a form that does not parse, or has no document, is
// dropped (its document is verified from its text); the node count and the commit record are
// rewritten. The report says what was given up. With `apply`, DIR is renamed to DIR.damaged-<unix
// time> (kept, never deleted) and the copy takes its place; without, the copy is deleted.
//
// Both refuse a store open for writing (by a running service, in this
// process or another) with FailedPrecondition. Other errors: NotFound (no
// store in DIR), IOError.
#ifndef NEARDUP_STORE_STORE_CHECK_H_
#define NEARDUP_STORE_STORE_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/status.h"

namespace neardup::store {

struct CheckReport {
  std::vector<std::string> damage;  // one line each; empty: the store is sound
  std::vector<std::string> notes;   // facts that are not damage
  uint64_t documents = 0;           // live documents (node rows less ghost roots)
  uint64_t node_rows = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  bool ok() const { return damage.empty(); }
};

Result<CheckReport> CheckStore(const std::string& dir);

// OK unless another holder has the store open for writing (RocksDB's LOCK):
// FailedPrecondition.
Status NotInUse(const std::string& dir);

struct RepairReport {
  CheckReport before;
  std::vector<std::string> lost;  // what the repair gives up, one line each
  uint64_t documents = 0;         // live documents after the repair
  bool applied = false;
  std::string kept;  // with apply: where the damaged store now is
};

Result<RepairReport> RepairStore(const std::string& dir, bool apply);

}  // namespace neardup::store

#endif  // NEARDUP_STORE_STORE_CHECK_H_
