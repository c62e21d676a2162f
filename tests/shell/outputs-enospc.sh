#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A full file system under bench --json, record -o and plot -o: each
# fails with exit 1 and one line saying "No space left on device", and
# the previous output and its .old are byte for byte what they were (the
# rotation to .old is undone, the generation before it kept), with no
# temporary file left. The file system is a small tmpfs of the test's own,
# on a mount point made with mktemp -d and unmounted on every exit.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "not root: mounting a small tmpfs needs it"
mnt=$(mktemp -d /tmp/rstat-enospc.XXXXXX)
mount -t tmpfs -o size=256k,mode=0755 rstat-enospc "$mnt" ||
	{ rmdir "$mnt"; skip "cannot mount a tmpfs here"; }
trap 'umount "$mnt"; rmdir "$mnt"; rm -rf "$TMP"' EXIT

# The previous generations, then the rest of the space taken.
seed() {
	head -c 3000 /dev/urandom >"$mnt/$1"
	head -c 2000 /dev/urandom >"$mnt/$1.old"
}
seed results.json
seed rstat.data
seed chart.png
head -c 1500 /dev/urandom >"$mnt/chart.png.gp"
head -c 1500 /dev/urandom >"$mnt/chart.png.dat"
dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
dd if=/dev/zero of="$mnt/fill2" bs=512 2>/dev/null
sums() {
	(cd "$mnt" && sha256sum -- results.json* rstat.data* chart.png*)
}
sums >"$TMP/before"
ls -A "$mnt" | sort >"$TMP/names.before"

# full WHAT CMD...: exit 1, one line naming ENOSPC, nothing changed.
full() {
	local what=$1
	shift
	expect_error 1 "No space left on device" "$@"
	sums >"$TMP/after"
	cmp -s "$TMP/before" "$TMP/after" ||
		fail "$what: the previous outputs changed: $(diff "$TMP/before" "$TMP/after")"
	ls -A "$mnt" | sort >"$TMP/names.after"
	cmp -s "$TMP/names.before" "$TMP/names.after" ||
		fail "$what: files left or lost: $(diff "$TMP/names.before" "$TMP/names.after")"
}

# bench's results are written at the end of a short run.
full "bench --json" "$RS_BIN" bench stat-read --children 1 --reads 50 \
	--files cpu.stat --json "$mnt/results.json"
grep -q "$mnt/results.json: cannot write: No space left on device" \
	"$TMP/stderr" || fail "bench --json: $(cat "$TMP/stderr")"
# record's file is named once live (rotating the previous one), then
# the disk fills.
full "record -o" "$RS_BIN" record -q -a -d 0.5 -o "$mnt/rstat.data"
grep -q "$mnt/rstat.data" "$TMP/stderr" ||
	fail "record -o: the error does not name the file: $(cat "$TMP/stderr")"
# plot writes .dat and .gp, then the image, each beside its name.
if command -v gnuplot >/dev/null 2>&1; then
	"$RS_BIN" bench stat-read --children 1 --reads 50 --files cpu.stat \
		--json "$TMP/in.json" >/dev/null 2>"$TMP/in.err" ||
		fail "bench for plot's input: $(cat "$TMP/in.err")"
	full "plot -o" "$RS_BIN" plot "$TMP/in.json" -o "$mnt/chart.png"
else
	skip_part "gnuplot is not installed: plot -o on a full disk not tried"
fi

# With room again, the rotation happens: FILE -> FILE.old, the older
# generation dropped, nothing hidden left.
rm -f "$mnt/fill" "$mnt/fill2"
prev=$(sha256sum <"$mnt/results.json")
"$RS_BIN" bench stat-read --children 1 --reads 50 --files cpu.stat \
	--json "$mnt/results.json" >/dev/null 2>"$TMP/err" ||
	fail "bench --json with room: $(cat "$TMP/err")"
[ "$(sha256sum <"$mnt/results.json.old")" = "$prev" ] ||
	fail "results.json.old is not the previous results.json"
[ -z "$(ls -A "$mnt" | grep '^\.')" ] ||
	fail "hidden files left: $(ls -A "$mnt")"
exit 0
