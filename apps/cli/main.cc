// SPDX-License-Identifier: Apache-2.0
// neardup command-line tool. Subcommands live in apps/cli/*_cmd.cc and
// register themselves (see command.h); this file only parses and dispatches.
#include <algorithm>
#include <vector>

#include "cli/command.h"

namespace neardup::cli {
namespace {
std::vector<std::pair<int, CommandSetup>>& Registry() {
  static std::vector<std::pair<int, CommandSetup>> registry;
  return registry;
}
}  // namespace

bool RegisterCommand(int order, CommandSetup setup) {
  Registry().emplace_back(order, std::move(setup));
  return true;
}

}  // namespace neardup::cli

int main(int argc, char** argv) {
  using namespace neardup::cli;
  CLI::App app{
      "neardup: find near-duplicate text (news reprints, repeated questions, "
      "Traditional/Simplified copies).\n"
      "Run `neardup <command> --help` for a command's options; "
      "`neardup dedup FILE` needs none."};
  app.set_version_flag("--version", "neardup 0.1.0");
  app.require_subcommand(1);
  int exit_code = kExitOk;
  auto& registry = Registry();
  std::stable_sort(registry.begin(), registry.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, setup] : registry) setup(&app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  return exit_code;
}
