#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The excerpt and boilerplate datasets (scripts/datasets/excerpt.py, boilerplate.py)
are what their docstrings say, on slices built from the pinned sources:
  excerpt: every cluster holds its whole article once; every other document that
    is not a whole copy is an excerpt whose Han 3-gram share of the article is
    25-60% (within the edits), and which is mostly contained in it; the whole
    articles of two clusters share almost nothing;
  boilerplate: a site's bare pages are identical and hold no article text; every
    article page ends with its site's footer; many pairs of unrelated articles share
    two or more boilerplate blocks (the trap is real); two runs with one seed are
    byte-identical;
  boilerplate_en: 30 sites, each with identical bare pages; every page opens with
    one of the sites' navigation lines; index pages are single-page clusters.
Usage: trap_datasets_test.py SOURCE_DIR"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HAN = re.compile(r"[\u3400-\u9fff]")


def grams(text):
    t = "".join(HAN.findall(text))
    return {t[i:i + 3] for i in range(len(t) - 2)}


def load(ds, name):
    with open(os.path.join(ds, name + ".jsonl"), encoding="utf-8") as fh:
        texts = {j["id"]: j["text"] for j in map(json.loads, fh)}
    with open(os.path.join(ds, name + "_labels.jsonl")) as fh:
        labels = {j["id"]: j["cluster"] for j in map(json.loads, fh)}
    assert set(texts) == set(labels)
    clusters = collections.defaultdict(list)
    for i in sorted(texts):
        clusters[labels[i]].append(texts[i])
    return clusters


def check_excerpt(ds, src, data):
    sys.path.insert(0, os.path.join(src, "scripts", "datasets"))
    from opencc_chars import load_char_table  # noqa: E402
    t2s = {t: s for s, t in load_char_table(data, "STCharacters").items()}
    clusters = load(ds, "excerpt")
    for c in clusters:  # fold the Traditional copies back
        clusters[c] = ["".join(t2s.get(ch, ch) for ch in t) for t in clusters[c]]
    excerpts, wholes = 0, []
    for texts in clusters.values():
        whole = max(texts, key=len)
        wholes.append(grams(whole))
        g = wholes[-1]
        for t in texts:
            h = grams(t)
            share = len(h) / len(g)
            if share > 0.8:
                continue  # a whole reprint
            excerpts += 1
            contained = len(h & g) / len(h)
            assert 0.15 <= share <= 0.75 and contained >= 0.5, (share, contained, t[:80])
    assert excerpts >= 30, excerpts
    for i, g in enumerate(wholes):
        for h in wholes[:i]:
            assert len(g & h) < 0.2 * min(len(g), len(h))
    print("excerpt: %d clusters, %d excerpts" % (len(clusters), excerpts))


def check_boilerplate(ds, src):
    sys.path.insert(0, os.path.join(src, "scripts", "datasets"))
    import boilerplate  # noqa: E402
    blocks = boilerplate.BLOCKS
    clusters = load(ds, "boilerplate")
    bare = {c: ts for c, ts in clusters.items() if c.startswith("site")}
    assert len(bare) == len(boilerplate.SITES), sorted(bare)
    footers = set()
    for ts in bare.values():
        assert len(set(ts)) == 1 and ts[0].startswith("来源：")
        footers.add(ts[0].split("\n\n", 1)[1])
    shared = collections.Counter()
    pages = [(c, t) for c, ts in clusters.items() if c not in bare for t in ts]
    for c, t in pages:
        assert any(t.endswith(f) for f in footers), t[-80:]
    for i in range(len(pages)):
        for j in range(i):
            if pages[i][0] != pages[j][0]:
                n = sum(b in pages[i][1] and b in pages[j][1] for b in blocks)
                shared[min(n, 2)] += 1
    assert shared[2] >= 1000, shared
    print("boilerplate: %d clusters, %d unrelated pairs share 2+ blocks" %
          (len(clusters), shared[2]))


def check_boilerplate_en(ds):
    clusters = load(ds, "boilerplate_en")
    bare = {c: ts for c, ts in clusters.items() if c.startswith("bare")}
    index = {c: ts for c, ts in clusters.items() if c.startswith("index")}
    assert len(bare) == 30 and index, (len(bare), len(index))
    for ts in bare.values():
        assert len(set(ts)) == 1, "a site's bare pages differ"
    navs = {ts[0].split("\n\n", 1)[0] for ts in bare.values()}
    for c, ts in clusters.items():
        for t in ts:
            assert t.split("\n\n", 1)[0] in navs, t[:80]
    for ts in index.values():
        assert len(ts) == 1 and "Latest stories" in ts[0]
    print("boilerplate_en: %d clusters, %d index pages" % (len(clusters), len(index)))


def main():
    src = sys.argv[1]
    data = os.environ.get("NEARDUP_DATA_DIR", os.path.join(src, "data"))
    scripts = os.path.join(src, "scripts", "datasets")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        for out in (a, b):
            subprocess.run([sys.executable, os.path.join(scripts, "boilerplate.py"), out,
                            "--articles", "120"], check=True)
        for f in ("boilerplate.jsonl", "boilerplate_labels.jsonl"):
            with open(os.path.join(a, f), "rb") as x, open(os.path.join(b, f), "rb") as y:
                assert x.read() == y.read(), f
        subprocess.run([sys.executable, os.path.join(scripts, "excerpt.py"), a, data,
                        "--articles", "60"], check=True)
        check_excerpt(a, src, data)
        check_boilerplate(a, src)
        subprocess.run([sys.executable, os.path.join(scripts, "boilerplate_en.py"), a, data,
                        "--articles", "150"], check=True)
        check_boilerplate_en(a)
    print("ok")


if __name__ == "__main__":
    main()
