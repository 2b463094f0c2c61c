# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of the batch pipeline behind `neardup dedup` (tests/batch_cli_test.py).
foreach(case spill_and_threads_identical odd_input_lines full_disk_is_a_clear_error
        index_build_and_against index_build_needs_files usage_errors
        failed_runs_leave_outputs_untouched signals_leave_no_temporary_files
        ids_across_files_and_against)
  add_test(NAME batch_cli.${case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/batch_cli_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} ${case})
  set_tests_properties(batch_cli.${case} PROPERTIES LABELS "e2e;cli;batch" TIMEOUT 300)
endforeach()
# Sanitizers reserve terabytes of address space of their own: not under them.
if(NOT NEARDUP_ASAN AND NOT NEARDUP_TSAN)
  add_test(NAME batch_cli.address_space_limit
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/batch_cli_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} address_space_limit)
  set_tests_properties(batch_cli.address_space_limit PROPERTIES LABELS "e2e;cli;batch" TIMEOUT 300)
  add_test(NAME batch_cli.out_of_memory_is_not_malformed_json
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/batch_cli_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} out_of_memory_is_not_malformed_json)
  set_tests_properties(batch_cli.out_of_memory_is_not_malformed_json PROPERTIES
    LABELS "e2e;cli;batch" TIMEOUT 300)
  add_test(NAME batch_cli.peak_rss_within_budget
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/batch_cli_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} peak_rss_within_budget)
  set_tests_properties(batch_cli.peak_rss_within_budget PROPERTIES LABELS "e2e;cli;batch" TIMEOUT 300)
endif()
