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
unset USERCOPYCTL_SYSCTL_DIR USERCOPYCTL_SYSCTL_D USERCOPYCTL_KCONFIG USERCOPYCTL_CMDLINE
# libsmartcols looks at the terminal width: make it fixed.
export COLUMNS=160

VG=
if [ "${VALGRIND:-yes}" != no ] && command -v valgrind >/dev/null; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
fi

n=0
failures=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/# /' "$@"; }

# uc ARGS...: run the program, output in $T/out, $T/err, status in $rc.
uc() {
	$VG "$bin" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ $rc = 99 ]; then
		echo "# valgrind found errors in: usercopyctl $*"
		diag "$T/err"
	fi
}

# expect RC DESC: the last run exited with RC
expect() {
	if [ "$rc" = "$1" ]; then
		ok "$2"
	else
		notok "$2 (exit $rc, expected $1)"
		diag "$T/out" "$T/err"
	fi
}

# same FILE DESC: the last run printed exactly FILE
same() {
	if cmp -s "$1" "$T/out"; then
		ok "$2"
	else
		notok "$2"
		diff -u "$1" "$T/out" | diag
	fi
}

# has FILE PATTERN DESC: a line of FILE matches the grep pattern
has() {
	if grep -q -- "$2" "$1"; then
		ok "$3"
	else
		notok "$3"
		diag "$1"
	fi
}

json_ok() {
	if ! command -v python3 >/dev/null; then
		ok "$1 # SKIP no python3"
	elif python3 -m json.tool "$T/out" >/dev/null 2>"$T/jerr"; then
		ok "$1"
	else
		notok "$1"
		diag "$T/jerr" "$T/out"
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
		ok "bad usage: $desc"
	else
		notok "bad usage: $desc (exit $rc)"
		diag "$T/out" "$T/err"
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
UNIT_TMP=$T/unit $VG "$here/unit" >"$T/unit.out" 2>&1
urc=$?
while IFS= read -r line; do
	case $line in
	"ok - "*)	ok "unit: ${line#ok - }" ;;
	"not ok - "*)	notok "unit: ${line#not ok - }" ;;
	*)		echo "# $line" ;;
	esac
done <"$T/unit.out"
[ $urc = 0 ] && ok "unit tests exit 0 (valgrind clean)" || notok "unit tests exit $urc"

# ---- command line -----------------------------------------------------------

uc --version
expect 0 "--version exits 0"
[ "$(cat "$T/out")" = "usercopyctl from usercopy-hardening 1.0" ] &&
	ok "--version text" || { notok "--version text"; diag "$T/out"; }

uc --help
expect 0 "--help exits 0"
if grep -q '^Usage:$' "$T/out" && grep -q '^Commands:$' "$T/out" &&
   grep -q '^Options:$' "$T/out" && grep -q '^ -h, --help ' "$T/out" &&
   grep -q '^ -V, --version ' "$T/out" && grep -q 'usercopyctl(8)' "$T/out"; then
	ok "--help has the util-linux layout"
else
	notok "--help has the util-linux layout"
	diag "$T/out"
fi

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
uc frobnicate
[ "$(head -n 1 "$T/err")" = "usercopyctl: unknown command 'frobnicate'" ] &&
	ok "bad usage names the problem in one line" ||
	{ notok "bad usage names the problem in one line"; diag "$T/err"; }

# ---- report -----------------------------------------------------------------

uc report -f basic.log
expect 0 "report: basic log"
same "$exp/basic.txt" "report: basic log, exact rows"
[ ! -s "$T/err" ] && ok "report: basic log, no warnings" || { notok "report: basic log, no warnings"; diag "$T/err"; }

uc report -J -f basic.log
expect 0 "report -J"
same "$exp/basic.json" "report -J: exact JSON"
json_ok "report -J: valid JSON"

uc report -J --incidents --pid 99999 -f basic.log
json_ok "report -J with nothing found: valid JSON"
grep -q '"mode-changes"' "$T/out" && notok "report --incidents: no mode changes" ||
	ok "report --incidents: no mode changes"

uc report --incidents -n -r -o PID,DIRECTION,ACTION -f basic.log
printf '123 exposure blocked\n131 overwrite logged\n132 exposure logged\n140 exposure blocked\n' >"$T/want"
same "$T/want" "report -n -r -o: chosen columns"

uc report --mode-changes -n -r -f basic.log
[ "$(wc -l <"$T/out")" = 5 ] && ! grep -q exposure "$T/out" &&
	ok "report --mode-changes: the 5 mode changes" ||
	{ notok "report --mode-changes: the 5 mode changes"; diag "$T/out"; }
has "$T/out" '^2024-12-03\\x2023:53:24 log bogus 0 0 1000 2 refused$' "report: refused mode change shown"

uc report --incidents --output-all -f basic.log
head -n 1 "$T/out" | grep -q 'EVENT.*GID.*SES.*SUBJ' && ok "report --output-all: all columns" ||
	{ notok "report --output-all: all columns"; diag "$T/out"; }
has "$T/out" '1733270003.999:49' "report: event id column"
has "$T/out" 'unconfined' "report: subj field before pid is read"

uc report --incidents -n -r -o PID --pid 131 -f basic.log
[ "$(cat "$T/out")" = 131 ] && ok "report --pid" || { notok "report --pid"; diag "$T/out"; }

uc report -n -r -o PID --uid 1000 -f basic.log
printf '131\n132\n\n2024-12-03\\x2023:53:24 log bogus 0 0 1000 2 refused\n' >"$T/want"
same "$T/want" "report --uid: uid or auid, and mode changes by auid"

uc report --incidents -n -r -o PID --since "2024-12-03 23:53:22" --until @1733270004 -f basic.log
[ "$(echo $(cat "$T/out"))" = "131 132" ] && ok "report --since/--until" ||
	{ notok "report --since/--until"; diag "$T/out"; }

uc report --incidents -n -r -o PID --since 2024-12-04 -f basic.log
[ ! -s "$T/out" ] && [ $rc = 0 ] && ok "report --since after everything: nothing" ||
	{ notok "report --since after everything: nothing"; diag "$T/out"; }

uc report --incidents -n -r -o COMM,EXE -f basic.log
has "$T/out" '^uc\\x20victi /tmp/uc\\x20victi$' "report: hex-encoded comm and exe decoded"

uc report -f malformed.log
expect 0 "report: malformed log still exits 0"
same "$exp/malformed.txt" "report: malformed log, only the good rows"
cp "$T/out" "$T/out.keep"
cp "$T/err" "$T/out"
same "$exp/malformed.err" "report: malformed log, one warning per bad line with line number"

uc report -f truncated.log
expect 0 "report: log cut in the middle of a record"
has "$T/err" 'truncated.log:1: incomplete usercopy record' "report: cut record warned about"

uc report -f garbage.bin
expect 0 "report: binary garbage does not crash"
seq 1 30 | sed 's/^/junk /' >"$T/junk.log"
uc report -f "$T/junk.log"
[ "$(wc -l <"$T/err")" = 21 ] && has "$T/err" 'junk.log: 10 more bad lines skipped' "report: warnings about bad lines are capped at 20" ||
	{ notok "report: warnings about bad lines are capped at 20"; diag "$T/err"; }

: >"$T/empty.log"
uc report -f "$T/empty.log"
expect 0 "report: empty log"

uc report -f "$T/no-such.log"
expect 1 "report: missing log exits 1"
has "$T/err" "^usercopyctl: cannot open $T/no-such.log: No such file or directory\$" "report: missing log, one line"

# uc() reads /dev/null: run this one directly
$VG "$bin" report -n -r -o PID --incidents -f - <basic.log >"$T/out" 2>"$T/err"
[ "$(echo $(cat "$T/out"))" = "123 131 132 140" ] && ok "report -f -: standard input" ||
	{ notok "report -f -: standard input"; diag "$T/out" "$T/err"; }

for f in real-*.log; do
	[ -e "$f" ] || continue
	uc report -f "$f"
	expect 0 "report: captured log $(basename "$f")"
	[ ! -s "$T/err" ] && ok "report: captured log $(basename "$f") has no bad lines" ||
		{ notok "report: captured log $(basename "$f") has no bad lines"; diag "$T/err"; }
done

# ---- status -----------------------------------------------------------------

export USERCOPYCTL_SYSCTL_DIR="$T/nothing-here"
uc status
expect 2 "status without the kernel feature exits 2"
[ "$(wc -l <"$T/out")" = 1 ] && has "$T/out" 'no usercopy control' "status without the feature: one line" ||
	notok "status without the feature: one line"
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
same "$exp/status.json" "status -J: exact JSON"
uc status -f "$T/no-such.log"
expect 0 "status with an unreadable audit log"
has "$T/out" "^Latest incidents: $T/no-such.log is not readable (No such file or directory)\$" "status says the log is unreadable"
export USERCOPYCTL_KCONFIG="$T/no-config"
uc status -f "$T/empty.log"
has "$T/out" '^  stack frames:       unknown$' "status without a kernel config: unknown"
has "$T/out" '^Latest incidents: none in ' "status with no incidents says so"
unset USERCOPYCTL_KCONFIG USERCOPYCTL_CMDLINE

# ---- mode -------------------------------------------------------------------

export USERCOPYCTL_SYSCTL_D="$T/sysctl.d"
mkdir -p "$T/sysctl.d"
fake_kernel enforce 0
uc mode
expect 0 "mode: show"
[ "$(cat "$T/out")" = enforce ] && ok "mode: show prints the word" || { notok "mode: show prints the word"; diag "$T/out"; }
uc mode -J
[ "$(cat "$T/out")" = '{"mode": "enforce", "locked": false}' ] && ok "mode -J" || { notok "mode -J"; diag "$T/out"; }

for m in log off enforce; do
	uc mode $m
	expect 0 "mode $m"
	[ "$(cat "$T/sys/mode")" = $m ] && ok "mode $m: written to the sysctl" ||
		{ notok "mode $m: written to the sysctl"; diag "$T/sys/mode"; }
done
[ ! -e "$T/sysctl.d/90-usercopy.conf" ] && ok "mode without --persist leaves sysctl.d alone" ||
	notok "mode without --persist leaves sysctl.d alone"

uc mode sideways
expect 1 "mode: invalid word refused"
[ "$(cat "$T/err")" = "usercopyctl: invalid mode 'sideways' (use off, log or enforce)" ] &&
	ok "mode: invalid word, one line" || { notok "mode: invalid word, one line"; diag "$T/err"; }
[ "$(cat "$T/sys/mode")" = enforce ] && ok "mode: invalid word leaves the mode alone" ||
	notok "mode: invalid word leaves the mode alone"

uc mode log --persist
expect 0 "mode log --persist"
printf '# Usercopy hardening mode, applied at boot by systemd-sysctl.\n# Written by usercopyctl mode --persist; see usercopyctl(8)\n# and sysctl.d(5). Valid modes: off, log, enforce.\nkernel.usercopy.mode = log\n' >"$T/want"
cmp -s "$T/want" "$T/sysctl.d/90-usercopy.conf" && ok "mode --persist: sysctl.d file" ||
	{ notok "mode --persist: sysctl.d file"; diag "$T/sysctl.d/90-usercopy.conf"; }
has "$T/out" "$T/sysctl.d/90-usercopy.conf" "mode --persist names the file"
[ "$(ls "$T/sysctl.d")" = 90-usercopy.conf ] && ok "mode --persist leaves no temporary file" ||
	{ notok "mode --persist leaves no temporary file"; ls "$T/sysctl.d" | diag; }

uc mode enforce --persist="$T/other.conf"
expect 0 "mode --persist=FILE"
grep -q '^kernel.usercopy.mode = enforce$' "$T/other.conf" && ok "mode --persist=FILE writes that file" ||
	notok "mode --persist=FILE writes that file"

export USERCOPYCTL_SYSCTL_D="$T/no/such/dir"
uc mode off --persist
expect 1 "mode --persist into a missing directory fails"
[ "$(cat "$T/sys/mode")" = enforce ] && ok "... and the mode is not changed (nothing half-done)" ||
	notok "... and the mode is not changed (nothing half-done)"
export USERCOPYCTL_SYSCTL_D="$T/sysctl.d"

# The kernel refusing the value: a directory cannot be written.
mv "$T/sys/mode" "$T/sys/mode.keep"
mkdir "$T/sys/mode"
uc mode log --persist
expect 1 "mode: write refused by the kernel exits 1"
[ "$(wc -l <"$T/err")" = 1 ] && ok "mode: refused write, one line" || { notok "mode: refused write, one line"; diag "$T/err"; }
grep -q '= log$' "$T/sysctl.d/90-usercopy.conf" && [ "$(ls "$T/sysctl.d")" = 90-usercopy.conf ] &&
	ok "mode: refused write leaves the persist file alone" || notok "mode: refused write leaves the persist file alone"
rmdir "$T/sys/mode"
mv "$T/sys/mode.keep" "$T/sys/mode"

fake_kernel log 1
uc mode enforce --persist
expect 1 "mode: locked refused"
[ "$(cat "$T/err")" = "usercopyctl: cannot set the mode to enforce: the mode is locked (log) until reboot" ] &&
	ok "mode: locked, says why in one line" || { notok "mode: locked, says why in one line"; diag "$T/err"; }
[ "$(cat "$T/sys/mode")" = log ] && grep -q '= log$' "$T/sysctl.d/90-usercopy.conf" &&
	ok "mode: locked leaves mode and persist file alone" || notok "mode: locked leaves mode and persist file alone"
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
		ok "mode as an unprivileged user: says why" || { notok "mode as an unprivileged user: says why"; diag "$T/err"; }
	[ "$(cat "$T/sys/mode")" = enforce ] && ok "mode as an unprivileged user: unchanged" ||
		notok "mode as an unprivileged user: unchanged"
else
	ok "mode as an unprivileged user # SKIP not root or no setpriv"
fi

# ---- lock -------------------------------------------------------------------

fake_kernel enforce 0
uc lock
expect 1 "lock without --yes and no terminal refused"
has "$T/err" 'use --yes' "lock without a terminal says to use --yes"
[ "$(cat "$T/sys/locked")" = 0 ] && ok "lock refused: still unlocked" || notok "lock refused: still unlocked"
uc lock --yes
expect 0 "lock --yes"
[ "$(cat "$T/sys/locked")" = 1 ] && ok "lock --yes writes 1" || notok "lock --yes writes 1"
uc lock --yes
expect 0 "lock when locked already"
has "$T/out" 'already locked' "lock when locked already says so"
uc mode off
expect 1 "mode refused after lock"
unset USERCOPYCTL_SYSCTL_DIR USERCOPYCTL_SYSCTL_D

# ---- monitor ----------------------------------------------------------------

uc monitor --timeout 0.2
if [ $rc = 0 ]; then
	ok "monitor --timeout ends by itself"
	uc monitor --timeout 0.2 --count 1
	expect 1 "monitor --count not reached before --timeout exits 1"
	# SIGTERM ends it cleanly (exit 0)
	$VG "$bin" monitor --timeout 20 >"$T/out" 2>"$T/err" &
	pid=$!
	sleep 2
	kill -TERM $pid
	wait $pid
	rc=$?
	expect 0 "monitor ends cleanly on SIGTERM"
elif grep -q 'CAP_AUDIT_READ' "$T/err"; then
	ok "monitor without CAP_AUDIT_READ says so # SKIP live tests need it"
else
	ok "monitor # SKIP no audit netlink here: $(cat "$T/err")"
fi

# ---- man page, completion, audit rules --------------------------------------

if [ -f "$top/usercopyctl.8" ] && grep -q '^\.TH "USERCOPYCTL" "8"' "$top/usercopyctl.8"; then
	ok "man page built"
else
	notok "man page built"
fi

if command -v bash >/dev/null; then
	out=$(bash -c '
		. "$1"
		COMP_WORDS=(usercopyctl ""); COMP_CWORD=1; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl mode ""); COMP_CWORD=2; _usercopyctl; echo "${COMPREPLY[*]}"
		COMP_WORDS=(usercopyctl report -o ""); COMP_CWORD=3; _usercopyctl; echo "${COMPREPLY[*]}"
	' sh "$top/usercopyctl.bash-completion" 2>&1)
	echo "$out" | sed -n 1p | grep -qw status && echo "$out" | sed -n 2p | grep -qw enforce &&
		echo "$out" | sed -n 3p | grep -qw COMM &&
		ok "bash completion completes commands, modes and columns" ||
		{ notok "bash completion completes commands, modes and columns"; echo "$out" | diag; }
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
	[ -z "$bad" ] && ok "audit rules: lint" || { notok "audit rules: lint"; echo "$bad" | diag; }
	grep -q '^#-a always,exclude -F msgtype=1790' "$rules" &&
		ok "audit rules: commented-out exclude for type 1790" ||
		notok "audit rules: commented-out exclude for type 1790"
else
	notok "audit rules: $rules missing"
fi

echo "1..$n"
if [ $failures -gt 0 ]; then
	echo "# $failures of $n tests failed"
	exit 1
fi
echo "# all $n tests passed"
exit 0
