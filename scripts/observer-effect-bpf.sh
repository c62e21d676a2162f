#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): the rstat lock hold p50 as three observers see
# the same workload (issue 13, "Spans measured in the kernel"):
#   bpf-spans  our BPF module (include/bpf-spans.h), through
#              build/tools/bpf-spans-run: timestamps and log2 histograms
#              kept in the kernel, the stack taken after the unlock's clock;
#   bpftrace   `bpftrace -e` with @=hist on the same tracepoints, written
#              as well as bpftrace allows (the unlock reads nsecs first);
#   perf       `perf record` of the two tracepoints without callchains,
#              paired per CPU from `perf script` (exact percentiles).
# All three filter on the workload's cgroup id in the locked program only
# (before its clock), so nothing of the filter lands inside a hold.
#
# Workload: a v2 cgroup of the benchmark's own with 8 child cgroups, each
# with one busy shell loop, and a shell loop of `cat PARENT/cpu.stat` for
# SECONDS; a pass with no observer gives the reads/s an observer slows.
# The hold histograms are log2: a p50 is a bucket [LO, 2*LO).
#
# Usage: scripts/observer-effect-bpf.sh [-r RUNS] [-d SECONDS] [-c CHILDREN]
set -eu
cd "$(dirname "$0")/.."

runs=3 secs=5 children=8
while getopts "r:d:c:" o; do
	case $o in
	r) runs=$OPTARG ;;
	d) secs=$OPTARG ;;
	c) children=$OPTARG ;;
	*) echo "usage: $0 [-r RUNS] [-d SECONDS] [-c CHILDREN]" >&2
	   exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "observer-effect-bpf: needs root" >&2; exit 1; }
[ -x build/tools/bpf-spans-run ] || make -s build/tools/bpf-spans-run
have_bpftrace=0 have_perf=0
command -v bpftrace >/dev/null && have_bpftrace=1
command -v perf >/dev/null && have_perf=1
[ $have_bpftrace = 1 ] ||
	echo "observer-effect-bpf: bpftrace not installed (apt-get install bpftrace): its rows are skipped" >&2

. "$(dirname "$0")/busy-tree-lib.sh"
work=$(mktemp -d /tmp/rs-observer-bpf.XXXXXX)
cleanup() {
	busy_tree_remove
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

busy_tree_make rs-observer-bpf || exit 1
id=$(stat -c %i "$cg")

# The reader: cat PARENT/cpu.stat for $secs seconds (the clock is looked
# at every 50 reads); prints how many reads it did.
cat >"$work/reader.sh" <<EOF
n=0; end=\$((\$(date +%s) + $secs))
while [ \$(date +%s) -lt \$end ]; do
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \\
		21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 \\
		41 42 43 44 45 46 47 48 49 50; do
		cat $cg/cpu.stat >/dev/null
	done
	n=\$((n + 50))
done
echo \$n >$work/reads
EOF

cat >"$work/hold.bt" <<EOF
tracepoint:cgroup:cgroup_rstat_locked /args->id == $id/ { @s[tid] = nsecs; }
tracepoint:cgroup:cgroup_rstat_unlock {
	\$t = nsecs;
	if (@s[tid]) { @hold = hist(\$t - @s[tid]); delete(@s[tid]); }
}
EOF

# p50 bucket of a bpftrace hist ("[256, 512)  123 |@@@|" lines; 1K, 2M).
bt_p50() {
	awk '
	function num(s) {
		if (s ~ /K$/) return substr(s, 1, length(s) - 1) * 1024
		if (s ~ /M$/) return substr(s, 1, length(s) - 1) * 1048576
		return s + 0
	}
	/^\[/ {
		s = $0; gsub(/[\[\),]/, " ", s); split(s, f, " ")
		lo[n] = num(f[1]); c[n] = f[3] + 0; tot += c[n]; n++
	}
	END {
		if (!tot) { print "- 0"; exit }
		for (i = 0; i < n; i++) { seen += c[i]; if (seen * 2 >= tot) break }
		printf "%d %d\n", lo[i], tot
	}' "$1"
}

# Holds from perf script: locked -> unlock on one CPU; p50 exact, its
# log2 bucket, the count.
perf_p50() {
	perf script -i "$1" --ns -F cpu,time,event 2>/dev/null | awk '
	{
		cpu = $1; gsub(/[\[\]]/, "", cpu)
		t = $2; sub(/:$/, "", t); split(t, p, "."); ns = p[1] * 1e9 + p[2]
		if ($3 ~ /cgroup_rstat_locked/) start[cpu] = ns
		else if ($3 ~ /cgroup_rstat_unlock/ && (cpu in start)) {
			print ns - start[cpu]; delete start[cpu]
		}
	}' | sort -n | awk '
	{ v[NR] = $1 }
	END {
		if (!NR) { print "- - 0"; exit }
		m = v[int((NR + 1) / 2)]; b = 1
		while (b * 2 <= m) b *= 2
		printf "%d %d %d\n", m, (m ? b : 0), NR
	}'
}

printf '%-10s %3s %8s %8s %14s %10s\n' observer run "reads/s" holds \
	"hold p50 (ns)" "exact p50"
for ((r = 1; r <= runs; r++)); do
	sh "$work/reader.sh"
	printf '%-10s %3d %8d %8s %14s %10s\n' none "$r" \
		$(($(cat "$work/reads") / secs)) - - -

	build/tools/bpf-spans-run -c "$id" -- sh "$work/reader.sh" \
		>"$work/ours" 2>"$work/ours.err" || { cat "$work/ours.err" >&2; exit 1; }
	line=$(grep '^hold any ' "$work/ours" || true)
	p50=$(sed -n 's/.*p50=\[\([0-9]*\),\([0-9]*\)\].*/\1-\2/p' <<<"$line")
	cnt=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' <<<"$line")
	printf '%-10s %3d %8d %8s %14s %10s\n' bpf-spans "$r" \
		$(($(cat "$work/reads") / secs)) "${cnt:-0}" "${p50:--}" -

	if [ $have_bpftrace = 1 ]; then
		bpftrace "$work/hold.bt" -c "/bin/sh $work/reader.sh" \
			>"$work/bt" 2>"$work/bt.err" || { cat "$work/bt.err" >&2; exit 1; }
		read -r lo cnt < <(bt_p50 "$work/bt")
		printf '%-10s %3d %8d %8s %14s %10s\n' bpftrace "$r" \
			$(($(cat "$work/reads") / secs)) "$cnt" \
			"$lo-$((lo * 2 - 1))" -
	fi

	if [ $have_perf = 1 ]; then
		perf record -q -a -o "$work/perf.data" \
			-e cgroup:cgroup_rstat_locked --filter "id == $id" \
			-e cgroup:cgroup_rstat_unlock --filter "id == $id" \
			-- sh "$work/reader.sh" >/dev/null 2>"$work/perf.err" ||
			{ cat "$work/perf.err" >&2; exit 1; }
		read -r exact lo cnt < <(perf_p50 "$work/perf.data")
		printf '%-10s %3d %8d %8s %14s %10s\n' perf "$r" \
			$(($(cat "$work/reads") / secs)) "$cnt" \
			"$lo-$((lo * 2 - 1))" "$exact"
	fi
done
