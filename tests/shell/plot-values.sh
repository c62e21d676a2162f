#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plot's numbers, not its pictures: every value of OUT.dat re-derived here
# in Python from the inputs themselves, by the definitions the .dat
# headers and the man page give:
#  - cdf from bench samples: at each distinct value v, the rank fraction
#    #{x <= v} / n of the pooled samples (not j/n of a sorted index);
#  - cdf from buckets: the cumulated count over the total at each row's top;
#  - hist: each log2 row's count and its label (its bounds in the unit
#    named), and with --normalize its share of its own series' total;
#  - bars: the attribution's flush shares, in percent; bench results'
#    means in the unit the header and the y label name;
#  - timeline: one point per lock pair, whose hold times (in the unit the
#    header and the y label name) add up to report's lock-hold totals and
#    share their minimum and maximum, at times within the recording.
. tests/shell/lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
command -v gnuplot >/dev/null 2>&1 ||
	skip "gnuplot is not installed (Debian package gnuplot-nox)"

D=$RS_FIXTURES/plot
data=$RS_FIXTURES/flush-mixed.data
"$RS_BIN" report -i "$data" --kallsyms "$(fixture_kallsyms)" --json \
	>"$TMP/report.json" 2>"$TMP/err" || fail "report --json: $(cat "$TMP/err")"

# plot OUT ARGS...: OUT.dat and OUT.gp are kept beside the image.
plot() {
	local out=$TMP/$1
	shift
	"$RS_BIN" plot "$@" -o "$out" 2>"$TMP/err" ||
		fail "plot $*: $(cat "$TMP/err")"
}
plot cdf-samples.svg "$D/before.json" "$D/after.json" --kind cdf
plot cdf-buckets.svg "$TMP/report.json" --kind cdf --metric lock-hold:base
plot hist.svg "$D/before.json" "$D/after.json" --kind hist
plot hist-norm.svg "$TMP/report.json" --kind hist --normalize \
	--metric lock-hold:base
# Two series of different totals (after.json's counts doubled).
python3 - "$D/after.json" "$TMP/twice.json" <<'PY' || fail "could not make twice.json"
import json, sys
d = json.load(open(sys.argv[1]))
for rep in d["repetitions"]:
    for m in rep["metrics"]:
        if m["kind"] == "hist":
            m["count"] *= 2
            for r in m["hist"]:
                r["count"] *= 2
            if m.get("samples"):
                m["samples"] = sorted(m["samples"] * 2)
json.dump(d, open(sys.argv[2], "w"))
PY
plot hist-norm2.svg "$D/before.json" "$TMP/twice.json" --kind hist --normalize
plot bars.svg "$TMP/report.json" --kind bars
plot bars-bench.svg "$D/before.json" "$D/after.json" --kind bars
plot timeline.svg "$data" --kind timeline
# The cdf's axis names what its values are: a time is a latency, bytes
# (accuracy's error_bytes) are not.
python3 - "$D/before.json" "$TMP/bytes.json" <<'PY' || fail "could not make a bytes metric"
import json, sys
d = json.load(open(sys.argv[1]))
for rep in d["repetitions"]:
    for m in rep["metrics"]:
        if m["unit"] == "ns":
            m["unit"], m["name"] = "bytes", "error_bytes"
json.dump(d, open(sys.argv[2], "w"))
PY
plot cdf-bytes.svg "$TMP/bytes.json" --kind cdf
grep -qx "set xlabel 'value (bytes)'" "$TMP/cdf-bytes.svg.gp" ||
	fail "a cdf of bytes: $(grep xlabel "$TMP/cdf-bytes.svg.gp")"
grep -q "^set xlabel 'latency ([num]s)'" "$TMP/cdf-samples.svg.gp" ||
	fail "a cdf of read times: $(grep xlabel "$TMP/cdf-samples.svg.gp")"

python3 - "$TMP" "$D" <<'PY' || fail "plot's values differ from the inputs'"
import json, math, re, sys
tmp, d = sys.argv[1], sys.argv[2]
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def blocks(path):
    """The .dat's header line and its blocks (lists of rows)."""
    lines = open(path).read().split("\n")
    head, out, cur = lines[0], [], []
    for l in lines[1:]:
        if not l.strip():
            if cur:
                out.append(cur)
            cur = []
        elif not l.startswith("#"):
            cur.append(l)
    if cur:
        out.append(cur)
    return head, out


def unit_of(head):
    m = re.search(r"\((ns|us|ms|s)\)|in (ns|us|ms) ", head)
    assert m, "no unit in %r" % head
    return UNITS[m.group(1) or m.group(2)]


def close(a, b, what):
    assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9), \
        "%s: plot %r, expected %r" % (what, a, b)


def bench_metric(path, name="read_ns", file="cpu.stat"):
    doc = json.load(open(path))
    return [m for r in doc["repetitions"] for m in r["metrics"]
            if m["name"] == name and m.get("file") == file]


# cdf from samples: the rank fraction of each distinct value.
head, bl = blocks(tmp + "/cdf-samples.svg.dat")
div = unit_of(head)
assert len(bl) == 2, len(bl)
for rows, f in zip(bl, ("before.json", "after.json")):
    xs = sorted(s for m in bench_metric(d + "/" + f) for s in m["samples"])
    want = [(v, sum(x <= v for x in xs) / len(xs)) for v in sorted(set(xs))]
    got = [tuple(map(float, r.split())) for r in rows]
    assert len(got) == len(want), (f, len(got), len(want))
    for (gx, gy), (wv, wy) in zip(got, want):
        close(gx, wv / div, f + " cdf x")
        close(gy, wy, "%s cdf at %s" % (f, wv))
print("ok cdf from samples: rank/n at every distinct value")

spans = {(s["name"], s["subsystem"]): s
         for s in json.load(open(tmp + "/report.json"))["spans"]}
base = spans[("lock-hold", "base")]["hist"]
total = sum(r["count"] for r in base)

# cdf from buckets: cumulated count at each row's top.
head, bl = blocks(tmp + "/cdf-buckets.svg.dat")
div = unit_of(head)
got = [tuple(map(float, r.split())) for r in bl[0]]
cum, want = 0, []
for r in base:
    if r["count"]:
        cum += r["count"]
        want.append((r["high"], cum / total))
assert len(got) == len(want), (got, want)
for (gx, gy), (wx, wy) in zip(got, want):
    close(gx, wx / div, "bucket cdf x")
    close(gy, wy, "bucket cdf at %s" % wx)
print("ok cdf from buckets: %d rows" % len(got))


def hist_rows(path):
    head, bl = blocks(path)
    out = {}
    for r in bl[0]:
        m = re.match(r'(\d+) "([^"]*)"((?: \S+)+)$', r)
        assert m, r
        out[int(m.group(1))] = [float(v) for v in m.group(3).split()]
    return head, out


def index_of(row):
    return 1 if row["low"] <= 1 else row["low"].bit_length()


# hist counts: each row of each bench file.
head, got = hist_rows(tmp + "/hist.svg.dat")
for col, f in enumerate(("before.json", "after.json")):
    want = {}
    for m in bench_metric(d + "/" + f):
        for r in m["hist"]:
            want[index_of(r)] = want.get(index_of(r), 0) + r["count"]
    for b, vals in got.items():
        close(vals[col], want.get(b, 0), "%s hist row %d" % (f, b))
    assert set(want) <= set(got), (f, sorted(want), sorted(got))
print("ok hist: counts of every row")

# hist labels: each row's bounds in the unit the header names, "low-high"
# as print_bound() documents (whole numbers from 100, else 3 digits).
m = re.search(r"log2 buckets in (ns|us|ms|s);", head)
assert m, head
div = UNITS[m.group(1)]


def bound(v):
    return "%.0f" % v if v >= 100 else "%.3g" % v


for r in open(tmp + "/hist.svg.dat").read().split("\n"):
    m = re.match(r'(\d+) "([^"]*)"', r)
    if not m:
        continue
    b = int(m.group(1))
    low, high = (0, 1) if b == 1 else (1 << (b - 1), (1 << b) - 1)
    assert m.group(2) == "%s-%s" % (bound(low / div), bound(high / div)), \
        "row %d labelled %r, its bounds are %d-%d ns" % (b, m.group(2),
                                                       low, high)
print("ok hist: every row's label")

# hist --normalize: shares of the series' total.
head, got = hist_rows(tmp + "/hist-norm.svg.dat")
assert "share" in head, head
want = {}
for r in base:
    want[index_of(r)] = want.get(index_of(r), 0) + r["count"] / total
for b, vals in got.items():
    close(vals[0], want.get(b, 0), "share of row %d" % b)
close(sum(v[0] for v in got.values()), 1, "shares' sum")
print("ok hist --normalize: shares of the total")

# hist --normalize of two series: each a share of its own total.
head, got = hist_rows(tmp + "/hist-norm2.svg.dat")
for col, f in enumerate((d + "/before.json", tmp + "/twice.json")):
    want, n = {}, 0
    for m in bench_metric(f):
        for r in m["hist"]:
            want[index_of(r)] = want.get(index_of(r), 0) + r["count"]
            n += r["count"]
    for b, vals in got.items():
        close(vals[col], want.get(b, 0) / n, "%s share of row %d" % (f, b))
print("ok hist --normalize: two series, each of its own total")

# bars: the first event's flush shares, in percent.
head, bl = blocks(tmp + "/bars.svg.dat")
got = sorted(float(v) for v in bl[0][0].split()[1:])
attrib = json.load(open(tmp + "/report.json"))["attribution"]
ev = attrib[0]["event"]
want = sorted(a["flush_share"] * 100 for a in attrib
              if a["event"] == ev and a["flush_share"] is not None)
assert len(got) == len(want), (got, want)
for g, w in zip(got, want):
    close(g, w, "bar segment")
print("ok bars: flush shares in percent")

# bars of bench results: each input's mean read time, in the unit the
# header and the y label name.
head, bl = blocks(tmp + "/bars-bench.svg.dat")
m = re.search(r"one per segment \((ns|us|ms)\)", head)
assert m, head
div = UNITS[m.group(1)]
gp = open(tmp + "/bars-bench.svg.gp").read()
assert "set ylabel 'mean (%s)'" % m.group(1) in gp, \
    "the y label and the .dat disagree on the unit"
for row, f in zip(bl[0], ("before.json", "after.json")):
    ms = bench_metric(d + "/" + f)
    close(float(row.split()[1]) * div, sum(x["mean"] for x in ms) / len(ms),
          "%s bar in %s" % (f, m.group(1)))
print("ok bars of bench results: means in the unit labelled")

# hist's y label: counts, or shares with --normalize.
for name, want in (("hist", "count"), ("hist-norm", "share")):
    gp = open(tmp + "/%s.svg.gp" % name).read()
    assert "set ylabel '%s'" % want in gp, "%s: no ylabel '%s'" % (name,
                                                                 want)
print("ok hist: y labels")

# timeline: hold times in the labelled unit add up to report's spans.
head, bl = blocks(tmp + "/timeline.svg.dat")
m = re.search(r"hold time \((ns|us|ms|s)\)", head)
assert m, head
div = UNITS[m.group(1)]
gp = open(tmp + "/timeline.svg.gp").read()
assert re.search(r"ylabel 'lock hold time \(%s" % m.group(1), gp), \
    "the y label and the .dat disagree on the unit"
pts = [tuple(map(float, r.split())) for r in bl[0]]
holds = [s for (n, _), s in spans.items() if n == "lock-hold"]
close(sum(y for _, y in pts), sum(s["total_ns"] for s in holds) / div,
      "sum of hold times")
close(min(y for _, y in pts), min(s["min_ns"] for s in holds) / div,
      "shortest hold")
close(max(y for _, y in pts), max(s["max_ns"] for s in holds) / div,
      "longest hold")
assert len(pts) == sum(s["count"] for s in holds), len(pts)
rep = json.load(open(tmp + "/report.json"))
assert all(0 <= x for x, _ in pts), "a hold before the first sample"
print("ok timeline: %d holds, in %s as labelled" % (len(pts), m.group(1)))
PY
exit 0
