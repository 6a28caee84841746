#!/bin/bash
# mkinitramfs.sh OUT KMOD[:KMOD...] GUESTBIN TOOLDIR
#
# Build the test guest's initramfs: busybox, /init and its helpers, the
# kernel modules KMOD (the buggy test module; the KUnit tests where they
# are a module), the static test programs in GUESTBIN, and the
# dynamically linked admin tools (usercopyctl from TOOLDIR, auditd,
# auditctl) and stress-ng with the shared libraries they need.  KMOD and TOOLDIR may be
# "-" for a guest without them (the benchmark's).
set -euo pipefail

out=$1 kmod=$2 guestbin=$3 tooldir=$4
here=$(dirname "$(realpath "$0")")
die() { echo "mkinitramfs: $*" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc/audit,lib/modules,proc,sys,dev,tmp,run,var/log/audit,usr/share/uctest,root}
bb=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
file -L "$bb" | grep -q 'statically linked' || die "$bb is not static (apt-get install busybox-static)"
cp "$bb" "$root/bin/busybox"
for app in $("$bb" --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done

install -m 755 "$here/guest/init" "$root/init"
install -m 644 "$here/guest/lib.sh" "$root/usr/share/uctest/lib.sh"
# The shell tests' KTAP writer, sysctl access and the patterns of a kernel
# in trouble, shared with the host (tests/lib).
install -m 644 "$here/lib/ktap.sh" "$here/lib/sysctl.sh" "$here/lib/oops.ere" \
	"$root/usr/share/uctest/"
[ -f "$here/guest/demo.sh" ] && install -m 644 "$here/guest/demo.sh" "$root/usr/share/uctest/demo.sh"
install -m 644 "$here/guest/stress.sh" "$root/usr/share/uctest/stress.sh"
[ -f "$here/../tools/usercopyctl/tests/guest.sh" ] &&
	install -m 644 "$here/../tools/usercopyctl/tests/guest.sh" "$root/usr/share/uctest/usercopyctl.sh"
if [ "$kmod" != - ]; then
	IFS=: read -ra kmods <<<"$kmod"
	install -m 644 "${kmods[@]}" "$root/lib/modules/"
fi
for p in $(ls "$guestbin"/* 2>/dev/null); do
	install -m 755 "$p" "$root/usr/bin/"
done

# Dynamically linked programs and every library they load.
copy_dyn() { # copy_dyn PROGRAM DESTDIR
	install -m 755 "$1" "$root/$2/"
	ldd "$1" | grep -o '/[^ ]*' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
[ "$tooldir" != - ] && copy_dyn "$tooldir/usercopyctl" usr/sbin
# The false positive sweep (stress.sh), in the test guests only: its
# libraries are 25 MB, a tenth of the benchmark guest's memory.
if [ "$tooldir" != - ]; then
	sng=$(command -v stress-ng) || die "stress-ng not found (apt-get install stress-ng)"
	copy_dyn "$sng" usr/bin
fi
copy_dyn /sbin/auditd sbin
copy_dyn /sbin/auditctl sbin
for lib in /lib/x86_64-linux-gnu/libnss_files.so.2; do
	[ -e "$lib" ] && mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
done

cat >"$root/etc/audit/auditd.conf" <<'CONF'
log_file = /var/log/audit/audit.log
log_format = RAW
log_group = root
priority_boost = 0
flush = SYNC
freq = 0
num_logs = 1
max_log_file = 64
max_log_file_action = ROTATE
space_left = 2
space_left_action = IGNORE
admin_space_left = 1
admin_space_left_action = IGNORE
disk_full_action = IGNORE
disk_error_action = IGNORE
write_logs = yes
local_events = yes
CONF
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
echo 'passwd: files' >"$root/etc/nsswitch.conf"
printf '/bin/sh\n/bin/ash\n' >"$root/etc/shells"

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
