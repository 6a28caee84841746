#!/bin/bash
# audit/check.sh OUT
#
# Debian's audit userspace with anom-usercopy.patch: fetch the source of
# the installed release (apt-get source audit; a deb-src entry is added
# to /etc/apt/sources.list.d/ if there is none), add the patch to its quilt
# series, build the binary packages with dpkg-buildpackage -B, and show
# with the ausearch and aureport just built, on the fixture logs of
# tools/usercopyctl/tests/fixtures, that type 1790 is ANOM_USERCOPY.
# Prints TAP; the build log is OUT/build.log.  Needs root for apt-get (not
# when the source is reachable and the build dependencies are installed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
mkdir -p "$1"
out=$(cd "$1" && pwd)
patch=$here/anom-usercopy.patch
fixdir=$top/tools/usercopyctl/tests/fixtures
real=$fixdir/real-orc-enforce.log
basic=$fixdir/basic.log
profiles=nopython
srclist=/etc/apt/sources.list.d/usercopy-hardening-src.sources
t0=$(date +%s)

. "$top/tests/lib/ktap.sh"
ktap_print_header
bail() { ktap_test_fail "$*"; echo "Bail out! $*"; ktap_finished; exit 1; }

# --- the source --------------------------------------------------------------
if ! apt-cache showsrc audit 2>/dev/null | grep '^Package: audit' >/dev/null; then
	if [ ! -e "$srclist" ]; then
		. /etc/os-release
		cat >"$srclist" <<SRC
# Added by usercopy-hardening (packaging/audit/check.sh) for apt-get source.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $VERSION_CODENAME $VERSION_CODENAME-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: $VERSION_CODENAME-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	fi
	apt-get update -qq >"$out/apt.log" 2>&1
fi
apt-cache showsrc audit 2>/dev/null | grep '^Package: audit' >/dev/null &&
	ktap_test_pass "deb-src entry for audit" || bail "no source for audit (see $out/apt.log)"

rm -rf "$out/src" && mkdir -p "$out/src"
# _apt cannot write to the checkout: download as root, without the warning.
if (cd "$out/src" && apt-get -qq -o APT::Sandbox::User=root source audit) >"$out/source.log" 2>&1; then
	src=$(ls -d "$out"/src/audit-*/) && src=${src%/}
	ver=$(cd "$src" && dpkg-parsechangelog -S Version)
	ktap_test_pass "apt-get source audit ($ver)"
else
	ktap_diag "$out/source.log"
	bail "apt-get source audit failed"
fi

cd "$src" || bail "no $src"
if ! dpkg-checkbuilddeps -B -P "$profiles" >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --arch-only -P "$profiles" audit \
		>"$out/build-dep.log" 2>&1 || { ktap_diag "$out/build-dep.log"; bail "apt-get build-dep audit failed"; }
fi

# --- the patch, the build ----------------------------------------------------
cp "$patch" debian/patches/
echo "$(basename "$patch")" >>debian/patches/series
if QUILT_PATCHES=debian/patches quilt push --fuzz=0 >"$out/quilt.log" 2>&1; then
	ktap_test_pass "anom-usercopy.patch applies to audit $ver without fuzz (quilt push)"
else
	ktap_diag "$out/quilt.log"
	bail "anom-usercopy.patch does not apply to audit $ver"
fi
grep -q '^Description:' "$patch" && grep -q '^Forwarded:' "$patch" && grep -q '^Author:' "$patch" &&
	ktap_test_pass "DEP-3 header" || ktap_test_fail "DEP-3 header"

tb=$(date +%s)
if DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -B --no-sign -P"$profiles" \
		>"$out/build.log" 2>&1; then
	ktap_test_pass "dpkg-buildpackage -B of the patched audit ($(($(date +%s) - tb)) s)"
else
	tail -n 40 "$out/build.log" | ktap_diag
	bail "the patched audit does not build (see $out/build.log)"
fi

# --- the built tools on the fixtures -----------------------------------------
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
export LD_LIBRARY_PATH=$src/debian/libaudit1/lib/$ma:$src/debian/libauparse0/lib/$ma
ausearch=$src/debian/auditd/sbin/ausearch
aureport=$src/debian/auditd/sbin/aureport
ldd "$ausearch" | grep "libaudit.so.1 => $src/debian/libaudit1/" >/dev/null &&
	ldd "$ausearch" | grep "libauparse.so.0 => $src/debian/libauparse0/" >/dev/null &&
	ktap_test_pass "the built ausearch uses the built libaudit and libauparse" ||
	{ ktap_test_fail "the built ausearch uses the built libaudit and libauparse"; ldd "$ausearch" | ktap_diag; }

T=$out/t
mkdir -p "$T"
want=$(grep -c '^type=UNKNOWN\[1790\]' "$real")
# Stock audit, for contrast (skipped when auditd is not installed).
if [ -x /sbin/ausearch ]; then
	env -u LD_LIBRARY_PATH /sbin/ausearch -if "$real" -m 1790 -i >"$T/stock" 2>&1
	got=$(grep -c '^type=UNKNOWN\[1790\]' "$T/stock")
	[ "$got" = "$want" ] && ktap_test_pass "stock ausearch -i shows UNKNOWN[1790] ($got records of ${real##*/})" ||
		ktap_test_fail "stock ausearch -i shows UNKNOWN[1790] ($got of $want)"
else
	ktap_test_skip "stock ausearch shows UNKNOWN[1790]" "no /sbin/ausearch"
fi

"$ausearch" -if "$real" -m ANOM_USERCOPY -i >"$T/interp" 2>&1
got=$(grep -c '^type=ANOM_USERCOPY ' "$T/interp")
[ "$got" = "$want" ] && ! grep -q 'UNKNOWN\[1790\]' "$T/interp" &&
	ktap_test_pass "ausearch -m ANOM_USERCOPY -i: all $want records of ${real##*/} as type=ANOM_USERCOPY" ||
	{ ktap_test_fail "ausearch -m ANOM_USERCOPY -i: $got of $want records as type=ANOM_USERCOPY"; head -n 5 "$T/interp" | ktap_diag; }

"$ausearch" -if "$real" -m 1790 --raw >"$T/raw" 2>&1
got=$(grep -c '1790' "$T/raw")
[ "$got" = "$want" ] && ktap_test_pass "ausearch -m 1790 still works (--raw keeps the logged UNKNOWN[1790])" ||
	ktap_test_fail "ausearch -m 1790: $got of $want"

"$ausearch" -if "$basic" -m ANOM_USERCOPY -i >"$T/basic" 2>&1
ktap_test_result "ausearch -i: op, region, cache as logged; uid, comm, exe and res interpreted" \
	grep -q '^type=ANOM_USERCOPY .* op=exposure region=slab cache=kmalloc-64 offset=0 len=128 auid=unset uid=root gid=root ses=unset pid=123 comm=uc-victim exe=/usr/bin/uc-victim permissive=0 res=no $' "$T/basic"
ktap_test_result "ausearch -i: hex-encoded comm and exe decoded" \
	grep -q ' op=exposure region=slab cache=task_struct .* comm=uc victi exe=/tmp/uc victi permissive=1 res=yes $' "$T/basic"

"$ausearch" -if "$basic" -m ANOM_USERCOPY -p 131 --raw >"$T/pid" 2>&1
[ "$(grep -c . "$T/pid")" = 1 ] && grep -q 'pid=131 ' "$T/pid" &&
	ktap_test_pass "ausearch -p finds a violation by its pid" || { ktap_test_fail "ausearch -p finds a violation by its pid"; ktap_diag "$T/pid"; }
"$ausearch" -if "$basic" -m ANOM_USERCOPY -ui 1000 --raw >"$T/uid" 2>&1
[ "$(grep -c . "$T/uid")" = 1 ] && grep -q 'pid=131 ' "$T/uid" &&
	ktap_test_pass "ausearch -ui finds a violation by its uid" || { ktap_test_fail "ausearch -ui finds a violation by its uid"; ktap_diag "$T/uid"; }
"$ausearch" -if "$basic" -m ANOM_USERCOPY --success no --raw >"$T/no" 2>&1
"$ausearch" -if "$basic" -m ANOM_USERCOPY --success yes --raw >"$T/yes" 2>&1
[ "$(grep -c ' res=0' "$T/no")" = "$(grep -c '1790.* res=0' "$basic")" ] && ! grep -q ' res=1' "$T/no" &&
	[ "$(grep -c ' res=1' "$T/yes")" = "$(grep -c '1790.* res=1' "$basic")" ] && ! grep -q ' res=0' "$T/yes" &&
	ktap_test_pass "ausearch --success no/yes: refused/made copies (res=0/1)" ||
	{ ktap_test_fail "ausearch --success no/yes: refused/made copies (res=0/1)"; ktap_diag "$T/no" "$T/yes"; }

"$aureport" -if "$real" --anomaly >"$T/anom" 2>&1
got=$(grep -c ' ANOM_USERCOPY ' "$T/anom")
[ "$got" = "$want" ] && grep -q ' ANOM_USERCOPY /bin/busybox ' "$T/anom" &&
	ktap_test_pass "aureport --anomaly lists the $want violations as ANOM_USERCOPY with the executable" ||
	{ ktap_test_fail "aureport --anomaly: $got of $want as ANOM_USERCOPY"; head -n 12 "$T/anom" | ktap_diag; }
"$aureport" -if "$real" --anomaly --summary -i >"$T/anomsum" 2>&1
ktap_test_result "aureport --anomaly --summary -i counts ANOM_USERCOPY" grep -Eq "^$want +ANOM_USERCOPY" "$T/anomsum"

"$ausearch" -if "$basic" -m ANOM_USERCOPY --format text >"$T/text" 2>&1
ktap_test_result "ausearch --format text: leaked-kernel-memory-from the slab cache, overwrote-kernel-memory-in the region" \
	sh -c "grep -q ' unsuccessfully leaked-kernel-memory-from kmalloc-64 using /usr/bin/uc-victim\$' '$T/text' &&
		grep -q ' successfully overwrote-kernel-memory-in stack using /usr/bin/uc-victim\$' '$T/text'"

ktap_print_msg "audit-userspace-check: $(($(date +%s) - t0)) s; the patched packages are in $out/src"
ktap_finished
