#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench --variant: A and B in one run, interleaved run by run. Usage
# errors first (exit 2, one line); then, as root, two stat-read variants
# (--interleave vs --discrete): the runs alternate A B A B (the order
# printed and kept in each file's variant_sequence, and the repetitions'
# spans in provenance overlap), each variant's results file validates and
# holds its own repetitions and options, and bench prints compare's table
# naming both; a seeded random order is the seed's; pipe --psi on/off as
# a pair; with --record each variant's pass after the timed runs,
# recorded and decomposed, the tables side by side; the variants in a
# 6.1 guest (--kernel); and an interrupted run leaves no cgroup, work
# dir or results.
. tests/shell/lib.sh

v="--variant a:--interleave --variant b:--discrete"
# shellcheck disable=SC2086
{
expect_error 2 "--variant: give two variants or more" \
	"$RS_BIN" bench stat-read --variant --discrete -o "$TMP/x"
expect_error 2 "give -o DIR" "$RS_BIN" bench stat-read $v
expect_error 2 "--json is not supported" \
	"$RS_BIN" bench stat-read $v --json "$TMP/x.json" -o "$TMP/x"
expect_error 2 "name the scenario first" "$RS_BIN" bench $v -o "$TMP/x"
expect_error 2 "a name is up to 64 of" \
	"$RS_BIN" bench stat-read --variant ../up:--discrete \
	--variant --interleave -o "$TMP/x"
expect_error 2 "a name is up to 64 of" \
	"$RS_BIN" bench stat-read --variant .hidden:--discrete \
	--variant --interleave -o "$TMP/x"
expect_error 2 "the name discrete is taken" \
	"$RS_BIN" bench stat-read --variant --discrete --variant --discrete \
	-o "$TMP/x"
expect_error 2 "-r is not a scenario option" \
	"$RS_BIN" bench stat-read --variant "-r 3" --variant --discrete \
	-o "$TMP/x"
expect_error 2 "--root is not a scenario option" \
	"$RS_BIN" bench stat-read --variant "--root /x" --variant --discrete \
	-o "$TMP/x"
expect_error 2 "--cgroups is not an option of stat-read" \
	"$RS_BIN" bench stat-read --variant "--cgroups 4" \
	--variant --discrete -o "$TMP/x"
expect_error 2 "--updater 'gpu': give memory, cpu or both" \
	"$RS_BIN" bench stat-read --variant "--updater gpu" \
	--variant --discrete -o "$TMP/x"
expect_error 2 "no name comes of these options" \
	"$RS_BIN" bench stat-read --variant -- --variant --discrete -o "$TMP/x"
expect_error 2 "give the variant's options" \
	"$RS_BIN" bench stat-read --variant a: --variant --discrete -o "$TMP/x"
expect_error 2 "unknown option '--bogus'" \
	"$RS_BIN" bench stat-read --variant --bogus --variant --discrete \
	-o "$TMP/x"
expect_error 2 "--variant-order 'abba': give alternate, random" \
	"$RS_BIN" bench stat-read $v --variant-order abba -o "$TMP/x"
expect_error 2 "--variant-order orders variants" \
	"$RS_BIN" bench stat-read --variant-order random -o "$TMP/x"
expect_error 2 "--psi 'maybe': give on, off or both" \
	"$RS_BIN" bench pipe --variant --psi=maybe --variant --psi=on \
	-o "$TMP/x"
}
[ -e "$TMP/x" ] && fail "a usage error made the output directory"
echo "usage errors: exit 2, one line each"

. tests/shell/bench-lib.sh
no_leftovers "before the test"
RS_ROOT=$PWD
cd "$TMP" || fail cd
# A file a stat-read runs on every machine with cgroups.
files=cgroup.stat
[ -r /sys/fs/cgroup/cpu.stat ] && files=cgroup.stat,cpu.stat

# --- two variants, alternating ---------------------------------------
"$RS_BIN" bench stat-read -r 4 --children 2 --reads 300 --files $files \
	--variant interleave:--interleave --variant discrete:--discrete \
	-o ab >out 2>err || fail "bench --variant: $(cat err)"
# The order, as printed run by run.
grep '^# run ' out | sed -E 's/^# run [0-9]+ of 8: ([a-z]+), repetition ([0-9]).*/\1\2/' |
	tr '\n' ' ' >order
[ "$(cat order)" = "interleave1 discrete1 interleave2 discrete2 interleave3 discrete3 interleave4 discrete4 " ] ||
	fail "the runs did not alternate: $(cat order)"
for n in interleave discrete; do
	[ -f ab/$n/results.json ] || fail "no ab/$n/results.json"
	validate ab/$n/results.json
done
python3 - ab <<'EOF' || fail "the variants' results"
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/interleave/results.json"))
b = json.load(open(d + "/discrete/results.json"))
seq = ["interleave", "discrete"] * 4
for r, name, order, opts in ((a, "interleave", "interleave", ["--interleave"]),
                             (b, "discrete", "discrete", ["--discrete"])):
    p = r["params"]
    assert p["variant"] == name, p
    assert p["variant_options"] == opts, p
    assert p["variants"] == ["interleave", "discrete"], p
    assert p["variant_order"] == "alternate", p
    assert "variant_seed" not in p, p
    assert p["variant_sequence"] == seq, p["variant_sequence"]
    # The variant's own options took: stat-read's "order" param.
    assert p["order"] == order, p
    assert p["reads"] == 300 and p["children"] == 2, p
    assert p["repetitions"] == 4, p
    reps = r["repetitions"]
    assert [x["index"] for x in reps] == [0, 1, 2, 3], reps
    for x in reps:
        n = [m for m in x["metrics"] if m["name"] == "read_ns"]
        assert n and all(m["count"] == 300 for m in n), n
    assert "rstat-analyze bench stat-read -r 4" in \
        r["provenance"]["command_line"], r["provenance"]
# Interleaved, not one after the other: each variant's span (its first
# run's start to its last run's end) overlaps the other's.
pa, pb = a["provenance"], b["provenance"]
assert pa["started"] <= pb["started"] <= pa["finished"] <= pb["finished"], \
    (pa["started"], pa["finished"], pb["started"], pb["finished"])
EOF
# bench printed compare's table itself, naming both, the first the base.
grep -Eq '^ +interleave +discrete *$' out ||
	fail "no comparison naming both variants: $(head -c 3000 out)"
grep -q '^Verdicts at 95%' out || fail "no verdict lines in the comparison"
# ... compare's short default, as `compare` prints it of the two files
# (the labels are the variants' directories' names).
"$RS_BIN" compare ab/interleave/results.json -- ab/discrete/results.json \
	>cmp-short.txt 2>/dev/null || fail "compare of the two variants"
"$RS_BIN" compare ab/interleave/results.json -- ab/discrete/results.json \
	--details >cmp-details.txt 2>/dev/null ||
	fail "compare --details of the two variants"
python3 - out cmp-short.txt <<'EOF' || fail "bench's comparison is not compare's default"
import sys
out, short = open(sys.argv[1]).read(), open(sys.argv[2]).read()
assert out.endswith(short), (out[-2000:], short)
assert short.rstrip().endswith("time(1) and ministat."), short
EOF
python3 "$RS_ROOT/tests/shell/compare-paste.py" cmp-short.txt cmp-details.txt ||
	fail "bench's comparison: not pasteable"
# The verdict on each file's reads follows their medians, computed here
# from the two results files (the median of the pooled samples, in us):
# its direction is the sign of the difference, and "no difference proven"
# only when the interval it prints holds 0 (from compare --details, which
# prints the medians).
python3 - ab cmp-details.txt <<'EOF' || fail "a verdict that does not follow the medians"
import json, re, statistics, sys
d, out = sys.argv[1], open(sys.argv[2]).read()
text = " ".join(out[out.index("Verdicts at 95%"):].split("\n\n")[0].split())
a = json.load(open(d + "/interleave/results.json"))
b = json.load(open(d + "/discrete/results.json"))


def pooled(r, f):
    return [v / 1000 for x in r["repetitions"] for m in x["metrics"]
            if m["name"] == "read_ns" and m["file"] == f for v in m["samples"]]


for f in sorted({m["file"] for m in a["repetitions"][0]["metrics"]
                 if m["name"] == "read_ns"}):
    ma, mb = statistics.median(pooled(a, f)), statistics.median(pooled(b, f))
    m = re.search(r"%s-us, discrete: ([a-z ]+): median ([0-9.]+) against "
                  r"([0-9.]+) us \(([-+][0-9.]+)%%, 95%% interval "
                  r"([-+][0-9.]+)%% to ([-+][0-9.]+)%%" % re.escape(f), text)
    assert m, (f, text)
    word, med, base = m.group(1), float(m.group(2)), float(m.group(3))
    lo, hi = float(m.group(5)), float(m.group(6))
    assert abs(med - mb) <= 0.01 + 0.001 * mb and \
        abs(base - ma) <= 0.01 + 0.001 * ma, (med, mb, base, ma)
    direction = "slower" if mb > ma else "faster"
    # A lower bound printed +0.0 may be 0 or just above it, an upper one
    # printed -0.0 just below 0 (or -0 itself): below the printed
    # precision, either verdict holds. Any other sign is exact.
    edge = (lo == 0 and m.group(5).startswith("+")) or \
        (hi == 0 and m.group(6).startswith("-"))
    if lo > 0 or hi < 0:
        assert word == direction, (word, ma, mb)
    elif edge:
        assert word in (direction, "no difference proven"), (word, lo, hi)
    else:
        assert word == "no difference proven", (word, lo, hi)
    print("ok", f, word, ma, mb)
EOF
no_leftovers "after two variants"
echo "two variants alternated, each file valid, compared"

# Again: the earlier files become .old, the new ones are whole.
"$RS_BIN" bench stat-read -r 1 --children 1 --reads 50 --files cgroup.stat \
	--variant interleave:--interleave --variant discrete:--discrete \
	-o ab >out 2>err || fail "bench --variant again: $(cat err)"
[ -f ab/discrete/results.json.old ] || fail "no .old of the earlier results"

# --- a seeded random order is the seed's ------------------------------
# Names derived from the options; three variants; the order of each
# round is a permutation, the same for the same seed.
for t in 1 2; do
	"$RS_BIN" bench stat-read -r 3 --children 1 --reads 50 \
		--files cgroup.stat --variant-order random:42 \
		--variant --interleave --variant --discrete \
		--variant "--updater cpu" -o rnd$t >out$t 2>err ||
		fail "random order: $(cat err)"
	grep -q 'order random (seed 42)' out$t || fail "the seed was not printed"
	validate rnd$t/updater-cpu/results.json
done
python3 - <<'EOF' || fail "the random order"
import json
seqs = []
for t in (1, 2):
    p = json.load(open("rnd%d/updater-cpu/results.json" % t))["params"]
    assert p["variant_order"] == "random" and p["variant_seed"] == 42, p
    assert p["variant_options"] == ["--updater", "cpu"], p
    assert p["updater"] == "cpu", p
    seqs.append(p["variant_sequence"])
assert seqs[0] == seqs[1], seqs
names = ["interleave", "discrete", "updater-cpu"]
for i in range(3):
    assert sorted(seqs[0][3 * i:3 * i + 3]) == sorted(names), seqs[0]
EOF
echo "random:42: blocks of every variant, the same order twice"

# --- --record: each variant's pass, recorded and decomposed ----------
# After the timed rounds, each variant's pass, a run of its own: its
# recording in DIR/NAME/, its decomposition in its results, no
# repetition more; the variants' tables side by side after the
# comparison (breakdown-variants.py: the parts add up, the table is the
# results').
"$RS_BIN" bench stat-read -r 2 --children 2 --reads 200 --files $files \
	--variant interleave:--interleave --variant discrete:--discrete \
	--record -o rec >out 2>err || fail "bench --variant --record: $(cat err)"
grep '^# run ' out | sed -E 's/^# run ([0-9]+)( of 4)?: ([a-z]+), (repetition ([0-9])|the ([a-z]+) pass).*/\1\3\5\6/' |
	tr '\n' ' ' >order
[ "$(cat order)" = "1interleave1 2discrete1 3interleave2 4discrete2 5interleaverecorded 6discreterecorded " ] ||
	fail "--record: the runs: $(cat order)"
for n in interleave discrete; do
	validate rec/$n/results.json
	[ -s rec/$n/rstat.data ] || fail "--record: no rec/$n/rstat.data"
	grep -q "^# $n's recorded pass: rstat-analyze report -i rec/$n/rstat.data" out ||
		fail "--record: $n's recording not named"
	python3 - rec/$n/results.json $n <<'EOF' || fail "--record: $n's results"
import json, sys
r, n = json.load(open(sys.argv[1])), sys.argv[2]
p = r["params"]
assert p["record"] is True and p["breakdown"] is True, p
assert p["repetitions"] == 2 and len(r["repetitions"]) == 2, p
assert r["recording"]["file"] == "rec/%s/rstat.data" % n, r["recording"]
assert r["recording"]["pass"]["metrics"], r["recording"]
EOF
done
"$RS_BIN" report -i rec/discrete/rstat.data >report 2>&1 ||
	fail "report of a variant's recording: $(tail -n 5 report)"
if grep -q "reads not decomposed" err; then
	skip_part "--variant --record: reads not decomposed here: $(grep -m1 'not decomposed' err)"
else
	python3 "$RS_ROOT/tests/shell/breakdown-variants.py" out 5 \
		interleave=rec/interleave/results.json \
		discrete=rec/discrete/results.json ||
		fail "--record: the variants' breakdowns"
	echo "--record: each variant's pass recorded and decomposed, side by side"
fi
no_leftovers "after --record"

# --- pipe: PSI on and off as a pair compare tests --------------------
"$RS_BIN" bench pipe -r 2 --round-trips 2000 --variant --psi=on \
	--variant --psi=off -o psi >out 2>err
rc=$?
if [ $rc -eq 0 ]; then
	grep -Eq '^ +psi-on +psi-off *$' out || fail "pipe: no comparison"
	grep -q '^round_trips_per_s, psi-off: ' out ||
		fail "pipe: round trips per second not tested"
	validate psi/psi-off/results.json
	echo "pipe --psi on vs off compared"
else
	grep -q "PSI can't be toggled per cgroup here" err ||
		fail "pipe --psi: exit $rc: $(cat err)"
	skip_part "PSI can't be toggled per cgroup on this machine"
fi
no_leftovers "after pipe"

# --- in a guest: the variants' files per release ---------------------
cache=${RS_KERNEL_CACHE:-/var/cache/rstat-analyze/kernels}
K61=$(ls -d "$cache"/6.1.0-*/vmlinuz 2>/dev/null | sort -V | tail -n 1)
if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ -z "$K61" ]; then
	skip_part "no qemu-system-x86_64 or no 6.1 kernel in $cache (scripts/fetch-kernels.sh): variants in a guest not tried"
else
	"$RS_BIN" bench stat-read -r 2 --children 2 --reads 200 \
		--files cgroup.stat --variant interleave:--interleave \
		--variant discrete:--discrete --kernel "$K61" -o vm \
		>out 2>err || fail "variants in a guest: $(cat err)"
	rel=$(basename "$(dirname "$K61")")
	for n in interleave discrete; do
		validate "vm/$rel/$n/results.json"
	done
	python3 - "vm/$rel" <<'EOF2' || fail "the guest's variants"
import json, sys
for n in ("interleave", "discrete"):
    r = json.load(open("%s/%s/results.json" % (sys.argv[1], n)))
    p = r["params"]
    assert p["variant"] == n and p["repetitions"] == 2, p
    assert p["variant_sequence"] == ["interleave", "discrete"] * 2, p
    # The host measured the guest's clock for each variant's file.
    assert r["provenance"]["vm_clock"] is not None, r["provenance"]
    assert r["provenance"]["kernel"].startswith("6.1."), r["provenance"]
EOF2
	grep -Eq '^ +interleave +discrete *$' out ||
		fail "the guest printed no comparison of its variants"
	echo "variants in a 6.1 guest: per-variant files, compared"
fi

# --- interrupted: nothing left, nothing written -----------------------
for sig in INT TERM; do
	delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.3 + (r % 150) / 100 }')
	"$RS_BIN" bench stat-read -r 50 --children 4 --reads 20000 \
		--files cgroup.stat --variant --interleave --variant --discrete \
		-o int$sig >out 2>err &
	pid=$!
	sleep "$delay"
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc -eq 1 ] || fail "SIG$sig after ${delay}s: exit $rc: $(cat err)"
	[ "$(grep -vc 'rstat-analyze: note:' err)" -eq 1 ] ||
		fail "SIG$sig: not one line: $(cat err)"
	grep -q "interrupted by SIG$sig: removed" err ||
		fail "SIG$sig: exit 1 without saying why: $(cat err)"
	[ -z "$(find int$sig -type f 2>/dev/null)" ] ||
		fail "SIG$sig: an interrupted run wrote $(find int$sig -type f)"
	no_leftovers "SIG$sig after ${delay}s"
	echo "SIG$sig after ${delay}s: exit 1, nothing left"
done
exit 0
