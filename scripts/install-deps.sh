#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install with apt-get what building, testing and running rstat-analyze
# needs (Debian 12). Does nothing when everything is present.
set -eu

packages=(
	build-essential pkg-config
	libtraceevent-dev libtracefs-dev libdw-dev libelf-dev libzstd-dev
	libiberty-dev			# cplus_demangle(), as perf demangles
	clang libclang-rt-14-dev	# make fuzz (libFuzzer) and sanitizers
	libbpf-dev bpftool		# spans timed in the kernel (src/bpf/)
	linux-perf			# the oracle the tests compare against
	gnuplot-nox			# rstat-analyze plot
	libmicrohttpd-dev		# rstat-analyze watch's HTTP endpoint
	prometheus			# the real server watch's test scrapes with
	tmux				# top's terminal test
	python3				# test helpers
	python3-scipy			# the oracle of compare's rank test and bootstrap
	qemu-system-x86			# --kernel: throwaway VMs
	cpio				# the oracle for our initramfs writer
	busybox				# the usual commands for scripts in --kernel guests
	debhelper dpkg-dev		# the .deb (dpkg-buildpackage)
)

missing=()
for p in "${packages[@]}"; do
	# dpkg-query says "install ok installed" only for a complete install.
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
