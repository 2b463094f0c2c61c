// SPDX-License-Identifier: Apache-2.0
// `import neardup`: the Python module (docs/python.md). The bindings follow
// the C++ library (include/neardup) in Python's idiom; every heavy call
// releases the GIL, and library errors become Python exceptions (common.h).
#include "neardup/options.h"
#include "python/common.h"

#ifndef NEARDUP_VERSION
#define NEARDUP_VERSION "0.0.0"
#endif

PYBIND11_MODULE(neardup, m) {
  namespace py = pybind11;
  using namespace neardup::python;
  m.doc() = R"(neardup: near-duplicate text detection, online and in batch.

    Engine(profile, threshold, **options)        online engine: add, add_many, query,
                                                 similar, cluster_of, remove, stats
    DurableEngine(path, ...)                     the same, persisted (RocksDB)
    dedup(records, ...)                          batch dedup, as `neardup dedup`
    cluster_groups(groups, texts, ...)           verify external candidate groups
    fingerprint(text), minhash(text), normalize(text), explain(a, b)
    Pipeline(profile, **options)                 the sketch functions of one profile

Errors: ValueError (bad input or options), KeyError (unknown document id),
FileNotFoundError / OSError (files, the store), RuntimeError (closed engine).
See docs/python.md.)";
  m.attr("__version__") = NEARDUP_VERSION;
  RegisterTypes(m);
  BindEngine(m);
  BindDurableEngine(m);
  BindBatch(m);
  BindText(m);
  m.def(
      "profiles", [] { return neardup::EngineOptions::ProfileNames(); },
      "Names of the built-in profiles.");
  m.def("option_names", &OptionNames,
        "The keyword options Engine, DurableEngine, Pipeline, dedup and the sketch functions\n"
        "accept besides profile and threshold.");
}
