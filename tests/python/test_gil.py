# SPDX-License-Identifier: Apache-2.0
"""Heavy calls release the GIL: another Python thread runs while one thread is
inside add_many, and two threads adding at once use more than one core.

No timed assertions on speed: the first test checks ordering (a second thread
makes progress strictly inside the call), the second compares the CPU time
the two threads used with the wall time they took (above 1 is only possible
when both ran at once), and skips when the machine is too loaded to tell."""
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
    inside = [t for t in ticks if window["start"] < t < window["end"]]
    # Holding the GIL for the whole call would leave at most a tick or two
    # at its edges; released, this loop runs all along.
    assert window["end"] - window["start"] > 0.05, "the call is too short to observe"
    assert len(inside) > 1000, "only %d ticks inside a %.2f s call" % (
        len(inside), window["end"] - window["start"])


def test_two_threads_use_two_cores():
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: two threads cannot run at once")
    batches = [texts(1500, 10 + i) for i in range(2)]
    engines = [neardup.Engine(threads=1) for _ in range(2)]
    cpu = [0.0, 0.0]

    def add(i):
        t = time.thread_time()
        engines[i].add_many(batches[i])
        cpu[i] = time.thread_time() - t

    for attempt in range(2):
        threads = [threading.Thread(target=add, args=(i,)) for i in range(2)]
        wall = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - wall
        parallelism = sum(cpu) / wall
        if parallelism > 1.25:
            return
        engines = [neardup.Engine(threads=1) for _ in range(2)]
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) - 0.5:
        pytest.skip("machine too loaded to see two threads at once (load %.1f, %.2f cores used)"
                    % (load, parallelism))
    pytest.fail("two threads used %.2f cores (CPU %.2f s in %.2f s of wall time)"
                % (parallelism, sum(cpu), wall))
