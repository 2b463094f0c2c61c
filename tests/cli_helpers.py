# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the CLI end-to-end tests: run the binary, read JSONL."""
import json
import os
import shutil
import subprocess


def run(binary, args, stdin=None, code=0):
    """Runs `binary args` and asserts its exit code; returns the CompletedProcess."""
    p = subprocess.run([binary] + args, input=stdin, capture_output=True, text=True)
    assert p.returncode == code, "exit %d (want %d) for %s\nstderr: %s" % (
        p.returncode, code, args, p.stderr)
    return p


def jsonl(text):
    return [json.loads(l) for l in text.splitlines() if l.strip()]


def clusters(binary, fixture, args):
    """Sorted member lists of `dedup --emit clusters` on `fixture`."""
    out = jsonl(run(binary, ["dedup", fixture, "--emit", "clusters", "-q"] + args).stdout)
    return sorted(sorted(c["members"]) for c in out)


def no_private_tmpfs():
    """Why a test cannot mount a private tmpfs (`unshare -m`, as root), or None."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "needs root and unshare(1) for a private tmpfs"
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        return "unshare -m is not permitted here: " + probe.stderr.decode()
    return None
