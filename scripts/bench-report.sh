#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): how fast `report --folded` reads and folds a large
# recording, against perf on the same file.
#
# Records (with perf) a system-wide cpu-clock recording with callchains,
# 20 s at 20 kHz while both CPUs are busy in user and kernel code (about
# 500k-800k samples), then times, RUNS times each (median wall time and
# peak RSS):
#   rstat-analyze report --folded
#   perf report --stdio --no-children -g folded,0,caller,count
#   perf script
#
# Usage: scripts/bench-report.sh [-r RUNS] [-d SECONDS] [-F HZ] [-i FILE]
#   -i FILE   reuse an existing recording instead of recording one
set -eu
cd "$(dirname "$0")/.."

runs=5 secs=20 freq=20000 input=
while getopts "r:d:F:i:" o; do
	case $o in
	r) runs=$OPTARG ;;
	d) secs=$OPTARG ;;
	F) freq=$OPTARG ;;
	i) input=$OPTARG ;;
	*) echo "usage: $0 [-r RUNS] [-d SECONDS] [-F HZ] [-i FILE]" >&2; exit 2 ;;
	esac
done

command -v perf >/dev/null || { echo "bench: needs perf (linux-perf)" >&2; exit 1; }
[ -x ./rstat-analyze ] || make -s
work=$(mktemp -d /tmp/rstat-bench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -z "$input" ]; then
	input=$work/bench.data
	# Load: one CPU in user space, one mostly in the kernel (stat reads),
	# so stacks have both kinds of frames.
	( while :; do :; done ) & pids+=($!)
	( while :; do cat /proc/self/stat /sys/fs/cgroup/unified/cgroup.stat \
		>/dev/null 2>&1; done ) & pids+=($!)
	perf record -q -a -g -e cpu-clock -F "$freq" -o "$input" \
		-- sleep "$secs" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	pids=()
fi
kallsyms=$work/kallsyms
cp /proc/kallsyms "$kallsyms"
samples=$(perf script -i "$input" -F event 2>/dev/null | wc -l)
size=$(du -h "$input" | cut -f1)
echo "input: $input ($size, $samples samples), $runs runs each"

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

printf '%-28s %10s %14s\n' "command" "wall" "peak RSS"
measure "rstat-analyze --folded" ./rstat-analyze report -i "$input" \
	--kallsyms "$kallsyms" --folded
measure "perf report -g folded" perf report -i "$input" --kallsyms \
	"$kallsyms" --stdio --no-children -g folded,0,caller,count
measure "perf script" perf script -i "$input" --kallsyms "$kallsyms"
