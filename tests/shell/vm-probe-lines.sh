#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record --kernel K --probe SRC:LINE on Debian's 6.1 and 6.12 cloud
# kernels, the line resolved on this host from the kernel's -dbg vmlinux
# (opt-in: scripts/fetch-kernels.sh --dbg puts it beside the vmlinuz).
# The line is found by tools nobody here wrote: objdump finds the call of
# root_cgroup_cputime() in cgroup_base_stat_cputime_show() (the branch a
# read of the root's cpu.stat takes, and only that), addr2line its source
# line (named, as perf names SRC:ALN, after its function). CMD reads the root's cpu.stat N times, each in a forked subshell:
# perf script and report must count exactly N hits. A vmlinux of the
# other kernel must be refused (its build id is not the guest's), with no
# recording written.
. tests/shell/lib.sh
need_vm_kernels
need_perf
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"
for k in "$K61" "$K612"; do
	[ -s "$(dirname "$k")/vmlinux" ] ||
		skip "no -dbg vmlinux beside $k: run scripts/fetch-kernels.sh --dbg (about 280 MB a kernel)"
done
command -v objdump >/dev/null && command -v addr2line >/dev/null ||
	skip "objdump and addr2line (binutils) are not installed"

before=$(vm_workdirs)
n=13
for k in "$K61" "$K612"; do
	v=$(dirname "$k")/vmlinux
	call=$(objdump -d --no-show-raw-insn \
		--disassemble=cgroup_base_stat_cputime_show "$v" |
		awk '/call.*<root_cgroup_cputime>/ { sub(":", "", $1); print $1; exit }')
	[ -n "$call" ] || fail "$v: no call of root_cgroup_cputime in cgroup_base_stat_cputime_show"
	src=$(addr2line -e "$v" "0x$call")
	line=${src##*:}
	spec=cgroup/rstat.c:$line
	# The same line as FUNC:RLN, counted from the declaration's line.
	decl=$("$RS_BIN" probe --vmlinux "$v" -R cgroup_base_stat_cputime_show:0 |
		sed -n 's/.*source=.*:\([0-9]*\)$/\1/p')
	[ -n "$decl" ] || fail "$v: no declaration line of cgroup_base_stat_cputime_show"
	rln=$((line - decl))
	out=$TMP/line.data
	rm -f "$out"
	"$RS_BIN" record -q --kernel "$k" --accel tcg -o "$out" \
		--probe "$spec" --probe "cgroup_base_stat_cputime_show:$rln" \
		-- sh -c "$(forked_stat_reads $n)" >"$TMP/out" 2>"$TMP/err" ||
		fail "record --kernel $k --probe $spec: $(tail -n 20 "$TMP/err")"
	no_fork_failed "$k"
	perf script -i "$out" -F event 2>/dev/null | sort | uniq -c \
		>"$TMP/events"
	for ev in cgroup_base_stat_cputime_show \
		  "cgroup_base_stat_cputime_show_L$rln"; do
		hits=$(awk -v e="probe:$ev:" '$2 == e { print $1 }' \
			"$TMP/events")
		[ "${hits:-0}" -eq $n ] ||
			fail "$k: $spec ($src), $ev: perf script counts ${hits:-0} hits, expected $n: $(cat "$TMP/events")"
	done
	"$RS_BIN" report -i "$out" --json >"$TMP/r.json" 2>"$TMP/err" ||
		fail "report: $(cat "$TMP/err")"
	python3 - "$TMP/r.json" $n "$rln" <<'PY' || fail "$k: report's counts"
import json, sys
d = json.load(open(sys.argv[1]))
c = {e["name"]: e["samples"] for e in d["events"]}
n = int(sys.argv[2])
f = "probe:cgroup_base_stat_cputime_show"
assert c.get(f) == n and c.get(f + "_L" + sys.argv[3]) == n, c
print("ok", d["header"]["os_release"], c)
PY
	echo "ok $k: $spec = cgroup_base_stat_cputime_show:$rln ($n hits)"
done

# The other kernel's vmlinux: refused in the guest, nothing written.
rm -f "$TMP/wrong.data"
"$RS_BIN" record -q --kernel "$K61" --accel tcg -o "$TMP/wrong.data" \
	--vmlinux "$(dirname "$K612")/vmlinux" \
	--probe cgroup_base_stat_cputime_show:2 -- sh -c : \
	>"$TMP/out" 2>"$TMP/err" && fail "a 6.12 vmlinux was taken for 6.1"
grep -q "build id" "$TMP/err" || fail "no word of the build id: $(cat "$TMP/err")"
[ ! -e "$TMP/wrong.data" ] || fail "a recording was written"
[ -z "$(vm_workdirs_new "$before")" ] ||
	fail "work directories left: $(vm_workdirs_new "$before")"
echo "ok"
