# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `--algorithm` and `--verify` in the CLI (tests/signals_cli_test.py).
foreach(case minhash_verified_clusters every_algorithm_runs several_signals_evidence
        simhash_profile_output bad_values_exit_2)
  add_test(NAME signals_cli.${case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/signals_cli_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} ${case})
  set_tests_properties(signals_cli.${case} PROPERTIES LABELS "e2e;cli" TIMEOUT 120)
endforeach()
