#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record as a user who is not root (nobody, through setpriv), and what it
# says along the way:
# - refused by perf_event_paranoid, the one error line names the sampling
#   event this machine has (cpu-clock where perf itself cannot open
#   cycles) and what such a user can record: -e cpu-clock:u;
# - that works, and a tracefs it cannot read is called a permission, not
#   a kernel older than v6.10;
# - -q prints nothing on success (no note about the missing PMU), and
#   the summary gives the size of the file as written.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (to become nobody, and -a)"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
need_perf
RS_BIN=$(realpath "$RS_BIN")
chmod 755 "$TMP"
mkdir -m 777 "$TMP/u"
as_nobody=(env -C "$TMP/u" setpriv --reuid=nobody --regid=nogroup
	--clear-groups)

# The oracle for "this PMU has cycles": perf, as root.
if perf stat -x, -e cycles:u true 2>&1 | grep -q 'not supported'; then
	ev=cpu-clock
else
	ev=cycles
fi

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -ge 2 ]; then
	expect_error 1 "^rstat-analyze: record: $ev: permission denied.*-e $ev:u" \
		"${as_nobody[@]}" "$RS_BIN" record -o r.data -- true
	grep -q 'v6\.10' "$TMP/stderr" && fail "a permission called a version"
	[ -e "$TMP/u/r.data" ] && fail "a refused record left r.data"
	echo "ok: refused as nobody, one line, suggests -e $ev:u"
else
	echo "note: perf_event_paranoid is $paranoid; the refusal not tested"
fi

"${as_nobody[@]}" "$RS_BIN" record -o r.data -e "$ev:u" -- true \
	>"$TMP/out" 2>"$TMP/err" ||
	fail "record -e $ev:u as nobody: $(cat "$TMP/err")"
perf script -f -i "$TMP/u/r.data" >/dev/null 2>"$TMP/perr" ||
	fail "perf script cannot read the recording: $(cat "$TMP/perr")"
[ -s "$TMP/perr" ] && fail "perf script warns: $(cat "$TMP/perr")"
perf report -f --header-only -i "$TMP/u/r.data" 2>&1 |
	grep -q '^# cmdline : .*record -o r.data -e' ||
	fail "perf reads no features after ours: $(perf report -f --header-only -i "$TMP/u/r.data" 2>&1 | head -12)"
if ! "${as_nobody[@]}" test -r /sys/kernel/tracing/events; then
	grep -q 'tracefs is not readable by this user' "$TMP/err" ||
		fail "unreadable tracefs not said: $(cat "$TMP/err")"
fi
grep -q 'v6\.10' "$TMP/err" && fail "on $(uname -r): $(cat "$TMP/err")"
echo "ok: -e $ev:u as nobody records"

# -q: nothing on stderr, the PMU note included.
cd "$TMP" || fail "cd"
"$RS_BIN" record -q -o q.data -- true 2>"$TMP/err" ||
	fail "record -q: $(cat "$TMP/err")"
[ -s "$TMP/err" ] && fail "record -q printed: $(cat "$TMP/err")"
echo "ok: -q is quiet"

# The summary's size is the file's (features and side band included).
"$RS_BIN" record -o s.data -a -d 1 2>"$TMP/err" ||
	fail "record: $(cat "$TMP/err")"
said=$(sed -n 's/.*recorded [0-9]* samples in s.data (\([0-9.]*\) MB)$/\1/p' \
	"$TMP/err")
[ -n "$said" ] || fail "no summary line: $(cat "$TMP/err")"
real=$(stat -c %s s.data | awk '{ printf "%.1f", $1 / 1e6 }')
[ "$said" = "$real" ] || fail "summary says $said MB, the file is $real MB"
echo "ok: summary says $said MB, the file's size"
