# SPDX-License-Identifier: Apache-2.0
"""`pip install .` from the checkout as docs/python.md shows it: a virtual
environment that sees Debian's packages, pip without build isolation and
without an index (offline). The build reuses this build tree
(NEARDUP_BUILD_DIR: setup.py builds the CMake target there, which is up to
date), then the installed module, not build/python, runs a dedup.
Usage: pip_install_test.py SOURCE BUILD WORKDIR"""
import os
import shutil
import subprocess
import sys

CHECK = r"""
import os, sys
import neardup
here = os.path.dirname(neardup.__file__)
assert here.startswith(sys.prefix), (neardup.__file__, sys.prefix)
assert os.path.exists(os.path.join(here, "neardup.pyi")), "stubs not installed"
labels = neardup.dedup(["a b c d e f g h", "a b c d e f g h!", "something else entirely",
                        "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。",
                        "床前明月光，疑是地上霜。举头望明月，低头思故乡。"])
assert list(labels.cluster) == [0, 0, 2, 3, 3], list(labels.cluster)
print("installed at", here)
"""


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def main():
    source, build, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    venv = os.path.join(work, "venv")
    run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_INDEX_URL")}
    env.update(NEARDUP_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    python = os.path.join(venv, "bin", "python")
    run([python, "-m", "pip", "install", "--no-build-isolation", source], env=env, cwd=work)
    print(run([python, "-c", CHECK], env=env, cwd=work).stdout, end="")
    stray = [f for f in os.listdir(source) if f.endswith(".egg-info")]
    assert not stray, "pip left %s in the checkout" % stray
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
