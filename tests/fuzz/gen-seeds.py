#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora of fuzz-perf-pipe and fuzz-tracing-formats, and
the tracing-data regression inputs of fuzz-perf-data.

usage: gen-seeds.py [--tracefs DIR] CORPUS_DIR

CORPUS_DIR is tests/fuzz/corpus. Tracepoint formats are read from the
running kernel's tracefs (default /sys/kernel/tracing): the seeds are
committed, so this runs again only to make new ones.

fuzz-perf-pipe seeds are small pipe-layout streams (a few hundred bytes
each), one per ordering the reader must survive: EVENT_UPDATE between
delivered samples, HEADER_ATTR after samples, FINISHED_ROUND around
out-of-order samples, tracing data and EVENT_DESC arriving mid-stream, id
indexes and lock tracepoints paired into spans. fuzz-tracing-formats seeds
are NUL-separated texts: header_page, then event formats, then printk
formats (see that target).
"""
import argparse
import os
import struct
import sys

# ---- pipe-layout records (tools/lib/perf/include/perf/event.h) ----
SAMPLE, MMAP, COMM, EXIT, FORK, KSYMBOL = 9, 1, 3, 4, 7, 17
HEADER_ATTR, TRACING_DATA, FINISHED_ROUND = 64, 66, 68
ID_INDEX, EVENT_UPDATE, HEADER_FEATURE, FINISHED_INIT = 69, 78, 80, 82
FEAT_OSRELEASE, FEAT_EVENT_DESC = 4, 12
FEAT_RSTAT_BREAKDOWN = 254          # ours: record's read breakdown
S_IP, S_TID, S_TIME, S_ID, S_CPU, S_PERIOD = 1, 2, 4, 64, 128, 256
S_CALLCHAIN, S_RAW, S_IDENTIFIER = 32, 1024, 1 << 16
CONTEXT_KERNEL = (1 << 64) - 128
MISC_KERNEL = 1
KBASE = 0xffffffff81000000
ATTR_SIZE = 128


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def rec(typ, body, misc=0):
    body = pad8(body)
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def attr(typ, config, sample_type, period=1, sample_id_all=True):
    flags = (1 << 8) | (1 << 9)          # mmap, comm
    if sample_id_all:
        flags |= 1 << 18
    flags |= 1 << 20                     # exclude_guest
    a = struct.pack("<IIQQQQQ", typ, ATTR_SIZE, config, period, sample_type,
                    0, flags)
    return a + b"\0" * (ATTR_SIZE - len(a))


def header_attr(a, ids):
    return rec(HEADER_ATTR, a + b"".join(struct.pack("<Q", i) for i in ids))


def header_string(s):
    raw = s.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 64)
    return struct.pack("<I", len(raw)) + raw


def feature(feat, payload):
    return rec(HEADER_FEATURE, struct.pack("<Q", feat) + payload)


def event_update_name(ident, name):
    return rec(EVENT_UPDATE, struct.pack("<QQ", 2, ident) +
               name.encode() + b"\0")


def round_():
    return rec(FINISHED_ROUND, b"")


def trailer(pid, time, ident):     # TID TIME ID CPU IDENTIFIER... per type
    return struct.pack("<iiQQ", pid, pid, time, ident)


# The sampling event: IDENTIFIER IP TID TIME CALLCHAIN PERIOD, trailer
# TID TIME IDENTIFIER.
CLOCK_ST = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD


def clock_sample(ident, pid, time, frames, period=250000):
    chain = [CONTEXT_KERNEL] + [KBASE + 0x1000 + 0x40 * f for f in frames]
    # kernel order: PERIOD comes before CALLCHAIN
    body = struct.pack("<QQiiQQQ", ident, chain[1], pid, pid, time, period,
                       len(chain))
    body += b"".join(struct.pack("<Q", c) for c in chain)
    return rec(SAMPLE, body, MISC_KERNEL)


def comm(pid, name, time, ident):
    return rec(COMM, struct.pack("<ii", pid, pid) +
               pad8(name.encode()[:15] + b"\0") +
               struct.pack("<iiQQ", pid, pid, time, ident))


def kernel_mmap(ident):
    fn = b"[kernel.kallsyms]_text\0"
    return rec(MMAP, struct.pack("<iiQQQ", -1, 0, KBASE, 0x100000, KBASE) +
               pad8(fn) + struct.pack("<iiQQ", -1, 0, 0, ident),
               MISC_KERNEL)


KSYM_BPF, KSYM_UNREGISTER = 1, 1
BPF_BASE = 0xffffffffc0026f00


def ksymbol(addr, length, name, time, ident, flags=0):
    # u64 addr, u32 len, u16 ksym_type, u16 flags, char name[], trailer;
    # time None: no trailer, and a name with no NUL up to the record's end
    body = struct.pack("<QIHH", addr, length, KSYM_BPF, flags)
    if time is None:
        return rec(KSYMBOL, body + pad8(name.encode()))
    return rec(KSYMBOL, body + pad8(name.encode() + b"\0") +
               struct.pack("<iiQQ", -1, 0, time, ident))


def bpf_sample(ident, pid, time, offs):
    # a kernel chain whose leaf frames lie in BPF code at BPF_BASE + off
    chain = ([CONTEXT_KERNEL] + [BPF_BASE + o for o in offs] +
             [KBASE + 0x1040])
    body = struct.pack("<QQiiQQQ", ident, chain[1], pid, pid, time, 250000,
                       len(chain))
    body += b"".join(struct.pack("<Q", c) for c in chain)
    return rec(SAMPLE, body, MISC_KERNEL)


# ---- tracing data (perf's trace-event-read.c layout) ----
def tracing_data(header_page, systems, printk=b"", lsize=8):
    b = bytes([23, 8, 68]) + b"tracing" + b"0.6\0" + bytes([0, lsize])
    b += struct.pack("<I", 4096)
    b += b"header_page\0" + struct.pack("<Q", len(header_page)) + header_page
    b += b"header_event\0" + struct.pack("<Q", 0)
    b += struct.pack("<I", 0)                       # ftrace formats
    b += struct.pack("<I", len(systems))
    for sys_name, fmts in systems:
        b += sys_name.encode() + b"\0" + struct.pack("<I", len(fmts))
        for f in fmts:
            b += struct.pack("<Q", len(f)) + f
    b += struct.pack("<I", 0)                       # kallsyms
    b += struct.pack("<I", len(printk)) + printk
    b += struct.pack("<Q", 0)                       # saved cmdlines
    return b


def tracing_record(td):
    return struct.pack("<IHHII", TRACING_DATA, 0, 16, len(td), 0) + pad8(td)


PIPE_HEADER = b"PERFILE2" + struct.pack("<Q", 16)

LOCK_FMT = """name: {name}
ID: {id}
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:int root;\toffset:8;\tsize:4;\tsigned:1;
\tfield:int level;\toffset:12;\tsize:4;\tsigned:1;
\tfield:u64 id;\toffset:16;\tsize:8;\tsigned:0;
\tfield:int cpu;\toffset:24;\tsize:4;\tsigned:1;
\tfield:bool contended;\toffset:28;\tsize:1;\tsigned:0;

print fmt: "root=%d id=%llu level=%d cpu=%d lock contended:%d", {args}
"""
LOCK_ARGS = "REC->root, REC->id, REC->level, REC->cpu, REC->contended"
HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
TP_ST = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD | S_RAW


def lock_fmt(name, ident, args=LOCK_ARGS):
    return LOCK_FMT.format(name=name, id=ident, args=args).encode()


def tp_sample(ident, pid, time, tp_id, contended=0):
    raw = struct.pack("<HBBiiiQiB", tp_id, 0, 0, pid, 1, 1, 42, 0,
                      contended)
    raw += b"\0" * 3
    raw = pad8(struct.pack("<I", len(raw)) + raw)[4:]
    body = struct.pack("<QQiiQIIQ", ident, KBASE + 0x2000, pid, pid, time,
                       0, 0, 1)
    body += struct.pack("<I", len(raw)) + raw
    return rec(SAMPLE, body, MISC_KERNEL)


def prologue(extra_attrs=b""):
    return (PIPE_HEADER + header_attr(attr(1, 0, CLOCK_ST, 4000), [1]) +
            extra_attrs + feature(FEAT_OSRELEASE, header_string("6.1.0")) +
            kernel_mmap(1) + comm(100, "cat", 1, 1))


def pipe_seeds():
    s = {}
    # plain: samples between rounds, out of order inside a round
    s["plain"] = (prologue() + clock_sample(1, 100, 30, [1, 2]) +
                  clock_sample(1, 100, 10, [3, 2]) + round_() +
                  clock_sample(1, 100, 20, [1]) + round_() + round_())
    # the issue-14 trigger: rename between delivered samples, and back
    s["rename-mid-stream"] = (
        prologue() + clock_sample(1, 100, 10, [1, 2]) + round_() +
        round_() + event_update_name(1, "cycles:u") +
        clock_sample(1, 100, 20, [1, 2]) + round_() + round_() +
        event_update_name(1, "cpu-clock") + clock_sample(1, 100, 30, [2]))
    # an attr arriving after samples, its samples, then a rename of it
    s["late-attr"] = (
        prologue() + clock_sample(1, 100, 10, [1]) + round_() +
        header_attr(attr(1, 1, CLOCK_ST, 4000), [2]) +
        clock_sample(2, 100, 11, [2]) + clock_sample(1, 100, 12, [2]) +
        event_update_name(2, "task-clock:u") + round_() +
        clock_sample(2, 100, 13, [1]))
    # EVENT_DESC as a feature mid-stream, an id index, FINISHED_INIT
    desc = (struct.pack("<II", 1, ATTR_SIZE) + attr(1, 0, CLOCK_ST, 4000) +
            struct.pack("<I", 1) + header_string("cpu-clock:ppp") +
            struct.pack("<Q", 1))
    s["late-event-desc"] = (
        prologue() + rec(FINISHED_INIT, b"") +
        clock_sample(1, 100, 10, [1]) + round_() + round_() +
        feature(FEAT_EVENT_DESC, desc) +
        rec(ID_INDEX, struct.pack("<QQQQQ", 1, 3, 0, 0, 0)) +
        clock_sample(3, 100, 11, [2]) + clock_sample(1, 100, 12, [1]))
    # lock tracepoints: tracing data first, pairs into spans
    td = tracing_data(HEADER_PAGE, [("cgroup", [
        lock_fmt("cgroup_rstat_locked", 533),
        lock_fmt("cgroup_rstat_unlock", 535)])])
    tps = (header_attr(attr(2, 533, TP_ST, 1), [10]) +
           header_attr(attr(2, 535, TP_ST, 1), [11]))
    s["lock-spans"] = (
        prologue(tps) + tracing_record(td) +
        tp_sample(10, 100, 10, 533) + clock_sample(1, 100, 11, [1, 2]) +
        tp_sample(11, 100, 12, 535) + round_() +
        tp_sample(10, 100, 13, 533, 1) + tp_sample(11, 100, 15, 535) +
        round_() + round_())
    # tracing data arriving after the tracepoint samples (renames them)
    s["late-tracing-data"] = (
        prologue(tps) + tp_sample(10, 100, 10, 533) + round_() + round_() +
        tracing_record(td) + tp_sample(11, 100, 12, 535) + round_())
    # BPF programs coming and going (KSYMBOL), samples in them between
    s["ksymbols"] = (
        prologue() + clock_sample(1, 100, 5, [1]) +
        ksymbol(BPF_BASE, 0x104, "bpf_prog_88da8030ca69098e_rs_x", 10, 1) +
        bpf_sample(1, 100, 11, [0x10, 0x103]) +
        ksymbol(BPF_BASE - 0x10, 0x20, "bpf_prog_2222222222222222_lo", 12,
                1) +
        bpf_sample(1, 100, 13, [0x8, 0x30]) + round_() +
        ksymbol(BPF_BASE + 0x50, 0, "x", 14, 1, KSYM_UNREGISTER) +
        bpf_sample(1, 100, 15, [0x40, 0]) + round_() + round_())
    # hostile ones: len 0, past the end of the address space, inside
    # the kernel's text, overlapping, unterminated name
    s["ksymbols-hostile"] = (
        prologue() +
        ksymbol(BPF_BASE, 0, "bpf_prog_zero", 10, 1) +
        ksymbol((1 << 64) - 0x2000, 0xffffffff, "top", 11, 1) +
        ksymbol(KBASE, 0x1000, "bpf_prog_in_text", 12, 1) +
        ksymbol(BPF_BASE, 0x40, "a", 13, 1) +
        ksymbol(BPF_BASE + 0x20, 0x40, "b", 14, 1) +
        ksymbol(BPF_BASE - 0x20, 0x100, "c", 15, 1) +
        bpf_sample(1, 100, 16, [0, 0x30, 0x90, (1 << 64) - 0x1800 -
                                BPF_BASE]) + round_() +
        ksymbol(BPF_BASE + 0x800, 0x40, "unterminated_xyz", None, 1) +
        bpf_sample(1, 100, 18, [0]))
    return s


BD_PARTS = ["memory", "io", "bpf", "base", "walk", "wait", "cpu-wait",
            "off-cpu", "rest"]


def breakdown_doc(name="cpu.stat"):
    """record's read breakdown section, as bench_breakdown__format writes
    it: one file, walk and rest timed, the callbacks not."""
    import json
    timed = {"walk": 0.6, "rest": 0.4, "wait": 0.0, "off-cpu": 0.0}
    sources = []
    for p in BD_PARTS:
        src = {"part": p, "timed": p in timed}
        src["how" if p in timed else "why"] = "seed"
        if p in ("memory", "io", "bpf", "base"):
            src.update(outside_calls=0, outside_ns=0, outside_by=[])
        sources.append(src)
    parts = [{"part": "total", "timed": True, "p50_ns": 1000,
              "p90_ns": 2000, "p99_ns": 4000000, "share": 1.0, "calls": 3,
              "sum_ns": 9000, "notes": ["", "", "1 tick"]}]
    for p in BD_PARTS:
        sh = timed.get(p, 0.0)
        parts.append({"part": p, "timed": p in timed, "p50_ns": int(1000 * sh),
                      "p90_ns": int(2000 * sh), "p99_ns": int(4000 * sh),
                      "share": sh, "calls": 6 if p == "rest" else 3,
                      "sum_ns": int(9000 * sh), "notes": ["", "", ""]})
    bd = {"method": "BPF: tracepoints only, no kprobes", "pass": "record",
          "hz": 250, "lost": 0, "broken": 0, "window_start_ns": 1,
          "window_end_ns": 2, "reader_pid": 100, "sources": sources,
          "files": [{"file": name, "reads": 3, "off_cpu_most": 0,
                     "tail_off_ns": 0, "read_p50_ns": 0,
                     "unobserved_p50_ns": 0, "parts": parts,
                     "reader_reads": 0, "entry_exit": None}],
          "follow": {"forks": 3, "readers_full": 0, "events_lost": 0,
                     "opens": 3, "other_syscalls": 9,
                     "unnamed_syscalls": 0, "files_dropped": 0}}
    return json.dumps({"breakdown": bd}, indent=1)


def breakdown_seed():
    return (prologue() + clock_sample(1, 100, 10, [1, 2]) + round_() +
            feature(FEAT_RSTAT_BREAKDOWN, header_string(breakdown_doc())) +
            round_())


# Tracepoints whose formats seed the format target: the rstat ones and
# some with __print_flags / __print_symbolic and casts, arrays, strings.
TRACEPOINTS = [
    "cgroup/cgroup_rstat_locked", "cgroup/cgroup_rstat_unlock",
    "cgroup/cgroup_rstat_lock_contended", "memcg/memcg_flush_stats",
    "sched/sched_switch", "writeback/writeback_dirty_inode",
    "irq/softirq_entry", "kmem/mm_page_alloc", "alarmtimer/alarmtimer_fired",
    "block/block_rq_issue", "sched/sched_process_exec",
]


# Inputs fuzz-tracing-formats found crashing or hanging libtraceevent.
FOUND_FORMATS = ["array-bracket-not-text", "print-args-cut-short",
                 "string-with-no-end"]


def wrap_formats(text):
    """A recording of fuzz-tracing-formats' input, as that target makes."""
    parts = text.split(b"\0")
    printk = parts.pop() if len(parts) >= 3 else b""
    td = tracing_data(parts[0], [("cgroup", parts[1:])], printk)
    return prologue() + tracing_record(td) + clock_sample(1, 100, 10, [1])


def read_formats(tracefs):
    out = []
    for tp in TRACEPOINTS:
        try:
            with open(os.path.join(tracefs, "events", tp, "format"), "rb") as f:
                out.append((tp.split("/")[0], f.read()))
        except OSError as e:
            print("skipping %s: %s" % (tp, e), file=sys.stderr)
    return out


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tracefs", default="/sys/kernel/tracing")
    ap.add_argument("corpus")
    a = ap.parse_args()

    d = os.path.join(a.corpus, "fuzz-perf-pipe")
    os.makedirs(d, exist_ok=True)
    for name, data in pipe_seeds().items():
        write(os.path.join(d, name + ".data"), data)
    # the ksymbol seeds through the other target's analyses too
    for name, data in pipe_seeds().items():
        if name.startswith("ksymbols"):
            write(os.path.join(a.corpus, "fuzz-perf-data", name + ".data"),
                  data)

    fmts = read_formats(a.tracefs)
    with open(os.path.join(a.tracefs, "events", "header_page"), "rb") as f:
        hp = f.read()
    with open(os.path.join(a.tracefs, "printk_formats"), "rb") as f:
        printk = b"".join(f.readlines()[:8])
    d = os.path.join(a.corpus, "fuzz-tracing-formats")
    os.makedirs(d, exist_ok=True)
    for sys_name, text in fmts:
        name = text.split(b"\n", 1)[0].split(b": ", 1)[-1].decode()
        write(os.path.join(d, "%s-%s" % (sys_name, name)),
              hp + b"\0" + text + b"\0" + printk)
    write(os.path.join(d, "rstat-all"),
          hp + b"\0" + b"\0".join(t for s, t in fmts[:4]) + b"\0")

    # What fuzz-tracing-formats found, as recordings the report replays
    d = os.path.join(a.corpus, "fuzz-perf-data")
    for name in FOUND_FORMATS:
        src = os.path.join(a.corpus, "fuzz-tracing-formats", name)
        with open(src, "rb") as f:
            write(os.path.join(d, "tracing-%s.data" % name),
                  wrap_formats(f.read()))

    # record's read breakdown section, read as report reads it
    write(os.path.join(a.corpus, "fuzz-perf-data", "read-breakdown.data"),
          breakdown_seed())

    # Regression inputs for fuzz-perf-data (replayed by the report):
    # a tracepoint whose print fmt names a field it lacks inside
    # __print_flags / __print_symbolic used to crash libtraceevent.
    d = os.path.join(a.corpus, "fuzz-perf-data")
    for helper in ("__print_flags(REC->contende, \"|\", {1, \"C\"})",
                   "__print_symbolic(REC->lvl, {0, \"root\"})"):
        args = "REC->root, REC->id, REC->level, REC->cpu, " + helper
        td = tracing_data(HEADER_PAGE, [("cgroup", [
            lock_fmt("cgroup_rstat_locked", 533, args),
            lock_fmt("cgroup_rstat_unlock", 535)])])
        tps = (header_attr(attr(2, 533, TP_ST, 1), [10]) +
               header_attr(attr(2, 535, TP_ST, 1), [11]))
        kind = "flags" if "flags" in helper else "symbolic"
        write(os.path.join(d, "tracing-print-%s-no-field.data" % kind),
              prologue(tps) + tracing_record(td) +
              tp_sample(10, 100, 10, 533) + tp_sample(11, 100, 12, 535) +
              round_())
    return 0


if __name__ == "__main__":
    sys.exit(main())
