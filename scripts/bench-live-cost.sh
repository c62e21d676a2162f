#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): what `rstat-analyze watch` costs (issue 29).
#   idle     the daemon's CPU over SECONDS with no workload of ours
#            (whatever else the machine flushes is counted), scraped
#            every second;
#   loaded   the daemon's CPU while R readers read a parent cgroup's
#            cpu.stat in tight loops (the shell's builtin read, no fork)
#            with C busy children: the highest flush rate two shell
#            loops make here; the flush and hold events per second it
#            saw, from its own metrics;
#   per event  what the unlock program costs after a hold's end, from
#            the daemon's own rstat_exporter_bpf_unlock_seconds_total
#            over the holds it timed (the program reads the clock at its
#            end too: no machine-wide kernel.bpf_stats_enabled needed);
#            the readers' rate without and with the daemon (noisy on a
#            shared machine: for the record only); and the shortest hold
#            the same programs time back to back
#            (locked -> unlock with nothing between: the bound of what
#            timing adds inside a hold, as `record` states it), through
#            build/tools/bpf-spans-run.
# Prints one table; figures in docs/performance.md ("Live views").
#
# -s runs the daemon with --no-stacks (no kernel stack taken at unlocks).
#
# Usage: scripts/bench-live-cost.sh [-d SECONDS] [-r READERS] [-c CHILDREN]
#                                   [-b BINARY] [-s]
set -eu
cd "$(dirname "$0")/.."

secs=10 readers=2 children=2 bin=./rstat-analyze nostacks=
while getopts "d:r:c:b:s" o; do
	case $o in
	d) secs=$OPTARG ;;
	r) readers=$OPTARG ;;
	c) children=$OPTARG ;;
	b) bin=$OPTARG ;;
	s) nostacks=--no-stacks ;;
	*) echo "usage: $0 [-d SECONDS] [-r READERS] [-c CHILDREN] [-b BINARY] [-s]" >&2
	   exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "bench-live-cost: needs root" >&2; exit 1; }
[ -x "$bin" ] || make -s all
[ -x build/tools/bpf-spans-run ] || make -s build/tools/bpf-spans-run

. "$(dirname "$0")/busy-tree-lib.sh"
work=$(mktemp -d /tmp/rs-live-cost.XXXXXX)
pids=()
wpid=
cleanup() {
	[ -n "$wpid" ] && kill -TERM "$wpid" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	busy_tree_remove
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

busy_tree_make rs-live-cost || exit 1

# R readers for $secs seconds; prints the reads per second of them all.
read_rate() {
	local r rp=()
	for ((r = 0; r < readers; r++)); do
		bash -c 'n=0; end=$((SECONDS + $2))
			while [ $SECONDS -lt $end ]; do
				for i in 1 2 3 4 5 6 7 8 9 10; do
					read -r _ <"$1/cpu.stat"
				done
				n=$((n + 10))
			done; echo $n' sh "$cg" "$secs" >"$work/reads.$r" &
		rp+=($!)
	done
	wait "${rp[@]}"
	cat "$work"/reads.* | awk -v s="$secs" '{ n += $1 } END { printf "%.0f\n", n / s }'
	rm -f "$work"/reads.*
}

# A metric's value summed over its series, from the daemon's page.
metric() {
	curl -sf "http://127.0.0.1:$port/metrics" |
		awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $2 } END { printf "%.6f\n", s }'
}

# Scrape every second, as a Prometheus would, while the daemon runs.
scraper() {
	while kill -0 "$wpid" 2>/dev/null; do
		curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" || true
		sleep 1
	done
}

base=$(read_rate)

"$bin" watch --listen 127.0.0.1:0 $nostacks 2>"$work/watch.err" &
wpid=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's|.*serving http://[^ ]*:\([0-9]*\)/metrics.*|\1|p' "$work/watch.err")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { cat "$work/watch.err" >&2; exit 1; }
scraper &
pids+=($!)

# Idle. The daemon's own figure (getrusage, microseconds): a tick-based
# /proc figure rounds this to 0.
sleep 1.5
c0=$(metric rstat_exporter_cpu_seconds_total)
sleep "$secs"
c1=$(metric rstat_exporter_cpu_seconds_total)
idle=$(awk -v a="$c0" -v b="$c1" -v s="$secs" 'BEGIN { printf "%.2f", (b - a) / s * 100 }')

# Loaded.
f0=$(metric rstat_flush_total)
h0=$(metric rstat_lock_hold_seconds_count)
u0=$(metric rstat_exporter_bpf_unlock_seconds_total)
c0=$(metric rstat_exporter_cpu_seconds_total)
with=$(read_rate)
sleep 1.5	# one more read of the maps
c1=$(metric rstat_exporter_cpu_seconds_total)
f1=$(metric rstat_flush_total)
h1=$(metric rstat_lock_hold_seconds_count)
u1=$(metric rstat_exporter_bpf_unlock_seconds_total)
loaded=$(awk -v a="$c0" -v b="$c1" -v s="$secs" 'BEGIN { printf "%.2f", (b - a) / s * 100 }')
rss=$(metric rstat_exporter_resident_memory_bytes)
kill -TERM $wpid
wait $wpid 2>/dev/null || true
wpid=
# The machine changes meanwhile (it is shared): a second baseline after.
base2=$(read_rate)
base=$(( (base + base2) / 2 ))

# The shortest hold the programs time, back to back.
id=$(stat -c %i "$cg")
build/tools/bpf-spans-run -c "$id" -- bash -c \
	'for ((i = 0; i < 20000; i++)); do read -r _ <"$1/cpu.stat"; done' \
	sh "$cg" >"$work/spans" 2>&1
min=$(sed -n 's/^hold any .* min=\([0-9]*\).*/\1/p' "$work/spans")

printf 'readers %d, children %d, %d s a phase, %s%s\n' "$readers" \
	"$children" "$secs" "$(uname -r)" "${nostacks:+, watch $nostacks}"
printf '%-44s %s (%s before, %s after)\n' "reads/s without the daemon" \
	"$base" "$((2 * base - base2))" "$base2"
printf '%-44s %s\n' "reads/s with it (one flush a read)" "$with"
printf '%-44s %s\n' "flushes/s it counted (all cgroups)" \
	"$(awk -v a="$f0" -v b="$f1" -v s="$secs" 'BEGIN { printf "%.0f", (b - a) / s }')"
printf '%-44s %s\n' "lock holds/s it timed (all cgroups)" \
	"$(awk -v a="$h0" -v b="$h1" -v s="$secs" 'BEGIN { printf "%.0f", (b - a) / s }')"
printf '%-44s %s%%\n' "daemon CPU, idle (of one CPU)" "$idle"
printf '%-44s %s%%\n' "daemon CPU, loaded (of one CPU)" "$loaded"
printf '%-44s %s MiB\n' "daemon RSS" "$(awk -v b="$rss" 'BEGIN { printf "%.1f", b / 1048576 }')"
printf '%-44s %s ns\n' "unlock program per hold, after its end" \
	"$(awk -v a="$u0" -v b="$u1" -v x="$h0" -v y="$h1" 'BEGIN {
		if (y > x) printf "%.0f", (b - a) * 1e9 / (y - x); else print "-" }')"
printf '%-44s %s ns\n' "added per read, from rates (noisy)" \
	"$(awk -v a="$base" -v b="$with" -v r="$readers" 'BEGIN {
		if (a > 0 && b > 0) printf "%.0f", (r / b - r / a) * 1e9; else print "-" }')"
printf '%-44s %s ns\n' "shortest hold timed, back to back" "${min:--}"
