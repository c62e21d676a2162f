# SPDX-License-Identifier: GPL-2.0
# Shared by the top and watch tests: sourced after lib.sh, not run.

# bpf_objects PID: the BPF programs, maps and links PID holds, one
# "prog|map|link ID" a line, from its descriptors' fdinfo (exact: other
# runs on the machine load programs of the same names).
bpf_objects() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		sed -n 's/^prog_id:[[:space:]]*\([0-9]*\)$/prog \1/p
			s/^map_id:[[:space:]]*\([0-9]*\)$/map \1/p
			s/^link_id:[[:space:]]*\([0-9]*\)$/link \1/p' "$f" \
			2>/dev/null
	done | sort -u
}

# bpf_objects_left FILE: those of FILE (bpf_objects' output) that still
# exist 3 s on (the kernel frees maps from a workqueue after the last
# descriptor closes); nothing when all are gone.
bpf_objects_left() {
	local kind id left _
	for _ in $(seq 30); do
		left=$(while read -r kind id; do
			bpftool "$kind" show id "$id" >/dev/null 2>&1 &&
				echo "$kind $id"
		done <"$1")
		[ -z "$left" ] && return
		sleep 0.1
	done
	echo "$left"
}

# watch_port ERRFILE PID: the port watch's note says it serves on, once
# it does (empty when PID died first or after 10 s).
watch_port() {
	local port _
	for _ in $(seq 100); do
		port=$(sed -n 's|.*serving http://[^ ]*:\([0-9]*\)/metrics.*|\1|p' "$1")
		[ -n "$port" ] && { echo "$port"; return; }
		kill -0 "$2" 2>/dev/null || return
		sleep 0.1
	done
}
