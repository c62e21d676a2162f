#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare's verdicts follow the medians, and say what decided them.
# Synthetic results files, written here:
#  - tail-heavy: the new side's reads are mostly 10% faster, but a fifth
#    of them take 60% longer, so its mean is higher (Welch: slower) while
#    its median is lower: the verdict is "faster", decided by the median,
#    and says the means move the other way;
#  - the same distribution on both sides: no difference, with the
#    smallest difference the run could resolve;
#  - reads_per_s, one figure per repetition: Welch decides, and the
#    resolution is Welch's detectable difference at 80% power.
# Each figure is checked against values computed here independently: the
# medians and the Mann-Whitney p by scipy (Debian's python3-scipy; by
# hand-coded numpy-free formulas when scipy is missing), the bootstrap
# interval against scipy's own percentile bootstrap (a different random
# stream: within a quarter of the interval's width), the resolution by
# the t quantiles.
. tests/shell/lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
cd "$TMP" || fail cd

python3 - "$OLDPWD/tests/data/compare/base.json" <<'PY' ||
import json, math, random, sys


def hist_metric(file, values):
    """A read_ns metric as docs/bench-results.md has it."""
    s = sorted(values)
    n = len(s)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1))
    rank = lambda q: s[max(1, math.ceil(q * n / 100)) - 1]
    rows = {}
    for v in values:
        rows[v.bit_length()] = rows.get(v.bit_length(), 0) + 1
    hist = [{"low": 1 << (i - 1), "high": (1 << i) - 1,
             "count": rows.get(i, 0)} for i in range(min(rows), max(rows) + 1)]
    return {"name": "read_ns", "kind": "hist", "unit": "ns",
            "better": "lower", "file": file, "count": n, "min": s[0],
            "p50": rank(50), "p90": rank(90), "p99": rank(99), "max": s[-1],
            "mean": float("%.10g" % mean), "stddev": float("%.10g" % sd),
            "hist": hist, "samples": values}


template = json.load(open(sys.argv[1]))


def write(path, reps_values, rates, load=None, sys_s=5.8):
    d = json.loads(json.dumps(template))
    if load:
        d["provenance"]["load"] = load
    d["repetitions"] = [
        {"index": i, "time": {"real_s": 6.0, "user_s": 0.2, "sys_s": sys_s},
         "metrics": [hist_metric("cpu.stat", vals),
                     {"name": "reads_per_s", "kind": "value", "unit": "1/s",
                      "better": "higher", "file": None, "value": rate}]}
        for i, (vals, rate) in enumerate(zip(reps_values, rates))]
    d["params"]["repetitions"] = len(reps_values)
    json.dump(d, open(path, "w"))


rnd = random.Random(7)
base = [[rnd.randint(9800, 10200) for _ in range(200)] for _ in range(3)]
tail = [[rnd.randint(8800, 9200) if rnd.random() < 0.8 else
         rnd.randint(15800, 16200) for _ in range(200)] for _ in range(3)]
same = [[rnd.randint(9800, 10200) for _ in range(200)] for _ in range(3)]
write("base.json", base, [160.0, 161.5, 159.2])
# The tail side also ran on a loaded machine (load 9.5 on 2 CPUs) with
# its reader on a CPU a third of the time: both said above the tables.
write("tail.json", tail, [150.1, 149.0, 151.3],
      load={"loadavg_before": 9.5, "loadavg_after": 8.0, "steal_s": 0.2},
      sys_s=1.8)
write("same.json", same, [160.4, 158.9, 161.0])
PY
	fail "could not write the synthetic results"

for side in tail same; do
	"$RS_BIN" compare base.json -- $side.json --format json >$side.out \
		2>$side.err || fail "compare --format json ($side): $(cat $side.err)"
	"$RS_BIN" compare base.json -- $side.json --details >$side.txt \
		2>>$side.err || fail "compare ($side): $(cat $side.err)"
	"$RS_BIN" compare base.json -- $side.json >$side.short 2>>$side.err ||
		fail "compare ($side): $(cat $side.err)"
	python3 "$OLDPWD/tests/shell/compare-paste.py" $side.short $side.txt ||
		fail "compare ($side): the default is not --details' figures"
done

# The text says it as the JSON does: the verdict lines, by what decided.
grep -A3 "^Verdicts at 95%" tail.txt | tr '\n' ' ' |
	grep -q "cpu.stat-us, tail: faster: median .* against .* us (-9\.[0-9]%.*the means move the other way (Welch)" ||
	fail "the tail-heavy side's verdict: $(sed -n '/^Verdicts/,/^$/p' tail.txt)"
grep -A3 "^Verdicts at 95%" same.txt | tr '\n' ' ' |
	grep -q "cpu.stat-us, same: no difference proven: .*could not resolve less than [0-9.]*%" ||
	fail "the same distribution's verdict: $(sed -n '/^Verdicts/,/^$/p' same.txt)"
# The default says it in fewer words: the median's move, what the means
# did, the resolution.
grep -A3 "^Verdicts at 95%" tail.short | tr '\n' ' ' |
	grep -q "cpu.stat-us, tail: faster: median -9\.[0-9]% (95% interval .*the means move the other way (Welch)" ||
	fail "the tail-heavy side's short verdict: $(sed -n '/^Verdicts/,/^$/p' tail.short)"
grep -A3 "^Verdicts at 95%" same.short | tr '\n' ' ' |
	grep -q "cpu.stat-us, same: no difference proven: median .*could not resolve less than [0-9.]*%" ||
	fail "the same distribution's short verdict: $(sed -n '/^Verdicts/,/^$/p' same.short)"
# Above the tables: the loaded machine and the preempted reader of the
# tail side (load 9.5 on 2 CPUs; user+sys 2.0 s of 6.0 s real), and
# nothing for the base (its provenance has no load, its reader was busy).
sed -n '1,/^ *base *tail/p' tail.txt | tr '\n' ' ' >head.txt
grep -q "WARNING: tail: the machine was loaded (load average 9.5 on 2 CPUs)" head.txt ||
	fail "no warning of the loaded machine: $(cat head.txt)"
grep -q "WARNING: tail: the reader was on a CPU 33% of its real time" head.txt ||
	fail "no warning of the preempted reader: $(cat head.txt)"
grep -q "WARNING: base" head.txt && fail "a warning for the base: $(cat head.txt)"
grep -q "stole" head.txt && fail "0.2 s stolen of 18 s real is under 2%: $(cat head.txt)"
# The same warnings, in the same order, in the JSON and the markdown.
python3 - tail.out head.txt <<'PY' || fail "the JSON's warnings are not the text's"
import json, sys
got = json.load(open(sys.argv[1]))["warnings"]
text = " ".join(open(sys.argv[2]).read().split())
assert len(got) == 2, got
for g in got:
    assert "WARNING: " + g in text, (g, text)
PY
"$RS_BIN" compare base.json -- tail.json --format markdown >tail.md ||
	fail "compare --format markdown"
[ "$(grep -c '^\*\*Warning:\*\* tail: ' tail.md)" = 2 ] ||
	fail "the markdown's warnings: $(grep -i warning tail.md)"
expand tail.txt | awk 'length($0) > 72 { bad = 1 } END { exit bad }' ||
	fail "the verdicts pass 72 columns"

# Python with scipy when Debian's is there (python3-scipy installs for
# /usr/bin/python3, which may not be the python3 first on PATH).
py=python3
/usr/bin/python3 -c 'import scipy' 2>/dev/null && py=/usr/bin/python3
$py - <<'PY' || fail "compare's verdict figures differ from the reference"
import json, math, statistics, sys
try:
    from scipy import stats
    import numpy as np
except ImportError:
    stats = None
    print("PART-SKIP: no scipy: the rank test and bootstrap are checked by hand-coded formulas only")


def pooled(path):
    d = json.load(open(path))
    return [v / 1000 for r in d["repetitions"] for m in r["metrics"]
            if m["name"] == "read_ns" for v in m["samples"]]


def rates(path):
    d = json.load(open(path))
    return [m["value"] for r in d["repetitions"] for m in r["metrics"]
            if m["name"] == "reads_per_s"]


def mwu_p(a, b):
    """Two-sided asymptotic Mann-Whitney p with tie and continuity corrections."""
    allv = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    ranks, i, ties = {}, 0, 0.0
    rb = 0.0
    while i < len(allv):
        j = i
        while j < len(allv) and allv[j][0] == allv[i][0]:
            j += 1
        t = j - i
        ties += t ** 3 - t
        mean_rank = (i + 1 + j) / 2
        rb += sum(mean_rank for k in range(i, j) if allv[k][1])
        i = j
    n1, n2 = len(a), len(b)
    n = n1 + n2
    u = rb - n2 * (n2 + 1) / 2
    mu = n1 * n2 / 2
    s = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    z = max(abs(u - mu) - 0.5, 0) / s
    return u, math.erfc(z / math.sqrt(2))


base = pooled("base.json")
for side in ("tail", "same"):
    d = json.load(open(side + ".out"))
    m = [x for x in d["metrics"] if x["label"] == "cpu.stat-us"][0]
    v = m["sides"][1]["verdict"]
    new = pooled(side + ".json")
    assert v["decided_by"] == "median", v
    assert math.isclose(v["median_base"], statistics.median(base), rel_tol=1e-12), v
    assert math.isclose(v["median"], statistics.median(new), rel_tol=1e-12), v
    diff = v["median_diff"]
    assert math.isclose(diff["estimate"], statistics.median(new) - statistics.median(base),
                        rel_tol=1e-9, abs_tol=1e-9), diff
    u, p = mwu_p(base, new)
    assert math.isclose(v["mann_whitney"]["u"], u), (v, u)
    assert math.isclose(v["mann_whitney"]["p"], p, rel_tol=1e-6, abs_tol=1e-300), (v, p)
    if stats:
        r = stats.mannwhitneyu(new, base, alternative="two-sided",
                               method="asymptotic", use_continuity=True)
        assert math.isclose(v["mann_whitney"]["p"], r.pvalue, rel_tol=1e-6,
                            abs_tol=1e-300), (v, r)
        bs = stats.bootstrap((np.array(new), np.array(base)),
                             lambda x, y, axis: np.median(x, axis=axis) - np.median(y, axis=axis),
                             n_resamples=1000, method="percentile",
                             confidence_level=0.95, vectorized=True,
                             random_state=1)
        lo, hi = bs.confidence_interval
        w = hi - lo
        assert abs(diff["low"] - lo) <= 0.25 * w + 1e-9 and \
            abs(diff["high"] - hi) <= 0.25 * w + 1e-9, (diff, lo, hi)
    sig = diff["low"] > 0 or diff["high"] < 0
    assert v["significant"] == sig, v
    assert math.isclose(v["resolution_pct"],
                        (diff["high"] - diff["low"]) / 2 * 100 / v["median_base"]), v
    if side == "tail":
        # The median moved down, the mean up: the verdict follows the median.
        assert v["direction"] == "faster" and v["means"] == "opposite", v
        assert statistics.mean(new) > statistics.mean(base)
        assert m["sides"][1]["welch"]["significant"], m["sides"][1]["welch"]
    else:
        assert not v["significant"] and v["direction"] == "none", v

    # One figure per repetition: Welch decides; the resolution is its
    # detectable difference at 80% power, in percent of the base's mean.
    r = [x for x in d["metrics"] if x["label"] == "reads_per_s"][0]
    rv = r["sides"][1]["verdict"]
    assert rv["decided_by"] == "welch", rv
    a, b = rates("base.json"), rates(side + ".json")
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    if stats:
        q = stats.t.ppf(0.975, df) + stats.t.ppf(0.8, df)
        want = q * math.sqrt(va + vb) * 100 / abs(statistics.mean(a))
        assert math.isclose(rv["resolution_pct"], want, rel_tol=1e-6), (rv, want)
    print("ok", side, v["direction"], v["median_diff"], rv)
PY
exit 0
