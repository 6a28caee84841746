/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live audit records from the netlink multicast group AUDIT_NLGRP_READLOG:
 * monitor.c and the guest tests (tests/guest/usercopy-test.c).  Header
 * only: the guest tests are single static programs.
 */
#ifndef UC_AUDITNL_H
#define UC_AUDITNL_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

/* A socket in the audit log multicast group, or -errno. */
static inline int uc_auditnl_open(void)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1U << (AUDIT_NLGRP_READLOG - 1),
	};
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/*
 * One record, without waiting, into @buf: its type in *@type, its text
 * (not NUL-terminated) at *@text.  Returns the length of the text, 0 for
 * a message that is no record, or -errno.
 *
 * The group sends one record per datagram, and the kernel sets nlmsg_len
 * to the length of the payload alone (an old quirk auditd relies on too),
 * so the NLMSG_NEXT walk does not apply: take the one message and trust
 * no length beyond what was received.
 */
static inline long uc_auditnl_recv(int fd, char *buf, size_t size, int *type,
				   const char **text)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);
	size_t len;

	*type = 0;
	*text = NULL;
	if (n < 0)
		return -errno;
	if ((size_t)n < NLMSG_HDRLEN || nlh->nlmsg_type == NLMSG_DONE ||
	    nlh->nlmsg_type == NLMSG_ERROR)
		return 0;
	len = (size_t)n - NLMSG_HDRLEN;
	if (nlh->nlmsg_len < len)
		len = nlh->nlmsg_len;
	*type = nlh->nlmsg_type;
	*text = NLMSG_DATA(nlh);
	return (long)len;
}

#endif /* UC_AUDITNL_H */
