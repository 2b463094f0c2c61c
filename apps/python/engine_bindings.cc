// SPDX-License-Identifier: Apache-2.0
// neardup.Engine: the online engine (include/neardup/engine.h) in Python.
// Every call that sketches, searches or writes releases the GIL; add_many
// converts its items in chunks and hands each chunk to Engine::AddBatch,
// which prepares documents on all cores.
#include <memory>

#include "python/common.h"

namespace neardup::python {
namespace {

constexpr size_t kChunk = 8192;  // documents per AddBatch of add_many

py::object AddResultOrException(Result<AddResult>& r) {
  if (r.ok()) return ToPython(*r);
  try {
    Raise(r.status());
  } catch (py::error_already_set& e) {
    return e.value();
  }
}

// add_many: chunks of the iterable through AddBatch. With return_exceptions a
// failed document's slot holds its exception; else the first failure is
// raised once its chunk is applied.
AddResultsT AddMany(Engine& engine, DocsArg docs, bool return_exceptions,
                    const std::string& id_field, const std::string& text_field) {
  const Fields fields{text_field, id_field};
  py::object items = py::isinstance<py::dict>(docs) ? docs.attr("items")() : docs;
  py::list out;
  std::vector<Document> chunk;
  chunk.reserve(kChunk);
  size_t position = 0;
  auto flush = [&] {
    std::vector<Result<AddResult>> results;
    {
      py::gil_scoped_release release;
      results = engine.AddBatch(chunk);
    }
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].ok() && !return_exceptions) {
        Status s = results[i].status();
        Raise(s.WithContext("item " + std::to_string(position - chunk.size() + i) + " (id '" +
                            chunk[i].id + "')"));
      }
      out.append(AddResultOrException(results[i]));
    }
    chunk.clear();
  };
  for (py::handle item : items) {
    chunk.push_back(DocumentOf(item, fields, position++));
    if (chunk.size() == kChunk) flush();
  }
  if (!chunk.empty()) flush();
  return out;
}

constexpr const char* kEngineDoc = R"(Online near-duplicate detection and clustering.

Engine(profile="default", threshold=None, **options)

Each added document is normalized, sketched and compared with the documents
already added; it joins the cluster of the documents it is near (verified
similarity >= threshold) or starts a new one whose id is its own id.
`options` override fields of the profile (see option_names() and
docs/python.md). Thread-safe: readers run concurrently, writers one at a time;
every heavy call releases the GIL.

Raises ValueError for bad options, FileNotFoundError for missing data.)";

}  // namespace

void BindEngine(py::module_& m) {
  py::class_<Engine, std::unique_ptr<Engine>>(m, "Engine", kEngineDoc)
      .def(py::init([](const std::string& profile, std::optional<double> threshold,
                       const py::kwargs& kwargs) {
             const EngineOptions o = EngineOptionsOf(profile, threshold, kwargs);
             Result<std::unique_ptr<Engine>> e = [&] {
               py::gil_scoped_release release;
               return Engine::Create(o);
             }();
             return Take(std::move(e), NotFoundAs::kFile);
           }),
           py::arg("profile") = "default", py::arg("threshold") = py::none())
      .def(
          "add",
          [](Engine& e, IdArg id, TextArg text, int64_t time) -> AddResultT {
            Document d{IdOf(id), std::string(TextOf(text)), time};
            Result<AddResult> r = [&] {
              py::gil_scoped_release release;
              return e.Add(d);
            }();
            return ToPython(Take(std::move(r)));
          },
          py::arg("id"), py::arg("text"), py::arg("time") = 0,
          R"(Adds a document and returns its AddResult.

`id` is a str or an int (kept as its decimal str); `time` is ms since the
epoch (0 = now). Raises ValueError for an empty or repeated id, ill-formed
text or a text over max_document_bytes.)")
      .def("add_many", &AddMany, py::arg("docs"), py::kw_only(),
           py::arg("return_exceptions") = false, py::arg("id_field") = "id",
           py::arg("text_field") = "text",
           R"(Adds documents in order, preparing them on every core; returns one AddResult each.

`docs` is an iterable of (id, text) pairs or of dicts with `id_field` and
`text_field`, or a dict {id: text}. It is consumed in chunks of 8192
documents with the GIL released. A failed document does not stop the others
of its chunk; then the first failure is raised (ValueError naming its
position and id; documents before it stay added), or, with
return_exceptions=True, its slot in the result holds the exception.)")
      .def(
          "query",
          [](const Engine& e, TextArg text, std::optional<int> max_distance) -> QueryResultT {
            const std::string_view t = TextOf(text);
            QueryOptions q;
            if (max_distance) q.max_distance = *max_distance;
            Result<QueryResult> r = [&] {
              py::gil_scoped_release release;
              return e.Query(t, q);
            }();
            return ToPython(Take(std::move(r)));
          },
          py::arg("text"), py::kw_only(), py::arg("max_distance") = py::none(),
          "What add would answer for `text`, inserting nothing (a QueryResult).")
      .def(
          "similar",
          [](const Engine& e, IdArg id, std::optional<size_t> limit) -> MatchesT {
            const std::string key = IdOf(id);
            Result<std::vector<Match>> r = [&] {
              py::gil_scoped_release release;
              return e.Similar(key, LimitOf(limit));
            }();
            return MatchList(Take(std::move(r)));
          },
          py::arg("id"), py::arg("limit") = py::none(),
          "The other live members of `id`'s cluster (list of Match), most similar first.\n\n"
          "Raises KeyError for an unknown id.")
      .def(
          "cluster_of",
          [](const Engine& e, IdArg id, std::optional<size_t> limit) -> ClusterT {
            return ToPython(Take(e.ClusterOf(IdOf(id), LimitOf(limit))));
          },
          py::arg("id"), py::arg("limit") = py::none(),
          "The Cluster `id` belongs to. Raises KeyError for an unknown id.")
      .def(
          "cluster",
          [](const Engine& e, IdArg id, std::optional<size_t> limit) -> ClusterT {
            return ToPython(Take(e.GetCluster(IdOf(id), LimitOf(limit))));
          },
          py::arg("cluster_id"), py::arg("limit") = py::none(),
          "The Cluster whose id is `cluster_id`. Raises KeyError for an unknown id.")
      .def(
          "clusters",
          [](const Engine& e, const std::string& sort, bool descending, size_t limit,
             std::optional<std::pair<int64_t, std::string>> after) -> ClusterSummariesT {
            py::list out;
            for (const auto& s : e.ListClusters(ListOptionsOf(sort, descending, limit, after)))
              out.append(ToPython(s));
            return out;
          },
          py::kw_only(), py::arg("sort") = "size", py::arg("descending") = true,
          py::arg("limit") = 50, py::arg("after") = py::none(),
          "One page of clusters (list of ClusterSummary), by size or recent time, then id;\n"
          "`after` is the (key, id) of the previous page's last line.")
      .def(
          "get",
          [](const Engine& e, IdArg id) -> DocumentInfoT {
            return ToPython(Take(e.Get(IdOf(id))));
          },
          py::arg("id"), "The DocumentInfo of a live document. Raises KeyError if unknown.")
      .def(
          "remove", [](Engine& e, IdArg id) { Check(e.Remove(IdOf(id))); }, py::arg("id"),
          "Removes a document. A removed root keeps its cluster id while members remain.\n\n"
          "Raises KeyError for an unknown id.")
      .def(
          "fingerprint",
          [](const Engine& e, TextArg text) {
            const std::string_view t = TextOf(text);
            Result<uint64_t> r = [&] {
              py::gil_scoped_release release;
              return e.Fingerprint(t);
            }();
            return Take(std::move(r));
          },
          py::arg("text"), "The fingerprint of `text` under this engine's pipeline (an int).")
      .def(
          "explain",
          [](const Engine& e, TextArg a, TextArg b) -> ExplanationT {
            const std::string_view x = TextOf(a), y = TextOf(b);
            Result<Explanation> r = [&] {
              py::gil_scoped_release release;
              return e.Explain(x, y);
            }();
            return ToPython(Take(std::move(r)));
          },
          py::arg("a"), py::arg("b"),
          "Why `a` and `b` are or are not near-duplicates under this engine (an Explanation).")
      .def(
          "stats", [](const Engine& e) -> StatsT { return ToPython(e.Stats()); },
          "The engine's Stats.")
      .def_property_readonly(
          "profile", [](const Engine& e) { return e.options().profile; },
          "The profile the options came from.")
      .def_property_readonly(
          "threshold", [](const Engine& e) { return e.options().threshold; },
          "The similarity threshold in effect.")
      .def("__len__", [](const Engine& e) { return e.Stats().documents; })
      .def("__contains__",
           [](const Engine& e, IdArg id) {
             if (!py::isinstance<py::str>(id) &&
                 (!py::isinstance<py::int_>(id) || py::isinstance<py::bool_>(id)))
               return false;
             return e.Get(IdOf(id)).ok();
           })
      .def("__repr__", [](const Engine& e) {
        const EngineStats s = e.Stats();
        return "<neardup.Engine profile='" + e.options().profile +
               "' threshold=" + py::repr(py::float_(s.threshold)).cast<std::string>() +
               " documents=" + std::to_string(s.documents) +
               " clusters=" + std::to_string(s.clusters) + ">";
      });
}

}  // namespace neardup::python
