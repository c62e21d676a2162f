#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lock hold times `record` reports for a shell loop of `cat cpu.stat`
# on a cgroup with 8 busy children (nice 19), against bpftrace timing the
# same holds in the kernel on the same workload: a benchmark of the
# recorder's observer effect, not a test. Three runs of the loop:
#   record            the default (holds timed in the kernel by BPF)
#   record --spans perf   holds paired from perf's tracepoint records
#   bpftrace          @=hist(nsecs - start) on locked -> unlock, alone
# Usage, as root:
#   scripts/observer-effect-record.sh [BINARY] [READS] [CHILDREN]
set -eu
bin=${1:-./rstat-analyze}
reads=${2:-2000}
children=${3:-8}
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
	for i in $(seq "$children"); do rmdir "$cg/c$i" 2>/dev/null || true; done
	rmdir "$cg" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$cg"
for i in $(seq "$children"); do
	mkdir "$cg/c$i"
	sh -c "echo \$\$ >$cg/c$i/cgroup.procs; exec nice -n 19 sh -c 'while :; do :; done'" &
	pids+=($!)
done
loop="for i in \$(seq $reads); do cat $cg/cpu.stat >/dev/null; done"
# bpftrace -c splits its command at spaces: the loop goes in a script.
echo "$loop" >"$work/loop.sh"

echo "== record (default: holds timed in the kernel), $reads reads, $children children"
"$bin" record -q -a -o "$work/bpf.data" -- sh -c "$loop"
"$bin" report -i "$work/bpf.data" 2>/dev/null |
	sed -n '/^Spans timed in the kernel/,/^holds:/p' | grep -v '^flush\|^memcg'

echo "== record --spans perf (holds paired from perf's records)"
"$bin" record -q -a --spans perf -o "$work/perf.data" -- sh -c "$loop"
"$bin" report -i "$work/perf.data" 2>/dev/null |
	sed -n '/^Lock hold time/,/^pairs/p'

if command -v bpftrace >/dev/null; then
	echo "== bpftrace, alone (every hold of every task, all subsystems)"
	cat >"$work/holds.bt" <<'BT'
tracepoint:cgroup:cgroup_rstat_locked { @start[cpu] = nsecs; }
tracepoint:cgroup:cgroup_rstat_unlock /@start[cpu]/ {
	@hold = hist(nsecs - @start[cpu]); delete(@start[cpu]);
}
END { clear(@start); }
BT
	bpftrace "$work/holds.bt" -c "/bin/sh $work/loop.sh" 2>/dev/null |
		sed -n '/^@hold/,$p'
fi
