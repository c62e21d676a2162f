#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): what `record --breakdown` costs the rest of the
# machine. Its programs sit on the syscall tracepoints (raw sys_enter and
# sys_exit, or fentry on the read syscalls where the kernel allows), so
# every task's syscalls, not only the targets', take the traced path
# while it records. A bystander, `dd` copying N bytes one at a time from
# /dev/zero to /dev/null (2N syscalls), is timed alone, beside `record
# --breakdown -- sleep`, and beside plain `record -- sleep`, in
# interleaved rounds; the medians and the added time per syscall.
#
# Usage: scripts/bench-record-breakdown-cost.sh [-r ROUNDS] [-n BYTES]
set -eu
cd "$(dirname "$0")/.."

rounds=5 n=1000000
while getopts "r:n:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-n BYTES]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench-record-breakdown-cost: needs root" >&2; exit 1; }
[ -x ./rstat-analyze ] || make -s rstat-analyze
work=$(mktemp -d /tmp/rstat-bd-sys.XXXXXX)
trap 'rm -rf "$work"' EXIT

bystander() {
	local s e
	s=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count="$n" 2>/dev/null
	e=$(date +%s%N)
	echo $((e - s))
}

# beside OPTIONS...: the bystander while record runs with OPTIONS.
beside() {
	./rstat-analyze record -q -o "$work/r.data" "$@" -- sleep 30 &
	local pid=$! t
	sleep 2		# programs loaded and attached
	t=$(bystander)
	kill -INT $pid
	wait $pid || true
	echo "$t"
}

for _ in $(seq "$rounds"); do
	bystander >>"$work/alone"
	beside --breakdown >>"$work/bd"
	beside >>"$work/plain"
done
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
a=$(median "$work/alone") b=$(median "$work/bd") p=$(median "$work/plain")
printf 'bystander, %d syscalls: alone %.3f s, beside record %.3f s, beside record --breakdown %.3f s\n' \
	$((2 * n)) "$(echo "$a / 1000000000" | bc -l)" "$(echo "$p / 1000000000" | bc -l)" \
	"$(echo "$b / 1000000000" | bc -l)"
printf 'record --breakdown adds %.0f ns a syscall to a task it does not follow (record alone: %.0f ns)\n' \
	"$(echo "($b - $a) / (2 * $n)" | bc -l)" "$(echo "($p - $a) / (2 * $n)" | bc -l)"
