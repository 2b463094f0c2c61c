#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# mpirun's remote shell for two_hosts.sh: "rsh_agent.sh HOST COMMAND..." runs
# COMMAND (a shell command line, as ssh would) in HOST's network namespace
# (the map in $NEARDUP_MPI_HOSTS), in a mount namespace of its own with a
# private tmpfs /tmp (private_tmp.sh), as on another machine.
host=$1
shift
ns=$(sed -n "s/^$host=//p" "$NEARDUP_MPI_HOSTS")
[ -n "$ns" ] || { echo "rsh_agent: unknown host $host" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
exec ip netns exec "$ns" unshare -m --propagation private \
  "$here/private_tmp.sh" nd-host-b "$NEARDUP_MPI_KEEP" sh -c "$*"
