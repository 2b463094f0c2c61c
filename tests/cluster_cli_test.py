#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `neardup cluster` on a committed question-bank fixture.

testdata/qbank_texts.jsonl holds exam questions written for this test: 1/2 differ
only in spacing and punctuation, 3 changes a number, 4/5 differ in punctuation,
6 flips a sign, 7/8 reword two characters, 9 changes a number, and 20..24 form a
chain in which each question differs from the next by one character (so only
neighbours pass qbank:0.9). testdata/qbank_groups.jsonl groups them as a search
log would, including an id (99) with no text.
Usage: cluster_cli_test.py NEARDUP_BINARY SOURCE_DIR CASE
"""
import json
import os
import subprocess
import sys
import tempfile

BIN, SRC, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
TEXTS = os.path.join(SRC, "testdata", "qbank_texts.jsonl")
GROUPS = os.path.join(SRC, "testdata", "qbank_groups.jsonl")


def run(args, stdin=None, code=0):
    p = subprocess.run([BIN, "cluster"] + args, input=stdin, capture_output=True, text=True)
    assert p.returncode == code, "exit %d (want %d) for %s\nstderr: %s" % (
        p.returncode, code, args, p.stderr)
    return p


def jsonl(text):
    return [json.loads(l) for l in text.splitlines() if l.strip()]


def clusters(extra):
    out = run(["--groups", GROUPS, "--texts", TEXTS, "--emit", "clusters", "-q"] + extra).stdout
    return sorted(sorted(c["members"]) for c in jsonl(out))


def test_qbank_clusters_without_cap():
    got = clusters(["--verify", "qbank:0.9", "--max-cluster-size", "0"])
    assert got == [[1, 2], [4, 5], [7, 8], [20, 21, 22, 23, 24]], got


def test_cap_stops_the_chain():
    got = clusters(["--verify", "qbank:0.9", "--max-cluster-size", "3"])
    assert got == [[1, 2], [4, 5], [7, 8], [20, 21, 22], [23, 24]], got
    for cap in ["2", "4"]:
        for c in clusters(["--verify", "qbank:0.9", "--max-cluster-size", cap]):
            assert len(c) <= int(cap), (cap, c)


def test_levenshtein_is_looser_than_qbank():
    # Without the split, a changed digit or sign is one edit among many: 1~3, 4~6, 7~9 join.
    got = clusters(["--verify", "levenshtein:0.9", "--max-cluster-size", "0"])
    assert [1, 2, 3] in got and [4, 5, 6] in got, got


def test_emit_all_keep_and_evidence():
    with tempfile.TemporaryDirectory() as d:
        pairs = os.path.join(d, "pairs.jsonl")
        out = os.path.join(d, "out.jsonl")
        run(["--groups", GROUPS, "--texts", TEXTS, "--verify", "qbank:0.9", "--max-cluster-size",
             "3", "--keep", "smallest-id", "-o", out, "--pairs", pairs, "-q"])
        rows = jsonl(open(out, encoding="utf-8").read())
        assert [r["id"] for r in rows] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24]
        by = {r["id"]: r for r in rows}
        assert by[2]["duplicate_of"] == 1 and by[1]["duplicate_of"] is None
        assert by[3]["cluster_size"] == 1 and by[3]["duplicate_of"] is None
        assert by[24]["cluster"] == 23 and by[24]["duplicate_of"] == 23
        ev = {(p["a"], p["b"]): p for p in jsonl(open(pairs, encoding="utf-8").read())}
        assert ev[(22, 23)]["outcome"] == "cap_exceeded"
        assert ev[(1, 2)]["outcome"] == "joined" and ev[(1, 2)]["similarity"] == 1.0
        assert abs(ev[(20, 21)]["similarity"] - (1 - 1 / 15)) < 1e-9
        assert all(p["verifier"] == "qbank:0.9" for p in ev.values())
        assert (1, 3) not in ev  # failed pairs are not evidence of a match


def test_groups_from_stdin():
    groups = open(GROUPS, encoding="utf-8").read()
    p = run(["--groups", "-", "--texts", TEXTS, "--verify", "qbank:0.9", "--emit", "clusters",
             "--max-cluster-size", "0", "-q"], stdin=groups)
    assert sorted(sorted(c["members"]) for c in jsonl(p.stdout))[-1] == [20, 21, 22, 23, 24]


def test_traditional_folds_as_in_dedup():
    # A Traditional copy of a question is the same question after T2S, as
    # `neardup dedup` sees it; --no-t2s compares the characters as given.
    with tempfile.TemporaryDirectory() as d:
        texts = os.path.join(d, "t.jsonl")
        with open(texts, "w", encoding="utf-8") as f:
            f.write(json.dumps({"id": 1, "text": "已知三角形的面积为12，底边长为6，求这条边上的高。"},
                               ensure_ascii=False) + "\n")
            f.write(json.dumps({"id": 2, "text": "已知三角形的面積為12，底邊長為6，求這條邊上的高。"},
                               ensure_ascii=False) + "\n")
        groups = os.path.join(d, "g.jsonl")
        with open(groups, "w") as f:
            f.write("[1, 2]\n")
        for verify in ["levenshtein:0.9", "qbank:0.9", "similarity:0.9"]:
            out = run(["--groups", groups, "--texts", texts, "--verify", verify, "--emit",
                       "clusters", "-q"]).stdout
            assert [sorted(c["members"]) for c in jsonl(out)] == [[1, 2]], (verify, out)
            raw = run(["--groups", groups, "--texts", texts, "--verify", verify, "--emit",
                       "clusters", "-q", "--no-t2s"]).stdout
            assert jsonl(raw) == [], (verify, raw)
        # The same pair through dedup, for comparison.
        p = subprocess.run([BIN, "dedup", texts, "--emit", "clusters", "-q"], capture_output=True,
                           text=True, check=True)
        assert [sorted(c["members"]) for c in jsonl(p.stdout)] == [[1, 2]], p.stdout


def test_errors():
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "g.jsonl")
        with open(bad, "w") as f:
            f.write("[1, 2]\n{\"other\": [1]}\n")
        p = run(["--groups", bad, "--texts", TEXTS], code=1)
        assert "g.jsonl:2" in p.stderr and "missing field 'ids'" in p.stderr, p.stderr
        with open(bad, "w") as f:
            f.write("[1, [2]]\n")
        run(["--groups", bad, "--texts", TEXTS], code=1)
    run(["--texts", TEXTS], code=2)  # --groups is required
    run(["--groups", GROUPS, "--texts", TEXTS, "--verify", "nope"], code=2)
    run(["--groups", "/nonexistent", "--texts", TEXTS], code=1)


if __name__ == "__main__":
    globals()["test_" + CASE]()
