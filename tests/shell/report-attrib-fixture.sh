#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report's attribution and spans on the real recording flush-mixed.data,
# checked against perf's own reading of it (flush-mixed.script.gz: every
# sample and frame; flush-mixed.trace.txt.gz: the tracepoint fields):
#  - cpu-clock samples in flushes under cpu.stat reads are base flushes with
#    the trigger cpu.stat, those under memory.stat reads memory flushes with
#    the trigger memory.stat, counted from perf's stacks here;
#  - the lock pairs, unmatched ends, user spans and memcg flush requests
#    equal what the pairing rules give on perf's decoding of the fields;
#  - the skid warning and the sampled-tracepoint caution are given;
#  - --hist prints funclatency's format, --csv parses, --rules-dump reloads.
. tests/shell/lib.sh

data=$RS_FIXTURES/flush-mixed.data
ksyms=$(fixture_kallsyms)
gzip -dc "$RS_FIXTURES/flush-mixed.script.gz" >"$TMP/script"
gzip -dc "$RS_FIXTURES/flush-mixed.trace.txt.gz" >"$TMP/trace"

"$RS_BIN" report -i "$data" --kallsyms "$ksyms" --json \
	--span cgroup:cgroup_rstat_locked,cgroup:cgroup_rstat_unlock \
	>"$TMP/out.json" 2>"$TMP/err" || fail "report --json: $(cat "$TMP/err")"
grep -q 'skid' "$TMP/err" && grep -q 'PMU' "$TMP/err" ||
	fail "no skid warning for cpu-clock: $(cat "$TMP/err")"
[ "$(grep -c skid "$TMP/err")" -eq 1 ] || fail "skid warning not given once"
grep -q 'cgroup_rstat_locked was sampled' "$TMP/err" ||
	fail "no caution about the sampled tracepoints: $(cat "$TMP/err")"

python3 - "$TMP/out.json" "$TMP/script" "$TMP/trace" <<'PY' || fail "attribution or spans differ from perf's reading"
import json, re, sys

d = json.load(open(sys.argv[1]))

# Oracle 1: perf script's stacks. A sample with a frame of the tracing
# machinery (issue 13's list: perf_trace_*, perf_tp_event*,
# perf_swevent_*, trace_event_raw_event_*, perf_trace_buf_*,
# bpf_trace_run*...) is instrumentation, whatever it interrupted. Else a
# flush sample has a flush frame in its stack (css_rstat_flush, or
# __mem_cgroup_flush_stats: on 6.18 the memory.stat path shows both); the
# reader frame above it says which.
FLUSH = {"css_rstat_flush", "__mem_cgroup_flush_stats"}
INSTR = ("perf_trace_", "perf_tp_event", "perf_swevent_",
         "trace_event_raw_event_", "perf_trace_buf_", "bpf_trace_run")
want = {"base": 0, "memory": 0, "instrumentation": 0}
trig = {"cpu.stat": 0, "memory.stat": 0}
total = 0
for block in open(sys.argv[2]).read().split("\n\n"):
    lines = block.strip("\n").split("\n")
    if not lines or not re.search(r" cpu-clock: *$", lines[0]):
        continue
    total += 1
    syms = [re.sub(r"\+0x[0-9a-f]+$", "", l.split()[1]) for l in lines[1:]
            if len(l.split()) >= 2]
    syms = [re.sub(r"\..*$", "", s) for s in syms]
    if any(s.startswith(INSTR) for s in syms):
        want["instrumentation"] += 1
        continue
    if not FLUSH & set(syms):
        continue
    if "cgroup_base_stat_cputime_show" in syms:
        want["base"] += 1
        trig["cpu.stat"] += 1
    elif "memcg1_stat_format" in syms:
        want["memory"] += 1
        trig["memory.stat"] += 1
    else:
        sys.exit("flush stack with no known reader: %s" % syms)
print("perf's stacks: %d cpu-clock samples, flushes %s, triggers %s"
      % (total, want, trig))
# Issue 13: the memory.stat flush is 2 samples once the tracepoint
# handler's 8 under it are the recorder's; the category must be there.
if want["memory"] != 2 or want["instrumentation"] < 8:
    sys.exit("the fixture's reading changed: %s" % want)

got = {a["category"]: a["samples"] for a in d["attribution"]
       if a["event"] == "cpu-clock"}
if sum(got.values()) != total:
    sys.exit("attribution covers %d samples, perf shows %d"
             % (sum(got.values()), total))
for cat, n in want.items():
    if got.get(cat, 0) != n:
        sys.exit("%s: %d samples, perf's stacks give %d"
                 % (cat, got.get(cat, 0), n))
flush_cats = {"memory", "io", "base", "bpf", "core", "memcg-walk"}
extra = {c: n for c, n in got.items() if c in flush_cats and c not in want}
if extra:
    sys.exit("unexpected flush categories %s" % extra)
gt = {t["trigger"]: t["samples"] for t in d["triggers"]
      if t["event"] == "cpu-clock"}
if gt != {k: v for k, v in trig.items() if v}:
    sys.exit("triggers %s, perf's stacks give %s" % (gt, trig))
for ct in d["category_triggers"]:
    if (ct["category"], ct["trigger"]) not in (("base", "cpu.stat"),
                                               ("memory", "memory.stat")):
        sys.exit("unexpected category x trigger %s" % ct)
if not d["skid"] or d["skid"]["event"] != "cpu-clock" or \
        not 0 < d["skid"]["fraction"] <= 1:
    sys.exit("skid: %s" % d["skid"])

# Oracle 2: the tracepoint fields as perf decodes them, paired by the
# documented rules: per (tid, cpu), a locked then the next unlock with the
# same root, id and cpu field.
pat = re.compile(r"^\s*\S+\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+): (.*)$")
open_ = {}
pairs = ustart = uend = 0
memcg = {"requested": 0, "performed": 0, "forced": 0, "skipped": 0}
user_open, user_pairs, user_uend = {}, 0, 0
for line in open(sys.argv[3]):
    m = pat.match(line)
    if not m:
        continue
    tid, cpu, ev, rest = m.group(1), m.group(2), m.group(4), m.group(5)
    f = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
    key = (tid, cpu)
    if ev == "cgroup:cgroup_rstat_locked":
        if key in open_:
            ustart += 1
        open_[key] = (f["root"], f["id"], f["cpu"])
        user_open.setdefault(tid, []).append(1)
    elif ev == "cgroup:cgroup_rstat_unlock":
        fields = (f["root"], f["id"], f["cpu"])
        if key not in open_:
            uend += 1
        elif open_[key] != fields:
            uend += 1
            ustart += 1
            del open_[key]
        else:
            pairs += 1
            del open_[key]
        if user_open.get(tid):
            user_open[tid].pop()
            user_pairs += 1
        else:
            user_uend += 1
    elif ev == "memcg:memcg_flush_stats":
        force, needs = f["force"] != "0", f["needs_flush"] != "0"
        memcg["requested"] += 1
        memcg["performed"] += force or needs
        memcg["forced"] += force
        memcg["skipped"] += not (force or needs)
ustart += len(open_)
print("perf's fields: %d pairs, %d unmatched starts, %d unmatched ends; "
      "memcg %s" % (pairs, ustart, uend, memcg))
L = d["locks"]
if (L["pairs"], L["unmatched_start"], L["unmatched_end"]) != \
        (pairs, ustart, uend):
    sys.exit("locks %s, perf's fields give %d pairs, %d/%d unmatched"
             % (L, pairs, ustart, uend))
if L["locked"] != 439 or L["unlocked"] != 438:
    sys.exit("locked/unlock counts %s" % L)
if L["sampled_event"] != "cgroup:cgroup_rstat_locked":
    sys.exit("sampled tracepoints not flagged: %s" % L)
hold = sum(s["count"] for s in d["spans"] if s["name"] == "lock-hold")
if hold != pairs:
    sys.exit("lock-hold spans count %d, pairs %d" % (hold, pairs))
subs = {s["subsystem"] for s in d["spans"] if s["name"] == "lock-hold"}
if not subs <= {"base", "memory"} or "base" not in subs:
    sys.exit("lock-hold subsystems %s" % subs)
user = [s for s in d["spans"]
        if s["name"] == "cgroup:cgroup_rstat_locked,cgroup:cgroup_rstat_unlock"]
if len(user) != 1 or user[0]["count"] != user_pairs or \
        user[0]["unmatched_end"] != user_uend:
    sys.exit("user span %s, perf's fields give %d pairs, %d unmatched ends"
             % (user, user_pairs, user_uend))
mc = d["memcg_flush_stats"]
for k, v in memcg.items():
    if mc[k] != v:
        sys.exit("memcg_flush_stats %s = %d, perf's fields give %d"
                 % (k, mc[k], v))
for s in d["spans"]:
    if not s["min_ns"] <= s["p50_ns"] <= s["p90_ns"] <= s["p99_ns"] <= \
            s["max_ns"] or sum(b["count"] for b in s["hist"]) != s["count"]:
        sys.exit("inconsistent span %s" % s)
counts = {c["event"]: c["count"] for c in d["counts"]}
if counts.get("cpu-clock") != 21047 or \
        counts.get("memcg:memcg_flush_stats") != 440:
    sys.exit("counts %s" % counts)
PY

# Text: 80 columns, the tables, and funclatency's histogram format.
"$RS_BIN" report -i "$data" --kallsyms "$ksyms" --hist --unit us \
	--span cgroup:cgroup_rstat_locked,cgroup:cgroup_rstat_unlock \
	>"$TMP/out.txt" 2>"$TMP/err" || fail "report --hist: $(cat "$TMP/err")"
# A span's name is not cut to the column: it gets its own line.
grep -qx 'cgroup:cgroup_rstat_locked,cgroup:cgroup_rstat_unlock' "$TMP/out.txt" ||
	fail "the span's name is not printed whole"
awk 'length > 80 { print "line " NR " is " length " columns: " $0; bad = 1 }
     END { exit bad }' "$TMP/out.txt" || fail "text wider than 80 columns"
for want in "Attribution of cpu-clock" "Flush triggers" "Lock hold time" \
	"Work per flush" "Locks per cgroup" "memcg_flush_stats:" \
	"Event counts" "short lock after a cpu.stat flush"; do
	grep -q "$want" "$TMP/out.txt" || fail "text report lacks '$want'"
done
grep -q '^     usecs               : count     distribution$' "$TMP/out.txt" ||
	fail "no funclatency header"
grep -Eq '^         0 -> 1          : [0-9]+ +\|[* ]{40}\|$' "$TMP/out.txt" ||
	fail "no funclatency 0 -> 1 row"
grep -Eq '^avg = [0-9]+ usecs, total: [0-9]+ usecs, count: [0-9]+$' \
	"$TMP/out.txt" || fail "no funclatency avg line"
grep -Eq '^p50 = [0-9]+ usecs, p90 = [0-9]+ usecs, p99 = [0-9]+ usecs, max = [0-9]+ usecs$' \
	"$TMP/out.txt" || fail "no percentile line"
"$RS_BIN" report -i "$data" --kallsyms "$ksyms" --hist --unit ms \
	>"$TMP/ms.txt" 2>/dev/null || fail "report --unit ms"
grep -q '^     msecs               : count     distribution$' "$TMP/ms.txt" ||
	fail "--unit ms did not change the histogram unit"

# CSV: blocks separated by blank lines, each a header and rows of its width.
"$RS_BIN" report -i "$data" --kallsyms "$ksyms" --csv --hist \
	>"$TMP/out.csv" 2>/dev/null || fail "report --csv"
python3 - "$TMP/out.csv" <<'PY' || fail "CSV does not parse"
import csv, io, sys
blocks = open(sys.argv[1]).read().strip("\n").split("\n\n")
tables = {}
for b in blocks:
    rows = list(csv.reader(io.StringIO(b)))
    head = rows[0]
    if head[0] != "table":
        sys.exit("block without header: %s" % head)
    for r in rows[1:]:
        if len(r) != len(head):
            sys.exit("row %s has %d fields, header %d" % (r, len(r), len(head)))
        tables.setdefault(r[0], []).append(dict(zip(head, r)))
for t in ("attribution", "triggers", "spans", "counts", "hist"):
    if t not in tables:
        sys.exit("no %s table" % t)
base = [r for r in tables["attribution"] if r["category"] == "base"]
if not base or int(base[0]["samples"]) <= 0:
    sys.exit("no base row")
PY

# Flush lengths come from the same records as the holds: the text states
# their recording cost under the flush table, with the hold table's
# smallest min as the bound (--unit ns: no rounding between the two).
"$RS_BIN" report -i "$data" --kallsyms "$ksyms" --unit ns >"$TMP/text" \
	2>/dev/null || fail "report (text) failed"
python3 - "$TMP/text" <<'PY' || fail "flush recording cost not stated"
import re, sys
text = open(sys.argv[1]).read()
holds = text[text.index("Lock hold time"):text.index("pairs:")]
rows = [l.split() for l in holds.splitlines()[2:] if l.strip()]
bound = min(int(r[3]) for r in rows)
flush = text[text.index("Work per flush"):]
flush = flush[:flush.index("\n\n")]
m = re.search(r"recording cost: a flush of N locks is 2N records; the "
              r"2N - 1 gaps\nbetween them hold at most 2N - 1 times (\d+) ns",
              flush)
assert m, "no cost line under the flush table:\n" + flush
assert int(m.group(1)) == bound, (m.group(1), bound)
PY

# The rule table dumps in the format it loads, and reloads unchanged.
"$RS_BIN" report --rules-dump >"$TMP/rules" || fail "--rules-dump"
grep -q '^css_rstat_flush ' "$TMP/rules" || fail "dump lacks css_rstat_flush"
"$RS_BIN" report --rules "$TMP/rules" --rules-dump >"$TMP/rules2" ||
	fail "--rules with the dump"
cmp -s "$TMP/rules" "$TMP/rules2" || fail "dump does not reload unchanged"

# Bad requests.
expect_error 1 "no sample of 'nosuch:event'" "$RS_BIN" report -i "$data" \
	--kallsyms "$ksyms" --span nosuch:event,cgroup:cgroup_rstat_unlock
expect_error 2 "START,END" "$RS_BIN" report -i "$data" --span justone
expect_error 2 "use ns, us or ms" "$RS_BIN" report -i "$data" --unit s
expect_error 2 "do not go together" "$RS_BIN" report -i "$data" --json --csv
echo "attribution, spans and formats agree with perf's reading"
