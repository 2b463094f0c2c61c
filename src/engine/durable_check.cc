// SPDX-License-Identifier: Apache-2.0
// CheckStore and RepairStore of the public API (durable_engine.h): the
// store module's check and repair (store/store_check.h), in public types.
#include "base/status_macros.h"
#include "neardup/durable_engine.h"
#include "store/store_check.h"

namespace neardup {
namespace {

StoreCheck FromStore(store::CheckReport r) {
  StoreCheck c;
  c.damage = std::move(r.damage);
  c.notes = std::move(r.notes);
  c.documents = r.documents;
  c.files = r.files;
  c.bytes = r.bytes;
  return c;
}

}  // namespace

Result<StoreCheck> CheckStore(const std::string& dir) {
  NEARDUP_ASSIGN_OR_RETURN(store::CheckReport r, store::CheckStore(dir));
  return FromStore(std::move(r));
}

Result<StoreRepair> RepairStore(const std::string& dir, bool apply) {
  NEARDUP_ASSIGN_OR_RETURN(store::RepairReport r, store::RepairStore(dir, apply));
  StoreRepair out;
  out.before = FromStore(std::move(r.before));
  out.lost = std::move(r.lost);
  out.documents = r.documents;
  out.applied = r.applied;
  out.kept = std::move(r.kept);
  return out;
}

}  // namespace neardup
