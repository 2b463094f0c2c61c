# SPDX-License-Identifier: Apache-2.0
# The Python module `neardup` (docs/python.md): pybind11 bindings of the
# public API, built into ${CMAKE_BINARY_DIR}/python with its type stubs, so
# `PYTHONPATH=build/python python3 -c 'import neardup'` works after `make`.
# `cmake --install build --component python` copies both into the
# interpreter's site-packages (NEARDUP_PYTHON_SITE overrides where; DESTDIR
# is honoured).
# A sanitized extension cannot load into Debian's (unsanitized) interpreter:
# the sanitizer builds leave the module out.
if(NEARDUP_ASAN OR NEARDUP_TSAN OR NEARDUP_FUZZ)
  message(STATUS "Python module off in sanitizer builds")
  return()
endif()
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)  # Debian's, whose packages the tests use
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG QUIET)
if(NOT Python3_Development.Module_FOUND OR NOT pybind11_FOUND)
  message(STATUS "Python module off: needs python3-dev and pybind11-dev (scripts/setup)")
  return()
endif()

set(NEARDUP_PYTHON_DIR ${CMAKE_BINARY_DIR}/python)
file(GLOB NEARDUP_PYTHON_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cc)
pybind11_add_module(neardup_python MODULE NO_EXTRAS ${NEARDUP_PYTHON_SOURCES})
# Not in unity batches: its files overload helpers (ToPython, AddMany) per file.
set_target_properties(neardup_python PROPERTIES UNITY_BUILD OFF OUTPUT_NAME neardup
  LIBRARY_OUTPUT_DIRECTORY ${NEARDUP_PYTHON_DIR})
target_include_directories(neardup_python PRIVATE ${CMAKE_SOURCE_DIR}/apps)
target_compile_definitions(neardup_python PRIVATE NEARDUP_VERSION="${PROJECT_VERSION}")
# Apps see include/neardup and the base utilities only (HACKING.md).
target_link_libraries(neardup_python PRIVATE neardup neardup_base)
# The stubs sit next to the module (copied again whenever they change).
configure_file(${CMAKE_CURRENT_LIST_DIR}/neardup.pyi ${NEARDUP_PYTHON_DIR}/neardup.pyi COPYONLY)

if(NOT NEARDUP_PYTHON_SITE)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c
    "import sysconfig; print(sysconfig.get_path('platlib'))"
    OUTPUT_VARIABLE site OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(NEARDUP_PYTHON_SITE ${site} CACHE PATH
    "Where `cmake --install --component python` puts the module (default: the interpreter's site-packages)")
endif()
install(TARGETS neardup_python LIBRARY DESTINATION ${NEARDUP_PYTHON_SITE} COMPONENT python)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/neardup.pyi DESTINATION ${NEARDUP_PYTHON_SITE}
  COMPONENT python)
