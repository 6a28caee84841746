#!/bin/bash
# prepare-tree.sh TARBALL SERIES_DIR[:SERIES_DIR...] DEST
#
# Make DEST a copy of the kernel source in TARBALL with the quilt series in
# each SERIES_DIR applied in turn by plain `patch -p1`, the way a
# distribution consumes them.  SERIES_DIR may be empty ("") for the vanilla
# tree.  DEST is updated in
# place: only files whose content changed are rewritten, so the O= build
# directories that use DEST rebuild only what the series really touched.
set -euo pipefail

tarball=$1 series_dir=$2 dest=$3
stage=$dest.stage

die() { echo "prepare-tree: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "no kernel source at $tarball (apt-get install linux-source-6.1)"
rm -rf "$stage"
mkdir -p "$stage"
tar -xf "$tarball" -C "$stage" --strip-components=1

IFS=: read -ra series_dirs <<<"$series_dir"
for series_dir in "${series_dirs[@]}"; do
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$series_dir/$p" ] || die "series names $p, which is not in $series_dir"
		if ! out=$(patch -p1 -N --no-backup-if-mismatch -d "$stage" <"$series_dir/$p" 2>&1); then
			echo "$out" >&2
			die "patch $series_dir/$p does not apply"
		fi
		if grep -q '\.rej' <<<"$out"; then
			echo "$out" >&2
			die "patch $series_dir/$p applied with rejects"
		fi
	done <"$series_dir/series"
done

mkdir -p "$dest"
# -c compares content; without -t unchanged files keep their mtime.
rsync -rlpc --delete "$stage/" "$dest/"
rm -rf "$stage"
