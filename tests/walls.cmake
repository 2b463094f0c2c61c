# SPDX-License-Identifier: Apache-2.0
# The module walls (cmake/modules.cmake, HACKING.md), checked by compiling
# probes against a module's include path: each probe is an object library
# outside `all`, and its test builds it. The control must compile; the
# others must not (WILL_FAIL). Label `walls`: the answer is the same in every
# build tree, so the sanitizer runs leave them out (a probe took 17.7 s
# under ASan, against 0.7 s in `make test`).
function(neardup_wall_probe name module should_compile)
  add_library(wall_${name} OBJECT EXCLUDE_FROM_ALL ${CMAKE_CURRENT_SOURCE_DIR}/walls/${name}.cc)
  target_link_libraries(wall_${name} PRIVATE neardup_${module})
  add_test(NAME walls.${name}
    COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target wall_${name})
  set_tests_properties(walls.${name} PROPERTIES LABELS "unit;walls" RUN_SERIAL TRUE)
  if(NOT should_compile)
    set_tests_properties(walls.${name} PROPERTIES WILL_FAIL TRUE)
  endif()
endfunction()

neardup_wall_probe(public_header pipeline TRUE)
neardup_wall_probe(index_sees_normalize index FALSE)
neardup_wall_probe(private_header pipeline FALSE)
neardup_wall_probe(against_the_flow normalize FALSE)
