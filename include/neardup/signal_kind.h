// SPDX-License-Identifier: Apache-2.0
//
// The candidate generators (signals) neardup knows, as one enum. Their names,
// factories and both sides (online index, batch keys) are registered in one
// table, src/signal/registry.cc; `Name(SignalKind)` and `ParseSignalKind()`
// (options.h) read that table.
#ifndef NEARDUP_SIGNAL_KIND_H_
#define NEARDUP_SIGNAL_KIND_H_

namespace neardup {

// docs/algorithms.md describes each.
enum class SignalKind {
  kExact,
  kSimHash,
  kMinHash,
  kSuperShingle,
  kIMatch,
  kSpotSig,
  kContainment
};

}  // namespace neardup

#endif  // NEARDUP_SIGNAL_KIND_H_
