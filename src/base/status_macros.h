// SPDX-License-Identifier: Apache-2.0
//
// The library's internal macros over neardup::Status and Result<T> (in the
// spirit of abseil's status_macros.h). Not exported to users: include
// neardup/status.h for the types.
#ifndef NEARDUP_BASE_STATUS_MACROS_H_
#define NEARDUP_BASE_STATUS_MACROS_H_

#include <utility>

#include "neardup/status.h"

// Aborts with file, line and expression when `cond` is false. For invariants
// only, never for input validation.
#define NEARDUP_CHECK(cond)                                                       \
  do {                                                                            \
    if (!(cond)) ::neardup::internal::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define NEARDUP_CHECK_MSG(cond, msg)                                                 \
  do {                                                                               \
    if (!(cond)) ::neardup::internal::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

// Returns early from the enclosing function when `expr` is not OK.
#define NEARDUP_RETURN_IF_ERROR(expr)        \
  do {                                       \
    ::neardup::Status _nd_status = (expr);   \
    if (!_nd_status.ok()) return _nd_status; \
  } while (0)

#define NEARDUP_CONCAT_INNER_(a, b) a##b
#define NEARDUP_CONCAT_(a, b) NEARDUP_CONCAT_INNER_(a, b)
// `NEARDUP_ASSIGN_OR_RETURN(auto x, Foo());` binds the value or returns the error.
#define NEARDUP_ASSIGN_OR_RETURN(lhs, expr) \
  NEARDUP_ASSIGN_OR_RETURN_IMPL_(NEARDUP_CONCAT_(_nd_result_, __LINE__), lhs, expr)
#define NEARDUP_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

#endif  // NEARDUP_BASE_STATUS_MACROS_H_
