# SPDX-License-Identifier: Apache-2.0
# The quality leaderboard end to end on a slice of the suite (scripts/quality/leaderboard).
add_test(NAME quality.leaderboard_slice
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/quality_slice_test.py
          $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR})
set_tests_properties(quality.leaderboard_slice PROPERTIES LABELS "e2e;eval;quality" TIMEOUT 120)
# The excerpt and boilerplate-trap datasets (issue 25) are what they claim.
add_test(NAME quality.trap_datasets
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/trap_datasets_test.py ${CMAKE_SOURCE_DIR})
set_tests_properties(quality.trap_datasets PROPERTIES LABELS "eval;quality" TIMEOUT 120)
