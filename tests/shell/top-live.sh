#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 29: rstat-analyze top. A cgroup of ours with a busy child, its
# cpu.stat read by one process (the shell's builtin read, no fork):
# - not on a terminal, one block per interval: every line parses
#   ('# time=...' then 'KIND key=value...'), times go forward, and the
#   blocks' base flushes add up to exactly the N reads (--cgroup);
# - under tmux, the screen shows the header, a base row, the cpu.stat
#   trigger and our cgroup among the busiest; Ctrl-C stops it and every
#   BPF program, map and link it held is gone (bpftool).
. tests/shell/lib.sh
. tests/shell/live-lib.sh
[ "$(id -u)" -eq 0 ] || skip "loading BPF programs needs root"
[ -d /sys/kernel/tracing/events/cgroup/cgroup_rstat_unlock ] ||
	skip "no cgroup_rstat_unlock tracepoint (v6.10+)"
command -v python3 >/dev/null || skip "python3 is not installed"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
N=250
cg=$v2/rs-top-$$
sess=rs-top-$$
pids=()
cleanup() {
	local p
	tmux kill-session -t "$sess" 2>/dev/null
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	rmdir "$cg/c1" "$cg" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$cg" "$cg/c1" || skip "cannot create cgroups under $v2"
sh -c 'echo $$ >"$1/cgroup.procs"; exec sh -c "while :; do :; done"' \
	sh "$cg/c1" &
pids+=($!)

expect_error 2 "--sort 'bogus': give flushes" "$RS_BIN" top --sort bogus
expect_error 2 "--interval '0': give seconds" "$RS_BIN" top -i 0
# A directory with an 8-byte file handle that is no cgroup (tmpfs's).
expect_error 2 "--cgroup $TMP: .*give a cgroup directory" \
	"$RS_BIN" top --cgroup "$TMP" -d 1

# 1. Not a terminal: blocks that parse, flushes that add up.
"$RS_BIN" top -i 0.5 -d 4 --cgroup "$cg" >"$TMP/out" 2>"$TMP/err" &
top=$!
for _ in $(seq 100); do
	grep -qs "^# time=" "$TMP/out" && break
	sleep 0.05
done
grep -q "^# time=" "$TMP/out" || {
	grep -q "BPF\|tracepoint" "$TMP/err" &&
		skip "BPF unavailable: $(cat "$TMP/err")"
	fail "top printed no block: $(cat "$TMP/err")"
}
bash -c 'for ((i = 0; i < $1; i++)); do read -r _ <"$2/cpu.stat"; done' \
	sh $N "$cg"
wait $top || fail "top -d exited $?: $(cat "$TMP/err")"
[ -s "$TMP/err" ] && fail "top wrote to stderr: $(cat "$TMP/err")"
python3 - "$TMP/out" $N "${cg#$v2}" <<'PY' || fail "top's blocks do not parse or add up"
import re, sys
n, path = int(sys.argv[2]), sys.argv[3]
blocks, cur = [], None
for line in open(sys.argv[1]).read().split("\n"):
    if line.startswith("# time="):
        m = re.fullmatch(r'# time=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) '
                         r'interval=([\d.]+) method="([^"]*)"', line)
        assert m, line
        cur = {"time": m.group(1), "interval": float(m.group(2)),
               "lines": []}
        blocks.append(cur)
    elif line:
        kind, rest = line.split(" ", 1)
        assert kind in ("summary", "subsys", "trigger", "cgroup"), line
        kv = {}
        # path= is last and may hold spaces
        if kind == "cgroup":
            rest, p = rest.split(" path=", 1)
            kv["path"] = p
        for f in rest.split(" "):
            k, v = f.split("=", 1)
            kv[k] = v
        cur["lines"].append((kind, kv))
assert len(blocks) >= 4, len(blocks)
times = [b["time"] for b in blocks]
assert times == sorted(times), times
# Ticks keep a fixed schedule (a late one makes the next shorter) and
# -d cuts the last: each interval is some of 0.5 s, together the 4 s.
for b in blocks:
    assert 0 < b["interval"] < 1.5, b["interval"]
    assert sum(1 for k, _ in b["lines"] if k == "summary") == 1, b
total_s = sum(b["interval"] for b in blocks)
assert 3.5 < total_s < 4.6, total_s
flushes = sum(int(kv["flushes"]) for b in blocks for k, kv in b["lines"]
              if k == "subsys" and kv["name"] == "base")
total = sum(int(kv["flushes"]) for b in blocks for k, kv in b["lines"]
            if k == "summary")
trig = sum(int(kv["flushes"]) for b in blocks for k, kv in b["lines"]
           if k == "trigger" and kv["name"] == "cpu.stat")
cgs = [kv for b in blocks for k, kv in b["lines"] if k == "cgroup"]
print("%d blocks, base flushes %d, all %d, cpu.stat %d, reads %d" %
      (len(blocks), flushes, total, trig, n))
assert flushes == n and total == n and trig == n, (flushes, total, trig)
assert cgs and all(kv["path"] == path for kv in cgs), (cgs[:3], path)
assert sum(int(kv["flushes"]) for kv in cgs) == n
PY

# 2. A terminal (tmux): the screen, then Ctrl-C.
command -v tmux >/dev/null || {
	skip_part "tmux is not installed (Debian package tmux): the terminal view is untested"
	exit 0
}
bash -c 'while :; do read -r _ <"$1/cpu.stat"; sleep 0.01; done' sh "$cg" &
pids+=($!)
tmux new-session -d -s "$sess" -x 120 -y 40 \
	"exec '$RS_BIN' top -i 0.5 -n 5 2>'$TMP/tty.err'" ||
	fail "tmux cannot start a session"
tpid=$(tmux list-panes -t "$sess" -F '#{pane_pid}')
screen=
for _ in $(seq 60); do
	sleep 0.25
	screen=$(tmux capture-pane -p -t "$sess" 2>/dev/null)
	grep -q "${cg#$v2}" <<<"$screen" && break
done
echo "$screen" | head -20
grep -q "^rstat-analyze top - " <<<"$screen" || fail "no header on the screen"
grep -q "^SUBSYS  *FLUSHES/s" <<<"$screen" || fail "no subsystem table"
grep -q "^base  *[0-9]" <<<"$screen" || fail "no base row"
grep -q "^cpu.stat  *base  *[0-9]" <<<"$screen" || fail "no cpu.stat trigger row"
grep -q " ${cg#$v2}$" <<<"$screen" || fail "our cgroup is not among the busiest"
bpf_objects "$tpid" >"$TMP/objs"
grep -q "^prog " "$TMP/objs" || fail "top (pid $tpid) holds no BPF program"
tmux send-keys -t "$sess" C-c
for _ in $(seq 40); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$tpid" 2>/dev/null && fail "top still runs after Ctrl-C"
[ -s "$TMP/tty.err" ] && fail "top on a terminal wrote to stderr: $(cat "$TMP/tty.err")"
left=$(bpf_objects_left "$TMP/objs")
[ -z "$left" ] || fail "BPF objects left after Ctrl-C: $left"
exit 0
