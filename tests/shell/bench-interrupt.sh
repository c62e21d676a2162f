#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench interrupted at random moments by SIGINT or SIGTERM (from the
# moment it catches the signal on), in each scenario (with --record
# once): nothing of the run is left behind (no
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
	"accuracy --children 3 --reads 200000"
	"stat-read --children 4 --reads 200000 --record"
)
# wait_handler PID SIG: until PID catches SIG (its SigCgt), at most 10 s.
# A signal before bench sets its handler (ASan's start under load can
# take longer than the shortest delay) kills it by the default action
# with nothing made yet: the moments tried are the run's, after that.
wait_handler() {
	local mask bit=$(($(kill -l "$2") - 1)) n
	for n in $(seq 1 1000); do
		mask=$(sed -n 's/^SigCgt:\t*//p' "/proc/$1/status" 2>/dev/null)
		[ -n "$mask" ] || return 0	# gone already
		(((16#$mask >> bit) & 1)) && return 0
		sleep 0.01
	done
	fail "bench did not catch SIG$2 within 10 s"
}
i=0
for s in "${scen[@]}"; do
	for sig in INT TERM; do
		i=$((i + 1))
		delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.05 + (r % 120) / 100 }')
		# shellcheck disable=SC2086
		"$RS_BIN" bench $s >/dev/null 2>err &
		pid=$!
		wait_handler $pid $sig
		sleep "$delay"
		kill -$sig $pid
		wait $pid
		rc=$?
		no_leftovers "trial $i ($s, SIG$sig after ${delay}s)"
		# Interrupted: exit 1 and one line; finished first: exit 0.
		if [ $rc -ne 0 ]; then
			[ $rc -eq 1 ] || fail "trial $i: exit $rc: $(cat err)"
			grep -q "interrupted by SIG$sig: removed" err ||
				fail "trial $i: exit 1 without saying why: $(cat err)"
			# The recording is the run's too: gone with it.
			[ -e rstat.data ] &&
				fail "trial $i: an interrupted --record left rstat.data"
		fi
		rm -f rstat.data rstat.data.old
		echo "trial $i: $s, SIG$sig after ${delay}s: exit $rc, clean"
	done
done

# Finished repetitions are shown, not lost, when a later one is cut short.
"$RS_BIN" bench stat-read --children 1 --reads 200 -r 1000 \
	--files cpu.stat >out 2>err &
pid=$!
sleep 2
kill -INT $pid
wait $pid
[ $? -eq 1 ] || fail "an interrupted -r 1000 did not exit 1: $(cat err)"
grep -Eq '^# rstat-analyze bench stat-read: interrupted after [1-9][0-9]* of 1000 repetitions' out ||
	fail "the finished repetitions were not printed: $(head -3 out)"
no_leftovers "interrupted after some repetitions"

# Many more busy children than CPUs: an interrupt still returns within
# seconds (they are stopped all at once, not a second each), and the run
# says up front that the reader gets less than half of its CPU (100
# children, 200 updaters at nice 19 on 2 CPUs: 41%).
"$RS_BIN" bench stat-read --children 100 --reads 1000000 --files cpu.stat \
	>/dev/null 2>err &
pid=$!
sleep 3
start=$(date +%s%N)
kill -INT $pid
wait $pid
took=$((($(date +%s%N) - start) / 1000000))
grep -q "busy updaters (nice 19) on .* CPUs: the reader gets about" err ||
	[ "$(nproc)" -gt 2 ] || fail "no word on 100 children starving the reader"
[ $took -lt 10000 ] || fail "100 children took ${took} ms to stop"
no_leftovers "100 children interrupted"
echo "100 busy children stopped in ${took} ms"

# SIGKILL: the workloads die with the bench process; its cgroups stay
# until the next run, which removes them.
"$RS_BIN" bench stat-read --children 4 --reads 200000 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
sleep 0.3
pgrep -s 0 -fa "$RS_BIN bench" && fail "workloads survived a SIGKILLed bench"
"$RS_BIN" bench stat-read --children 1 --reads 5 >/dev/null 2>err ||
	fail "the run after a SIGKILLed one: $(cat err)"
no_leftovers "the run after a SIGKILLed one"
grep -q "removed the cgroups of 1 earlier run" err ||
	echo "note: the SIGKILLed run had not created its cgroups yet"
echo "a SIGKILLed run's leftovers are removed by the next run"
