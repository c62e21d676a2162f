#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The read breakdown's text tables say what its JSON says.

usage: breakdown-text.py TEXT JSON

JSON holds a "breakdown" object (bench's results, report --json); TEXT is
the output that printed its tables. For each file, each timed part's p50,
p90 and p99 must be the JSON's within half a unit of the last digit
printed, and its share likewise; an untimed part says "not timed". The
file's tree (split trees) is said exactly when the JSON names one, and
the callbacks' observer cost (callback_cost) as the JSON has it: the
shortest, and the programs' time and its part after the callback, each
a call.
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
    sect = text.split(head, 1)[1].split("\n\n", 1)[0]
    seen = 0
    for p in f["parts"]:
        m = re.search(r"^  %s +%s +%s +%s +(\d+(?:\.\d+)?)%%" %
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
        seen += 1
    assert seen >= 3, (name, "text rows read", seen)
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
print("ok: the text tables of %d files say what the JSON says"
      % len(bd["files"]))
