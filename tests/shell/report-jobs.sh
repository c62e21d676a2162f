#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report -j 2 (a second thread reads and decodes the records) and -j 8
# (taken as 3: a third folds or attributes what the first named) print
# exactly what -j 1 prints, byte for byte, stdout and stderr and exit
# status, on every bundled recording (file and pipe layouts, compressed,
# from a file and from standard input) and in every output mode. That -j 2
# really runs a second thread is checked in unit/test-perf-data
# (test_threads_really_two); that the output is right, against perf, by
# the report-folded-* and report-json-* tests, which run the default
# (-j 2 on two CPUs).
. tests/shell/lib.sh

ks=$(fixture_kallsyms)

# same NAME ARGS...: report ARGS with -j 1, -j 2 and -j 8 agree
same() {
	local name=$1 j rc1 rc
	shift
	"$RS_BIN" report -j 1 "$@" >"$TMP/out1" 2>"$TMP/err1" </dev/null
	rc1=$?
	[ "$rc1" -ne 0 ] || [ -s "$TMP/out1" ] ||
		fail "$name: -j 1 printed nothing: $(cat "$TMP/err1")"
	for j in 2 8; do
		"$RS_BIN" report -j $j "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
		rc=$?
		[ "$rc" -eq "$rc1" ] ||
			fail "$name: -j $j exits $rc, -j 1 exits $rc1"
		if ! cmp -s "$TMP/out1" "$TMP/out"; then
			diff "$TMP/out1" "$TMP/out" | head -n 20
			fail "$name: -j $j output differs from -j 1"
		fi
		cmp -s "$TMP/err1" "$TMP/err" ||
			fail "$name: -j $j says '$(cat "$TMP/err")', -j 1 '$(cat "$TMP/err1")'"
	done
	echo "ok $name: $(wc -l <"$TMP/out1") lines"
}

for data in flush-mixed.data pipe-mode.data compressed.data \
	    pipe-compressed.data; do
	f=$RS_FIXTURES/$data
	k=
	[ "$data" = flush-mixed.data ] && k="--kallsyms $ks"
	for opts in "--folded" "--folded --stackcollapse --tid --all --addrs" \
		    "--folded --pid --samples --kernel" "" "--json" \
		    "--csv --hist --unit ns"; do
		# shellcheck disable=SC2086
		same "$data $opts" -i "$f" $k $opts
	done
done

f=$RS_FIXTURES/flush-mixed.data
same "flush-mixed.data --span" -i "$f" --kallsyms "$ks" --hist \
	--span cgroup:cgroup_rstat_locked,cgroup:cgroup_rstat_unlock
same "flush-mixed.data --event-filter" -i "$f" --kallsyms "$ks" --folded \
	--stackcollapse --event-filter memcg:memcg_flush_stats

# Standard input: the pipe layout read as a stream.
for j in 1 2 8; do
	"$RS_BIN" report -j $j -i - --folded <"$RS_FIXTURES/pipe-mode.data" \
		>"$TMP/stdin$j" 2>&1 || fail "-j $j -i -: $(cat "$TMP/stdin$j")"
done
[ -s "$TMP/stdin1" ] || fail "-i - printed nothing"
for j in 2 8; do
	cmp -s "$TMP/stdin1" "$TMP/stdin$j" ||
		fail "-i -: -j $j differs from -j 1"
done

# A record of size 0 half-way through the data: both fail the same way,
# at the same offset.
python3 - "$f" "$TMP/bad.data" <<'PY' || fail "cannot make the bad recording"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos = struct.unpack_from("<Q", b, 40)[0]
while pos < len(b) // 2:
    pos += struct.unpack_from("<H", b, pos + 6)[0]
b[pos:pos + 8] = bytes(8)
open(sys.argv[2], "wb").write(b)
PY
for opts in "--folded" ""; do
	# shellcheck disable=SC2086
	same "bad record $opts" -i "$TMP/bad.data" --kallsyms "$ks" $opts
	grep -q 'impossible record size 0' "$TMP/err1" ||
		fail "bad record: not said: $(cat "$TMP/err1")"
done

# A recording made now, system-wide: the machine idle, then a process
# per read, then idle again. The stacks' side and the attribution go to
# the reading thread (-j 2) or a third (-j 8) while most callchains are
# new and come back when they are known (util.h, struct offload): the
# same bytes whatever the turns.
if type -P perf >/dev/null &&
   perf record -q -a -g -e cpu-clock -F 999 -o "$TMP/probe.data" -- true \
	>/dev/null 2>&1; then
	perf record -q -a -g -e cpu-clock -F 10000 -o "$TMP/turns.data" -- \
		sh -c 'sleep 0.4; i=0
		       while [ $i -lt 300 ]; do
				cat /proc/self/stat >/dev/null; i=$((i + 1))
		       done; sleep 0.4' >/dev/null 2>&1 ||
		fail "perf record of the fork loop failed"
	# This kernel's symbols as they were: a module or BPF program
	# loaded between the runs must not tell them apart.
	cp /proc/kallsyms "$TMP/kallsyms" || fail "cannot copy /proc/kallsyms"
	for opts in "--folded" "" "--json"; do
		# shellcheck disable=SC2086
		same "live fork loop $opts" -i "$TMP/turns.data" \
			--kallsyms "$TMP/kallsyms" $opts
	done
else
	skip_part "perf cannot record cpu-clock -a here: no live recording"
fi

# -j takes a count of threads, 1 or more.
for bad in 0 -1 abc 2x ""; do
	expect_error 2 "-j '$bad'" "$RS_BIN" report -i "$f" -j "$bad"
done
