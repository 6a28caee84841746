#!/bin/bash
# sparse.sh PATCHDIR SRC OBJ VSRC VOBJ
#
# Run sparse (make C=2) on every C file the series touches, in the patched
# tree SRC/OBJ and in the unpatched tree VSRC/VOBJ built with the same
# config, and print one KTAP result per file: not ok if the series adds a
# warning.  Files the config does not build are skipped.
set -uo pipefail

pdir=$1 src=$2 obj=$3 vsrc=$4 vobj=$5
. "$(dirname "$(realpath "$0")")/../../tests/lib/ktap.sh"
ktap_print_header
files=$(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$pdir"/[0-9]*.patch | sort -u)

warnings() { # warnings SRC OBJ FILE: sparse messages, without positions
	make -s -C "$1" O="$2" ARCH=x86_64 C=2 CHECK="sparse" \
		CC="ccache gcc" "${3%.c}.o" 2>&1 >/dev/null |
		grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' |
		sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u
}

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
	new=$(warnings "$src" "$obj" "$f")
	old=""
	[ -f "$vsrc/$f" ] && old=$(warnings "$vsrc" "$vobj" "$f")
	added=$(comm -13 <(echo "$old") <(echo "$new") | sed '/^$/d')
	if [ -z "$added" ]; then
		ktap_test_pass "sparse: $f adds no warning"
	else
		ktap_test_fail "sparse: $f adds warnings"
		echo "$added" | ktap_diag
	fi
done
ktap_finished
