#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Names from input files reach a terminal shown, not obeyed: a process
# name and a symbol with escape sequences (a window title, a screen
# clear), folded and diffed with stdout on a pseudo-terminal, come out as
# \ooo; to a pipe the same commands give the bytes as they were (what
# flamegraph.pl and difffolded.pl read). Errors quoting such a name show
# it the same way on stderr.
. tests/shell/lib.sh

type -P python3 >/dev/null || skip "python3 is not installed"

esc=$'\033' bel=$'\007'
{
	printf 'evil%s]0;PWNED%sx  1234 [000]     1.000000:' "$esc" "$bel"
	printf '     250000 cpu-clock:ppp: \n'
	printf '\tffffffff81000000 do_thing%s[2J+0x0 ([kernel.kallsyms])\n' \
		"$esc"
	printf '\t          401000 main+0x0 (/usr/bin/evil)\n\n'
} >"$TMP/script.txt"
printf 'cat;evil%s]0;PWNED%sname;fn 10\nbash;main 5\n' "$esc" "$bel" \
	>"$TMP/A"
printf 'cat;evil%s]0;PWNED%sname;fn 20\nbash;main 5\n' "$esc" "$bel" \
	>"$TMP/B"

# Run a command with stdout on a pseudo-terminal (no output post-
# processing, so the bytes are the tool's), stderr on a pipe.
on_tty() {
	python3 - "$@" <<'PY'
import os, pty, subprocess, sys, tty
m, s = pty.openpty()
tty.setraw(s)
p = subprocess.Popen(sys.argv[1:], stdout=s, stderr=subprocess.PIPE)
os.close(s)
out = b''
while True:
    try:
        d = os.read(m, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
err = p.stderr.read()
p.wait()
sys.stdout.buffer.write(out)
sys.stderr.buffer.write(err)
sys.exit(p.returncode)
PY
}

# The escapes as a terminal shows them: no ESC or BEL left in the bytes.
check_shown() {
	local what=$1 file=$2

	if grep -q "[$esc$bel]" "$file"; then
		fail "$what: an escape reached the terminal: $(od -c "$file" | head -5)"
	fi
	grep -qF 'evil\033]0;PWNED\007' "$file" ||
		fail "$what: the name is not shown: $(cat -v "$file")"
}

on_tty "$RS_BIN" report -i "$TMP/script.txt" --folded >"$TMP/tty" ||
	fail "report --folded on a terminal failed"
check_shown "report --folded" "$TMP/tty"
grep -qF 'do_thing\033[2J' "$TMP/tty" ||
	fail "the symbol is not shown: $(cat -v "$TMP/tty")"
echo "ok report --folded shows a hostile comm and symbol on a terminal"

on_tty "$RS_BIN" diff-folded "$TMP/A" "$TMP/B" >"$TMP/tty" ||
	fail "diff-folded on a terminal failed"
check_shown "diff-folded" "$TMP/tty"
grep -qF 'evil\033]0;PWNED\007name;fn 10 20' "$TMP/tty" ||
	fail "diff-folded's line is not whole: $(cat -v "$TMP/tty")"
echo "ok diff-folded shows it too"

# A pipe gets every byte: the folded line is the input's names exactly.
"$RS_BIN" report -i "$TMP/script.txt" --folded >"$TMP/pipe" ||
	fail "report --folded to a pipe failed"
printf 'evil%s]0;PWNED%sx;main;do_thing%s[2J 250000\n' "$esc" "$bel" "$esc" \
	>"$TMP/want"
cmp -s "$TMP/want" "$TMP/pipe" ||
	fail "the folded bytes changed on a pipe: $(od -c "$TMP/pipe" | head)"
"$RS_BIN" diff-folded "$TMP/A" "$TMP/B" |
	grep -qF "evil$esc]0;PWNED${bel}name;fn 10 20" ||
	fail "diff-folded's bytes changed on a pipe"
echo "ok a pipe gets the bytes as they were"

# An error naming such a file: shown on stderr, terminal or not.
# ... and a C1 control (CSI, UTF-8 encoded), which error lines missed.
bad="$TMP/x${esc}]0;PWNED${bel}y"$'\xc2\x9b2J'
on_tty "$RS_BIN" diff-folded "$bad" "$TMP/B" >"$TMP/tty" 2>"$TMP/err" &&
	fail "diff-folded of a missing file succeeded"
{ grep -q "[$esc$bel]" "$TMP/err" || grep -qF $'\xc2\x9b' "$TMP/err"; } &&
	fail "an escape in the error: $(cat -v "$TMP/err")"
grep -qF 'x\033]0;PWNED\007y\302\2332J' "$TMP/err" ||
	fail "the error does not show the name: $(cat -v "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "not one line: $(cat -v "$TMP/err")"
echo "ok the error shows the name on one line"
