#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /tmp/perf-PID.map is where anyone can plant a file. A recording with JIT
# code (anonymous executable memory) of a process that has exited is
# reported as root while nobody has left, at that name: a FIFO (which
# must not hang the report), a socket, a symbolic link to a map root
# wrote, a map of its own. Each is not read, and a note says which file
# and why; the report still succeeds. A map root owns is read.
# The PID is above any pid_max, so no live process and no other test
# owns that name.
. tests/shell/lib.sh

[ "$(id -u)" = 0 ] || skip "needs root to report as root while nobody plants"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody to plant files as"
nobody_gid=$(id -g nobody)
as_nobody() {
	setpriv --reuid=nobody --regid="$nobody_gid" --clear-groups "$@"
}

pid=$((4194304 + 1000 + $$ % 100000))
map=/tmp/perf-$pid.map
[ -e "$map" ] || [ -L "$map" ] && skip "$map exists: another run's"
cleanup() {
	rm -f "$map"
	rm -rf "$TMP"
}
trap cleanup EXIT

cat >"$TMP/spec.json" <<EOF
{"name": "jit", "event": "cpu-clock", "osrelease": "6.1.0-gen", "nr_cpus": 1,
 "stacks": [{"frames": [], "user": 2, "count": 3, "comm": "java",
             "pid": $pid, "category": "other", "trigger": null,
             "jit": true}]}
EOF
python3 tests/tools/gen-perf-data.py --spec "$TMP/spec.json" \
	-o "$TMP/jit.data" -k "$TMP/jit.ks" -e "$TMP/jit.exp" ||
	fail "could not write the recording"
chmod 755 "$TMP"
printf '7f3a1c000000 100000 jitted_fn\n' >"$TMP/root.map"

# report_with WHAT WHY: report after nobody planted WHAT; expect the note.
report_with() {
	local what=$1 why=$2 rc
	timeout 10 "$RS_BIN" report -i "$TMP/jit.data" --kallsyms "$TMP/jit.ks" \
		--folded --jit >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" = 124 ] && fail "report hung on a $what at $map"
	[ "$rc" = 0 ] || fail "report with a $what at $map: exit $rc: $(cat "$TMP/err")"
	grep -q "jitted_fn" "$TMP/out" &&
		fail "report read a $what at $map: $(cat "$TMP/out")"
	grep -q "^java;" "$TMP/out" || fail "no JIT stack: $(cat "$TMP/out")"
	[ "$(grep -c "^rstat-analyze: note: $map: not read, $why" "$TMP/err")" = 1 ] ||
		fail "a $what at $map: no note saying '$why': $(cat "$TMP/err")"
	echo "ok $what: $(grep "$map" "$TMP/err")"
	rm -f "$map"
}

as_nobody mkfifo -m 666 "$map" || fail "nobody could not make a FIFO"
report_with FIFO "not a regular file"

as_nobody /usr/bin/python3 -c \
	"import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$map" ||
	fail "nobody could not make a socket"
report_with socket "not a regular file"

as_nobody ln -s "$TMP/root.map" "$map" || fail "nobody could not make a link"
report_with "symbolic link" "a symbolic link"

as_nobody sh -c "cat >'$map'" <"$TMP/root.map" || fail "nobody could not write a map"
report_with "map of nobody's" "owned by another user"

# root's own map is read: the frames are named.
cp "$TMP/root.map" "$map"
timeout 10 "$RS_BIN" report -i "$TMP/jit.data" --kallsyms "$TMP/jit.ks" \
	--folded --jit >"$TMP/out" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
grep -q "jitted_fn_\[j\]" "$TMP/out" || fail "root's map not read: $(cat "$TMP/out")"
grep -q "$map" "$TMP/err" && fail "a note for root's map: $(cat "$TMP/err")"
echo "ok root's map: $(cat "$TMP/out")"
exit 0
