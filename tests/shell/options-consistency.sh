#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For every command in `rstat-analyze --help`, the long options in three
# places are the same set: the option list of `COMMAND --help`, the tagged
# paragraphs (.TP) of docs/rstat-analyze-COMMAND.1, and what the bash
# completion (completion/rstat-analyze) offers for `rstat-analyze COMMAND --`.
. tests/shell/lib.sh

comp=completion/rstat-analyze
[ -f "$comp" ] || fail "no $comp"
bash -n "$comp" || fail "$comp: syntax error"

"$RS_BIN" --help >"$TMP/top" || fail "rstat-analyze --help failed"
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$TMP/top")
[ -n "$cmds" ] || fail "--help lists no commands"

# What the completion offers for WORDS... (the last one being completed).
complete_words() {
	bash --norc --noprofile -c '
		. "$1"; shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
		_rstat_analyze
		printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}

# The commands themselves (and help, which --help names in its closing
# lines, not as a command of its own with options).
complete_words rstat-analyze "" | grep -v '^-' | sort -u >"$TMP/c.cmds.all"
grep -qx help "$TMP/c.cmds.all" || fail "the completion does not offer help"
grep -vx help "$TMP/c.cmds.all" >"$TMP/c.cmds"
echo "$cmds" | sort -u >"$TMP/h.cmds"
if ! cmp -s "$TMP/h.cmds" "$TMP/c.cmds"; then
	diff -u "$TMP/h.cmds" "$TMP/c.cmds"
	fail "commands in --help (-) and in $comp (+) differ"
fi

bad=0
for c in $cmds; do
	"$RS_BIN" "$c" --help >"$TMP/help" 2>&1 || fail "$c --help failed"
	man=docs/rstat-analyze-$c.1
	[ -f "$man" ] || fail "no man page $man"
	# Option lines only ("  -x, --opt ARG" or "      --opt"), not prose.
	grep -E -- '^ +(-[a-zA-Z], )?--[a-z]' "$TMP/help" |
		sed -E 's/^ +(-[a-zA-Z], )?(--[a-z][a-z-]*).*/\2/' |
		sort -u >"$TMP/h.opts"
	# The tag line of each .TP paragraph.
	awk '/^\.TP/ { getline; print }' "$man" | sed 's/\\-/-/g' |
		grep -oE -- '--[a-z][a-z-]*' | sort -u >"$TMP/m.opts"
	complete_words rstat-analyze "$c" -- | sort -u >"$TMP/c.opts"
	for f in m c; do
		[ $f = m ] && what=$man || what=$comp
		if ! cmp -s "$TMP/h.opts" "$TMP/$f.opts"; then
			diff -u --label "$c --help" --label "$what" \
				"$TMP/h.opts" "$TMP/$f.opts"
			echo "FAIL: $c: long options in --help and $what differ"
			bad=1
		fi
	done
	echo "ok $c: $(wc -l <"$TMP/h.opts") long options"
done
[ "$bad" -eq 0 ] || fail "options differ"
exit 0
