#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report --folded against an independent oracle: perf's own Python
# stackcollapse (shipped with Debian's linux-perf). Its rules differ from
# stackcollapse-perf.pl for unsymbolized frames ([unknown] vs [dso]),
# '<', '>', a leading 'L' and annotations, and it ignores tracepoint
# samples (no handler for them), which stackcollapse-perf.pl keeps; so both
# sides are compared with --samples, on the stacks whose frames are all
# plain symbols, on cpu-clock samples only:
#  - the bundled recordings (cpu-clock and tracepoints) through the
#    perf.data path, which folds the sampling event alone by default, as
#    stackcollapse.py does, and through the perf script text path, fed
#    only the cpu-clock samples;
#  - a recording made now without tracepoints, through both paths.
. tests/shell/lib.sh
need_perf

sc=
for d in /usr/lib/perf-core /usr/libexec/perf-core; do
	[ -f "$d/scripts/python/stackcollapse.py" ] &&
		sc=$d/scripts/python/stackcollapse.py
done
[ -n "$sc" ] || skip "perf's stackcollapse.py is not installed"

# Lines whose frames are all symbolized the same way by both tools.
comparable() {
	grep ';' | grep -v '[][<>(]' | grep -v ';L' | LC_ALL=C sort
}

# check NAME FILE KALLSYMS-OPTION... : perf's fold vs ours
check() {
	local name=$1 f=$2 paths=$3
	shift 3
	perf script -i "$f" "$@" -s "$sc" >"$TMP/perf.folded" \
		2>"$TMP/perf.err" ||
		skip "perf script -s stackcollapse.py failed: $(head -n 1 "$TMP/perf.err")"
	# stackcollapse-perf.pl skips frames whose symbol starts with "(",
	# "(anonymous namespace)::f" included; stackcollapse.py keeps them.
	# Apply that one rule to perf's side, merging the stacks it joins.
	awk '{ n = $NF; st = $0; sub(/ [0-9]+$/, "", st); k = split(st, f, ";")
	       s = ""; for (i = 1; i <= k; i++) if (f[i] !~ /^\(/)
	               s = s (s == "" ? "" : ";") f[i]
	       c[s] += n } END { for (s in c) print s, c[s] }' \
		"$TMP/perf.folded" | comparable >"$TMP/expect"
	[ "$(wc -l <"$TMP/expect")" -gt 0 ] ||
		fail "$name: perf's fold has no symbolized stacks"
	if [[ $paths == *data* ]]; then
		"$RS_BIN" report --folded --samples -i "$f" "$@" \
			>"$TMP/ours" 2>"$TMP/err" ||
			fail "$name: report failed: $(cat "$TMP/err")"
		comparable <"$TMP/ours" | diff -u "$TMP/expect" - |
			head -n 20 | grep . &&
			fail "$name: perf.data path differs from perf's stackcollapse"
	fi
	perf script -i "$f" "$@" 2>/dev/null |
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     { split($0, l, "\n") } l[1] ~ /cpu-clock: *$/' |
		"$RS_BIN" report --folded --samples -i - >"$TMP/ours" \
		2>"$TMP/err" || fail "$name: text report failed: $(cat "$TMP/err")"
	comparable <"$TMP/ours" | diff -u "$TMP/expect" - | head -n 20 |
		grep . && fail "$name: text path differs from perf's stackcollapse"
	echo "ok $name ($paths): $(wc -l <"$TMP/expect") stacks agree"
}

ks=$(fixture_kallsyms)
check flush-mixed.data "$RS_FIXTURES/flush-mixed.data" "data and text" \
	--kallsyms "$ks"
check pipe-mode.data "$RS_FIXTURES/pipe-mode.data" "data and text" \
	--kallsyms "$ks"

perf record -q -a -g -e cpu-clock -F 1999 -o "$TMP/live.data" -- \
	build/workloads/spin 500 >/dev/null 2>&1 ||
	skip "perf record cannot sample cpu-clock here"
check live "$TMP/live.data" "data and text" --kallsyms /proc/kallsyms
exit 0
