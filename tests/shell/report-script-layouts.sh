#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every layout perf script has printed since perf 3.x is read as perf
# script output, and folded as stackcollapse-perf.pl folds it:
# - tests/data/script-layouts/*.script, written from perf's own printing
#   code (builtin-script.c's sample header, callchain and --header
#   printers): perf 3.x's "# ========" header block and "event: " with a
#   trailing blank, no time column ("java 19983 cycles:"), no time and no
#   event ("sleep 901 [000]" then frames), pid/tid with a period and
#   "cycles:ppp:", padded event names of two events, a tracepoint without
#   a time column. Each folds to its .folded file (checked by hand) and
#   to what tests/shell/stackcollapse-ref.py folds, from a file and from
#   stdin.
# - Real perf script output of the bundled recording in the -F layouts
#   without a time column, and with --header, folds as the reference does.
# - Text no perf prints (a README with a "name 12 word" line, JSON) is
#   still refused with the "not perf script output" message.
. tests/shell/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
ref=tests/shell/stackcollapse-ref.py
dir=$RS_FIXTURES/script-layouts
n=0
for s in "$dir"/*.script; do
	name=$(basename "$s" .script)
	"$RS_BIN" report -i "$s" --folded >"$TMP/ours" 2>"$TMP/err" ||
		fail "$name: report refused it: $(cat "$TMP/err")"
	cmp -s "$TMP/ours" "$dir/$name.folded" || {
		diff "$dir/$name.folded" "$TMP/ours" | head -n 20
		fail "$name: folded stacks differ from $name.folded"
	}
	python3 "$ref" <"$s" >"$TMP/ref" || fail "$name: reference failed"
	cmp -s "$TMP/ours" "$TMP/ref" || {
		diff "$TMP/ref" "$TMP/ours" | head -n 20
		fail "$name: folded stacks differ from stackcollapse-ref.py's"
	}
	"$RS_BIN" report -i - --folded <"$s" >"$TMP/stdin" 2>"$TMP/err" ||
		fail "$name on stdin: $(cat "$TMP/err")"
	cmp -s "$TMP/ours" "$TMP/stdin" || fail "$name: stdin folds otherwise"
	[ -s "$TMP/ours" ] || fail "$name: no stacks"
	echo "ok $name: $(wc -l <"$TMP/ours") stacks"
	n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n layout fixtures in $dir"

# Hand-counted figures the reference could share a mistake with: the
# period weights a sample; the trailing blank and the "# ====" block do
# not hide any sample; an event printed without a time is not filtered.
grep -qx 'FS_Broker;main;work 4612247' "$dir/period-pid-tid.folded" &&
	grep -qx 'broker;main;clear_page_erms 1000000' \
		"$dir/period-pid-tid.folded" || fail "period-pid-tid: periods"
[ "$(awk '{ s += $NF } END { print s }' "$dir/perf3-header.folded")" = 4 ] ||
	fail "perf3-header: not its 4 samples"
[ "$(awk '{ s += $NF } END { print s }' "$dir/no-time.folded")" = 3 ] ||
	fail "no-time: not its 3 samples"

# Real perf script text in the layouts without a time column.
if command -v perf >/dev/null 2>&1; then
	ks=$(fixture_kallsyms)
	for fields in comm,tid,event,ip,sym,dso comm,tid,cpu,ip,sym,dso \
		      comm,pid,tid,period,event,ip,sym,dso header; do
		if [ "$fields" = header ]; then
			perf script -i "$RS_FIXTURES/flush-mixed.data" \
				--kallsyms "$ks" --header >"$TMP/s.txt" 2>/dev/null
			grep -q '^# ========' "$TMP/s.txt" ||
				fail "perf script --header printed no header block"
		else
			perf script -i "$RS_FIXTURES/flush-mixed.data" \
				--kallsyms "$ks" -F "$fields" >"$TMP/s.txt" \
				2>/dev/null
		fi
		[ -s "$TMP/s.txt" ] || fail "perf script -F $fields: no output"
		"$RS_BIN" report -i "$TMP/s.txt" --folded >"$TMP/ours" \
			2>"$TMP/err" || fail "perf script -F $fields: $(cat "$TMP/err")"
		python3 "$ref" <"$TMP/s.txt" >"$TMP/ref"
		[ -s "$TMP/ref" ] && cmp -s "$TMP/ours" "$TMP/ref" || {
			diff "$TMP/ref" "$TMP/ours" | head -n 20
			fail "perf script -F $fields: folds otherwise than the reference"
		}
		echo "ok perf script ${fields}: $(wc -l <"$TMP/ours") stacks"
	done
else
	skip_part "perf is not installed: real perf script layouts not read"
fi

# Still refused: text that no perf prints.
printf 'Release 12 notes (draft)\n\nsee 12 the docs\n' >"$TMP/readme.txt"
printf '{"a": 1}\n' >"$TMP/x.json"
printf 'make 123 all\n    just text\n' >"$TMP/plain.txt"
for f in readme.txt plain.txt; do
	"$RS_BIN" report -i "$TMP/$f" --folded >/dev/null 2>"$TMP/err" &&
		fail "$f was read as perf script output"
	grep -q 'not perf script output' "$TMP/err" ||
		fail "$f: not the 'not perf script output' message: $(cat "$TMP/err")"
done
"$RS_BIN" report -i "$TMP/x.json" --folded >/dev/null 2>"$TMP/err" &&
	fail "JSON was read as perf script output"
echo "ok: README, plain text and JSON refused"
