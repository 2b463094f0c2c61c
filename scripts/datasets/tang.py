#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tang editions dataset: the poems of chinese-poetry's quantangshi and
yudingquantangshi editions (scripts/tang_corpus.py), minus fragments.

Records whose text holds fewer than MIN_HAN (10) Han characters are dropped: the
editions contain hundreds of empty poems ("。") and one-character stubs, whose
shingle sets are empty or trivial; left in, 180 empty poems alone would form one
predicted cluster of 16k pairs with no defined Jaccard truth.
Usage: tang.py DATA_DIR OUT.jsonl
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tang_corpus  # noqa: E402

MIN_HAN = 10
HAN = re.compile(r"[\u3400-\u9fff\U00020000-\U0002ffff]")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    kept = dropped = 0
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        for r in tang_corpus.records(sys.argv[1]):
            if len(HAN.findall(r["text"])) < MIN_HAN:
                dropped += 1
                continue
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
            kept += 1
    os.replace(tmp, sys.argv[2])
    print("tang: %d poems kept, %d fragments (< %d Han characters) dropped, in %s" %
          (kept, dropped, MIN_HAN, sys.argv[2]), file=sys.stderr)


if __name__ == "__main__":
    main()
