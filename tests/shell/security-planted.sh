#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A local user (nobody) plants links and directories under every name that
# bench and record create or clean in directories everyone can write
# (/var/tmp, /tmp: the work directories of this and earlier versions, for
# dead PIDs and for the PIDs the next processes will get), each pointing at
# a directory of files, and run parent cgroups in a subtree delegated to
# it. bench run as root, plain, --record and under that --root, must
# succeed and leave every planted entry and every target byte for byte
# intact. Outputs the user names in such a directory (-o, plot's .gp) are
# refused, not written through, when another user planted a link there.
. tests/shell/lib.sh
. tests/shell/bench-lib.sh

command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody to plant files as"
nobody_gid=$(id -g nobody)
as_nobody() {
	setpriv --reuid=nobody --regid="$nobody_gid" --clear-groups "$@"
}

# A shared, sticky directory like /tmp, and the victim: files root owns
# that nobody cannot touch but a root process following a link could.
shared=$(mktemp -d /tmp/rstat-shared.XXXXXX)
chmod 1777 "$shared"
victim=$TMP/victim
planted=()
cleanup() {
	local p
	# Only what this test planted; rm -f on a link removes the link.
	for p in "${planted[@]}"; do
		rm -rf --one-file-system "$p"
	done
	rm -rf "$shared" "$TMP"
}
trap cleanup EXIT
mkdir -p "$victim/sub"
for i in 1 2 3; do
	head -c 4096 /dev/urandom >"$victim/file$i"
done
echo "keep me" >"$victim/sub/nested"
chmod -R go+rX "$victim"
chmod 755 "$TMP"
snapshot() {
	(cd "$1" && find . -printf '%y %m %p\n' | sort &&
		find . -type f -exec sha256sum {} + | sort)
}
snapshot "$victim" >"$TMP/victim.before"

# Planting is one process of nobody's (python3, no forks), so that the
# PIDs it plants for are still the next ones when bench starts: links to
# the victim, and directories of nobody's holding files, a link to the
# victim and a forged owner stamp naming a dead PID of this boot.
sh -c 'exit 0' &
wait $!
dead=$!
as_nobody /usr/bin/python3 - "$victim" "$dead" >"$TMP/planted.list" <<'PY' ||
import os, random, string, sys
victim, dead = sys.argv[1], sys.argv[2]
boot = open("/proc/sys/kernel/random/boot_id").read().strip()
last = int(open("/proc/sys/kernel/ns_last_pid").read())

def rand():
    return "".join(random.choice(string.ascii_letters + string.digits)
                   for _ in range(12))

def plant_link(path):
    try:
        os.symlink(victim, path)
        print(path)
    except OSError:
        pass

def plant_dir(path):
    try:
        os.mkdir(path)
    except OSError:
        return
    print(path)
    with open(path + "/.owner", "w") as f:
        f.write("rstat-analyze bench pid=%s start=1 boot=%s\n" % (dead, boot))
    with open(path + "/data", "w") as f:
        f.write("mine\n")
    os.symlink(victim, path + "/into-victim")

for d in ("/var/tmp", "/tmp"):
    # Earlier versions' names, rstat-analyze-bench-<PID>: a dead PID and
    # the next 300 PIDs (one of them is the bench's own).
    plant_link("%s/rstat-analyze-bench-%s" % (d, dead))
    for pid in range(last + 1, last + 301):
        if pid % 2:
            plant_link("%s/rstat-analyze-bench-%d" % (d, pid))
        else:
            plant_dir("%s/rstat-analyze-bench-%d" % (d, pid))
    # This version's pattern, with names a guesser might hit.
    for _ in range(3):
        plant_link("%s/rstat-analyze-bench.%s" % (d, rand()))
        plant_dir("%s/rstat-analyze-bench.%s" % (d, rand()))
PY
	fail "planting as nobody failed"
mapfile -t planted <"$TMP/planted.list"
# Names another run or test holds already are skipped; most must be there.
[ ${#planted[@]} -ge 500 ] || fail "planted only ${#planted[@]} entries"
# Each planted entry as it stands: a link and its target, or a directory,
# its owner and its file's text.
planted_state() {
	local p
	for p in "${planted[@]}"; do
		if [ -L "$p" ]; then
			echo "L $p $(readlink "$p")"
		else
			echo "D $p $(stat -c %U "$p" 2>/dev/null) $(cat "$p/data" 2>/dev/null)"
		fi
	done | sort
}
planted_state >"$TMP/planted.before"

# cgroups: a v2 subtree delegated to nobody (as systemd delegates
# user@UID.service), given to bench as --root; nobody plants run parents
# under the names bench makes and cleans, for a dead PID and the next
# PIDs, each holding a child cgroup. bench must neither adopt nor remove
# them, and still run.
v2=/sys/fs/cgroup/unified
[ -f $v2/cgroup.controllers ] || v2=/sys/fs/cgroup
deleg=
if [ -f $v2/cgroup.controllers ] && mkdir "$v2/rs-deleg-$$" 2>/dev/null; then
	deleg=$v2/rs-deleg-$$
	chown nobody "$deleg" "$deleg/cgroup.procs" \
		"$deleg/cgroup.subtree_control"
	last=$(cat /proc/sys/kernel/ns_last_pid)
	as_nobody /usr/bin/python3 - "$deleg" "$dead" "$last" \
		>"$TMP/deleg.list" <<'PY' || fail "planting cgroups as nobody failed"
import os, sys
deleg, dead, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for pid in [dead] + list(range(last + 1, last + 200)):
    d = "%s/rstat-analyze-bench-%d" % (deleg, pid)
    os.mkdir(d)
    os.mkdir(d + "/theirs")
    print(d)
PY
fi
deleg_cleanup() {
	[ -n "$deleg" ] || return 0
	find "$deleg" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
	rmdir "$deleg" 2>/dev/null
}
trap 'deleg_cleanup; cleanup' EXIT

cd "$TMP"
if [ -n "$deleg" ]; then
	"$RS_BIN" bench stat-read --children 2 --reads 200 --files cpu.stat \
		--updater cpu --root "$deleg" >deleg.out 2>deleg.err ||
		fail "bench under a delegated --root with planted names: $(cat deleg.err)"
	while read -r d; do
		[ -d "$d/theirs" ] || fail "bench removed nobody's $d"
		[ "$(stat -c %U "$d")" = nobody ] || fail "$d changed hands"
	done <"$TMP/deleg.list"
	grep -q "rstat-analyze-bench-$dead: owned by uid $(id -u nobody), not ours: left alone" deleg.err ||
		fail "bench did not say it left nobody's run parent alone: $(head -3 deleg.err)"
	left=$(find "$deleg" -maxdepth 1 -name 'rstat-analyze-bench-*' -user root)
	[ -z "$left" ] || fail "bench left its own cgroups: $left"
else
	echo "note: no cgroup v2 hierarchy to delegate: cgroup names not planted"
fi
"$RS_BIN" bench stat-read --children 2 --reads 200 --files cpu.stat \
	-o plain >plain.out 2>plain.err ||
	fail "bench among planted names: $(cat plain.err)"
"$RS_BIN" bench stat-read --children 2 --reads 200 --files cpu.stat \
	--record -o rec >rec.out 2>rec.err ||
	fail "bench --record among planted names: $(cat rec.err)"
cd - >/dev/null
[ -s "$TMP/plain/results.json" ] || fail "bench wrote no results"
[ -s "$TMP/rec/rstat.data" ] || fail "bench --record wrote no recording"

snapshot "$victim" >"$TMP/victim.after"
cmp -s "$TMP/victim.before" "$TMP/victim.after" ||
	fail "the victim changed: $(diff "$TMP/victim.before" "$TMP/victim.after" | head)"
planted_state >"$TMP/planted.after"
cmp -s "$TMP/planted.before" "$TMP/planted.after" ||
	fail "a planted entry changed: $(diff "$TMP/planted.before" "$TMP/planted.after" | head)"

# Root's work location is root's alone.
stat -c '%U %a' /var/lib/rstat-analyze | grep -qx 'root 700' ||
	fail "/var/lib/rstat-analyze is $(stat -c '%U %a' /var/lib/rstat-analyze)"

# Outputs named in a shared directory where nobody planted links.
target=$victim/file1
as_nobody ln -s "$victim" "$shared/outdir"
as_nobody ln -s "$target" "$shared/r.data"
expect_error 1 "$shared/outdir: a symbolic link another user owns" \
	"$RS_BIN" bench stat-read --children 1 --reads 10 --files cpu.stat \
	-o "$shared/outdir"
expect_error 1 "$shared/r.data: cannot .*a symbolic link another user owns" \
	"$RS_BIN" bench stat-read --children 1 --reads 10 --files cpu.stat \
	--json "$shared/r.data"
expect_error 1 "$shared/r.data: cannot create: a symbolic link another user owns" \
	"$RS_BIN" record -q -a -d 0.1 -o "$shared/r.data"
# A link at FILE.old is not replaced by the rotation either.
"$RS_BIN" record -q -a -d 0.1 -o "$shared/r2.data" 2>/dev/null ||
	fail "record into a shared directory failed"
as_nobody ln -s "$target" "$shared/r2.data.old"
expect_error 1 "$shared/r2.data: cannot create: its .old is not a regular file" \
	"$RS_BIN" record -q -a -d 0.1 -o "$shared/r2.data"
[ -s "$shared/r2.data" ] || fail "the refused rotation lost r2.data"
# plot: a planted .gp beside the image.
if command -v gnuplot >/dev/null 2>&1; then
	as_nobody ln -s "$target" "$shared/p.png.gp"
	expect_error 1 "$shared/p.png.gp: cannot write: a symbolic link" \
		"$RS_BIN" plot "$TMP/plain/results.json" -o "$shared/p.png"
	as_nobody ln -s "$target" "$shared/q.png"
	expect_error 1 "$shared/q.png: cannot write: a symbolic link" \
		"$RS_BIN" plot "$TMP/plain/results.json" -o "$shared/q.png"
fi
snapshot "$victim" >"$TMP/victim.after"
cmp -s "$TMP/victim.before" "$TMP/victim.after" ||
	fail "an output was written through a link: $(diff "$TMP/victim.before" "$TMP/victim.after" | head)"
exit 0
