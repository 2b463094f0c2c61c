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
import json
import math
import multiprocessing
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qbank_pools import Pools  # noqa: E402
from qbank_templates import fresh, mutate, near_duplicate, render  # noqa: E402

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
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
