#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""manpages-zh dataset: the same manual page in Simplified (zh_CN) and Traditional
(zh_TW) Chinese, from Debian's manpages-zh package (/usr/share/man/zh_{CN,TW}).

A pair is the page of the same section and name in both trees, by construction.
Kept: regular files (symlinked aliases are skipped) present in both trees whose text
is non-empty and that are not '.so' redirects. Markup is stripped by roff.py.
Usage: manpages.py OUT_DIR [MAN_ROOT]
Writes OUT_DIR/manpages.jsonl ({"id","lang","page","text"}) and
OUT_DIR/manpages_labels.jsonl ({"id","cluster"}: cluster = page).
"""
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roff  # noqa: E402


SYSTEM_ROOT = "/usr/share/man"


# scripts/setup installs these for other datasets; their zh_CN/zh_TW pages
# (debian-reference.1, fortune-zh.6) are left out so that this set stays as measured.
OTHER_PACKAGES = ("debian-reference-common", "fortunes-zh")


def _other_packages_files():
    out = subprocess.run(["dpkg-query", "-L", *OTHER_PACKAGES], capture_output=True,
                         text=True).stdout
    return set(out.split("\n"))


def pages(root, lang):
    """{relative path without .gz: file} of the regular pages under ROOT/LANG (under
    the system root, not those of OTHER_PACKAGES)."""
    base = os.path.join(root, lang)
    skip = _other_packages_files() if os.path.abspath(root) == SYSTEM_ROOT else set()
    out = {}
    for dirpath, _, files in os.walk(base):
        for f in files:
            path = os.path.join(dirpath, f)
            if os.path.islink(path) or not f.endswith(".gz") or path in skip:
                continue
            out[os.path.relpath(path, base)[:-3]] = path
    return out


def read_text(path):
    with gzip.open(path, "rb") as fh:
        raw = fh.read().decode("utf-8", errors="replace")
    return roff.to_text(raw)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) == 3 else "/usr/share/man"
    cn, tw = pages(root, "zh_CN"), pages(root, "zh_TW")
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    with open(os.path.join(out_dir, "manpages.jsonl"), "w", encoding="utf-8") as corpus, \
         open(os.path.join(out_dir, "manpages_labels.jsonl"), "w", encoding="utf-8") as labels:
        for page in sorted(set(cn) & set(tw)):
            texts = {}
            for lang, tree in (("zh_CN", cn), ("zh_TW", tw)):
                text, stub = read_text(tree[page])
                if stub or not text.strip():
                    break
                texts[lang] = text
            if len(texts) != 2:
                continue
            n += 1
            for lang, text in texts.items():
                doc_id = lang + "/" + page
                corpus.write(json.dumps({"id": doc_id, "lang": lang, "page": page, "text": text},
                                        ensure_ascii=False) + "\n")
                labels.write(json.dumps({"id": doc_id, "cluster": page}) + "\n")
    print("manpages-zh: %d zh_CN/zh_TW page pairs (%d documents) in %s" % (n, 2 * n, out_dir),
          file=sys.stderr)


if __name__ == "__main__":
    main()
