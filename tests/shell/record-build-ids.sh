#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record writes the build id of every user-space file its samples hit
# (HEADER_BUILD_ID, as perf record does at its end), and its MMAP2 records
# carry them where the kernel gives them (attr.build_id, 5.12+). Checked
# with perf itself: `perf buildid-list -i` lists the workload's and libc's
# build ids, equal to what readelf reads from the files.
# Then the workload is rebuilt with other code (its symbols move): report
# says which file no longer has the recorded build id, and names none of
# its frames from the new file.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (perf_event_open of a command with tracepoints)"
need_perf
command -v gcc >/dev/null || skip "gcc is not installed"
command -v readelf >/dev/null || skip "readelf is not installed (binutils)"
command -v nm >/dev/null || skip "nm is not installed (binutils)"

w=$TMP/w
mkdir "$w" && cp tests/workloads/spin.c "$w/spin.c" || fail "copy the workload"
cc_spin() {
	gcc -O0 -fno-omit-frame-pointer -Wl,--build-id=sha1 -o "$w/spin" \
		"$w/spin.c" || fail "cannot build the workload"
}
bid() {	# the GNU build id of an ELF file, as readelf prints it
	readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}
cc_spin
old=$(bid "$w/spin")
[ -n "$old" ] || fail "the workload has no build id"

"$RS_BIN" record -o "$TMP/r.data" -- "$w/spin" 400 >/dev/null 2>"$TMP/err" ||
	fail "record: $(cat "$TMP/err")"

# The outside oracle: perf's own reading of the header.
perf buildid-list -i "$TMP/r.data" >"$TMP/bids" 2>"$TMP/perr" ||
	fail "perf buildid-list: $(cat "$TMP/perr")"
grep -qx "$old $w/spin" "$TMP/bids" ||
	fail "perf buildid-list does not list $w/spin as $old: $(cat "$TMP/bids")"
libc=$(awk '/\/libc\.so/ { print $2; exit }' "$TMP/bids")
[ -n "$libc" ] || fail "no build id of libc (hit by __libc_start_call_main): $(cat "$TMP/bids")"
grep -qx "$(bid "$libc") $libc" "$TMP/bids" ||
	fail "libc's build id is not $(bid "$libc")"
grep -q ' \[kernel.kallsyms\]$' "$TMP/bids" || fail "no kernel build id"
# Only files that samples hit: not every library the recorder mapped.
grep -q 'libstdc++\|libasan' "$TMP/bids" &&
	fail "build ids of files no sample hit: $(cat "$TMP/bids")"
echo "ok perf buildid-list: $(wc -l <"$TMP/bids") build ids, $w/spin $old"

# 5.12+: the MMAP2 of the workload carries its build id.
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
if [ "$major" -gt 5 ] || { [ "$major" -eq 5 ] && [ "$minor" -ge 12 ]; }; then
	perf script -i "$TMP/r.data" --show-mmap-events 2>/dev/null |
		grep 'PERF_RECORD_MMAP2' | grep -F "<$old>" |
		grep -q "$w/spin" || fail "the workload's MMAP2 has no build id"
	echo "ok MMAP2 carries $old"
else
	skip_part "kernel before 5.12: no build ids in MMAP2"
fi

"$RS_BIN" report -i "$TMP/r.data" --folded >"$TMP/before" 2>/dev/null ||
	fail "report before the rebuild"
grep -q ';spin_outer;spin_inner' "$TMP/before" ||
	fail "the workload's frames are not named before the rebuild"

# Rebuilt with two more functions before spin_inner: its code moves.
sed -i 's/^__attribute__((noinline)) void spin_inner(void)/static volatile int pad[64];\n__attribute__((noinline)) void pad_fn(void) { int i; for (i = 0; i < 64; i++) pad[i] += i * 3; }\n__attribute__((noinline)) void moved_here(void) { pad_fn(); pad_fn(); pad_fn(); }\n&/' "$w/spin.c"
cc_spin
new=$(bid "$w/spin")
[ "$new" != "$old" ] || fail "the rebuild kept the build id"
nm "$w/spin" | grep -q ' moved_here$' || fail "the rebuild has no moved_here"

for how in "--folded" ""; do
	# shellcheck disable=SC2086
	"$RS_BIN" report -i "$TMP/r.data" $how >"$TMP/after" 2>"$TMP/err" ||
		fail "report $how after the rebuild: $(cat "$TMP/err")"
	grep -qF "note: $w/spin: its build id is not the one recorded" \
		"$TMP/err" || fail "report $how: no note naming $w/spin: $(cat "$TMP/err")"
done
"$RS_BIN" report -i "$TMP/r.data" --folded >"$TMP/after" 2>/dev/null
# No frame of the workload named from the new file (nor the old names).
for s in main spin_outer spin_inner now_ms pad_fn moved_here; do
	grep -q "[;]$s[; ]" "$TMP/after" &&
		fail "frame named $s from the rebuilt file: $(grep "[;]$s[; ]" "$TMP/after" | head -n 2)"
done
grep -q ';\[spin\]' "$TMP/after" ||
	fail "the workload's frames are not shown as [spin]: $(head -n 3 "$TMP/after")"
echo "ok rebuilt $w/spin ($new): noted, its frames unnamed"
