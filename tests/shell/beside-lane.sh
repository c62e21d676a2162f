#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/beside.txt lists the shell tests that tests/run.sh runs in a lane
# beside the others; each must touch nothing on the machine outside its
# own $TMP. Checked for each: it exists, it is not a VM test, and it runs
# none of the commands that record, time or make cgroups, probes, BPF
# programs or tracefs instances (the tool's record, bench, top, watch,
# doctor and probe, perf record), and reads no machine state that others
# change (/sys/kernel, /sys/fs/cgroup, bpftool, the VM work directories).
# A planted line of each kind is caught, so the check itself works.
. tests/shell/lib.sh

touches='(RS_BIN"?|rstat-analyze|RS_TOOL"?) +(record|bench|top|watch|doctor|probe)\b|perf +record|need_perf|cgroup|bpftool|tracefs|/sys/kernel|vm_workdirs|--kernel'
n=0
while read -r t; do
	case $t in
	shell/*) ;;
	*) fail "tests/beside.txt: $t: only shell tests run beside others" ;;
	esac
	f=tests/shell/${t#shell/}.sh
	[ -f "$f" ] || fail "tests/beside.txt: $t: no $f"
	case $t in shell/vm-*) fail "tests/beside.txt: $t: a VM test" ;; esac
	hit=$(grep -nE "$touches" "$f" | head -n 3)
	[ -z "$hit" ] || fail "tests/beside.txt: $t touches the machine: $hit"
	n=$((n + 1))
done < <(sed 's/#.*//' tests/beside.txt | tr -s ' \t' '\n' | grep .)
[ "$n" -ge 1 ] || fail "tests/beside.txt lists no test"

# The check catches each kind.
for line in '"$RS_BIN" record -o x' 'perf record -a' \
	'mkdir /sys/fs/cgroup/unified/x' 'ls /sys/kernel/tracing/instances' \
	'"$RS_BIN" bench --kernel "$K61"'; do
	echo "$line" | grep -qE "$touches" ||
		fail "the check misses: $line"
done
echo "ok: $n tests run beside the others, none touches the machine"
