# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `neardup truth` and `neardup eval` on a slice of manpages-zh.
foreach(case labels_sweep threshold_sweep pairs_truth usage_errors truth_larger_than_corpus
        online_final_clusters)
  add_test(NAME eval.${case}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/eval_test.py $<TARGET_FILE:neardup_cli>
            ${CMAKE_SOURCE_DIR} ${case})
  set_tests_properties(eval.${case} PROPERTIES LABELS "e2e;eval" TIMEOUT 120)
endforeach()
