#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 25: compare of results with breakdowns (bench --breakdown) shows,
# for each file both sides decomposed, each part's share and p50 per side
# and their change against the base, in every format. Checked against
# what python3 computes from the two results files itself
# (compare-breakdown.py): every share, p50, change in points and in
# percent printed in text and markdown (within the printed rounding), in
# CSV and JSON (exactly); "not timed" for a part one side did not time,
# with no change beside it, never a 0; "from 0" where the base's p50 is 0;
# entry/exit only when both sides derived it (a line says which did
# not); the short output folds the parts neither timed and those 0 on
# both into a line each, --details prints them all, and the short rows
# are --details' rows (compare-paste.py), in 72 columns and 60 lines.
# More sides repeat the base in a table per side, each the two-side table.
# Several results with a breakdown on a side, or one side without any:
# no breakdown is compared, and a note says why.
#
# The base is this host's results (bench --breakdown, made here as root,
# else the committed ones: tests/data/compare/bd-host.json, from this
# host: no kprobes, the callbacks not timed); the other side is the
# same results as a kernel with kprobes would give them (synthetic).
. tests/shell/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
D=$RS_FIXTURES/compare
[ -d "$D" ] || D=tests/data/compare
CHECK="python3 $PWD/tests/shell/compare-breakdown.py"
PASTE="python3 $PWD/tests/shell/compare-paste.py"
A=$TMP/host.json
B=$TMP/kprobes.json

if [ "$(id -u)" -eq 0 ] &&
	[ -e /sys/kernel/tracing/events/syscalls/sys_enter_pread64 ] &&
	(cd "$TMP" && timeout 120 "$RS_BIN" bench stat-read --breakdown \
		--reads 50 --children 2 --files cpu.stat,memory.stat \
		-o run >run.txt 2>run.err) &&
	! grep -q "reads not decomposed" "$TMP/run.err"; then
	cp "$TMP/run/results.json" "$A" || fail cp
else
	skip_part "no fresh breakdown on this host (not root, no syscall tracepoints or BPF): the committed host results are compared"
	cp "$D/bd-host.json" "$A" || fail cp
fi
$CHECK kprobes "$A" "$B" || fail "making the kprobes side"

cmp_() {	# cmp_ OUT ARGS...: compare host -- kprobes ARGS
	local out=$1

	shift
	timeout 60 "$RS_BIN" compare "$A" -- "$B" --labels host,kprobes "$@" \
		>"$TMP/$out" 2>"$TMP/$out.err" ||
		fail "compare $*: $(cat "$TMP/$out.err")"
}
cmp_ short.txt
cmp_ details.txt --details
cmp_ short.md --format markdown
cmp_ details.md --format markdown --details
cmp_ out.csv --format csv
cmp_ out.json --format json
for f in short.txt.err out.csv.err out.json.err; do
	[ -s "$TMP/$f" ] && fail "a note where both sides have one breakdown: $(cat "$TMP/$f")"
done
$CHECK text "$TMP/short.txt" "$A" host "$B" kprobes || fail "text"
$CHECK details "$TMP/details.txt" "$A" host "$B" kprobes || fail "--details"
$CHECK markdown "$TMP/short.md" "$A" host "$B" kprobes || fail "markdown"
$CHECK markdown-details "$TMP/details.md" "$A" host "$B" kprobes ||
	fail "markdown --details"
$CHECK csv "$TMP/out.csv" "$A" host "$B" kprobes || fail "csv"
$CHECK json "$TMP/out.json" "$A" host "$B" kprobes || fail "json"
$PASTE "$TMP/short.txt" "$TMP/details.txt" || fail "not pasteable"
[ "$(wc -l <"$TMP/short.md")" -le 60 ] ||
	fail "markdown: $(wc -l <"$TMP/short.md") lines"
# What the synthetic side makes sure is there to check.
grep -q "^memory  *not timed  *[0-9.]*% " "$TMP/short.txt" ||
	fail "memory: not 'not timed' on the host's side"
grep -q "^wait .*[0-9]%  *0 ns  *not timed$" "$TMP/short.txt" ||
	fail "wait: not 'not timed' on the kprobes side"
grep -q "from 0$" "$TMP/short.txt" || fail "no 'from 0'"
grep -q "^not timed on either: base$" "$TMP/short.txt" || fail "no fold"
grep -q "^entry/exit: not derived on kprobes" "$TMP/short.txt" ||
	fail "entry/exit left out unsaid"
# Why a part was not timed, each side's, with --details.
grep -q "^not timed on kprobes: wait: synthetic" "$TMP/details.txt" ||
	fail "--details: no reason"

# The same results on both sides (the committed ones, whose wait and
# off-cpu are 0): parts 0 on both fold too.
timeout 60 "$RS_BIN" compare "$D/bd-host.json" -- "$D/bd-host.json" \
	--labels one,two >"$TMP/same.txt" || fail "compare A -- A"
$CHECK text "$TMP/same.txt" "$D/bd-host.json" one "$D/bd-host.json" two ||
	fail "A -- A"
grep -q "^0 on both: wait, off-cpu$" "$TMP/same.txt" || fail "no '0 on both'"

# Three sides: a table per side after the base, each the two-side one.
cp "$A" "$TMP/again.json" || fail cp
timeout 60 "$RS_BIN" compare "$A" -- "$B" -- "$TMP/again.json" \
	--labels host,kprobes,again >"$TMP/three.txt" || fail "three sides"
timeout 60 "$RS_BIN" compare "$A" -- "$TMP/again.json" \
	--labels host,again >"$TMP/two.txt" || fail "host -- again"
python3 - "$TMP/three.txt" "$TMP/short.txt" "$TMP/two.txt" <<'PY' || fail "three sides"
import sys
def tables(path):
    text = open(path).read().split("Where a read's time goes", 1)[1]
    blocks = text.split("\n\n")[1:]
    return [b.strip("\n") for b in blocks if "\npart " in b]
three = tables(sys.argv[1])
two = tables(sys.argv[2]) + tables(sys.argv[3])
assert len(three) == 4, len(three)
assert sorted(three) == sorted(two), (three, two)
PY
expand "$TMP/three.txt" | awk 'length > 72 { exit 1 }' ||
	fail "three sides: wider than 72 columns"

# Two results with a breakdown pool into a side: none compared, said why.
timeout 60 "$RS_BIN" compare "$A" "$TMP/again.json" -- "$B" \
	>"$TMP/pool.txt" 2>"$TMP/pool.err" || fail "pooled side"
grep -q "Where a read's time goes" "$TMP/pool.txt" &&
	fail "a breakdown of a side pooling two"
grep -q "breakdowns not compared: side host+1 has 2 files with one" \
	"$TMP/pool.err" || fail "no note on the pooled side: $(cat "$TMP/pool.err")"
# A side without one: none compared either.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["breakdown"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$B" "$TMP/plain.json" || fail "no breakdown"
timeout 60 "$RS_BIN" compare "$A" -- "$TMP/plain.json" --format json \
	>"$TMP/plain.out" 2>"$TMP/plain.err" || fail "a side without"
grep -q "breakdowns not compared: side plain has none" "$TMP/plain.err" ||
	fail "no note on the side without: $(cat "$TMP/plain.err")"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["breakdowns"] == []' \
	"$TMP/plain.out" || fail "json: breakdowns of a side without"
echo "ok"
