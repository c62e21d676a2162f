#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 13: record times lock holds and flushes in the kernel (BPF, the
# default where it loads) and perf records no lock tracepoint, whose
# records would sit inside the holds. A process of ours reads its own
# cgroup's cpu.stat exactly N times with the shell's builtin read (no
# fork, one tgid): record -p of that process counts exactly N base
# flushes, at least N base holds, every hold has its subsystem; perf
# itself reads the file without a warning and lists no lock tracepoint;
# text and JSON agree; --spans perf brings back perf's lock tables.
. tests/shell/lib.sh
need_perf
[ "$(id -u)" -eq 0 ] || skip "loading BPF programs needs root"
[ -d /sys/kernel/tracing/events/cgroup/cgroup_rstat_locked ] ||
	skip "no cgroup_rstat_locked tracepoint (v6.10+)"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
N=200
cg=$v2/rs-kspans-$$
reader=
cleanup() {
	[ -n "$reader" ] && kill -KILL "$reader" 2>/dev/null
	wait 2>/dev/null
	rmdir "$cg" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$cg" || skip "cannot create a cgroup under $v2"

# Usage errors first: they need nothing of the kernel.
expect_error 2 "give auto, bpf or perf" "$RS_BIN" record --spans bogus -- true

mkfifo "$TMP/go"
bash -c 'read -r _ <"$1"; for ((i = 0; i < $2; i++)); do
	read -r _ <"$3/cpu.stat"; done; sleep 0.3' sh "$TMP/go" $N "$cg" &
reader=$!
"$RS_BIN" record -q --spans bpf -p $reader -o "$TMP/r.data" 2>"$TMP/err" &
rec=$!
# The output gets its name only once the programs and events are live:
# the reads start as soon as it exists, and every one must be counted.
for _ in $(seq 100); do [ -e "$TMP/r.data" ] && break; sleep 0.05; done
echo go >"$TMP/go"
wait $rec || {
	grep -q -- "--spans bpf: " "$TMP/err" &&
		skip "BPF spans unavailable: $(cat "$TMP/err")"
	fail "record: $(cat "$TMP/err")"
}
reader=

perf script -i "$TMP/r.data" -F event >"$TMP/events" 2>"$TMP/perr" ||
	fail "perf script: $(cat "$TMP/perr")"
[ -s "$TMP/perr" ] && fail "perf script warns: $(head -3 "$TMP/perr")"
perf evlist -i "$TMP/r.data" >"$TMP/evlist" 2>"$TMP/perr" ||
	fail "perf evlist: $(cat "$TMP/perr")"
grep -q "cgroup_rstat_locked\|cgroup_rstat_unlock" "$TMP/evlist" &&
	fail "perf recorded lock tracepoints beside BPF: $(cat "$TMP/evlist")"

"$RS_BIN" report -i "$TMP/r.data" >"$TMP/rep" 2>"$TMP/err" ||
	fail "report: $(cat "$TMP/err")"
"$RS_BIN" report -i "$TMP/r.data" --json >"$TMP/rep.json" 2>"$TMP/err" ||
	fail "report --json: $(cat "$TMP/err")"
grep -q "^Spans timed in the kernel by BPF (rstat tracepoints)" "$TMP/rep" ||
	fail "no in-kernel spans in the report: $(cat "$TMP/rep")"
python3 - "$TMP/rep.json" "$TMP/rep" $N <<'PY' || fail "in-kernel spans wrong"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
n = int(sys.argv[3])
ks = d["kernel_spans"]
assert ks and ks["method"] == "bpf", ks
assert ks["scope"].startswith("process "), ks["scope"]
assert ks["on"] == "rstat tracepoints", ks["on"]
rows = {(s["name"], s["subsystem"]): s for s in ks["spans"]}
fl = rows.get(("flush", "base"))
assert fl and fl["count"] == n, ("base flushes", fl and fl["count"], n)
assert ks["flushes"] == n, ks["flushes"]
hold = rows[("hold", "base")]
assert hold["count"] >= n, hold["count"]
assert not any(k[1] == "unknown" for k in rows), sorted(rows)
for s in ks["spans"]:
    assert sum(b["count"] for b in s["hist"]) == s["count"], s
    lo, hi = s["p50"]
    assert s["min_ns"] <= hi and lo <= s["max_ns"], s
# The text table says the same: counts, and the shortest hold as the cost.
for (name, sub), s in rows.items():
    m = re.search(r"^%s %s +(\d+) " % (name, sub), text, re.M)
    assert m and int(m.group(1)) == s["count"], (name, sub, m)
m = re.search(r"the shortest hold,\n([\d.]+) us", text)
assert m and abs(float(m.group(1)) * 1000 - ks["hold_cost"]["bound_ns"]) < 51, \
    (m and m.group(1), ks["hold_cost"])
assert ks["hold_cost"]["span"] == "hold", ks["hold_cost"]
assert ks["hold_cost"]["bound_ns"] == min(s["min_ns"] for s in ks["spans"]
                                          if s["name"] == "hold")
# perf recorded no lock tracepoint, so perf's lock tables are absent.
assert "Lock hold time (cgroup_rstat_locked" not in text
print("base flushes %d, base holds %d, p50 %s ns" % (fl["count"],
      hold["count"], hold["p50"]))
PY

# Timing must not blind perf: a BPF program on a tracepoint that returned
# 0 would drop every hit for every perf event on it (anyone's). With one
# asked for with -e beside the programs, perf sees every unlock of 20
# cpu.stat reads (3 each), as many as the programs time.
"$RS_BIN" record -q --spans bpf -e cgroup:cgroup_rstat_unlock -o "$TMP/e.data" \
	-- sh -c "for i in \$(seq 20); do cat $cg/cpu.stat >/dev/null; done" \
	2>"$TMP/err" || fail "record -e beside BPF: $(cat "$TMP/err")"
n=$(perf script -i "$TMP/e.data" -F event 2>/dev/null |
	grep -c "cgroup:cgroup_rstat_unlock")
[ "$n" -ge 60 ] ||
	fail "perf saw $n unlocks of 20 cpu.stat reads beside the BPF programs (>= 60 expected)"

# --spans perf: perf's records again, and no in-kernel section.
"$RS_BIN" record -q --spans perf -o "$TMP/p.data" -- \
	sh -c "cat $cg/cpu.stat >/dev/null" 2>"$TMP/err" ||
	fail "record --spans perf: $(cat "$TMP/err")"
"$RS_BIN" report -i "$TMP/p.data" --json >"$TMP/p.json" 2>"$TMP/err" ||
	fail "report: $(cat "$TMP/err")"
python3 - "$TMP/p.json" <<'PY' || fail "--spans perf still timed in the kernel"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel_spans"] is None, d["kernel_spans"]
assert d["locks"]["pairs"] >= 1, d["locks"]
PY
exit 0
