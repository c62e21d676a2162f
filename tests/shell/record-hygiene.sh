#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record leaves nothing behind, whenever it is stopped: it is killed with
# SIGINT, SIGTERM or SIGKILL at random moments (during setup, while
# recording a command, with a uprobe placed), and afterwards (at once, or
# within 2 s for the tracefs probes of a SIGKILLed recorder, which its
# guardian process removes) tracefs
# (instances, dynamic, kprobe and uprobe events, enabled events), the event
# sources under /sys/bus/event_source and the process table (no child of
# the recording left) are as before. After SIGINT/SIGTERM the output is a
# complete recording perf reads; after SIGKILL it may be cut short.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (perf_event_open on all CPUs)"
need_perf
tracefs=/sys/kernel/tracing
[ -d $tracefs/events ] || skip "tracefs is not mounted at $tracefs"

state() {
	{
		ls $tracefs/instances
		for f in dynamic_events uprobe_events kprobe_events set_event; do
			[ -r $tracefs/$f ] && { echo "== $f"; cat $tracefs/$f; }
		done
		ls /sys/bus/event_source/devices
		cat $tracefs/events/cgroup/enable 2>/dev/null
	} 2>&1
}
state >"$TMP/before"

# The command under record: a sleep with a name no one else uses.
marker=rstat-hygiene-$$
ln -s "$(command -v sleep)" "$TMP/$marker"
loop=build/workloads/loop
[ -x "$loop" ] || fail "$loop is not built (make tests builds it)"
[ -d /sys/bus/event_source/devices/uprobe ] ||
	skip "no uprobe PMU here: the runs with a uprobe cannot be made"
uprobe=(--uprobe "$loop:main")

sigs=(INT TERM KILL)
for i in $(seq 1 9); do
	sig=${sigs[$((i % 3))]}
	delay=$(awk -v s=$RANDOM 'BEGIN { printf "%.2f", (s % 150) / 100 }')
	case $((i % 3)) in
	0) args=(-- "$TMP/$marker" 30) ;;
	1) args=(-a -d 30) ;;
	2) args=("${uprobe[@]}" -- "$TMP/$marker" 30) ;;
	esac
	rm -f "$TMP/r.data" "$TMP/r.data.old"
	ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 \
		"$RS_BIN" record -q -o "$TMP/r.data" "${args[@]}" \
		>/dev/null 2>"$TMP/err" &
	rec=$!
	sleep "$delay"
	kill -"$sig" $rec 2>/dev/null
	wait $rec
	rc=$?
	# The command dies with the recorder, even after SIGKILL.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f "$marker" >/dev/null || break
		sleep 0.1
	done
	pgrep -fa "$marker" &&
		fail "run $i (SIG$sig after ${delay}s): the recorded command survived"
	# Probes of a command live in tracefs: after SIGKILL the recorder's
	# guardian removes them once its events have closed, within moments.
	for _ in $(seq 20); do
		state >"$TMP/after"
		cmp -s "$TMP/before" "$TMP/after" && break
		sleep 0.1
	done
	cmp -s "$TMP/before" "$TMP/after" || {
		diff "$TMP/before" "$TMP/after"
		fail "run $i (SIG$sig after ${delay}s): kernel state changed"
	}
	if [ "$sig" != KILL ] && [ -e "$TMP/r.data" ]; then
		[ "$rc" -eq 0 ] || fail "run $i (SIG$sig): exit $rc: $(cat "$TMP/err")"
		perf script -i "$TMP/r.data" -F event >/dev/null 2>"$TMP/perf.err" ||
			fail "run $i (SIG$sig after ${delay}s): perf cannot read the output: $(head -3 "$TMP/perf.err")"
	fi
	echo "run $i: SIG$sig after ${delay}s, exit $rc: clean"
done

# What the command starts dies with it too, even a grandchild that
# ignores SIGTERM and SIGINT, once the recorder is stopped.
"$RS_BIN" record -q -o "$TMP/g.data" -- sh -c \
	"trap '' TERM INT; $TMP/$marker 31 & $TMP/$marker 32" 2>"$TMP/err" &
rec=$!
sleep 1.5
kill -TERM $rec
wait $rec || fail "record stopped by SIGTERM: exit $?: $(cat "$TMP/err")"
sleep 0.2
pgrep -fa "$marker" && fail "a grandchild of the recorded command survived"
echo "grandchildren stopped"

# The command runs with the signal dispositions a shell would give it:
# SIGPIPE is not ignored (the recorder itself ignores it).
"$RS_BIN" record -q -o "$TMP/p.data" -- sh -c 'yes | head -1' \
	>/dev/null 2>"$TMP/err" || fail "record -- yes | head: $(cat "$TMP/err")"
grep -q "Broken pipe" "$TMP/err" &&
	fail "the recorded command ran with SIGPIPE ignored: $(cat "$TMP/err")"
echo "the command's signals are its own"
