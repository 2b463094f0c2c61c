# SPDX-License-Identifier: Apache-2.0
# Tests of the Python module (tests/python/, pytest from Debian's python3-pytest),
# label "python": the API, identity with the CLI, GIL release, the durable engine,
# the examples of the README and docs/python.md (Dask on a LocalCluster), and
# `pip install .`.
if(TARGET neardup_python)
  foreach(t api cli_identity gil durable examples)
    add_test(NAME python.${t}
      COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider -rs
              ${CMAKE_CURRENT_SOURCE_DIR}/python/test_${t}.py)
    set_tests_properties(python.${t} PROPERTIES LABELS "python" TIMEOUT 300
      ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;NEARDUP_CLI=$<TARGET_FILE:neardup_cli>;PYTHONDONTWRITEBYTECODE=1")
  endforeach()
  # `pip install .` (pyproject.toml, setup.py) into a virtual environment,
  # offline, building the target in this tree.
  add_test(NAME python.pip_install
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/pip_install_test.py
            ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/pip_install)
  set_tests_properties(python.pip_install PROPERTIES LABELS "python" TIMEOUT 300
    RESOURCE_LOCK neardup_build_tree)
  # Alone, so that the machine's cores are free to show two threads at once.
  set_tests_properties(python.gil PROPERTIES RUN_SERIAL TRUE)
endif()
