#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs side by side on one machine: two benches (one of them recorded) and
# two system-wide recorders at once all succeed, none removes what
# another live run holds, and afterwards nothing of any of them is left.
. tests/shell/lib.sh
. tests/shell/bench-lib.sh
cd "$TMP" || fail cd

"$RS_BIN" bench stat-read --children 2 --reads 3000 --files cpu.stat \
	-o a >a.out 2>a.err &
a=$!
"$RS_BIN" bench stat-read --children 2 --reads 3000 --files cpu.stat \
	--record -o b >b.out 2>b.err &
b=$!
"$RS_BIN" record -q -a -d 2 -o r1.data 2>r1.err &
r1=$!
"$RS_BIN" record -q -a -d 2 -o r2.data 2>r2.err &
r2=$!
# While all four run, each bench's tree is there, stamped and live.
sleep 1
for pid in $a $b; do
	kill -0 $pid 2>/dev/null || continue
	find /sys/fs/cgroup -maxdepth 8 -type d \
		-name "rstat-analyze-bench-$pid" | grep -q . ||
		echo "note: bench $pid had no cgroups yet at 1 s"
done
wait $a || fail "bench a beside others: $(cat a.err)"
wait $b || fail "bench b beside others: $(cat b.err)"
wait $r1 || fail "record 1 beside others: $(cat r1.err)"
wait $r2 || fail "record 2 beside others: $(cat r2.err)"
for f in a/results.json b/results.json b/rstat.data r1.data r2.data; do
	[ -s "$f" ] || fail "$f is missing"
done
for f in b/rstat.data r1.data r2.data; do
	"$RS_BIN" report -i "$f" >/dev/null 2>"$f.err" ||
		fail "$f does not read: $(cat "$f.err")"
done
# Neither bench took the other's live tree for a stale one.
grep -q "left alone\|removed the" a.err b.err &&
	fail "a bench cleaned up after a live run: $(cat a.err b.err)"
no_leftovers "two benches and two recorders"
echo "two benches and two recorders at once: all succeeded, nothing left"
