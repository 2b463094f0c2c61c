#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints a readable summary of `neardup dedup --emit clusters` on the Tang corpus:
counts, then a few real clusters whose members come from both editions and
differ in wording, side by side, with differing characters in [brackets].
Usage: demo_show.py CORPUS.jsonl CLUSTERS.jsonl [N]
"""
import collections
import difflib
import json
import sys
import unicodedata


def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def pad(s, w):
    return s + " " * max(0, w - width(s))


def marked_pair(a, b):
    """Both strings with the characters that differ wrapped in [ ]."""
    ma, mb = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            ma.append(a[i1:i2]); mb.append(b[j1:j2])
        else:
            if i2 > i1: ma.append("[" + a[i1:i2] + "]")
            if j2 > j1: mb.append("[" + b[j1:j2] + "]")
    return "".join(ma), "".join(mb)


def lines(text, limit=24):
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in "。！？；" or len(cur) >= limit:
            out.append(cur); cur = ""
    if cur:
        out.append(cur)
    return out


def main():
    corpus_path, clusters_path = sys.argv[1], sys.argv[2]
    show = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    docs = {}
    with open(corpus_path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            docs[r["id"]] = r
    clusters = [json.loads(l) for l in open(clusters_path, encoding="utf-8")]
    dups = sum(c["size"] - 1 for c in clusters)
    cross = [c for c in clusters
             if len({docs[m]["edition"] for m in c["members"]}) == 2]
    sizes = collections.Counter(c["size"] for c in clusters)
    print("documents:              %d" % len(docs))
    print("clusters with 2+ docs:  %d (sizes: %s)" % (
        len(clusters), ", ".join("%d:%d" % kv for kv in sorted(sizes.items())[:6])))
    print("duplicates removed:     %d" % dups)
    print("unique after dedup:     %d" % (len(docs) - dups))
    print("clusters spanning both editions: %d" % len(cross))
    # Real variant-character clusters: members differ, texts long enough to read.
    picked = []
    for c in cross:
        a, b = docs[c["members"][0]], docs[c["members"][1]]
        if a["text"] != b["text"] and 30 <= len(a["text"]) <= 120:
            picked.append(c)
        if len(picked) == show:
            break
    for c in picked:
        a, b = docs[c["members"][0]], docs[c["members"][1]]
        print()
        print("cluster %s (%d members)" % (c["cluster"], c["size"]))
        left_head = "%s %s《%s》%s" % (a["id"], a["edition"], a["title"][:14], a["author"])
        right_head = "%s %s《%s》%s" % (b["id"], b["edition"], b["title"][:14], b["author"])
        ta, tb = marked_pair(a["text"], b["text"])
        la, lb = lines(ta), lines(tb)
        col = max([width(left_head)] + [width(x) for x in la]) + 4
        print("  " + pad(left_head, col) + right_head)
        for i in range(max(len(la), len(lb))):
            print("  " + pad(la[i] if i < len(la) else "", col) + (lb[i] if i < len(lb) else ""))


if __name__ == "__main__":
    main()
