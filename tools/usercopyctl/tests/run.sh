#!/bin/sh
# Host tests of usercopyctl, in TAP.  Run from tools/usercopyctl (make check).
#
# Every run of the program and of the unit tests goes through valgrind
# (VALGRIND=no to leave it out): a memory error or leak fails the test.
# The sysctls are stand-in files (USERCOPYCTL_SYSCTL_DIR), the audit logs
# are the fixtures in tests/fixtures.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin=$top/usercopyctl
fix=$here/fixtures
exp=$here/expected
T=$here/tmp
rm -rf "$T"
mkdir -p "$T"
# Fixtures by relative name, so that the expected output does not
# depend on where the tree is.
cd "$fix" || exit 1

export TZ=UTC LC_ALL=C
unset USERCOPYCTL_SYSCTL_DIR USERCOPYCTL_SYSCTL_D USERCOPYCTL_KCONFIG USERCOPYCTL_CMDLINE USERCOPYCTL_STAT
# No /proc/usercopy unless a test gives one (the host may have it).
export USERCOPYCTL_PROC_DIR="$T/no-proc"
# The version (from the Makefile, which reads it from the changelog).
: "${VERSION:=}" "${CHANGELOG:=$top/../../packaging/debian/changelog}"
# libsmartcols looks at the terminal width: make it fixed.
export COLUMNS=160

VG=
if [ "${VALGRIND:-yes}" != no ] && command -v valgrind >/dev/null; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
fi

. "$top/../../tests/lib/ktap.sh"
ktap_print_header
# The unit tests number their results on from ours.
KTAP_STATE=$T/ktap-state
export KTAP_STATE

# uc ARGS...: run the program, output in $T/out, $T/err, status in $rc.
uc() {
	$VG "$bin" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ $rc = 99 ]; then
		echo "# valgrind found errors in: usercopyctl $*"
		ktap_diag "$T/err"
	fi
}

# expect RC DESC: the last run exited with RC
expect() {
	if [ "$rc" = "$1" ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2 (exit $rc, expected $1)"
		ktap_diag "$T/out" "$T/err"
	fi
}

# same FILE DESC: the last run printed exactly FILE
same() {
	if cmp -s "$1" "$T/out"; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
		diff -u "$1" "$T/out" | ktap_diag
	fi
}

# has FILE PATTERN DESC: a line of FILE matches the grep pattern
has() {
	if grep -q -- "$2" "$1"; then
		ktap_test_pass "$3"
	else
		ktap_test_fail "$3"
		ktap_diag "$1"
	fi
}

json_ok() {
	if ! command -v python3 >/dev/null; then
		ktap_test_skip "$1" "no python3"
	elif python3 -m json.tool "$T/out" >/dev/null 2>"$T/jerr"; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1"
		ktap_diag "$T/jerr" "$T/out"
	fi
}

try_line="Try 'usercopyctl --help' for more information."

# bad_usage DESC ARGS...: exit 1, "Try" on the last line of stderr
bad_usage() {
	desc=$1
	shift
	uc "$@"
	if [ "$rc" = 1 ] && [ "$(tail -n 1 "$T/err")" = "$try_line" ] &&
	   [ ! -s "$T/out" ]; then
		ktap_test_pass "bad usage: $desc"
	else
		ktap_test_fail "bad usage: $desc (exit $rc)"
		ktap_diag "$T/out" "$T/err"
	fi
}

# A stand-in for /proc/sys/kernel/usercopy.
fake_kernel() { # fake_kernel MODE LOCKED
	rm -rf "$T/sys"
	mkdir -p "$T/sys"
	echo "$1" >"$T/sys/mode"
	echo "$2" >"$T/sys/locked"
	echo 7 >"$T/sys/violations"
	echo "off log enforce" >"$T/sys/modes_avail"
	export USERCOPYCTL_SYSCTL_DIR="$T/sys"
}

# ---- unit tests -------------------------------------------------------------

mkdir -p "$T/unit"
UNIT_TMP=$T/unit $VG "$here/unit" 2>"$T/unit.err"
urc=$?
ktap_diag "$T/unit.err"
[ $urc = 0 ] && ktap_test_pass "unit tests exit 0 (valgrind clean)" || ktap_test_fail "unit tests exit $urc"

# ---- command line -----------------------------------------------------------

uc --version
expect 0 "--version exits 0"
[ -n "$VERSION" ] && [ "$(cat "$T/out")" = "usercopyctl from usercopy-hardening $VERSION" ] &&
	ktap_test_pass "--version text" || { ktap_test_fail "--version text ($VERSION)"; ktap_diag "$T/out"; }
# One version: tool, man page and debian/changelog
clv=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$CHANGELOG")
[ "${clv%-*}" = "$VERSION" ] && grep -q "^\.TH \"USERCOPYCTL\" \"8\" \"[^\"]*\" \"usercopy\\\\-hardening $VERSION\"" "$top/usercopyctl.8" &&
	ktap_test_pass "one version for the tool, the man page and debian/changelog ($clv)" ||
	{ ktap_test_fail "one version for the tool, the man page and debian/changelog ($clv, $VERSION)"; grep '^\.TH' "$top/usercopyctl.8" | ktap_diag; }

uc --help
expect 0 "--help exits 0"
if grep -q '^Usage:$' "$T/out" && grep -q '^Commands:$' "$T/out" &&
   grep -q '^Options:$' "$T/out" && grep -q '^ -h, --help ' "$T/out" &&
   grep -q '^ -V, --version ' "$T/out" && grep -q 'usercopyctl(8)' "$T/out"; then
	ktap_test_pass "--help has the util-linux layout"
else
	ktap_test_fail "--help has the util-linux layout"
	ktap_diag "$T/out"
fi
# defect: --help omitted what the man page's synopsis shows
has "$T/out" '^ usercopyctl \[options\] mode \[off|log|enforce\] \[--persist\[=<file>\]\]$' "--help: mode --persist in the usage"
has "$T/out" '^ usercopyctl \[options\] lock \[--yes\]$' "--help: lock --yes in the usage"
for o in $(sed -n 's/^\*\(-[a-zA-Z]\)\*, \*\(--[a-z-]*\)\*.*/\1,\2/p; s/^\*\(--[a-z-]*\)\*.*/\1/p' "$top/usercopyctl.8.adoc" | tr ',' ' '); do
	grep -q -- "$o" "$T/out" || missing="${missing:-} $o"
done
[ -z "${missing:-}" ] && ktap_test_pass "--help lists every option of the man page" ||
	ktap_test_fail "--help lists every option of the man page (missing:$missing)"

bad_usage "no command"
bad_usage "unknown command" frobnicate
bad_usage "unknown long option" --frobnicate status
bad_usage "unknown short option" -Q status
bad_usage "missing argument" report -f
bad_usage "option of another command" report --persist
bad_usage "--yes with mode" mode log --yes
bad_usage "too many arguments" mode log enforce
bad_usage "--persist without a mode" mode --persist
bad_usage "invalid time" report --since yesterday-ish
bad_usage "invalid pid" report --pid 12x
bad_usage "unknown column" report -o TIME,NOPE
bad_usage "invalid count" monitor --count 0
bad_usage "invalid timeout" monitor --timeout -1
bad_usage "--json with --raw" report -J -r
bad_usage "--pairs with --raw" report -P -r
bad_usage "invalid --time-format" report --time-format julian
bad_usage "unknown --sort column" report --sort NOPE
bad_usage "--summary with --mode-changes" report --summary --mode-changes
bad_usage "pid of 2^32" report --pid 4294967296
uc frobnicate
[ "$(head -n 1 "$T/err")" = "usercopyctl: unknown command 'frobnicate'" ] &&
	ktap_test_pass "bad usage names the problem in one line" ||
	{ ktap_test_fail "bad usage names the problem in one line"; ktap_diag "$T/err"; }

# ---- report -----------------------------------------------------------------

uc report -f basic.log
expect 0 "report: basic log"
same "$exp/basic.txt" "report: basic log, exact rows"
[ ! -s "$T/err" ] && ktap_test_pass "report: basic log, no warnings" || { ktap_test_fail "report: basic log, no warnings"; ktap_diag "$T/err"; }

uc report -J -f basic.log
expect 0 "report -J"
same "$exp/basic.json" "report -J: exact JSON"
json_ok "report -J: valid JSON"
has "$T/out" '"time": "2024-12-03T23:53:20.123+00:00",' "report -J: time in ISO 8601 with the zone"
has "$T/out" '"epoch": 1733270000.123' "report -J: time as seconds since the epoch"

uc report -J --incidents --pid 99999 -f basic.log
expect 1 "report -J with nothing found exits 1"
json_ok "report -J with nothing found: valid JSON"
grep -q '"mode-changes"' "$T/out" && ktap_test_fail "report --incidents: no mode changes" ||
	ktap_test_pass "report --incidents: no mode changes"
has "$T/err" '^usercopyctl: no matching incidents$' "report with nothing found says so"

uc report --incidents -n -r -o PID,DIRECTION,ACTION -f basic.log
printf '123 exposure blocked\n131 overwrite logged\n132 exposure logged\n140 exposure blocked\n' >"$T/want"
same "$T/want" "report -n -r -o: chosen columns"

uc report --mode-changes -n -r -f basic.log
[ "$(wc -l <"$T/out")" = 5 ] && ! grep -q exposure "$T/out" &&
	ktap_test_pass "report --mode-changes: the 5 mode changes" ||
	{ ktap_test_fail "report --mode-changes: the 5 mode changes"; ktap_diag "$T/out"; }
has "$T/out" '^2024-12-03\\x2023:53:24 log bogus 0 0 1000 2 refused$' "report: refused mode change shown"

uc report --incidents --output-all -f basic.log
head -n 1 "$T/out" | grep -q 'EVENT.*GID.*SES.*SUBJ' && ktap_test_pass "report --output-all: all columns" ||
	{ ktap_test_fail "report --output-all: all columns"; ktap_diag "$T/out"; }
has "$T/out" '1733270003.999:49' "report: event id column"
has "$T/out" 'unconfined' "report: subj field before pid is read"

uc report --incidents -n -r -o PID --pid 131 -f basic.log
[ "$(cat "$T/out")" = 131 ] && ktap_test_pass "report --pid" || { ktap_test_fail "report --pid"; ktap_diag "$T/out"; }

uc report -n -r -o PID --uid 1000 -f basic.log
printf '131\n132\n\n2024-12-03\\x2023:53:24 log bogus 0 0 1000 2 refused\n' >"$T/want"
same "$T/want" "report --uid: uid or auid, and mode changes by auid"

uc report --incidents -n -r -o PID --since "2024-12-03 23:53:22" --until @1733270004 -f basic.log
[ "$(echo $(cat "$T/out"))" = "131 132" ] && ktap_test_pass "report --since/--until" ||
	{ ktap_test_fail "report --since/--until"; ktap_diag "$T/out"; }

uc report --incidents -n -r -o PID --since 2024-12-04 -f basic.log
[ ! -s "$T/out" ] && [ $rc = 1 ] && ktap_test_pass "report --since after everything: nothing, exit 1" ||
	{ ktap_test_fail "report --since after everything: nothing, exit 1"; ktap_diag "$T/out"; }
has "$T/err" '^usercopyctl: no matching incidents$' "report --since after everything: says so in one line"

uc report --incidents -n -r -o COMM,EXE -f basic.log
has "$T/out" '^uc\\x20victi /tmp/uc\\x20victi$' "report: hex-encoded comm and exe decoded"

uc report -f malformed.log
expect 0 "report: malformed log still exits 0"
same "$exp/malformed.txt" "report: malformed log, only the good rows"
cp "$T/out" "$T/out.keep"
cp "$T/err" "$T/out"
same "$exp/malformed.err" "report: malformed log, one warning per bad line with line number"

uc report -f truncated.log
expect 1 "report: log cut in the middle of a record (nothing else in it)"
has "$T/err" 'truncated.log:1: incomplete usercopy record' "report: cut record warned about"

uc report -f garbage.bin
expect 1 "report: binary garbage does not crash (nothing found)"
seq 1 30 | sed 's/^/junk /' >"$T/junk.log"
uc report -f "$T/junk.log"
[ "$(grep -c warning "$T/err")" = 21 ] && has "$T/err" 'junk.log: 10 more bad lines skipped' "report: warnings about bad lines are capped at 20" ||
	{ ktap_test_fail "report: warnings about bad lines are capped at 20"; ktap_diag "$T/err"; }

: >"$T/empty.log"
uc report -f "$T/empty.log"
expect 1 "report: empty log exits 1 (as ausearch)"
[ ! -s "$T/out" ] && has "$T/err" '^usercopyctl: no matching incidents or mode changes$' "report: empty log says so"

uc report -f "$T/no-such.log"
expect 1 "report: missing log exits 1"
has "$T/err" "^usercopyctl: cannot open $T/no-such.log: No such file or directory\$" "report: missing log, one line"

# uc() reads /dev/null: run this one directly
$VG "$bin" report -n -r -o PID --incidents -f - <basic.log >"$T/out" 2>"$T/err"
[ "$(echo $(cat "$T/out"))" = "123 131 132 140" ] && ktap_test_pass "report -f -: standard input" ||
	{ ktap_test_fail "report -f -: standard input"; ktap_diag "$T/out" "$T/err"; }

for f in real-*.log; do
	[ -e "$f" ] || continue
	uc report -f "$f"
	expect 0 "report: captured log $(basename "$f")"
	[ ! -s "$T/err" ] && ktap_test_pass "report: captured log $(basename "$f") has no bad lines" ||
		{ ktap_test_fail "report: captured log $(basename "$f") has no bad lines"; ktap_diag "$T/err"; }
done

# ---- defects found by trying it as an admin would ----------------------------

H='type=UNKNOWN[1790] msg=audit(1733270000.123:45): op=exposure region=slab cache=kmalloc-64 offset=0'
T2='auid=1000 uid=1000 gid=1000 ses=2 pid=4242 comm="pwn"'

# A quoted exe with a space in the path
echo "$H len=8 $T2 exe=\"/tmp/x y/pwn\" permissive=0 res=0" >"$T/space.log"
uc report --incidents -n -o EXE -f "$T/space.log"
[ "$(cat "$T/out")" = "/tmp/x y/pwn" ] && ktap_test_pass "report: quoted exe with a space, table" ||
	{ ktap_test_fail "report: quoted exe with a space, table"; ktap_diag "$T/out" "$T/err"; }
uc report --incidents -J -o EXE -f "$T/space.log"
has "$T/out" '"exe": "/tmp/x y/pwn"' "report -J: quoted exe with a space"

# Invalid UTF-8 (hex-encoded by the kernel) in JSON
echo "$H len=8 auid=1000 uid=1000 gid=1000 ses=2 pid=4242 comm=41FF42 exe=2F746D702FC3A9FE permissive=0 res=0" >"$T/utf8.log"
uc report -J -f "$T/utf8.log"
expect 0 "report -J: invalid UTF-8"
json_ok "report -J: invalid UTF-8 gives valid JSON"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["records"][0]; sys.exit(not (r["comm"]=="A\\xffB" and r["exe"]=="/tmp/\u00e9\\xfe"))' "$T/out" &&
		ktap_test_pass "report -J: invalid bytes as \\xNN, valid UTF-8 kept" ||
		{ ktap_test_fail "report -J: invalid bytes as \\xNN, valid UTF-8 kept"; ktap_diag "$T/out"; }
fi

# The largest values are values, not "unset"
echo "$H len=18446744073709551615 auid=4294967295 uid=0 gid=0 ses=18446744073709551615 pid=1 comm=\"x\" exe=\"/x\" permissive=0 res=0" >"$T/max.log"
uc report -n -r -o LENGTH,SES,AUID -f "$T/max.log"
[ "$(cat "$T/out")" = "18446744073709551615 18446744073709551615 4294967295" ] &&
	ktap_test_pass "report: len= and ses= of 2^64-1 shown" || { ktap_test_fail "report: len= and ses= of 2^64-1 shown"; ktap_diag "$T/out"; }
uc report -J -o LENGTH,SES -f "$T/max.log"
has "$T/out" '"length": 18446744073709551615,' "report -J: len= of 2^64-1 is a number, not null"
has "$T/out" '"ses": 18446744073709551615' "report -J: ses= of 2^64-1 is a number, not null"

# res= out of range, pid=/uid= out of range
for bad in res=2 res=-1 pid=4294967296 uid=4294967296 len=18446744073709551616; do
	case $bad in
	res=*)	line="$H len=8 $T2 exe=\"/x\" permissive=0 $bad" ;;
	pid=*)	line="$H len=8 auid=0 uid=0 gid=0 ses=1 $bad comm=\"x\" exe=\"/x\" permissive=0 res=0" ;;
	uid=*)	line="$H len=8 auid=0 $bad gid=0 ses=1 pid=1 comm=\"x\" exe=\"/x\" permissive=0 res=0" ;;
	len=*)	line="${H%offset=0} offset=0 $bad auid=0 uid=0 gid=0 ses=1 pid=1 comm=\"x\" exe=\"/x\" permissive=0 res=0" ;;
	esac
	echo "$line" >"$T/bad.log"
	uc report -f "$T/bad.log"
	[ $rc = 1 ] && grep -q "bad.log:1: malformed usercopy record (bad value $bad), skipped" "$T/err" &&
		ktap_test_pass "report: $bad refused, named" || { ktap_test_fail "report: $bad refused, named"; ktap_diag "$T/err"; }
done

# -r escapes once
printf '%s len=8 %s exe=2F746D702F1B5B33316D permissive=0 res=0\n' "$H" "$T2" >"$T/esc.log"
uc report -r -n -o EXE -f "$T/esc.log"
[ "$(cat "$T/out")" = '/tmp/\x1b[31m' ] && ktap_test_pass "report -r: an escape character escaped once" ||
	{ ktap_test_fail "report -r: an escape character escaped once"; ktap_diag "$T/out"; }
uc report -n -o EXE -f "$T/esc.log"
[ "$(cat "$T/out")" = '/tmp/\x1b[31m' ] && ktap_test_pass "report: no terminal escape reaches the terminal" ||
	{ ktap_test_fail "report: no terminal escape reaches the terminal"; ktap_diag "$T/out"; }

# The same file twice is read once
uc report --incidents -n -r -o PID -f basic.log -f ./basic.log
[ "$(echo $(cat "$T/out"))" = "123 131 132 140" ] && ktap_test_pass "report -f X -f X: each incident once" ||
	{ ktap_test_fail "report -f X -f X: each incident once"; ktap_diag "$T/out"; }
has "$T/err" 'basic.log is basic.log again, read once' "report -f X -f X: says so"

# ---- new options --------------------------------------------------------------

uc report -P --incidents -o PID,EXE,ACTION -f basic.log
head -n 1 "$T/out" >"$T/first"
[ "$(cat "$T/first")" = 'PID="123" EXE="/usr/bin/uc-victim" ACTION="blocked"' ] && ktap_test_pass "report -P: key=\"value\" pairs" ||
	{ ktap_test_fail "report -P: key=\"value\" pairs"; ktap_diag "$T/out"; }
uc report -P --mode-changes -o OLD-LOCK -f basic.log
has "$T/out" '^OLD_LOCK="0"$' "report -P: column names as shell variables"

uc report --incidents -n -r -o PID,LENGTH --sort LENGTH -f basic.log
[ "$(echo $(cat "$T/out"))" = "132 64 123 128 131 4096 140 100000" ] && ktap_test_pass "report --sort LENGTH: numeric" ||
	{ ktap_test_fail "report --sort LENGTH: numeric"; ktap_diag "$T/out"; }
uc report --incidents -n -r -o COMM --sort comm -f basic.log
[ "$(echo $(cat "$T/out"))" = 'cat uc\x20victi uc-victim uc-victim' ] && ktap_test_pass "report --sort COMM: by text" ||
	{ ktap_test_fail "report --sort COMM: by text"; ktap_diag "$T/out"; }

uc -H
expect 0 "-H exits 0"
head -n 1 "$T/out" | grep -q '^NAME *TYPE *RECORDS *DESCRIPTION$' && has "$T/out" '^NEW-LOCK *number *mode-changes ' "-H: lists the columns" ||
	{ ktap_test_fail "-H: lists the columns"; ktap_diag "$T/out"; }
uc --list-columns -J
json_ok "-H -J: valid JSON"

uc report --incidents -n -r -o TIME --time-format iso -f basic.log
[ "$(head -n 1 "$T/out")" = "2024-12-03T23:53:20.123+00:00" ] && ktap_test_pass "report --time-format iso" ||
	{ ktap_test_fail "report --time-format iso"; ktap_diag "$T/out"; }
uc report --incidents -n -r -o TIME --time-format raw -f basic.log
[ "$(head -n 1 "$T/out")" = "1733270000.123" ] && ktap_test_pass "report --time-format raw" ||
	{ ktap_test_fail "report --time-format raw"; ktap_diag "$T/out"; }
TZ=CET-1 $VG "$bin" report --incidents -J -o TIME -f basic.log >"$T/out" 2>"$T/err"
has "$T/out" '"time": "2024-12-04T00:53:20.123+01:00"' "report -J: time with the local zone"

uc report --summary -f basic.log
expect 0 "report --summary"
same "$exp/summary.txt" "report --summary: counts by kind"
uc report --summary -J -o REGION -f basic.log
json_ok "report --summary -J: valid JSON"
has "$T/out" '"count": 2,' "report --summary -o REGION: grouped by region"

# Records of a kernel that rate-limits them per call site, and one of a
# copy made in a hard interrupt.
uc report -n -r -o PID,COMM,SUPPRESSED -f limited.log
[ "$(tr '\n' '|' <"$T/out")" = '300 usercopy-test 0|300 usercopy-test 49990|300 usercopy-test 49999|0 <irq> 0|' ] &&
	ktap_test_pass "report -o SUPPRESSED: the copies the kernel left out, per record" ||
	{ ktap_test_fail "report -o SUPPRESSED: the copies the kernel left out, per record"; ktap_diag "$T/out" "$T/err"; }
uc report --summary -n -r -o CACHE -f limited.log
[ "$(cut -d' ' -f1,2,5 "$T/out" | tr '\n' '|')" = '3 kmalloc-64 99989|1 uc_buggy_wl 0|' ] &&
	ktap_test_pass "report --summary: records and suppressed copies per kind" ||
	{ ktap_test_fail "report --summary: records and suppressed copies per kind"; ktap_diag "$T/out" "$T/err"; }
uc report -J -o PID,UID,COMM,SUPPRESSED -f limited.log
json_ok "report -J: interrupt and rate-limited records, valid JSON"
tr -d ' \n' <"$T/out" >"$T/flat"
has "$T/flat" '"pid":0,"uid":4294967295,"comm":"<irq>","suppressed":0' \
	"report -J: a copy in a hard interrupt names no process"
uc report --incidents -n -o SUPPRESSED -f basic.log
[ "$(sort -u "$T/out" | tr -d ' \n')" = "" ] &&
	ktap_test_pass "report -o SUPPRESSED: empty for records without it" ||
	{ ktap_test_fail "report -o SUPPRESSED: empty for records without it"; ktap_diag "$T/out"; }

uc report --mode-changes -n -r -o TIME,NEW,RESULT -f basic.log
[ "$(head -n 1 "$T/out")" = '2024-12-03\x2023:53:21 log accepted' ] && ktap_test_pass "report -o: mode change columns" ||
	{ ktap_test_fail "report -o: mode change columns"; ktap_diag "$T/out"; }

uc report --since recent -f basic.log
expect 1 "report --since recent: nothing in an old log"
printf 'btime 1733270003\n' >"$T/stat"
USERCOPYCTL_STAT="$T/stat" $VG "$bin" report --incidents -n -r -o PID --since boot -f basic.log >"$T/out" 2>"$T/err"
[ "$(echo $(cat "$T/out"))" = "132 140" ] && ktap_test_pass "report --since boot" ||
	{ ktap_test_fail "report --since boot"; ktap_diag "$T/out" "$T/err"; }
uc report --since today -f basic.log
expect 1 "report --since today: nothing in an old log"

# ---- malformed and large logs (valgrind: no crash, no leak) -------------------

G=$T/gen
mkdir -p "$G"
good="$H len=8 $T2 exe=\"/x\" permissive=0 res=0"
# truncated at every 7th byte of a record
i=1
while [ $i -lt ${#good} ]; do
	printf '%s\n' "$(printf '%s' "$good" | cut -c1-$i)"
	i=$((i + 7))
done >"$G/truncated.log"
# a field over 64 KiB, quoted and hex
long=$(head -c 70000 /dev/zero | tr '\0' 'A')
{ echo "$H len=8 $T2 exe=\"/$long\" permissive=0 res=0"
  echo "$H len=8 $T2 exe=$(head -c 70000 /dev/zero | tr '\0' '4') permissive=0 res=0"
  echo "$H len=8 $T2 res=0 exe=\"/$long permissive=0"; } >"$G/long.log"
# NUL bytes, invalid UTF-8, control characters
{ printf '%s\0 len=8 %s res=0\n' "$H" "$T2"
  printf '%s len=8 %s exe="/\377\376\001" res=1\n' "$H" "$T2"
  printf '\377\376 type=\001\n'; } >"$G/bytes.log"
# missing and overflowing numbers
{ for f in offset len pid; do echo "$H len=8 $T2 exe=\"/x\" res=0" | sed "s/ $f=[0-9]*//"; done
  echo "$H len=99999999999999999999999 $T2 exe=\"/x\" res=0"
  echo "${H%%(*}(99999999999999999999999.123:45): op=exposure res=0"
  echo "$H len= $T2 res=0"; } >"$G/numbers.log"
for f in truncated long bytes numbers; do
	uc report -f "$G/$f.log"
	[ $rc = 0 ] || [ $rc = 1 ] && ktap_test_pass "report: generated $f.log, no crash or leak" ||
		{ ktap_test_fail "report: generated $f.log, no crash or leak (exit $rc)"; ktap_diag "$T/err"; }
	uc report -J -f "$G/$f.log"
	json_ok "report -J: generated $f.log, valid JSON"
done
uc report -n -r -o EXE -f "$G/long.log"
[ "$(wc -l <"$T/out")" = 2 ] && [ "$(head -n 1 "$T/out" | wc -c)" = 70002 ] &&
	ktap_test_pass "report: fields over 64 KiB are kept whole" || { ktap_test_fail "report: fields over 64 KiB are kept whole"; wc -c "$T/out" | ktap_diag; }
has "$T/err" 'long.log:3: malformed usercopy record (unterminated quote)' "report: an unterminated quote is named"
uc report -f "$G/bytes.log"
has "$T/err" 'bytes.log:1: line contains a NUL byte' "report: a NUL byte is named"

# 100,000 records: flat memory, and (under valgrind) no leak
awk -v h="$H" -v t="$T2" 'BEGIN {
	for (i = 0; i < 100000; i++) {
		if (i % 1000 == 0)
			printf "type=CONFIG_CHANGE msg=audit(%d.000:%d): op=usercopy-mode old=log new=enforce old_lock=0 new_lock=0 auid=0 ses=3 res=1\n", 1733270000 + i, i
		printf "type=UNKNOWN[1790] msg=audit(%d.%03d:%d): op=exposure region=slab cache=kmalloc-64 offset=0 len=%d auid=1000 uid=1000 gid=1000 ses=2 pid=%d comm=\"pwn\" exe=\"/tmp/pwn\" permissive=0 res=%d\n", 1733270000 + i, i % 1000, i, i % 4096 + 1, 1000 + i % 30000, i % 2
	}
}' >"$G/big.log"
uc report --summary -f "$G/big.log"
expect 0 "report --summary: 100,000 records"
has "$T/out" '^ *50000 exposure' "report --summary: 100,000 records counted"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o "$T/rss" "$bin" report -f "$G/big.log" >"$T/out" 2>"$T/err"
	[ "$(wc -l <"$T/out")" = 100103 ] && [ "$(cat "$T/rss")" -lt 30000 ] &&
		ktap_test_pass "report: 100,000 records streamed in $(cat "$T/rss") KiB" ||
		{ ktap_test_fail "report: 100,000 records streamed ($(cat "$T/rss") KiB, $(wc -l <"$T/out") lines)"; }
else
	ktap_test_skip "report: 100,000 records streamed" "no /usr/bin/time"
fi
uc report -n -r -o PID --pid 4242 -f "$G/big.log"
expect 0 "report: 100,000 records under valgrind"

# ---- status -----------------------------------------------------------------

export USERCOPYCTL_SYSCTL_DIR="$T/nothing-here"
uc status
expect 2 "status without the kernel feature exits 2"
[ "$(wc -l <"$T/out")" = 1 ] && has "$T/out" 'no usercopy control' "status without the feature: one line" ||
	ktap_test_fail "status without the feature: one line"
uc status -J
expect 2 "status -J without the feature exits 2"
json_ok "status -J without the feature: valid JSON"
uc mode
expect 2 "mode without the feature exits 2"
uc mode log
expect 2 "mode log without the feature exits 2"
uc lock --yes
expect 2 "lock without the feature exits 2"
has "$T/err" "^usercopyctl: the running kernel has no usercopy control" "lock without the feature: one clear line"

fake_kernel enforce 0
export USERCOPYCTL_KCONFIG=config-orc USERCOPYCTL_CMDLINE=cmdline-log
uc status -f basic.log
expect 0 "status"
same "$exp/status.txt" "status: exact text"
uc status -J -f basic.log
expect 0 "status -J"
json_ok "status -J: valid JSON"
sed -i "s|$T/|\$T/|" "$T/out"
same "$exp/status.json" "status -J: exact JSON"
has "$T/out" '"sysctl-dir": "$T/sys",' "status -J: sysctl-dir"
mkdir -p "$T/we\"ird\\dir"
USERCOPYCTL_SYSCTL_DIR="$T/we\"ird\\dir/x" $VG "$bin" status -J >"$T/out" 2>"$T/err"
json_ok "status -J: an odd sysctl-dir is escaped"
uc status -f "$T/no-such.log"
expect 0 "status with an unreadable audit log"
has "$T/out" "^Latest incidents: $T/no-such.log is not readable (No such file or directory)\$" "status says the log is unreadable"
export USERCOPYCTL_KCONFIG="$T/no-config"
uc status -f "$T/empty.log"
has "$T/out" '^  stack frames:       unknown$' "status without a kernel config: unknown"
has "$T/out" '^Latest incidents: none in ' "status with no incidents says so"
uc status -J -f "$T/empty.log"
json_ok "status -J with no incidents: valid JSON"
has "$T/out" '"latest-incidents": null$' "status -J with no incidents: null, not [null]"
unset USERCOPYCTL_KCONFIG USERCOPYCTL_CMDLINE

# ---- mode -------------------------------------------------------------------

export USERCOPYCTL_SYSCTL_D="$T/sysctl.d"
mkdir -p "$T/sysctl.d"
fake_kernel enforce 0
uc mode
expect 0 "mode: show"
[ "$(cat "$T/out")" = enforce ] && ktap_test_pass "mode: show prints the word" || { ktap_test_fail "mode: show prints the word"; ktap_diag "$T/out"; }
uc mode -J
printf '{\n   "mode": [\n      {\n         "mode": "enforce",\n         "locked": false\n      }\n   ]\n}\n' >"$T/want"
same "$T/want" "mode -J: a one-row table"

for m in log off enforce; do
	uc mode $m
	expect 0 "mode $m"
	[ "$(cat "$T/sys/mode")" = $m ] && ktap_test_pass "mode $m: written to the sysctl" ||
		{ ktap_test_fail "mode $m: written to the sysctl"; ktap_diag "$T/sys/mode"; }
done
[ ! -e "$T/sysctl.d/90-usercopy.conf" ] && ktap_test_pass "mode without --persist leaves sysctl.d alone" ||
	ktap_test_fail "mode without --persist leaves sysctl.d alone"

uc mode sideways
expect 1 "mode: invalid word refused"
[ "$(cat "$T/err")" = "usercopyctl: invalid mode 'sideways' (use off, log or enforce)" ] &&
	ktap_test_pass "mode: invalid word, one line" || { ktap_test_fail "mode: invalid word, one line"; ktap_diag "$T/err"; }
# The mode names come from the kernel's modes_avail.
echo "off log enforce paranoid" >"$T/sys/modes_avail"
uc mode sideways
[ "$(cat "$T/err")" = "usercopyctl: invalid mode 'sideways' (use off, log, enforce or paranoid)" ] &&
	ktap_test_pass "mode: the valid names are the kernel's modes_avail" || { ktap_test_fail "mode: the valid names are the kernel's modes_avail"; ktap_diag "$T/err"; }
uc mode paranoid
expect 0 "mode: a mode only the kernel knows"
uc --help
has "$T/out" '^Modes: off log enforce paranoid$' "--help: modes from modes_avail"
rm "$T/sys/modes_avail"
uc mode sideways
has "$T/err" "(use off, log or enforce)" "mode: the fallback names without modes_avail"
echo "off log enforce" >"$T/sys/modes_avail"
uc mode enforce
[ "$(cat "$T/sys/mode")" = enforce ] && ktap_test_pass "mode: invalid word leaves the mode alone" ||
	ktap_test_fail "mode: invalid word leaves the mode alone"

uc mode log --persist
expect 0 "mode log --persist"
printf '# Usercopy hardening mode, applied at boot by systemd-sysctl.\n# Written by usercopyctl mode --persist; see usercopyctl(8)\n# and sysctl.d(5). Valid modes: off, log, enforce.\nkernel.usercopy.mode = log\n' >"$T/want"
cmp -s "$T/want" "$T/sysctl.d/90-usercopy.conf" && ktap_test_pass "mode --persist: sysctl.d file" ||
	{ ktap_test_fail "mode --persist: sysctl.d file"; ktap_diag "$T/sysctl.d/90-usercopy.conf"; }
has "$T/out" "$T/sysctl.d/90-usercopy.conf" "mode --persist names the file"
[ "$(ls "$T/sysctl.d")" = 90-usercopy.conf ] && ktap_test_pass "mode --persist leaves no temporary file" ||
	{ ktap_test_fail "mode --persist leaves no temporary file"; ls "$T/sysctl.d" | ktap_diag; }

uc mode enforce --persist="$T/other.conf"
expect 0 "mode --persist=FILE"
grep -q '^kernel.usercopy.mode = enforce$' "$T/other.conf" && ktap_test_pass "mode --persist=FILE writes that file" ||
	ktap_test_fail "mode --persist=FILE writes that file"

export USERCOPYCTL_SYSCTL_D="$T/no/such/dir"
uc mode off --persist
expect 1 "mode --persist into a missing directory fails"
[ "$(cat "$T/sys/mode")" = enforce ] && ktap_test_pass "... and the mode is not changed (nothing half-done)" ||
	ktap_test_fail "... and the mode is not changed (nothing half-done)"
export USERCOPYCTL_SYSCTL_D="$T/sysctl.d"

# The kernel refusing the value: a directory cannot be written.
mv "$T/sys/mode" "$T/sys/mode.keep"
mkdir "$T/sys/mode"
uc mode log --persist
expect 1 "mode: write refused by the kernel exits 1"
[ "$(wc -l <"$T/err")" = 1 ] && ktap_test_pass "mode: refused write, one line" || { ktap_test_fail "mode: refused write, one line"; ktap_diag "$T/err"; }
grep -q '= log$' "$T/sysctl.d/90-usercopy.conf" && [ "$(ls "$T/sysctl.d")" = 90-usercopy.conf ] &&
	ktap_test_pass "mode: refused write leaves the persist file alone" || ktap_test_fail "mode: refused write leaves the persist file alone"
rmdir "$T/sys/mode"
mv "$T/sys/mode.keep" "$T/sys/mode"

fake_kernel log 1
uc mode enforce --persist
expect 1 "mode: locked refused"
[ "$(cat "$T/err")" = "usercopyctl: cannot set the mode to enforce: the mode is locked (log) until reboot" ] &&
	ktap_test_pass "mode: locked, says why in one line" || { ktap_test_fail "mode: locked, says why in one line"; ktap_diag "$T/err"; }
[ "$(cat "$T/sys/mode")" = log ] && grep -q '= log$' "$T/sysctl.d/90-usercopy.conf" &&
	ktap_test_pass "mode: locked leaves mode and persist file alone" || ktap_test_fail "mode: locked leaves mode and persist file alone"
uc mode log
expect 0 "mode: locked, asking for the current mode is fine"

fake_kernel enforce 0
chmod 755 "$T" "$T/sys"
chmod 644 "$T/sys/mode"
asnobody=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	asnobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
if [ -n "$asnobody" ]; then
	$asnobody env USERCOPYCTL_SYSCTL_DIR="$T/sys" $VG "$bin" mode log >"$T/out" 2>"$T/err"
	rc=$?
	expect 1 "mode as an unprivileged user refused"
	[ "$(cat "$T/err")" = "usercopyctl: cannot set the mode to log: permission denied (CAP_SYS_ADMIN is needed; run as root)" ] &&
		ktap_test_pass "mode as an unprivileged user: says why" || { ktap_test_fail "mode as an unprivileged user: says why"; ktap_diag "$T/err"; }
	[ "$(cat "$T/sys/mode")" = enforce ] && ktap_test_pass "mode as an unprivileged user: unchanged" ||
		ktap_test_fail "mode as an unprivileged user: unchanged"
else
	ktap_test_skip "mode as an unprivileged user" "not root or no setpriv"
fi

# ---- lock -------------------------------------------------------------------

fake_kernel enforce 0
uc lock
expect 1 "lock without --yes and no terminal refused"
has "$T/err" 'use --yes' "lock without a terminal says to use --yes"
[ "$(cat "$T/sys/locked")" = 0 ] && ktap_test_pass "lock refused: still unlocked" || ktap_test_fail "lock refused: still unlocked"
uc lock --yes
expect 0 "lock --yes"
[ "$(cat "$T/sys/locked")" = 1 ] && ktap_test_pass "lock --yes writes 1" || ktap_test_fail "lock --yes writes 1"
uc lock --yes
expect 0 "lock when locked already"
has "$T/out" 'already locked' "lock when locked already says so"
uc mode off
expect 1 "mode refused after lock"
unset USERCOPYCTL_SYSCTL_DIR USERCOPYCTL_SYSCTL_D

# ---- monitor ----------------------------------------------------------------

uc monitor --timeout 0.2
if [ $rc = 0 ]; then
	ktap_test_pass "monitor --timeout ends by itself"
	uc monitor --timeout 0.2 --count 1
	expect 1 "monitor --count not reached before --timeout exits 1"
	[ "$(cat "$T/err")" = "usercopyctl: timed out after 0.2 s with 0 of 1 incidents" ] &&
		ktap_test_pass "monitor --count not reached: says so in one line" ||
		{ ktap_test_fail "monitor --count not reached: says so in one line"; ktap_diag "$T/err"; }
	# SIGTERM ends it cleanly (exit 0)
	$VG "$bin" monitor --timeout 20 >"$T/out" 2>"$T/err" &
	pid=$!
	# Once its audit socket is open (valgrind starts slowly on a busy host).
	i=0
	while [ $i -lt 100 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q 'socket:'; do
		sleep 0.2
		i=$((i + 1))
	done
	sleep 0.5
	kill -TERM $pid
	wait $pid
	rc=$?
	expect 0 "monitor ends cleanly on SIGTERM"
elif grep -q 'CAP_AUDIT_READ' "$T/err"; then
	ktap_test_skip "monitor without CAP_AUDIT_READ says so" "live tests need it"
else
	ktap_test_skip "monitor" "no audit netlink here: $(cat "$T/err")"
fi

# ---- whitelist, sites, allow, report --suggest, site= ------------------------

export USERCOPYCTL_PROC_DIR=proc
uc whitelist
expect 0 "whitelist"
same "$exp/whitelist.txt" "whitelist: exact table"
uc whitelist -J
json_ok "whitelist -J: valid JSON"
tr -d ' \n' <"$T/out" >"$T/flat"
has "$T/flat" '{"cache":"uc_buggy_wl","size":128,"offset":32,"usersize":32,"origin":"region"}' \
	"whitelist -J: numbers as numbers, the origin"
uc whitelist -n -r -o CACHE --origin none,admin
[ "$(echo $(cat "$T/out"))" = "uc_buggy_nowl vendor_ring dentry" ] && ktap_test_pass "whitelist --origin: only those origins" ||
	{ ktap_test_fail "whitelist --origin: only those origins"; ktap_diag "$T/out"; }
uc whitelist -n -r -o CACHE,ORIGIN 'uc_buggy_*' kmalloc-64
[ "$(tr '\n' '|' <"$T/out")" = 'uc_buggy_flag flag|uc_buggy_wl region|uc_buggy_nowl none|kmalloc-64 kmalloc|' ] &&
	ktap_test_pass "whitelist CACHE...: names and patterns" || { ktap_test_fail "whitelist CACHE...: names and patterns"; ktap_diag "$T/out"; }
uc whitelist no_such_cache
expect 1 "whitelist: no matching cache exits 1"
[ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "usercopyctl: no matching caches" ] && ktap_test_pass "whitelist: no matching cache, one line" ||
	{ ktap_test_fail "whitelist: no matching cache, one line"; ktap_diag "$T/out" "$T/err"; }
uc whitelist -o +DESCRIPTION -n -r uc_buggy_nowl
has "$T/out" '^uc_buggy_nowl 96 0 0 none no\\x20whitelist' "whitelist -o +DESCRIPTION"
bad_usage "whitelist --origin of no origin" whitelist --origin none,sideways
bad_usage "whitelist: a column of the records" whitelist -o PID
bad_usage "--origin with sites" sites --origin none
uc -H whitelist
has "$T/out" '^USERSIZE *number ' "-H whitelist: its columns"

USERCOPYCTL_PROC_DIR="$T/no-proc" $VG "$bin" whitelist >"$T/out" 2>"$T/err"
rc=$?
expect 2 "whitelist without the kernel feature exits 2"
[ "$(cat "$T/err")" = "usercopyctl: the running kernel does not show its usercopy whitelist ($T/no-proc/whitelist is missing)" ] &&
	ktap_test_pass "whitelist without the feature: one line" || { ktap_test_fail "whitelist without the feature: one line"; ktap_diag "$T/err"; }
mkdir -p "$T/proc"
printf 'cache size\nkmalloc-64 64 0 64 kmalloc\n' >"$T/proc/whitelist"
USERCOPYCTL_PROC_DIR="$T/proc" $VG "$bin" whitelist >"$T/out" 2>"$T/err"
rc=$?
expect 1 "whitelist of another format exits 1"
[ "$(wc -l <"$T/err")" = 1 ] && has "$T/err" 'not in the format of this usercopyctl' "whitelist of another format: one line" ||
	{ ktap_test_fail "whitelist of another format: one line"; ktap_diag "$T/err"; }
{ head -n 1 proc/whitelist
  echo 'good 64 0 64 kmalloc'
  echo 'short 64 0 64'
  echo 'long 64 0 64 kmalloc x'
  echo 'bad 64 zero 64 kmalloc'
  echo 'out 64 32 64 region'
  echo 'odd 64 0 64 sideways'
  echo 'good2 64 0 0 none'; } >"$T/proc/whitelist"
USERCOPYCTL_PROC_DIR="$T/proc" $VG "$bin" whitelist -n -r -o CACHE >"$T/out" 2>"$T/err"
rc=$?
expect 0 "whitelist with bad lines exits 0"
[ "$(echo $(cat "$T/out"))" = "good good2" ] && ktap_test_pass "whitelist with bad lines: the good ones" ||
	{ ktap_test_fail "whitelist with bad lines: the good ones"; ktap_diag "$T/out"; }
printf '%s\n' "usercopyctl: warning: $T/proc/whitelist:3: too few fields, skipped" \
	"usercopyctl: warning: $T/proc/whitelist:4: too many fields, skipped" \
	"usercopyctl: warning: $T/proc/whitelist:5: bad useroffset 'zero', skipped" \
	"usercopyctl: warning: $T/proc/whitelist:6: region outside the object, skipped" \
	"usercopyctl: warning: $T/proc/whitelist:7: unknown origin 'sideways', skipped" >"$T/want"
cmp -s "$T/want" "$T/err" && ktap_test_pass "whitelist with bad lines: one warning each, with its line" ||
	{ ktap_test_fail "whitelist with bad lines: one warning each, with its line"; diff -u "$T/want" "$T/err" | ktap_diag; }
if [ -n "$asnobody" ]; then
	chmod 755 "$T/proc"
	chmod 400 "$T/proc/whitelist"
	$asnobody env USERCOPYCTL_PROC_DIR="$T/proc" $VG "$bin" whitelist >"$T/out" 2>"$T/err"
	rc=$?
	expect 1 "whitelist as an unprivileged user exits 1"
	[ "$(cat "$T/err")" = "usercopyctl: cannot read $T/proc/whitelist: permission denied (it is readable by root only)" ] &&
		ktap_test_pass "whitelist as an unprivileged user: says why" || { ktap_test_fail "whitelist as an unprivileged user: says why"; ktap_diag "$T/err"; }
else
	ktap_test_skip "whitelist as an unprivileged user" "not root or no setpriv"
fi

uc sites
expect 0 "sites"
same "$exp/sites.txt" "sites: exact table, most violations first, (other) last"
uc sites -J
json_ok "sites -J: valid JSON"
tr -d '\n' <"$T/out" | sed 's/  */ /g' >"$T/flat"
has "$T/flat" '"count": 3, "region": "slab", "cache": "uc_buggy_nowl", "site": "nowl_read+0x1a/0x40 \[uc_buggy\]"' \
	"sites -J: a module's site with its space"
has "$T/flat" '"count": 41, "region": null, "cache": null, "site": "(other)"' "sites -J: the rest of a full table"
printf '# violations region cache site\n' >"$T/proc/sites"
USERCOPYCTL_PROC_DIR="$T/proc" $VG "$bin" sites >"$T/out" 2>"$T/err"
rc=$?
expect 0 "sites: none since boot exits 0"
[ "$(cat "$T/out")" = "COUNT REGION CACHE SITE" ] && ktap_test_pass "sites: none since boot, the heading" ||
	{ ktap_test_fail "sites: none since boot, the heading"; ktap_diag "$T/out"; }
printf '# violations region cache site\n3 slab x\nx slab c f+0x1/0x2\n2 slab c  \n1 stack - f+0x1/0x2\n' >"$T/proc/sites"
USERCOPYCTL_PROC_DIR="$T/proc" $VG "$bin" sites -n -r >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && [ "$(cat "$T/out")" = "1 stack  f+0x1/0x2" ] && [ "$(wc -l <"$T/err")" = 3 ] &&
	has "$T/err" "sites:3: bad count 'x', skipped" "sites with bad lines: the good one, a warning each" ||
	{ ktap_test_fail "sites with bad lines: the good one, a warning each"; ktap_diag "$T/out" "$T/err"; }

# site= and the allow changes in the audit log
uc report -f site.log
expect 0 "report: records with site= and allow changes"
same "$exp/site.txt" "report: SITE column, allow changes table"
uc report --incidents -n -r -o PID,SITE -f site.log
has "$T/out" '^400 nowl_read+0x1a/0x40\\x20\[uc_buggy\]$' "report: a hex site= (module) decoded"
has "$T/out" '^403 usercopy_test_foo+0x12/0x80$' "report: a quoted site="
has "$T/out" '^407 $' "report: a record without site= (older kernels)"
uc report -J -f site.log
json_ok "report -J: site= and allow changes, valid JSON"
tr -d '\n' <"$T/out" | sed 's/  */ /g' >"$T/flat"
has "$T/flat" '"type": "allow-change", "time": "2024-12-03T23:56:42.000+00:00", [^}]*"cache": "no such", [^}]*"result": "refused"' \
	"report -J: a refused allow change, its hex cache decoded"
uc report --mode-changes -n -r -f site.log
[ "$(wc -l <"$T/out")" = 2 ] && ktap_test_pass "report --mode-changes: no allow changes" ||
	{ ktap_test_fail "report --mode-changes: no allow changes"; ktap_diag "$T/out"; }

uc report --suggest -f site.log
expect 0 "report --suggest"
same "$exp/suggest.txt" "report --suggest: by call site, most first, with what to change"
uc report --suggest -J -f site.log
json_ok "report --suggest -J: valid JSON"
has "$T/out" '"suggestion": "widen the region (offset 32, size 32) to offset 16, size 64, or fix the caller"' \
	"report --suggest: a region widened to what was copied"
uc report --suggest -n -r -o COUNT,CACHE --pid 408 -f site.log
expect 1 "report --suggest: blocked copies are not suggestions"
has "$T/err" '^usercopyctl: no matching incidents of log mode' "report --suggest with nothing: one line"
USERCOPYCTL_PROC_DIR="$T/no-proc" $VG "$bin" report --suggest -n -r -o CACHE,ORIGIN -f site.log >"$T/out" 2>"$T/err"
has "$T/out" '^uc_buggy_nowl unknown$' "report --suggest without the whitelist: origin unknown"
has "$T/err" 'warning: the origins of the caches are unknown' "report --suggest without the whitelist: says so"
bad_usage "--suggest with --summary" report --suggest --summary
bad_usage "--suggest with a record column" report --suggest -o PID
uc -H report --suggest
has "$T/out" '^SUGGESTION *string ' "-H report --suggest: its columns"

# allow, against stand-in files
fake_kernel enforce 0
: >"$T/sys/allow.want"
echo >"$T/sys/allow"
uc allow
expect 0 "allow: list"
[ ! -s "$T/out" ] && ktap_test_pass "allow: nothing allowed, nothing printed" || { ktap_test_fail "allow: nothing allowed, nothing printed"; ktap_diag "$T/out"; }
uc allow -J
json_ok "allow -J: valid JSON"
has "$T/out" '"caches": null' "allow -J: none is null"
cp "$T/sys/allow" "$T/allow.before"
# allow_refused DESC ERR ARGS...: exit 1, that one line, the sysctl unchanged
allow_refused() {
	desc=$1 want=$2
	shift 2
	uc "$@"
	if [ "$rc" = 1 ] && [ "$(cat "$T/err")" = "$want" ] && cmp -s "$T/allow.before" "$T/sys/allow"; then
		ktap_test_pass "allow refused: $desc"
	else
		ktap_test_fail "allow refused: $desc (exit $rc)"
		ktap_diag "$T/err" "$T/sys/allow"
	fi
}
allow_refused "no such cache" "usercopyctl: cannot allow no_such_cache: no cache named no_such_cache" allow no_such_cache -y
allow_refused "a name with a space" "usercopyctl: invalid cache name (empty, longer than 255 bytes, or with a space or a control character)" allow 'a b' -y
allow_refused "an empty name" "usercopyctl: invalid cache name (empty, longer than 255 bytes, or with a space or a control character)" allow '' -y
allow_refused "no terminal, no --yes" "usercopyctl: not allowing uc_buggy_nowl without confirmation: standard input is not a terminal (use --yes)" allow uc_buggy_nowl
echo 1 >"$T/sys/locked"
allow_refused "locked" "usercopyctl: cannot allow uc_buggy_nowl: the usercopy configuration is locked until reboot" allow uc_buggy_nowl --yes
echo 0 >"$T/sys/locked"
bad_usage "allow --yes without a cache" allow --yes
bad_usage "allow two caches" allow a b
uc allow uc_buggy_flag --yes
[ $rc = 0 ] && has "$T/out" '^cache uc_buggy_flag is whitelisted whole already (flag)$' "allow: a cache whitelisted whole already, nothing written" &&
	cmp -s "$T/allow.before" "$T/sys/allow" || { ktap_test_fail "allow: whitelisted whole already (exit $rc)"; ktap_diag "$T/out" "$T/err"; }
uc allow uc_buggy_nowl --yes
expect 0 "allow --yes"
[ "$(cat "$T/sys/allow")" = uc_buggy_nowl ] && ktap_test_pass "allow --yes: the name written to the sysctl" ||
	{ ktap_test_fail "allow --yes: the name written to the sysctl"; ktap_diag "$T/sys/allow"; }
uc allow
[ "$(cat "$T/out")" = uc_buggy_nowl ] && ktap_test_pass "allow: lists the allowed cache" || { ktap_test_fail "allow: lists the allowed cache"; ktap_diag "$T/out"; }
uc allow uc_buggy_nowl --yes
has "$T/out" 'whitelisted by the admin already' "allow: allowed already, says so"
rm "$T/sys/allow"
uc allow
expect 2 "allow: a kernel without the allow list exits 2"
echo 'uc_buggy_nowl vendor_ring' >"$T/sys/allow"
export USERCOPYCTL_KCONFIG=config-orc
uc status -f "$T/empty.log"
has "$T/out" '^Whitelist:       9 caches (2 flag, 2 kmalloc, 1 admin, 2 region, 2 none)$' "status: the caches by origin"
has "$T/out" '^Allowed caches:  uc_buggy_nowl vendor_ring (whitelisted whole by the admin)$' "status: the admin's caches"
uc status -J -f "$T/empty.log"
json_ok "status -J with the whitelist: valid JSON"
has "$T/out" '"whitelist-none": 2,' "status -J: the caches by origin"
unset USERCOPYCTL_KCONFIG USERCOPYCTL_SYSCTL_DIR
export USERCOPYCTL_PROC_DIR="$T/no-proc"

# ---- man page, completion, audit rules --------------------------------------

if [ -f "$top/usercopyctl.8" ] && grep -q '^\.TH "USERCOPYCTL" "8"' "$top/usercopyctl.8"; then
	ktap_test_pass "man page built"
else
	ktap_test_fail "man page built"
fi

if command -v bash >/dev/null; then
	mkdir -p "$T/compsys"
	echo "off log enforce paranoid" >"$T/compsys/modes_avail"
	out=$(PATH="$top:$PATH" USERCOPYCTL_SYSCTL_DIR="$T/nothing" bash -c '
		. "$1"
		COMP_WORDS=(usercopyctl ""); COMP_CWORD=1; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl mode ""); COMP_CWORD=2; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl report -o ""); COMP_CWORD=3; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl report --sort ""); COMP_CWORD=3; _usercopyctl; echo "${COMPREPLY[*]}"
		USERCOPYCTL_SYSCTL_DIR=$2
		COMP_WORDS=(usercopyctl mode ""); COMP_CWORD=2; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl report -""); COMP_CWORD=2; _usercopyctl; echo "${COMPREPLY[*]}"
	' sh "$top/usercopyctl.bash-completion" "$T/compsys" 2>&1)
	echo "$out" | sed -n 1p | grep -qw status && echo "$out" | sed -n 2p | grep -qw enforce &&
		echo "$out" | sed -n 3p | grep -qw 'COMM,' && echo "$out" | sed -n 3p | grep -qw 'RESULT,' &&
		echo "$out" | sed -n 4p | grep -qw LENGTH &&
		ktap_test_pass "bash completion completes commands, modes and columns (from the program)" ||
		{ ktap_test_fail "bash completion completes commands, modes and columns (from the program)"; echo "$out" | ktap_diag; }
	echo "$out" | sed -n 5p | grep -qw paranoid && ktap_test_pass "bash completion: modes from modes_avail" ||
		{ ktap_test_fail "bash completion: modes from modes_avail"; echo "$out" | ktap_diag; }
	for o in --pairs --sort --summary --time-format --list-columns; do
		echo "$out" | sed -n 6p | grep -q -- "$o" || missing_c="${missing_c:-} $o"
	done
	[ -z "${missing_c:-}" ] && ktap_test_pass "bash completion: the report options" ||
		{ ktap_test_fail "bash completion: the report options (missing:$missing_c)"; echo "$out" | ktap_diag; }
	out=$(PATH="$top:$PATH" USERCOPYCTL_PROC_DIR=proc bash -c '
		. "$1"
		COMP_WORDS=(usercopyctl allow ""); COMP_CWORD=2; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl whitelist uc_b); COMP_CWORD=2; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl whitelist --origin re); COMP_CWORD=3; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl sites -o ""); COMP_CWORD=3; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl report --suggest -o SUG); COMP_CWORD=4; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl ""); COMP_CWORD=1; _usercopyctl; echo "${COMPREPLY[*]}"
	' sh "$top/usercopyctl.bash-completion" 2>&1)
	[ "$(echo "$out" | sed -n 1p)" = "uc_buggy_nowl dentry" ] &&
		ktap_test_pass "bash completion: allow completes the caches without whitelist" ||
		{ ktap_test_fail "bash completion: allow completes the caches without whitelist"; echo "$out" | ktap_diag; }
	[ "$(echo "$out" | sed -n 2p)" = "uc_buggy_flag uc_buggy_wl uc_buggy_nowl" ] &&
		[ "$(echo "$out" | sed -n 3p)" = "region," ] &&
		echo "$out" | sed -n 4p | grep -qw 'SITE,' && [ "$(echo "$out" | sed -n 5p)" = "SUGGESTION," ] &&
		echo "$out" | sed -n 6p | grep -qw whitelist && echo "$out" | sed -n 6p | grep -qw allow &&
		ktap_test_pass "bash completion: whitelist caches and origins, the columns of sites and --suggest, the new commands" ||
		{ ktap_test_fail "bash completion: whitelist caches and origins, the columns of sites and --suggest, the new commands"; echo "$out" | ktap_diag; }
fi

rules=$top/../../audit-rules/usercopy.rules
if [ -f "$rules" ]; then
	bad=$(awk '
		/^[ \t]*$/ || /^#/ { next }
		!/^-[wa] / { print NR": does not start with -w, -a or #"; next }
		{
			k = 0
			for (i = 1; i <= NF; i++)
				if ($i == "-k") {
					k = 1
					if ($(i + 1) !~ /^[a-z0-9]+(-[a-z0-9]+)*$/)
						print NR": key not lowercase-hyphenated: "$(i + 1)
				}
			if (!k) print NR": rule without -k key"
			if ($1 == "-w" && $2 ~ /^\/proc\//) print NR": watches on /proc do not work"
			if ($1 == "-w" && $0 !~ / -p [rwxa]+/) print NR": watch without -p"
			if ($1 == "-a" && $2 !~ /^(always|never),(exit|exclude|task|user|filesystem|io_uring)$/ &&
			    $2 !~ /^(exit|exclude|task|user|filesystem|io_uring),(always|never)$/)
				print NR": bad action,list: "$2
		}' "$rules")
	[ -z "$bad" ] && ktap_test_pass "audit rules: lint" || { ktap_test_fail "audit rules: lint"; echo "$bad" | ktap_diag; }
	grep -q '^#-a always,exclude -F msgtype=1790' "$rules" &&
		ktap_test_pass "audit rules: commented-out exclude for type 1790" ||
		ktap_test_fail "audit rules: commented-out exclude for type 1790"
else
	ktap_test_fail "audit rules: $rules missing"
fi

ktap_finished
