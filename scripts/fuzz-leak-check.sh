#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Not a test: the leak check fuzz-perf-data cannot make itself. That
# target runs without leak detection, because libtraceevent leaks on
# malformed tracepoint formats and every such input would stop the run.
# This replays inputs of the corpus the fuzzer grew through the sanitized
# tool (report with a span, so the reader, symbolizer, attribution and
# pairing all run) with LeakSanitizer on, and sorts the inputs that leak
# into those with a leak allocated by our code and those whose leaks are
# all allocated inside other libraries. Who allocated is the first frame
# under the allocator that is not libc's (a getline() of ours is ours);
# every stack reaches main(), so reaching src/ at all says nothing.
#
# Usage: scripts/fuzz-leak-check.sh [-n INPUTS] [CORPUS_DIR]
#   (defaults: every input, build/fuzz/corpus-fuzz-perf-data; needs
#   `make tests` for build/san/rstat-analyze)
set -u
cd "$(dirname "$0")/.." || exit 1

max=0
if [ "${1:-}" = -n ]; then
	max=$2
	shift 2
fi
dir=${1:-build/fuzz/corpus-fuzz-perf-data}
bin=build/san/rstat-analyze
die() {
	echo "fuzz-leak-check: $*" >&2
	exit 1
}
[ -x "$bin" ] || die "no $bin; run make tests"
[ -d "$dir" ] || die "no corpus $dir; run make fuzz-run"

tmp=$(mktemp -d /tmp/rs-leak.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

n=0 lib=0 ours=0
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	[ "$max" -gt 0 ] && [ "$n" -ge "$max" ] && break
	n=$((n + 1))
	ASAN_OPTIONS=detect_leaks=1 timeout 60 "$bin" report -i "$f" \
		--span cgroup:cgroup_rstat_locked,cgroup_rstat_unlock \
		>/dev/null 2>"$tmp/err"
	grep -q 'LeakSanitizer: detected memory leaks' "$tmp/err" || continue
	# The allocating frame of each leak report.
	awk '/(Direct|Indirect) leak of/ { look = 1; next }
	     look && /^ +#[0-9]+ / && $1 != "#0" && !/libc\.so/ {
		print; look = 0 }' "$tmp/err" >"$tmp/alloc"
	if grep -q ' src/' "$tmp/alloc"; then
		ours=$((ours + 1))
		echo "leak in our code: $f"
		grep ' src/' "$tmp/alloc" | sort -u | head -n 5
	else
		lib=$((lib + 1))
	fi
done
echo "$n inputs: $ours leak in our code, $lib leak inside libraries only"
[ "$ours" -eq 0 ]
