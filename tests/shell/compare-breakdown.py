#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare's breakdown tables against the results files they come from.

    compare-breakdown.py kprobes IN OUT
        OUT: the results IN as a kernel with kprobes would have written
        them (synthetic: the callbacks timed, base not; wait not timed
        where IN timed it; off-cpu from 0; times doubled; memory.stat's
        reads not paired, so no entry/exit; the files in reverse order).
    compare-breakdown.py text|details|markdown|csv|json OUT A LA B LB
        OUT is compare's output (of results A and B, labelled LA and LB)
        in that form; every figure it prints of the breakdowns is checked
        against what this script computes from A and B itself: each
        side's share and p50 within the printed rounding (CSV, JSON:
        exactly), the share's change in points and the p50's in percent
        (+: grew; "from 0" with no percentage), "not timed" for a part a
        side did not time and no change beside it, the parts folded into
        "not timed on either" and "0 on both" (text and markdown without
        --details), entry/exit only when both paired their reads.
Exit 1 with what differs.
"""
import csv
import io
import json
import math
import re
import sys

PARTS = ["memory", "io", "bpf", "base", "walk", "wait", "cpu-wait",
         "off-cpu", "rest"]
UNIT = {"ns": 1, "us": 1e3, "ms": 1e6}


def kprobes(src, dst):
    d = json.load(open(src))
    bd = d["breakdown"]
    bd["method"] = "BPF: kprobes and tracepoints"
    src_of = {s["part"]: s for s in bd["sources"]}
    for p in ("memory", "io", "bpf", "cpu-wait"):
        src_of[p].update(timed=True, how="kprobe+kretprobe (synthetic)")
        src_of[p].pop("why", None)
    src_of["base"].update(timed=False,
                          why="not in kallsyms (inlined or absent): in walk")
    src_of["base"].pop("how", None)
    src_of["wait"] = {"part": "wait", "timed": False,
                      "why": "synthetic: not timed on this side"}
    bd["sources"] = [src_of[p] for p in PARTS]
    for f in bd["files"]:
        parts = {p["part"]: p for p in f["parts"]}
        for p in f["parts"]:
            for k in ("p50_ns", "p90_ns", "p99_ns", "sum_ns"):
                p[k] *= 2
        walk = parts["walk"]
        mem = parts["memory"]
        mem.update(p50_ns=walk["p50_ns"] * 3 // 5,
                   p90_ns=walk["p90_ns"] * 3 // 5,
                   p99_ns=walk["p99_ns"] * 3 // 5,
                   share=round(walk["share"] * 0.6, 8),
                   calls=3 * f["reads"], sum_ns=walk["sum_ns"] * 3 // 5)
        walk.update(share=round(walk["share"] * 0.4, 8),
                    sum_ns=walk["sum_ns"] * 2 // 5)
        parts["io"].update(p50_ns=0, p90_ns=0, p99_ns=1234, share=0.00049,
                           calls=f["reads"], sum_ns=1234)
        parts["off-cpu"].update(p50_ns=5000, p90_ns=6000, p99_ns=4100000,
                                share=0.0125, calls=f["reads"] // 10,
                                sum_ns=5000 * f["reads"],
                                notes=["", "", "1 tick"])
        parts["wait"].update(p50_ns=0, p90_ns=0, p99_ns=0, share=0,
                             calls=0, sum_ns=0)
        e = f.get("entry_exit")
        if f["file"] == "memory.stat" or not e:
            f["entry_exit"] = None
            f["reader_reads"] = f["reads"] + 1
        else:
            for k in ("p50_ns", "p90_ns", "p99_ns", "sum_ns"):
                e[k] = e[k] * 3 // 2
            e["share"] = round(e["share"] * 0.75, 8)
    bd["files"].reverse()
    json.dump(d, open(dst, "w"), indent=1)


def model(a, b):
    """[(file, [(part, derived, cellA, cellB, change)]), ...], in A's order."""
    out = []
    bda, bdb = a["breakdown"], b["breakdown"]
    timed = [{s["part"]: s["timed"] for s in x["sources"]}
             for x in (bda, bdb)]
    fb = {f["file"]: f for f in bdb["files"]}
    for fa in bda["files"]:
        if fa["file"] not in fb:
            continue
        files = (fa, fb[fa["file"]])
        rows = []
        for part in ["total"] + PARTS + ["entry/exit"]:
            cells = []
            for k, f in enumerate(files):
                if part == "entry/exit":
                    e = f.get("entry_exit")
                    cells.append(e and {"share": e["share"],
                                        "q": [e["p50_ns"], e["p90_ns"],
                                              e["p99_ns"]],
                                        "calls": f["reads"],
                                        "sum": e["sum_ns"]})
                    continue
                p = {x["part"]: x for x in f["parts"]}[part]
                if part != "total" and not timed[k][part]:
                    cells.append(None)
                    continue
                cells.append({"share": p["share"],
                              "q": [p["p50_ns"], p["p90_ns"], p["p99_ns"]],
                              "calls": p["calls"], "sum": p["sum_ns"],
                              "notes": p["notes"]})
            if part == "entry/exit" and not cells[0] and not cells[1]:
                continue
            ch = None
            if cells[0] and cells[1]:
                ch = {"pts": (cells[1]["share"] - cells[0]["share"]) * 100,
                      "q": [pct(cells[1]["q"][i], cells[0]["q"][i])
                            for i in range(3)],
                      "calls": pct(cells[1]["calls"], cells[0]["calls"]),
                      "sum": pct(cells[1]["sum"], cells[0]["sum"])}
            rows.append((part, part == "entry/exit", cells[0], cells[1],
                         ch))
        out.append((fa["file"], rows))
    return out


def pct(v, base):
    if base == 0:
        return 0.0 if v == 0 else None
    return (v - base) * 100 / abs(base)


def near(printed, exact, what):
    """printed (a number as text) is exact rounded to its decimals."""
    dec = len(printed.split(".")[1]) if "." in printed else 0
    if abs(float(printed) - exact) > 0.5 * 10 ** -dec + 1e-9:
        raise SystemExit("%s: printed %s, computed %r" % (what, printed,
                                                         exact))


def near_time(value, unit, exact, what):
    dec = len(value.split(".")[1]) if "." in value else 0
    if abs(float(value) * UNIT[unit] - exact) > \
            0.5 * 10 ** -dec * UNIT[unit] + 1e-9:
        raise SystemExit("%s: printed %s %s, computed %d ns" % (
            what, value, unit, exact))


def underived(rows):
    """entry/exit, derived on one side only: text and markdown omit it."""
    return [r[0] for r in rows if r[1] and not (r[2] and r[3])]


def folded(rows):
    """The parts a short table folds: (not timed on either, 0 on both)."""
    none, zero = [], []
    for part, derived, ca, cb, ch in rows:
        if part == "total" or derived:
            continue
        if ca is None and cb is None:
            none.append(part)
        elif ca and cb and all(c["share"] == 0 and not any(c["q"]) and
                               not c["calls"] and not c["sum"]
                               for c in (ca, cb)):
            zero.append(part)
    return none, zero


def check_cells(tokens, rows_by, what, md=False):
    """tokens of one row after its name: cell A, cell B, pts, %."""
    part = what[1]
    _, derived, ca, cb, ch = rows_by[part]
    i = 0
    for k, c in enumerate((ca, cb)):
        w = "%s %s side %d" % (what[0], part, k)
        if c is None:
            if tokens[i:i + 2] != ["not", "timed"]:
                raise SystemExit("%s: not timed, printed %r" % (w, tokens))
            i += 2
            if md:
                if tokens[i:i + 2] != ["not", "timed"]:
                    raise SystemExit("%s: not timed, printed %r" % (
                        w, tokens))
                i += 2
            continue
        share = tokens[i]
        if not share.endswith("%"):
            raise SystemExit("%s: share %r" % (w, share))
        near(share[:-1], c["share"] * 100, w + " share")
        value, unit = tokens[i + 1], tokens[i + 2]
        if value.startswith("-"):
            value, sign = value[1:], -1
        else:
            sign = 1
        near_time(value, unit, sign * c["q"][0], w + " p50")
        i += 3
    rest = tokens[i:]
    if rest[-2:] == ["from", "0"]:
        rest = rest[:-2] + ["from 0"]
    if ch is None:
        if rest:
            raise SystemExit("%s %s: a change beside a part not timed: %r"
                             % (what[0], part, rest))
        return
    if len(rest) != 2:
        raise SystemExit("%s %s: change %r" % (what[0], part, rest))
    near(rest[0], ch["pts"], "%s %s pts" % what)
    if ch["q"][0] is None:
        if rest[1] != "from 0":
            raise SystemExit("%s %s: %r, expected 'from 0'" % (
                what[0], part, rest[1]))
    else:
        if not rest[1].endswith("%"):
            raise SystemExit("%s %s: %r" % (what[0], part, rest[1]))
        near(rest[1][:-1], ch["q"][0], "%s %s p50 %%" % what)


def check_text(out, m, la, lb, details):
    text = open(out).read()
    sect = text.split("Where a read's time goes, timed in the kernel", 1)
    if len(sect) != 2:
        raise SystemExit("no breakdown section")
    lines = sect[1].splitlines()
    seen = 0
    for file, rows in m:
        rows_by = {r[0]: r for r in rows}
        head = [n for n, line in enumerate(lines)
                if re.match(r"^%s +%s +%s$" % (re.escape(file),
                                               re.escape(la),
                                               re.escape(lb)), line)]
        if len(head) != 1:
            raise SystemExit("%s: %d tables" % (file, len(head)))
        n = head[0] + 1
        if lines[n].split() != ["part", "share", "p50", "share", "p50",
                                "pts", "%"]:
            raise SystemExit("%s: header %r" % (file, lines[n]))
        printed, none, zero = [], None, None
        for line in lines[n + 1:]:
            if not line.strip():
                break
            if line.startswith("not timed on either: "):
                none = line.split(": ", 1)[1].split(", ")
                continue
            if line.startswith("0 on both: "):
                zero = line.split(": ", 1)[1].split(", ")
                continue
            if line.startswith("entry/exit: not derived on "):
                continue
            f = line.split()
            if f[0] not in rows_by:
                raise SystemExit("%s: a row of no part: %r" % (file, line))
            check_cells(f[1:], rows_by, (file, f[0]))
            printed.append(f[0])
            seen += 1
        want_none, want_zero = folded(rows)
        shown = [r[0] for r in rows if r[0] not in underived(rows) and
                 (details or r[0] not in want_none + want_zero)]
        if printed != shown:
            raise SystemExit("%s: rows %r, expected %r" % (file, printed,
                                                           shown))
        if not details and (none or []) != want_none:
            raise SystemExit("%s: not timed on either %r, expected %r" % (
                file, none, want_none))
        if not details and (zero or []) != want_zero:
            raise SystemExit("%s: 0 on both %r, expected %r" % (
                file, zero, want_zero))
        if details and (none or zero):
            raise SystemExit("%s: --details folded rows" % file)
        if underived(rows) and \
                "entry/exit: not derived on %s (reads not paired)" % (
                    la if rows_by["entry/exit"][2] is None else lb) \
                not in "\n".join(lines[n:]).split("\n\n")[0]:
            raise SystemExit("%s: entry/exit left out unsaid" % file)
    return seen


def check_markdown(out, m, la, lb, details):
    lines = open(out).read().splitlines()
    want = "| File | Part | %s share | %s p50 | %s share | %s p50 | " \
           "%s pts | %s %% |" % (la, la, lb, lb, lb, lb)
    if want not in lines:
        raise SystemExit("markdown: no header %r" % want)
    n = lines.index(want) + 2
    printed = {}
    for line in lines[n:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        printed.setdefault(cells[0], []).append((cells[1], cells[2:]))
    text = "\n".join(lines)
    seen = 0
    for file, rows in m:
        rows_by = {r[0]: r for r in rows}
        for part, cells in printed.get(file, []):
            tokens = []
            for c in cells:
                tokens += c.split() if c else []
            check_cells(tokens, rows_by, (file, part), md=True)
            seen += 1
        want_none, want_zero = folded(rows)
        shown = [r[0] for r in rows if r[0] not in underived(rows) and
                 (details or r[0] not in want_none + want_zero)]
        if [p for p, _ in printed.get(file, [])] != shown:
            raise SystemExit("markdown %s: rows %r, expected %r" % (
                file, printed.get(file), shown))
        for what, parts in (("not timed on either", want_none),
                            ("0 on both", want_zero)):
            said = "%s: %s: %s." % (file, what, ", ".join(parts))
            if (said in text) != bool(parts and not details):
                raise SystemExit("markdown %s: %r" % (file, said))
        if underived(rows):
            said = "%s: entry/exit: not derived on %s (reads not paired)." \
                % (file, la if rows_by["entry/exit"][2] is None else lb)
            if said not in text:
                raise SystemExit("markdown %s: no %r" % (file, said))
    if set(printed) - set(f for f, _ in m):
        raise SystemExit("markdown: rows of %r" % printed.keys())
    return seen


def check_csv(out, m, la, lb):
    rows = [r for r in csv.reader(io.StringIO(open(out, newline="").read()))
            if r and r[0] == "breakdown"]
    got = {(r[2], r[1], r[3]): (r[4], r[5]) for r in rows}
    if len(got) != len(rows):
        raise SystemExit("csv: a row twice")
    want = 0
    for file, parts in m:
        for part, derived, ca, cb, ch in parts:
            for side, c in ((la, ca), (lb, cb)):
                key = "%s %s" % (file, part)
                val = lambda r: got[(key, r, side)][0]
                dl = lambda r: got[(key, r, side)][1]
                if val("timed") != ("1" if c else "0"):
                    raise SystemExit("csv %s %s: timed %s" % (key, side,
                                                             val("timed")))
                want += 7
                for r, x in (("p50_ns", 0), ("p90_ns", 1), ("p99_ns", 2)):
                    if (val(r) == "") != (c is None) or \
                            (c and int(val(r)) != c["q"][x]):
                        raise SystemExit("csv %s %s %s: %r" % (
                            key, side, r, val(r)))
                    if side == lb and ch and ch["q"][x] is not None and \
                            not math.isclose(float(dl(r)), ch["q"][x],
                                             rel_tol=1e-8, abs_tol=1e-8):
                        raise SystemExit("csv %s %s delta: %r, %r" % (
                            key, r, dl(r), ch["q"][x]))
                    if side == lb and (ch is None or ch["q"][x] is None) \
                            and dl(r) != "":
                        raise SystemExit("csv %s %s: a delta %r" % (
                            key, r, dl(r)))
                if c is None:
                    if any(val(r) for r in ("share_pct", "calls", "sum_ns")):
                        raise SystemExit("csv %s %s: figures of a part not "
                                         "timed" % (key, side))
                    continue
                if not math.isclose(float(val("share_pct")),
                                    c["share"] * 100, rel_tol=1e-9,
                                    abs_tol=1e-9) or \
                        int(val("calls")) != c["calls"] or \
                        int(val("sum_ns")) != c["sum"]:
                    raise SystemExit("csv %s %s: share, calls, sum" % (
                        key, side))
                if side == lb and ch and not math.isclose(
                        float(dl("share_pct")), ch["pts"], abs_tol=1e-8):
                    raise SystemExit("csv %s: pts %r, %r" % (
                        key, dl("share_pct"), ch["pts"]))
        want += 2  # reads
    if len(rows) != want:
        raise SystemExit("csv: %d breakdown rows, expected %d" % (len(rows),
                                                                  want))
    return len(rows)


def check_json(out, m, la, lb):
    d = json.load(open(out))
    bds = d["breakdowns"]
    if [b["file"] for b in bds] != [f for f, _ in m]:
        raise SystemExit("json: files %r" % [b["file"] for b in bds])
    n = 0
    for b, (file, rows) in zip(bds, m):
        if [s["side"] for s in b["sides"]] != [la, lb]:
            raise SystemExit("json %s: sides" % file)
        if [p["part"] for p in b["parts"]] != [r[0] for r in rows]:
            raise SystemExit("json %s: parts %r" % (
                file, [p["part"] for p in b["parts"]]))
        for p, (part, derived, ca, cb, ch) in zip(b["parts"], rows):
            if p["derived"] != derived:
                raise SystemExit("json %s %s: derived" % (file, part))
            for js, c in zip(p["sides"], (ca, cb)):
                if js["timed"] != (c is not None):
                    raise SystemExit("json %s %s: timed" % (file, part))
                if c is None:
                    if not js["why"]:
                        raise SystemExit("json %s %s: no why" % (file,
                                                                  part))
                    continue
                if [js["p50_ns"], js["p90_ns"], js["p99_ns"]] != c["q"] or \
                        js["calls"] != c["calls"] or \
                        js["sum_ns"] != c["sum"] or \
                        not math.isclose(js["share"], c["share"],
                                         rel_tol=1e-9, abs_tol=1e-12):
                    raise SystemExit("json %s %s: %r" % (file, part, js))
            if p["change"][0] is not None:
                raise SystemExit("json: the base has a change")
            jc = p["change"][1]
            if (jc is None) != (ch is None):
                raise SystemExit("json %s %s: change %r" % (file, part, jc))
            if ch is None:
                continue
            for key, v in (("share_pts", ch["pts"]),
                           ("p50_pct", ch["q"][0]), ("p90_pct", ch["q"][1]),
                           ("p99_pct", ch["q"][2]), ("calls_pct", ch["calls"]),
                           ("sum_pct", ch["sum"])):
                if (jc[key] is None) != (v is None) or (
                        v is not None and not math.isclose(
                            jc[key], v, rel_tol=1e-8, abs_tol=1e-8)):
                    raise SystemExit("json %s %s %s: %r, computed %r" % (
                        file, part, key, jc[key], v))
            n += 1
    return n


def main():
    if sys.argv[1] == "kprobes":
        kprobes(sys.argv[2], sys.argv[3])
        return 0
    kind, out, a, la, b, lb = sys.argv[1:7]
    m = model(json.load(open(a)), json.load(open(b)))
    if not m:
        raise SystemExit("no file decomposed on both")
    if kind in ("text", "details"):
        n = check_text(out, m, la, lb, kind == "details")
    elif kind in ("markdown", "markdown-details"):
        n = check_markdown(out, m, la, lb, kind == "markdown-details")
    elif kind == "csv":
        n = check_csv(out, m, la, lb)
    else:
        n = check_json(out, m, la, lb)
    print("ok %s: %d rows of %d files" % (kind, n, len(m)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
