#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Frames in BPF programs (JITed code that /proc/kallsyms names only while
# it is loaded, and that perf learns from PERF_RECORD_KSYMBOL) are named by
# report as perf names them: `perf script` folded by the project's
# stackcollapse-perf.pl reference (tests/shell/stackcollapse-ref.py) must
# equal report --folded, stack for stack, so a "[unknown]" where perf has
# "bpf_prog_<tag>_<name>" fails.
#  1. hand-made streams (tests/fuzz/corpus/fuzz-perf-pipe/ksymbols*.data):
#     programs registered, cut by an overlapping one, unregistered; one
#     with a name that is not terminated is refused;
#  2. live, as root: `perf record -a -g` and `rstat-analyze record -a`
#     of a command that loads BPF programs of the test's own once the
#     recording runs (so that the kernel reports them): an inner
#     `rstat-analyze record -- READER`, whose read breakdown runs BPF on
#     every system call of the reader, 2 s of cpu.stat reads in
#     a cgroup of the test's own; and that inner recording itself, whose
#     KSYMBOL records for the programs it loaded before recording are
#     synthesized, as perf record does. Where no sample lands in a BPF
#     program the case is skipped, with its reason.
. tests/shell/lib.sh
need_perf
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
ref=tests/shell/stackcollapse-ref.py
BPF_FRAME='bpf_prog_[0-9a-f]{16}'

cg= holder=
cleanup() {
	# The holder's programs stay loaded until it ends: end it first.
	if [ -n "$holder" ]; then
		kill -TERM "$holder" 2>/dev/null
		wait "$holder" 2>/dev/null
	fi
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# check NAME EXPECT OURS: the same stacks; says how many name BPF code.
check() {
	LC_ALL=C sort "$2" >"$TMP/a" && LC_ALL=C sort "$3" >"$TMP/b"
	if ! cmp -s "$TMP/a" "$TMP/b"; then
		diff -u "$TMP/a" "$TMP/b" | head -n 20
		fail "$1: report --folded differs from perf script | stackcollapse"
	fi
	[ -s "$TMP/a" ] || fail "$1: nothing folded"
	nbpf=$(grep -cE "$BPF_FRAME" "$TMP/a")
	echo "ok $1: $(wc -l <"$TMP/a") stacks agree, $nbpf through BPF code"
}

# fold NAME DATA: perf's reading against ours.
fold() {
	local name=$1 data=$2
	perf script -i "$data" --kallsyms /proc/kallsyms >"$TMP/script" \
		2>"$TMP/perf.err" ||
		fail "$name: perf script failed: $(head -n 3 "$TMP/perf.err")"
	# The sampling event alone (each of its samples has a callchain and
	# ends in a blank line; a tracepoint's without one ends in none).
	awk '/^[^ \t]/ { keep = / cpu-clock: *$/ } keep' "$TMP/script" |
		python3 "$ref" --samples >"$TMP/expect" ||
		fail "$name: the reference failed"
	"$RS_BIN" report --folded --samples -i "$data" \
		--kallsyms /proc/kallsyms >"$TMP/ours" 2>"$TMP/err" ||
		fail "$name: report failed: $(cat "$TMP/err")"
	check "$name" "$TMP/expect" "$TMP/ours"
}

# 1. Hand-made KSYMBOL records: perf 6.1 reads them as we do.
seeds=tests/fuzz/corpus/fuzz-perf-pipe
fold "ksymbols (hand-made)" "$seeds/ksymbols.data"
[ "$nbpf" -eq 3 ] ||
	fail "ksymbols (hand-made): $nbpf stacks through BPF code, want 3"
grep -q 'bpf_prog_88da8030ca69098e_rs_x;bpf_prog_2222222222222222_lo ' \
	"$TMP/ours" ||
	fail "ksymbols (hand-made): the overlapping program is not named"
# An unterminated name is refused, as an unterminated mmap file name is.
expect_error 1 "offset [0-9]+: ksymbol name is not terminated" \
	"$RS_BIN" report --folded -i "$seeds/ksymbols-hostile.data"

# 2. Live recordings.
[ "$(id -u)" -eq 0 ] ||
	{ skip_part "not root: no BPF program loaded"; exit 0; }
v2=/sys/fs/cgroup/unified
[ -f "$v2/cgroup.controllers" ] || v2=/sys/fs/cgroup
# A cgroup of our own: the root's cpu.stat is read without a flush.
cg=$v2/rs-test-ksym-$$
mkdir "$cg" 2>/dev/null && [ -r "$cg/cpu.stat" ] ||
	{ cg=; skip_part "cannot create a cgroup under $v2"; exit 0; }
printf '%s\n' 'import os, sys, time' \
	'fd = os.open(sys.argv[1], os.O_RDONLY)' \
	'end = time.time() + 2' \
	'while time.time() < end:' \
	'    os.pread(fd, 4096, 0)' >"$TMP/reader.py"
inner=("$RS_BIN" record -q --breakdown -e cpu-clock -o "$TMP/inner.data" --spans perf --
       python3 "$TMP/reader.py" "$cg/cpu.stat")

# live NAME DATA RECORD-COMMAND...
live() {
	local name=$1 data=$2
	shift 2
	"$@" -- "${inner[@]}" >"$TMP/rec.out" 2>&1 ||
		fail "$name: recording failed: $(tail -n 3 "$TMP/rec.out")"
	fold "$name" "$data"
	[ "$nbpf" -gt 0 ] ||
		skip_part "$name: no sample landed in a BPF program this time"
	nlive=$((nlive + nbpf))
}

nlive=0
# -B: perf 6.1 aborts collecting build ids of BPF programs' dsos
live "perf record -a -g" "$TMP/perf.data" perf record -B -q -a -g \
	-e cpu-clock -F 4999 -o "$TMP/perf.data"
live "record -a" "$TMP/rs.data" "$RS_BIN" record -q -a -e cpu-clock \
	-F 4999 --spans perf -o "$TMP/rs.data"
fold "record -- READER (its own BPF)" "$TMP/inner.data"
[ "$nbpf" -gt 0 ] ||
	skip_part "record -- READER: no sample landed in its own BPF programs"
nlive=$((nlive + nbpf))
# the recording carries the programs' KSYMBOL records, as perf's does
perf script -D -i "$TMP/rs.data" 2>/dev/null |
	grep -q 'PERF_RECORD_KSYMBOL.*bpf_prog_' ||
	fail "record -a: no KSYMBOL record of a BPF program in the recording"
# Programs loaded before record starts get KSYMBOL records that record
# writes itself (the kernel sends them only at a load): a recording
# holder keeps its programs loaded while another recording is made; each
# of the holder's breakdown programs in kallsyms before the second one
# started must have its record, by name (the tag in it is the program's).
# The holder's own programs only (the tags of the programs and links its
# file descriptors hold): another run's may come and go meanwhile.
"$RS_BIN" record -q --breakdown -e cpu-clock -o "$TMP/holder.data" -- \
	sleep 30 >/dev/null 2>&1 &
holder=$!
bd_progs() {
	local tags
	tags=$(sed -n 's/^prog_tag:[[:space:]]*\([0-9a-f]\{16\}\)$/\1/p' \
		/proc/"$holder"/fdinfo/* 2>/dev/null | sort -u | paste -sd '|')
	[ -n "$tags" ] || return 0
	sed -n 's/^[0-9a-f]* t \(bpf_prog_[0-9a-f]*_bd_[a-z0-9_]*\)[[:space:]]*\[bpf\]$/\1/p' \
		/proc/kallsyms | grep -E "^bpf_prog_($tags)_" | sort -u
}
for _ in $(seq 100); do
	[ -n "$(bd_progs)" ] && break
	sleep 0.1
done
bd_progs >"$TMP/before-bpf"
"$RS_BIN" record -q -e cpu-clock -o "$TMP/later.data" -- true \
	>"$TMP/rec.out" 2>&1 || fail "record -- true: $(tail -n 3 "$TMP/rec.out")"
kill -TERM $holder
wait $holder
holder=
[ -s "$TMP/before-bpf" ] ||
	fail "no breakdown program in kallsyms while record --breakdown ran"
perf script -D -i "$TMP/later.data" 2>/dev/null |
	sed -n 's/.*PERF_RECORD_KSYMBOL .* name \(bpf_prog_[0-9a-f]*_bd_[a-z0-9_]*\)$/\1/p' |
	sort -u >"$TMP/synth"
missing=$(comm -23 "$TMP/before-bpf" "$TMP/synth" | head -n 3)
[ -z "$missing" ] ||
	fail "record wrote no KSYMBOL record for programs loaded before it: $missing (of $(wc -l <"$TMP/before-bpf"))"
echo "ok $(wc -l <"$TMP/before-bpf") programs loaded before record: each has its KSYMBOL record"

[ "$nlive" -gt 0 ] ||
	skip "no sample of a live recording landed in a BPF program"
exit 0
