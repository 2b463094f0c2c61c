#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end tests of the `neardup` CLI on the committed reprint fixture.

testdata/reprints.jsonl holds three stories (two Chinese, one English), each
with reprints made by hand: punctuation and spacing changes, digits for
numerals, an added tag line or headline, a changed phrase; plus unrelated
documents. The expected clusters follow from how the reprints were made.
Usage: cli_test.py NEARDUP_BINARY SOURCE_DIR CASE
"""
import json
import os
import subprocess
import sys

import cli_helpers
from cli_helpers import jsonl
import tempfile

BIN, SRC, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
FIXTURE = os.path.join(SRC, "testdata", "reprints.jsonl")


def run(args, stdin=None, code=0):
    return cli_helpers.run(BIN, args, stdin, code)


def clusters(args):
    return cli_helpers.clusters(BIN, FIXTURE, args)


def test_clusters_default():
    # The default pipeline (verified shingle similarity) finds every reprint and
    # keeps unrelated documents apart.
    assert clusters([]) == [[1, 4, 9], [2, 6, 10], [3, 7, 11]], clusters([])


def test_clusters_simhash_profile():
    # SimHash at k=3: the light edits cluster; "昨晚"->"昨天晚上" (6) and a new
    # English headline (11) move the fingerprint further and stay apart.
    assert clusters(["--profile", "simhash"]) == [[1, 4, 9], [2, 10], [3, 7]]
    # At k=6 every reprint joins its story and unrelated documents stay apart.
    got = clusters(["--profile", "simhash", "-k", "6"])
    assert got == [[1, 4, 9], [2, 6, 10], [3, 7, 11]], got
    # -k has no meaning without the simhash signal: a usage error that says so.
    p = run(["dedup", FIXTURE, "-q", "-k", "6"], code=2)
    assert "--threshold" in p.stderr and "simhash" in p.stderr, p.stderr


def test_explain():
    texts = {json.loads(l)["id"]: json.loads(l)["text"] for l in open(FIXTURE, encoding="utf-8")}
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for i in (2, 6, 5):
            paths[i] = os.path.join(d, "%d.txt" % i)
            with open(paths[i], "w", encoding="utf-8") as f:
                f.write(texts[i])
        # 6 reprints 2 with "昨晚" -> "昨天晚上": the default calls them near-duplicates...
        p = run(["explain", paths[2], paths[6]])
        assert "NEAR-DUPLICATES" in p.stdout and "threshold" in p.stdout, p.stdout
        j = json.loads(run(["explain", paths[2], paths[6], "--json"]).stdout)
        assert j["duplicate"] and j["candidate"] and j["similarity"] >= j["threshold"], j
        assert 0 < j["shared_shingles"] <= min(j["shingles_a"], j["shingles_b"]), j
        assert j["shared_examples"], j
        # ...SimHash at k=3 does not, and explain says why (exit 3).
        p = run(["explain", paths[2], paths[6], "--profile", "simhash"], code=3)
        assert "NOT" in p.stdout and "k=3" in p.stdout, p.stdout
        # Unrelated texts: not a candidate.
        j = json.loads(run(["explain", paths[2], paths[5], "--json"], code=3).stdout)
        assert not j["duplicate"] and j["jaccard"] < 0.1, j
        run(["explain", paths[2], os.path.join(d, "missing.txt")], code=1)
    j = json.loads(run(["explain", "--text", "ab cd", "ab cd", "--json"]).stdout)
    assert j["duplicate"] and j["similarity"] == 1.0, j


def test_explain_shows_its_arithmetic():
    # The default decides on max(jaccard, 1 - edit_weight x (1 - edit
    # similarity)) for short texts: explain prints each number and the rule.
    # (A pair whose MinHash bands agree in 3 of 20: at Jaccard 0.54 a pair
    # is a candidate with probability 0.83, and 最大 / 最小 share none.)
    a, b = "已知函数的最大值是多少呢", "已知函数的极大值是多少呢"
    j = json.loads(run(["explain", "--text", a, b, "--json"]).stdout)
    steps = j["steps"]
    assert steps[0].startswith("jaccard = shared / union = "), steps
    assert any("edit similarity = 1 - 1 edit / 12 characters = 0.917" in s for s in steps), steps
    assert any(s.startswith("weighted edit similarity = max(0, 1 - edit_weight 3.000") for s in
               steps), steps
    assert any(s.startswith("similarity = max(jaccard, weighted edit similarity) = 0.750") for s in
               steps), steps
    assert steps[-1] == "similarity 0.750 >= threshold 0.600: passes", steps
    assert abs(j["similarity"] - max(j["jaccard"], 1 - 3 * (1 - j["edit_similarity"]))) < 1e-9, j
    p = run(["explain", "--text", a, b])
    assert "arithmetic: jaccard = shared / union" in p.stdout, p.stdout
    # The question bank: a changed digit is another question, and explain says
    # so instead of quoting the Han edit similarity.
    p = run(["explain", "--profile", "qbank", "--text", "计算3+5的值", "计算3+6的值"], code=3)
    rule = [l for l in p.stdout.splitlines() if "decided by:" in l][0]
    assert "the digits differ ('3+5' vs '3+6')" in rule, p.stdout
    assert "other similarity = 1 - 1 edit / 3 characters = 0.667, needs >= 1.000" in p.stdout


def test_explain_with_a_corpus_names_the_boilerplate_guard():
    # A page of a site's footer alone and a short story under that footer:
    # alone they are near-duplicates; after a corpus in which the footer runs
    # under many stories, the guard leaves it out and says so (exit 3).
    import random
    rng = random.Random(7)

    def han(n):
        return "".join(chr(0x4E00 + rng.randrange(8000)) for _ in range(n))

    footer = han(280)
    with tempfile.TemporaryDirectory() as d:
        corpus = os.path.join(d, "site.jsonl")
        with open(corpus, "w", encoding="utf-8") as f:
            for i in range(12):
                f.write(json.dumps({"id": i, "text": han(500) + "。" + footer}) + "\n")
        bare, page = footer, han(60) + "。" + footer
        p = run(["explain", "--text", bare, page])
        assert "boilerplate" not in p.stdout, p.stdout
        p = run(["explain", "--text", bare, page, "--corpus", corpus], code=3)
        assert "decided by: boilerplate guard:" in p.stdout, p.stdout
        j = json.loads(run(["explain", "--text", bare, page, "--corpus", corpus, "--json"],
                           code=3).stdout)
        assert j["rule"].startswith("boilerplate guard:"), j
        run(["explain", "--text", bare, page, "--corpus", os.path.join(d, "none.jsonl")], code=1)


def test_unknown_commands_are_named():
    p = run(["dedu", "x"], code=2)
    assert "unknown command 'dedu'; did you mean 'dedup'?" in p.stderr, p.stderr
    p = run(["index", "buld", "x"], code=2)
    assert "neardup index: unknown command 'buld'; did you mean 'build'?" in p.stderr, p.stderr
    p = run(["frobnicate"], code=2)
    assert "unknown command 'frobnicate'; the commands are dedup," in p.stderr, p.stderr
    p = run(["expl", "--text", "a", "a"], code=2)  # a prefix
    assert "did you mean 'explain'?" in p.stderr, p.stderr


def test_emit_all_and_keep_policies():
    rows = jsonl(run(["dedup", FIXTURE, "-q"]).stdout)
    assert [r["id"] for r in rows] == list(range(1, 13))  # input order
    by = {r["id"]: r for r in rows}
    assert by[9]["cluster"] == 1 and by[9]["cluster_size"] == 3  # final size
    assert by[1]["duplicate_of"] is None and by[4]["duplicate_of"] == 1
    assert by[5]["cluster_size"] == 1 and by[5]["duplicate_of"] is None
    texts = {json.loads(l)["id"]: json.loads(l)["text"] for l in open(FIXTURE, encoding="utf-8")}
    longest = jsonl(run(["dedup", FIXTURE, "-q", "--keep", "longest"]).stdout)
    by = {r["id"]: r for r in longest}
    # Story 3's longest member is 7 (it gained a trailer line): the others point to it.
    assert max([3, 7, 11], key=lambda i: len(texts[i])) == 7
    assert by[7]["duplicate_of"] is None and by[3]["duplicate_of"] == 7 and by[11]["duplicate_of"] == 7


def test_keep_smallest_id_with_reordered_input():
    lines = open(FIXTURE, encoding="utf-8").read().splitlines()
    reordered = "\n".join(reversed(lines)) + "\n"
    rows = jsonl(run(["dedup", "-", "-q", "--keep", "smallest-id"], stdin=reordered).stdout)
    by = {r["id"]: r for r in rows}
    assert by[9]["cluster"] == 9  # first arrival roots the cluster...
    assert by[1]["duplicate_of"] is None and by[9]["duplicate_of"] == 1  # ...smallest id is kept


def test_emit_unique_keeps_input_lines():
    out = run(["dedup", FIXTURE, "--emit", "unique", "-q"]).stdout.splitlines()
    lines = open(FIXTURE, encoding="utf-8").read().splitlines()
    kept = [json.loads(l)["id"] for l in out]
    assert kept == [1, 2, 3, 5, 8, 12], kept
    assert all(l in lines for l in out)  # byte-identical input lines


def test_output_file_and_stdin_and_line_ids():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.jsonl")
        text = '{"text":"hello world again"}\n\n{"text":"hello world again"}\n'
        run(["dedup", "-", "-o", path, "-q"], stdin=text)
        rows = jsonl(open(path).read())
        assert [r["id"] for r in rows] == [1, 3]  # line numbers, blank line skipped
        assert rows[1]["duplicate_of"] == 1


def test_bad_input_names_file_and_line():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.jsonl")
        with open(path, "wb") as f:
            f.write(b'{"id":1,"text":"fine"}\n{"id":2,"text":"broken"\n')
        p = run(["dedup", path, "-q"], code=1)
        assert path + ":2" in p.stderr and "malformed JSON" in p.stderr, p.stderr
        with open(path, "wb") as f:
            f.write(b'{"id":1,"text":"ok"}\n{"id":2}\n{"id":3,"text":7}\n{"id":[1],"text":"x"}\n')
        p = run(["dedup", path, "-q"], code=1)
        assert ":2" in p.stderr and "missing field 'text'" in p.stderr, p.stderr
        p = run(["dedup", path, "--skip-invalid"], code=0)
        assert len(jsonl(p.stdout)) == 1 and p.stderr.count("skipping") == 3, p.stderr
        with open(path, "wb") as f:
            f.write(b'{"id":1,"text":"caf\\u00e9"}\n{"id":2,"text":"bad \xff utf8"}\n')
        p = run(["dedup", path, "-q"], code=1)
        assert ":2" in p.stderr and "UTF-8" in p.stderr, p.stderr
        run(["dedup", path, "-q", "--replace-invalid-utf8"], code=0)
        run(["dedup", os.path.join(d, "missing.jsonl"), "-q"], code=1)


def test_duplicate_ids_are_bad_input():
    p = run(["dedup", "-", "-q"], stdin='{"id":"a","text":"x"}\n{"id":"a","text":"y"}\n', code=1)
    assert "<stdin>:2" in p.stderr and "already exists" in p.stderr, p.stderr
    # 1 and "1" are different ids.
    run(["dedup", "-", "-q"], stdin='{"id":1,"text":"x"}\n{"id":"1","text":"y"}\n', code=0)


def test_usage_errors_exit_2():
    run(["dedup", "--emit", "nonsense"], code=2)
    run(["dedup", "--no-such-flag"], code=2)
    run(["dedup", "-k", "40", FIXTURE], code=2)
    run(["dedup", "--profile", "no-such-profile", FIXTURE], code=2)
    run([], code=2)
    assert "dedup" in run(["--help"]).stdout


def test_fingerprint_matches_independent_reference():
    ours = run(["fingerprint", FIXTURE, "-q"]).stdout
    ref = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "scripts", "reference_simhash.py")],
                         stdin=open(FIXTURE, encoding="utf-8"), capture_output=True, text=True,
                         check=True).stdout
    assert jsonl(ours) == jsonl(ref), (ours, ref)
    assert all(len(r["simhash"]) == 16 for r in jsonl(ours))


def test_learned_idf_corpus_save_load():
    with tempfile.TemporaryDirectory() as d:
        table = os.path.join(d, "df.bin")
        base = ["dedup", FIXTURE, "--profile", "zh-news", "--emit", "clusters", "-q"]
        learned = run(base + ["--idf", "corpus", "--idf-save", table]).stdout
        assert os.path.getsize(table) > 0
        # The saved table reproduces the same weights, so the same clusters.
        assert run(base + ["--idf-load", table]).stdout == learned
        assert jsonl(run(base + ["--idf", "stream"]).stdout)  # streaming runs too
        # Standard input is spooled, so the corpus pass works there too (the
        # batch pipeline reads its input twice).
        piped = run(["dedup", "-", "--profile", "zh-news", "--idf", "corpus", "--emit",
                     "clusters", "-q"], stdin=open(FIXTURE, encoding="utf-8").read()).stdout
        assert piped == learned, (piped, learned)
        run(["dedup", FIXTURE, "--idf", "corpus", "-q"], code=2)   # default profile is TF
        p = run(base + ["--idf-load", os.path.join(d, "missing.bin")], code=1)
        assert "missing.bin" in p.stderr, p.stderr


def test_reader_rules_in_every_command():
    # fingerprint, truth, eval and cluster read with the library's JsonlReader
    # (neardup/jsonl.h): the rules and messages of dedup.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "in.jsonl")
        with open(path, "wb") as f:
            f.write(b'\xef\xbb\xbf{"id":7,"text":"seven days a week"}\r\n \r\n'
                    b'{"id":"7","text":"seven days a week"}\n{"text":"no id here"}\n')
        rows = jsonl(run(["fingerprint", path, "-q"]).stdout)
        assert [r["id"] for r in rows] == [7, "7", 4], rows  # types kept; line number
        assert rows[0]["simhash"] == rows[1]["simhash"]
        # 7 and "7" are different ids: no duplicate; the integer sorts first.
        pairs = jsonl(run(["truth", path, "-q", "--threshold", "0.9"]).stdout)
        assert [(p["a"], p["b"]) for p in pairs] == [(7, "7")], pairs
        with open(path, "wb") as f:
            f.write(b'{"id":1,"text":"ok"}\n{"id":2,"text":"broken"\n{"id":3}\n'
                    b'{"id":4.5,"text":"x"}\n{"id":5,"text":"bad \xff"}\n{"id":1,"text":"again"}\n')
        p = run(["fingerprint", path, "-q"], code=1)
        assert p.stderr == "neardup fingerprint: " + path + ":2: malformed JSON\n", p.stderr
        p = run(["fingerprint", path, "--skip-invalid"])
        assert [r["id"] for r in jsonl(p.stdout)] == [1, 1], p.stdout
        want = [path + ":2: malformed JSON", path + ":3: missing field 'text'",
                path + ":4: field 'id' must be a string or an integer", path + ":5: "]
        got = [l[len("neardup: skipping "):] for l in p.stderr.splitlines()]
        assert len(got) == 4 and all(g.startswith(w) for g, w in zip(got, want)), p.stderr
        assert "UTF-8" in got[3], got
        p = run(["truth", path, "-q", "--skip-invalid"], code=1)
        assert path + ":6: duplicate id 1" in p.stderr, p.stderr
        p = run(["fingerprint", os.path.join(d, "missing.jsonl"), "-q"], code=1)
        assert "missing.jsonl: cannot open file" in p.stderr, p.stderr
        # Standard input is streamed.
        p = run(["fingerprint", "-", "-q"], stdin='{"id":"a","text":"x"}\n{"text"}\n', code=1)
        assert "<stdin>:2: malformed JSON" in p.stderr, p.stderr


def test_verify_spec_grammar():
    # One grammar (ParseVerifySpec) for dedup's and cluster's --verify.
    p = run(["dedup", FIXTURE, "-q", "--verify", "jaccard,size=3"], code=2)
    assert "verifier has no option 'size'" in p.stderr, p.stderr
    p = run(["dedup", FIXTURE, "-q", "--verify", "jaccard:2"], code=2)
    assert "bad threshold '2'" in p.stderr, p.stderr
    # KIND:T sets the threshold, over -t.
    strict = run(["dedup", FIXTURE, "-q", "--emit", "clusters", "--verify", "jaccard:0.99"])
    same = run(["dedup", FIXTURE, "-q", "--emit", "clusters", "-t", "0.3", "--verify",
                "jaccard:0.99"])
    loose = run(["dedup", FIXTURE, "-q", "--emit", "clusters", "--verify", "jaccard:0.3"])
    assert strict.stdout == same.stdout and strict.stdout != loose.stdout


if __name__ == "__main__":
    globals()["test_" + CASE]()
    print("ok:", CASE)
