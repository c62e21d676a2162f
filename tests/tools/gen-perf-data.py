#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a synthetic perf.data (file layout, PERFILE2) with kernel stacks of
kernels we cannot record here, a kallsyms file that resolves them, and the
answers an attribution report must give.

usage:
  gen-perf-data.py (--scenario NAME | --spec FILE.json) [--event EV]
                   -o DATA -k KALLSYMS -e EXPECTED
  gen-perf-data.py (--scenario NAME | --spec FILE.json) [--event EV]
                   --check-script SCRIPT.txt
  gen-perf-data.py --list

--pipe writes the pipe layout instead (what `perf record -o -` writes:
HEADER_ATTR and HEADER_FEATURE records, then the data); --rename-at N:NAME
(pipe only) renames the event after its first N samples were delivered,
with an EVENT_UPDATE record in the middle of the data as a perf pipe may
carry one; EXPECTED then says which samples carry which name ("events").

The first form writes the three files. The second compares the text of
`perf script -i DATA --kallsyms KALLSYMS` (perf's own reading of the file)
with the stacks the scenario meant to write: same number of samples, same
comm/TID/event per sample and the same frames, frame for frame; it prints
what differs and exits 1 when anything does.

A scenario (a dict in SCENARIOS below, or the same structure as JSON):
  event       "cycles" (PERF_TYPE_HARDWARE, config 0; a PMU event) or
              "cpu-clock" (PERF_TYPE_SOFTWARE, config 0; a clock event);
              --event overrides it
  osrelease, hostname, nr_cpus
  stacks      list of
    frames    kernel function names, LEAF FIRST (innermost frame first, as
              perf script prints them); names may carry compiler suffixes
              such as ".isra.0" - they are written to kallsyms as is
    user      number of user-space frames after the kernel ones (written
              as addresses no map covers: perf prints them "[unknown]");
              a stack with no kernel frames is a user-space sample
    jit       true: an MMAP2 of anonymous executable memory covers the
              process's user frames (JIT code, named from /tmp/perf-PID.map)
    count     samples of this stack
    comm, pid the process (tid == pid)
    category  the attribution category the contract assigns, declared by
              hand from docs/kernel-rstat.md (innermost classified frame;
              core frames take the subsystem of the nearest caller naming
              one)
    trigger   for flush samples (memory io base bpf core memcg-walk) the
              outermost trigger frame's trigger ("other" when the flush
              has no trigger frame); null for every other sample
    skid      true when the leaf is an IRQ-enable frame below a flush
              frame (counted as skid only with a clock event)

EXPECTED (JSON): {"event", "osrelease", "samples", "attribution":
{category: samples}, "attribution_period": {category: period}, "triggers":
{trigger: samples}, "skid_samples": N} - sums of the declarations above,
nothing is classified here.
"""
import argparse
import collections
import json
import random
import re
import struct
import sys

# ---- perf ABI constants ----
PERF_TYPE_HARDWARE = 0
PERF_TYPE_SOFTWARE = 1
EVENTS = {  # name: (type, config, is a clock event)
    "cycles": (PERF_TYPE_HARDWARE, 0, False),
    "cpu-clock": (PERF_TYPE_SOFTWARE, 0, True),
}
S_IP, S_TID, S_TIME, S_CALLCHAIN, S_CPU, S_PERIOD = 1, 2, 4, 32, 128, 256
SAMPLE_TYPE = S_IP | S_TID | S_TIME | S_CALLCHAIN | S_CPU | S_PERIOD
PERF_RECORD_MMAP, PERF_RECORD_COMM, PERF_RECORD_SAMPLE = 1, 3, 9
PERF_RECORD_MMAP2 = 10
PERF_RECORD_FINISHED_ROUND = 68  # a user record type, as perf writes it
PERF_RECORD_HEADER_ATTR, PERF_RECORD_HEADER_FEATURE = 64, 80
PERF_RECORD_EVENT_UPDATE, PERF_EVENT_UPDATE__NAME = 78, 2
MISC_KERNEL, MISC_USER = 1, 2
CONTEXT_KERNEL = (1 << 64) - 128
CONTEXT_USER = (1 << 64) - 512
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7, what perf 6.1 writes
HEADER_SIZE = 104
FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH = 3, 4, 5, 6
FEAT_NRCPUS, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_SAMPLE_TIME = 7, 11, 12, 21

KBASE = 0xffffffff81000000  # _text (no KASLR, as on the fixture machine)
FUNC_SPACING = 0x100
USER_BASE = 0x7f3a1c000000
PROT_READ, PROT_EXEC, MAP_PRIVATE = 1, 4, 2
FLUSH_CATEGORIES = {"memory", "io", "base", "bpf", "core", "memcg-walk"}
CATEGORIES = FLUSH_CATEGORIES | {"update", "psi", "other"}
TRIGGERS = {"memory.stat", "memory.numa_stat", "cpu.stat", "io.stat",
            "zswap.current", "reclaim", "refault", "cachestat",
            "shadow-shrinker", "writeback", "zswap", "periodic", "teardown",
            "oom", "bpf", "other"}

# ---- scenarios ----

SYSCALL = ["do_syscall_64", "entry_SYSCALL_64_after_hwframe"]
READ = ["seq_read_iter", "vfs_read", "ksys_read"] + SYSCALL
READ_419 = ["seq_read", "__vfs_read", "vfs_read", "ksys_read"] + SYSCALL
KTHREAD = ["kthread", "ret_from_fork"]
WORKER = ["process_one_work", "worker_thread"] + KTHREAD
FAULT = ["handle_mm_fault", "do_user_addr_fault", "exc_page_fault",
         "asm_exc_page_fault"]
# v6.1-era flush entry as the brief names it (one global rstat lock).
FLUSH61 = ["cgroup_rstat_flush_locked", "cgroup_rstat_flush"]
MEMSTAT61 = FLUSH61 + ["do_flush_stats", "mem_cgroup_flush_stats",
                       "memory_stat_show"] + READ
CPUSTAT61 = FLUSH61 + ["cgroup_base_stat_cputime_show", "cpu_stat_show"] + READ


def st(frames, count, category, trigger=None, comm="cat", pid=1001, user=0,
       skid=False):
    return {"frames": frames, "count": count, "category": category,
            "trigger": trigger, "comm": comm, "pid": pid, "user": user,
            "skid": skid}


SCENARIOS = {
    # 4.18-6.15 names: one rstat tree and one lock for every subsystem, the
    # cost splits only by the callback frames.
    "v6.1-cycles": {
        "event": "cycles", "osrelease": "6.1.0", "hostname": "gen-v61",
        "nr_cpus": 2,
        "stacks": [
            # memory.stat read flushing everything, split by callbacks
            st(["mem_cgroup_css_rstat_flush"] + MEMSTAT61, 40, "memory",
               "memory.stat", user=2),
            st(["cgroup_base_stat_flush"] + MEMSTAT61, 25, "base",
               "memory.stat", user=2),
            st(["__blkcg_rstat_flush", "blkcg_rstat_flush"] + MEMSTAT61, 12,
               "io", "memory.stat", user=2),
            st(["bpf_rstat_flush"] + MEMSTAT61, 5, "bpf", "memory.stat"),
            # tree walk (core) under a memory caller -> memory
            st(["cgroup_rstat_updated_list"] + MEMSTAT61, 9, "memory",
               "memory.stat"),
            st(["cgroup_rstat_cpu_pop_updated"] + MEMSTAT61, 7, "memory",
               "memory.stat"),
            # the flush function itself (a core frame) -> memory by caller
            st(MEMSTAT61, 3, "memory", "memory.stat"),
            # an IRQ-enable leaf under a flush (core frame -> memory by
            # caller): skid only with a clock event (--event cpu-clock)
            st(["_raw_spin_unlock_irq"] + MEMSTAT61, 6, "memory",
               "memory.stat", skid=True),
            # a sample in mem_cgroup_flush_stats itself (memory category)
            st(["mem_cgroup_flush_stats", "memory_stat_show"] + READ, 2,
               "memory", "memory.stat"),
            # cpu.read: base callback, memory callback paid by cpu.stat,
            # and the tree walk -> base by the caller rule
            st(["cgroup_base_stat_flush"] + CPUSTAT61, 20, "base",
               "cpu.stat", comm="reader", pid=1002, user=1),
            st(["mem_cgroup_css_rstat_flush"] + CPUSTAT61, 15, "memory",
               "cpu.stat", comm="reader", pid=1002),
            st(["cgroup_rstat_updated_list"] + CPUSTAT61, 6, "base",
               "cpu.stat", comm="reader", pid=1002),
            # compiler suffixes on callback, core and trigger frames
            st(["cgroup_base_stat_flush.isra.0",
                "cgroup_rstat_flush_locked.constprop.0", "cgroup_rstat_flush",
                "cgroup_base_stat_cputime_show.isra.0", "cgroup_seqfile_show"]
               + READ, 4, "base", "cpu.stat", comm="reader", pid=1002),
            st(["cgroup_rstat_cpu_pop_updated.isra.0",
                "cgroup_rstat_flush_locked.constprop.0",
                "cgroup_rstat_flush_irqsafe", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats", "memory_stat_format.constprop.0",
                "memory_stat_show"] + READ, 5, "memory", "memory.stat"),
            # io.stat read
            st(["__blkcg_rstat_flush", "blkcg_rstat_flush", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush", "blkcg_print_stat", "cgroup_seqfile_show"]
               + READ, 7, "io", "io.stat", comm="iostat", pid=1003),
            st(["cgroup_rstat_updated_list", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush", "blkcg_print_stat", "cgroup_seqfile_show"]
               + READ, 3, "io", "io.stat", comm="iostat", pid=1003),
            # reclaim by kswapd
            st(["mem_cgroup_css_rstat_flush"] + FLUSH61 +
               ["do_flush_stats", "mem_cgroup_flush_stats", "shrink_node",
                "balance_pgdat", "kswapd"] + KTHREAD, 10, "memory", "reclaim",
               comm="kswapd0", pid=90),
            # periodic worker
            st(["mem_cgroup_css_rstat_flush"] + FLUSH61 +
               ["do_flush_stats", "flush_memcg_stats_dwork"] + WORKER, 8,
               "memory", "periodic", comm="kworker/1:1", pid=60),
            # refault
            st(["mem_cgroup_css_rstat_flush"] + FLUSH61 +
               ["do_flush_stats", "mem_cgroup_flush_stats_ratelimited",
                "workingset_refault", "filemap_add_folio",
                "page_cache_ra_unbounded", "filemap_fault", "__do_fault",
                "do_fault", "__handle_mm_fault"] + FAULT, 6, "memory",
               "refault", comm="java", pid=1010, user=2),
            # a flush with no trigger frame (v1 root usage read)
            st(["mem_cgroup_css_rstat_flush", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush_irqsafe", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats", "mem_cgroup_usage",
                "mem_cgroup_read_u64", "cgroup_seqfile_show"] + READ, 4,
               "memory", "other", comm="monitor", pid=1011),
            # cgroup teardown: core with no subsystem caller
            st(["cgroup_rstat_cpu_pop_updated", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush", "cgroup_rstat_exit",
                "css_free_rwork_fn"] + WORKER, 3, "core", "teardown",
               comm="kworker/0:2", pid=61),
            # update side
            st(["memcg_rstat_updated", "__mod_memcg_lruvec_state",
                "__mod_lruvec_page_state", "folio_add_new_anon_rmap",
                "do_anonymous_page", "__handle_mm_fault"] + FAULT, 11,
               "update", comm="toucher", pid=1020, user=1),
            st(["cgroup_rstat_updated", "__cgroup_account_cputime",
                "update_curr", "task_tick_fair", "scheduler_tick",
                "update_process_times", "tick_sched_timer"], 5, "update",
               comm="spin", pid=1021),
            # psi
            st(["psi_group_change", "psi_task_change", "enqueue_task",
                "ttwu_do_activate", "try_to_wake_up", "wake_up_process"], 9,
               "psi", comm="spin", pid=1021),
            st(["record_times", "psi_group_change", "psi_task_switch",
                "__schedule", "schedule"], 4, "psi", comm="spin", pid=1021),
            # plain other work
            st(["copy_page", "do_anonymous_page", "__handle_mm_fault"] + FAULT,
               14, "other", comm="toucher", pid=1020, user=1),
            # reader frames formatting text, not flushing: not flush samples
            st(["vsnprintf", "seq_buf_printf", "memory_stat_format",
                "memory_stat_show"] + READ, 3, "other"),
            st(["format_decode", "vsnprintf", "seq_vprintf", "seq_printf",
                "cgroup_base_stat_cputime_show", "cpu_stat_show"] + READ, 2,
               "other", comm="reader", pid=1002),
            # user-space only
            st([], 3, "other", comm="spin", pid=1021, user=3),
        ],
    },
    # 4.19: rstat without memcg (memory.stat walks the memcg tree), no
    # PSI, cpu.stat through cgroup_rstat_flush_hold; sampled by cpu-clock,
    # so time under the IRQ-disabled rstat lock shows at IRQ re-enable.
    "v4.19-cpuclock": {
        "event": "cpu-clock", "osrelease": "4.19.0", "hostname": "gen-v419",
        "nr_cpus": 4,
        "stacks": [
            st(["cgroup_base_stat_flush", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush_hold", "cgroup_base_stat_cputime_show",
                "cpu_stat_show"] + READ_419, 30, "base", "cpu.stat", user=1),
            st(["cgroup_rstat_cpu_pop_updated", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush_hold", "cgroup_base_stat_cputime_show",
                "cpu_stat_show"] + READ_419, 12, "base", "cpu.stat"),
            # skid: IRQ-enable leaves under flush frames
            st(["native_irq_enable", "_raw_spin_unlock_irq",
                "cgroup_rstat_flush_locked", "cgroup_rstat_flush",
                "cgroup_base_stat_cputime_show", "cpu_stat_show"] + READ_419,
               17, "base", "cpu.stat", skid=True),
            st(["_raw_spin_unlock_irq", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush", "cgroup_base_stat_cputime_show",
                "cpu_stat_show"] + READ_419, 8, "base", "cpu.stat", skid=True),
            st(["_raw_spin_unlock_irq", "cgroup_rstat_flush_release",
                "cgroup_base_stat_cputime_show", "cpu_stat_show"] + READ_419,
               9, "base", "cpu.stat", skid=True),
            st(["_raw_spin_unlock_irqrestore", "cgroup_rstat_flush_locked",
                "cgroup_rstat_flush_hold", "cgroup_base_stat_cputime_show",
                "cpu_stat_show"] + READ_419, 5, "base", "cpu.stat",
               skid=True),
            # IRQ-enable leaves outside any flush: other, not skid
            st(["_raw_spin_unlock_irq", "finish_task_switch", "__schedule",
                "schedule", "do_nanosleep", "hrtimer_nanosleep"] + SYSCALL, 8,
               "other", comm="sleeper", pid=1030),
            st(["_raw_spin_unlock_irqrestore", "try_to_wake_up",
                "wake_up_process", "hrtimer_wakeup"], 4, "other",
               comm="swapper/1", pid=0),
            # memcg tree walk (before rstat covered memcg)
            st(["tree_stat", "memcg_stat_show"] + READ_419, 11, "memcg-walk",
               "memory.stat", comm="memreader", pid=1031, user=1),
            st(["tree_events", "memcg_stat_show"] + READ_419, 3, "memcg-walk",
               "memory.stat", comm="memreader", pid=1031),
            # update side
            st(["cgroup_rstat_updated", "__cgroup_account_cputime",
                "update_curr", "task_tick_fair", "scheduler_tick",
                "update_process_times", "tick_sched_handle",
                "tick_sched_timer", "__hrtimer_run_queues",
                "hrtimer_interrupt", "smp_apic_timer_interrupt",
                "apic_timer_interrupt"], 7, "update", comm="spin", pid=1032),
            st(["__mod_memcg_state", "__mod_lruvec_state",
                "page_add_new_anon_rmap", "do_anonymous_page",
                "__handle_mm_fault", "handle_mm_fault", "__do_page_fault",
                "do_page_fault", "page_fault"], 5, "update", comm="toucher",
               pid=1033, user=1),
            # other
            st(["clear_page_erms", "get_page_from_freelist",
                "__alloc_pages_nodemask", "do_anonymous_page",
                "__handle_mm_fault", "handle_mm_fault", "__do_page_fault",
                "do_page_fault", "page_fault"], 10, "other", comm="toucher",
               pid=1033, user=1),
            st([], 20, "other", comm="spin", pid=1032, user=2),
        ],
    },
    # 6.16+: a tree and a lock per subsystem; css_rstat_flush's caller
    # names the subsystem, and tail calls hide the flush wrappers.
    "v6.16-cycles": {
        "event": "cycles", "osrelease": "6.16.0", "hostname": "gen-v616",
        "nr_cpus": 2,
        "stacks": [
            st(["css_rstat_flush", "memcg1_stat_format", "memcg_stat_show"]
               + READ, 21, "memory", "memory.stat"),
            st(["__css_rstat_lock.isra.0", "css_rstat_flush",
                "memcg1_stat_format", "memcg_stat_show"] + READ, 4, "memory",
               "memory.stat"),
            st(["css_rstat_updated_list", "css_rstat_flush",
                "cgroup_base_stat_cputime_show", "cpu_stat_show"] + READ, 13,
               "base", "cpu.stat", comm="reader", pid=2002),
            st(["cgroup_base_stat_flush", "css_rstat_flush",
                "cgroup_base_stat_cputime_show", "cpu_stat_show"] + READ, 9,
               "base", "cpu.stat", comm="reader", pid=2002),
            st(["__css_rstat_lock.isra.0", "css_rstat_flush",
                "blkcg_print_stat", "cgroup_seqfile_show"] + READ, 5, "io",
               "io.stat", comm="iostat", pid=2003),
            st(["mem_cgroup_css_rstat_flush", "css_rstat_flush",
                "__mem_cgroup_flush_stats", "mem_cgroup_flush_stats",
                "memory_numa_stat_show"] + READ, 3, "memory",
               "memory.numa_stat"),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats", "zswap_current_read",
                "cgroup_seqfile_show"] + READ, 2, "memory", "zswap.current"),
            # outermost trigger wins: workingset_test_recent (refault)
            # is inside filemap_cachestat (cachestat)
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats_ratelimited",
                "workingset_test_recent", "filemap_cachestat",
                "__do_sys_cachestat", "__x64_sys_cachestat"] + SYSCALL, 3,
               "memory", "cachestat", comm="cachestat", pid=2004),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats_ratelimited", "count_shadow_nodes",
                "do_shrink_slab", "shrink_slab", "shrink_node",
                "balance_pgdat", "kswapd"] + KTHREAD, 4, "memory", "reclaim",
               comm="kswapd0", pid=91),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats_ratelimited", "count_shadow_nodes",
                "do_shrink_slab", "shrink_slab", "drop_slab",
                "drop_caches_sysctl_handler"], 2, "memory", "shadow-shrinker",
               comm="sh", pid=2005),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats", "mem_cgroup_wb_stats",
                "balance_dirty_pages", "balance_dirty_pages_ratelimited_flags",
                "generic_perform_write"], 3, "memory", "writeback",
               comm="dd", pid=2006),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats", "obj_cgroup_may_zswap",
                "zswap_store", "swap_writeout", "shrink_folio_list"], 2,
               "memory", "zswap", comm="stress", pid=2007),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "flush_memcg_stats_dwork"] + WORKER, 5, "memory", "periodic",
               comm="kworker/0:1", pid=62),
            st(["css_rstat_flush", "__mem_cgroup_flush_stats",
                "mem_cgroup_flush_stats", "mem_cgroup_print_oom_meminfo",
                "dump_header", "oom_kill_process", "out_of_memory"], 1,
               "memory", "oom", comm="stress", pid=2007),
            st(["css_rstat_updated_list", "css_rstat_flush", "css_rstat_exit",
                "css_free_rwork_fn"] + WORKER, 2, "core", "teardown",
               comm="kworker/1:0", pid=63),
            st(["css_rstat_updated", "__mod_memcg_lruvec_state",
                "__lruvec_stat_mod_folio", "folio_add_new_anon_rmap",
                "do_anonymous_page", "__handle_mm_fault"] + FAULT, 6,
               "update", comm="toucher", pid=2008, user=1),
            st(["copy_page", "__wp_page_copy_user", "do_wp_page",
                "__handle_mm_fault"] + FAULT, 7, "other", comm="toucher",
               pid=2008, user=1),
        ],
    },
}


# ---- writing ----

def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def header_string(s):
    raw = s.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 64)  # NAME_ALIGN
    return struct.pack("<I", len(raw)) + raw


def make_attr(ev):
    typ, config, _ = EVENTS[ev]
    flags = (1 << 0) | (1 << 1)  # disabled, inherit
    flags |= (1 << 8) | (1 << 9)  # mmap, comm
    flags |= 1 << 18  # sample_id_all
    flags |= 1 << 20  # exclude_guest, as perf record sets it by default
    a = struct.pack("<IIQQQQQ", typ, ATTR_SIZE, config, 4000, SAMPLE_TYPE,
                    0, flags)
    return a + b"\0" * (ATTR_SIZE - len(a))


def id_trailer(pid, tid, time, cpu):  # sample_id_all: TID TIME CPU
    return struct.pack("<iiQII", pid, tid, time, cpu, 0)


def rec(typ, misc, body):
    body = pad8(body) if len(body) % 8 else body
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


class Layout:
    """Function addresses: every distinct name gets FUNC_SPACING bytes."""

    def __init__(self, names):
        self.addr = {}
        a = KBASE + 0x1000
        for n in sorted(names):
            self.addr[n] = a
            a += FUNC_SPACING
        self.etext = a + 0x1000

    def kallsyms(self):
        lines = [(KBASE, "_stext"), (KBASE, "_text")]
        lines += [(a, n) for n, a in self.addr.items()]
        lines.append((self.etext, "_etext"))
        lines.sort()
        return "".join("%016x T %s\n" % (a, n) for a, n in lines)


def frame_ip(layout, name, depth):
    return layout.addr[name] + 0x11 + 4 * (depth % 16)


def check_spec(spec, ev):
    for i, s in enumerate(spec["stacks"]):
        where = "stack %d (%s)" % (i, s["frames"][:1])
        if s["category"] not in CATEGORIES:
            sys.exit("%s: unknown category %r" % (where, s["category"]))
        flush = s["category"] in FLUSH_CATEGORIES
        if flush and s.get("trigger") not in TRIGGERS:
            sys.exit("%s: a flush sample needs a trigger" % where)
        if not flush and s.get("trigger") is not None:
            sys.exit("%s: only flush samples have a trigger" % where)
        if s.get("skid") and not flush:
            sys.exit("%s: skid is attributed to a flush" % where)
        if not s["frames"] and not s.get("user"):
            sys.exit("%s: no frames" % where)
    if ev not in EVENTS:
        sys.exit("unknown event %r (cycles or cpu-clock)" % ev)


def sample_plan(spec, ev):
    """Every sample in file order: (stack index, time, cpu, period)."""
    order = []
    for i, s in enumerate(spec["stacks"]):
        order += [i] * s["count"]
    random.Random(4242).shuffle(order)
    clock = EVENTS[ev][2]
    ncpu = spec.get("nr_cpus", 2)
    plan = []
    t = 1000 * 10**9
    for n, i in enumerate(order):
        period = 333444 if clock else 200000 + (n * 7919) % 50000
        t += 150000 + (n * 104729) % 200000
        plan.append((i, t, n % ncpu, period))
    return plan


def write_files(spec, ev, data_path, ksyms_path, exp_path, pipe=False,
                rename=None):
    names = {f for s in spec["stacks"] for f in s["frames"]}
    layout = Layout(names)
    typ = EVENTS[ev]
    plan = sample_plan(spec, ev)

    # data section
    data = bytearray()
    fn = b"[kernel.kallsyms]_text\0"
    data += rec(PERF_RECORD_MMAP, MISC_KERNEL,
                struct.pack("<iiQQQ", -1, 0, KBASE, layout.etext - KBASE,
                            KBASE) + pad8(fn) + id_trailer(-1, 0, 0, 0))
    seen = set()
    for s in spec["stacks"]:
        if s["pid"] in seen:
            continue
        seen.add(s["pid"])
        data += rec(PERF_RECORD_COMM, 0,
                    struct.pack("<ii", s["pid"], s["pid"]) +
                    pad8(s["comm"].encode()[:15] + b"\0") +
                    id_trailer(s["pid"], s["pid"], 0, 0))
        if s.get("jit"):
            # anonymous executable memory over the user frames: JIT code,
            # named from /tmp/perf-PID.map as perf does
            data += rec(PERF_RECORD_MMAP2, MISC_USER,
                        struct.pack("<iiQQQIIQQII", s["pid"], s["pid"],
                                    USER_BASE, 0x1000000, 0, 0, 0, 0, 0,
                                    PROT_READ | PROT_EXEC, MAP_PRIVATE) +
                        pad8(b"//anon\0") +
                        id_trailer(s["pid"], s["pid"], 0, 0))
    data += rec(PERF_RECORD_FINISHED_ROUND, 0, b"")
    for n, (i, t, cpu, period) in enumerate(plan):
        s = spec["stacks"][i]
        chain = []
        if s["frames"]:
            chain.append(CONTEXT_KERNEL)
            chain += [frame_ip(layout, f, d) for d, f in enumerate(s["frames"])]
        if s.get("user"):
            chain.append(CONTEXT_USER)
            chain += [USER_BASE + 0x1000 * (i + 1) + 0x40 * k + 0x13
                      for k in range(s["user"])]
        ip = chain[1]
        misc = MISC_KERNEL if s["frames"] else MISC_USER
        body = struct.pack("<QiiQIIQQ", ip, s["pid"], s["pid"], t, cpu, 0,
                           period, len(chain))
        body += b"".join(struct.pack("<Q", c) for c in chain)
        data += rec(PERF_RECORD_SAMPLE, misc, body)
        if n % 64 == 63:
            data += rec(PERF_RECORD_FINISHED_ROUND, 0, b"")
        if rename and n + 1 == rename[0]:
            # two rounds deliver every sample so far, then the rename
            data += rec(PERF_RECORD_FINISHED_ROUND, 0, b"") * 2
            data += rec(PERF_RECORD_EVENT_UPDATE, 0,
                        struct.pack("<QQ", PERF_EVENT_UPDATE__NAME, 100) +
                        pad8(rename[1].encode() + b"\0"))
    data += rec(PERF_RECORD_FINISHED_ROUND, 0, b"")

    # layout: header, ids, attrs, data, feature table + features
    attr = make_attr(ev)
    ncpu = spec.get("nr_cpus", 2)
    ids = list(range(100, 100 + ncpu))
    ids_off = HEADER_SIZE
    ids_raw = b"".join(struct.pack("<Q", x) for x in ids)
    attrs_off = ids_off + len(ids_raw)
    attrs_raw = attr + struct.pack("<QQ", ids_off, len(ids_raw))
    data_off = attrs_off + len(attrs_raw)
    data_off += -data_off % 8
    feat_off = data_off + len(data)

    t0, t1 = plan[0][1], plan[-1][1]
    feats = {
        FEAT_HOSTNAME: header_string(spec.get("hostname", "gen")),
        FEAT_OSRELEASE: header_string(spec["osrelease"]),
        FEAT_VERSION: header_string("6.1.gen-perf-data"),
        FEAT_ARCH: header_string("x86_64"),
        FEAT_NRCPUS: struct.pack("<II", ncpu, ncpu),
        FEAT_CMDLINE: struct.pack("<I", 2) + header_string("gen-perf-data.py")
        + header_string("--scenario=" + spec.get("name", "spec")),
        FEAT_EVENT_DESC: struct.pack("<II", 1, ATTR_SIZE) + attr +
        struct.pack("<I", len(ids)) + header_string(ev) + ids_raw,
        FEAT_SAMPLE_TIME: struct.pack("<QQ", t0, t1),
    }
    bitmap = 0
    for f in feats:
        bitmap |= 1 << f
    table = b""
    payload = b""
    pos = feat_off + 16 * len(feats)
    for f in sorted(feats):
        table += struct.pack("<QQ", pos + len(payload), len(feats[f]))
        payload += feats[f]

    if pipe:
        # perf writes no EVENT_DESC in a pipe: names come from the attr
        # or from EVENT_UPDATE records
        del feats[FEAT_EVENT_DESC]
        out = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
        out += rec(PERF_RECORD_HEADER_ATTR, 0, attr + ids_raw)
        for f in sorted(feats):
            out += rec(PERF_RECORD_HEADER_FEATURE, 0,
                       struct.pack("<Q", f) + pad8(feats[f]))
        out += data
    else:
        out = None
    hdr = b"PERFILE2" + struct.pack("<QQ", HEADER_SIZE, len(attrs_raw))
    hdr += struct.pack("<QQQQQQ", attrs_off, len(attrs_raw), data_off,
                       len(data), 0, 0)
    hdr += bitmap.to_bytes(32, "little")
    assert len(hdr) == HEADER_SIZE
    if out is None:
        out = bytearray(hdr) + ids_raw + attrs_raw
        out += b"\0" * (data_off - len(out))
        out += data + table + payload
    with open(data_path, "wb") as f:
        f.write(out)
    with open(ksyms_path, "w") as f:
        f.write(layout.kallsyms())

    exp = {"event": ev, "osrelease": spec["osrelease"], "samples": len(plan),
           "attribution": collections.Counter(),
           "attribution_period": collections.Counter(),
           "triggers": collections.Counter(), "skid_samples": 0}
    for i, t, cpu, period in plan:
        s = spec["stacks"][i]
        exp["attribution"][s["category"]] += 1
        exp["attribution_period"][s["category"]] += period
        if s["trigger"]:
            exp["triggers"][s["trigger"]] += 1
        if s.get("skid") and typ[2]:
            exp["skid_samples"] += 1
    if rename:
        exp["events"] = {ev: min(rename[0], len(plan)),
                         rename[1]: max(len(plan) - rename[0], 0)}
    for k in ("attribution", "attribution_period", "triggers"):
        exp[k] = dict(sorted(exp[k].items()))
    with open(exp_path, "w") as f:
        json.dump(exp, f, indent=1, sort_keys=True)
        f.write("\n")


# ---- checking perf script's reading ----

HEAD = re.compile(r"^(\S.*?)\s+(-?\d+)\s+\[(\d+)\]\s+[\d.]+:\s+(?:(\d+)\s+)?"
                  r"(\S+):\s*$")
FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.+?)\s+\((.*)\)$")


def check_script(spec, ev, path):
    want = collections.Counter()
    for s in spec["stacks"]:
        frames = tuple([(f, "[kernel.kallsyms]") for f in s["frames"]] +
                       [("[unknown]", "[unknown]")] * s.get("user", 0))
        want[(s["comm"][:15], s["pid"], ev, frames)] += s["count"]
    got = collections.Counter()
    problems = []
    blocks = open(path).read().split("\n\n")
    for b in blocks:
        lines = [l for l in b.split("\n") if l.strip()]
        if not lines:
            continue
        m = HEAD.match(lines[0])
        if not m:
            problems.append("unparsed sample header: %r" % lines[0])
            continue
        frames = []
        for l in lines[1:]:
            fm = FRAME.match(l)
            if not fm:
                problems.append("unparsed frame line: %r" % l)
                continue
            sym = re.sub(r"\+0x[0-9a-f]+$", "", fm.group(2))
            frames.append((sym, fm.group(3)))
        got[(m.group(1), int(m.group(2)), m.group(5), tuple(frames))] += 1
    nwant, ngot = sum(want.values()), sum(got.values())
    if nwant != ngot:
        problems.append("perf script shows %d samples, %d written" %
                        (ngot, nwant))
    for k in sorted(set(want) | set(got), key=str):
        if want[k] != got[k]:
            problems.append("%d written, %d read: %s/%d %s %s" %
                            (want[k], got[k], k[0], k[1], k[2],
                             ";".join(f for f, _ in k[3])))
    for p in problems[:30]:
        print(p)
    if problems:
        return 1
    print("perf script reads %d samples, %d distinct stacks, as written" %
          (ngot, len(got)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--spec", help="scenario as a JSON file")
    ap.add_argument("--event", choices=sorted(EVENTS))
    ap.add_argument("-o", "--output", help="perf.data to write")
    ap.add_argument("-k", "--kallsyms", help="kallsyms file to write")
    ap.add_argument("-e", "--expected", help="expected answers (JSON)")
    ap.add_argument("--check-script", metavar="FILE",
                    help="compare perf script's text of the file")
    ap.add_argument("--list", action="store_true", help="list scenarios")
    ap.add_argument("--pipe", action="store_true",
                    help="write the pipe layout")
    ap.add_argument("--rename-at", metavar="N:NAME",
                    help="pipe: rename the event after N samples")
    a = ap.parse_args()
    if a.list:
        for n in sorted(SCENARIOS):
            print(n)
        return 0
    if bool(a.scenario) == bool(a.spec):
        ap.error("give one of --scenario and --spec")
    if a.spec:
        with open(a.spec) as f:
            spec = json.load(f)
        for s in spec["stacks"]:
            for k, v in st([], 0, "other").items():
                s.setdefault(k, v)
    else:
        spec = dict(SCENARIOS[a.scenario], name=a.scenario)
    ev = a.event or spec["event"]
    check_spec(spec, ev)
    if a.check_script:
        return check_script(spec, ev, a.check_script)
    if not (a.output and a.kallsyms and a.expected):
        ap.error("-o, -k and -e are needed to write")
    rename = None
    if a.rename_at:
        n, sep, name = a.rename_at.partition(":")
        if not (a.pipe and sep and n.isdigit() and name):
            ap.error("--rename-at N:NAME goes with --pipe")
        rename = (int(n), name)
    write_files(spec, ev, a.output, a.kallsyms, a.expected, a.pipe, rename)
    return 0


if __name__ == "__main__":
    sys.exit(main())
