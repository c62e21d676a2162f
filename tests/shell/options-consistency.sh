#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For every command in `rstat-analyze --help`, the long options in three
# places are the same set: the option list of `COMMAND --help`, the tagged
# paragraphs (.TP) of docs/rstat-analyze-COMMAND.1, and what the bash
# completion (completion/rstat-analyze) offers for `rstat-analyze COMMAND --`.
# Every command's options are a table (--list-options, bench and compare
# the last converted), and more is held against it: see check_table.
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

# Whether the completion takes the word after OPTION of COMMAND as its
# value (0) or not (1).
completes_value() {
	bash --norc --noprofile -c '
		. "$1"; cur=""; scenario=""
		_rstat_analyze_arg "$2" "$3" >/dev/null 2>&1' _ "$comp" "$1" "$2"
}

# A command whose options are a table (include/parse-options.h) dumps it
# with the hidden --list-options: "SHORT LONG TYPE ARG EXCL CHOICES" a
# row. The table is then the reference: the man page's OPTIONS section
# has a tag for each row with its short and long names together and the
# same argument (or its choices, a|b|c), the completion takes a value
# after each option that has one (and only those), and offers exactly
# the choices of a row that lists them.
tables=0
check_table() {
	local c=$1 man=$2 ok=0 short long type arg excl choices
	"$RS_BIN" "$c" --list-options >"$TMP/t.rows" 2>/dev/null || {
		echo "FAIL: $c: no option table (--list-options)"
		return 1
	}
	tables=$((tables + 1))
	awk -F '\t' '{ print $2 }' "$TMP/t.rows" | sort -u >"$TMP/t.opts"
	if ! cmp -s "$TMP/t.opts" "$TMP/h.opts"; then
		diff -u --label "$c table" --label "$c --help" \
			"$TMP/t.opts" "$TMP/h.opts"
		echo "FAIL: $c: long options of the table and --help differ"
		ok=1
	fi
	# "SHORT LONG" of each tag in OPTIONS ("-" where no short).
	sed -n '/^\.SH "\{0,1\}OPTIONS/,/^\.SH/p' "$man" |
		awk '/^\.TP/ { getline; print }' | sed 's/\\-/-/g' |
		sed -nE 's/^\.B[IR]? +(-([a-zA-Z]) +", " +)?--([a-z][a-z-]*).*/\2 --\3/p' |
		sed 's/^ /- /' | sort -u >"$TMP/m.pairs"
	awk -F '\t' '{ s = $1 == "-" ? "-" : substr($1, 2); print s " " $2 }' \
		"$TMP/t.rows" | sort -u >"$TMP/t.pairs"
	if ! cmp -s "$TMP/t.pairs" "$TMP/m.pairs"; then
		diff -u --label "$c table" --label "$man OPTIONS" \
			"$TMP/t.pairs" "$TMP/m.pairs"
		echo "FAIL: $c: short and long names of the table and $man differ"
		ok=1
	fi
	# "--LONG ARG" of each tag: the table's ARG, or its choices a|b|c.
	sed -n '/^\.SH "\{0,1\}OPTIONS/,/^\.SH/p' "$man" |
		awk '/^\.TP/ { getline; print }' |
		sed 's/\\-/-/g; s/\\f[IRB]//g; s/"//g' |
		sed -nE 's/^\.B[IR]? +(-[a-zA-Z] +, +)?(--[a-z][a-z-]*) +(.+)$/\2 \3/p' |
		sed 's/ *$//; s/ *| */|/g' | sort -u >"$TMP/m.args"
	awk -F '\t' '$4 != "-" { print $2 " " $4; if ($6 != "-") {
		gsub(",", "|", $6); print $2 " " $6 } }' "$TMP/t.rows" |
		sort -u >"$TMP/t.args"
	if comm -23 "$TMP/m.args" "$TMP/t.args" | grep .; then
		echo "FAIL: $c: these arguments in $man are none of the table's"
		ok=1
	fi
	awk '{ print $1 }' "$TMP/m.args" | sort >"$TMP/m.argopts"
	awk -F '\t' '$4 != "-" { print $2 }' "$TMP/t.rows" | sort >"$TMP/t.argopts"
	if ! cmp -s "$TMP/t.argopts" "$TMP/m.argopts"; then
		diff -u --label "$c table: options with a value" \
			--label "$man" "$TMP/t.argopts" "$TMP/m.argopts"
		echo "FAIL: $c: the options taking a value in the table and $man differ"
		ok=1
	fi
	while IFS=$'\t' read -r short long type arg excl choices; do
		[ "$type" = help ] && continue
		for o in $long $([ "$short" = - ] || echo "$short"); do
			if [ "$arg" = - ] && completes_value "$c" "$o"; then
				echo "FAIL: $c $o takes no value; $comp completes one"
				ok=1
			elif [ "$arg" != - ] && ! completes_value "$c" "$o"; then
				echo "FAIL: $c $o takes $arg; $comp does not complete it"
				ok=1
			fi
		done
		[ "$choices" != - ] || continue
		complete_words rstat-analyze "$c" "$long" "" | sort >"$TMP/c.ch"
		tr , '\n' <<<"$choices" | sort >"$TMP/t.ch"
		if ! cmp -s "$TMP/t.ch" "$TMP/c.ch"; then
			diff -u --label "$c $long (table)" --label "$comp" \
				"$TMP/t.ch" "$TMP/c.ch"
			echo "FAIL: $c $long: the choices of the table and $comp differ"
			ok=1
		fi
	done <"$TMP/t.rows"
	[ $ok -eq 0 ] && echo "ok $c: the option table, $man and $comp agree"
	return $ok
}

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
	check_table "$c" "$man" || bad=1
done
[ "$bad" -eq 0 ] || fail "options differ"
[ "$tables" -gt 0 ] || fail "no command dumps its option table"
exit 0
