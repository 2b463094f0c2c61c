# SPDX-License-Identifier: Apache-2.0
"""neardup.dedup, fingerprint and explain give what the CLI gives on the same
records with the same options (both run the library's batch pipeline)."""
import json

import pytest

import neardup
from conftest import run_cli, write_jsonl

# (Python keyword options, the same options as CLI flags)
CASES = [
    ({}, []),
    ({"keep": "smallest-id"}, ["--keep", "smallest-id"]),
    ({"keep": "longest", "threshold": 0.8}, ["--keep", "longest", "--threshold", "0.8"]),
    ({"profile": "zh-short"}, ["--profile", "zh-short"]),
    ({"profile": "qbank"}, ["--profile", "qbank"]),
    ({"profile": "simhash", "max_distance": 6}, ["--profile", "simhash", "-k", "6"]),
    ({"profile": "zh-news"}, ["--profile", "zh-news"]),
    ({"signals": "exact,minhash,simhash", "verify": "jaccard", "shingles": "char:4"},
     ["--signals", "exact,minhash,simhash", "--verify", "jaccard", "--shingles", "char:4"]),
    ({"max_cluster_size": 2, "threads": 1}, ["--max-cluster-size", "2", "-j", "1"]),
    ({"memory": "1M"}, ["--memory", "1M"]),
]


def labels_from_cli(lines, records):
    """The CLI's --emit all lines as DedupLabels-like lists of positions."""
    pos = {json.dumps(r["id"]): i for i, r in enumerate(records)}
    assert [json.dumps(line["id"]) for line in lines] == [json.dumps(r["id"]) for r in records]
    cluster = [pos[json.dumps(line["cluster"])] for line in lines]
    size = [line["cluster_size"] for line in lines]
    kept = [i if line["duplicate_of"] is None else pos[json.dumps(line["duplicate_of"])]
            for i, line in enumerate(lines)]
    return cluster, size, kept


@pytest.mark.parametrize("options,flags", CASES, ids=[" ".join(f) or "default" for _, f in CASES])
def test_dedup_labels_match_cli(cli, corpus, tmp_path, options, flags):
    path = write_jsonl(tmp_path / "c.jsonl", corpus)
    lines = run_cli(cli, ["dedup", path, "-q"] + flags)
    cluster, size, kept = labels_from_cli(lines, corpus)
    got = neardup.dedup(corpus, **options)
    assert got.cluster == cluster
    assert got.cluster_size == size
    assert got.kept == kept
    assert got.is_kept == [k == i for i, k in enumerate(kept)]
    assert got.skipped == []
    # The corpus has near-duplicates, so the comparison is not vacuous.
    assert max(size) > 1 and sum(got.is_kept) < len(corpus)


def test_unique_and_clusters_match_cli(cli, corpus, tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", corpus)
    unique = run_cli(cli, ["dedup", path, "-q", "--emit", "unique"])
    assert neardup.dedup(corpus, emit="unique") == unique
    pos = {json.dumps(r["id"]): i for i, r in enumerate(corpus)}
    want = [(pos[json.dumps(c["cluster"])], c["size"], pos[json.dumps(c["kept"])],
             [pos[json.dumps(m)] for m in c["members"]])
            for c in run_cli(cli, ["dedup", path, "-q", "--emit", "clusters"])]
    got = [tuple(c) for c in neardup.dedup(corpus, emit="clusters")]
    assert got == want and len(want) > 10


def test_texts_and_pairs_match_cli(cli, corpus, tmp_path):
    # Records without ids: the CLI's ids are line numbers, as dedup's.
    path = write_jsonl(tmp_path / "t.jsonl", [{"text": r["text"]} for r in corpus])
    lines = run_cli(cli, ["dedup", path, "-q", "--keep", "longest"])
    texts = [r["text"] for r in corpus]
    got = neardup.dedup(texts, keep="longest")
    assert got.cluster == [line["cluster"] - 1 for line in lines]
    pairs = [(r["id"], r["text"]) for r in corpus]
    assert neardup.dedup(pairs) == neardup.dedup(corpus)


def test_fields_and_skip_invalid_match_cli(cli, corpus, tmp_path):
    records = [{"key": r["id"], "body": r["text"]} for r in corpus]
    records[3] = {"key": "bad", "other": "no body"}
    path = write_jsonl(tmp_path / "f.jsonl", records)
    lines = run_cli(cli, ["dedup", path, "-q", "--text-field", "body", "--id-field", "key",
                          "--skip-invalid"])
    got = neardup.dedup(records, text_field="body", id_field="key", skip_invalid=True)
    assert got.skipped == [3]
    valid = [i for i in range(len(records)) if i != 3]
    pos = {json.dumps(records[i]["key"]): i for i in valid}
    assert [got.cluster[i] for i in valid] == [pos[json.dumps(l["cluster"])] for l in lines]
    # Ill-formed UTF-8 (bytes) is skipped by the library: listed too.
    bad = list(records)
    bad[5] = {"key": "b5", "body": b"\xff\xfe"}
    assert neardup.dedup(bad, text_field="body", id_field="key", skip_invalid=True).skipped \
        == [3, 5]
    with pytest.raises(ValueError, match="record 3: missing field 'body'"):
        neardup.dedup(records, text_field="body", id_field="key")


def test_fingerprints_match_cli(cli, corpus, tmp_path):
    for profile in ["default", "simhash", "zh-news"]:
        path = write_jsonl(tmp_path / "p.jsonl", corpus)
        lines = run_cli(cli, ["fingerprint", path, "--profile", profile])
        pipeline = neardup.Pipeline(profile)
        for r, line in zip(corpus, lines):
            assert "%016x" % neardup.fingerprint(r["text"], profile=profile) == line["simhash"]
            assert pipeline.fingerprint(r["text"]) == int(line["simhash"], 16)


def test_explain_matches_cli(cli, corpus):
    a, b = corpus[0]["text"], corpus[1]["text"]
    want = run_cli(cli, ["explain", "--text", "--json", a, a + "。"], code=0)[0]
    got = neardup.explain(a, a + "。")
    assert got.duplicate and got.similarity == pytest.approx(want["similarity"])
    want = run_cli(cli, ["explain", "--text", "--json", "--profile", "zh-short", a, b], code=3)[0]
    got = neardup.explain(a, b, profile="zh-short")
    assert not got.duplicate
    assert got.jaccard == pytest.approx(want["jaccard"])
    assert got.shared_shingles == want["shared_shingles"]
