#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Input files travel by mail: none may run a command when plotted,
# compared or diffed, as root. tests/shell/plot-hostile.py writes bench
# results and report --json output with a payload of every gnuplot and
# shell metacharacter (backquotes, $( ), quotes closing a string then
# system(), a line break then `!cmd` or the datablock's EOD, @macros,
# backslashes, ';', '#', CR, tab, escapes, invalid UTF-8, \u0000) in
# each string field their schemas have, folded stacks with it in a frame,
# a breakdown with it in each of its strings, and files under hostile
# names (a multi-kernel folder's release too); --title and -o carry it
# too. Every plot (hist, cdf, bars; breakdown of the breakdowns; timeline
# of a recording under a hostile name), compare and diff-folded of them
# must:
#  - run nothing: each command of the payload touches CANARY in the
#    directory the tool runs in, which nobody (gnuplot's user) may write,
#    and that directory stays empty;
#  - draw a PNG (its magic checked) whose script gp-dataonly.py reads as
#    data-only, the label drawn as the input gave it (control characters
#    as U+FFFD), and which a rerun by hand (`gnuplot OUT.gp`, as root)
#    draws again, running nothing either; or refuse with exactly one
#    line on stderr and exit 1.
. tests/shell/lib.sh

command -v gnuplot >/dev/null 2>&1 ||
	skip "gnuplot is not installed (Debian package gnuplot-nox)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
[ "$(id -u)" -eq 0 ] ||
	skip_part "not root: gnuplot ran as $(id -un), not as nobody"

RS_FIXTURES=$(cd "$RS_FIXTURES" && pwd)
here=$PWD
check=$here/tests/shell/gp-dataonly.py
# The tool and gnuplot run in can/, which nobody may write (an injected
# command would succeed as gnuplot's user) and which must stay empty.
chmod 755 "$TMP"
mkdir -m 1777 "$TMP/can"
mkdir "$TMP/in" "$TMP/out"
CAN=$TMP/can

# The checker itself rejects what the old writer wrote and each escape.
printf '%s\n' 'set title "a`touch CANARY`"' >"$TMP/bad1.gp"
printf '%s\n' '$rs_data << EOD' '1 2' 'EODX' 'print system("id")' 'EOD' \
	>"$TMP/bad2.gp"
printf '%s\n' "set title 'a' . system('id') . 'b'" >"$TMP/bad3.gp"
printf '%s\n' "set title 'it's'" >"$TMP/bad4.gp"
printf '%s\n' "set xlabel 'x' \\" "!id" >"$TMP/bad5.gp"
for b in 1 2 3 4 5; do
	python3 "$check" "$TMP/bad$b.gp" >/dev/null &&
		fail "gp-dataonly.py passed bad$b.gp: $(cat "$TMP/bad$b.gp")"
done
echo "ok gp-dataonly.py rejects program text from data"

"$RS_BIN" report -i "$RS_FIXTURES/flush-mixed.data" \
	--kallsyms "$(fixture_kallsyms)" --json >"$TMP/report.json" \
	2>"$TMP/err" || fail "report --json: $(cat "$TMP/err")"
"$RS_BIN" report -i "$RS_FIXTURES/flush-mixed.data" \
	--kallsyms "$(fixture_kallsyms)" --folded >"$TMP/base.folded" \
	2>"$TMP/err" || fail "report --folded: $(cat "$TMP/err")"
python3 tests/shell/plot-hostile.py "$TMP/in" \
	"$RS_FIXTURES/compare/base.json" "$TMP/report.json" \
	"$TMP/base.folded" "$RS_FIXTURES/plot/breakdown.json" \
	>"$TMP/manifest" || fail "plot-hostile.py"

runs=0 drawn=0 refused=0 unjson=()
# run WHAT EXPECT IMAGE CMD...: CMD (in can/) draws IMAGE (a PNG; - for
# none) or refuses in one line; nothing runs.
run() {
	local what=$1 expect=$2 image=$3 rc lines
	shift 3
	rm -rf "$TMP/out" && mkdir "$TMP/out"
	(cd "$CAN" && timeout 60 "$@") >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	runs=$((runs + 1))
	[ -z "$(ls -A "$CAN")" ] &&
		[ ! -e "$here/CANARY" ] && [ ! -e "$TMP/CANARY" ] ||
		fail "$what: a command ran: $(ls -A "$CAN")"
	if [ "$rc" -eq 1 ]; then
		lines=$(grep -vc '^rstat-analyze: note:' "$TMP/stderr")
		[ "$lines" -eq 1 ] && grep -q '^rstat-analyze: ' "$TMP/stderr" ||
			fail "$what: refused in $lines lines: $(head -c 3000 "$TMP/stderr")"
		refused=$((refused + 1))
		return 0
	fi
	[ "$rc" -eq 0 ] ||
		fail "$what: exit $rc: $(head -c 3000 "$TMP/stderr")"
	[ "$image" = - ] && return 0
	drawn=$((drawn + 1))
	is_png "$image" || fail "$what: no PNG at $image"
	python3 "$check" "$image.gp" ${expect:+--expect "$expect"} ||
		fail "$what: the script is not data-only"
	# A rerun by hand of the kept script, as root, runs nothing either
	# (for the drawn texts: the rest never reach the script).
	[ -n "$expect" ] || return 0
	rm "$image"
	(cd "$CAN" && gnuplot "$image.gp") 2>"$TMP/rerun.err" ||
		fail "$what: rerun: $(cat "$TMP/rerun.err")"
	[ -z "$(ls -A "$CAN")" ] ||
		fail "$what: the rerun ran a command: $(ls -A "$CAN")"
	is_png "$image" || fail "$what: the rerun drew no PNG"
}

is_png() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

while IFS= read -r -d '' kind && IFS= read -r -d '' field &&
	IFS= read -r -d '' expect && IFS= read -r -d '' path; do
	[ "$expect" = - ] && expect= || expect=$TMP/in/$expect
	case $field in nul|invalid-utf8) unjson+=("$path") ;; esac
	case $kind in
	bench|report)
		for k in hist cdf bars; do
			# A report's categories are drawn by bars only, its spans
			# by the others.
			e=$expect
			[ "$kind:$k" = report:bars ] &&
				[ "$field" != attribution/\*/category ] &&
				[ "$field" != file-name ] && e=
			[ "$kind:$k" != report:bars ] &&
				[ "$field" = attribution/\*/category ] && e=
			run "plot --kind $k, $kind $field" "$e" "$TMP/out/x.png" \
				"$RS_BIN" plot "$path" -o "$TMP/out/x.png" --kind "$k"
		done
		other=$RS_FIXTURES/compare/base.json
		[ "$kind" = report ] && other=$TMP/report.json
		run "compare, $kind $field" "" - "$RS_BIN" compare "$other" \
			-- "$path"
		run "compare --format json, $kind $field" "" - "$RS_BIN" \
			compare "$other" -- "$path" --format json
		;;
	breakdown)
		run "plot --kind breakdown, $field" "$expect" "$TMP/out/x.png" \
			"$RS_BIN" plot "$path" -o "$TMP/out/x.png" --kind breakdown
		run "plot --kind breakdown --normalize, $field" "$expect" \
			"$TMP/out/x.png" "$RS_BIN" plot "$path" \
			-o "$TMP/out/x.png" --kind breakdown --normalize
		;;
	folded)
		run "diff-folded, $field" "" - "$RS_BIN" diff-folded \
			"$TMP/base.folded" "$path"
		grep -q 'touch CANARY' "$TMP/stdout" ||
			fail "diff-folded, $field: the hostile frame is not in its output"
		;;
	esac
done <"$TMP/manifest"
echo "ok $runs runs on hostile fields and names: $drawn drawn, $refused refused, nothing ran"

# The JSON that cannot be a string (NUL, invalid UTF-8) is refused by line.
[ "${#unjson[@]}" -eq 2 ] || fail "plot-hostile.py wrote no NUL or bad UTF-8"
for p in "${unjson[@]}"; do
	expect_error 1 "line 1: invalid (escape|UTF-8)" "$RS_BIN" plot "$p" \
		-o "$TMP/out/x.png"
done
echo "ok \\u0000 and invalid UTF-8 in a string: refused with the line"

# The title, the image's own name, and a recording under a hostile name.
name=$(cat "$TMP/in/name.raw"; echo .)
name=${name%.}
payload=$(cat "$TMP/in/payload.txt"; echo .)
payload=${payload%.}
cp "$RS_FIXTURES/flush-mixed.data" "$TMP/in/$name.data"
run "plot --kind timeline of $TMP/in/NAME.data" "$TMP/in/name.txt" \
	"$TMP/out/x.png" "$RS_BIN" plot "$TMP/in/$name.data" \
	-o "$TMP/out/x.png" --kind timeline
run "plot --title PAYLOAD" "$TMP/in/payload.txt" "$TMP/out/x.png" "$RS_BIN" plot \
	"$RS_FIXTURES/plot/before.json" -o "$TMP/out/x.png" --title "$payload"
run "plot -o NAME.png" "$TMP/in/name.raw" "$TMP/out/$name.png" \
	"$RS_BIN" plot "$RS_FIXTURES/plot/before.json" -o "$TMP/out/$name.png"
[ "$drawn" -gt 0 ] || fail "nothing was drawn"
echo "ok --title, -o and a recording's name with the payload: drawn, nothing ran"
exit 0
