#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare: golden text tables on the hand-made results files and profiles
# of tests/data/compare (written to the schema by make-fixtures.py), the
# figures re-derived in Python from the same files (mmtests' percentile
# rule, means), markdown / CSV / JSON that parse, 72 columns, the error
# cases; as root, two small stat-read runs compared end to end.
. tests/shell/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
D=$RS_FIXTURES/compare
[ -d "$D" ] || D=tests/data/compare
RS_ROOT=$PWD

for f in base new newer base2 single-a single-b other acc-a acc-b; do
	python3 tests/shell/bench-schema.py docs/bench-results.schema.json \
		"$D/$f.json" || fail "$D/$f.json does not validate"
done

# Golden text tables. Run from the data directory so the labels are the
# file names.
golden() {	# golden NAME ARGS...
	local name=$1
	shift
	(cd "$D" && timeout 60 "$RS_BIN" compare "$@") >"$TMP/$name.txt" \
		2>"$TMP/$name.err" || fail "compare $*: $(cat "$TMP/$name.err")"
	diff -u "$D/golden-$name.txt" "$TMP/$name.txt" ||
		fail "compare $*: output differs from golden-$name.txt"
	# Email quoting: 72 columns, tabs at 8.
	expand "$TMP/$name.txt" | awk -v n="$name" \
		'length($0) > 72 { print n ": line " NR " is " length($0) " columns"; bad = 1 }
		 END { exit bad }' || fail "compare $*: wider than 72 columns"
}
# --details: mmtests' whole table, time(1), ministat, the histograms.
golden base-new base.json -- new.json --details
golden three base.json base2.json -- new.json -- newer.json \
	--labels before,after,later --details
golden single single-a.json -- single-b.json --details
golden profile prof-a.json -- prof-b.json --details
# The default: short enough to paste into a reply.
golden short-base-new base.json -- new.json
golden short-three base.json base2.json -- new.json -- newer.json \
	--labels before,after,later
golden short-profile prof-a.json -- prof-b.json
# Two accuracy runs (acc-*.json: bench accuracy --reads 20 --children 2
# -r 2): 693 lines in full, the error and staleness per file by default.
golden short-accuracy acc-a.json -- acc-b.json

# Every kind's default fits 72 columns and 60 lines, and its rows and
# verdict figures are the --details output's, figure for figure.
pasteable() {	# pasteable ARGS...
	(cd "$D" && "$RS_BIN" compare "$@") >"$TMP/p-short.txt" ||
		fail "compare $*"
	(cd "$D" && "$RS_BIN" compare "$@" --details) >"$TMP/p-details.txt" ||
		fail "compare $* --details"
	python3 tests/shell/compare-paste.py "$TMP/p-short.txt" \
		"$TMP/p-details.txt" || fail "compare $*: not pasteable"
}
pasteable base.json -- new.json
pasteable base.json base2.json -- new.json -- newer.json
pasteable single-a.json -- single-b.json
pasteable prof-a.json -- prof-b.json
pasteable prof-a.json -- prof-b.json -- prof-a.json --labels a,b,c
pasteable prof-a.json -- prof-b.json \
	--labels 6.12.118+deb12-cloud-amd64-and-then-some,after
pasteable acc-a.json -- acc-b.json
pasteable acc-a.json -- acc-b.json -- acc-a.json --labels a,b,c
[ "$(wc -l <"$TMP/short-accuracy.txt")" -lt \
  "$(cd "$D" && "$RS_BIN" compare acc-a.json -- acc-b.json --details | wc -l)" ] ||
	fail "accuracy: the default is not shorter than --details"
grep -q '^More with --details: every statistic, 20 more metrics' \
	"$TMP/short-accuracy.txt" || fail "accuracy: no word of what is left out"
# The warnings of sides in the same words share one line.
grep -q '^WARNING: acc-a, acc-b: the machine was loaded' \
	"$TMP/short-accuracy.txt" || fail "accuracy: the warnings are not merged"
# A long base label (a kernel release) still fits the headings in 72
# columns, its version kept.
(cd "$D" && "$RS_BIN" compare prof-a.json -- prof-b.json \
	--labels 6.12.118+deb12-cloud-amd64-and-then-some,after) >"$TMP/long.txt" ||
	fail "compare with a long label"
expand "$TMP/long.txt" | awk 'length($0) > 72 { print; bad = 1 } END { exit bad }' ||
	fail "compare with a long label: wider than 72 columns"
grep -q "share of cpu-clock in flushes (pp: against 6\.12\.118" "$TMP/long.txt" ||
	fail "the triggers' heading lost the base's version: $(grep share "$TMP/long.txt")"

# Deltas of every size keep the row at 72 columns: a side whose samples
# are 10^4 and 10^12 times the base's (a loaded machine's spread grows a
# hundredfold) gives -999900% and beyond; the digits stay, decimals go.
for f in 10000 1000000000000; do
	python3 - "$D/new.json" "$TMP/x$f.json" "$f" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["repetitions"]:
    for m in r["metrics"]:
        if "samples" in m:
            m["samples"] = [v * int(sys.argv[3]) for v in m["samples"]]
json.dump(d, open(sys.argv[2], "w"))
PY
		fail "cannot scale new.json"
	"$RS_BIN" compare "$D/base.json" -- "$TMP/x$f.json" >"$TMP/x$f.txt" \
		2>"$TMP/x$f.err" || fail "compare x$f: $(cat "$TMP/x$f.err")"
	expand "$TMP/x$f.txt" | awk 'length($0) > 72 { print; bad = 1 }
		END { exit bad }' || fail "compare x$f: wider than 72 columns"
done
grep -Eq '^Amean     cpu\.stat-us +[0-9.]+ \(   0\.00%\) +[0-9.]+ \*-11[0-9]{5}%\*$' \
	"$TMP/x10000.txt" || fail "x10000: the delta lost its digits: $(grep '^Amean' "$TMP/x10000.txt")"

# The look of the thread's mmtests table: the significant mean is starred.
grep -Eq '^Amean     cpu\.stat-us +[0-9.]+ \(   0\.00%\) +[0-9.]+ \* *-[0-9.]+%\*$' \
	"$TMP/base-new.txt" || fail "no starred Amean row"
grep -q '^Hmean     reads_per_s' "$TMP/base-new.txt" ||
	fail "a rate is not summarised by its harmonic mean"
grep -q '^real  *0m6\.090s' "$TMP/base-new.txt" || fail "no time(1) row"
grep -q '^Difference at 95.0% confidence$' "$TMP/base-new.txt" ||
	fail "no ministat verdict"
# base vs newer (same latency): no star on the latency means.
sed -n '/later$/,$p' "$TMP/three.txt" | grep '^Amean' | grep -q '\*' &&
	fail "base vs newer: a difference was starred"

# The figures, re-derived from the files: mmtests' percentiles
# ($x[int($#x * p / 100 + 0.5)]), means, the sign convention.
python3 - "$D" "$TMP/base-new.txt" <<'PY' || fail "figures do not match"
import json, sys
d, table = sys.argv[1], open(sys.argv[2]).read().splitlines()
def pool(f, file):
    doc = json.load(open(d + "/" + f))
    return [s / 1000 for r in doc["repetitions"] for m in r["metrics"]
            if m.get("file") == file for s in m["samples"]]
def pct(x, p):
    x = sorted(x)
    return x[int((len(x) - 1) * (p / 100) + 0.5)]
rows = {}
for line in table:
    f = line.split()
    if len(f) > 2 and f[1] == "cpu.stat-us":
        rows[f[0]] = line
b, n = pool("base.json", "cpu.stat"), pool("new.json", "cpu.stat")
def cell(row, side):
    f = rows[row].replace("(", " ").replace(")", " ").replace("*", " ").split()
    return float(f[2 + 2 * side]), float(f[3 + 2 * side].rstrip("%"))
for row, p in (("1st-qrtle", 25), ("2nd-qrtle", 50), ("3rd-qrtle", 75),
               ("Max-1", 1), ("Max-90", 90), ("Max-99", 99)):
    for side, x in ((0, b), (1, n)):
        assert abs(cell(row, side)[0] - pct(x, p)) < 0.006, (row, side)
mb, mn = sum(b) / len(b), sum(n) / len(n)
assert abs(cell("Amean", 0)[0] - mb) < 0.006
assert abs(cell("Amean", 1)[0] - mn) < 0.006
# Lower is better: 100 - new * 100 / base, negative when slower.
assert abs(cell("Amean", 1)[1] - (100 - mn * 100 / mb)) < 0.006
PY

# Markdown: every table row has the same number of cells as its header.
(cd "$D" && "$RS_BIN" compare base.json -- new.json -- newer.json \
	--format markdown --details) >"$TMP/md" || fail "markdown"
(cd "$D" && "$RS_BIN" compare prof-a.json -- prof-b.json \
	--format markdown) >"$TMP/md2" || fail "markdown (profiles)"
(cd "$D" && "$RS_BIN" compare base.json -- new.json -- newer.json \
	--format markdown) >"$TMP/md3" || fail "markdown (short)"
for f in "$TMP/md" "$TMP/md2" "$TMP/md3"; do
	awk '/^\|/ { n = gsub(/\|/, "|"); if (!w) w = n;
		     if (n != w) { print "row " NR ": " n " bars, header " w; bad = 1 } ; next }
	     { w = 0 } END { exit bad }' "$f" || fail "markdown table is ragged"
	grep -q '^|---|' "$f" || fail "no markdown table"
done
grep -q '\*\*-[0-9.]*%\*\*' "$TMP/md" || fail "markdown: no bold significant mean"
# The default markdown: the key rows (three per distribution, the rate's
# Hmean), no time(1), no ministat; --details: all fourteen.
rows='^| [^|]* | \(c[a-z]*\.stat-us\|reads_per_s\) |'
[ "$(grep -c "$rows" "$TMP/md3")" = 7 ] ||
	fail "markdown: not the key rows: $(grep "$rows" "$TMP/md3")"
grep -q '^time(1)\|^ministat' "$TMP/md3" && fail "markdown: time(1) or ministat by default"
[ "$(grep -c "$rows" "$TMP/md")" = 42 ] ||
	fail "markdown --details: $(grep -c "$rows" "$TMP/md") rows"

# CSV: RFC 4180, one table, same columns everywhere.
for args in "base.json -- new.json -- newer.json" "prof-a.json -- prof-b.json" \
	    "single-a.json -- single-b.json"; do
	(cd "$D" && "$RS_BIN" compare $args --format csv) >"$TMP/csv" ||
		fail "csv: $args"
	python3 - "$TMP/csv" <<'PY' || fail "csv does not parse: $args"
import csv, sys
raw = open(sys.argv[1], newline="").read()
assert "\r\n" in raw and "\n" not in raw.replace("\r\n", "")
rows = list(csv.reader(raw.splitlines()))
assert rows[0] == ["block", "row", "metric", "side", "value", "delta",
                   "significant"], rows[0]
assert len(rows) > 5
for r in rows:
    assert len(r) == 7, r
blocks = {r[0] for r in rows[1:]}
assert blocks <= {"summary", "time", "welch", "ministat", "verdict", "category",
                  "trigger", "span"}, blocks
PY
done

# JSON parses and holds the tests.
(cd "$D" && "$RS_BIN" compare base.json -- new.json --format json) \
	>"$TMP/json" || fail "json"
python3 - "$TMP/json" <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "bench" and d["sides"] == ["base", "new"]
m = {x["label"]: x for x in d["metrics"]}
new = m["cpu.stat-us"]["sides"][1]
assert new["welch"]["significant"] is True and new["welch"]["p"] < 0.05
assert new["ministat"]["significant"] is True
assert m["reads_per_s"]["better"] == "higher"
assert "hmean" in m["reads_per_s"]["sides"][1]
assert len(d["time"]) == 2
PY
(cd "$D" && "$RS_BIN" compare prof-a.json -- prof-b.json --format json) |
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["kind"] == "profile" and d["spans"]' ||
	fail "profile json"

# A side given as DIR/results.json is labelled DIR.
mkdir -p "$TMP/before" "$TMP/after"
cp "$D/base.json" "$TMP/before/results.json"
cp "$D/new.json" "$TMP/after/results.json"
"$RS_BIN" compare "$TMP/before/results.json" -- "$TMP/after/results.json" |
	sed -n 2p | grep -Eq '^ +before +after$' || fail "directory labels"

# Errors: one line, exit 1; usage errors exit 2.
cd "$D" || fail cd
printf '{"schema": "rstat-analyze-bench/1",\n "scenario": 3}\n' >"$TMP/bad.json"
expect_error 1 'nope\.json: No such file' "$RS_BIN" compare nope.json -- new.json
expect_error 1 "bad\.json: line [0-9]+: " "$RS_BIN" compare "$TMP/bad.json" -- new.json
expect_error 1 'no metric in common' "$RS_BIN" compare base.json -- other.json
"$RS_BIN" compare base.json -- other.json --format json 2>/dev/null |
	python3 -c 'import json, sys; assert "no metric" in json.load(sys.stdin)["error"]' ||
	fail "json: no {\"error\": ...} on failure"
expect_error 1 'one side only' "$RS_BIN" compare base.json new.json
"$RS_BIN" compare base.json new.json --format json 2>/dev/null |
	python3 -c 'import json, sys; assert "one side" in json.load(sys.stdin)["error"]' ||
	fail "json: no {\"error\": ...} for one side only"
expect_error 2 'profile' "$RS_BIN" compare base.json -- prof-a.json
expect_error 2 "format 'xml'" "$RS_BIN" compare base.json -- new.json --format xml
expect_error 2 'labels' "$RS_BIN" compare base.json -- new.json --labels a
expect_error 2 'no file' "$RS_BIN" compare base.json -- -- new.json
expect_error 2 "unknown option '--bogus'" "$RS_BIN" compare base.json -- new.json --bogus
expect_error 2 'no input files' "$RS_BIN" compare
"$RS_BIN" compare --help | grep -q '^usage: rstat-analyze compare' ||
	fail "--help"
cd "$RS_ROOT" || fail cd
echo "ok compare on fixtures"

# End to end, as root: fewer children, cheaper reads.
if [ "$(id -u)" -ne 0 ]; then
	skip_part "not root: the end-to-end bench part is not run"
	exit 0
fi
for n in 1 4; do
	timeout 300 "$RS_BIN" bench stat-read --children $n --reads 50 -r 3 \
		--json "$TMP/c$n.json" >"$TMP/c$n.out" 2>"$TMP/c$n.err" ||
		fail "bench stat-read --children $n: $(tail -1 "$TMP/c$n.err")"
done
"$RS_BIN" compare "$TMP/c1.json" -- "$TMP/c4.json" --details \
	>"$TMP/e2e.txt" 2>"$TMP/e2e.err" || fail "compare e2e: $(cat "$TMP/e2e.err")"
"$RS_BIN" compare "$TMP/c1.json" -- "$TMP/c4.json" >"$TMP/e2e-short.txt" ||
	fail "compare e2e (short)"
python3 tests/shell/compare-paste.py "$TMP/e2e-short.txt" "$TMP/e2e.txt" ||
	fail "compare e2e: not pasteable"
grep -q '^Amean     cpu\.stat-us' "$TMP/e2e.txt" || fail "e2e: no cpu.stat row"
grep -Eq '^ +c1 +c4$' "$TMP/e2e.txt" || fail "e2e: labels"
grep -Eq '^(Difference at|No difference proven at) 95\.0% confidence$' \
	"$TMP/e2e.txt" || fail "e2e: no ministat verdict"
expand "$TMP/e2e.txt" | awk 'length($0) > 72 { exit 1 }' ||
	fail "e2e: wider than 72 columns"
# ... and the chart of the same two runs: a PNG of the asked size.
if command -v gnuplot >/dev/null; then
	"$RS_BIN" plot "$TMP/c1.json" "$TMP/c4.json" -o "$TMP/e2e.png" \
		--kind cdf --metric read_ns:cpu.stat --size 640x400 \
		2>"$TMP/plot.err" || fail "plot e2e: $(cat "$TMP/plot.err")"
	python3 - "$TMP/e2e.png" <<'PY' || fail "e2e: not a 640x400 PNG"
import struct, sys
d = open(sys.argv[1], "rb").read(32)
assert d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR"
assert struct.unpack(">II", d[16:24]) == (640, 400)
PY
fi
echo "ok compare end to end"
