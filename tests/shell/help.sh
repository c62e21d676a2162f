#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command answers --help on stdout with exit 0, and every long option
# its --help names is also in its man page (and the other way round).
. tests/shell/lib.sh

"$RS_BIN" --help >"$TMP/top" || fail "rstat-analyze --help failed"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$TMP/top")
[ -n "$cmds" ] || fail "--help lists no commands"
for c in $cmds; do
	"$RS_BIN" "$c" --help >"$TMP/help" 2>&1 || fail "$c --help failed"
	grep -q "^usage: rstat-analyze $c" "$TMP/help" || fail "$c --help has no usage line"
	man=docs/rstat-analyze-$c.1
	[ -f "$man" ] || fail "no man page $man"
	grep -o -- '--[a-z][a-z-]*' "$TMP/help" | sort -u >"$TMP/h.opts"
	sed 's/\\-/-/g' "$man" | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/m.opts"
	if ! cmp -s "$TMP/h.opts" "$TMP/m.opts"; then
		diff "$TMP/h.opts" "$TMP/m.opts"
		fail "$c: options in --help and $man differ"
	fi
	echo "ok $c: $(wc -l <"$TMP/h.opts") options"
done
"$RS_BIN" --version | grep -Eq '^rstat-analyze [0-9a-g]' || fail "--version"
exit 0
