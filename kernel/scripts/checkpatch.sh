#!/bin/bash
# checkpatch.sh SRC PATCHDIR
#
# Run the kernel's scripts/checkpatch.pl --strict on every patch of the
# series and print one KTAP result per patch.  A patch may be excused from a
# message only by naming its type in PATCHDIR/checkpatch.ignore
# ("<patch file> <TYPE>"), with the reason argued in its changelog.
set -uo pipefail

src=$(realpath "$1") pdir=$(realpath "$2")
. "$(dirname "$(realpath "$0")")/../../tests/lib/ktap.sh"
ktap_print_header
# Run from the unpacked tree, which is not a git work tree: checkpatch
# then leaves out spdxcheck.py (it reads the licences through git); the
# SPDX tags are still checked for presence and form.
while read -r p _; do
	case $p in ''|'#'*) continue ;; esac
	ignore=$(awk -v p="$p" '$1 == p { printf "%s%s", sep, $2; sep = "," }' \
		"$pdir/checkpatch.ignore" 2>/dev/null)
	if out=$(cd "$src" && unset GIT_DIR && perl scripts/checkpatch.pl --strict --root="$src" -q \
		--no-summary --show-types ${ignore:+--ignore "$ignore"} \
		"$pdir/$p" 2>&1) && [ -z "$out" ]; then
		ktap_test_pass "checkpatch --strict: $p"
	else
		ktap_test_fail "checkpatch --strict: $p"
		echo "$out" | ktap_diag
	fi
done <"$pdir/series"

# The unchecked copies are for the interfaces that read raw memory, and
# for nothing else: any other user in the patched tree is a finding.
nocheck_users="include/linux/uaccess.h include/linux/uio.h drivers/char/mem.c
fs/proc/kcore.c arch/x86/kernel/crash_dump_64.c"
users=$(cd "$src" && grep -rlwE --include='*.[chS]' \
	'copy_(to|from)_user_nocheck|copy_to_iter_nocheck' .)
stray=$(printf '%s\n' $users | sed 's|^\./||' | grep -vxF "$(printf '%s\n' $nocheck_users)")
if [ -z "$stray" ] && [ -n "$users" ]; then
	ktap_test_pass "unchecked copies: used only by /dev/mem, /proc/kcore and crash dumps"
else
	ktap_test_fail "unchecked copies: used only by /dev/mem, /proc/kcore and crash dumps"
	echo "${stray:-no user found at all}" | ktap_diag
fi

# The cover letter (kernel/scripts/devtree.sh) is the series' as it is:
# numbered for it, and its shortlog names every patch.
subject() {	# a mail's subject, unfolded, without its [PATCH ...] tag
	git mailinfo /dev/null /dev/null <"$1" | sed -n 's/^Subject: //p'
}
cover=$pdir/0000-cover-letter.patch
if [ -f "$cover" ]; then
	n=$(grep -cv '^[[:space:]]*\(#\|$\)' "$pdir/series")
	shortlog=$(sed -n '/^[^ ].* ([0-9]*):$/,/^$/p' "$cover" | tr -s ' \n' '  ')
	missing=$(while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		grep -qF -- "$(subject "$pdir/$p")" <<<"$shortlog" || echo "$p"
	done <"$pdir/series")
	if grep -q "^Subject: \[PATCH 0*0/0*$n\]" "$cover" && [ -z "$missing" ]; then
		ktap_test_pass "cover letter: numbered for the $n patches, each in its shortlog"
	else
		ktap_test_fail "cover letter: numbered for the $n patches, each in its shortlog"
		echo "stale: ${missing:-the number of patches}" | ktap_diag
	fi
fi
ktap_finished
