#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# probe --lines equals `perf probe -L` byte for byte on the loop workload,
# --resolve places one point per marker line, the kernel path without
# debuginfo fails with one line, usage errors exit 2, and DWARF in a
# separate file named by .gnu_debuglink is found where gdb looks.
. tests/shell/lib.sh

LOOP=build/workloads/loop
[ -x "$LOOP" ] || skip "$LOOP not built (make tests)"

# The marker lines, relative to loop_body's line as perf counts them.
decl=$(grep -n '^[^ 	].* loop_body(' tests/workloads/loop.c | cut -d: -f1)
body=$(grep -n 'PROBE: body \*/' tests/workloads/loop.c | cut -d: -f1)
end=$(grep -n 'PROBE: body-end \*/' tests/workloads/loop.c | cut -d: -f1)
[ -n "$decl" ] && [ -n "$body" ] && [ -n "$end" ] ||
	fail "markers not found in tests/workloads/loop.c"

for f in loop_body loop_leaf main; do
	"$RS_BIN" probe --lines $f --binary "$LOOP" >"$TMP/ours" ||
		fail "probe --lines $f failed"
	grep -q "^ *$((body - decl))  .*PROBE: body \*/" "$TMP/ours" ||
		[ $f != loop_body ] || fail "marker line not numbered $((body - decl))"
done

# perf as the oracle, when it can read the binary.
if command -v perf >/dev/null 2>&1 &&
	perf probe -x "$LOOP" -L loop_leaf >/dev/null 2>&1; then
	for f in loop_body loop_leaf main; do
		"$RS_BIN" probe --lines $f --binary "$LOOP" >"$TMP/ours"
		perf probe -x "$LOOP" -L $f >"$TMP/perf" 2>/dev/null
		cmp -s "$TMP/ours" "$TMP/perf" ||
			fail "probe --lines $f differs from perf probe -L: $(diff "$TMP/ours" "$TMP/perf" | head -20)"
	done
	echo "ok: --lines equals perf probe -L"
else
	echo "note: perf probe -L unavailable, not compared"
fi

# One point per marker, on the marker's line.
for rl in $((body - decl)) $((end - decl)); do
	"$RS_BIN" probe --resolve "loop_body:$rl" --binary "$LOOP" \
		>"$TMP/res" || fail "probe --resolve loop_body:$rl failed"
	[ "$(wc -l <"$TMP/res")" -eq 1 ] ||
		fail "loop_body:$rl: $(wc -l <"$TMP/res") points, expected 1"
	grep -Eq "^p probe_loop:loop_body_L$rl func=loop_body vaddr=0x[0-9a-f]+ offset=0x[0-9a-f]+ source=.*loop.c:$((decl + rl))\$" "$TMP/res" ||
		fail "loop_body:$rl: unexpected $(cat "$TMP/res")"
done
"$RS_BIN" probe --resolve 'loop_leaf%return' -x "$LOOP" >"$TMP/res" ||
	fail "probe --resolve loop_leaf%return failed"
grep -q '^r probe_loop:loop_leaf__return func=loop_leaf ' "$TMP/res" ||
	fail "loop_leaf%return: $(cat "$TMP/res")"

expect_error 1 'no line 99 in loop_body' \
	"$RS_BIN" probe --resolve loop_body:99 --binary "$LOOP"
expect_error 1 'no function no_such_func' \
	"$RS_BIN" probe --lines no_such_func --binary "$LOOP"

# The kernel: without debuginfo, one line naming where it looked.
if v=$(ls /usr/lib/debug/boot/vmlinux-"$(uname -r)" \
	/usr/lib/debug/lib/modules/"$(uname -r)"/vmlinux \
	/lib/modules/"$(uname -r)"/build/vmlinux \
	/boot/vmlinux-"$(uname -r)" 2>/dev/null | head -1) && [ -n "$v" ]; then
	echo "note: $v exists; not testing the missing-debuginfo error"
else
	expect_error 1 "no kernel debuginfo .*/usr/lib/debug/boot/vmlinux-$(uname -r).*linux-image-$(uname -r)-dbg.*doctor" \
		"$RS_BIN" probe --lines css_rstat_flush
fi

# Usage errors.
expect_error 2 'give one of --lines' "$RS_BIN" probe
expect_error 2 'give one of --lines' "$RS_BIN" probe --lines a --resolve b
expect_error 2 'do not go together' \
	"$RS_BIN" probe --lines f --binary a --vmlinux b
expect_error 2 "unknown option '--bogus'" "$RS_BIN" probe --bogus
expect_error 2 "needs a value" "$RS_BIN" probe --lines
expect_error 2 "unexpected argument" "$RS_BIN" probe --lines f extra
expect_error 2 "use FUNC, FUNC%return" \
	"$RS_BIN" probe --resolve 'loop_body%entry' --binary "$LOOP"
"$RS_BIN" probe --help | grep -q '^usage: rstat-analyze probe' ||
	fail "probe --help"

# DWARF shipped apart, as distributions do: a stripped copy names its
# debug file with .gnu_debuglink, found beside it, in its .debug
# directory, and nowhere else; the lines are the same as from the whole.
if command -v objcopy >/dev/null; then
	"$RS_BIN" probe --lines loop_body --binary "$LOOP" >"$TMP/whole" ||
		fail "probe --lines loop_body"
	for place in beside dotdebug; do
		d=$TMP/$place
		mkdir -p "$d/.debug"
		objcopy --only-keep-debug "$LOOP" "$TMP/loop.debug" ||
			fail "objcopy --only-keep-debug"
		objcopy --strip-debug --add-gnu-debuglink="$TMP/loop.debug" \
			"$LOOP" "$d/loop" || fail "objcopy --add-gnu-debuglink"
		if [ $place = beside ]; then
			mv "$TMP/loop.debug" "$d/"
		else
			mv "$TMP/loop.debug" "$d/.debug/"
		fi
		"$RS_BIN" probe --lines loop_body --binary "$d/loop" \
			>"$TMP/split" 2>"$TMP/split.err" ||
			fail "debug file $place: $(cat "$TMP/split.err")"
		cmp -s "$TMP/whole" "$TMP/split" ||
			fail "debug file $place: other lines than the whole binary's"
	done
	rm -f "$TMP/dotdebug/.debug/loop.debug"
	"$RS_BIN" probe --lines loop_body --binary "$TMP/dotdebug/loop" \
		>/dev/null 2>&1 && fail "a stripped binary without its debug file gave lines"
else
	skip_part "objcopy (binutils) is not installed: separate debug files not tried"
fi
exit 0
