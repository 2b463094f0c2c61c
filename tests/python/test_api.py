# SPDX-License-Identifier: Apache-2.0
"""The Engine, the sketch functions and the result types: behaviour through
the Python API, errors as exceptions, options mapped to the library's."""
import ast
import os
import pickle
import random

import pytest

import neardup

POEM = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
POEM_TW = "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。"
OTHER = "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。"


def test_engine_add_query_similar_cluster_remove():
    e = neardup.Engine()
    a = e.add("a", POEM)
    assert (a.id, a.cluster, a.duplicate, a.cluster_size, a.matches) == ("a", "a", False, 1, [])
    b = e.add("b", POEM_TW)  # Traditional script folds to Simplified
    assert b.duplicate and b.cluster == "a" and b.cluster_size == 2
    assert [m.id for m in b.matches] == ["a"] and b.matches[0].verified == 1.0
    c = e.add(7, OTHER)  # int ids become their decimal str
    assert c.id == "7" and not c.duplicate
    q = e.query(POEM + "！")
    assert q.cluster == "a" and q.cluster_size == 2 and len(e) == 3
    assert e.query("完全不同的一句话，没有任何重复。").cluster is None
    assert [m.id for m in e.similar("a")] == ["b"]
    assert e.cluster_of("b") == neardup.Cluster("a", 2, False, e.cluster_of("a").time, ["a", "b"])
    assert e.get("b").cluster == "a" and "b" in e and "zz" not in e
    e.remove("a")
    assert e.cluster_of("b").root_removed and e.cluster_of("b").size == 1
    s = e.stats()
    assert (s.documents, s.added, s.duplicates, s.removed) == (2, 3, 1, 1)
    assert s.threshold == e.threshold == 0.6
    assert [c.id for c in e.clusters()] == ["a", "7"] or [c.id for c in e.clusters()] == ["7", "a"]
    assert "documents=2" in repr(e)


def test_add_many_matches_add_one_by_one():
    docs = [("d%d" % i, t) for i, t in enumerate([POEM, OTHER, POEM_TW, OTHER + "。", "x y z"])]
    one = neardup.Engine(threads=1)
    want = [one.add(i, t) for i, t in docs]
    many = neardup.Engine()
    assert many.add_many(docs) == want
    # dicts with custom fields, and a dict {id: text}
    recs = [{"k": i, "body": t} for i, t in docs]
    assert neardup.Engine().add_many(recs, id_field="k", text_field="body") == want
    assert neardup.Engine().add_many(dict(docs)) == want
    # a generator, consumed in chunks
    assert len(neardup.Engine().add_many(("g%d" % i, "text %d" % i) for i in range(20000))) == 20000


def test_a_story_gathers_an_excerpt_alone_in_its_cluster():
    rng = random.Random(6)  # a story whose keys both excerpts hold (8 bins; seed 5's miss one)
    story = "".join(chr(0x4E00 + rng.randrange(2000)) for _ in range(900))
    e = neardup.Engine()
    assert not e.add("one", "节选\n\n" + story[:250], 1000).duplicate
    assert e.add("two", "节选\n\n" + story[600:850], 1001).gathered == []
    r = e.add("story", story, 1002)
    assert (r.cluster, r.cluster_size, r.gathered) == ("one", 3, ["two"])
    assert e.cluster_of("two").id == "one" and e.stats().clusters == 1


def test_add_many_errors():
    e = neardup.Engine()
    e.add("a", POEM)
    docs = [("b", OTHER), ("a", POEM), ("c", b"\xff\xfe"), ("d", POEM_TW)]
    with pytest.raises(ValueError, match=r"item 1 \(id 'a'\).*already exists"):
        e.add_many(docs)
    assert "b" in e and "d" in e  # the rest of the chunk was applied
    got = neardup.Engine().add_many(docs + [("a", "again")], return_exceptions=True)
    assert got[0].id == "b" and got[1].id == "a" and got[3].duplicate
    assert isinstance(got[2], ValueError) and "UTF-8" in str(got[2])
    assert isinstance(got[4], ValueError) and "already exists" in str(got[4])
    with pytest.raises(TypeError, match="item 0"):
        e.add_many([42])
    with pytest.raises(TypeError, match="item 1: missing field 'text'"):
        e.add_many([{"id": "x", "text": "t"}, {"id": "y"}])


def test_errors_are_python_exceptions():
    e = neardup.Engine(max_document_bytes=100)
    with pytest.raises(KeyError, match="no document 'nope'"):
        e.similar("nope")
    with pytest.raises(KeyError):
        e.remove("nope")
    with pytest.raises(KeyError):
        e.cluster_of("nope")
    with pytest.raises(ValueError, match="empty"):
        e.add("", "text")
    with pytest.raises(ValueError):  # OutOfRange
        e.add("big", "x" * 1000)
    with pytest.raises(ValueError, match="UTF-8"):
        e.add("bad", b"\xc0\xaf")
    with pytest.raises(TypeError):
        e.add(1.5, "text")
    with pytest.raises(TypeError):
        e.add("a", 12)
    with pytest.raises(ValueError, match="unknown profile 'nope'"):
        neardup.Engine("nope")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        neardup.Engine(colour="red")
    with pytest.raises(TypeError, match="num_perm"):
        neardup.Engine(num_perm="many")
    with pytest.raises(ValueError, match="bands"):
        neardup.Engine(bands=20, rows=20)
    with pytest.raises(ValueError, match="unknown verifier 'fuzzy'"):
        neardup.Engine(verify="fuzzy")
    with pytest.raises(FileNotFoundError):
        neardup.Engine(data_dir="/nonexistent/neardup-data")
    with pytest.raises(ValueError, match="emit"):
        neardup.dedup(["a"], emit="everything")
    with pytest.raises(ValueError, match="record 1: document \"x\" already exists"):
        neardup.dedup([("x", "a"), ("x", "b")])


def test_options_past_the_machine_raise_and_never_abort():
    # Once std::bad_alloc / std::system_error killed the interpreter.
    with pytest.raises(ValueError, match="memory"):
        neardup.dedup([POEM, OTHER], memory="64T")
    ram_kb = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:"))
    if ram_kb < 1 << 30:  # less than 1 TiB here
        with pytest.raises(ValueError, match="memory"):
            neardup.dedup([POEM, OTHER], memory="1T")
    with pytest.raises(ValueError, match="100000"):
        neardup.dedup([POEM, OTHER], threads=100000)
    with pytest.raises(ValueError, match="100000"):
        neardup.Engine(threads=100000)
    with pytest.raises(ValueError, match="100000"):
        neardup.cluster_groups([["a", "b"]], {"a": POEM, "b": POEM}, threads=100000)
    assert neardup.dedup([POEM, POEM], threads=16).cluster == [0, 0]  # still fine


def test_dedup_of_a_string_is_a_type_error():
    # Iterating a str would dedup its characters.
    with pytest.raises(TypeError, match="not a str; for one text pass \\[text\\]"):
        neardup.dedup("a string")
    with pytest.raises(TypeError, match="not a bytes"):
        neardup.dedup(b"bytes")
    assert neardup.dedup(["a string"]).cluster == [0]


def test_cluster_groups_folds_traditional_as_dedup():
    groups, texts = [["s", "t"]], {"s": POEM, "t": POEM_TW}
    assert neardup.dedup([POEM, POEM_TW]).cluster == [0, 0]
    assert neardup.cluster_groups(groups, texts, verify="levenshtein:0.95").cluster_size == [2, 2]
    assert neardup.cluster_groups(groups, texts, verify="levenshtein:0.95",
                                  t2s="off").cluster_size == [1, 1]
    with pytest.raises(ValueError, match="t2s"):
        neardup.cluster_groups(groups, texts, t2s="sideways")


def test_explain_shows_its_steps():
    x = neardup.explain("已知函数的最大值是多少呢", "已知函数的最小值是多少呢")
    assert x.steps[0].startswith("jaccard = shared / union")
    assert x.steps[-1] == "similarity 0.750 >= threshold 0.600: passes", x.steps


def test_options_reach_the_engine():
    strict = neardup.Engine(threshold=0.95)
    strict.add("a", POEM)
    assert not strict.add("b", POEM[:-6] + "望故乡。").duplicate
    loose = neardup.Engine(threshold=0.5)
    loose.add("a", POEM)
    assert loose.add("b", POEM[:-6] + "望故乡。").duplicate
    # signals as a list, shingles and t2s parsed by the library's parsers
    e = neardup.Engine(signals=["exact"], t2s="off")
    e.add("a", POEM)
    assert not e.add("b", POEM_TW).duplicate
    assert neardup.Engine("simhash", max_distance=5).threshold == pytest.approx(1 - 5 / 64)
    assert set(neardup.option_names()) >= {"signals", "shingles", "verify", "num_perm", "t2s"}
    assert "default" in neardup.profiles()


def test_verify_takes_the_cli_spec():
    # "KIND:T" as the CLI's --verify: the kind, and the threshold over threshold=.
    assert neardup.Engine(verify="levenshtein:0.9").threshold == pytest.approx(0.9)
    assert neardup.Engine(threshold=0.5, verify="jaccard:0.7").threshold == pytest.approx(0.7)
    assert neardup.Engine(threshold=0.5, verify="jaccard").threshold == pytest.approx(0.5)
    assert neardup.Engine("simhash", max_distance=5, verify="none:0.99").threshold == \
        pytest.approx(0.99)
    near = POEM[:-6] + "望故乡。"
    for spec, duplicate in (("levenshtein:0.5", True), ("levenshtein:0.99", False)):
        e = neardup.Engine(signals="exact,minhash", candidate_threshold=0.3, verify=spec)
        e.add("a", POEM)
        assert e.add("b", near).duplicate == duplicate, spec
    groups, texts = [["a", "b"]], {"a": POEM, "b": near}
    assert neardup.cluster_groups(groups, texts, verify="levenshtein:0.5",
                                  threshold=0.99).cluster_size == [2, 2]
    assert neardup.cluster_groups(groups, texts, verify="levenshtein:0.99",
                                  threshold=0.1).cluster_size == [1, 1]
    with pytest.raises(ValueError, match=r"option 'verify': bad threshold '1.5'"):
        neardup.Engine(verify="jaccard:1.5")
    with pytest.raises(ValueError, match="verifier has no option 'size'"):
        neardup.Engine(verify="jaccard,size=2")
    with pytest.raises(ValueError, match="unknown verifier 'fuzzy'"):
        neardup.cluster_groups(groups, texts, verify="fuzzy:0.5")


def test_sketch_functions():
    sig = neardup.minhash(POEM)
    assert len(sig) == 128 and all(0 <= v < 2 ** 32 for v in sig)
    assert len(neardup.minhash(POEM, num_perm=64)) == 64
    assert neardup.minhash("") == [0xFFFFFFFF] * 128
    # The default scheme is one permutation; the others stay selectable.
    assert neardup.minhash(POEM, minhash_scheme="oph") == sig
    perm = neardup.minhash(POEM, minhash_scheme="permutations")
    assert len(perm) == 128 and perm != sig != neardup.minhash(POEM, minhash_scheme="cminhash")
    with pytest.raises(ValueError, match="minhash scheme"):
        neardup.minhash(POEM, minhash_scheme="five")
    x = neardup.explain(POEM, POEM_TW)
    assert x.duplicate and x.jaccard == 1.0 and x.normalized_a == x.normalized_b
    y = neardup.explain(POEM, POEM[:-6] + "望故乡。")
    same = sum(a == b for a, b in zip(neardup.minhash(POEM), neardup.minhash(POEM[:-6] + "望故乡。")))
    assert y.minhash_estimate == same / 128 and 0 < same < 128
    p = neardup.Pipeline(num_perm=32)
    assert p.minhash_many([POEM, OTHER]) == [p.minhash(POEM), p.minhash(OTHER)]
    assert p.normalize("ＡＢＣ，Def") == neardup.normalize("ＡＢＣ，Def") == "abc def"
    assert p.shingles(POEM) == sorted(set(p.shingles(POEM)))
    assert neardup.fingerprint(POEM) == neardup.fingerprint(POEM_TW) == neardup.Engine().fingerprint(POEM)
    with pytest.raises(ValueError, match="item 1"):
        p.minhash_many([POEM, b"\xff"])


def test_results_pickle_and_compare():
    e = neardup.Engine()
    e.add("a", POEM)
    r = e.add("b", POEM_TW)
    assert pickle.loads(pickle.dumps(r)) == r
    assert r._asdict()["cluster"] == "a" and r.matches[0]._fields[0] == "id"
    assert pickle.loads(pickle.dumps(e.stats())) == e.stats()
    assert "AddResult(id='b'" in repr(r)
    assert neardup.AddResult.cluster.__doc__.startswith("the id of the cluster")


def test_stubs_match_the_module():
    """neardup.pyi declares what the module has (names and tuple fields)."""
    stub = os.path.join(os.path.dirname(neardup.__file__), "neardup.pyi")
    tree = ast.parse(open(stub, encoding="utf-8").read())
    declared = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            fields = [n.target.id for n in node.body if isinstance(n, ast.AnnAssign)]
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            declared[node.name] = (fields, methods)
        elif isinstance(node, ast.FunctionDef):
            declared[node.name] = None
    public = {n for n in dir(neardup) if not n.startswith("_")}
    assert public == set(declared)
    for name, spec in declared.items():
        obj = getattr(neardup, name)
        if spec is None:
            continue
        fields, methods = spec
        if hasattr(obj, "_fields"):
            assert list(obj._fields) == fields, name
        else:
            have = {m for m in dir(obj) if not m.startswith("_") or m in methods}
            assert methods <= have | {"__init__"}, (name, methods - have)
            assert {m for m in dir(obj) if not m.startswith("_")} <= methods, name
    assert neardup.__doc__ and neardup.Engine.add_many.__doc__ and neardup.dedup.__doc__
