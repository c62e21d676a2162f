#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 25: record -- CMD and record -p PID time their targets' stat-file
# reads part by part in the kernel (docs/breakdown.md), following forks
# and naming each read's file by the open that made its fd. The oracle is
# the loop count: a shell loop that runs `cat CG/cpu.stat` N times makes
# exactly N reads of cpu.stat (a cat each, forked by the shell: followed),
# each two read(2) calls (the data, then end of file), and nothing else
# of the loop is a stat file. The parts add up to each read (shares sum
# to 1); report's text, --json and --csv (every block) say the same
# figures; perf itself still reads the file (the section is a feature
# bit perf skips);
# without --breakdown nothing is decomposed; a hostile or cut section is left out of
# the report with one note, the rest of the report intact.
. tests/shell/lib.sh
need_perf
[ "$(id -u)" -eq 0 ] || skip "loading BPF programs needs root"
grep -aq bd_cb_memory_entry "$RS_BIN" ||
	skip "built without BPF: the reads cannot be decomposed"
[ -e /sys/kernel/tracing/events/syscalls/sys_enter_openat ] ||
	skip "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS): reads cannot be timed in the kernel"
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
N=40
cg=$v2/rs-recbd-$$
reader=
cleanup() {
	[ -n "$reader" ] && kill -KILL "$reader" 2>/dev/null
	wait 2>/dev/null
	rmdir "$cg" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$cg" || skip "cannot create a cgroup under $v2"
bdtext=$PWD/tests/shell/breakdown-text.py
cd "$TMP" || fail cd

# check FILE.data READS: report's tables of one recording, in three forms.
check() {
	local data=$1 reads=$2

	"$RS_BIN" report -i "$data" >rep.txt 2>err ||
		fail "report: $(cat err)"
	"$RS_BIN" report -i "$data" --json >rep.json 2>err ||
		fail "report --json: $(cat err)"
	"$RS_BIN" report -i "$data" --csv >rep.csv 2>err ||
		fail "report --csv: $(cat err)"
	python3 - rep.json rep.txt rep.csv "$reads" <<'PY' || fail "breakdown of $data"
import csv, io, json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
csvt = open(sys.argv[3]).read()
reads = int(sys.argv[4])
bd = d["breakdown"]
assert bd["pass"] == "record", bd["pass"]
assert bd["lost"] == 0, bd["lost"]
fo = bd["follow"]
# A cat a read, each forked by the loop's shell (and followed).
assert fo["forks"] >= reads, fo
assert fo["readers_full"] == 0 and fo["events_lost"] == 0, fo
files = {f["file"]: f for f in bd["files"]}
# Nothing else the loop reads is a stat file (libraries, /dev/null).
assert set(files) == {"cpu.stat"}, set(files)
f = files["cpu.stat"]
assert fo["opens"] == reads, (fo, reads)
parts = {p["part"]: p for p in f["parts"]}
assert f["reads"] == reads, f["reads"]
assert parts["total"]["calls"] == reads, parts["total"]
# Two read(2) calls a read: the data, then the end of the file.
assert parts["rest"]["calls"] == 2 * reads, parts["rest"]
s = sum(p["share"] for k, p in parts.items() if k != "total")
assert abs(s - 1) < 1e-6, s
assert sum(p["sum_ns"] for k, p in parts.items() if k != "total") \
    <= parts["total"]["sum_ns"] + len(parts), parts
assert "cpu.stat: where a read's time goes, %d reads by the targets" \
    % reads in text, "text header"
# The CSV says what the JSON says, exactly.
block = csvt.split("\ntable,file,part,timed,", 1)[1].split("\n\n", 1)[0]
rows = list(csv.reader(io.StringIO("table,file,part,timed," + block)))
hdr, rows = rows[0], rows[1:]
assert len(rows) == len(f["parts"]), rows
for row, p in zip(rows, f["parts"]):
    r = dict(zip(hdr, row))
    assert r["table"] == "read_breakdown" and r["file"] == "cpu.stat", r
    assert r["part"] == p["part"] and int(r["timed"]) == int(p["timed"]), r
    assert int(r["reads"]) == reads, r
    for k in ("p50_ns", "p90_ns", "p99_ns", "calls", "sum_ns"):
        assert int(r[k]) == p[k], (r, k, p[k])
    assert abs(float(r["share"]) - p["share"]) < 1e-6, (r, p)
    assert [r["note_p50"], r["note_p90"], r["note_p99"]] == \
        [n or "" for n in p["notes"]], (r, p["notes"])
# And the figures under the tables, block by block.
blocks = {}
for b in csvt.split("\n\n"):
    rs = list(csv.reader(io.StringIO(b.strip("\n"))))
    if len(rs) > 1 and rs[0][0] == "table":
        blocks[rs[1][0]] = [dict(zip(rs[0], x)) for x in rs[1:]]
fr = blocks["read_breakdown_files"]
assert [r["file"] for r in fr] == [x["file"] for x in bd["files"]], fr
for r, x in zip(fr, bd["files"]):
    assert r["tree"] == (x["tree"] or ""), (r, x["tree"])
    for k in ("reads", "off_cpu_most", "tail_off_ns", "read_p50_ns",
              "unobserved_p50_ns", "reader_reads"):
        assert int(r[k]) == x[k], (r, k, x[k])
ek = ("p50_ns", "p90_ns", "p99_ns", "sum_ns", "measured_sum_ns", "negative")
want = [(x["file"],) + tuple(x["entry_exit"][k] for k in ek)
        for x in bd["files"] if x["entry_exit"]]
got = [(r["file"],) + tuple(int(r[k]) for k in ek)
       for r in blocks.get("read_breakdown_entry", [])]
assert got == want, (got, want)
sr = blocks["read_breakdown_sources"]
assert len(sr) == len(bd["sources"]), sr
for r, x in zip(sr, bd["sources"]):
    assert r["part"] == x["part"] and int(r["timed"]) == int(x["timed"]), r
    assert r["how"] == (x["how"] if x["timed"] else x["why"]), (r, x)
    for k in ("outside_calls", "outside_ns"):
        # Only the callbacks' parts have calls outside the reads.
        assert (r[k] == "") if k not in x else int(r[k]) == x[k], (r, k, x)
want = [(x["part"], o["trigger"], o["calls"], o["ns"])
        for x in bd["sources"] for o in x.get("outside_by", [])]
got = [(r["part"], r["trigger"], int(r["calls"]), int(r["ns"]))
       for r in blocks.get("read_breakdown_outside", [])]
assert got == want, (got, want)
sk = bd["skipped_runs"]
got = [(r["program"], int(r["recursion"]), int(r["missed"]))
       for r in blocks.get("read_breakdown_skips", [])]
assert got == [(x["program"], x["recursion"], x["missed"])
               for x in sk["programs"]], (got, sk)
(run,) = blocks["read_breakdown_run"]
assert int(run["skips_counted"]) == int(sk["counted"]), (run, sk)
assert int(run["skipped_reader_syscalls"]) == sk["reader_syscalls"], run
for k in ("window_start_ns", "window_end_ns", "reader_pid"):
    assert int(run[k]) == bd[k], (run, k, bd[k])
assert run["method"] == bd["method"] and run["pass"] == bd["pass"], run
assert int(run["hz"]) == (bd["hz"] or 0), (run, bd["hz"])
assert int(run["split_trees"]) == int(bd["split_trees"]), run
for k in ("lost", "broken"):
    assert int(run[k]) == bd[k], (run, k)
for k in ("calls", "shortest_ns", "programs_ns", "programs_after_ns"):
    assert int(run["callback_" + k]) == bd["callback_cost"][k], (run, k)
(fw,) = blocks["read_breakdown_follow"]
for k, v in fo.items():
    assert int(fw[k]) == v, (fw, k, v)
print("ok: %d reads of cpu.stat; walk %.1f%%, rest %.1f%%" %
      (reads, parts["walk"]["share"] * 100, parts["rest"]["share"] * 100))
PY
	# The text says what the JSON says.
	python3 "$bdtext" rep.txt rep.json ||
		fail "$data: the text tables and the JSON differ"
}

# perf, the oracle: the file reads, without a warning, header and all.
perf_reads() {
	perf script -i "$1" >/dev/null 2>perr || fail "perf script: $(cat perr)"
	[ -s perr ] && fail "perf script warns: $(head -3 perr)"
	perf report --header-only -i "$1" >hdr 2>perr ||
		fail "perf report --header-only: $(cat perr)"
	grep -q "^# cmdline" hdr || fail "perf report --header-only: no cmdline: $(head hdr)"
}

# --- record -- CMD: the loop and every cat it forks ----------------------
"$RS_BIN" record --breakdown -o cmd.data -- sh -c \
	"for i in \$(seq $N); do cat $cg/cpu.stat >/dev/null; done" \
	>out 2>err || fail "record -- CMD: $(cat err)"
# Root, the tracepoints and a build with BPF: nothing left to excuse.
grep -q "reads will not be decomposed" err &&
	fail "BPF could not time the reads: $(grep 'not be decomposed' err)"
# record's own summary has the table too.
grep -q "cpu.stat: where a read's time goes, $N reads by the targets" err ||
	fail "record's summary has no table: $(cat err)"
# A skipped run of any program of record's (following ones too) is said
# with what it costs, never as someone else's program's.
grep -q "not the breakdown's" err &&
	fail "record's skipped runs name a program as not its own: $(cat err)"
check cmd.data $N
perf_reads cmd.data

# sendfile(2) reads too (busybox's cat copies so): 10 reads of
# cgroup.stat beside 10 read(2) reads of cpu.stat, each in its table.
if command -v busybox >/dev/null; then
	"$RS_BIN" record --breakdown -q -o sf.data -- sh -c "for i in \$(seq 10); do
		busybox cat $cg/cgroup.stat >/dev/null; cat $cg/cpu.stat >/dev/null
		done" 2>err || fail "record of busybox cat: $(cat err)"
	"$RS_BIN" report -i sf.data --json 2>/dev/null | python3 -c '
import json, sys
bd = json.load(sys.stdin)["breakdown"]
reads = {f["file"]: f["reads"] for f in bd["files"]}
assert reads == {"cgroup.stat": 10, "cpu.stat": 10}, reads' ||
		fail "sendfile(2) reads are not the 10 made"
else
	skip_part "no busybox: sendfile(2) reads not checked"
fi

# A shell's redirections move the file onto fd 0 (dup2, after F_DUPFD
# saved it) and close the first fd: 10 `cat <` reads of cpu.stat, and 5
# reads of cgroup.stat by `while read` (one byte a read(2), to the end).
"$RS_BIN" record --breakdown -q -o rd.data -- sh -c "for i in \$(seq 10); do
	cat < $cg/cpu.stat >/dev/null; done
	for i in 1 2 3 4 5; do while read l; do :; done < $cg/cgroup.stat; done" \
	2>err || fail "record of redirections: $(cat err)"
"$RS_BIN" report -i rd.data --json 2>/dev/null | python3 -c '
import json, sys
bd = json.load(sys.stdin)["breakdown"]
reads = {f["file"]: f["reads"] for f in bd["files"]}
assert reads == {"cgroup.stat": 5, "cpu.stat": 10}, reads' ||
	fail "reads through redirections are not the 10 and 5 made"

# -q: no table in the summary; the file still has it.
"$RS_BIN" record --breakdown -q -o q.data -- sh -c "cat $cg/cpu.stat >/dev/null" \
	>out 2>err || fail "record -q: $(cat err)"
grep -q "where a read's time goes" err && fail "record -q printed the table"
"$RS_BIN" report -i q.data --json 2>/dev/null |
	python3 -c 'import json,sys; assert json.load(sys.stdin)["breakdown"]["files"][0]["reads"] == 1' ||
	fail "record -q: the file has no breakdown of the one read"

# Without --breakdown: none timed, none kept.
"$RS_BIN" record -o no.data -- sh -c \
	"cat $cg/cpu.stat >/dev/null" >out 2>err ||
	fail "record without --breakdown: $(cat err)"
grep -q "where a read's time goes" err && fail "without --breakdown, a table"
"$RS_BIN" report -i no.data --json 2>/dev/null |
	python3 -c 'import json,sys; assert "breakdown" not in json.load(sys.stdin)' ||
	fail "without --breakdown, the file has a breakdown"

# --- record -p: a running loop, released once the recording is live ------
mkfifo go
bash -c 'read -r _ <"$1"; for ((i = 0; i < $2; i++)); do
	cat "$3/cpu.stat" >/dev/null; done; sleep 0.3' sh go $N "$cg" &
reader=$!
"$RS_BIN" record --breakdown -q -p $reader -o pid.data 2>err &
rec=$!
# The output gets its name once the programs are live.
for _ in $(seq 100); do [ -e pid.data ] && break; sleep 0.05; done
echo go >go
wait $rec || fail "record -p: $(cat err)"
reader=
check pid.data $N
perf_reads pid.data

# --- a hostile section: left out with one note, the report goes on -------
python3 - cmd.data <<'PY' || fail "cannot make the hostile copies"
import json, struct, sys
src = sys.argv[1]
data = bytearray(open(src, "rb").read())
data_off, data_size = struct.unpack_from("<QQ", data, 40)
bits = int.from_bytes(data[72:104], "little")
feats = [b for b in range(256) if bits >> b & 1]
assert 254 in feats, feats
table = data_off + data_size + 16 * feats.index(254)
off, size = struct.unpack_from("<QQ", data, table)
n = struct.unpack_from("<I", data, off)[0]
text = bytes(data[off + 4:off + 4 + n]).rstrip(b"\0")
assert "breakdown" in json.loads(text), text[:40]

def write(name, d):
    open(name, "wb").write(d)

# Not JSON any more.
d = bytearray(data)
d[off + 4:off + 4 + 12] = b"{{{{{{{{{{{{"
write("garbage.data", d)
# JSON cut short (its NUL moved to the middle).
d = bytearray(data)
d[off + 4 + len(text) // 2] = 0
write("cut.data", d)
# The section's size cut below its own length field.
d = bytearray(data)
struct.pack_into("<QQ", d, table, off, 2)
write("short.data", d)
# A length past the section's end.
d = bytearray(data)
struct.pack_into("<I", d, off, 0xfffffff0)
write("length.data", d)
# Well-formed, hostile: a file name of format directives.
d = bytearray(data)
j = d.index(b'"cpu.stat"', off)
d[j + 1:j + 9] = b"%n%s%n%s"
# No tree is that name's (split trees): null, padded to the same length.
for tree in (b'"tree": "base"', b'"tree":"base"'):
    k = d.find(tree, j)
    if k >= 0:
        d[k:k + len(tree)] = tree.split(b'"base"')[0] + b'null  '
write("format.data", d)
PY
for f in garbage cut short length; do
	"$RS_BIN" report -i $f.data >rep.txt 2>err ||
		fail "report of the $f section: exit $?: $(cat err)"
	grep -q "where a read's time goes" rep.txt &&
		fail "report printed a table from the $f section"
	grep -q "^Event counts" rep.txt || fail "report of the $f section stopped"
	case $f in
	garbage|cut)
		[ "$(grep -c 'read breakdown section' err)" -eq 1 ] ||
			fail "report of the $f section: not one note: $(cat err)";;
	esac
	grep -qi "sanitizer\|runtime error" err && fail "$f: $(cat err)"
done
# A format directive in a name is printed as it is, never interpreted.
"$RS_BIN" report -i format.data >rep.txt 2>err ||
	fail "report of the hostile name: $(cat err)"
grep -q "^%n%s%n%s: where a read's time goes, $N reads" rep.txt ||
	fail "the hostile name was not printed as it is: $(grep -m1 'time goes' rep.txt)"
grep -qi "sanitizer\|runtime error" err && fail "hostile name: $(cat err)"
rmdir "$cg" || fail "the test's cgroup is busy"
echo "ok"
