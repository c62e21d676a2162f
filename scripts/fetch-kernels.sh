#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Download Debian's cloud kernels 6.1 and 6.12 (the newest of each that apt
# knows) and unpack their vmlinuz and config into a cache outside the tree,
# for the VM tests (tests/shell/vm-*.sh) and the tutorial. Prints one line
# per kernel: the path of its vmlinuz. Does nothing for a kernel already
# cached.
#
# Usage: scripts/fetch-kernels.sh [CACHE]
#        (default $RS_KERNEL_CACHE or /var/cache/rstat-analyze/kernels)
set -eu

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

mkdir -p "$cache"
for series in 6.1.0- 6.12.; do
	pkg=$(newest "$series")
	if [ -z "$pkg" ]; then
		echo "fetch-kernels: no linux-image-${series}*-cloud-amd64-unsigned in apt's lists; run apt-get update" >&2
		exit 1
	fi
	fetch "$pkg"
done
