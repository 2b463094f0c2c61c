// SPDX-License-Identifier: Apache-2.0
#include "signal/registry.h"

#include <string>

#include "signal/signal_internal.h"

namespace neardup::signal {
namespace {

// To add a signal: implement Signal in its own file and add its row here.
constexpr SignalRegistration kSignals[] = {
    {SignalKind::kExact, "exact", &CreateExactSignal},
    {SignalKind::kSimHash, "simhash", &CreateSimHashSignal},
    {SignalKind::kMinHash, "minhash", &CreateMinHashSignal},
    {SignalKind::kSuperShingle, "supershingle", &CreateSuperShingleSignal},
    {SignalKind::kIMatch, "imatch", &CreateIMatchSignal},
    {SignalKind::kSpotSig, "spotsig", &CreateSpotSigSignal},
    {SignalKind::kContainment, "containment", &CreateContainmentSignal},
};

const SignalRegistration* Find(SignalKind kind) {
  for (const auto& r : kSignals)
    if (r.kind == kind) return &r;
  return nullptr;
}

}  // namespace

std::span<const SignalRegistration> RegisteredSignals() { return kSignals; }

std::string_view SignalName(SignalKind kind) {
  const SignalRegistration* r = Find(kind);
  return r != nullptr ? r->name : "?";
}

Result<SignalKind> ParseSignalName(std::string_view name) {
  std::string known;
  for (const auto& r : kSignals) {
    if (r.name == name) return r.kind;
    known += (known.empty() ? "" : ", ") + std::string(r.name);
  }
  return Status::InvalidArgument("unknown signal '" + std::string(name) + "' (known: " + known +
                                 ")");
}

std::string_view Signal::name() const { return SignalName(kind()); }

Result<std::unique_ptr<Signal>> CreateSignal(SignalKind kind, const SignalOptions& options) {
  const SignalRegistration* r = Find(kind);
  if (r == nullptr) return Status::InvalidArgument("unknown signal");
  return r->create(options);
}

}  // namespace neardup::signal
