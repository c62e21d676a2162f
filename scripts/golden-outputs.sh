#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# golden-outputs.sh OUTDIR [LIVEDIR]
#
# Runs every reading command (report, plot, compare, diff-folded) in all
# its output forms on the shared fixtures, the tests' data and, when
# LIVEDIR is given, on recordings and bench results made on this machine,
# and writes each output (stdout, stderr and exit status) to OUTDIR.
# Refactors must leave these byte-identical: run it before and after and
# `diff -r` the two directories. Lines naming the tool's version are
# dropped. make-live creates LIVEDIR once (root): a record of cpu.stat
# reads and a recorded bench, so before/after read the same files.
set -u
BIN=${RS_BIN:-$PWD/rstat-analyze}
out=$1
live=${2:-}
data=tests/data
mkdir -p "$out"

if [ "$out" = make-live ]; then
	dir=${2:?make-live DIR}
	mkdir -p "$dir"
	"$BIN" record -q -o "$dir/rec.data" -- sh -c \
		'for i in $(seq 200); do cat /sys/fs/cgroup/unified/cpu.stat \
		/proc/self/stat >/dev/null; done' || exit 1
	"$BIN" bench stat-read --children 2 --reads 200 --repeat 2 \
		--record -o "$dir/bench" >/dev/null || exit 1
	"$BIN" report -i "$dir/bench/rstat.data" --json > "$dir/prof.json"
	exit 0
fi

n=0
run() {
	local name=$1
	shift
	n=$((n + 1))
	"$@" >"$out/$name.out" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
	sed -i -E '/"(tool_)?version"|rstat-analyze [0-9]+\.[0-9]+/d' \
		"$out/$name.out" "$out/$name.err"
}

tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
ks=$tmpd/kallsyms
zcat $data/flush-mixed.kallsyms.gz >"$ks"
script=$tmpd/script.txt
zcat $data/flush-mixed.script.gz >"$script"

recs="flush-mixed.data pipe-mode.data compressed.data pipe-compressed.data"
for r in $recs; do
	in=$data/$r
	k=()
	[ $r = flush-mixed.data ] && k=(--kallsyms "$ks")
	b=${r%.data}
	run "$b.text" "$BIN" report -i "$in" "${k[@]}" -j 1
	run "$b.text-j2" "$BIN" report -i "$in" "${k[@]}" -j 2
	run "$b.hist-ns" "$BIN" report -i "$in" "${k[@]}" --hist --unit ns
	run "$b.json" "$BIN" report -i "$in" "${k[@]}" --json
	run "$b.csv" "$BIN" report -i "$in" "${k[@]}" --csv
	run "$b.span" "$BIN" report -i "$in" "${k[@]}" \
		--span cgroup:cgroup_rstat_locked,cgroup:cgroup_rstat_unlock
	run "$b.folded" "$BIN" report -i "$in" "${k[@]}" --folded
	run "$b.folded-all" "$BIN" report -i "$in" "${k[@]}" --folded \
		--all --tid --addrs
	run "$b.folded-pid-samples" "$BIN" report -i "$in" "${k[@]}" \
		--folded --pid --samples --kernel
	run "$b.stackcollapse" "$BIN" report -i "$in" "${k[@]}" \
		--folded --stackcollapse
	run "$b.stdin" sh -c "\"$BIN\" report -i - ${k[*]} --folded < $in"
	run "$b.timeline" "$BIN" plot "$in" -o "$out/$b.tl.svg" \
		--kind timeline
	run "$b.diff-self" "$BIN" diff-folded "$in" "$in" ${k[@]} \
		--normalize --strip-hex
done
run script.folded "$BIN" report -i "$script" --folded
run script.text "$BIN" report -i "$script"
run script.stdin sh -c "\"$BIN\" report -i - --folded < $data/pipe-mode.script"
run rules-dump "$BIN" report --rules-dump
run bad-input "$BIN" report -i $data/README.md

"$BIN" report -i $data/flush-mixed.data --kallsyms "$ks" --folded \
	>"$out/a.folded" 2>/dev/null
"$BIN" report -i $data/pipe-mode.data --folded >"$out/b.folded" 2>/dev/null
run diff-ab "$BIN" diff-folded "$out/a.folded" "$out/b.folded"
run diff-ab-n "$BIN" diff-folded "$out/a.folded" "$out/b.folded" -n -s

c=$data/compare
for f in text markdown csv json; do
	run compare-bench-$f "$BIN" compare $c/base.json $c/base2.json -- \
		$c/new.json -- $c/newer.json --format $f
	run compare-prof-$f "$BIN" compare $c/prof-a.json -- $c/prof-b.json \
		--format $f
	run compare-single-$f "$BIN" compare $c/single-a.json -- \
		$c/single-b.json --format $f --labels A,B
done
run compare-other "$BIN" compare $c/base.json -- $c/other.json
# The default (short) text and markdown above; every figure with --details.
for f in text markdown; do
	run compare-bench-details-$f "$BIN" compare $c/base.json $c/base2.json \
		-- $c/new.json -- $c/newer.json --format $f --details
	run compare-prof-details-$f "$BIN" compare $c/prof-a.json -- \
		$c/prof-b.json --format $f --details
	run compare-acc-$f "$BIN" compare $c/acc-a.json -- $c/acc-b.json \
		--format $f
	run compare-acc-details-$f "$BIN" compare $c/acc-a.json -- \
		$c/acc-b.json --format $f --details
done

p=$data/plot
for k in hist cdf bars; do
	run plot-$k "$BIN" plot $p/before.json $p/after.json \
		-o "$out/plot-$k.svg" --kind $k --title T --size 640x400
	run plot-$k-n "$BIN" plot $p/before.json $p/after.json \
		-o "$out/plot-$k-n.png" --kind $k --normalize
	run plot-prof-$k "$BIN" plot $c/prof-a.json $c/prof-b.json \
		-o "$out/plot-prof-$k.svg" --kind $k
done

if [ -n "$live" ]; then
	run live.text "$BIN" report -i "$live/rec.data"
	run live.json "$BIN" report -i "$live/rec.data" --json
	run live.csv "$BIN" report -i "$live/rec.data" --csv --hist
	run live.folded "$BIN" report -i "$live/rec.data" --folded --all
	run live.stackcollapse "$BIN" report -i "$live/rec.data" \
		--folded --stackcollapse
	run live.bench.text "$BIN" report -i "$live/bench/rstat.data"
	run live.bench.json "$BIN" report -i "$live/bench/rstat.data" --json
	run live.timeline "$BIN" plot "$live/rec.data" \
		-o "$out/live-tl.svg" --kind timeline
	run live.diff "$BIN" diff-folded "$live/rec.data" \
		"$live/bench/rstat.data"
	for k in hist cdf bars; do
		run live.plot-$k "$BIN" plot "$live/bench" "$live/prof.json" \
			-o "$out/live-$k.svg" --kind $k
		run live.plot-bench-$k "$BIN" plot "$live/bench" \
			-o "$out/live-b-$k.svg" --kind $k
	done
	for f in text json csv markdown; do
		run live.compare-$f "$BIN" compare "$live/bench" -- \
			"$live/bench/results.json" --format $f
		run live.compare-prof-$f "$BIN" compare "$live/prof.json" -- \
			$c/prof-b.json --format $f
	done
fi
# Images embed nothing we control byte for byte (gnuplot's own
# output); the .gp and .dat beside them are ours.
rm -f "$out"/*.svg "$out"/*.png
# Outputs name their own paths (the .gp names its .dat): make them
# independent of OUTDIR so that two runs diff clean.
sed -i "s#$out#OUTDIR#g; s#$tmpd#TMPDIR#g" "$out"/*
echo "$n outputs in $out"
