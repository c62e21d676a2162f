#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job on its built-in defaults: `rstat-analyze bench` with no
# argument runs the stat-read experiment (26 busy child cgroups, a reader
# of the parent's stat files) while recording, prints the timed results,
# then the attribution report of the recording. It runs in a scratch
# directory (the recording lands there) and needs root, for cgroups and
# system-wide recording; without root it says so and reports on the
# bundled recording of the same kind of workload instead.
set -eu
cd "$(dirname "$0")/.."
bin=$PWD/rstat-analyze
work=$(mktemp -d /tmp/rstat-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "$(id -u)" -eq 0 ]; then
	echo "== rstat-analyze bench"
	(cd "$work" && "$bin" bench)
	exit
fi
echo "demo: bench needs root (cgroups, system-wide recording); reporting on the bundled recording instead" >&2
gzip -dc tests/data/flush-mixed.kallsyms.gz >"$work/kallsyms"
echo "== rstat-analyze report -i tests/data/flush-mixed.data --hist"
"$bin" report -i tests/data/flush-mixed.data --kallsyms "$work/kallsyms" --hist
