#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job on a built-in default: report on the bundled recording of a
# flush-heavy workload (tests/data/flush-mixed.data, see its README): which
# subsystem's flush spent the samples, who asked, the lock hold times with
# their histograms, then the heaviest folded kernel stacks inside a flush.
set -eu
cd "$(dirname "$0")/.."

data=tests/data/flush-mixed.data
kallsyms=$(mktemp /tmp/rstat-demo-kallsyms.XXXXXX)
trap 'rm -f "$kallsyms"' EXIT
gzip -dc tests/data/flush-mixed.kallsyms.gz >"$kallsyms"

echo "== rstat-analyze report -i $data --kallsyms KALLSYMS --hist"
./rstat-analyze report -i "$data" --kallsyms "$kallsyms" --hist
echo
folded=$(./rstat-analyze report -i "$data" --kallsyms "$kallsyms" \
	--folded --kernel --event-filter cpu-clock)
heaviest() {
	# COUNT then the leaf end of the stack (the count is the last field;
	# frames may hold spaces), to fit a terminal.
	awk '{ i = match($0, / [0-9]+$/); s = substr($0, 1, i - 1)
	       if (length(s) > 100) s = "..." substr(s, length(s) - 99)
	       printf "%12s  %s\n", substr($0, i + 1), s }' |
		sort -k1,1nr -s | head -n "$1"
}
echo "== report --folded --kernel: the 10 heaviest stacks inside css_rstat_flush"
grep 'css_rstat_flush' <<<"$folded" | heaviest 10
