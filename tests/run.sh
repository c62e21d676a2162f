#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every test and print one closing line: N passed, N failed, N skipped.
#
# Unit tests (build/san/tests/test-*, built with ASan+UBSan) print one
# PASS/FAIL/SKIP line per case. Shell tests (tests/shell/*.sh) are one case
# each: exit 0 passes, 2 skips (the test prints why), anything else fails.
# Shell tests run the sanitized build of the tool, $RS_BIN.
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

passed=0 failed=0 skipped=0
failures=()
log=$(mktemp -d /tmp/rstat-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT

for t in build/san/tests/test-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	[[ -z "$filter" || "$name" == *"$filter"* ]] || continue
	out="$log/$name.out"
	timeout "$timeout_s" "$t" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^SKIP ' "$out")
	sed -n 's/^\(PASS\|FAIL\|SKIP\) /\1 unit\/'"$name"': /p' "$out"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# Crashed, sanitizer report, or timed out between cases.
		echo "FAIL unit/$name: exit status $rc"
		f=1
	fi
	if [ "$f" -gt 0 ]; then
		failures+=("unit/$name")
		sed 's/^/    | /' "$out" | grep -v '^    | PASS ' | tail -n 40
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

for t in tests/shell/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	[[ -z "$filter" || "$name" == *"$filter"* ]] || continue
	out="$log/$name.out"
	timeout "$timeout_s" bash "$t" >"$out" 2>&1
	rc=$?
	case $rc in
	0)
		echo "PASS shell/$name"
		passed=$((passed + 1))
		;;
	2)
		# Only a test that said why (skip() in lib.sh) skips.
		if tail -n 1 "$out" | grep -q '^SKIP: '; then
			echo "SKIP shell/$name: $(tail -n 1 "$out" | cut -c7-)"
			skipped=$((skipped + 1))
		else
			echo "FAIL shell/$name: exit status 2 without a reason"
			sed 's/^/    | /' "$out" | tail -n 40
			failures+=("shell/$name")
			failed=$((failed + 1))
		fi
		;;
	*)
		echo "FAIL shell/$name: exit status $rc"
		sed 's/^/    | /' "$out" | tail -n 40
		failures+=("shell/$name")
		failed=$((failed + 1))
		;;
	esac
done

if [ $((passed + failed + skipped)) -eq 0 ]; then
	echo "FAIL: no test ran${filter:+ (none matches '$filter')}; build them with make tests"
	failed=1
fi
if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
