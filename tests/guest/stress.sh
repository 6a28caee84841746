# stress.sh [short|long]: a stress-ng sweep in the current usercopy mode
# (busybox ash).  Every report of the checks while ordinary programs run
# is a false positive, or a real bug: the sweep must end with the
# violations counter where it was, no "usercopy: " line in the kernel log
# and no process killed.  Its KTAP results, per class:
#
#	stress-ng CLASS in MODE mode: no usercopy violation
#	stress-ng CLASS in MODE mode: no process killed by usercopy
#	stress-ng CLASS in MODE mode: ran N of M stressors
#
# "stress-ng ran N of M stressors in MODE mode" for the whole sweep, and
# one failure per stressor found to cause a violation, run alone.
# "# stress summary ..." and "# stress violation ..." lines are for the
# host (tests/harness.py's table of `make stress`).
#
# short (make check): every stressor of a class once, for 1 s, 8 at a
# time; long (make stress): more classes, each stressor alone for 2 s;
# list:STRESSOR,... those alone, for 5 s.  STRESS_TIMEOUT and
# STRESS_BATCH (the environment, or the kernel command line) change the
# seconds and how many run at a time.
UCTEST=${UCTEST:-/usr/share/uctest}
. "$UCTEST/lib.sh"

form=${1:-short}
mode=$(uc_sysctl mode)
case $form in
short)	classes="ipc network filesystem memory os"
	timeout=${STRESS_TIMEOUT:-1} batch=${STRESS_BATCH:-8} ;;
long)	classes="ipc network filesystem memory io pipe interrupt scheduler vm device cpu os"
	timeout=${STRESS_TIMEOUT:-2} batch=${STRESS_BATCH:-1} ;;
# A list of stressors, to look again at one that reported a violation.
list:*)	classes=list only=$(echo "${form#list:}" | tr , ' ')
	timeout=${STRESS_TIMEOUT:-5} batch=${STRESS_BATCH:-1} ;;
*)	ktap_test_fail "stress: unknown form $form"; exit 1 ;;
esac

# stress-ng 0.15 has no ipc class: these are its stressors of System V,
# POSIX and pipe/socket/signal IPC.
ipc="eventfd fifo futex mq msg pipe pipeherd sem sem-sysv shm shm-sysv sigq signal sigfd sockpair splice tee vm-splice"

# Not run, and why:
#   bigheap oom-pipe	grow until the OOM killer comes, by design (512 MB guest)
#   softlockup		provokes soft lockup reports, which fail the boot
#   watchdog		a watchdog device that is not fed reboots the machine
#   opcode		executes random instructions: QEMU's TCG takes one of
#			them for an access by the kernel, and the guest oopses
#			("supervisor read access in user mode", RIP in user space)
# stress-ng itself leaves out cpu-online, mlockmany, smi and sysinval
# without --pathological; bad-ioctl and spawn run only without root.  Stressors that
# find no device or protocol here (kvm, tun, dccp, sctp, swap, loop...)
# skip themselves: they stay, for kernels that have them.
exclude="bigheap oom-pipe softlockup watchdog opcode"
# Without System V IPC (the test kernels' tinyconfig) stress-ng does not
# start at all with sem-sysv: its semaphore is set up for every stressor.
[ -d /proc/sysvipc ] || exclude="$exclude sem-sysv"

# Memory and processes, bounded: stress-ng's defaults are for hosts with
# gigabytes (256 MB per vm worker, 1 GB hdd files), and a stressor the
# OOM killer ends would show as a SIGKILL too.
limits="--vm-bytes 16m --mmap-bytes 16m --malloc-bytes 8m --malloc-max 1024
	--hdd-bytes 8m --iomix-bytes 8m --fallocate-bytes 8m
	--memrate-bytes 8m --memfd-bytes 16m --mremap-bytes 16m --shm-bytes 8m
	--shm-sysv-bytes 8m --stream-l3-size 1m --msync-bytes 8m
	--sync-file-bytes 8m --vm-rw-bytes 8m --pagemove-bytes 8m
	--readahead-bytes 8m --seek-size 8m --ramfs-size 8m --fork-max 16
	--vfork-max 16 --clone-max 16 --exec-max 16 --forkheavy-procs 16
	--pthread-max 16 --zombie-max 64 --matrix-size 64"

work=/tmp/stress
scratch=$work/scratch
rm -rf "$work"
mkdir -p "$work" "$scratch" /dev/shm
# The files of the file system stressors: a tmpfs of their own, bounded.
mount -t tmpfs -o size=96m tmpfs "$scratch"
grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs -o size=32m tmpfs /dev/shm
# The network stressors talk to themselves over the loopback.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
# The kernel log of the sweep, batch by batch: kept, as stressors fill
# the ring buffer.
kmsg=$work/kmsg
dmesg -c >"$work/kmsg.before"

# run_batch NAME TIMEOUT STRESSOR...: run the STRESSORs together; leaves
# $work/NAME.log (stress-ng's), $work/NAME.kmsg and counts in $delta.
run_batch() {
	_name=$1 _t=$2
	shift 2
	_args=
	for _a; do _args="$_args --$_a 1"; done
	_before=$(uc_sysctl violations)
	_start=$(date +%s)
	echo "uctest: stress $_name: $*" >/dev/kmsg
	# -v: stress-ng names a stressor that ended on a signal only then.
	# The outer timeout is a last resort for one stuck in the kernel.
	# shellcheck disable=SC2086
	timeout $((_t * 20 + 60)) stress-ng -v --timeout "$_t" --oomable \
		--metrics --temp-path "$scratch" $limits $_args \
		>"$work/$_name.log" 2>&1
	echo "exit status $?" >>"$work/$_name.log"
	delta=$(($(uc_sysctl violations) - _before))
	ktap_print_msg "stress $_name ($(($(date +%s) - _start)) s):$_args"
	dmesg -c >"$work/$_name.kmsg"
	cat "$work/$_name.kmsg" >>"$kmsg"
	rm -rf "${scratch:?}"/*
}

# The stressors that did something: a bogo-op count above 0.
ran_in() { # ran_in LOG
	sed -nE 's/.*metrc: \[[0-9]+\] ([a-z0-9-]+) +([0-9]+) .*/\1 \2/p' "$1" |
		awk '$2 > 0 { print $1 }'
}

# A report, without what differs between two of the same site.
reports() { # reports KMSG...
	grep -h 'usercopy: ' "$@" | sed -E 's/^\[[^]]*\] //; s/pid [0-9]+ //'
}

# blame: which stressors of a batch (of $batch) with violations caused
# them: each again, alone and for longer, when the batch had more than
# one; one failure each, with its reports.
blame() { # blame CLASS BATCH STRESSOR...
	_c=$1 _i=$2 _found=
	shift 2
	for _s; do
		if [ $# -gt 1 ]; then
			run_batch "$_c-$_s" $((timeout * 2)) "$_s"
			_k=$work/$_c-$_s.kmsg _d=$delta
		else
			_k=$work/$_c-$_i.kmsg _d=$v_batch
		fi
		[ "$_d" = 0 ] && ! grep -q 'usercopy: ' "$_k" && continue
		reports "$_k" | sort -u | while read -r _r; do
			echo "stress violation: stressor=$_s mode=$mode $_r"
		done | ktap_diag
		ktap_test_fail "stress-ng $_s in $mode mode: no usercopy violation ($_d)"
		_found=1
	done
	# None alone: stressors together, or something else that ran then.
	[ -n "$_found" ] && return
	ktap_print_msg "no stressor of$b causes it alone"
	reports "$work/$_c-$_i.kmsg" | sort -u | while read -r _r; do
		echo "stress violation: stressor=$(echo $b | tr ' ' +) mode=$mode $_r"
	done | ktap_diag
}

# The stressors of CLASS in $list: not excluded, not run already in
# this sweep.
seen=" "
stressors_of() {
	if [ "$1" = list ]; then
		list=$only
		return
	elif [ "$1" = ipc ]; then
		_l=$ipc
	else
		_l=$(stress-ng --class "$1?" 2>&1 | sed -n "s/^class '$1' stressors: //p")
	fi
	list=
	for _s in $_l; do
		case " $exclude $seen " in *" $_s "*) continue ;; esac
		seen="$seen$_s "
		list="$list $_s"
	done
}

exclude=$(echo $exclude)
start=$(date +%s)
total=0 total_ran=0 total_v=0 total_k=0
for class in $classes; do
	stressors_of "$class"
	n=$(echo $list | wc -w)
	[ "$n" -gt 0 ] || continue
	v=0 i=0
	: >"$work/$class.ran"
	: >"$work/$class.kmsg"
	: >"$work/$class.sigkill"
	set -- $list
	while [ $# -gt 0 ]; do
		b=
		while [ $# -gt 0 ] && [ $(echo $b | wc -w) -lt "$batch" ]; do
			b="$b $1"
			shift
		done
		i=$((i + 1))
		run_batch "$class-$i" "$timeout" $b
		v_batch=$delta
		ran_in "$work/$class-$i.log" >"$work/$class-$i.ran"
		cat "$work/$class-$i.ran" >>"$work/$class.ran"
		# Nothing ran: why, in stress-ng's words (a stressor that
		# skipped itself, or stress-ng that did not start).
		if ! [ -s "$work/$class-$i.ran" ]; then
			why=$(grep -E 'skip|disabled|fail:|error:' "$work/$class-$i.log" |
				grep -v 'debug:' | head -3 |
				sed 's/^stress-ng: [a-z]*: *\[[0-9]*\] //' | tr '\n' ' ')
			ktap_print_msg "stress-ng$b ran nothing: ${why:-no bogo-ops}"
		fi
		cat "$work/$class-$i.kmsg" >>"$work/$class.kmsg"
		# stress-ng names the stressor whose process died of SIGKILL
		grep -h 'terminated on signal: 9' "$work/$class-$i.log" >>"$work/$class.sigkill"
		# stress-ng -v's logs add up in a long sweep, in memory
		rm -f "$work/$class-$i.log"
		[ "$v_batch" = 0 ] && ! grep -q 'usercopy: ' "$work/$class-$i.kmsg" && continue
		v=$((v + v_batch))
		ktap_print_msg "stress-ng $class batch $i ($b ): $v_batch violations"
		reports "$work/$class-$i.kmsg" | sort | uniq -c | ktap_diag
		blame "$class" "$i" $b
	done
	r=$(sort -u "$work/$class.ran" | wc -l)
	# Killed by the checks: the report says so.  A SIGKILL without one
	# is stress-ng's own, of a straggler at the end of its time.
	k=$(grep -c 'usercopy: .*process killed' "$work/$class.kmsg")
	ktap_test_result "stress-ng $class in $mode mode: no usercopy violation ($v)" \
		[ "$v" = 0 ]
	ktap_test_result "stress-ng $class in $mode mode: no process killed by usercopy ($k)" \
		[ "$k" = 0 ]
	if [ -s "$work/$class.sigkill" ]; then
		sed 's/^/SIGKILL: /' "$work/$class.sigkill" | ktap_diag
	fi
	# Some stressors find nothing to work on here (a device, a protocol
	# the guest lacks) and skip themselves: of a small class (device:
	# kvm, loop, bad-ioctl) most may.  Some must run; most of all of them.
	ktap_test_result "stress-ng $class in $mode mode: ran $r of $n stressors" \
		[ "$r" -gt 0 ]
	ktap_print_msg "stress summary: class=$class mode=$mode form=$form stressors=$n ran=$r violations=$v kills=$k"
	ktap_print_msg "stress ran $class: $(sort -u "$work/$class.ran" | tr '\n' ' ')"
	total=$((total + n)) total_ran=$((total_ran + r))
	total_v=$((total_v + v)) total_k=$((total_k + k))
done
secs=$(($(date +%s) - start))
ktap_test_result "stress-ng ran $total_ran of $total stressors in $mode mode" \
	[ $((total_ran * 2)) -ge "$total" ]
ktap_print_msg "stress summary: class=all mode=$mode form=$form stressors=$total ran=$total_ran violations=$total_v kills=$total_k seconds=$secs"
if [ "$total_v" != 0 ] && [ -r /proc/usercopy/sites ]; then
	ktap_diag /proc/usercopy/sites
fi
# The memory of the user-data caches after the sweep, beside the kmalloc
# caches': slabs times pages per slab (a measure, not a test).
set -- $(usercopy-test slab-kib usercopy-kmalloc-) $(usercopy-test slab-kib kmalloc-)
ktap_print_msg "stress memory: mode=$mode usercopy-kmalloc=${1}KiB/${2} kmalloc=${3}KiB/${4}"
umount "$scratch"
# check_health sees only the log after the sweep: the sweep's, here.
if grep -qEf "$UCTEST/oops.ere" "$kmsg"; then
	ktap_test_fail "kernel healthy during stress-ng in $mode mode"
	grep -A5 -Ef "$UCTEST/oops.ere" "$kmsg" | head -40 | ktap_diag
else
	ktap_test_pass "kernel healthy during stress-ng in $mode mode"
fi
[ "$total_v" = 0 ] && [ "$total_k" = 0 ]
