#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the batch pipeline behind `neardup dedup` (docs/batch.md):
the output does not depend on the memory budget (spilled or not) or the thread
count; odd input (CRLF, byte order marks, huge lines); a full temporary disk is a
clear error and leaves no files; `neardup index build` + `dedup --against`;
a small dedup runs under a 1 GiB address-space limit whatever the budget;
the peak RSS stays within --memory plus the documented overhead.
The corpus is made here from a fixed seed: families of near-duplicate Chinese
questions with hard negatives (another number).
Usage: batch_cli_test.py NEARDUP_BINARY SOURCE_DIR CASE
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import cli_helpers
from cli_helpers import jsonl

BIN, SRC, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
HAN = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长"


def run(args, stdin=None, code=0):
    return cli_helpers.run(BIN, args, stdin, code)


def corpus(families, seed=5):
    rng = random.Random(seed)
    lines = []
    for f in range(families):
        base = [rng.choice(HAN) for _ in range(rng.randint(15, 50))]
        number = rng.randint(1, 999)
        for c in range(rng.randint(1, 4)):
            t = list(base)
            if c:
                t[rng.randrange(len(t))] = rng.choice(HAN)
            n = number + 1 if c == 3 else number  # a hard negative
            rid = (len(lines) * 7919) % 100003
            lines.append(json.dumps({"id": rid, "text": "".join(t) + " 共 %d 页" % n,
                                     "meta": {"family": f}}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path


def stats(stderr):
    for line in stderr.splitlines():
        if line.strip().startswith("keys "):
            return line
    raise AssertionError("no stats in: " + stderr)


def test_spill_and_threads_identical():
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "c.jsonl", corpus(1500))
        for profile in ["default", "qbank"]:
            for emit in ["all", "unique", "clusters"]:
                base = ["dedup", path, "-q", "--profile", profile, "--emit", emit]
                big = run(base + ["-j", "2", "--stats"])
                assert "(0 runs spilled" in stats(big.stderr), big.stderr
                assert len(big.stdout) > 1000
                # One thread and stdin read the input as -j 2 does whatever is
                # emitted: checked for --emit all (a third of the runs less).
                threads = [["-j", "2"], ["-j", "1"]] if emit == "all" else [["-j", "2"]]
                for extra in threads:
                    small = run(base + extra + ["--memory", "1M", "--tmp-dir", d, "--stats"])
                    assert "(0 runs spilled" not in stats(small.stderr), small.stderr
                    assert small.stdout == big.stdout, (profile, emit, extra)
                if emit == "all":
                    piped = run(["dedup", "-", "-q", "--profile", profile, "--emit", emit],
                                stdin=open(path, encoding="utf-8").read())
                    assert piped.stdout == big.stdout, (profile, emit, "stdin")
        assert sorted(os.listdir(d)) == ["c.jsonl"], os.listdir(d)  # spill files removed
        rows = jsonl(run(["dedup", path, "-q", "--profile", "qbank"]).stdout)
        assert any(r["duplicate_of"] is not None for r in rows)


def test_odd_input_lines():
    with tempfile.TemporaryDirectory() as d:
        big_text = "天" * 300000
        text = ('\ufeff{"id":1,"text":"一本书共 718 页"}\r\n'
                '{"id":2,"text":"一本书共 718 页","extra":[1,{"a":null}]}\r\n'
                '\r\n'
                '{"id":3,"text":"%s"}\n'
                '{"id":4,"text":"%s"}' % (big_text, big_text))  # no final newline
        path = write(d, "odd.jsonl", text)
        rows = jsonl(run(["dedup", path, "-q", "--memory", "1M"]).stdout)
        assert [r["id"] for r in rows] == [1, 2, 3, 4], rows
        assert rows[1]["duplicate_of"] == 1 and rows[3]["duplicate_of"] == 3, rows
        unique = subprocess.run([BIN, "dedup", path, "-q", "--emit", "unique"],
                                capture_output=True, check=True).stdout.split(b"\n")
        first = '\ufeff{"id":1,"text":"一本书共 718 页"}\r'.encode()
        assert unique[0] == first, unique[0]  # the input line, unchanged


def test_full_disk_is_a_clear_error():
    reason = cli_helpers.no_private_tmpfs()
    if reason:
        print("skipped: " + reason)
        return
    with tempfile.TemporaryDirectory() as d:
        path = write(d, "c.jsonl", corpus(3000))
        mnt = os.path.join(d, "small")
        os.mkdir(mnt)
        script = ('mount -t tmpfs -o size=256k tmpfs "$1" && "$2" dedup "$3" -q --memory 1M '
                  '--tmp-dir "$1" > /dev/null; rc=$?; echo "rc=$rc files=$(ls -A "$1" | wc -l)" >&2')
        p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", mnt, BIN, path],
                           capture_output=True, text=True)
        assert "rc=1 files=0" in p.stderr, p.stderr
        assert "No space left on device" in p.stderr and mnt in p.stderr, p.stderr
        assert "--tmp-dir" in p.stderr, p.stderr


def test_index_build_and_against():
    with tempfile.TemporaryDirectory() as d:
        lines = corpus(1200).splitlines(keepends=True)
        cut = len(lines) * 3 // 4
        old = write(d, "old.jsonl", "".join(lines[:cut]))
        new = write(d, "new.jsonl", "".join(lines[cut:]))
        both = write(d, "both.jsonl", "".join(lines))
        idx = os.path.join(d, "idx")
        for profile in ["default", "qbank", "simhash"]:
            opts = ["--profile", profile]
            run(["index", "build", old, "-o", idx, "-q", "--memory", "1M"] + opts)
            opts += ["--keep", "first"]
            assert os.path.exists(os.path.join(idx, "index.json"))
            got = jsonl(run(["dedup", "--against", idx, new, "-q", "--memory", "1M"] + opts).stdout)
            full = jsonl(run(["dedup", both, "-q"] + opts).stdout)[cut:]
            assert [r["id"] for r in got] == [r["id"] for r in full]
            # A new record is a duplicate against the index exactly when it is one
            # in a run over corpus + new records (the corpus comes first).
            assert [r["duplicate_of"] is None for r in got] == \
                   [r["duplicate_of"] is None for r in full], profile
            if profile != "simhash":  # k=3 finds few of these one-character edits
                assert any(r["duplicates_corpus"] for r in got), profile
                assert any(r["duplicate_of"] is not None and not r["duplicates_corpus"]
                           for r in got)
            unique = run(["dedup", "--against", idx, new, "-q", "--emit", "unique"] + opts).stdout
            assert len(unique.splitlines()) == sum(r["duplicate_of"] is None for r in got)
        # Another pipeline, a changed corpus, not an index: clear errors.
        p = run(["dedup", "--against", idx, new, "-q", "--profile", "qbank"], code=1)
        assert "another pipeline" in p.stderr, p.stderr
        # An index of the MinHash scheme before one-permutation hashing became
        # the default: the error names the option that opens it.
        perm = ["--minhash-scheme", "permutations"]
        idx_perm = idx + "-permutations"
        run(["index", "build", old, "-o", idx_perm, "-q"] + perm)
        p = run(["dedup", "--against", idx_perm, new, "-q"], code=1)
        assert "--minhash-scheme permutations" in p.stderr, p.stderr
        run(["dedup", "--against", idx_perm, new, "-q"] + perm)
        os.utime(old, ns=(1, 1))
        p = run(["dedup", "--against", idx, new, "-q", "--profile", "simhash"], code=1)
        assert "changed since" in p.stderr and old in p.stderr, p.stderr
        p = run(["dedup", "--against", d, new, "-q"], code=1)
        assert "index build" in p.stderr, p.stderr
        run(["dedup", "--against", idx, new, "--emit", "clusters"], code=2)


def test_ids_across_files_and_against():
    """Records without an id are named by their line in one file and by
    FILE:LINE across several, so two files never collide; a run against an
    index refuses a new record whose id the corpus already has, and an index
    of the old format (without its ids) is refused with a clear message."""
    with tempfile.TemporaryDirectory() as d:
        a = write(d, "a.jsonl", '{"text":"hello world one two three"}\n{"text":"another doc"}\n')
        b = write(d, "b.jsonl", '{"text":"hello world one two three"}\n')
        assert [r["id"] for r in jsonl(run(["dedup", a, "-q"]).stdout)] == [1, 2]
        got = jsonl(run(["dedup", a, b, "-q"]).stdout)
        assert [r["id"] for r in got] == [a + ":1", a + ":2", b + ":1"], got
        assert got[2]["duplicate_of"] == a + ":1", got
        idx = os.path.join(d, "idx")
        run(["index", "build", a, "-o", idx, "-q"])
        got = jsonl(run(["dedup", "--against", idx, b, "-q"]).stdout)
        assert [(r["id"], r["duplicate_of"]) for r in got] == [(b + ":1", 1)], got
        # An id the corpus has: refused, naming the corpus record; skipped
        # (and reported) with --skip-invalid.
        c = write(d, "c.jsonl", '{"id":"q1","text":"first question here"}\n'
                                '{"id":"q2","text":"second question here"}\n')
        n = write(d, "n.jsonl", '{"id":"q3","text":"a new question"}\n'
                                '{"id":"q2","text":"not the same text at all"}\n')
        run(["index", "build", c, "-o", idx, "-q"])
        p = run(["dedup", "--against", idx, n, "-q"], code=1)
        assert n + ":2" in p.stderr and "q2" in p.stderr and "in the corpus" in p.stderr, p.stderr
        assert c + ":2" in p.stderr, p.stderr
        p = run(["dedup", "--against", idx, n, "--skip-invalid", "-q"])
        assert [r["id"] for r in jsonl(p.stdout)] == ["q3"], p.stdout
        # Two new records with one id are still refused against an index.
        m = write(d, "m.jsonl", '{"id":"q9","text":"x y z"}\n{"id":"q9","text":"u v w"}\n')
        p = run(["dedup", "--against", idx, m, "-q"], code=1)
        assert '"q9" already exists' in p.stderr and "corpus" not in p.stderr, p.stderr
        meta = os.path.join(idx, "index.json")
        with open(meta) as f:
            text = f.read()
        with open(meta, "w") as f:
            f.write(text.replace("neardup-batch-index-2", "neardup-batch-index-1"))
        p = run(["dedup", "--against", idx, n, "-q"], code=1)
        assert "older neardup" in p.stderr and "index build" in p.stderr, p.stderr


def test_failed_runs_leave_outputs_untouched():
    """-o is written beside the target and renamed at the end: a failed run
    leaves an earlier output as it was and no temporary file; an output that
    is one of the inputs is refused before anything is written."""
    with tempfile.TemporaryDirectory() as d:
        src = write(d, "c.jsonl", corpus(200))
        out = os.path.join(d, "out.jsonl")
        run(["dedup", src, "-q", "-o", out])
        before = open(out).read()
        bad = write(d, "bad.jsonl", '{"id":1,"text":"x"}\n{"id":2\n')
        run(["dedup", os.path.join(d, "missing.jsonl"), "-q", "-o", out], code=1)
        run(["dedup", bad, "-q", "-o", out], code=1)
        run(["dedup", src, "-q", "-o", out, "--memory", "64T"], code=2)
        assert open(out).read() == before
        os.chmod(out, 0o640)
        run(["dedup", src, "-q", "-o", out, "--emit", "clusters"])
        assert open(out).read() != before and os.stat(out).st_mode & 0o777 == 0o640
        # The output is the input, by any of its names: refused, input intact.
        data = open(src).read()
        os.link(src, os.path.join(d, "hard.jsonl"))
        for name in [src, os.path.join(d, ".", "c.jsonl"), os.path.join(d, "hard.jsonl")]:
            p = run(["dedup", src, "--emit", "unique", "-o", name, "-q"], code=2)
            assert "is the input" in p.stderr, p.stderr
        run(["fingerprint", src, "-o", src, "-q"], code=2)
        run(["truth", src, "-o", src, "-q"], code=2)
        groups = write(d, "g.jsonl", "[%d]\n" % json.loads(data.splitlines()[0])["id"])
        run(["cluster", "--groups", groups, "--texts", src, "-o", groups, "-q"], code=2)
        run(["cluster", "--groups", groups, "--texts", src, "--pairs", src, "-q"], code=2)
        assert open(src).read() == data
        run(["dedup", src, "-q", "-o", "/dev/null"])  # a device is written in place
        # An index: a failed rebuild leaves it; a directory that holds no index
        # is refused.
        idx = os.path.join(d, "idx")
        run(["index", "build", src, "-o", idx, "-q"])
        first = open(os.path.join(idx, "index.json")).read()
        run(["index", "build", os.path.join(d, "missing.jsonl"), "-o", idx, "-q"], code=1)
        run(["index", "build", bad, "-o", idx, "-q"], code=1)
        assert open(os.path.join(idx, "index.json")).read() == first
        fresh = write(d, "fresh.jsonl", '{"id":"fresh-1","text":"a record not in the corpus"}\n')
        run(["dedup", "--against", idx, fresh, "-q"])
        p = run(["index", "build", src, "-o", d, "-q"], code=2)
        assert "holds no index" in p.stderr, p.stderr
        run(["index", "build", src, "-o", idx, "-q", "--profile", "qbank"])
        assert open(os.path.join(idx, "index.json")).read() != first
        run(["dedup", "--against", idx, fresh, "-q", "--profile", "qbank"])
        left = [f for f in os.listdir(d) if ".tmp-" in f]
        assert not left, left


def test_signals_leave_no_temporary_files():
    """Killed mid-run (here: while reading stdin, the output and the spill
    directory open), dedup dies of the signal and leaves neither its
    temporary output nor its spill directory; the earlier output stays."""
    import signal
    import time
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "tmp")
        os.mkdir(tmp)
        out = write(d, "out.jsonl", "earlier output\n")
        for sig in [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGABRT]:
            p = subprocess.Popen([BIN, "dedup", "-", "-o", out, "--tmp-dir", tmp, "-q"],
                                 stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
            p.stdin.write(corpus(50).encode())
            p.stdin.flush()
            deadline = time.time() + 60
            while time.time() < deadline and not (
                    os.listdir(tmp) and any(".tmp-" in f for f in os.listdir(d))):
                time.sleep(0.05)
            assert os.listdir(tmp), "no spill directory appeared"
            p.send_signal(sig)
            p.wait()
            p.stdin.close()
            assert p.returncode == -sig, (sig, p.returncode)
            assert open(out).read() == "earlier output\n", sig
            assert os.listdir(tmp) == [], (sig, os.listdir(tmp))
            assert not [f for f in os.listdir(d) if ".tmp-" in f], (sig, os.listdir(d))


def test_peak_rss_within_budget():
    """--memory bounds the peak RSS (VmHWM, not a sample) within the
    documented 64 MB of fixed overhead, here at the smallest budget on an
    input twice its size: the phases that read the input in order through its
    memory map drop the mapped pages often enough."""
    rng = random.Random(9)
    words = ["w%d" % i for i in range(5000)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.jsonl")
        with open(path, "w") as f:
            for i in range(400000):
                f.write('{"text":"%s"}\n' % " ".join(rng.choices(words, k=60)))
        assert os.path.getsize(path) > 128 << 20
        for flags in (["--signals", "exact", "--verify", "none"], ["--profile", "simhash"]):
            p = run(["dedup", path, "--memory", "64M", "--stats", "-o",
                     os.path.join(d, "out.jsonl")] + flags)
            line = [l for l in p.stderr.splitlines() if "peak RSS" in l][0]
            peak = float(line.split("peak RSS")[1].split()[0])
            assert peak <= 64 + 64, (flags, line)  # MiB


def test_index_build_needs_files():
    """An index refers to its corpus by path: --help offers files only, and
    standard input or no file is a usage error."""
    help = run(["index", "build", "--help"]).stdout
    files = [l for l in help.splitlines() if l.strip().startswith("files ")]
    assert len(files) == 1 and "not standard input" in files[0], help
    assert "stdin" not in files[0] and "'-'" not in files[0], files[0]
    with tempfile.TemporaryDirectory() as d:
        idx = os.path.join(d, "idx")
        for files in (["-"], []):
            p = run(["index", "build"] + files + ["-o", idx, "-q"], code=2, stdin="{}\n")
            assert "by path" in p.stderr, p.stderr
        assert not os.path.exists(idx)


def test_address_space_limit():
    """Memory is mapped by need, not by budget: under `ulimit -v` 1 GiB (a
    shared HPC node, Slurm) a small dedup runs with the default budget, and
    with a budget far above the limit, and writes what it writes unlimited."""
    import resource

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    with tempfile.TemporaryDirectory() as d:
        path = write(d, "c.jsonl", corpus(1500))
        # Half the machine's memory: a budget far above the limit, and one the
        # machine has (a budget past the RAM is a usage error).
        ram_kb = next(int(l.split()[1]) for l in open("/proc/meminfo")
                      if l.startswith("MemTotal:"))
        assert ram_kb // 2 > 2 << 20, ram_kb
        for extra in [[], ["--profile", "qbank", "--with-matches"], ["--emit", "clusters"],
                      ["--memory", "%dK" % (ram_kb // 2), "-j", "2"]]:
            args = [BIN, "dedup", path, "-q"] + extra
            free = subprocess.run(args, capture_output=True, text=True, check=True)
            p = subprocess.run(args, capture_output=True, text=True, preexec_fn=limited)
            assert p.returncode == 0, (extra, p.returncode, p.stderr)
            assert p.stdout == free.stdout, extra


def test_out_of_memory_is_not_malformed_json():
    """A record the parser cannot get memory for, under `ulimit -v` 1 GiB, is
    an out-of-memory error (exit 1), also with --skip-invalid, which skips bad
    records, not a machine's shortage; it was reported as malformed JSON."""
    import resource

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for i in range(2):
                f.write(json.dumps({"id": i, "text": "新闻" * (11_000_000 - i)},
                                   ensure_ascii=False) + "\n")
        for extra in [[], ["--skip-invalid"]]:
            p = subprocess.run([BIN, "dedup", path, "-q", "-o", os.path.join(d, "out")] + extra,
                               capture_output=True, text=True, preexec_fn=limited)
            assert p.returncode == 1, (extra, p.returncode, p.stderr)
            assert "out of memory" in p.stderr and "malformed" not in p.stderr, p.stderr
            assert not os.path.exists(os.path.join(d, "out"))


def test_usage_errors():
    run(["dedup", "--memory", "lots", os.path.join(SRC, "testdata", "reprints.jsonl")], code=2)
    run(["dedup", "--memory", "10K", os.path.join(SRC, "testdata", "reprints.jsonl")], code=2)
    # Options past the machine are usage errors naming the limit, not an abort
    # (std::bad_alloc, std::system_error: exit 134).
    fixture = os.path.join(SRC, "testdata", "reprints.jsonl")
    ram_kb = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:"))
    sizes = ["64T"] + (["1000G"] if ram_kb < 1000 << 20 else [])
    for size in sizes:
        for cmd in [["dedup", fixture], ["index", "build", fixture, "-o", "/nonexistent/idx"]]:
            p = run(cmd + ["-q", "--memory", size], code=2)
            assert "--memory" in p.stderr and "machine's memory" in p.stderr, p.stderr
    for cmd in [["dedup", fixture], ["fingerprint", fixture], ["explain", "--text", "a", "b"],
                ["cluster", "--groups", fixture, "--texts", fixture]]:
        p = run(cmd + ["-q" if cmd[0] != "explain" else "--json", "-j", "100000"], code=2)
        assert "100000" in p.stderr and "limit" in p.stderr, (cmd, p.stderr)
    run(["dedup", fixture, "-q", "-j", "16"])  # a few threads per core are fine
    p = run(["dedup", "--tmp-dir", "/nonexistent-dir", "-q",
             os.path.join(SRC, "testdata", "reprints.jsonl")], code=1)
    assert "/nonexistent-dir" in p.stderr, p.stderr


if __name__ == "__main__":
    globals()["test_" + CASE]()
    print("ok:", CASE)
