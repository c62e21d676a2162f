#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks compare's short text against its --details text.

    compare-paste.py SHORT DETAILS

SHORT (the default output) must be pasteable: at most 60 lines, none
wider than 72 columns (tabs at 8). Its table rows must be rows of the
DETAILS table, character for character, under the same side labels and
metric (so every figure is the same figure), and its verdict figures
(the median's change, its interval, the rank test's p, the resolution)
the same as in the details' verdict of that metric and side; the rows of
its breakdown tables (compare of results with `bench --breakdown`) rows
of the same table (file and sides) in DETAILS, character for character.
Exit 1 with what differs.
"""
import re
import sys

MAX_LINES, MAX_COLS = 60, 72
STATS = {"Min", "1st-qrtle", "2nd-qrtle", "3rd-qrtle", "Max-1", "Max-5",
         "Max-10", "Max-90", "Max-95", "Max-99", "Max", "Amean", "Hmean",
         "Stddev", "CoeffVar", "count", "p50", "p90", "p99"}
VERDICT_START = re.compile(
    r"(?:^| )(\S+, \S+): (?=slower|faster|worse|better|different|"
    r"the same|no difference proven|untested)")


def rows(lines):
    """{(header, metric, stat): line} of every table row."""
    out, header, label = {}, "", ""
    for line in lines:
        f = line.split()
        if not f:
            continue
        if f[0] in STATS and len(f) > 1:
            # mmtests' layout names the metric second; stacked blocks
            # and spans name it on the line above.
            metric = f[1] if not re.match(r"^[0-9.]", f[1]) else label
            key = (header, metric, f[0])
            if key in out:
                raise SystemExit("two rows %r" % (key,))
            out[key] = line
        elif line.startswith(" "):
            header = line.strip()
        elif not line.startswith("("):
            # --details heads a span "span NAME (SUBSYS), nsecs:", the
            # default "NAME (SUBSYS)": the same span.
            label = re.sub(r"^(kernel )?span ", r"\1", line.strip())
            label = re.sub(r"(, nsecs)?:$", "", label)
    return out


def bd_rows(lines):
    """{(table head, part): line} of the breakdown tables' rows."""
    out, head, in_table = {}, None, False
    for n, line in enumerate(lines):
        if line.split()[:3] == ["part", "share", "p50"] and n:
            # The labels' line, after the file's when it did not fit.
            head, in_table = lines[n - 1], True
            if head.startswith(" ") and n > 1:
                head = lines[n - 2] + "\n" + head
            continue
        if not line.strip():
            in_table = False
        if not in_table or re.match(r"^(not timed on|0 on|entry/exit: not)",
                                    line):
            continue
        key = (head, line.split()[0])
        if key in out:
            raise SystemExit("two breakdown rows %r" % (key,))
        out[key] = line
    return out


def verdicts(text):
    """{"metric, side": the verdict's words}, from the Verdicts section."""
    m = re.search(r"^Verdicts at .*?\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    if not m:
        return {}
    body = " ".join(m.group(1).split())
    starts = [(x.start(1), x.group(1)) for x in VERDICT_START.finditer(body)]
    out = {}
    for i, (pos, key) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(body)
        out[key] = body[pos:end].strip()
    return out


def figures(v):
    """The figures of a verdict: percentages and p-values."""
    return set(re.findall(r"[+-]?[0-9]+\.[0-9]+%|p[<=][0-9.]+", v))


def main():
    short = open(sys.argv[1]).read()
    details = open(sys.argv[2]).read()
    bad = []
    lines = short.splitlines()
    if len(lines) > MAX_LINES:
        bad.append("%d lines, more than %d" % (len(lines), MAX_LINES))
    for n, line in enumerate(lines, 1):
        if len(line.expandtabs(8)) > MAX_COLS:
            bad.append("line %d is %d columns" % (n, len(line.expandtabs(8))))
    srows, drows = rows(lines), rows(details.splitlines())
    if not srows:
        bad.append("no table row")
    for key, line in srows.items():
        if drows.get(key) != line:
            bad.append("row %r: %r, --details %r" % (key, line,
                                                     drows.get(key)))
    sbd, dbd = bd_rows(lines), bd_rows(details.splitlines())
    if "Where a read's time goes" in details and not sbd:
        bad.append("no breakdown row")
    for key, line in sbd.items():
        if dbd.get(key) != line:
            bad.append("breakdown row %r: %r, --details %r" % (
                key, line, dbd.get(key)))
    sv, dv = verdicts(short), verdicts(details)
    for key, v in sv.items():
        if key not in dv:
            bad.append("verdict %s: not in --details" % key)
        elif not figures(v) <= figures(dv[key]):
            bad.append("verdict %s: %s, --details %s" % (
                key, sorted(figures(v) - figures(dv[key])),
                sorted(figures(dv[key]))))
    if "Verdicts at" in details and not sv:
        bad.append("no verdict")
    for b in bad:
        print("compare-paste: %s: %s" % (sys.argv[1], b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
