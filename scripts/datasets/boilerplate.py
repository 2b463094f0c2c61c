#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic "boilerplate" trap (issue 25): unrelated articles that share the
boilerplate of the sites that run them, plus documents that are only boilerplate.
Two unrelated articles must never be merged, however much footer they share. Truth
is by construction.

Articles (sources installed by scripts/setup): the prose paragraphs of manpages-zh
1.6.4.0-1 zh_CN pages (>= 30 characters, >= 50% Han, not shared with another page)
and runs of fortunes-zh 2.98 paragraphs, cut after a paragraph at a random length of
150-1,200 characters. An article whose Han 3-gram containment with an earlier one is
>= 0.15 is skipped.

Sites: 8 sites, each with a fixed footer of 2-4 blocks drawn from a pool of
boilerplate written for this set (a copyright notice, a disclaimer, ad paragraphs, a
follow-us line; 40-115 characters each) and an editor line, several blocks shared
between sites. Every site also puts "来源：<site>" at the top.

Clusters:
  - an article: its first run on one site, and (p=.3) 1-3 reprints on other sites,
    each with that site's header and footer, 1-3 Han characters changed (p=.4) and
    a sentence dropped (p=.3);
  - a site's bare page: the header and footer alone (a page whose extraction found
    no story), 3-12 copies per site; a site's copies form one cluster.
Documents are written in a seeded random order.
Usage: boilerplate.py OUT_DIR [--seed N] [--articles N]
Writes OUT_DIR/boilerplate.jsonl ({"id","text"}) and OUT_DIR/boilerplate_labels.jsonl.
"""
import argparse
import collections
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sources  # noqa: E402
from english import write  # noqa: E402
from excerpt import change_chars, han_grams, manpage_articles, overlaps_kept, sentences  # noqa: E402

HAN = re.compile(r"[\u3400-\u9fff]")
SITES = ["华夏资讯网", "东方快报", "南方晨报网", "北辰科技", "长江日报在线", "西部财经",
         "晨光新闻", "海峡时报网"]
BLOCKS = [
    "版权声明：本网站所刊载的所有内容，包括文字、图片和音视频资料，版权均属本网站所有，"
    "未经书面授权，任何单位和个人不得转载、摘编或以其他方式使用。已经授权的，应在授权范围内"
    "使用，并注明来源。违反上述声明者，本网站将依法追究其法律责任。",
    "免责声明：本文仅代表作者个人观点，与本站无关。其原创性以及文中陈述的文字和内容未经本站"
    "证实，对本文以及其中全部或者部分内容、文字的真实性、完整性和及时性，本站不作任何保证或"
    "承诺，请读者仅作参考，并请自行核实相关内容。",
    "【推广】年终特惠活动正在进行中！即日起至本月底，新用户注册即送三十元代金券，老用户续费"
    "享八折优惠，更有机会抽取智能手机、平板电脑等大奖。详情请点击页面右上角的活动入口，"
    "名额有限，先到先得。",
    "扫描下方二维码，关注我们的官方公众号，第一时间获取最新资讯、深度报道和独家专访。",
    "下载我们的客户端，随时随地阅读精彩内容，订阅你感兴趣的频道，每天早晚两次推送要闻。",
    "如对本文内容有任何疑问或建议，欢迎发送邮件至编辑部信箱，我们将在三个工作日内回复。"
    "投稿请注明姓名、联系方式和稿件类别，一经采用即付稿酬。",
    "本站所有文章、图片仅供学习交流之用，如涉及版权问题，请权利人及时与我们联系，我们将在"
    "核实后第一时间删除。",
    "【广告】专业团队为您量身定制理财方案，稳健收益看得见。投资有风险，入市需谨慎，"
    "过往业绩不代表未来表现，请根据自身情况理性选择。",
    "热门推荐：本周最受欢迎的十篇文章已经为您整理好，点击查看往期精选，发现更多好内容。",
    "网络文化经营许可证编号及互联网新闻信息服务许可证编号详见网站底部，违法和不良信息举报"
    "电话请见联系我们页面。",
]
EDITORS = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨帆", "赵磊", "黄敏"]


def fortune_articles():
    """Runs of consecutive fortunes-zh paragraphs of >= 150 characters."""
    out, cur = [], []
    for p in sources.fortunes_zh_paragraphs():
        if len(HAN.findall(p)) < 0.5 * len(p):
            continue
        cur.append(p)
        if sum(len(q) for q in cur) >= 1200:
            out.append(("fortunes/%d" % len(out), cur))
            cur = []
    return out


def load_articles(rng, man_root, limit):
    articles, kept = [], []
    candidates = manpage_articles(man_root) + fortune_articles()
    for key, paras in candidates:
        goal = rng.randint(150, 1200)
        body, n = [], 0
        for p in paras:
            if n >= goal:
                break
            body.append(p)
            n += len(p)
        if n < 150:
            continue
        if overlaps_kept(han_grams("".join(body)), kept):
            continue
        articles.append((key, body))
        if limit is not None and len(articles) >= limit:
            break
    return articles


def site_pages(rng):
    """{site: (header, footer blocks)}: each site's fixed header and footer."""
    out = {}
    for site in SITES:
        footer = rng.sample(BLOCKS, rng.randint(2, 4))
        footer.append("责任编辑：" + rng.choice(EDITORS))
        out[site] = ("来源：" + site, footer)
    return out


def page(site_page, body):
    header, footer = site_page
    return "\n\n".join([header] + body + footer)


def edit(rng, body):
    paras = list(body)
    if rng.random() < 0.3:
        i = rng.randrange(len(paras))
        ss = sentences(paras[i])
        if len(ss) > 1:
            del ss[rng.randrange(len(ss))]
            paras[i] = "".join(ss)
    if rng.random() < 0.4:
        pool = HAN.findall("".join(body))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(paras))
            paras[i] = change_chars(rng, paras[i], pool, 1)
    return paras


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--man-root", default="/usr/share/man")
    ap.add_argument("--articles", type=int, help="only the first N articles (test slices)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sites = site_pages(rng)
    articles = load_articles(rng, args.man_root, args.articles)
    docs = []
    for c, (_, body) in enumerate(articles):
        cluster = "b%04d" % c
        home = rng.choice(SITES)
        docs.append((cluster, page(sites[home], body)))
        if rng.random() < 0.3:
            for other in rng.sample([s for s in SITES if s != home], rng.randint(1, 3)):
                docs.append((cluster, page(sites[other], edit(rng, body))))
    for s, site in enumerate(SITES):
        for _ in range(rng.randint(3, 12)):
            docs.append(("site%d" % s, page(sites[site], [])))
    rng.shuffle(docs)
    write(args.out_dir, "boilerplate", "b", docs)
    sizes = collections.Counter(collections.Counter(c for c, _ in docs).values())
    print("boilerplate: %d articles, %d documents (seed %d); cluster sizes %s" %
          (len(articles), len(docs), args.seed, dict(sorted(sizes.items()))), file=sys.stderr)


if __name__ == "__main__":
    main()
