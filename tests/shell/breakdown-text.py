#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The read breakdown's text tables say what its JSON says.

usage: breakdown-text.py TEXT JSON

JSON holds a "breakdown" object (bench's results, report --json); TEXT is
the output that printed its tables. For each file, each timed part's p50,
p90 and p99 must be the JSON's within half a unit of the last digit
printed, and its share and calls a read likewise; an untimed part says
"not timed". The figures under the table are the JSON's too: entry/exit's
row (signed), the reader's time a read, the reads below 0, the p50s that
do not add up (said exactly when they miss by over 5%), the tail off
the CPU a read, the reads mostly off the CPU, the kernel's p50 against
the reader's, the observer's p50s and their ratio, and the callbacks
outside the reads. The
file's tree (split trees) is said exactly when the JSON names one, and
the callbacks' observer cost (callback_cost) as the JSON has it: the
shortest, and the programs' time and its part after the callback, each
a call. Each table names the method and HZ; a file the kernel and the
reader saw a different number of reads of says both; each untimed part
says why; the callbacks outside the reads give each trigger's calls and
time; the syscalls lost and the unpaired events are said exactly when
the JSON counts some; record's targets line (the process, its children
followed, the opens and the other syscalls) and each of its counts of
what was left out are the JSON's "follow".
"""
import json
import re
import sys

text = open(sys.argv[1]).read()
bd = json.load(open(sys.argv[2]))["breakdown"]
unit = {"ns": 1, "us": 1e3, "ms": 1e6}
cell = r"(\d+(?:\.\d+)?) (ns|us|ms)"


def close(printed, value, scale=1):
    dec = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed) * scale - value) <= \
        0.5 * 10 ** -dec * scale + 1e-9


for f in bd["files"]:
    name = f["file"]
    head = "%s: where a read's time goes" % name
    assert head in text, ("no table", name)
    # Its title: the reads the table holds, by the targets (record's
    # following) or of the bench's pass, as the JSON says.
    m = re.search(r"^%s, (\d+) reads (?:by the targets|of the (\S+) pass)$"
                  % re.escape(head), text, re.M)
    assert m, ("title", name)
    assert int(m.group(1)) == f["reads"], ("title reads", name, m.group(1))
    if "follow" in bd:
        assert m.group(2) is None, ("title: a pass when following", name)
    else:
        assert m.group(2) == bd["pass"], ("title pass", name, m.group(2))
    sect = text.split(head, 1)[1].split("\n\n", 1)[0]
    seen = 0
    for p in f["parts"]:
        m = re.search(r"^  %s +%s +%s +%s +(\d+(?:\.\d+)?)%% +(\d+\.\d)" %
                      (re.escape(p["part"]), cell, cell, cell), sect, re.M)
        if not m:
            assert not p["timed"] and p["part"] != "total", (name, p)
            assert re.search(r"^  %s +- .* not timed$" %
                             re.escape(p["part"]), sect, re.M), (name, p)
            continue
        g = m.groups()
        for i, key in enumerate(("p50_ns", "p90_ns", "p99_ns")):
            v, u = g[2 * i], g[2 * i + 1]
            assert close(v, p[key], unit[u]), (name, p["part"], key, v, u,
                                               p[key])
        sh = g[6]
        assert close(sh, p["share"] * 100), (name, p["part"], sh, p["share"])
        assert p["share"] == 0 or float(sh) > 0, (name, p["part"], sh)
        assert close(g[7], p["calls"] / f["reads"]), (name, p["part"], g[7])
        seen += 1
    assert seen >= 3, (name, "text rows read", seen)
    reads = f["reads"]

    def figure(pattern, want, scale=1, present=True):
        """The number pattern captures is want, or the line is absent."""
        m = re.search(pattern, sect)
        assert (m is not None) == bool(present), (name, pattern, present)
        if m:
            assert close(m.group(1), want, scale), (name, pattern,
                                                    m.group(1), want)
        return m

    e = f.get("entry_exit")
    scell = r"(-?\d+(?:\.\d+)?) (ns|us|ms)"
    m = re.search(r"^  entry/exit +%s +%s +%s +(-?\d+(?:\.\d+)?)%%  derived$"
                  % (scell, scell, scell), sect, re.M)
    assert (m is not None) == (e is not None), (name, e)
    if m:
        g = m.groups()
        for i, key in enumerate(("p50_ns", "p90_ns", "p99_ns")):
            assert close(g[2 * i], e[key], unit[g[2 * i + 1]]), \
                (name, "entry/exit", key, g[2 * i], e[key])
        assert close(g[6], e["share"] * 100), (name, g[6], e["share"])
        figure(r"to the reader's time \((\d+\.\d) us a read\)",
               e["measured_sum_ns"] / reads / 1e3)
        figure(r"\n  (\d+) reads below 0:", e["negative"],
               present=e["negative"])
        # The p50s that miss the reader's by more than 5% are said to
        # (a note wrapped at 80 columns: read with its lines joined).
        k = {p["part"]: p for p in f["parts"]}["total"]
        miss = f["read_p50_ns"] and abs(k["p50_ns"] + e["p50_ns"] -
                                        f["read_p50_ns"]) > \
            0.05 * f["read_p50_ns"]
        flat = re.sub(r"\n +", " ", sect)
        note = r"at p50 the parts do not add up: the kernel's "
        assert (note in flat) == bool(miss), (name, "p50 note", miss)
        for pat, want in (
                (r"the kernel's (\d+\.\d) us and", k["p50_ns"]),
                (r"and entry/exit's (-?\d+\.\d) us against", e["p50_ns"]),
                (r"against the reader's (\d+\.\d) us", f["read_p50_ns"]),
                (r"\(p90s: (\d+\.\d) and", k["p90_ns"]),
                (r"\(p90s: \d+\.\d and (-?\d+\.\d) us\)", e["p90_ns"])):
            m = re.search(pat, flat)
            assert (m is not None) == bool(miss), (name, pat, miss)
            if m:
                assert close(m.group(1), want / 1e3), (name, pat,
                                                       m.group(1), want)
    figure(r"off-cpu includes (\d+\.\d) us a read",
           f["tail_off_ns"] / reads / 1e3, present=f["tail_off_ns"])
    figure(r"\n  (\d+) of %d reads were off the CPU for most" % reads,
           f["off_cpu_most"], present=f["off_cpu_most"])
    if f["read_p50_ns"] and e is None:
        figure(r"the kernel's p50 is (\d+)%% of the reader's",
               100.0 * f["parts"][0]["p50_ns"] / f["read_p50_ns"])
        figure(r"of the reader's \((\d+\.\d) us\)",
               f["read_p50_ns"] / 1e3)
    ob = f["read_p50_ns"] and f["unobserved_p50_ns"]
    figure(r"observer: the reader's p50 (\d+\.\d) us so timed",
           f["read_p50_ns"] / 1e3, present=ob)
    if ob:
        figure(r"so timed, (\d+\.\d) us unobserved",
               f["unobserved_p50_ns"] / 1e3)
        figure(r"us unobserved: (\d+\.\d\d)x",
               f["read_p50_ns"] / f["unobserved_p50_ns"])
    tree = f.get("tree")
    line = "split trees (v6.16+): a %s read flushes %s's tree alone" % (
        name, tree)
    assert (tree is None) == ("split trees (v6.16+): a %s read" % name
                              not in sect), (name, tree)
    assert tree is None or line in sect, (name, line)

cc = bd.get("callback_cost", {"calls": 0})
m = re.search(r"observer, a flush callback: at most %s of a callback's "
              r"time is the\n  timing's \(the shortest of (\d+) timed, its "
              r"own work included\); the\n  programs ran %s a call \([^)]*\)"
              r",\n  %s of it after" % (cell, cell, cell), text)
assert (m is not None) == (cc["calls"] > 0), (cc, m)
if m:
    g = m.groups()
    assert int(g[2]) == cc["calls"], (g, cc)
    assert close(g[0], cc["shortest_ns"], unit[g[1]]), (g, cc)
    assert close(g[3], cc["programs_ns"] // cc["calls"], unit[g[4]]), (g, cc)
    assert close(g[5], cc["programs_after_ns"] // cc["calls"],
                 unit[g[6]]), (g, cc)
for o in bd["sources"]:
    if not o.get("outside_calls"):
        continue
    m = re.search(r"outside the reads: %s callbacks (\d+) calls, "
                  r"(\d+\.\d) us\n" % re.escape(o["part"]), text)
    assert m, ("no outside line", o)
    assert int(m.group(1)) == o["outside_calls"], (o, m.group(1))
    assert close(m.group(2), o["outside_ns"] / 1e3), (o, m.group(2))
flat_all = re.sub(r"\n +", " ", text)

# The method (and HZ) under each table's title, wrapped at 80 columns.
if bd["hz"]:
    method = "(%s; HZ=%d: %.1f ms ticks)" % (bd["method"], bd["hz"],
                                             1e3 / bd["hz"])
else:
    method = "(%s)" % bd["method"]
assert flat_all.count(method) == len(bd["files"]), (method, len(bd["files"]))

for f in bd["files"]:
    # Reads the kernel and the reader counted differently: both said.
    said = "the kernel saw %d reads, the reader made %d:" % (
        f["reads"], f["reader_reads"])
    want = f.get("entry_exit") is None and f["reader_reads"] > 0
    assert (said in text) == want, (f["file"], said, want)

for o in bd["sources"]:
    why = "not timed: %s: %s" % (o["part"], o.get("why", ""))
    assert (re.sub(r"\s+", " ", why) in flat_all) == (not o["timed"]), \
        (o["part"], why)
    # The part's own trigger lines: those under its outside line.
    blk = re.search(r"outside the reads: %s callbacks [^\n]*\n"
                    r"((?:    by [^\n]*\n)*)" % re.escape(o["part"]), text)
    by_lines = blk.group(1) if blk else ""
    assert len(by_lines.splitlines()) == len(o.get("outside_by", [])), \
        (o["part"], by_lines, o.get("outside_by"))
    for b in o.get("outside_by", []):
        trig = "(unnamed)" if b["trigger"] == "-" else b["trigger"]
        m = re.search(r"^    by %s +(\d+) calls +(\d+\.\d) us$" %
                      re.escape(trig), by_lines, re.M)
        assert m, ("no trigger line", o["part"], b)
        assert int(m.group(1)) == b["calls"], (b, m.group(1))
        assert close(m.group(2), b["ns"] / 1e3), (b, m.group(2))

for key, pat in (("lost", r"\n  (\d+) syscalls lost \(the ring was full\)"),
                 ("broken", r"\n  (\d+) unpaired events \(an end")):
    m = re.search(pat, text)
    assert (m is not None) == (bd[key] > 0), (key, bd[key])
    assert m is None or int(m.group(1)) == bd[key], (key, m.group(1))

fo = bd.get("follow")
m = re.search(r"targets: process (-?\d+) and (\d+) children followed; "
              r"(\d+) opens of stat files read, (\d+) syscalls on other "
              r"files left out", flat_all)
assert (m is not None) == (fo is not None), ("targets line", fo)
if fo:
    assert [int(x) for x in m.groups()] == [
        bd["reader_pid"], fo["forks"], fo["opens"],
        fo["other_syscalls"]], (m.groups(), fo, bd["reader_pid"])
    for key, pat in (
            ("unnamed_syscalls", r"(\d+) syscalls on fds whose open was "
                                 r"not seen"),
            ("readers_full", r"(\d+) children not followed: the map"),
            ("events_lost", r"(\d+) opens or forks lost \(the ring"),
            ("files_dropped", r"(\d+) more stat files read: only the")):
        m = re.search(pat, flat_all)
        assert (m is not None) == (fo[key] > 0), (key, fo[key])
        assert m is None or int(m.group(1)) == fo[key], (key, m.group(1))

print("ok: the text tables of %d files say what the JSON says"
      % len(bd["files"]))
