# SPDX-License-Identifier: Apache-2.0
# The README's library example must build and print what the README says.
add_executable(quickstart ${CMAKE_SOURCE_DIR}/examples/quickstart.cc)
target_link_libraries(quickstart PRIVATE neardup)
add_test(NAME example.quickstart COMMAND quickstart)
set_tests_properties(example.quickstart PROPERTIES LABELS "e2e"
  PASS_REGULAR_EXPRESSION "b: cluster a, size 2, duplicate")
