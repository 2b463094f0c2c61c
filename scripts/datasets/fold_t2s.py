#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Folds the "text" of every JSONL record from Traditional to Simplified characters
with OpenCC's TSCharacters table (character level, first candidate). Used to stand
in for an engine profile with T2S folding until such profiles exist.
Usage: fold_t2s.py DATA_DIR IN.jsonl OUT.jsonl"""
import json
import sys

from opencc_chars import load_char_table


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    table = load_char_table(sys.argv[1], "TSCharacters")
    with open(sys.argv[2], encoding="utf-8") as src, open(sys.argv[3], "w", encoding="utf-8") as out:
        for line in src:
            r = json.loads(line)
            r["text"] = "".join(table.get(c, c) for c in r["text"])
            out.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
