#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Writes the hand-made inputs of tests/shell/compare.sh: bench results
# files (rstat-analyze-bench/1, docs/bench-results.md) with fixed per-read
# latencies, and two `report --json`-shaped profiles. Run from the
# repository root; the files are committed, this only documents them.
import json
import math
import random

OUT = "tests/data/compare/"


def pct(sorted_v, q):
    # hist__percentile(): nearest rank ceil(q * n / 100), at least 1.
    n = len(sorted_v)
    r = max(1, math.ceil(q * n / 100))
    return sorted_v[r - 1]


def buckets(values):
    rows = {}
    for v in values:
        i = 0 if v == 0 else v.bit_length()
        i = max(i, 1)
        rows[i] = rows.get(i, 0) + 1
    lo, hi = min(rows), max(rows)
    out = []
    for i in range(lo, hi + 1):
        low = 0 if i == 1 else 1 << (i - 1)
        high = 1 if i == 1 else (1 << i) - 1
        out.append({"low": low, "high": high, "count": rows.get(i, 0)})
    return out


def g(x):
    return float("%.10g" % x)


def hist_metric(file, values):
    s = sorted(values)
    n = len(s)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0
    return {"name": "read_ns", "kind": "hist", "unit": "ns",
            "better": "lower", "file": file, "count": n, "min": s[0],
            "p50": pct(s, 50), "p90": pct(s, 90), "p99": pct(s, 99),
            "max": s[-1], "mean": g(mean), "stddev": g(sd),
            "hist": buckets(values), "samples": values}


def results(scenario, host, seed, base_ns, reps=3, reads=20, files=None,
            rate=None, real=6.08):
    rnd = random.Random(seed)
    files = files or {"cgroup.stat": 1.0, "cpu.stat": 2.0}
    out_reps = []
    for r in range(reps):
        metrics = []
        for f, scale in files.items():
            vals = [int(base_ns * scale + rnd.randint(-400, 400))
                    for _ in range(reads)]
            metrics.append(hist_metric(f, vals))
        if rate is not None:
            metrics.append({"name": "reads_per_s", "kind": "value",
                            "unit": "1/s", "better": "higher",
                            "file": None,
                            "value": g(rate + rnd.randint(-20, 20) / 10)})
        out_reps.append({"index": r,
                         "time": {"real_s": g(real + r * 0.01),
                                  "user_s": g(0.17 + r * 0.001),
                                  "sys_s": g(real - 0.19 + r * 0.01)},
                         "metrics": metrics})
    return {
        "schema": "rstat-analyze-bench/1", "scenario": scenario,
        "tool_version": "0.1.0",
        "params": {"children": 26, "reads": reads, "repetitions": reps},
        "provenance": {
            "hostname": host, "kernel": "6.18.0",
            "kernel_version": "#1 SMP PREEMPT_DYNAMIC", "arch": "x86_64",
            "cpus": 2, "cgroup_layout": "v2",
            "v2_controllers": ["cpu", "memory"], "v1_controllers": [],
            "cgroups_before": {"v2_live": 30, "v2_dying": 0,
                               "v1_memory": None},
            "cgroups_after": {"v2_live": 30, "v2_dying": 0,
                              "v1_memory": None},
            "started": "2026-11-30T20:00:00Z",
            "finished": "2026-11-30T20:01:06Z",
            "command_line": "rstat-analyze bench stat-read -r %d" % reps},
        "skipped": [], "repetitions": out_reps, "recording": None}


def write(name, doc):
    with open(OUT + name, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


write("base.json", results("stat-read", "vm1", 1, 8000, rate=164.5))
write("new.json", results("stat-read", "vm1", 2, 9000, rate=150.0,
                          real=6.7))
write("newer.json", results("stat-read", "vm1", 3, 8010, rate=164.0,
                            real=6.1))
write("base2.json", results("stat-read", "vm2", 4, 8050, rate=163.0))
# One repetition, one read: nothing to test a difference with.
write("single-a.json", results("stat-read", "vm1", 5, 8000, reps=1,
                               reads=1, files={"cpu.stat": 1.0}))
write("single-b.json", results("stat-read", "vm1", 6, 9000, reps=1,
                               reads=1, files={"cpu.stat": 1.0}))
# Nothing in common with the stat-read files.
write("other.json", results("stat-read", "vm1", 7, 8000,
                            files={"memory.stat": 1.0}))


def profile(seed, shares, trig, spans):
    att = [{"event": "cpu-clock", "category": c, "samples": int(s * 1000),
            "period": int(s * 1000000), "share": s, "flush_share": None}
           for c, s in shares]
    tr = [{"event": "cpu-clock", "trigger": t, "samples": int(s * 100),
           "period": int(s * 100000), "share": s} for t, s in trig]
    sp = []
    for name, sub, vals in spans:
        s = sorted(vals)
        sp.append({"name": name, "subsystem": sub, "count": len(s),
                   "total_ns": sum(s), "min_ns": s[0], "max_ns": s[-1],
                   "p50_ns": pct(s, 50), "p90_ns": pct(s, 90),
                   "p99_ns": pct(s, 99), "hist": buckets(vals)})
    return {"attribution": att, "triggers": tr, "category_triggers": [],
            "flush_comms": [], "flush_stacks": [], "skid": None,
            "spans": sp}


write("prof-a.json", profile(
    1, [("memcg-flush", 0.5), ("base-flush", 0.25), ("other", 0.25)],
    [("stat-read", 0.75), ("reclaim", 0.25)],
    [("flush", "memory", [3000 + 100 * i for i in range(40)])]))
write("prof-b.json", profile(
    2, [("memcg-flush", 0.3), ("base-flush", 0.3), ("blkcg-flush", 0.1),
        ("other", 0.3)],
    [("stat-read", 0.9), ("reclaim", 0.1)],
    [("flush", "memory", [2000 + 50 * i for i in range(40)])]))
