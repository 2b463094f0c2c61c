# SPDX-License-Identifier: Apache-2.0
# The inputs that are hard for connected components (chains of a million
# links, stars, a 1000 x 1000 grid) on 1, 2 and 4 in-process ranks; each
# prints its rounds. The unit tests run them on 2^16 documents. Labelled
# slow (skipped by `make test`): `ctest -R components_rounds_1m`.
if(TARGET distributed_test)
  add_test(NAME components_rounds_1m
    COMMAND distributed_test --gtest_filter=ComponentsRoundsTest.*:-*Small*:*Random*)
  set_tests_properties(components_rounds_1m PROPERTIES
    LABELS "slow;distributed" ENVIRONMENT "NEARDUP_COMPONENTS_DOCS=1000001" TIMEOUT 900)
endif()
