#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest's clock is held against the host's. Two boots of Debian's 6.12
# under TCG run the same small bench: once with --vm-clock icount, where
# guest time counts instructions (1 ns each) and so runs apart from the
# host's (a deliberately skewed clock), once on the real clock. The first
# run's results are marked (vm_clock.ok false, a note on stderr, a
# WARNING above compare's tables), the second's are not; both carry the
# two clocks' figures, and their drift is what those figures say. Each
# run must last past the check's 2 s floor: 800 reads mostly do (1500
# took 15.5 s of host time counting instructions and 11.8 s on the real
# clock on the idle host), but once took 0.7 s, and the drift went
# unsaid; a run that short is made again with four times the reads.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the guest's bench makes cgroups as root"
cd "$TMP" || fail cd

before=$(vm_workdirs)

# bench_past_floor NAME [ARGS...]: the bench in NAME/, run again with
# four times the reads while it lasted under the check's 2 s of host
# time (a guest counting instructions ran 800 reads in 0.7 s once, and
# its drift then went unsaid).
bench_past_floor() {
	local name=$1 reads
	shift
	for reads in 800 3200 12800; do
		rm -rf "$name"
		"$RS_BIN" bench stat-read --children 1 --reads $reads \
			--files cpu.stat --updater cpu --kernel "$K612" \
			--accel tcg "$@" -o "$name" >"$name.out" 2>"$name.err" ||
			fail "bench $*: $(tail -n 5 "$name.err")"
		# 0: long enough; 3: too short, again longer; else broken.
		python3 - "$name"/*/results.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["provenance"]["vm_clock"]
sys.exit(0 if c["host_s"] >= 2.5 else 3)
PY
		case $? in
		0) return 0 ;;
		3) ;;
		*) fail "bench $*: no vm_clock in its results.json" ;;
		esac
	done
	fail "bench $*: under 2.5 s of host time even with $reads reads"
}

bench_past_floor skewed --vm-clock icount
grep -q "vm-clock icount: the guest's clock counted instructions" skewed.err ||
	fail "no note that guest time counted instructions: $(cat skewed.err)"
bench_past_floor real
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
