#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): how fast `report --folded` reads and folds a large
# recording, against perf on the same file, and what attribution (the
# default `report`) costs next to folding.
#
# Records (with perf) a system-wide cpu-clock recording with callchains,
# 20 s at 20 kHz while both CPUs are busy (about 800k samples), under two
# loads:
#   steady  one CPU spinning in user space, the other reading cgroup and
#           proc stat files in a loop without forking (few distinct stacks
#           over and over, like a profile of a flush-heavy reader);
#   fork    the same, but each read is a new `cat` process: thousands of
#           short-lived processes, each with its own maps and stacks (the
#           worst case for caching).
# Then times, RUNS times each on the same file (median wall time and peak
# RSS):
#   rstat-analyze report --folded
#   rstat-analyze report            (attribution; target: <= 1.5x --folded)
#   perf report --stdio --no-children -g folded,0,caller,count
#   perf script
#
# Usage: scripts/bench-report.sh [-r RUNS] [-d SECONDS] [-F HZ]
#                                [-l steady|fork|both] [-i FILE]
#   -i FILE   time an existing recording instead of recording
set -eu
cd "$(dirname "$0")/.."

runs=5 secs=20 freq=20000 input= loads=both
while getopts "r:d:F:i:l:" o; do
	case $o in
	r) runs=$OPTARG ;;
	d) secs=$OPTARG ;;
	F) freq=$OPTARG ;;
	i) input=$OPTARG ;;
	l) loads=$OPTARG ;;
	*) echo "usage: $0 [-r RUNS] [-d SECONDS] [-F HZ] [-l steady|fork|both] [-i FILE]" >&2; exit 2 ;;
	esac
done
[ "$loads" = both ] && loads="steady fork"
stat=/sys/fs/cgroup/unified/cgroup.stat
[ -r "$stat" ] || stat=/sys/fs/cgroup/cgroup.stat

command -v perf >/dev/null || { echo "bench: needs perf (linux-perf)" >&2; exit 1; }
[ -x ./rstat-analyze ] || make -s
work=$(mktemp -d /tmp/rstat-bench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

record() {		# record LOAD FILE
	( while :; do :; done ) & pids+=($!)
	if [ "$1" = fork ]; then
		( while :; do cat /proc/self/stat "$stat" >/dev/null 2>&1; done ) &
	else
		( while :; do read -r _ <"$stat"; read -r _ </proc/self/stat; done ) &
	fi
	pids+=($!)
	perf record -q -a -g -e cpu-clock -F "$freq" -o "$2" \
		-- sleep "$secs" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=()
}
kallsyms=$work/kallsyms
cp /proc/kallsyms "$kallsyms"

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

measure() {
	local name=$1; shift
	local i t=() m=()
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>&1
		read -r e k <"$work/time"
		t+=("$e") m+=("$k")
	done
	printf '%-28s %8.2f s %10d KiB\n' "$name" \
		"$(printf '%s\n' "${t[@]}" | median)" \
		"$(printf '%s\n' "${m[@]}" | median)"
}

bench() {		# bench LABEL FILE
	local samples size
	samples=$(perf script -i "$2" -F event 2>/dev/null | wc -l)
	size=$(du -h "$2" | cut -f1)
	echo "== $1: $size, $samples samples, $runs runs each"
	printf '%-28s %10s %14s\n' "command" "wall" "peak RSS"
	measure "rstat-analyze --folded" ./rstat-analyze report -i "$2" \
		--kallsyms "$kallsyms" --folded
	measure "rstat-analyze attribution" ./rstat-analyze report -i "$2" \
		--kallsyms "$kallsyms"
	measure "perf report -g folded" perf report -i "$2" --kallsyms \
		"$kallsyms" --stdio --no-children -g folded,0,caller,count
	measure "perf script" perf script -i "$2" --kallsyms "$kallsyms"
	echo
}

if [ -n "$input" ]; then
	bench "$input" "$input"
	exit 0
fi
for load in $loads; do
	record "$load" "$work/$load.data"
	bench "$load load" "$work/$load.data"
done
