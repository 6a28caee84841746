#!/bin/bash
# sparse.sh PATCHDIR SRC OBJ VSRC VOBJ
#
# Run sparse (make C=2) on every C file the series touches, in the patched
# tree SRC/OBJ and in the unpatched tree VSRC/VOBJ built with the same
# config, and print one KTAP result per file: not ok if the series adds a
# warning.  Files the config does not build are skipped; one that the
# unpatched tree does not have, or cannot build, is compared with none.
set -uo pipefail

pdir=$1
# Absolute: make -C would take a relative O= from inside the tree.
src=$(realpath "$2") obj=$(realpath "$3") vsrc=$(realpath "$4") vobj=$(realpath "$5")
. "$(dirname "$(realpath "$0")")/../../tests/lib/ktap.sh"
ktap_print_header
files=$(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$pdir"/[0-9]*.patch | sort -u)

# warnings SRC OBJ FILE: sparse's messages on FILE, without positions and
# with paths relative to the tree, so that both trees' compare.  A make
# that fails prints no message of sparse's: that is an error, not a pass.
warnings() {
	local out
	out=$(make -s -C "$1" O="$2" ARCH=x86_64 C=2 CHECK="sparse" \
		CC="ccache gcc" "${3%.c}.o" 2>&1 >/dev/null) || {
		echo "make ${3%.c}.o failed in $2:"
		echo "$out" | tail -5
		return 1
	}
	echo "$out" | { grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' || :; } |
		sed -E -e "s|^$1/||" -e "s|^$2/||" -e 's/:[0-9]+:[0-9]+:/:/' |
		sort -u
}

vout=$(mktemp)
trap 'rm -f "$vout"' EXIT
for f in $files; do
	case $f in tools/*) continue ;; esac	# host tools, not kernel code
	by=$(grep -l "#include \"$(basename "$f")\"" "$src/$(dirname "$f")"/*.c 2>/dev/null | head -1)
	if [ -n "$by" ]; then
		ktap_test_skip "sparse: $f" "checked as part of ${by#"$src"/}"
		continue
	fi
	if [ ! -f "$obj/${f%.c}.o" ]; then
		ktap_test_skip "sparse: $f" "not built in this config"
		continue
	fi
	# Both trees at once: each make runs one compiler and one sparse.
	old="" vpid=""
	if [ -f "$vsrc/$f" ]; then
		warnings "$vsrc" "$vobj" "$f" >"$vout" &
		vpid=$!
	fi
	new=$(warnings "$src" "$obj" "$f")
	nrc=$?
	if [ -n "$vpid" ] && wait "$vpid"; then
		old=$(cat "$vout")
	fi
	if [ $nrc != 0 ]; then
		ktap_test_fail "sparse: $f could not be checked"
		echo "$new" | ktap_diag
		continue
	fi
	added=$(comm -13 <(echo "$old") <(echo "$new") | sed '/^$/d')
	if [ -z "$added" ]; then
		ktap_test_pass "sparse: $f adds no warning"
	else
		ktap_test_fail "sparse: $f adds warnings"
		echo "$added" | ktap_diag
	fi
done
ktap_finished
