#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Question-bank corpus: short exam-style Chinese questions built from real sentences,
with seeded near-duplicates and hard negatives. Used two ways:
  - scripts/bench/qbank_corpus N [--seed S] [-o FILE]: N records for benchmarks
    (streaming, constant memory, all cores, ~250 bytes a record);
  - scripts/datasets/build: the "questions" quality set (questions.jsonl and
    questions_labels.jsonl), the same generator with --labels.

Method. Every record i is a pure function of (seed, i), so output is byte-identical
for the same N and seed whatever the number of worker processes, and records can be
produced in parallel chunks with no shared state:
  - kind(i): an original question (p=.62), a near-duplicate of an earlier record
    (p=.25) or a hard negative of one (p=.13); record 0 is an original. The earlier
    record is i-d with d log-uniform in [1, i], so copies sit both near and far apart.
  - An original fills one of six templates (a system of equations, speed and time,
    force and mass, percentages, "the n-th character of which verse", "what does
    command X -f N do") with real sentences, verse couplets, clauses and command
    names (sources below) and numbers, variable letters, operators and units.
  - A hard negative is the question of its target with ONE number, letter, operator
    or unit changed: a different question, its own cluster (and later records may
    copy it).
  - A near-duplicate is its target's question (the original behind a chain of
    copies) with 1-2 of: a typo (one Han character replaced), full-width ASCII,
    an inserted or removed space/punctuation mark, ASCII punctuation, a Traditional
    copy (OpenCC STCharacters), the option list reordered (choice templates).
    It belongs to its original's cluster.
Labels (--labels): {"id":i,"cluster":c}, c = the id of the original (or hard
negative) the record derives from. With --merge-identical (the quality set) two
clusters whose clean question texts are identical are merged (smallest id wins);
the stream mode skips that check (it would need memory).

Sources (pinned, installed by scripts/setup): modern sentences and clauses from
fortunes-zh 2.98 (`chinese`), Debian Reference zh-cn 2.100 and the zh_CN pages of
manpages-zh 1.6.4.0-1; verse couplets of chinese-poetry 2.0.1 quantangshi (folded to
Simplified); command names from manpages-zh. Pools are deduplicated (and sentences
sharing their first or last 8 Han characters dropped), so distinct originals differ.
"""
import argparse
import collections
import glob
import json
import math
import multiprocessing
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import manpages  # noqa: E402
import sources  # noqa: E402
from opencc_chars import load_char_table  # noqa: E402

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
HAN = re.compile(r"[\u4e00-\u9fff]")
BAD = re.compile(r'["\\{}\x00-\x1f\x7f\u2028\u2029]')
ORIG, VAR, HN = 0, 1, 2
P_VAR, P_HN = 250, 130  # per mille


def mix(x):
    """SplitMix64's finalizer: a 64-bit hash of x."""
    x = (x + GOLDEN) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


class Draw:
    """A counter-based stream of bounded integers from one 64-bit key."""
    __slots__ = ("s", "x")

    def __init__(self, key):
        self.s = key & MASK
        self.x = mix(self.s)

    def __call__(self, n):
        x = self.x
        if x < (n << 24):
            self.s = (self.s + GOLDEN) & MASK
            x = (x << 64) | mix(self.s)
        self.x = x // n
        return x % n

    def pick(self, seq):
        return seq[self(len(seq))]


# ---------------------------------------------------------------- pools

def _han_ratio(s):
    return len(HAN.findall(s)) / max(1, len(s))


def _sentences(paras):
    for p in paras:
        for s in re.split(r"(?<=[。！？；])", p):
            yield s.strip()


def _clauses(paras):
    for p in paras:
        for s in re.split(r"[，。；：、！？,.;:!?（）()“”\s]", p):
            yield s.strip()


class Pools:
    """The real-text material of the templates, deterministic for pinned sources."""

    def __init__(self, data_dir, man_root="/usr/share/man"):
        paras = sources.fortunes_zh_paragraphs()
        paras += [p for _, _, ps in sources.debref_sections("zh-cn") for p in ps]
        pages = manpages.pages(man_root, "zh_CN")
        for page in sorted(pages):
            text, stub = manpages.read_text(pages[page])
            if not stub:
                paras += [p.strip() for p in text.split("\n\n")]
        self.stems = self._stems(paras)
        self.clauses = self._dedup(c for c in _clauses(paras)
                                   if 6 <= len(c) <= 14 and _han_ratio(c) == 1.0)
        self.couplets = self._couplets(data_dir)
        self.commands = sorted({re.sub(r"\.\w+$", "", os.path.basename(p))
                                for p in pages
                                if re.match(r"man[18]/[a-z][a-z0-9-]{1,11}\.[18]$", p)})
        self.common = sorted({c for s in self.stems for c in HAN.findall(s)})
        self.s2t = {ord(k): v for k, v in load_char_table(data_dir, "STCharacters").items()}

    @staticmethod
    def _dedup(items):
        seen, out = set(), []
        for s in items:
            if s not in seen and not BAD.search(s):
                seen.add(s)
                out.append(s)
        return out

    @staticmethod
    def _stems(paras):
        out, keys = [], set()
        for s in _sentences(paras):
            if not 12 <= len(s) <= 40 or BAD.search(s) or _han_ratio(s) < 0.6:
                continue
            if s[-1] not in "。！？；" or not HAN.match(s[0]) or s.count("“") != s.count("”"):
                continue
            h = "".join(HAN.findall(s))
            k1, k2 = "a" + h[:8], "z" + h[-8:]
            if k1 in keys or k2 in keys:
                continue
            keys.update((k1, k2))
            out.append(s[:-1] + "。" if s[-1] == "；" else s)
        return out

    @staticmethod
    def _couplets(data_dir):
        t2s = load_char_table(data_dir, "TSCharacters")
        base = os.path.join(data_dir, "chinese-poetry", "dist", "quantangshi")
        files = sorted(glob.glob(os.path.join(base, "poet.tang.*.json")),
                       key=lambda f: int(f.rsplit(".", 2)[-2]))
        out, seen = [], set()
        for f in files[:12]:  # ~40k couplets are plenty
            with open(f, encoding="utf-8") as fh:
                for poem in json.load(fh):
                    for line in poem.get("paragraphs", []):
                        m = re.fullmatch(r"([\u4e00-\u9fff]{5}|[\u4e00-\u9fff]{7})，"
                                         r"([\u4e00-\u9fff]{5}|[\u4e00-\u9fff]{7})。", line)
                        if not m or len(m.group(1)) != len(m.group(2)):
                            continue
                        c = "".join(t2s.get(ch, ch) for ch in line[:-1])
                        if c not in seen:
                            seen.add(c)
                            out.append(c)
        return out


# ---------------------------------------------------------------- templates
# A question is (template, slots): slots is a list; render() turns it into text.
# CRITICAL[t] lists the slots a hard negative may change: (index, kind, lo, hi).

VARS = [("x", "y"), ("a", "b"), ("m", "n"), ("p", "q")]
EQ_FRAMES = ["已知 {e1}，{e2}，求 {t} 的值。", "若 {e1} 且 {e2}，则 {t} 等于多少？",
             "解方程组：{e1}，{e2}。求 {t}。", "方程组 {e1}，{e2} 的解中，{t} 是多少？"]
SPEED_FRAMES = ["一辆汽车以 {v} {u} 的速度匀速行驶了 {h} 小时，{s}问汽车共行驶了多少千米？",
                "{s}小明骑车的速度是 {v} {u}，他骑了 {h} 小时，一共骑了多远？",
                "{s}一列火车以 {v} {u} 的速度行驶 {h} 小时，求它行驶的路程。"]
FORCE_FRAMES = ["质量为 {m} {u} 的物体受到 {f} N 的水平拉力，{s}求物体的加速度是多少 m/s²？",
                "{s}一个 {m} {u} 的木块在 {f} N 的推力作用下在光滑水平面上运动，求它的加速度。"]
PCT_FRAMES = ["{s}某校共有学生 {a} 人，其中 {p}% 参加了兴趣小组，参加的学生有多少人？",
              "{s}一本书共 {a} 页，小红已经读了 {p}%，她还剩多少页没有读？"]
VERSE_FRAMES = ["下列诗句中，第 {n} 个字是“{c}”的一项是（ ）。",
                "下列各句中，第 {n} 个字为“{c}”的是哪一项？"]
CMD_FRAMES = ["{s}在 Linux 终端中执行命令 {cmd} -{f} {k} 的作用是（ ）。",
              "{s}关于命令 {cmd} -{f} {k}，下列说法正确的是（ ）。"]
SUFFIXES = ["（写出计算过程）", "（要求写出解题步骤）", "请说明理由。", "（结果保留整数）",
            "（结果保留一位小数）", "（本题满分十分）"]
LETTERS = "abcdefhilnrstuvx"
OPS = "+-"

T_EQ, T_SPEED, T_FORCE, T_PCT, T_VERSE, T_CMD = range(6)
# slots: EQ [stem, stem2, frame, vars, o1, o2, a, b, t, suffix]
#        SPEED [stem, stem2, frame, v, unit, h, suffix]; FORCE [.., m, unit, f, suffix]
#        PCT [stem, stem2, frame, a, p, suffix]; VERSE [frame, n, answer, c1, c2, c3, c4, cpos]
#        CMD [stem, frame, cmd, f, k, o1, o2, o3, o4]
CRITICAL = {
    T_EQ: [(4, "op"), (5, "op"), (6, "num", 2, 99), (7, "num", 2, 99), (8, "flip")],
    T_SPEED: [(3, "num", 10, 120), (4, "flip"), (5, "num", 1, 12)],
    T_FORCE: [(3, "num", 1, 50), (4, "flip"), (5, "num", 1, 200)],
    T_PCT: [(3, "num", 100, 2000), (4, "num", 5, 95)],
    T_VERSE: [(1, "num", 1, 5)],
    T_CMD: [(3, "letter"), (4, "num", 1, 100), (2, "cmd")],
}
CHOICE_SLOTS = {T_VERSE: 3, T_CMD: 5}  # first of the four option slots


def _stem2(d, pools):
    return d(len(pools.stems)) if d(20) < 17 else -1


def fresh(d, pools):
    t = d(6)
    if t == T_EQ:
        o1 = d(2)
        return [t, d(len(pools.stems)), _stem2(d, pools), d(len(EQ_FRAMES)), d(len(VARS)),
                o1, 1 - o1, 2 + d(98), 2 + d(98), d(2), d(len(SUFFIXES))]
    if t == T_SPEED:
        return [t, d(len(pools.stems)), _stem2(d, pools), d(len(SPEED_FRAMES)), 10 + d(111),
                d(2), 1 + d(12), d(len(SUFFIXES))]
    if t == T_FORCE:
        return [t, d(len(pools.stems)), _stem2(d, pools), d(len(FORCE_FRAMES)), 1 + d(50),
                d(2), 1 + d(200), d(len(SUFFIXES))]
    if t == T_PCT:
        return [t, d(len(pools.stems)), _stem2(d, pools), d(len(PCT_FRAMES)), 100 + d(1901),
                5 + d(91), d(len(SUFFIXES))]
    if t == T_VERSE:
        c = [d(len(pools.couplets)) for _ in range(4)]
        n = 1 + d(5)
        return [t, d(len(VERSE_FRAMES)), n, d(4)] + c + [n - 1]
    return [t, d(len(pools.stems)), d(len(CMD_FRAMES)), d(len(pools.commands)),
            d(len(LETTERS)), 1 + d(100)] + [d(len(pools.clauses)) for _ in range(4)]


def mutate(q, d):
    """A hard negative: one critical slot of q changed (q is not modified)."""
    q = list(q)
    crit = CRITICAL[q[0]]
    c = crit[d(len(crit))]
    i = c[0] + 1  # q[0] is the template
    kind = c[1]
    if kind == "num":  # another value in range, usually a close one
        lo, span = c[2], c[3] - c[2] + 1
        delta = 1 + d(min(9, span - 1))
        q[i] = lo + (q[i] - lo + (delta if d(2) else span - delta)) % span
    elif kind in ("op", "flip"):
        q[i] ^= 1
    elif kind == "letter":
        q[i] = (q[i] + 1 + d(len(LETTERS) - 1)) % len(LETTERS)
    else:  # cmd: one letter of the command name replaced
        q[i] = ("lit", q[i][1] if isinstance(q[i], tuple) else q[i], d(1 << 16))
    return q


def _cmd_name(pools, v):
    if isinstance(v, tuple):
        name = pools.commands[v[1]]
        letters = [j for j, ch in enumerate(name) if ch.isalpha()]
        j = letters[v[2] % len(letters)]
        alt = [ch for ch in "abcdefghijklmnopqrstuvwxyz" if ch != name[j]]
        return name[:j] + alt[(v[2] >> 5) % len(alt)] + name[j + 1:]
    return pools.commands[v]


def render(q, pools):
    t = q[0]
    st = pools.stems
    if t == T_VERSE:
        _, fr, n, ans = q[:4]
        lines = [pools.couplets[c] for c in q[4:8]]
        c = lines[ans][q[8]]  # fixed when the question was made: a changed n keeps it
        opts = " ".join("%s．%s" % (l, lines[j]) for j, l in enumerate("ABCD"))
        return VERSE_FRAMES[fr].format(n=n, c=c) + opts
    if t == T_CMD:
        s = st[q[1]]
        head = CMD_FRAMES[q[2]].format(s=s, cmd=_cmd_name(pools, q[3]), f=LETTERS[q[4]], k=q[5])
        opts = " ".join("%s．%s" % (l, pools.clauses[q[6 + j]]) for j, l in enumerate("ABCD"))
        return head + opts
    s = st[q[1]] + (st[q[2]] if q[2] >= 0 else "")
    suffix = SUFFIXES[q[-1]]
    if t == T_EQ:
        x, y = VARS[q[4]]
        e1 = "%s%s%s=%d" % (x, OPS[q[5]], y, q[7])
        e2 = "%s%s%s=%d" % (x, OPS[q[6]], y, q[8])
        return s + EQ_FRAMES[q[3]].format(e1=e1, e2=e2, t=(x, y)[q[9]]) + suffix
    if t == T_SPEED:
        return SPEED_FRAMES[q[3]].format(s=s, v=q[4], u=("km/h", "m/s")[q[5]], h=q[6]) + suffix
    if t == T_FORCE:
        return FORCE_FRAMES[q[3]].format(s=s, m=q[4], u=("kg", "g")[q[5]], f=q[6]) + suffix
    return PCT_FRAMES[q[3]].format(s=s, a=q[4], p=q[5]) + suffix


# ---------------------------------------------------------------- near-duplicate edits

FULL = {c: c + 0xFEE0 for c in range(0x21, 0x7F)}
ASCII_PUNCT = str.maketrans({"，": ",", "。": ".", "？": "?", "：": ":", "（": "(", "）": ")",
                             "．": ".", "；": ";"})
INSERTS = [" ", "，", "、", " ", "　"]


def _typo(text, d, pools):
    for _ in range(8):
        p = d(len(text))
        if HAN.match(text[p]):
            c = pools.common[d(len(pools.common))]
            if c != text[p]:
                return text[:p] + c + text[p + 1:]
    return text


def _spacing(text, d):
    if " " in text and d(2):
        return text.replace(" ", "")
    for _ in range(8):
        p = 1 + d(len(text) - 1)
        if HAN.match(text[p - 1]) or HAN.match(text[p]):
            return text[:p] + INSERTS[d(len(INSERTS))] + text[p:]
    return text + "。"


def near_duplicate(q, d, pools):
    ops = [0, 1, 2, 3, 4, 5]  # typo width spacing punct trad reorder
    weights = [30, 20, 20, 12, 13, 15 if q[0] in CHOICE_SLOTS else 0]
    n = 1 + (d(3) == 0)
    chosen = set()
    while len(chosen) < n:
        r = d(sum(weights))
        for op, w in zip(ops, weights):
            if r < w:
                chosen.add(op)
                break
            r -= w
    if 5 in chosen:
        q = list(q)
        first = CHOICE_SLOTS[q[0]] + 1
        opts = q[first:first + 4]
        perm = [(0, 1, 2, 3), (1, 0, 3, 2), (3, 2, 1, 0), (2, 3, 0, 1), (1, 2, 3, 0),
                (3, 0, 1, 2), (0, 2, 1, 3), (2, 1, 0, 3)][1 + d(7)]
        q[first:first + 4] = [opts[j] for j in perm]
        if q[0] == T_VERSE:  # the answer moves with its option
            q[3] = perm.index(q[3])
    text = render(q, pools)
    if 0 in chosen:
        text = _typo(text, d, pools)
    if 2 in chosen:
        text = _spacing(text, d)
    if 3 in chosen:
        text = text.translate(ASCII_PUNCT)
    if 1 in chosen:
        text = text.translate(FULL)
    if 4 in chosen:
        text = text.translate(pools.s2t)
    return text


# ---------------------------------------------------------------- records

class Generator:
    """Record i of the stream for a seed: text(i) and cluster(i), pure functions."""

    def __init__(self, pools, seed):
        self.pools = pools
        self.key = mix(seed * 0x2545F4914F6CDD1D)

    def _head(self, i):
        """(kind, target) of record i."""
        if i == 0:
            return ORIG, -1
        h = (self.key ^ i) + GOLDEN & MASK  # mix(), inlined: this runs 2-3 times a record
        h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & MASK
        h ^= h >> 31
        r = h % 1000
        if r >= P_VAR + P_HN:
            return ORIG, -1
        u = ((h >> 10) & 0xFFFFFF) / 16777216.0
        d = min(i, int(math.exp(u * math.log(i + 1))))
        return (VAR if r < P_VAR else HN), i - max(1, d)

    def root(self, i):
        """The original or hard negative that record i copies (i itself if none)."""
        return self._root(i, *self._head(i))[0]

    def _root(self, i, kind, j):
        while kind == VAR:
            i = j
            kind, j = self._head(i)
        return i, kind, j

    def question(self, i):
        """The clean question of a non-copy record i (an original or hard negative)."""
        return self._question(i, *self._head(i))

    def _question(self, i, kind, j):
        chain = []
        while kind != ORIG:
            if kind == HN:
                chain.append(i)
            i = j
            kind, j = self._head(i)
        q = fresh(Draw(self.key ^ (i * 0xD1B54A32D192ED03 + 1)), self.pools)
        for k in reversed(chain):
            q = mutate(q, Draw(self.key ^ (k * 0xD1B54A32D192ED03 + 2)))
        return q

    def record(self, i):
        """(text, cluster) of record i."""
        kind, j = self._head(i)
        if kind != VAR:
            return render(self._question(i, kind, j), self.pools), i
        r, kind, j = self._root(j, *self._head(j))
        d = Draw(self.key ^ (i * 0xD1B54A32D192ED03 + 3))
        return near_duplicate(self._question(r, kind, j), d, self.pools), r


# ---------------------------------------------------------------- output

_GEN = None


def _chunk(args):
    start, stop, labels = args
    lines, labs = [], []
    rec = _GEN.record
    for i in range(start, stop):
        text, c = rec(i)
        lines.append('{"id":%d,"text":"%s"}\n' % (i, text))
        if labels:
            labs.append('{"id":%d,"cluster":%d}\n' % (i, c))
    return "".join(lines).encode("utf-8"), "".join(labs).encode("utf-8")


def generate(n, seed, data_dir, out, labels_out=None, jobs=0, chunk=20000, log=None):
    """Writes n records (and labels) to the binary file objects out (labels_out).
    Memory stays constant: at most 2*jobs chunks are in flight."""
    global _GEN
    _GEN = Generator(Pools(data_dir), seed)
    jobs = jobs or os.cpu_count() or 1
    tasks = ((s, min(n, s + chunk), labels_out is not None) for s in range(0, n, chunk))
    if jobs == 1:
        results = map(_chunk, tasks)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = _bounded(pool, tasks, 2 * jobs)
    done = 0
    for body, labs in results:
        out.write(body)
        if labels_out is not None:
            labels_out.write(labs)
        done += body.count(b"\n")
        if log:
            log(done)
    if pool:
        pool.close()
        pool.join()


def _bounded(pool, tasks, depth):
    pending = collections.deque()
    for t in tasks:
        pending.append(pool.apply_async(_chunk, (t,)))
        if len(pending) >= depth:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def merge_identical(corpus_path, labels_path, seed, data_dir):
    """Quality set: clusters whose clean questions render identically become one
    (smallest id). Rewrites labels_path; returns the number of merged clusters."""
    gen = Generator(Pools(data_dir), seed)
    first, remap = {}, {}
    with open(labels_path, encoding="utf-8") as fh:
        labels = [json.loads(l) for l in fh]
    for lab in labels:
        if lab["cluster"] == lab["id"]:
            text = render(gen.question(lab["id"]), gen.pools)
            remap[lab["id"]] = first.setdefault(text, lab["id"])
    with open(labels_path, "w", encoding="utf-8") as fh:
        for lab in labels:
            fh.write('{"id":%d,"cluster":%d}\n' % (lab["id"], remap[lab["cluster"]]))
    return sum(1 for k, v in remap.items() if k != v)


def default_data_dir():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.environ.get("NEARDUP_DATA_DIR", os.path.join(root, "data"))


def main(argv=None, prog=None):
    ap = argparse.ArgumentParser(prog=prog, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, help="number of records")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    ap.add_argument("--labels", help="also write {id,cluster} truth labels here")
    ap.add_argument("--merge-identical", action="store_true",
                    help="with --labels: merge clusters whose clean questions are identical")
    ap.add_argument("-j", "--jobs", type=int, default=0, help="worker processes (0 = all cores)")
    ap.add_argument("--data-dir", default=default_data_dir())
    ap.add_argument("--progress", action="store_true", help="records written, on stderr")
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error("N must be >= 0")
    out = open(args.output, "wb") if args.output else sys.stdout.buffer
    labels = open(args.labels, "wb") if args.labels else None
    log = (lambda k: print("\r%d records" % k, end="", file=sys.stderr)) if args.progress else None
    try:
        generate(args.n, args.seed, args.data_dir, out, labels, args.jobs, log=log)
    finally:
        if args.output:
            out.close()
        if labels:
            labels.close()
    if args.progress:
        print(file=sys.stderr)
    if args.merge_identical and args.labels and args.output:
        merged = merge_identical(args.output, args.labels, args.seed, args.data_dir)
        print("qbank: %d records, %d clusters merged as identical" % (args.n, merged),
              file=sys.stderr)


if __name__ == "__main__":
    main()
