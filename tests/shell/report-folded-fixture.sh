#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report --folded --stackcollapse on the bundled real recordings equals
# the fold of perf's own reading of them (`perf script` text, with the
# same kallsyms), line for line, for the folding options. perf is the
# oracle for reading and symbolizing; the text fold is checked rule by
# rule in unit/test-fold. Without --stackcollapse a perf.data folds its
# sampling event alone (fold-vs-perf-stackcollapse.sh compares that with
# perf's stackcollapse.py), and says what it left out.
#
# --pid and --tid name the real PID from the recording, where default perf
# script text has none (the script prints comm-?); they are compared with
# `perf script -F +pid` in report-folded-live.sh, on a recording without
# tracepoints (-F +pid drops tracepoint callchains), and checked here
# against the plain output and known PIDs.
. tests/shell/lib.sh
need_perf

ks=$(fixture_kallsyms)
for data in flush-mixed.data pipe-mode.data; do
	f=$RS_FIXTURES/$data
	perf script -i "$f" --kallsyms "$ks" >"$TMP/script.txt" 2>"$TMP/perf.err" ||
		fail "perf script failed on $data: $(cat "$TMP/perf.err")"
	for opts in "" "--kernel" "--all --addrs" "--samples" \
		    "--event-filter cgroup:cgroup_rstat_locked" \
		    "--event-filter memcg:memcg_flush_stats --samples"; do
		# shellcheck disable=SC2086
		"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded \
			--stackcollapse $opts >"$TMP/ours" 2>"$TMP/ours.err" ||
			fail "report $data $opts: $(cat "$TMP/ours.err")"
		# shellcheck disable=SC2086
		"$RS_BIN" report -i - --folded $opts <"$TMP/script.txt" \
			>"$TMP/theirs" 2>"$TMP/theirs.err" ||
			fail "report of perf script text $data $opts: $(cat "$TMP/theirs.err")"
		[ -s "$TMP/ours" ] || fail "$data $opts: no folded output"
		if ! cmp -s "$TMP/ours" "$TMP/theirs"; then
			diff "$TMP/theirs" "$TMP/ours" | head -n 20
			fail "$data $opts: folded stacks differ from perf script's reading"
		fi
		echo "ok $data $opts: $(wc -l <"$TMP/ours") stacks"
	done
done

# The note says what was mixed and dropped, in perf script's counts.
f=$RS_FIXTURES/flush-mixed.data
perf script -i "$f" -F event 2>/dev/null | sed 's/^ *//; s/: *$//' |
	sort | uniq -c >"$TMP/counts"
clock=$(awk '$2 == "cpu-clock" { print $1 }' "$TMP/counts")
tps=$(awk '$2 != "cpu-clock" { n += $1 } END { print n }' "$TMP/counts")
[ -n "$clock" ] && [ "$tps" -gt 0 ] || fail "perf script counts: $(cat "$TMP/counts")"
"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded --stackcollapse \
	2>&1 >/dev/null |
	grep -qF "folded $clock 'cpu-clock' samples and $tps tracepoint samples" ||
	fail "no note of $tps tracepoint samples folded with $clock cpu-clock ones"
"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded --stackcollapse \
	--event-filter cgroup:cgroup_rstat_locked 2>&1 >/dev/null |
	grep -qF "folded the $tps samples of every tracepoint, not only 'cgroup:cgroup_rstat_locked' (tracepoints pass any --event-filter, as in stackcollapse-perf.pl); $clock samples of other events dropped" ||
	fail "--event-filter of a tracepoint: the note does not say what was kept"
"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded --samples \
	2>"$TMP/err" >"$TMP/alone" || fail "report --folded: $(cat "$TMP/err")"
grep -qF "folded the 'cpu-clock' samples alone, leaving out $tps tracepoint and probe hits" \
	"$TMP/err" || fail "no note of the $tps hits left out: $(cat "$TMP/err")"
total=$(awk '{ s += $NF } END { print s }' "$TMP/alone")
[ "$total" = "$clock" ] ||
	fail "default fold of $f counts $total samples, perf script $clock cpu-clock"
echo "ok notes: $clock cpu-clock and $tps tracepoint samples, as perf counts"

# --event-filter: perf 6.1 names the event cpu-clock:pppH in some files;
# the name without modifiers picks it, and a name that is none of the
# file's events is an error listing them, in both paths.
perf script -i "$f" --kallsyms "$ks" >"$TMP/script.txt" 2>/dev/null
sed 's/ cpu-clock: *$/ cpu-clock:pppH: /' "$TMP/script.txt" >"$TMP/pppH.txt"
grep -q 'cpu-clock:pppH:' "$TMP/pppH.txt" || fail "sed made no cpu-clock:pppH"
"$RS_BIN" report -i - --folded --event-filter cpu-clock <"$TMP/pppH.txt" \
	>"$TMP/pppH" 2>"$TMP/err" || fail "--event-filter cpu-clock on cpu-clock:pppH: $(cat "$TMP/err")"
"$RS_BIN" report -i - --folded --event-filter cpu-clock <"$TMP/script.txt" \
	>"$TMP/plain" 2>/dev/null || fail "--event-filter cpu-clock"
[ -s "$TMP/pppH" ] && cmp -s "$TMP/pppH" "$TMP/plain" ||
	fail "--event-filter cpu-clock folds cpu-clock:pppH differently"
expect_error 1 "event-filter cpu-clok: no sample of that event \(its events: cpu-clock, cgroup:cgroup_rstat_locked" \
	"$RS_BIN" report -i "$TMP/script.txt" --folded --event-filter cpu-clok
[ -s "$TMP/stdout" ] && fail "an --event-filter error printed stacks"
expect_error 1 "event-filter cpu-clok: no such event in the recording \(its events: cpu-clock, cgroup:" \
	"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded --event-filter cpu-clok
[ -s "$TMP/stdout" ] && fail "an --event-filter error printed stacks"
expect_error 1 "event-filter cpu-clok: no such event in the recording" \
	"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded --stackcollapse \
	--event-filter cpu-clok
echo "ok --event-filter: modifiers optional, no match is an error"

# --pid and --tid: the same stacks as without them, first frames named
# with the recording's PID and TID (perf script -F +pid shows rdm 6408 in
# flush-mixed.data and rdm 6513 in pipe-mode.data).
f=$RS_FIXTURES/flush-mixed.data
"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded >"$TMP/plain" ||
	fail "report --folded"
for opt in --pid --tid; do
	"$RS_BIN" report -i "$f" --kallsyms "$ks" --folded $opt >"$TMP/ids" ||
		fail "report --folded $opt"
	grep -q "^rdm-6408$([ $opt = --tid ] && echo /6408);" "$TMP/ids" ||
		fail "$opt: no rdm-6408 stacks"
	sed -E 's/^([^;]*)-[0-9]+(\/[0-9]+)?(;| )/\1\3/' "$TMP/ids" |
		awk '{ i = match($0, / [0-9]+$/); k = substr($0, 1, i - 1)
		       c[k] += substr($0, i + 1) }
		     END { for (k in c) printf "%s %.0f\n", k, c[k] }' |
		LC_ALL=C sort >"$TMP/stripped"
	LC_ALL=C sort "$TMP/plain" >"$TMP/plain.sorted"
	cmp -s "$TMP/stripped" "$TMP/plain.sorted" ||
		fail "$opt: stacks differ from the plain fold once the ids are removed"
	echo "ok flush-mixed.data $opt: $(wc -l <"$TMP/ids") stacks"
done

# The totals are the recording's (tests/data/README.fixtures.md; perf
# script counts the same): 21047 cpu-clock samples plus the 1317 tracepoint
# samples, which stackcollapse-perf.pl keeps whatever the event filter
# because their header lines end with fields rather than "event:".
"$RS_BIN" report -i "$RS_FIXTURES/flush-mixed.data" --kallsyms "$ks" \
	--folded --samples --stackcollapse >"$TMP/samples" 2>/dev/null
total=$(awk '{ s += $NF } END { print s }' "$TMP/samples")
[ "$total" = 22364 ] || fail "folded --samples total $total, expected 22364"

# Flush stacks are there, under the reader that asked for them.
grep -q 'memcg1_stat_format;css_rstat_flush' "$TMP/samples" ||
	fail "no memory.stat flush stack (memcg1_stat_format;css_rstat_flush)"
grep -q 'cgroup_base_stat_cputime_show;css_rstat_flush' "$TMP/samples" ||
	fail "no cpu.stat flush stack"
exit 0
