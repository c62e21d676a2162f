#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What record writes, as perf itself reads it back: `perf report
# --header-only` (each event's EVENT_DESC ids are that event's own, the
# ids of the file's attr section, which name its samples; NRCPUS; the
# command line as given), `perf evlist -v` (the uprobe's PMU type and the
# sample types) and `perf buildid-list` (the running kernel's build id, as
# `perf buildid-list -k` reads it). The attr section is read here with a
# few lines of Python written from perf's file format, not with our reader.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "needs root (system-wide recording)"
[ -d /sys/bus/event_source/devices/uprobe ] ||
	skip "this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS)"
need_perf
loop=$PWD/build/workloads/loop
[ -x "$loop" ] || fail "$loop is not built (make tests builds it)"

out=$TMP/w.data
"$RS_BIN" record -q -a -d 5 -F 99 -o "$out" --uprobe "$loop:loop_body:5" \
	-- "$loop" 100 >/dev/null 2>"$TMP/err" ||
	fail "record: $(cat "$TMP/err")"
for cmd in "report --header-only" "evlist -v" buildid-list; do
	perf $cmd -i "$out" >"$TMP/${cmd%% *}.out" 2>"$TMP/perf.err" ||
		fail "perf $cmd: $(head -3 "$TMP/perf.err")"
	[ -s "$TMP/perf.err" ] &&
		fail "perf $cmd warns: $(head -3 "$TMP/perf.err")"
done
kid=$(perf buildid-list -k 2>/dev/null)
[ -n "$kid" ] || fail "perf buildid-list -k names no kernel build id"

python3 - "$out" "$TMP/report.out" "$TMP/evlist.out" "$TMP/buildid-list.out" \
	"$kid" "$(nproc)" "$(getconf _NPROCESSORS_CONF)" "$RS_BIN" "$loop" \
	"$(cat /sys/bus/event_source/devices/uprobe/type)" <<'PY' ||
import re, struct, sys
data, hdr, evl, bids, kid, online, avail, rs, loop, utype = sys.argv[1:]
hdr, evl, bids = open(hdr).read(), open(evl).read(), open(bids).read()
bad = []

# perf.data's header: magic, size, attr_size, then the attrs section
# (offset, size); each attr entry is the attr and an ids section.
raw = open(data, "rb").read()
assert raw[:8] == b"PERFILE2", raw[:8]
hsize, attr_size, aoff, asz = struct.unpack_from("<QQQQ", raw, 8)
file_ids = []
for off in range(aoff, aoff + asz, attr_size):
    ioff, isz = struct.unpack_from("<QQ", raw, off + attr_size - 16)
    file_ids.append(sorted(struct.unpack_from("<%dQ" % (isz // 8), raw,
                                              ioff)))

# EVENT_DESC as perf prints it.
desc = re.findall(r"^# event : name = ([^,]+), , id = \{ ([0-9, ]+) \}",
                  hdr, re.M)
names = [n for n, _ in desc]
desc_ids = [sorted(int(i) for i in ids.split(",")) for _, ids in desc]
if desc_ids != file_ids:
    bad.append("EVENT_DESC ids %s, the attr section's %s" % (desc_ids,
                                                            file_ids))
flat = [i for ids in desc_ids for i in ids]
if len(flat) != len(set(flat)):
    bad.append("two events share an id in EVENT_DESC: %s" % desc_ids)
if "probe_loop:loop_body_L5" not in names:
    bad.append("no uprobe event in EVENT_DESC: %s" % names)
# One id per CPU for each system-wide event.
for n, ids in zip(names, desc_ids):
    if len(ids) != int(online):
        bad.append("%s: %d ids for %s CPUs" % (n, len(ids), online))

def line(prefix):
    m = re.search(r"^# %s : (.*)$" % re.escape(prefix), hdr, re.M)
    return m.group(1) if m else None

if line("nrcpus online") != online:
    bad.append("nrcpus online %s, expected %s" % (line("nrcpus online"),
                                                   online))
if line("nrcpus avail") != avail:
    bad.append("nrcpus avail %s, expected %s" % (line("nrcpus avail"), avail))
want = "%s record -q -a -d 5 -F 99 -o %s --uprobe %s:loop_body:5 -- %s 100 " \
    % (rs, data, loop, loop)
if line("cmdline") != want:
    bad.append("cmdline %r, expected %r" % (line("cmdline"), want))

# -F 99: cpu-clock sampled by frequency, at 99 Hz.
m = re.search(r"^cpu-clock: type: 1, .*\{ sample_period, sample_freq \}: "
              r"(\d+),.* freq: 1,", evl, re.M)
if not m or m.group(1) != "99":
    bad.append("evlist -v: cpu-clock is not sampled at -F 99: %s" %
               (m and m.group(0)))
m = re.search(r"^probe_loop:loop_body_L5: type: (\d+),.*sample_type: ([A-Z|]+)",
              evl, re.M)
if not m or m.group(1) != utype or "CALLCHAIN" not in m.group(2):
    bad.append("evlist -v: the uprobe is %s" % (m and m.group(0)))
if [l.split(": type: ")[0] for l in evl.splitlines()
        if not l.startswith("#")] != names:
    bad.append("evlist names %s, EVENT_DESC's %s" % (evl.splitlines(), names))

if kid + " [kernel.kallsyms]" not in bids.splitlines():
    bad.append("buildid-list %r lacks the kernel's %r" % (bids, kid))
if bad:
    sys.exit("\n".join(bad))
print("ok: %d events, ids, nrcpus, cmdline and build id as perf reads them"
      % len(names))
PY
	fail "perf reads back something else than was recorded"
exit 0
