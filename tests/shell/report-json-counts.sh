#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report --json: per-event sample counts equal what `perf script -F event`
# counts for the same file, the attribution's samples and periods add up,
# per event, to the samples and periods perf script prints, and the header
# equals perf's header reading.
. tests/shell/lib.sh
need_perf

for data in flush-mixed.data pipe-mode.data; do
	f=$RS_FIXTURES/$data
	# The fixtures' kernel symbols: flush samples get their categories.
	"$RS_BIN" report -i "$f" --kallsyms "$(fixture_kallsyms)" --json \
		>"$TMP/out.json" 2>"$TMP/err" ||
		fail "report --json $data: $(cat "$TMP/err")"
	python3 - "$TMP/out.json" >"$TMP/ours" <<'PY' || fail "$data: invalid JSON"
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["events"]:
    if e["samples"]:
        print(e["samples"], e["name"])
PY
	perf script -i "$f" -F event 2>/dev/null | grep -E "^ *[^[:space:]]+: *$" | sed 's/^ *//; s/: *$//' |
		sort | uniq -c | awk '{ print $1, $2 }' | sort -k2 >"$TMP/theirs"
	sort -k2 "$TMP/ours" >"$TMP/ours.sorted"
	if ! cmp -s "$TMP/ours.sorted" "$TMP/theirs"; then
		diff "$TMP/theirs" "$TMP/ours.sorted"
		fail "$data: event counts differ from perf script -F event"
	fi
	cat "$TMP/ours.sorted"

	# Attribution rows (every sample of an attributed event has one):
	# their samples and periods sum to perf's, event by event.
	perf script -i "$f" -F period,event 2>/dev/null |
		awk 'NF == 2 { sub(/:$/, "", $2); n[$2]++; p[$2] += $1 }
		     END { for (e in n) printf "%s %d %.0f\n", e, n[e], p[e] }' \
		>"$TMP/periods"
	python3 - "$TMP/out.json" "$TMP/periods" "$data" <<'PY' ||
import json, sys
perf = {l.split()[0]: (int(l.split()[1]), int(l.split()[2]))
        for l in open(sys.argv[2])}
ours, flush = {}, {}
attrib = json.load(open(sys.argv[1]))["attribution"]
# flush_share: a flush category's share of the event's flush samples.
for a in attrib:
    if a["flush_share"] is not None:
        flush[a["event"]] = flush.get(a["event"], 0) + a["period"]
if sys.argv[3] == "flush-mixed.data" and not flush:
    sys.exit("no flush category in flush-mixed.data's attribution")
for a in attrib:
    if a["flush_share"] is not None and abs(
            a["flush_share"] - a["period"] / flush[a["event"]]) > 1e-9:
        sys.exit("%s %s: flush_share %s, expected %s" % (
            a["event"], a["category"], a["flush_share"],
            a["period"] / flush[a["event"]]))
for a in attrib:
    n, p = ours.get(a["event"], (0, 0))
    ours[a["event"]] = (n + a["samples"], p + a["period"])
if not ours:
    sys.exit("no attribution rows")
bad = ["%s: samples, period %s, perf script %s" % (e, v, perf.get(e))
       for e, v in ours.items() if perf.get(e) != v]
if bad:
    sys.exit("\n".join(bad))
print("attribution periods: %s" % ours)
PY
		fail "$data: attribution samples or periods differ from perf script's"

	# Header fields as perf report --header-only reads them.
	perf report -i "$f" --header-only 2>/dev/null >"$TMP/hdr"
	host=$(sed -n 's/^# hostname : //p' "$TMP/hdr")
	rel=$(sed -n 's/^# os release : //p' "$TMP/hdr")
	arch=$(sed -n 's/^# arch : //p' "$TMP/hdr")
	python3 - "$TMP/out.json" "$host" "$rel" "$arch" <<'PY' ||
import json, sys
h = json.load(open(sys.argv[1]))["header"]
want = dict(zip(["hostname", "os_release", "arch"], sys.argv[2:5]))
if not all(want.values()):
    sys.exit("perf report --header-only gave no %s" %
             [k for k, v in want.items() if not v])
bad = [k for k, v in want.items() if v and h.get(k) != v]
if bad:
    sys.exit("header mismatch: %s (ours %s, perf %s)" %
             (bad, [h.get(k) for k in bad], [want[k] for k in bad]))
PY
		fail "$data: header differs from perf report --header-only"
done
exit 0
