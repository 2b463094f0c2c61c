# SPDX-License-Identifier: Apache-2.0
"""Deduplicate a large JSONL file in chunks with the online engine.

Reads `chunk_size` lines at a time, adds them with Engine.add_many (sketched
on every core, the GIL released) and writes the lines that start a new
cluster, unchanged. Memory: one chunk, plus what the engine keeps per
document (its index entries and normalized text). The result does not depend
on the chunk size: add_many applies documents in input order.

usage: python3 dedup_jsonl_chunks.py INPUT.jsonl OUTPUT.jsonl [PROFILE]
"""
import itertools
import json
import sys

import neardup


def dedup_jsonl(src, dst, chunk_size=10_000, **options):
    engine = neardup.Engine(**options)
    kept = dropped = 0
    line_number = 0
    with open(src, encoding="utf-8") as fin, open(dst, "w", encoding="utf-8") as fout:
        while lines := list(itertools.islice(fin, chunk_size)):
            docs = []
            for line in lines:
                line_number += 1
                record = json.loads(line)
                docs.append((record.get("id", line_number), record["text"]))
            for line, result in zip(lines, engine.add_many(docs)):
                if result.duplicate:
                    dropped += 1
                else:
                    fout.write(line)
                    kept += 1
    return kept, dropped


if __name__ == "__main__":
    profile = sys.argv[3] if len(sys.argv) > 3 else "default"
    kept, dropped = dedup_jsonl(sys.argv[1], sys.argv[2], profile=profile)
    print(f"kept {kept}, dropped {dropped} near-duplicates", file=sys.stderr)
