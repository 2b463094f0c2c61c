#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `mpirun -np N neardup dedup --distributed` (docs/distributed.md):
the output is byte-identical to one process's `neardup dedup` with the same options,
for np = 1, 2 and 4 (default pipeline, qbank with smallest-id, spilling under a tiny
--memory, the cluster-size cap, SimHash over several files); errors are the single
process's, against an index too; a rank that dies fails the job quickly.
The corpus: 3,000 short questions with seeded near-duplicates (scripts/bench/qbank_corpus).
Usage: mpi_test.py NEARDUP_BINARY SOURCE_DIR CASE CORPUS   (exit 77 = skipped: no mpirun)
The case `corpus` writes CORPUS (a ctest fixture); the others read it.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_helpers  # noqa: E402  (tests/cli_helpers.py)

BIN, SRC, CASE, CORPUS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
MPIRUN = shutil.which("mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV.pop("NEARDUP_TEST_MPI_DIE", None)


def test_corpus(d):
    subprocess.run([sys.executable, os.path.join(SRC, "scripts/bench/qbank_corpus"), "3000",
                    "--seed", "11", "-j", "1", "-o", CORPUS], check=True)


def make_corpus(d, n=3000):
    """The first n records of CORPUS, in d."""
    path = os.path.join(d, "corpus.jsonl")
    with open(CORPUS, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    assert len(lines) >= n, "run the mpi.corpus test first"
    with open(path, "wb") as f:
        f.write(b"".join(lines[:n]))
    return path


def single(args, out):
    p = subprocess.run([BIN, "dedup"] + args + ["-j", "1", "-o", out], capture_output=True,
                       text=True, env=ENV, timeout=60)
    return p


def mpirun(np, args, out, env=ENV, timeout=60):
    cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(np), BIN, "dedup",
           "--distributed"] + args + ["-j", "1", "-o", out]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_identical(files, args, expect=None):
    """Same bytes for one process and np = 1, 2, 4; `expect(stderr)` checks --stats."""
    d = os.path.dirname(files[0])
    want = os.path.join(d, "single.out")
    p = single(files + args, want)
    assert p.returncode == 0, p.stderr
    assert len(read(want)) > 0
    for np in (1, 2, 4):
        got = os.path.join(d, "np%d.out" % np)
        p = mpirun(np, files + args, got)
        assert p.returncode == 0, (np, args, p.stderr)
        assert read(got) == read(want), "np=%d %s: output differs from one process" % (np, args)
        if expect:
            expect(p.stderr)
        print("ok np=%d %s" % (np, " ".join(args)))


def counter(stderr, pattern):
    m = re.search(pattern, stderr)
    assert m, "no %r in: %s" % (pattern, stderr)
    return int(m.group(1))


def test_identical_default(d):
    corpus = make_corpus(d)
    # Near-duplicates exist, so clusters do.
    check_identical([corpus], ["--stats"],
                    lambda e: counter(e, r"\((\d+) with duplicates\)") > 100 or None)
    # To standard output: the ranks' shares reach rank 0 in rounds.
    want = read(os.path.join(d, "single.out"))
    for np in (2, 3):
        cmd = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", str(np), BIN, "dedup",
               "--distributed", corpus, "-j", "1"]
        p = subprocess.run(cmd, capture_output=True, env=ENV, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout == want, "np=%d: standard output differs from one process" % np
        print("ok np=%d to standard output" % np)


def test_identical_qbank_smallest_id(d):
    check_identical([make_corpus(d)], ["--profile", "qbank", "--keep", "smallest-id"])


def test_identical_spilling(d):
    # 1 MB per rank: key runs spill (and the shuffles go in many rounds).
    check_identical([make_corpus(d)], ["--memory", "1M", "--stats", "--keep", "longest"],
                    lambda e: counter(e, r"\((\d+) runs spilled") > 0 or None)


def test_identical_cap_and_clusters(d):
    check_identical([make_corpus(d)],
                    ["--max-cluster-size", "3", "--emit", "clusters", "--stats"],
                    lambda e: counter(e, r"\((\d+) joins refused\)") > 0 or None)


def test_identical_simhash_files(d):
    # Several files, a blank line, a file boundary inside every rank's range.
    lines = read(make_corpus(d)).splitlines(keepends=True)
    files = []
    for i, part in enumerate((lines[:1000], [b"\n"] + lines[1000:1700], lines[1700:])):
        path = os.path.join(d, "part%d.jsonl" % i)
        with open(path, "wb") as f:
            f.write(b"".join(part))
        files.append(path)
    check_identical(files, ["--profile", "simhash", "--emit", "unique"])


def test_identical_with_matches(d):
    # Matches gathered to rank 0 in rounds: verified similarities, the exact
    # signal's unverified matches (qbank), SimHash distances, spilled runs.
    corpus = make_corpus(d)
    check_identical([corpus], ["--with-matches"])
    check_identical([corpus], ["--with-matches", "--profile", "qbank"])
    check_identical([corpus], ["--with-matches", "--profile", "simhash"])
    check_identical([corpus], ["--with-matches", "--memory", "1M", "--stats"],
                    lambda e: counter(e, r"\((\d+) runs spilled") > 0 or None)
    text = read(os.path.join(d, "single.out")).decode()
    assert text.count('"matches":[{') > 300, "too few documents with matches"


def trap_corpus(d, sites=6, stories=40):
    """Articles under their sites' footers, pages of footer alone and short
    stories under them, copies of some stories (the boilerplate guard's trap)."""
    rng = random.Random(25)

    def han(n):
        return "".join(chr(0x4E00 + rng.randrange(8000)) for _ in range(n))

    footers = [han(rng.randrange(150, 300)) for _ in range(sites)]
    records = []
    for s, footer in enumerate(footers):
        for i in range(stories):
            story = han(rng.choice((40, 80, 400, 800)))
            records.append(story + "。" + footer)
            if rng.random() < 0.3:
                records.append(story[:-3] + han(3) + "。" + footer)
        records += [footer] * 3
    return write_shuffled(rng, records, os.path.join(d, "trap.jsonl"))


def write_shuffled(rng, records, path):
    """The texts in a seeded random order as JSONL records with ids 0, 1, ..."""
    rng.shuffle(records)
    with open(path, "w") as f:
        for i, text in enumerate(records):
            f.write(json.dumps({"id": i, "text": text}, ensure_ascii=False) + "\n")
    return path


def test_identical_boilerplate(d):
    # The guard's counts: each rank counts its own records without an earlier
    # candidate and the ranks add their tables (the bits of later records
    # come from the ranks that paired them).
    check_identical([trap_corpus(d)], ["--stats", "--with-matches"],
                    lambda e: counter(e, r"anchors of (\d+) records") > 100 or None)
    guarded = read(os.path.join(d, "single.out"))
    off = os.path.join(d, "off.out")
    assert single([trap_corpus(d), "--boilerplate-documents", "0"], off).returncode == 0
    assert read(off) != guarded, "the guard changed nothing on its trap"


def excerpt_corpus(d, stories=300):
    """Stories, excerpts of a third of them (25-60% runs), reprints, and ad
    pages that several unrelated stories run (the containment rule's trap)."""
    rng = random.Random(26)

    def han(n):
        return "".join(chr(0x4E00 + rng.randrange(8000)) for _ in range(n))

    ads = [han(rng.randrange(120, 250)) for _ in range(5)]
    records = []
    for i in range(stories):
        story = han(rng.randrange(500, 1300))
        if rng.random() < 0.3:
            story += "。" + rng.choice(ads)
        records.append(story)
        if rng.random() < 0.35:
            n = len(story)
            k = int(n * rng.uniform(0.25, 0.6))
            start = rng.randrange(0, n - k)
            records.append(han(8) + "（节选）\n\n" + story[start:start + k])
        if rng.random() < 0.2:
            records.append(story[:-3] + han(3))
    records += ads * 2
    return write_shuffled(rng, records, os.path.join(d, "excerpts.jsonl"))


def test_identical_containment(d):
    # Containment edges: every rank sends its own to all, the ranks choose
    # the same ones (one a contained cluster) and join them after the
    # components of the others.
    corpus = excerpt_corpus(d)
    check_identical([corpus], ["--stats", "--with-matches"],
                    lambda e: counter(e, r"\((\d+) with duplicates\)") > 50 or None)
    ruled = read(os.path.join(d, "single.out"))
    off = os.path.join(d, "off.out")
    assert single([corpus, "--containment", "0"], off).returncode == 0
    assert read(off) != ruled, "the containment rule changed nothing on its corpus"
    check_identical([corpus, "--max-cluster-size", "3"], [])


def test_identical_learned_idf(d):
    # --idf corpus: ranks learn their shares and sum the tables; --idf-save
    # writes one process's table, byte for byte.
    corpus = make_corpus(d)
    tables = []
    for np in (0, 1, 2, 4):  # 0: one process
        table = os.path.join(d, "idf%d.bin" % np)
        args = [corpus, "--profile", "zh-news", "--idf", "corpus", "--idf-save", table]
        out = os.path.join(d, "idf%d.out" % np)
        p = single(args, out) if np == 0 else mpirun(np, args, out)
        assert p.returncode == 0, (np, p.stderr)
        tables.append((read(table), read(out)))
        print("ok np=%d --idf corpus" % np)
    assert len(tables[0][0]) > 1000
    assert all(t == tables[0] for t in tables), "a table or an output differs from one process"
    got = mpirun(2, [corpus, "--profile", "zh-news", "--idf", "stream"], os.path.join(d, "np.out"))
    assert got.returncode != 0 and "--idf stream" in got.stderr, got.stderr


def test_identical_against(d):
    # Against an index of the first 2,000 records: its keys split over the
    # ranks, its lines rank 0's, its texts read from the corpus file.
    lines = read(make_corpus(d)).splitlines(keepends=True)
    old = os.path.join(d, "old.jsonl")
    new = os.path.join(d, "new.jsonl")
    with open(old, "wb") as f:
        f.write(b"".join(lines[:2000]))
    with open(new, "wb") as f:
        f.write(b"".join(lines[2000:]))
    spilled = lambda e: counter(e, r"\((\d+) runs spilled") > 0 or None
    cases = (("default", ["--with-matches"], None), ("default", [], None),
             ("simhash", ["--memory", "1M", "--emit", "unique", "--stats"], spilled))
    for i, (profile, extra, expect) in enumerate(cases):
        idx = os.path.join(d, "idx-%d-%s" % (i, profile))
        p = subprocess.run([BIN, "index", "build", old, "-o", idx, "-q", "--profile", profile],
                           capture_output=True, text=True, env=ENV, timeout=60)
        assert p.returncode == 0, p.stderr
        check_identical([new], ["--against", idx, "--profile", profile] + extra, expect)
        if profile == "default":
            text = read(os.path.join(d, "single.out")).decode()
            assert text.count('"duplicates_corpus":true') > 20, "too few duplicates of the corpus"


def test_errors(d):
    lines = read(make_corpus(d, 800)).splitlines(keepends=True)
    bad = os.path.join(d, "bad.jsonl")
    with open(bad, "wb") as f:
        f.write(b"".join(lines[:600]) + b'{"id":5,"text":"a repeated id"}\nnot json\n' +
                b"".join(lines[600:]))
    for extra, nps in (([], (3,)), (["--skip-invalid"], (2, 4))):
        want = single([bad] + extra, os.path.join(d, "single.out"))
        for np in nps:
            got = mpirun(np, [bad] + extra, os.path.join(d, "np.out"))
            first = got.stderr.splitlines()[0] if got.stderr else ""
            assert (want.returncode == 0) == (got.returncode == 0), got.stderr
            if want.returncode == 0:
                assert got.stderr == want.stderr, (got.stderr, want.stderr)
                assert read(os.path.join(d, "np.out")) == read(os.path.join(d, "single.out"))
            else:
                # The first bad record over all ranks, as one process reports it.
                assert first == want.stderr.splitlines()[0], (first, want.stderr)
            print("ok np=%d %s: %s" % (np, extra, (first or "no errors")))
    # What the runner refuses, it says, and why.
    got = mpirun(2, ["-"], os.path.join(d, "np.out"))
    assert got.returncode != 0 and "standard input" in got.stderr, got.stderr
    assert "rank 0 alone" in got.stderr, got.stderr


def test_rank_dies(d):
    corpus = make_corpus(d, 1500)
    for stage in ("sketch", "verify"):
        env = dict(ENV, NEARDUP_TEST_MPI_DIE="1:" + stage)
        # A hang would raise TimeoutExpired and fail the test.
        got = mpirun(3, [corpus], os.path.join(d, "np.out"), env=env, timeout=60)
        assert got.returncode != 0, got.stderr
        assert "exit" in got.stderr.lower(), got.stderr
        print("ok: rank 1 died after %s, job failed with exit %d" % (stage, got.returncode))


def test_resume(d):
    corpus = make_corpus(d, 2000)
    work = os.path.join(d, "work")
    args = [corpus, "--max-cluster-size", "3", "--work-dir", work]
    want = os.path.join(d, "single.out")
    assert single([corpus, "--max-cluster-size", "3"], want).returncode == 0
    got = os.path.join(d, "np.out")
    # Rank 1 dies after the verify checkpoint, before clustering.
    p = mpirun(2, args, got, env=dict(ENV, NEARDUP_TEST_MPI_DIE="1:verify"))
    assert p.returncode != 0, p.stderr
    for r in (0, 1):
        marks = os.listdir(os.path.join(work, "rank-%d-of-2" % r))
        assert "verify.done" in marks and "cluster.done" not in marks, marks
    # Resumed: sketching does not run again (a rank set to die there lives).
    p = mpirun(2, args + ["--resume"], got, env=dict(ENV, NEARDUP_TEST_MPI_DIE="1:sketch"))
    assert p.returncode == 0, p.stderr
    assert "resuming from the verify checkpoint" in p.stderr, p.stderr
    assert read(got) == read(want)
    p = mpirun(2, args + ["--resume"], got, env=dict(ENV, NEARDUP_TEST_MPI_DIE="1:pairs"))
    assert p.returncode == 0 and "resuming from the cluster checkpoint" in p.stderr, p.stderr
    assert read(got) == read(want)
    # Other options: the checkpoints are not this run's, everything runs.
    assert single([corpus, "--max-cluster-size", "4"], want).returncode == 0
    args[2] = "4"
    p = mpirun(2, args + ["--resume"], got)
    assert p.returncode == 0 and "resuming" not in p.stderr, p.stderr
    assert read(got) == read(want)
    print("ok: resume from verify, from cluster; other options start over")


def test_full_disk(d):
    """A full disk under the output: a clear error naming it, the old output
    untouched, no temporary file left (every rank writes its share into rank
    0's temporary output, which is renamed only when all succeeded)."""
    reason = cli_helpers.no_private_tmpfs()
    if reason:
        print("skipped: " + reason)
        return
    corpus = make_corpus(d, 3000)
    mnt = os.path.join(d, "small")
    os.mkdir(mnt)
    script = ('mount -t tmpfs -o size="$6" tmpfs "$1" && printf "old output\\n" > "$1/out.jsonl" && '
              '"$2" --oversubscribe --allow-run-as-root -np "$5" "$3" dedup --distributed "$4" '
              '-j 1 -o "$1/out.jsonl"; rc=$?; '
              'echo "rc=$rc files=$(ls -A "$1" | tr "\\n" " ")old=$(head -c 40 "$1/out.jsonl")" >&2')
    # The output of 3,000 records takes about 180 KB. In 128 KB rank 0's
    # share fits and another rank's pwrite fails; in 32 KB rank 0's fails.
    for np, size, error in ((2, "128k", "No space left on device"),
                            (3, "128k", "No space left on device"), (2, "32k", "disk full")):
        p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", mnt, MPIRUN, BIN, corpus,
                            str(np), size], capture_output=True, text=True, env=ENV, timeout=120)
        last = p.stderr.strip().splitlines()[-1]
        assert re.match(r"rc=[1-9]", last), p.stderr[-2000:]
        assert "files=out.jsonl old=old output" in last, p.stderr[-2000:]
        message = "neardup dedup: %s/out.jsonl: " % mnt
        assert message in p.stderr and error in p.stderr, p.stderr[-2000:]
        print("ok np=%d, %s: %s" % (np, size, last))


def main():
    if MPIRUN is None and CASE != "corpus":
        print("skipped: no mpirun (apt-get install openmpi-bin)")
        return 77
    with tempfile.TemporaryDirectory() as d:
        # The ranks' spill directories go in here: a rank a test makes die
        # (_exit, as a crash) cannot remove its own.
        ENV["TMPDIR"] = d
        globals()["test_" + CASE](d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
