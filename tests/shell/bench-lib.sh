# SPDX-License-Identifier: GPL-2.0
# Shared by the bench tests (sourced after lib.sh).

[ "$(id -u)" -eq 0 ] || skip "bench needs root (it creates cgroups)"
[ -d /sys/fs/cgroup ] || skip "no cgroup file system"

# Everything a run may leave: its cgroups in every hierarchy, its work
# directory, its processes (the workloads are forks of the bench process
# and share its command line).
leftovers() {
	find /sys/fs/cgroup -maxdepth 8 -type d -name 'rstat-analyze-bench-*' \
		2>/dev/null
	ls -d /var/tmp/rstat-analyze-bench-* 2>/dev/null
	pgrep -fa "$RS_BIN bench" 2>/dev/null
	pgrep -fa "$RS_BIN record" 2>/dev/null
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

validate() {
	python3 tests/shell/bench-schema.py docs/bench-results.schema.json "$1" ||
		fail "$1 does not validate against docs/bench-results.schema.json"
}
