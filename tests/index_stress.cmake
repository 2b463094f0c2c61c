# SPDX-License-Identifier: Apache-2.0
# Long concurrency stress of the Hamming index: readers during merges. Labelled
# slow (skipped by `make test`) and tsan: build with -DNEARDUP_TSAN=ON and run
# `ctest -L tsan` (docs/index.md).
set(NEARDUP_STRESS_SECONDS 20 CACHE STRING "Seconds of the index concurrency stress")
if(TARGET index_test)
  add_test(NAME index_concurrency_stress
    COMMAND index_test --gtest_filter=HammingIndexTest.ConcurrentReadersDuringMerges)
  set_tests_properties(index_concurrency_stress PROPERTIES
    LABELS "slow;tsan"
    ENVIRONMENT "NEARDUP_STRESS_SECONDS=${NEARDUP_STRESS_SECONDS};TSAN_OPTIONS=halt_on_error=1"
    TIMEOUT 600)
endif()
