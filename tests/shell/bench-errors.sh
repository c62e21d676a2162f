#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench's usage errors (exit 2) and failures (exit 1, one line naming what
# is needed): not root, a missing controller, a bad --root, an output that
# cannot be written (found before the run). Then what a run records of
# itself: the exact command line, the cgroups it leaves, the .old of an
# earlier results file, and the main job kept whole under options.
. tests/shell/lib.sh

expect_error 2 "not a scenario" "$RS_BIN" bench nosuch
expect_error 2 "give memory, cpu or both" "$RS_BIN" bench stat-read --updater x
expect_error 2 "give a number" "$RS_BIN" bench stat-read --children 0
expect_error 2 "give a size" "$RS_BIN" bench stat-read --memory-max 12Q
expect_error 2 "scenario comes first" "$RS_BIN" bench -r 2 pipe
expect_error 2 "unknown option" "$RS_BIN" bench pipe --bogus
# Another scenario's options, and files bench does not know.
expect_error 2 "--cgroups is not an option of stat-read \(it is of many-cgroups\)" \
	"$RS_BIN" bench stat-read --cgroups 5
expect_error 2 "--children is not an option of pipe \(it is of stat-read, fault, accuracy\)" \
	"$RS_BIN" bench pipe --children 3
expect_error 2 "--kind is not an option of stat-read \(it is of accuracy\)" \
	"$RS_BIN" bench stat-read --kind anon
expect_error 2 "--kind 'shmem': give anon, file or both" \
	"$RS_BIN" bench accuracy --kind shmem
expect_error 2 "--cpus-spread 'all': give pinned or spread" \
	"$RS_BIN" bench accuracy --cpus-spread all
expect_error 2 "--rate '0': give a number above 0" \
	"$RS_BIN" bench accuracy --rate 0
expect_error 2 "--interval 'x': give a number above 0" \
	"$RS_BIN" bench accuracy --interval x
expect_error 2 "--step '257': give a number from 1 to 256" \
	"$RS_BIN" bench accuracy --step 257
expect_error 2 "--duration is not an option of stat-read, the default scenario" \
	"$RS_BIN" bench --duration 3
expect_error 2 "'memroy.stat' is not a cgroup stat file" \
	"$RS_BIN" bench stat-read --files cpu.stat,memroy.stat

[ "$(id -u)" -eq 0 ] || skip "the rest needs root"
if command -v setpriv >/dev/null; then
	expect_error 1 "not root" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$RS_BIN" bench pipe --round-trips 10
fi
expect_error 1 "bench: " "$RS_BIN" bench pipe --round-trips 10 \
	--root /nonexistent-rstat-root
# A bad output is found before the run, not after an hour of it.
start=$(date +%s)
expect_error 1 "/nonexistent-dir/r.json: cannot write" \
	"$RS_BIN" bench pipe --round-trips 1000000000 \
	--json /nonexistent-dir/r.json
[ $(($(date +%s) - start)) -lt 10 ] || fail "the bad --json was found late"

cd "$TMP" || fail cd
# --json's name needs a shell's quotes: the command line in the results
# must give the same words back to a shell (python's shlex splits it).
json_name="my results's.json"
argv=(bench stat-read --children 3 --reads 10 --files cpu.stat,cgroup.stat
	--updater cpu -o out --json "$json_name")
"$RS_BIN" "${argv[@]}" >/dev/null 2>err || fail "bench: $(cat err)"
"$RS_BIN" "${argv[@]}" >/dev/null 2>err &
pid=$!
wait $pid || fail "bench again: $(cat err)"
[ -s out/results.json.old ] || fail "-o DIR replaced results.json silently"
# The run's tree (rstat-analyze-bench-PID) is gone from every hierarchy.
# The counts in the provenance are machine-wide: other runs sharing the
# machine may add cgroups, so they are checked for form only.
left=$(find /sys/fs/cgroup -maxdepth 3 -name "rstat-analyze-bench-$pid*" \
	-type d 2>/dev/null)
[ -z "$left" ] || fail "the run left its cgroups: $left"
python3 - out/results.json rstat-analyze "${argv[@]}" <<'PY' || fail "provenance"
import json, shlex, sys
p = json.load(open(sys.argv[1]))["provenance"]
assert shlex.split(p["command_line"]) == sys.argv[2:], (p["command_line"], sys.argv[2:])
# How busy the machine was, from /proc as this test reads it.
load = p["load"]
assert load["loadavg_before"] >= 0 and load["loadavg_after"] >= 0, load
assert 0 <= load["steal_s"] < 3600, load
# The reader's rate per CPU second beside the one per wall second: the
# same reads over its user+sys (which, counted in ticks, can pass its
# real time on a run this short).
rep = json.load(open(sys.argv[1]))["repetitions"][0]
m = {x["name"]: x["value"] for x in rep["metrics"] if x["kind"] == "value"}
cpu = rep["time"]["user_s"] + rep["time"]["sys_s"]
assert abs(m["reads_per_cpu_s"] - m["reads_per_s"] * rep["time"]["real_s"] / cpu) \
    <= 1e-6 * m["reads_per_cpu_s"], (m, rep["time"])
for side in ("cgroups_before", "cgroups_after"):
    for k in ("v2_live", "v2_dying", "v1_memory"):
        assert isinstance(p[side][k], int) and p[side][k] >= -1, (side, p)
PY

# On a terminal, the step and the repetition on stderr (script(1) gives
# the run a pty); --keep says where the kept tree is, and no later run
# takes it for a stale one.
if command -v script >/dev/null 2>&1; then
	script -qec "$RS_BIN bench stat-read --children 1 --reads 10 --files cpu.stat -r 2 --updater cpu >/dev/null" \
		/dev/null >tty.out 2>&1 || fail "bench on a pty: $(cat tty.out)"
	grep -q "bench stat-read: repetition 2 of 2" tty.out ||
		fail "no progress on a terminal: $(head -c 500 tty.out)"
fi
# The kept trees are the test's to remove, on every exit path.
remove_kept() {
	sed -n "s/.*--keep: the run's cgroups stay in \([^:]*\):.*/\1/p" \
		"$TMP/keep.err" 2>/dev/null | while read -r d; do
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
}
trap 'remove_kept; rm -rf "$TMP"' EXIT
"$RS_BIN" bench stat-read --children 1 --reads 10 --files cpu.stat \
	--updater cpu --keep >/dev/null 2>keep.err || fail "--keep: $(cat keep.err)"
kept=$(sed -n "s/.*--keep: the run's cgroups stay in \([^:]*\):.*/\1/p" keep.err | head -1)
[ -n "$kept" ] && [ -d "$kept" ] || fail "--keep did not say where: $(cat keep.err)"
"$RS_BIN" bench stat-read --children 1 --reads 10 --files cpu.stat \
	--updater cpu >/dev/null 2>next.err || fail "after --keep: $(cat next.err)"
[ -d "$kept" ] || fail "the next run removed the kept tree $kept"
grep -q "$kept: no owner stamp" next.err ||
	fail "the next run did not name the kept tree: $(cat next.err)"
remove_kept

# The main job stays the main job (recorded, reported) under options.
"$RS_BIN" bench --children 2 --reads 50 --files cpu.stat -o main \
	>main.out 2>main.err || fail "bench -o main: $(cat main.err)"
[ -s main/rstat.data ] || fail "options turned the main job's recording off"
grep -q "^# rstat-analyze bench stat-read" main.out ||
	fail "no results printed"
grep -Eqi "flush|attribution|samples" main.out ||
	fail "the main job's report is missing: $(tail -5 main.out)"
echo "errors are one line, with what is needed"
