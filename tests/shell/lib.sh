# SPDX-License-Identifier: GPL-2.0
# Shared by the shell tests: sourced, not run. Tests run from the repository
# root; they exit 0 (pass), 1 (fail) or 2 (skip, after printing why).

RS_BIN=${RS_BIN:-$PWD/build/san/rstat-analyze}
RS_FIXTURES=${RS_FIXTURES:-tests/data}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

TMP=$(mktemp -d /tmp/rstat-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# Stopped (run.sh ends the tests with SIGTERM when it is interrupted):
# exit, so that the EXIT trap, this one or the test's cleanup, still runs.
trap 'exit 143' TERM
trap 'exit 130' INT

fail() {
	echo "FAIL: $*"
	exit 1
}

# run.sh counts exit 2 as a skip only after this line, so that a bash
# syntax error or a usage error (also 2) cannot pass for one.
skip() {
	echo "SKIP: $*"
	exit 2
}

# The test goes on, but part of its work is not done here: run.sh counts
# and lists these lines (PART-SKIP), so a partial run is never a full pass.
skip_part() {
	echo "PART-SKIP: $*"
}

need_perf() {
	type -P perf >/dev/null 2>&1 ||
		skip "perf is not installed (Debian package linux-perf)"
}

# perf, the oracle. Debian's perf 6.1 now and then aborts on its own
# (seen in perf record and perf script of a finished file, under load):
# a crash of the oracle, not of the tool under test, so a run that a
# signal ended is made once more, and said. Its own failures still fail.
perf() {
	local rc

	command perf "$@"
	rc=$?
	if [ "$rc" -ge 128 ]; then
		echo "note: perf $1 died of signal $((rc - 128)); running it once more" >&2
		command perf "$@"
		rc=$?
	fi
	return "$rc"
}

# The fixture's kernel symbols, gunzipped once per test.
fixture_kallsyms() {
	[ -f "$TMP/flush-mixed.kallsyms" ] ||
		gzip -dc "$RS_FIXTURES/flush-mixed.kallsyms.gz" \
			>"$TMP/flush-mixed.kallsyms"
	echo "$TMP/flush-mixed.kallsyms"
}

# Sanitizer reports must not pass for the tool's own "exit 1".
export ASAN_OPTIONS="$ASAN_OPTIONS:exitcode=99"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:exitcode=99"

# expect_error STATUS PATTERN CMD...: CMD exits STATUS with exactly one line
# on stderr that matches the extended regex PATTERN (for usage errors,
# status 2, the usage text may follow that line).
expect_error() {
	local want=$1 pattern=$2 rc lines
	shift 2
	timeout 60 "$@" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	[ "$rc" -eq "$want" ] ||
		fail "$*: exit $rc, expected $want; stderr: $(head -c 2000 "$TMP/stderr")"
	lines=$(grep -vc 'rstat-analyze: note:' "$TMP/stderr")
	[ "$want" -eq 2 ] && lines=$(grep -c '^rstat-analyze: ' "$TMP/stderr")
	[ "$lines" -eq 1 ] ||
		fail "$*: $lines error lines on stderr, expected 1: $(head -c 2000 "$TMP/stderr")"
	grep -v 'rstat-analyze: note:' "$TMP/stderr" | grep -Eq -- "$pattern" ||
		fail "$*: stderr '$(cat "$TMP/stderr")' does not match '$pattern'"
}

# The Debian cloud kernels scripts/fetch-kernels.sh caches, for the VM
# tests: sets K61 and K612 (their vmlinuz) or skips saying what is missing.
need_vm_kernels() {
	local cache=${RS_KERNEL_CACHE:-/var/cache/rstat-analyze/kernels}

	command -v qemu-system-x86_64 >/dev/null 2>&1 ||
		skip "qemu-system-x86_64 is not installed (Debian package qemu-system-x86)"
	K61=$(ls -d "$cache"/6.1.0-*/vmlinuz 2>/dev/null | sort -V | tail -n 1)
	K612=$(ls -d "$cache"/6.12.*/vmlinuz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$K61" ] && [ -n "$K612" ] ||
		skip "no Debian 6.1 and 6.12 cloud kernels in $cache: run scripts/fetch-kernels.sh"
}

# need_vm_kernels, and what decomposing reads in a guest needs besides:
# root (the VM's work directory is root's) and a build with BPF.
need_vm_breakdown() {
	need_vm_kernels
	[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"
	grep -aq bd_cb_memory_entry "$RS_BIN" ||
		skip "built without BPF: the reads cannot be decomposed"
}

# The newest cached kernel with split rstat trees (v6.16+: Debian's sid,
# fetched only on request): its vmlinuz, or nothing.
SID_KERNEL_MISSING="no sid kernel (v6.16+, split rstat trees) in ${RS_KERNEL_CACHE:-/var/cache/rstat-analyze/kernels}: run scripts/fetch-kernels.sh --sid"
sid_kernel() {
	local cache=${RS_KERNEL_CACHE:-/var/cache/rstat-analyze/kernels} rel

	rel=$(for k in "$cache"/*/vmlinuz; do
		[ -s "$k" ] && basename "$(dirname "$k")"
	done | awk -F. '$1 > 6 || ($1 == 6 && $2 + 0 >= 16)' |
		sort -V | tail -n 1)
	[ -z "$rel" ] || echo "$cache/$rel/vmlinuz"
}

# The cached kernel VMLINUZ was built with BTF (its config beside it):
# the breakdown's flush functions are then timed by fentry.
kernel_btf() {
	grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$(dirname "$1")/config" 2>/dev/null
}

# Sets KSID to sid_kernel's or skips saying what to fetch.
need_sid_kernel() {
	KSID=$(sid_kernel)
	[ -n "$KSID" ] || skip "$SID_KERNEL_MISSING"
}

# The VM work directories no live run owns (as root the tool makes them
# here): another run sharing the machine keeps its own while it lives. Its
# .owner stamp, "rstat-analyze vm pid=P start=T boot=B" (src/workdir.c),
# is read as the tool's stale check reads it: alive while this boot's
# process P started at T (field 22 of /proc/P/stat).
vm_workdirs() {
	local d stamp pid start boot now
	local this_boot=$(cat /proc/sys/kernel/random/boot_id)
	for d in /var/lib/rstat-analyze/rstat-analyze-vm.*; do
		[ -d "$d" ] || continue
		stamp=$(cat "$d/.owner" 2>/dev/null)
		pid=$(sed -n 's/^rstat-analyze vm pid=\([0-9]*\) .*/\1/p' <<<"$stamp")
		start=$(sed -n 's/.* start=\([0-9]*\) .*/\1/p' <<<"$stamp")
		boot=$(sed -n 's/.* boot=\([^ ]*\)$/\1/p' <<<"$stamp")
		now=
		[ -n "$pid" ] && [ "$boot" = "$this_boot" ] &&
			now=$(awk '{ sub(/.*\) /, ""); print $20 }' \
				"/proc/$pid/stat" 2>/dev/null)
		[ -n "$start" ] && [ "$now" = "$start" ] && continue
		echo "$d"
	done | sort
}

# The VM work directories no live run owns that were not there at BEFORE
# (an earlier vm_workdirs): what the runs since then left. A stale one of
# another run may go meanwhile (each VM run removes them): not ours.
vm_workdirs_new() {
	local d

	# No process substitution: its subshells outlive the test (zombies
	# until init reaps them).
	while read -r d; do
		[ -z "$d" ] || grep -qxF -- "$d" <<<"$1" || echo "$d"
	done <<<"$(vm_workdirs)"
}

# A guest shell command that reads the root's cpu.stat N times, each in a
# forked subshell: a probe must be inherited, and every fork must work
# (with the kprobe PMU forks failed with EFAULT on 6.12).
forked_stat_reads() {
	echo "i=0
	while [ \$i -lt $1 ]; do
		(read x < /sys/fs/cgroup/cpu.stat) || echo FORK-FAILED
		i=\$((i + 1))
	done"
}

# no_fork_failed WHAT: no fork failed in the guest (FORK-FAILED from
# forked_stat_reads, or the shell's own word) per $TMP/out and $TMP/err.
no_fork_failed() {
	! grep -qi "fork" "$TMP/out" "$TMP/err" ||
		fail "$1: a fork failed: $(cat "$TMP/out" "$TMP/err")"
}
