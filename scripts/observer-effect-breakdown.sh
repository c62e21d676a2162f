#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): what bench --breakdown's timing adds to a read
# (issue 25, "Observer cost stated"). One bench run: the timed
# repetitions, which nothing observes, then the breakdown pass of the
# same workload; per file, the reads' p50 in each (the reader's own
# clock), the difference, the events the breakdown's programs handled a
# read (from the calls it counted: 2 syscall tracepoints a syscall, a
# kprobe and a kretprobe a call of the walk, wait and callback functions
# where kprobes time them, a tracepoint pair a lock wait) and the
# difference per event. Extra arguments go to bench (--kernel IMAGE to
# run it in a guest, where kprobes time the callbacks).
#
# Usage: scripts/observer-effect-breakdown.sh [-r REPS] [-n READS]
#        [-f FILES] [-- BENCH ARGS...]
set -eu
cd "$(dirname "$0")/.."

reps=3 reads=2000 files=cpu.stat
while getopts "r:n:f:" o; do
	case $o in
	r) reps=$OPTARG ;;
	n) reads=$OPTARG ;;
	f) files=$OPTARG ;;
	*) echo "usage: $0 [-r REPS] [-n READS] [-f FILES] [-- BENCH ARGS]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "$(id -u)" -eq 0 ] || { echo "observer-effect-breakdown: needs root" >&2; exit 1; }
[ -x ./rstat-analyze ] || make -s rstat-analyze
out=$(mktemp -d /tmp/rstat-bd-cost.XXXXXX)
trap 'rm -rf "$out"' EXIT
./rstat-analyze bench stat-read --updater memory --children 8 \
	--files "$files" --reads "$reads" -r "$reps" --breakdown \
	-o "$out/run" "$@" >"$out/stdout" 2>"$out/stderr" ||
	{ cat "$out/stderr" >&2; exit 1; }
grep 'not decomposed' "$out/stderr" >&2 && exit 1
find "$out/run" -name results.json | sort | python3 -c '
import json, sys
print("%-28s %-12s %10s %10s %9s %7s %9s" % ("run", "file", "p50 off",
      "p50 on", "added", "events", "per event"))
for path in sys.stdin.read().split():
    d = json.load(open(path))
    bd = d.get("breakdown")
    if not bd:
        continue
    src = {s["part"]: s for s in bd["sources"]}
    kprobe = lambda p: src[p]["timed"] and "kprobe" in src[p].get("how", "")
    for f in bd["files"]:
        parts = {p["part"]: p for p in f["parts"]}
        n = f["reads"]
        ev = 2 * parts["rest"]["calls"]            # syscall enter + exit
        for p in ("memory", "io", "bpf", "base", "walk"):
            if kprobe(p):
                ev += 2 * parts[p]["calls"]
        if kprobe("wait"):
            ev += 2 * parts["wait"]["calls"]
        elif src["wait"]["timed"]:
            ev += 2 * parts["wait"]["calls"]
        if not kprobe("walk") and src["walk"]["timed"]:
            ev += 2 * parts["walk"]["calls"]       # locked + unlock
        ev += 2 * parts["off-cpu"]["calls"]        # switch out + in
        per_read = ev / n if n else 0
        added = f["read_p50_ns"] - f["unobserved_p50_ns"]
        kern = d["provenance"]["kernel"][:28]
        print("%-28s %-12s %9.1fus %9.1fus %8.1fus %7.1f %8.0fns" % (kern,
              f["file"], f["unobserved_p50_ns"] / 1e3,
              f["read_p50_ns"] / 1e3, added / 1e3, per_read,
              added / per_read if per_read else 0))
'
