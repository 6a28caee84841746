# Shell helpers for the guest's /init (busybox ash).  Each prints TAP lines.

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}

set_mode() {
	echo "$1" >/proc/sys/kernel/usercopy/mode
	check "mode set to $1" [ "$(cat /proc/sys/kernel/usercopy/mode)" = "$1" ]
}

start_auditd() {
	auditd -s enable >/tmp/auditd.out 2>&1
	i=0
	while [ ! -s /var/log/audit/audit.log ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	if [ -s /var/log/audit/audit.log ]; then
		ok "auditd is running and writing /var/log/audit/audit.log"
	else
		notok "auditd is running and writing /var/log/audit/audit.log"
		sed 's/^/# auditd: /' /tmp/auditd.out
	fi
	check "audit is enabled" sh -c 'auditctl -s | grep -q "^enabled 1"'
}

# The kernel is still healthy after a suite: no oops or warning was
# logged (the host checks the console too), and a fork/exec works.
check_health() {
	if dmesg | grep -qE 'Oops: |BUG: |WARNING: |kernel BUG at|Kernel panic'; then
		notok "kernel healthy after suite $1 (oops or warning in the log)"
		dmesg | grep -E -A5 'Oops: |BUG: |WARNING: ' | sed 's/^/# /' | head -40
	else
		ok "kernel healthy after suite $1"
	fi
}

# KUnit suites ran at boot, or run now where they are a module; the host
# counts their results from the console.  Here only check that the
# usercopy suite did run.
check_kunit() {
	if [ -f /lib/modules/usercopy_kunit.ko ]; then
		check "load the KUnit usercopy module" \
			insmod /lib/modules/usercopy_kunit.ko
	fi
	check "KUnit usercopy suite ran" \
		sh -c 'dmesg | grep -qE "(ok|not ok) [0-9]+ usercopy$"'
}

# LKDTM's usercopy tests (tools/testing/selftests/lkdtm/tests.txt plus the
# vmalloc and folio ones).  Each runs in a child shell that writes the
# test name to DIRECT, as the kselftest does.
lkdtm_one() { # lkdtm_one NAME EXPECT ; EXPECT: caught | missed
	name=$1 expect=$2
	mode=$(cat /proc/sys/kernel/usercopy/mode)
	before=$(cat /proc/sys/kernel/usercopy/violations)
	dmesg -c >/dev/null
	sh -c "echo $name >/sys/kernel/debug/provoke-crash/DIRECT" 2>/dev/null
	rc=$?
	log=$(dmesg)
	after=$(cat /proc/sys/kernel/usercopy/violations)
	reported=no
	echo "$log" | grep -q "usercopy: .*mode $mode" && reported=yes
	lkdtm_fail=no
	echo "$log" | grep -q "FAIL: bad" && lkdtm_fail=yes
	why=""
	case $mode:$expect in
	enforce:caught)
		[ $rc = 137 ] || why="$why writer not killed (exit $rc);"
		[ $reported = yes ] || why="$why no usercopy report;"
		[ $((after - before)) -ge 1 ] || why="$why counter unchanged;"
		[ $lkdtm_fail = no ] || why="$why copy was not refused;"
		echo "$log" | grep -q "lacked Oops" || why="$why LKDTM saw no refusal;"
		;;
	log:caught)
		[ $rc = 0 ] || why="$why writer died (exit $rc);"
		[ $reported = yes ] || why="$why no usercopy report;"
		[ $((after - before)) -ge 1 ] || why="$why counter unchanged;"
		;;
	off:*)
		[ $rc = 0 ] || why="$why writer died (exit $rc);"
		[ $reported = no ] || why="$why reported in off mode;"
		[ $after = $before ] || why="$why counter changed in off mode;"
		;;
	*:missed)
		[ $rc = 0 ] || why="$why writer died (exit $rc);"
		[ $reported = no ] || why="$why unexpectedly reported;"
		;;
	esac
	if [ -z "$why" ]; then
		ok "LKDTM $name in $mode mode: $expect"
	else
		notok "LKDTM $name in $mode mode: expected $expect:$why"
		echo "$log" | tail -20 | sed 's/^/# /'
	fi
}

run_lkdtm() {
	mode=$(cat /proc/sys/kernel/usercopy/mode)
	for t in SLAB_SIZE_TO SLAB_SIZE_FROM SLAB_WHITELIST_TO \
		 SLAB_WHITELIST_FROM STACK_FRAME_TO STACK_FRAME_FROM \
		 STACK_BEYOND KERNEL VMALLOC FOLIO; do
		# LKDTM's STACK_FRAME tests copy a dead frame below the stack
		# pointer, which is caught without a frame walk: all caught.
		expect=caught
		# In log mode the copy happens: skip the ones that would
		# then really corrupt memory outside the object.
		if [ "$mode" != enforce ]; then
			case $t in SLAB_SIZE_FROM|STACK_FRAME_FROM)
				ok "LKDTM USERCOPY_$t in $mode mode # SKIP would corrupt a neighbouring object"
				continue ;;
			esac
		fi
		lkdtm_one "USERCOPY_$t" $expect
	done
}
