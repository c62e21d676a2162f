#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# check-layers.py [--objs DIR] [--layers FILE] [--graph] [--plant A B]...
#
# Holds src/ to the layers scripts/layers.txt draws (docs/design.md):
#
#   - the include graph: every #include "x.h" of src/, resolved to the
#     file it names (beside the includer, or in include/);
#   - the call graph: the symbols each object of DIR/src (default build)
#     leaves undefined, joined to the object that defines them (nm), so
#     that a call, or a use of a variable, is an arrow from file to file.
#
# It fails (exit 1, one line per finding) on an arrow from a module to a
# module it may not use (one beside it with no `arrow`, or one above it),
# on any circle of files that call each other, on a file of src/ or
# include/ that no module holds, and on an `arrow` or `except` line that
# no longer matches anything. --plant A B adds a call from file A to file B, to show
# that the check sees it; --graph prints the arrows between modules.
import argparse
import fnmatch
import os
import re
import subprocess
import sys


def die(msg):
    print("check-layers: " + msg, file=sys.stderr)
    sys.exit(2)


class Layers:
    def __init__(self, path):
        self.layers = []        # names, top first
        self.modules = {}       # module -> layer index
        self.patterns = []      # (module, pattern), in order
        self.arrows = set()     # (module, module)
        self.excepts = {}       # (file, file) -> why
        module = None
        for n, line in enumerate(open(path), 1):
            line = line.split('#', 1)[0].rstrip()
            if not line.strip():
                continue
            words = line.split()
            where = "%s:%d" % (path, n)
            if line[0].isspace():
                if module is None:
                    die(where + ": a continuation with no module")
                self.patterns += [(module, w) for w in words]
            elif words[0] == 'layer':
                self.layers.append(words[1])
                module = None
            elif words[0] in ('arrow', 'except'):
                if len(words) < 4 or words[2] != '->':
                    die(where + ": expected '%s A -> B'" % words[0])
                if words[0] == 'arrow':
                    for m in (words[1], words[3]):
                        if m not in self.modules:
                            die(where + ": no module " + m)
                    self.arrows.add((words[1], words[3]))
                else:
                    self.excepts[(words[1], words[3])] = ' '.join(words[4:])
            else:
                if not self.layers:
                    die(where + ": a module before any layer")
                module = words[0]
                self.modules[module] = len(self.layers) - 1
                self.patterns += [(module, w) for w in words[1:]]

    def module_of(self, f):
        for m, p in self.patterns:
            if p == f:
                return m
        for m, p in self.patterns:
            if fnmatch.fnmatchcase(f, p):
                return m
        return None

    def allowed(self, a, b):
        """May module a use module b?"""
        if a == b or (a, b) in self.arrows:
            return True
        return self.modules[b] > self.modules[a]


def sources():
    out = []
    for top in ('src', 'include'):
        for d, _, files in os.walk(top):
            for f in files:
                if f.endswith(('.c', '.h')):
                    out.append(os.path.join(d, f))
    return sorted(out)


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_graph(files):
    edges = {}
    for f in files:
        text = open(f, encoding='utf-8', errors='replace').read()
        for name in INCLUDE.findall(text):
            for cand in (os.path.join(os.path.dirname(f), name),
                         os.path.join('include', name)):
                if os.path.isfile(cand):
                    edges.setdefault(f, set()).add(os.path.normpath(cand))
                    break
            # else a generated header (version.h, the BPF skeleton)
    return edges


def call_graph(objdir, cfiles):
    objs = {}
    for c in cfiles:
        obj = os.path.join(objdir, c[:-2] + '.o')
        if not os.path.isfile(obj):
            die("%s: not built (run make)" % obj)
        if os.path.getmtime(obj) < os.path.getmtime(c):
            die("%s: older than %s (run make)" % (obj, c))
        objs[obj] = c
    # One nm for all of them: "OBJECT: NAME TYPE [VALUE SIZE]" (-P -A).
    r = subprocess.run(['nm', '-P', '-A'] + list(objs),
                       capture_output=True, text=True)
    if r.returncode:
        die("nm: " + r.stderr.strip())
    defined, undefined = {}, {c: set() for c in cfiles}
    for line in r.stdout.splitlines():
        obj, _, rest = line.partition(': ')
        w = rest.split()
        if obj not in objs or len(w) < 2:
            continue
        c = objs[obj]
        if w[1] == 'U':
            undefined[c].add(w[0])
        elif w[1] in 'TDBRGSVWC':
            defined.setdefault(w[0], []).append(c)
    edges = {}
    for c, syms in undefined.items():
        for s in syms:
            for d in defined.get(s, []):
                if d != c:
                    edges.setdefault(c, {}).setdefault(d, set()).add(s)
    return edges


def circles(nodes, succ):
    """Tarjan's strongly connected components with more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(succ.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                    break
                if w in on:
                    low[u] = min(low[u], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[u])
                if low[u] == index[u]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == u:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--objs', default='build')
    ap.add_argument('--layers', default='scripts/layers.txt')
    ap.add_argument('--graph', action='store_true')
    ap.add_argument('--plant', nargs=2, action='append', default=[],
                    metavar=('FROM', 'TO'))
    a = ap.parse_args()

    lay = Layers(a.layers)
    files = sources()
    cfiles = [f for f in files
              if f.startswith('src/') and f.endswith('.c') and
              not f.endswith('.bpf.c')]
    bad = []
    mod = {}
    for f in files:
        mod[f] = lay.module_of(f)
        if mod[f] is None:
            bad.append("%s: in no module of %s" % (f, a.layers))

    inc = include_graph(files)
    calls = call_graph(a.objs, cfiles)
    for x, y in a.plant:
        calls.setdefault(x, {}).setdefault(y, set()).add('(planted)')

    used = set()
    arrows = {}
    for kind, graph in (('includes', inc), ('calls', calls)):
        for f in sorted(graph):
            for g in sorted(graph[f]):
                mf, mg = mod.get(f), mod.get(g)
                if mf is None or mg is None or mf == mg:
                    continue
                arrows.setdefault((mf, mg), set()).add(kind)
                if lay.allowed(mf, mg):
                    continue
                if (f, g) in lay.excepts:
                    used.add((f, g))
                    continue
                what = ''
                if kind == 'calls':
                    what = ' (' + ', '.join(sorted(graph[f][g])[:4]) + ')'
                side = 'beside' if lay.modules[mf] == lay.modules[mg] \
                    else 'above'
                bad.append("%s %s %s%s: %s is %s %s" %
                           (f, kind, g, what, mg, side, mf))
    for e, why in sorted(lay.excepts.items()):
        if e not in used:
            bad.append("except %s -> %s: no longer so; remove the line"
                       % e)
    for e in sorted(lay.arrows):
        if e not in arrows:
            bad.append("arrow %s -> %s: nothing uses it; remove the line"
                       % e)

    for comp in circles(set(calls), calls):
        bad.append("a circle of calls: " + " <-> ".join(comp))

    if a.graph:
        for (x, y), kinds in sorted(arrows.items(),
                                    key=lambda e: (lay.modules[e[0][0]],
                                                   e[0])):
            print("%-9s -> %-9s %s" % (x, y, '+'.join(sorted(kinds))))
    for b in bad:
        print(b)
    nr_inc = sum(len(v) for v in inc.values())
    nr_calls = sum(len(v) for v in calls.values())
    print("layers: %d files, %d includes, %d file-to-file calls, "
          "%d known exceptions: %s" %
          (len(files), nr_inc, nr_calls, len(used),
           "%d problems" % len(bad) if bad else "ok"))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
