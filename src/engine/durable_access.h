// SPDX-License-Identifier: Apache-2.0
//
// What the library's own code and tests may reach inside a DurableEngine
// (the public header names only this class, as an opaque friend): its
// in-memory Engine, its store, and Open() with store options (fault injection).
#ifndef NEARDUP_ENGINE_DURABLE_ACCESS_H_
#define NEARDUP_ENGINE_DURABLE_ACCESS_H_

#include <memory>

#include "neardup/durable_engine.h"
#include "store/doc_store.h"

namespace neardup::engine {

class DurableAccess {
 public:
  static const Engine& EngineOf(const DurableEngine& d) { return *d.engine_; }
  // The open store (tests: read its rows).
  static const store::DocStore& StoreOf(const DurableEngine& d);
  // DurableEngine::Open with `store_options`. Errors: as Open.
  static Result<std::unique_ptr<DurableEngine>> Open(const DurableOptions& options,
                                                     const store::StoreOptions& store_options);
};

inline const Engine& EngineOf(const DurableEngine& d) { return DurableAccess::EngineOf(d); }
inline Result<std::unique_ptr<DurableEngine>> OpenDurable(
    const DurableOptions& options, const store::StoreOptions& store_options) {
  return DurableAccess::Open(options, store_options);
}

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_DURABLE_ACCESS_H_
