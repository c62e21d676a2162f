#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 13: record takes no callchain at cgroup_rstat_locked (it would be
# walked inside the very hold it times) and names the subsystem from the
# unlock's callchain, walked after its timestamp. Checked with perf's own
# reading of the file: locked events have no callchain, unlock events do;
# and every hold of a loop of cpu.stat reads of the test's own cgroup is
# attributed to base, none to "unknown".
. tests/shell/lib.sh
need_perf
[ "$(id -u)" -eq 0 ] || skip "recording tracepoints needs root"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
[ -d /sys/kernel/tracing/events/cgroup/cgroup_rstat_locked ] ||
	[ -d /sys/kernel/debug/tracing/events/cgroup/cgroup_rstat_locked ] ||
	skip "no cgroup_rstat_locked tracepoint (v6.10+)"
cg=$v2/rs-lockholds-$$
mkdir "$cg" || skip "cannot create a cgroup under $v2"
trap 'rmdir "$cg" 2>/dev/null; rm -rf "$TMP"' EXIT

"$RS_BIN" record -q -o "$TMP/r.data" -- sh -c \
	"for i in \$(seq 200); do cat $cg/cpu.stat >/dev/null; done" \
	2>"$TMP/err" || fail "record: $(cat "$TMP/err")"
perf script -i "$TMP/r.data" 2>"$TMP/perr" >"$TMP/script" ||
	fail "perf script: $(cat "$TMP/perr")"
python3 - "$TMP/script" <<'PY' || fail "callchains are not where they should be"
import re, sys
# perf script: an event's header line, then its callchain one frame an
# indented line; an event without one prints its ip on the header line.
frame = re.compile(r"^\s+[0-9a-f]+ ")
chain = {"locked": [], "unlock": []}
cur = None
for line in open(sys.argv[1]):
    if frame.match(line) and cur is not None:
        chain[cur][-1] += 1
        continue
    cur = None
    for kind in chain:
        if "cgroup:cgroup_rstat_%s:" % kind in line:
            cur = kind
            chain[kind].append(0)
print("locked events %d, unlock events %d" % (len(chain["locked"]),
                                              len(chain["unlock"])))
assert len(chain["locked"]) >= 600 and len(chain["unlock"]) >= 600, \
    (len(chain["locked"]), len(chain["unlock"]))
assert all(n == 0 for n in chain["locked"]), "a locked event has a callchain"
assert all(n > 0 for n in chain["unlock"]), "an unlock event has none"
PY
"$RS_BIN" report -i "$TMP/r.data" >"$TMP/rep" 2>"$TMP/err" ||
	fail "report: $(cat "$TMP/err")"
sed -n '/^Lock hold time/,/^pairs/p' "$TMP/rep" >"$TMP/holds"
grep -q '^base ' "$TMP/holds" || fail "no base holds: $(cat "$TMP/holds")"
grep -q '^unknown ' "$TMP/holds" &&
	fail "holds without a subsystem: $(cat "$TMP/holds")"
cat "$TMP/holds"
