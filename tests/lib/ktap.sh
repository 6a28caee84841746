# ktap.sh: KTAP output for the shell tests (POSIX sh, busybox ash), after
# the kernel's tools/testing/selftests/kselftest/ktap_helpers.sh:
#
#	ktap_print_header
#	ktap_test_pass "description"
#	ktap_test_fail "description"
#	ktap_test_skip "description" "reason"
#	ktap_test_result "description" COMMAND...	(pass if COMMAND succeeds)
#	ktap_print_msg "text"			(a "# text" line)
#	ktap_diag FILE...			(FILEs, or stdin, as "# " lines)
#	ktap_finished				(plan and totals; false if a test failed)
#
# The plan "1..N" comes last: the number of tests is known only then.
#
# One KTAP document may be written by several processes: /init and the
# programs it runs.  Its writer sources this file, prints the header and
# then exports KTAP_STATE, a file that holds the counts so far; the others
# number on from there and print neither header nor plan
# (tests/lib/ktap.h does the same for C).

KTAP_PASS=0 KTAP_FAIL=0 KTAP_SKIP=0
# The failures of this process alone: ktap_finished's status when it
# writes part of another's document.
KTAP_OWN_FAIL=0
KTAP_NESTED=${KTAP_STATE:+1}

ktap_print_header() {
	[ -n "$KTAP_NESTED" ] || echo "TAP version 13"
}

ktap_print_msg() {
	echo "# $*"
}

ktap_diag() {
	sed 's/^/# /' "$@"
}

# The counts so far of the document, when it is shared.
_ktap_load() {
	if [ -n "${KTAP_STATE:-}" ] && [ -s "$KTAP_STATE" ]; then
		read -r KTAP_PASS KTAP_FAIL KTAP_SKIP <"$KTAP_STATE"
	fi
}

# _ktap_result pass|fail|skip TEXT: count it and print it numbered.
_ktap_result() {
	_ktap_load
	case $1 in
	pass)	KTAP_PASS=$((KTAP_PASS + 1)); _ktap_r=ok ;;
	fail)	KTAP_FAIL=$((KTAP_FAIL + 1)); _ktap_r="not ok"
		KTAP_OWN_FAIL=$((KTAP_OWN_FAIL + 1)) ;;
	skip)	KTAP_SKIP=$((KTAP_SKIP + 1)); _ktap_r=ok ;;
	esac
	[ -z "${KTAP_STATE:-}" ] || echo "$KTAP_PASS $KTAP_FAIL $KTAP_SKIP" >"$KTAP_STATE"
	echo "$_ktap_r $((KTAP_PASS + KTAP_FAIL + KTAP_SKIP)) $2"
}

ktap_test_pass() { _ktap_result pass "$*"; }
ktap_test_fail() { _ktap_result fail "$*"; }
ktap_test_skip() { _ktap_result skip "$1 # SKIP $2"; }

ktap_test_result() {
	_ktap_desc=$1
	shift
	if "$@"; then
		ktap_test_pass "$_ktap_desc"
	else
		ktap_test_fail "$_ktap_desc"
	fi
}

ktap_finished() {
	_ktap_load
	if [ -n "$KTAP_NESTED" ]; then
		[ "$KTAP_OWN_FAIL" = 0 ]
		return
	fi
	echo "1..$((KTAP_PASS + KTAP_FAIL + KTAP_SKIP))"
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
	[ "$KTAP_FAIL" = 0 ]
}
