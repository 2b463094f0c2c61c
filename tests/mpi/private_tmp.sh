#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Gives the calling mount namespace (made by `unshare -m`) a private tmpfs
# /tmp, as on another machine, then runs COMMAND. The directories in KEEP
# (space-separated paths under /tmp: the shared file system holding the
# binary, the sources and the work directory, when the checkout itself lives
# under /tmp) stay visible at the same paths through bind mounts.
#   private_tmp.sh LABEL "KEEP..." COMMAND [ARGS...]
label=$1
keep=$2
shift 2
hold=/run/neardup-mpi-hold-$$
mkdir -p "$hold" && mount --rbind /tmp "$hold" || exit 1
if ! mount -t tmpfs "$label" /tmp; then
  umount -l "$hold"
  rmdir "$hold"
  exit 1
fi
for d in $keep; do
  mkdir -p "$d" && mount --rbind "$hold${d#/tmp}" "$d" || exit 1
done
umount -l "$hold"
rmdir "$hold" 2>/dev/null
exec "$@"
