#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The include and call graphs of src/ keep the layers docs/design.md draws
# (scripts/layers.txt): scripts/check-layers.py on the objects the tool
# under test was built from passes, and fails on a planted call against
# the layers, a planted circle, a file no module holds and an exception
# that matches nothing.
. tests/shell/lib.sh

type -P python3 >/dev/null || skip "python3 is not installed"
type -P nm >/dev/null || skip "nm is not installed (binutils)"
# The objects beside the binary under test: build/san/src or build/src.
objs=$(dirname "$RS_BIN")
[ -f "$objs/src/main.o" ] || objs=build
[ -f "$objs/src/main.o" ] || skip "no objects in $objs/src: run make"
check() {
	scripts/check-layers.py --objs "$objs" "$@" >"$TMP/out" 2>&1
}

check || fail "the layers do not hold: $(cat "$TMP/out")"
tail -n 1 "$TMP/out" | grep -Eq '^layers: [0-9]+ files, .* ok$' ||
	fail "no closing line: $(cat "$TMP/out")"
echo "ok $(tail -n 1 "$TMP/out")"

# nm sees the calls: the command's call into the session layer is there.
check --graph || fail "--graph failed: $(cat "$TMP/out")"
grep -Eq '^cmd +-> session +calls' "$TMP/out" ||
	fail "the call graph misses cmd -> session: $(head -c 2000 "$TMP/out")"
echo "ok the call graph has cmd -> session"

check --plant src/util.c src/cmd-report.c &&
	fail "a call from util.c up to a command passed"
grep -q '^src/util.c calls src/cmd-report.c (.*): cmd is above util$' \
	"$TMP/out" || fail "the upward call is not named: $(cat "$TMP/out")"
echo "ok an upward call fails"

check --plant src/perf/data-process.c src/perf/data-pipeline.c &&
	fail "a circle of two files passed"
grep -q '^a circle of calls: src/perf/data-pipeline.c <-> src/perf/data-process.c$' \
	"$TMP/out" || fail "the circle is not named: $(cat "$TMP/out")"
echo "ok a circle fails"

grep -v '^figure' scripts/layers.txt >"$TMP/layers.txt"
echo 'except src/util.c -> src/figure.c	nothing' >>"$TMP/layers.txt"
check --layers "$TMP/layers.txt" && fail "a file in no module passed"
grep -q '^src/figure.c: in no module' "$TMP/out" ||
	fail "the file in no module is not named: $(cat "$TMP/out")"
grep -q '^except src/util.c -> src/figure.c: no longer so' "$TMP/out" ||
	fail "the stale exception is not named: $(cat "$TMP/out")"
echo "ok a file in no module and a stale exception fail"
