#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 25 in the guests, which have kprobes: bench --breakdown on 6.12
# and 6.1 in one run (--kernel twice: the kernels' tables side by side)
# with children charging memory, reading their parent's cpu.stat; the
# kernels' breakdowns side by side are compare's own table of the two.
# Checked on both: every read decomposed once (N reads -> N, two preads
# each), the parts add up to every read (shares sum to 1), the kernel's
# p50 inside the reader's, cpu.stat's flush function entered once a read
# (the walk's calls: exactly the reads), the callbacks and the walk
# timed by fentry/fexit where the kernel has BTF (else kprobes).
# On 6.12 the lock wait comes from the lock tracepoints and the per-CPU
# lock wait is timed. On 6.1 (no lock tracepoints) cpu.stat's lock
# wait is timed from cgroup_base_stat_cputime_show, once a read exactly,
# and the per-CPU lock wait says it cannot be timed. Callbacks outside
# the reads are counted by who flushed (the rule table's triggers, from
# the stack at their entry), each once. The results read
# back on the host (the reader is strict) and the tables are printed.
# Thread 000 itself (memory's share on 6.12 against an oracle, none on
# sid's 7.x) is vm-breakdown-oracle's, which boots those kernels once.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"
grep -aq bd_cb_memory_entry "$RS_BIN" ||
	skip "built without BPF: the reads cannot be decomposed"

RS_ROOT=$PWD
before=$(vm_workdirs)
out=$TMP/out
reads=100
timeout 900 "$RS_BIN" bench stat-read --children 4 --updater memory \
	--files cpu.stat --reads $reads --breakdown \
	--kernel "$K612" --kernel "$K61" -o "$out" \
	--accel tcg \
	>"$TMP/stdout" 2>"$TMP/stderr" ||
	fail "bench --breakdown --kernel: $(tail -n 30 "$TMP/stderr")"
grep -q "reads not decomposed" "$TMP/stderr" &&
	fail "a guest could not decompose: $(grep 'not decomposed' "$TMP/stderr")"
nk=2
[ "$(grep -c "^cpu.stat: where a read's time goes, $reads reads" \
	"$TMP/stdout")" -eq $nk ] || fail "not one table per guest: $(cat "$TMP/stdout")"
r61=$(basename "$(dirname "$K61")")
r612=$(basename "$(dirname "$K612")")
for r in "$r612" "$r61"; do
	python3 "$RS_ROOT/tests/shell/bench-schema.py" \
		"$RS_ROOT/docs/bench-results.schema.json" \
		"$out/$r/results.json" || fail "$r: results do not validate"
	k=$K61
	[ "$r" = "$r612" ] && k=$K612
	btf=0
	kernel_btf "$k" && btf=1
	# The guest's tables (its part of stdout) say what its JSON says:
	# each figure, the tree, the callbacks' observer cost.
	awk -v k="$k" '/^# rstat-analyze bench: kernel / { on = ($NF == k) }
		on' "$TMP/stdout" >"$TMP/$r.txt"
	python3 "$RS_ROOT/tests/shell/breakdown-text.py" "$TMP/$r.txt" \
		"$out/$r/results.json" || fail "$r: the text is not the JSON"
	python3 - "$out/$r/results.json" "$r" $reads $btf <<'PY' || fail "$r: breakdown"
import json, sys
d = json.load(open(sys.argv[1]))
rel, reads, btf = sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
new = not rel.startswith("6.1.")
bd = d["breakdown"]
assert bd["lost"] == 0 and bd["broken"] <= 1, (bd["lost"], bd["broken"])
# With BTF, fentry: a fallback to kprobes says so ("by both").
if btf:
    assert bd["method"].endswith("flush functions by fentry") or \
        bd["method"].endswith("flush functions by fentry, no lock tracepoints"), \
        bd["method"]
else:
    assert bd["method"].startswith("BPF: kprobes"), bd["method"]
how = "fentry/fexit on " if btf else "kprobe+kretprobe on "
assert bd["window_end_ns"] > bd["window_start_ns"] > 0, bd
assert bd["reader_pid"] > 1, bd["reader_pid"]
src = {s["part"]: s for s in bd["sources"]}
for p in ("memory", "io", "walk", "wait", "off-cpu"):
    assert src[p]["timed"], (rel, src[p])
assert src["memory"]["how"] == how + "mem_cgroup_css_rstat_flush", src["memory"]
assert src["walk"]["how"].startswith(how), src["walk"]
# Flushes outside the reads (the worker, reclaim), keyed by who flushed:
# every call of a callback outside is under one trigger.
for p in ("memory", "io", "bpf"):
    by = src[p].get("outside_by", [])
    assert sum(e["calls"] for e in by) == src[p]["outside_calls"], src[p]
(f,) = bd["files"]
parts = {p["part"]: p for p in f["parts"]}
assert f["reads"] == reads and parts["total"]["calls"] == reads, f
assert parts["rest"]["calls"] == 2 * reads, parts["rest"]
assert abs(sum(p["share"] for k, p in parts.items() if k != "total") - 1) < 1e-6
assert abs(sum(p["sum_ns"] for k, p in parts.items() if k != "total")
           - parts["total"]["sum_ns"]) <= 10, parts
assert parts["total"]["p50_ns"] <= f["read_p50_ns"], f
# Every cpu.stat read flushes: one call of the flush function each.
assert parts["walk"]["calls"] == reads, parts["walk"]
if new:
    assert src["cpu-wait"]["timed"], src["cpu-wait"]
    assert "cgroup_rstat_lock_contended" in src["wait"]["how"], src["wait"]
else:
    assert parts["wait"]["calls"] == reads, parts["wait"]
    assert "cgroup_base_stat_cputime_show" in src["wait"]["how"] or \
        "cgroup_rstat_flush" in src["wait"]["how"], src["wait"]
    assert src["wait"]["how"].startswith(
        "fentry/fexit:" if btf else "kprobes:"), src["wait"]
    assert not src["cpu-wait"]["timed"], src["cpu-wait"]
    assert "v6.10" in src["cpu-wait"]["why"], src["cpu-wait"]
print("ok %s (%s): memory %d calls, %.1f%% of cpu.stat's time; walk %.1f%%; "
      "off-cpu %.1f%%" % (rel, bd["method"], parts["memory"]["calls"],
                         100 * parts["memory"]["share"],
                         100 * parts["walk"]["share"],
                         100 * parts["off-cpu"]["share"]))
PY
done
[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
# The kernels side by side: compare's own tables of the two results,
# character for character (one builder, one printer).
timeout 60 "$RS_BIN" compare "$out/$r612" -- "$out/$r61" >"$TMP/compare.txt" ||
	fail "compare of the kernels' results"
python3 - "$TMP/stdout" "$TMP/compare.txt" <<'PY' || fail "bench's side-by-side table is not compare's: $(tail -n 30 "$TMP/stdout")"
import sys
def section(path):
    text = open(path).read()
    s = text.split("\nWhere a read's time goes, timed in the kernel", 1)[1]
    return s.split("\n\nMore with --details", 1)[0]
b, c = section(sys.argv[1]), section(sys.argv[2])
assert "\ncpu.stat " in b and "\nmemory " in b, b
assert b == c, (b, c)
PY
echo "ok"
