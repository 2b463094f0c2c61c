# SPDX-License-Identifier: Apache-2.0
# Chinese segmentation against the jieba oracle (Debian python3-jieba, run by
# /usr/bin/python3) on real text: a slice of manpages-zh prose and Tang poems
# from chinese-poetry. Prints the agreement; fails below 99%. Label quality:
# not run under ASan (Makefile).
if(EXISTS /usr/bin/python3)
  add_test(NAME zh_segment_jieba_agreement
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/scripts/jieba_diff --corpus
            --neardup $<TARGET_FILE:neardup_cli>
            --dict-dir ${NEARDUP_DATA_DIR}/nodejieba/submodules/cppjieba/dict
            --cache-dir ${CMAKE_BINARY_DIR}/cache
            --show 5 --min-agreement 0.99)
  set_tests_properties(zh_segment_jieba_agreement PROPERTIES TIMEOUT 120 LABELS "e2e;zh;quality")
endif()
