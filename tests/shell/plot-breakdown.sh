#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plot --kind breakdown: a bar per input and stat file, stacked by part.
# Every value of OUT.dat is re-derived here in Python from the results
# JSON itself (docs/bench-results.md), not through the tool's reader:
#  - each part's mean time per read, sum_ns / reads, in the unit the
#    header and the y label name; nan (never 0) for a part the source
#    says was not timed, and for entry/exit when it was not derived;
#  - entry/exit, signed, entry_exit.sum_ns / reads;
#  - each bar's stack (the non-nan values, entry/exit's below 0 too) is
#    the mean read: the reader's (measured_sum_ns / reads) with entry/exit,
#    else the kernel's (total's sum_ns / reads);
#  - --normalize: shares of that stack, adding up to 100;
#  - the bars' order and labels (a multi-kernel folder in version order),
#    the parts drawn (those timed somewhere, named as the key says), the
#    parts not timed named under their bar or under the axis, and the
#    axis below 0 only when entry/exit is;
#  - a multi-kernel folder plots as its kernels' directories (any kind);
#  - --metric FILE picks that file; inputs without a breakdown, report
#    --json output and an unknown file fail with exit 1 and one line.
# The fixtures are real runs: on the development host (no kprobes: the
# callbacks are not timed) and in 6.12 and 7.2 guests (a multi-kernel
# folder: callbacks timed, base inlined, no cpu-wait on 7.2); a copy of
# the host's with the callbacks timed, an entry/exit below 0 and one not
# derived is made from the first.
. tests/shell/lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
command -v gnuplot >/dev/null 2>&1 ||
	skip "gnuplot is not installed (Debian package gnuplot-nox)"

FIX=$RS_FIXTURES/plot/breakdown.json
# Real guests (TCG), 4 children charging memory, cpu.stat: 6.12 and 7.2.
KDIR=$RS_FIXTURES/plot/kernels
mkdir -p "$TMP/k/6.9.0" "$TMP/k/6.12.0"
cp "$FIX" "$TMP/k/6.12.0/results.json"
python3 - "$FIX" "$TMP" <<'PY' || fail "could not make the inputs"
import copy, json, sys
fix, tmp = sys.argv[1], sys.argv[2]
d = json.load(open(fix))
bd = d["breakdown"]
assert not any(s["timed"] for s in bd["sources"]
               if s["part"] in ("memory", "io", "bpf")), \
    "the fixture should have no callback timed (a host without kprobes)"
# A guest's run: memory, io and bpf timed, their time added to the
# total (the parts keep adding up to it).
g = copy.deepcopy(d)
for s in g["breakdown"]["sources"]:
    if s["part"] in ("memory", "io", "bpf"):
        s.pop("why", None)
        s["timed"], s["how"] = True, "kprobe+kretprobe"
for k, f in enumerate(g["breakdown"]["files"]):
    parts = {p["part"]: p for p in f["parts"]}
    for name, ns in (("memory", 3000), ("io", 700), ("bpf", 300)):
        parts[name]["timed"] = True
        parts[name]["sum_ns"] = ns * f["reads"] * (k + 1)
        parts["total"]["sum_ns"] += ns * f["reads"] * (k + 1)
# One file's entry/exit below 0, another's not derived.
files = g["breakdown"]["files"]
e = files[0]["entry_exit"]
e["sum_ns"] = -files[0]["reads"] * 900
files[1]["entry_exit"] = None
# The reader's time is the kernel's plus entry/exit's, exactly.
for f in files:
    e = f["entry_exit"]
    if e:
        e["measured_sum_ns"] = f["parts"][0]["sum_ns"] + e["sum_ns"]
        e["share"] = e["sum_ns"] / e["measured_sum_ns"]
json.dump(g, open(tmp + "/k/6.9.0/results.json", "w"))
n = copy.deepcopy(d)
del n["breakdown"]
json.dump(n, open(tmp + "/nobd.json", "w"))
PY

# plot OUT ARGS...: OUT.dat and OUT.gp are kept beside the image.
plot() {
	local out=$TMP/$1
	shift
	"$RS_BIN" plot "$@" -o "$out" 2>"$TMP/err" ||
		fail "plot $*: $(cat "$TMP/err")"
	[ -s "$out" ] || fail "plot $*: no image"
	python3 tests/shell/gp-dataonly.py "$out.gp" --strings \
		>"$out.strings" || fail "plot $*: the script is not data-only"
}
plot bd.svg "$FIX" "$TMP/k" "$KDIR" --kind breakdown
plot bd-norm.png "$FIX" "$TMP/k" "$KDIR" --kind breakdown --normalize
plot bd-host.svg "$FIX" --kind breakdown
plot bd-cpu.svg "$TMP/k" --kind breakdown --metric cpu.stat
# record -- CMD's targets' reads, as report --json keeps them (a real
# recording of cat loops on the host).
REP=$RS_FIXTURES/plot/report-breakdown.json
plot bd-rep.svg "$REP" --kind breakdown

python3 - "$TMP" "$FIX" "$KDIR" <<'PY' || fail "plot's breakdown differs from the results"
import json, math, re, sys
tmp, fix, kdir = sys.argv[1], sys.argv[2], sys.argv[3]
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6}
PARTS = ["memory", "io", "bpf", "base", "walk", "wait", "cpu-wait",
         "off-cpu", "rest"]
COLS = PARTS + ["entry/exit"]
KERNELS = [tmp + "/k/6.9.0", tmp + "/k/6.12.0",
           kdir + "/6.12.118+deb12-cloud-amd64",
           kdir + "/7.2.13+deb14-cloud-amd64"]
inputs = [(fix, fix)] + [(k, k + "/results.json") for k in KERNELS]


def close(a, b, what, rel=1e-6):
    assert math.isclose(a, b, rel_tol=rel, abs_tol=1e-6), \
        "%s: plot %r, expected %r" % (what, a, b)


def bars(inputs, only=None):
    """(label, {part: mean ns or None}, the mean read) per bar, in order."""
    out = []
    for name, path in inputs:
        bd = json.load(open(path))["breakdown"]
        timed = {s["part"]: s["timed"] for s in bd["sources"]}
        for f in bd["files"]:
            if only and f["file"] != only:
                continue
            n = f["reads"]
            parts = {p["part"]: p for p in f["parts"]}
            v = {p: parts[p]["sum_ns"] / n if timed[p] else None
                 for p in PARTS}
            e = f.get("entry_exit")
            v["entry/exit"] = e["sum_ns"] / n if e else None
            mean = (e["measured_sum_ns"] if e else
                    parts["total"]["sum_ns"]) / n
            out.append(("%s: %s" % (name, f["file"]), v, mean))
    return out


def dat(path):
    lines = open(path).read().split("\n")
    head = lines[0]
    m = re.search(r"part's (mean time per read \((ns|us|ms)\)|share of "
                  r"the mean read \(%\)): ([^;]*);", head)
    assert m, head
    assert m.group(3).split() == COLS, m.group(3)
    rows = [[float(x) for x in l.split()] for l in lines[1:] if l]
    for i, r in enumerate(rows):
        assert r[0] == i and len(r) == len(COLS) + 1, r
    return m.group(2), [dict(zip(COLS, r[1:])) for r in rows]


def script(name):
    gp = open("%s/%s.gp" % (tmp, name)).read()
    texts = json.load(open("%s/%s.strings" % (tmp, name)))
    return gp, texts


# record's breakdown in report --json: the same values, from its JSON.
rep = fix.rsplit("/", 1)[0] + "/report-breakdown.json"
unit, rows = dat(tmp + "/bd-rep.svg.dat")
rwant = bars([(rep, rep)])
assert len(rows) == len(rwant) >= 2, (rows, rwant)
for row, (label, v, mean) in zip(rows, rwant):
    for p in COLS:
        if v[p] is None:
            assert math.isnan(row[p]), (label, p, row[p])
        else:
            close(row[p] * UNITS[unit], v[p], "%s %s" % (label, p), 1e-3)
print("ok report --json of record's targets: %d bars as its JSON says"
      % len(rows))

# In version order: 6.9 before 6.12 (which sorts first as text).
want = bars(inputs)

# Each value, and each stack, in the unit labelled.
unit, rows = dat(tmp + "/bd.svg.dat")
div = UNITS[unit]
gp, texts = script("bd.svg")
assert "set ylabel 'mean time per read (%s)'" % unit in gp, \
    "the y label and the .dat disagree on the unit"
assert len(rows) == len(want), (len(rows), len(want))
for row, (label, v, mean) in zip(rows, want):
    for p in COLS:
        if v[p] is None:
            assert math.isnan(row[p]), "%s %s: not timed, yet %r" % (
                label, p, row[p])
        else:
            close(row[p] * div, v[p], "%s %s" % (label, p))
    stack = sum(x for x in row.values() if not math.isnan(x)) * div
    close(stack, mean, "%s: the stack against the mean read" % label)
print("ok %d bars: every part's mean per read, stacks = the mean read"
      % len(rows))
assert any(r["entry/exit"] < 0 for r in rows) and \
    any(math.isnan(r["entry/exit"]) for r in rows)

# The bars' labels, in order; under the axis, the parts no bar has, per
# input those it lacks that others have, the bars without entry/exit,
# and why the axis goes below 0.
m = re.search(r"^set xtics nomirror rotate by -\d+ \((.*)\)$", gp, re.M)
assert m, "no xtics"
labels = [t for t in texts if t.startswith(tuple(b[0] for b in want))]
assert labels == [b[0] for b in want], labels
none = [p for p in PARTS if all(w[1][p] is None for w in want)]
assert none, "the fixtures should leave a part untimed everywhere"
lines = ["not timed (each in the part around it): " + ", ".join(none)]
for name, _ in inputs:
    v = [w[1] for w in want if w[0].startswith(name + ": ")][0]
    lacks = [p for p in PARTS if v[p] is None and p not in none]
    if lacks:
        lines.append("not timed on %s: %s" % (name, ", ".join(lacks)))
lines.append("entry/exit not derived (the reads were not paired): " +
             ", ".join(w[0] for w in want if w[1]["entry/exit"] is None))
lines.append("entry/exit below 0: the kernel timed more of the reads "
             "than the reader")
xl = re.search(r"^set xlabel (.*)$", gp, re.M)
assert xl and [t for t in texts if t.startswith("not timed (")] == \
    ["\n".join(lines)], "the x label: %r, expected %r" % (
        [t for t in texts if t.startswith("not timed (")], lines)
assert "set yrange [*:*]" in gp
print("ok labels: %s not timed anywhere, the rest per input, entry/exit's"
      % ", ".join(none))

# The parts drawn: those with a value on some bar, each keyed by its name.
drawn = re.findall(r"\$rs_data using (\d+) lc rgb 0x[0-9a-f]{6} title "
                   r"'([^']*)'", gp)
wd = [p for p in COLS if any(not math.isnan(r[p]) for r in rows)]
assert [int(c) for c, _ in drawn] == [COLS.index(p) + 2 for p in wd], drawn
assert [t for _, t in drawn] == [p if p != "entry/exit" else
                                 "entry/exit (derived)" for p in wd], drawn
print("ok the key: %s" % ", ".join(t for _, t in drawn))

# --normalize: shares of each bar's stack, adding up to 100.
unit, rows = dat(tmp + "/bd-norm.png.dat")
assert unit is None, unit
gp, _ = script("bd-norm.png")
assert "set ylabel 'share of the mean read (%)'" in gp
for row, (label, v, mean) in zip(rows, want):
    for p in COLS:
        if v[p] is None:
            assert math.isnan(row[p]), (label, p)
        else:
            close(row[p], v[p] / mean * 100, "%s %s share" % (label, p))
    close(sum(x for x in row.values() if not math.isnan(x)), 100,
          "%s: the shares' sum" % label)
print("ok --normalize: shares of the mean read, 100 a bar")

# One host alone: nothing below 0, no input named under the axis.
unit, rows = dat(tmp + "/bd-host.svg.dat")
gp, texts = script("bd-host.svg")
assert "set yrange [0:*]" in gp and "below 0" not in gp
assert [t for t in texts if t.startswith("not timed (")] == [
    "not timed (each in the part around it): memory, io, bpf, base, "
    "cpu-wait"], texts
print("ok a host run alone: no negative axis, what it did not time")

# --metric cpu.stat: that file's bars only, one per kernel.
unit, rows = dat(tmp + "/bd-cpu.svg.dat")
want = bars(inputs[1:3], "cpu.stat")
assert len(rows) == len(want) == 2, rows
for row, (label, v, mean) in zip(rows, want):
    close(sum(x for x in row.values() if not math.isnan(x)) * UNITS[unit],
          mean, label)
print("ok --metric cpu.stat: %d bars" % len(rows))
PY

# A multi-kernel folder is its kernels' directories in version order, for
# any kind: the same data and titles as naming them one by one.
plot kdir.svg "$TMP/k" --kind hist
plot kdirs.svg "$TMP/k/6.9.0" "$TMP/k/6.12.0/" --kind hist
cmp -s "$TMP/kdir.svg.dat" "$TMP/kdirs.svg.dat" ||
	fail "plot of a kernels' folder: its data differ from its kernels'"
diff <(grep -v 'set output' "$TMP/kdir.svg.gp") \
	<(grep -v 'set output' "$TMP/kdirs.svg.gp" | sed 's,6.12.0/:,6.12.0:,') ||
	fail "plot of a kernels' folder: its script differs from its kernels'"
echo "ok a kernels' folder plots as its kernels, in version order"

# Refused, in one line: no breakdown, not bench results, no such file;
# --normalize with a kind it does not go with.
expect_error 1 "nobd.json: no \"breakdown\": run bench .*--breakdown" \
	"$RS_BIN" plot "$TMP/nobd.json" -o "$TMP/x.png" --kind breakdown
expect_error 1 "before.json: no \"breakdown\"" "$RS_BIN" plot \
	"$FIX" "$RS_FIXTURES/plot/before.json" -o "$TMP/x.png" --kind breakdown
expect_error 1 "prof-a.json: report --json output without a breakdown" \
	"$RS_BIN" plot "$RS_FIXTURES/compare/prof-a.json" -o "$TMP/x.png" \
	--kind breakdown
expect_error 1 "breakdown.json: no breakdown of 'nope.stat'" "$RS_BIN" plot \
	"$FIX" -o "$TMP/x.png" --kind breakdown --metric nope.stat
expect_error 2 "--normalize goes with --kind hist or breakdown" \
	"$RS_BIN" plot "$FIX" -o "$TMP/x.png" --kind bars --normalize
[ -e "$TMP/x.png" ] && fail "a refused plot left an image"
echo "ok refused in one line: no breakdown, report output, no such file"
exit 0
