# SPDX-License-Identifier: GPL-2.0
#
# For the benchmark scripts: a cgroup of the script's own, $cg, under the
# v2 hierarchy, with $children children each running a busy loop, so that
# a read of $cg/cpu.stat flushes. Sourced; busy_tree_make creates it,
# busy_tree_remove (from the script's EXIT trap) stops the loops and
# removes exactly what was made. Sets v2 and cg from the name given.

busy_pids=()

# busy_tree_make NAME: $cg = V2/NAME-PID with $children busy children.
busy_tree_make() {
	local i

	v2=/sys/fs/cgroup/unified
	[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
	cg=$v2/$1-$$
	mkdir "$cg" || return 1
	for ((i = 1; i <= children; i++)); do
		mkdir "$cg/c$i" || return 1
		sh -c "echo \$\$ > $cg/c$i/cgroup.procs; while :; do :; done" &
		busy_pids+=($!)
	done
}

busy_tree_remove() {
	local p i

	for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -n "${cg:-}" ] || return 0
	for ((i = 1; i <= children; i++)); do
		rmdir "$cg/c$i" 2>/dev/null || true
	done
	rmdir "$cg" 2>/dev/null || true
}
