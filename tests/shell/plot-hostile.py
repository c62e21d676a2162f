#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""plot-hostile.py OUTDIR BENCH.json REPORT.json FOLDED BREAKDOWN.json

Writes the hostile inputs of plot-hostile.sh into OUTDIR: bench results
and report --json output with the payload below in one string field each
(every string field the bench schema has, a params key, and every string
member report --json writes), the payload with \\u0000 and with invalid
UTF-8, folded stacks with it in a frame, bench results with a breakdown
with it in each string of their "breakdown" (the stat file's name, which
the results keep to 63 bytes, with a shorter payload), and copies under
hostile file names (a multi-kernel folder's release too). Prints the
manifest, one input per line, NUL-separated fields: KIND (bench, report,
folded, breakdown), FIELD, EXPECT (the file in OUTDIR holding the text as
a label shows it, when it is drawn as one; else -), PATH.

The payload tries each way into a gnuplot program: `backquotes`, a
shell's $( ), both quotes closing a string then system(), '.' joining
a call onto a single-quoted string, a line break then a shell escape
(!) or the datablock's end (EOD), @macros, $variables, backslashes, ';'
and '#', a CR, a tab, a terminal escape, DEL, U+2028 and U+FFFE. The
commands touch CANARY in the current directory.
"""
import copy
import json
import os
import sys

PAYLOAD = ("`touch CANARY`$(touch CANARY)\"; system(\"touch CANARY\") #"
           "';system('touch CANARY');'.system('touch CANARY').'"
           "\n!touch CANARY\nEOD\nprint system('touch CANARY')\n"
           "@m $x ${x} \\ \\n\\\n;\r\t\x1b[31m\x7f\u2028\ufffe\u00e9 end")
# The same ways in, in the 63 bytes a breakdown keeps of a file's name.
SHORT = "'.system('touch CANARY').'\n!touch CANARY\nEOD\n`touch CANARY`@m\\\r"
assert len(SHORT.encode()) <= 63
# A file name: no '/', at most 255 bytes, invalid UTF-8 at the end.
NAME = ("`touch CANARY`$(touch CANARY)\"';system('touch CANARY')"
        "'.system('touch CANARY').' #@m $x \\\n!touch CANARY\nEOD\r"
        "\x1b[31m").encode() + b"\xff\xfe"


def shown(s):
    """s as a label shows it (gnuplot__string()'s rules)."""
    out = []
    for c in s:
        o = ord(c)
        if c in "\n\t":
            out.append(c)
        elif o < 0x20 or 0x7f <= o < 0xa0 or o in (0xfffe, 0xffff):
            out.append("\ufffd")
        else:
            out.append(c)
    return "".join(out)


def string_paths(doc, path=()):
    """The paths of every string value in doc (lists as '*')."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from string_paths(v, path + (k,))
    elif isinstance(doc, list):
        for v in doc:
            yield from string_paths(v, path + ("*",))
    elif isinstance(doc, str):
        yield path


def put(doc, path, value):
    """Set every value at path (lists as '*') to value, where there is one
    (a breakdown's source has either "how" or "why")."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if head == "*":
        return [put(v, rest, value) for v in doc]
    if head not in doc:
        return doc
    doc[head] = put(doc[head], rest, value)
    return doc


def main():
    out, bench_path, report_path, folded_path, bd_path = sys.argv[1:6]
    bench = json.load(open(bench_path))
    bd = json.load(open(bd_path))
    report = json.load(open(report_path))
    manifest = []

    def emit(kind, field, expect, doc, name=None, raw=None):
        path = os.path.join(out, name or "%s-%d.json" % (kind,
                                                         len(manifest)))
        with open(path, "wb") as f:
            f.write(raw if raw is not None else
                    json.dumps(doc, ensure_ascii=False).encode())
        manifest.append((kind, field, expect, path))

    # Bench: every string field of the schema, present or not in the
    # fixture, one at a time; the metric's drawn ones are labels.
    metric_fields = {"name": "payload.txt", "file": "payload.txt",
                     "unit": "payload.txt"}
    paths = sorted(set(string_paths(bench)))
    paths += [("recording", "file"), ("skipped", "*")]
    for p in sorted(set(paths)):
        doc = copy.deepcopy(bench)
        if p == ("recording", "file"):
            doc["recording"] = {"file": PAYLOAD}
        elif p == ("skipped", "*"):
            doc["skipped"] = [PAYLOAD]
        else:
            doc = put(doc, p, PAYLOAD)
        expect = metric_fields.get(p[-1], "-") if "metrics" in p else "-"
        emit("bench", "/".join(p), expect, doc)
    for key, value in (("x", PAYLOAD), ("y", [PAYLOAD]), (PAYLOAD, 1)):
        doc = copy.deepcopy(bench)
        doc["params"][key] = value
        emit("bench", "params", "-", doc)
    # Every string report --json writes; span names and subsystems are
    # labels of hist and cdf, categories of bars.
    for p in sorted(set(string_paths(report))):
        doc = put(copy.deepcopy(report), p, PAYLOAD)
        expect = "payload.txt" if p in (("spans", "*", "name"),
                                        ("spans", "*", "subsystem"),
                                        ("attribution", "*", "category")) \
            else "-"
        emit("report", "/".join(p), expect, doc)
    # What JSON cannot carry in a string: refused.
    for field, text in (("nul", json.dumps(PAYLOAD + "\0")),
                        ("invalid-utf8", None)):
        doc = copy.deepcopy(bench)
        doc["scenario"] = "@@@"
        raw = json.dumps(doc).encode()
        sub = text.encode() if text else b'"\xff\xfe\xc3("'
        emit("bench", field, "-", None, raw=raw.replace(b'"@@@"', sub))
    # The input's own name, of each kind.
    emit("bench", "file-name", "name.txt", bench,
         name=os.fsdecode(NAME + b".json"))
    emit("report", "file-name", "name.txt", report,
         name=os.fsdecode(NAME + b"-r.json"))
    # Folded stacks: the payload as a frame (one line: no line break).
    frame = PAYLOAD.replace("\n", " ").replace("\r", " ")
    folded = open(folded_path, "rb").read().decode()
    lines = [l for l in folded.split("\n") if l]
    lines.append("swapper;%s;leaf 7" % frame)
    emit("folded", "frame", "-", None,
         raw=("\n".join(lines) + "\n").encode())
    emit("folded", "file-name", "-", None,
         name=os.fsdecode(NAME + b".folded"),
         raw=("\n".join(lines) + "\n").encode())
    # A breakdown: each of its strings; the file's name is a label.
    for p in sorted(set(string_paths(bd["breakdown"]))):
        doc = copy.deepcopy(bd)
        short = p == ("files", "*", "file")
        doc["breakdown"] = put(doc["breakdown"], p,
                               SHORT if short else PAYLOAD)
        emit("breakdown", "breakdown/" + "/".join(p),
             "short.txt" if short else "-", doc)
    emit("breakdown", "file-name", "name.txt", bd,
         name=os.fsdecode(NAME + b"-bd.json"))
    # A multi-kernel bench's folder, a kernel's release the name.
    kdir = os.path.join(out, "kernels")
    for rel in (b"6.1.0", NAME):
        os.makedirs(os.path.join(os.fsencode(kdir), rel))
        with open(os.path.join(os.fsencode(kdir), rel, b"results.json"),
                  "w") as f:
            json.dump(bd, f)
    manifest.append(("breakdown", "kernel-folder", "name.txt", kdir))
    with open(os.path.join(out, "short.txt"), "w") as f:
        f.write(shown(SHORT))
    with open(os.path.join(out, "payload.txt"), "w") as f:
        f.write(shown(PAYLOAD))
    with open(os.path.join(out, "name.txt"), "w") as f:
        f.write(shown(NAME.decode(errors="replace")))
    with open(os.path.join(out, "name.raw"), "wb") as f:
        f.write(NAME)
    for m in manifest:
        sys.stdout.buffer.write(b"\0".join(os.fsencode(x) for x in m) +
                                b"\0")


if __name__ == "__main__":
    main()
