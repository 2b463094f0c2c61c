# SPDX-License-Identifier: Apache-2.0
# The shell examples of README.md and docs/*.md, run against small corpora by
# scripts/docs-examples (label "docs"): an example that fails names its
# file:line and its stderr. Not in sanitizer builds (it checks the docs, not
# memory, and its mpirun examples would report inside Open MPI).
if(NOT NEARDUP_ASAN AND NOT NEARDUP_TSAN AND NOT NEARDUP_FUZZ)
  set(docs_args --neardup $<TARGET_FILE:neardup_cli> --data-dir ${NEARDUP_DATA_DIR}
    --cache-dir ${CMAKE_BINARY_DIR}/cache)
  if(TARGET neardup_python)
    list(APPEND docs_args --python-dir ${CMAKE_BINARY_DIR}/python)
  endif()
  add_test(NAME docs.examples
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/scripts/docs-examples ${docs_args})
  set_tests_properties(docs.examples PROPERTIES LABELS "docs;e2e" TIMEOUT 300)
endif()
