# SPDX-License-Identifier: Apache-2.0
"""Templates and edits of the question-bank generator (qbank.py).

A question is a list [template, slot, ...]; fresh() fills one from a draw function d
(d(n) returns an integer in [0, n)), render() turns it into text, mutate() changes ONE
critical slot (a number, a letter, an operator or a unit: a hard negative, a different
question) and near_duplicate() renders a copy with 1-2 surface edits (the same
question). Pure functions of their inputs.
"""
import re

HAN = re.compile(r"[\u4e00-\u9fff]")

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
