#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Folds the "text" of every JSONL record from Traditional to Simplified characters
with OpenCC's TSCharacters table (character level, first candidate). Used to stand
in for an engine profile with T2S folding until such profiles exist.
Usage: fold_t2s.py DATA_DIR IN.jsonl OUT.jsonl"""
import json
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    table = {}
    path = os.path.join(sys.argv[1], "opencc", "data", "dictionary", "TSCharacters.txt")
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#") and "\t" in line:
                key, vals = line.rstrip("\n").split("\t", 1)
                if len(key) == 1 and vals:
                    table[key] = vals.split(" ")[0]
    with open(sys.argv[2], encoding="utf-8") as src, open(sys.argv[3], "w", encoding="utf-8") as out:
        for line in src:
            r = json.loads(line)
            r["text"] = "".join(table.get(c, c) for c in r["text"])
            out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
