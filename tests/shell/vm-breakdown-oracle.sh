#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 25's thread 000, bench --breakdown held against an oracle that is
# none of the tool's code, each kernel booted once: in the guest,
# tests/tools/flush-oracle.sh puts tracefs kprobe and kretprobe events on
# cpu_stat_show and on each per-css flush callback around
# `/init bench stat-read --breakdown` (8 children charging memory, their
# parent's cpu.stat read), and times every task's reads. The guest runs
# under `record --kernel` (the harness's way to run a command in a VM;
# -F 1 and --spans perf, no BPF programs of its own beside bench's; the
# oracle sets the recorder's records apart). 6.12's guest has one CPU:
# two make a TCG read twenty times longer with time no kernel event
# accounts for, which drowns memory's share. sid's has two: there
# memory's share is 0 either way. bench's results come back as text on
# stderr.
#
# The breakdown pass's reader (results' reader_pid) against the oracle's
# figures for that task: the same number of reads; each callback it
# times (memory, io, bpf) called exactly as often inside them as the
# oracle counted; memory's share of cpu.stat's read time within 10
# points of the oracle's (its callbacks' time over the reads' whole
# time). Both count what the kernel did, so counts are exact; times are
# emulated under TCG, so only shares are compared.
# Debian's 6.12 (one rstat tree until v6.16, the thread's "before"):
# memory's callback runs inside cpu.stat's reads, once per flushed
# cgroup and CPU like bpf_rstat_flush, and holds a share above 0. sid's
# 7.x (split trees, the "after"): memory's and io's callbacks never run
# inside them, the base tree's flush alone does, while memory had work
# all along (the oracle counts its callback outside the reads). Without
# the sid kernel (scripts/fetch-kernels.sh --sid) that half is a
# PART-SKIP. Also checked on both: the results validate, every read is
# decomposed once, the parts add up to each read, the walk once a read,
# the kernel's reads pair with the reader's (entry/exit derived).
# The kernel may skip a BPF program's run (docs/breakdown.md: with the
# classic syscall tracepoints 7.2 skipped most of a reader's syscalls):
# every skip is in the results (skipped_runs), and a count that differs
# from the oracle's or the reader's is a PART-SKIP naming the skipped
# program whose runs explain it (the reader's syscalls seen skipped, a
# callback's or the walk's kprobe programs skipped), else a FAIL that
# says what the kernel skipped beside it.
. tests/shell/lib.sh
need_vm_kernels
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"
grep -aq bd_cb_memory_entry "$RS_BIN" ||
	skip "built without BPF: the reads cannot be decomposed"

RS_ROOT=$PWD
before=$(vm_workdirs)
reads=100
oracle=$PWD/tests/tools/flush-oracle.sh
# In the guest: bench (the guest's /init is the tool), its results
# after it on stdout, which the oracle sends to stderr with CMD's.
guest_cmd="/init bench stat-read --children 8 --updater memory \
--files cpu.stat --reads $reads --breakdown -o /tmp/bd >&2 &&
sed 's/^/@json /' /tmp/bd/results.json"

# run KERNEL NAME CPUS: the oracle's lines into $TMP/NAME.oracle, bench's
# results into $TMP/NAME.json.
run() {
	local rc

	# The kernel's BTF: the flush functions must be timed by fentry.
	if kernel_btf "$1"; then echo 1; else echo 0; fi >"$TMP/$2.btf"
	timeout 900 "$RS_BIN" record -q -F 1 --spans perf --kernel "$1" \
		--accel tcg --vm-cpus "$3" -o "$TMP/$2.data" -- "$oracle" -- \
		sh -c "$guest_cmd" >"$TMP/$2.oracle" 2>"$TMP/$2.err"
	rc=$?
	[ $rc -eq 77 ] && skip "$2: $(grep -m1 'skip:' "$TMP/$2.err")"
	[ $rc -eq 0 ] ||
		fail "$2: oracle around bench (exit $rc): $(grep -v '^@json' "$TMP/$2.err" | tail -n 30)"
	grep -q "reads not decomposed" "$TMP/$2.err" &&
		fail "$2: bench could not decompose: $(grep 'not decomposed' "$TMP/$2.err")"
	sed -n 's/^@json //p' "$TMP/$2.err" >"$TMP/$2.json"
	[ -s "$TMP/$2.json" ] ||
		fail "$2: no results came back: $(tail -n 20 "$TMP/$2.err")"
	grep -v '^task' "$TMP/$2.oracle" | sed 's/^/  /'
	python3 "$RS_ROOT/tests/shell/bench-schema.py" \
		"$RS_ROOT/docs/bench-results.schema.json" "$TMP/$2.json" ||
		fail "$2: results do not validate"
}

# check NAME: bench's breakdown against the oracle's lines.
check() {
	local rc

	python3 - "$TMP/$1.json" "$TMP/$1.oracle" $reads \
		"$(cat "$TMP/$1.btf")" >"$TMP/$1.check" \
		<<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
reads, btf = int(sys.argv[3]), sys.argv[4] == "1"
ora = [l.split() for l in open(sys.argv[2])]
(rel,) = [w[1] for w in ora if w[0] == "kernel"]
ver = tuple(int(x) for x in rel.split("-")[0].split(".")[:2])
split = ver >= (6, 16)
lost = [int(w[1]) for w in ora if w[0] == "lost"]
assert lost == [0], ("the oracle lost events", lost)
bd = d["breakdown"]
# What the kernel skipped: each count below that differs may be excused
# by the runs of the programs that time it, and by nothing else.
sk = bd["skipped_runs"]
runs = {p["program"]: p["recursion"] + p["missed"] for p in sk["programs"]}
said = "the kernel skipped %s; %d of the reader's syscalls%s" % (
    ", ".join("%s %d" % kv for kv in sorted(runs.items())) or "no run",
    sk["reader_syscalls"],
    "" if sk["counted"] else " (this kernel does not count all skips)")

# A count off by diff is excused when as many runs of the programs that
# make it (by name prefix), or of the reader's syscalls, were skipped.
def check(diff, what, progs=(), reader=False):
    if not diff:
        return
    n = sum(v for p, v in runs.items() if any(p.startswith(q) for q in progs))
    if reader:
        n += sk["reader_syscalls"]
    if n >= abs(diff):
        print("PART-SKIP: %s: %s: explained: %s" % (rel, what, said))
        sys.exit(3)
    raise AssertionError("%s: %s (%s)" % (rel, what, said))

assert bd["pass"] == "breakdown", bd["pass"]
assert bd["lost"] == 0 and bd["broken"] <= 1, (bd["lost"], bd["broken"])
# With the kernel's BTF the flush functions are timed by fentry/fexit
# (a fallback to kprobes would be said: "by both", "fentry refused").
if btf:
    assert bd["method"].endswith("flush functions by fentry"), bd["method"]
else:
    assert bd["method"].startswith("BPF: kprobes"), bd["method"]
how = "fentry/fexit on " if btf else "kprobe+kretprobe on "
assert bd["window_end_ns"] > bd["window_start_ns"] > 0, bd
# Split trees by the release: cpu.stat's read flushes base's tree alone.
assert bd["split_trees"] == split, (rel, bd["split_trees"])
assert [f["tree"] for f in bd["files"]] == ["base" if split else None], \
    (rel, bd["files"])
pid = str(bd["reader_pid"])
src = {s["part"]: s for s in bd["sources"]}
name = {"memory": "mem_cgroup_css_rstat_flush", "io": "blkcg_rstat_flush",
        "bpf": "bpf_rstat_flush"}
for p in ("memory", "io", "bpf", "walk", "wait", "off-cpu"):
    assert src[p]["timed"], (rel, src[p])
assert src["walk"]["how"].startswith(how), src["walk"]
for p in ("memory", "io", "bpf"):
    assert src[p]["how"] == how + name[p], src[p]
    # Callbacks outside the reads, each under one trigger.
    by = src[p].get("outside_by", [])
    assert sum(e["calls"] for e in by) == src[p]["outside_calls"], src[p]
(f,) = bd["files"]
parts = {p["part"]: p for p in f["parts"]}
assert f["file"] == "cpu.stat", f["file"]
# Every read decomposed once (two preads each: data, end of file).
check(parts["rest"]["calls"] - 2 * reads,
      "%d reads decomposed of %d, %d syscalls" % (f["reads"], reads,
                                                  parts["rest"]["calls"]),
      reader=True)
assert f["reads"] == reads and parts["total"]["calls"] == reads, f
assert abs(sum(p["share"] for k, p in parts.items() if k != "total") - 1) \
    < 1e-6, [(k, p["share"]) for k, p in parts.items()]
assert abs(sum(p["sum_ns"] for k, p in parts.items() if k != "total")
           - parts["total"]["sum_ns"]) <= 10, parts
assert parts["total"]["p50_ns"] <= f["read_p50_ns"], f
# Every cpu.stat read flushes: one call of the flush function each.
check(parts["walk"]["calls"] - reads,
      "the walk entered %d times in %d reads" % (parts["walk"]["calls"], reads),
      ("bd_inner_",))
# The kernel's reads pair with the reader's: the two add up to its time.
e = f["entry_exit"]
assert f["reader_reads"] == reads and e is not None, f
assert parts["total"]["sum_ns"] + e["sum_ns"] == e["measured_sum_ns"], e

# The oracle's figures for bench's reader of the breakdown pass.
rd = [w for w in ora if w[:3] == ["task", pid, "read"]]
assert rd, ("the oracle saw no read of cpu.stat by the reader", pid,
            [w[1] for w in ora if w[0] == "task" and w[2] == "read"])
assert rd[0][3] == "cpu_stat_show" and int(rd[0][4]) == reads, (reads, rd)
cb = {w[3]: w for w in ora if w[:3] == ["task", pid, "callback"]}
for p, fn in name.items():
    assert fn in cb, ("the oracle did not time", fn)
    check(parts[p]["calls"] - int(cb[fn][4]),
          "%s calls in the reads: breakdown %d, oracle %s"
          % (fn, parts[p]["calls"], cb[fn][4]), ("bd_cb_%s_" % p,))
# Memory's share of the reads' whole time, against the oracle's (its
# WALLSHARE: the callbacks' time over the reads' time, off-CPU and all).
mem = cb[name["memory"]]
ours, theirs = 100 * parts["memory"]["share"], float(mem[7])
assert abs(ours - theirs) <= 10, \
    ("%s: memory's share %.1f%%, the oracle's %.1f%%" % (rel, ours, theirs))
# The callbacks' observer cost: one timed callback for each call the
# table counts, the shortest of them no longer than any callback's mean.
cc = bd["callback_cost"]
timed_cb = [p for p in ("memory", "io", "bpf", "base") if src[p]["timed"]]
assert cc["calls"] == sum(parts[p]["calls"] for p in timed_cb), (cc, parts)
means = [parts[p]["sum_ns"] // parts[p]["calls"] for p in timed_cb
         if parts[p]["calls"]]
assert not means or 0 < cc["shortest_ns"] <= min(means), (cc, means)
assert not means or cc["programs_ns"] > 0, cc
assert cc["programs_after_ns"] <= cc["programs_ns"], cc
outside = {w[1]: int(w[2]) for w in ora if w[0] == "outside"}
if split:
    # Split trees: cpu.stat flushes base's tree alone.
    for p in ("memory", "io"):
        assert parts[p]["calls"] == 0 and parts[p]["share"] == 0, parts[p]
    assert parts["bpf"]["calls"] > 0, parts["bpf"]
    assert "css_rstat_flush" in src["walk"]["how"], src["walk"]
    # Memory had work all along, flushed elsewhere: the 0 means something.
    assert outside[name["memory"]] > 0, \
        ("memory's callback never ran: the 0 in the reads proves nothing",
         outside)
else:
    # One tree: each flushed cgroup runs every callback.
    assert parts["memory"]["calls"] > 0 and parts["memory"]["share"] > 0, \
        parts["memory"]
    assert parts["memory"]["calls"] == parts["bpf"]["calls"], parts
    assert src["cpu-wait"]["timed"], src["cpu-wait"]
    assert "cgroup_rstat_lock_contended" in src["wait"]["how"], src["wait"]
# Who flushed outside the reads, from the stacks taken at the callbacks'
# entry (by fentry: the program's and the trampoline's frames on top).
print("  memory's callbacks outside the reads, by trigger:",
      {e["trigger"]: e["calls"] for e in src["memory"].get("outside_by", [])})
print("ok %s: memory %d calls in %d cpu.stat reads (oracle %s), %.1f%% of "
      "their time (oracle %.1f%%); bpf %d calls (oracle %s); %s; "
      "callback timing (%s): shortest %d ns, programs %d ns a call"
      % (rel, parts["memory"]["calls"], reads, mem[4], ours, theirs,
         parts["bpf"]["calls"], cb[name["bpf"]][4], said, how.split()[0],
         cc["shortest_ns"],
         cc["programs_ns"] // max(cc["calls"], 1)))
PY
	rc=$?
	cat "$TMP/$1.check"
	[ $rc -eq 3 ] && return
	[ $rc -eq 0 ] || fail "$1: bench's breakdown against the oracle"
}

run "$K612" 612 1
check 612

KSID=$(sid_kernel)
[ -n "$KSID" ] || skip_part "$SID_KERNEL_MISSING"
if [ -n "$KSID" ]; then
	run "$KSID" sid 2
	check sid
fi

[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
