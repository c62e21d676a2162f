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
#                                  (from sched_switch: a task runs from its
#                                  CPU's switch before to its own switch
#                                  out), an observer's
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
#   task PID read ...              with CMD, the read and callback lines
#   task PID callback ...          again for each task that read FILE
#                                  (its own reads only): a test holds one
#                                  reader's figures against the tool's
# A share is per callback; the base stats' own flush is inlined in
# Debian's kernels (then only the callbacks around it are timed).
# Under TCG give the guest one CPU (--vm-cpus 1): with two, a read's
# time there grows twenty-fold with time no event accounts for (the
# emulation's, not the kernel's), which drowns every share.
#
# Usage: flush-oracle.sh [-f FILE] [-n READS] [-c CHILDREN] [-w SECONDS]
#                        [-p SECONDS] [-- CMD ARGS...]
# With CMD it makes no workload and reads nothing itself: it times the
# reads of FILE by every task while CMD runs (as `/init bench ...` in a
# guest, whose /init is the tool; its output goes to stderr), prints
# "workload FILE command CMD", "charged -", control counts of 0, and
# exits with CMD's status.
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
	*) echo "usage: flush-oracle.sh [-f FILE] [-n READS] [-c CHILDREN] [-w SECONDS] [-p SECONDS] [-- CMD...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
external=
[ $# -eq 0 ] || external=1

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
work=$(mktemp -d) || die "cannot make a temporary directory"
parent=$CG/rs-oracle.$rnd
pids=
probes=
sysevents="sched/sched_switch irq_vectors/local_timer_entry
	irq_vectors/local_timer_exit irq/softirq_entry irq/softirq_exit"

# shellcheck disable=SC2317 # run by the traps
cleanup() {
	trap - EXIT INT TERM
	: >"$work/stop" 2>/dev/null
	# shellcheck disable=SC2086 # one word per pid
	[ -z "$pids" ] || kill $pids 2>/dev/null
	wait 2>/dev/null
	if [ -d "$inst" ]; then
		echo 0 >"$inst/events/$group/enable" 2>/dev/null
		for ev in $sysevents; do
			echo 0 >"$inst/events/$ev/enable" 2>/dev/null
		done
		rmdir "$inst"
	fi
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
if [ "$show" != memory_stat_show ] && [ -z "$external" ]; then
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
[ -n "$external" ] || mkdir "$parent" || die "cannot create $parent"
for c in memory io cpu; do
	[ -n "$external" ] ||
		echo "+$c" >"$parent/cgroup.subtree_control" 2>/dev/null
done
i=0
while [ -z "$external" ] && [ "$i" -lt "$children" ]; do
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
[ -n "$external" ] || sleep "$warm"

mkdir "$inst" || die "cannot create the tracefs instance $inst"
echo mono >"$inst/trace_clock"
echo 1 >"$inst/options/raw"
echo 8192 >"$inst/buffer_size_kb"
# Every switch: its record is the leaving task's, on its CPU, so a
# task's time on a CPU runs from that CPU's switch before to its own.
echo 1 >"$inst/events/sched/sched_switch/enable" ||
	die "cannot trace sched:sched_switch"
echo "$(cat "$T/events/sched/sched_switch/id") sched_switch switch x" \
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
# read reads it, no process per read. With a command, its readers.
status=0
if [ -n "$external" ]; then
	"$@" >&2
	status=$?
else
	i=0
	while [ "$i" -lt "$reads" ]; do
		while read -r _; do :; done <"$parent/$file"
		i=$((i + 1))
		[ -z "$pause" ] || sleep "$pause"
	done
	[ "$show" = memory_stat_show ] ||
		while read -r _; do :; done <"$parent/memory.stat"
fi

echo 0 >"$inst/events/$group/enable"
for ev in $sysevents; do
	[ -d "$inst/events/$ev" ] && echo 0 >"$inst/events/$ev/enable"
done
: >"$work/stop"
charged=-
[ -n "$external" ] || charged=$(cat "$parent/memory.peak" 2>/dev/null || echo -)

lost=0
for s in "$inst"/per_cpu/cpu*/stats; do
	o=$(awk '/^overrun:/ { print $2 }' "$s")
	lost=$((lost + ${o:-0}))
done
m=$(awk -v g="$group" '$1 ~ "^" g "/" { s += $NF } END { print s + 0 }' \
	"$T/kprobe_profile")
lost=$((lost + m))

echo "kernel $(uname -r)"
if [ -n "$external" ]; then
	echo "workload $file command $(basename "$1")"
else
	echo "workload $file $reads $children"
fi
echo "charged $charged"
me=$$
[ -z "$external" ] || me=
# One stream by time (each CPU's buffer is in order, not the whole).
grep -v '^#' "$inst/trace" | sort -s -n -k3,3 | awk -v me="$me" -v map="$work/map" '
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
	pid = $1; cpu = $2; ts = $3; id = $5; f = fname[id]
	if (role[id] == "switch") {
		# pid leaves cpu, where it ran since the switch before
		if (pid in opened)
			on[pid] += ts - since(pid, cpu)
		last[cpu] = ts
		next
	}
	if (role[id] == "read" || role[id] == "control") {
		if (me != "" && pid != me)
			next
		if (kind[id] == "e") {
			opened[pid] = ts; in_role[pid] = role[id]; on[pid] = 0
		} else if (pid in opened) {
			if (role[id] == "read") {
				on[pid] += ts - since(pid, cpu)
				rcount++; rtotal += ts - opened[pid]
				off += ts - opened[pid] - on[pid]
				prc[pid]++; prt[pid] += ts - opened[pid]
				poff[pid] += ts - opened[pid] - on[pid]
			}
			delete opened[pid]; delete on[pid]
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
		pcnt[pid, f]++; ptot[pid, f] += ts - start[k]
		if (role[id] == "observer") {
			obs += ts - start[k]; pobs[pid] += ts - start[k]
		}
		if (role[id] == "wait") {
			wt += ts - start[k]; pwt[pid] += ts - start[k]
		}
		if (role[id] == "irq") {
			irq += ts - start[k]; pirq[pid] += ts - start[k]
		}
	} else if (where[k] == "control") {
		ctl[f]++
	} else {
		out[f]++
	}
	delete start[k]
}
# When pid, reading, came on cpu: the last switch there, or the start
# of its read if it was already running then.
function since(p, c) {
	return (c in last && last[c] > opened[p]) ? last[c] : opened[p]
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
	for (p in prc) {
		if (me != "")
			break
		printf "task %s read %s %d %.0f %.0f %.0f %.0f %.0f\n", p,
			show, prc[p], prt[p], poff[p], pobs[p], pirq[p], pwt[p]
		oncpu = prt[p] - poff[p] - pobs[p] - pirq[p]
		for (i = 1; i <= nf; i++) {
			f = order[i]
			printf("task %s callback %s %d %.0f %.1f %.1f\n", p, f,
			       pcnt[p, f], ptot[p, f],
			       oncpu > 0 ? 100 * ptot[p, f] / oncpu : 0,
			       prt[p] > 0 ? 100 * ptot[p, f] / prt[p] : 0)
		}
	}
	for (i = 1; i <= nf; i++)
		printf "control %s %d\n", order[i], ctl[order[i]]
}'
echo "lost $lost"
exit $status
