// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the Python bindings (`import neardup`, docs/python.md):
// library errors as Python exceptions, ids and texts from Python objects,
// engine options from keyword arguments, and the result types (named
// tuples of the module, so they print, compare, unpack and pickle).
//
// Every function here runs with the GIL held.
#ifndef NEARDUP_APPS_PYTHON_COMMON_H_
#define NEARDUP_APPS_PYTHON_COMMON_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/engine.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "python/typed.h"

namespace neardup::python {

namespace py = pybind11;

// What a NotFound status means at the call site.
enum class NotFoundAs {
  kKey,   // a document or cluster id: KeyError
  kFile,  // a file or data directory: FileNotFoundError
};

// Raises the Python exception of a library error (docs/python.md, "Errors"):
// ValueError for bad input (InvalidArgument, OutOfRange, AlreadyExists,
// FailedPrecondition), KeyError or FileNotFoundError for NotFound, OSError
// for IOError, Corruption and ResourceExhausted, RuntimeError otherwise.
[[noreturn]] void Raise(const Status& status, NotFoundAs not_found = NotFoundAs::kKey);
inline void Check(const Status& status, NotFoundAs not_found = NotFoundAs::kKey) {
  if (!status.ok()) Raise(status, not_found);
}
template <typename T>
T Take(Result<T>&& r, NotFoundAs not_found = NotFoundAs::kKey) {
  if (!r.ok()) Raise(r.status(), not_found);
  return std::move(r).value();
}

// A document id: a str, or an int written in decimal. TypeError otherwise.
std::string IdOf(py::handle h);
// A text: a str (UTF-8) or bytes (validated by the library). The view lives
// as long as the object. TypeError otherwise.
std::string_view TextOf(py::handle h);

// The fields of a record (a dict): text_field, and id_field (optional).
struct Fields {
  std::string text_field = "text";
  std::string id_field = "id";
};
// A document from an item of add_many: an (id, text) pair or a mapping with
// the two fields. TypeError / ValueError naming the item's position.
Document DocumentOf(py::handle item, const Fields& fields, size_t position);

// EngineOptions of a profile, a threshold and keyword overrides named after
// the EngineOptions fields (docs/python.md lists them). Unknown names are a
// TypeError, bad values a ValueError (the library's parsers' messages).
EngineOptions EngineOptionsOf(const std::string& profile, std::optional<double> threshold,
                              const py::kwargs& overrides);
// The keyword names EngineOptionsOf accepts.
std::vector<std::string> OptionNames();

// The result types, created once at import (RegisterTypes).
void RegisterTypes(py::module_& m);
py::object ToPython(const Match& m);
py::object ToPython(const AddResult& r);
py::object ToPython(const QueryResult& r);
py::object ToPython(const ClusterInfo& c);
py::object ToPython(const DocumentInfo& d);
py::object ToPython(const ClusterSummary& s);
py::object ToPython(const EngineStats& s);
py::object ToPython(const Explanation& x);
py::list MatchList(const std::vector<Match>& matches);
// A named tuple of the module by name ("DedupLabels", ...), for the types
// the other files fill.
py::object Type(const char* name);

// A limit argument: None = no limit.
inline size_t LimitOf(std::optional<size_t> limit) { return limit.value_or(SIZE_MAX); }

// ListOptions from Python arguments. ValueError for a bad sort.
ListOptions ListOptionsOf(const std::string& sort, bool descending, size_t limit,
                          std::optional<std::pair<int64_t, std::string>> after);

void BindEngine(py::module_& m);
void BindDurableEngine(py::module_& m);
void BindBatch(py::module_& m);
void BindText(py::module_& m);

}  // namespace neardup::python

#endif  // NEARDUP_APPS_PYTHON_COMMON_H_
