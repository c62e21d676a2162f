#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 29: watch serves what a real Prometheus (Debian's package, on
# loopback, its own config, port and TSDB in a private directory,
# scraping every second) reads right. Two cgroups of ours, A and B, each
# with two busy children (nice 19); one process at a time reads a
# parent's cpu.stat exactly N times (the shell's builtin read: no fork).
# watch counts A's flushes only (--cgroup A). Three rounds of: N reads of
# A, counted by a tracefs instance of ours on the tracepoint itself; N
# reads of B under `record --spans bpf -p` (1 Hz sampling). Then:
# - the flush counter Prometheus stored grew by exactly the 3N flushes
#   the tracefs instance counted;
# - histogram_quantile(0.5) of A's holds lies in the log2 bucket of the
#   nearest-rank p50 of watch's own page (Prometheus reads the buckets as
#   meant), and in the bucket of record's hold p50 of the same reads of
#   B (its three recordings' holds together). The rounds interleave so
#   that both see the same machine (holds of 100-300 ns move with its
#   load); the tracefs instance is enabled only after the programs (a
#   tracepoint calls its probes in the order they came: before them, it
#   would sit inside the holds they time) and only for A. A's and B's
#   holds are two populations (two trees): their medians may sit a
#   bucket apart, never more.
. tests/shell/lib.sh
. tests/shell/live-lib.sh
[ "$(id -u)" -eq 0 ] || skip "loading BPF programs needs root"
tp=/sys/kernel/tracing
[ -d $tp/events/cgroup/cgroup_rstat_unlock ] ||
	skip "no cgroup_rstat_unlock tracepoint (v6.10+)"
command -v prometheus >/dev/null ||
	skip "prometheus is not installed (Debian package prometheus)"
command -v python3 >/dev/null || skip "python3 is not installed"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
N=200
cg=$v2/rs-watch-$$
cgb=$v2/rs-watch-b-$$
inst=$tp/instances/rs-watch-$$
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	rmdir "$cg"/c1 "$cg"/c2 "$cg" "$cgb"/c1 "$cgb"/c2 "$cgb" 2>/dev/null
	[ -d "$inst" ] && {
		echo 0 >"$inst/events/cgroup/cgroup_rstat_unlock/enable"
		rmdir "$inst"
	}
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$cg" "$cg/c1" "$cg/c2" "$cgb" "$cgb/c1" "$cgb/c2" ||
	skip "cannot create cgroups under $v2"

# Busy children: their CPU time is what each read of the parent flushes.
for c in "$cg/c1" "$cg/c2" "$cgb/c1" "$cgb/c2"; do
	nice -n 19 sh -c 'echo $$ >"$1/cgroup.procs"
		exec sh -c "while :; do :; done"' sh "$c" &
	pids+=($!)
done

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The tracepoint, counted on its own: the flushes' last per-CPU unlocks
# of our cgroup (the last possible CPU from sysfs).
last_cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)
cgid=$(python3 -c '
import struct, sys, ctypes
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(8 + 64)
struct.pack_into("I", buf, 0, 64)
mnt = ctypes.c_int()
if libc.name_to_handle_at(-100, sys.argv[1].encode(), buf, ctypes.byref(mnt), 0):
    sys.exit(1)
print(struct.unpack_from("Q", buf, 8)[0])' "$cg") || fail "no id for $cg"
mkdir "$inst" || skip "cannot make a tracefs instance"
echo "id == $cgid && cpu == $last_cpu" \
	>"$inst/events/cgroup/cgroup_rstat_unlock/filter" ||
	fail "tracefs filter refused"

# reads NAME CGROUP: N reads of CGROUP's cpu.stat by one process once
# $TMP/NAME.go is written to; its pid in $TMP/NAME.pid.
reads() {
	mkfifo "$TMP/$1.go"
	bash -c 'read -r _ <"$1"; for ((i = 0; i < $2; i++)); do
		read -r _ <"$3/cpu.stat"; done; sleep 0.3' sh "$TMP/$1.go" $N \
		"$2" &
	echo $! >"$TMP/$1.pid"
}

# traced_round NAME: N reads of A counted by the tracefs instance into
# $TMP/NAME.traced.
traced_round() {
	reads "$1" "$cg"
	echo >"$inst/trace"
	echo 1 >"$inst/events/cgroup/cgroup_rstat_unlock/enable"
	echo go >"$TMP/$1.go"
	wait "$(cat "$TMP/$1.pid")"
	echo 0 >"$inst/events/cgroup/cgroup_rstat_unlock/enable"
	grep -c "cgroup_rstat_unlock:" "$inst/trace" >"$TMP/$1.traced"
}

# recorded_round NAME: N reads of B recorded into $TMP/NAME.json (report).
recorded_round() {
	reads "$1" "$cgb"
	"$RS_BIN" record -q -F 1 --spans bpf -p "$(cat "$TMP/$1.pid")" \
		-o "$TMP/$1.data" 2>"$TMP/$1.err" &
	local rec=$! _
	# The output gets its name once the programs are live.
	for _ in $(seq 100); do [ -e "$TMP/$1.data" ] && break; sleep 0.05; done
	echo go >"$TMP/$1.go"
	wait $rec || {
		grep -q -- "--spans bpf: " "$TMP/$1.err" &&
			skip "BPF spans unavailable: $(cat "$TMP/$1.err")"
		fail "record: $(cat "$TMP/$1.err")"
	}
	"$RS_BIN" report -i "$TMP/$1.data" --json >"$TMP/$1.json" \
		2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
}

# watch, scraped by Prometheus.
"$RS_BIN" watch --listen 127.0.0.1:0 --interval 0.2 --cgroup "$cg" \
	2>"$TMP/watch.err" &
watch_pid=$!
pids+=($watch_pid)
port=$(watch_port "$TMP/watch.err" $watch_pid)
[ -n "$port" ] || fail "watch did not start: $(cat "$TMP/watch.err")"
grep -q "privileges dropped" "$TMP/watch.err" ||
	fail "watch does not say it dropped privileges: $(cat "$TMP/watch.err")"
grep -q "^CapEff:[[:space:]]*0*$" /proc/$watch_pid/status ||
	fail "watch kept capabilities: $(grep ^Cap /proc/$watch_pid/status)"
bpf_objects $watch_pid >"$TMP/objs"
grep -q "^prog " "$TMP/objs" || fail "watch holds no BPF program"

pport=$(free_port)
mkdir "$TMP/tsdb"
printf '%s\n' "global:" "  scrape_interval: 1s" "  evaluation_interval: 1s" \
	"scrape_configs:" "  - job_name: rstat" "    static_configs:" \
	"      - targets: ['127.0.0.1:$port']" >"$TMP/prometheus.yml"
prometheus --config.file="$TMP/prometheus.yml" \
	--storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" \
	>"$TMP/prom.log" 2>&1 &
pids+=($!)

# query EXPR: the value of an instant query ("none" when empty).
query() {
	python3 -c '
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?" % sys.argv[1] + \
    urllib.parse.urlencode({"query": sys.argv[2]})
try:
    d = json.load(urllib.request.urlopen(url, timeout=5))
except Exception as e:
    print("error")
    sys.exit(0)
r = d["data"]["result"]
print(r[0]["value"][1] if r else "none")' "$pport" "$1"
}

up=
for _ in $(seq 60); do
	up=$(query 'up{job="rstat"}')
	[ "$up" = 1 ] && break
	sleep 0.5
done
[ "$up" = 1 ] || fail "Prometheus never scraped watch (up=$up): $(tail -5 "$TMP/prom.log")"
before=$(query 'sum(rstat_flush_total)')
[ "$before" = none ] && before=0

for r in 1 2 3; do
	traced_round w$r
	recorded_round r$r
done
traced=$(( $(cat "$TMP/w1.traced") + $(cat "$TMP/w2.traced") + \
	$(cat "$TMP/w3.traced") ))

# Prometheus's value from a scrape made after the last read plus one
# watch interval (0.2 s): the page it got counted every flush.
end=$(date +%s.%N)
after=none
for _ in $(seq 40); do
	sleep 0.5
	ts=$(query 'timestamp(up{job="rstat"})')
	python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]) + 0.5)' \
		"$ts" "$end" 2>/dev/null || continue
	after=$(query 'sum(rstat_flush_total)')
	break
done
[ "$after" != none ] && [ "$after" != error ] ||
	fail "Prometheus has no rstat_flush_total scraped after the reads: $after"
echo "flushes: Prometheus $before -> $after, tracepoint $traced, reads $((3 * N))"
[ "$traced" -eq $((3 * N)) ] ||
	fail "the tracepoint counted $traced flushes of $((3 * N)) reads (another flusher of our cgroup?)"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) - float(sys.argv[2]) != int(sys.argv[3]))' \
	"$after" "$before" "$traced" ||
	fail "Prometheus's rstat_flush_total grew by $after - $before, the tracepoint counted $traced"

p50=$(query 'histogram_quantile(0.5, sum by (le) (rstat_lock_hold_seconds_bucket))')
curl -sf "http://127.0.0.1:$port/metrics" >"$TMP/metrics" ||
	fail "cannot scrape watch"
python3 -c '
import json, math, re, sys
rec = {}				# slot i: [2^(i-1), 2^i - 1] ns
for f in sys.argv[1].split():
    d = json.load(open(f))
    holds = [s for s in d["kernel_spans"]["spans"] if s["name"] == "hold"]
    assert len(holds) == 1, [(s["name"], s["subsystem"]) for s in holds]
    for b in holds[0]["hist"]:
        i = b["low"].bit_length()
        rec[i] = rec.get(i, 0) + b["count"]
rn = sum(rec.values())
seen = 0
for rec_slot in sorted(rec):		# nearest rank, as record has it
    seen += rec[rec_slot]
    if seen >= math.ceil(rn / 2):
        break
lo, hi = (1 << rec_slot - 1 if rec_slot else 0), (1 << rec_slot) - 1
ns = float(sys.argv[2]) * 1e9
# Prometheus: le 2^i ns closes slot i, so a quantile in (2^(i-1), 2^i].
prom_slot = max(0, math.ceil(math.log2(ns))) if ns > 0 else 0
# The exporter page itself, nearest rank: what Prometheus should agree on.
cum = {}
for m in re.finditer(r"^rstat_lock_hold_seconds_bucket\{[^}]*le=\"([^\"]+)\"\} (\d+)$",
                     open(sys.argv[3]).read(), re.M):
    if m.group(1) != "+Inf":
        le = float(m.group(1)) * 1e9
        i = 0 if le == 0 else round(math.log2(le))
        cum[i] = cum.get(i, 0) + int(m.group(2))
n = max(cum.values())
page_slot = min(i for i in cum if cum[i] >= math.ceil(n / 2))
print("hold p50: record slot %d [%d, %d] ns, Prometheus %.1f ns (slot %d), "
      "exporter page slot %d of %d holds" % (rec_slot, lo, hi, ns, prom_slot,
                                             page_slot, n))
assert prom_slot == page_slot, "Prometheus reads the buckets otherwise"
if prom_slot != rec_slot:
    # The holds of A (watch) and of B (record) are two populations of
    # holds of 100-300 ns: two trees, each with the updates of its own
    # children. On an idle CI machine their medians sat a bucket apart in
    # two runs of four (30% and 83% of the holds below 128 ns), always
    # the same way: a bucket apart is said, more than one fails.
    assert abs(prom_slot - rec_slot) == 1, "more than one bucket apart"
    edge = min(prom_slot, rec_slot)
    below_rec = sum(c for i, c in rec.items() if i <= edge) / rn
    below_page = cum[edge] / n
    print("a bucket apart: %.0f%% (record), %.0f%% (watch) of the holds "
          "below %d ns" % (below_rec * 100, below_page * 100, 1 << edge))
' "$TMP/r1.json $TMP/r2.json $TMP/r3.json" "$p50" "$TMP/metrics" ||
	fail "hold p50: Prometheus and record disagree"

# A clean stop: nothing of watch's left in the kernel.
kill -TERM $watch_pid
wait $watch_pid || fail "watch exited $? on SIGTERM: $(cat "$TMP/watch.err")"
left=$(bpf_objects_left "$TMP/objs")
[ -z "$left" ] || fail "BPF objects left after SIGTERM: $left"
exit 0
