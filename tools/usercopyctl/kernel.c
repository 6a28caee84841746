/*
 * usercopyctl: the running kernel -- its sysctls and mode names, its
 * build configuration (also gzip-compressed), its command line, and the
 * sysctl.d file that makes a mode persistent.  Errors are returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uc-sysctl.h"
#include "usercopyctl.h"

/* The one fallback table, for kernels whose modes_avail cannot be read. */
static const char *const fallback_modes[] = { "off", "log", "enforce" };

const char *uc_sysctl_dir(void)
{
	const char *d = getenv("USERCOPYCTL_SYSCTL_DIR");

	return d && *d ? d : UC_SYSCTL_DIR;
}

int uc_supported(void)
{
	struct stat st;

	return stat(uc_sysctl_dir(), &st) == 0 && S_ISDIR(st.st_mode);
}

void uc_modes_read(struct uc_modes *m)
{
	char *tok, *save = NULL;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (uc_sysctl_read("modes_avail", m->buf, sizeof(m->buf)) == 0) {
		for (tok = strtok_r(m->buf, " \t\n", &save);
		     tok && m->n < UC_MAX_MODES;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			/* "[enforce]" style current-mode marks are not names */
			if (tok[0] == '[') {
				tok++;
				tok[strcspn(tok, "]")] = '\0';
			}
			if (*tok)
				m->name[m->n++] = tok;
		}
	}
	if (m->n) {
		m->from_kernel = 1;
		return;
	}
	for (i = 0; i < sizeof(fallback_modes) / sizeof(fallback_modes[0]); i++)
		m->name[m->n++] = fallback_modes[i];
}

int uc_mode_valid(const struct uc_modes *m, const char *word)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(word, m->name[i]) == 0)
			return 1;
	return 0;
}

const char *uc_modes_join(const struct uc_modes *m, const char *sep,
			  const char *last, char *buf, size_t size)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < m->n && off < size; i++) {
		int n = snprintf(buf + off, size - off, "%s%s",
				 i == 0 ? "" : i + 1 == m->n ? last : sep,
				 m->name[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

int uc_state_read(struct uc_state *st)
{
	char buf[16];
	int rc;

	memset(st, 0, sizeof(*st));
	st->locked = -1;
	if (!uc_supported())
		return -ENOENT;
	rc = uc_sysctl_read("mode", st->mode, sizeof(st->mode));
	st->have_mode = rc == 0 && st->mode[0];
	st->mode_err = rc ? rc : st->have_mode ? 0 : -ENODATA;
	if (!st->have_mode)
		snprintf(st->mode, sizeof(st->mode), "?");
	if (uc_sysctl_read("locked", buf, sizeof(buf)) == 0)
		st->locked = strcmp(buf, "1") == 0;
	return 0;
}

static void sysctl_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", uc_sysctl_dir(), name);
}

int uc_sysctl_read(const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t len;
	int err;

	sysctl_path(path, sizeof(path), name);
	err = uc_file_read(path, buf, size);
	if (err)
		return -err;
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return 0;
}

int uc_sysctl_write(const char *name, const char *value)
{
	char path[PATH_MAX], line[UC_CACHE_NAME_MAX + 2];
	size_t len;

	len = (size_t)snprintf(line, sizeof(line), "%s\n", value);
	if (len >= sizeof(line))
		return -EINVAL;
	sysctl_path(path, sizeof(path), name);
	return -uc_file_write(path, line, len);
}

/* ---- kernel config ----------------------------------------------------- */

static FILE *open_gzip(const char *path, pid_t *child)
{
	int pfd[2], in;
	pid_t pid;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return NULL;
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		close(in);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		close(in);
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(in, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		execlp("gzip", "gzip", "-dc", (char *)NULL);
		_exit(127);
	}
	close(in);
	close(pfd[1]);
	*child = pid;
	return fdopen(pfd[0], "r");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void kconfig_line(struct uc_kconfig *kc, const char *line)
{
	static const struct {
		const char *name;
		size_t off;
	} opts[] = {
		{ "HARDENED_USERCOPY", offsetof(struct uc_kconfig, hardened) },
		{ "UNWINDER_ORC", offsetof(struct uc_kconfig, orc) },
		{ "UNWINDER_FRAME_POINTER", offsetof(struct uc_kconfig, frame_pointer) },
		{ "SLUB", offsetof(struct uc_kconfig, slub) },
		{ "SLAB", offsetof(struct uc_kconfig, slab) },
		{ "SLOB", offsetof(struct uc_kconfig, slob) },
	};
	const char *name;
	size_t i, len;
	int val;

	if (strncmp(line, "CONFIG_", 7) == 0) {
		name = line + 7;
		len = strcspn(name, "=");
		if (name[len] != '=')
			return;
		val = name[len + 1] == 'y' || name[len + 1] == 'm' ? UC_YES : UC_NO;
	} else if (strncmp(line, "# CONFIG_", 9) == 0) {
		name = line + 9;
		len = strcspn(name, " ");
		if (strncmp(name + len, " is not set", 11) != 0)
			return;
		val = UC_NO;
	} else {
		return;
	}
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strlen(opts[i].name) == len &&
		    strncmp(opts[i].name, name, len) == 0)
			*(int *)((char *)kc + opts[i].off) = val;
}

static void kconfig_unknown(struct uc_kconfig *kc)
{
	kc->source[0] = '\0';
	kc->hardened = kc->orc = kc->frame_pointer = UC_UNKNOWN;
	kc->slub = kc->slab = kc->slob = UC_UNKNOWN;
}

void uc_kconfig_read(struct uc_kconfig *kc)
{
	char cand[3][256];
	const char *env = getenv("USERCOPYCTL_KCONFIG");
	struct utsname u;
	char *line = NULL;
	size_t cap = 0, n = 0, i;
	FILE *f = NULL;
	pid_t child = -1;

	memset(kc, 0, sizeof(*kc));
	kconfig_unknown(kc);

	if (env && *env) {
		snprintf(cand[n++], sizeof(cand[0]), "%s", env);
	} else {
		snprintf(cand[n++], sizeof(cand[0]), "/proc/config.gz");
		if (uname(&u) == 0)
			snprintf(cand[n++], sizeof(cand[0]), "/boot/config-%s",
				 u.release);
	}
	for (i = 0; i < n && !f; i++) {
		if (access(cand[i], R_OK) != 0)
			continue;
		f = ends_with(cand[i], ".gz") ? open_gzip(cand[i], &child)
					      : fopen(cand[i], "re");
		if (f)
			snprintf(kc->source, sizeof(kc->source), "%s", cand[i]);
	}
	if (!f)
		return;

	/* Everything not mentioned in a found config is off. */
	kc->hardened = kc->orc = kc->frame_pointer = UC_NO;
	kc->slub = kc->slab = kc->slob = UC_NO;
	while (getline(&line, &cap, f) > 0)
		kconfig_line(kc, line);
	free(line);
	fclose(f);
	if (child > 0) {
		int st;

		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		/* Could not decompress it: we know nothing. */
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			kconfig_unknown(kc);
			return;
		}
	}
	/* Not a kernel config at all? */
	if (kc->hardened == UC_NO && kc->slub == UC_NO && kc->slab == UC_NO &&
	    kc->slob == UC_NO && kc->orc == UC_NO && kc->frame_pointer == UC_NO)
		kconfig_unknown(kc);
}

const char *uc_kconfig_hardened(const struct uc_kconfig *kc)
{
	return kc->hardened == UC_UNKNOWN ? "unknown" :
	       kc->hardened == UC_YES ? "yes" : "no";
}

const char *uc_kconfig_frames(const struct uc_kconfig *kc)
{
	if (kc->hardened == UC_UNKNOWN)
		return "unknown";
	if (kc->hardened == UC_NO)
		return "no";
	if (kc->frame_pointer == UC_YES)
		return "frame (frame pointer)";
	if (kc->orc == UC_YES)
		return "frame (ORC)";
	return "stack bounds only";
}

const char *uc_kconfig_allocator(const struct uc_kconfig *kc)
{
	if (kc->slub == UC_YES)
		return "SLUB";
	if (kc->slab == UC_YES)
		return "SLAB";
	if (kc->slob == UC_YES)
		return "SLOB";
	return "unknown";
}

const char *uc_kconfig_whitelisting(const struct uc_kconfig *kc)
{
	if (kc->hardened == UC_UNKNOWN)
		return "unknown";
	if (kc->hardened == UC_YES && (kc->slub == UC_YES || kc->slab == UC_YES))
		return "active";
	return "inactive";
}

/* ---- boot parameters --------------------------------------------------- */

const char *uc_boot_mode(const struct uc_modes *m, char *buf, size_t size)
{
	const char *env = getenv("USERCOPYCTL_CMDLINE");
	char line[4096];
	const char *res = NULL;
	char *tok, *save = NULL;
	size_t n;
	FILE *f;

	f = fopen(env && *env ? env : "/proc/cmdline", "re");
	if (!f)
		return NULL;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';

	/* The last one wins, as for the kernel's own parsing. */
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (strncmp(tok, "usercopy_mode=", 14) == 0 &&
		    uc_mode_valid(m, tok + 14)) {
			snprintf(buf, size, "%s", tok + 14);
			res = buf;
		} else if (strcmp(tok, "hardened_usercopy=off") == 0) {
			snprintf(buf, size, "off");
			res = buf;
		}
	}
	return res;
}

/* ---- persistence ------------------------------------------------------- */

const char *uc_persist_default(char *buf, size_t size)
{
	const char *d = getenv("USERCOPYCTL_SYSCTL_D");

	snprintf(buf, size, "%s/%s", d && *d ? d : UC_SYSCTL_D, UC_PERSIST_NAME);
	return buf;
}

/*
 * Write the new file next to the old one, flushed to disk, so that the
 * only step left after the kernel took the mode is an atomic rename().
 * Returns 0 or -errno.
 */
int uc_persist_prepare(struct uc_persist *p, const char *path, const char *mode,
		       const struct uc_modes *m)
{
	char body[512], names[160];
	size_t len, off = 0;
	int fd, e;

	if (snprintf(p->path, sizeof(p->path), "%s", path) >= (int)sizeof(p->path) ||
	    snprintf(p->tmp, sizeof(p->tmp), "%s.XXXXXX", path) >= (int)sizeof(p->tmp))
		return -ENAMETOOLONG;
	len = (size_t)snprintf(body, sizeof(body),
		"# Usercopy hardening mode, applied at boot by systemd-sysctl.\n"
		"# Written by usercopyctl mode --persist; see usercopyctl(8)\n"
		"# and sysctl.d(5). Valid modes: %s.\n"
		"kernel.usercopy.mode = %s\n",
		uc_modes_join(m, ", ", ", ", names, sizeof(names)), mode);
	if (len >= sizeof(body))
		return -ENAMETOOLONG;

	fd = mkostemp(p->tmp, O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		p->tmp[0] = '\0';
		return e;
	}
	while (off < len) {
		ssize_t n = write(fd, body + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		off += (size_t)n;
	}
	if (fchmod(fd, 0644) != 0 || fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	e = -errno;
	if (fd >= 0)
		close(fd);
	uc_persist_abort(p);
	return e;
}

int uc_persist_commit(struct uc_persist *p)
{
	char dir[4096];
	char *slash;
	int fd, e;

	if (rename(p->tmp, p->path) != 0) {
		e = -errno;
		uc_persist_abort(p);
		return e;
	}
	p->tmp[0] = '\0';
	/* Make the rename itself durable. */
	snprintf(dir, sizeof(dir), "%s", p->path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

void uc_persist_abort(struct uc_persist *p)
{
	if (p->tmp[0])
		unlink(p->tmp);
	p->tmp[0] = '\0';
}
