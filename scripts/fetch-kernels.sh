#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Download Debian's cloud kernels 6.1 and 6.12 (the newest of each that apt
# knows) and unpack their vmlinuz and config into a cache outside the tree,
# for the VM tests (tests/shell/vm-*.sh) and the tutorial. Prints one line
# per kernel: the path of its vmlinuz. Does nothing for a kernel already
# cached.
#
# With --dbg it also fetches each kernel's debug symbols (the package
# linux-image-<release>-dbg, about 280 MB each, hence opt-in) and keeps
# only their vmlinux, beside the vmlinuz: what `record --kernel K --probe
# FUNC:LINE` resolves lines with (tests/shell/vm-probe-lines.sh). Prints
# the vmlinux's path then.
#
# Usage: scripts/fetch-kernels.sh [--dbg] [CACHE]
#        (default $RS_KERNEL_CACHE or /var/cache/rstat-analyze/kernels)
set -eu

dbg=
if [ "${1-}" = --dbg ]; then
	dbg=1
	shift
fi
cache=${1:-${RS_KERNEL_CACHE:-/var/cache/rstat-analyze/kernels}}

# The newest package of a series: apt-cache lists every version it knows.
newest() {
	apt-cache search --names-only "^linux-image-$1[0-9.+a-z-]*-cloud-amd64-unsigned\$" |
		awk '{ print $1 }' | sort -V | tail -n 1
}

fetch() {
	local pkg=$1 dir tmp

	dir=$cache/${pkg#linux-image-}
	dir=${dir%-unsigned}
	if [ -s "$dir/vmlinuz" ]; then
		echo "$dir/vmlinuz"
		return 0
	fi
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	chmod 755 "$tmp"	# apt-get download runs as _apt
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	(cd "$tmp" && apt-get download -qq "$pkg" >/dev/null)
	dpkg-deb -x "$tmp"/*.deb "$tmp/root"
	mkdir -p "$tmp/out"
	cp "$tmp"/root/boot/vmlinuz-* "$tmp/out/vmlinuz"
	cp "$tmp"/root/boot/config-* "$tmp/out/config"
	cp "$tmp"/root/boot/System.map-* "$tmp/out/System.map" 2>/dev/null || :
	rm -rf "$dir"
	mv "$tmp/out" "$dir"
	rm -rf "$tmp"
	trap - EXIT
	echo "$dir/vmlinuz"
}

# The -dbg package of the kernel cached in dir: only its vmlinux is kept.
fetch_dbg() {
	local dir=$1 rel tmp

	if [ -s "$dir/vmlinux" ]; then
		echo "$dir/vmlinux"
		return 0
	fi
	rel=$(basename "$dir")
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	chmod 755 "$tmp"
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	(cd "$tmp" && apt-get download -qq "linux-image-$rel-dbg" >/dev/null)
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -x -C "$tmp" "./usr/lib/debug/boot/vmlinux-$rel"
	mv "$tmp/usr/lib/debug/boot/vmlinux-$rel" "$dir/vmlinux"
	rm -rf "$tmp"
	trap - EXIT
	echo "$dir/vmlinux"
}

mkdir -p "$cache"
for series in 6.1.0- 6.12.; do
	pkg=$(newest "$series")
	if [ -z "$pkg" ]; then
		echo "fetch-kernels: no linux-image-${series}*-cloud-amd64-unsigned in apt's lists; run apt-get update" >&2
		exit 1
	fi
	vmlinuz=$(fetch "$pkg")
	echo "$vmlinuz"
	[ -z "$dbg" ] || fetch_dbg "$(dirname "$vmlinuz")"
done
