#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): what recording costs the recorder itself.
# The same workload is recorded by `perf record` and by `rstat-analyze
# record`, system-wide with callchains at the same rate, twice: with the
# same tracepoints recorded at every hit (rstat-analyze --spans perf), and
# with cpu-clock only (rstat-analyze's default: the spans timed in the
# kernel by BPF). For each recorder this prints its own CPU time (user +
# sys of the recorder process) per sample written, its peak RSS and the
# records it lost.
#
# Workload: both CPUs busy: one spinning in user space inside a cgroup of
# the benchmark's own, one reading that cgroup's parent's cpu.stat in a
# loop (an rstat flush per read: about 70k lock tracepoint hits a second
# on the development VM, on top of the samples).
#
# Usage: scripts/bench-record.sh [-r RUNS] [-d SECONDS] [-F HZ]
set -eu
cd "$(dirname "$0")/.."

runs=3 secs=10 freq=4999
while getopts "r:d:F:" o; do
	case $o in
	r) runs=$OPTARG ;;
	d) secs=$OPTARG ;;
	F) freq=$OPTARG ;;
	*) echo "usage: $0 [-r RUNS] [-d SECONDS] [-F HZ]" >&2; exit 2 ;;
	esac
done
command -v perf >/dev/null || { echo "bench: needs perf (linux-perf)" >&2; exit 1; }
[ -x ./rstat-analyze ] || make -s
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
cg=$v2/rstat-analyze-bench-record-$$
work=$(mktemp -d /tmp/rstat-bench-record.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rmdir "$cg/busy" "$cg" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The tracepoints rstat-analyze records by default, every hit: perf gets
# -c 1 for them (-F would sample them too) and the rate as a term of
# cpu-clock.
tps=()
for d in /sys/kernel/tracing/events/cgroup/cgroup_rstat_* \
	/sys/kernel/tracing/events/memcg/memcg_flush_stats; do
	[ -d "$d" ] || continue
	tps+=(-e "$(basename "$(dirname "$d")"):$(basename "$d")")
done

mkdir -p "$cg/busy"
load() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sh -c "while :; do :; done"' \
		sh "$cg/busy" & pids+=($!)
	( while :; do read -r _ <"$cg/cpu.stat"; done ) & pids+=($!)
}
unload() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=()
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# measure NAME FILE CMD...: CPU seconds, peak KiB, samples, lost
measure() {
	local name=$1 file=$2 i cpu=() rss=() per=() lost=()
	shift 2
	for ((i = 0; i < runs; i++)); do
		rm -f "$file"
		load
		/usr/bin/time -f '%U %S %M' -o "$work/time" "$@" \
			>/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
		unload
		read -r u s k <"$work/time"
		n=$(perf script -i "$file" -F event 2>/dev/null | wc -l)
		l=$(perf report -i "$file" --stats 2>/dev/null |
			awk '/LOST/ { s += $NF } END { print s + 0 }')
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		cpu+=("$c") rss+=("$k") lost+=("$l")
		per+=("$(awk -v c="$c" -v n="$n" 'BEGIN { printf "%.2f", n ? c * 1e6 / n : 0 }')")
		echo "  $name run $i: $n samples, ${c}s CPU, ${k} KiB, $l lost" >&2
	done
	printf '%-22s %10s us %10s KiB %8s\n' "$name" \
		"$(printf '%s\n' "${per[@]}" | median)" \
		"$(printf '%s\n' "${rss[@]}" | median)" \
		"$(printf '%s\n' "${lost[@]}" | median)"
}

echo "== system-wide, -g, $freq Hz, $((${#tps[@]} / 2)) tracepoints, ${secs}s, $runs runs (medians)"
printf '%-22s %13s %14s %8s\n' recorder "CPU/sample" "peak RSS" lost
measure "perf record" "$work/perf.data" perf record -q -a -g -c 1 \
	-e "cpu-clock/freq=$freq/" "${tps[@]}" -o "$work/perf.data" \
	-- sleep "$secs"
measure "rstat-analyze record" "$work/rs.data" ./rstat-analyze record -q \
	-a -F "$freq" -e cpu-clock --spans perf -o "$work/rs.data" -d "$secs"

# What a user runs: the default spans, timed in the kernel by BPF (the
# lock tracepoints go to BPF programs, not into the file), against perf
# recording the same samples. The recorder's own cost then includes
# loading, reading and naming the BPF spans.
echo
echo "== system-wide, -g, $freq Hz cpu-clock only, ${secs}s, $runs runs (medians); rstat-analyze with its default spans"
printf '%-22s %13s %14s %8s\n' recorder "CPU/sample" "peak RSS" lost
measure "perf record" "$work/perf.data" perf record -q -a -g \
	-e "cpu-clock/freq=$freq/" -o "$work/perf.data" -- sleep "$secs"
measure "rstat-analyze record" "$work/rs.data" ./rstat-analyze record -q \
	-a -F "$freq" -e cpu-clock -o "$work/rs.data" -d "$secs"
