#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record system-wide (lock holds timed from perf's records: --spans perf)
# while a reader reads stat files, then check the file
# with perf itself: perf script reads it with no warning, its per-event
# sample counts equal report --json's, every rstat tracepoint this kernel
# has is in it and recorded every hit (locked and unlock counts pair up);
# the kernel symbols travel with the file (report names kernel frames with
# /proc/kallsyms out of reach); an existing output becomes FILE.old.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (system-wide perf_event_open)"
need_perf
tracefs=/sys/kernel/tracing
[ -d $tracefs/events/cgroup/cgroup_rstat_locked ] ||
	skip "no cgroup:cgroup_rstat_locked on this kernel (v6.10+) or tracefs not mounted"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
[ -f $v2/cgroup.controllers ] || skip "no cgroup v2 hierarchy mounted"

# A cgroup of our own with a busy child (the root's cpu.stat does not
# flush), and a reader of its cpu.stat: rstat flushes of base stats.
cg=$v2/rstat-analyze-test-$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	for d in "$cg/busy" "$cg"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$d" 2>/dev/null || [ ! -d "$d" ] && break
			sleep 0.1
		done
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$cg" "$cg/busy" 2>/dev/null || skip "cannot create cgroups under $v2"
sh -c 'echo $$ >"$1/cgroup.procs" && exec nice -n 19 sh -c "while :; do :; done"' \
	sh "$cg/busy" &
pids+=($!)
( while :; do read -r _ <"$cg/cpu.stat"; done ) &
pids+=($!)

out=$TMP/rec.data
echo old >"$out"
# A tight reader makes some 100k lock events a second with callchains,
# drained here by the sanitized build: 4 MiB rings (as bench --record
# uses), so that a busy machine does not overflow them and perf, rightly,
# warns of lost chunks.
"$RS_BIN" record -q --spans perf -m 1024 -o "$out" -d 2 2>"$TMP/rec.err" ||
	fail "record: $(cat "$TMP/rec.err")"
[ "$(cat "$out.old")" = old ] || fail "the previous output was not kept as FILE.old"

# perf names the writer as --version names the tool (one version string).
want=$("$RS_BIN" --version | head -n 1)
got=$(perf report -i "$out" --header-only 2>/dev/null |
	sed -n 's/^# perf version : //p')
[ "$got" = "$want" ] ||
	fail "perf.data says it was written by '$got', --version says '$want'"

# perf reads it without a word on stderr.
perf script -i "$out" -F event >"$TMP/events" 2>"$TMP/perf.err" ||
	fail "perf script failed: $(head -5 "$TMP/perf.err")"
[ -s "$TMP/perf.err" ] && fail "perf script warns: $(head -5 "$TMP/perf.err")"
perf report -i "$out" --stdio >/dev/null 2>"$TMP/perf.err" ||
	fail "perf report failed: $(head -5 "$TMP/perf.err")"
[ -s "$TMP/perf.err" ] && fail "perf report warns: $(head -5 "$TMP/perf.err")"

sed 's/^ *//; s/: *$//' "$TMP/events" | sort | uniq -c |
	awk '{ print $2, $1 }' | sort >"$TMP/theirs"
"$RS_BIN" report -i "$out" --json >"$TMP/out.json" 2>"$TMP/err" ||
	fail "report --json: $(cat "$TMP/err")"
python3 - "$TMP/out.json" "$TMP/theirs" "$tracefs" <<'PY' || fail "recording and perf's reading disagree"
import json, os, sys
d = json.load(open(sys.argv[1]))
ours = {c["event"]: c["count"] for c in d["counts"] if c["count"]}
theirs = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[2]))
if ours != theirs:
    sys.exit("counts: report %s, perf script %s" % (ours, theirs))
print("per-event counts equal perf script's:", ours)
names = {e["name"] for e in d["events"]}
ev = os.path.join(sys.argv[3], "events")
want = ["cgroup:" + n for n in os.listdir(os.path.join(ev, "cgroup"))
        if n.startswith("cgroup_rstat_")]
if os.path.isdir(os.path.join(ev, "memcg", "memcg_flush_stats")):
    want.append("memcg:memcg_flush_stats")
missing = [w for w in want if w not in names]
if missing:
    sys.exit("rstat tracepoints of this kernel missing: %s" % missing)
samp = [e for e in d["events"] if e["name"] in ("cycles", "cpu-clock")]
if len(samp) != 1 or not samp[0]["samples"]:
    sys.exit("no sampling event samples: %s" % d["events"])
L = d["locks"]
if L["sampled_event"] is not None:
    sys.exit("tracepoints recorded in sampling mode: %s" % L)
if not L["pairs"]:
    sys.exit("no lock pairs although cpu.stat was read: %s" % L)
# Every hit recorded: only a lock open at either edge of the recording
# may lack its partner. That is one per CPU and lock (each subsystem's
# tree has its own since v6.16), and the few hits of the moment between
# enabling (or disabling) the locked and the unlock events, one ioctl
# each, as perf does: at some 150k holds a second that was up to six
# here. A dropped chunk loses thousands; so the bound is the edges' share
# plus one in 20,000 holds.
ncpu = os.cpu_count()
nlocks = len({s["subsystem"] for s in d["spans"]
              if s["name"] == "lock-hold"}) or 1
edge = ncpu * nlocks + L["pairs"] // 20000
if L["unmatched_start"] > edge or L["unmatched_end"] > edge:
    sys.exit("unpaired lock events beyond the edges: %s" % L)
hold = sum(s["count"] for s in d["spans"] if s["name"] == "lock-hold")
if hold != L["pairs"]:
    sys.exit("lock-hold spans %d != pairs %d" % (hold, L["pairs"]))
print("lock pairs %d, unmatched %d/%d" % (L["pairs"], L["unmatched_start"],
                                          L["unmatched_end"]))
PY

# The kernel symbols travel with the file: in a copy whose kernel release
# is not this one's, /proc/kallsyms is out of the picture, so kernel frames
# named there come from the table the recording carries.
python3 - "$out" "$TMP/moved.data" <<'PY' || fail "cannot make the moved copy"
import os, sys
data = open(sys.argv[1], "rb").read()
rel = os.uname().release.encode()
if data.count(rel) < 1:
    sys.exit("kernel release not found in the recording")
open(sys.argv[2], "wb").write(data.replace(rel, b"X" * len(rel)))
PY
"$RS_BIN" report -i "$TMP/moved.data" >"$TMP/report.txt" 2>"$TMP/err" ||
	fail "report of the moved copy: $(cat "$TMP/err")"
grep -q "kernel frames stay" "$TMP/err" &&
	fail "report fell back to no kernel symbols: $(cat "$TMP/err")"
grep -q "^base " "$TMP/report.txt" ||
	fail "no base flush attributed without /proc/kallsyms: $(head -30 "$TMP/report.txt")"
echo "perf reads the recording; counts, tracepoints and symbols agree"
