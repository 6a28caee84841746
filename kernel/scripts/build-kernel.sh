#!/bin/bash
# build-kernel.sh SRC OBJ FRAGMENT...
#
# Configure and build an x86_64 guest kernel from the tree SRC into the
# build directory OBJ: tinyconfig, or the config in KBUILD_BASE (a file,
# xz-compressed or not), then the config FRAGMENTs merged in order (a
# later fragment overrides an earlier one).  Every option asked for must
# end up in the final .config; a silently dropped option would make a test
# pass for the wrong reason.  The compiler runs through ccache.  Leaves
# OBJ/arch/x86/boot/bzImage, or what the make targets in KBUILD_TARGETS
# make (prepare: a tree configured to compile single files in).
set -euo pipefail

src=$(realpath "$1") obj=$2
shift 2
die() { echo "build-kernel: $*" >&2; exit 1; }

mkdir -p "$obj"
obj=$(realpath "$obj")
jobs=${JOBS:-$(nproc)}
mk=(make -s -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc")

base=${KBUILD_BASE:-}
want=$(cat ${base:+"$base"} "$@" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragments" 2>/dev/null)" != "$want" ]; then
	if [ -z "$base" ]; then
		"${mk[@]}" tinyconfig >/dev/null
	else
		xz -dcf "$base" >"$obj/.config" || die "cannot read $base"
	fi
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "$@" >/dev/null
	"${mk[@]}" olddefconfig >/dev/null
	# What the fragments ask for: for an option set in several, the last.
	missing=0
	while read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$obj/.config" || { echo "  wanted $line" >&2; missing=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			grep -q "^$opt=" "$obj/.config" && { echo "  wanted $line" >&2; missing=1; } ;;
		esac
	done < <(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1 &/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 &/p' "$@" |
		awk '{ opt = $1; sub(/^[^ ]* /, ""); last[opt] = $0; order[opt] = NR }
		     END { for (o in last) print order[o] "\t" last[o] }' |
		sort -n | cut -f2-)
	[ $missing = 0 ] || die "config options above did not survive olddefconfig ($obj/.config)"
	echo "$want" >"$obj/.fragments"
fi

# shellcheck disable=SC2086
"${mk[@]}" ${KBUILD_TARGETS:-bzImage modules}
