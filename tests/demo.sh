#!/bin/bash
# demo.sh GUESTDIR
#
# Boot the patched guest in GUESTDIR (bzImage, initramfs.cpio.gz) with the
# demo suite and show its narration; the kernel log is kept in a file.
set -euo pipefail

dir=$1
log=$(realpath -m --relative-to=. "$(dirname "$dir")/../logs/demo.console")
mkdir -p "$(dirname "$log")"
# One host thread for both vCPUs, as in tests/harness.py: QEMU runs stale
# code of a patched static key with one thread per vCPU.
accel=tcg,thread=single
[ "$(cat "$(dirname "$log")/accel" 2>/dev/null)" = kvm ] && accel=kvm
timeout 600 qemu-system-x86_64 -M pc -m 512 -smp 2 -accel "$accel" \
	-display none -nodefaults -no-reboot \
	-kernel "$dir/bzImage" -initrd "$dir/initramfs.cpio.gz" \
	-append "console=ttyS0,115200 panic=-1 oops=panic panic_on_warn=1 uctest=auditd,demo" \
	-serial file:"$log" -chardev stdio,id=out,signal=off -serial chardev:out \
	</dev/null | grep -v '^# \(guest\|cmdline\|suite\|done\|Totals\)' |
	grep -v '^ok [0-9]\|^TAP version\|^1\.\.'
echo "(the guest's kernel log is in $log)"
