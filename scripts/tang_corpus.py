#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds the demo corpus: the Tang poems of chinese-poetry's two editions as JSONL.

quantangshi (全唐诗, one record per poem) and yudingquantangshi (御定全唐詩, another
edition with variant characters) overlap heavily, so near-duplicates abound.
Output lines: {"id": "q000001" | "y000001", "edition", "title", "author", "text"}.
Usage: tang_corpus.py DATA_DIR OUT.jsonl
"""
import glob
import json
import os
import sys


def records(data_dir):
    base = os.path.join(data_dir, "chinese-poetry", "dist")
    files = sorted(glob.glob(os.path.join(base, "quantangshi", "poet.tang.*.json")),
                   key=lambda f: int(f.rsplit(".", 2)[-2]))
    n = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for p in json.load(fh):
                n += 1
                yield {"id": "q%06d" % n, "edition": "quantangshi", "title": p.get("title", ""),
                       "author": p.get("author", ""), "text": "".join(p.get("paragraphs", []))}
    n = 0
    for f in sorted(glob.glob(os.path.join(base, "yudingquantangshi", "json", "*.json"))):
        with open(f, encoding="utf-8") as fh:
            for p in json.load(fh):
                n += 1
                yield {"id": "y%06d" % n, "edition": "yudingquantangshi",
                       "title": p.get("title", ""), "author": p.get("author", ""),
                       "text": "".join(p.get("paragraphs", []))}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tmp = sys.argv[2] + ".tmp"
    count = 0
    with open(tmp, "w", encoding="utf-8") as out:
        for r in records(sys.argv[1]):
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
            count += 1
    os.replace(tmp, sys.argv[2])
    print("wrote %d poems to %s" % (count, sys.argv[2]), file=sys.stderr)


if __name__ == "__main__":
    main()
