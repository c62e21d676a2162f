#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gp-dataonly.py SCRIPT.gp [--strings] [--expect FILE]

Check that a script `rstat-analyze plot` wrote is data-only, reading it
as gnuplot 5.4 does: every command outside the datablock is one of the
commands plot generates, with text only in single-quoted literals (where
gnuplot expands no `backquote` and no @macro) and constants of escapes
only ("\\n", "\\377") joined on with '.'; the datablock ends where
gnuplot ends it (the first line that starts with EOD) and holds numbers,
the writers' own bucket labels and comments only. So no byte of an input
can be program text.

Exit 0 when it is, else 1 with the first offending line. --strings
prints each text the script holds, decoded, as a JSON list; --expect
FILE fails unless one of them contains FILE's bytes.
"""
import json
import re
import sys

S = "\x00S\x00"  # a string expression, in a command's skeleton
N = r"[0-9]+"
ITEM = (r"\$rs_data( index %s)? using %s(:%s)?(:xtic\(%s\))?"
        r"( with steps lw 2| with points pt 7 ps 0\.6)?"
        r"( lc rgb 0x[0-9a-f]{6})? title S" % (N, N, N, N))
TEMPLATES = [re.compile(t.replace("S", re.escape(S)) + r"\Z") for t in [
    r"set encoding utf8",
    r"set terminal (pngcairo|svg) noenhanced size %s,%s" % (N, N),
    r'if \(exists\("rs_stdout"\)\) \{ set output \} else \{ set output S \}',
    r"set title S",
    r"set style data histograms",
    r"set style histogram (clustered gap 1|rowstacked)",
    r"set style fill solid 0\.85 border -1",
    r"set xtics rotate by -45 scale 0 nomirror",
    r"set xtics nomirror rotate by -(20|45) \(S %s(, S %s)*\)" % (N, N),
    r"set grid( ytics)?",
    r"set yrange \[(0:\*|0:1|\*:\*)\]",
    r"set key (top right|bottom right|outside right top|invert)",
    r"set rmargin %s" % N,
    r"set [xy]label S",
    r"set logscale [xy]",
    r"set boxwidth 0\.6",
    r"plot %s(, +%s)*" % (ITEM, ITEM),
]]
# A double-quoted string of escapes only: a line break, a path's bytes.
DQ_ESCAPES = re.compile(r'"(\\n|\\[0-7]{3})+"')
# Data rows: numbers (nan and inf too), bucket labels "LOW-HIGH"; comments.
DATA_ROW = re.compile(r'[-+0-9.eEnaif" ]*\Z')


def skeleton(line, strings):
    """The line with each string expression as S; its texts to strings."""
    out, i, parts = [], 0, None  # parts: the last expression's texts
    while i < len(line):
        c = line[i]
        if c == "'":
            j, text = i + 1, []
            while True:
                k = line.find("'", j)
                if k < 0:
                    raise ValueError("an unterminated single quote")
                text.append(line[j:k])
                if line[k + 1:k + 2] == "'":
                    text.append("'")
                    j = k + 2
                    continue
                break
            piece, i = "".join(text), k + 1
        elif c == '"' and DQ_ESCAPES.match(line, i):
            m = DQ_ESCAPES.match(line, i)
            piece, i = bytes(10 if e == "n" else int(e, 8) for e in
                             re.findall(r"\\(n|[0-7]{3})", m.group(0))
                             ).decode("utf-8", "surrogateescape"), m.end()
        else:
            if ord(c) < 0x20 or ord(c) >= 0x7f:
                raise ValueError("byte %r outside a string" % c)
            out.append(c)
            i += 1
            continue
        # Literals joined with ' . ' are one expression, one text.
        if parts is not None and "".join(out).endswith(S + " . "):
            del out[-3:]
            parts.append(piece)
        else:
            parts = [piece]
            strings.append(parts)
            out.append(S)
    return "".join(out)


def check(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "not UTF-8 at byte %d" % e.start, []
    lines = text.split("\n")
    if lines[-1] != "":
        return "no line break at the end", []
    lines.pop()
    strings, n = [], 0
    while n < len(lines):
        first = n + 1
        line = lines[n]
        n += 1
        # gnuplot joins a line ending in a backslash with the next.
        while line.endswith("\\") and n < len(lines):
            line = line[:-1] + lines[n]
            n += 1
        if "\r" in line:
            return "line %d: a CR" % first, strings
        if line.startswith("#"):
            if not re.fullmatch(r"#[ -~]*", line) or "`" in line:
                return "line %d: comment %r" % (first, line), strings
            continue
        if line == "$rs_data << EOD":
            while n < len(lines) and not lines[n].startswith("EOD"):
                row = lines[n]
                n += 1
                if row.startswith("#"):
                    if re.search(r"[\x00-\x1f\x7f]", row) or \
                       row.endswith("\\"):
                        return "line %d: data comment %r" % (n, row), strings
                elif not DATA_ROW.match(row):
                    return "line %d: data row %r" % (n, row), strings
            if n == len(lines) or lines[n] != "EOD":
                return "line %d: the datablock does not end with EOD" % n, \
                    strings
            n += 1
            continue
        try:
            sk = skeleton(line, strings)
        except ValueError as e:
            return "line %d: %s: %r" % (first, e, line), strings
        if not any(t.match(sk) for t in TEMPLATES):
            return "line %d: not a command plot writes: %r" % (first, line), \
                strings
    return None, strings


def main():
    data = open(sys.argv[1], "rb").read()
    err, strings = check(data)
    if err:
        print("%s: %s" % (sys.argv[1], err))
        sys.exit(1)
    texts = ["".join(p) for p in strings]
    args = sys.argv[2:]
    if "--strings" in args:
        print(json.dumps(texts))
    if "--expect" in args:
        want = open(args[args.index("--expect") + 1], "rb").read().decode(
            "utf-8", "surrogateescape")
        if not any(want in t for t in texts):
            print("%s: no text holds %r: %r" % (sys.argv[1], want, texts))
            sys.exit(1)


if __name__ == "__main__":
    main()
