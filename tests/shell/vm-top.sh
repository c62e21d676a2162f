#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 29: top --kernel runs where the rstat tracepoints are missing and
# says what it lacks. Debian's 6.1 cloud kernel (no rstat tracepoints:
# flushes timed by kprobes on cgroup_rstat_flush_locked, the programs
# loaded by 6.1's verifier) and 6.12's (the tracepoints, but neither the
# per-CPU flush runs of v6.15 nor memcg_flush_stats of v6.13), each in a
# throwaway TCG guest for 2 s: the blocks parse, name the method and list
# exactly the sources that kernel lacks. The kernels are the oracle.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

before=$(vm_workdirs)
expect_error 2 "--kernel needs -d SECONDS" "$RS_BIN" top --kernel "$K61"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
expect_error 2 "--cgroup names this machine" "$RS_BIN" top --kernel "$K61" \
	-d 1 --cgroup $v2

check() {	# KERNEL METHOD MISSING
	"$RS_BIN" top --kernel "$1" --accel tcg -d 2 -i 1 >"$TMP/out" \
		2>"$TMP/err" || fail "top --kernel $1: $(cat "$TMP/err")"
	grep -q "^# time=.* method=\"$2\"$" "$TMP/out" ||
		fail "$1: not timed by $2: $(head -3 "$TMP/out")"
	# Under TCG a tick may take the whole -d: one block or more, each
	# saying the same.
	n=$(grep -c "^summary " "$TMP/out")
	[ "$n" -ge 1 ] && [ "$(grep -c "^summary .* missing=$3$" "$TMP/out")" -eq "$n" ] ||
		fail "$1: not every block says missing=$3: $(grep ^summary "$TMP/out")"
}
check "$K61" "kprobes on cgroup_rstat_flush_locked" \
	"rstat_tracepoints,memcg_flush_stats,cgroup_level"
check "$K612" "rstat tracepoints" "flush_spans,memcg_flush_stats"

[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
