#!/bin/bash
# devtree.sh create|export TARBALL PATCHDIR TREE
#
# The developer round trip for editing the patch series.
#   create: unpack TARBALL into the git tree TREE, commit it as the tag
#           "base", then apply every patch of PATCHDIR/series as one commit.
#   export: write the commits base..HEAD of TREE back into PATCHDIR as
#           numbered patches and rewrite PATCHDIR/series to match.
# The cover letter, PATCHDIR/0000-cover-letter.patch (not in the series),
# makes the round trip as the description of TREE's branch: its subject
# and text up to the shortlog.  Export writes it again, with the shortlog
# and diffstat of the series as it is.
set -euo pipefail

die() { echo "devtree: $*" >&2; exit 1; }
[ $# = 4 ] || die "usage: devtree.sh create|export TARBALL PATCHDIR TREE"
cmd=$1 tarball=$2 pdir=$3 tree=$4
cover=0000-cover-letter.patch
git_t() { git -C "$tree" "$@"; }
desc_key() { echo "branch.$(git_t symbolic-ref --short HEAD).description"; }

# The subject and body of a cover letter that git format-patch wrote (in a
# subshell, whose EXIT trap removes the message file however it ends).
cover_description() (
	msg=$(mktemp)
	trap 'rm -f "$msg"' EXIT
	git mailinfo "$msg" /dev/null <"$1" | sed -n 's/^Subject: //p'
	echo
	sed -e '/^[^ ].* ([0-9]*):$/,$d' "$msg" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
)

case $cmd in
create)
	[ ! -e "$tree" ] || die "$tree exists; remove it or use it"
	[ -r "$tarball" ] || die "no kernel source at $tarball"
	mkdir -p "$tree"
	tar -xf "$tarball" -C "$tree" --strip-components=1
	git_t init -q
	git_t add -A -f
	git_t -c user.name=base -c user.email=base@localhost commit -qm "base: $(basename "$tarball") $(cat "$pdir/BASE" 2>/dev/null)"
	git_t tag base
	while read -r p _; do
		case $p in ''|'#'*) continue ;; esac
		git_t am -q --keep-cr "$(realpath "$pdir/$p")" ||
			die "$p does not apply (git -C $tree am --abort to clean up)"
	done <"$pdir/series"
	if [ -f "$pdir/$cover" ]; then
		git_t config "$(desc_key)" "$(cover_description "$pdir/$cover")"
	fi
	echo "devtree: $tree has $(git_t rev-list --count base..HEAD) commits on top of tag base"
	;;
export)
	git_t rev-parse -q --verify base >/dev/null || die "$tree has no tag base"
	[ -z "$(git_t status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# --abbrev: the same index lines whether or not git packed the tree.
	git_t format-patch -q --zero-commit --no-signature -N --stat=72 --abbrev=9 \
		--filename-max-length=72 \
		-o "$tmp" base..HEAD
	if git_t config "$(desc_key)" >/dev/null; then
		git_t format-patch -q --zero-commit --no-signature --stat=72 --abbrev=9 \
			--cover-letter --cover-from-description=subject \
			-o "$tmp/cover" base..HEAD
		# The date of the series, not of the export.
		sed "s/^Date: .*/Date: $(git_t log -1 --format=%aD)/" \
			"$tmp/cover/$cover" >"$tmp/$cover"
	elif [ -f "$pdir/$cover" ]; then
		cp "$pdir/$cover" "$tmp/"
	fi
	rm -f "$pdir"/[0-9][0-9][0-9][0-9]-*.patch
	cp "$tmp"/*.patch "$pdir"/
	(cd "$pdir" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -vx "$cover") \
		>"$pdir/series"
	echo "devtree: exported $(wc -l <"$pdir/series") patches to $pdir"
	;;
*) die "unknown command $cmd" ;;
esac
