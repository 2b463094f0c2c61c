#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of `neardup dedup --algorithm ... --verify ...` on the
reprint fixture (see cli_test.py): three stories with hand-made reprints
(1/4/9, 2/6/10, 3/7/11) and unrelated documents (5, 8, 12).
Usage: signals_cli_test.py NEARDUP_BINARY SOURCE_DIR CASE
"""
import os
import sys

import cli_helpers
from cli_helpers import jsonl

BIN, SRC, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
FIXTURE = os.path.join(SRC, "testdata", "reprints.jsonl")
STORIES = [[1, 4, 9], [2, 6, 10], [3, 7, 11]]


def run(args, stdin=None, code=0):
    return cli_helpers.run(BIN, args, stdin, code)


def clusters(args):
    return cli_helpers.clusters(BIN, FIXTURE, args)


def precise(got):
    # Every cluster lies inside one story: no unrelated document joins.
    return all(any(set(c) <= set(s) for s in STORIES) for c in got)


def test_minhash_verified_clusters():
    got = clusters(["--algorithm", "minhash", "--verify", "levenshtein:0.8"])
    assert precise(got), got
    # The Chinese stories' reprints are light edits: all found.
    assert [1, 4, 9] in got and [2, 6, 10] in got, got
    assert any({3, 11} <= set(c) for c in got), got
    # Evidence: the signal, its estimate and the verified similarity.
    rows = jsonl(run(["dedup", FIXTURE, "-q", "--algorithm", "minhash", "--verify",
                      "levenshtein:0.8", "--with-matches"]).stdout)
    by = {r["id"]: r for r in rows}
    assert by[1]["matches"] == [] and by[5]["matches"] == []
    m = by[9]["matches"]
    assert [x["id"] for x in m] == [1, 4] or [x["id"] for x in m] == [4, 1], m
    for x in m:
        assert x["signal"] == "minhash" and "distance" not in x, x
        assert 0.8 <= x["similarity"] <= 1 and 0.8 <= x["verified"] <= 1, x
    # A strict verifier keeps only the closest pair (1/4 differ in punctuation only).
    strict = clusters(["--algorithm", "minhash", "--verify", "levenshtein:0.999"])
    assert strict == [[1, 4]], strict


def test_every_algorithm_runs():
    for alg in ["simhash", "minhash", "supershingle", "spotsig", "exact"]:
        got = clusters(["--algorithm", alg])
        assert precise(got), (alg, got)
        assert got, alg
    # exact: only 1 and 4 normalize to the same text.
    assert clusters(["--algorithm", "exact"]) == [[1, 4]]
    # SpotSig with Chinese stop words also finds the Chinese reprints.
    got = clusters(["--algorithm", "spotsig", "--spotsig-stop-words", "zh"])
    assert precise(got) and [1, 4, 9] in got, got
    # I-Match is strict: one changed lexicon term (digits for numerals, a tag) splits.
    got = clusters(["--algorithm", "imatch", "--features", "words", "--weights", "tfidf"])
    assert precise(got) and [1, 4] in got, got


def test_several_signals_evidence():
    got = clusters(["--algorithm", "exact,simhash,minhash", "--verify", "levenshtein:0.8"])
    assert got == STORIES, got
    rows = jsonl(run(["dedup", FIXTURE, "-q", "--algorithm", "exact,simhash,minhash",
                      "--with-matches"]).stdout)
    by = {r["id"]: r for r in rows}
    assert by[4]["matches"] == [{"id": 1, "signal": "exact", "distance": 0, "similarity": 1.0,
                                 "verified": 1.0}], by[4]["matches"]
    signals = {x["signal"] for r in rows for x in r["matches"]}
    assert signals <= {"exact", "simhash", "minhash"} and "simhash" in signals, signals
    for r in rows:
        for x in r["matches"]:
            if x["signal"] == "simhash":
                assert x["similarity"] == 1 - x["distance"] / 64, x


def test_simhash_profile_output():
    base = run(["dedup", FIXTURE, "-q", "--profile", "simhash"]).stdout
    same = run(["dedup", FIXTURE, "-q", "--profile", "simhash", "--signals", "simhash",
                "--verify", "none", "-k", "3"]).stdout
    assert same == base
    assert "matches" not in base
    rows = jsonl(run(["dedup", FIXTURE, "-q", "--profile", "simhash", "--with-matches"]).stdout)
    assert [dict((k, v) for k, v in r.items() if k != "matches") for r in rows] == jsonl(base)
    assert all("verified" not in x and x["signal"] == "simhash" for r in rows for x in r["matches"])


def test_bad_values_exit_2():
    run(["dedup", FIXTURE, "--algorithm", "md5"], code=2)
    run(["dedup", FIXTURE, "--algorithm", "minhash,minhash"], code=2)
    run(["dedup", FIXTURE, "--verify", "soundex"], code=2)
    run(["dedup", FIXTURE, "--verify", "levenshtein:1.5"], code=2)
    run(["dedup", FIXTURE, "--emit", "clusters", "--with-matches"], code=2)
    run(["fingerprint", FIXTURE, "--algorithm", "nope"], code=2)


if __name__ == "__main__":
    globals()["test_" + CASE]()
    print("ok:", CASE)
