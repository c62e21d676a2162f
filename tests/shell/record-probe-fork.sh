#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Probes on a command that forks: every child inherits them, and every
# fork works. The probe PMUs take their target by user pointer, which a
# fork of the recorded task re-reads in its own address space: fork()
# failed with EFAULT ("sh: Cannot fork"). record now places inherited
# probes through tracefs (uprobe_events here; kprobe_events in the VM
# tests), in a group of its own that it removes at the end. The oracle:
# perf script counts exactly the calls of two loops, one in a subshell.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (uprobes through tracefs)"
events=/sys/kernel/tracing/uprobe_events
[ -w "$events" ] || skip "no writable $events (CONFIG_UPROBE_EVENTS, tracefs)"
need_perf
loop=$PWD/build/workloads/loop
[ -x "$loop" ] || fail "$loop is not built (make tests builds it)"

grep rstat_analyze_ "$events" >"$TMP/before"
out=$TMP/fork.data
"$RS_BIN" record -q -o "$out" --uprobe "$loop:loop_leaf" \
	-- sh -c "$loop 100 && ($loop 50) && $loop 7 | cat" \
	>"$TMP/out" 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
grep -q "fork" "$TMP/err" && fail "a fork failed: $(cat "$TMP/err")"
n=$(perf script -i "$out" -F event 2>"$TMP/perf.err" |
	grep -c 'probe_loop:loop_leaf:') ||
	fail "perf script: $(head -3 "$TMP/perf.err")"
[ "$n" -eq 157 ] || fail "loop_leaf hits: $n, expected 100 + 50 + 7"
# None of ours may be left (rstat_analyze_PID/...).
grep rstat_analyze_ "$events" >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" ||
	fail "probes left in $events: $(diff "$TMP/before" "$TMP/after")"
echo "ok: 157 hits over 3 processes"
