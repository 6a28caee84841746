#!/bin/sh
# Seed the fuzz corpus DIR (make fuzz): one file per line of the real
# guest logs and of the other fixtures, and a few pieces of several lines
# (the parser is fed a log line by line, one libauparse buffer a line).
set -eu
dir=$1
fix=$(dirname "$0")/fixtures
mkdir -p "$dir"
for f in "$fix"/real-*.log "$fix"/basic.log "$fix"/malformed.log "$fix"/truncated.log "$fix"/site.log; do
	[ -f "$f" ] || continue
	# usercopy records and mode changes, plus a few others
	grep -a -e '1790' -e 'usercopy-mode' -e 'CONFIG_CHANGE' "$f" | sort -u |
	while IFS= read -r line; do
		printf '%s' "$line" >"$dir/$(basename "$f" .log)-$(printf '%s' "$line" | cksum | cut -d' ' -f1)"
	done
	head -n 40 "$f" >"$dir/$(basename "$f" .log)-head"
done
# a quoted value with a space (auparse splits at spaces; records.c
# hex-encodes it first), an enriched record, a record without a type
printf '%s\n' 'type=UNKNOWN[1790] msg=audit(1733270000.123:45): op=exposure region=slab cache=kmalloc-64 offset=0 len=8 auid=1000 uid=1000 gid=1000 ses=2 pid=4242 comm="a b" exe="/tmp/x y/pwn" permissive=0 res=0' >"$dir/quoted-space"
printf 'type=UNKNOWN[1790] msg=audit(1733270000.123:45): op=exposure region=slab offset=0 len=8 uid=0 pid=1 comm="x" exe="/x" res=0\035UID="root"\n' >"$dir/enriched"
printf '%s\n' 'type= msg=audit(1.000:1): res=1' 'node=h type=ANOM_USERCOPY msg=audit(1.000:1): op=exposure region=slab offset=0 len=1 pid=1 res=1' >"$dir/types"
echo "fuzz corpus: $(ls "$dir" | wc -l) inputs in $dir"
