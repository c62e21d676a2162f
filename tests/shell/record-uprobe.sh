#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Probe points that fire an exact number of times, and no other: record -- a
# deterministic loop (tests/workloads/loop.c, N iterations) with uprobes on
# two lines of its loop body, on a function and on its return. Each must
# count exactly N hits, in report's counts and in perf script's reading of
# the same file, and --span between the two body lines must give exactly
# N spans with nothing unmatched. The loop starts during the recording, so
# its frames are named only if its MMAP2 records were recorded: perf
# script and report must both name loop_body in the uprobe callchains.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (uprobes through perf_event_open)"
[ -d /sys/bus/event_source/devices/uprobe ] ||
	skip "this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS)"
need_perf
loop=$PWD/build/workloads/loop
[ -x "$loop" ] || fail "$loop is not built (make tests builds it)"

# FUNC+OFF at loop_leaf's second instruction: perf names it loop_leaf like
# the entry, so ours (recorded after the entry) must become loop_leaf_1.
command -v objdump >/dev/null || fail "objdump (binutils) is not installed"
insns=($(objdump -d --no-show-raw-insn "$loop" | awk '
	/<loop_leaf>:/ { f = 1; next }
	f && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1; if (++n == 2) exit }'))
[ ${#insns[@]} -eq 2 ] || fail "no second instruction in loop_leaf"
off=$((16#${insns[1]} - 16#${insns[0]}))

n=12345
out=$TMP/loop.data
"$RS_BIN" record -q -o "$out" \
	--uprobe "$loop:loop_body:5" --uprobe "$loop:loop_body:7" \
	--uprobe "$loop:loop_leaf" --uprobe "$loop:loop_leaf%return" \
	--uprobe "$loop:loop_leaf+$off" \
	-- "$loop" $n >/dev/null 2>"$TMP/err" ||
	fail "record --uprobe: $(cat "$TMP/err")"

perf script -i "$out" -F event >"$TMP/events" 2>"$TMP/perf.err" ||
	fail "perf script: $(head -3 "$TMP/perf.err")"
[ -s "$TMP/perf.err" ] && fail "perf script warns: $(head -3 "$TMP/perf.err")"
sed 's/^ *//; s/: *$//' "$TMP/events" | sort | uniq -c |
	awk '{ print $2, $1 }' >"$TMP/theirs"

"$RS_BIN" report -i "$out" --json \
	--span probe_loop:loop_body_L5,probe_loop:loop_body_L7 \
	--span probe_loop:loop_leaf,probe_loop:loop_leaf__return \
	>"$TMP/out.json" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
python3 - "$TMP/out.json" "$TMP/theirs" $n <<'PY' || fail "probe counts are not exact"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
perf = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[2]))
counts = {c["event"]: c["count"] for c in d["counts"]}
want = {"probe_loop:loop_body_L5", "probe_loop:loop_body_L7",
        "probe_loop:loop_leaf", "probe_loop:loop_leaf__return",
        "probe_loop:loop_leaf_1"}
# Exactly the probes asked for: a line placed at each of its line-table
# rows would add events (loop_body_L5_1...) that must not exist.
for name, got in (("report", set(counts)), ("perf script", set(perf))):
    extra = {e for e in got if e.startswith("probe_")} - want
    if extra:
        sys.exit("%s: events nobody asked for: %s" % (name, sorted(extra)))
for ev in sorted(want):
    if counts.get(ev) != n:
        sys.exit("%s: report counts %s, expected %d" % (ev, counts.get(ev), n))
    if perf.get(ev) != n:
        sys.exit("%s: perf script counts %s, expected %d" % (ev, perf.get(ev), n))
spans = {s["name"]: s for s in d["spans"]}
for name in ("probe_loop:loop_body_L5,probe_loop:loop_body_L7",
             "probe_loop:loop_leaf,probe_loop:loop_leaf__return"):
    s = spans.get(name)
    if not s or s["count"] != n or s["unmatched_start"] or s["unmatched_end"]:
        sys.exit("span %s: %s, expected %d spans, none unmatched" % (name, s, n))
    if not 0 < s["min_ns"] <= s["p50_ns"] <= s["max_ns"]:
        sys.exit("span %s: implausible times %s" % (name, s))
print("%d hits on each probe, %d spans each, in report and perf script" % (n, n))
PY
perf script -i "$out" 2>/dev/null | grep -q 'loop_leaf+0x[0-9a-f]* (.*/loop)' ||
	fail "perf script does not name the loop's frames (no MMAP2 recorded?)"
"$RS_BIN" report -i "$out" --folded --event-filter probe_loop:loop_leaf \
	2>/dev/null | grep -q '^loop;.*main;loop_body;loop_leaf ' ||
	fail "report --folded does not name the loop's frames: $("$RS_BIN" report -i "$out" --folded 2>&1 | head -3)"
echo "the loop's frames are named from the recorded maps"
