// SPDX-License-Identifier: Apache-2.0
// neardup command-line tool. Subcommands live in apps/cli/*_cmd.cc and
// register themselves (see command.h); this file only parses and dispatches.
#include <algorithm>
#include <iostream>
#include <new>
#include <string_view>
#include <system_error>
#include <vector>

#include "base/signal_cleanup.h"
#include "cli/command.h"

namespace neardup::cli {
namespace {
std::vector<std::pair<int, CommandSetup>>& Registry() {
  static std::vector<std::pair<int, CommandSetup>> registry;
  return registry;
}

// Whether `b` is `a` with at most one character inserted, deleted or
// replaced, or two neighbours swapped (a typo).
bool OneEditApart(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  if (b.size() - a.size() > 1) return false;
  size_t i = 0;
  while (i < a.size() && a[i] == b[i]) ++i;
  if (i == a.size()) return true;
  if (a.size() < b.size()) return a.substr(i) == b.substr(i + 1);
  if (a.substr(i + 1) == b.substr(i + 1)) return true;
  return i + 1 < a.size() && a[i] == b[i + 1] && a[i + 1] == b[i] &&
         a.substr(i + 2) == b.substr(i + 2);
}

// Where `app` needs a subcommand and the next word names none, the message
// that names the word and the closest command ("" when the words are fine).
// CLI11 alone says "A subcommand is required".
std::string UnknownCommand(CLI::App* app, int argc, char** argv) {
  std::string path = "neardup";
  for (int i = 1; i < argc && app->get_require_subcommand_min() > 0; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return "";
    auto subs = app->get_subcommands([](const CLI::App*) { return true; });
    auto it = std::find_if(subs.begin(), subs.end(),
                           [&](const CLI::App* s) { return s->check_name(word); });
    if (it != subs.end()) {
      app = const_cast<CLI::App*>(*it);
      path += " " + word;
      continue;
    }
    // Suggest a command the word begins, else one a typo away.
    std::string prefix, typo, names;
    for (const CLI::App* s : subs) {
      const std::string& name = s->get_name();
      names += (names.empty() ? "" : ", ") + name;
      if (prefix.empty() && name.starts_with(word)) prefix = name;
      if (typo.empty() && OneEditApart(word, name)) typo = name;
    }
    const std::string best = prefix.empty() ? typo : prefix;
    std::string m = path + ": unknown command '" + word + "'";
    m += best.empty() ? "; the commands are " + names : "; did you mean '" + best + "'?";
    return m + "\nRun `" + path + " --help` for the list.";
  }
  return "";
}

}  // namespace

bool RegisterCommand(int order, CommandSetup setup) {
  Registry().emplace_back(order, std::move(setup));
  return true;
}

}  // namespace neardup::cli

int main(int argc, char** argv) {
  using namespace neardup::cli;
  // Temporary files (outputs being written, spill directories) go with the
  // process on SIGINT, SIGTERM, SIGHUP, ... (base/signal_cleanup.h).
  neardup::base::InstallSignalCleanup();
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
  if (const std::string unknown = UnknownCommand(&app, argc, argv); !unknown.empty()) {
    std::cerr << unknown << "\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "neardup: out of memory\n";
    return kExitBadInput;
  } catch (const std::system_error& e) {
    std::cerr << "neardup: " << e.what() << "\n";
    return kExitBadInput;
  }
  return exit_code;
}
