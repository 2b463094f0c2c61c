# SPDX-License-Identifier: Apache-2.0
# The web console (docs/console.md): its character diff under node (unit),
# and the pages in Debian's chromium driven by playwright-core against a
# real `neardup serve` (label browser). scripts/setup installs chromium and
# tests/browser/node_modules (npm ci from the lockfile).
find_program(NEARDUP_NODE node)
if(NEARDUP_NODE)
  add_test(NAME console_diff
    COMMAND ${NEARDUP_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/browser/diff_test.mjs)
  set_tests_properties(console_diff PROPERTIES LABELS "unit;console" TIMEOUT 60)
endif()
if(NEARDUP_NODE AND TARGET neardup_server)
  add_test(NAME console_browser
    COMMAND ${NEARDUP_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/browser/console_test.mjs)
  set_tests_properties(console_browser PROPERTIES
    LABELS "browser;e2e" TIMEOUT 180 COST 1000
    ENVIRONMENT "NEARDUP_BINARY=$<TARGET_FILE:neardup_cli>")
endif()
