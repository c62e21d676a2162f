#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest's clock is held against the host's. Two boots of Debian's 6.12
# under TCG run the same small bench: once with --vm-clock icount, where
# guest time counts instructions (1 ns each) and so runs apart from the
# host's (a deliberately skewed clock), once on the real clock. The first
# run's results are marked (vm_clock.ok false, a note on stderr, a
# WARNING above compare's tables), the second's are not; both carry the
# two clocks' figures, and their drift is what those figures say. 800
# reads keep both runs past the check's 2 s floor with room to spare
# (1500 took 15.5 s of host time counting instructions and 11.8 s on the
# real clock on the idle host; 300 once took 1.4 s, and the drift went
# unsaid), and the test near half a minute.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the guest's bench makes cgroups as root"
cd "$TMP" || fail cd

before=$(vm_workdirs)
args=(bench stat-read --children 1 --reads 800 --files cpu.stat
	--updater cpu --kernel "$K612" --accel tcg)
"$RS_BIN" "${args[@]}" --vm-clock icount -o skewed >skewed.out 2>skewed.err ||
	fail "bench --vm-clock icount: $(tail -n 5 skewed.err)"
grep -q "vm-clock icount: the guest's clock counted instructions" skewed.err ||
	fail "no note that guest time counted instructions: $(cat skewed.err)"
"$RS_BIN" "${args[@]}" -o real >real.out 2>real.err ||
	fail "bench: $(tail -n 5 real.err)"
grep -q "clock ran" real.err &&
	fail "a warning about the real clock: $(cat real.err)"

python3 - skewed/*/results.json real/*/results.json <<'PY' ||
import json, math, sys
for path, want_ok, clock in ((sys.argv[1], False, "icount"),
                             (sys.argv[2], True, "real")):
    d = json.load(open(path))
    assert d["schema"] == "rstat-analyze-bench/4", d["schema"]
    c = d["provenance"]["vm_clock"]
    assert c["clock"] == clock and c["ok"] is want_ok, (path, c)
    # The run lasts longer than the check's 2 s floor: a drift is said,
    # and it is what the two clocks' figures make.
    assert c["host_s"] >= 2 and c["guest_s"] > 0, c
    # The JSON rounds each figure to 10 significant digits: a drift
    # near 0 is then only as exact as its clocks' last digits.
    assert math.isclose(c["drift"], c["guest_s"] / c["host_s"] - 1,
                        rel_tol=1e-6, abs_tol=1e-8), c
    if want_ok:
        assert abs(c["drift"]) <= 0.05, c
    print(path, c)
PY
	fail "the guests' clocks in the results"
"$RS_BIN" compare real/*/results.json -- skewed/*/results.json >cmp.txt \
	2>cmp.err || fail "compare: $(cat cmp.err)"
sed -n 2,3p cmp.txt | tr '\n' ' ' |
	grep -q "^WARNING: .*guest time counted instructions" ||
	fail "compare's table has no warning for the skewed side: $(head -n 5 cmp.txt)"
"$RS_BIN" compare real/*/results.json -- real/*/results.json >cmp2.txt ||
	fail "compare of the real run"
grep -q WARNING cmp2.txt && fail "a warning for the real clock: $(head -n 5 cmp2.txt)"
[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok: the icount guest's clock is marked, the real one's is not"
