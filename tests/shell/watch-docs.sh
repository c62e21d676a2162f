#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 29: what the docs give operators holds together. The example
# alert rules pass `promtool check rules`; every rstat_* metric they, the
# fleet page and the watch man page name is one watch serves; and the
# page watch serves passes `promtool check metrics` (Prometheus's own
# lint of names, types and help) with no complaint.
. tests/shell/lib.sh
. tests/shell/live-lib.sh
command -v promtool >/dev/null ||
	skip "promtool is not installed (Debian package prometheus)"
promtool check rules docs/rstat-alerts.yml >"$TMP/rules" 2>&1 ||
	fail "promtool check rules: $(cat "$TMP/rules")"
[ "$(id -u)" -eq 0 ] || skip "loading BPF programs needs root"
[ -d /sys/kernel/tracing/events/cgroup/cgroup_rstat_unlock ] ||
	skip "no cgroup_rstat_unlock tracepoint (v6.10+)"

"$RS_BIN" watch --listen 127.0.0.1:0 --interval 0.2 2>"$TMP/err" &
wpid=$!
trap 'kill -KILL $wpid 2>/dev/null; wait; rm -rf "$TMP"' EXIT
port=$(watch_port "$TMP/err" $wpid)
[ -n "$port" ] || fail "watch did not start: $(cat "$TMP/err")"
# Some flushes, so that every family has series.
for _ in $(seq 20); do cat /sys/fs/cgroup/unified/cpu.stat \
	/sys/fs/cgroup/cpu.stat >/dev/null 2>&1; done
sleep 0.5
curl -sf "http://127.0.0.1:$port/metrics" >"$TMP/page" ||
	fail "cannot scrape watch"
kill -TERM $wpid
wait $wpid || fail "watch exited $? on SIGTERM: $(cat "$TMP/err")"
promtool check metrics <"$TMP/page" >"$TMP/lint" 2>&1 ||
	fail "promtool check metrics: $(head -20 "$TMP/lint")"
[ -s "$TMP/lint" ] && fail "promtool check metrics complains: $(head -20 "$TMP/lint")"

# The families the page declares (# TYPE), and the names the docs use.
sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' "$TMP/page" | sort -u >"$TMP/families"
grep -ohE '\brstat_[a-z_]+[a-z]\b' docs/rstat-alerts.yml docs/fleet.md \
	docs/rstat-analyze-watch.1 | sort -u >"$TMP/named"
bad=0
while read -r name; do
	base=$(sed -E 's/_(bucket|sum|count)$//' <<<"$name")
	# The sources (a label's values, e.g. rstat_tracepoints) are not
	# metric names.
	grep -q "source=\"$name\"" "$TMP/page" && continue
	grep -qx "$name" "$TMP/families" || grep -qx "$base" "$TMP/families" ||
		{ echo "the docs name $name, which watch does not serve"; bad=1; }
done <"$TMP/named"
[ $bad -eq 0 ] || fail "docs and watch's metrics disagree (families: $(tr '\n' ' ' <"$TMP/families"))"
echo "$(wc -l <"$TMP/named") metric names in the docs, all served"
exit 0
