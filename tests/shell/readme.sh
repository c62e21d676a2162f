#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# README.md's examples hold together as a new user reads them:
# - each `rstat-analyze COMMAND ...` line uses options COMMAND --help has;
# - what compare and plot are given was made by an example above them
#   (bench -o DIR, bench --json FILE, record -o, report --json > FILE) or
#   is the default recording, never a name that appears from nowhere;
# - each ./PROGRAM it runs is said to come from somewhere (./loop is the
#   test workload build/workloads/loop);
# - make install is described.
. tests/shell/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"

python3 - README.md "$RS_BIN" <<'PY' || fail "README.md examples"
import re, shlex, subprocess, sys
text = open(sys.argv[1]).read()
lines, cur = [], ""
for l in text.splitlines():
    if not l.startswith("    "):
        cur = ""
        continue
    l = re.sub(r"\s+#.*", "", l.strip())
    if not l or l.startswith("#"):
        continue
    cur += l[:-1] + " " if l.endswith("\\") else l
    if not l.endswith("\\"):
        lines.append(cur)
        cur = ""
helps, bad = {}, []
made = {"rstat.data", "perf.data"}
for line in lines:
    for part in re.split(r"\s*(?:\||&&)\s*", line):
        try:
            w = shlex.split(part.split(" #")[0])
        except ValueError:
            continue
        if len(w) < 2 or w[0] != "rstat-analyze":
            continue
        cmd, args = w[1], w[2:]
        if cmd not in helps:
            helps[cmd] = subprocess.run([sys.argv[2], cmd, "--help"],
                                        capture_output=True, text=True).stdout
        for a in args:
            o = a.split("=")[0]
            if o.startswith("--") and o != "--" and \
               not re.search(re.escape(o) + r"\b", helps[cmd]):
                bad.append("%s: %s is not in `%s --help`" % (line, o, cmd))
        out = None
        for i, a in enumerate(args):
            if a in ("-o", "--json", "--output") and i + 1 < len(args) and \
               not args[i + 1].startswith("-"):
                out = args[i + 1]
        if cmd == "bench" and out:
            made |= {out, out + "/results.json"}
        if cmd == "record":
            # The previous recording is kept as FILE.old.
            made |= {out or "rstat.data", (out or "rstat.data") + ".old"}
        if ">" in part:
            made.add(part.split(">")[-1].split()[0])
        if cmd in ("compare", "plot", "diff-folded"):
            skip_next = False
            for a in args:
                if skip_next:
                    skip_next = False
                    continue
                if a in ("-o", "--kind", "--format", "--labels", "--metric",
                         "--title", "--size"):
                    skip_next = True
                    continue
                if a.startswith("-"):
                    continue
                if a not in made:
                    bad.append("%s: %s was made by no example before it"
                               % (line, a))
# Programs run in the examples: ./NAME as a word of an example line.
progs = set(re.findall(r"(?:^|\s|:)\./([\w-]+)(?=[\s:]|$)",
                       "\n".join(lines)))
for p in sorted(progs):
    if not re.search(r"(build|tests)/workloads/%s\b" % re.escape(p), text):
        bad.append("./%s is run but never said where it comes from" % p)
if "make install" not in text:
    bad.append("make install is not described")
for b in bad:
    print("FAIL: README.md: " + b)
print("ok %d example lines" % len(lines))
sys.exit(1 if bad else 0)
PY
exit 0
