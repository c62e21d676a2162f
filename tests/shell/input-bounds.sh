#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inputs arrive by mail: none may cost more memory than a small multiple
# of its size, and none is cut short without a word.
#  - JSON that compare reads (the reader plot and bench share): peak RSS
#    at most 8x the file plus 24 MiB for hostile shapes (a flat array of
#    zeros, [[0],[0],...], nests 31 deep, thousands of unique members,
#    short strings, empty objects, report --json's spans and hist rows
#    left empty), each parsed or refused; 60 MB of
#    [0],[0],... is refused with its line. RSS is measured on the plain
#    build ($RS_TOOL): the sanitizers' own memory would swamp it.
#  - perf script text with a line of 16 MiB or more is refused with the
#    file name and that line, one line on stderr, exit 1: a header (not
#    "record with -g") and a frame line (not a stack without its leaf).
. tests/shell/lib.sh

tool=${RS_TOOL:-$PWD/rstat-analyze}
[ -x "$tool" ] || skip "the plain build $tool is not built (make all)"

# gen KIND BYTES FILE: a hostile JSON object of about BYTES.
gen() {
	python3 - "$@" <<'EOF'
import sys
kind, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
body = size - 8
with open(out, 'w') as f:
    # report --json's arrays of rows, typed by compare: empty rows.
    if kind in ('spans', 'hist'):
        n = (body - 40) // 3
        f.write('{"attribution": [], "triggers": [], "spans": [' + ('{"name": "a", "hist": [' if kind == 'hist'
                                 else '') + '{},' * (n - 1) + '{}]' +
                ('}]}' if kind == 'hist' else '}'))
        sys.exit(0)
    if kind == 'attribution':
        n = (body - 40) // 3
        f.write('{"attribution": [' + '{},' * (n - 1) + '{}], "triggers": [], "spans": []}')
        sys.exit(0)
    f.write('{"x": ')
    if kind == 'pairs':
        n = body // 4
        f.write('[' + '[0],' * (n - 1) + '[0]]')
    elif kind == 'zeros':
        n = body // 2
        f.write('[' + '0,' * (n - 1) + '0]')
    elif kind == 'deep':
        unit = '[' * 30 + '0' + ']' * 30
        n = body // (len(unit) + 1)
        f.write('[' + ','.join([unit] * n) + ']')
    elif kind == 'members':
        parts, n, total = [], 0, 2
        while total < body:
            k = '"%x":0' % n
            parts.append(k)
            total += len(k) + 1
            n += 1
        f.write('{' + ','.join(parts) + '}')
    elif kind == 'strings':
        n = body // 3
        f.write('[' + '"",' * (n - 1) + '""]')
    elif kind == 'objects':
        n = body // 3
        f.write('[' + '{},' * (n - 1) + '{}]')
    f.write('}')
EOF
}

# peak FILE: run compare on FILE, print "RC MAXRSS_BYTES", stderr in
# $TMP/stderr.
peak() {
	python3 - "$tool" "$1" "$TMP/stderr" <<'EOF'
import resource, subprocess, sys
tool, f, err = sys.argv[1:4]
with open(err, 'w') as e:
    rc = subprocess.run([tool, 'compare', f, '--', f], stdout=subprocess.DEVNULL,
                        stderr=e, timeout=120).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
EOF
}

const=$((24 << 20))
for spec in zeros:8000000 pairs:8000000 deep:8000000 members:12000000 \
	    strings:12000000 objects:12000000 spans:12000000 hist:12000000 \
	    attribution:12000000 \
	    pairs:60000000; do
	kind=${spec%%:*} size=${spec##*:}
	f=$TMP/$kind-$size.json
	gen "$kind" "$size" "$f" || fail "could not write $f"
	bytes=$(stat -c %s "$f")
	read -r rc rss < <(peak "$f") || fail "could not run $tool on $f"
	[ "$rc" = 1 ] ||
		fail "compare $kind ($bytes bytes): exit $rc, expected 1 (not bench results): $(head -c 300 "$TMP/stderr")"
	[ "$(wc -l <"$TMP/stderr")" = 1 ] ||
		fail "compare $kind: not one line on stderr: $(head -c 600 "$TMP/stderr")"
	if [ "$size" -gt 40000000 ]; then
		grep -q "^rstat-analyze: $f: line 1: more than [0-9]* values" \
			"$TMP/stderr" ||
			fail "60 MB of [0],...: not refused by the value cap: $(cat "$TMP/stderr")"
	elif [ "$kind" = spans ] || [ "$kind" = hist ]; then
		grep -q "spans\[0\]" "$TMP/stderr" ||
			fail "compare $kind: not refused at the first row: $(cat "$TMP/stderr")"
	elif [ "$kind" = attribution ]; then
		grep -q "attribution\[0\]" "$TMP/stderr" ||
			fail "compare $kind: not refused at the first row: $(cat "$TMP/stderr")"
	else
		# Parsed: the error is about what the JSON holds.
		grep -q "without \"schema\"" "$TMP/stderr" ||
			fail "compare $kind: not parsed: $(cat "$TMP/stderr")"
	fi
	echo "ok $kind: $bytes bytes, peak RSS $((rss >> 20)) MiB ($(( rss * 10 / bytes )) tenths of the size)"
	[ "$rss" -le $((8 * bytes + const)) ] ||
		fail "compare $kind: peak RSS $rss bytes for $bytes bytes of JSON: over 8x + 24 MiB"
done

# perf script text with a line of 16 MiB or more.
python3 - "$TMP" <<'EOF'
import sys
d = sys.argv[1]
big = 16 << 20
with open(d + '/head.txt', 'w') as f:
    f.write('p' * big + ' 1 1.0: 3 cycles:\n\t1 a (/x)\n\n')
with open(d + '/frame.txt', 'w') as f:
    f.write('pp 1 1.0: 3 cycles:\n\t1 a (/x)\n\t2 ' + 'b' * big + ' (/x)\n\n')
with open(d + '/fits.txt', 'w') as f:
    line = '\t1 ' + 'c' * (big - 1 - 3 - 5) + ' (/x)\n'
    assert len(line) == big
    f.write('pp 1 1.0: 3 cycles:\n' + line + '\n')
EOF
expect_error 1 "^rstat-analyze: $TMP/head.txt: line 1: a line of 16 MiB or more" \
	"$RS_BIN" report -i "$TMP/head.txt" --folded
grep -q 'record with -g' "$TMP/stderr" && fail "a long header read as no callchain"
expect_error 1 "^rstat-analyze: $TMP/frame.txt: line 3: a line of 16 MiB or more" \
	"$RS_BIN" report -i "$TMP/frame.txt" --folded
[ -s "$TMP/stdout" ] && fail "a stack was printed without its long frame"
expect_error 1 "^rstat-analyze: -: line 3: a line of 16 MiB or more" \
	sh -c "'$RS_BIN' report -i - --folded <'$TMP/frame.txt'"
# Just under the limit, the line is read whole: "pp;" 16 MiB - 9 "c"s " 3".
timeout 60 "$RS_BIN" report -i "$TMP/fits.txt" --folded >"$TMP/out" \
	2>"$TMP/stderr" || fail "a line just under 16 MiB was refused: $(head -c 300 "$TMP/stderr")"
[ "$(wc -c <"$TMP/out")" = $(( (16 << 20) - 3 )) ] ||
	fail "a line just under 16 MiB did not come out whole: $(wc -c <"$TMP/out") bytes"
echo "ok perf script lines: $(head -c 200 "$TMP/stderr")"
exit 0
