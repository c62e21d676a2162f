#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each bench scenario at tiny sizes: its results validate against the
# schema, its figures are sane (every read asked for is counted, once per
# file and repetition; latencies and throughputs above zero; provenance
# filled), nothing of the run is left behind. And the seed's effect in
# direction: reading a parent's memory.stat costs more with 1000 charged
# memory cgroups below it than with 10 (an ordering, not a time).
. tests/shell/lib.sh
. tests/shell/bench-lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
no_leftovers "before the test"
cd "$TMP" || fail cd
RS_ROOT=$OLDPWD
validate() {
	python3 "$RS_ROOT/tests/shell/bench-schema.py" \
		"$RS_ROOT/docs/bench-results.schema.json" "$1" ||
		fail "$1 does not validate against the schema"
}

check() {	# check FILE SCENARIO REPS PYTHON-ASSERTIONS
	validate "$1"
	python3 - "$1" "$2" "$3" "$4" <<'PY' || fail "$2: figures not sane"
import json, sys
d = json.load(open(sys.argv[1]))
scen, reps = sys.argv[2], int(sys.argv[3])
assert d["scenario"] == scen, d["scenario"]
assert len(d["repetitions"]) == reps, len(d["repetitions"])
p = d["provenance"]
assert p["cpus"] >= 1 and p["cgroup_layout"] in ("v1", "v2", "hybrid"), p
for r in d["repetitions"]:
    t = r["time"]
    assert t["real_s"] > 0, t
    m = {(x["name"], x["file"]): x for x in r["metrics"]}
    # Each distribution's figures, from its own samples, by the
    # definitions of docs/bench-results.md (nearest-rank percentiles,
    # the n - 1 standard deviation, log2 rows).
    for x in r["metrics"]:
        xs = sorted(x.get("samples") or [])
        if x["kind"] != "hist" or len(xs) != x["count"]:
            continue
        n = len(xs)
        rank = lambda q: xs[max(1, min(n, -(-q * n // 100))) - 1]
        mean = sum(xs) / n
        sd = (sum((v - mean) ** 2 for v in xs) / (n - 1)) ** 0.5 \
            if n > 1 else 0
        want = {"min": xs[0], "max": xs[-1], "p50": rank(50),
                "p90": rank(90), "p99": rank(99)}
        for k, v in want.items():
            assert x[k] == v, (x["name"], x["file"], k, x[k], v)
        assert abs(x["mean"] - mean) <= 1e-6 * max(1, mean), (x["mean"], mean)
        assert abs(x["stddev"] - sd) <= 1e-6 * max(1, sd), (x["stddev"], sd)
        rows = {}
        for v in xs:
            b = v.bit_length() if v > 1 else 1
            rows[b] = rows.get(b, 0) + 1
        got = {(h["low"].bit_length() if h["low"] > 1 else 1): h["count"]
               for h in x["hist"] if h["count"]}
        assert got == rows, (x["name"], got, rows)
    exec(sys.argv[4])
print(scen, "ok:", [(k, v.get("count", v.get("value"))) for k, v in m.items()])
PY
}

"$RS_BIN" bench stat-read --children 3 --reads 40 -r 2 --json s.json \
	>s.out 2>s.err || fail "stat-read: $(cat s.err)"
check s.json stat-read 2 '
files = [f for f in d["params"]["files"]
         if not any(f in s for s in d["skipped"])]
assert files, d
for f in files:
    h = m[("read_ns", f)]
    assert h["count"] == 40 and sum(b["count"] for b in h["hist"]) == 40, h
    assert 0 < h["min"] <= h["p50"] <= h["max"], h
assert m[("reads_per_s", None)]["value"] > 0
'
grep -q "^real 0m" s.out || fail "stat-read: no time(1) figures printed"
grep -q "^     usecs               : count     distribution" s.out ||
	fail "stat-read: no funclatency histogram printed"
no_leftovers stat-read

"$RS_BIN" bench stat-read --children 2 --depth 3 --updater cpu --discrete \
	--files cpu.stat,cgroup.stat --reads 25 --json d.json >/dev/null \
	2>d.err || fail "stat-read --discrete: $(cat d.err)"
check d.json stat-read 1 '
assert d["params"]["order"] == "discrete" and d["params"]["depth"] == 3
for f in ("cpu.stat", "cgroup.stat"):
    assert m[("read_ns", f)]["count"] == 25
'
no_leftovers "stat-read --discrete"

# --json FILE and -o DIR together: each gets the results.
"$RS_BIN" bench pipe --round-trips 3000 --json p.json -o pdir >/dev/null \
	2>p.err || fail "pipe: $(cat p.err)"
cmp -s p.json pdir/results.json ||
	fail "pipe: --json p.json and -o pdir did not both get the results"
check p.json pipe 1 '
vals = [v["value"] for k, v in m.items() if k[0].startswith("round_trips_per_s")]
assert vals and all(v > 0 for v in vals), m
assert len(vals) == 2 or d["skipped"], d
'
no_leftovers pipe

"$RS_BIN" bench fault --children 2 --duration 0.5 --json f.json >/dev/null \
	2>f.err || fail "fault: $(cat f.err)"
check f.json fault 1 '
assert m[("faults_per_s", None)]["value"] > 0, m
assert t["sys_s"] > 0, t
'
no_leftovers fault

# many-cgroups, and its seed's direction: the memory.stat read over 1000
# charged memcgs (the first read flushes them all) costs more than over
# 10, in its mean or its slowest read.
for k in 10 1000; do
	"$RS_BIN" bench many-cgroups --cgroups $k --reads 50 --json m$k.json \
		>/dev/null 2>m.err || fail "many-cgroups $k: $(cat m.err)"
	check m$k.json many-cgroups 1 '
h = m[("read_ns", "memory.stat")]
assert h["count"] == 50 and h["min"] > 0, h
'
	no_leftovers "many-cgroups $k"
done
python3 - m10.json m1000.json >dir.out <<'PY' || fail "many-cgroups results unreadable"
import json, sys
def fig(f):
    d = json.load(open(f))
    m = [x for x in d["repetitions"][0]["metrics"]
         if x["name"] == "read_ns"][0]
    return m["mean"], m["max"]
(a, amax), (b, bmax) = fig(sys.argv[1]), fig(sys.argv[2])
print("memory.stat read: mean %.0f / max %.0f ns with 10 memcgs, "
      "%.0f / %.0f with 1000" % (a, amax, b, bmax))
print("grows" if b > a or bmax > amax else "flat")
PY
cat dir.out
# A direction, not an invariant: the kernel's periodic flush (every 2 s)
# may flush the 1000 memcgs while they are made, before the first timed
# read, and the dying memcgs other runs leave make every flush walk more.
grep -q '^grows$' dir.out ||
	skip_part "memory.stat reads over 1000 memcgs no slower than over 10 this time: $(head -n 1 dir.out)"
