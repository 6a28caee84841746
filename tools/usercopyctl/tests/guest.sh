#!/bin/sh
# usercopyctl on the patched kernel, in the test guest (busybox ash).
#
# Expects, as root: usercopyctl on PATH, auditd writing $LOG, the kernel
# in enforce mode and unlocked, and uc-victim on PATH (uc-victim
# leak-slab|leak-whitelist|overwrite-whitelist makes exactly one violation
# through tests/kmod's uc_buggy: killed by SIGKILL in enforce mode, exit 0
# in log mode).
#
# Prints KTAP (tests/lib/ktap.sh, sysctl.sh: both in $UCTEST) and exits 0.
# Locks the mode (in enforce) as its last step.

# (The overrides are only for trying the script out on a stand-in.)
UCTEST=${UCTEST:-/usr/share/uctest}
LOG=${UCTEST_AUDIT_LOG:-/var/log/audit/audit.log}
SYSCTL_D=${USERCOPYCTL_SYSCTL_D:-/etc/sysctl.d}
W=/tmp/uctest.$$
mkdir -p "$W"
. "$UCTEST/ktap.sh"
. "$UCTEST/sysctl.sh"
ktap_print_header

# check DESC COMMAND...: the command succeeds
check() {
	desc=$1
	shift
	if "$@" >"$W/check" 2>&1; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
		ktap_diag "$W/check"
	fi
}

# ucc ARGS...: run usercopyctl, output in $W/out and $W/err, status in $rc
ucc() {
	usercopyctl "$@" >"$W/out" 2>"$W/err" </dev/null
	rc=$?
}

# expect RC DESC
expect() {
	if [ "$rc" = "$1" ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2 (exit $rc, expected $1)"
		ktap_diag "$W/out" "$W/err"
	fi
}

kmode() { uc_sysctl mode; }

# wait_record PID: wait up to ~5 s for the violation of PID in the log
wait_record() {
	i=0
	while [ $i -lt 50 ]; do
		grep -q "^type=UNKNOWN\[1790\] .* pid=$1 " "$LOG" 2>/dev/null && return 0
		sleep 0.1 2>/dev/null || sleep 1
		i=$((i + 1))
	done
	return 1
}

# provoke KIND EXPECTED_STATUS: one violation; its pid in $vpid
provoke() {
	uc-victim "$1" >"$W/victim" 2>&1 &
	vpid=$!
	{ wait $vpid; } 2>/dev/null
	st=$?
	if [ "$st" = "$2" ]; then
		ktap_test_pass "uc-victim $1 in $(kmode) mode: exit status $st"
	else
		ktap_test_fail "uc-victim $1 in $(kmode) mode: exit status $st, expected $2"
		ktap_diag "$W/victim"
	fi
	if wait_record $vpid; then
		ktap_test_pass "uc-victim $1 (pid $vpid): violation in the audit log"
	else
		ktap_test_fail "uc-victim $1 (pid $vpid): violation in the audit log"
	fi
}

if ! command -v usercopyctl >/dev/null; then
	ktap_test_fail "usercopyctl on PATH"
	exit 0
fi
if [ ! -d "$UC_SYSCTL_DIR" ]; then
	ktap_test_fail "kernel has $UC_SYSCTL_DIR"
	exit 0
fi
start=$(date +%s)
violations0=$(uc_sysctl violations)
ktap_print_msg "usercopyctl: $(usercopyctl --version), mode $(kmode), locked $(uc_sysctl locked), violations $violations0"

# ---- status -----------------------------------------------------------------

ucc status -f "$LOG"
expect 0 "status exits 0"
ktap_diag "$W/out"
check "status: mode enforce" grep -q '^Mode: *enforce' "$W/out"
check "status: not locked" grep -q '^Locked: *no$' "$W/out"
check "status: violation count" grep -q "^Violations: *$violations0 since boot" "$W/out"
check "status: hardened usercopy" grep -q '^  hardened usercopy: *yes$' "$W/out"
check "status: stack frame checking known" grep -Eq '^  stack frames: *(frame \((frame pointer|ORC)\)|stack bounds only)$' "$W/out"
check "status: whitelisting active" grep -q '^  whitelisting: *active' "$W/out"

ucc status -J -f "$LOG"
expect 0 "status -J exits 0"
check "status -J: supported" grep -q '"supported": true' "$W/out"
check "status -J: mode" grep -q '"mode": "enforce"' "$W/out"
check "status -J: locked false" grep -q '"locked": false' "$W/out"
check "status -J: violations" grep -q "\"violations\": $violations0," "$W/out"
check "status -J: modes available from the kernel" grep -q '"modes-available": \[' "$W/out"

# ---- whitelist, sites, allow (after the whitelist suite allowed uc_buggy_nowl) -

# json_balanced FILE: brackets and braces balanced outside strings, one
# top-level object (busybox has no JSON parser)
json_balanced() {
	awk 'BEGIN { RS = "\001" } {
		d = 0; instr = 0; esc = 0; tops = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (instr) {
				if (esc) esc = 0
				else if (c == "\\") esc = 1
				else if (c == "\"") instr = 0
				continue
			}
			if (c == "\"") instr = 1
			else if (c == "{" || c == "[") { if (d == 0) tops++; d++ }
			else if (c == "}" || c == "]") { d--; if (d < 0) exit 1 }
		}
		exit !(d == 0 && !instr && tops == 1)
	}' "$1"
}

ucc whitelist
expect 0 "whitelist exits 0"
check "whitelist: the heading" grep -q '^CACHE  *SIZE  *OFFSET  *USERSIZE  *ORIGIN$' "$W/out"
ucc whitelist -n -r -o CACHE,ORIGIN uc_buggy_flag
check "whitelist: uc_buggy_flag, origin flag" [ "$(cat "$W/out")" = "uc_buggy_flag flag" ]
ucc whitelist -n -r -o CACHE,USERSIZE,ORIGIN uc_buggy_nowl
check "whitelist: uc_buggy_nowl, origin admin" [ "$(cat "$W/out")" = "uc_buggy_nowl 96 admin" ]
ucc whitelist -n -r -o CACHE,USERSIZE,ORIGIN usercopy-kmalloc-64
check "whitelist: usercopy-kmalloc-64, origin flag" [ "$(cat "$W/out")" = "usercopy-kmalloc-64 64 flag" ]
ucc whitelist -n -r -o CACHE,OFFSET,USERSIZE,ORIGIN uc_buggy_wl
check "whitelist: uc_buggy_wl, origin region at offset 32, size 32" [ "$(cat "$W/out")" = "uc_buggy_wl 32 32 region" ]
ucc whitelist -n -r -o ORIGIN 'kmalloc-*'
check "whitelist: the kmalloc caches, origin kmalloc" [ "$(sort -u "$W/out")" = kmalloc ]
ucc whitelist -J
expect 0 "whitelist -J exits 0"
check "whitelist -J: balanced JSON" json_balanced "$W/out"
check "whitelist -J: uc_buggy_wl" grep -q '"cache": "uc_buggy_wl",' "$W/out"
check "whitelist -J: numbers" grep -q '"usersize": 32,' "$W/out"
ktap_print_msg "whitelist: $(usercopyctl whitelist -n -r -o ORIGIN | sort | uniq -c | tr -s ' \n' ' ')"

ucc sites
expect 0 "sites exits 0"
check "sites: the heading" grep -q '^ *COUNT  *REGION  *CACHE  *SITE$' "$W/out"
ucc sites -J
expect 0 "sites -J exits 0"
check "sites -J: balanced JSON" json_balanced "$W/out"
ktap_diag "$W/out"

ucc allow
expect 0 "allow: the list"
check "allow: the list is uc_buggy_nowl" [ "$(cat "$W/out")" = uc_buggy_nowl ]
ucc allow no_such_cache -y
expect 1 "allow no_such_cache refused"
check "allow no_such_cache: one line" [ "$(wc -l <"$W/err")" = 1 ]
check "allow no_such_cache: says why" grep -q '^usercopyctl: cannot allow no_such_cache: no cache named no_such_cache$' "$W/err"
check "allow no_such_cache: nothing more allowed" [ "$(uc_sysctl allow)" = uc_buggy_nowl ]
none=$(usercopyctl whitelist -n -r -o CACHE --origin none | head -n 1)
ucc allow "$none"
expect 1 "allow $none without --yes and without a terminal refused"
ucc whitelist -n -r -o ORIGIN "$none"
check "allow refused: $none still has no whitelist" [ "$(cat "$W/out")" = none ]

# ---- mode ---------------------------------------------------------------------

ucc mode
expect 0 "mode: show"
check "mode: show says enforce" [ "$(cat "$W/out")" = enforce ]
for m in log off enforce; do
	ucc mode $m
	expect 0 "mode $m"
	check "mode $m: kernel is in $m" [ "$(kmode)" = $m ]
	ucc mode
	check "mode $m: shown as $m" [ "$(cat "$W/out")" = $m ]
done

ucc mode sideways
expect 1 "mode sideways refused"
check "mode sideways: says why" grep -q "^usercopyctl: invalid mode 'sideways'" "$W/err"
check "mode sideways: still enforce" [ "$(kmode)" = enforce ]

if su nobody -s /bin/sh -c true >/dev/null 2>&1; then
	su nobody -s /bin/sh -c "usercopyctl mode log" >"$W/out" 2>"$W/err" </dev/null
	rc=$?
	expect 1 "mode log as nobody refused"
	check "mode log as nobody: says why" grep -q 'permission denied' "$W/err"
	check "mode log as nobody: still enforce" [ "$(kmode)" = enforce ]
	su nobody -s /bin/sh -c "usercopyctl mode" >"$W/out" 2>"$W/err" </dev/null
	check "mode as nobody: can read the mode" [ "$(cat "$W/out")" = enforce ]
else
	ktap_test_skip "unprivileged mode change" "cannot run as nobody (su nobody failed)"
fi

mkdir -p "$SYSCTL_D"
ucc mode enforce --persist
expect 0 "mode enforce --persist"
check "mode --persist: sysctl.d file" grep -q '^kernel.usercopy.mode = enforce$' "$SYSCTL_D/90-usercopy.conf"

# ---- incidents ----------------------------------------------------------------

provoke leak-slab 137
pid_slab=$vpid
ucc mode log
provoke leak-whitelist 0
pid_wl=$vpid
provoke overwrite-whitelist 0
pid_over=$vpid
echo reset >/sys/kernel/debug/uc_buggy/state 2>/dev/null
ucc mode enforce
check "back to enforce" [ "$(kmode)" = enforce ]

violations1=$(uc_sysctl violations)
check "violations went up by 3 ($violations0 -> $violations1)" [ $((violations1 - violations0)) -ge 3 ]

# report_one PID EXPECTED_ROW
report_one() {
	ucc report -f "$LOG" --pid "$1" -n -r -o PID,DIRECTION,REGION,ACTION
	if [ "$rc" = 0 ] && [ "$(cat "$W/out")" = "$2" ]; then
		ktap_test_pass "report --pid $1: $2"
	else
		ktap_test_fail "report --pid $1: expected '$2' (exit $rc)"
		ktap_diag "$W/out" "$W/err"
	fi
}
report_one $pid_slab "$pid_slab exposure slab blocked"
report_one $pid_wl "$pid_wl exposure slab logged"
report_one $pid_over "$pid_over overwrite slab logged"

ucc report -f "$LOG" --incidents --since @"$start" -n -r -o PID
expect 0 "report --since the start"
for p in $pid_slab $pid_wl $pid_over; do
	check "report: exactly one incident of pid $p" [ "$(grep -c "^$p\$" "$W/out")" = 1 ]
done
ktap_print_msg "incidents since the start: $(wc -l <"$W/out") (provoked: 3)"
[ -s "$W/err" ] && ktap_diag "$W/err"

ucc report -f "$LOG" -J --pid $pid_slab
expect 0 "report -J --pid"
check "report -J: the incident" grep -q "\"pid\": $pid_slab," "$W/out"
check "report -J: blocked" grep -q '"action": "blocked"' "$W/out"
check "report -J: comm" grep -q '"comm": "uc-victim"' "$W/out"

ucc report -f "$LOG" --mode-changes --since @"$start" -n -r
expect 0 "report --mode-changes"
check "report: the change from enforce to log, accepted" grep -q ' enforce log 0 0 .* accepted$' "$W/out"
check "report: the change from log to enforce, accepted" grep -q ' log enforce 0 0 .* accepted$' "$W/out"
ktap_diag "$W/out"

ucc status -f "$LOG"
check "status: latest incidents list the last one" grep -q " $pid_over .*logged" "$W/out"

# ---- monitor ------------------------------------------------------------------

usercopyctl monitor --count 1 --timeout 10 -J >"$W/mon" 2>"$W/monerr" &
mpid=$!
sleep 1
uc-victim leak-slab >/dev/null 2>&1 &
vpid=$!
{ wait $vpid; } 2>/dev/null
wait $mpid
rc=$?
expect 0 "monitor --count 1 saw an incident and exited 0"
check "monitor: the incident of pid $vpid" grep -q "\"pid\": $vpid," "$W/mon"
check "monitor: one incident (one JSON object)" [ "$(grep -c '"pid": ' "$W/mon")" = 1 ]
check "monitor: blocked" grep -q '"action": "blocked"' "$W/mon"
ktap_diag "$W/mon" "$W/monerr"

usercopyctl monitor --timeout 20 >"$W/mon" 2>"$W/monerr" &
mpid=$!
sleep 1
kill -INT $mpid
wait $mpid
rc=$?
expect 0 "monitor ends cleanly on SIGINT"

# ---- lock (last) --------------------------------------------------------------

check "enforce before locking" [ "$(kmode)" = enforce ]
ucc lock
expect 1 "lock without --yes and without a terminal refused"
check "lock refused: still unlocked" [ "$(uc_sysctl locked)" = 0 ]
ucc lock --yes
expect 0 "lock --yes"
check "lock --yes: locked" [ "$(uc_sysctl locked)" = 1 ]
ucc mode log
expect 1 "mode log after lock refused"
check "mode log after lock: says locked" grep -q 'locked' "$W/err"
check "mode log after lock: still enforce" [ "$(kmode)" = enforce ]
ucc status -f "$LOG"
check "status: locked" grep -q '^Locked: *yes' "$W/out"
ucc report -f "$LOG" --mode-changes --since @"$start" -n -r
check "report: the lock, accepted" grep -q ' enforce enforce 0 1 .* accepted$' "$W/out"

rm -rf "$W"
ktap_print_msg "usercopyctl guest tests done"
ktap_finished
exit 0
