#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report --folded against an independent oracle: perf's own Python
# stackcollapse (shipped with Debian's linux-perf). Its rules differ from
# stackcollapse-perf.pl for unsymbolized frames ([unknown] vs [dso]),
# '<', '>', a leading 'L' and annotations, and it counts samples of every
# event but tracepoints (stackcollapse.py has no tracepoint handlers); so
# both sides are compared with --samples, on the stacks whose frames are
# all plain symbols, and only stacks with at least one frame. Both the
# perf.data path and the perf script text path (-i -) are checked; the
# text gets only the cpu-clock samples: stackcollapse-perf.pl (and so
# rstat-analyze on text) keeps tracepoint samples, whose header lines end
# with fields rather than "event:", whatever the event filter.
#
# Run from the repository root. Exit 0 pass, 1 fail, 2 skip.

BIN=${RSTAT_ANALYZE:-./rstat-analyze}
DATA=${RS_FIXTURES:-tests/data}

[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 2; }
command -v perf >/dev/null || { echo "skip: perf not installed"; exit 2; }
SC=
for d in /usr/lib/perf-core /usr/libexec/perf-core; do
	[ -f "$d/scripts/python/stackcollapse.py" ] &&
		SC=$d/scripts/python/stackcollapse.py
done
[ -n "$SC" ] || { echo "skip: perf's stackcollapse.py not found"; exit 2; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$DATA/flush-mixed.kallsyms.gz" > "$tmp/kallsyms" || exit 1

# Lines whose frames are all symbolized the same way by both tools.
comparable() {
	grep ';' | grep -v '[][<>(]' | grep -v ';L' | LC_ALL=C sort
}

fail=0
for data in pipe-mode.data flush-mixed.data; do
	f=$DATA/$data
	[ -f "$f" ] || { echo "skip: $f missing"; exit 2; }
	if ! perf script -i "$f" --kallsyms "$tmp/kallsyms" -s "$SC" \
		> "$tmp/perf.folded" 2> "$tmp/perf.err"; then
		echo "skip: perf script -s stackcollapse.py failed on $data:"
		head -3 "$tmp/perf.err"
		exit 2
	fi
	comparable < "$tmp/perf.folded" > "$tmp/expect"
	# The kallsyms must symbolize the file, or the comparison is empty.
	if ! grep -q 'pvm_irq_enable' "$tmp/expect"; then
		echo "FAIL: $data: kallsyms did not symbolize perf's reading"
		fail=1
		continue
	fi

	if ! "$BIN" report --folded --samples -i "$f" \
		--kallsyms "$tmp/kallsyms" > "$tmp/ours.data" 2> "$tmp/err"; then
		echo "FAIL: $data: report --folded failed: $(head -1 "$tmp/err")"
		fail=1
	elif ! comparable < "$tmp/ours.data" | diff -u "$tmp/expect" - \
		> "$tmp/diff"; then
		echo "FAIL: $data: perf.data path differs from perf's stackcollapse:"
		head -20 "$tmp/diff"
		fail=1
	fi

	perf script -i "$f" --kallsyms "$tmp/kallsyms" 2>/dev/null |
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     { split($0, l, "\n") } l[1] ~ /cpu-clock: *$/' |
		"$BIN" report --folded --samples -i - > "$tmp/ours.text" \
		2> "$tmp/err"
	if [ "${PIPESTATUS[2]}" != 0 ]; then
		echo "FAIL: $data: report --folded -i - failed: $(head -1 "$tmp/err")"
		fail=1
	elif ! comparable < "$tmp/ours.text" | diff -u "$tmp/expect" - \
		> "$tmp/diff"; then
		echo "FAIL: $data: text path differs from perf's stackcollapse:"
		head -20 "$tmp/diff"
		fail=1
	fi
	[ $fail = 0 ] && echo "ok: $data: $(wc -l < "$tmp/expect") stacks agree"
done
exit $fail
