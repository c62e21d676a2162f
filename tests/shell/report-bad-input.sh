#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input never crashes, hangs or corrupts: each damaged perf.data, text
# garbage and missing or unreadable input gets exit 1 and one line on
# stderr, "rstat-analyze: FILE: offset N: what is wrong" for bad data.
# Usage errors exit 2. The tool under test is the ASan+UBSan build.
. tests/shell/lib.sh

python3 tests/shell/corrupt.py "$RS_FIXTURES/flush-mixed.data" "$TMP/bad" \
	>"$TMP/list" || fail "could not make the corrupted files"
while read -r name offset; do
	f=$TMP/bad/$name
	if [ "$offset" = - ]; then
		pat="^rstat-analyze: $f: offset [0-9]+: "
	else
		pat="^rstat-analyze: $f: offset $offset: "
	fi
	for mode in "" --folded --json; do
		# shellcheck disable=SC2086
		expect_error 1 "$pat" "$RS_BIN" report -i "$f" $mode
		# A fatal error is the error alone: no partial stacks, no
		# notes about them (the JSON error object aside).
		[ "$mode" = --json ] || [ ! -s "$TMP/stdout" ] ||
			fail "report $mode of $name printed before its error: $(head -c 300 "$TMP/stdout")"
		grep -q 'note:' "$TMP/stderr" &&
			fail "report $mode of $name: notes with the error: $(cat "$TMP/stderr")"
	done
	# The same bytes through a pipe.
	expect_error 1 "^rstat-analyze: -: " \
		sh -c "cat '$f' | '$RS_BIN' report -i - --folded"
	echo "ok $name: $(cat "$TMP/stderr")"
done <"$TMP/list"

# A truncated pipe-layout stream.
head -c 9000 "$RS_FIXTURES/pipe-mode.data" >"$TMP/pipe-trunc.data"
expect_error 1 "^rstat-analyze: $TMP/pipe-trunc.data: offset [0-9]+: " \
	"$RS_BIN" report -i "$TMP/pipe-trunc.data" --folded
[ -s "$TMP/stdout" ] && fail "a truncated stream printed partial stacks"
grep -q 'note:' "$TMP/stderr" && fail "notes with the error: $(cat "$TMP/stderr")"
expect_error 1 "^rstat-analyze: -: offset [0-9]+: " \
	sh -c "'$RS_BIN' report -i - --folded <'$TMP/pipe-trunc.data'"

# Missing, a directory, empty, binary junk and text garbage.
expect_error 1 "^rstat-analyze: $TMP/nope.data: .*No such file" \
	"$RS_BIN" report -i "$TMP/nope.data"
expect_error 1 "^rstat-analyze: $TMP: " "$RS_BIN" report -i "$TMP"
: >"$TMP/empty"
expect_error 1 "^rstat-analyze: $TMP/empty: " "$RS_BIN" report -i "$TMP/empty"
head -c 65536 /dev/urandom >"$TMP/junk"
expect_error 1 "^rstat-analyze: $TMP/junk: " \
	"$RS_BIN" report -i "$TMP/junk" --folded
printf 'hello world\nthis is not perf script output\n\n' >"$TMP/garbage.txt"
expect_error 1 "^rstat-analyze: $TMP/garbage.txt: not perf script output" \
	"$RS_BIN" report -i "$TMP/garbage.txt" --folded
# Text that the script's header rule would take for samples: a README
# (every "word 123 ..." line) and JSON. Recognised or refused, never
# folded into junk stacks.
for f in README.md docs/tutorial.md; do
	expect_error 1 "^rstat-analyze: $f: not perf script output" \
		"$RS_BIN" report -i "$f" --folded
	[ -s "$TMP/stdout" ] && fail "report --folded $f printed stacks"
done
expect_error 1 "^rstat-analyze: -: not perf script output" \
	sh -c "'$RS_BIN' report -i - --folded <README.md"
printf '{\n  "schema_version": 1,\n  "runs": []\n}\n' >"$TMP/results.json"
for mode in "" --folded; do
	# shellcheck disable=SC2086
	expect_error 1 "^rstat-analyze: $TMP/results.json: JSON, not perf script output.*compare and plot" \
		"$RS_BIN" report -i "$TMP/results.json" $mode
done
# Default input rstat.data missing in an empty directory.
(cd "$TMP" && expect_error 1 "^rstat-analyze: rstat.data: " "$RS_BIN" report)

# Kernel symbol sources that are not.
expect_error 1 "^rstat-analyze: /etc/passwd: not a vmlinux" \
	"$RS_BIN" report -i "$RS_FIXTURES/pipe-mode.data" --folded \
	--vmlinux /etc/passwd
expect_error 1 "^rstat-analyze: $TMP/none: cannot read kernel symbols: No such file" \
	"$RS_BIN" report -i "$RS_FIXTURES/pipe-mode.data" --folded \
	--kallsyms "$TMP/none"
# A file that exists but is not kallsyms, and a directory: named as
# such, not "No such file" and "Input/output error".
for mode in "" --folded; do
	# shellcheck disable=SC2086
	expect_error 1 "^rstat-analyze: README.md: not a kallsyms file" \
		"$RS_BIN" report -i "$RS_FIXTURES/pipe-mode.data" $mode \
		--kallsyms README.md
	# shellcheck disable=SC2086
	expect_error 1 "^rstat-analyze: $TMP: is a directory" \
		"$RS_BIN" report -i "$RS_FIXTURES/pipe-mode.data" $mode \
		--kallsyms "$TMP"
done

# Output that cannot be written is an error; a reader that goes away is
# not (head closes the pipe early).
expect_error 1 "error writing output: No space left" \
	sh -c "'$RS_BIN' report -i '$RS_FIXTURES/pipe-mode.data' >/dev/full"
"$RS_BIN" report -i "$RS_FIXTURES/flush-mixed.data" --folded --all --addrs \
	--kallsyms "$(fixture_kallsyms)" 2>"$TMP/err" |
	head -n 1 >/dev/null
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "report failed when its reader closed the pipe: $(cat "$TMP/err")"

# A rules file that cannot be read or parsed: the message names the
# option, since the file's name alone does not say what it was for.
expect_error 1 "^rstat-analyze: report: --rules $TMP/nope.rules: .*No such file" \
	"$RS_BIN" report --rules "$TMP/nope.rules" -i "$RS_FIXTURES/flush-mixed.data"
printf 'not a rule line\n' >"$TMP/bad.rules"
expect_error 1 "^rstat-analyze: report: --rules $TMP/bad.rules:1: " \
	"$RS_BIN" report --rules "$TMP/bad.rules" -i "$RS_FIXTURES/flush-mixed.data"

# Usage errors.
expect_error 2 "unknown option" "$RS_BIN" report --no-such-option
expect_error 2 "--pid and --tid do not go together" \
	"$RS_BIN" report --folded --pid --tid
expect_error 2 "needs a value" "$RS_BIN" report -i
expect_error 2 "go with --folded" "$RS_BIN" report --pid
expect_error 2 "do not go together" "$RS_BIN" report --folded --json
expect_error 2 "not a command" "$RS_BIN" no-such-command
exit 0
