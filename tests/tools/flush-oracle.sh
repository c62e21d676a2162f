#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An independent measurement of where a stat read's time goes, per flush
# callback, for the tests to hold the tool's figures against: tracefs
# kprobe and kretprobe events on the read (the file's show function) and
# on each per-css flush callback, timestamped by the kernel's ring buffer
# (trace clock mono, raw output: nanoseconds), paired here per task. None
# of the tool's code takes part.
#
# It runs inside a guest (`rstat-analyze record --kernel IMAGE -- this`),
# as root, on a pure cgroup v2 hierarchy with kprobe_events: CHILDREN
# child cgroups of a parent of its own each write and remove a file in a
# loop (page cache charged to and uncharged from their memcg), and this
# process reads the parent's FILE READS times. Then it reads the parent's
# memory.stat once more, as a control: memory's callbacks run there when
# memory had updates that the reads did not flush.
#
# Output, one fact a line, space-separated, the first word says which:
#   kernel RELEASE
#   workload FILE READS CHILDREN
#   charged BYTES                  the parent's memory.peak
#   read SHOWFN COUNT TOTAL_NS OFFCPU_NS OBSERVER_NS IRQ_NS WAIT_NS
#                                  the reader's calls of the show function,
#                                  their time, and the parts of it that are
#                                  not the read's own work: off the CPU
#                                  (sched_switch out to in), an observer's
#                                  programs, interrupts (the timer's and
#                                  softirqs); WAIT_NS, spinning for a
#                                  contended lock, is the read's own
#   observer FUNC COUNT TOTAL_NS   a recorder's programs inside the reads:
#                                  BPF or perf records on tracepoints
#                                  (perf_trace_run_bpf_submit), BPF on
#                                  kprobes (trace_call_bpf)
#   irq NAME COUNT TOTAL_NS        local_timer, softirq inside the reads
#   wait FUNC COUNT TOTAL_NS       native_queued_spin_lock_slowpath inside
#   callback FUNC COUNT TOTAL_NS SHARE WALLSHARE
#                                  calls inside those reads, their time,
#                                  and its share of the reads' own time
#                                  (TOTAL_NS - OFFCPU_NS - OBSERVER_NS -
#                                  IRQ_NS) and of their whole time, in
#                                  percent
#   outside FUNC COUNT             calls not inside a read of the reader
#   control FUNC COUNT             calls inside the memory.stat control read
#   unprobed FUNC REASON           a callback that could not be timed
#                                  (inlined: not in available_filter_functions)
#   lost N                         ring buffer overruns and kprobe misses
# A share is per callback; the base stats' own flush is inlined in
# Debian's kernels (then only the callbacks around it are timed).
# Under TCG give the guest one CPU (--vm-cpus 1): with two, a read's
# time there grows twenty-fold with time no event accounts for (the
# emulation's, not the kernel's), which drowns every share.
#
# Usage: flush-oracle.sh [-f FILE] [-n READS] [-c CHILDREN] [-w SECONDS]
#                        [-p SECONDS]
# -w: how long the children charge before the first read (1 s); -p: a
# pause between reads (none), for the children to update their trees.
# Exit: 0, 1 on error (a line on stderr), 77 when the kernel lacks what
# it needs (kprobe_events, cgroup v2 with memory).
set -u

file=cpu.stat
reads=200
children=8
warm=1
pause=
while getopts f:n:c:w:p: opt; do
	case $opt in
	f) file=$OPTARG ;;
	n) reads=$OPTARG ;;
	c) children=$OPTARG ;;
	w) warm=$OPTARG ;;
	p) pause=$OPTARG ;;
	*) echo "usage: flush-oracle.sh [-f FILE] [-n READS] [-c CHILDREN] [-w SECONDS] [-p SECONDS]" >&2
	   exit 2 ;;
	esac
done

T=/sys/kernel/tracing
[ -d "$T/instances" ] || T=/sys/kernel/debug/tracing
CG=/sys/fs/cgroup

die() {
	echo "flush-oracle: $*" >&2
	exit 1
}

case $file in
cpu.stat) show=cpu_stat_show ;;
memory.stat) show=memory_stat_show ;;
io.stat) show=blkcg_print_stat ;;
*) die "$file: no show function known (cpu.stat, memory.stat, io.stat)" ;;
esac

[ -w "$T/kprobe_events" ] || {
	echo "flush-oracle: skip: no writable kprobe_events under $T (CONFIG_KPROBE_EVENTS)" >&2
	exit 77
}
grep -qw memory "$CG/cgroup.controllers" 2>/dev/null || {
	echo "flush-oracle: skip: no cgroup v2 memory controller at $CG" >&2
	exit 77
}

# Unpredictable names of our own: /proc's random uuid, 12 hex digits.
rnd=$(tr -d '-' </proc/sys/kernel/random/uuid | cut -c1-12)
group=rsor$rnd
inst=$T/instances/rs-oracle.$rnd
# The reader's switches in: sched_switch filtered on next_pid, beside
# the first instance's switches out (prev_pid), the same clock.
inst_in=$T/instances/rs-oracle-in.$rnd
work=$(mktemp -d) || die "cannot make a temporary directory"
parent=$CG/rs-oracle.$rnd
pids=
probes=

cleanup() {
	trap - EXIT INT TERM
	: >"$work/stop" 2>/dev/null
	# shellcheck disable=SC2086 # one word per pid
	[ -z "$pids" ] || kill $pids 2>/dev/null
	wait 2>/dev/null
	for i in "$inst" "$inst_in"; do
		[ -d "$i" ] || continue
		echo 0 >"$i/events/$group/enable" 2>/dev/null
		echo 0 >"$i/events/sched/sched_switch/enable" 2>/dev/null
		rmdir "$i"
	done
	for p in $probes; do
		echo "-:$group/$p" >>"$T/kprobe_events"
	done
	for c in "$parent"/c*; do
		[ -d "$c" ] || continue
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$c" 2>/dev/null && break
			sleep 0.2
		done
	done
	[ -d "$parent" ] && rmdir "$parent"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The probes: entry (e) and return (r) of the show function and of each
# callback that can be probed; the ids map their raw records to names.
: >"$work/map"
probe() {	# NAME FUNC ROLE
	echo "p:$group/$1e $2" >>"$T/kprobe_events" || return 1
	probes="$probes $1e"
	echo "r:$group/$1r $2" >>"$T/kprobe_events" || return 1
	probes="$probes $1r"
	echo "$(cat "$T/events/$group/$1e/id") $2 $3 e" >>"$work/map"
	echo "$(cat "$T/events/$group/$1r/id") $2 $3 r" >>"$work/map"
}
probe rd "$show" read || die "cannot probe $show"
if [ "$show" != memory_stat_show ]; then
	probe ctl memory_stat_show control ||
		die "cannot probe memory_stat_show"
fi
n=0
for f in mem_cgroup_css_rstat_flush blkcg_rstat_flush bpf_rstat_flush \
	 cgroup_base_stat_flush; do
	if ! grep -qx "$f" "$T/available_filter_functions"; then
		echo "unprobed $f inlined"
		continue
	fi
	probe "cb$n" "$f" callback || die "cannot probe $f"
	n=$((n + 1))
done
# Spinning for a lock inside the reads (contended: the slow path).
f=native_queued_spin_lock_slowpath
if grep -qx "$f" "$T/available_filter_functions"; then
	probe wt0 "$f" wait || echo "unprobed $f refused"
fi
# Who watches the reads: a recorder's BPF programs or perf records on
# the rstat tracepoints run inside them (the guest runs under record).
n=0
for f in perf_trace_run_bpf_submit trace_call_bpf; do
	grep -qx "$f" "$T/available_filter_functions" || continue
	probe "ob$n" "$f" observer || { echo "unprobed $f refused"; continue; }
	n=$((n + 1))
done

# The workload: children charging memory, in cgroups of our own.
mkdir "$parent" || die "cannot create $parent"
for c in memory io cpu; do
	echo "+$c" >"$parent/cgroup.subtree_control" 2>/dev/null
done
i=0
while [ "$i" -lt "$children" ]; do
	mkdir "$parent/c$i" || die "cannot create $parent/c$i"
	(
		while [ ! -e "$work/stop" ]; do
			dd if=/dev/zero of="$work/f$i" bs=64k count=16 \
				2>/dev/null
			rm -f "$work/f$i"
		done
	) &
	echo $! >"$parent/c$i/cgroup.procs" || die "cannot move $! to c$i"
	pids="$pids $!"
	i=$((i + 1))
done
sleep "$warm"

for i in "$inst" "$inst_in"; do
	mkdir "$i" || die "cannot create the tracefs instance $i"
	echo mono >"$i/trace_clock"
	echo 1 >"$i/options/raw"
done
echo 8192 >"$inst/buffer_size_kb"
if ! { echo "prev_pid == $$" >"$inst/events/sched/sched_switch/filter" &&
	echo "next_pid == $$" >"$inst_in/events/sched/sched_switch/filter" &&
	echo 1 >"$inst/events/sched/sched_switch/enable" &&
	echo 1 >"$inst_in/events/sched/sched_switch/enable"; }; then
	die "cannot trace sched:sched_switch"
fi
echo "$(cat "$T/events/sched/sched_switch/id") sched_switch switch out" \
	>>"$work/map"
echo 1 >"$inst/events/$group/enable" || die "cannot enable $group in $inst"
# Interrupts taken while reading: the timer's and the softirqs after it.
for e in irq_vectors/local_timer_entry:local_timer:e \
	 irq_vectors/local_timer_exit:local_timer:r \
	 irq/softirq_entry:softirq:e irq/softirq_exit:softirq:r; do
	ev=${e%%:*}
	[ -d "$inst/events/$ev" ] || continue
	rest=${e#*:}
	echo 1 >"$inst/events/$ev/enable" || continue
	echo "$(cat "$T/events/$ev/id") ${rest%:*} irq ${rest#*:}" >>"$work/map"
done

# The reader is this shell: the redirection opens the file, the builtin
# read reads it, no process per read.
i=0
while [ "$i" -lt "$reads" ]; do
	while read -r _; do :; done <"$parent/$file"
	i=$((i + 1))
	[ -z "$pause" ] || sleep "$pause"
done
while read -r _; do :; done <"$parent/memory.stat"

echo 0 >"$inst/events/$group/enable"
for ev in irq_vectors/local_timer_entry irq_vectors/local_timer_exit \
	  irq/softirq_entry irq/softirq_exit; do
	[ -d "$inst/events/$ev" ] && echo 0 >"$inst/events/$ev/enable"
done
echo 0 >"$inst/events/sched/sched_switch/enable"
echo 0 >"$inst_in/events/sched/sched_switch/enable"
: >"$work/stop"
charged=$(cat "$parent/memory.peak" 2>/dev/null || echo -)

lost=0
for s in "$inst"/per_cpu/cpu*/stats "$inst_in"/per_cpu/cpu*/stats; do
	o=$(awk '/^overrun:/ { print $2 }' "$s")
	lost=$((lost + ${o:-0}))
done
m=$(awk -v g="$group" '$1 ~ "^" g "/" { s += $NF } END { print s + 0 }' \
	"$T/kprobe_profile")
lost=$((lost + m))

echo "kernel $(uname -r)"
echo "workload $file $reads $children"
echo "charged $charged"
# One stream by time: the second instance's records tagged "in".
{
	grep -v '^#' "$inst/trace"
	grep -v '^#' "$inst_in/trace" | sed 's/$/ in/'
} | sort -n -k3,3 | awk -v me=$$ -v map="$work/map" '
BEGIN {
	while ((getline l < map) > 0) {
		split(l, w, " ")
		fname[w[1]] = w[2]; role[w[1]] = w[3]; kind[w[1]] = w[4]
		if (w[3] == "callback" && !(w[2] in seen)) {
			seen[w[2]] = 1; order[++nf] = w[2]
		}
		if ((w[3] == "observer" || w[3] == "wait" || w[3] == "irq") &&
		    !(w[2] in seen)) {
			seen[w[2]] = 1; oorder[++no] = w[2]; orole[w[2]] = w[3]
		}
		if (w[3] == "read") show = w[2]
	}
}
# raw records: PID CPU TIMESTAMP_NS type: ID
$4 == "type:" && ($5 in fname) {
	pid = $1; ts = $3; id = $5; f = fname[id]
	if (role[id] == "switch") {
		# out: the reader leaves the CPU (its own record); in: it
		# comes back (the record of the task it replaces)
		if ($6 == "in") {
			if (offat != "" && (me in opened) && in_role[me] == "read")
				off += ts - offat
			offat = ""
		} else if (pid == me) {
			offat = ts
		}
		next
	}
	if (role[id] == "read" || role[id] == "control") {
		if (pid != me)
			next
		if (kind[id] == "e") {
			opened[pid] = ts; in_role[pid] = role[id]
		} else if (pid in opened) {
			if (role[id] == "read") {
				rcount++; rtotal += ts - opened[pid]
			}
			delete opened[pid]
		}
		next
	}
	k = pid SUBSEP f
	if (kind[id] == "e") {
		start[k] = ts
		where[k] = (pid in opened) ? in_role[pid] : "outside"
		next
	}
	if (!(k in start))
		next
	if (where[k] == "read") {
		cnt[f]++; tot[f] += ts - start[k]
		if (role[id] == "observer")
			obs += ts - start[k]
		if (role[id] == "wait")
			wt += ts - start[k]
		if (role[id] == "irq")
			irq += ts - start[k]
	} else if (where[k] == "control") {
		ctl[f]++
	} else {
		out[f]++
	}
	delete start[k]
}
END {
	oncpu = rtotal - off - obs - irq
	printf "read %s %d %.0f %.0f %.0f %.0f %.0f\n", show, rcount, rtotal,
		off, obs, irq, wt
	for (i = 1; i <= no; i++)
		printf "%s %s %d %.0f\n", orole[oorder[i]], oorder[i],
			cnt[oorder[i]], tot[oorder[i]]
	for (i = 1; i <= nf; i++) {
		f = order[i]
		share = oncpu > 0 ? 100 * tot[f] / oncpu : 0
		wall = rtotal > 0 ? 100 * tot[f] / rtotal : 0
		printf("callback %s %d %.0f %.1f %.1f\n", f, cnt[f], tot[f],
		       share, wall)
	}
	for (i = 1; i <= nf; i++)
		printf "outside %s %d\n", order[i], out[order[i]]
	for (i = 1; i <= nf; i++)
		printf "control %s %d\n", order[i], ctl[order[i]]
}'
echo "lost $lost"
