#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# bench --variant ... --breakdown, checked from its outputs (issue 25,
# thread 002): breakdown-variants.py OUT.txt PCT NAME=results.json...
#
# For each variant's results and each file it decomposed:
#  - the parts add up, read by read. The results keep sums, not reads,
#    so the sums are checked: the kernel's parts (every timed one but
#    total) sum to its total, and the total plus the derived entry/exit
#    sum to the reader's own time of the reads, to the nanosecond.
#  - at p50: the kernel's total p50 plus entry/exit's p50 lie within
#    PCT percent of the p50 the reader measured of the same reads.
#    Percentiles do not add in general; they do when the reads are
#    alike, and a pairing that slipped (a record paired with another
#    read) makes entry/exit spread or go below 0 and breaks it. When
#    the reads were not alike (the kernel's p90 over 1.5x its p50, or
#    the reader's own where a recorded pass keeps its reads: a host busy
#    beside the reader), a miss is said as a PART-SKIP and held to the
#    bounds that hold for any reads instead.
#  - the unobserved p50 is that of the variant's own timed repetitions
#    (their p50s' median, the lower one of an even count), recomputed
#    here from the repetitions in the file.
# Then the side-by-side tables bench printed after the comparison, which
# are compare's: compare-breakdown.py holds each figure to the results.
# Prints, per file, the part whose share grew most.
import json
import os
import subprocess
import sys

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "compare-breakdown.py")


def reader_spread(r, file):
    """The reader's own p90 over its p50 for the decomposed pass's reads
    of file (its clock alone: no pairing in it), where the results keep
    them (a recorded pass), else None."""
    rec = r.get("recording") or {}
    for m in (rec.get("pass") or {}).get("metrics", []):
        if m["name"] == "read_ns" and m["file"] == file and m["p50"]:
            return m["p90"] / m["p50"]
    return None


def not_alike(name, r, f, total, e, pct):
    """The p50s missed: allowed only when the reads were not alike, and
    then within the bounds that hold for any reads. Half the reads
    slowed in the kernel and the other half outside it (a host busy
    beside the reader) and the p50s of the two parts no longer add up.
    Whether the reads were alike is judged from what a pairing cannot
    change (the kernel's spread, the reader's own where the results
    keep its reads): a pairing that slipped on alike reads still fails
    here, however it spreads entry/exit."""
    want = f["read_p50_ns"]
    spreads = [total["p90_ns"] / max(total["p50_ns"], 1),
               reader_spread(r, f["file"]) or 0]
    assert e["p50_ns"] > 0 and max(spreads) > 1.5, \
        (name, f["file"], "alike reads whose p50s do not add up: kernel",
         total["p50_ns"], "+ entry/exit", e["p50_ns"], "against the "
         "reader's", want, "spreads (kernel, reader)", spreads)
    # Read by read the reader's time is the kernel's plus entry/exit,
    # and entry/exit is rarely below 0: the reader's p50 is at least the
    # kernel's, and at most the sum of the p90s (a fifth of the reads
    # lie past either).
    assert total["p50_ns"] <= want * (1 + pct / 100.0), \
        (name, f["file"], total["p50_ns"], want)
    assert want <= total["p90_ns"] + e["p90_ns"], \
        (name, f["file"], want, total["p90_ns"], e["p90_ns"])
    print("PART-SKIP: %s %s: p50 kernel %d + entry/exit %d against the "
          "reader's %d: the reads were not alike (p90 over p50: kernel "
          "%.2f, reader %.2f), so their p50s are not held to add up here" %
          (name, f["file"], total["p50_ns"], e["p50_ns"], want,
           spreads[0], spreads[1]))


def check_file(name, r, f, pct):
    reps = r["repetitions"]
    parts = {p["part"]: p for p in f["parts"]}
    total = parts["total"]
    e = f["entry_exit"]
    assert e is not None, (name, f["file"], "entry/exit not derived",
                           f["reads"], f["reader_reads"])
    timed = [p for k, p in parts.items() if k != "total" and p["timed"]]
    # Each syscall's parts are disjoint and cover it (the existing
    # single-run test's tolerance: rounding of the tails).
    assert abs(sum(p["sum_ns"] for p in timed) - total["sum_ns"]) <= 10, \
        (name, f["file"], [p["sum_ns"] for p in timed], total["sum_ns"])
    assert total["sum_ns"] + e["sum_ns"] == e["measured_sum_ns"], \
        (name, f["file"], total["sum_ns"], e)
    # At p50.
    got = total["p50_ns"] + e["p50_ns"]
    want = f["read_p50_ns"]
    assert want > 0
    if abs(got - want) > pct / 100.0 * want:
        not_alike(name, r, f, total, e, pct)
    # The kernel's time inside the reader's clock: rarely below 0.
    assert e["negative"] <= max(1, f["reads"] // 100), (name, f["file"], e)
    # Unobserved: the timed repetitions' p50s, their (lower) median.
    p50s = sorted(m["p50"] for r in reps for m in r["metrics"]
                  if m["name"] == "read_ns" and m["file"] == f["file"])
    assert p50s and f["unobserved_p50_ns"] == p50s[(len(p50s) - 1) // 2], \
        (name, f["file"], f["unobserved_p50_ns"], p50s)
    print("ok %s %s: %d reads; p50 kernel %d + entry/exit %d = %d ns, "
          "the reader's %d ns (%+.2f%%)" %
          (name, f["file"], f["reads"], total["p50_ns"], e["p50_ns"], got,
           want, 100.0 * (got - want) / want))


def grew_most(file, names, bds):
    """The part whose share grew most from the first variant to the last
    (what the thread asks), from the results."""
    files = [{f["file"]: f for f in bd["files"]}[file] for bd in bds]
    timed = [{s["part"] for s in bd["sources"] if s["timed"]} for bd in bds]
    first = {p["part"]: p for p in files[0]["parts"]}
    last = {p["part"]: p for p in files[-1]["parts"]}
    grew = max((100 * (last[p]["share"] - first[p]["share"]), p)
               for p in first if p != "total" and
               p in timed[0] and p in timed[-1])
    print("ok %s: %s's share grew most, %+.1f points from %s to %s" %
          (file, grew[1], grew[0], names[0], names[-1]))


def main():
    pct = float(sys.argv[2])
    names, runs = [], []
    for arg in sys.argv[3:]:
        name, path = arg.split("=", 1)
        names.append(name)
        runs.append(json.load(open(path)))
    bds = [r["breakdown"] for r in runs]
    for name, r, bd in zip(names, runs, bds):
        for f in bd["files"]:
            check_file(name, r, f, pct)
    # The side-by-side tables are compare's (compare-breakdown.py checks
    # them against the results, figure by figure).
    if len(names) == 2:
        cmd = [sys.executable, CHECKER, "text", sys.argv[1],
               sys.argv[3].split("=", 1)[1], names[0],
               sys.argv[4].split("=", 1)[1], names[1]]
        if subprocess.call(cmd):
            raise SystemExit("the side-by-side tables are not the results'")
    for f in bds[0]["files"]:
        grew_most(f["file"], names, bds)


main()
