#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): how fast `report` folds and attributes a large
# system-wide recording, side by side with perf in one run, and how its
# cost grows with the number of samples.
#
# The recordings are made once, with Debian's perf, and kept in DIR
# (default build/bench-report-speed): cpu-clock with callchains at 20 kHz
# on all CPUs (perf record -a -g), for as long as it takes to collect
# about SIZE samples (100k, 800k, 3M; recorded once more, longer, if the
# first try fell 10% short), under one of two loads (-l):
#   compile  cpu-clock-SIZE.data: a shell loop reads cgroup.stat and
#            /proc/self/stat and two loops compile the tool's sources one
#            file at a time (short-lived processes and dsos, a C++
#            compiler's user stacks without frame pointers: a shared build
#            machine's load)
#   fork     fork-SIZE.data: two shell loops that start a process for
#            every iteration, `cat` of the cpu.stat of the script's own
#            cgroup and `dd` of /dev/zero (the seed experiments' loops):
#            thousands of short-lived processes, each with its own maps
#            (ASLR: its own addresses) and COMM/MMAP/FORK records
# A copy
# of /proc/kallsyms taken at the same time sits beside them, so that every
# command resolves kernel frames with the same symbols.
#
# On the 800k recording of each load, RUNS rounds of each in turn (page cache warm,
# output to /dev/null; median wall time, CPU time and peak RSS, taken by a
# few lines of python3 as /usr/bin/time takes them (fork, exec, wait4)
# but to the microsecond, peak RSS with a floor of about 10 MB, python's
# own before the exec; each round starts one
# command further on):
#   rstat-analyze report --folded            (both CPUs, the default)
#   rstat-analyze report --folded -j 1       (one thread)
#   rstat-analyze report                     (attribution, text)
#   rstat-analyze report -j 1
#   perf report --stdio --no-children -g folded,0,caller,count
#   perf script | stackcollapse-perf.pl      (when the script is found:
#                                             $STACKCOLLAPSE or PATH)
#   perf script                              (the pipeline's first half:
#                                             a lower bound for it)
#   perf script -s stackcollapse.py          (perf's own folding script,
#                                             as linux-perf ships it;
#                                             at most 3 runs: it is slow)
# Then, on every size, `report --folded` and `report` alone: wall, RSS,
# distinct stacks, and time per sample, to show the cost grows linearly.
#
# Usage: scripts/bench-report-speed.sh [-r RUNS] [-s "100k 800k 3M"]
#                                      [-l "compile fork"] [-d DIR]
#                                      [-b BINARY] [-B BINARY] [-n]
#   -l   the loads to record and time (default both)
#   -b   the rstat-analyze to measure (default ./rstat-analyze)
#   -B   an older build to time beside it (report --folded and report,
#        without -j), for before/after figures from one run
#   -n   make the missing recordings and stop
set -eu
cd "$(dirname "$0")/.."

runs=5 sizes="100k 800k 3M" dir=build/bench-report-speed bin=./rstat-analyze
base="" loads="compile fork"
freq=20000
usage() {
	echo "usage: $0 [-r RUNS] [-s \"100k 800k 3M\"] [-l \"compile fork\"] [-d DIR] [-b BINARY] [-B BINARY] [-n]" >&2
	exit 2
}
record_only=
while getopts "r:s:l:d:b:B:n" o; do
	case $o in
	r) runs=$OPTARG ;;
	l) loads=$OPTARG ;;
	s) sizes=$OPTARG ;;
	d) dir=$OPTARG ;;
	b) bin=$OPTARG ;;
	B) base=$OPTARG ;;
	n) record_only=1 ;;
	*) usage ;;
	esac
done
[ "$runs" -ge 1 ] 2>/dev/null || usage
for l in $loads; do
	case $l in compile|fork) ;; *) usage ;; esac
done

command -v perf >/dev/null || { echo "bench: needs perf (linux-perf)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench: needs python3 (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$bin" ] || make -s
mkdir -p "$dir"
work=$(mktemp -d /tmp/rstat-bench-speed.XXXXXX)
pids=()
partial=
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -z "$partial" ] || rm -f "$partial"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stat=/sys/fs/cgroup/unified/cgroup.stat
[ -r "$stat" ] || stat=/sys/fs/cgroup/cgroup.stat
# cpu.stat of the cgroup this script runs in (cgroup v2, or the unified
# hierarchy of a hybrid setup)
cg=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
cpustat=/sys/fs/cgroup/unified${cg%/}/cpu.stat
[ -r "$cpustat" ] || cpustat=/sys/fs/cgroup${cg%/}/cpu.stat
sc=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
# perf's own folding script (linux-perf ships it), when perf can run it
pysc=/usr/lib/perf-core/scripts/python/stackcollapse.py

# 100k -> 100000, 3M -> 3000000
count() {
	case $1 in
	*k) echo $((${1%k} * 1000)) ;;
	*M) echo $((${1%M} * 1000000)) ;;
	*) echo "$1" ;;
	esac
}

# samples FILE: how many samples perf counts in it
samples() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/SAMPLE events:/ { print $3; exit }'
}

# load_fork: a process per iteration in two loops, as the seed
# experiments' shell loops: each `cat` and `dd` maps its binary, ld.so and
# libc at addresses of its own, so every one brings new raw callchains.
load_fork() {
	[ -r "$cpustat" ] || { echo "bench: no cpu.stat at $cpustat" >&2; exit 1; }
	( while :; do cat "$cpustat" >/dev/null; done ) & pids+=($!)
	( while :; do dd if=/dev/zero of=/dev/null bs=4k count=16 2>/dev/null
	  done ) & pids+=($!)
}

# record_for LOAD FILE SECONDS: the recording under LOAD
record_for() {
	local load=$1 f=$2 secs=$3
	if [ "$load" = fork ]; then
		load_fork
	else
		load_compile
	fi
	partial=$f.tmp
	perf record -q -a -g -e cpu-clock -F "$freq" -o "$partial" \
		-- sleep "$secs" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=()
	mv "$partial" "$f"
	partial=
}

# load_compile: a stat reader without forks beside two compile loops
load_compile() {
	( while :; do read -r _ <"$stat"; read -r _ </proc/self/stat; done ) &
	pids+=($!)
	# What makes a system-wide recording hard to fold: short-lived
	# processes mapping many dsos, with user stacks that differ all along
	# (a compiler built without frame pointers), as on a machine where
	# others build things. Compiling the tool's own sources, one at a
	# time, makes that load the same in every run.
	for _ in 1 2; do
		( while :; do for c in src/*/*.c; do
			cc -O2 -w -D_GNU_SOURCE -Iinclude -Ibuild -c -o /dev/null "$c" \
				2>/dev/null
		done; done ) & pids+=($!)
	done
}

# data LOAD SIZE: the recording's file name
data() {
	if [ "$1" = fork ]; then
		echo "$dir/fork-$2.data"
	else
		echo "$dir/cpu-clock-$2.data"
	fi
}

# record LOAD SIZE: the recording, unless it is there already
record() {
	local load=$1 f want cpus secs got
	f=$(data "$1" "$2")
	[ -s "$f" ] && return 0
	want=$(count "$2")
	cpus=$(nproc)
	secs=$(( (want + freq * cpus - 1) / (freq * cpus) ))
	echo "recording $f: ${secs} s at $freq Hz on $cpus CPUs" >&2
	record_for "$load" "$f" "$secs"
	# The kernel throttles cpu-clock and idle CPUs take no samples:
	# once more, longer, when that left the recording 10% short.
	got=$(samples "$f")
	if [ "${got:-0}" -gt 0 ] && [ "$got" -lt $((want * 9 / 10)) ]; then
		secs=$(( (secs * want + got - 1) / got ))
		echo "recording $f again: $got samples, ${secs} s" >&2
		record_for "$load" "$f" "$secs"
	fi
	[ -s "$dir/kallsyms" ] || cp /proc/kallsyms "$dir/kallsyms"
}

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# time1 KEY CMD...: one timed run of CMD, its wall time, peak RSS (KiB)
# and CPU time (user + sys, s) appended to $work/KEY. On a shared machine
# wall time includes waiting for a CPU; CPU time is the work done.
time1() {
	local key=$1
	shift
	python3 scripts/timed_run.py "$work/time" "$@" >/dev/null \
		2>"$work/err" || {
		echo "bench: $key failed: $(tail -n 3 "$work/err")" >&2
		exit 1
	}
	cat "$work/time" >>"$work/$key"
}

# medians KEY: sets $wall, $rss and $cpu, the medians of KEY's runs
medians() {
	wall=$(cut -d' ' -f1 "$work/$1" | median)
	rss=$(cut -d' ' -f2 "$work/$1" | median)
	cpu=$(cut -d' ' -f3 "$work/$1" | median)
}

line() {		# line KEY NAME: KEY's medians
	medians "$1"
	printf '| %-46s | %7.3f s | %7.3f s | %7.1f MB |\n' "$2" "$wall" \
		"$cpu" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
}

side_by_side() {	# side_by_side FILE
	local f=$1 ks=$dir/kallsyms samples r
	local rs=("$bin" report -i "$f" --kallsyms "$ks")
	local old=("$base" report -i "$f" --kallsyms "$ks")
	# shellcheck disable=SC2054 # the commas are perf's
	local perf_rep=(perf report -i "$f" --kallsyms "$ks" --stdio
			--no-children -g folded,0,caller,count)
	samples=$(samples "$f")
	echo "== $f: $(du -h "$f" | cut -f1), ${samples:-?} samples, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs"
	echo
	rm -f "$work"/t-*
	local keys=(folded folded1 report report1) k i
	[ -z "$base" ] || keys+=(bfolded breport)
	keys+=(perf)
	[ -z "$sc" ] || keys+=(pipe)
	keys+=(script)
	[ ! -r "$pysc" ] || keys+=(py)
	# Round by round, every command once: a burst of load from others
	# then falls on all of them, not on one command's runs. Each round
	# starts one command further on: the command right after perf
	# script's (140 MB, freed as it exits) ran slower, and that was
	# always --folded.
	for ((r = 0; r < runs; r++)); do
		for ((i = 0; i < ${#keys[@]}; i++)); do
			k=${keys[(i + r) % ${#keys[@]}]}
			case $k in
			folded) time1 t-folded "${rs[@]}" --folded ;;
			folded1) time1 t-folded1 "${rs[@]}" --folded -j 1 ;;
			report) time1 t-report "${rs[@]}" ;;
			report1) time1 t-report1 "${rs[@]}" -j 1 ;;
			bfolded) time1 t-bfolded "${old[@]}" --folded ;;
			breport) time1 t-breport "${old[@]}" ;;
			perf) time1 t-perf "${perf_rep[@]}" ;;
			pipe)
				# shellcheck disable=SC2016 # the inner shell's
				time1 t-pipe sh -c \
					'perf script -i "$1" --kallsyms "$2" | "$3"' \
					sh "$f" "$ks" "$sc" ;;
			script) time1 t-script perf script -i "$f" --kallsyms "$ks" ;;
			py)
				# perf's own folding, slow: at most 3 runs
				[ "$r" -ge 3 ] ||
					time1 t-py perf script -i "$f" \
						--kallsyms "$ks" -s "$pysc" ;;
			esac
		done
	done
	printf '| %-46s | %9s | %9s | %10s |\n' command wall CPU "peak RSS"
	echo "|---|---:|---:|---:|"
	line t-folded "rstat-analyze report --folded"; fw=$wall fr=$rss fc=$cpu
	line t-folded1 "rstat-analyze report --folded -j 1"
	line t-report "rstat-analyze report"; aw=$wall ac=$cpu
	line t-report1 "rstat-analyze report -j 1"
	if [ -n "$base" ]; then
		line t-bfolded "before: rstat-analyze report --folded"
		line t-breport "before: rstat-analyze report"
	fi
	line t-perf "perf report --stdio --no-children -g folded"
	pw=$wall pr=$rss pc=$cpu
	sw=
	if [ -n "$sc" ]; then
		medians t-pipe
		sw=$wall sc_cpu=$cpu
		# the pipeline's CPU time: wait4() counts the shell's children
		printf '| %-46s | %7.3f s | %7.3f s | %10s |\n' \
			"perf script \| stackcollapse-perf.pl" "$wall" "$cpu" "-"
	fi
	line t-script "perf script (alone)"
	[ -n "$sw" ] || sw=$wall sc_cpu=$cpu
	pyw=
	if [ -r "$pysc" ]; then
		line t-py "perf script -s stackcollapse.py"
		pyw=$wall py_cpu=$cpu
	fi
	echo
	awk -v fw="$fw" -v aw="$aw" -v pw="$pw" -v sw="$sw" -v fr="$fr" \
	    -v pr="$pr" -v fc="$fc" -v ac="$ac" -v pc="$pc" -v sc="$sc_cpu" \
	    -v pl="${sc:+stackcollapse-perf.pl}" -v pyw="$pyw" \
	    -v pyc="${py_cpu:-}" 'BEGIN {
		other = pl ? "perf script | " pl : "perf script (alone)"
		printf "--folded: %.3fx perf report wall (%.3fx CPU), %.3fx %s wall (%.3fx CPU), %.2fx perf report RSS\n",
			fw / pw, fc / pc, fw / sw, other, fc / sc, fr / pr
		printf "report:   %.3fx perf report wall (%.3fx CPU), %.3fx %s wall (%.3fx CPU)\n",
			aw / pw, ac / pc, aw / sw, other, ac / sc
		if (pyw)
			printf "--folded: %.3fx perf script -s stackcollapse.py wall (%.3fx CPU)\n",
				fw / pyw, fc / pyc
	}'
	echo
}

scaling() {		# scaling LOAD SIZE...
	local load=$1 s f n stacks r
	shift
	echo "== $load: growth with samples (medians of $runs runs)"
	echo
	echo "| samples | MB | distinct stacks | --folded wall | CPU | RSS | CPU per sample | report wall | CPU | RSS | CPU per sample |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for s in "$@"; do
		f=$(data "$load" "$s")
		n=$(samples "$f")
		stacks=$("$bin" report -i "$f" --kallsyms "$dir/kallsyms" --folded | wc -l)
		rm -f "$work"/g-*
		for ((r = 0; r < runs; r++)); do
			time1 g-folded "$bin" report -i "$f" \
				--kallsyms "$dir/kallsyms" --folded
			time1 g-report "$bin" report -i "$f" \
				--kallsyms "$dir/kallsyms"
		done
		medians g-folded
		local fw=$wall fr=$rss fc=$cpu
		medians g-report
		awk -v n="$n" -v mb="$(du -m "$f" | cut -f1)" -v st="$stacks" \
			-v fw="$fw" -v fr="$fr" -v fc="$fc" -v aw="$wall" \
			-v ar="$rss" -v ac="$cpu" 'BEGIN {
			printf "| %d | %d | %d | %.3f s | %.3f s | %.0f MB | %.2f us | %.3f s | %.3f s | %.0f MB | %.2f us |\n",
				n, mb, st, fw, fc, fr / 1024, fc * 1e6 / n,
				aw, ac, ar / 1024, ac * 1e6 / n }'
	done
	echo
}

for l in $loads; do
	for s in $sizes; do record "$l" "$s"; done
done
[ -z "$record_only" ] || exit 0
for l in $loads; do
	case " $sizes " in
	*" 800k "*) side_by_side "$(data "$l" 800k)" ;;
	*) side_by_side "$(data "$l" "${sizes%% *}")" ;;
	esac
done
for l in $loads; do
	# shellcheck disable=SC2086 # one argument per size
	scaling "$l" $sizes
done
