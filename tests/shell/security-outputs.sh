#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A local user (nobody) plants FIFOs, sockets, links to a file of root's
# and directories of its own (mode 0777) at every name root's runs write:
# plot's image, .gp and .dat, bench's --json FILE and its .old, -o DIR and
# the results.json and rstat.data in it, record's -o FILE and its .old. A
# FIFO at the .gp holds a gnuplot script of the attacker's. Then a racer
# of nobody's swaps a FIFO and a link at an output name for 200 rounds
# while root writes there. Every root run must end within 10 s, refuse
# with one line (or succeed), and leave the victim, every planted entry
# and the attacker's script as they were: nothing the attacker wrote runs.
# compare and diff-folded write stdout only: no output name to plant.
. tests/shell/lib.sh

[ "$(id -u)" -eq 0 ] || skip "not root: root's runs are what is attacked"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is needed to plant sockets"
id nobody >/dev/null 2>&1 || skip "no user nobody to plant files as"
nobody_gid=$(id -g nobody)
as_nobody() {
	setpriv --reuid=nobody --regid="$nobody_gid" --clear-groups "$@"
}

shared=$(mktemp -d /tmp/rstat-secout.XXXXXX)
chmod 1777 "$shared"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf --one-file-system "$shared" "$TMP"
}
trap cleanup EXIT
chmod 755 "$TMP"
victim=$TMP/victim
head -c 4096 /dev/urandom >"$victim"
chmod 644 "$victim"
victim_sum=$(sha256sum <"$victim")
canary=$TMP/canary

# Inputs: a small bench results file (bench itself, a short run).
"$RS_BIN" bench stat-read --children 1 --reads 20 --files cpu.stat \
	--json "$TMP/base.json" >/dev/null 2>"$TMP/base.err" ||
	fail "bench for the input: $(cat "$TMP/base.err")"
have_gnuplot=1
command -v gnuplot >/dev/null 2>&1 ||
	{ have_gnuplot=; skip_part "gnuplot is not installed: plot's outputs not attacked"; }

# plant KIND PATH: as nobody, a fifo, sock, link (to the victim) or dir
# (nobody's, 0777) at PATH.
plant() {
	case $1 in
	fifo) as_nobody mkfifo -m 666 "$2" ;;
	sock) as_nobody /usr/bin/python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$2" ;;
	link) as_nobody ln -s "$victim" "$2" ;;
	dir) as_nobody mkdir -m 777 "$2" ;;
	esac || fail "planting a $1 at $2 as nobody failed"
	planted+=("$2")
	stat -c '%n|%F|%U|%a' "$2" >>"$TMP/planted.before"
}
planted=()
state() {
	local p
	for p in "${planted[@]}"; do
		stat -c '%n|%F|%U|%a' "$p"
	done
}

# root_run WHAT CMD...: CMD ends within 10 s, exits 0, or 1 with one line
# on stderr; its status in rc.
root_run() {
	local what=$1 lines
	shift
	timeout 10 "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -ne 124 ] || fail "$what: still running after 10 s (blocked?)"
	[ $rc -le 1 ] || fail "$what: exit $rc: $(head -c 2000 "$TMP/err")"
	if [ $rc -eq 1 ]; then
		lines=$(grep -vc 'rstat-analyze: note:' "$TMP/err")
		[ "$lines" -eq 1 ] ||
			fail "$what: $lines error lines: $(head -c 2000 "$TMP/err")"
	fi
}

# refused WHAT PATTERN CMD...: exit 1 within 10 s, the one line matching.
refused() {
	local what=$1 pattern=$2
	shift 2
	root_run "$what" "$@"
	[ "$rc" -eq 1 ] || fail "$what: not refused (exit $rc)"
	grep -v 'rstat-analyze: note:' "$TMP/err" | grep -Eq -- "$pattern" ||
		fail "$what: '$(cat "$TMP/err")' does not match '$pattern'"
}

# A gnuplot script of the attacker's, fed to whoever opens the FIFO.
attacker_script() {
	# setpriv execs sh: $! is the process to stop.
	setpriv --reuid=nobody --regid="$nobody_gid" --clear-groups sh -c \
		"while :; do printf 'system(\"touch $canary\")\n' >'$1' || exit; done" \
		</dev/null >/dev/null 2>&1 &
	pids+=($!)
}

bench_cheap=(bench stat-read --children 1 --reads 10 --files cpu.stat)
for kind in fifo sock link dir; do
	case $kind in
	fifo) what='a FIFO' ;;
	sock) what='a socket' ;;
	link) what='a symbolic link another user owns' ;;
	dir) what='a directory' ;;
	esac
	if [ -n "$have_gnuplot" ]; then
		plant $kind "$shared/$kind-p.png"
		plant $kind "$shared/$kind-g.png.gp"
		plant $kind "$shared/$kind-d.png.dat"
		[ $kind = fifo ] && attacker_script "$shared/$kind-g.png.gp"
		for n in p g d; do
			root_run "plot -o $kind-$n.png" "$RS_BIN" plot \
				"$TMP/base.json" -o "$shared/$kind-$n.png"
			[ "$rc" -eq 1 ] ||
				[ "$n" != p ] || fail "plot over $what at the image: exit 0"
			[ "$rc" -eq 0 ] ||
				grep -q "$shared/$kind-$n.png" "$TMP/err" ||
				fail "plot -o $kind-$n.png: the error names no path: $(cat "$TMP/err")"
		done
	fi
	# bench --json FILE, at FILE and at FILE.old.
	plant $kind "$shared/$kind-r.json"
	refused "bench --json over $what" "$shared/$kind-r.json: cannot write: $what" \
		"$RS_BIN" "${bench_cheap[@]}" --json "$shared/$kind-r.json"
	echo previous >"$shared/$kind-s.json"
	plant $kind "$shared/$kind-s.json.old"
	refused "bench --json with $what at .old" "$shared/$kind-s.json: cannot write: its .old is not a regular file" \
		"$RS_BIN" "${bench_cheap[@]}" --json "$shared/$kind-s.json"
	[ "$(cat "$shared/$kind-s.json")" = previous ] ||
		fail "the refused rotation changed $kind-s.json"
	# -o DIR itself.
	plant $kind "$shared/$kind-o"
	refused "bench -o over $what" "$shared/$kind-o: " \
		"$RS_BIN" "${bench_cheap[@]}" -o "$shared/$kind-o"
	# Inside a root-owned sticky -o DIR that nobody can add names to.
	mkdir -m 1777 "$shared/$kind-in"
	plant $kind "$shared/$kind-in/results.json"
	refused "bench -o with $what at results.json" \
		"$shared/$kind-in/results.json: cannot write: $what" \
		"$RS_BIN" "${bench_cheap[@]}" -o "$shared/$kind-in"
	mkdir -m 1777 "$shared/$kind-in2"
	plant $kind "$shared/$kind-in2/rstat.data"
	refused "bench --record -o with $what at rstat.data" \
		"$shared/$kind-in2/rstat.data: cannot write: $what" \
		"$RS_BIN" "${bench_cheap[@]}" --record -o "$shared/$kind-in2"
	# record -o FILE, at FILE and at FILE.old.
	plant $kind "$shared/$kind-rec.data"
	refused "record -o over $what" "$shared/$kind-rec.data: cannot create: $what" \
		"$RS_BIN" record -q -a -d 0.1 -o "$shared/$kind-rec.data"
	echo previous >"$shared/$kind-rec2.data"
	plant $kind "$shared/$kind-rec2.data.old"
	refused "record -o with $what at .old" "$shared/$kind-rec2.data: cannot create: its .old is not a regular file" \
		"$RS_BIN" record -q -a -d 0.1 -o "$shared/$kind-rec2.data"
	[ "$(cat "$shared/$kind-rec2.data")" = previous ] ||
		fail "the refused rotation changed $kind-rec2.data"
done

# A directory nobody owns, or one everyone can write without the sticky
# bit, is no -o DIR unless asked for.
as_nobody mkdir -m 755 "$shared/theirs"
refused "bench -o into nobody's directory" "$shared/theirs: a directory another user owns.*--allow-shared-dir" \
	"$RS_BIN" "${bench_cheap[@]}" -o "$shared/theirs"
mkdir -m 777 "$shared/open"
chmod 777 "$shared/open"
refused "bench -o into a directory everyone can write" "$shared/open: a directory other users can write" \
	"$RS_BIN" "${bench_cheap[@]}" -o "$shared/open"
[ -z "$(ls -A "$shared/theirs")$(ls -A "$shared/open")" ] ||
	fail "a refused -o DIR got files: $(ls -A "$shared/theirs" "$shared/open")"
as_nobody chmod 777 "$shared/theirs"
"$RS_BIN" "${bench_cheap[@]}" -o "$shared/theirs" --allow-shared-dir \
	>/dev/null 2>"$TMP/err" ||
	fail "bench -o --allow-shared-dir: $(cat "$TMP/err")"
[ -s "$shared/theirs/results.json" ] ||
	fail "--allow-shared-dir wrote no results.json"

# The racer: in a directory of its own (where it may remove root's files
# too), nobody swaps a FIFO and a link to the victim at the output names
# for 200 rounds while root writes there again and again.
as_nobody mkdir -m 755 "$shared/race"
setpriv --reuid=nobody --regid="$nobody_gid" --clear-groups \
	/usr/bin/python3 - "$shared/race" "$victim" "$shared/race.done" <<'PY' &
import os, sys, time
d, victim, done = sys.argv[1:4]
names = ["out.data", "r.json", "p.png", "p.png.gp", "p.png.dat"]
for _ in range(200):
    for kind in ("fifo", "link"):
        for n in names:
            p = os.path.join(d, n)
            try:
                os.unlink(p)
            except OSError:
                pass
            try:
                if kind == "fifo":
                    os.mkfifo(p, 0o666)
                else:
                    os.symlink(victim, p)
            except OSError:
                pass
        time.sleep(0.01)
print("done", file=open(done, "w"))
PY
racer=$!
pids+=($racer)
runs=0
while kill -0 $racer 2>/dev/null || [ $runs -lt 3 ]; do
	root_run "record -o in the race" "$RS_BIN" record -q -a -d 0.05 \
		-o "$shared/race/out.data"
	root_run "bench --json in the race" "$RS_BIN" "${bench_cheap[@]}" \
		--json "$shared/race/r.json"
	if [ -n "$have_gnuplot" ]; then
		root_run "plot in the race" "$RS_BIN" plot "$TMP/base.json" \
			-o "$shared/race/p.png"
	fi
	runs=$((runs + 1))
done
wait $racer
[ -s "$shared/race.done" ] || fail "the racer did not finish its 200 rounds"
echo "race: $runs rounds of root's runs against 200 of the racer's"

[ "$(sha256sum <"$victim")" = "$victim_sum" ] ||
	fail "the victim changed: a root run wrote through a planted link"
[ ! -e "$canary" ] || fail "the attacker's gnuplot script ran as root"
# Every planted entry still what nobody made it (nothing replaced,
# nothing written through).
[ ${#planted[@]} -ge 28 ] || fail "planted only ${#planted[@]} entries"
state >"$TMP/planted.after"
cmp -s "$TMP/planted.before" "$TMP/planted.after" ||
	fail "a planted entry changed: $(diff "$TMP/planted.before" "$TMP/planted.after")"
for p in "${planted[@]}"; do
	[ ! -L "$p" ] || [ "$(readlink "$p")" = "$victim" ] ||
		fail "$p: the planted link was changed"
done
find "$shared" -name '.*' -user root | grep . &&
	fail "hidden temporary files were left behind"
exit 0
