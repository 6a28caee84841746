#!/bin/bash
# bisect-check.sh TARBALL PATCHDIR WORKDIR FRAGMENT...
#
# Check that every prefix of the series builds and boots: for each patch,
# apply it on top of the tree of the patches before it in WORKDIR, build
# it with the config FRAGMENTs (one O= directory reused, so each step
# rebuilds what the patch touched), and boot it in QEMU to the end of the
# guest's /init as the guest tests boot (tests/harness.py --plan boot).
# Prints one KTAP result per patch.  BISECT_FROM=N starts at the prefix
# of N patches (the tree for it comes from TARBALL), BISECT_TO=M ends at
# the prefix of M patches.
set -uo pipefail

tarball=$1 pdir=$2 work=$3
shift 3
here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/../..")
. "$top/tests/lib/ktap.sh"
ktap_print_header
mapfile -t patches < <(grep -v '^\s*\(#\|$\)' "$pdir/series" | awk '{print $1}')
from=${BISECT_FROM:-1} to=${BISECT_TO:-${#patches[@]}}
if ! [ "$from" -ge 1 ] 2>/dev/null || ! [ "$to" -ge "$from" ] 2>/dev/null ||
   [ "$to" -gt ${#patches[@]} ]; then
	ktap_test_fail "BISECT_FROM=$from BISECT_TO=$to: the series has patches 1 to ${#patches[@]}"
	ktap_finished
	exit 1
fi
mkdir -p "$work"
work=$(realpath "$work")
mkdir -p "$work/guest/bisect"
"$top/tests/mkinitramfs.sh" "$work/guest/bisect/initramfs.cpio.gz" \
	- /nonexistent - || exit 1

for i in "${!patches[@]}"; do
	p=${patches[$i]}
	[ $((i + 1)) -ge "$from" ] && [ $((i + 1)) -le "$to" ] || continue
	if [ $((i + 1)) = "$from" ]; then
		sub=$work/series
		rm -rf "$sub" && mkdir -p "$sub"
		for q in "${patches[@]:0:$((i + 1))}"; do
			cp "$pdir/$q" "$sub/" && echo "$q" >>"$sub/series"
		done
		out=$("$here/prepare-tree.sh" "$tarball" "$sub" "$work/src" 2>&1)
	else
		# Only the files the patch touches change, and so rebuild.
		out=$(patch -p1 -N --no-backup-if-mismatch -d "$work/src" \
		      <"$pdir/$p" 2>&1) && ! grep -q '\.rej' <<<"$out"
	fi
	if [ $? != 0 ]; then
		# The trees of the prefixes after it would not be the series'.
		ktap_test_fail "$p: applies"; echo "$out" | ktap_diag; break
	fi
	if ! out=$("$here/build-kernel.sh" "$work/src" "$work/obj" "$@" 2>&1); then
		ktap_test_fail "$p: builds"; echo "$out" | tail -20 | ktap_diag; continue
	fi
	# The guest tests' boot (tests/harness.py), running no suite.
	cp "$work/obj/arch/x86/boot/bzImage" "$work/guest/bisect/bzImage"
	out=$(python3 "$top/tests/harness.py" --kernel-dir "$work/guest" \
	      --variants bisect --plan boot --logdir "$work/logs" --timeout 300)
	ok=$?
	cp "$work/logs/bisect-boot.console" "$work/boot-$((i + 1)).console" ||
		true
	if [ $ok = 0 ]; then
		ktap_test_pass "$p: applies, builds and boots"
	else
		ktap_test_fail "$p: boots (see $work/boot-$((i + 1)).console)"
		grep '^# FAIL' <<<"$out" | ktap_diag
	fi
done
ktap_finished
