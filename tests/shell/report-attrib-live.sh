#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Attribution of a recording made now, on this kernel: busy v2 child
# cgroups (base stat updates) and, where the memory controller is, a memcg
# child touching memory (memcg stat updates), while a reader reads the
# parents' cpu.stat and memory.stat. Recorded system-wide by Debian's perf
# with cpu-clock and the rstat lock tracepoints.
#
# The expected numbers come from `perf script` text of the same file,
# classified by a small oracle below written from docs/kernel-rstat.md and
# the report contract (not from the tool's rule table):
#   - a cpu-clock sample's category is its innermost frame listed as flush
#     work / update side / PSI; a core frame (css_rstat_flush, ...) takes
#     the subsystem of the nearest caller naming one (memory callers and
#     reader frames), else stays core; no such frame: not a flush sample;
#   - a flush sample's trigger is its outermost trigger frame, "other"
#     when there is none;
#   - skid: a flush sample whose leaf is an IRQ-enable frame;
#   - lock holds: cgroup_rstat_locked followed, on the same CPU by the same
#     TID, by cgroup_rstat_unlock with the same root, id and cpu fields.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (cgroups, system-wide perf record)"
need_perf
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
tracefs=/sys/kernel/tracing
[ -d $tracefs/events ] || tracefs=/sys/kernel/debug/tracing
for tp in cgroup/cgroup_rstat_locked cgroup/cgroup_rstat_unlock; do
	[ -d "$tracefs/events/$tp" ] ||
		skip "no tracepoint ${tp/\//:} on this kernel (v6.10+) or tracefs not mounted"
done

# The v2 hierarchy: /sys/fs/cgroup on a pure v2 system, .../unified on a
# hybrid one.
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	v2=/sys/fs/cgroup
elif [ -f /sys/fs/cgroup/unified/cgroup.controllers ]; then
	v2=/sys/fs/cgroup/unified
else
	skip "no cgroup v2 hierarchy mounted"
fi
# Memory: v2 when the controller is there, else v1 (under our own memcg).
mem="" memkind=""
if grep -qw memory "$v2/cgroup.controllers"; then
	memkind=v2
elif [ -d /sys/fs/cgroup/memory ]; then
	memkind=v1
	own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
	mem=/sys/fs/cgroup/memory${own%/}/rstat-analyze-test-$$
fi

name=rstat-analyze-test-$$
cg=$v2/$name
pids=()
dirs=()

recpid=
cleanup() {
	local p d i
	{
		if [ -n "$recpid" ]; then
			kill -TERM "$recpid"
			wait "$recpid"
		fi
		for p in "${pids[@]}"; do
			kill -KILL "$p"
		done
		for p in "${pids[@]}"; do
			wait "$p"
		done
	} 2>/dev/null
	# Leaf first: dirs were created parent first.
	for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
		d=${dirs[i]}
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$d" 2>/dev/null || [ ! -d "$d" ] && break
			sleep 0.1
		done
		[ -d "$d" ] && echo "warning: could not remove $d" >&2
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mkcg() {
	mkdir "$1" 2>/dev/null || skip "cannot create cgroup $1"
	dirs+=("$1")
}

# start DIR CMD...: CMD runs inside cgroup DIR (joined before exec).
start() {
	local d=$1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$d" "$@" &
	pids+=($!)
}

mkcg "$cg"
for i in 1 2 3; do
	mkcg "$cg/c$i"
	start "$cg/c$i" nice -n 19 sh -c 'while :; do :; done'
done
readfiles=("$cg/cpu.stat")
# v2: only when our parent got the controller from above (we change no
# cgroup but our own); it then hands it to its memory child.
if [ "$memkind" = v2 ] && grep -qw memory "$cg/cgroup.controllers" &&
	{ grep -qw memory "$cg/cgroup.subtree_control" ||
	  echo +memory >"$cg/cgroup.subtree_control"; } 2>/dev/null; then
	mem=$cg
fi
if [ -n "$mem" ]; then
	[ "$memkind" = v1 ] && mkcg "$mem"
	mkcg "$mem/m1"
	# map, touch and unmap 8 MiB in a loop: memcg charges and stat updates
	start "$mem/m1" python3 -c '
import mmap
while True:
    m = mmap.mmap(-1, 8 << 20)
    for i in range(0, 8 << 20, 4096):
        m[i] = 1
    m.close()'
	readfiles+=("$mem/memory.stat")
fi
sleep 0.3
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null || fail "a workload did not start in its cgroup"
done

events=(-e cpu-clock -e cgroup:cgroup_rstat_locked -e cgroup:cgroup_rstat_unlock)
[ -d "$tracefs/events/memcg/memcg_flush_stats" ] &&
	events+=(-e memcg:memcg_flush_stats)
# The reader: every file in turn, for 2 seconds. No -F: it would turn the
# tracepoints (period 1, every hit) into frequency-sampled events.
# In the background so that INT/TERM reach the trap at once (a foreground
# command would delay it); timeout passes the signal on to perf, which
# stops the reader.
timeout 30 perf record -q -a -g "${events[@]}" -o "$TMP/live.data" -- \
	python3 -c '
import sys, time
end = time.monotonic() + 2.0
n = 0
while time.monotonic() < end:
    for f in sys.argv[1:]:
        with open(f) as fh:
            fh.read()
    n += 1
print(n, "rounds", file=sys.stderr)' "${readfiles[@]}" \
	>/dev/null 2>"$TMP/rec.err" &
recpid=$!
wait $recpid || fail "perf record failed: $(head -c 1000 "$TMP/rec.err")"
recpid=
rounds=$(grep -o '^[0-9]* rounds' "$TMP/rec.err")
{
	for p in "${pids[@]}"; do
		kill -KILL "$p"
		wait "$p"
	done
} 2>/dev/null

perf script -i "$TMP/live.data" >"$TMP/script" 2>/dev/null ||
	fail "perf script failed"
perf script -i "$TMP/live.data" -F event >"$TMP/events" 2>/dev/null ||
	fail "perf script -F event failed"
"$RS_BIN" report -i "$TMP/live.data" --json >"$TMP/rep.json" 2>"$TMP/err" ||
	fail "report --json failed: $(cat "$TMP/err")"

python3 - "$TMP/script" "$TMP/events" "$TMP/rep.json" "${mem:+memory}" <<'EOF' ||
import collections, json, re, sys

script, events_txt, rep_path, want_memory = sys.argv[1:5]

# ---- the oracle's table, from docs/kernel-rstat.md ----
IN = {}
for n in ("cgroup_rstat_flush cgroup_rstat_flush_hold cgroup_rstat_flush_release "
          "cgroup_rstat_flush_locked cgroup_rstat_flush_irqsafe "
          "cgroup_rstat_flush_atomic cgroup_rstat_cpu_pop_updated "
          "cgroup_rstat_updated_list cgroup_rstat_push_children css_rstat_flush "
          "css_rstat_updated_list css_rstat_push_children __css_rstat_lock "
          "css_process_update_tree").split():
    IN[n] = "core"
for n in ("cgroup_stat_flush cgroup_stat_flush_locked cgroup_cpu_stat_pop_updated "
          "cgroup_base_stat_flush").split():
    IN[n] = "base"
IN["bpf_rstat_flush"] = "bpf"
for n in ("mem_cgroup_css_rstat_flush mem_cgroup_flush_stats "
          "__mem_cgroup_flush_stats do_flush_stats "
          "mem_cgroup_flush_stats_ratelimited mem_cgroup_flush_stats_delayed "
          "mem_cgroup_flush_stats_atomic flush_memcg_stats_dwork").split():
    IN[n] = "memory"
for n in ("blkcg_rstat_flush", "__blkcg_rstat_flush"):
    IN[n] = "io"
for n in "tree_stat tree_events accumulate_memcg_tree mem_cgroup_read_stat".split():
    IN[n] = "memcg-walk"
# update side: the doc's names and their 6.18 spellings (tracepoint names)
for n in ("cgroup_rstat_updated css_rstat_updated __css_rstat_updated "
          "memcg_rstat_updated __mod_memcg_state mod_memcg_state "
          "__mod_memcg_lruvec_state mod_memcg_lruvec_state "
          "__count_memcg_events count_memcg_events").split():
    IN[n] = "update"
for n in ("psi_task_change psi_task_switch psi_group_change record_times "
          "psi_account_irqtime psi_avgs_work").split():
    IN[n] = "psi"
# reader frames naming the subsystem of a core flush below them
CALLER = {"memcg1_stat_format": "memory", "memcg_stat_format": "memory",
          "memory_stat_format": "memory", "cgroup_base_stat_cputime_show": "base",
          "blkcg_print_stat": "io"}
TRIG = {}
for t, names in (
        ("memory.stat", "memory_stat_show memcg_stat_show memcg_stat_format "
                        "memcg1_stat_format memory_stat_format"),
        ("memory.numa_stat", "memory_numa_stat_show memcg_numa_stat_show"),
        ("cpu.stat", "cpu_stat_show cgroup_base_stat_cputime_show"),
        ("io.stat", "blkcg_print_stat"),
        ("zswap.current", "zswap_current_read"),
        ("reclaim", "shrink_node prepare_scan_control prepare_scan_count"),
        ("refault", "workingset_refault workingset_test_recent"),
        ("cachestat", "filemap_cachestat"),
        ("shadow-shrinker", "count_shadow_nodes"),
        ("writeback", "balance_dirty_pages wb_over_bg_thresh mem_cgroup_wb_stats"),
        ("zswap", "zswap_store obj_cgroup_may_zswap zswap_shrinker_count"),
        ("periodic", "flush_memcg_stats_dwork"),
        ("teardown", "css_free_rwork_fn css_rstat_exit cgroup_rstat_exit"),
        ("oom", "mem_cgroup_print_oom_meminfo")):
    for n in names.split():
        TRIG[n] = t
FLUSH = {"memory", "io", "base", "bpf", "core", "memcg-walk"}
SUBSYS = {"memory", "io", "base", "bpf"}


def base_name(sym):
    sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
    return sym.split(".")[0] if not sym.startswith(".") else sym


def irq_enable(f):
    return (f in ("_raw_spin_unlock_irq", "_raw_spin_unlock_irqrestore")
            or "irq_enable" in f)


# The tracing machinery (issue 13): a sample in it is the recorder's work.
INSTR_PREFIX = ("perf_trace_", "perf_tp_event", "perf_swevent_",
                "trace_event_raw_event_", "trace_event_buffer_",
                "perf_event_output", "perf_output_", "perf_callchain",
                "bpf_trace_run", "__bpf_trace_")
INSTR = {"perf_prepare_sample", "get_perf_callchain", "__perf_event_overflow",
         "trace_call_bpf", "kprobe_dispatcher", "kretprobe_dispatcher",
         "uprobe_dispatcher", "uretprobe_dispatcher", "handle_swbp",
         "uprobe_notify_resume", "__uprobe_perf_func", "uprobe_perf_func"}


def in_category(f):
    if f in IN:
        return IN[f]
    if f.startswith(INSTR_PREFIX) or f in INSTR:
        return "instrumentation"
    return None


def classify(frames):
    """frames leaf first -> (category, trigger or None, skid)"""
    cat, at = "other", -1
    for i, f in enumerate(frames):
        if in_category(f):
            cat, at = in_category(f), i
            break
    if cat == "core":
        for f in frames[at + 1:]:
            c = IN.get(f) or CALLER.get(f)
            if c in SUBSYS:
                cat = c
                break
    if cat not in FLUSH:
        return cat, None, False
    trig = "other"
    for f in frames:
        if f in TRIG:
            trig = TRIG[f]
    return cat, trig, irq_enable(frames[0]) if frames else False


HEAD = re.compile(r"^(.*?)\s+(-?\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(?:\d+\s+)?"
                  r"(\S+):\s*(.*)$")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)\s+\((.*)\)$")
LOCK = re.compile(r"root=(-?\d+) id=(\d+) level=(-?\d+) cpu=(-?\d+)")

attrib = collections.Counter()
trig = collections.Counter()
skid = 0
under_cputime = under_memstat = 0
pending = {}
pairs = 0
nblocks = 0
for block in open(script, errors="replace").read().split("\n\n"):
    lines = [l for l in block.split("\n") if l.strip()]
    if not lines:
        continue
    m = HEAD.match(lines[0])
    if not m:
        print("oracle: unparsed sample line %r" % lines[0])
        sys.exit(1)
    nblocks += 1
    tid, cpu, event, rest = m.group(2), m.group(3), m.group(5), m.group(6)
    frames = []
    for l in lines[1:]:
        fm = FRAME.match(l)
        if fm:
            frames.append(base_name(fm.group(1)))
    if event == "cpu-clock":
        cat, t, sk = classify(frames)
        attrib[cat] += 1
        if t:
            trig[t] += 1
        skid += sk
        # plain-text cross-checks, printed for the reader of the log
        if "css_rstat_flush" in frames or any(
                f.startswith("cgroup_rstat_flush") for f in frames):
            top = max(i for i, f in enumerate(frames)
                      if f == "css_rstat_flush" or f.startswith("cgroup_rstat_flush"))
            above = frames[top + 1:]
            under_cputime += "cgroup_base_stat_cputime_show" in above
            under_memstat += ("memcg1_stat_format" in above or
                              "memory_stat_show" in above)
    elif event in ("cgroup:cgroup_rstat_locked", "cgroup:cgroup_rstat_unlock"):
        lm = LOCK.search(rest)
        if not lm:
            print("oracle: unparsed lock fields %r" % rest)
            sys.exit(1)
        key = (tid, cpu)
        if event.endswith("_locked"):
            pending[key] = lm.groups()
        else:
            if pending.get(key) == lm.groups():
                pairs += 1
            pending.pop(key, None)

counts = collections.Counter(l.strip().rstrip(":") for l in
                             open(events_txt) if l.strip())
rep = json.load(open(rep_path))
bad = []


def want(cond, msg):
    if not cond:
        bad.append(msg)


ra = {a["category"]: a["samples"] for a in rep["attribution"]
      if a["event"] == "cpu-clock"}
rt = {t["trigger"]: t["samples"] for t in rep["triggers"]
      if t["event"] == "cpu-clock"}
print("oracle cpu-clock categories:", dict(attrib))
print("report cpu-clock categories:", ra)
print("oracle triggers:", dict(trig), " report:", rt)
print("flush frames under cgroup_base_stat_cputime_show: %d, under "
      "memcg1_stat_format/memory_stat_show: %d" % (under_cputime, under_memstat))
want(attrib["base"] > 0, "the oracle found no base flush samples: the "
     "workload did not make the kernel flush base stats")
want(ra.get("base", 0) == attrib["base"],
     "base samples: report %d, oracle %d" % (ra.get("base", 0), attrib["base"]))
want(rt.get("cpu.stat", 0) == trig["cpu.stat"],
     "cpu.stat trigger samples: report %d, oracle %d" %
     (rt.get("cpu.stat", 0), trig["cpu.stat"]))
if want_memory:
    want(ra.get("memory", 0) == attrib["memory"],
         "memory samples: report %d, oracle %d" %
         (ra.get("memory", 0), attrib["memory"]))
    want(rt.get("memory.stat", 0) == trig["memory.stat"],
         "memory.stat trigger samples: report %d, oracle %d" %
         (rt.get("memory.stat", 0), trig["memory.stat"]))
for k in FLUSH:
    want(ra.get(k, 0) == attrib[k], "%s samples: report %d, oracle %d" %
         (k, ra.get(k, 0), attrib[k]))
sk = rep["skid"]
rskid = sk["samples"] if sk and sk.get("event") == "cpu-clock" else 0
print("skid: oracle %d, report %s" % (skid, sk))
want(rskid == skid, "skid samples: report %d, oracle %d" % (rskid, skid))
holds = sum(s["count"] for s in rep["spans"] if s["name"] == "lock-hold")
print("lock-hold pairs: oracle %d, report %d (%s)" % (pairs, holds, ", ".join(
    "%s %d" % (s["subsystem"], s["count"]) for s in rep["spans"]
    if s["name"] == "lock-hold")))
want(pairs > 0, "no cgroup_rstat_locked/unlock pair recorded")
want(holds == pairs, "lock-hold spans: report %d, oracle %d" % (holds, pairs))
rc = {c["event"]: c["count"] for c in rep["counts"] if c["count"]}
want(rc == dict(counts), "counts: report %s, perf script %s" % (rc, dict(counts)))
want(sum(counts.values()) == nblocks, "perf script -F event and the full "
     "text disagree: %d vs %d samples" % (sum(counts.values()), nblocks))
if bad:
    print("\n".join("FAIL: " + b for b in bad))
    sys.exit(1)
EOF
	fail "report differs from the oracle (above)"
echo "ok live recording (${rounds:-? rounds}; memory: ${memkind:-none}${mem:+ $mem})"
exit 0
