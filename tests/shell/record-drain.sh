#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A system-wide recording (-a -d) keeps every event up to the moment it
# stops: a deterministic loop (tests/workloads/loop.c, N iterations) run
# while it records must count exactly N hits of a uprobe on its loop body,
# in report and in perf script, and no other probe event. The events the rings hold when recording
# stops are only read by the drain after the events are disabled; to make
# that drain's work certain rather than a matter of timing, a uprobe is
# also put on the recorder's own evlist__disable(): its one hit is written
# after the last drain of the record loop, so it is in the file only if
# the rings are drained once more after disabling.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (system-wide uprobes)"
[ -d /sys/bus/event_source/devices/uprobe ] ||
	skip "this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS)"
need_perf
loop=$PWD/build/workloads/loop
[ -x "$loop" ] || fail "$loop is not built (make tests builds it)"
nm "$RS_BIN" 2>/dev/null | grep -q ' T evlist__disable$' ||
	fail "no evlist__disable symbol in $RS_BIN"

n=7919
out=$TMP/drain.data
# -a with a command: the command is released once the events are enabled,
# and the recording still stops at -d (the command, asleep after the
# loop, is stopped with it).
"$RS_BIN" record -q -a -d 3 -F 99 -o "$out" \
	--uprobe "$loop:loop_body:5" --uprobe "$RS_BIN:evlist__disable" \
	-- sh -c "'$loop' $n >/dev/null && exec sleep 60" \
	>/dev/null 2>"$TMP/err" || fail "record -a -d 3: $(cat "$TMP/err")"

"$RS_BIN" report -i "$out" --json >"$TMP/out.json" 2>"$TMP/err" ||
	fail "report: $(cat "$TMP/err")"
perf script -i "$out" -F event 2>/dev/null | sed 's/^ *//; s/: *$//' |
	grep '^probe_' | sort | uniq -c | awk '{ print $2, $1 }' >"$TMP/theirs"
python3 - "$TMP/out.json" "$TMP/theirs" $n <<'PY' || fail "hits lost"
import json, sys
n = int(sys.argv[3])
counts = {c["event"]: c["count"] for c in json.load(open(sys.argv[1]))["counts"]
          if c["event"].startswith("probe_")}
perf = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[2]))
want = {"probe_loop:loop_body_L5": n, "probe_rstat:evlist__disable": 1}
for name, got in (("report", counts), ("perf script", perf)):
    if got != want:
        sys.exit("%s counts %s, expected %s (evlist__disable missing: the "
                 "rings were not drained after disabling)" % (name, got, want))
print("%d loop hits and the disable's one, in report and perf script" % n)
PY
exit 0
