#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Silver pairs for the Tang editions: a quantangshi poem and a yudingquantangshi poem
with the same title and author after Traditional->Simplified folding (OpenCC's
TSCharacters, character level) and removal of white space and punctuation.

Only one-to-one matches count: a (title, author) key held by exactly one poem in each
edition. Keys such as 无题 that an author used several times are left out, since the
pairing would be a guess. "Silver" because a title and author match says nothing of
the text: an edition may hold a different version or a fragment.
Usage: tang_silver.py TANG.jsonl DATA_DIR OUT.jsonl   (writes {"a","b"} lines)
"""
import collections
import json
import re
import sys

from opencc_chars import load_char_table


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    t2s = load_char_table(sys.argv[2], "TSCharacters")
    strip = re.compile(r"[\s\W_]+")

    def key(s):
        return "".join(t2s.get(c, c) for c in strip.sub("", s))

    groups = collections.defaultdict(lambda: ([], []))
    with open(sys.argv[1], encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if not r["title"] or not r["author"]:
                continue
            side = 0 if r["edition"] == "quantangshi" else 1
            groups[(key(r["title"]), key(r["author"]))][side].append(r["id"])
    n = 0
    with open(sys.argv[3], "w", encoding="utf-8") as out:
        for (q, y) in groups.values():
            if len(q) == 1 and len(y) == 1:
                out.write(json.dumps({"a": min(q[0], y[0]), "b": max(q[0], y[0])}) + "\n")
                n += 1
    print("tang silver: %d one-to-one title+author pairs in %s" % (n, sys.argv[3]), file=sys.stderr)


if __name__ == "__main__":
    main()
