#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Python API speed in one run (docs/python.md, "Speed"; docs/benchmarks.md):

  * Engine.add_many against Engine::AddBatch in C++ (bench/add_batch_bench.cc)
    on the same 2 KB texts: the binding's overhead;
  * neardup.minhash and Pipeline.minhash_many against a pure-Python MinHash
    with the same parameters (128 permutations over the character 3-grams,
    LSH bands of 4 rows), the floor a Python user would otherwise write;
  * neardup.dedup against the CLI's `neardup dedup` on the same records.

The corpus: Tang poems joined into ~2 KB documents, each with 0-3 reprints (a
changed character, a dropped sentence, a tag line), as bench/batch_dedup_bench.cc.
Repetitions alternate C++ and Python runs; the best of each is reported.

usage: PYTHONPATH=build/python python3 bench/python_bench.py BUILD_DIR [--docs N] [--reps N]
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

import neardup


def chinese_docs(data_dir, doc_bytes, max_docs):
    docs, cur = [], ""
    folder = os.path.join(data_dir, "chinese-poetry", "dist", "quantangshi")
    for i in range(0, 58000, 1000):
        path = os.path.join(folder, "poet.tang.%d.json" % i)
        if not os.path.exists(path):
            break
        for poem in json.load(open(path, encoding="utf-8")):
            cur += "".join(poem["paragraphs"])
            if len(cur.encode()) >= doc_bytes:
                docs.append(cur)
                cur = ""
                if len(docs) >= max_docs:
                    return docs
    return docs


def corpus(data_dir, max_docs):
    rng = random.Random(1)
    records = []
    for doc in chinese_docs(data_dir, 2048, max_docs):
        records.append(doc)
        for _ in range(rng.randint(0, 3)):
            kind = rng.randint(0, 2)
            if kind == 0:
                i = rng.randrange(len(doc))
                copy = doc[:i] + "的" + doc[i + 1:]
            elif kind == 1:
                cut = doc.find("。", rng.randrange(len(doc) // 2))
                copy = doc[:cut] + doc[doc.find("。", cut + 1) + 1:] if cut >= 0 else doc
            else:
                copy = doc + "（转载自新华网）"
            records.append(copy)
    return [{"id": "d%d" % i, "text": t} for i, t in enumerate(records)]


# --- the pure-Python floor: MinHash over character 3-grams, LSH bands ---
MERSENNE = (1 << 61) - 1


def pure_python_params(num_perm, seed=1):
    rng = random.Random(seed)
    return [(rng.randrange(1, MERSENNE), rng.randrange(0, MERSENNE)) for _ in range(num_perm)]


def pure_python_minhash(text, params):
    hashes = {int.from_bytes(hashlib.blake2b(text[i:i + 3].encode(), digest_size=8).digest(),
                             "little") for i in range(max(1, len(text) - 2))}
    return [min((a * h + b) % MERSENNE for h in hashes) & 0xFFFFFFFF for a, b in params]


def pure_python_index(texts, params, rows=4):
    buckets = {}
    for n, text in enumerate(texts):
        sig = pure_python_minhash(text, params)
        for band in range(len(sig) // rows):
            buckets.setdefault((band, *sig[band * rows:(band + 1) * rows]), []).append(n)
    return buckets


def best(times):
    return min(times)


def cpp_add_batch(build, path, threads, reps, signals):
    args = [os.path.join(build, "bench", "add_batch_bench"), path, "--threads", str(threads),
            "--reps", str(reps)] + (["--signals", signals] if signals else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def py_add_many(docs, threads, signals):
    # Fresh str objects, as from json.loads: their UTF-8 form is not cached yet.
    docs = [(i, t.encode().decode()) for i, t in docs]
    engine = neardup.Engine(threads=threads, signals=signals)
    cpu, wall = time.process_time(), time.perf_counter()
    results = engine.add_many(docs)
    return time.perf_counter() - wall, time.process_time() - cpu, sum(r.duplicate for r in results)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--docs", type=int, default=4000, help="original documents (plus reprints)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--pure-docs", type=int, default=100, help="documents for pure Python")
    args = ap.parse_args()
    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    data_dir = os.environ.get("NEARDUP_DATA_DIR", os.path.join(source, "data"))
    records = corpus(data_dir, args.docs)
    tmp = tempfile.mkdtemp(prefix="neardup_pybench_")
    path = os.path.join(tmp, "corpus.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    docs = [(r["id"], r["text"]) for r in records]
    texts = [r["text"] for r in records]
    n = len(docs)
    mean_bytes = sum(len(t.encode()) for t in texts) / n
    out = {"documents": n, "mean_bytes": round(mean_bytes), "load": os.getloadavg()[0],
           "cpus": os.cpu_count()}
    print("corpus: %d documents, %.0f bytes each on average; load %.2f" % (
        n, mean_bytes, out["load"]), file=sys.stderr)

    # 1. add_many vs AddBatch, alternating: one thread, every core, and the
    # cheapest pipeline (the exact signal only), where conversion weighs most.
    for threads, signals in ((1, None), (0, None), (1, "exact")):
        cpp_wall, cpp_cpu, py_wall, py_cpu = [], [], [], []
        for _ in range(args.reps):
            c = cpp_add_batch(args.build, path, threads, 1, signals)
            cpp_wall += c["wall_s"]
            cpp_cpu += c["cpu_s"]
            w, u, dups = py_add_many(docs, threads, signals)
            assert dups == c["duplicates"], (dups, c["duplicates"])
            py_wall.append(w)
            py_cpu.append(u)
        key = "threads_%s" % (threads or "all") + ("_" + signals if signals else "")
        # Paired ratios (each Python run against the C++ run just before it):
        # their median is robust to the load changing between pairs.
        ratios = sorted(p / c for p, c in zip(py_cpu, cpp_cpu))
        out[key] = {
            "cpp_docs_per_s": n / best(cpp_wall), "py_docs_per_s": n / best(py_wall),
            "overhead_wall_best": best(py_wall) / best(cpp_wall) - 1,
            "overhead_cpu_best": best(py_cpu) / best(cpp_cpu) - 1,
            "overhead_cpu_median_pair": ratios[len(ratios) // 2] - 1,
            "overhead_cpu_pairs": [round(r - 1, 3) for r in ratios],
            "cpp_cpu_us_per_doc": 1e6 * best(cpp_cpu) / n,
            "duplicates": dups}
        print("add_many %s: C++ %.0f docs/s, Python %.0f docs/s (best wall); overhead "
              "%+.1f%% wall, %+.1f%% CPU (best), %+.1f%% CPU (median of %d pairs, %+.1f%% .. "
              "%+.1f%%)" % (key, out[key]["cpp_docs_per_s"], out[key]["py_docs_per_s"],
                            100 * out[key]["overhead_wall_best"],
                            100 * out[key]["overhead_cpu_best"],
                            100 * out[key]["overhead_cpu_median_pair"], len(ratios),
                            100 * (ratios[0] - 1), 100 * (ratios[-1] - 1)), file=sys.stderr)

    # 1b. The binding's own cost per document: tiny texts through the exact
    # signal, where the engine does almost nothing, so the difference of
    # CPU times is the conversion of items and results.
    tiny = [("t%d" % i, "短文 %d" % i) for i in range(100_000)]
    tiny_path = os.path.join(tmp, "tiny.jsonl")
    with open(tiny_path, "w", encoding="utf-8") as f:
        for i, t in tiny:
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
    cpp_cpu, py_cpu = [], []
    for _ in range(args.reps):
        cpp_cpu += cpp_add_batch(args.build, tiny_path, 1, 1, "exact")["cpu_s"]
        py_cpu.append(py_add_many(tiny, 1, "exact")[1])
    per_doc = sorted(1e6 * (p - c) / len(tiny) for p, c in zip(py_cpu, cpp_cpu))
    us_2k = out["threads_1"]["cpp_cpu_us_per_doc"]
    out["binding_us_per_doc"] = {"median": per_doc[len(per_doc) // 2], "pairs": per_doc,
                                 "cpp_us_per_2k_doc": us_2k,
                                 "estimated_overhead_2k": per_doc[len(per_doc) // 2] / us_2k}
    print("binding cost: %.2f us/doc (median of %d pairs, %.2f .. %.2f) on tiny texts; C++ "
          "takes %.0f us of CPU per 2 KB document, so about %.1f%%" % (
              per_doc[len(per_doc) // 2], len(per_doc), per_doc[0], per_doc[-1], us_2k,
              100 * per_doc[len(per_doc) // 2] / us_2k), file=sys.stderr)

    # 2. Sketching: neardup.minhash vs the pure-Python floor.
    params = pure_python_params(128)
    sub = texts[:args.pure_docs]
    t = time.perf_counter()
    pure_python_index(sub, params)
    pure = len(sub) / (time.perf_counter() - t)
    t = time.perf_counter()
    for text in texts:
        neardup.minhash(text)
    one = n / (time.perf_counter() - t)
    pipeline = neardup.Pipeline()
    many = []
    for _ in range(3):
        t = time.perf_counter()
        pipeline.minhash_many(texts)
        many.append(time.perf_counter() - t)
    out["minhash"] = {"pure_python_docs_per_s": pure, "neardup_minhash_docs_per_s": one,
                      "minhash_many_docs_per_s": n / best(many)}
    print("MinHash: pure Python %.1f docs/s, neardup.minhash %.0f docs/s (%.0fx), "
          "minhash_many %.0f docs/s (%.0fx)" % (pure, one, one / pure, n / best(many),
                                                n / best(many) / pure), file=sys.stderr)
    out["add_many_vs_pure_python"] = out["threads_all"]["py_docs_per_s"] / pure

    # 3. Batch dedup: neardup.dedup vs the CLI (whole process).
    cli, py = [], []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([os.path.join(args.build, "neardup"), "dedup", path, "-q", "-o",
                        os.path.join(tmp, "labels.jsonl")], check=True)
        cli.append(time.perf_counter() - t)
        t = time.perf_counter()
        neardup.dedup(records)
        py.append(time.perf_counter() - t)
    out["dedup"] = {"cli_docs_per_s": n / best(cli), "py_docs_per_s": n / best(py),
                    "py_over_cli": best(py) / best(cli)}
    print("dedup: CLI %.0f docs/s, neardup.dedup %.0f docs/s (time ratio %.2f)" % (
        n / best(cli), n / best(py), best(py) / best(cli)), file=sys.stderr)
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out))
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
