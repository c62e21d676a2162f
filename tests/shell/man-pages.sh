#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command has a man page, and every page has what a kernel tool's
# page has: the sections from NAME to SEE ALSO, exit status, files and
# examples, SEE ALSO perf-record(1) and perf-probe(1), cross references
# that lead to pages that exist, and troff that renders without warnings
# (groff's, and man --warnings' at 60, 80 and 100 columns).
# (options-consistency.sh checks the options themselves.)
. tests/shell/lib.sh

"$RS_BIN" --help >"$TMP/top" || fail "rstat-analyze --help failed"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$TMP/top")
[ -n "$cmds" ] || fail "--help lists no commands"

pages=docs/rstat-analyze.1
for c in $cmds; do
	pages="$pages docs/rstat-analyze-$c.1"
done
# No page for a command that no longer exists either.
for p in docs/rstat-analyze*.1; do
	case " $pages " in
	*" $p "*) ;;
	*) fail "$p documents a command --help does not list" ;;
	esac
done

sections="NAME SYNOPSIS DESCRIPTION OPTIONS EXIT_STATUS FILES EXAMPLES SEE_ALSO"
bad=0
for p in $pages; do
	[ -f "$p" ] || fail "no man page $p"
	name=$(basename "$p" .1)
	grep -q '^\.\\" SPDX-License-Identifier: ' "$p" ||
		{ echo "FAIL: $p: no SPDX line"; bad=1; }
	# .TH NAME 1 ...: the title is the page's own name.
	th=$(awk '/^\.TH/ { print $2; exit }' "$p")
	[ "$th" = "$(echo "$name" | tr a-z A-Z)" ] ||
		{ echo "FAIL: $p: .TH says '$th'"; bad=1; }
	# The sections, in this order, each once.
	got=$(sed -n 's/^\.SH "\{0,1\}\([A-Z ]*\)"\{0,1\}$/\1/p' "$p" |
		tr ' ' _ | grep -xF -f <(tr ' ' '\n' <<<"$sections") |
		tr '\n' ' ')
	if [ "${got% }" != "$sections" ]; then
		echo "FAIL: $p: sections '${got% }', want '$sections'"
		bad=1
	fi
	# Each section has a body.
	awk -v p="$p" '/^\.SH/ { if (sh && !body) { print "FAIL: " p ": empty " sh; e = 1 }
			sh = $0; body = 0; next }
		/^[^.]/ || /^\.(TP|B|BR|I|IR|IP|nf)/ { body = 1 }
		END { if (sh && !body) { print "FAIL: " p ": empty " sh; e = 1 }
			exit e }' "$p" || bad=1
	see=$(sed -n '/^\.SH "\{0,1\}SEE ALSO/,$p' "$p")
	for ref in perf-record perf-probe; do
		grep -q "^\.BR ${ref/-/\\\\-} (1)" <<<"$see" ||
			{ echo "FAIL: $p: SEE ALSO lacks $ref(1)"; bad=1; }
	done
	# Every rstat-analyze page it points to exists.
	for ref in $(grep -o '^\.BR rstat-analyze[a-z\\-]* (1)' "$p" |
		     awk '{ print $2 }' | sed 's/\\-/-/g' | sort -u); do
		[ -f "docs/$ref.1" ] ||
			{ echo "FAIL: $p: refers to $ref(1), which does not exist"; bad=1; }
	done
	# The exit status section says what 0 and 1 mean.
	sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$p" | grep -q '1' ||
		{ echo "FAIL: $p: EXIT STATUS does not give 1"; bad=1; }
	if command -v groff >/dev/null; then
		groff -man -ww -z "$p" >"$TMP/groff" 2>&1
		if [ -s "$TMP/groff" ]; then
			echo "FAIL: $p: groff warnings:"
			head -5 "$TMP/groff"
			bad=1
		fi
	fi
	# As man(1) renders it for terminals of these widths: groff -z
	# does not fill lines, so "cannot adjust line" shows only here.
	if command -v man >/dev/null; then
		for w in 60 80 100; do
			MANWIDTH=$w man --warnings -l "$p" 2>&1 >/dev/null |
				head -3 >"$TMP/man"
			if [ -s "$TMP/man" ]; then
				echo "FAIL: $p: man --warnings at $w columns:"
				cat "$TMP/man"
				bad=1
			fi
		done
	fi
	[ "$bad" -eq 0 ] && echo "ok $p"
done
[ "$bad" -eq 0 ] || fail "man pages incomplete"
# The main page's bench entry names every scenario bench --help offers.
scenarios=$("$RS_BIN" bench --help | sed -n '1s/.*bench \[\([^]]*\)\].*/\1/p' |
	tr '|' ' ')
[ -n "$scenarios" ] || fail "no scenario list in bench --help's first line"
for s in $scenarios; do
	sed -n '/^\.B bench$/,/^\.TP/p' docs/rstat-analyze.1 | sed 's/\\-/-/g' |
		grep -qw -- "$s" ||
		fail "rstat-analyze(1)'s bench entry does not name scenario $s"
done
command -v groff >/dev/null ||
	skip_part "groff is not installed; rendering not checked"
exit 0
