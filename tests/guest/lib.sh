# Shell helpers for the guest's /init (busybox ash).  Each prints KTAP
# lines (ktap.sh).  $UCTEST is where mkinitramfs.sh installs them.
. "$UCTEST/ktap.sh"
. "$UCTEST/sysctl.sh"

set_mode() {
	uc_sysctl_set mode "$1"
	ktap_test_result "mode set to $1" [ "$(uc_sysctl mode)" = "$1" ]
}

start_auditd() {
	auditd -s enable >/tmp/auditd.out 2>&1
	i=0
	while [ ! -s /var/log/audit/audit.log ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	if [ -s /var/log/audit/audit.log ]; then
		ktap_test_pass "auditd is running and writing /var/log/audit/audit.log"
	else
		ktap_test_fail "auditd is running and writing /var/log/audit/audit.log"
		sed 's/^/auditd: /' /tmp/auditd.out | ktap_diag
	fi
	ktap_test_result "audit is enabled" sh -c 'auditctl -s | grep -q "^enabled 1"'
}

# The kernel is still healthy after a suite: nothing in its log matches
# the patterns of trouble that the host also looks for in the console
# (oops.ere).
check_health() {
	if dmesg | grep -qEf "$UCTEST/oops.ere"; then
		ktap_test_fail "kernel healthy after suite $1 (oops or warning in the log)"
		dmesg | grep -A5 -Ef "$UCTEST/oops.ere" | head -40 | ktap_diag
	else
		ktap_test_pass "kernel healthy after suite $1"
	fi
}

# KUnit suites ran at boot, or run now where they are a module; the host
# counts their results from the console.  Here only check that the
# usercopy suite did run.
check_kunit() {
	if [ -f /lib/modules/usercopy_kunit.ko ]; then
		ktap_test_result "load the KUnit usercopy module" \
			insmod /lib/modules/usercopy_kunit.ko
	fi
	ktap_test_result "KUnit usercopy suite ran" \
		sh -c 'dmesg | grep -qE "(ok|not ok) [0-9]+ usercopy$"'
}

# LKDTM's usercopy tests (tools/testing/selftests/lkdtm/tests.txt plus the
# vmalloc and folio ones).  Each runs in a child shell that writes the
# test name to DIRECT, as the kselftest does.
lkdtm_one() { # lkdtm_one NAME EXPECT ; EXPECT: caught | missed
	name=$1 expect=$2
	mode=$(uc_sysctl mode)
	before=$(uc_sysctl violations)
	dmesg -c >/dev/null
	sh -c "echo $name >/sys/kernel/debug/provoke-crash/DIRECT" 2>/dev/null
	rc=$?
	log=$(dmesg)
	after=$(uc_sysctl violations)
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
		ktap_test_pass "LKDTM $name in $mode mode: $expect"
	else
		ktap_test_fail "LKDTM $name in $mode mode: expected $expect:$why"
		echo "$log" | tail -20 | ktap_diag
	fi
}

run_lkdtm() {
	mode=$(uc_sysctl mode)
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
				ktap_test_skip "LKDTM USERCOPY_$t in $mode mode" "would corrupt a neighbouring object"
				continue ;;
			esac
		fi
		lkdtm_one "USERCOPY_$t" $expect
	done
}

# Return addresses replaced, as tracers replace them on production hosts:
# the function graph tracer on the functions of the stack copies (the test
# module's, the checks' own, the system calls of the in-bounds copies)
# and a kretprobe on the module's copying function.  The stack checks
# must decide as without them.  trace_returns on|off
TRACED="__check_object_size usercopy_check_rest check_stack_object
	orc_within_stack_frames __sys_getsockopt sk_getsockopt
	sock_getsockopt do_readv vfs_readv __import_iovec import_iovec
	getname_flags vfs_statx do_sys_openat2 ksys_read vfs_read
	seq_read_iter lkdtm_do_action"
trace_returns() {
	t=/sys/kernel/tracing
	if [ "$1" = off ]; then
		echo nop >$t/current_tracer &&
		echo 0 >$t/events/kprobes/enable &&
		echo >$t/kprobe_events &&
		echo >$t/set_ftrace_filter
		ktap_test_result "tracing of the copies' return addresses stopped" \
			[ "$(cat $t/current_tracer)" = nop ]
		return
	fi
	mount -t tracefs tracefs $t 2>/dev/null
	if [ ! -w $t/current_tracer ]; then
		ktap_test_skip "trace the copies' return addresses" "no function graph tracer"
		return
	fi
	n=0
	for f in $TRACED; do
		grep -qx "$f" $t/available_filter_functions &&
			echo "$f" >>$t/set_ftrace_filter && n=$((n + 1))
	done
	echo ':mod:uc_buggy' >>$t/set_ftrace_filter
	echo 'r:uc_stack_copy uc_buggy:stack_copy' >$t/kprobe_events &&
	echo 1 >$t/events/kprobes/enable &&
	echo function_graph >$t/current_tracer
	ktap_print_msg "traced: $(wc -l <$t/set_ftrace_filter) functions ($n of the core ones)"
	ktap_test_result "function graph tracer and a kretprobe on the stack copies" \
		sh -c "[ \$(cat $t/current_tracer) = function_graph ] &&
		       grep -q stack_copy $t/set_ftrace_filter &&
		       grep -q uc_stack_copy $t/kprobe_events"
}
