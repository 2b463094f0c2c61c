#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real scheduler (issue 23): starts a one-node Slurm cluster on this machine
# (Debian's slurmctld, slurmd and munge, each with its own key, socket, ports
# and state under WORK_DIR), submits the sbatch example of docs/distributed.md
# ("### Slurm") with `sbatch --wait`, and checks that the job's output equals
# one process's byte for byte. The example is taken from the document and only
# its sizes and paths are changed (one node, two ranks, small memory, paths
# under WORK_DIR, no `module load`); each change must apply exactly once, so
# the test fails when the example changes under it.
# Usage: slurm_test.sh NEARDUP_BINARY SOURCE_DIR WORK_DIR
# Exit 77 (skipped, with the reason) when not root, when a Slurm or munge
# program is missing, when the daemons do not come up, or when they cannot
# launch a task (`srun -n 2 --mpi=pmix true` fails).
set -uo pipefail
BIN=$(readlink -f "$1") SRC=$(readlink -f "$2") WORK=$3
SKIP=77
skip() { echo "skipped: $*"; exit $SKIP; }
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs the job's tasks)"
for p in slurmctld slurmd sbatch sinfo munged srun; do
  command -v "$p" >/dev/null || skip "$p not installed (Debian: slurmctld slurmd slurm-client munge)"
done

rm -rf "$WORK" && mkdir -p "$WORK"/{state,spool,munge,work,scratch} && WORK=$(readlink -f "$WORK")
PIDS=()
cleanup() {
  for f in "$WORK/slurmd.pid" "$WORK/slurmctld.pid" "$WORK/munge/pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 0.5
  for f in "$WORK/slurmd.pid" "$WORK/slurmctld.pid" "$WORK/munge/pid"; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
}
trap cleanup EXIT INT TERM

# munge: a fresh key and a private socket.
chmod 700 "$WORK/munge"
head -c 1024 /dev/urandom > "$WORK/munge/munge.key" && chmod 600 "$WORK/munge/munge.key"
munged -f -S "$WORK/munge/sock" --key-file="$WORK/munge/munge.key" \
  --log-file="$WORK/munge/log" --pid-file="$WORK/munge/pid" --seed-file="$WORK/munge/seed" ||
  skip "munged did not start: $(tail -2 "$WORK/munge/log" 2>/dev/null)"

# Two free TCP ports for slurmctld and slurmd.
read -r PORT_CTLD PORT_D < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
HOST=$(hostname -s)
MEM_MB=$(($(awk '/MemAvailable/ {print $2}' /proc/meminfo) / 1024 / 2))
cat > "$WORK/slurm.conf" <<CONF
ClusterName=neardup-test
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT_CTLD
SlurmdPort=$PORT_D
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/sock
CredType=cred/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$HOST CPUs=$(nproc) RealMemory=$MEM_MB State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$WORK/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -3 "$WORK/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start: $(tail -3 "$WORK/slurmd.log" 2>/dev/null)"
state=""
for _ in $(seq 1 60); do
  state=$(sinfo -h -o %t 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || skip "the node did not come up (state '$state'): $(tail -3 "$WORK/slurmd.log")"
echo "slurm: one node ($HOST, $(nproc) CPUs) idle, ports $PORT_CTLD/$PORT_D"
# Can this machine launch tasks at all, with PMIx? If not, the scheduler is
# what fails, not neardup: skip with Slurm's own words.
if ! probe=$(timeout -k 5 60 srun -n 2 --mpi=pmix true 2>&1); then
  skip "slurm runs no task here (srun -n 2 --mpi=pmix true): $(echo "$probe" | tail -2)"
fi

# The input: 3,000 short questions with seeded near-duplicates in two parts,
# and what one process makes of them.
python3 "$SRC/scripts/bench/qbank_corpus" 3000 --seed 13 -j 1 -o "$WORK/all.jsonl" || exit 1
head -n 1500 "$WORK/all.jsonl" > "$WORK/work/part-1.jsonl"
tail -n +1501 "$WORK/all.jsonl" > "$WORK/work/part-2.jsonl"
"$BIN" dedup "$WORK"/work/part-*.jsonl --emit unique -o "$WORK/single.jsonl" || exit 1

# The document's example, adapted.
python3 - "$SRC/docs/distributed.md" "$WORK/job.sh" "$BIN" "$WORK" <<'PY' || exit 1
import re, sys
doc, out, binary, work = sys.argv[1:]
text = open(doc, encoding="utf-8").read()
m = re.search(r"### Slurm\n.*?```sh\n(.*?)```", text, re.S)
assert m, "no ```sh block under '### Slurm' in " + doc
script = m.group(1)
changes = [
    ("#SBATCH --nodes=16", "#SBATCH --nodes=1"),
    ("#SBATCH --ntasks-per-node=1", "#SBATCH --ntasks-per-node=2"),
    ("#SBATCH --cpus-per-task=32", "#SBATCH --cpus-per-task=1"),
    ("#SBATCH --mem=120G", "#SBATCH --mem=1G"),
    ("module load openmpi", ": module load openmpi"),
    ("srun --mpi=pmix neardup ", "srun --mpi=pmix %s " % binary),
    ("/lustre/crawl/part-*.jsonl", "%s/work/part-*.jsonl" % work),
    ("--memory 100G", "--memory 64M"),
    ("--tmp-dir /local/scratch", "--tmp-dir %s/scratch" % work),
    ("--work-dir /lustre/nd-work", "--work-dir %s/work/nd-work" % work),
    ("-o /lustre/crawl/deduped.jsonl", "-o %s/work/deduped.jsonl" % work),
]
for old, new in changes:
    n = script.count(old)
    assert n == 1, "the example in %s has %d copies of %r (expected 1)" % (doc, n, old)
    script = script.replace(old, new)
open(out, "w").write(script)
PY
echo "--- job script"
cat "$WORK/job.sh"
echo "---"
(cd "$WORK" && timeout -k 5 120 sbatch --wait -o "$WORK/job.out" "$WORK/job.sh")
rc=$?
echo "--- job output"
cat "$WORK/job.out" 2>/dev/null
echo "---"
[ $rc -eq 0 ] || { echo "FAIL: sbatch --wait exited $rc"; tail -5 "$WORK/slurmctld.log"; exit 1; }
grep -q "2 ranks" "$WORK/job.out" || { echo "FAIL: the job did not run two ranks"; exit 1; }
cmp "$WORK/single.jsonl" "$WORK/work/deduped.jsonl" || { echo "FAIL: outputs differ"; exit 1; }
echo "ok: the docs' sbatch example ran two ranks under Slurm; output identical to one process"
