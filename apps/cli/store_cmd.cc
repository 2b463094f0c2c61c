// SPDX-License-Identifier: Apache-2.0
// `neardup store check DIR` and `neardup store repair DIR [--yes]`: the
// durable service's store, checked without changing it, and repaired as an
// explicit step that says first what it gives up (docs/reliability.md).
#include <fmt/core.h>

#include <string>

#include "cli/command.h"
#include "neardup/durable_engine.h"

namespace neardup::cli {
namespace {

std::string Size(uint64_t bytes) {
  return bytes >= (1u << 20) ? fmt::format("{:.1f} MiB", bytes / 1048576.0)
                             : fmt::format("{:.1f} KiB", bytes / 1024.0);
}

void PrintCheck(const std::string& dir, const StoreCheck& c) {
  if (c.ok()) {
    fmt::print("store {}: OK, {} documents, {} files, {}\n", dir, c.documents, c.files,
               Size(c.bytes));
  } else {
    fmt::print("store {}: DAMAGED ({} files, {})\n", dir, c.files, Size(c.bytes));
  }
  for (const auto& d : c.damage) fmt::print("  damage: {}\n", d);
  for (const auto& n : c.notes) fmt::print("  note: {}\n", n);
}

int Check(const std::string& dir) {
  auto c = CheckStore(dir);
  if (!c.ok()) {
    fmt::print(stderr, "neardup store check: {}\n", c.status().ToString());
    return kExitBadInput;
  }
  PrintCheck(dir, *c);
  if (c->ok()) return kExitOk;
  fmt::print("`neardup store repair {}` says what a repair would recover and lose.\n", dir);
  return kExitBadInput;
}

int Repair(const std::string& dir, bool yes) {
  auto r = RepairStore(dir, yes);
  if (!r.ok()) {
    fmt::print(stderr, "neardup store repair: {}\n", r.status().ToString());
    return kExitBadInput;
  }
  PrintCheck(dir, r->before);
  if (r->before.ok()) {
    fmt::print("nothing to repair\n");
    return kExitOk;
  }
  fmt::print("{}:\n", r->applied ? "the repair gave up" : "a repair would give up");
  if (r->lost.empty()) fmt::print("  nothing that can be named\n");
  for (const auto& l : r->lost) fmt::print("  lost: {}\n", l);
  if (!r->applied) {
    fmt::print(
        "and leave {} documents. Nothing was changed; run again with --yes to repair (the damaged "
        "store is kept beside it as {}.damaged-<time>).\n",
        r->documents, dir);
    return kExitBadInput;
  }
  fmt::print("repaired: store {} holds {} documents. The damaged store is kept in {}.\n", dir,
             r->documents, r->kept);
  return kExitOk;
}

void SetupStore(CLI::App* app, int* exit_code) {
  CLI::App* store = app->add_subcommand(
      "store", "Check or repair the store of `neardup serve` (docs/reliability.md)");
  store->require_subcommand(1);
  auto dir = std::make_shared<std::string>();
  auto yes = std::make_shared<bool>(false);
  CLI::App* check = store->add_subcommand(
      "check",
      "Read the whole store and report what is damaged, changing nothing (exit 0 sound, 1 "
      "damaged)");
  check->add_option("DIR", *dir, "Store directory (serve --data)")->required();
  check->callback([dir, exit_code] { *exit_code = Check(*dir); });
  CLI::App* repair = store->add_subcommand(
      "repair",
      "Say what a repair of a damaged store recovers and gives up; with --yes, repair it (the\n"
      "damaged store is kept as DIR.damaged-<time>)");
  repair->add_option("DIR", *dir, "Store directory (serve --data)")->required();
  repair->add_flag("--yes", *yes, "Do the repair");
  repair->callback([dir, yes, exit_code] { *exit_code = Repair(*dir, *yes); });
}

}  // namespace

NEARDUP_REGISTER_COMMAND(95, SetupStore);

}  // namespace neardup::cli
