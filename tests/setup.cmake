# SPDX-License-Identifier: Apache-2.0
# The quick first run (tests/setup_test.py), label "setup": `make demo`
# installs only what it runs, the build configures without the tests'
# packages, and the demo's result is the first thing on the screen. The last
# runs `make demo` on this (up-to-date) tree: never beside another test that
# runs the build (RESOURCE_LOCK). Not in sanitizer builds.
if(NOT NEARDUP_ASAN AND NOT NEARDUP_TSAN AND NOT NEARDUP_FUZZ)
  foreach(case demo_installs_only_what_it_runs configure_without_test_packages
          demo_shows_the_result_first)
    add_test(NAME setup.${case}
      COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/setup_test.py ${CMAKE_SOURCE_DIR}
              ${CMAKE_BINARY_DIR} ${case})
    set_tests_properties(setup.${case} PROPERTIES LABELS "setup" TIMEOUT 300
      ENVIRONMENT "NEARDUP_DATA_DIR=${NEARDUP_DATA_DIR}")
  endforeach()
  set_tests_properties(setup.demo_shows_the_result_first PROPERTIES
    RESOURCE_LOCK neardup_build_tree)
endif()
