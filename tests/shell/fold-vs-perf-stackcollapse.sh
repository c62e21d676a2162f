#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report --folded on the perf.data path against stackcollapse-perf.pl's
# semantics, on every stack: `perf script` text (written by perf, on the
# recording machine for the bundled recordings, by Debian's perf here for a
# live one) folded by tests/shell/stackcollapse-ref.py (its rules, written
# from its documentation: FlameGraph is not packaged) must equal ours line
# for line and count for count. Nothing is filtered out. The one known
# difference is mapped, and counted: frames in binaries of the recording
# machine that are not here (/tmp/fx/..., and its vdso, of another build
# id) were named by perf there and are "[unknown]" to any reader here, so
# the reference reads them as "[unknown]" too (stackcollapse-perf.pl then
# prints the module, "[spin]", as we do).
#  - --stackcollapse: the first event seen, tracepoint hits included, as
#    `perf script | stackcollapse-perf.pl` folds a mixed recording;
#  - the default: the sampling event alone, against the reference fed only
#    that event's samples;
#  - --pid and --kernel, on the live recording.
. tests/shell/lib.sh
need_perf
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
ref=tests/shell/stackcollapse-ref.py
ks=$(fixture_kallsyms)

# same NAME EXPECT OURS: equal, every stack; says how many.
same() {
	local n
	LC_ALL=C sort "$2" >"$TMP/a" && LC_ALL=C sort "$3" >"$TMP/b"
	diff -u "$TMP/a" "$TMP/b" | head -n 20 | grep . &&
		fail "$1: our fold differs from stackcollapse-perf.pl's"
	n=$(wc -l <"$TMP/a")
	[ "$n" -gt 0 ] || fail "$1: nothing folded"
	echo "ok $1: all $n stacks ($(awk '{ s += $NF } END { print s }' \
		"$TMP/a") samples) agree"
}

# The event of a sample's header line, for the awk filters below.
only_event() {	# only_event EVENT < script
	awk -v ev="$1" 'BEGIN { RS = ""; ORS = "\n\n" }
		{ split($0, l, "\n") } l[1] ~ (" " ev ": *$")'
}

# check NAME DATA SCRIPT-CMD [REF-OPTION...]
check() {
	local name=$1 data=$2 script=$3
	shift 3
	eval "$script" >"$TMP/script" 2>"$TMP/perf.err" ||
		fail "$name: $script: $(head -n 3 "$TMP/perf.err")"
	python3 $ref --samples "$@" <"$TMP/script" >"$TMP/expect" \
		2>"$TMP/mapped" ||
		fail "$name: the reference failed"
	"$RS_BIN" report --folded --stackcollapse --samples -i "$data" \
		--kallsyms "$kallsyms" >"$TMP/ours" 2>"$TMP/err" ||
		fail "$name: report failed: $(cat "$TMP/err")"
	same "$name --stackcollapse" "$TMP/expect" "$TMP/ours"
	only_event cpu-clock <"$TMP/script" | python3 $ref --samples "$@" \
		>"$TMP/expect" 2>/dev/null
	"$RS_BIN" report --folded --samples -i "$data" --kallsyms "$kallsyms" \
		>"$TMP/ours" 2>"$TMP/err" ||
		fail "$name: report failed: $(cat "$TMP/err")"
	same "$name (cpu-clock)" "$TMP/expect" "$TMP/ours"
	[ -s "$TMP/mapped" ] && echo "   ($name: $(cat "$TMP/mapped"), mapped)"
	return 0
}

kallsyms=$ks
check flush-mixed.data "$RS_FIXTURES/flush-mixed.data" \
	"gzip -dc '$RS_FIXTURES/flush-mixed.script.gz'" \
	--unresolved /tmp/fx/ --unresolved '[vdso]'
check pipe-mode.data "$RS_FIXTURES/pipe-mode.data" \
	"cat '$RS_FIXTURES/pipe-mode.script'" \
	--unresolved /tmp/fx/ --unresolved '[vdso]'

# A recording made now: Debian's perf writes and reads it.
[ "$(id -u)" -eq 0 ] || { skip_part "not root: no live recording"; exit 0; }
perf record -q -a -g -e cpu-clock -F 1999 -o "$TMP/live.data" -- \
	build/workloads/spin 500 >/dev/null 2>&1 ||
	fail "perf record -a -g -e cpu-clock failed"
kallsyms=/proc/kallsyms
check live "$TMP/live.data" \
	"perf script -i '$TMP/live.data' --kallsyms /proc/kallsyms"
# --pid and --kernel as stackcollapse-perf.pl's --pid and --kernel.
perf script -i "$TMP/live.data" --kallsyms /proc/kallsyms -F +pid \
	2>/dev/null | python3 $ref --samples --pid --kernel >"$TMP/expect"
"$RS_BIN" report --folded --stackcollapse --samples --pid --kernel \
	-i "$TMP/live.data" --kallsyms /proc/kallsyms >"$TMP/ours" \
	2>"$TMP/err" || fail "live --pid --kernel: $(cat "$TMP/err")"
same "live --pid --kernel" "$TMP/expect" "$TMP/ours"
exit 0
