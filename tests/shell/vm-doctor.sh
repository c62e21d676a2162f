#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# doctor --kernel boots Debian's 6.1 cloud kernel under TCG and prints the
# guest's doctor as the guest printed it: the oracle is the kernel itself
# (kprobe_events, no rstat tracepoints before 6.10, a pure v2 layout with
# the io controller that this host lacks). One boot: vm-bench and
# vm-record boot 6.12 and check what it has (v2 with memory and io, the
# rstat tracepoints, kprobes). With sid's kernel cached (opt-in:
# scripts/fetch-kernels.sh --sid) a second boot: 7.x has the rstat lock
# tracepoints, no longer the per-CPU lock ones (gone in v6.17), and
# memcg_flush_stats (v6.13+).
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

before=$(vm_workdirs)
# Text mode prints the guest's report as the guest printed it.
"$RS_BIN" doctor --kernel "$K61" --accel tcg >"$TMP/text" 2>"$TMP/err" ||
	fail "doctor text: $(cat "$TMP/err")"
grep -q "^rstat-analyze doctor: kernel 6\.1\.0-" "$TMP/text" ||
	fail "doctor text names no 6.1 kernel: $(head -n 3 "$TMP/text")"
grep -Eq '^  io.stat +v2: ' "$TMP/text" || fail "no v2 io.stat in the guest"
grep -Eq '^  kprobe_events +yes' "$TMP/text" || fail "6.1 has kprobe_events"
grep -Eq '^  cgroup:cgroup_rstat_locked +no ' "$TMP/text" ||
	fail "6.1 has no rstat tracepoints, the guest's doctor says otherwise"

KSID=$(sid_kernel)
if [ -z "$KSID" ]; then
	skip_part "$SID_KERNEL_MISSING"
else
	rel=$(basename "$(dirname "$KSID")")
	"$RS_BIN" doctor --kernel "$KSID" --accel tcg >"$TMP/sid" \
		2>"$TMP/err" || fail "doctor --kernel $rel: $(cat "$TMP/err")"
	grep -qx "rstat-analyze doctor: kernel $rel" "$TMP/sid" ||
		fail "doctor names no $rel kernel: $(head -n 3 "$TMP/sid")"
	for want in '  memory.stat +v2: ' '  io.stat +v2: ' \
		    '  kprobe_events +yes' '  cgroup:cgroup_rstat_locked +yes ' \
		    '  cgroup:cgroup_rstat_cpu_locked +no ' \
		    '  memcg:memcg_flush_stats +yes '; do
		grep -Eq "^$want" "$TMP/sid" ||
			fail "$rel: the guest's doctor has no '$want': $(cat "$TMP/sid")"
	done
	echo "ok $rel"
fi

[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
