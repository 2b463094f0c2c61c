// SPDX-License-Identifier: Apache-2.0
//
// Subcommand registry for the `neardup` tool. Each apps/cli/<name>_cmd.cc
// registers itself with a static NEARDUP_REGISTER_COMMAND; main.cc builds the
// CLI11 app from the registry, so adding a command touches no shared file.
//
// Exit codes: 0 ok, 1 bad input or runtime failure, 2 usage error.
#ifndef NEARDUP_APPS_CLI_COMMAND_H_
#define NEARDUP_APPS_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace neardup::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

// Called once to add the subcommand to `app`. The subcommand's callback must
// store its exit code in *exit_code.
using CommandSetup = std::function<void(CLI::App* app, int* exit_code)>;

// Returns true so it can initialize a static. `order` sorts --help output.
bool RegisterCommand(int order, CommandSetup setup);

#define NEARDUP_REGISTER_COMMAND(order, fn) \
  static const bool neardup_cmd_registered_##fn = ::neardup::cli::RegisterCommand(order, fn)

}  // namespace neardup::cli

#endif  // NEARDUP_APPS_CLI_COMMAND_H_
