#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every test and print one closing line: N passed, N failed, N skipped.
#
# Unit tests (build/san/tests/test-*, built with ASan+UBSan) print one
# PASS/FAIL/SKIP line per case. A binary that crashes (a sanitizer abort,
# a signal, a timeout) fails the case it was in and is restarted after it
# (UNIT_START), so that the cases after a crash still run. Shell tests
# (tests/shell/*.sh) are one case each: exit 0 passes, 2 skips (the test
# prints why), anything else fails. Files named *lib.sh are helpers that
# the tests source, not tests. Shell tests run the sanitized build of the
# tool, $RS_BIN.
#
# A test that skips part of its work prints a PART-SKIP line saying what;
# those are counted and listed too. A unit case that only tidies up
# (UNIT_CLEANUP) prints CLEANUP and is not counted; one that asserts
# nothing fails (tests/unit/unit.h).
#
# Skips cannot hide: tests/required.txt lists, per area, the tests that
# must run on a CI machine. With CI=true, a required test that skips (or
# does not run at all) fails the run, with its reason. Without CI, the
# skips and part-skips are summed up by area before the closing line.
#
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)
set -u
cd "$(dirname "$0")/.."

export RS_TESTS_DIR=tests
export RS_FIXTURES=tests/data
export RS_BIN=${RS_BIN:-$PWD/build/san/rstat-analyze}
export RS_TOOL=$PWD/rstat-analyze
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=99}
filter=${1:-}
timeout_s=${RS_TEST_TIMEOUT:-300}
ci=false
[ "${CI:-}" = true ] && ci=true

passed=0 failed=0 skipped=0 parts=0
failures=()
log=$(mktemp -d /tmp/rstat-tests.XXXXXX)
export RS_UNIT_TMP=$log

# run_alone CMD...: CMD in a session of its own, waited for; its exit
# status. It is waited for in the background, so that run.sh's trap runs
# at once and stop_tests ends it. A session, not a process group: the
# tests nest their own timeouts, each in a process group of its own,
# which a signal to the outer one's group would miss.
run_alone() {
	local rc i left
	setsid "$@" &
	test_pid=$!
	test_start=$(start_time "$test_pid")
	wait $test_pid
	rc=$?
	# What it left running in its session (test_leaked): given 2 s to
	# end, then named and ended.
	for i in $(seq 1 20); do
		left=$(session_leftovers "$test_pid" "$test_start")
		[ -n "$left" ] || break
		sleep 0.1
	done
	test_leaked=$(echo "$left" | tr '\n' ';' | sed 's/;$//')
	[ -z "$test_leaked" ] || stop_session "$test_pid"
	test_pid=
	return $rc
}

# start_time PID: when PID started (clock ticks since boot), or nothing.
start_time() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	echo "$s" | awk '{ print $20 }'
}

# session_ours SID START: SID still names the session this run made. A
# session's number is not given to another process while any process
# of it is left; once none is, a process of that number that started at
# another time belongs to someone else, and so does its session.
session_ours() {
	local now
	now=$(start_time "$1")
	[ -z "$now" ] || [ "$now" = "$2" ]
}

# session_leftovers SID START: the processes of that session still
# running, one a line. A zombie is not one: it ended, and waits for its
# parent, init by then, to reap it (this machine's init reaps late).
session_leftovers() {
	session_ours "$1" "$2" || return 0
	ps -o pid=,stat=,args= -s "$1" | awk '$2 !~ /^Z/ { $2 = ""; print }'
}

# stop_session SID...: every process of these sessions asked to end
# (SIGTERM), given 30 s (a VM test's tool removes its guest on SIGTERM),
# then killed.
stop_session() {
	local s i left
	for s; do
		pkill -TERM -s "$s" 2>/dev/null
	done
	for i in $(seq 1 300); do
		left=
		for s; do
			# Zombies are gone already, however late init reaps them.
			ps -o stat= -s "$s" | grep -qv '^Z' && left=1
		done
		[ -n "$left" ] || return 0
		sleep 0.1
	done
	for s; do
		pkill -KILL -s "$s" 2>/dev/null
	done
}

# On the way out: the test running alone and the lane's session ended,
# before their log directory goes.
stop_tests() {
	local sids=()
	# A second Ctrl-C must not cut the clean-up short.
	trap '' INT TERM HUP
	[ -n "${test_pid:-}" ] && session_ours "$test_pid" "$test_start" &&
		sids+=("$test_pid")
	[ -n "${lane_pid:-}" ] && session_ours "$lane_pid" "$lane_start" &&
		sids+=("$lane_pid")
	[ ${#sids[@]} -eq 0 ] || stop_session "${sids[@]}"
	rm -rf "$log"
}
test_pid= lane_pid= test_start= lane_start=
trap stop_tests EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
# Every result line, "STATUS NAME: reason", for the skip accounting.
results=$log/results

# area_of NAME: the area a test belongs to (the required list first).
declare -A req_area=()
while read -r area tests; do
	for t in $tests; do
		req_area[$t]=$area
	done
done < <(sed 's/#.*//' tests/required.txt | grep .)
area_of() {
	local n=$1 bin=${1%%:*}
	if [ -n "${req_area[$n]:-}" ]; then
		echo "${req_area[$n]}"
		return
	fi
	[ -n "${req_area[$bin]:-}" ] && { echo "${req_area[$bin]}"; return; }
	case ${n#*/} in
	record-*|test-evlist*|test-writer*) echo record ;;
	bench-*|test-bench-*|test-workdir*) echo bench ;;
	report-attrib-*|test-rules*|test-spans*|test-bpf-*) echo attribution ;;
	*fold*) echo folding ;;
	compare*|test-stats*) echo compare ;;
	plot*|test-hist*) echo plot ;;
	vm-*|test-vm*) echo vm ;;
	report-*|test-perf-data*|test-script*|test-symbols*|test-vmlinux*)
		echo reading ;;
	*) echo other ;;
	esac
}

for t in build/san/tests/test-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	[[ -z "$filter" || "$name" == *"$filter"* ]] || continue
	out="$log/$name.out"
	: >"$out"
	start=0
	t0=$SECONDS
	while :; do
		UNIT_START=$start run_alone timeout "$timeout_s" "$t" \
			>"$log/part" 2>&1
		rc=$?
		cat "$log/part" >>"$out"
		[ -z "$test_leaked" ] ||
			echo "FAIL left processes running: $test_leaked" >>"$out"
		# The last case announced and not reported crashed.
		crashed=$(awk '/^# RUN / { c = $3; next }
			/^(PASS|FAIL|SKIP|CLEANUP) / { c = "" } END { print c }' \
			"$log/part")
		[ -n "$crashed" ] || break
		echo "FAIL $crashed: crashed (exit status $rc); the cases after it run anew" >>"$out"
		start=$((start + $(grep -c '^# RUN ' "$log/part")))
	done
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^SKIP ' "$out")
	sed -n 's/^\(PASS\|FAIL\|SKIP\|PART-SKIP\) /\1 unit\/'"$name"': /p' \
		"$out" | tee -a "$results"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# A sanitizer report (leaks) after the last case, or a timeout.
		echo "FAIL unit/$name: exit status $rc" | tee -a "$results"
		f=1
	fi
	if [ "$f" -gt 0 ]; then
		failures+=("unit/$name")
		sed 's/^/    | /' "$out" | grep -v '^    | \(PASS\|# RUN\) ' |
			tail -n 40
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "$((SECONDS - t0)) unit/$name" >>"$log/durations"
done

# run_shell NAME [lane]: one shell test, its output in $log/NAME.out, its
# exit status in $log/NAME.rc, its seconds in $log/NAME.secs. A test of
# the main lane runs in a session of its own (run_alone), where the
# terminal's SIGINT does not reach: stop_tests ends it. One of the side
# lane runs in the lane's session, which stop_tests ends as a whole.
# timeout ends the test (SIGTERM, SIGKILL 10 s later if ignored).
run_shell() {
	local name=$1 t0=$SECONDS rc

	if [ "${2:-}" = lane ]; then
		timeout -k 10 "$timeout_s" bash "tests/shell/$name.sh" \
			>"$log/$name.out" 2>&1 &
		wait $!
	else
		run_alone timeout -k 10 "$timeout_s" \
			bash "tests/shell/$name.sh" >"$log/$name.out" 2>&1
	fi
	rc=$?
	[ -z "${2:-}" ] && [ -n "$test_leaked" ] &&
		echo "$test_leaked" >"$log/$name.leaked"
	echo $rc >"$log/$name.rc"
	echo "$((SECONDS - t0))" >"$log/$name.secs"
}

# report_shell NAME: what run_shell left, counted and printed.
report_shell() {
	local name=$1 out=$log/$1.out rc
	rc=$(cat "$log/$name.rc")
	echo "$(cat "$log/$name.secs") shell/$name" >>"$log/durations"
	sed -n 's/^PART-SKIP: /PART-SKIP shell\/'"$name"': /p' "$out" |
		tee -a "$results"
	# A test that left processes running fails, whatever it said.
	if [ -s "$log/$name.leaked" ]; then
		echo "FAIL shell/$name: left processes running: $(cat "$log/$name.leaked")" |
			tee -a "$results"
		failures+=("shell/$name")
		failed=$((failed + 1))
		return
	fi
	case $rc in
	0)
		echo "PASS shell/$name" | tee -a "$results"
		passed=$((passed + 1))
		;;
	2)
		# Only a test that said why (skip() in lib.sh) skips.
		if tail -n 1 "$out" | grep -q '^SKIP: '; then
			echo "SKIP shell/$name: $(tail -n 1 "$out" | cut -c7-)" |
				tee -a "$results"
			skipped=$((skipped + 1))
		else
			echo "FAIL shell/$name: exit status 2 without a reason" |
				tee -a "$results"
			sed 's/^/    | /' "$out" | tail -n 40
			failures+=("shell/$name")
			failed=$((failed + 1))
		fi
		;;
	*)
		echo "FAIL shell/$name: exit status $rc" | tee -a "$results"
		sed 's/^/    | /' "$out" | tail -n 40
		failures+=("shell/$name")
		failed=$((failed + 1))
		;;
	esac
}

# The shell tests to run. The VM tests and those of tests/beside.txt
# run one after the other in a lane of their own, beside the rest (make
# check must stay well under 10 minutes): the listed ones touch nothing
# outside their own $TMP, and a VM test touches only its guest, its QEMU
# and its work directory in /var/lib/rstat-analyze, which no other test
# looks at. The rest use about one CPU of two; the lane runs at nice 19,
# so that it takes only what they leave and does not disturb the timing
# tests. The lane is a session of its own, ended as a whole.
. tests/shell/beside-lib.sh
declare -A beside=()
while read -r n; do
	beside[$n]=1
done < <(beside_tests)
alone=() lane=() lane_vm=()
for t in tests/shell/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	# Helpers (lib.sh, bench-lib.sh) are sourced by the tests.
	[[ $name == *lib ]] && continue
	[[ -z "$filter" || "$name" == *"$filter"* ]] || continue
	if [[ $name == vm-* ]]; then
		lane_vm+=("$name")
	elif [ -n "${beside[shell/$name]:-}" ]; then
		lane+=("$name")
	else
		alone+=("$name")
	fi
done
# The VM tests first: the longest.
lane=("${lane_vm[@]}" "${lane[@]}")
if [ ${#lane[@]} -gt 0 ]; then
	export -f run_shell
	export log timeout_s
	setsid nice -n 19 \
		bash -c 'for name; do run_shell "$name" lane; done' lane \
		"${lane[@]}" </dev/null &
	lane_pid=$!
	lane_start=$(start_time "$lane_pid")
fi
for name in "${alone[@]}"; do
	run_shell "$name"
	report_shell "$name"
done
# What the lane's tests leaked is still in its session once the lane
# has ended: said and counted as a failure, then ended.
leaked=
if [ -n "$lane_pid" ]; then
	wait "$lane_pid"
	leaked=$(session_leftovers "$lane_pid" "$lane_start" | tr '\n' ';' |
		 sed 's/;$//')
	[ -z "$leaked" ] || stop_session "$lane_pid"
	lane_pid=
fi
for name in "${lane[@]}"; do
	if [ -f "$log/$name.rc" ]; then
		report_shell "$name"
	else
		echo "FAIL shell/$name: did not run" | tee -a "$results"
		failures+=("shell/$name")
		failed=$((failed + 1))
	fi
done
if [ -n "$leaked" ]; then
	echo "FAIL side-lane: leftover processes: $leaked" | tee -a "$results"
	failures+=("side-lane")
	failed=$((failed + 1))
fi

if [ $((passed + failed + skipped)) -eq 0 ]; then
	echo "FAIL: no test ran${filter:+ (none matches '$filter')}; build them with make tests"
	failed=1
fi

# Required tests (tests/required.txt): a unit binary listed alone stands
# for each of its cases.
touch "$results"
for t in "${!req_area[@]}"; do
	[[ -z "$filter" || "${t#*/}" == *"$filter"* ]] || continue
	case $t in
	unit/*:*) pat="^[A-Z-]* ${t%%:*}: ${t#*:}\(:\|$\)" ;;
	*) pat="^[A-Z-]* $t\(:\|$\)" ;;
	esac
	grep -q "$pat" "$results" || {
		echo "NOT RUN $t (required for ${req_area[$t]})" >>"$log/missing"
		continue
	}
	grep "$pat" "$results" | grep '^SKIP ' |
		sed "s/^SKIP /SKIP (required for ${req_area[$t]}) /" \
			>>"$log/required-skips"
done
if $ci; then
	for f in "$log/missing" "$log/required-skips"; do
		[ -s "$f" ] || continue
		sed 's/^/FAIL (CI=true) /' "$f"
		n=$(wc -l <"$f")
		failed=$((failed + n))
		failures+=("(required tests that did not run, CI=true)")
	done
elif [ -s "$log/missing" ] && [ -z "$filter" ]; then
	cat "$log/missing"
fi

# Where the time went: make check must stay well under 10 minutes.
if [ -s "$log/durations" ]; then
	echo
	echo "slowest tests (seconds; $SECONDS in all):"
	sort -rn "$log/durations" | head -n 8 | sed 's/^/  /'
fi

# Skips by area, required or not, so that none goes unseen.
if grep -q '^\(SKIP\|PART-SKIP\) ' "$results"; then
	echo
	echo "skips by area:"
	grep '^\(SKIP\|PART-SKIP\) ' "$results" | while read -r st n rest; do
		n=${n%:}
		echo "$(area_of "$n") $st $n${rest:+: $rest}"
	done | sort -s -k1,1 | awk '
		$1 != a { a = $1; printf "  %s:\n", a }
		{ $1 = ""; sub(/^ /, ""); print "    " $0 }'
	parts=$(grep -c '^PART-SKIP ' "$results")
	[ "$parts" -gt 0 ] &&
		echo "  ($parts passing tests skipped part of their work)"
fi
if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
