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
#    Percentiles do not add in general; they do here when entry/exit is
#    steady, and a pairing that slipped (a record paired with another
#    read) makes entry/exit spread or go below 0 and breaks it.
#  - the unobserved p50 is that of the variant's own timed repetitions
#    (their p50s' median, the lower one of an even count), recomputed
#    here from the repetitions in the file.
# Then the side-by-side tables bench printed after the comparison: one
# per file, the variants in the order given, each part's share and p50
# as the JSON has them (within half a unit of the last digit printed),
# "not timed" where the JSON says so, and each part's change, the last
# variant's share less the first's, in points. Prints, per file, the
# part whose share grew most.
import json
import re
import sys

UNIT = {"ns": 1, "us": 1e3, "ms": 1e6}
CELL = r"(\S+)% +(\d+(?:\.\d+)?) (ns|us|ms)|(not timed)"


def tol(text, scale=1.0):
    dec = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -dec * scale + 1e-9


def check_file(name, f, reps, pct):
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
    assert want > 0 and abs(got - want) <= pct / 100.0 * want, \
        (name, f["file"], "p50: kernel", total["p50_ns"], "+ entry/exit",
         e["p50_ns"], "against the reader's", want)
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


def check_table(text, file, names, bds):
    head = "\n%s: where a read's time goes (%s)\n" % (
        file, "share, p50" if len(names) <= 2 else "share")
    assert text.count(head) == 1, (file, "side-by-side tables",
                                   text.count(head))
    sect = text.split(head, 1)[1].split("\n\n", 1)[0].rstrip("\n")
    lines = sect.split("\n")
    assert lines[0].split() == ["part"] + names + ["change"], lines[0]
    files = [{f["file"]: f for f in bd["files"]}[file] for bd in bds]
    untimed = [{s["part"]: not s["timed"] for s in bd["sources"]}
               for bd in bds]
    rows = {}
    for line in lines[1:]:
        part = line.split()[0]
        cells = re.findall(CELL, line)
        m = re.search(r"  ([-+]\d+\.\d) pts$", line)
        rows[part] = (cells, m.group(1) if m else None)
    want = ["total"] + [p["part"] for p in files[0]["parts"][1:]]
    assert list(rows) == want, (file, list(rows), want)
    grew = None
    for part, (cells, change) in rows.items():
        assert len(cells) == len(names), (file, part, cells)
        js = [{p["part"]: p for p in f["parts"]}[part] for f in files]
        for k, c in enumerate(cells):
            if part != "total" and untimed[k][part]:
                assert c[3] == "not timed", (file, part, names[k], c)
                continue
            sh, v, u = c[0], c[1], c[2]
            assert abs(float(sh) - 100 * js[k]["share"]) <= tol(sh), \
                (file, part, names[k], sh, js[k]["share"])
            assert abs(float(v) * UNIT[u] - js[k]["p50_ns"]) <= \
                tol(v, UNIT[u]), (file, part, names[k], v, u, js[k])
        both = part != "total" and not untimed[0][part] and \
            not untimed[-1][part]
        assert (change is not None) == both, (file, part, change)
        if not both:
            continue
        d = 100 * (js[-1]["share"] - js[0]["share"])
        assert abs(float(change) - d) <= 0.05 + 1e-6, (file, part, change, d)
        if grew is None or d > grew[1]:
            grew = (part, d)
    print("ok %s: the table says what the results say; %s's share grew "
          "most, %+.1f points from %s to %s" %
          (file, grew[0], grew[1], names[0], names[-1]))


def main():
    text = open(sys.argv[1]).read()
    pct = float(sys.argv[2])
    names, runs = [], []
    for arg in sys.argv[3:]:
        name, path = arg.split("=", 1)
        names.append(name)
        runs.append(json.load(open(path)))
    bds = [r["breakdown"] for r in runs]
    for name, r, bd in zip(names, runs, bds):
        for f in bd["files"]:
            check_file(name, f, r["repetitions"], pct)
    # The tables come after the comparison.
    tail = text[text.index("Verdicts at 95%"):]
    for f in bds[0]["files"]:
        check_table(tail, f["file"], names, bds)


main()
