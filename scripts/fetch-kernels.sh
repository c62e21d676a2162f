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
# With --sid it fetches only Debian's current kernel from the sid suite
# (7.x: the rstat trees split per subsystem, v6.16: the "after" of thread
# 000 beside 6.12's "before"), through apt lists of its own in a
# temporary directory: the system's apt sources and lists are left as
# they are. The mirror is the one the system's apt takes Debian from
# (RS_SID_MIRROR overrides it). sid splits the image into
# linux-binary-unsigned-<release> (the vmlinuz) and linux-base-<release>
# (config, System.map); an older split-less image package is taken the
# way 6.1's and 6.12's are.
#
# Usage: scripts/fetch-kernels.sh [--dbg] [--sid] [CACHE]
#        (default $RS_KERNEL_CACHE or /var/cache/rstat-analyze/kernels)
set -eu

dbg=
sid=
while [ $# -gt 0 ]; do
	case $1 in
	--dbg) dbg=1 ;;
	--sid) sid=1 ;;
	--) shift; break ;;
	-*) echo "fetch-kernels: unknown option $1 (--dbg, --sid)" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
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

# apt with lists of its own (in $aptdir): sid's, never the system's.
sid_apt() {
	local cmd=$1

	shift
	"$cmd" -q -o Dir::Etc::sourcelist="$aptdir/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$aptdir/lists" \
		-o Dir::Cache="$aptdir/cache" -o APT::Get::List-Cleanup=0 "$@"
}

# The newest sid kernel: its vmlinuz, config and System.map into the cache.
fetch_sid() {
	local mirror pkg rel dir tmp

	# shellcheck disable=SC2016 # apt expands $(REPO_URI)
	mirror=${RS_SID_MIRROR:-$(apt-get indextargets --format '$(REPO_URI)' \
		'Origin: Debian' 'Label: Debian' 'Created-By: Packages' |
		sort -u | head -n 1)}
	if [ -z "$mirror" ]; then
		echo "fetch-kernels: --sid: the system's apt takes nothing from Debian's archive; set RS_SID_MIRROR to a Debian mirror" >&2
		exit 1
	fi
	aptdir=$(mktemp -d "$cache/.sid-apt.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$aptdir'" EXIT
	chmod 755 "$aptdir"	# apt-get download runs as _apt
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" \
		"$aptdir/dl"
	chmod 755 "$aptdir/dl"
	if id _apt >/dev/null 2>&1; then
		chown _apt "$aptdir/lists/partial" "$aptdir/cache/archives/partial" \
			"$aptdir/dl"
	fi
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" \
		>"$aptdir/sources.list"
	sid_apt apt-get update -qq >/dev/null
	pkg=$(sid_apt apt-cache search --names-only \
		'^linux-binary-unsigned-[0-9][0-9.+a-z-]*-cloud-amd64$' |
		awk '{ print $1 }' | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		pkg=$(sid_apt apt-cache search --names-only \
			'^linux-image-[0-9][0-9.+a-z-]*-cloud-amd64-unsigned$' |
			awk '{ print $1 }' | sort -V | tail -n 1)
	fi
	if [ -z "$pkg" ]; then
		echo "fetch-kernels: --sid: no cloud-amd64 kernel in sid's lists from $mirror" >&2
		exit 1
	fi
	rel=${pkg#linux-binary-unsigned-}
	rel=${rel#linux-image-}
	rel=${rel%-unsigned}
	dir=$cache/$rel
	tmp=$aptdir/dl
	if [ ! -s "$dir/vmlinuz" ]; then
		case $pkg in
		linux-binary-unsigned-*)
			(cd "$tmp" && sid_apt apt-get download -qq "$pkg" \
				"linux-base-$rel" >/dev/null)
			;;
		*)
			(cd "$tmp" && sid_apt apt-get download -qq "$pkg" \
				>/dev/null)
			;;
		esac
		for deb in "$tmp"/*.deb; do
			dpkg-deb -x "$deb" "$tmp/root"
		done
		mkdir -p "$tmp/out"
		# The split packages keep it all in /usr/lib/modules/<release>.
		sid_file vmlinuz.unsigned "vmlinuz-$rel" vmlinuz
		sid_file config "config-$rel" config
		sid_file System.map "System.map-$rel" System.map 2>/dev/null || :
		rm -rf "$dir"
		mv "$tmp/out" "$dir"
	fi
	echo "$dir/vmlinuz"
	if [ -n "$dbg" ] && [ ! -s "$dir/vmlinux" ]; then
		(cd "$tmp" && sid_apt apt-get download -qq \
			"linux-image-$rel-dbg" >/dev/null)
		dpkg-deb --fsys-tarfile "$tmp"/linux-image-"$rel"-dbg_*.deb |
			tar -x -C "$tmp" --wildcards --no-anchored "vmlinux-$rel"
		find "$tmp/usr/lib/debug" -name "vmlinux-$rel" -type f \
			-exec mv {} "$dir/vmlinux" \;
	fi
	[ -z "$dbg" ] || echo "$dir/vmlinux"
	rm -rf "$aptdir"
	trap - EXIT
}

# One file of the unpacked sid kernel into $tmp/out: where the split
# packages keep it, else where the old image package did.
sid_file() {
	cp "$tmp/root/usr/lib/modules/$rel/$1" "$tmp/out/$3" 2>/dev/null ||
		cp "$tmp/root/boot/$2" "$tmp/out/$3"
}

mkdir -p "$cache"
if [ -n "$sid" ]; then
	fetch_sid
	exit 0
fi
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
