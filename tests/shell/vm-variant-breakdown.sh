#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 25, thread 002 in one command, in Debian's 6.1 guest (kprobes, BTF,
# pure cgroup v2): memory.stat and cpu.stat of a parent whose children
# charge memory, read discrete vs interleaved as two --variants with
# --breakdown. Checked from the results and the text:
#  - the runs alternate (2 rounds), then each variant's breakdown pass,
#    a run of its own; each variant's file holds its 2 repetitions (the
#    pass is none of them) and its decomposition (pass "breakdown",
#    fentry where BTF (else kprobes), every read decomposed: N reads -> N, nothing lost);
#  - for each file and variant the parts add up (breakdown-variants.py:
#    read by read, as sums, to the nanosecond; and at p50, the kernel's
#    total p50 plus entry/exit's p50 within 5% of the reader's p50);
#  - the side-by-side tables printed after the comparison say what the
#    results say: each part's share and p50, and its change in points.
# No direction is asserted: the thread's 50x slowdown does not show in a
# TCG guest (docs/tutorial.md says what does); the test prints which
# part grew. Then the same with --record: each variant's pass recorded
# (its rstat.data back on the host, the decomposition riding on it).
. tests/shell/lib.sh
need_vm_breakdown

RS_ROOT=$PWD
before=$(vm_workdirs)
rel=$(basename "$(dirname "$K61")")
reads=200
v="--variant discrete:--discrete --variant interleave:--interleave"
# shellcheck disable=SC2086
timeout 600 "$RS_BIN" bench stat-read --children 4 --updater memory \
	--files memory.stat,cpu.stat --reads $reads -r 2 $v --breakdown \
	--kernel "$K61" -o "$TMP/out" --accel tcg \
	>"$TMP/stdout" 2>"$TMP/stderr" ||
	fail "bench --variant --breakdown --kernel: $(tail -n 30 "$TMP/stderr")"
grep -q "reads not decomposed" "$TMP/stderr" &&
	fail "the guest could not decompose: $(grep 'not decomposed' "$TMP/stderr")"
grep '^# run ' "$TMP/stdout" |
	sed -E 's/^# run ([0-9]+)( of [0-9]+)?: ([a-z]+), (repetition ([0-9])|the ([a-z]+) pass).*/\1\3\5\6/' |
	tr '\n' ' ' >"$TMP/order"
[ "$(cat "$TMP/order")" = "1discrete1 2interleave1 3discrete2 4interleave2 5discretebreakdown 6interleavebreakdown " ] ||
	fail "the runs: $(cat "$TMP/order")"
for n in discrete interleave; do
	python3 "$RS_ROOT/tests/shell/bench-schema.py" \
		"$RS_ROOT/docs/bench-results.schema.json" \
		"$TMP/out/$rel/$n/results.json" || fail "$n: results do not validate"
done
btf=0
kernel_btf "$K61" && btf=1
python3 - "$TMP/out/$rel" $reads $btf <<'PY' || fail "the variants' breakdowns"
import json, sys
d, reads, btf = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
how = "fentry/fexit on " if btf else "kprobe+kretprobe on "
for n, order in (("discrete", "discrete"), ("interleave", "interleave")):
    r = json.load(open("%s/%s/results.json" % (d, n)))
    p = r["params"]
    assert p["variant"] == n and p["order"] == order, p
    assert p["breakdown"] is True and p["repetitions"] == 2, p
    assert len(r["repetitions"]) == 2, "the pass became a repetition"
    bd = r["breakdown"]
    assert bd["pass"] == "breakdown", bd["pass"]
    # With BTF, the flush functions by fentry (no fallback: not "both").
    assert bd["method"].endswith(
        "flush functions by fentry, no lock tracepoints") if btf else \
        bd["method"].startswith("BPF: kprobes"), bd["method"]
    assert bd["lost"] == 0 and bd["broken"] <= 1, (bd["lost"], bd["broken"])
    src = {s["part"]: s for s in bd["sources"]}
    assert src["memory"]["timed"] and src["memory"]["how"] == \
        how + "mem_cgroup_css_rstat_flush", src
    files = {f["file"]: f for f in bd["files"]}
    assert set(files) == {"memory.stat", "cpu.stat"}, set(files)
    for f in files.values():
        parts = {q["part"]: q for q in f["parts"]}
        assert f["reads"] == reads == f["reader_reads"], f
        assert parts["total"]["calls"] == reads, parts["total"]
        # Two preads a read (the data, then end of file).
        assert parts["rest"]["calls"] == 2 * reads, parts["rest"]
    # cpu.stat flushes on every read: the flush function, once a read.
    walk = {q["part"]: q for q in files["cpu.stat"]["parts"]}["walk"]
    assert walk["calls"] == reads, walk
PY
python3 "$RS_ROOT/tests/shell/breakdown-variants.py" "$TMP/stdout" 5 \
	discrete="$TMP/out/$rel/discrete/results.json" \
	interleave="$TMP/out/$rel/interleave/results.json" ||
	fail "the parts do not add up, or the table is not the results'"

# --record: each variant's pass recorded, and decomposed.
# shellcheck disable=SC2086
timeout 600 "$RS_BIN" bench stat-read --children 4 --updater memory \
	--files memory.stat,cpu.stat --reads 100 $v --record \
	--kernel "$K61" -o "$TMP/rec" --accel tcg \
	>"$TMP/rstdout" 2>"$TMP/rstderr" ||
	fail "bench --variant --record --kernel: $(tail -n 30 "$TMP/rstderr")"
for n in discrete interleave; do
	[ -s "$TMP/rec/$rel/$n/rstat.data" ] ||
		fail "$n: no recording came back from the guest"
	python3 - "$TMP/rec/$rel/$n/results.json" <<'PY' || fail "$n: the recorded pass"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["params"]["record"] is True, r["params"]
assert len(r["repetitions"]) == 1, "the recorded pass became a repetition"
assert r["recording"]["file"].endswith("/rstat.data"), r["recording"]
assert r["recording"]["pass"]["metrics"], r["recording"]
assert r["breakdown"]["pass"] == "recorded", r["breakdown"]["pass"]
PY
done
grep -Eq "^memory.stat +discrete +interleave$" \
	"$TMP/rstdout" || fail "--record: no side-by-side table"
grep -qF "# interleave's recorded pass, on this host: rstat-analyze report -i $TMP/rec/$rel/interleave/rstat.data" \
	"$TMP/rstdout" || fail "--record: the host did not say where the recordings are"
"$RS_BIN" report -i "$TMP/rec/$rel/interleave/rstat.data" \
	>"$TMP/report" 2>&1 || fail "report of a variant's recording: $(tail -n 5 "$TMP/report")"
[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
