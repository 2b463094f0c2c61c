#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two "hosts" on this machine: network namespaces A and B joined by a veth
# pair (10.213.7.1/24 and 10.213.7.2/24, addresses that exist only inside
# them), each with its own private /tmp (a tmpfs in its own mount namespace).
# mpirun in A starts half the ranks in A and half in B over TCP (NP = 2 by
# default: rank 0 in A, rank 1 in B; NP = 4: two ranks a host); its remote shell
# (plm_rsh_agent) is rsh_agent.sh, which runs the daemon in B with
# `ip netns exec` instead of ssh. The output must equal one process's.
# Usage: two_hosts.sh NEARDUP_BINARY SOURCE_DIR WORK_DIR [NP]
# Exit 77 (skipped) when not root or when network namespaces are unavailable.
# For benchmarks (scripts/bench/mpi_two_hosts): ND_CORPUS runs on that file
# instead of 3,000 generated questions, ND_SINGLE is its single-process
# output (not made again), ND_ARGS replaces "--memory 1M -j 1" and
# ND_TIMEOUT the 90 s limit.
set -uo pipefail
BIN=$(readlink -f "$1") SRC=$(readlink -f "$2") WORK=$3 NP=${4:-2}
PER_HOST=$((NP / 2))
HERE=$(cd "$(dirname "$0")" && pwd)
SKIP=77
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (network namespaces)"; exit $SKIP; }
command -v ip >/dev/null && command -v unshare >/dev/null && command -v mpirun >/dev/null ||
  { echo "skipped: needs ip (iproute2), unshare and mpirun"; exit $SKIP; }

A=nd-mpi-a-$$ B=nd-mpi-b-$$ VA=ndva$$ VB=ndvb$$
cleanup() {
  for ns in "$A" "$B"; do
    if ip netns list 2>/dev/null | grep -qw "$ns"; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
      ip netns del "$ns" 2>/dev/null
    fi
  done
}
trap cleanup EXIT INT TERM
if ! ip netns add "$A" 2>/dev/null; then
  echo "skipped: ip netns add failed (no network namespaces here)"; exit $SKIP
fi
if ! ip netns exec "$A" unshare -m --propagation private sh -c 'mount -t tmpfs nd-probe /tmp'; then
  echo "skipped: cannot mount a private /tmp in a mount namespace here"; exit $SKIP
fi
ip netns add "$B" || exit 1
ip link add "$VA" type veth peer name "$VB" || exit 1
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" || exit 1
ip -n "$A" addr add 10.213.7.1/24 dev "$VA" && ip -n "$B" addr add 10.213.7.2/24 dev "$VB" || exit 1
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up || exit 1

rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
# Inputs and outputs live on the shared file system (WORK, not /tmp): 3,000
# short questions with seeded near-duplicates.
ARGS=${ND_ARGS:---memory 1M -j 1}
CORPUS=${ND_CORPUS:-$WORK/corpus.jsonl}
SINGLE=${ND_SINGLE:-$WORK/single.jsonl}
if [ -z "${ND_CORPUS:-}" ]; then
  python3 "$SRC/scripts/bench/qbank_corpus" 3000 --seed 11 -j 1 -o "$CORPUS" || exit 1
fi
if [ -z "${ND_SINGLE:-}" ]; then
  # shellcheck disable=SC2086  # ARGS is a list of options
  "$BIN" dedup "$CORPUS" $ARGS -o "$SINGLE" || exit 1
fi
# The agent maps a host (address) to its namespace; mpirun passes it
# "HOST COMMAND..." as it would to ssh.
cat > "$WORK/hosts.env" <<HOSTS
10.213.7.1=$A
10.213.7.2=$B
HOSTS
export NEARDUP_MPI_HOSTS="$WORK/hosts.env"
# When the checkout lives under /tmp, its top directory there stays visible
# on both hosts (it is the "shared file system"); everything else in /tmp is
# private to each host.
KEEP=""
for p in "$BIN" "$HERE" "$WORK" "$CORPUS" "$SINGLE"; do
  case "$p" in /tmp/*) top=/tmp/$(echo "${p#/tmp/}" | cut -d/ -f1)
    case " $KEEP " in *" $top "*) ;; *) KEEP="$KEEP $top" ;; esac ;;
  esac
done
export NEARDUP_MPI_KEEP="$KEEP"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset TMPDIR  # spill files and Open MPI's session directories go to each host's /tmp
# Each host's spill files go to its own /tmp (default --tmp-dir); --memory
# 1M makes them spill. /tmp of host A is a fresh tmpfs too.
timeout -k 5 "${ND_TIMEOUT:-90}" ip netns exec "$A" unshare -m --propagation private \
    "$HERE/private_tmp.sh" nd-host-a "$KEEP" sh -c '
  exec mpirun --allow-run-as-root --oversubscribe -np $4 --host 10.213.7.1:$5,10.213.7.2:$5 \
    --mca plm_rsh_agent "$0" --mca btl tcp,self \
    --mca btl_tcp_if_include 10.213.7.0/24 --mca oob_tcp_if_include 10.213.7.0/24 \
    --mca pml ob1 \
    "$1" dedup --distributed "$2" $6 --stats -o "$3"
' "$HERE/rsh_agent.sh" "$BIN" "$CORPUS" "$WORK/two_hosts.jsonl" "$NP" "$PER_HOST" "$ARGS" \
    > "$WORK/mpirun.log" 2>&1
rc=$?
cat "$WORK/mpirun.log"
[ $rc -eq 0 ] || { echo "FAIL: mpirun exited $rc"; exit 1; }
grep -q "runs spilled" "$WORK/mpirun.log" || { echo "FAIL: no stats"; exit 1; }
grep -q "$NP ranks" "$WORK/mpirun.log" || { echo "FAIL: not $NP ranks"; exit 1; }
cmp "$SINGLE" "$WORK/two_hosts.jsonl" || { echo "FAIL: outputs differ"; exit 1; }
# The shuffle went over the veth: host B received the keys, pairs and labels.
rx=$(ip netns exec "$B" cat "/sys/class/net/$VB/statistics/rx_bytes")
echo "host B received $rx bytes over $VB"
[ "$rx" -gt 100000 ] || { echo "FAIL: too little traffic over the veth"; exit 1; }
echo "ok: $NP ranks on two hosts over TCP, private /tmp each, output identical to one process"
