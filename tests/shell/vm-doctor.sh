#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# doctor --kernel boots Debian's 6.1 and 6.12 cloud kernels under TCG and
# prints what each guest kernel has: the oracle is the kernels themselves
# (rstat tracepoints since 6.10, kprobe_events in both, a pure v2 layout
# with the memory and io controllers that this host lacks).
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

before=$(vm_workdirs)
# 6.12 in JSON, 6.1 as text: two boots, both printers.
for k in "$K612"; do
	timeout 300 "$RS_BIN" doctor --json --kernel "$k" --accel tcg \
		>"$TMP/doctor.json" 2>"$TMP/err" ||
		fail "doctor --kernel $k: $(tail -n 20 "$TMP/err")"
	python3 - "$TMP/doctor.json" "$k" <<'PY' || fail "doctor --kernel $k: wrong report"
import json, re, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2].split('/')[-2]        # the cache dir is named after it
assert d["release"] == want, (d["release"], want)
major, minor = map(int, re.match(r"(\d+)\.(\d+)", want).groups())
assert d["kprobe_events"] is True and d["kprobe_pmu"] is True, d
assert d["cgroup_layout"] == "v2", d["cgroup_layout"]
for c in ("cpu", "memory", "io"):
    assert c in d["v2_controllers"], d["v2_controllers"]
tps = {t["name"]: t["present"] for t in d["tracepoints"]}
locked = tps["cgroup:cgroup_rstat_locked"]
assert locked == ((major, minor) >= (6, 10)), (want, locked)
print("ok", want, "rstat tracepoints:", locked)
PY
done
# Text mode prints the guest's report as the guest printed it.
"$RS_BIN" doctor --kernel "$K61" --accel tcg >"$TMP/text" 2>"$TMP/err" ||
	fail "doctor text: $(cat "$TMP/err")"
grep -q "^rstat-analyze doctor: kernel 6\.1\.0-" "$TMP/text" ||
	fail "doctor text names no 6.1 kernel: $(head -n 3 "$TMP/text")"
grep -Eq '^  io.stat +v2: ' "$TMP/text" || fail "no v2 io.stat in the guest"
grep -Eq '^  kprobe_events +yes' "$TMP/text" || fail "6.1 has kprobe_events"
grep -Eq '^  cgroup:cgroup_rstat_locked +no ' "$TMP/text" ||
	fail "6.1 has no rstat tracepoints, the guest's doctor says otherwise"

[ "$(vm_workdirs)" = "$before" ] || fail "work directories left: $(vm_workdirs)"
echo "ok"
