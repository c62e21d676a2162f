#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package: `dpkg-buildpackage -us -uc -b` builds a .deb from a
# copy of the tree (the repository stays clean), whose metadata is right and
# whose binary, unpacked into a scratch root, runs: --help, and a report of
# the fixture recording.
. tests/shell/lib.sh

command -v dpkg-buildpackage >/dev/null 2>&1 ||
	skip "dpkg-buildpackage is not installed (Debian package dpkg-dev)"
command -v dh >/dev/null 2>&1 ||
	skip "dh is not installed (Debian package debhelper)"
repo=$PWD

# The tree as a fresh clone plus uncommitted files: tracked and untracked
# but not ignored files (so no build/, no binary, no perf.data).
mkdir -p "$TMP/src" || fail "mkdir"
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$repo" ls-files -z --cached --others --exclude-standard |
		(cd "$repo" && tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
		tar -xf - -C "$TMP/src" || fail "copying the tree"
else
	tar -C "$repo" --exclude=./build --exclude=./rstat-analyze \
		--exclude=./.git -cf - . | tar -xf - -C "$TMP/src" ||
		fail "copying the tree"
fi
[ -x "$TMP/src/debian/rules" ] || fail "no executable debian/rules in the tree"

# Build (no signing, binary only): the .deb lands in $TMP, the parent.
# One job: this test runs in the side lane (tests/beside.txt), beside
# the timing tests, and must leave them the other CPU.
if ! (cd "$TMP/src" && timeout 180 dpkg-buildpackage -us -uc -b -j1) \
		>"$TMP/build.log" 2>&1; then
	tail -n 40 "$TMP/build.log"
	fail "dpkg-buildpackage failed (log tail above)"
fi
version=$(sed -n 's/^VERSION := //p' "$repo/Makefile")
arch=$(dpkg --print-architecture)
deb=$TMP/rstat-analyze_${version}_${arch}.deb
[ -f "$deb" ] || fail "no $(basename "$deb"); built: $(ls "$TMP")"

# Metadata.
meta=$(dpkg-deb -f "$deb" Package Version Depends Recommends Section) ||
	fail "dpkg-deb -f $deb"
echo "$meta"
grep -qx "Package: rstat-analyze" <<<"$meta" || fail "Package: $meta"
grep -qx "Version: $version" <<<"$meta" || fail "Version is not $version"
grep -q '^Depends: .*libtraceevent1' <<<"$meta" ||
	fail "Depends lacks the shared libraries (\${shlibs:Depends})"
grep -q '^Recommends: .*gnuplot-nox' <<<"$meta" ||
	fail "Recommends lacks gnuplot-nox"
grep -q '^Recommends: .*linux-perf' <<<"$meta" ||
	fail "Recommends lacks linux-perf"
# watch opens it (dlopen), so shlibs does not name it.
grep -q '^Recommends: .*libmicrohttpd12' <<<"$meta" ||
	fail "Recommends lacks libmicrohttpd12"

# Contents, unpacked into a scratch root.
dpkg -x "$deb" "$TMP/root" || fail "dpkg -x"
bin=$TMP/root/usr/bin/rstat-analyze
[ -x "$bin" ] || fail "no /usr/bin/rstat-analyze in the package"
for page in "$repo"/docs/rstat-analyze*.1; do
	name=$(basename "$page")
	[ -f "$TMP/root/usr/share/man/man1/$name.gz" ] ||
		[ -f "$TMP/root/usr/share/man/man1/$name" ] ||
		fail "man page $name is not in /usr/share/man/man1"
done
if [ -f "$repo/completion/rstat-analyze" ]; then
	[ -f "$TMP/root/usr/share/bash-completion/completions/rstat-analyze" ] ||
		fail "no bash completion in /usr/share/bash-completion/completions"
fi
[ -f "$TMP/root/usr/share/doc/rstat-analyze/copyright" ] ||
	fail "no /usr/share/doc/rstat-analyze/copyright"
# The formats the man pages send readers to (dh_compress may gzip them).
for doc in bench-results.md breakdown.md rules-format.md tutorial.md fleet.md \
	rstat-alerts.yml; do
	d=$TMP/root/usr/share/doc/rstat-analyze/$doc
	[ -f "$d" ] || [ -f "$d.gz" ] ||
		fail "no /usr/share/doc/rstat-analyze/$doc in the package"
done
# watch's unit, installed but neither enabled nor started.
[ -f "$TMP/root/lib/systemd/system/rstat-analyze-watch.service" ] ||
	fail "no /lib/systemd/system/rstat-analyze-watch.service"
dpkg-deb -e "$deb" "$TMP/ctl" || fail "dpkg-deb -e"
# (It keeps an enable an administrator made, "was-enabled"; what a fresh
# install does, "was-enabled defaults to true", and a start must not be.)
! grep -qs "new installations run enable\|deb-systemd-invoke" \
	"$TMP/ctl/postinst" ||
	fail "the package enables or starts rstat-analyze-watch: $(cat "$TMP/ctl/postinst")"
# Built with the distribution's hardening flags: PIE, BIND_NOW, RELRO.
if command -v readelf >/dev/null 2>&1; then
	readelf -h "$bin" | grep -q 'Type:.*DYN' || fail "binary is not PIE"
	# watch opens it when it serves HTTP: no other command loads gnutls.
	! readelf -d "$bin" | grep -q 'NEEDED.*libmicrohttpd' ||
		fail "binary links libmicrohttpd (watch is to dlopen it)"
	# ... and it does open it: built with it, naming the soname.
	grep -qa 'libmicrohttpd\.so\.[0-9]' "$bin" ||
		fail "binary names no libmicrohttpd soname (built without it?)"
	readelf -d "$bin" | grep -q 'BIND_NOW\|FLAGS.*NOW' ||
		fail "binary is not linked with -z now (hardening LDFLAGS lost)"
	readelf -lW "$bin" | grep -q GNU_RELRO ||
		fail "binary has no RELRO segment"
fi

# The packaged binary runs.
timeout 30 "$bin" --help >"$TMP/help" 2>&1 ||
	fail "rstat-analyze --help: $(head -c 2000 "$TMP/help")"
grep -q report "$TMP/help" || fail "--help does not list report"
"$bin" --version 2>&1 | grep -qF "$version" ||
	fail "--version does not say $version: $("$bin" --version 2>&1)"
ks=$(fixture_kallsyms)
data=$(realpath "$RS_FIXTURES/flush-mixed.data") || fail "no fixture"
(cd "$TMP" && timeout 60 "$bin" report -i "$data" --kallsyms "$ks") >"$TMP/report" 2>"$TMP/report.err" ||
	fail "packaged report failed: $(head -c 2000 "$TMP/report.err")"
grep -q "Attribution of cpu-clock" "$TMP/report" ||
	fail "packaged report lacks the attribution table: $(head -c 2000 "$TMP/report")"
echo "$(basename "$deb") builds, installs its files and runs"
