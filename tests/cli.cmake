# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of the neardup CLI (tests/cli_test.py), one ctest per case.
foreach(case clusters_default clusters_simhash_profile emit_all_and_keep_policies
        keep_smallest_id_with_reordered_input emit_unique_keeps_input_lines
        output_file_and_stdin_and_line_ids bad_input_names_file_and_line
        duplicate_ids_are_bad_input usage_errors_exit_2 fingerprint_matches_independent_reference
        learned_idf_corpus_save_load explain reader_rules_in_every_command
        verify_spec_grammar explain_shows_its_arithmetic unknown_commands_are_named
        explain_with_a_corpus_names_the_boilerplate_guard)
  add_test(NAME cli.${case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.py $<TARGET_FILE:neardup_cli>
            ${CMAKE_SOURCE_DIR} ${case})
  set_tests_properties(cli.${case} PROPERTIES LABELS "e2e;cli" TIMEOUT 120)
endforeach()
