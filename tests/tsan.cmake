# SPDX-License-Identifier: Apache-2.0
# The concurrency tests, run under ThreadSanitizer by `make test-tsan`
# (.ci/run): a build with -DNEARDUP_TSAN=ON, then `ctest -L tsan`.
# Registered only in that build; index_stress.cmake adds the long index stress.
if(NEARDUP_TSAN)
  set(tsan_env "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp")
  add_test(NAME tsan.engine COMMAND engine_test
    --gtest_filter=*Concurrent*:DurableEngineTest.*:SignalsEngineTest.Durable*)
  add_test(NAME tsan.tfidf COMMAND features_test --gtest_filter=*ThreadSafe*)
  # LSH runs built a band per thread (BandRun::Build, CompactLshIndex merges).
  add_test(NAME tsan.band_runs COMMAND index_test
    --gtest_filter=*ParallelBuilds*:*SeveralThreads*)
  # The distributed runner and its parts on ranks that are threads
  # (distributed/in_process_comm.h). Of the component-round tests only the
  # random graphs: the chains, stars and grids run the same code on 2^16
  # documents (80 s under TSan) and run in every other build. Of the
  # suites run at 1-4 ranks (Ranks/...), 2 and 4 ranks only (/1, /3): one
  # rank has no other rank to race with, and 3 ranks run the code of 2 and
  # 4; every other build runs all four.
  # Two halves of about a minute each, so `ctest -j 2` runs them side by side.
  add_test(NAME tsan.distributed.components COMMAND distributed_test
    --gtest_filter=ComponentsRoundsTest.RandomGraphsMatchUnionFind:*ComponentsTest.*)
  add_test(NAME tsan.distributed COMMAND distributed_test
    --gtest_filter=-ComponentsRoundsTest.*:*ComponentsTest.*:Ranks/*/0:Ranks/*/2)
  set_tests_properties(tsan.engine tsan.tfidf tsan.band_runs tsan.distributed
    tsan.distributed.components PROPERTIES LABELS tsan ENVIRONMENT "${tsan_env}" TIMEOUT 600)
  if(TARGET server_api_test)
    # The server process runs the TSan build of the CLI too.
    # Not the kill test: under TSan the server is too slow for its stream.
    add_test(NAME tsan.server COMMAND server_api_test
      --gtest_filter=ServerOrderingTest.*:ApiTest.*:LimitsTest.*)
    set_tests_properties(tsan.server PROPERTIES LABELS tsan ENVIRONMENT "${tsan_env}"
      TIMEOUT 600)
  endif()
endif()
