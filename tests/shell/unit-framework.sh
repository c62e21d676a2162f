#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The unit test framework (tests/unit/unit.h) and run.sh count only real
# tests: a case that asserts nothing fails, a UNIT_CLEANUP case prints
# CLEANUP and is counted neither as a pass nor a skip, a case that checks
# passes, a crash after a CLEANUP case is not pinned on it.
. tests/shell/lib.sh
command -v gcc >/dev/null || skip "gcc is not installed"

cat >"$TMP/t.c" <<'C'
#include "unit.h"
static void test_checks(void) { CHECK(1 + 1 == 2); }
static void test_by_hand(void) { UNIT_CHECKED(); }
static void test_nothing(void) { }
static void test_tidy(void) { }
UNIT_MAIN(UNIT(test_checks), UNIT(test_by_hand), UNIT(test_nothing),
	  UNIT_CLEANUP(test_tidy))
C
gcc -Wall -Werror -Itests/unit -o "$TMP/t" "$TMP/t.c" || fail "cannot build"
"$TMP/t" >"$TMP/out" && fail "a case asserting nothing did not fail the run"
grep -qx 'PASS test_checks' "$TMP/out" || fail "test_checks: $(cat "$TMP/out")"
grep -qx 'PASS test_by_hand' "$TMP/out" || fail "test_by_hand: $(cat "$TMP/out")"
grep -q '^FAIL test_nothing: asserted nothing' "$TMP/out" ||
	fail "test_nothing did not fail: $(cat "$TMP/out")"
grep -qx 'CLEANUP test_tidy' "$TMP/out" || fail "test_tidy: $(cat "$TMP/out")"
[ "$(grep -c '^\(PASS\|SKIP\) ' "$TMP/out")" = 2 ] ||
	fail "counted: $(cat "$TMP/out")"
echo "ok: 2 passes, 1 fail for asserting nothing, 1 cleanup not counted"
