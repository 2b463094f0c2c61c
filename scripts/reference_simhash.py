#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent, slow reference for neardup's default fingerprint.

It re-derives SimHash-64 from the documented definition (docs/design.md):
NFKC + case folding, punctuation/symbols as separators, character 3-grams over
Han runs (which continue across white space and punctuation), ASCII words
elsewhere, XXH3-64 seed 0 per feature, +1/-1 per bit, bit i set when the sum
is positive. Used by the end-to-end tests as an oracle for the C++ pipeline on
texts whose words are ASCII (non-ASCII words need ICU word breaks).

Usage: reference_simhash.py < in.jsonl > out.jsonl   ({"id":..,"simhash":hex})
"""
import json
import sys
import unicodedata

import xxhash


def is_han(c):
    return "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf"


def features(text, n=3):
    t = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    feats, run, word = [], [], []

    def flush_run():
        if run:
            s = "".join(run)
            if len(s) <= n:
                feats.append(s)
            else:
                feats.extend(s[i:i + n] for i in range(len(s) - n + 1))
            run.clear()

    words = []
    for c in t:
        cat = unicodedata.category(c)
        if is_han(c):
            if word:
                words.append("".join(word)); word.clear()
            run.append(c)
        elif c.isspace() or cat[0] in "PSZ" or cat[0] == "C":
            if word:
                words.append("".join(word)); word.clear()
        else:
            flush_run()
            word.append(c)
    if word:
        words.append("".join(word))
    flush_run()
    return feats + words


def simhash(text):
    v = [0] * 64
    for f in features(text):
        h = xxhash.xxh3_64_intdigest(f.encode("utf-8"), seed=0)
        for i in range(64):
            v[i] += 1 if (h >> i) & 1 else -1
    return sum(1 << i for i in range(64) if v[i] > 0)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        r = json.loads(line)
        print(json.dumps({"id": r["id"], "simhash": "%016x" % simhash(r["text"])}, separators=(",", ":")))


if __name__ == "__main__":
    main()
