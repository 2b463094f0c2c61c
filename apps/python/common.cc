// SPDX-License-Identifier: Apache-2.0
// Errors, ids, texts and documents of the Python bindings (common.h).
#include "python/common.h"

#include <Python.h>

namespace neardup::python {

void Raise(const Status& status, NotFoundAs not_found) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      type = PyExc_ValueError;
      break;
    case StatusCode::kNotFound:
      type = not_found == NotFoundAs::kKey ? PyExc_KeyError : PyExc_FileNotFoundError;
      break;
    case StatusCode::kIOError:
    case StatusCode::kCorruption:
    case StatusCode::kResourceExhausted:
      type = PyExc_OSError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, status.message().c_str());
  throw py::error_already_set();
}

std::string IdOf(py::handle h) {
  PyObject* o = h.ptr();
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == nullptr) throw py::error_already_set();
    return std::string(s, static_cast<size_t>(n));
  }
  if (PyLong_Check(o) && !PyBool_Check(o)) return py::str(h).cast<std::string>();
  throw py::type_error("a document id must be a str or an int, not " +
                       std::string(Py_TYPE(o)->tp_name));
}

std::string_view TextOf(py::handle h) {
  PyObject* o = h.ptr();
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == nullptr) throw py::error_already_set();
    return {s, static_cast<size_t>(n)};
  }
  if (PyBytes_Check(o)) {
    return {PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o))};
  }
  throw py::type_error("a text must be a str or bytes, not " + std::string(Py_TYPE(o)->tp_name));
}

namespace {

[[noreturn]] void BadItem(size_t position, const std::string& what) {
  throw py::type_error("item " + std::to_string(position) + ": " + what);
}

}  // namespace

Document DocumentOf(py::handle item, const Fields& fields, size_t position) {
  PyObject* o = item.ptr();
  Document d;
  try {
    if (PyTuple_Check(o) || PyList_Check(o)) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(item);
      if (seq.size() != 2) BadItem(position, "expected an (id, text) pair");
      d.id = IdOf(seq[0]);
      d.text = TextOf(seq[1]);
    } else if (PyDict_Check(o)) {
      PyObject* id = PyDict_GetItemString(o, fields.id_field.c_str());
      PyObject* text = PyDict_GetItemString(o, fields.text_field.c_str());
      if (id == nullptr) BadItem(position, "missing field '" + fields.id_field + "'");
      if (text == nullptr) BadItem(position, "missing field '" + fields.text_field + "'");
      d.id = IdOf(id);
      d.text = TextOf(text);
    } else {
      BadItem(position, "expected an (id, text) pair or a dict with '" + fields.id_field +
                            "' and '" + fields.text_field + "', not " + Py_TYPE(o)->tp_name);
    }
  } catch (py::type_error& e) {
    const std::string what = e.what();
    if (what.rfind("item ", 0) == 0) throw;
    throw py::type_error("item " + std::to_string(position) + ": " + what);
  }
  return d;
}

ListOptions ListOptionsOf(const std::string& sort, bool descending, size_t limit,
                          std::optional<std::pair<int64_t, std::string>> after) {
  ListOptions o;
  if (sort == "size") {
    o.sort = ClusterSort::kSize;
  } else if (sort == "recent") {
    o.sort = ClusterSort::kRecent;
  } else {
    throw py::value_error("sort must be 'size' or 'recent', not '" + sort + "'");
  }
  o.descending = descending;
  o.limit = limit;
  o.after = std::move(after);
  return o;
}

}  // namespace neardup::python
