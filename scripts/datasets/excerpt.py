#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "excerpt" dataset (issue 25): real Chinese prose of 1.5-4 KB, run whole
by some sites and in excerpts of 25-60% by others. Truth is by construction (each
cluster = one source article, its excerpts included).

Sources (installed by scripts/setup):
  - manpages-zh 1.6.4.0-1: the prose paragraphs of a zh_CN page (>= 30 characters,
    >= 50% Han, not shared with any other page), in page order;
  - Debian Reference 2.100 in Simplified Chinese: the paragraphs of consecutive
    numbered sections under one chapter section.
An article is its first paragraphs up to 4,000 UTF-8 bytes; it needs >= 1,500 bytes
and >= 50% Han. An article whose Han 3-gram containment with an earlier one
(shared / smaller set) is >= 0.15 is skipped, so different clusters share no
passage.

Per article (one cluster): the whole text once; then 0-4 excerpts (0 with p=.3, else
1 + a geometric count, p=.5) and 0-2 whole reprints (p=.35 for each of two). An
excerpt is a run of whole sentences starting at a random sentence and covering 25-60%
of the article's characters; independently it gets a headline cut from its own first
sentence with "（节选）" (p=.5), a "来源：" line (p=.5), a lead-in "本文节选自……"
(p=.3), 1-3 Han characters changed (p=.3) and conversion to Traditional with
OpenCC's STCharacters table (p=.15). A whole reprint gets the same kinds of edit
except the cut. Documents are written in a seeded random order.
Usage: excerpt.py OUT_DIR DATA_DIR [--seed N] [--articles N]
Writes OUT_DIR/excerpt.jsonl ({"id","text"}) and OUT_DIR/excerpt_labels.jsonl.
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
from english import write  # noqa: E402
from opencc_chars import load_char_table  # noqa: E402
from reprint import OUTLETS  # noqa: E402

HAN = re.compile(r"[\u3400-\u9fff]")
MIN_BYTES, MAX_BYTES = 1500, 4000
LEADS = ["本文节选自{}，有删节。", "以下内容节选自{}的报道。", "编者按：本文摘编自{}。"]


def han_grams(text):
    t = "".join(HAN.findall(text))
    return {t[i:i + 3] for i in range(len(t) - 2)}


def cap(paras):
    """The first paragraphs up to MAX_BYTES of UTF-8."""
    out, size = [], 0
    for p in paras:
        n = len(p.encode("utf-8")) + 2
        if size + n > MAX_BYTES:
            break
        out.append(p)
        size += n
    return out


def manpage_articles(man_root):
    pages = manpages.pages(man_root, "zh_CN")
    paras = {}
    for page in sorted(pages):
        text, stub = manpages.read_text(pages[page])
        if not stub:
            paras[page] = [p.strip() for p in text.split("\n\n")
                           if len(p.strip()) >= 30
                           and len(HAN.findall(p)) >= 0.5 * len(p.strip())]
    seen = collections.Counter(p for ps in paras.values() for p in set(ps))
    return [("man/" + page, [p for p in ps if seen[p] == 1]) for page, ps in paras.items()]


def debref_articles():
    out, cur = [], None
    for num, title, paras in sources.debref_sections("zh-cn"):
        parent = num.split(".")[0] + "." + num.split(".")[1]
        if cur is None or cur[0] != parent:
            cur = (parent, [])
            out.append(("debref/" + parent, cur[1]))
        cur[1].extend([title] + paras)
    return out


def overlaps_kept(g, kept, share=0.15):
    """True when Han 3-gram set g shares `share` of the smaller set with one in kept;
    otherwise g joins kept."""
    if any(len(g & h) >= share * min(len(g), len(h)) for h in kept):
        return True
    kept.append(g)
    return False


def load_articles(man_root, limit):
    articles, kept = [], []
    for key, paras in manpage_articles(man_root) + debref_articles():
        body = cap(paras)
        text = "\n\n".join(body)
        if len(text.encode("utf-8")) < MIN_BYTES or len(HAN.findall(text)) < 0.5 * len(text):
            continue
        if overlaps_kept(han_grams(text), kept):
            continue
        articles.append((key, body))
        if limit is not None and len(articles) >= limit:
            break
    return articles


def sentences(text):
    return [s for s in re.split(r"(?<=[。！？；\n])", text) if s.strip()]


def change_chars(rng, text, pool, count):
    for _ in range(count):
        pos = [m.start() for m in HAN.finditer(text)]
        if pos:
            p = rng.choice(pos)
            text = text[:p] + rng.choice(pool) + text[p + 1:]
    return text


def excerpt_of(rng, text):
    """A run of whole sentences covering 25-60% of TEXT's characters."""
    ss = sentences(text)
    share = rng.uniform(0.25, 0.60)
    goal = share * len(text)
    starts = [i for i in range(len(ss)) if sum(len(s) for s in ss[i:]) >= goal] or [0]
    i = rng.choice(starts)
    out = ""
    while i < len(ss) and len(out) < goal:
        out += ss[i]
        i += 1
    return out.strip()


def dress(rng, text, pool, s2t, excerpt):
    paras = [text]
    if excerpt and rng.random() < 0.5:
        head = "".join(HAN.findall(sentences(text)[0]))[:rng.randint(8, 16)]
        paras.insert(0, head + "（节选）")
    if excerpt and rng.random() < 0.3:
        paras.insert(1 if len(paras) > 1 else 0, rng.choice(LEADS).format(rng.choice(OUTLETS)))
    if rng.random() < 0.5:
        line = "来源：" + rng.choice(OUTLETS)
        paras.insert(0, line) if rng.random() < 0.5 else paras.append(line)
    out = "\n\n".join(paras)
    if rng.random() < (0.3 if excerpt else 0.5):
        out = change_chars(rng, out, pool, rng.randint(1, 3))
    if rng.random() < 0.15:
        out = "".join(s2t.get(c, c) for c in out)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("data_dir")
    ap.add_argument("--seed", type=int, default=20261126)
    ap.add_argument("--man-root", default="/usr/share/man")
    ap.add_argument("--articles", type=int, help="only the first N articles (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    s2t = load_char_table(args.data_dir, "STCharacters")
    articles = load_articles(args.man_root, args.articles)
    docs, shares = [], []
    for c, (_, body) in enumerate(articles):
        text = "\n\n".join(body)
        pool = HAN.findall(text)
        cluster = "x%04d" % c
        docs.append((cluster, text))
        excerpts = 0
        if rng.random() >= 0.3:
            excerpts = 1
            while excerpts < 4 and rng.random() < 0.5:
                excerpts += 1
        for _ in range(excerpts):
            part = excerpt_of(rng, text)
            shares.append(len(part) / len(text))
            docs.append((cluster, dress(rng, part, pool, s2t, True)))
        for _ in range(2):
            if rng.random() < 0.35:
                docs.append((cluster, dress(rng, text, pool, s2t, False)))
    rng.shuffle(docs)
    write(args.out_dir, "excerpt", "e", docs)
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    shares.sort()
    print("excerpt: %d articles, %d documents, %d excerpts (share median %.2f) (seed %d); "
          "cluster sizes %s" % (len(articles), len(docs), len(shares),
                                shares[len(shares) // 2] if shares else 0, args.seed,
                                dict(sorted(sizes.items()))), file=sys.stderr)


if __name__ == "__main__":
    main()
