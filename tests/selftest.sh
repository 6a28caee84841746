#!/bin/bash
# selftest.sh: tests of the build glue itself, on a tiny stand-in source
# tarball.  A broken series must stop the build with the name of the
# patch; a good one must apply with plain patch -p1.  Prints TAP.
set -uo pipefail

here=$(dirname "$(realpath "$0")")
top=$(realpath "$here/..")
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

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
	echo "ok - prepare-tree: a good series applies with patch -p1"
else
	echo "not ok - prepare-tree: a good series applies with patch -p1"
fi
out=$("$top/kernel/scripts/prepare-tree.sh" "$w/linux.tar.xz" "$w/bad" "$w/tree" 2>&1)
if [ $? != 0 ] && grep -q "0002-broken.patch does not apply" <<<"$out"; then
	echo "ok - prepare-tree: a broken patch stops the build, named"
else
	echo "not ok - prepare-tree: a broken patch stops the build, named"
	echo "$out" | sed 's/^/# /'
fi
if grep -qx 'line 2' "$w/tree/mm/usercopy.c"; then
	echo "ok - prepare-tree: a failed series leaves the previous tree alone"
else
	echo "not ok - prepare-tree: a failed series leaves the previous tree alone"
fi
echo 0003-missing.patch >>"$w/bad/series"
sed -i '/0002/d' "$w/bad/series"
out=$("$top/kernel/scripts/prepare-tree.sh" "$w/linux.tar.xz" "$w/bad" "$w/tree" 2>&1)
if [ $? != 0 ] && grep -q "0003-missing.patch, which is not in" <<<"$out"; then
	echo "ok - prepare-tree: a series naming a missing patch is refused"
else
	echo "not ok - prepare-tree: a series naming a missing patch is refused"
fi

# The guest result parser counts TAP, KTAP and trouble in the console.
python3 - "$here" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import harness
r = harness.Result()
harness.parse_tap("t", "ok - a\nnot ok - b\nok - c # SKIP no\n# ok - d\n", r)
print(("ok" if (r.passed, r.failed, r.skipped) == (1, 1, 1) else "not ok")
      + " - harness: TAP lines counted as passed, failed, skipped")
con = "[ 1.0] Oops: 0000 [#1] SMP\n"
print(("ok" if harness.TROUBLE.search(con) else "not ok")
      + " - harness: an oops in the console is trouble")
con = "[ 1.0] lkdtm: copy_to_user failed, but lacked Oops\n"
print(("ok" if not harness.TROUBLE.search(con) else "not ok")
      + " - harness: LKDTM's 'lacked Oops' is not trouble")
m = harness.KTAP_SUB.match("[    0.9]     ok 3 usercopy_test_bogus")
print(("ok" if m and m.group(2) == "usercopy_test_bogus" else "not ok")
      + " - harness: KUnit subtest lines are counted")
PY
