# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of a damaged store (tests/store_cli_test.py): `neardup
# serve` refuses it unchanged, `neardup store check` names the damage and
# `neardup store repair` recovers what it can. One ctest per kind of damage.
if(TARGET neardup_server)
  foreach(case healthy disk_bytes wal_deleted_after_clean_stop manifest_truncated manifest_deleted
          current_deleted current_corrupt current_truncated sst_deleted sst_truncated sst_bitflip
          forms_sst_deleted
          wal_deleted wal_truncated wal_bitflip)
    add_test(NAME store_cli.${case}
      COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/store_cli_test.py
              $<TARGET_FILE:neardup_cli> ${case} ${CMAKE_CURRENT_BINARY_DIR}/store_cli_stores)
    set_tests_properties(store_cli.${case} PROPERTIES LABELS "e2e;cli" TIMEOUT 120
      FIXTURES_REQUIRED store_cli_stores)
  endforeach()
  # The two undamaged stores, built once by the real server for every case.
  add_test(NAME store_cli.setup
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/store_cli_test.py
            $<TARGET_FILE:neardup_cli> setup ${CMAKE_CURRENT_BINARY_DIR}/store_cli_stores)
  set_tests_properties(store_cli.setup PROPERTIES LABELS "e2e;cli" TIMEOUT 120
    FIXTURES_SETUP store_cli_stores)
endif()
