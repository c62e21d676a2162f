#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "Locks per cgroup" (perf's lock records: record --spans perf) names
# cgroups by path where the recording was made
# on this machine: a cgroup made here, whose memory.stat is read while
# recording, appears with its path, in the text and in --json with the id
# the kernel gives its directory (its inode number, per stat(1)). A
# recording made elsewhere (the bundled one) shows ids, and says so.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (record, cgroup creation)"
name=rstat-analyze-test-$$
dir=
for d in /sys/fs/cgroup/memory /sys/fs/cgroup; do
	[ -f "$d/memory.stat" ] && mkdir "$d/$name" 2>/dev/null && {
		dir=$d/$name
		break
	}
done
[ -n "$dir" ] || skip "no memory controller to make a cgroup in"
trap 'rmdir "$dir" 2>/dev/null; rm -rf "$TMP"' EXIT
[ -d /sys/kernel/tracing/events/cgroup ] ||
	skip "no cgroup tracepoints in tracefs"

"$RS_BIN" record -q --spans perf -o "$TMP/r.data" -a -- sh -c "
	echo \$\$ >'$dir/cgroup.procs'
	i=0; while [ \$i -lt 100 ]; do cat '$dir/memory.stat' >/dev/null
	i=\$((i + 1)); done" 2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
"$RS_BIN" report -i "$TMP/r.data" >"$TMP/out" 2>"$TMP/err" ||
	fail "report: $(cat "$TMP/err")"
grep -q 'paths as on this machine now' "$TMP/out" ||
	fail "no paths: $(grep -A3 'per cgroup' "$TMP/out")"
grep -Eq "  /$name\$" "$TMP/out" ||
	fail "/$name not among the cgroups: $(grep -A6 'per cgroup' "$TMP/out")"
"$RS_BIN" report -i "$TMP/r.data" --json >"$TMP/out.json" 2>"$TMP/err" ||
	fail "report --json: $(cat "$TMP/err")"
python3 - "$TMP/out.json" "/$name" "$(stat -c %i "$dir")" <<'PY' ||
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["lock_cgroups"]
        if r["path"] == sys.argv[2]]
assert rows, "no lock_cgroups entry with path %s" % sys.argv[2]
assert rows[0]["id"] == int(sys.argv[3]), (rows[0]["id"], sys.argv[3])
print("ok %s: id %d, as stat(1) gives its inode" % (sys.argv[2], rows[0]["id"]))
PY
	fail "--json lock_cgroups: the path does not go with the cgroup's id"

"$RS_BIN" report -i "$RS_FIXTURES/flush-mixed.data" >"$TMP/fix" 2>/dev/null ||
	fail "report of the fixture"
grep -q 'ids: recorded elsewhere' "$TMP/fix" && grep -q '  id 6272$' "$TMP/fix" ||
	fail "the fixture's cgroups: $(grep -A5 'per cgroup' "$TMP/fix")"
echo "ok a recording from elsewhere shows ids"
