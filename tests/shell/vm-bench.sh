#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench --kernel K61 --kernel K612 --record under TCG: one results.json per
# guest kernel whose provenance names that kernel (the guest's own uname),
# a pure v2 layout with memory and io, io.stat read; the compare table of
# the two; and recordings that hold the reads. The recorder must be ready
# before the reader starts, which TCG's slowness tests hard: on 6.12 the
# rstat lock tracepoints must fire at least once per flushing read, and
# the host's report must attribute the flush samples to their readers; on
# 6.1, which has no tracepoints, kprobes on the flush function give one
# span per flush. With sid's kernel cached (opt-in: fetch-kernels.sh
# --sid), a third guest, 7.x with split trees: each subsystem flushes
# under its own lock, so a cpu.stat read flushes base alone (one base
# flush span per read, io's from io.stat's reads) and no memory sample
# is ever a cpu.stat read's.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

before=$(vm_workdirs)
out=$TMP/out
reads=100
timeout 600 "$RS_BIN" bench stat-read --children 2 --reads $reads --record \
	--kernel "$K61" --kernel "$K612" -o "$out" --accel tcg \
	>"$TMP/stdout" 2>"$TMP/stderr" ||
	fail "bench --kernel: $(tail -n 30 "$TMP/stderr")"
r61=$(basename "$(dirname "$K61")")
r612=$(basename "$(dirname "$K612")")
for r in "$r61" "$r612"; do
	python3 - "$out/$r/results.json" "$r" $reads <<'PY' || fail "$r: results"
import json, sys
d = json.load(open(sys.argv[1]))
rel, reads = sys.argv[2], int(sys.argv[3])
p = d["provenance"]
assert p["kernel"] == rel, (p["kernel"], rel)
assert p["cgroup_layout"] == "v2", p["cgroup_layout"]
for c in ("memory", "io"):
    assert c in p["v2_controllers"], p["v2_controllers"]
files = {m.get("file") for rep in d["repetitions"] for m in rep["metrics"]
         if m["name"] == "read_ns" and m["count"] == reads}
assert {"cpu.stat", "memory.stat", "io.stat"} <= files, files
print("ok", rel, sorted(f for f in files if f))
PY
	[ -s "$out/$r/rstat.data" ] || fail "$r: no rstat.data"
done
# The compare table: both kernels, the first the base (0.00%).
grep -q '^stat-read$' "$TMP/stdout" || fail "no compare table"
grep -Eq '^Amean +cpu.stat-us +[0-9.]+ \(   0.00%\)' "$TMP/stdout" ||
	fail "compare: no base column: $(grep Amean "$TMP/stdout")"
grep -q "note: the guests run under TCG" "$TMP/stderr" || fail "no TCG note"

# 6.12 has the rstat tracepoints: every cpu.stat read flushes and takes
# the lock (once, then again per CPU: 3 with 2 CPUs), so at least $reads
# holds, timed in the kernel by BPF (or recorded by perf without it).
"$RS_BIN" report -i "$out/$r612/rstat.data" --json >"$TMP/r612.json" \
	2>"$TMP/err" || fail "report $r612: $(cat "$TMP/err")"
grep -q '"kernel_spans": null' "$TMP/r612.json" &&
	grep -aq rs_func_return "$RS_BIN" &&
	fail "$r612: the BPF spans did not load in the guest"
python3 - "$TMP/r612.json" $reads <<'PY' || fail "$r612: the recording missed the reads"
import json, sys
d = json.load(open(sys.argv[1]))
reads = int(sys.argv[2])
counts = {e["name"]: e["samples"] for e in d["events"]}
ks = d["kernel_spans"]
if ks is not None:
    # record timed the holds in the kernel (BPF): perf recorded no lock
    # tracepoint, the stored spans count them
    assert ks["on"] == "rstat tracepoints", ks["on"]
    locked = ks["holds"]
else:
    locked = counts.get("cgroup:cgroup_rstat_locked", 0)
assert locked >= reads, ("cgroup_rstat_locked", locked, "reads", reads)
trig = {t["trigger"]: t["samples"] for t in d.get("triggers", [])}
print("ok 6.12: locked", locked, "triggers", trig)
assert trig.get("cpu.stat", 0) > 0 or trig.get("io.stat", 0) > 0, trig
PY

# 6.1 has none: record times each call of cgroup_rstat_flush_locked in
# the kernel (BPF on a kprobe and a kretprobe), or, without BPF, probes it
# with perf at entry and return for report to pair; one span per flush:
# every cpu.stat and io.stat read flushes (6.1's memory.stat only past a
# threshold), so at least 2 * $reads.
f=probe:cgroup_rstat_flush_locked
"$RS_BIN" report -i "$out/$r61/rstat.data" --json >"$TMP/r61.json" \
	2>"$TMP/err" || fail "report $r61: $(cat "$TMP/err")"
# A build with the BPF spans (its skeleton embeds the programs) must time
# them on 6.1 too (its verifier once refused what later ones accept).
grep -q '"kernel_spans": null' "$TMP/r61.json" &&
	grep -aq rs_func_return "$RS_BIN" &&
	fail "$r61: the BPF spans did not load in the guest: $(cat "$TMP/err")"
# Without BPF the probes are perf's: report pairs them into spans.
grep -q '"kernel_spans": null' "$TMP/r61.json" &&
	{ "$RS_BIN" report -i "$out/$r61/rstat.data" --json \
		--span "$f,${f}__return" >"$TMP/r61.json" 2>"$TMP/err" ||
		fail "report --span $r61: $(cat "$TMP/err")"; }
python3 - "$TMP/r61.json" $reads <<'PY' || fail "$r61: no flush spans from the kprobes"
import json, sys
d = json.load(open(sys.argv[1]))
reads = int(sys.argv[2])
counts = {e["name"]: e["samples"] for e in d["events"]}
ks = d["kernel_spans"]
if ks is not None:
    assert ks["on"] == "kprobes on cgroup_rstat_flush_locked", ks["on"]
    assert ks["flushes"] >= 2 * reads, ks
    assert "probe:cgroup_rstat_flush_locked" not in counts, counts
    flush = {s["subsystem"]: s["count"] for s in ks["spans"]
             if s["name"] == "flush"}
    assert sum(flush.values()) == ks["flushes"], (flush, ks["flushes"])
    # what timing them cost is stated, from the shortest flush call
    assert ks["hold_cost"]["span"] == "flush", ks["hold_cost"]
    assert ks["hold_cost"]["bound_ns"] == min(
        s["min_ns"] for s in ks["spans"] if s["name"] == "flush"), ks
    print("ok 6.1: flushes timed by BPF kprobes", ks["flushes"], flush)
    sys.exit(0)
entry = counts.get("probe:cgroup_rstat_flush_locked", 0)
ret = counts.get("probe:cgroup_rstat_flush_locked__return", 0)
assert entry >= 2 * reads and ret == entry, counts
spans = d["spans"]
n = spans[0]["count"] if isinstance(spans, list) else spans
print("ok 6.1: flush_locked", entry, "spans", str(spans)[:200])
assert n >= 2 * reads, spans
PY
KSID=$(sid_kernel)
if [ -z "$KSID" ]; then
	skip_part "$SID_KERNEL_MISSING"
else
	rs=$(basename "$(dirname "$KSID")")
	timeout 600 "$RS_BIN" bench stat-read --children 4 --updater memory \
		--reads $reads -r 2 --record --kernel "$KSID" -o "$TMP/sid" \
		--accel tcg >"$TMP/stdout" 2>"$TMP/stderr" ||
		fail "bench --kernel $rs: $(tail -n 30 "$TMP/stderr")"
	"$RS_BIN" report -i "$TMP/sid/$rs/rstat.data" --json >"$TMP/rsid.json" \
		2>"$TMP/err" || fail "report $rs: $(cat "$TMP/err")"
	python3 - "$TMP/sid/$rs/results.json" "$TMP/rsid.json" "$rs" $reads \
		<<'PY' || fail "$rs: split trees"
import json, sys
res, rep = (json.load(open(f)) for f in sys.argv[1:3])
rel, reads = sys.argv[3], int(sys.argv[4])
p = res["provenance"]
assert p["kernel"] == rel, (p["kernel"], rel)
assert p["cgroup_layout"] == "v2", p["cgroup_layout"]
for c in ("memory", "io"):
    assert c in p["v2_controllers"], p["v2_controllers"]
assert len(res["repetitions"]) == 2, len(res["repetitions"])
for r in res["repetitions"]:
    files = {m.get("file") for m in r["metrics"]
             if m["name"] == "read_ns" and m["count"] == reads}
    assert {"cpu.stat", "memory.stat", "io.stat"} <= files, files
ks = rep["kernel_spans"]
if ks is None:
    print("note: no BPF spans in this build; only provenance checked")
    sys.exit(0)
assert ks["on"] == "rstat tracepoints", ks["on"]
flush = {s["subsystem"]: s["count"] for s in ks["spans"]
         if s["name"] == "flush"}
assert flush.get("base", 0) >= reads, flush
assert flush.get("io", 0) >= reads, flush
bad = [c for c in rep["category_triggers"]
       if c["category"] == "memory" and c["trigger"] == "cpu.stat"]
assert not bad, bad
print("ok", rel, "flushes by subsystem", flush)
PY
fi

[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
