#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-format oracle for printed figures (issue 27).

Reads every figure out of a command's text, CSV and markdown with parsers
of its own (no code shared with the tool) and checks each against the
command's JSON after unit conversion. The rounding rules checked, from
include/figure.h:

  R1  A time printed from integer nanoseconds (report's tables and
      --hist summaries, bench's histogram lines) is exact/unit rounded to
      the nearest at the decimals it shows, a half up, computed here in
      exact fractions: printed == floor(v * 10^d + 1/2) / 10^d.
  R2  It shows the unit's decimals (report: ns 0, us 1, ms 3; --hist and
      bench summaries: 0), fewer only when its column is too narrow.
  R3  A figure under one unit (0 < v < 1) is never 0: it shows at least
      the unit's decimals and two significant digits (one when its column
      is too narrow), zeros past the unit's decimals dropped.
  R4  Summaries keep their order as printed: min <= p50 <= p90 <= p99 <=
      max.
  R5  A figure printed from a double (shares, bench's and compare's
      statistics) is within half a unit of its last digit of the JSON
      value; a count (an integral value) prints as an integer.
  R6  CSV holds the JSON's integers exactly and its fractions to their
      printed digits.
  compare's percentages keep mmtests' two decimals: a difference under
  0.005% reads 0.00%, as in mmtests (R5 without the never-0 part).

usage: figures-oracle.py report TEXT HIST CSV JSON UNIT
       figures-oracle.py hist TEXT JSON UNIT
       figures-oracle.py compare TEXT MARKDOWN CSV JSON
       figures-oracle.py profiles TEXT MARKDOWN CSV JSON PROFILE...
       figures-oracle.py bench TEXT JSON
Prints what it checked; exits 1 with the first mismatch.
"""
import csv
import io
import json
import re
import sys
from fractions import Fraction

DIV = {"ns": 1, "us": 1000, "ms": 1000000}
TABLE_DEC = {"ns": 0, "us": 1, "ms": 3}
LABEL = {"ns": "nsecs", "us": "usecs", "ms": "msecs"}
checked = {"n": 0}


class Mismatch(Exception):
    pass


def want(cond, what):
    checked["n"] += 1
    if not cond:
        raise Mismatch(what)


def decimals(s):
    return len(s.split(".")[1]) if "." in s else 0


def half_up(v, d):
    """v (a Fraction >= 0) rounded half up at d decimals, as a Fraction."""
    scale = 10 ** d
    return Fraction((v * scale + Fraction(1, 2)).__floor__(), scale)


def sig_decimals(v, sig):
    """Decimals that give 0 < v < 1 sig significant digits."""
    d = 0
    while v * 10 ** (d + 1) < 1:
        d += 1
    return d + sig


def check_exact(s, num, den, unit_div, base, width, what):
    """R1-R3 for a figure printed from integers: num / (den * unit)."""
    v = Fraction(num, den * unit_div)
    want(re.fullmatch(r"\d+(\.\d+)?", s) is not None,
         "%s: '%s' is no figure" % (what, s))
    d = decimals(s)
    p = Fraction(s)
    want(p == half_up(v, d),
         "%s: printed %s, %s rounded half up at %d decimals is %s" %
         (what, s, float(v), d, float(half_up(v, d))))
    narrow = width is not None and len(s) >= width - 1
    if v == 0 or v >= 1:
        want(d == base or (d < base and narrow),
             "%s: %s shows %d decimals, the unit's are %d" %
             (what, s, d, base))
    else:
        want(p != 0, "%s: %s is printed as 0" % (what, float(v)))
        want(d >= base, "%s: %s shows fewer than %d decimals" %
             (what, s, base))
        # trailing zeros past the unit's decimals are dropped: 0.0020
        # prints 0.002
        want(d >= sig_decimals(v, 2) or narrow or
             p == half_up(v, max(base, sig_decimals(v, 2))),
             "%s: %s keeps fewer than two significant digits (%s)" %
             (what, s, float(v)))
    return p


def check_double(s, x, what, decimals_min=None, zero_ok=False, mag=0):
    """R5: s within half a unit of its last digit of x (x computed here
    from JSON values as large as mag)."""
    want(re.fullmatch(r"-?\d+(\.\d+)?", s) is not None,
         "%s: '%s' is no figure" % (what, s))
    d = decimals(s)
    # The JSON keeps 10 significant digits (json.c), so x, and a mean
    # computed here from such values, is known to 5e-10 of itself: a
    # figure the tool rounded from its exact value may sit that far past
    # the half unit (seen: 7.99453 printed for 7.9945350015). A mean of
    # such values is known to 5e-10 of the largest of them, however
    # small the mean (seen: 0.0000000000073 printed, the tool's exact
    # mean of errors that cancel, where the rounded values give 0.0).
    tol = 0.5 * 10 ** -d * (1 + 1e-9) + 1e-9 * max(abs(x), mag)
    want(abs(float(s) - x) <= tol,
         "%s: printed %s for %r" % (what, s, x))
    if x != 0 and not zero_ok and abs(x) > 1e-9 * mag:
        want(float(s) != 0, "%s: %r printed as 0" % (what, x))
    if decimals_min is not None and abs(x) >= 1:
        want(d >= decimals_min or "." not in s and float(x).is_integer(),
             "%s: %s has fewer than %d decimals" % (what, s, decimals_min))
    return float(s)


def check_order(vals, what):
    want(all(a <= b for a, b in zip(vals, vals[1:])),
         "%s: printed out of order: %s" % (what, vals))


def sections(text):
    """Blocks of the text split at blank lines."""
    return [b.split("\n") for b in text.split("\n\n") if b.strip()]


def block_of(text, title_re):
    for b in sections(text):
        if re.match(title_re, b[0]):
            return b
    return None


# --- report -----------------------------------------------------------------

def span_rows(lines, names):
    """Rows NAME count total min p50 p90 p99 max of a span table."""
    rows = {}
    pending = None
    for l in lines:
        f = l.split()
        if len(f) == 8 and f[0] in names and f[1].isdigit():
            rows[f[0]] = f[1:]
        elif len(f) == 7 and f[0].isdigit() and pending:
            rows[pending] = f
            pending = None
        elif len(f) == 1 and f[0] in names:
            pending = f[0]
    return rows


def check_span_row(f, s, unit, what):
    div, dec = DIV[unit], TABLE_DEC[unit]
    want(int(f[0]) == s["count"], "%s: count %s != %d" %
         (what, f[0], s["count"]))
    got = [check_exact(f[1], s["total_ns"], 1, div, dec, 11, what + " total")]
    for k, name in ((2, "min_ns"), (3, "p50_ns"), (4, "p90_ns"),
                    (5, "p99_ns"), (6, "max_ns")):
        got.append(check_exact(f[k], s[name], 1, div, dec, 8,
                               "%s %s" % (what, name)))
    check_order(got[1:], what)


def report_text(text, d, unit):
    spans = d["spans"]
    # Attribution: samples and period exact, shares to 2 decimals.
    for ev in {a["event"] for a in d["attribution"]}:
        b = block_of(text, r"Attribution of %s:" % re.escape(ev))
        want(b is not None, "no attribution table for " + ev)
        rows = {l.split()[0]: l.split() for l in b[2:] if
                len(l.split()) == 5}
        for a in d["attribution"]:
            if a["event"] != ev:
                continue
            f = rows.get(a["category"])
            want(f is not None, "attribution row %s missing" %
                 a["category"])
            want(int(f[1]) == a["samples"] and int(f[2]) == a["period"],
                 "attribution %s: %s" % (a["category"], f))
            check_double(f[3], a["share"] * 100, "%% all of " +
                         a["category"], 2)
            if a["flush_share"] is None:
                want(f[4] == "-", "%% flush of %s: %s" %
                     (a["category"], f[4]))
            else:
                check_double(f[4], a["flush_share"] * 100,
                             "%% flush of " + a["category"], 2)
        # The heading: all samples, flush samples, the flush period's
        # share of all the event's period (one decimal).
        mine = [a for a in d["attribution"] if a["event"] == ev]
        fl = [a for a in mine if a["flush_share"] is not None]
        g = re.search(r"Attribution of %s: (\d+) samples, (\d+) \((\S+)%%\)"
                      r" in flushes" % re.escape(ev), text)
        want(g is not None, "no attribution heading for " + ev)
        want(int(g.group(1)) == sum(a["samples"] for a in mine) and
             int(g.group(2)) == sum(a["samples"] for a in fl),
             "attribution heading of %s: %s" % (ev, g.group(0)))
        whole = sum(a["period"] for a in mine)
        if whole:
            check_double(g.group(3), 100.0 * sum(a["period"] for a in fl) /
                         whole, "heading % in flushes of " + ev, 1)
        # Category x trigger, flushing processes, top stacks: each row's
        # samples, period and share of the flush samples.
        b = block_of(text, r"Category x trigger, %s$" % re.escape(ev))
        ct = [t for t in d["category_triggers"] if t["event"] == ev]
        want(b is not None or not ct, "no category x trigger table")
        for t in ct:
            f = [l.split() for l in b[2:]
                 if l.split()[:2] == [t["category"], t["trigger"]]]
            want(len(f) == 1, "category x trigger row %s/%s" %
                 (t["category"], t["trigger"]))
            f = f[0]
            want(int(f[2]) == t["samples"] and int(f[3]) == t["period"],
                 "category x trigger %s" % f)
            check_double(f[4], t["share"] * 100,
                         "category x trigger % flush", 2)
        b = block_of(text, r"Flushing processes, %s " % re.escape(ev))
        comms = [c for c in d["flush_comms"] if c["event"] == ev]
        want(b is not None or not comms, "no flushing processes table")
        shown = {l[:29].rstrip(): l[29:].split() for l in (b or [])[2:]}
        for c in comms:
            f = shown.get(c["comm"][:29].rstrip())
            if f is None:
                continue	# past the top rows
            want(int(f[0]) == c["samples"] and int(f[1]) == c["period"],
                 "flushing process %s: %s" % (c["comm"], f))
            check_double(f[2], c["share"] * 100, "% flush of " +
                         c["comm"], 2)
        want(not comms or len(shown) >= 1, "no flushing process row")
        b = block_of(text, r"Top flush stacks, %s " % re.escape(ev))
        stacks = [x for x in d["flush_stacks"] if x["event"] == ev]
        rows = [l.split()[:2] for l in (b or [])[2:]
                if re.match(r"\s*[\d.]+\s+\d+  \S", l)]
        want(len(rows) == len(stacks), "top flush stacks: %d rows, JSON %d"
             % (len(rows), len(stacks)))
        for r, x in zip(rows, stacks):
            want(int(r[1]) == x["samples"], "top stack samples %s" % r)
            check_double(r[0], x["share"] * 100, "top stack % flush", 2)
        sk = d["skid"] if isinstance(d["skid"], list) else [d["skid"]]
        for x in sk:
            if not x or x["event"] != ev or not x["samples"]:
                continue
            g = re.search(r"skid: (\S+)%% of the flush samples of %s " %
                          re.escape(ev), text)
            want(g is not None, "no skid line for " + ev)
            check_double(g.group(1), x["fraction"] * 100, "skid", 1)
        b = block_of(text, r"Flush triggers \(who asked\), %s" %
                     re.escape(ev))
        trig = [t for t in d["triggers"] if t["event"] == ev]
        if trig:
            rows = {l.split()[0]: l.split() for l in b[2:]}
            for t in trig:
                f = rows[t["trigger"]]
                want(int(f[1]) == t["samples"] and
                     int(f[2]) == t["period"], "trigger %s" % f)
                check_double(f[3], t["share"] * 100, "trigger share", 2)
    # Lock holds and waits, flushes, user spans: every figure.
    for title, name in ((r"Lock hold time", "lock-hold"),
                        (r"Lock wait time", "lock-wait"),
                        (r"Work per flush", "flush")):
        b = block_of(text, title)
        mine = [s for s in spans if s["name"] == name]
        if not mine:
            continue
        want(b is not None, "no table: " + title)
        want(b[0].endswith(", " + unit), "%s: unit not %s: %s" %
             (title, unit, b[0]))
        rows = span_rows(b, {s["subsystem"] for s in mine})
        for s in mine:
            want(s["subsystem"] in rows, "%s: no row %s" %
                 (title, s["subsystem"]))
            check_span_row(rows[s["subsystem"]], s, unit,
                           "%s %s" % (title, s["subsystem"]))
    user = [s for s in spans if s["subsystem"] is None]
    if user:
        b = block_of(text, r"Spans, ")
        rows = span_rows(b, {s["name"] for s in user})
        for s in user:
            check_span_row(rows[s["name"]], s, unit, "span " + s["name"])
    # Work per flush's second table: hold per flush.
    b = block_of(text, r"Work per flush")
    for s in spans:
        if s["name"] != "flush" or not b:
            continue
        f = [l.split() for l in b if l.split()[:1] == [s["subsystem"]]
             and len(l.split()) == 6]
        want(f, "no per-flush row for " + s["subsystem"])
        f = f[0]
        want(int(f[1]) == s["count"] and int(f[2]) == s["locks"],
             "flushes/locks of %s: %s" % (s["subsystem"], f))
        check_double(f[3], s["cpus_walked_total"] / s["count"],
                     "cpus avg", 1)
        want(int(f[4]) == s["cpus_walked_max"], "cpus max")
        check_exact(f[5], s["hold_ns"], s["count"], DIV[unit],
                    TABLE_DEC[unit], None, "hold/fl " + s["subsystem"])
    # Locks per cgroup and per cpu.
    b = block_of(text, r"Locks per cgroup")
    if d["lock_cgroups"]:
        rows = [l.split() for l in b[2:] if re.match(r"\s*-?\d", l)]
        for r, c in zip(rows, d["lock_cgroups"][:20]):
            want(int(r[0]) == c["root"] and int(r[1]) == c["level"] and
                 int(r[2]) == c["locks"], "cgroup row %s / %s" % (r, c))
            check_exact(r[3], c["hold_ns"], 1, DIV[unit], TABLE_DEC[unit],
                        12, "cgroup hold total")
            check_exact(r[4], c["max_hold_ns"], 1, DIV[unit],
                        TABLE_DEC[unit], 10, "cgroup hold max")
    b = block_of(text, r"Locks by the events' cpu field")
    for c in d["lock_cpus"]:
        r = [l.split() for l in b[2:] if l.split()[:1] == [str(c["cpu"])]]
        want(r, "no cpu row %d" % c["cpu"])
        r = r[0]
        want(int(r[1]) == c["locks"], "cpu locks")
        check_exact(r[2], c["hold_ns"], 1, DIV[unit], TABLE_DEC[unit], 10,
                    "cpu hold total")
        check_exact(r[3], c["max_hold_ns"], 1, DIV[unit], TABLE_DEC[unit],
                    9, "cpu hold max")
    # memcg_flush_stats
    m = d["memcg_flush_stats"]
    if m and m["requested"]:
        g = re.search(r"memcg_flush_stats: (\d+) requested, (\d+) performed"
                      r" \((\d+) forced\), (\d+) skipped", text)
        want(g and [int(x) for x in g.groups()] ==
             [m["requested"], m["performed"], m["forced"], m["skipped"]],
             "memcg_flush_stats line")
        u = m["stats_updates"]
        g = re.search(r"stats_updates: p50 (\d+), p90 (\d+), p99 (\d+), "
                      r"max (\d+)", text)
        want(g and [int(x) for x in g.groups()] ==
             [u["p50"], u["p90"], u["p99"], u["max"]], "stats_updates line")
    # Event counts.
    b = block_of(text, r"Event counts")
    rows = {l.split()[0]: l.split() for l in b[2:] if len(l.split()) == 3}
    for e in d["events"]:
        want(rows[e["name"]][1:] == [str(e["samples"]), str(e["period"])],
             "event counts of %s" % e["name"])
    report_kernel_text(text, d, unit)


def bucket_text(low, high):
    """A log2 bucket as the table prints it: [16K,32K)."""
    out = []
    for v in (low, high + 1):
        s, n = v, ""
        for suf in "KMGTPE":
            if s >= 1024 and s % 1024 == 0:
                s //= 1024
                n = suf
            else:
                break
        out.append("%d%s" % (s, n))
    if high >= 2 ** 64 - 1:
        out[1] = "inf"
    return "[%s,%s)" % tuple(out)


def report_kernel_text(text, d, unit):
    ks = d["kernel_spans"]
    if not ks:
        return
    b = block_of(text, r"Spans timed in the kernel by BPF")
    want(b is not None, "no kernel span table")
    want(b[0].endswith(", " + unit), "kernel spans: unit " + b[0])
    for s in ks["spans"]:
        name = ("%s %s" % (s["name"], s["subsystem"]))[:18]
        r = [l for l in b if l.startswith(name + " ") and
             len(l[18:].split()) == 6]
        want(r, "no kernel span row " + name)
        f = r[0][18:].split()
        want(int(f[0]) == s["count"], "kernel count of " + name)
        # avg: the exact sum / count, R1-R3 (main printed avg 0.000).
        check_exact(f[1], s["total_ns"], s["count"], DIV[unit],
                    TABLE_DEC[unit], 8, "kernel avg of " + name)
        for k, q in ((2, "p50"), (3, "p90"), (4, "p99")):
            want(f[k] == bucket_text(*s[q]), "kernel %s of %s: %s, JSON %s"
                 % (q, name, f[k], s[q]))
        check_exact(f[5], s["max_ns"], 1, DIV[unit], TABLE_DEC[unit], 8,
                    "kernel max of " + name)
    want(re.search(r"holds: %d .*waits: %d; flushes: %d" %
                   (ks["holds"], ks["waits"], ks["flushes"]), text),
         "kernel holds/waits/flushes line")


def report_hist(text, d, unit):
    """--hist: every funclatency block's summary lines against JSON."""
    lab = LABEL[unit]
    div = DIV[unit]
    blocks = {}
    cur = None
    for l in text.split("\n"):
        m = re.match(r"(lock hold|lock wait|flush duration), (\w+):$", l)
        k = re.match(r"kernel span (\S+), (\S+) \(BPF; buckets in ns\):$", l)
        u = re.match(r"span (\S+):$", l)
        if m:
            cur = (m.group(1), m.group(2))
            blocks[cur] = []
        elif k:
            cur = ("kernel", k.group(1), k.group(2))
            blocks[cur] = []
        elif u:
            cur = ("user", u.group(1))
            blocks[cur] = []
        elif cur is not None:
            if not l.strip():
                cur = None
            else:
                blocks[cur].append(l)
    names = {"lock hold": "lock-hold", "lock wait": "lock-wait",
             "flush duration": "flush"}
    seen = 0
    for s in d["spans"]:
        if s["subsystem"] is None:
            key = ("user", s["name"])
        else:
            key = [k for k in blocks if len(k) == 2 and k[0] in names and
                   names[k[0]] == s["name"] and k[1] == s["subsystem"]]
            want(key, "no --hist block for %s %s" % (s["name"],
                                                    s["subsystem"]))
            key = key[0]
        body = "\n".join(blocks[key])
        g = re.search(r"avg = (\S+) %s, total: (\S+) %s, count: (\d+)" %
                      (lab, lab), body)
        want(g, "%s: no avg line" % (key,))
        check_exact(g.group(1), s["total_ns"], s["count"], div, 0, None,
                    "%s avg" % (key,))
        check_exact(g.group(2), s["total_ns"], 1, div, 0, None,
                    "%s total" % (key,))
        want(int(g.group(3)) == s["count"], "%s count" % (key,))
        g = re.search(r"p50 = (\S+) %s, p90 = (\S+) %s, p99 = (\S+) %s,\s"
                      r"max = (\S+) %s" % ((lab,) * 4), body)
        want(g, "%s: no percentile line" % (key,))
        got = [check_exact(g.group(i + 1), s[k], 1, div, 0, None,
                           "%s %s" % (key, k)) for i, k in
               enumerate(("p50_ns", "p90_ns", "p99_ns", "max_ns"))]
        check_order(got, "%s" % (key,))
        if unit == "ns":
            rows = re.findall(r"^\s*(\d+) -> (\d+)\s*: (\d+)", body, re.M)
            got = {(int(a), int(b)): int(c) for a, b, c in rows if int(c)}
            exp = {(r["low"], r["high"]): r["count"] for r in s["hist"]
                   if r["count"]}
            want(got == exp, "%s buckets: %s != %s" % (key, got, exp))
        seen += 1
    ks = d["kernel_spans"]
    for s in (ks["spans"] if ks else []):
        key = ("kernel", s["name"], s["subsystem"])
        want(key in blocks, "no --hist block for kernel span %s" % (key,))
        body = "\n".join(blocks[key])
        rows = re.findall(r"^\s*(\d+) -> (\d+)\s*: (\d+)", body, re.M)
        got = {}
        for a, b, c in rows:
            if int(c):
                got[(int(a), int(b))] = int(c)
        exp = {}
        for r in s["hist"]:
            k = (0, 1) if r["high"] <= 1 else (r["low"], r["high"])
            exp[k] = exp.get(k, 0) + r["count"]
        want(got == exp, "kernel %s buckets: %s != %s" % (key, got, exp))
        g = re.search(r"avg = (\S+) %s, total: (\S+) %s, count: (\d+)\n"
                      r"min = (\S+) %s, max = (\S+) %s" % ((lab,) * 4), body)
        want(g, "kernel %s: no summary" % (key,))
        dec = TABLE_DEC[unit]
        check_exact(g.group(1), s["total_ns"], s["count"], div, dec, None,
                    "kernel avg")
        check_exact(g.group(2), s["total_ns"], 1, div, dec, None,
                    "kernel total")
        want(int(g.group(3)) == s["count"], "kernel count")
        lo = check_exact(g.group(4), s["min_ns"], 1, div, dec, None,
                         "kernel min")
        hi = check_exact(g.group(5), s["max_ns"], 1, div, dec, None,
                         "kernel max")
        check_order([lo, hi], "kernel min/max")
        seen += 1
    print("--hist: %d blocks checked" % seen)


def report_csv(text, d):
    blocks = [b for b in text.split("\n\n") if b.strip()]
    tables = {}
    for b in blocks:
        rows = list(csv.reader(io.StringIO(b)))
        for r in rows[1:]:
            tables.setdefault(r[0], []).append(dict(zip(rows[0], r)))
    for key, jkey, cols in (
            ("attribution", "attribution", ("category",)),
            ("triggers", "triggers", ("trigger",)),
            ("category_triggers", "category_triggers",
             ("category", "trigger")),
            ("flush_comms", "flush_comms", ("comm",))):
        got = tables.get(key, [])
        want(len(got) == len(d[jkey]), "csv %s: %d rows, JSON %d" %
             (key, len(got), len(d[jkey])))
        for r, j in zip(got, d[jkey]):
            want(r["event"] == j["event"] and
                 all(r[c] == j[c] for c in cols), "csv %s row %s" % (key, r))
            want(int(r["samples"]) == j["samples"] and
                 int(r["period"]) == j["period"], "csv %s counts" % key)
            check_double(r["share"], j["share"], "csv %s share" % key)
            if key == "attribution":
                if j["flush_share"] is None:
                    want(r["flush_share"] == "", "csv flush_share")
                else:
                    check_double(r["flush_share"], j["flush_share"],
                                 "csv flush_share")
    got = tables.get("spans", [])
    want(len(got) == len(d["spans"]), "csv spans: %d rows, JSON %d" %
         (len(got), len(d["spans"])))
    for r, s in zip(got, d["spans"]):
        want(r["name"] == s["name"] and
             r["subsystem"] == (s["subsystem"] or ""), "csv span name")
        for c in ("count", "total_ns", "min_ns", "max_ns", "p50_ns",
                  "p90_ns", "p99_ns"):
            want(int(r[c]) == s[c], "csv span %s %s: %s != %s" %
                 (s["name"], c, r[c], s[c]))
    ks = d["kernel_spans"]
    got = tables.get("kernel_spans", [])
    want(len(got) == (len(ks["spans"]) if ks else 0),
         "csv kernel_spans: %d rows, JSON %s" %
         (len(got), len(ks["spans"]) if ks else 0))
    for r, s in zip(got, ks["spans"] if ks else []):
        want(r["name"] == s["name"] and r["subsystem"] == s["subsystem"],
             "csv kernel span name")
        for c in ("count", "total_ns", "min_ns", "max_ns"):
            want(int(r[c]) == s[c], "csv kernel span %s" % c)
        for q in ("p50", "p90", "p99"):
            want([int(r[q + "_low_ns"]), int(r[q + "_high_ns"])] == s[q],
                 "csv kernel span %s" % q)
    got = {r["event"]: int(r["count"]) for r in tables.get("counts", [])}
    want(got == {c["event"]: c["count"] for c in d["counts"]}, "csv counts")
    print("csv: %d tables checked" % len(tables))


# --- compare ----------------------------------------------------------------

STATS = [("Min", "min"), ("1st-qrtle", "p25"), ("2nd-qrtle", "p50"),
         ("3rd-qrtle", "p75"), ("Max-1", "p1"), ("Max-5", "p5"),
         ("Max-10", "p10"), ("Max-90", "p90"), ("Max-95", "p95"),
         ("Max-99", "p99"), ("Max", "max"), ("Amean", "amean"),
         ("Hmean", "hmean"), ("Stddev", "stddev"), ("CoeffVar", "coeffvar")]


def compare_all(text, md, csvt, d):
    metrics = {m["label"]: m for m in d["metrics"]}
    stat_key = dict(STATS)
    cell = r"(-?[\d.]+) [(*]\s*(-?[\d.]+)%[)*]"
    n = 0
    table, per, label = -1, None, None
    for l in text.split("\n"):
        # A table starts at its header; sides after the base go to the
        # tables in order, as many to each as the first holds.
        if l.startswith("         ") and l.strip() and \
                not re.search(r"\d\.\d", l):
            table += 1
            continue
        if l in metrics:	# a stacked table's metric heading
            label = l
            continue
        f = re.match(r"(\S+)\s+(\S+)((?:\s+%s)+)\s*$" % cell, l)
        g = re.match(r"(\S+)((?:\s+%s)+)\s*$" % cell, l)
        if f and f.group(1) in stat_key and f.group(2) in metrics:
            stat, name, rest = f.group(1), f.group(2), f.group(3)
        elif g and g.group(1) in stat_key and label:
            stat, name, rest = g.group(1), label, g.group(2)
        else:
            continue
        m = metrics[name]
        key = stat_key[stat]
        cells = re.findall(cell, rest)
        if per is None:
            per = len(cells) - 1
        sides = [m["sides"][0]] + \
            m["sides"][1 + table * per:1 + (table + 1) * per]
        want(len(cells) == len(sides), "compare row %s" % l)
        for (v, dp), side in zip(cells, sides):
            check_double(v, side[key], "compare text %s %s %s" %
                         (stat, name, side["side"]), 2)
            check_double(dp, side["delta_pct"][key], "compare text delta",
                         zero_ok=True)
            n += 1
    want(n >= len(metrics) * 3, "compare text: %d figures read" % n)
    n = 0
    for l in md.split("\n"):
        f = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(f) < 4 or f[0] not in stat_key or f[1] not in metrics:
            continue
        m = metrics[f[1]]
        key = stat_key[f[0]]
        for k, side in enumerate(m["sides"]):
            check_double(f[2 + 2 * k], side[key], "compare md %s %s" %
                         (f[0], f[1]), 2)
            check_double(f[3 + 2 * k].strip("*").rstrip("%"),
                         side["delta_pct"][key], "compare md delta",
                         zero_ok=True)
            n += 1
    want(n >= len(metrics) * 3, "compare markdown: %d figures read" % n)
    n = 0
    for r in csv.DictReader(io.StringIO(csvt)):
        if r["block"] != "summary":
            continue
        m = metrics[r["metric"]]
        side = [s for s in m["sides"] if s["side"] == r["side"]][0]
        want(float(r["value"]) == float("%.10g" % side[stat_key[r["row"]]]),
             "compare csv %s" % r)
        n += 1
    want(n >= len(metrics) * 3, "compare csv: %d figures read" % n)
    compare_time(text, md, d)
    print("compare: text, markdown and csv figures checked")


def compare_time(text, md, d):
    """time(1)'s means, as time(1) prints them, and their deltas: lower
    is better, so a slower side's delta is negative (mmtests)."""
    times = d.get("time") or []
    if not times:
        return
    base = times[0]
    rows = {}
    # One table per group of sides, each with the base first.
    for t, blk in enumerate(text.split("time(1), mean")[1].split("\n\n")):
        seen = False
        for l in blk.split("\n"):
            f = l.split()
            if f and f[0] in ("real", "user", "sys"):
                seen = True
                cells = re.findall(r"(\d+)m([\d.]+)s [(*]\s*(-?[\d.]+)%[)*]",
                                   l)
                rows.setdefault(f[0], []).extend(cells[1 if t else 0:])
        if not seen:
            break
    mdrows = {}
    for l in md.split("time(1), means:")[1].split("\n\n")[1].split("\n"):
        f = [c.strip() for c in l.strip().strip("|").split("|")]
        if f and f[0] in ("real", "user", "sys"):
            mdrows[f[0]] = [(re.match(r"(\d+)m([\d.]+)s$", f[1 + 2 * k])
                             .groups() + (f[2 + 2 * k].rstrip("%"),))
                            for k in range((len(f) - 1) // 2)]
    for what, got in (("text", rows), ("markdown", mdrows)):
        for row in ("real", "user", "sys"):
            key = row + "_s"
            want(len(got.get(row, [])) == len(times),
                 "compare %s time %s: %s" % (what, row, got.get(row)))
            for (mins, secs, dp), t in zip(got[row], times):
                check_double(str(float(secs) + 60 * int(mins)), t[key],
                             "compare %s time %s" % (what, row))
                exp = ((base[key] - t[key]) * 100 / base[key]
                       if base[key] else 0.0)
                check_double(dp, exp, "compare %s time %s delta of %s" %
                             (what, row, t["side"]), zero_ok=True)


def compare_shares(text, md, d):
    """Profiles' attribution and trigger shares, and their deltas in
    percentage points against the base, in text and markdown."""
    n = 0
    for key, ttitle, mtitle in (
            ("attribution", "Attribution, share of all %s ",
             "Attribution (share of all samples"),
            ("triggers", "Triggers, share of %s in flushes ",
             "Triggers (share of the event's samples in flushes")):
        for ev in sorted({r["event"] for r in d[key]}):
            blk = block_of(text, re.escape(ttitle % ev))
            want(blk is not None, "compare of profiles: no %s block for %s"
                 % (key, ev))
            got = {}
            for l in blk[2:]:
                # The name's column is 24 wide (compare-out.c's
                # SHARE_NAME_WIDTH); a share of 100% fills the next.
                cells = re.findall(r"(-|[\d.]+%)\s*(?:\(\s*([+-][\d.]+)\))?",
                                   l[24:])
                got[l[:24].strip()] = cells
            md_blk = [b for b in md.split("\n\n")
                      if b.strip().startswith(mtitle)]
            want(md_blk, "compare markdown: no %s table" % key)
            mrows = {}
            for b in md_blk:
                for l in md.split(b)[1].split("\n\n")[1].split("\n"):
                    f = [c.strip() for c in l.strip().strip("|").split("|")]
                    if len(f) > 2 and f[0] == ev:
                        mrows[f[1]] = f[2:]
            for r in d[key]:
                if r["event"] != ev:
                    continue
                cells, mc = got.get(r["name"]), mrows.get(r["name"])
                want(cells is not None and mc is not None,
                     "compare of profiles: no %s row %s" % (key, r["name"]))
                b0 = r["share"][0]
                for k, v in enumerate(r["share"]):
                    if v is None:
                        continue
                    check_double(cells[k][0].rstrip("%"), v * 100,
                                 "compare %s %s side %d" % (key, r["name"],
                                                            k), zero_ok=True)
                    check_double(mc[2 * k].rstrip("%"), v * 100,
                                 "compare md %s %s side %d" %
                                 (key, r["name"], k), zero_ok=True)
                    if k and b0 is not None:
                        check_double(cells[k][1].lstrip("+"), (v - b0) * 100,
                                     "compare %s %s pp" % (key, r["name"]),
                                     zero_ok=True)
                        check_double(mc[2 * k + 1].lstrip("+"),
                                     (v - b0) * 100,
                                     "compare md %s %s pp" %
                                     (key, r["name"]), zero_ok=True)
                    n += 1
    print("compare of profiles: %d shares checked" % n)


def compare_profiles(text, md, csvt, d, inputs):
    """Profiles: every span of every input (kernel-timed ones too) in the
    text, the CSV and the JSON, with the input's count, percentiles and
    log2 rows; the shares in text and markdown."""
    n = 0
    compare_shares(text, md, d)
    rows = list(csv.DictReader(io.StringIO(csvt)))
    for side, path in enumerate(inputs):
        rep = json.load(open(path))
        ks = rep["kernel_spans"]["spans"] if rep.get("kernel_spans") else []
        spans = [(s, False) for s in rep["spans"]] + [(s, True) for s in ks]
        for s, kernel in spans:
            title = "%sspan %s%s, nsecs:" % (
                "kernel " if kernel else "", s["name"],
                " (%s)" % s["subsystem"] if s["subsystem"] else "")
            want(title in text, "compare of profiles: no block '%s'" %
                 title)
            blk = text.split(title)[1].split("\n\n")[0].split("\n")
            vals = {}
            for l in blk:
                f = l.split()
                if f and f[0] in ("count", "p50", "p90", "p99"):
                    cells = re.findall(r"(\d+|-)(?: [(*]\s*-?[\d.]+%[)*])?",
                                       l[10:])
                    vals[f[0]] = cells
            exp = {"count": s["count"]}
            for q in ("p50", "p90", "p99"):
                exp[q] = s[q][1] if kernel else s[q + "_ns"]
            for k, v in exp.items():
                want(vals[k][side] == str(v), "compare %s %s side %d: %s,"
                     " the profile has %s" % (title, k, side, vals[k][side],
                                             v))
                n += 1
            # The log2 rows: each side's column holds the profile's counts.
            hrows = {}
            for l in blk:
                g = re.match(r"(\d+) -> (\d+)\s*:((?:\s+\d+)+)$", l)
                if g:
                    c = int(g.group(3).split()[side])
                    if c:
                        hrows[(int(g.group(1)), int(g.group(2)))] = c
            hexp = {}
            for h in s["hist"]:
                if h["count"]:
                    k = (0, 1) if h["high"] <= 1 else (h["low"], h["high"])
                    hexp[k] = hexp.get(k, 0) + h["count"]
            want(hrows == hexp, "compare %s log2 rows of side %d: %s, the "
                 "profile has %s" % (title, side, hrows, hexp))
            js = [x for x in d["spans"] if x["name"] == s["name"] and
                  x["subsystem"] == s["subsystem"] and
                  x.get("kernel", False) == kernel]
            want(len(js) == 1, "compare JSON: span %s" % title)
            want(js[0]["sides"][side]["count"] == s["count"],
                 "compare JSON count of %s" % title)
            name = "%s%s%s" % ("kernel " if kernel else "", s["name"],
                               " " + s["subsystem"] if s["subsystem"]
                               else "")
            c = [r for r in rows if r["block"] == "span" and
                 r["metric"] == name and r["row"] == "count"]
            want(len(c) > side and float(c[side]["value"]) == s["count"],
                 "compare CSV count of %s" % name)
    want(n, "compare of profiles: no span checked")
    print("compare of profiles: %d span figures checked" % n)


# --- bench ------------------------------------------------------------------

def bench_text(text, d):
    reps = d["repetitions"]
    parts = re.split(r"^Repetition (\d+) of \d+$", text, flags=re.M)
    want(len(parts) >= 2 * len(reps) + 1, "bench: repetitions printed")
    for i, rep in enumerate(reps):
        body = parts[2 + 2 * i]
        body = body.split("\nSummary of ")[0].split("\nrecording: ")[0]
        for m in rep["metrics"]:
            name = m["name"] + (" " + m["file"] if m["file"] else "")
            if m["kind"] == "value":
                g = re.search(r"^%s: (\S+) %s( \((lower|higher) is better\))?$"
                              % (re.escape(m["name"]), re.escape(m["unit"])),
                              body, re.M)
                want(g, "bench value %s not printed" % name)
                check_double(g.group(1), m["value"], "bench " + name)
                if float(m["value"]).is_integer():
                    want("." not in g.group(1),
                         "bench %s: a count printed as %s" % (name,
                                                               g.group(1)))
                if m["better"] == "none":
                    want(g.group(2) is None, "bench %s: '%s' for a figure"
                         " with no direction" % (name, g.group(2)))
                else:
                    want(g.group(3) == m["better"], "bench %s direction"
                         % name)
                continue
            blk = body.split("\n%s:\n" % name)
            want(len(blk) == 2, "bench hist %s not printed" % name)
            blk = blk[1].split("\n\n")[0]
            g = re.search(r"^\s+(\w+)\s+: count", blk, re.M)
            lab = g.group(1)
            div = {"nsecs": 1, "usecs": 1000}.get(lab, 1)
            g = re.search(r"avg = (\S+) \w+, total: (\S+) \w+, count: (\d+)",
                          blk)
            want(int(g.group(3)) == m["count"], "bench %s count" % name)
            g = re.search(r"p50 = (\S+) \w+, p90 = (\S+) \w+, p99 = (\S+) "
                          r"\w+,\s+max = (\S+) \w+", blk)
            want(g, "bench %s: no percentile line" % name)
            got = [check_exact(g.group(i + 1), m[k], 1, div, 0, None,
                               "bench %s %s" % (name, k)) for i, k in
                   enumerate(("p50", "p90", "p99", "max"))]
            g = re.search(r"^min = (\S+) ", blk, re.M)
            want(g, "bench %s: no min line" % name)
            mn = check_exact(g.group(1), m["min"], 1, div, 0, None,
                             "bench %s min" % name)
            check_order([mn] + got, "bench %s min..max" % name)
    if len(reps) > 1:
        bench_summary(text, d)
    rec = d.get("recording")
    if rec and rec.get("pass"):
        bench_cost(text, d, rec["pass"])
    print("bench: %d repetitions checked" % len(reps))


def summary_stats(xs):
    n = len(xs)
    mean = sum(xs) / n
    sd = (sum((x - mean) ** 2 for x in xs) / (n - 1)) ** 0.5 if n > 1 else 0
    return [min(xs), mean, max(xs), sd]


def bench_summary(text, d):
    """Summary of N repetitions: min, mean, max, stddev of each figure."""
    reps = d["repetitions"]
    b = text.split("\nSummary of %d repetitions\n" % len(reps))[1]
    b = b.split("\n\n")[0].split("\n")[1:]
    rows, head = {}, None
    for l in b:
        f = l.split()
        if len(f) == 4 and head is not None and l.startswith(" " * 31):
            rows[head] = f		# the row of a label on a line above
            head = None
        elif len(f) >= 5:
            rows[l[:31].strip()] = f[-4:]
        elif f:
            head = l.strip()
    exp = {}
    for k in ("real", "user", "sys"):
        exp["%s (s)" % k] = [r["time"][k + "_s"] for r in reps]
    cur = None
    for m in reps[0]["metrics"]:
        same = [[x for x in r["metrics"] if x["name"] == m["name"] and
                 x["file"] == m["file"]] for r in reps]
        if not all(same):
            continue
        same = [x[0] for x in same]
        if m["kind"] == "value":
            exp["%s (%s)" % (m["name"], m["unit"])] = \
                [x["value"] for x in same]
            continue
        # a distribution: a heading NAME FILE (unit), then p50, p99, mean
        unit = re.search(r"^%s%s \((\w+)\)$" % (
            re.escape(m["name"]), re.escape(" " + m["file"] if m["file"]
                                            else "")),
            "\n".join(l.strip() for l in b), re.M)
        want(unit, "summary heading of %s %s" % (m["name"], m["file"]))
        div = {"nsecs": 1, "usecs": 1000}.get(unit.group(1), 1)
        blk = "\n".join(b).split(unit.group(0))[1].split("\n")[1:4]
        for l, k in zip(blk, ("p50", "p99", "mean")):
            f = l.split()
            want(f[0] == k, "summary %s row %s" % (m["name"], l))
            xs = [x[k] / div for x in same]
            for got, v in zip(f[1:], summary_stats(xs)):
                check_double(got, v, "summary %s %s" % (m["name"], k),
                             mag=max(abs(x) for x in xs))
    for label, xs in exp.items():
        want(label in rows, "summary row %s missing" % label)
        for got, v in zip(rows[label], summary_stats(xs)):
            check_double(got, v, "summary %s" % label,
                         mag=max(abs(x) for x in xs))
            if float(v).is_integer():
                want("." not in got, "summary %s: the count %s printed as"
                     " %s" % (label, v, got))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def bench_cost(text, d, rp):
    b = text.split("\nWhat recording cost")[1].split("\n\n")[0].split("\n")
    want(b[2].split()[-4:] == ["repetitions", "unrecorded", "recorded",
                               "slower", "by"][-4:] or
         "unrecorded" in b[2], "cost header: " + b[2])
    want(not b[2].startswith("p50"), "cost header still says p50")
    rows = {}
    for l in b[3:]:
        f = l.split()
        if len(f) >= 4:
            rows[l[:31].strip()] = f[-3:]
    reps = d["repetitions"]
    n = 0
    for m in rp["metrics"]:
        if m["kind"] == "hist" and m["unit"] != "ns":
            continue
        if m["kind"] == "hist":
            label = "%s%s p50 (us)" % (m["name"],
                                       " " + m["file"] if m["file"] else "")
            base = median([[x for x in r["metrics"] if x["name"] == m["name"]
                            and x["file"] == m["file"]][0]["p50"]
                           for r in reps]) / 1000
            rec = m["p50"] / 1000
            slower = rec / base
        else:
            label = "%s (%s)" % (m["name"], m["unit"])
            base = median([[x for x in r["metrics"]
                            if x["name"] == m["name"]][0]["value"]
                           for r in reps])
            rec = m["value"]
            slower = rec / base if m["better"] == "lower" else base / rec
        want(label in rows, "cost row %s missing: %s" % (label, rows))
        f = rows[label]
        check_double(f[0], base, "cost unrecorded " + label)
        check_double(f[1], rec, "cost recorded " + label)
        want(f[2].endswith("x"), "cost slower by of %s: '%s'" % (label, f[2]))
        check_double(f[2][:-1], slower, "cost slower by " + label)
        n += 1
    want(n, "no figure of the recorded pass in the cost table")
    f = rows.get("real (s)")
    want(f, "no real (s) cost row")
    base = median([r["time"]["real_s"] for r in reps])
    check_double(f[0], base, "cost real unrecorded")
    check_double(f[1], rp["time"]["real_s"], "cost real recorded")
    check_double(f[2][:-1], rp["time"]["real_s"] / base, "cost real slower")


def main():
    a = sys.argv[1:]
    try:
        if a[0] == "report":
            text, hist, csvt = (open(x).read() for x in a[1:4])
            d = json.load(open(a[4]))
            report_text(text, d, a[5])
            report_hist(hist, d, a[5])
            report_csv(csvt, d)
        elif a[0] == "hist":
            report_hist(open(a[1]).read(), json.load(open(a[2])), a[3])
        elif a[0] == "compare":
            text, md, csvt = (open(x).read() for x in a[1:4])
            compare_all(text, md, csvt, json.load(open(a[4])))
        elif a[0] == "profiles":
            text, md, csvt = (open(x).read() for x in a[1:4])
            compare_profiles(text, md, csvt, json.load(open(a[4])), a[5:])
        elif a[0] == "bench":
            bench_text(open(a[1]).read(), json.load(open(a[2])))
        else:
            sys.exit("usage: see the docstring")
    except Mismatch as e:
        print("MISMATCH: %s" % e)
        sys.exit(1)
    print("%d figures checked" % checked["n"])


main()
