#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record's targets: -p PID records only that process's threads, --cgroup
# only the tasks of that cgroup (checked with perf script's reading of the
# pids), -- CMD only the command from its exec (its comm, never the
# recorder's), -a everything, and -a -- CMD everything while CMD runs.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (perf_event_open on all CPUs)"
need_perf
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
cg=$v2/rstat-analyze-test-$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$cg" 2>/dev/null || [ ! -d "$cg" ] && break
		sleep 0.1
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# pids_of FILE: the distinct pids of the samples, as perf reads them
pids_of() {
	perf script -i "$1" -F pid 2>/dev/null | awk '{ print $1 }' | sort -u
}

# -p: two spinners; only the one asked for is in the recording.
sh -c 'while :; do :; done' & a=$!
sh -c 'while :; do :; done' & b=$!
pids+=($a $b)
"$RS_BIN" record -q -o "$TMP/p.data" -p $a -d 1 2>"$TMP/err" ||
	fail "record -p: $(cat "$TMP/err")"
got=$(pids_of "$TMP/p.data")
[ "$got" = "$a" ] || fail "record -p $a: samples of pids '$got'"
echo "ok -p: only pid $a"

# --cgroup: spinner b moved into our cgroup; only it is recorded.
if mkdir "$cg" 2>/dev/null && echo $b >"$cg/cgroup.procs"; then
	"$RS_BIN" record -q -o "$TMP/c.data" --cgroup "$cg" -d 1 \
		2>"$TMP/err" || fail "record --cgroup: $(cat "$TMP/err")"
	got=$(pids_of "$TMP/c.data")
	[ "$got" = "$b" ] || fail "record --cgroup: samples of pids '$got', want $b"
	echo "ok --cgroup: only pid $b"
	echo $b >"$v2/cgroup.procs"
else
	skip_part "cannot create $cg; --cgroup not tested"
fi

# -- CMD: the command's own samples, from its exec on.
"$RS_BIN" record -q -o "$TMP/x.data" -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' \
	2>"$TMP/err" || fail "record -- CMD: $(cat "$TMP/err")"
comms=$(perf script -i "$TMP/x.data" -F comm 2>/dev/null | sort -u | tr -d ' ')
[ "$comms" = sh ] || fail "record -- CMD: comms '$comms', want sh only"
echo "ok -- CMD: only the command"

# -a: both spinners (and more).
"$RS_BIN" record -q -o "$TMP/a.data" -a -d 1 2>"$TMP/err" ||
	fail "record -a: $(cat "$TMP/err")"
got=$(pids_of "$TMP/a.data")
grep -qx $a <<<"$got" && grep -qx $b <<<"$got" ||
	fail "record -a: spinners $a and $b not both sampled"
echo "ok -a: both spinners among $(wc -l <<<"$got") pids"

# -a -- CMD (perf's habit): every CPU for as long as CMD runs, so the
# spinners are in it, and the recording ends with the command, not after
# a duration. The length is checked with perf's own reading of the times.
"$RS_BIN" record -q -o "$TMP/ac.data" -a -- sleep 1 2>"$TMP/err" ||
	fail "record -a -- sleep 1: $(cat "$TMP/err")"
got=$(pids_of "$TMP/ac.data")
grep -qx $a <<<"$got" && grep -qx $b <<<"$got" ||
	fail "record -a -- sleep 1: spinners $a and $b not both sampled"
span=$(perf script -i "$TMP/ac.data" -F time 2>/dev/null | tr -d ' :' |
	sort -n | sed -n '1p;$p' | paste -sd' ' | awk '{ print $2 - $1 }')
awk -v s="$span" 'BEGIN { exit !(s > 0.7 && s < 3) }' ||
	fail "record -a -- sleep 1: samples span ${span}s, want about 1 s"
echo "ok -a -- CMD: system-wide for ${span}s"

# -p with -- CMD stays a usage error: one of them would be ignored.
expect_error 2 "exclusive" "$RS_BIN" record -q -o "$TMP/y.data" -p $a -- true
[ -e "$TMP/y.data" ] && fail "record -p PID -- CMD wrote a file"
echo "ok -p -- CMD: refused"
