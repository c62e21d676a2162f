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
# complete WORD...: what the completion offers after the words (the last
# one being completed), one line.
complete_words() {
	bash --norc --noprofile -c '. completion/rstat-analyze
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_rstat_analyze; printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
complete_words rstat-analyze he | grep -qx help ||
	fail "the first word does not complete to help: $(complete_words rstat-analyze he)"
complete_words rstat-analyze record -e cpu-c | grep -qx cpu-clock ||
	fail "record -e does not offer cpu-clock"
# Tracepoints, as this kernel lists them; bash splits GROUP:EVENT at ':'.
events=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r "$d/available_events" ] && { events=$d/available_events; break; }
done
if [ -n "$events" ] && grep -q '^sched:sched_switch$' "$events"; then
	complete_words rstat-analyze record -e sched : sched_swi |
		grep -qx sched_switch ||
		fail "record -e sched:sched_swi does not complete"
	complete_words rstat-analyze record -e sch | grep -qx sched:sched_switch ||
		fail "record -e sch does not offer sched:sched_switch"
else
	skip_part "no readable tracefs available_events: tracepoint completion not tried"
fi
"$RS_BIN" --version | grep -Eq '^rstat-analyze [0-9a-g]' || fail "--version"
exit 0
