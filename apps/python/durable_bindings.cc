// SPDX-License-Identifier: Apache-2.0
// neardup.DurableEngine: the engine persisted in RocksDB with group commit,
// restart recovery and optional expiry (include/neardup/durable_engine.h),
// used in-process. Writes wait for their commit with the GIL released.
#include <memory>

#include "neardup/durable_engine.h"
#include "python/common.h"

namespace neardup::python {
namespace {

constexpr size_t kChunk = 8192;  // documents per AddBatch of add_many

// Meta: a dict stored as compact JSON text; read back as a dict.
std::string MetaText(py::handle meta) {
  if (meta.is_none()) return "";
  if (!py::isinstance<py::dict>(meta)) throw py::type_error("meta must be a dict or None");
  py::object dumps = py::module_::import("json").attr("dumps");
  return dumps(meta, py::arg("separators") = py::make_tuple(",", ":"),
               py::arg("ensure_ascii") = false)
      .cast<std::string>();
}

py::object MetaOf(const std::string& text) {
  if (text.empty()) return py::none();
  return py::module_::import("json").attr("loads")(text);
}

py::object OptionalText(const std::optional<std::string>& t) {
  return t ? py::object(py::str(*t)) : py::object(py::none());
}

py::object ToPython(const DocumentRecord& r) {
  return Type("DocumentRecord")(r.id, r.cluster, r.fingerprint, r.arrival, r.time, r.cluster_size,
                                MetaOf(r.meta), OptionalText(r.text));
}

py::object ToPython(const SimilarDocument& s) {
  const Match& m = s.match;
  py::object verified = m.verified ? py::object(py::float_(*m.verified)) : py::none();
  return Type("SimilarDocument")(m.id, m.signal, m.distance, m.similarity, verified, MetaOf(s.meta),
                                 s.arrival, OptionalText(s.text));
}

py::object ToPython(const DurableStats& s) {
  return Type("DurableStats")(python::ToPython(s.engine), s.commits, s.committed_docs,
                              s.commit_errors, s.expired_trees, s.expired_documents, s.queue_depth,
                              s.disk_bytes, s.store_cache_bytes, s.store_memtable_bytes,
                              s.restore_ms, s.restored_documents, s.ttl_ms);
}

// The engine until close(). Each call holds its own reference while it runs
// without the GIL, so close() from another thread cannot destroy the engine
// under it; the last reference closes the store (releasing its lock, so the
// path can be opened again in this process).
struct PyDurable {
  std::shared_ptr<DurableEngine> engine;
  std::string path;
  std::shared_ptr<DurableEngine> get() const {
    if (!engine) throw std::runtime_error("the DurableEngine is closed");
    return engine;
  }
  void Close() {
    std::shared_ptr<DurableEngine> e = std::move(engine);  // under the GIL
    if (!e) return;
    Status s;
    {
      py::gil_scoped_release release;
      s = e->Close();
      e.reset();
    }
    Check(s);
  }
};

OnConflict ConflictOf(bool exist_ok) {
  return exist_ok ? OnConflict::kReturnExisting : OnConflict::kError;
}

// Runs fn() with the GIL released and returns its result.
template <typename Fn>
auto Released(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

AddResultsT AddMany(PyDurable& self, DocsArg docs, bool exist_ok, bool return_exceptions,
                    const std::string& id_field, const std::string& text_field) {
  const auto held = self.get();
  DurableEngine& e = *held;
  const Fields fields{text_field, id_field};
  py::object items = py::isinstance<py::dict>(docs) ? docs.attr("items")() : docs;
  py::list out;
  std::vector<IncomingDocument> chunk;
  size_t position = 0;
  auto flush = [&] {
    auto results = Released([&] { return e.AddBatch(chunk, ConflictOf(exist_ok)); });
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].ok()) {
        out.append(python::ToPython(results[i]->add));
        continue;
      }
      const Status s = results[i].status().WithContext(
          "item " + std::to_string(position - chunk.size() + i) + " (id '" + chunk[i].id + "')");
      if (!return_exceptions) Raise(s);
      try {
        Raise(s);
      } catch (py::error_already_set& err) {
        out.append(err.value());
      }
    }
    chunk.clear();
  };
  for (py::handle item : items) {
    Document d = DocumentOf(item, fields, position++);
    py::object meta = PyDict_Check(item.ptr()) ? item.attr("get")("meta") : py::none();
    chunk.push_back({std::move(d.id), std::move(d.text), 0, MetaText(meta)});
    if (chunk.size() == kChunk) flush();
  }
  if (!chunk.empty()) flush();
  return out;
}

constexpr const char* kDurableDoc = R"(An Engine whose documents live in a RocksDB store.

DurableEngine(path, profile="default", threshold=None, *, ttl_ms=0, sync=True,
              store_text=False, background_expiry=True, **options)

Opens (or creates) the store in `path` and rebuilds the engine from it:
cluster ids, members and times come back exactly. Every write is committed
(WAL + fsync with sync=True) before it returns. A store refuses to open under
options that give other fingerprints (ValueError). ttl_ms > 0 expires whole
clusters whose root is older than that (0, the default here, keeps
documents forever). Use as a context manager, or call close().)";

}  // namespace

void BindDurableEngine(py::module_& m) {
  py::class_<PyDurable>(m, "DurableEngine", kDurableDoc)
      .def(py::init([](const std::string& path, const std::string& profile,
                       std::optional<double> threshold, int64_t ttl_ms, bool sync, bool store_text,
                       bool background_expiry, const py::kwargs& kwargs) {
             DurableOptions o;
             o.dir = path;
             o.engine = EngineOptionsOf(profile, threshold, kwargs);
             o.ttl_ms = ttl_ms;
             o.sync = sync;
             o.store_text = store_text;
             o.background_expiry = background_expiry;
             auto r = Released([&] { return DurableEngine::Open(o); });
             return PyDurable{std::shared_ptr<DurableEngine>(Take(std::move(r), NotFoundAs::kFile)),
                              path};
           }),
           py::arg("path"), py::arg("profile") = "default", py::arg("threshold") = py::none(),
           py::kw_only(), py::arg("ttl_ms") = 0, py::arg("sync") = true,
           py::arg("store_text") = false, py::arg("background_expiry") = true)
      .def(
          "add",
          [](PyDurable& self, IdArg id, TextArg text, int64_t time, MetaArg meta,
             bool exist_ok) -> AddResultT {
            const auto held = self.get();
            DurableEngine& e = *held;
            IncomingDocument d{IdOf(id), std::string(TextOf(text)), time, MetaText(meta)};
            auto r = Released([&] { return e.Add(d, ConflictOf(exist_ok)); });
            return python::ToPython(Take(std::move(r)).add);
          },
          py::arg("id"), py::arg("text"), py::arg("time") = 0, py::arg("meta") = py::none(),
          py::arg("exist_ok") = false,
          "Adds durably (returns once committed) and returns its AddResult. `meta` is a\n"
          "JSON-serializable dict kept with the document. With exist_ok=True an existing id\n"
          "returns its current record instead of raising ValueError.")
      .def("add_many", &AddMany, py::arg("docs"), py::kw_only(), py::arg("exist_ok") = false,
           py::arg("return_exceptions") = false, py::arg("id_field") = "id",
           py::arg("text_field") = "text",
           "Adds documents in order as Engine.add_many does, committed in groups; a dict item's\n"
           "'meta' key is its meta.")
      .def(
          "remove",
          [](PyDurable& self, IdArg id) {
            const auto held = self.get();
            DurableEngine& e = *held;
            const std::string key = IdOf(id);
            Check(Released([&] { return e.Remove(key); }));
          },
          py::arg("id"), "Removes a document durably. Raises KeyError for an unknown id.")
      .def(
          "get",
          [](PyDurable& self, IdArg id) -> DocumentRecordT {
            const auto held = self.get();
            DurableEngine& e = *held;
            const std::string key = IdOf(id);
            return ToPython(Take(Released([&] { return e.Get(key); })));
          },
          py::arg("id"),
          "The DocumentRecord of a live document (refreshes its time). KeyError if unknown.")
      .def(
          "similar",
          [](PyDurable& self, IdArg id, std::optional<size_t> limit) -> SimilarDocumentsT {
            const auto held = self.get();
            DurableEngine& e = *held;
            const std::string key = IdOf(id);
            auto docs = Take(Released([&] { return e.Similar(key, LimitOf(limit)); }));
            py::list out;
            for (const auto& d : docs) out.append(ToPython(d));
            return out;
          },
          py::arg("id"), py::arg("limit") = py::none(),
          "Other members of `id`'s cluster (list of SimilarDocument). KeyError if unknown.")
      .def(
          "query",
          [](PyDurable& self, TextArg text) -> QueryResultT {
            const auto held = self.get();
            DurableEngine& e = *held;
            const std::string_view t = TextOf(text);
            return python::ToPython(Take(Released([&] { return e.Query(t); })));
          },
          py::arg("text"), "What add would answer for `text`, inserting nothing.")
      .def(
          "cluster_of",
          [](PyDurable& self, IdArg id, std::optional<size_t> limit) -> ClusterT {
            const auto held = self.get();
            DurableEngine& e = *held;
            return python::ToPython(Take(e.ClusterOf(IdOf(id), LimitOf(limit))));
          },
          py::arg("id"), py::arg("limit") = py::none(),
          "The Cluster `id` belongs to. KeyError if unknown.")
      .def(
          "clusters",
          [](PyDurable& self, const std::string& sort, bool descending, size_t limit,
             std::optional<std::pair<int64_t, std::string>> after) -> ClusterSummariesT {
            const auto held = self.get();
            DurableEngine& e = *held;
            py::list out;
            for (const auto& s : e.ListClusters(ListOptionsOf(sort, descending, limit, after)))
              out.append(python::ToPython(s));
            return out;
          },
          py::kw_only(), py::arg("sort") = "size", py::arg("descending") = true,
          py::arg("limit") = 50, py::arg("after") = py::none(), "One page of clusters.")
      .def(
          "explain",
          [](PyDurable& self, TextArg a, TextArg b) -> ExplanationT {
            const auto held = self.get();
            DurableEngine& e = *held;
            const std::string_view x = TextOf(a), y = TextOf(b);
            return python::ToPython(Take(Released([&] { return e.Explain(x, y); })));
          },
          py::arg("a"), py::arg("b"), "Why `a` and `b` are or are not near-duplicates.")
      .def(
          "expire",
          [](PyDurable& self, int64_t before) -> ExpireReportT {
            const auto held = self.get();
            DurableEngine& e = *held;
            ExpireReport r = Take(Released([&] { return e.Expire(before); }));
            return Type("ExpireReport")(r.trees, r.documents);
          },
          py::arg("before"),
          "Removes every cluster whose root time is < `before` (ms since the epoch).")
      .def(
          "stats", [](PyDurable& self) -> DurableStatsT { return ToPython(self.get()->Stats()); },
          "DurableStats.")
      .def("close", &PyDurable::Close,
           "Drains queued writes, flushes and closes the store (the path can be opened again);\n"
           "later calls raise RuntimeError. Idempotent.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](PyDurable& self, py::handle, py::handle, py::handle) {
             self.Close();
             return false;
           })
      .def("__len__", [](PyDurable& self) { return self.get()->Stats().engine.documents; })
      .def_readonly("path", &PyDurable::path, "The store directory.")
      .def("__repr__", [](PyDurable& self) {
        return "<neardup.DurableEngine path='" + self.path + "' " +
               (self.engine ? "documents=" + std::to_string(self.get()->Stats().engine.documents)
                            : std::string("closed")) +
               ">";
      });
}

}  // namespace neardup::python
