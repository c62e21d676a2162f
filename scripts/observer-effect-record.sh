#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lock hold times `record` reports for a shell loop of `cat cpu.stat`
# on a cgroup with 8 busy children (nice 19): a benchmark of the
# recorder's observer effect, not a test. Usage, as root:
#   scripts/observer-effect-record.sh [BINARY] [READS]
# Compare two builds by giving each binary in turn.
set -eu
bin=${1:-./rstat-analyze}
reads=${2:-2000}
[ "$(id -u)" -eq 0 ] || { echo "needs root (cgroups, tracepoints)" >&2; exit 1; }
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
cg=$v2/rs-observer-$$
work=$(mktemp -d /tmp/rs-observer.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	sleep 0.3
	for i in 1 2 3 4 5 6 7 8; do rmdir "$cg/c$i" 2>/dev/null || true; done
	rmdir "$cg" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir "$cg"
for i in 1 2 3 4 5 6 7 8; do
	mkdir "$cg/c$i"
	sh -c "echo \$\$ >$cg/c$i/cgroup.procs; exec nice -n 19 sh -c 'while :; do :; done'" &
	pids+=($!)
done
"$bin" record -q -a -o "$work/r.data" -- sh -c \
	"for i in \$(seq $reads); do cat $cg/cpu.stat >/dev/null; done"
"$bin" report -i "$work/r.data" 2>/dev/null |
	sed -n '/^Lock hold time/,/^pairs/p'
