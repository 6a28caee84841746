# The demo shown by `make demo` (run by the guest's /init, busybox sh).
# It narrates an attack on a deliberately buggy driver, in enforce mode and
# in log mode, and shows what the kernel and the admin tool report.

say() { printf '%s\n' "$*"; }
run() { say "\$ $*"; "$@"; rc=$?; [ $rc = 137 ] && say "Killed"; return $rc; }
last_log() { dmesg | grep 'usercopy: ' | tail -1 | sed 's/^\[[^]]*\] /  /'; }
last_audit() {
	i=0
	while ! grep -q "pid=$1 " /var/log/audit/audit.log 2>/dev/null && [ $i -lt 30 ]; do
		sleep 0.1; i=$((i + 1))
	done
	grep "type=UNKNOWN\[1790\].*pid=$1 " /var/log/audit/audit.log | tail -1 | sed 's/^/  /'
}
attack() { # attack KIND LEN: run uc-victim, remember its pid and status
	sh -c 'echo $$ >/tmp/victim.pid; exec uc-victim "$@"' - "$1" "$2" \
		>/tmp/victim.out 2>&1
	rc=$?
	pid=$(cat /tmp/victim.pid)
	say "  $(cat /tmp/victim.out)"
	[ $rc = 137 ] && say "  (SIGKILL from the kernel: the read or write never returned)"
}
mode() {
	if command -v usercopyctl >/dev/null; then
		run usercopyctl mode "$1"
	else
		run sh -c "echo $1 >/proc/sys/kernel/usercopy/mode"
	fi
}

say "=================================================================="
say " usercopy-hardening demo: $(uname -sr), booted under QEMU"
say "=================================================================="
say ""
say "A deliberately buggy driver, uc_buggy, is loaded.  Reading its file"
say "/sys/kernel/debug/uc_buggy/whitelist returns a 32-byte field of a kernel"
say "object, but the driver copies as many bytes as the reader asks for:"
say "the classic copy_to_user() bug.  Right after the field, the object"
say "holds kernel data that must never reach user space (bytes 0x5a)."
say "Writing to the file has the same bug with copy_from_user()."
say ""
say "--- 1. The protection on this kernel ------------------------------"
if command -v usercopyctl >/dev/null; then
	run usercopyctl status
else
	for f in mode locked violations; do
		say "kernel.usercopy.$f = $(cat /proc/sys/kernel/usercopy/$f)"
	done
fi
say ""
say "--- 2. Enforce mode: an infoleak --------------------------------"
say "The attacker asks for 64 bytes, 32 more than the field holds:"
say "\$ uc-victim leak-whitelist 64"
attack leak-whitelist 64
e_leak=$rc e_leak_pid=$pid
say "The kernel refused the copy: nothing reached user space, the attacker"
say "was killed, and the kernel keeps running.  It logged:"
last_log
say "and auditd recorded (type 1790, AUDIT_ANOM_USERCOPY):"
last_audit $pid
say ""
say "--- 3. Enforce mode: an overflow --------------------------------"
say "The attacker writes 64 bytes into the 32-byte field:"
say "\$ uc-victim overwrite-whitelist 64"
attack overwrite-whitelist 64
e_over=$rc
say "The kernel data next to the field: $(cat /sys/kernel/debug/uc_buggy/state)"
last_log
say ""
say "--- 4. The same attacks in log mode ------------------------------"
say "Log mode reports violations but lets the copies happen.  It is meant"
say "for finding false positives before enforcing, not for production:"
mode log
say "\$ uc-victim leak-whitelist 64"
attack leak-whitelist 64
l_leak=$rc l_leak_pid=$pid
last_log
say "\$ uc-victim overwrite-whitelist 64"
attack overwrite-whitelist 64
l_over=$rc
say "The kernel data next to the field: $(cat /sys/kernel/debug/uc_buggy/state)"
echo reset >/sys/kernel/debug/uc_buggy/state
mode enforce
say ""
outcome() {
	case $1 in
	137) echo "refused, attacker killed" ;;
	0) echo "copied, reported" ;;
	*) echo "failed (exit $1)" ;;
	esac
}
say "Side by side:"
printf '  %-30s %-28s %s\n' "attack" "enforce" "log"
printf '  %-30s %-28s %s\n' "read 64 of a 32-byte field" "$(outcome $e_leak)" "$(outcome $l_leak)"
printf '  %-30s %-28s %s\n' "write 64 into a 32-byte field" "$(outcome $e_over)" "$(outcome $l_over)"
say ""
say "--- 5. What the admin sees -------------------------------------"
say "kernel.usercopy.violations = $(cat /proc/sys/kernel/usercopy/violations)"
if command -v usercopyctl >/dev/null; then
	run usercopyctl report --incidents -o TIME,DIRECTION,REGION,CACHE,OFFSET,LENGTH,PID,COMM,ACTION
fi
say ""
say "Demo finished; the guest powers off."
