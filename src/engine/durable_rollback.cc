// SPDX-License-Identifier: Apache-2.0
// ReloadTrees (durable_impl.h): after a failed group commit, the trees the
// group changed are reloaded from the store, so memory and disk agree.
// Trees never merge, so a tree is a unit: its nodes are the ids whose
// stored root (or own id, for a root) is the tree's root, and the documents
// alone in their clusters that the group gathered into it.
#include <algorithm>
#include <map>
#include <set>

#include "base/status_macros.h"
#include "engine/durable_impl.h"

namespace neardup::engine {
namespace {

Result<store::NodeRow> StoredNode(const store::DocStore& st, const std::string& id) {
  NEARDUP_ASSIGN_OR_RETURN(store::DocRow doc, st.GetDoc(id));
  return st.GetNode(doc.seq);
}

// The root of `id`'s tree: from memory when it is there, else from the store.
Result<std::string> RootOf(const store::DocStore& st, const Engine& e, const std::string& id) {
  if (auto rec = EngineInternal::Record(e, id); rec.ok()) return rec->cluster;
  NEARDUP_ASSIGN_OR_RETURN(store::NodeRow row, StoredNode(st, id));
  return row.cluster();
}

Status ReloadTree(const store::DocStore& st, Engine& e, const std::string& root,
                  const std::set<std::string>& touched) {
  // Every id that may belong to the tree: what memory has, and the touched
  // ids (removed ones are gone from memory but still stored).
  std::set<std::string> ids = {root};
  if (auto c = e.GetCluster(root); c.ok()) ids.insert(c->members.begin(), c->members.end());
  for (const auto& id : touched) ids.insert(id);
  RemovalChanges ignored;
  std::set<std::string> erased;
  for (const auto& id : ids) {
    auto rec = EngineInternal::Record(e, id);
    if (rec.ok() && rec->cluster == root && !rec->ghost) {
      (void)EngineInternal::Erase(e, id, &ignored);  // a ghost root goes with its last member
      erased.insert(id);
    }
  }
  std::vector<store::NodeRow> rows;
  for (const auto& id : ids) {
    auto row = StoredNode(st, id);
    if (row.status().IsNotFound()) continue;  // never committed, or in another tree
    NEARDUP_RETURN_IF_ERROR(row.status());
    // A stored root that memory had in this tree was gathered into it by
    // the failed group (Engine::Impl::Gather): it is alone again.
    if (row->cluster() == root || (row->root.empty() && erased.contains(id))) {
      rows.push_back(std::move(*row));
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const store::NodeRow& a, const store::NodeRow& b) { return a.seq < b.seq; });
  for (const auto& row : rows) {
    const NodeRecord rec{row.id, row.cluster(), row.fingerprint, row.time};
    NEARDUP_RETURN_IF_ERROR(EngineInternal::Restore(e, rec, row.sketches));
  }
  for (const auto& row : rows) {
    auto t = st.GetTime(row.id);
    if (t.status().IsNotFound()) continue;
    NEARDUP_RETURN_IF_ERROR(t.status());
    NEARDUP_RETURN_IF_ERROR(EngineInternal::Touch(e, row.id, t->time));
    if (t->ghost) NEARDUP_RETURN_IF_ERROR(EngineInternal::MarkGhost(e, row.id));
  }
  return Status::OK();
}

}  // namespace

Status ReloadTrees(const store::DocStore& store, Engine& engine,
                   const std::vector<std::string>& ids) {
  std::map<std::string, std::set<std::string>> trees;  // root -> touched ids
  for (const auto& id : ids) {
    auto root = RootOf(store, engine, id);
    if (root.ok()) trees[*root].insert(id);
  }
  for (const auto& [root, touched] : trees) {
    NEARDUP_RETURN_IF_ERROR(ReloadTree(store, engine, root, touched));
  }
  return Status::OK();
}

}  // namespace neardup::engine
