#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The quick first run (`make demo`, README): it installs only what it runs,
the build configures without the tests' packages, and on a terminal the
result is the first thing on the screen, after one progress line.
Usage: setup_test.py SOURCE_DIR BUILD_DIR CASE"""
import json
import os
import pty
import subprocess
import sys
import tempfile

SRC, BUILD, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
# Packages only the tests, sanitizers, fuzzers and benchmarks use.
TEST_ONLY = {"chromium", "npm", "libfaiss-dev", "python3-pytest", "python3-distributed",
             "openmpi-bin", "libopenmpi-dev", "libgtest-dev", "libgmock-dev", "libbenchmark-dev",
             "clang-14", "llvm-14", "gnuplot-nox", "pybind11-dev", "python3-dev"}


def packages(*args):
    out = subprocess.run([os.path.join(SRC, "scripts", "setup"), "--print", *args],
                         capture_output=True, text=True, check=True).stdout
    lists = dict(line.split(": ", 1) for line in out.splitlines())
    return set(lists["apt"].split()), set(lists["npm"].split())


def test_demo_installs_only_what_it_runs():
    demo_apt, demo_npm = packages("--demo")
    all_apt, all_npm = packages()
    assert not demo_apt & TEST_ONLY, demo_apt & TEST_ONLY
    assert TEST_ONLY <= all_apt and demo_apt <= all_apt, TEST_ONLY - all_apt
    assert {"build-essential", "cmake", "librocksdb-dev", "libicu-dev", "python3"} <= demo_apt
    assert demo_npm == {"opencc", "chinese-poetry"}, demo_npm  # no jieba in the default pipeline
    assert demo_npm < all_npm


def configure(tree, *flags):
    return subprocess.run(["cmake", "-S", SRC, "-B", tree, *flags], capture_output=True,
                          text=True)


def test_configure_without_test_packages():
    """What `scripts/setup --demo` leaves out is hidden from CMake: the
    binary still configures (the tests and benchmarks are left out); asking
    for the tests then fails, so `make test` cannot lose them silently."""
    hidden = ["-DCMAKE_DISABLE_FIND_PACKAGE_%s=ON" % p
              for p in ("GTest", "benchmark", "faiss", "MPI", "pybind11", "OpenMP")]
    with tempfile.TemporaryDirectory() as tree:
        p = configure(tree, *hidden)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "Tests not built" in p.stdout, p.stdout
        targets = subprocess.run(["cmake", "--build", tree, "--target", "help"],
                                 capture_output=True, text=True, check=True).stdout
        assert "neardup_cli" in targets and "neardup_server" in targets, targets
        for absent in ("base_test", "server_api_test", "foundation_bench", "neardup_python",
                       "neardup_mpi"):
            assert absent not in targets, absent
        p = configure(tree, "-DNEARDUP_TESTS=ON", *hidden)
        assert p.returncode != 0 and "GTest" in p.stderr, p.stdout + p.stderr


def render(data):
    """The screen a terminal shows for `data` (\\r, erase to end of line, \\n)."""
    lines, line, col, i = [], [], 0, 0
    text = data.decode("utf-8", "replace")
    while i < len(text):
        if text.startswith("\033[K", i):
            del line[col:]
            i += 3
            continue
        c = text[i]
        i += 1
        if c == "\r":
            col = 0
        elif c == "\n":
            lines.append("".join(line))
            line, col = [], 0
        else:
            line[col:col + 1] = [c]
            col += 1
    if line:
        lines.append("".join(line))
    return lines


def small_corpus(path, per_edition=1500):
    sys.path.insert(0, os.path.join(SRC, "scripts"))
    import tang_corpus
    counts = {}
    with open(path, "w", encoding="utf-8") as out:
        for r in tang_corpus.records(os.environ["NEARDUP_DATA_DIR"]):
            counts[r["edition"]] = counts.get(r["edition"], 0) + 1
            if counts[r["edition"]] <= per_edition:
                out.write(json.dumps(r, ensure_ascii=False) + "\n")


def run_demo(out_dir, tty):
    """`make demo` on this build tree (up to date: nothing is installed or
    compiled), its corpus made small beforehand; returns what it printed."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    cmd = ["make", "demo", "BUILD=" + BUILD, "DEMO_OUT=" + out_dir]
    if not tty:
        p = subprocess.run(cmd, cwd=SRC, env=env, capture_output=True, timeout=600)
        assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
        return p.stdout + p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, cwd=SRC, env=env, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    assert p.wait(timeout=600) == 0, data.decode("utf-8", "replace")
    return data


def test_demo_shows_the_result_first():
    with tempfile.TemporaryDirectory() as out_dir:
        small_corpus(os.path.join(out_dir, "tang.jsonl"))
        screen = render(run_demo(out_dir, tty=True))
        assert screen and screen[0].startswith("== neardup dedup "), screen[:5]
        assert any(l.startswith("documents:") and l.endswith(" 3000") for l in screen), screen
        assert screen[-1].startswith("Set-up and build output: "), screen[-3:]
        noise = [l for l in screen if "%]" in l or "[setup]" in l or "Built target" in l]
        assert not noise, noise
        log = open(os.path.join(out_dir, "demo.log"), encoding="utf-8").read()
        assert "Built target neardup_cli" in log, log[-2000:]
        # Not on a terminal: one line per step, then the same result.
        lines = run_demo(out_dir, tty=False).decode().splitlines()
        first = next(i for i, l in enumerate(lines) if l.startswith("== neardup dedup "))
        assert all(l.startswith("neardup demo: ") for l in lines[:first]), lines[:first]
        assert first <= 8, lines[:first]


if __name__ == "__main__":
    globals()["test_" + CASE]()
    print("ok:", CASE)
