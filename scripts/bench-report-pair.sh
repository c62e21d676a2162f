#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test): is one build of `report` faster than another on
# a recording, by less than the machine's noise? On a shared VM the
# medians of two commands' runs move by 5-10 ms from one minute to the
# next, more than most single steps of a speed-up change. Run in pairs,
# the old build and the new back to back (which goes first alternates),
# each pair sees the same noise: the median of the pairs' differences,
# and its 95% interval by resampling the pairs (bootstrap, 2000 draws),
# tell a 2 ms step apart where the medians of each build's runs do not.
#
# Usage: scripts/bench-report-pair.sh [-r PAIRS] [-k KALLSYMS] FILE OLD NEW
#                                     [REPORT-ARGS...]
#   FILE          a perf.data (e.g. build/bench-report-speed/*.data)
#   OLD, NEW      the two rstat-analyze binaries
#   REPORT-ARGS   given to both after `report -i FILE` (e.g. --folded)
#   -r   pairs (default 61)
#   -k   --kallsyms for both (default: the kallsyms beside FILE, if any)
#
# Prints each build's median and tenth percentile wall time, the median
# of NEW - OLD per pair with its interval, how many pairs NEW won, and the
# same difference in CPU time (user + sys). Output goes to /dev/null; a
# failing run stops the benchmark with the end of what it said. Each run
# is timed by scripts/timed_run.py, as in bench-report-speed.sh.
set -eu

pairs=61 ks=
usage() {
	echo "usage: $0 [-r PAIRS] [-k KALLSYMS] FILE OLD NEW" \
		"[REPORT-ARGS...]" >&2
	exit 2
}
while getopts "r:k:" o; do
	case $o in
	r) pairs=$OPTARG ;;
	k) ks=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
[ "$pairs" -ge 5 ] 2>/dev/null || usage
file=$1 old=$2 new=$3
shift 3
[ -n "$ks" ] || [ ! -r "$(dirname "$file")/kallsyms" ] ||
	ks=$(dirname "$file")/kallsyms
[ -r "$file" ] || { echo "bench: $file: not readable" >&2; exit 1; }
for f in "$old" "$new"; do
	[ -x "$f" ] || { echo "bench: $f: not executable" >&2; exit 1; }
done

# The paths and arguments reach python as argv, never as program text.
exec python3 -c '
import os, random, statistics, sys, tempfile

sys.path.insert(0, sys.argv[1])
from timed_run import timed_run

pairs, file, ks, old, new = int(sys.argv[2]), *sys.argv[3:7]
extra = sys.argv[7:]
null = os.open(os.devnull, os.O_WRONLY)

def run(binary):
    argv = [binary, "report", "-i", file] + \
           (["--kallsyms", ks] if ks else []) + extra
    with tempfile.TemporaryFile() as err:
        code, wall, _, cpu = timed_run(argv, null, err.fileno())
        if code != 0:
            err.seek(0)
            said = err.read().decode(errors="replace").strip()
            sys.exit("bench: %s failed (exit %d): %s" %
                     (" ".join(argv), code, said[-300:]))
    return wall * 1000, cpu * 1000

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))]

load = " ".join(open("/proc/loadavg").read().split()[:3])
run(old)
run(new)
wo, wn, dw, dc = [], [], [], []
for i in range(pairs):
    if i % 2:
        n = run(new)
        o = run(old)
    else:
        o = run(old)
        n = run(new)
    wo.append(o[0])
    wn.append(n[0])
    dw.append(n[0] - o[0])
    dc.append(n[1] - o[1])
random.seed(1)
boot = sorted(statistics.median(random.choices(dw, k=len(dw)))
              for _ in range(2000))
print("%d pairs on %s, load %s before" % (pairs, file, load))
print("old %s: median %.1f ms, p10 %.1f ms" %
      (old, statistics.median(wo), pct(wo, 0.1)))
print("new %s: median %.1f ms, p10 %.1f ms" %
      (new, statistics.median(wn), pct(wn, 0.1)))
print("new - old: median %+.2f ms (95%% %+.2f .. %+.2f), new faster in "
      "%d of %d pairs; CPU %+.2f ms" %
      (statistics.median(dw), pct(boot, 0.025), pct(boot, 0.975),
       sum(d < 0 for d in dw), pairs, statistics.median(dc)))
' "$(dirname "$0")" "$pairs" "$file" "$ks" "$old" "$new" "$@"
