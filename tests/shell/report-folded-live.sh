#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Recordings made now, on this kernel, by Debian's perf: report --folded
# --stackcollapse on the perf.data equals the fold of `perf script` on the
# same file (tracepoint samples and all, as stackcollapse-perf.pl), in the
# file layout, the pipe layout (through stdin) and zstd-compressed (-z).
# Kernel symbols come from /proc/kallsyms by default (same kernel). The
# workload has known symbols: its stack must appear whole.
. tests/shell/lib.sh
need_perf

spin=build/workloads/spin
[ -x "$spin" ] || fail "$spin not built (make tests)"
perf record -q -e cpu-clock -F 999 -g -o "$TMP/probe.data" -- true \
	>/dev/null 2>&1 || skip "perf record cannot sample cpu-clock here"

compare() {		# compare NAME FILE [report options...]
	local name=$1 f=$2 fields=()
	shift 2
	# perf script shows the PID that --pid and --tid name with -F +pid.
	[[ " $* " == *" --pid "* || " $* " == *" --tid "* ]] && fields=(-F +pid)
	perf script -i "$f" "${fields[@]}" >"$TMP/script.txt" 2>/dev/null ||
		fail "$name: perf script failed"
	"$RS_BIN" report -i "$f" --folded --stackcollapse "$@" >"$TMP/ours" \
		2>"$TMP/err" ||
		fail "$name: report failed: $(cat "$TMP/err")"
	"$RS_BIN" report -i - --folded "$@" <"$TMP/script.txt" \
		>"$TMP/theirs" 2>/dev/null || fail "$name: text report failed"
	[ -s "$TMP/ours" ] || fail "$name: no stacks"
	if ! cmp -s "$TMP/ours" "$TMP/theirs"; then
		diff "$TMP/theirs" "$TMP/ours" | head -n 20
		fail "$name $*: folded stacks differ from perf script's reading"
	fi
	echo "ok $name $*: $(wc -l <"$TMP/ours") stacks"
}

# 1. One process with known symbols, user and kernel frames.
perf record -q -e cpu-clock -F 2999 -g -o "$TMP/spin.data" -- \
	"$spin" 700 >/dev/null 2>&1 || fail "perf record of $spin failed"
compare spin "$TMP/spin.data"
grep -Eq '^spin;.*main;spin_outer;spin_inner [0-9]+$' "$TMP/ours" ||
	fail "the workload's stack main;spin_outer;spin_inner is missing"
compare spin "$TMP/spin.data" --pid --kernel
compare spin "$TMP/spin.data" --tid --addrs
grep -Eq '^spin-[0-9]+/[0-9]+;' "$TMP/ours" || fail "--tid: no comm-PID/TID"

# 1b. C++ frames: names demangled as perf prints them (no parameters).
perf record -q -e cpu-clock -F 2999 -g -o "$TMP/cxx.data" -- \
	build/workloads/cxx-spin 400 >/dev/null 2>&1 ||
	fail "perf record of cxx-spin failed"
compare c++ "$TMP/cxx.data"
grep -Eq '^cxx-spin;.*main;twice<int>;ns::K::spin [0-9]+$' "$TMP/ours" ||
	fail "the demangled stack main;twice<int>;ns::K::spin is missing"

# 1c. Samples on the .plt stubs. perf names a stub "func@plt" or "_init"
#     (zero-sized, stretched over the .plt) by its symbol tree's shape; the
#     names must be perf's for every stub.
perf record -q -e cpu-clock -F 2999 -g -o "$TMP/plt.data" -- \
	build/workloads/plt-spin 400 >/dev/null 2>&1 ||
	fail "perf record of plt-spin failed"
perf script -i "$TMP/plt.data" -F ip,sym 2>/dev/null | grep -q '@plt$' ||
	fail "perf script shows no samples on plt-spin's .plt stubs"
compare plt "$TMP/plt.data"

# 2. System-wide with the rstat tracepoints where this kernel has them,
#    while something reads cpu.stat.
#    A user who is not root may not record every CPU (perf_event_paranoid
#    above 0): that part is then not made, and said.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" -ne 0 ] && [ "$paranoid" -gt 0 ]; then
	skip_part "not root (perf_event_paranoid $paranoid): no system-wide recording"
else
	events=(-e cpu-clock)
	for tp in cgroup:cgroup_rstat_locked cgroup:cgroup_rstat_unlock; do
		[ -d "/sys/kernel/tracing/events/${tp/://}" ] && events+=(-e "$tp")
	done
	# The root's cpu.stat does not flush: a cgroup of our own's does.
	v2=/sys/fs/cgroup/unified
	[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
	stat=$v2/cpu.stat
	if [ "$(id -u)" -eq 0 ] && mkdir "$v2/rs-folded-$$" 2>/dev/null; then
		trap 'rmdir "$v2/rs-folded-$$" 2>/dev/null; rm -rf "$TMP"' EXIT
		stat=$v2/rs-folded-$$/cpu.stat
	fi
	perf record -q -a -g "${events[@]}" -F 1999 -o "$TMP/sys.data" -- \
		sh -c "for i in \$(seq 300); do cat $stat >/dev/null; done; $spin 300" \
		>/dev/null 2>&1 || fail "system-wide perf record failed"
	compare system-wide "$TMP/sys.data" --kernel
	if perf script -i "$TMP/sys.data" -F event 2>/dev/null |
			grep -q 'cgroup_rstat_locked:'; then
		compare system-wide "$TMP/sys.data" --event-filter cgroup:cgroup_rstat_locked
	else
		skip_part "no cgroup_rstat_locked samples in this recording: tracepoint case not run"
	fi
fi

# 2b. Without callchains (no -g): process names alone, with a note; perf
#     script's text of it has no stacks, which is said, exit 1.
perf record -q -e cpu-clock -F 999 -o "$TMP/nog.data" -- "$spin" 200 \
	>/dev/null 2>&1 || fail "perf record without -g failed"
"$RS_BIN" report -i "$TMP/nog.data" --folded --samples >"$TMP/ours" \
	2>"$TMP/err" || fail "report of a recording without -g failed"
grep -q 'no callchain (record with -g)' "$TMP/err" ||
	fail "no note about the missing callchains"
n=$(perf script -i "$TMP/nog.data" -F event 2>/dev/null | wc -l)
grep -q "^spin " "$TMP/ours" || fail "no spin process-name stack"
[ "$(awk '{ s += $NF } END { print s }' "$TMP/ours")" = "$n" ] ||
	fail "process-name stacks do not count all $n samples"
perf script -i "$TMP/nog.data" >"$TMP/nog.txt" 2>/dev/null
expect_error 1 "no stacks in .* recordings made with -g" \
	"$RS_BIN" report -i "$TMP/nog.txt" --folded
echo "ok without -g: $n samples as process names"

# 3. Pipe layout through stdin.
perf record -q -e cpu-clock -F 1999 -g -o - -- "$spin" 300 \
	>"$TMP/pipe.data" 2>/dev/null || fail "perf record -o - failed"
perf script -i "$TMP/pipe.data" >"$TMP/pipe.txt" 2>/dev/null ||
	fail "perf script of the pipe layout failed"
"$RS_BIN" report --folded -i - <"$TMP/pipe.data" >"$TMP/ours" ||
	fail "pipe layout on stdin failed"
"$RS_BIN" report --folded -i - <"$TMP/pipe.txt" >"$TMP/theirs" ||
	fail "text of the pipe layout failed"
[ -s "$TMP/ours" ] || fail "pipe layout: no stacks"
cmp -s "$TMP/ours" "$TMP/theirs" || { diff "$TMP/theirs" "$TMP/ours" | head; \
	fail "pipe layout: folded stacks differ"; }
echo "ok pipe layout on stdin: $(wc -l <"$TMP/ours") stacks"

# 4. zstd-compressed records (PERF_RECORD_COMPRESSED).
if perf record -q -z -e cpu-clock -F 1999 -g -o "$TMP/z.data" -- \
	"$spin" 300 >/dev/null 2>&1; then
	compare compressed "$TMP/z.data"
else
	skip_part "perf record -z unsupported by this perf: compressed case not run"
fi

# 5. perf's highest compression level: frames with a 2^27-byte window.
if perf record -q --compression-level=22 -e cpu-clock -F 1999 -g \
	-o "$TMP/z22.data" -- "$spin" 300 >/dev/null 2>&1; then
	compare "compression level 22" "$TMP/z22.data"
else
	skip_part "perf record --compression-level unsupported: level 22 not run"
fi
exit 0
