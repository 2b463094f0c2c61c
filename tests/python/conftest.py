# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the Python module's tests (tests/python.cmake runs them
with PYTHONPATH at the built module and NEARDUP_CLI at the neardup binary)."""
import json
import os
import random
import subprocess

import pytest

HAN = ("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
       "对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面"
       "公同三已老从动两长")
WORDS = ("the quick brown fox jumps over lazy dog market report city council vote budget school "
         "water river bridge storm weather minister police court trial energy price").split()


def make_corpus(families=120, seed=7):
    """Records {"id", "text"}: families of near-duplicates (one character or word
    changed, punctuation changed, Traditional script), hard negatives (another
    number) and singletons, in Chinese, English and both."""
    rng = random.Random(seed)
    records = []
    for f in range(families):
        kind = f % 3
        if kind == 0:
            base = "".join(rng.choice(HAN) for _ in range(rng.randint(20, 120)))
        elif kind == 1:
            base = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 60)))
        else:
            base = "".join(rng.choice(HAN) for _ in range(rng.randint(10, 40))) + " " + \
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 20)))
        number = rng.randint(1, 999)
        for c in range(rng.randint(1, 5)):
            t = list(base)
            for _ in range(c % 3):
                t[rng.randrange(len(t))] = rng.choice(HAN) if kind != 1 else rng.choice("abcdefg ")
            text = "".join(t) + " %d" % (number + (1 if c == 4 else 0))
            if c == 2:
                text = text.replace("这", "這").replace("说", "說").replace("国", "國")
            records.append(text)
    rng.shuffle(records)
    ids = rng.sample(range(1, 10 * len(records)), len(records))
    out = []
    for i, (id_, text) in enumerate(zip(ids, records)):
        out.append({"id": id_ if i % 4 else "doc-%d" % id_, "text": text})
    return out


@pytest.fixture(scope="session")
def corpus():
    return make_corpus()


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("NEARDUP_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("NEARDUP_CLI is not set to the neardup binary")
    return path


def run_cli(cli, args, stdin=None, code=0):
    p = subprocess.run([cli] + args, input=stdin, capture_output=True, text=True)
    assert p.returncode == code, "exit %d for %s: %s" % (p.returncode, args, p.stderr)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return str(path)
