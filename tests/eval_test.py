#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end test of `neardup truth` and `neardup eval` on a small slice of the
manpages-zh dataset (the first 30 zh_CN/zh_TW page pairs of man1), checked against an
independent computation in Python from `neardup dedup` output.
Usage: eval_test.py NEARDUP SOURCE_DIR CASE"""
import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit("exit %d (want %d): %s\n%s%s" % (p.returncode, expect, " ".join(args), p.stdout,
                                                    p.stderr))
    return p


def build_slice(src, tmp):
    root = os.path.join(tmp, "man")
    cn = sorted(f for f in os.listdir("/usr/share/man/zh_CN/man1")
                if not os.path.islink(os.path.join("/usr/share/man/zh_CN/man1", f)))
    pages = [f for f in cn if os.path.isfile(os.path.join("/usr/share/man/zh_TW/man1", f))][:30]
    for lang in ("zh_CN", "zh_TW"):
        os.makedirs(os.path.join(root, lang, "man1"))
        for f in pages:
            os.symlink(os.path.join("/usr/share/man", lang, "man1", f),
                       os.path.join(root, lang, "man1", f))
    # manpages.py skips symlinks (aliases), so copy instead.
    for lang in ("zh_CN", "zh_TW"):
        d = os.path.join(root, lang, "man1")
        for f in os.listdir(d):
            target = os.path.realpath(os.path.join(d, f))
            os.unlink(os.path.join(d, f))
            with open(target, "rb") as a, open(os.path.join(d, f), "wb") as b:
                b.write(a.read())
    run([sys.executable, os.path.join(src, "scripts/datasets/manpages.py"), tmp, root])
    return os.path.join(tmp, "manpages.jsonl"), os.path.join(tmp, "manpages_labels.jsonl")


def pair_metrics(pred, truth_pairs, ids):
    """Independent pair P/R/F1 by enumerating all pairs."""
    claimed = {(a, b) for a, b in itertools.combinations(ids, 2) if pred[a] == pred[b]}
    tp = len(claimed & truth_pairs)
    p = tp / len(claimed) if claimed else 1.0
    r = tp / len(truth_pairs) if truth_pairs else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def dedup_clusters(neardup, corpus, k):
    out = run([neardup, "dedup", corpus, "--profile", "simhash", "-k", str(k), "-q"]).stdout
    return {json.loads(l)["id"]: json.loads(l)["cluster"] for l in out.splitlines()}


def read_csv(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def case_labels_sweep(neardup, src, tmp):
    corpus, labels = build_slice(src, tmp)
    out = os.path.join(tmp, "ev")
    p = run([neardup, "eval", corpus, "--truth", labels, "--profile", "simhash",
             "--sweep", "k=0..12:6", "--out", out,
             "--name", "slice", "-j", "2"])
    assert "precision" in p.stdout, p.stdout
    rows = read_csv(os.path.join(out, "metrics.csv"))
    assert [r["value"] for r in rows] == ["0", "6", "12"], rows
    png = os.path.join(out, "precision_recall.png")
    with open(png, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n", "plot is not a PNG"
    truth = {}
    for l in open(labels):
        j = json.loads(l)
        truth[j["id"]] = j["cluster"]
    ids = sorted(truth)
    truth_pairs = {(a, b) for a, b in itertools.combinations(ids, 2) if truth[a] == truth[b]}
    assert len(truth_pairs) == len(ids) // 2
    for r in rows:
        pred = dedup_clusters(neardup, corpus, int(r["value"]))
        want = pair_metrics(pred, truth_pairs, ids)
        got = (float(r["precision"]), float(r["recall"]), float(r["f1"]))
        assert all(abs(g - w) < 1e-5 for g, w in zip(got, want)), (r["value"], got, want)
        assert int(r["docs"]) == len(ids)


def case_threshold_sweep(neardup, src, tmp):
    # The README's example: the default's one knob, swept by values or by a
    # range like k, with its plot.
    corpus, labels = build_slice(src, tmp)
    for sweep, values in [("threshold=0.5,0.6,0.7", ["0.5", "0.6", "0.7"]),
                          ("threshold=0.5..0.8:0.1", ["0.5", "0.6", "0.7", "0.8"]),
                          ("threshold=0.9..1:0.05", ["0.90", "0.95", "1.00"])]:
        out = os.path.join(tmp, "ev-" + sweep)
        p = run([neardup, "eval", corpus, "--truth", labels, "--sweep", sweep, "--out", out,
                 "-j", "2"])
        assert "warning" not in p.stderr, p.stderr
        rows = read_csv(os.path.join(out, "metrics.csv"))
        assert [r["value"] for r in rows] == values, rows
        assert [float(r["threshold"]) for r in rows] == [float(v) for v in values], rows
        with open(os.path.join(out, "precision_recall.png"), "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n", sweep
        assert not [f for f in os.listdir(out) if ".tmp-" in f], os.listdir(out)
    # Recall cannot rise with the threshold.
    recall = [float(r["recall"]) for r in rows]
    assert recall == sorted(recall, reverse=True), rows
    p = run([neardup, "eval", corpus, "--truth", labels, "--sweep", "threshold=0.5..0.8",
             "--out", tmp], 2)
    assert "needs a step" in p.stderr, p.stderr
    run([neardup, "eval", corpus, "--truth", labels, "--sweep", "threshold=0.8..0.5:0.1",
         "--out", tmp], 2)


def case_pairs_truth(neardup, src, tmp):
    corpus, _ = build_slice(src, tmp)
    pairs_file = os.path.join(tmp, "pairs.jsonl")
    run([neardup, "truth", corpus, "--shingle", "script:3,1", "--threshold", "0.3", "--t2s",
         "-o", pairs_file, "-q"])
    pairs = [json.loads(l) for l in open(pairs_file)]
    assert pairs, "a CN page and its TW page share >= 30% of 3-grams after T2S"
    for p in pairs:
        assert p["a"] < p["b"] and 0.3 <= p["jaccard"] <= 1.0, p
    # Most pages are paired with their other-script version (short coreutils pages
    # also pair with each other: they share help2man boilerplate).
    same = sum(p["a"].split("/", 1)[1] == p["b"].split("/", 1)[1] for p in pairs)
    assert same >= 24, (same, len(pairs))
    out = os.path.join(tmp, "ev")
    run([neardup, "eval", corpus, "--truth", pairs_file, "--profile", "simhash", "-k", "6",
         "--out", out, "-q"])
    row = read_csv(os.path.join(out, "metrics.csv"))[0]
    ids = sorted(json.loads(l)["id"] for l in open(corpus))
    truth_pairs = {(p["a"], p["b"]) for p in pairs}
    want = pair_metrics(dedup_clusters(neardup, corpus, 6), truth_pairs, ids)
    got = (float(row["precision"]), float(row["recall"]), float(row["f1"]))
    assert all(abs(g - w) < 1e-5 for g, w in zip(got, want)), (got, want)
    assert int(row["truth_pairs"]) == len(truth_pairs)


def case_truth_larger_than_corpus(neardup, src, tmp):
    # Truth may name documents the corpus lacks (a slice of a bigger set):
    # they are counted as unknown, not a crash.
    corpus, _ = build_slice(src, tmp)
    pairs_file = os.path.join(tmp, "pairs.jsonl")
    run([neardup, "truth", corpus, "--shingle", "script:3,1", "--threshold", "0.3", "--t2s",
         "-o", pairs_file, "-q"])
    lines = open(corpus).read().splitlines()
    half = os.path.join(tmp, "half.jsonl")
    with open(half, "w") as f:
        f.write("\n".join(lines[: len(lines) // 2]) + "\n")
    out = os.path.join(tmp, "ev_half")
    run([neardup, "eval", half, "--truth", pairs_file, "--out", out, "-q"])
    assert read_csv(os.path.join(out, "metrics.csv"))


def case_online_final_clusters(neardup, src, tmp):
    # Online, two excerpts of a story arrive before it and start two clusters;
    # the story joins one and gathers the other. The clusters are read after
    # the last add, so the three are one cluster: every truth pair is found.
    import random
    rng = random.Random(6)
    story = "".join(chr(0x4E00 + rng.randrange(2000)) for _ in range(900))
    corpus = os.path.join(tmp, "c.jsonl")
    with open(corpus, "w") as fh:
        for i, text in (("one", "节选\n\n" + story[:250]), ("two", "节选\n\n" + story[600:850]),
                        ("story", story), ("other", story[::-1])):
            fh.write(json.dumps({"id": i, "text": text}, ensure_ascii=False) + "\n")
    truth = os.path.join(tmp, "t.jsonl")
    with open(truth, "w") as fh:
        for i in ("one", "two", "story"):
            fh.write(json.dumps({"id": i, "cluster": "s"}) + "\n")
    out = os.path.join(tmp, "ev")
    run([neardup, "eval", corpus, "--truth", truth, "--mode", "online", "--out", out, "-q"])
    row = read_csv(os.path.join(out, "metrics.csv"))[0]
    assert (row["truth_pairs"], row["predicted_pairs"], row["true_positives"]) == ("3", "3", "3"), row


def case_usage_errors(neardup, src, tmp):
    corpus = os.path.join(tmp, "c.jsonl")
    with open(corpus, "w") as fh:
        fh.write('{"id":"a","text":"床前明月光"}\n{"id":"a","text":"疑是地上霜"}\n')
    truth = os.path.join(tmp, "t.jsonl")
    with open(truth, "w") as fh:
        fh.write('{"a":"a","b":"b"}\n')
    run([neardup, "eval", corpus, "--truth", truth, "--sweep", "zzz=1..2", "--out", tmp], 2)
    p = run([neardup, "eval", corpus, "--truth", truth, "--memory", "64T", "--out", tmp], 2)
    assert "memory" in p.stderr, p.stderr
    run([neardup, "truth", corpus, "--shingle", "line:3"], 2)
    p = run([neardup, "truth", corpus], 1)
    assert "duplicate id" in p.stderr and "c.jsonl:2" in p.stderr, p.stderr


def main():
    neardup, src, case = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        globals()["case_" + case](neardup, src, tmp)
    print("ok", case)


if __name__ == "__main__":
    main()
