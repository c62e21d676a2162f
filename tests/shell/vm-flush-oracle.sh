#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Thread 000 by an oracle that is none of the tool's code: in a guest,
# tests/tools/flush-oracle.sh times the per-css flush callbacks with
# tracefs kprobes and kretprobes while 8 children charge memory and the
# oracle reads their parent's cpu.stat. The guest runs it under
# `record --kernel` (the harness's way to run a command in a VM; the
# oracle reports the recorder's programs inside the reads apart).
#
# Debian's 6.12 (one rstat tree for every subsystem, the thread's
# "before"): each cgroup a cpu.stat read flushes runs every subsystem's
# callback, so mem_cgroup_css_rstat_flush runs inside the reads exactly
# as often as bpf_rstat_flush, which runs once per flushed cgroup and
# CPU, and holds a share of the reads' time above 0.
# sid's 7.x (split trees, the "after"): the reads run bpf_rstat_flush
# (the base tree's) but never a memory or io callback, while memory had
# updates pending all along: the memory.stat read after them runs
# mem_cgroup_css_rstat_flush. Without the sid kernel (fetched only by
# scripts/fetch-kernels.sh --sid) that half is a PART-SKIP.
# Under TCG times are emulated: the test checks counts, which are exact,
# and directions of shares, never absolute times. The guest has one CPU
# (two make a TCG read twenty times longer with time that no kernel
# event accounts for) and the reader pauses 20 ms between reads for the
# children to update their trees: memory's callbacks took 13-16% of the
# reads' own time in a 6.12 guest here; the test wants 2% at least.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

before=$(vm_workdirs)
reads=100
oracle=$PWD/tests/tools/flush-oracle.sh

# run_oracle KERNEL OUT: the oracle's lines into OUT.
run_oracle() {
	local rc

	timeout 600 "$RS_BIN" record -q -F 1 --kernel "$1" --accel tcg \
		--vm-cpus 1 -o "$TMP/oracle.data" -- "$oracle" -n $reads -c 8 \
		-p 0.02 \
		>"$2" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 77 ] && skip "$1: $(grep -m1 'skip:' "$TMP/err")"
	[ $rc -eq 0 ] || fail "oracle on $1 (exit $rc): $(tail -n 20 "$TMP/err")"
	sed 's/^/  /' "$2"
}

# field OUT KIND NAME N: the Nth word of OUT's line "KIND NAME ...".
field() {
	awk -v k="$2" -v n="$3" -v i="$4" '$1 == k && $2 == n { print $i }' "$1"
}

check_common() {
	local out=$1 k=$2

	[ "$(awk '$1 == "lost" { print $2 }' "$out")" = 0 ] ||
		fail "$k: the oracle lost events: $(grep '^lost' "$out")"
	[ "$(field "$out" read cpu_stat_show 3)" = $reads ] ||
		fail "$k: the oracle paired $(field "$out" read cpu_stat_show 3) reads of cpu.stat, not $reads"
	charged=$(awk '$1 == "charged" { print $2 }' "$out")
	[ "${charged:-0}" -gt 0 ] 2>/dev/null ||
		fail "$k: the children charged no memory (memory.peak $charged)"
}

# 6.12: one tree.
run_oracle "$K612" "$TMP/612"
check_common "$TMP/612" 6.12
mem=$(field "$TMP/612" callback mem_cgroup_css_rstat_flush 3)
bpf=$(field "$TMP/612" callback bpf_rstat_flush 3)
if [ -z "$mem" ] || [ -z "$bpf" ]; then
	fail "6.12: no callback lines"
fi
[ "$mem" -gt 0 ] ||
	fail "6.12: mem_cgroup_css_rstat_flush never ran inside a cpu.stat read"
[ "$mem" -eq "$bpf" ] ||
	fail "6.12: one tree runs every callback per flushed cgroup: memory $mem calls, bpf_rstat_flush $bpf"
awk '$1 == "callback" && $2 == "mem_cgroup_css_rstat_flush" {
	exit !($4 > 0 && $5 >= 2) }' "$TMP/612" ||
	fail "6.12: memory's callbacks hold no share of cpu.stat read time: $(grep '^callback mem' "$TMP/612")"
echo "ok 6.12: memory ran $mem times inside $reads cpu.stat reads," \
	"$(field "$TMP/612" callback mem_cgroup_css_rstat_flush 5)% of their own time"

# sid: split trees.
KSID=$(sid_kernel)
[ -n "$KSID" ] || skip_part "$SID_KERNEL_MISSING"
if [ -n "$KSID" ]; then
	rel=$(basename "$(dirname "$KSID")")
	run_oracle "$KSID" "$TMP/sid.out"
	check_common "$TMP/sid.out" "$rel"
	for f in mem_cgroup_css_rstat_flush blkcg_rstat_flush; do
		n=$(field "$TMP/sid.out" callback $f 3)
		[ "$n" = 0 ] ||
			fail "$rel: split trees, yet $f ran $n times inside cpu.stat reads"
		awk -v f=$f '$1 == "callback" && $2 == f { exit !($4 == 0) }' \
			"$TMP/sid.out" || fail "$rel: $f has a share"
	done
	bpf=$(field "$TMP/sid.out" callback bpf_rstat_flush 3)
	[ "${bpf:-0}" -gt 0 ] ||
		fail "$rel: the base tree's flush (bpf_rstat_flush) never ran inside a read"
	ctl=$(field "$TMP/sid.out" control mem_cgroup_css_rstat_flush 3)
	[ "${ctl:-0}" -gt 0 ] ||
		fail "$rel: memory had no pending updates (the memory.stat control read ran no memory callback): the 0 above proves nothing"
	echo "ok $rel: memory ran 0 times inside $reads cpu.stat reads" \
		"(base: $bpf), $ctl times in one memory.stat read after them"
fi

[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
