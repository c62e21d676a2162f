#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# diff-folded against FlameGraph's difffolded.pl semantics (the script is
# not packaged, so the expected outputs are written by hand from its
# rules), and against report --folded on the flush-mixed recording.
. tests/shell/lib.sh

printf 'a;b 3\na;c 2\nz 1\nx;0x1f 4\n' >"$TMP/A"
# A tab separates too (Perl's \s); 0xAB has upper-case hex digits.
printf 'a;b\t5\nd 7\nx;0xAB 1\n' >"$TMP/B"

# Every stack of either file; 0 where one side lacks it (difffolded sets
# undefined sides to 0); sorted bytewise ('1' < 'A', so x;0x1f first)
# where difffolded prints Perl's random hash order.
cat >"$TMP/want" <<'W'
a;b 3 5
a;c 2 0
d 0 7
x;0x1f 4 0
x;0xAB 0 1
z 1 0
W
"$RS_BIN" diff-folded "$TMP/A" "$TMP/B" >"$TMP/got" || fail "diff-folded"
diff -u "$TMP/want" "$TMP/got" || fail "plain diff differs"

# -s: s/0x[0-9a-fA-F]+/0x.../g on both sides, then equal stacks merge:
# x;0x1f (4, A) and x;0xAB (1, B) become x;0x... 4 1.
cat >"$TMP/want" <<'W'
a;b 3 5
a;c 2 0
d 0 7
x;0x... 4 1
z 1 0
W
"$RS_BIN" diff-folded --strip-hex "$TMP/A" "$TMP/B" >"$TMP/got" ||
	fail "diff-folded --strip-hex"
diff -u "$TMP/want" "$TMP/got" || fail "--strip-hex differs"

# -n: totals 10 and 13 differ, so A's counts become int(c * 13 / 10):
# 3 -> 3 (3.9), 2 -> 2 (2.6), 4 -> 5 (5.2), 1 -> 1 (1.3); B stays.
cat >"$TMP/want" <<'W'
a;b 3 5
a;c 2 0
d 0 7
x;0x1f 5 0
x;0xAB 0 1
z 1 0
W
"$RS_BIN" diff-folded "$TMP/A" "$TMP/B" --normalize >"$TMP/got" ||
	fail "diff-folded --normalize"
diff -u "$TMP/want" "$TMP/got" || fail "--normalize differs"
# Equal totals: nothing scales (difffolded checks total1 != total2).
"$RS_BIN" diff-folded -n "$TMP/A" "$TMP/A" | awk '$2 != $3 { exit 1 }' ||
	fail "--normalize with equal totals changed counts"
# With totals 13 and 26, A's counts double exactly and the totals match.
cat "$TMP/B" "$TMP/B" >"$TMP/BB"
"$RS_BIN" diff-folded -n "$TMP/B" "$TMP/BB" >"$TMP/got" || fail "-n BB"
awk '{ a += $(NF-1); b += $NF } END { if (a != b || a != 26) exit 1 }' \
	"$TMP/got" || fail "--normalize totals differ: $(cat "$TMP/got")"

# The count is the last blank-separated field; blanks before it stay in
# the stack (greedy .* then \s+?): "a;b  2" is stack "a;b " (one space).
printf 'a;b  2\n' >"$TMP/C"
printf 'a;b  2 0\n' >"$TMP/want"
"$RS_BIN" diff-folded "$TMP/C" /dev/null >"$TMP/got" || fail "C"
cmp -s "$TMP/want" "$TMP/got" || fail "double blank: '$(cat "$TMP/got")'"
# Fractions are counts too (\d+(?:\.\d*)?).
printf 'f 1.5\nf 1\n' >"$TMP/F"
[ "$("$RS_BIN" diff-folded "$TMP/F" /dev/null)" = "f 2.5 0" ] ||
	fail "fractional counts"

# A recording folds as report --folded does: the same counts both sides.
ksyms=$(fixture_kallsyms)
data=$RS_FIXTURES/flush-mixed.data
"$RS_BIN" report -i "$data" --kallsyms "$ksyms" --folded >"$TMP/folded" \
	2>/dev/null || fail "report --folded"
"$RS_BIN" diff-folded --kallsyms "$ksyms" "$data" "$TMP/folded" \
	>"$TMP/got" 2>"$TMP/err" || fail "diff-folded on a recording: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/got")" -eq "$(wc -l <"$TMP/folded")" ] ||
	fail "recording: $(wc -l <"$TMP/got") stacks, report folds $(wc -l <"$TMP/folded")"
awk '$(NF-1) != $NF { print; bad = 1 } END { exit bad }' "$TMP/got" ||
	fail "recording vs its own fold: counts differ"

# Errors: one line naming the file (and line), exit 1; usage exit 2.
expect_error 1 "$TMP/nope" "$RS_BIN" diff-folded "$TMP/nope" "$TMP/A"
printf 'a;b 1\nno count here\n' >"$TMP/bad"
expect_error 1 "$TMP/bad:2:" "$RS_BIN" diff-folded "$TMP/A" "$TMP/bad"
expect_error 1 "$TMP: " "$RS_BIN" diff-folded "$TMP" "$TMP/A"
expect_error 2 "two profiles" "$RS_BIN" diff-folded "$TMP/A"
expect_error 2 "unexpected argument" "$RS_BIN" diff-folded a b c
expect_error 2 "unknown option" "$RS_BIN" diff-folded --bogus a b
exit 0
