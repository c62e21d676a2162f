#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How plot runs gnuplot, seen by a stand-in gnuplot on PATH that records
# what it was given:
#  - as root, gnuplot runs as nobody (uid, gid, no supplementary groups),
#    with no new privileges, and cannot write a file of root's;
#  - argv is `gnuplot -d -e "rs_stdout = 1" /dev/stdin`: no init file,
#    the script over our pipe (the very bytes of the kept .gp, read by
#    reopening /dev/stdin as gnuplot does), never OUT.gp by name;
#  - the environment is the fixed one (PATH, HOME, LC_ALL), nothing of
#    the caller's;
#  - what it writes to stdout becomes the image, byte for byte.
. tests/shell/lib.sh

# nobody must reach the stand-in and write its records.
chmod 755 "$TMP"
mkdir -m 755 "$TMP/bin"
mkdir -m 1777 "$TMP/rec"
mkdir "$TMP/out"
echo root-only >"$TMP/rootfile"
cat >"$TMP/bin/gnuplot" <<SH
#!/bin/sh
r=$TMP/rec
id -u >"\$r/uid"
id -g >"\$r/gid"
id -G >"\$r/groups"
grep '^NoNewPrivs:' /proc/self/status >"\$r/nnp"
env | sort >"\$r/env"
for a in "\$@"; do printf '%s\n' "\$a"; done >"\$r/argv"
cat /dev/stdin >"\$r/script"
if echo owned >>"$TMP/rootfile" 2>/dev/null; then
	echo wrote >"\$r/wrote-rootfile"
fi
printf '\211PNG\r\n\032\nstand-in image\n'
SH
chmod 755 "$TMP/bin/gnuplot"

RS_SECRET=caller-env PATH="$TMP/bin:$PATH" "$RS_BIN" plot \
	"$RS_FIXTURES/plot/before.json" -o "$TMP/out/x.png" --title T \
	2>"$TMP/err" || fail "plot with the stand-in: $(cat "$TMP/err")"

rec=$TMP/rec
[ -s "$rec/argv" ] || fail "the stand-in gnuplot did not run"
printf '%s\n' -d -e 'rs_stdout = 1' /dev/stdin >"$TMP/argv.want"
cmp -s "$TMP/argv.want" "$rec/argv" ||
	fail "argv: $(tr '\n' ' ' <"$rec/argv")"
echo "ok argv: -d -e 'rs_stdout = 1' /dev/stdin"
cmp -s "$rec/script" "$TMP/out/x.png.gp" ||
	fail "the script on the pipe is not the kept x.png.gp"
echo "ok the script came over the pipe, the .gp's very bytes"
# sh may add its own (PWD, OLDPWD, SHLVL, _): none of the caller's.
grep -q RS_SECRET "$rec/env" && fail "the caller's environment leaked: $(cat "$rec/env")"
for v in HOME=/nonexistent LC_ALL=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin; do
	grep -qx "$v" "$rec/env" || fail "env lacks $v: $(cat "$rec/env")"
done
extra=$(grep -v -e '^HOME=' -e '^LC_ALL=' -e '^PATH=' -e '^PWD=' \
	-e '^OLDPWD=' -e '^SHLVL=' -e '^_=' "$rec/env")
[ -z "$extra" ] || fail "env has more: $extra"
echo "ok environment: PATH, HOME, LC_ALL only"
printf '\211PNG\r\n\032\nstand-in image\n' >"$TMP/img.want"
cmp -s "$TMP/img.want" "$TMP/out/x.png" ||
	fail "the image is not what gnuplot wrote to its stdout"
echo "ok the image is gnuplot's stdout, byte for byte"
grep -q '1$' "$rec/nnp" || fail "no_new_privs not set: $(cat "$rec/nnp")"
echo "ok gnuplot runs with no new privileges"

if [ "$(id -u)" -ne 0 ]; then
	skip_part "not root: plot keeps its own user for gnuplot"
	[ "$(cat "$rec/uid")" = "$(id -u)" ] || fail "uid $(cat "$rec/uid")"
	exit 0
fi
id nobody >/dev/null 2>&1 || skip "no user nobody"
[ "$(cat "$rec/uid")" = "$(id -u nobody)" ] ||
	fail "gnuplot ran as uid $(cat "$rec/uid"), not nobody's $(id -u nobody)"
[ "$(cat "$rec/gid")" = "$(id -g nobody)" ] ||
	fail "gnuplot ran as gid $(cat "$rec/gid"), not $(id -g nobody)"
[ "$(cat "$rec/groups")" = "$(id -g nobody)" ] ||
	fail "gnuplot kept supplementary groups: $(cat "$rec/groups")"
[ ! -e "$rec/wrote-rootfile" ] && [ "$(cat "$TMP/rootfile")" = root-only ] ||
	fail "gnuplot could write a file of root's"
echo "ok as root, gnuplot runs as nobody, no groups, and cannot write root's files"

# nobody may not run a gnuplot only root can reach: said in one line.
chmod 700 "$TMP/bin"
expect_error 1 "cannot run gnuplot as nobody.*Permission denied" \
	env PATH="$TMP/bin" "$RS_BIN" plot "$RS_FIXTURES/plot/before.json" \
	-o "$TMP/out/y.png"
[ ! -e "$TMP/out/y.png" ] || fail "an image was left after the failure"
echo "ok a gnuplot nobody may not run: one line, no image"
exit 0
