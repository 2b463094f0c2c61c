# SPDX-License-Identifier: Apache-2.0
"""The Python examples run as written, and the README and docs/python.md show
them verbatim: the quick start (README), dedup of a JSONL in chunks and
clustering on Dask (a LocalCluster in this process)."""
import collections
import json
import os
import re
import subprocess
import sys

import pytest

import neardup
from conftest import make_corpus, write_jsonl

SOURCE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(SOURCE, "examples", "python")
sys.path.insert(0, EXAMPLES)


def run_example(name, *args):
    env = dict(os.environ)
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p


def code_blocks(doc):
    """The ```python blocks of a Markdown file that follow an
    <!-- example: NAME --> marker, by NAME."""
    text = open(os.path.join(SOURCE, doc), encoding="utf-8").read()
    return dict(re.findall(r"<!-- example: (\S+) -->\s*```python\n(.*?)```", text, re.S))


def test_docs_show_the_examples_verbatim():
    readme = code_blocks("README.md")
    docs = code_blocks("docs/python.md")
    assert set(readme) == {"quickstart.py"}
    assert set(docs) >= {"quickstart.py", "dedup_jsonl_chunks.py", "dask_minhash.py"}
    for name, block in list(readme.items()) + list(docs.items()):
        source = open(os.path.join(EXAMPLES, name), encoding="utf-8").read()
        spdx = "# SPDX-License-Identifier: Apache-2.0\n"
        assert source.startswith(spdx)
        assert block == source[len(spdx):], name  # shown without the license line


def test_quickstart_prints_what_it_says():
    lines = run_example("quickstart.py").stdout.splitlines()
    assert lines[0] == "True a 2"
    assert lines[1].startswith("[Match(id='b'")
    assert lines[2] == "a"
    assert lines[3] == "[0, 0, 2] [True, False, True]"
    assert lines[4] == "['a b c d e f g h', 'something else entirely']"


def test_dedup_jsonl_in_chunks(tmp_path):
    records = make_corpus()
    src = write_jsonl(tmp_path / "in.jsonl", records)
    run_example("dedup_jsonl_chunks.py", src, str(tmp_path / "out.jsonl"))
    out = open(tmp_path / "out.jsonl", encoding="utf-8").read()
    import dedup_jsonl_chunks
    kept, dropped = dedup_jsonl_chunks.dedup_jsonl(src, str(tmp_path / "small.jsonl"), 7)
    assert open(tmp_path / "small.jsonl", encoding="utf-8").read() == out  # any chunk size
    engine = neardup.Engine()
    engine.add_many((r["id"], r["text"]) for r in records)
    assert kept == engine.stats().clusters and kept + dropped == len(records) and dropped > 0
    lines = open(src, encoding="utf-8").read().splitlines(keepends=True)
    assert [l for l in lines if l in out] == out.splitlines(keepends=True)  # input order


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # tornado under distributed 2022.12
def test_dask_example_on_a_local_cluster():
    dask_bag = pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("dask.distributed")
    import dask_minhash
    records = make_corpus()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as lc, distributed.Client(lc):
        got = dask_minhash.cluster(dask_bag.from_sequence(records, npartitions=4))
    # The same computation without Dask.
    bands = collections.defaultdict(set)
    for key, id_ in dask_minhash.band_keys(records):
        bands[key].add(id_)
    groups = sorted(tuple(sorted(g)) for g in {frozenset(g) for g in bands.values() if len(g) > 1})
    want = neardup.cluster_groups(groups, [(r["id"], r["text"]) for r in records],
                                  verify="similarity", threshold=0.6)

    def by_id(c):
        return {m: (c.ids[c.cluster[i]], c.ids[c.kept[i]], c.cluster_size[i])
                for i, m in enumerate(c.ids)}
    assert by_id(got) == by_id(want)
    assert sum(1 for i, k in enumerate(got.kept) if k != i) > 50  # duplicates were found
    # Its clusters agree with the batch dedup's on this corpus of clean families.
    labels = neardup.dedup(records)
    position = {str(r["id"]): i for i, r in enumerate(records)}
    same = sum(labels.cluster[position[m]] == labels.cluster[position[c]]
               for m, (c, _, _) in by_id(got).items())
    assert same >= 0.95 * len(got.ids)
