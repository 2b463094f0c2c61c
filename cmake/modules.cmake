# SPDX-License-Identifier: Apache-2.0
#
# neardup_module(NAME [DEPS module...] [EXPORTS module...] [HEADERS file.h...]
#                [LIBS target...] [API | SEES_API])
#   A static library neardup_NAME from src/NAME/*.cc (tests excluded), or an
#   interface library when the module is headers only.
#   - HEADERS are the module's public headers: only they are staged for the
#     modules that depend on it (<build>/modules/public/NAME/NAME/*.h, one
#     symlink each), so `#include "NAME/x.h"` from another module compiles
#     only when NAME is a dependency and x.h is listed. The module's own
#     sources and unit tests see all of src/NAME (modules/private/NAME).
#   - DEPS are linked PRIVATE: a module sees its dependencies' public
#     headers, not their dependencies'. EXPORTS (a subset of DEPS) are linked
#     PUBLIC, for the dependencies whose headers the module's public headers
#     include.
#   Every module sees neardup/status.h, neardup/utf8.h and neardup/signal_kind.h. With API the
#   module implements the public API: it sees all of include/neardup, and
#   exports only that (its own headers and DEPS are PRIVATE), so what links
#   it cannot reach internal headers. With SEES_API the module sees
#   include/neardup too but exports its own headers as usual, for the
#   modules built on it (pipeline under engine and batch; batch under
#   distributed). Apps link the umbrella target `neardup`, which passes on
#   the libraries only (LINK_ONLY), so no module's headers reach them.
# neardup_module_tests()
#   One GoogleTest binary per module from src/NAME/*_test.cc, linked to that
#   module and its DEPS (plus gtest), label "unit;NAME".

set(NEARDUP_STAGE ${CMAKE_BINARY_DIR}/modules)
set(NEARDUP_API_BASE ${NEARDUP_STAGE}/api_base)
file(MAKE_DIRECTORY ${NEARDUP_API_BASE}/neardup)
foreach(h status.h utf8.h signal_kind.h)
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/include/neardup/${h} ${NEARDUP_API_BASE}/neardup/${h} SYMBOLIC)
endforeach()
set(NEARDUP_MODULES "" CACHE INTERNAL "")

# Stages NAME's listed public headers and its whole directory (private).
function(neardup_stage_headers name headers)
  set(private ${NEARDUP_STAGE}/private/${name})
  file(MAKE_DIRECTORY ${private})
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${name} ${private}/${name} SYMBOLIC)
  set(public ${NEARDUP_STAGE}/public/${name}/${name})
  file(REMOVE_RECURSE ${public})  # headers no longer listed disappear
  file(MAKE_DIRECTORY ${public})
  foreach(h ${headers})
    if(NOT EXISTS ${CMAKE_SOURCE_DIR}/src/${name}/${h})
      message(FATAL_ERROR "neardup_module(${name}): HEADERS lists ${h}, not in src/${name}")
    endif()
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${name}/${h} ${public}/${h} SYMBOLIC)
  endforeach()
endfunction()

function(neardup_module name)
  cmake_parse_arguments(M "API;SEES_API" "" "DEPS;EXPORTS;HEADERS;LIBS" ${ARGN})
  foreach(dep ${M_EXPORTS})
    if(NOT dep IN_LIST M_DEPS)
      message(FATAL_ERROR "neardup_module(${name}): EXPORTS ${dep} is not in DEPS")
    endif()
  endforeach()
  neardup_stage_headers(${name} "${M_HEADERS}")
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_test\\.cc$")
  set(target neardup_${name})
  if(srcs)
    add_library(${target} STATIC ${srcs})
    set(scope PUBLIC)
    set(private_scope PRIVATE)
    if(M_API)
      set(scope PRIVATE)
      target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/include)
    elseif(M_SEES_API)
      target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/include)
    endif()
    target_compile_definitions(${target} PRIVATE NEARDUP_DEFAULT_DATA_DIR="${NEARDUP_DATA_DIR}")
    target_include_directories(${target} PRIVATE ${NEARDUP_STAGE}/private/${name})
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
    set(private_scope INTERFACE)
  endif()
  target_include_directories(${target} ${scope} ${NEARDUP_STAGE}/public/${name}
    ${NEARDUP_API_BASE})
  foreach(dep ${M_DEPS})
    if(dep IN_LIST M_EXPORTS)
      target_link_libraries(${target} ${scope} neardup_${dep})
    else()
      target_link_libraries(${target} ${private_scope} neardup_${dep})
    endif()
  endforeach()
  target_link_libraries(${target} ${scope} Threads::Threads ${M_LIBS})
  set(NEARDUP_MODULES ${NEARDUP_MODULES} ${name} CACHE INTERNAL "")
  set(NEARDUP_DEPS_${name} ${M_DEPS} CACHE INTERNAL "")
endfunction()

function(neardup_module_tests)
  foreach(name ${NEARDUP_MODULES})
    file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*_test.cc)
    if(NOT tests)
      continue()
    endif()
    add_executable(${name}_test ${tests})
    if(NOT name IN_LIST NEARDUP_TEST_FLAGS_EXCEPT)
      target_compile_options(${name}_test PRIVATE ${NEARDUP_TEST_COMPILE_OPTIONS})
    endif()
    target_compile_definitions(${name}_test PRIVATE
      NEARDUP_DEFAULT_DATA_DIR="${NEARDUP_DATA_DIR}"
      NEARDUP_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
      NEARDUP_BINARY_DIR="${CMAKE_BINARY_DIR}")
    target_include_directories(${name}_test PRIVATE ${NEARDUP_STAGE}/private/${name})
    target_link_libraries(${name}_test PRIVATE neardup_${name} GTest::gtest GTest::gtest_main
      GTest::gmock)
    foreach(dep ${NEARDUP_DEPS_${name}})
      target_link_libraries(${name}_test PRIVATE neardup_${dep})
    endforeach()
    gtest_discover_tests(${name}_test DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "unit;${name}")
  endforeach()
endfunction()
