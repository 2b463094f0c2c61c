// SPDX-License-Identifier: Apache-2.0
//
// What the library takes from its environment, injected through the options
// (as leveldb's Env): a clock and a sink for informational messages. The
// library itself never prints.
//
// Thread safety: implementations must be safe to call from any thread.
#ifndef NEARDUP_ENV_H_
#define NEARDUP_ENV_H_

#include <cstdint>
#include <functional>
#include <string_view>

namespace neardup {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMs() const = 0;
};

// The wall clock (std::chrono::system_clock). Never null; shared.
const Clock& SystemClock();

enum class LogLevel { kInfo, kWarning, kError };

// Receives one message per call, without a trailing newline. Null = silent.
using InfoLog = std::function<void(LogLevel level, std::string_view message)>;

}  // namespace neardup

#endif  // NEARDUP_ENV_H_
