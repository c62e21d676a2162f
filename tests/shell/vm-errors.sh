#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# --kernel runs that cannot work say so in one line and leave nothing
# behind: no QEMU on PATH, an image that is no kernel, a kernel that
# panics (the console tail is shown), a guest past --vm-timeout, Ctrl-C,
# SIGTERM in the middle of a multi-kernel bench.
# Each run uses a copy of the kernel under $TMP, so that its QEMU, if one
# were left, is found by that path and no one else's is.
. tests/shell/lib.sh
[ "$(id -u)" -eq 0 ] || skip "not root: the VM's work directory is root's"

# Usage errors need no VM.
expect_error 2 "--accel 'xen': expected kvm, tcg or auto" \
	"$RS_BIN" doctor --kernel /nonexistent --accel xen
expect_error 2 "--vm-memory '1T': expected a size" \
	"$RS_BIN" doctor --kernel /nonexistent --vm-memory 1T
expect_error 2 "one --kernel at a time" \
	"$RS_BIN" doctor --kernel a --kernel b
expect_error 1 "kernel image /nonexistent: No such file" \
	"$RS_BIN" doctor --kernel /nonexistent
expect_error 1 "qemu-system-x86_64 is not on PATH: install the package qemu-system-x86" \
	env PATH=/nonexistent "$RS_BIN" doctor --kernel /etc/passwd
# A line probe needs the guest kernel's vmlinux, found before any boot.
mkdir "$TMP/img"
: >"$TMP/img/vmlinuz"
expect_error 1 "record: --kernel $TMP/img/vmlinuz: --probe f:3: a source line needs that kernel's vmlinux with debuginfo: .*" \
	"$RS_BIN" record --kernel "$TMP/img/vmlinuz" --probe f:3 -- true
expect_error 1 "record: --kernel $TMP/img/vmlinuz: $TMP/img/vmlinux: no build id to check the guest kernel against .*" \
	sh -c "echo x >'$TMP/img/vmlinux' && '$RS_BIN' record --kernel '$TMP/img/vmlinuz' --probe f:3 -- true"

need_vm_kernels
before=$(vm_workdirs)
kernel=$TMP/vmlinuz-under-test
cp "$K612" "$kernel"

left_behind() {
	! pgrep -f "$kernel" >/dev/null ||
		fail "$1: a QEMU process is left: $(pgrep -af "$kernel")"
	[ -z "$(vm_workdirs_new "$before")" ] ||
		fail "$1: work directories left: $(vm_workdirs_new "$before")"
}

# wait_for_qemu PID WHAT: until the QEMU of the tool run PID boots $kernel
# (QEMU itself, not the tool, whose command line names the kernel too:
# so its work directory is there), at most 120 s; fails if it never does.
wait_for_qemu() {
	local _
	for _ in $(seq 1200); do
		pgrep -f "qemu-system.*$kernel" >/dev/null && return
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	fail "$2: QEMU never started: $(tail -n 5 "$TMP/err")"
}

# Not a kernel: QEMU's own message, in one line.
expect_error 1 "QEMU failed before the guest started: .*" \
	"$RS_BIN" doctor --kernel /etc/passwd --accel tcg
left_behind "no kernel"

# No /init to run: the kernel panics, the console tail says why.
"$RS_BIN" doctor --kernel "$kernel" --accel tcg --append rdinit=/nonexistent \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "panic: exit $rc: $(tail "$TMP/err")"
grep -q "Kernel panic" "$TMP/err" || fail "panic: no console tail: $(cat "$TMP/err")"
grep -q "^--- end of guest console ---" "$TMP/err" || fail "panic: console not framed"
# The guest's bytes do not act on our terminal: no C0 control but tab
# and newline, no DEL or C1 control, raw or in UTF-8, on the error
# stream (test_console_show() covers each kind; a panic has few).
python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape")
bad = [c for c in t if (ord(c) < 32 and c not in "\t\n") or
       0x7f <= ord(c) <= 0x9f or 0xdc80 <= ord(c) <= 0xdc9f]
sys.exit(1 if bad else 0)
' "$TMP/err" || fail "panic: control bytes of the guest's reached the terminal"
[ "$(grep -c '^rstat-analyze: ' "$TMP/err")" -eq 1 ] ||
	fail "panic: not one error line: $(grep '^rstat-analyze' "$TMP/err")"
grep -q "^rstat-analyze: doctor --kernel .*: the guest kernel panicked while booting" \
	"$TMP/err" || fail "panic: $(tail -n 1 "$TMP/err")"
left_behind "panic"

# A guest that takes too long is killed; the console shows how far it got.
"$RS_BIN" doctor --kernel "$kernel" --accel tcg --vm-timeout 2 \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "timeout: exit $rc: $(tail "$TMP/err")"
[ "$(tail -n 1 "$TMP/err")" = "rstat-analyze: doctor --kernel $kernel: the guest did not finish within 2 s (--vm-timeout); it was killed" ] ||
	fail "timeout: $(tail -n 1 "$TMP/err")"
[ "$(grep -c '^rstat-analyze: ' "$TMP/err")" -eq 1 ] ||
	fail "timeout: not one error line: $(cat "$TMP/err")"
! grep -q $'\033' "$TMP/err" || fail "timeout: terminal escapes printed"
left_behind "timeout"

# Ctrl-C (SIGINT to the tool alone, as a supervisor would send it).
"$RS_BIN" doctor --kernel "$kernel" --accel tcg >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_for_qemu "$pid" "interrupt"
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "interrupt: exit $rc: $(cat "$TMP/err")"
grep -q "interrupted; the VM was stopped" "$TMP/err" ||
	fail "interrupt: $(cat "$TMP/err")"
left_behind "interrupt"

# A multi-kernel bench stopped by SIGTERM in its second guest: exit 130,
# the first kernel's results kept whole, no QEMU, no work directory, no
# half-written file, no third boot.
"$RS_BIN" bench stat-read --children 1 --reads 20 --accel tcg \
	--kernel "$K61" --kernel "$kernel" --kernel "$K61" -o "$TMP/multi" \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_for_qemu "$pid" "multi-kernel: the second guest"
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "multi-kernel: exit $rc: $(tail -n 5 "$TMP/err")"
tail -n 1 "$TMP/err" | grep -q "bench --kernel $kernel: interrupted; the VM was stopped" ||
	fail "multi-kernel: $(tail -n 3 "$TMP/err")"
[ "$(grep -c '^# rstat-analyze bench: kernel' "$TMP/out")" -eq 2 ] ||
	fail "multi-kernel: a guest ran after the interrupt: $(grep '^# rstat' "$TMP/out")"
rel61=$(basename "$(dirname "$K61")")
python3 -c "import json, sys; json.load(open(sys.argv[1]))" \
	"$TMP/multi/$rel61/results.json" ||
	fail "multi-kernel: the first kernel's results.json is not whole"
[ "$(find "$TMP/multi" -type f | wc -l)" -eq 1 ] ||
	fail "multi-kernel: files left: $(find "$TMP/multi" -type f)"
left_behind "multi-kernel interrupt"

# SIGKILL: QEMU dies with the tool (PR_SET_PDEATHSIG); its work directory
# cannot be removed by a dead process, so the next VM run removes it.
"$RS_BIN" doctor --kernel "$kernel" --accel tcg >/dev/null 2>"$TMP/err" &
pid=$!
wait_for_qemu "$pid" "SIGKILL"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 20); do
	pgrep -f "$kernel" >/dev/null || break
	sleep 0.1
done
! pgrep -f "$kernel" >/dev/null || fail "SIGKILL: QEMU outlived the tool"
[ -n "$(vm_workdirs_new "$before")" ] ||
	fail "SIGKILL: no work directory to clean (test broken?)"
"$RS_BIN" doctor --kernel "$kernel" --accel tcg --vm-timeout 1 >/dev/null 2>&1
left_behind "the run after a SIGKILL"
echo "ok"
