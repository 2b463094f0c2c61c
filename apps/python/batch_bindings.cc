// SPDX-License-Identifier: Apache-2.0
// neardup.dedup (the batch pipeline of `neardup dedup`, through
// BatchClusterDocuments, include/neardup/batch.h) and neardup.cluster_groups
// (GroupClusterer, include/neardup/group_cluster.h). Both convert their input
// with the GIL held, then run on every core with the GIL released.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "neardup/batch.h"
#include "neardup/group_cluster.h"
#include "python/common.h"

namespace neardup::python {
namespace {

// "512M", "2G", "1.5GiB" or a number of bytes, as the CLI's --memory.
uint64_t MemoryOf(py::handle v) {
  if (v.is_none()) return 0;
  if (py::isinstance<py::int_>(v)) return v.cast<uint64_t>();
  const std::string s = v.cast<std::string>();
  double x = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  std::string unit(p, s.data() + s.size());
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (!unit.empty() && unit.back() == 'I') unit.pop_back();
  const std::string units = "KMGT";
  const size_t power = unit.empty() ? 0 : units.find(unit) + 1;
  if (ec != std::errc() || x < 0 || unit.size() > 1 || power == std::string::npos + 1) {
    throw py::value_error("bad memory size '" + s + "' (e.g. 512M, 4G)");
  }
  return static_cast<uint64_t>(std::llround(x * std::pow(1024.0, static_cast<double>(power))));
}

// One record of dedup's input: a str (the text; the id is its line number,
// as the CLI gives records without an id), an (id, text) pair, or a dict.
// Returns false when the record is invalid (why in *error).
bool RecordOf(py::handle item, const Fields& fields, size_t position, Document* d,
              std::string* error) {
  PyObject* o = item.ptr();
  py::handle id, text;
  if (PyUnicode_Check(o) || PyBytes_Check(o)) {
    text = item;
  } else if (PyDict_Check(o)) {
    text = PyDict_GetItemString(o, fields.text_field.c_str());
    id = PyDict_GetItemString(o, fields.id_field.c_str());
    if (!text) return *error = "missing field '" + fields.text_field + "'", false;
  } else if ((PyTuple_Check(o) || PyList_Check(o)) && PySequence_Fast_GET_SIZE(o) == 2) {
    id = PySequence_Fast_GET_ITEM(o, 0);
    text = PySequence_Fast_GET_ITEM(o, 1);
  } else {
    return *error = std::string("expected a str, an (id, text) pair or a dict, not ") +
                    Py_TYPE(o)->tp_name,
           false;
  }
  if (!PyUnicode_Check(text.ptr()) && !PyBytes_Check(text.ptr())) {
    return *error = "the text is not a str", false;
  }
  if (id && !id.is_none()) {
    if (!PyUnicode_Check(id.ptr()) && !(PyLong_Check(id.ptr()) && !PyBool_Check(id.ptr()))) {
      return *error = "field '" + fields.id_field + "' must be a string or an integer", false;
    }
    d->id = IdOf(id);
    if (d->id.empty()) return *error = "the id is empty", false;
  } else {
    d->id = std::to_string(position + 1);  // the line number
  }
  try {
    d->text = TextOf(text);
  } catch (py::error_already_set& e) {  // a str with lone surrogates
    return *error = e.what(), false;
  }
  return true;
}

// The input position of a spool line in "<tmp>/documents.jsonl:LINE: reason",
// and where the reason starts.
std::optional<std::pair<uint32_t, size_t>> SpoolPosition(const std::string& m,
                                                         const std::vector<uint32_t>& where) {
  const std::string spool = "/documents.jsonl:";
  const size_t at = m.find(spool);
  if (at == std::string::npos) return std::nullopt;
  const size_t begin = at + spool.size(), colon = m.find(':', begin);
  if (colon == std::string::npos) return std::nullopt;
  uint64_t line = 0;
  auto [p, ec] = std::from_chars(m.data() + begin, m.data() + colon, line);
  if (ec != std::errc() || line == 0 || line > where.size()) return std::nullopt;
  return std::make_pair(where[line - 1], colon);
}

// A batch error about the spool as "record POSITION: reason".
Status InputPositions(const Status& s, const std::vector<uint32_t>& where) {
  auto at = SpoolPosition(s.message(), where);
  if (!at) return s;
  return Status(s.code(), "record " + std::to_string(at->first) + s.message().substr(at->second));
}

py::list IntList(const std::vector<uint32_t>& v) { return py::cast(v); }

// dedup's input: the records (kept alive: the texts are read in place, and
// emit="unique" returns them) and the documents of the valid ones.
struct Input {
  py::list records;
  std::vector<Document> docs;
  std::vector<uint32_t> where;  // docs[i] is record where[i]
  std::vector<uint32_t> skipped;
};

Input ReadRecords(RecordsArg records, const Fields& fields, bool skip_invalid) {
  Input in;
  std::string error;
  for (py::handle item : records) {
    const auto position = static_cast<uint32_t>(py::len(in.records));
    Document d;
    if (RecordOf(item, fields, position, &d, &error)) {
      in.docs.push_back(std::move(d));
      in.where.push_back(position);
    } else if (skip_invalid) {
      in.skipped.push_back(position);
    } else {
      throw py::value_error("record " + std::to_string(position) + ": " + error);
    }
    in.records.append(item);
  }
  return in;
}

// Labels by input position; skipped records are clusters of their own.
BatchDedup::Labels ByPosition(const BatchDedup::Labels& l, const Input& in) {
  const size_t n = py::len(in.records);
  BatchDedup::Labels out{std::vector<uint32_t>(n), std::vector<uint32_t>(n),
                         std::vector<uint32_t>(n, 1)};
  for (size_t i = 0; i < n; ++i) out.cluster[i] = out.kept[i] = static_cast<uint32_t>(i);
  for (size_t i = 0; i < in.docs.size(); ++i) {
    out.cluster[in.where[i]] = in.where[l.cluster[i]];
    out.kept[in.where[i]] = in.where[l.kept[i]];
    out.size[in.where[i]] = l.size[i];
  }
  return out;
}

py::object Emit(const std::string& emit, const BatchDedup::Labels& l, const Input& in) {
  const size_t n = l.cluster.size();
  py::list out;
  if (emit == "unique") {
    for (size_t i = 0; i < n; ++i)
      if (l.kept[i] == i) out.append(in.records[i]);
    return out;
  }
  if (emit == "clusters") {
    std::vector<std::vector<uint32_t>> members(n);
    for (size_t i = 0; i < n; ++i)
      if (l.size[i] > 1) members[l.cluster[i]].push_back(static_cast<uint32_t>(i));
    for (size_t c = 0; c < n; ++c) {
      if (members[c].empty()) continue;
      out.append(Type("DedupCluster")(c, members[c].size(), l.kept[c], IntList(members[c])));
    }
    return out;
  }
  py::list is_kept(n);
  for (size_t i = 0; i < n; ++i) is_kept[i] = py::bool_(l.kept[i] == i);
  return Type("DedupLabels")(IntList(l.cluster), IntList(l.size), IntList(l.kept), is_kept,
                             IntList(in.skipped));
}

DedupResultT Dedup(RecordsArg records, const std::string& profile, std::optional<double> threshold,
                   std::optional<std::string> keep, const std::string& emit,
                   uint64_t max_cluster_size, uint64_t min_shared_keys, MemoryArg memory,
                   const std::string& tmp_dir, int threads, const std::string& text_field,
                   const std::string& id_field, bool skip_invalid, const py::kwargs& kwargs) {
  if (emit != "labels" && emit != "unique" && emit != "clusters") {
    throw py::value_error("emit must be 'labels', 'unique' or 'clusters', not '" + emit + "'");
  }
  if (PyUnicode_Check(records.ptr()) || PyBytes_Check(records.ptr())) {
    // Iterating a str would dedup its characters.
    throw py::type_error(
        "records must be an iterable of records (texts, (id, text) pairs or dicts), not a " +
        std::string(Py_TYPE(records.ptr())->tp_name) + "; for one text pass [text]");
  }
  BatchOptions o;
  o.engine = EngineOptionsOf(profile, threshold, kwargs);
  if (keep) o.engine.keep = Take(ParseKeepPolicy(*keep));
  o.engine.threads = threads;
  o.memory_bytes = MemoryOf(memory);
  o.tmp_dir = tmp_dir;
  o.max_cluster_size = max_cluster_size;
  o.min_shared_keys = min_shared_keys;
  o.skip_invalid = skip_invalid;
  // Validate the options the way `neardup dedup` does, before reading.
  Take(Engine::Create(o.engine), NotFoundAs::kFile);
  Check(ValidateBatchOptions(o));
  Input in = ReadRecords(records, Fields{text_field, id_field}, skip_invalid);
  // Records the library skips (ill-formed UTF-8 in bytes) join in.skipped.
  // Called from this thread during the run, without Python.
  o.on_skip = [&in](const Status& s) {
    if (auto at = SpoolPosition(s.message(), in.where)) in.skipped.push_back(at->first);
  };
  Result<BatchDedup::Labels> r = [&] {
    py::gil_scoped_release release;
    return BatchClusterDocuments(in.docs, o);
  }();
  if (!r.ok()) Raise(InputPositions(r.status(), in.where), NotFoundAs::kFile);
  std::sort(in.skipped.begin(), in.skipped.end());
  return Emit(emit, ByPosition(*r, in), in);
}

GroupClustersT ClusterGroups(GroupsArg groups, TextMapArg texts, const std::string& verify,
                             double threshold, std::optional<std::string> shingles,
                             size_t max_cluster_size, const std::string& keep,
                             size_t max_group_size, std::optional<bool> drop_punctuation,
                             bool replace_invalid_utf8, double qbank_other_min, int threads,
                             const std::string& t2s) {
  GroupClusterOptions o;
  const VerifySpec spec = Take(ParseVerifySpec(verify));  // "KIND:T" sets the threshold
  o.verify = spec.kind;
  o.threshold = spec.threshold.value_or(threshold);
  if (shingles) o.shingles = Take(ParseShingles(*shingles));
  if (spec.shingles) o.shingles = *spec.shingles;
  o.max_cluster_size = max_cluster_size;
  o.keep = Take(ParseKeepPolicy(keep));
  o.max_group_size = max_group_size;
  o.drop_punctuation = drop_punctuation;
  o.replace_invalid_utf8 = replace_invalid_utf8;
  o.qbank_other_min = spec.other_min.value_or(qbank_other_min);
  o.threads = threads;
  o.t2s = Take(ParseT2S(t2s));
  auto gc = Take(GroupClusterer::Create(o), NotFoundAs::kFile);
  std::vector<std::vector<std::string>> all;
  for (py::handle g : groups) {
    std::vector<std::string> ids;
    for (py::handle id : g) ids.push_back(IdOf(id));
    gc->Want(ids);
    all.push_back(std::move(ids));
  }
  py::object items = py::isinstance<py::dict>(texts) ? texts.attr("items")() : texts;
  size_t position = 0;
  for (py::handle item : items) {
    Document d = DocumentOf(item, Fields{}, position++);
    Check(gc->AddText(d.id, d.text));
  }
  Status s;
  GroupClustering c;
  {
    py::gil_scoped_release release;
    s = gc->AddGroups(all);
    if (s.ok()) c = gc->Finish();
  }
  Check(s);
  return Type("GroupClusters")(py::cast(c.ids), IntList(c.cluster), IntList(c.kept),
                               IntList(c.cluster_size));
}

}  // namespace

void BindBatch(py::module_& m) {
  m.def("dedup", &Dedup, py::arg("records"), py::kw_only(), py::arg("profile") = "default",
        py::arg("threshold") = py::none(), py::arg("keep") = py::none(), py::arg("emit") = "labels",
        py::arg("max_cluster_size") = 0, py::arg("min_shared_keys") = 0,
        py::arg("memory") = py::none(), py::arg("tmp_dir") = "", py::arg("threads") = 0,
        py::arg("text_field") = "text", py::arg("id_field") = "id", py::arg("skip_invalid") = false,
        R"(Batch near-duplicate clustering, exactly as `neardup dedup` (docs/batch.md).

`records` is an iterable of texts (str), (id, text) pairs, or dicts with
`text_field` and an optional `id_field` (a str or int; the record's line
number, 1-based, when absent, as the CLI). The result is the same as
`neardup dedup` on the same records as JSONL with the same options:
  emit="labels"    DedupLabels: per record (0-based positions) its cluster's
                   first member, the cluster size, the kept member, is_kept
  emit="unique"    the kept records themselves, in input order (a list)
  emit="clusters"  a DedupCluster per cluster of two or more
`keep` is first | smallest-id | longest (default: the profile's). The run
spools the texts to `tmp_dir` and sorts in `memory` (bytes or "512M"; default
half the RAM) with the GIL released, on `threads` threads (0 = every core).
Invalid records raise ValueError naming their position, or with
skip_invalid=True stay alone and are listed in DedupLabels.skipped.)");
  m.def("cluster_groups", &ClusterGroups, py::arg("groups"), py::arg("texts"), py::kw_only(),
        py::arg("verify") = "levenshtein", py::arg("threshold") = 0.8,
        py::arg("shingles") = py::none(), py::arg("max_cluster_size") = 1000,
        py::arg("keep") = "first", py::arg("max_group_size") = 64,
        py::arg("drop_punctuation") = py::none(), py::arg("replace_invalid_utf8") = false,
        py::arg("qbank_other_min") = 1.0, py::arg("threads") = 0, py::arg("t2s") = "taiwan",
        R"(Clusters external candidate groups, as `neardup cluster` (group_cluster.h).

`groups` is an iterable of lists of ids that may be duplicates of each other
(e.g. records sharing an LSH band, computed elsewhere); `texts` a dict
{id: text} or an iterable of (id, text). Texts are normalized as dedup's
(`t2s`: off, characters, phrases, taiwan folds Traditional to Simplified;
punctuation dropped unless `drop_punctuation=False` or qbank). Every pair
inside a group is verified (`verify`: levenshtein, lcs, jaccard, similarity, qbank, ..., or a
spec as the CLI's --verify, "qbank:0.9" or "jaccard:0.7,ngram=5", whose
threshold wins over `threshold`; similarity >= the threshold), passing pairs are joined best first under
`max_cluster_size`, and each cluster keeps one member by `keep`. Returns
GroupClusters: per member with a text, positions in its `ids`.)");
}

}  // namespace neardup::python
