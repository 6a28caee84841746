#!/bin/bash
# check.sh [OUT]
#
# Checks of the Debian packages that build.sh (make deb) left in OUT
# (default build/packaging), in TAP: lintian, contents, versions, the
# kernel patch package's series against patches/ and its apply and unpatch
# scripts on the files of $KTAR_DIR/linux-source-KVER.tar.xz each series
# touches, and (unless REPRO=0) a
# second build of the same sources (OUT/source.tar) in another directory,
# which must give identical .debs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$top/tests/lib/ktap.sh"
ktap_print_header
# A failure that stops the checks is a "not ok" too, for harnesses that
# only count those.
bail() { ktap_test_fail "$*"; echo "Bail out! $*"; ktap_finished; exit 1; }
out=$(cd "${1:-$top/build/packaging}" 2>/dev/null && pwd) || bail "no ${1:-build/packaging}: run make deb"
KTAR_DIR=${KTAR_DIR:-/usr/src}
REPRO=${REPRO:-1}

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

version=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
upstream=${version%-*}
arch=$(dpkg --print-architecture)
tools=$out/usercopy-tools_${version}_$arch.deb
kpatch=$out/linux-patch-usercopy_${version}_all.deb
changes=$out/usercopy-hardening_${version}_$arch.changes
for f in "$tools" "$kpatch" "$changes"; do
	[ -f "$f" ] || bail "${f#"$top"/} missing: run make deb"
done
ktap_test_pass "make deb built ${tools##*/} and ${kpatch##*/}"

# --- lintian ----------------------------------------------------------------
if lintian --fail-on error,warning --display-level '>=warning' --tag-display-limit 0 \
		"$changes" >"$T/lintian" 2>&1; then
	ktap_test_pass "lintian: no error or warning (overrides: $(cat "$here"/debian/*.lintian-overrides | grep -vc '^#\|^$'))"
else
	ktap_test_fail "lintian: errors or warnings"
	grep -v 'running with root privileges' "$T/lintian" | ktap_diag
fi

# --- usercopy-tools -----------------------------------------------------------
root=$T/tools
mkdir -p "$root"
dpkg-deb -x "$tools" "$root"
dpkg-deb -c "$tools" | awk '{print $6}' | sed 's|^\./||' | grep -v '/$' | grep . | sort >"$T/files"
cat >"$T/want" <<LIST
usr/sbin/usercopyctl
usr/share/bash-completion/completions/usercopyctl
usr/share/doc/usercopy-tools/README.Debian
usr/share/doc/usercopy-tools/changelog.Debian.gz
usr/share/doc/usercopy-tools/copyright
usr/share/doc/usercopy-tools/examples/usercopy.rules
usr/share/lintian/overrides/usercopy-tools
usr/share/man/man8/usercopyctl.8.gz
LIST
diff -u "$T/want" "$T/files" >"$T/d" && ktap_test_pass "usercopy-tools: program, man page, completion, rules as an example" ||
	{ ktap_test_fail "usercopy-tools: the files expected"; ktap_diag "$T/d"; }
cmp -s "$root/usr/share/doc/usercopy-tools/examples/usercopy.rules" "$top/audit-rules/usercopy.rules" &&
	! dpkg-deb -I "$tools" conffiles >/dev/null 2>&1 && [ ! -e "$root/etc" ] &&
	ktap_test_pass "usercopy-tools: the audit rules are audit-rules/usercopy.rules, not installed in /etc/audit/rules.d" ||
	ktap_test_fail "usercopy-tools: the audit rules are audit-rules/usercopy.rules, not installed in /etc/audit/rules.d"
[ "$(dpkg-deb -f "$tools" Version)" = "$version" ] &&
	[ "$("$root/usr/sbin/usercopyctl" --version 2>&1)" = "usercopyctl from usercopy-hardening $upstream" ] &&
	ktap_test_pass "one version: package $version, usercopyctl --version $upstream" ||
	ktap_test_fail "one version: package $(dpkg-deb -f "$tools" Version), usercopyctl --version '$("$root/usr/sbin/usercopyctl" --version 2>&1)', changelog $version"
zcat "$root/usr/share/man/man8/usercopyctl.8.gz" | sed 's/\\-/-/g' | grep "^\.TH \"USERCOPYCTL\" \"8\" \"[^\"]*\" \"usercopy-hardening $upstream\"" >/dev/null &&
	ktap_test_pass "man page of version $upstream" || { ktap_test_fail "man page of version $upstream"; zcat "$root/usr/share/man/man8/usercopyctl.8.gz" | grep '^\.TH' | ktap_diag; }
bash -c '. "$1" && complete -p usercopyctl' _ "$root/usr/share/bash-completion/completions/usercopyctl" >"$T/comp" 2>&1 &&
	ktap_test_pass "bash completion registers usercopyctl" || { ktap_test_fail "bash completion registers usercopyctl"; ktap_diag "$T/comp"; }
dpkg-deb -f "$tools" Depends | grep 'libsmartcols1' >/dev/null &&
	ktap_test_pass "usercopy-tools: shared library dependencies ($(dpkg-deb -f "$tools" Depends))" ||
	ktap_test_fail "usercopy-tools: shared library dependencies ($(dpkg-deb -f "$tools" Depends))"
cmp -s "$root/usr/sbin/usercopyctl" "$out/root/usercopy-tools/usr/sbin/usercopyctl" &&
	ktap_test_pass "the guest's usercopyctl (${out#"$top"/}/root/usercopy-tools) is the packaged one" ||
	ktap_test_fail "the guest's usercopyctl (${out#"$top"/}/root/usercopy-tools) is the packaged one"

# --- linux-patch-usercopy -----------------------------------------------------
kroot=$T/kpatch
mkdir -p "$kroot"
dpkg-deb -x "$kpatch" "$kroot"
diffs=$kroot/usr/src/kernel-patches/diffs/usercopy
[ "$(dpkg-deb -f "$kpatch" Architecture)" = all ] && ktap_test_pass "linux-patch-usercopy is Architecture: all" ||
	ktap_test_fail "linux-patch-usercopy is Architecture: all"
kvers=
for dir in "$top"/patches/*; do
	[ -f "$dir/series" ] || continue
	kver=${dir##*/}
	kvers="$kvers $kver"
	bad=
	for f in series BASE 0000-cover-letter.patch $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/[[:space:]].*//' "$dir/series"); do
		[ -f "$dir/$f" ] || continue
		cmp -s "$dir/$f" "$diffs/$kver/$f" || bad="$bad $f"
	done
	extra=$(cd "$diffs/$kver" 2>/dev/null && for f in *; do grep -qxF "$f" "$dir/series" || [ "$f" = series ] || [ "$f" = BASE ] ||
		[ "$f" = 0000-cover-letter.patch ] || printf ' %s' "$f"; done)
	[ -d "$diffs/$kver" ] && [ -z "$bad" ] && [ -z "$extra" ] &&
		ktap_test_pass "linux-patch-usercopy: patches/$kver as it is ($(grep -c . "$diffs/$kver/series") patches, series, cover letter, BASE $(cat "$diffs/$kver/BASE" 2>/dev/null))" ||
		ktap_test_fail "linux-patch-usercopy: patches/$kver as it is (differ:${bad:- none}; extra:${extra:- none})"
done
shipped=$(cd "$diffs" && for d in */; do printf ' %s' "${d%/}"; done)
[ "$shipped" = "$kvers" ] && ktap_test_pass "linux-patch-usercopy: one series per patches/*/series:$kvers" ||
	ktap_test_fail "linux-patch-usercopy: series shipped:$shipped, in patches/:$kvers"
cmp -s "$diffs/usercopy.config" "$top/kernel/configs/usercopy.config" &&
	[ -x "$kroot/usr/src/kernel-patches/all/apply/usercopy" ] && [ -x "$kroot/usr/src/kernel-patches/all/unpatch/usercopy" ] &&
	ktap_test_pass "linux-patch-usercopy: usercopy.config, all/apply/usercopy and all/unpatch/usercopy" ||
	ktap_test_fail "linux-patch-usercopy: usercopy.config, all/apply/usercopy and all/unpatch/usercopy"

# The apply and unpatch scripts, on the files of each kernel source that its
# series touches (not the whole tree: quicker, same result).
export KPATCH_DIFFS_usercopy=$diffs
for kver in $kvers; do
	ktar=$KTAR_DIR/linux-source-$kver.tar.xz
	if [ ! -f "$ktar" ]; then
		ktap_test_skip "all/apply/usercopy and all/unpatch/usercopy on the $kver series" "no $ktar"
		continue
	fi
	k=$T/linux-$kver pristine=$T/pristine-$kver
	mkdir -p "$k" "$pristine"
	sed -n 's|^--- a/||p' "$diffs/$kver"/[0-9]*.patch | sed 's/[[:space:]].*//' | sort -u >"$T/touched"
	tdir=$(tar -tJf "$ktar" | head -n 1 | cut -d/ -f1)
	tar -xJf "$ktar" -C "$pristine" --strip-components=1 "$tdir/Makefile" \
		$(sed "s|^|$tdir/|" "$T/touched") 2>"$T/tar" || true
	mkdir -p "$pristine/kernel" "$pristine/mm"
	cp -a "$pristine/." "$k/"
	if (cd "$k" && "$kroot/usr/src/kernel-patches/all/apply/usercopy") >"$T/apply" 2>&1 &&
			[ -f "$k/debian/APPLIED_all_usercopy" ] && ! diff -rq "$pristine" "$k" >/dev/null 2>&1 &&
			grep -q AUDIT_ANOM_USERCOPY "$k/include/uapi/linux/audit.h"; then
		ktap_test_pass "all/apply/usercopy applies the $kver series to $(basename "$ktar")"
	else
		ktap_test_fail "all/apply/usercopy applies the $kver series to $(basename "$ktar")"
		ktap_diag "$T/apply" "$T/tar"
	fi
	(cd "$k" && "$kroot/usr/src/kernel-patches/all/apply/usercopy") >"$T/again" 2>&1 &&
		grep -q 'already applied' "$T/again" && ktap_test_pass "all/apply/usercopy on $kver a second time: already applied" ||
		{ ktap_test_fail "all/apply/usercopy on $kver a second time: already applied"; ktap_diag "$T/again"; }
	(cd "$k" && "$kroot/usr/src/kernel-patches/all/unpatch/usercopy") >"$T/unpatch" 2>&1
	find "$k" "$pristine" -depth -type d -empty -delete
	diff -r "$pristine" "$k" >"$T/d" 2>&1 && ktap_test_pass "all/unpatch/usercopy gives the $kver tree back as it was" ||
		{ ktap_test_fail "all/unpatch/usercopy gives the $kver tree back as it was"; ktap_diag "$T/unpatch"; head -n 20 "$T/d" | ktap_diag; }
done
mkdir -p "$T/other/kernel" "$T/other/mm"
printf 'VERSION = 5\nPATCHLEVEL = 10\nSUBLEVEL = 0\n' >"$T/other/Makefile"
! (cd "$T/other" && "$kroot/usr/src/kernel-patches/all/apply/usercopy") >"$T/other.out" 2>&1 &&
	grep -q 'no series for Linux 5.10' "$T/other.out" && ktap_test_pass "all/apply/usercopy refuses a kernel it has no series for" ||
	{ ktap_test_fail "all/apply/usercopy refuses a kernel it has no series for"; ktap_diag "$T/other.out"; }
unset KPATCH_DIFFS_usercopy

# --- reproducible -------------------------------------------------------------
if [ "$REPRO" != 0 ]; then
	# Same sources (those of the first build, OUT/source.tar), another
	# directory, another time.
	if DEB_BUILD_OPTIONS=nocheck "$here/build.sh" "$out-repro" "$out/source.tar" >"$T/repro" 2>&1; then
		bad=
		for deb in "$out"/*.deb; do
			cmp -s "$deb" "$out-repro/${deb##*/}" || bad="$bad ${deb##*/}"
		done
		[ -z "$bad" ] && ktap_test_pass "reproducible: a second build in ${out#"$top"/}-repro gives identical .debs" ||
			ktap_test_fail "reproducible: differ:$bad (compare with diffoscope ${out#"$top"/}{,-repro}/...)"
	else
		ktap_test_fail "reproducible: the second build failed"
		ktap_diag "$T/repro"
	fi
else
	ktap_test_skip "reproducible" "REPRO=0"
fi

ktap_finished
