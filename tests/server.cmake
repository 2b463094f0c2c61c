# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `neardup serve` against a real server process on
# 127.0.0.1, and the load generator used by scripts/loadtest.
if(TARGET neardup_server)
  add_executable(server_api_test
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_api_test.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_durability_test.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_limits_test.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_diskfull_test.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_console_test.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_attack_test.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/raw_client.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/server/server_process.cc)
  target_include_directories(server_api_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(server_api_test PRIVATE ${NEARDUP_TEST_COMPILE_OPTIONS})
  target_compile_definitions(server_api_test PRIVATE NEARDUP_BINARY="$<TARGET_FILE:neardup_cli>")
  target_link_libraries(server_api_test PRIVATE GTest::gtest GTest::gtest_main PkgConfig::HTTPLIB
    nlohmann_json::nlohmann_json Threads::Threads)
  add_dependencies(server_api_test neardup_cli)
  gtest_discover_tests(server_api_test DISCOVERY_TIMEOUT 60 PROPERTIES LABELS e2e TIMEOUT 120)

  # Unit tests of the transport pieces (framing, routing), beside the code.
  file(GLOB server_unit_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/apps/server/*_test.cc)
  add_executable(server_unit_test ${server_unit_sources})
  target_include_directories(server_unit_test PRIVATE ${CMAKE_SOURCE_DIR}/apps)
  target_compile_options(server_unit_test PRIVATE ${NEARDUP_TEST_COMPILE_OPTIONS})
  target_link_libraries(server_unit_test PRIVATE neardup_server GTest::gtest GTest::gtest_main)
  gtest_discover_tests(server_unit_test DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "unit;server")

  add_executable(neardup_loadgen ${CMAKE_CURRENT_SOURCE_DIR}/server/loadgen.cc)
  set_target_properties(neardup_loadgen PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  target_link_libraries(neardup_loadgen PRIVATE PkgConfig::HTTPLIB nlohmann_json::nlohmann_json
    Threads::Threads)
endif()
