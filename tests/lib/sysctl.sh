# sysctl.sh: the usercopy sysctls, for the shell tests (POSIX sh, busybox
# ash).  USERCOPYCTL_SYSCTL_DIR, as for usercopyctl, points them at a
# stand-in directory.
UC_SYSCTL_DIR=${USERCOPYCTL_SYSCTL_DIR:-/proc/sys/kernel/usercopy}

# uc_sysctl NAME: print its value
uc_sysctl() {
	cat "$UC_SYSCTL_DIR/$1"
}

# uc_sysctl_set NAME VALUE: false if the kernel refused it
uc_sysctl_set() {
	echo "$2" >"$UC_SYSCTL_DIR/$1"
}
