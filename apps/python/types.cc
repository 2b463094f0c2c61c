// SPDX-License-Identifier: Apache-2.0
// The result types of the Python bindings: named tuples made once at import
// (collections.namedtuple with module="neardup", so they pickle), with a
// docstring per type and per field; and the conversions from the library's
// structs (common.h).
#include <map>

#include "python/common.h"

namespace neardup::python {
namespace {

struct FieldDoc {
  const char* name;
  const char* doc;
};
struct TypeDoc {
  const char* name;
  const char* doc;
  std::vector<FieldDoc> fields;
};

const std::vector<TypeDoc>& TypeDocs() {
  static const auto* docs = new std::vector<TypeDoc>{
      {"Match",
       "A near-duplicate and the evidence that found it.",
       {{"id", "the matched document's id"},
        {"signal", "the signal that found it: exact, minhash, simhash, ..."},
        {"distance", "the signal's distance (SimHash bits; 0 for exact), -1 if it has none"},
        {"similarity", "the signal's similarity or estimate, in [0, 1]"},
        {"verified", "the verifier's similarity, or None without a verifier"}}},
      {"AddResult",
       "What Engine.add answers for a new document.",
       {{"id", "the document's id"},
        {"cluster", "the id of the cluster's root document"},
        {"duplicate", "True if it joined an existing cluster"},
        {"cluster_size", "live members of the cluster, this document included"},
        {"fingerprint", "SimHash-64 with the simhash signal, else XXH3-64 of the text"},
        {"matches", "list of Match: verified near-duplicates, best first"},
        {"gathered",
         "ids that were alone in their clusters and joined this one (their cluster is now "
         "`cluster`)"}}},
      {"QueryResult",
       "What Engine.add would answer for a text, inserting nothing.",
       {{"cluster", "the cluster the text would join, or None if it is new"},
        {"cluster_size", "that cluster's live members (0 if new)"},
        {"fingerprint", "the text's fingerprint"},
        {"matches", "list of Match, best first"}}},
      {"Cluster",
       "A cluster and its members.",
       {{"id", "the cluster id: its root document's id"},
        {"size", "live members"},
        {"root_removed", "the root was removed; the id stays while members remain"},
        {"time", "the root's time in ms since the epoch (latest arrival or look-up)"},
        {"members", "member ids in the order they joined, at most the requested limit"}}},
      {"DocumentInfo",
       "The stored record of a live document (Engine.get).",
       {{"id", "the document's id"},
        {"cluster", "its cluster id"},
        {"fingerprint", "its fingerprint"},
        {"time", "its time in ms since the epoch"}}},
      {"ClusterSummary",
       "One line of a cluster list (Engine.clusters).",
       {{"id", "the cluster id"},
        {"representative", "the root, or its first live member when the root is removed"},
        {"size", "live members"},
        {"time", "the root's time in ms since the epoch"}}},
      {"Stats",
       "Engine counters and memory.",
       {{"documents", "live documents"},
        {"clusters", "clusters with at least one live member"},
        {"added", "successful adds since creation"},
        {"duplicates", "adds that joined an existing cluster"},
        {"removed", "removed documents"},
        {"index_bytes", "memory of every signal's index"},
        {"forest_bytes", "memory of the cluster forest"},
        {"id_bytes", "memory of the id table"},
        {"text_bytes", "normalized texts kept for verification"},
        {"threshold", "the similarity threshold in effect"},
        {"verified_from_forms", "candidates verified from stored verification forms"},
        {"verified_from_texts", "candidates verified from texts"},
        {"verified_doubted", "of those, verdicts from cut hashes too close to the threshold"}}},
      {"Explanation",
       "Why two texts are or are not near-duplicates (explain).",
       {{"duplicate", "the verdict of the engine's rule"},
        {"rule", "the rule that decided, in words"},
        {"similarity", "the verified similarity the rule compared"},
        {"threshold", "the threshold it was compared with"},
        {"normalized_a", "the first text after normalization"},
        {"normalized_b", "the second text after normalization"},
        {"shingles_a", "distinct shingles of the first text"},
        {"shingles_b", "distinct shingles of the second text"},
        {"shared_shingles", "shingles in both"},
        {"shared_examples", "some shared shingles, as text"},
        {"jaccard", "exact Jaccard similarity of the shingle sets"},
        {"containment", "|A and B| / min(|A|, |B|)"},
        {"edit_similarity", "1 - Levenshtein / longer length, or None for long texts"},
        {"minhash_estimate", "the MinHash estimate of the Jaccard similarity"},
        {"lsh_bands", "LSH bands"},
        {"lsh_equal_bands", "bands whose keys are equal"},
        {"candidate", "some signal proposes the pair"},
        {"simhash_distance", "Hamming distance of the SimHash-64 fingerprints"},
        {"steps", "how the verifier reached the similarity, one step a line"}}},
      {"DocumentRecord",
       "The stored record of a live document of a DurableEngine.",
       {{"id", "the document's id"},
        {"cluster", "its cluster id"},
        {"fingerprint", "its fingerprint"},
        {"arrival", "when it arrived, ms since the epoch"},
        {"time", "arrival raised by look-ups (the expiry clock)"},
        {"cluster_size", "live members of its cluster"},
        {"meta", "the meta dict given to add, or None"},
        {"text", "the text, when the store keeps texts, else None"}}},
      {"SimilarDocument",
       "A member of the same cluster, from DurableEngine.similar.",
       {{"id", "the member's id"},
        {"signal", "'cluster' for cluster members"},
        {"distance", "-1 for cluster members"},
        {"similarity", "its similarity to the document asked about"},
        {"verified", "the verified similarity, or None"},
        {"meta", "its meta dict, or None"},
        {"arrival", "when it arrived, ms since the epoch"},
        {"text", "its text, when the store keeps texts, else None"}}},
      {"DurableStats",
       "DurableEngine counters.",
       {{"engine", "the in-memory engine's Stats"},
        {"commits", "group commits written"},
        {"committed_docs", "documents acknowledged through them"},
        {"commit_errors", "failed commits"},
        {"expired_trees", "clusters removed by expiry"},
        {"expired_documents", "documents removed by expiry"},
        {"queue_depth", "documents waiting for the writer"},
        {"disk_bytes", "size of the store on disk"},
        {"store_cache_bytes", "RocksDB's block cache in use (bounded, 64 MiB)"},
        {"store_memtable_bytes", "RocksDB's memtables (bounded, about 64 MiB)"},
        {"restore_ms", "time the open took to rebuild memory"},
        {"restored_documents", "documents restored by the open"},
        {"ttl_ms", "the expiry age; 0 keeps documents forever"}}},
      {"ExpireReport",
       "What DurableEngine.expire removed.",
       {{"trees", "clusters removed"}, {"documents", "documents removed"}}},
      {"DedupLabels",
       "Batch dedup labels, one entry per input record (positions are 0-based indices "
       "into the input).",
       {{"cluster", "position of the first member of the record's cluster"},
        {"cluster_size", "size of the record's cluster"},
        {"kept", "position of the member its cluster keeps"},
        {"is_kept", "True for the records the dedup keeps"},
        {"skipped", "positions of records skipped as invalid (skip_invalid=True)"}}},
      {"DedupCluster",
       "A cluster of two or more records (dedup(..., emit='clusters')).",
       {{"cluster", "position of its first member"},
        {"size", "members"},
        {"kept", "position of the member it keeps"},
        {"members", "positions of its members, in input order"}}},
      {"GroupClusters",
       "Clusters of external candidate groups (cluster_groups); per member with a text.",
       {{"ids", "the members, in the order of the texts given"},
        {"cluster", "position in ids of the first member of each member's cluster"},
        {"kept", "position in ids of the member each member's cluster keeps"},
        {"cluster_size", "size of each member's cluster"}}},
  };
  return *docs;
}

std::map<std::string, py::object>& Types() {
  static auto* types = new std::map<std::string, py::object>();
  return *types;
}

template <typename... Args>
py::object Make(const char* name, Args&&... args) {
  return Type(name)(std::forward<Args>(args)...);
}

py::object Optional(const std::optional<double>& v) {
  return v ? py::object(py::float_(*v)) : py::object(py::none());
}

}  // namespace

py::object Type(const char* name) { return Types().at(name); }

void RegisterTypes(py::module_& m) {
  py::object namedtuple = py::module_::import("collections").attr("namedtuple");
  for (const TypeDoc& t : TypeDocs()) {
    py::list fields;
    for (const FieldDoc& f : t.fields) fields.append(f.name);
    py::object type = namedtuple(t.name, fields, py::arg("module") = "neardup");
    type.attr("__doc__") = t.doc;
    for (const FieldDoc& f : t.fields) type.attr(f.name).attr("__doc__") = f.doc;
    m.attr(t.name) = type;
    Types()[t.name] = type;
  }
}

py::object ToPython(const Match& m) {
  return Make("Match", m.id, m.signal, m.distance, m.similarity, Optional(m.verified));
}

py::list MatchList(const std::vector<Match>& matches) {
  py::list out(matches.size());
  for (size_t i = 0; i < matches.size(); ++i) out[i] = ToPython(matches[i]);
  return out;
}

py::object ToPython(const AddResult& r) {
  return Make("AddResult", r.id, r.cluster, r.duplicate, r.cluster_size, r.fingerprint,
              MatchList(r.matches), py::cast(r.gathered));
}

py::object ToPython(const QueryResult& r) {
  py::object cluster = r.cluster ? py::object(py::str(*r.cluster)) : py::object(py::none());
  return Make("QueryResult", cluster, r.cluster_size, r.fingerprint, MatchList(r.matches));
}

py::object ToPython(const ClusterInfo& c) {
  return Make("Cluster", c.id, c.size, c.root_removed, c.time, py::cast(c.members));
}

py::object ToPython(const DocumentInfo& d) {
  return Make("DocumentInfo", d.id, d.cluster, d.fingerprint, d.time);
}

py::object ToPython(const ClusterSummary& s) {
  return Make("ClusterSummary", s.id, s.representative, s.size, s.time);
}

py::object ToPython(const EngineStats& s) {
  return Make("Stats", s.documents, s.clusters, s.added, s.duplicates, s.removed, s.index_bytes,
              s.forest_bytes, s.id_bytes, s.text_bytes, s.threshold, s.verified_from_forms,
              s.verified_from_texts, s.verified_doubted);
}

py::object ToPython(const Explanation& x) {
  return Make("Explanation", x.duplicate, x.rule, x.similarity, x.threshold, x.normalized_a,
              x.normalized_b, x.shingles_a, x.shingles_b, x.shared_shingles,
              py::cast(x.shared_examples), x.jaccard, x.containment, Optional(x.edit_similarity),
              x.minhash_estimate, x.lsh_bands, x.lsh_equal_bands, x.candidate, x.simhash_distance,
              py::cast(x.steps));
}

}  // namespace neardup::python
