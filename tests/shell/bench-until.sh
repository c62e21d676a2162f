#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench --until RES[,SECONDS[,METRIC]]: usage errors first (exit 2, one
# line);
# then, as root, on the host: a target any run meets stops at the third
# repetition (the least a resolution may end a run at), or at -r when -r
# asks for more; a target no run meets stops on the time limit. Each time
# the printed line and the results' until_* parameters say what ended the
# run, the repetitions printed, in the parameters and in the file agree,
# and the resolution is recomputed here from the file's per-repetition
# p50s (Welch's detectable difference at 5% and 80% power, scipy's t
# quantiles when Debian's scipy is there). With two variants the rounds
# stay interleaved and both files hold the same number of repetitions.
# METRIC chooses the metric judged; one the results lack fails the run.
. tests/shell/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
RS_ROOT=$PWD

expect_error 2 "--until '0': give the resolution in percent" \
	"$RS_BIN" bench stat-read --until 0
expect_error 2 "--until 'abc': give the resolution in percent" \
	"$RS_BIN" bench stat-read --until abc
expect_error 2 "--until '5%,x': the time limit is seconds" \
	"$RS_BIN" bench stat-read --until 5%,x
expect_error 2 "--until '5%,-3': the time limit is seconds" \
	"$RS_BIN" bench stat-read --until 5%,-3
expect_error 2 "--until '5%x': give the resolution in percent" \
	"$RS_BIN" bench stat-read --until 5%x
expect_error 2 "--until '5%,60,a/b': the metric is a name or a stat file" \
	"$RS_BIN" bench stat-read --until 5%,60,a/b
echo "ok usage errors"

. tests/shell/bench-lib.sh
no_leftovers "before the test"
cd "$TMP" || fail cd

py=python3
/usr/bin/python3 -c 'import scipy' 2>/dev/null && py=/usr/bin/python3
$py -c 'import scipy' 2>/dev/null ||
	skip_part "no scipy: the t quantiles are checked against a table of three"

# check OUT JSON... END: the printed --until line and every file agree
# that END ended the run, on the count of repetitions and the resolution.
check() {
	local out=$1 end=$2
	shift 2
	$py - "$out" "$end" "$@" <<'EOF' || fail "bench --until: $(grep '^#' "$out")"
import json, math, re, statistics, sys
out, end, files = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
m = re.search(r"^# --until ([0-9.e+-]+)%: ended by (the resolution|the time "
              r"limit \(([0-9.]+) s\)|the cap of ([0-9]+) repetitions) after "
              r"([0-9]+) repetitions? in ([0-9.]+) s: resolution "
              r"([0-9.]+)% of the p50 of (\S+) (\S+)$", out, re.M)
assert m, out
word = {"the resolution": "resolution"}.get(m.group(2), m.group(2))
word = "time" if word.startswith("the time") else word
word = "repetitions" if word.startswith("the cap") else word
assert word == end, (word, end)
target, printed_reps = float(m.group(1)), int(m.group(5))
docs = [json.load(open(f)) for f in files]
try:
    from scipy import stats

    def tq(p, df):
        return stats.t.ppf(p, df)
except ImportError:
    # Student t quantiles for the degrees of freedom 3 repetitions give
    # a single side (2 * (3 - 1) = 4), from a printed table.
    def tq(p, df):
        return {(0.975, 4): 2.776445, (0.8, 4): 0.940965}[(p, df)]


def p50s(d, name, file):
    out = []
    for r in d["repetitions"]:
        for x in r["metrics"]:
            if x["name"] == name and x["file"] == file:
                out.append(x["p50"])
    return out


name, file = m.group(8), m.group(9)
base = p50s(docs[0], name, file)
worst = None
for d in docs[1:] or docs[:1]:
    side = p50s(d, name, file)
    # Whole nanoseconds: their rounding adds a variance of 1/12.
    va = (statistics.variance(base) + 1 / 12) / len(base)
    vb = (statistics.variance(side) + 1 / 12) / len(side)
    df = (va + vb) ** 2 / (va * va / (len(base) - 1) + vb * vb / (len(side) - 1))
    dd = (tq(0.975, df) + tq(0.8, df)) * math.sqrt(va + vb)
    pct = dd * 100 / statistics.mean(base)
    worst = pct if worst is None else max(worst, pct)
for d in docs:
    p = d["params"]
    assert p["until_end"] == end, p
    assert p["repetitions"] == len(d["repetitions"]) == printed_reps, \
        (p["repetitions"], len(d["repetitions"]), printed_reps)
    assert p["until_metric"] == "%s %s" % (name, file), p
    assert math.isclose(p["until_target_pct"], target), p
    assert math.isclose(p["until_resolution_pct"], worst, rel_tol=1e-6), \
        (p["until_resolution_pct"], worst)
    assert abs(p["until_resolution_pct"] - float(m.group(7))) < 0.006, p
    if end == "resolution":
        assert p["until_resolution_pct"] <= target, p
    if end == "time":
        assert p["until_elapsed_s"] >= float(m.group(3)), p
        assert p["until_resolution_pct"] > target, p
print("ok", end, printed_reps, "repetitions, resolution",
      round(worst, 3), "%")
EOF
}

run="stat-read --children 2 --reads 200 --files cgroup.stat"
# shellcheck disable=SC2086
{
# A target every run meets: the third repetition ends it.
timeout 300 "$RS_BIN" bench $run --until 1000%,120 --json loose.json \
	>loose.out 2>loose.err || fail "bench --until 1000%: $(cat loose.err)"
check loose.out resolution loose.json
grep -q '^# --until 1000%: ended by the resolution after 3 repetitions' \
	loose.out || fail "not 3 repetitions: $(grep '^#' loose.out)"
# ... and -r 5 is the least.
timeout 300 "$RS_BIN" bench $run -r 5 --until 1000% --json least.json \
	>least.out 2>least.err || fail "bench -r 5 --until: $(cat least.err)"
check least.out resolution least.json
grep -q 'ended by the resolution after 5 repetitions' least.out ||
	fail "-r 5 is not the least: $(grep '^#' least.out)"
# A target no run meets: the time limit ends it (a repetition of 20000
# reads takes some 20 ms: 100 of them would take two seconds); -r 2, so
# that a slow setup still leaves a spread to report.
timeout 300 "$RS_BIN" bench ${run/200/20000} -r 2 --until 0.0001%,0.5 \
	--json tight.json >tight.out 2>tight.err ||
	fail "bench --until 0.0001%,0.5: $(cat tight.err)"
check tight.out time tight.json
grep -q '^# --until 0.0001%: ended by the time limit (0.5 s)' tight.out ||
	fail "not the time limit: $(grep '^#' tight.out)"
# The table's header counts the repetitions the run did.
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["repetitions"]))' tight.json)
grep -q "^# rstat-analyze bench stat-read: $n repetitions" tight.out ||
	fail "the header does not say $n repetitions: $(grep '^#' tight.out)"
# ... and with time to spare, the cap of 100 repetitions (200 reads
# each: well under the 300 seconds).
timeout 300 "$RS_BIN" bench $run --until 0.0001%,300 --json cap.json \
	>cap.out 2>cap.err || fail "bench --until 0.0001%,300: $(cat cap.err)"
check cap.out repetitions cap.json
grep -q '^# --until 0.0001%: ended by the cap of 100 repetitions after 100 repetitions' \
	cap.out || fail "not the cap: $(grep '^#' cap.out)"
# METRIC: the second file's reads judged, by its file's name.
timeout 300 "$RS_BIN" bench ${run/cgroup.stat/cgroup.stat,cpu.stat} \
	--until 1000%,120,cpu.stat --json chosen.json >chosen.out \
	2>chosen.err || fail "bench --until 1000%,120,cpu.stat: $(cat chosen.err)"
check chosen.out resolution chosen.json
grep -q 'of the p50 of read_ns cpu.stat$' chosen.out ||
	fail "not cpu.stat judged: $(grep '^# --until' chosen.out)"
# ... and one the results lack fails the run, naming those they have.
expect_error 1 "--until: no metric nope in the results; they have read_ns cgroup.stat, " \
	"$RS_BIN" bench $run --until 5%,60,nope --json nope.json
[ -e nope.json ] && fail "a results file for a run that failed"
expect_error 1 "--until: no metric nope in the results; they have read_ns cgroup.stat, " \
	"$RS_BIN" bench $run --until 5%,60,nope \
	--variant a:--interleave --variant b:--discrete -o vnope
[ -e vnope/a/results.json ] && fail "a variant's results file for a run that failed"
}
no_leftovers "after the host runs"
echo "ok --until on the host: resolution, -r, time limit, cap, METRIC"

# Variants: whole rounds, interleaved; the worst of b against a.
v="--variant a:--interleave --variant b:--discrete"
# shellcheck disable=SC2086
{
timeout 300 "$RS_BIN" bench $run $v --until 1000%,120 -o vl >vl.out \
	2>vl.err || fail "bench --variant --until 1000%: $(cat vl.err)"
check vl.out resolution vl/a/results.json vl/b/results.json
timeout 300 "$RS_BIN" bench $run $v -r 2 --until 0.0001%,4 -o vt \
	>vt.out 2>vt.err || fail "bench --variant --until 0.0001%,4: $(cat vt.err)"
check vt.out time vt/a/results.json vt/b/results.json
}
python3 - vt <<'EOF' || fail "the variants' rounds"
import json, sys
a = json.load(open(sys.argv[1] + "/a/results.json"))["params"]
b = json.load(open(sys.argv[1] + "/b/results.json"))["params"]
n = a["repetitions"]
assert a["variant_sequence"] == ["a", "b"] * n, a["variant_sequence"]
assert b["variant_sequence"] == a["variant_sequence"], b
EOF
grep -q '^# run [0-9]* of at most 200: b, ' vt.out ||
	fail "the run lines do not say the cap: $(grep '^# run' vt.out | head -3)"
# What bench printed after: compare's short default of the two.
grep -q '^More with --details' vt.out || fail "no comparison after the runs"
no_leftovers "after the variants"
echo "ok --until with variants: whole rounds, both files agree"
