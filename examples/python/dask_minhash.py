# SPDX-License-Identifier: Apache-2.0
"""Near-duplicate clustering on Dask: sketch the partitions in parallel with
map_partitions (neardup's own MinHash), group the records that share an LSH
band, then verify and cluster those candidate groups with neardup.

usage: python3 dask_minhash.py 'articles-*.jsonl'   (records {"id", "text"})
Runs on a LocalCluster; give Client() a scheduler address for a real cluster.
"""
import functools
import json
import sys

import dask.bag as db
from dask.distributed import Client, LocalCluster

import neardup

BANDS, ROWS = 32, 4  # 128 permutations; a pair of Jaccard 0.6 shares a band with p = 0.99


@functools.cache
def pipeline():  # one per worker process
    return neardup.Pipeline(num_perm=BANDS * ROWS)


def band_keys(records):
    """(band key, id) for every LSH band of every record of a partition (ids as
    str, as neardup keeps them)."""
    records = list(records)
    signatures = pipeline().minhash_many([r["text"] for r in records])  # GIL released
    return [((band, *sig[band * ROWS:(band + 1) * ROWS]), str(r["id"]))
            for r, sig in zip(records, signatures) for band in range(BANDS)]


def candidate_groups(records):
    """Sorted id lists of the records that share a band (two or more)."""
    folded = records.map_partitions(band_keys).foldby(
        key=lambda kv: kv[0], binop=lambda ids, kv: ids + [kv[1]], initial=[],
        combine=lambda a, b: a + b, combine_initial=[])
    return (folded.map(lambda kv: tuple(sorted(set(kv[1]))))
            .filter(lambda ids: len(ids) > 1).distinct())


def cluster(records, threshold=0.6):
    """neardup.GroupClusters of a bag of records: pairs verified like the engine's
    default (shingle Jaccard, edit similarity for short texts) at `threshold`."""
    groups = sorted(candidate_groups(records).compute())
    wanted = {i for group in groups for i in group}
    texts = records.map(lambda r: (str(r["id"]), r["text"])).filter(lambda t: t[0] in wanted)
    return neardup.cluster_groups(groups, texts.compute(), verify="similarity",
                                  threshold=threshold)


if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as lc, Client(lc):
        result = cluster(db.read_text(sys.argv[1]).map(json.loads))
    for i, member in enumerate(result.ids):
        if result.kept[i] != i:
            print(f"{member} duplicates {result.ids[result.kept[i]]}")
