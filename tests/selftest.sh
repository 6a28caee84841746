#!/bin/bash
# selftest.sh: tests of the build glue itself, on a tiny stand-in source
# tarball.  A broken series must stop the build with the name of the
# patch; a good one must apply with plain patch -p1.  Also the KTAP
# writers (tests/lib) and the guest result parser.  Prints KTAP.
set -uo pipefail

here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/..")
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
. "$here/lib/ktap.sh"
ktap_print_header

mkdir -p "$w/linux/mm" "$w/good" "$w/bad"
printf 'line one\nline two\n' >"$w/linux/mm/usercopy.c"
tar -C "$w" -cJf "$w/linux.tar.xz" linux

cat >"$w/good/0001-fix.patch" <<'P'
Subject: [PATCH] fix

--- a/mm/usercopy.c
+++ b/mm/usercopy.c
@@ -1,2 +1,2 @@
 line one
-line two
+line 2
P
echo 0001-fix.patch >"$w/good/series"
cp "$w/good/0001-fix.patch" "$w/bad/"
sed 's/^ line one$/ line uno/' "$w/good/0001-fix.patch" >"$w/bad/0002-broken.patch"
printf '0001-fix.patch\n0002-broken.patch\n' >"$w/bad/series"

if "$top/kernel/scripts/prepare-tree.sh" "$w/linux.tar.xz" "$w/good" "$w/tree" >/dev/null 2>&1 &&
   grep -qx 'line 2' "$w/tree/mm/usercopy.c"; then
	ktap_test_pass "prepare-tree: a good series applies with patch -p1"
else
	ktap_test_fail "prepare-tree: a good series applies with patch -p1"
fi
out=$("$top/kernel/scripts/prepare-tree.sh" "$w/linux.tar.xz" "$w/bad" "$w/tree" 2>&1)
if [ $? != 0 ] && grep -q "0002-broken.patch does not apply" <<<"$out"; then
	ktap_test_pass "prepare-tree: a broken patch stops the build, named"
else
	ktap_test_fail "prepare-tree: a broken patch stops the build, named"
	echo "$out" | ktap_diag
fi
ktap_test_result "prepare-tree: a failed series leaves the previous tree alone" \
	grep -qx 'line 2' "$w/tree/mm/usercopy.c"
echo 0003-missing.patch >>"$w/bad/series"
sed -i '/0002/d' "$w/bad/series"
out=$("$top/kernel/scripts/prepare-tree.sh" "$w/linux.tar.xz" "$w/bad" "$w/tree" 2>&1)
if [ $? != 0 ] && grep -q "0003-missing.patch, which is not in" <<<"$out"; then
	ktap_test_pass "prepare-tree: a series naming a missing patch is refused"
else
	ktap_test_fail "prepare-tree: a series naming a missing patch is refused"
	echo "$out" | ktap_diag
fi

# bisect-check: a range outside the series, or empty, is said, not a run
# that checks nothing.
for range in "BISECT_FROM=2" "BISECT_TO=2" "BISECT_FROM=1 BISECT_TO=0"; do
	out=$(env $range "$top/kernel/scripts/bisect-check.sh" "$w/linux.tar.xz" "$w/good" "$w/bisect" 2>&1)
	if [ $? != 0 ] && grep -q "^not ok 1 BISECT_FROM=.* BISECT_TO=.*: the series has patches 1 to 1" <<<"$out" &&
	   [ ! -e "$w/bisect" ]; then
		ktap_test_pass "bisect-check: $range is refused"
	else
		ktap_test_fail "bisect-check: $range is refused"
		echo "$out" | ktap_diag
	fi
done

# sparse.sh on stand-in trees whose Makefile does what kbuild does with
# O= (relative to the tree) and C=2 (a checker message per file): a
# warning the series adds fails, one the unpatched tree has too does
# not, and a build directory make cannot use is a failure, not a pass.
for t in patched vanilla; do
	mkdir -p "$w/sp/$t/mm" "$w/sp/obj-$t/mm"
	: >"$w/sp/obj-$t/.config"
	: >"$w/sp/obj-$t/mm/usercopy.o"
	cat >"$w/sp/$t/Makefile" <<'M'
ifeq ($(wildcard $(O)/.config),)
$(error $(O) is not a configured build directory)
endif
%.o:
	@sed -n 's|^WARN \(.*\)|$(CURDIR)/$*.c:1:1: warning: \1|p' $*.c >&2
M
done
printf 'WARN old\n' >"$w/sp/vanilla/mm/usercopy.c"
printf 'WARN old\nWARN new\n' >"$w/sp/patched/mm/usercopy.c"
out=$(cd "$w" && "$top/kernel/scripts/sparse.sh" good sp/patched sp/obj-patched sp/vanilla sp/obj-vanilla 2>&1)
if grep -qx "not ok 1 sparse: mm/usercopy.c adds warnings" <<<"$out" &&
   grep -qx "# mm/usercopy.c: warning: new" <<<"$out" && ! grep -q "warning: old" <<<"$out"; then
	ktap_test_pass "sparse.sh: a warning the series adds fails, with relative paths"
else
	ktap_test_fail "sparse.sh: a warning the series adds fails, with relative paths"
	echo "$out" | ktap_diag
fi
rm "$w/sp/obj-patched/.config"
out=$(cd "$w" && "$top/kernel/scripts/sparse.sh" good sp/patched sp/obj-patched sp/vanilla sp/obj-vanilla 2>&1)
if grep -qx "not ok 1 sparse: mm/usercopy.c could not be checked" <<<"$out"; then
	ktap_test_pass "sparse.sh: a make that fails is a failure"
else
	ktap_test_fail "sparse.sh: a make that fails is a failure"
	echo "$out" | ktap_diag
fi

# The KTAP writers: one document from several processes (the guest's
# /init and the programs it runs), numbered on through KTAP_STATE.
cat >"$w/want" <<'K'
TAP version 13
ok 1 first
not ok 2 second, from another process
ok 3 third, from C
ok 4 fourth # SKIP no reason
1..4
# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:1 error:0
K
cat >"$w/third.c" <<'C'
#include "ktap.h"
int main(void)
{
	ktap_print_header();
	ktap_test_result(1, "third, from %s", "C");
	return ktap_finished();
}
C
if gcc -O2 -Wall -Wextra -Werror -I"$here/lib" -o "$w/third" "$w/third.c" 2>"$w/cc"; then
	for sh in sh "busybox sh"; do
		command -v ${sh% *} >/dev/null || { ktap_test_skip "ktap.sh under $sh" "no ${sh% *}"; continue; }
		KTAP_LIB=$here/lib/ktap.sh THIRD=$w/third $sh -c '
			. "$KTAP_LIB"
			ktap_print_header
			export KTAP_STATE=$(mktemp)
			ktap_test_pass first
			sh -c ". \"$KTAP_LIB\"; ktap_print_header; ktap_test_fail \"second, from another process\"; ktap_finished" &&
				echo "# the writer of a failure returned true"
			"$THIRD" || echo "# ktap.h returned false for a pass"
			ktap_test_skip fourth "no reason"
			ktap_finished && echo "# ktap_finished returned true after a failure"
			rm -f "$KTAP_STATE"' >"$w/got" 2>&1
		if diff -u "$w/want" "$w/got" >"$w/diff"; then
			ktap_test_pass "ktap.sh and ktap.h under $sh: one document from three processes"
		else
			ktap_test_fail "ktap.sh and ktap.h under $sh: one document from three processes"
			ktap_diag "$w/diff"
		fi
	done
else
	ktap_test_fail "ktap.h compiles with -Wall -Wextra -Werror"
	ktap_diag "$w/cc"
fi

# The guest result parser counts TAP, KTAP and trouble in the console.
harness() { # harness PYTHON: run it with tests/harness.py imported
	python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import harness
$1" "$here"
}
ktap_test_result "harness: TAP lines counted as passed, failed, skipped" harness '
r = harness.Result()
harness.parse_tap("t", "ok - a\nnot ok - b\nok - c # SKIP no\n# ok - d\n", r)
assert (r.passed, r.failed, r.skipped) == (1, 1, 1)'
ktap_test_result "harness: numbered KTAP lines counted, the plan is not a result" harness '
r = harness.Result()
harness.parse_tap("t", "TAP version 13\nok 1 a\nnot ok 2 b\nok 3 c # SKIP no\n1..3\n", r)
assert r.results == [("t", True, "a"), ("t", False, "b"), ("t", None, "c # SKIP no")]'
# KVM is used only when a guest kernel runs under it: a /dev/kvm that
# opens but never runs a vCPU (QEMU keeps running, silent) means TCG.
mkdir -p "$w/qemu-hangs" "$w/qemu-boots"
printf '#!/bin/sh\nexec sleep 30\n' >"$w/qemu-hangs/qemu-system-x86_64"
printf '#!/bin/sh\necho "Linux version 6.1.0"\nexec sleep 30\n' >"$w/qemu-boots/qemu-system-x86_64"
chmod +x "$w"/qemu-*/qemu-system-x86_64
touch "$w/bzImage"
kvm_probe() { # kvm_probe FAKE-QEMU-DIR: what the probe decides
	PATH="$w/$1:$PATH" harness "
harness.KVM_DEV = '$w/bzImage'
print('kvm' if harness.kvm_works('$w/$1/accel', '$w/bzImage', wait=2) else 'tcg')"
}
ktap_test_result "harness: a KVM that never runs the guest means TCG" \
	test "$(kvm_probe qemu-hangs)" = tcg
ktap_test_result "harness: a KVM that boots the guest is used" \
	test "$(kvm_probe qemu-boots)" = kvm
ktap_test_result "harness: an oops in the console is trouble" harness '
assert harness.TROUBLE.search("[ 1.0] Oops: 0000 [#1] SMP")'
ktap_test_result "harness: a warning in the console is trouble" harness '
assert harness.TROUBLE.search("[ 1.0] WARNING: CPU: 0 PID: 1 at mm/usercopy.c:99")'
ktap_test_result "harness: LKDTM's 'lacked Oops' is not trouble" harness '
assert not harness.TROUBLE.search("[ 1.0] lkdtm: copy_to_user failed, but lacked Oops")'
ktap_test_result "harness: the kernel's general protection fault is trouble" harness '
assert harness.TROUBLE.search("[ 1.0] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP")
assert harness.TROUBLE.search("[ 1.0] general protection fault: 0000 [#1] SMP")'
ktap_test_result "harness: a program's general protection fault is not trouble" harness '
assert not harness.TROUBLE.search("[ 1.0] traps: stress-ng-pthre[3476] general protection fault ip:56073ac332f2 sp:7f5a4112bd40 error:0 in stress-ng[56073a9d8000+50b000]")'
ktap_test_result "harness: KUnit subtest lines are counted" harness '
m = harness.KTAP_SUB.match("[    0.9]     ok 3 usercopy_test_bogus")
assert m and m.group(2) == "usercopy_test_bogus"'
ktap_test_result "the guest finds the same trouble as the harness (oops.ere)" \
	grep -qEf "$here/lib/oops.ere" <<<"[ 1.0] BUG: unable to handle page fault"

# series-rewrites.py: a patch that changes the base kernel's lines is the
# point of a series; one that changes an earlier patch's lines is counted.
rw_tree() {
	local t=$w/rw
	git init -q "$t" && cd "$t" || return 1
	git config user.name t && git config user.email t@localhost
	printf 'one\ntwo\n' >a.c && git add a.c && git commit -qm base &&
		git tag base
	printf 'one\ntwo\nthree\n' >a.c && git commit -qam 'add three'
	printf 'one\nTWO\nthree\n' >a.c && git commit -qam 'change a base line'
	printf 'one\nTWO\nTHREE\n' >a.c && git commit -qam 'rewrite three'
	cd - >/dev/null
}
rw_tree
rw_out=$(python3 "$top/kernel/scripts/series-rewrites.py" "$w/rw" 2>&1)
ktap_test_result "series-rewrites: only a line an earlier patch added counts" \
	grep -qxF "1 of 3 patches rewrite 1 line that an earlier patch added" <<<"$rw_out"
ktap_test_result "series-rewrites: names the patch and the one it rewrites" \
	grep -qE "^ 3 rewrite three\$" <<<"$rw_out"
ktap_finished
