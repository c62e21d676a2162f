#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench's usage errors (exit 2) and failures (exit 1, one line naming what
# is needed): not root, a missing controller, a bad --root.
. tests/shell/lib.sh

expect_error 2 "not a scenario" "$RS_BIN" bench nosuch
expect_error 2 "give memory, cpu or both" "$RS_BIN" bench stat-read --updater x
expect_error 2 "give a number" "$RS_BIN" bench stat-read --children 0
expect_error 2 "give a size" "$RS_BIN" bench stat-read --memory-max 12Q
expect_error 2 "scenario comes first" "$RS_BIN" bench -r 2 pipe
expect_error 2 "unknown option" "$RS_BIN" bench pipe --bogus

[ "$(id -u)" -eq 0 ] || skip "the rest needs root"
if command -v setpriv >/dev/null; then
	expect_error 1 "not root" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$RS_BIN" bench pipe --round-trips 10
fi
expect_error 1 "bench: " "$RS_BIN" bench pipe --round-trips 10 \
	--root /nonexistent-rstat-root
echo "errors are one line, with what is needed"
