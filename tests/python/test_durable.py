# SPDX-License-Identifier: Apache-2.0
"""DurableEngine from Python: reopened, it restores its documents, clusters and
meta; errors are exceptions."""
import pytest

import neardup

POEM = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
POEM_TW = "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。"
OTHER = "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。"


def test_reopened_store_restores_documents(tmp_path):
    path = str(tmp_path / "store")
    with neardup.DurableEngine(path, sync=False) as d:
        assert d.add("a", POEM, meta={"source": "唐诗", "n": 1}).cluster_size == 1
        results = d.add_many([{"id": "b", "text": POEM_TW, "meta": {"n": 2}}, ("c", OTHER)])
        assert [r.cluster for r in results] == ["a", "c"]
        d.add("d", OTHER + "。")
        d.remove("d")
        before = [d.cluster_of(i) for i in "abc"]
    with neardup.DurableEngine(path) as d:
        assert len(d) == 3 and d.stats().restored_documents == 3
        # RocksDB's bounded memory is reported, so resident bytes can be explained
        assert 0 < d.stats().store_memtable_bytes <= 256 << 20
        assert 0 <= d.stats().store_cache_bytes <= 64 << 20
        assert [d.cluster_of(i) for i in "abc"] == before
        rec = d.get("a")
        assert rec.meta == {"source": "唐诗", "n": 1} and rec.cluster_size == 2
        assert rec.text == POEM  # the default pipeline verifies, so texts are stored
        sim = d.similar("a")
        assert [(s.id, s.meta) for s in sim] == [("b", {"n": 2})]
        assert d.query(POEM).cluster == "a"
        with pytest.raises(KeyError):
            d.get("d")
        # the restored index still finds duplicates
        assert d.add("e", POEM + "！").cluster == "a"
        assert d.add("a", "ignored", exist_ok=True).cluster == "a"
        with pytest.raises(ValueError, match="already exists"):
            d.add("a", "again")
        assert d.explain(POEM, POEM_TW).duplicate
    with pytest.raises(RuntimeError, match="closed"):
        d.add("f", "after close")
    assert "closed" in repr(d)


def test_open_twice_is_an_error_until_closed(tmp_path):
    path = str(tmp_path / "store")
    first = neardup.DurableEngine(path, sync=False)
    with pytest.raises(OSError, match="lock"):
        neardup.DurableEngine(path, sync=False)
    first.close()
    first.close()  # idempotent
    with neardup.DurableEngine(path, sync=False) as again:
        assert len(again) == 0


def test_store_refuses_other_options(tmp_path):
    path = str(tmp_path / "store")
    with neardup.DurableEngine(path, sync=False) as d:
        d.add("a", POEM)
    with pytest.raises(ValueError):
        neardup.DurableEngine(path, "simhash")
    with pytest.raises(OSError):
        neardup.DurableEngine("/proc/neardup-cannot-create")


def test_expire(tmp_path):
    with neardup.DurableEngine(str(tmp_path / "s"), sync=False, background_expiry=False) as d:
        d.add("old", POEM, time=1000)
        d.add("new", OTHER, time=5000)
        r = d.expire(2000)
        assert (r.trees, r.documents) == (1, 1)
        assert "old" not in [c.id for c in d.clusters()] and len(d) == 1
        assert d.stats().expired_documents == 1


def test_close_while_another_thread_adds(tmp_path):
    import threading
    d = neardup.DurableEngine(str(tmp_path / "s"), sync=False)
    docs = [("d%d" % i, "%s %d" % (POEM, i)) for i in range(30000)]
    outcome = []

    def add():
        try:
            d.add_many(docs)
            outcome.append("done")
        except RuntimeError as e:  # closed under it: Unavailable or closed
            outcome.append(str(e))

    worker = threading.Thread(target=add)
    worker.start()
    d.close()
    worker.join()
    assert len(outcome) == 1
    with neardup.DurableEngine(str(tmp_path / "s")) as again:  # the lock was released
        assert len(again) <= len(docs)
