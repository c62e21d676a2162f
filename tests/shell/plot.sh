#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plot: every kind writes an image of the asked size (PNG: signature and
# IHDR; SVG: width/height attributes), keeps OUT.gp and OUT.dat that rerun
# in gnuplot to the same size, escapes titles, and fails in one line when
# gnuplot is missing or failing, or an input is bad.
. tests/shell/lib.sh

command -v gnuplot >/dev/null 2>&1 ||
	skip "gnuplot is not installed (Debian package gnuplot-nox)"

D=$RS_FIXTURES/plot
data=$RS_FIXTURES/flush-mixed.data
for f in "$D/before.json" "$D/after.json"; do
	python3 tests/shell/bench-schema.py docs/bench-results.schema.json \
		"$f" || fail "$f does not follow the schema"
done
"$RS_BIN" report -i "$data" --kallsyms "$(fixture_kallsyms)" --json \
	>"$TMP/report.json" 2>/dev/null || fail "report --json"

# check_image FILE W H
check_image() {
	python3 - "$@" <<'PY' || fail "$1: not a ${2}x${3} image"
import struct, sys
import xml.etree.ElementTree as ET
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if path.endswith(".png"):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    assert data[12:16] == b"IHDR", "IHDR first"
    gw, gh = struct.unpack(">II", data[16:24])
else:
    root = ET.fromstring(data)
    assert root.tag.endswith("svg"), root.tag
    gw, gh = int(root.get("width")), int(root.get("height"))
assert (gw, gh) == (w, h), "%dx%d" % (gw, gh)
PY
}

# plot KIND EXT SIZE INPUT...: plot, check, rerun the kept script.
plot() {
	local kind=$1 ext=$2 size=$3 w h out
	shift 3
	w=${size%x*} h=${size#*x}
	out=$TMP/$kind-$RANDOM.$ext
	"$RS_BIN" plot "$@" -o "$out" --kind "$kind" --size "$size" \
		2>"$TMP/err" || fail "plot --kind $kind $*: $(cat "$TMP/err")"
	check_image "$out" "$w" "$h"
	[ -s "$out.gp" ] && [ -s "$out.dat" ] ||
		fail "$kind: OUT.$ext.gp or OUT.$ext.dat not kept"
	rm "$out"
	gnuplot "$out.gp" 2>"$TMP/err" || fail "rerun $kind: $(cat "$TMP/err")"
	check_image "$out" "$w" "$h"
	echo "ok $kind $ext $size"
}

plot hist png 640x480 "$D/before.json" "$D/after.json"
plot hist svg 800x500 "$TMP/report.json"
plot hist png 700x400 "$D/before.json" "$TMP/report.json" --normalize
plot hist svg 640x480 "$TMP/report.json" --metric lock-hold
plot cdf svg 900x600 "$D/before.json" "$D/after.json"
plot cdf png 800x500 "$TMP/report.json" --metric lock-hold:base
plot bars png 500x500 "$TMP/report.json" "$TMP/report.json"
plot bars svg 640x400 "$D/before.json" "$D/after.json"
# One bench metric as bars: NAME:FILE picks read_ns of cpu.stat, and the
# bar is its mean in us, as in the results file.
plot bars png 640x400 "$D/before.json" "$D/after.json" --metric read_ns:cpu.stat
"$RS_BIN" plot "$D/before.json" "$D/after.json" -o "$TMP/rn.png" --kind bars \
	--metric read_ns:cpu.stat 2>"$TMP/err" || fail "bars --metric NAME:FILE"
python3 - "$TMP/rn.png.dat" "$D/before.json" "$D/after.json" <<'PY' ||
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l[0] != "#"]
assert len(rows) == 2 and all(len(r) == 2 for r in rows), rows
for row, path in zip(rows, sys.argv[2:]):
    ms = [m for r in json.load(open(path))["repetitions"] for m in r["metrics"]
          if m["name"] == "read_ns" and m["file"] == "cpu.stat"]
    want = sum(m["mean"] for m in ms) / len(ms) / 1000
    assert abs(float(row[1]) - want) < 1e-3 * want, (row, want)
print("ok bars --metric read_ns:cpu.stat: the means of the results")
PY
	fail "bars --metric read_ns:cpu.stat: not the metric's mean"
expect_error 1 "no metric 'read_ns:nope'" "$RS_BIN" plot "$D/before.json" \
	-o "$TMP/x.png" --kind bars --metric read_ns:nope
# A run with single figures only (as fault and pipe write): its rates.
python3 - "$D/before.json" "$TMP/rates.json" <<'PY' || fail "rates.json"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["repetitions"]:
    r["metrics"] = [m for m in r["metrics"] if m["kind"] == "value"]
    assert r["metrics"], "before.json has no single figure"
json.dump(d, open(sys.argv[2], "w"))
PY
plot bars png 500x400 "$TMP/rates.json"
plot timeline png 1000x400 "$data"
# The timeline has one point per lock hold, paired as report pairs them.
"$RS_BIN" plot "$data" -o "$TMP/holds.png" --kind timeline 2>/dev/null ||
	fail "timeline"
python3 - "$TMP/report.json" "$TMP/holds.png.dat" <<'PY' || fail "timeline points != report's lock pairs"
import json, sys
pairs = json.load(open(sys.argv[1]))["locks"]["pairs"]
pts = [l for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert len(pts) == pairs, (len(pts), pairs)
assert all(float(l.split()[0]) >= 0 and float(l.split()[1]) >= 0 for l in pts)
print("ok timeline: %d points, report's %d pairs" % (len(pts), pairs))
PY
plot timeline svg 800x500 "$data"
# Hold times span decades (a 14 ms outlier among microsecond holds made a
# line at zero of the rest): the axis is logarithmic when no hold is 0.
grep -q '^set logscale y' "$TMP/holds.png.gp" ||
	fail "timeline: linear hold-time axis: $(grep ylabel "$TMP/holds.png.gp")"
echo "ok timeline: log hold-time axis"

# The same name as .svg then .png: each image keeps its own script and
# data, and the first still reruns to what it drew.
"$RS_BIN" plot "$D/before.json" -o "$TMP/same.svg" --kind cdf 2>"$TMP/err" &&
	"$RS_BIN" plot "$D/after.json" -o "$TMP/same.png" 2>>"$TMP/err" ||
	fail "same name twice: $(cat "$TMP/err")"
grep -q 'set terminal svg' "$TMP/same.svg.gp" &&
	grep -q 'pngcairo' "$TMP/same.png.gp" &&
	grep -q 'kind cdf' "$TMP/same.svg.dat" &&
	grep -q 'kind hist' "$TMP/same.png.dat" ||
	fail "plotting x.png after x.svg overwrote x.svg's script or data"
echo "ok x.svg and x.png keep their own .gp and .dat"

# The last x label of a histogram is inside the image: 12 buckets of
# 2 us to 8 ms, labels up to "4194-8389" rotated by -45 degrees, two
# series, 480x300 pixels (pngcairo): no text pixel in the image's two
# rightmost columns (the PNG decoded here, filters and all).
python3 - "$TMP/wide.json" <<'PY' || fail "cannot write wide.json"
import json, sys
rows = [{"low": 1 << i, "high": (2 << i) - 1, "count": 1 + (4096 >> (i - 11))}
        for i in range(11, 23)]
json.dump({"attribution": [], "triggers": [],
           "spans": [{"name": "lock-hold", "subsystem": "base",
                      "hist": rows}]}, open(sys.argv[1], "w"))
PY
cp "$TMP/wide.json" "$TMP/wide2.json"
"$RS_BIN" plot "$TMP/wide.json" "$TMP/wide2.json" -o "$TMP/wide.png" \
	--size 480x300 2>"$TMP/err" || fail "plot wide.json: $(cat "$TMP/err")"
python3 - "$TMP/wide.png" <<'PY' || fail "the last x label is clipped"
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
pos, idat = 8, b""
while pos < len(d):
    n, t = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
    elif t == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and lace == 0 and ctype in (2, 6), (depth, ctype, lace)
bpp = 3 if ctype == 2 else 4
raw, stride, prev, dark = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pr) & 255
    dark += sum(sum(line[x * bpp:x * bpp + 3]) < 384 for x in (w - 2, w - 1))
    prev = line
assert not dark, "%d dark pixels at the right edge" % dark
print("ok the last x label ends inside the image")
PY

# A title with quotes, a backslash and a newline stays one gnuplot string.
title='say "hi" \ there
next'
"$RS_BIN" plot "$D/before.json" -o "$TMP/t.svg" --title "$title" \
	2>"$TMP/err" || fail "title with quotes: $(cat "$TMP/err")"
check_image "$TMP/t.svg" 800 500
python3 - "$TMP/t.svg" <<'PY' || fail "title not drawn as given"
import sys
s = open(sys.argv[1]).read()
assert 'say &quot;hi&quot; \\ there' in s or 'say "hi" \\ there' in s, "title"
PY
# So does an input name with quotes and a backslash.
cp "$D/after.json" "$TMP/a \"b\" \\c.json"
plot hist png 800x500 "$TMP/a \"b\" \\c.json"

# No gnuplot on PATH: one line saying what to install, exit 1. As root
# plot runs gnuplot as nobody, who must reach the stand-in below.
chmod 755 "$TMP"
mkdir -m 755 "$TMP/empty"
expect_error 1 "gnuplot not found on PATH: install .*gnuplot-nox" env PATH="$TMP/empty" \
	"$RS_BIN" plot "$D/before.json" -o "$TMP/x.png"
# gnuplot failing: its first error line in ours.
printf '#!/bin/sh\necho "\\"x.gp\\" line 3: broken terminal" >&2\nexit 1\n' \
	>"$TMP/empty/gnuplot"
chmod +x "$TMP/empty/gnuplot"
expect_error 1 "gnuplot failed .*line 3: broken terminal" env \
	PATH="$TMP/empty" "$RS_BIN" plot "$D/before.json" -o "$TMP/x.png"
# gnuplot reads the script from our pipe as /dev/stdin: its line numbers
# are the .gp's, and the message names the .gp, not the pipe.
printf '#!/bin/sh\necho "  plot x" >&2\necho "\\"/dev/stdin\\" line 7: invalid command" >&2\nexit 1\n' \
	>"$TMP/empty/gnuplot"
expect_error 1 "gnuplot failed on $TMP/x.png.gp: line 7: invalid command$" \
	env PATH="$TMP/empty" "$RS_BIN" plot "$D/before.json" -o "$TMP/x.png"
# And the real one: a script that fails on its line 2 says so.
printf 'set terminal pngcairo\nplot nosuchvariable\n' |
	gnuplot -d -e 'rs_stdout = 1' /dev/stdin 2>"$TMP/real.err" >/dev/null &&
	fail "gnuplot drew an undefined variable"
grep -q '^"/dev/stdin" line 2: ' "$TMP/real.err" ||
	fail "gnuplot 5.4 names /dev/stdin otherwise: $(cat "$TMP/real.err")"
# gnuplot exiting 0 without an image: one line, no image left.
printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$TMP/empty/gnuplot"
rm -f "$TMP/x.png"
expect_error 1 "gnuplot failed on .*without writing an image" env \
	PATH="$TMP/empty" "$RS_BIN" plot "$D/before.json" -o "$TMP/x.png"
[ ! -e "$TMP/x.png" ] || fail "an empty image was left"
echo "ok gnuplot's error lines and a missing image: one line each"

# Bad inputs: one line, exit 1.
expect_error 1 "$TMP/nope: No such file" "$RS_BIN" plot "$TMP/nope" \
	-o "$TMP/x.png"
printf '{"spans": [' >"$TMP/trunc.json"
expect_error 1 "trunc.json: line 1" "$RS_BIN" plot "$TMP/trunc.json" \
	-o "$TMP/x.png"
sed 's/"count": 40/"count": 41/' "$D/before.json" >"$TMP/badcount.json"
expect_error 1 "badcount.json" "$RS_BIN" plot "$TMP/badcount.json" \
	-o "$TMP/x.png"
expect_error 1 "not a recording" "$RS_BIN" plot "$D/before.json" \
	-o "$TMP/x.png" --kind timeline
expect_error 1 "only as --kind timeline" "$RS_BIN" plot "$data" \
	-o "$TMP/x.png" --kind hist
expect_error 1 "no metric" "$RS_BIN" plot "$D/before.json" \
	-o "$TMP/x.png" --metric nothing
expect_error 1 "x.png.(dat|gp)|nodir" "$RS_BIN" plot "$D/before.json" \
	-o "$TMP/nodir/x.png"
# Usage: exit 2.
expect_error 2 "png or .svg" "$RS_BIN" plot "$D/before.json" -o "$TMP/x.jpg"
expect_error 2 "--size" "$RS_BIN" plot "$D/before.json" -o "$TMP/x.png" \
	--size 0x10
expect_error 2 "--kind" "$RS_BIN" plot "$D/before.json" -o "$TMP/x.png" \
	--kind pie
expect_error 2 "-o OUT.png" "$RS_BIN" plot "$D/before.json"

# record's default recording times holds in the kernel (BPF): a timeline
# of it says so and names --spans perf, not "record with rstat-analyze".
if [ "$(id -u)" -eq 0 ] &&
   "$RS_BIN" record -q -a -d 1 -o "$TMP/bpf.data" 2>"$TMP/err" &&
   "$RS_BIN" report -i "$TMP/bpf.data" --json 2>/dev/null |
	python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["kernel_spans"] else 1)'; then
	expect_error 1 "timed in the kernel .*--spans perf" "$RS_BIN" plot \
		"$TMP/bpf.data" --kind timeline -o "$TMP/tl.png"
else
	skip_part "no BPF-timed recording here (not root, or BPF refused): the timeline's message for one is not checked"
fi
exit 0
