#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command answers --help (and `rstat-analyze help COMMAND`) on stdout
# with exit 0, and every long option its --help names is also in its man
# page (and the other way round).
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
	# `help COMMAND` is that command's help, not the top-level one.
	"$RS_BIN" help "$c" >"$TMP/help2" 2>&1 || fail "help $c failed"
	cmp -s "$TMP/help" "$TMP/help2" || fail "help $c differs from $c --help"
done
# Mistakes at the top level: an option is called an option.
expect_error 2 "^rstat-analyze: unknown option '--bogus'; see rstat-analyze --help" \
	"$RS_BIN" --bogus
expect_error 2 "^rstat-analyze: 'bogus' is not a command" "$RS_BIN" bogus
expect_error 2 "^rstat-analyze: help: 'bogus' is not a command" \
	"$RS_BIN" help bogus
"$RS_BIN" help >"$TMP/h" && cmp -s "$TMP/h" "$TMP/top" ||
	fail "help alone is not --help"
# The bash completion offers the commands after help.
got=$(bash --norc --noprofile -c '. completion/rstat-analyze
	COMP_WORDS=(rstat-analyze help re); COMP_CWORD=2
	_rstat_analyze; printf "%s " "${COMPREPLY[@]}"')
[ "$got" = "record report " ] || fail "completion of help re: '$got'"
"$RS_BIN" --version | grep -Eq '^rstat-analyze [0-9a-g]' || fail "--version"
exit 0
