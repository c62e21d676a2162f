#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare and plot read the same inputs alike (src/output/json-input.c):
# - the directory `bench -o DIR` writes (DIR/results.json) is accepted by
#   both, and gives what its results.json gives;
# - each bad input gets the same one-line error from both (plot adds only
#   "nor a recording", which it accepts for --kind timeline): a directory
#   without results.json, a NUL byte (the message is whole, not cut at
#   the NUL), a JSON syntax error (where and what, nothing appended),
#   a recording given to compare, a README, a failed report's JSON;
# - a span's hist row that is no log2 bucket is refused by both.
. tests/shell/lib.sh
D=$RS_FIXTURES/compare
P=$RS_FIXTURES/plot

mkdir -p "$TMP/base" "$TMP/new/"
cp "$D/base.json" "$TMP/base/results.json"
cp "$D/new.json" "$TMP/new/results.json"
"$RS_BIN" compare "$D/base.json" -- "$D/new.json" --labels base,new \
	>"$TMP/files.txt" 2>"$TMP/err" || fail "compare files: $(cat "$TMP/err")"
"$RS_BIN" compare "$TMP/base" -- "$TMP/new/" >"$TMP/dirs.txt" \
	2>"$TMP/err" || fail "compare DIR -- DIR: $(cat "$TMP/err")"
cmp -s "$TMP/files.txt" "$TMP/dirs.txt" || {
	diff "$TMP/files.txt" "$TMP/dirs.txt" | head
	fail "compare DIR -- DIR differs from compare of their results.json"
}
echo "ok compare DIR -- DIR (labelled base and new)"

# The same message from both commands, up to the list of what each
# accepts (plot also takes recordings).
both() {		# both PATTERN FILE
	local c p
	expect_error 1 "$1" "$RS_BIN" compare "$2" -- "$D/new.json"
	c=$(sed 's/ *neither bench results.*//' "$TMP/stderr")
	expect_error 1 "$1" "$RS_BIN" plot "$2" -o "$TMP/x.png"
	p=$(sed 's/ *neither bench results.*//' "$TMP/stderr")
	[ "$c" = "$p" ] || fail "compare and plot word it differently: '$c' / '$p'"
	echo "ok $(basename "$2"): $(cat "$TMP/stderr")"
}

mkdir "$TMP/empty"
both "empty: a directory without results.json" "$TMP/empty"
printf '{"schema": "rstat-analyze-bench/1", "scenario": "x\0y"}\n' \
	>"$TMP/nul.json"
both "nul.json: offset [0-9]+: a NUL byte: not JSON" "$TMP/nul.json"
grep -q 'nor a recording$' "$TMP/stderr" ||
	fail "the NUL cut the message: $(cat "$TMP/stderr")"
printf '{"schema": 1,, }\n' >"$TMP/syntax.json"
both "syntax.json: line 1: [a-z ]+" "$TMP/syntax.json"
grep -q neither "$TMP/stderr" && fail "plot appended to a syntax error: $(cat "$TMP/stderr")"
both "README.md: not JSON" README.md
printf '{"error": "pipe.data: offset 8: bad record"}\n' >"$TMP/failed.json"
both "failed.json: report failed when it was written: pipe.data: offset 8: bad record" \
	"$TMP/failed.json"
both "nope: No such file" "$TMP/nope"

# A recording: plot draws its timeline, compare says what to give it.
expect_error 1 "pipe-mode.data: a recording \(perf.data\): give .rstat-analyze report --json. output of it" \
	"$RS_BIN" compare "$RS_FIXTURES/pipe-mode.data" -- "$D/new.json"

# A span's hist row that is no log2 bucket (bounds 2048..4095 moved by
# one) is refused by both, not binned where its low bound falls.
python3 - "$D/prof-a.json" "$TMP/offrow.json" <<'PY' || fail "offrow.json"
import json, sys
d = json.load(open(sys.argv[1]))
d["spans"][0]["hist"][0]["low"] = 2049
json.dump(d, open(sys.argv[2], "w"))
PY
expect_error 1 "offrow.json: spans\[0\]\.hist\[0\]: not a log2 bucket" \
	"$RS_BIN" compare "$TMP/offrow.json" -- "$D/prof-b.json"
expect_error 1 "offrow.json: span 'flush memory': hist row 0 is no log2 bucket" \
	"$RS_BIN" plot "$TMP/offrow.json" -o "$TMP/x.png"
echo "ok offrow.json: refused by compare and plot"

# plot takes a bench -o directory as it takes its results.json.
if command -v gnuplot >/dev/null 2>&1; then
	mkdir -p "$TMP/pb"
	cp "$P/before.json" "$TMP/pb/results.json"
	"$RS_BIN" plot "$TMP/pb" -o "$TMP/dir.svg" 2>"$TMP/err" ||
		fail "plot DIR: $(cat "$TMP/err")"
	[ -s "$TMP/dir.svg" ] || fail "plot DIR drew nothing"
	echo "ok plot DIR"
fi
exit 0
