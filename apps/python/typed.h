// SPDX-License-Identifier: Apache-2.0
//
// Object handles with Python type names, so the signatures pybind11 writes
// into docstrings (help(neardup.Engine)) read like neardup.pyi instead of
// "handle" and "object". They accept any object: the bindings check types
// themselves, with messages that name the argument.
#ifndef NEARDUP_APPS_PYTHON_TYPED_H_
#define NEARDUP_APPS_PYTHON_TYPED_H_

#include <pybind11/pybind11.h>

namespace neardup::python {
inline int AnyObject(PyObject*) { return 1; }
}  // namespace neardup::python

#define NEARDUP_PY_TYPE(Name, Text)                                  \
  namespace neardup::python {                                        \
  class Name : public pybind11::object {                             \
   public:                                                           \
    PYBIND11_OBJECT_DEFAULT(Name, object, AnyObject)                 \
  };                                                                 \
  }                                                                  \
  template <>                                                        \
  struct pybind11::detail::handle_type_name<neardup::python::Name> { \
    static constexpr auto name = pybind11::detail::const_name(Text); \
  };

// Arguments.
NEARDUP_PY_TYPE(IdArg, "str | int")
NEARDUP_PY_TYPE(TextArg, "str | bytes")
NEARDUP_PY_TYPE(TextsArg, "Iterable[str | bytes]")
NEARDUP_PY_TYPE(DocsArg, "Iterable[tuple[str | int, str] | dict] | dict")
NEARDUP_PY_TYPE(RecordsArg, "Iterable[str | tuple[str | int, str] | dict]")
NEARDUP_PY_TYPE(GroupsArg, "Iterable[Iterable[str | int]]")
NEARDUP_PY_TYPE(TextMapArg, "dict | Iterable[tuple[str | int, str]]")
NEARDUP_PY_TYPE(MetaArg, "dict | None")
NEARDUP_PY_TYPE(MemoryArg, "int | str | None")
// Results.
NEARDUP_PY_TYPE(AddResultT, "AddResult")
NEARDUP_PY_TYPE(AddResultsT, "list[AddResult]")
NEARDUP_PY_TYPE(QueryResultT, "QueryResult")
NEARDUP_PY_TYPE(MatchesT, "list[Match]")
NEARDUP_PY_TYPE(ClusterT, "Cluster")
NEARDUP_PY_TYPE(ClusterSummariesT, "list[ClusterSummary]")
NEARDUP_PY_TYPE(DocumentInfoT, "DocumentInfo")
NEARDUP_PY_TYPE(StatsT, "Stats")
NEARDUP_PY_TYPE(ExplanationT, "Explanation")
NEARDUP_PY_TYPE(DocumentRecordT, "DocumentRecord")
NEARDUP_PY_TYPE(SimilarDocumentsT, "list[SimilarDocument]")
NEARDUP_PY_TYPE(DurableStatsT, "DurableStats")
NEARDUP_PY_TYPE(ExpireReportT, "ExpireReport")
NEARDUP_PY_TYPE(DedupResultT, "DedupLabels | list")
NEARDUP_PY_TYPE(GroupClustersT, "GroupClusters")

#endif  // NEARDUP_APPS_PYTHON_TYPED_H_
