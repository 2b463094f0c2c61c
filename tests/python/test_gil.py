# SPDX-License-Identifier: Apache-2.0
"""Heavy calls release the GIL: another Python thread runs while one thread is
inside add_many, and two threads adding at once use more than one core.

No timed assertions on speed: the first test checks ordering (a second thread
makes progress in the middle of the call), the second compares the CPU time
the process used with the wall time (above 1 only when threads ran at once),
against what C++ threads got in the same attempt, and skips when the machine
is too loaded to tell."""
import os
import random
import threading
import time

import pytest

import neardup


def texts(n, seed, chars=2000):
    rng = random.Random(seed)
    alphabet = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
    return [("%d-%d" % (seed, i), "".join(rng.choice(alphabet) for _ in range(chars // 3)))
            for i in range(n)]


def test_other_threads_run_inside_add_many():
    docs = texts(1500, 1)
    engine = neardup.Engine(threads=1)
    window = {}

    def add():
        window["start"] = time.perf_counter()
        engine.add_many(docs)
        window["end"] = time.perf_counter()

    ticks = []
    worker = threading.Thread(target=add)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    start, end = window["start"], window["end"]
    middle = [t for t in ticks if start + 0.25 * (end - start) < t < end - 0.25 * (end - start)]
    # Held for the whole call, the GIL would let this loop run only for one
    # switch interval (5 ms) at the call's start and none in its middle half
    # (checked with sorted() on a large list: 0 ticks); released, it runs all along.
    assert end - start > 0.05, "the call is too short to observe"
    assert len(middle) > 100, "%d ticks in the middle half of a %.2f s call" % (
        len(middle), end - start)


def parallelism(fn):
    """Cores the process used while fn() ran: CPU time over wall time."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


def test_two_threads_use_two_cores():
    """Two Python threads adding to two engines use two cores, when the machine
    has two to give: C++ threads (minhash_many, no Python involved) measure
    that just before. Fails only when C++ threads got two cores and the Python
    threads, in the same attempt, did not; skips when neither could."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: two threads cannot run at once")
    batches = [texts(1500, 10 + i) for i in range(2)]
    reference = [t for _, t in batches[0] + batches[1]]
    pipeline = neardup.Pipeline()
    seen, strikes = [], 0
    for attempt in range(3):
        ref = parallelism(lambda: pipeline.minhash_many(reference, threads=2))
        engines = [neardup.Engine(threads=1) for _ in range(2)]
        workers = [threading.Thread(target=engines[i].add_many, args=(batches[i],))
                   for i in range(2)]

        def both():
            for w in workers:
                w.start()
            for w in workers:
                w.join()
        got = parallelism(both)
        seen.append("C++ %.2f, Python %.2f" % (ref, got))
        # One thread at a time (a held GIL) cannot exceed 1: measured 1.00
        # with sorted() on a list, which holds it, while C++ threads got 1.3.
        if got > 1.15:
            return
        strikes += ref > 1.5 and got < 1.05
    if strikes >= 2:
        pytest.fail("two Python threads did not use two cores (cores used: %s)" % "; ".join(seen))
    pytest.skip("the machine could not give this process two cores (cores used: %s)"
                % "; ".join(seen))
