// SPDX-License-Identifier: Apache-2.0
//
// The one table of signals: each SignalKind with its name and factory. The
// engine, batch dedup, `explain`, the CLI's and the docs' names all read it.
//
// Thread safety: the table is immutable.
#ifndef NEARDUP_SIGNAL_REGISTRY_H_
#define NEARDUP_SIGNAL_REGISTRY_H_

#include <memory>
#include <span>
#include <string_view>

#include "neardup/signal_kind.h"
#include "neardup/status.h"
#include "signal/signal.h"

namespace neardup::signal {

struct SignalRegistration {
  SignalKind kind;
  std::string_view name;  // "exact", "simhash", ... (CLI, JSON, docs)
  // Errors: InvalidArgument for bad options; NotFound / IOError for data files.
  Result<std::unique_ptr<Signal>> (*create)(const SignalOptions& options);
};

// Every signal, in SignalKind order.
std::span<const SignalRegistration> RegisteredSignals();

// The registered name; "?" for a value outside the enum.
std::string_view SignalName(SignalKind kind);

// Errors: InvalidArgument naming the known signals.
Result<SignalKind> ParseSignalName(std::string_view name);

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_REGISTRY_H_
