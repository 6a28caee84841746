#!/bin/sh
# build.sh OUT [SOURCE.tar]
#
# Build the Debian packages usercopy-tools and linux-patch-usercopy from
# this checkout: copy what they are made of (tools/usercopyctl and the
# tests' KTAP writers in tests/lib, audit-rules, patches,
# kernel/configs/usercopy.config, packaging/debian as debian/) to
# OUT/build/usercopy-hardening, run dpkg-buildpackage -b there,
# move the results to OUT and unpack each .deb into OUT/root/PACKAGE/.
# The build log is OUT/build.log.  DEB_BUILD_OPTIONS=nocheck leaves out the
# tool's tests (make check runs them separately).  The copy is also saved
# as OUT/source.tar; given SOURCE.tar (check.sh does, for its second,
# reproducibility build), build.sh builds that instead of the checkout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
mkdir -p "$1"
out=$(cd "$1" && pwd)
src=$out/build/usercopy-hardening

rm -rf "$out/build" "$out/root"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out/build.log"
if [ $# -ge 2 ]; then
	tarball=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	mkdir -p "$out/build"
	tar -xf "$tarball" -C "$out/build"
else
	mkdir -p "$src/tools" "$src/tests" "$src/kernel/configs"
	# What git would track: files that .gitignore leaves out (objects,
	# the built program, test output) stay out.
	rsync -a --filter=':- .gitignore' "$top/tools/usercopyctl" "$src/tools/"
	rsync -a "$top/tests/lib" "$src/tests/"
	rsync -a --filter=':- .gitignore' "$top/audit-rules" "$top/patches" "$src/"
	cp -p "$top/kernel/configs/usercopy.config" "$src/kernel/configs/"
	rsync -a "$here/debian" "$src/"
	tar -cf "$out/source.tar" -C "$out/build" usercopy-hardening
fi

if ! (cd "$src" && dpkg-buildpackage -b --no-sign) >"$out/build.log" 2>&1; then
	tail -n 60 "$out/build.log" >&2
	echo "build.sh: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
fi
grep -E '^(not ok|# Totals: )' "$out/build.log" || true
mv "$out/build"/*.deb "$out/build"/*.changes "$out/build"/*.buildinfo "$out/"
for deb in "$out"/*.deb; do
	echo "  DEB     ${deb#"$top"/}"
	case $deb in *-dbgsym_*) continue ;; esac
	pkg=$(dpkg-deb -f "$deb" Package)
	mkdir -p "$out/root/$pkg"
	dpkg-deb -x "$deb" "$out/root/$pkg"
done
