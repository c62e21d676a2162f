#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report's text fits 80 columns, as its man page promises (tables to
# paste into an email): the bundled recordings with and without --hist,
# and flush-mixed.data with its memcg_flush_stats stats_updates fields
# made 10^9 times larger (the raw field, after memcg_id 6272, patched in
# place), whose figures pushed the stats_updates line past 80 columns.
. tests/shell/lib.sh

ks=$(fixture_kallsyms)
python3 - "$RS_FIXTURES/flush-mixed.data" "$TMP/big.data" <<'PY' ||
import re, struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
n = 0
for m in re.finditer(re.escape(struct.pack("<Q", 6272)), bytes(d)):
    i = m.start() + 8
    v = struct.unpack("<q", d[i:i + 8])[0]
    if v in (64, 128, 192):
        d[i:i + 8] = struct.pack("<q", v * 10**9)
        n += 1
assert n > 0, "no stats_updates field found"
open(sys.argv[2], "wb").write(d)
PY
	fail "cannot patch flush-mixed.data"
for f in "$RS_FIXTURES/flush-mixed.data" "$RS_FIXTURES/pipe-mode.data" \
	 "$TMP/big.data"; do
	for opt in "" --hist; do
		# shellcheck disable=SC2086
		"$RS_BIN" report -i "$f" --kallsyms "$ks" $opt >"$TMP/out" \
			2>"$TMP/err" || fail "report $f $opt: $(cat "$TMP/err")"
		awk -v f="$f $opt" 'length > 80 {
			printf "%s: %d columns: %s\n", f, length, $0; bad = 1 }
			END { exit bad }' "$TMP/out" || fail "lines over 80 columns"
	done
	echo "ok $(basename "$f"): 80 columns"
done
grep -q '^stats_updates: .*max 192000000000$' "$TMP/out" ||
	fail "the patched figures are not in the report"
exit 0
