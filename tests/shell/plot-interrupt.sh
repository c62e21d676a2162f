#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plot stopped by SIGTERM while gnuplot draws leaves nothing half done:
# it exits 1 with one line saying so, and no image and no temporary file
# is left in the output directory. The gnuplot on PATH is a stand-in
# that says when it started and sleeps, so that the signal lands while
# plot waits for it (the real one is too quick to catch).
. tests/shell/lib.sh

# As root plot runs gnuplot as nobody: it must reach the stand-in and
# write where it says so.
chmod 755 "$TMP"
mkdir -m 755 "$TMP/bin"
mkdir "$TMP/out"
mkdir -m 1777 "$TMP/flag"
cat >"$TMP/bin/gnuplot" <<SH
#!/bin/sh
touch "$TMP/flag/started"
exec sleep 2
SH
chmod +x "$TMP/bin/gnuplot"

PATH="$TMP/bin:$PATH" "$RS_BIN" plot "$RS_FIXTURES/plot/before.json" \
	-o "$TMP/out/x.png" >"$TMP/stdout" 2>"$TMP/stderr" &
pid=$!
for i in $(seq 100); do
	[ -e "$TMP/flag/started" ] && break
	sleep 0.1
done
[ -e "$TMP/flag/started" ] || { kill "$pid"; fail "gnuplot never started"; }
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 1 ] || fail "exit $rc after SIGTERM, expected 1: $(cat "$TMP/stderr")"
grep -q "^rstat-analyze: plot: stopped by signal 15: .*x.png not written$" \
	"$TMP/stderr" || fail "stderr: $(cat "$TMP/stderr")"
[ "$(wc -l <"$TMP/stderr")" -eq 1 ] || fail "more than one line: $(cat "$TMP/stderr")"
left=$(cd "$TMP/out" && ls -A | grep -v '^x\.png\.\(gp\|dat\)$')
[ -z "$left" ] || fail "left behind: $left"
echo "ok SIGTERM during gnuplot: exit 1, no image, no temporary file"
exit 0
