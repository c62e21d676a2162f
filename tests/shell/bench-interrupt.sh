#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench interrupted at random moments by SIGINT or SIGTERM, in each
# scenario (with --record once): nothing of the run is left behind (no
# cgroup, no process, no work file) and it exits 1 saying so. A SIGKILLed
# run's workloads die with it; its cgroups are removed by the next run.
. tests/shell/lib.sh
. tests/shell/bench-lib.sh
no_leftovers "before the test"
cd "$TMP" || fail cd

scen=(
	"stat-read --children 6 --reads 200000"
	"many-cgroups --cgroups 400 --reads 200000"
	"pipe --round-trips 50000000"
	"fault --duration 30"
	"stat-read --children 4 --reads 200000 --record"
)
i=0
for s in "${scen[@]}"; do
	for sig in INT TERM; do
		i=$((i + 1))
		delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.05 + (r % 120) / 100 }')
		# shellcheck disable=SC2086
		"$RS_BIN" bench $s >/dev/null 2>err &
		pid=$!
		sleep "$delay"
		kill -$sig $pid
		wait $pid
		rc=$?
		no_leftovers "trial $i ($s, SIG$sig after ${delay}s)"
		# Interrupted: exit 1 and one line; finished first: exit 0.
		if [ $rc -ne 0 ]; then
			[ $rc -eq 1 ] || fail "trial $i: exit $rc: $(cat err)"
			grep -q "interrupted" err ||
				fail "trial $i: exit 1 without saying why: $(cat err)"
		fi
		echo "trial $i: $s, SIG$sig after ${delay}s: exit $rc, clean"
	done
done

# SIGKILL: the workloads die with the bench process; its cgroups stay
# until the next run, which removes them.
"$RS_BIN" bench stat-read --children 4 --reads 200000 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.3
pgrep -fa "$RS_BIN bench" && fail "workloads survived a SIGKILLed bench"
"$RS_BIN" bench stat-read --children 1 --reads 5 >/dev/null 2>err ||
	fail "the run after a SIGKILLed one: $(cat err)"
no_leftovers "the run after a SIGKILLed one"
grep -q "removed the cgroups of 1 earlier run" err ||
	echo "note: the SIGKILLed run had not created its cgroups yet"
echo "a SIGKILLed run's leftovers are removed by the next run"
