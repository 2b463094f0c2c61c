#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "reprint" dataset: real modern Chinese prose, reprinted with the edits
news sites make. Truth is by construction (each cluster = one source article).

Source prose: the Simplified pages of Debian's manpages-zh (the text roff.py extracts).
An article is the first paragraphs of one page that are mostly Han (>= 50%), >= 30
characters, and not shared with any other page (boilerplate such as "report bugs to"
is dropped); it needs >= 3 such paragraphs and >= 200 Han characters, and an article
whose character-3-gram Jaccard with an earlier one is >= 0.2 is skipped, so distinct
clusters really are distinct.

Cluster sizes are heavy-tailed (Pareto, alpha 1.1, capped at 60): most articles appear
once or twice, a few are reprinted dozens of times. Each reprint applies, independently:
  new headline (p=.5), "来源：" line (p=.5), ad paragraph (p=.3), 1-5 characters
  changed (p=.6), 1-2 sentences deleted (p=.4), paragraphs shuffled (p=.2),
  conversion to Traditional with OpenCC's STCharacters table (p=.25).
Documents are written in a seeded random order.
Usage: reprint.py OUT_DIR DATA_DIR [--seed N] [--man-root /usr/share/man] [--articles N]
Writes OUT_DIR/reprint.jsonl ({"id","text"}) and OUT_DIR/reprint_labels.jsonl.
"""
import argparse
import collections
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import manpages  # noqa: E402

from opencc_chars import load_char_table

HAN = re.compile(r"[\u3400-\u9fff]")
OUTLETS = ["新华网", "人民网", "澎湃新闻", "科技日报", "中关村在线", "开源中国", "IT之家",
           "极客公园", "网易科技", "新浪科技", "腾讯新闻", "今日头条", "知乎专栏", "CSDN博客"]
ADS = ["扫描下方二维码，关注我们的公众号，获取更多精彩内容。",
       "【广告】限时优惠！云服务器新用户首年只要九十九元，点击链接立即抢购。",
       "本文由作者授权转载，如需转载请联系原作者。欢迎点赞、评论和分享。",
       "更多技术干货，请下载我们的客户端，每天推送最新资讯。",
       "责任编辑：王小明　校对：李华"]
HEADLINES = ["重磅！", "干货分享：", "最新消息：", "转载：", "收藏！", "深度解读：", ""]


def han_count(s):
    return len(HAN.findall(s))


def grams(text):
    t = "".join(HAN.findall(text))
    return {t[i:i + 3] for i in range(len(t) - 2)}


def load_articles(man_root, limit=None):
    pages = manpages.pages(man_root, "zh_CN")
    paras = {}
    for page in sorted(pages):
        text, stub = manpages.read_text(pages[page])
        if stub:
            continue
        paras[page] = [p.strip() for p in text.split("\n\n")
                       if len(p.strip()) >= 30 and han_count(p) >= 0.5 * len(p.strip())]
    seen = collections.Counter(p for ps in paras.values() for p in set(ps))
    articles, kept_grams = [], []
    for page, ps in paras.items():
        body = [p for p in ps if seen[p] == 1][:8]
        if len(body) < 3 or sum(han_count(p) for p in body) < 200:
            continue
        g = grams("".join(body))
        if any(len(g & h) >= 0.2 * len(g | h) for h in kept_grams):
            continue
        kept_grams.append(g)
        articles.append((page, body))
        if limit is not None and len(articles) >= limit:
            break
    return articles


def sentences(para):
    return [s for s in re.split(r"(?<=[。！？；])", para) if s]


def reprint(rng, body, s2t):
    paras = list(body)
    if rng.random() < 0.4:  # delete sentences
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(paras))
            ss = sentences(paras[i])
            if len(ss) > 1:
                del ss[rng.randrange(len(ss))]
                paras[i] = "".join(ss)
    if rng.random() < 0.6:  # change a few characters
        for _ in range(rng.randint(1, 5)):
            i = rng.randrange(len(paras))
            pos = [m.start() for m in HAN.finditer(paras[i])]
            if pos:
                p = rng.choice(pos)
                pool = HAN.findall("".join(body))
                paras[i] = paras[i][:p] + rng.choice(pool) + paras[i][p + 1:]
    if rng.random() < 0.2:
        rng.shuffle(paras)
    if rng.random() < 0.3:
        paras.insert(rng.randint(1, len(paras)), rng.choice(ADS))
    if rng.random() < 0.5:
        line = "来源：" + rng.choice(OUTLETS)
        if rng.random() < 0.5:
            paras.insert(0, line)
        else:
            paras.append(line)
    if rng.random() < 0.5:
        first = HAN.findall(body[0])
        start = rng.randrange(max(1, len(first) - 12))
        paras.insert(0, rng.choice(HEADLINES) + "".join(first[start:start + rng.randint(6, 12)]))
    text = "\n\n".join(paras)
    if rng.random() < 0.25:
        text = "".join(s2t.get(c, c) for c in text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("data_dir")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--man-root", default="/usr/share/man")
    ap.add_argument("--articles", type=int, help="only the first N articles (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    s2t = load_char_table(args.data_dir, "STCharacters")
    articles = load_articles(args.man_root, args.articles)
    docs = []
    for c, (page, body) in enumerate(articles):
        size = min(60, int(rng.paretovariate(1.1)))
        docs.append(("c%04d" % c, "\n\n".join(body)))
        for _ in range(size - 1):
            docs.append(("c%04d" % c, reprint(rng, body, s2t)))
    rng.shuffle(docs)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "reprint.jsonl"), "w", encoding="utf-8") as corpus, \
         open(os.path.join(args.out_dir, "reprint_labels.jsonl"), "w", encoding="utf-8") as labels:
        for i, (cluster, text) in enumerate(docs):
            doc_id = "r%05d" % i
            corpus.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")
            labels.write(json.dumps({"id": doc_id, "cluster": cluster}) + "\n")
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    print("reprint: %d articles, %d documents (seed %d); cluster sizes %s" %
          (len(articles), len(docs), args.seed, dict(sorted(sizes.items()))), file=sys.stderr)


if __name__ == "__main__":
    main()
