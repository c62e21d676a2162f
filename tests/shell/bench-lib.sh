# SPDX-License-Identifier: GPL-2.0
# Shared by the bench tests (sourced after lib.sh).

[ "$(id -u)" -eq 0 ] || skip "bench needs root (it creates cgroups)"
[ -d /sys/fs/cgroup ] || skip "no cgroup file system"

# Everything a run of this test may leave: cgroups and work directories
# whose owner stamp names a dead process (a live one belongs to another
# run sharing the machine, an unstamped one was kept with --keep), and
# processes of this session (the workloads are forks of the bench process
# and share its command line).
dead_pid() {
	[ -n "$1" ] && ! kill -0 "$1" 2>/dev/null
}

leftovers() {
	local d pid
	# Run parents stamped by a run that is gone (a kept tree has no
	# stamp, and a live run's PID answers kill -0).
	find /sys/fs/cgroup -maxdepth 8 -type d \
		-name 'rstat-analyze-bench-[0-9]*' 2>/dev/null |
		python3 -c '
import os, sys
for d in sys.stdin.read().split():
    try:
        stamp = os.getxattr(d, "trusted.rstat-analyze").decode()
    except OSError:
        continue
    pid = int(stamp.split(" pid=")[1].split()[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        print(d)
'
	for d in /var/lib/rstat-analyze/rstat-analyze-bench.*; do
		[ -d "$d" ] || continue
		pid=$(sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$d/.owner" 2>/dev/null)
		dead_pid "$pid" && echo "$d"
	done
	pgrep -s 0 -fa "$RS_BIN bench" 2>/dev/null
	pgrep -s 0 -fa "$RS_BIN record" 2>/dev/null
}

no_leftovers() {
	local left
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		left=$(leftovers)
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	fail "$1: left behind: $left"
}

# Tests source this from the repository root, and may cd away later.
RS_ROOT=$PWD
validate() {
	python3 "$RS_ROOT/tests/shell/bench-schema.py" \
		"$RS_ROOT/docs/bench-results.schema.json" "$1" ||
		fail "$1 does not validate against docs/bench-results.schema.json"
}
