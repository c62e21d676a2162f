#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real recording (flush-mixed.data) whose memcg:memcg_flush_stats format
# in the tracing data is changed, same length, to print with
# __print_flags(REC->forc, ...): a field the format does not have, one
# byte away from 'force'. libtraceevent 1.7.1 dereferences the field it
# fails to find there (SIGSEGV, exit 139, before the reader checked).
#
# What must hold: the report runs, says which event's format is bad and
# why, and keeps every sample with its fields: counts and the memcg flush
# table are those of the unchanged recording. The same with the field
# spelt right: no note, the same report.
. tests/shell/lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

python3 - "$RS_FIXTURES/flush-mixed.data" "$TMP" <<'EOF' ||
import sys
d = open(sys.argv[1], "rb").read()
i = d.find(b'print fmt: "memcg_id')
j = d.find(b"\n", i)
assert i > 0 and j > i
for name, field in (("bad", "REC->forc"), ("good", "REC->force")):
    new = ('print fmt: "%%s", __print_flags(%s, "|", {1, "F"})' % field)
    new = new.encode().ljust(j - i)
    open("%s/%s.data" % (sys.argv[2], name), "wb").write(
        d[:i] + new + d[j:])
EOF
	fail "could not edit the fixture"

for v in orig good bad; do
	f="$TMP/$v.data"
	[ $v = orig ] && f="$RS_FIXTURES/flush-mixed.data"
	"$RS_BIN" report -i "$f" --json >"$TMP/$v.json" 2>"$TMP/$v.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$v: report --json: exit $rc: $(head -c 3000 "$TMP/$v.err")"
	"$RS_BIN" report -i "$f" --folded >"$TMP/$v.folded" 2>/dev/null ||
		fail "$v: report --folded failed"
done

grep -q "bad tracepoint format" "$TMP/orig.err" "$TMP/good.err" &&
	fail "a note on a good format: $(cat "$TMP/good.err")"
n=$(grep -c "bad tracepoint format" "$TMP/bad.err")
[ "$n" -eq 1 ] || fail "$n notes on the bad format, expected 1: $(cat "$TMP/bad.err")"
grep -q "note: bad tracepoint format in the recording (memcg:memcg_flush_stats: print fmt names field 'forc', which it does not have)" \
	"$TMP/bad.err" || fail "the note does not name the event and field: $(cat "$TMP/bad.err")"

python3 - "$TMP/orig.json" "$TMP/bad.json" <<'EOF' || fail "the bad format lost samples or fields"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("counts", "events", "memcg_flush_stats", "spans", "attribution"):
    if a[k] != b[k]:
        sys.exit("%s differs: %s vs %s" % (k, str(a[k])[:300], str(b[k])[:300]))
if not a["memcg_flush_stats"]:
    sys.exit("no memcg flush stats in the fixture's report")
EOF
cmp -s "$TMP/orig.folded" "$TMP/bad.folded" || fail "folded stacks differ"
exit 0
