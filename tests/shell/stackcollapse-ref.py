# SPDX-License-Identifier: GPL-2.0
"""stackcollapse-perf.pl's folding rules, as its documentation and usage
text state them, rewritten small for the tests (the FlameGraph script is
not packaged in Debian). Reads `perf script` text on stdin, prints
"comm;outer;...;leaf count" lines sorted, like the script with its
defaults:

- a sample starts at a line "comm pid[/tid] ..." (whatever follows: a
  CPU, a time, a period, an event, in any of the layouts perf script has
  printed); only samples of the first event seen are folded
  (--event-filter to pick another), the event being read only from a line
  ending in ": [period] event:" (the script's second regex); a header line
  without that ending (a tracepoint's, with its fields, or one printed
  without a time column) is never filtered out; with no TID, or a TID of 0
  (Perl's truth), the PID is "?";
- a sample counts its period when that ending shows one (not "0"), else 1
  (--samples, the tests' own, counts every sample as 1, like the tool's
  --samples);
- the stack is the comm (spaces made '_'), then the frames outermost
  first; each frame line is "addr symbol[+0xoff] (module)";
- a "+0x..." offset is dropped; a frame whose symbol starts with '(' is
  skipped (a process name); "->" separates inlined frames;
- "[unknown]" becomes "[module basename]", or "[unknown]" when the module
  is unknown too;
- tidy-generic: ';' becomes ':', everything from the first '(' is dropped
  (unless it opens "(anonymous namespace)" or the name looks like a Go
  method "pkg.(*T).m"), quotes are removed;
- --kernel appends _[k] to frames of kernel modules ("[...]"-named or
  vmlinux), --pid / --tid append -PID / -PID/TID to the comm.

--unresolved PREFIX (repeatable) is the tests' own: frames in modules
starting with PREFIX read as "[unknown]", as perf prints them on a machine
without those binaries, for a script recorded where they were.
"""
import re
import sys
from collections import Counter

HEAD = re.compile(r"^(\S.+?)\s+(\d+)(?:/(\d+))?\s+")
EVENT = re.compile(r":\s*(\d+)?\s+(\S+):\s*$")
FRAME = re.compile(r"^\s*(\w+)\s*(.+) \((\S*)\)$")


def tidy(func):
    func = func.replace(";", ":")
    if not re.search(r"\.\(.*\)\.", func):
        func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
    return func.replace('"', "").replace("'", "")


def fold(lines, event_filter=None, kernel=False, pid=False, tid=False,
         unresolved=(), samples=False):
    out, stack, pname, count = Counter(), [], None, 1
    mapped = 0
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line:
            if pname is not None and stack is not None:
                out[";".join([pname] + stack)] += count
            stack, pname = [], None
            continue
        m = HEAD.match(line)
        if m and not line[0].isspace():
            comm, p, t = m.group(1), m.group(2), m.group(3)
            # The script tests the TID for truth, as Perl does: a TID of
            # "0" (the idle task, "swapper 0/0") counts as none.
            if t is None or t == "0":
                p, t = "?", p
            ev = EVENT.search(line)
            count = 1
            if ev:
                if event_filter is None:
                    event_filter = ev.group(2)
                elif ev.group(2) != event_filter:
                    pname, stack = None, []
                    continue
                if ev.group(1) and int(ev.group(1)) and not samples:
                    count = int(ev.group(1))
            pname = comm + ("-%s/%s" % (p, t) if tid else
                            "-%s" % p if pid else "")
            pname = pname.replace(" ", "_")
            stack = []
            continue
        m = FRAME.match(line)
        if not m or pname is None:
            continue
        raw, mod = re.sub(r"\+0x[\da-f]+$", "", m.group(2)), m.group(3)
        if raw != "[unknown]" and any(mod.startswith(u) for u in unresolved):
            raw = "[unknown]"
            mapped += 1
        if raw.startswith("("):
            continue
        inline = []
        for func in raw.split("->"):
            if func == "[unknown]":
                func = "[%s]" % (mod.rsplit("/", 1)[-1]
                                 if mod != "[unknown]" else "unknown")
            func = tidy(func)
            if inline:
                func += "_[i]"
            elif kernel and re.search(r"(^\[|vmlinux$)", mod) and \
                    "unknown" not in mod:
                func += "_[k]"
            inline.append(func)
        stack = inline + stack
    if pname is not None and stack:
        out[";".join([pname] + stack)] += 1
    return out, mapped


if __name__ == "__main__":
    args = sys.argv[1:]
    ef = None
    if "--event-filter" in args:
        ef = args[args.index("--event-filter") + 1]
    unres = [args[i + 1] for i, a in enumerate(args) if a == "--unresolved"]
    res, mapped = fold(sys.stdin, ef, "--kernel" in args, "--pid" in args,
                       "--tid" in args, unres, "--samples" in args)
    for k in sorted(res):
        print(k, res[k])
    if unres:
        print("%d frames read as [unknown]" % mapped, file=sys.stderr)
