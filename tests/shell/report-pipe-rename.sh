#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A pipe-layout recording whose event is renamed (EVENT_UPDATE, NAME) after
# 50 of its 251 samples were delivered, as a real perf pipe may carry one.
# The reader used to free the old name while attribution and the folder
# still held it: report --json printed freed memory as the event name
# (under ASan: heap-use-after-free, exit 99).
#
# What must hold: every sample carries the name its event had when it was
# delivered, as `perf script` prints it (50 "cycles", 201 "cycles:u"),
# through a file and through standard input; --folded keeps the first
# event, as stackcollapse-perf.pl does on perf script's text.
. tests/shell/lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

d="$TMP/rename.data" k="$TMP/rename.kallsyms" e="$TMP/rename.expected"
python3 tests/tools/gen-perf-data.py --scenario v6.1-cycles --pipe \
	--rename-at 50:cycles:u -o "$d" -k "$k" -e "$e" ||
	fail "gen-perf-data.py failed"

cat >"$TMP/check.py" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
got = {}
for a in rep["attribution"]:
    got[a["event"]] = got.get(a["event"], 0) + a["samples"]
if got != exp["events"]:
    sys.exit("attribution by event %s, expected %s" % (got, exp["events"]))
counts = {c["event"]: c["count"] for c in rep["counts"]}
if counts != {"cycles:u": exp["samples"]}:
    sys.exit("counts %s: the event's last name, every sample" % counts)
EOF

# perf, the oracle: the same names on the same samples.
if command -v perf >/dev/null 2>&1; then
	perf script -i "$d" -F event >"$TMP/ev" 2>"$TMP/perr" ||
		fail "perf script failed: $(head -c 1000 "$TMP/perr")"
	[ "$(grep -c '^ *cycles: *$' "$TMP/ev")" -eq 50 ] &&
		[ "$(grep -c '^ *cycles:u: *$' "$TMP/ev")" -eq 201 ] ||
		fail "perf script does not see 50 cycles and 201 cycles:u: $(sort "$TMP/ev" | uniq -c)"
	perf script -i "$d" --kallsyms "$k" >"$TMP/script" 2>/dev/null ||
		fail "perf script failed"
fi

for how in file stdin; do
	if [ $how = file ]; then
		"$RS_BIN" report -i "$d" --kallsyms "$k" --json >"$TMP/rep.json" \
			2>"$TMP/err"
	else
		"$RS_BIN" report -i - --kallsyms "$k" --json <"$d" \
			>"$TMP/rep.json" 2>"$TMP/err"
	fi
	rc=$?
	[ $rc -eq 0 ] || fail "$how: report --json: exit $rc: $(head -c 3000 "$TMP/err")"
	python3 "$TMP/check.py" "$TMP/rep.json" "$e" || fail "$how: report --json"
done

# stackcollapse-perf.pl's semantics (--stackcollapse): the first event
# name seen, the renamed samples dropped and said so.
"$RS_BIN" report -i "$d" --kallsyms "$k" --folded --stackcollapse \
	>"$TMP/ours" 2>"$TMP/err" ||
	fail "report --folded --stackcollapse: $(cat "$TMP/err")"
grep -q "folded only 'cycles' samples; 201 samples of other events dropped" \
	"$TMP/err" || fail "report --folded does not say what it dropped: $(cat "$TMP/err")"
# perf.data's own fold takes the sampling event, whatever its name became:
# all 251 samples of the one attr, nothing dropped.
"$RS_BIN" report -i "$d" --kallsyms "$k" --folded --samples \
	>"$TMP/all" 2>"$TMP/err" || fail "report --folded: $(cat "$TMP/err")"
grep -q "dropped" "$TMP/err" && fail "a renamed event's samples were dropped: $(cat "$TMP/err")"
[ "$(awk '{ s += $NF } END { print s }' "$TMP/all")" -eq 251 ] ||
	fail "the fold does not hold the 251 samples of the renamed event"
if [ -f "$TMP/script" ]; then
	"$RS_BIN" report -i "$TMP/script" --folded >"$TMP/theirs" 2>/dev/null ||
		fail "report --folded of perf script's text failed"
	cmp -s "$TMP/ours" "$TMP/theirs" ||
		fail "folded stacks differ from perf script's: $(diff "$TMP/theirs" "$TMP/ours" | head -n 10)"
fi
exit 0
