# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `neardup cluster` (tests/cluster_cli_test.py), one ctest per case.
foreach(case qbank_clusters_without_cap cap_stops_the_chain levenshtein_is_looser_than_qbank
        emit_all_keep_and_evidence groups_from_stdin errors traditional_folds_as_in_dedup)
  add_test(NAME cluster_cli.${case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cluster_cli_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} ${case})
  set_tests_properties(cluster_cli.${case} PROPERTIES LABELS "e2e;cli" TIMEOUT 120)
endforeach()
