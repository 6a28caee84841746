/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and writing a sysctl file: kernel.c's uc_sysctl_read() and
 * uc_sysctl_write() on top of these, and the guest tests
 * (tests/guest/usercopy-test.c), which also write bad input as it is.
 * Header only: the guest tests are single static programs.
 */
#ifndef UC_SYSCTL_H
#define UC_SYSCTL_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

/* The whole file (at most @size - 1 bytes) as a string: 0 or an errno. */
static inline int uc_file_read(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return err;
}

/*
 * @len bytes in one write(), as a sysctl takes its value: 0 or an errno
 * (EIO if the write was short).  Truncating, like "echo value >file", is
 * also right for a stand-in directory.
 */
static inline int uc_file_write(const char *path, const void *data, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	do
		n = write(fd, data, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) != 0 && !err)
		err = errno;
	return err;
}

#endif /* UC_SYSCTL_H */
