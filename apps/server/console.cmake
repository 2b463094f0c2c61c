# SPDX-License-Identifier: Apache-2.0
# The web console (docs/console.md): the files under apps/server/console/
# are compiled into neardup_server by cmake/embed_files.cmake, so
# `neardup serve` needs nothing next to the binary.
file(GLOB_RECURSE NEARDUP_CONSOLE_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/apps/server/console/*)
set(NEARDUP_CONSOLE_CC ${CMAKE_BINARY_DIR}/generated/console_assets.cc)
add_custom_command(
  OUTPUT ${NEARDUP_CONSOLE_CC}
  COMMAND ${CMAKE_COMMAND} -DDIR=${CMAKE_SOURCE_DIR}/apps/server/console -DOUT=${NEARDUP_CONSOLE_CC}
          -P ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${NEARDUP_CONSOLE_FILES} ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  COMMENT "Embedding the web console"
  VERBATIM)
target_sources(neardup_server PRIVATE ${NEARDUP_CONSOLE_CC})
# Megabytes of byte arrays: compiled on its own, never in a unity batch.
set_source_files_properties(${NEARDUP_CONSOLE_CC} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
