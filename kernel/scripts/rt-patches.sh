#!/bin/bash
# rt-patches.sh DEST
#
# Fetch the PREEMPT_RT patches Debian builds its linux-image-rt-amd64 with
# (debian/patches-rt of the linux source package) into DEST/patches-rt,
# as a quilt series to apply to linux-source-6.1 before this project's
# series.  Vanilla 6.1 cannot enable PREEMPT_RT on x86 without them.
#
# The archive is pinned by version and SHA-256.  It is the newest Debian
# release of them the mirror keeps (the security pool does not keep the
# source of linux-source-6.1's own version); three of its patches are
# left out of the series:
#   0040-ARM-*: ARM only;
#   0056-debugobjects-locking-*, 0071-kvm-vmx-*: already in 6.1.192 in
#     another form (lockdep and KVM, both off in the guests).
set -euo pipefail

dest=$1
version=6.1.176-1
sha256=10477b04dc15f7c1c52d8c812c889be5fd37aa178163e352755cd137c73ade6b
url=http://deb.debian.org/debian/pool/main/l/linux/linux_$version.debian.tar.xz
skip='^(0040-ARM-|0056-debugobjects-locking-|0071-kvm-vmx-)'

die() { echo "rt-patches: $*" >&2; exit 1; }

mkdir -p "$dest"
tarball=$dest/linux_$version.debian.tar.xz
if ! echo "$sha256  $tarball" | sha256sum -c --status 2>/dev/null; then
	curl -sSfL -o "$tarball.part" "$url" || die "cannot download $url"
	echo "$sha256  $tarball.part" | sha256sum -c --status ||
		die "$url does not have the expected SHA-256"
	mv "$tarball.part" "$tarball"
fi
rm -rf "$dest/patches-rt" "$dest/debian"
tar -xJf "$tarball" -C "$dest" debian/patches-rt
mv "$dest/debian/patches-rt" "$dest/patches-rt"
rmdir "$dest/debian"
grep -Ev "$skip" "$dest/patches-rt/series" >"$dest/patches-rt/series.new"
mv "$dest/patches-rt/series.new" "$dest/patches-rt/series"
