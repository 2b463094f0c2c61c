# SPDX-License-Identifier: Apache-2.0
"""Builds the Python module with the project's CMake build, for `pip install .`.

The extension is the CMake target `neardup_python` (apps/python/python.cmake),
built in build/pip/cmake for the interpreter running pip (Release, without the
tests and benchmarks; -j from NEARDUP_JOBS, else all cores), then copied with
its stubs (neardup.pyi) into the wheel. NEARDUP_BUILD_DIR names an existing
configured build tree to build the target in instead (a `make` build: nothing
is recompiled). Needs cmake, a C++20 compiler, python3-dev and pybind11-dev
(scripts/setup); with Debian's pip, `pip install --no-build-isolation .` needs
no network.
"""
import glob
import os
import shutil
import subprocess
import sysconfig
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))
BUILD_BASE = os.path.join(SOURCE, "build", "pip")


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tree = os.environ.get("NEARDUP_BUILD_DIR")
        if not tree:
            tree = os.path.join(BUILD_BASE, "cmake")
            self.spawn(["cmake", "-S", SOURCE, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                        "-DNEARDUP_TESTS=OFF", "-DNEARDUP_BENCH=OFF", "-DNEARDUP_MPI=OFF",
                        "-DPython3_EXECUTABLE=" + sys.executable])
        elif not os.path.exists(os.path.join(tree, "CMakeCache.txt")):
            sys.exit("NEARDUP_BUILD_DIR=%s is not a configured CMake build tree" % tree)
        jobs = os.environ.get("NEARDUP_JOBS") or str(os.cpu_count() or 1)
        self.spawn(["cmake", "--build", tree, "--target", "neardup_python", "-j", jobs])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(tree, "python", "neardup" + suffix)
        if not os.path.exists(built):
            found = glob.glob(os.path.join(tree, "python", "neardup*.so"))
            sys.exit("%s has no module for this Python (%s); found %s: configure that tree "
                     "with -DPython3_EXECUTABLE=%s" % (tree, suffix, found, sys.executable))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)
        shutil.copymode(built, dest)
        shutil.copyfile(os.path.join(SOURCE, "apps", "python", "neardup.pyi"),
                        os.path.join(os.path.dirname(dest), "neardup.pyi"))


os.makedirs(BUILD_BASE, exist_ok=True)
setup(
    ext_modules=[Extension("neardup", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
