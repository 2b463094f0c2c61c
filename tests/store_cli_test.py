#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End-to-end: a damaged store of `neardup serve` is refused as it is,
`neardup store check` names the damage, and `neardup store repair` says what
it would lose, repairs only with --yes, and leaves a store that serves.

The store is made by the real server: 150 documents, a clean stop (they go
to table files), then 100 more and SIGKILL (they are only in the write-ahead
log). Each case damages a copy one way (docs/reliability.md, "Damaged
stores").
Usage: store_cli_test.py NEARDUP_BINARY CASE [STORES]
With STORES, case "setup" builds the two undamaged stores (after a crash,
after a clean stop) there once, and every other case damages a copy of one
(ctest's fixture store_cli_stores); without it each case builds its own.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

BIN, CASE = sys.argv[1], sys.argv[2]
STORES = sys.argv[3] if len(sys.argv) > 3 else None
FIRST, SECOND = 150, 100


def text(i):
    # Documents of a story share most of their text: clusters of three.
    story = i // 3
    return "story %d " % story + " ".join("w%d" % ((story * 31 + k) % 997) for k in range(60)) + \
        " copy %d" % (i % 3)


class Server:
    def __init__(self, data):
        self.port_file = data + ".port"
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        self.proc = subprocess.Popen(
            [BIN, "serve", "--data", data, "--listen", "127.0.0.1:0", "--port-file",
             self.port_file, "--ttl", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                raise RuntimeError("serve exited %d: %s" % (self.proc.returncode,
                                                            self.proc.stderr.read()))
            if time.time() > deadline:
                raise RuntimeError("serve did not start")
            time.sleep(0.05)
        self.base = "http://127.0.0.1:%s" % open(self.port_file).read().strip()

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def add(self, start, end):
        docs = [{"id": "doc-%d" % i, "text": text(i)} for i in range(start, end)]
        for k in range(0, len(docs), 50):
            r = self.call("POST", "/v1/documents:batch", docs[k:k + 50])
            assert r["failed"] == 0, r

    def stop(self, sig):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=60)


def run(args, code):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    assert p.returncode == code, "exit %d (want %d) for %s\nstdout: %s\nstderr: %s" % (
        p.returncode, code, args, p.stdout, p.stderr)
    return p


def snapshot(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = hashlib.sha1(fh.read()).hexdigest()
    return out


def files(d, suffix):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(suffix) or
                  f.startswith(suffix))


def flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x10]))


def build(data, crash=True):
    """Returns the MANIFEST and its size when the second server had opened."""
    if STORES is not None:
        kind = "crashed" if crash else "stopped"
        shutil.copytree(os.path.join(STORES, kind), data)
        with open(os.path.join(STORES, kind + ".json")) as f:
            name, size = json.load(f)
        return os.path.join(data, name), size
    return build_new(data, crash)


def build_new(data, crash):
    s = Server(data)
    s.add(0, FIRST)
    s.stop(signal.SIGTERM)
    s = Server(data)
    manifest = files(data, "MANIFEST")[-1]
    size = os.path.getsize(manifest)
    s.add(FIRST, FIRST + SECOND)
    s.stop(signal.SIGKILL if crash else signal.SIGTERM)
    return manifest, size


def documents(data):
    s = Server(data)
    n = s.call("GET", "/v1/stats")["documents"]
    s.stop(signal.SIGTERM)
    return n


def expect_refused(data, what):
    """serve and every store command refuse the damaged store and change nothing."""
    before = snapshot(data)
    p = subprocess.run([BIN, "serve", "--data", data, "--listen", "127.0.0.1:0"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, "serve started on a damaged store: %d %s" % (p.returncode, p.stderr)
    assert "damaged" in p.stderr and what in p.stderr, p.stderr
    assert "neardup store check" in p.stderr and "neardup store repair" in p.stderr, p.stderr
    c = run(["store", "check", data], 1)
    assert "DAMAGED" in c.stdout and what in c.stdout, c.stdout
    assert snapshot(data) == before, "a refused open or a check changed the store"


def is_forms_table(path):
    # A table file names its column family in its properties block.
    with open(path, "rb") as f:
        return b"nameforms" in f.read()


def expect_repaired(data, want=None):
    """repair says what it would lose, changes nothing without --yes, then repairs."""
    before = snapshot(data)
    dry = run(["store", "repair", data], 1)
    assert "would give up" in dry.stdout and "--yes" in dry.stdout, dry.stdout
    assert snapshot(data) == before, "repair without --yes changed the store"
    done = run(["store", "repair", data, "--yes"], 0)
    assert "repaired" in done.stdout, done.stdout
    kept = [d for d in os.listdir(os.path.dirname(data))
            if d.startswith(os.path.basename(data) + ".damaged-")]
    assert len(kept) == 1 and snapshot(os.path.join(os.path.dirname(data), kept[0])) == before
    run(["store", "check", data], 0)
    n = documents(data)
    assert "holds %d documents" % n in done.stdout, (n, done.stdout)
    if want is not None:
        assert n == want, (n, want, done.stdout)
    return done.stdout


def setup():
    shutil.rmtree(STORES, ignore_errors=True)
    os.makedirs(STORES)
    for kind, crash in (("crashed", True), ("stopped", False)):
        data = os.path.join(STORES, kind)
        manifest, size = build_new(data, crash)
        if os.path.exists(data + ".port"):
            os.remove(data + ".port")
        with open(data + ".json", "w") as f:
            json.dump([os.path.basename(manifest), size], f)


def case(name, tmp):
    data = os.path.join(tmp, "store")
    if name == "setup":
        setup()
        return
    if name == "healthy":
        build(data)
        c = run(["store", "check", data], 0)
        assert "OK, %d documents" % (FIRST + SECOND) in c.stdout, c.stdout
        assert documents(data) == FIRST + SECOND
        run(["store", "repair", data], 0)
        # A running service's store is neither checked nor repaired.
        s = Server(data)
        for args in (["store", "check", data], ["store", "repair", data, "--yes"]):
            p = run(args, 1)
            assert "open for writing" in p.stderr, p.stderr
        s.stop(signal.SIGTERM)
        return
    if name == "disk_bytes":
        build(data)
        s = Server(data)
        stats = s.call("GET", "/v1/stats")
        s.stop(signal.SIGKILL)
        total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(data) for f in fs)
        # The files change a little while the server starts (a new log and
        # MANIFEST); the figure is the directory's, not the tables' alone.
        assert stats["disk_bytes"] >= 0.9 * total and stats["disk_bytes"] <= 1.1 * total, \
            (stats["disk_bytes"], total)
        return
    if name == "wal_deleted_after_clean_stop":
        build(data, crash=False)
        for f in files(data, ".log"):
            os.remove(f)
        run(["store", "check", data], 0)
        assert documents(data) == FIRST + SECOND
        return
    if name == "manifest_truncated":
        # The MANIFEST loses the record of the flush at the clean stop; that
        # stop deleted the log. RocksDB alone opened this with the first 150
        # documents and deleted the second stop's tables.
        manifest, size = build(data, crash=False)
        os.truncate(manifest, size)
        expect_refused(data, "MANIFEST")
        expect_repaired(data, FIRST + SECOND)
        return
    build(data)
    if name == "manifest_deleted":
        for m in files(data, "MANIFEST"):
            os.remove(m)
        expect_refused(data, "MANIFEST")
        expect_repaired(data, FIRST + SECOND)
    elif name == "current_deleted":
        os.remove(os.path.join(data, "CURRENT"))
        expect_refused(data, "CURRENT")
        expect_repaired(data, FIRST + SECOND)
    elif name == "current_corrupt":
        with open(os.path.join(data, "CURRENT"), "w") as f:
            f.write("MANIFEST-777777\n")
        expect_refused(data, "MANIFEST-777777")
        expect_repaired(data, FIRST + SECOND)
    elif name == "current_truncated":
        os.truncate(os.path.join(data, "CURRENT"), 0)
        expect_refused(data, "CURRENT")
        expect_repaired(data, FIRST + SECOND)
    elif name in ("sst_deleted", "sst_truncated"):
        # The biggest table of documents (not the verification forms', whose
        # loss costs no document: forms_sst_deleted).
        biggest = max((t for t in files(data, ".sst") if not is_forms_table(t)),
                      key=os.path.getsize)
        number = os.path.basename(biggest)[:-4]
        if name == "sst_deleted":
            os.remove(biggest)
        else:
            os.truncate(biggest, os.path.getsize(biggest) // 2)
        expect_refused(data, number)
        out = expect_repaired(data)
        assert "lost:" in out, out
    elif name == "forms_sst_deleted":
        # Forms only spare the verifier the texts: every document survives
        # (the verifier reads the texts of those without a form).
        tables = [t for t in files(data, ".sst") if is_forms_table(t)]
        assert tables, "no table of the forms family"
        for t in tables:
            os.remove(t)
        expect_refused(data, os.path.basename(tables[0])[:-4])
        expect_repaired(data, FIRST + SECOND)
    elif name == "sst_bitflip":
        for t in files(data, ".sst"):
            flip(t, 40)
        expect_refused(data, "checksum")
        expect_repaired(data)
    elif name == "wal_deleted":
        for f in files(data, ".log"):
            os.remove(f)
        expect_refused(data, "write-ahead log")
        out = expect_repaired(data, FIRST)
        assert "arrival numbers" in out, out
    elif name == "wal_truncated":
        log = files(data, ".log")[-1]
        os.truncate(log, os.path.getsize(log) // 2)
        expect_refused(data, "write-ahead log")
        expect_repaired(data)
    elif name == "wal_bitflip":
        log = files(data, ".log")[-1]
        flip(log, os.path.getsize(log) // 2)
        expect_refused(data, "checksum")
        out = expect_repaired(data)
        assert "RocksDB" in out, out
    else:
        raise SystemExit("unknown case " + name)


with tempfile.TemporaryDirectory() as tmp:
    case(CASE, tmp)
print("ok", CASE)
