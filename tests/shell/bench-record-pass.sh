#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 13: a recorded bench never reports a latency taken while it was
# recording. The timed repetitions run unrecorded; one more pass of the
# same workload runs under the recorder and is kept apart as what the
# recording cost. Checked: the printed and saved latencies are the
# repetitions' (not the recorded pass's), the pass is in the results
# under "recording", it is slower (the observer effect it exists to
# show), and the recording holds no sample of the timed repetitions.
# The recorder is live before the pass starts and until it ends: the
# recording's spans (timed in the kernel where BPF loads) count a flush
# for every one of the pass's reads. No flush stack of the recording
# holds a frame of the tracing machinery (that is the instrumentation
# category's, never a flush's).
. tests/shell/lib.sh
. tests/shell/bench-lib.sh
cd "$TMP" || fail cd

"$RS_BIN" bench stat-read --children 4 --updater cpu --reads 3000 \
	--files cpu.stat -r 2 --record -o out >out.txt 2>err ||
	fail "bench --record: $(cat err)"
validate out/results.json
grep -q "^What recording cost" out.txt || fail "no recording cost printed"
python3 - out/results.json out.txt <<'PY' || fail "recorded figures leaked into the results"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert d["schema"] == "rstat-analyze-bench/4", d["schema"]
assert len(d["repetitions"]) == 2, len(d["repetitions"])
rec = d["recording"]
assert rec["file"] == "out/rstat.data", rec
passm = [m for m in rec["pass"]["metrics"] if m["name"] == "read_ns"]
assert len(passm) == 1 and passm[0]["count"] == 3000, passm
reps = [[m for m in r["metrics"] if m["name"] == "read_ns"][0]
        for r in d["repetitions"]]
# What is printed per repetition is the unrecorded figure.
printed = re.findall(r"^p50 = ([\d.]+) (nsecs|usecs)", text, re.M)
assert len(printed) == 2, printed
for (v, unit), m in zip(printed, reps):
    # hist__print()'s summary rounds to the nearest, a half up (figure.h).
    want = m["p50"] if unit == "nsecs" else (m["p50"] + 500) // 1000
    assert float(v) == want, (v, unit, m["p50"])
# The recorder inflates the read it observes: that is what the pass shows.
base = sorted(m["p50"] for m in reps)[0]
assert passm[0]["p50"] > base, (passm[0]["p50"], base)
print("p50 unrecorded %d ns, recorded %d ns" % (base, passm[0]["p50"]))
PY
# The recording's command line is the bench the user ran, as perf reads
# it from the header (no `record` command line nobody typed).
if command -v perf >/dev/null 2>&1; then
	perf report --header-only -i out/rstat.data 2>/dev/null |
		grep '^# cmdline' >cmdline.txt
	grep -q "^# cmdline : rstat-analyze bench stat-read --children 4 --updater cpu --reads 3000 --files cpu.stat -r 2 --record -o out *$" \
		cmdline.txt || fail "the recording's command line, as perf reads it: $(cat cmdline.txt)"
else
	skip_part "no perf: the recording's command line is not checked"
fi
# The recording covers the recorded pass only: the reader of the timed
# repetitions ran before the recorder started.
"$RS_BIN" report -i out/rstat.data --json >rep.json 2>rep.err ||
	fail "report of the recording: $(cat rep.err)"
python3 - rep.json 3000 <<'PY' || fail "the recording missed the pass or counts the recorder as flush work"
import json, re, sys
d = json.load(open(sys.argv[1]))
reads = int(sys.argv[2])
ks = d["kernel_spans"]
if ks is not None:
    base = [s for s in ks["spans"] if s["name"] == "flush"
            and s["subsystem"] == "base"]
    assert base and base[0]["count"] >= reads, (base, reads)
    print("base flushes timed in the kernel: %d for %d reads" %
          (base[0]["count"], reads))
else:
    # perf's records of the lock tracepoints: three holds per read
    assert d["locks"]["pairs"] >= 3 * reads, d["locks"]
tracing = re.compile(r"(^|;)(perf_trace_|perf_tp_event|perf_swevent_|"
                     r"trace_event_raw_event_|perf_trace_buf_|bpf_trace_run|"
                     r"perf_output_|perf_callchain|kprobe_|uprobe_)")
bad = [s["stack"] for s in d["flush_stacks"] if tracing.search(s["stack"])]
assert not bad, bad[:3]
PY
no_leftovers "bench --record"
