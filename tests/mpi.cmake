# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `mpirun -np N neardup dedup --distributed` (tests/mpi/,
# docs/distributed.md), label "mpi". Not in sanitizer builds: Open MPI's
# memory hooks and its never-freed globals make ASan and TSan report inside
# libmpi, which is not our code (the module itself is still compiled there).
if(NEARDUP_HAVE_MPI AND NOT NEARDUP_ASAN AND NOT NEARDUP_TSAN)
  set(corpus ${CMAKE_CURRENT_BINARY_DIR}/mpi_corpus.jsonl)
  add_test(NAME mpi.corpus
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mpi/mpi_test.py
            $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} corpus ${corpus})
  set_tests_properties(mpi.corpus PROPERTIES LABELS "e2e;mpi" TIMEOUT 60
    FIXTURES_SETUP mpi_corpus)
  foreach(case identical_default identical_qbank_smallest_id identical_spilling
          identical_cap_and_clusters identical_simhash_files identical_with_matches
          identical_learned_idf identical_against identical_boilerplate identical_containment
          errors
          rank_dies resume full_disk)
    add_test(NAME mpi.${case}
      COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/mpi/mpi_test.py
              $<TARGET_FILE:neardup_cli> ${CMAKE_SOURCE_DIR} ${case} ${corpus})
    set_tests_properties(mpi.${case} PROPERTIES LABELS "e2e;mpi" TIMEOUT 120
      SKIP_RETURN_CODE 77 FIXTURES_REQUIRED mpi_corpus)
  endforeach()
  # Two network namespaces as two hosts (root only; skipped otherwise).
  add_test(NAME mpi.two_hosts
    COMMAND /bin/bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/two_hosts.sh $<TARGET_FILE:neardup_cli>
            ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mpi_two_hosts)
  set_tests_properties(mpi.two_hosts PROPERTIES LABELS "e2e;mpi" TIMEOUT 120
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
  # Four ranks, two a host, across the same two namespaces.
  add_test(NAME mpi.four_ranks_two_hosts
    COMMAND /bin/bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/two_hosts.sh $<TARGET_FILE:neardup_cli>
            ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mpi_four_ranks 4)
  set_tests_properties(mpi.four_ranks_two_hosts PROPERTIES LABELS "e2e;mpi" TIMEOUT 120
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
  # A one-node Slurm cluster runs the sbatch example of docs/distributed.md
  # (root and Debian's slurmctld, slurmd, munge; skipped with the reason otherwise).
  add_test(NAME mpi.slurm
    COMMAND /bin/bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/slurm_test.sh $<TARGET_FILE:neardup_cli>
            ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mpi_slurm)
  set_tests_properties(mpi.slurm PROPERTIES LABELS "e2e;mpi;slurm" TIMEOUT 180
    SKIP_RETURN_CODE 77)
endif()
