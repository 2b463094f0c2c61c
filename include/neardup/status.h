// SPDX-License-Identifier: Apache-2.0
//
// Status and Result<T>: how every neardup library call reports failure.
//
// The library never throws across its API. A call that can fail returns a
// Status (success or an error code with a message) or a Result<T> (a value or
// a non-OK Status). Both are [[nodiscard]]. Modelled on leveldb's Status and
// abseil's StatusOr. Broken internal invariants abort through NEARDUP_CHECK.
//
// Thread safety: values; distinct objects may be used from distinct threads.
#ifndef NEARDUP_STATUS_H_
#define NEARDUP_STATUS_H_

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace neardup {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // bad input from the caller (bad UTF-8, bad option)
  kNotFound = 2,            // no such document, file or key
  kAlreadyExists = 3,       // a document with this id is present
  kOutOfRange = 4,          // a value beyond a configured limit (size, distance)
  kFailedPrecondition = 5,  // the object is not in a state for this call
  kResourceExhausted = 6,   // memory, disk or capacity ran out
  kIOError = 7,             // the operating system or storage failed
  kCorruption = 8,          // stored data does not parse
  kUnavailable = 9,         // shutting down or temporarily unable
  kInternal = 10,           // a bug: should not happen
};

// Returns a stable lower-case name ("invalid_argument", ...), used in JSON errors.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status ResourceExhausted(std::string m) {
    return {StatusCode::kResourceExhausted, std::move(m)};
  }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool IsNotFound() const { return code_ == StatusCode::kNotFound; }
  bool IsInvalidArgument() const { return code_ == StatusCode::kInvalidArgument; }
  bool IsAlreadyExists() const { return code_ == StatusCode::kAlreadyExists; }

  // "invalid_argument: message", or "ok".
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

namespace internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, const std::string& msg);
}  // namespace internal

// A value of type T or an error Status. Accessing the value of an error
// Result aborts (it is a bug in the caller).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) {
      internal::CheckFailed(__FILE__, __LINE__, "!status.ok()",
                            "Result constructed from an OK status without a value");
    }
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    CheckOk();
    return *value_;
  }
  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void CheckOk() const {
    if (!status_.ok())
      internal::CheckFailed(__FILE__, __LINE__, "Result::ok()", status_.ToString());
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace neardup

#endif  // NEARDUP_STATUS_H_
