#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record's failures: one line on stderr naming what is missing and what to
# do, exit 1 (2 for usage errors), and nothing left behind: no output file,
# no child process.
. tests/shell/lib.sh

# Usage errors first: they need nothing from the kernel.
expect_error 2 "exclusive" "$RS_BIN" record -a -p 1
expect_error 2 "exclusive" "$RS_BIN" record --cgroup x -p 1
expect_error 2 "exclusive" "$RS_BIN" record -p 1 -- true
expect_error 2 "give a frequency" "$RS_BIN" record -F 0
expect_error 2 "give a duration" "$RS_BIN" record -d abc
expect_error 2 "power of 2" "$RS_BIN" record -m 3
expect_error 2 "file layout" "$RS_BIN" record -o -
expect_error 2 "unknown option" "$RS_BIN" record --bogus

[ "$(id -u)" -eq 0 ] || skip "the rest needs root (perf_event_open)"
RS_BIN=$(realpath "$RS_BIN")
cd "$TMP" || fail "cd"

# A command that does not exist: a clear error, no file, no child.
expect_error 1 "nosuch-command-$$: command not found" \
	"$RS_BIN" record -q -o r.data -- nosuch-command-$$
[ -e r.data ] && fail "a failed record left its output behind"

# --probe without kprobes names the missing feature and points to doctor;
# where the kernel has kprobes, a function probe records its hits.
if [ ! -d /sys/bus/event_source/devices/kprobe ]; then
	expect_error 1 "no kprobe PMU.*doctor" \
		"$RS_BIN" record -q -o r.data --probe css_rstat_flush -- true
	[ -e r.data ] && fail "a failed record left its output behind"
else
	"$RS_BIN" record -q -o r.data --probe css_rstat_flush -- \
		cat /sys/fs/cgroup/cpu.stat >/dev/null 2>"$TMP/err" ||
		fail "--probe css_rstat_flush: $(cat "$TMP/err")"
	"$RS_BIN" report -i r.data --json | grep -q '"probe:css_rstat_flush"' ||
		fail "no probe:css_rstat_flush event in the recording"
fi

# A bad uprobe spec and a missing binary.
expect_error 1 "give BINARY:SPEC" "$RS_BIN" record -q -o r.data --uprobe nocolon
expect_error 1 "No such file" "$RS_BIN" record -q -o r.data \
	--uprobe /nonexistent/bin:main -- true
expect_error 1 "no such event" "$RS_BIN" record -q -o r.data \
	-e nosuch:event -- true
[ -e r.data ] && fail "a failed record left its output behind"

# An output that cannot be created (even root cannot create files in
# /proc): the error names the file, and no event stays open.
expect_error 1 "/proc/r.data: cannot create" "$RS_BIN" record -q \
	-o /proc/r.data -- true
pgrep -P $$ >/dev/null && fail "a child process was left behind"

# The status is the command's, as perf record gives it (exit code, 128 +
# a signal), with the recording kept; a command the recording's end
# stopped (-d) is not a failure of the command.
for c in "false:1" "exit 3:3" "kill -TERM \$\$:143" "true:0"; do
	want=${c##*:}
	"$RS_BIN" record -q -o r.data -- sh -c "${c%:*}" 2>"$TMP/err"
	got=$?
	[ "$got" = "$want" ] ||
		fail "record -- sh -c '${c%:*}': exit $got, want $want: $(cat "$TMP/err")"
	[ -s r.data ] || fail "record -- sh -c '${c%:*}': no recording kept"
	if [ "$want" != 0 ]; then
		grep -q "^rstat-analyze: record: sh exited with status $want" \
			"$TMP/err" || fail "no line for status $want: $(cat "$TMP/err")"
	fi
	rm -f r.data r.data.old
done
"$RS_BIN" record -q -o r.data -d 1 -- sleep 30 2>"$TMP/err" ||
	fail "record -d 1 of a longer command failed: $(cat "$TMP/err")"
rm -f r.data
echo "errors are reported once, nothing is left behind"
