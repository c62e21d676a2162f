#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every input kept in the fuzz corpora (seeds and any crash the fuzzers
# ever found, added as a regression) goes through the sanitized tool in
# every output mode: it may succeed or fail with one line, never crash,
# trip a sanitizer or hang.
. tests/shell/lib.sh

n=0
for f in tests/fuzz/corpus/*/*; do
	[ -f "$f" ] || continue
	for mode in --folded --json ""; do
		# shellcheck disable=SC2086
		timeout 60 "$RS_BIN" report -i "$f" $mode >/dev/null \
			2>"$TMP/err"
		rc=$?
		case $rc in
		0) ;;
		1)
			[ "$(grep -vc 'rstat-analyze: note:' "$TMP/err")" -eq 1 ] ||
				fail "$f $mode: exit 1 without exactly one error line: $(head -c 500 "$TMP/err")"
			;;
		*)
			fail "$f $mode: exit $rc: $(head -c 2000 "$TMP/err")"
			;;
		esac
		n=$((n + 1))
	done
done
[ "$n" -gt 0 ] || fail "no corpus files found"
echo "ok: $n runs"
exit 0
