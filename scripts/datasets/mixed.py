#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "mixed" dataset: Chinese technical prose full of commands, paths and
identifiers (Debian Reference), reprinted the way tech blogs and forums copy it.
Truth is by construction (each cluster = one source article).

Sources (installed by scripts/setup):
  - Debian Reference 2.100 in Simplified Chinese (debian-reference-zh-cn) and its
    Taiwan localization (debian-reference-zh-tw), plain-text books
    (sources.debref_sections). An article is a run of consecutive numbered sections
    under one chapter section ("1.3.x"), concatenated until it holds >= 400 characters
    (at most 1,500);
  - manpages-zh 1.6.4.0-1: the first paragraphs (500-1,500 characters) of a zh_CN page
    (its zh_TW page is often another translation, not a copy: not used).
An article needs >= 300 characters, >= 20% Han and >= 8% ASCII letters: prose mixed
with `apt-get install`, /etc paths, option names. A Debian Reference article's real
zh_TW version (Taiwan wording: 文件 -> 檔案, 命令 -> 指令) comes from the other book. An article whose
Han 3-gram Jaccard with an earlier one is >= 0.2 is skipped.

Cluster sizes are heavy-tailed (Pareto, alpha 1.1, capped at 60). Each reprint starts
from the zh_CN text, or (p=.15) from the real zh_TW localization (Debian Reference
articles), then applies,
independently:
  new headline (p=.5), "来源：" line (p=.5), ad paragraph (p=.3), 1-5 Han characters
  changed (p=.5), 1-2 sentences deleted (p=.4), truncation after a sentence once
  75-95% of the characters are kept (p=.15), shuffled paragraphs (p=.2), the spaces between Han and ASCII
  removed or added (p=.3), full-width ASCII punctuation or half-width Chinese
  punctuation (p=.2), conversion to Traditional with OpenCC STCharacters (p=.15).
Documents are written in a seeded random order.
Usage: mixed.py OUT_DIR DATA_DIR [--seed N] [--articles N]
Writes OUT_DIR/mixed.jsonl ({"id","text"}) and OUT_DIR/mixed_labels.jsonl.
"""
import argparse
import collections
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import manpages  # noqa: E402
import sources  # noqa: E402
from english import truncate, write  # noqa: E402
from opencc_chars import load_char_table  # noqa: E402
from reprint import ADS, HEADLINES, OUTLETS  # noqa: E402

HAN = re.compile(r"[\u3400-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
HAN_ASCII = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[!-~])|(?<=[!-~]) (?=[\u4e00-\u9fff])")
NO_SPACE = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9/$-])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")
HALF = str.maketrans({"，": ",", "：": ":", "（": "(", "）": ")", "；": ";", "？": "?", "！": "!"})
FULL = str.maketrans({",": "，", ":": "：", "(": "（", ")": "）", ";": "；"})


def _mixed_enough(text):
    n = len(text)
    return n >= 300 and len(HAN.findall(text)) >= 0.2 * n and len(LATIN.findall(text)) >= 0.08 * n


def debref_articles():
    """[(key, zh_CN paragraphs, zh_TW paragraphs or None)] from Debian Reference."""
    cn = sources.debref_sections("zh-cn")
    tw = {num: paras for num, _, paras in sources.debref_sections("zh-tw")}
    articles, cur = [], None

    def close():
        if cur is not None and _mixed_enough("".join(cur[2])):
            tw_paras = None
            if all(num in tw for num in cur[1]):
                tw_paras = [p for num in cur[1] for p in tw[num]]
            articles.append(("debref/" + cur[0], cur[2], tw_paras))

    for num, title, paras in cn:
        parent = num.rsplit(".", 1)[0] if num.count(".") >= 2 else num
        if cur is None or cur[0] != parent or sum(len(p) for p in cur[2]) >= 400:
            close()
            cur = (parent, [], [])
        room = 1500 - sum(len(p) for p in cur[2])
        cur[1].append(num)
        cur[2].extend(p for p in [title] + paras if len(p) <= room)
    close()
    return articles


def manpage_articles(man_root, limit=None):
    """The first paragraphs (500-1500 characters) of zh_CN manual pages that mix
    Chinese with options and identifiers. Their zh_TW pages are often another
    translation, not a copy (the manpages set covers those), so they are not used."""
    cn = manpages.pages(man_root, "zh_CN")
    out = []
    for page in sorted(cn):
        text, stub = manpages.read_text(cn[page])
        if stub:
            continue
        paras, n = [], 0
        for p in text.split("\n\n"):
            p = p.strip()
            if p and n + len(p) <= 1500:
                paras.append(p)
                n += len(p)
            if n >= 600:
                break
        if len(paras) < 3 or n < 500 or not _mixed_enough("".join(paras)):
            continue
        out.append(("man/" + page, paras, None))
        if limit is not None and len(out) >= limit:
            break
    return out


def grams(text):
    t = "".join(HAN.findall(text)) or text
    return {t[i:i + 3] for i in range(len(t) - 2)}


def load_articles(man_root="/usr/share/man", limit=None):
    """Debian Reference and manual-page articles; an article whose Han 3-gram Jaccard
    with an earlier one is >= 0.2 is skipped, so distinct clusters are distinct."""
    kept, kept_grams = [], []
    debref = debref_articles()
    if limit is not None:  # a test slice: half from each source
        arts = debref[:(limit + 1) // 2] + manpage_articles(man_root, limit // 2)
    else:
        arts = debref + manpage_articles(man_root)
    for art in arts:
        g = grams("".join(art[1]))
        if any(len(g & h) >= 0.2 * len(g | h) for h in kept_grams):
            continue
        kept_grams.append(g)
        kept.append(art)
    return kept


def sentences(para):
    return [s for s in re.split(r"(?<=[。！？；])", para) if s]


def reprint(rng, paras, tw_paras, s2t):
    paras = list(tw_paras if tw_paras and rng.random() < 0.15 else paras)
    if rng.random() < 0.4:
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(paras))
            ss = sentences(paras[i])
            if len(ss) > 1:
                del ss[rng.randrange(len(ss))]
                paras[i] = "".join(ss)
    if rng.random() < 0.5:
        pool = HAN.findall("".join(paras))
        for _ in range(rng.randint(1, 5)):
            i = rng.randrange(len(paras))
            pos = [m.start() for m in HAN.finditer(paras[i])]
            if pos and pool:
                p = rng.choice(pos)
                paras[i] = paras[i][:p] + rng.choice(pool) + paras[i][p + 1:]
    if rng.random() < 0.15:
        paras = truncate(rng, paras, "（未完待续）" if rng.random() < 0.5 else "")
    if rng.random() < 0.2:
        rng.shuffle(paras)
    if rng.random() < 0.3:
        paras.insert(rng.randint(1, len(paras)), rng.choice(ADS))
    if rng.random() < 0.5:
        line = "来源：" + rng.choice(OUTLETS)
        paras.insert(0, line) if rng.random() < 0.5 else paras.append(line)
    if rng.random() < 0.5:
        src = "".join(paras)
        start = rng.randrange(max(1, len(src) - 20))
        paras.insert(0, rng.choice(HEADLINES) + src[start:start + rng.randint(8, 20)].strip())
    text = "\n\n".join(paras)
    if rng.random() < 0.3:
        text = HAN_ASCII.sub("", text) if rng.random() < 0.5 else NO_SPACE.sub(" ", text)
    if rng.random() < 0.2:
        text = text.translate(HALF if rng.random() < 0.5 else FULL)
    if rng.random() < 0.15:
        text = text.translate(s2t)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("data_dir")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--articles", type=int, help="only about N articles (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    s2t = {ord(k): v for k, v in load_char_table(args.data_dir, "STCharacters").items()}
    articles = load_articles(limit=args.articles)
    docs = []
    for c, (key, paras, tw_paras) in enumerate(articles):
        size = min(60, int(rng.paretovariate(1.1)))
        docs.append(("m%04d" % c, "\n\n".join(paras)))
        for _ in range(size - 1):
            docs.append(("m%04d" % c, reprint(rng, paras, tw_paras, s2t)))
    rng.shuffle(docs)
    write(args.out_dir, "mixed", "m", docs)
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    with_tw = sum(1 for a in articles if a[2])
    print("mixed: %d articles (%d with a zh_TW version), %d documents (seed %d); cluster sizes %s"
          % (len(articles), with_tw, len(docs), args.seed, dict(sorted(sizes.items()))),
          file=sys.stderr)


if __name__ == "__main__":
    main()
