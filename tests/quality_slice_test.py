#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end test of the quality leaderboard (scripts/quality/leaderboard) on a slice
of the suite: a few hundred documents of the english, mixed, reprint, mail and
questions sets, built by the real dataset scripts from the pinned sources.

Three configurations: "good" (no options), "strict" (--threshold 0.99, which only
joins near-exact copies) and "broken" (a flag the binary does not know). Checks:
  - every run is in the CSV; "broken" is n/a with the binary's error, not a failure;
  - the F1 of "good" on each dataset equals the F1 recomputed here, independently,
    from `neardup dedup` labels and the truth labels by enumerating pairs;
  - "good" beats "strict" on the reprint-like sets by a wide margin (the harness does
    not mix up rows or datasets);
  - the markdown tables land between the markers of the given document;
  - a set marked "recall" (a truth naming some of the true pairs) shows recall and is
    left out of the worst case.
Usage: quality_slice_test.py NEARDUP SOURCE_DIR"""
import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile

SETS = ["english", "mixed", "reprint", "mail", "questions"]
RECALL_SET = "reprint_some"


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("exit %d: %s\n%s%s" % (p.returncode, " ".join(args), p.stdout, p.stderr))
    return p


def build_slices(src, data, ds):
    py = sys.executable
    for name in ("english", "mixed", "reprint"):
        run([py, os.path.join(src, "scripts/datasets/%s.py" % name), ds, data, "--articles", "50"])
    run([py, os.path.join(src, "scripts/datasets/mail.py"), ds, "--articles", "50"])
    run([py, os.path.join(src, "scripts/datasets/qbank.py"), "300", "--seed", "7", "-j", "1",
         "-o", os.path.join(ds, "questions.jsonl"),
         "--labels", os.path.join(ds, "questions_labels.jsonl"), "--merge-identical",
         "--data-dir", data])
    # Some true pairs of the reprint slice, as a pair truth that names only them.
    by = {}
    for i, c in labels(os.path.join(ds, "reprint_labels.jsonl")).items():
        by.setdefault(c, []).append(i)
    some = [p for g in by.values() for p in itertools.combinations(sorted(g), 2)][::3]
    with open(os.path.join(ds, "reprint_some.jsonl"), "w") as fh:
        for a, b in some:
            fh.write(json.dumps({"a": a, "b": b}) + "\n")
    with open(os.path.join(ds, "datasets.tsv"), "w") as fh:
        for n in SETS:
            fh.write("%s\t%s.jsonl\t%s_labels.jsonl\t%s\n" % (n, n, n, n))
        fh.write("%s\treprint.jsonl\treprint_some.jsonl\tsome pairs\trecall\n" % RECALL_SET)


def labels(path):
    out = {}
    with open(path) as fh:
        for line in fh:
            j = json.loads(line)
            out[str(j["id"])] = j.get("cluster")
    return out


def independent_f1(neardup, corpus, truth_path):
    out = run([neardup, "dedup", corpus, "-q", "-j", "2"]).stdout
    pred = {str(json.loads(l)["id"]): json.loads(l)["cluster"] for l in out.splitlines()}
    truth = labels(truth_path)
    ids = sorted(pred)
    claimed = {(a, b) for a, b in itertools.combinations(ids, 2) if pred[a] == pred[b]}
    true = {(a, b) for a, b in itertools.combinations(ids, 2) if truth[a] == truth[b]}
    tp = len(claimed & true)
    p = tp / len(claimed) if claimed else 1.0
    r = tp / len(true) if true else 1.0
    return 2 * p * r / (p + r) if p + r else 0.0, len(true)


def main():
    neardup, src = sys.argv[1], sys.argv[2]
    data = os.environ.get("NEARDUP_DATA_DIR", os.path.join(src, "data"))
    with tempfile.TemporaryDirectory() as tmp:
        ds = os.path.join(tmp, "ds")
        os.makedirs(ds)
        build_slices(src, data, ds)
        configs = os.path.join(tmp, "configs.tsv")
        with open(configs, "w") as fh:
            fh.write("# test rows\ngood\t\tno options\nstrict\t--threshold 0.99 --containment 0\n"
                     "broken\t--no-such-flag 3\tmust be n/a\n")
        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as fh:
            fh.write("before\n<!-- leaderboard:begin -->\nold\n<!-- leaderboard:end -->\nafter\n")
        out_csv = os.path.join(tmp, "lb.csv")
        run([sys.executable, os.path.join(src, "scripts/quality/leaderboard"), "--neardup", neardup,
             "--datasets-dir", ds, "--datasets", os.path.join(ds, "datasets.tsv"),
             "--configs", configs, "--csv", out_csv, "--doc", doc, "--out",
             os.path.join(tmp, "runs"), "--no-build", "--timeout", "120"])
        with open(out_csv) as fh:
            rows = {(r["config"], r["dataset"]): r for r in csv.DictReader(fh)}
        assert len(rows) == 3 * (len(SETS) + 1), sorted(rows)
        for n in SETS:
            b = rows[("broken", n)]
            assert b["status"] == "n/a" and "no-such-flag" in b["error"], b
            for c in ("good", "strict"):
                assert rows[(c, n)]["status"] == "ok", rows[(c, n)]
            f1, true_pairs = independent_f1(neardup, os.path.join(ds, n + ".jsonl"),
                                            os.path.join(ds, n + "_labels.jsonl"))
            assert true_pairs > 50, (n, true_pairs)
            got = float(rows[("good", n)]["f1"])
            assert abs(got - f1) < 1e-5, (n, got, f1)
            print("%-10s good F1 %.4f (recomputed %.4f), strict F1 %s" %
                  (n, got, f1, rows[("strict", n)]["f1"]))
        for n in ("english", "mixed", "reprint", "mail"):
            good, strict = float(rows[("good", n)]["f1"]), float(rows[("strict", n)]["f1"])
            assert good >= strict + 0.3, (n, good, strict)
        with open(doc) as fh:
            text = fh.read()
        assert text.startswith("before\n<!-- leaderboard:begin -->\n") and \
            text.endswith("<!-- leaderboard:end -->\nafter\n"), text
        assert "\nold\n" not in text
        lines = text.splitlines()
        assert any(l.startswith("| good | ") for l in lines), text
        # The recall set: its column is last and holds the recall; the worst case is the
        # scored sets' (its F1, which counts every unnamed pair as false, is not one).
        head = [l for l in lines if l.startswith("| configuration | ")][0].split(" | ")
        assert head[len(SETS) + 1] == "some pairs, recall", head
        good = [l for l in lines if l.startswith("| good | ")][0].split(" | ")
        some = rows[("good", RECALL_SET)]
        assert float(some["f1"]) < float(some["recall"]) - 0.2, some
        assert good[len(SETS) + 1].strip("*") == "%.4f" % float(some["recall"]), good
        scored = min(float(rows[("good", n)]["f1"]) for n in SETS)
        assert good[len(SETS) + 2].strip("*") == "%.4f" % scored, good
        broken = [l for l in lines if l.startswith("| broken | ")][0]
        assert broken.count("n/a") >= len(SETS), broken
    print("ok")


if __name__ == "__main__":
    main()
