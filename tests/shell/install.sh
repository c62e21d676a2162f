#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install DESTDIR=... PREFIX=/usr puts the binary, every man page and
# the bash completion where they belong; the installed binary answers
# --help and --version (with the library versions pkg-config reports);
# make uninstall removes every file again.
. tests/shell/lib.sh

command -v pkg-config >/dev/null || skip "pkg-config is not installed"
root=$TMP/root
# MAKEFLAGS from an outer make (make check) must not leak in.
mk() { env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory -s "$@"; }

mk rstat-analyze >"$TMP/build.log" 2>&1 ||
	fail "make: $(head -c 2000 "$TMP/build.log")"
mk install DESTDIR="$root" PREFIX=/usr >"$TMP/install.log" 2>&1 ||
	fail "make install: $(head -c 2000 "$TMP/install.log")"

bin=$root/usr/bin/rstat-analyze
[ -x "$bin" ] || fail "no executable $bin"
[ "$(stat -c %a "$bin")" = 755 ] || fail "$bin: mode $(stat -c %a "$bin")"
cmp -s rstat-analyze "$bin" || fail "$bin differs from ./rstat-analyze"
comp=$root/usr/share/bash-completion/completions/rstat-analyze
cmp -s completion/rstat-analyze "$comp" || fail "completion not installed as $comp"

n=0
for m in docs/rstat-analyze*.1; do
	im=$root/usr/share/man/man1/$(basename "$m")
	cmp -s "$m" "$im" || fail "$m not installed as $im"
	if command -v groff >/dev/null; then
		groff -man -ww -z "$im" >"$TMP/groff" 2>&1 || fail "groff $im failed"
		[ -s "$TMP/groff" ] && fail "groff warnings for $im: $(head -c 2000 "$TMP/groff")"
	fi
	n=$((n + 1))
done
[ "$n" -gt 1 ] || fail "only $n man pages"
echo "ok installed: binary, $n man pages, completion"

"$bin" --help >"$TMP/help" || fail "installed --help failed"
grep -q '^Commands:' "$TMP/help" || fail "installed --help lists no commands"
"$bin" --version >"$TMP/version" || fail "installed --version failed"
[ "$(wc -l <"$TMP/version")" -eq 2 ] ||
	fail "--version is not two lines: $(cat "$TMP/version")"
grep -Eq '^rstat-analyze [0-9a-f][0-9A-Za-z.+~-]*$' "$TMP/version" ||
	fail "--version first line: $(head -n 1 "$TMP/version")"
want="libtraceevent $(pkg-config --modversion libtraceevent), libtracefs $(pkg-config --modversion libtracefs), elfutils $(pkg-config --modversion libdw)"
got=$(sed -n 2p "$TMP/version")
[ "$got" = "$want" ] || fail "--version: '$got', expected '$want'"
echo "ok --version: $(tr '\n' ' ' <"$TMP/version")"

mk uninstall DESTDIR="$root" PREFIX=/usr >"$TMP/uninstall.log" 2>&1 ||
	fail "make uninstall: $(head -c 2000 "$TMP/uninstall.log")"
left=$(find "$root" ! -type d)
[ -z "$left" ] || fail "left after make uninstall: $left"
echo "ok uninstall leaves no file"
exit 0
