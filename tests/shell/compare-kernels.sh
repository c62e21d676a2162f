#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 27 item 4: compare of the results of two kernels as bench's
# multi-kernel runs name them, and of accuracy's long metric names.
# - Every text line fits 72 columns (main: 88 with accuracy's labels).
# - A kernel release too long for its column keeps its version
#   (main: ".118+deb12-cloud-amd64").
# - `compare DIR` on the folder a multi-kernel bench -o wrote
#   (DIR/<release>/results.json) compares the kernels, in version order,
#   with the figures of the same comparison given file by file (main:
#   "one side only"); a folder of one kernel says so.
# The inputs are tests/data/compare's hand-made results, renamed here.
. tests/shell/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
D=$RS_FIXTURES/compare
[ -d "$D" ] || D=tests/data/compare

old=6.1.118+deb12-cloud-amd64
new=6.12.48+deb12-cloud-amd64
mkdir -p "$TMP/bench/$new" "$TMP/bench/$old" || fail mkdir
cp "$D/base.json" "$TMP/bench/$old/results.json" || fail cp
cp "$D/new.json" "$TMP/bench/$new/results.json" || fail cp

width72() {	# width72 FILE WHAT
	expand "$1" | awk -v w="$2" \
		'length($0) > 72 { print w ": line " NR " is " length($0) " columns: " $0; bad = 1 }
		 END { exit bad }' || fail "$2: wider than 72 columns"
}

# The folder alone: a side per kernel, 6.1 (the base) before 6.12.
timeout 60 "$RS_BIN" compare "$TMP/bench" >"$TMP/dir.txt" 2>"$TMP/dir.err" ||
	fail "compare DIR: $(cat "$TMP/dir.err")"
timeout 60 "$RS_BIN" compare "$TMP/bench/$old" -- "$TMP/bench/$new" \
	>"$TMP/files.txt" 2>"$TMP/files.err" ||
	fail "compare of the two files: $(cat "$TMP/files.err")"
cmp -s "$TMP/dir.txt" "$TMP/files.txt" ||
	fail "compare DIR differs from comparing its two kernels: $(diff "$TMP/files.txt" "$TMP/dir.txt" | head -20)"
width72 "$TMP/dir.txt" "compare DIR"
# Short enough to paste, the --details figures.
timeout 60 "$RS_BIN" compare "$TMP/bench" --details >"$TMP/dir-details.txt" ||
	fail "compare DIR --details"
python3 tests/shell/compare-paste.py "$TMP/dir.txt" "$TMP/dir-details.txt" ||
	fail "compare DIR: not pasteable"
python3 - "$TMP/dir.txt" "$TMP/bench" <<'PY' || fail "kernel columns"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = lines[1].split()
# Each column names its kernel by its version, first the older one.
assert len(head) == 2, head
assert head[0].startswith("6.1.118"), head
assert head[1].startswith("6.12.48"), head
assert all(h.endswith("cloud-amd64") for h in head), head
PY
timeout 60 "$RS_BIN" compare "$TMP/bench" --format json >"$TMP/dir.json" ||
	fail "compare DIR --format json"
python3 - "$TMP/dir.json" <<'PY' || fail "compare DIR --format json: sides"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sides"] == ["6.1.118+deb12-cloud-amd64",
                     "6.12.48+deb12-cloud-amd64"], d["sides"]
PY

# One kernel only: an error that says so, not "one side only".
rm -r "$TMP/bench/$new"
expect_error 1 "one kernel only" "$RS_BIN" compare "$TMP/bench"

# Accuracy's names: children_... of c*/memory.stat, and kernel labels.
python3 - "$D/base.json" "$D/new.json" "$TMP" <<'PY' || fail "renaming"
import json, sys
names = {"read_ns": "usage_error_bytes", "reads_per_s":
         "children_reads_below_truth"}
for src, dst in ((sys.argv[1], "a.json"), (sys.argv[2], "b.json")):
    d = json.load(open(src))
    for rep in d["repetitions"]:
        for m in rep["metrics"]:
            m["name"] = names.get(m["name"], m["name"])
            if m["file"]:
                m["file"] = "c*/" + m["file"]
    json.dump(d, open(sys.argv[3] + "/" + dst, "w"))
PY
timeout 60 "$RS_BIN" compare "$TMP/a.json" -- "$TMP/b.json" \
	--labels "$old,$new" >"$TMP/acc.txt" 2>"$TMP/acc.err" ||
	fail "compare of accuracy-like results: $(cat "$TMP/acc.err")"
width72 "$TMP/acc.txt" "compare of accuracy's names"
# Every metric is still there, whole, with its figures.
for l in c*/cpu.stat-usage_error_bytes-us children_reads_below_truth; do
	grep -qxF -- "$l" "$TMP/acc.txt" ||
		fail "compare of accuracy's names: no line '$l'"
done
grep -q "^Amean .*[0-9]" "$TMP/acc.txt" || fail "no Amean row"
grep -q "6\.1\.118" "$TMP/acc.txt" || fail "the base kernel's version is cut"
echo "ok"
