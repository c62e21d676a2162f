#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record --kernel K --probe FUNC -- CMD on Debian's 6.1 and 6.12 cloud
# kernels (kprobes, which this host lacks): CMD is a shell whose every
# read of cpu.stat runs in a forked subshell, so the probe must be
# inherited and every fork must work (with the kprobe PMU the forks
# failed with EFAULT on 6.12). cgroup_base_stat_cputime_show runs once per
# cpu.stat read on both kernels: perf script (the oracle) and report on
# this host must both count exactly the reads, from the guest's symbols.
# The TCG guest's kernel must be told tsc=reliable.
. tests/shell/lib.sh
need_vm_kernels
need_perf
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

before=$(vm_workdirs)
n=20
for k in "$K61" "$K612"; do
	out=$TMP/probe.data
	"$RS_BIN" record -q --kernel "$k" --accel tcg -o "$out" \
		--probe cgroup_base_stat_cputime_show -- sh -c "
		read cmdline < /proc/cmdline
		echo cmdline=\$cmdline
		read cs < /sys/devices/system/clocksource/clocksource0/current_clocksource
		echo clocksource=\$cs
		$(forked_stat_reads $n)" >"$TMP/out" 2>"$TMP/err" ||
		fail "record --kernel $k: $(tail -n 20 "$TMP/err")"
	no_fork_failed "$k"
	# Under TCG the guest is told its TSC is reliable, not left on the
	# HPET, whose reads cost an emulated device access each. (Its boot
	# may still find a TSC warp between CPUs and take the HPET: said.)
	grep -q "^cmdline=.* tsc=reliable" "$TMP/out" ||
		fail "$k: no tsc=reliable for a TCG guest: $(grep cmdline "$TMP/out")"
	grep "^clocksource=" "$TMP/out"
	hits=$(perf script -i "$out" -F event 2>/dev/null |
		grep -c 'probe:cgroup_base_stat_cputime_show:')
	[ "$hits" -eq $n ] || fail "$k: perf script counts $hits hits, expected $n"
	"$RS_BIN" report -i "$out" --json >"$TMP/r.json" 2>"$TMP/err" ||
		fail "report: $(cat "$TMP/err")"
	rel=$(basename "$(dirname "$k")")
	python3 - "$TMP/r.json" $n "$rel" <<'PY' || fail "$k: report's counts"
import json, sys
d = json.load(open(sys.argv[1]))
c = {e["name"]: e["samples"] for e in d["events"]}
got = c.get("probe:cgroup_base_stat_cputime_show")
assert got == int(sys.argv[2]), c
assert d["header"]["os_release"] == sys.argv[3], d["header"]
print("ok", d["header"]["os_release"], got)
PY
done

# A script as the command, under /tmp: the guest has it at its path, the
# usual commands for it (busybox's, when the host has busybox), and
# record's status is the script's; the messages name the user's -o file.
script=$(mktemp /tmp/rstat-vm-script.XXXXXX)
trap 'rm -f "$script"; rm -rf "$TMP"' EXIT
cat >"$script" <<'SH'
#!/bin/sh
cat /proc/version | sed -n 's/^Linux version \([^ ]*\).*/release=\1/p'
exit 3
SH
chmod 755 "$script"
"$RS_BIN" record --kernel "$K612" --accel tcg -o "$TMP/s.data" -- "$script" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 3 ] || fail "record --kernel -- SCRIPT: exit $rc, want 3: $(tail -n 5 "$TMP/err")"
[ -s "$TMP/s.data" ] || fail "the recording of a failing script was not kept"
if command -v busybox >/dev/null 2>&1; then
	grep -qx "release=$(basename "$(dirname "$K612")")" "$TMP/out" ||
		fail "the script's cat | sed did not run in the guest: $(cat "$TMP/out") $(cat "$TMP/err")"
else
	skip_part "no busybox on this host: the guest has no cat or sed for scripts"
fi
grep -q "recorded .* in $TMP/s.data " "$TMP/err" ||
	fail "the message does not name the -o file: $(cat "$TMP/err")"
grep -q /out/rstat.data "$TMP/err" &&
	fail "a message names the guest's path: $(cat "$TMP/err")"
[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
