// SPDX-License-Identifier: GPL-2.0
/*
 * /tmp/perf-PID.map files written by JITs: one "START SIZE name" line per
 * symbol, START and SIZE in hex. Parsed like perf's dso__load_perf_map():
 * digits stop at the first non-hex character, short lines are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym-internal.h"
#include "util.h"

/*
 * Whose file the map may be: root's, the reader's own, or the user of
 * the process it is for while that process is alive (/proc/PID is its
 * user's). A process that has exited leaves only root's and ours: the
 * PID may since be another user's, and anyone can write in /tmp.
 */
static bool owner_ok(uid_t owner, int pid)
{
	char proc[32];
	struct stat st;

	if (owner == 0 || owner == geteuid())
		return true;
	if (pid <= 0)
		return false;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	return !stat(proc, &st) && st.st_uid == owner;
}

/*
 * Anyone may create /tmp/perf-PID.map: take only a regular file, not
 * through a symbolic link, owned as owner_ok() says. O_NONBLOCK keeps a
 * FIFO planted there from blocking the open until a writer comes; the
 * checks are on the descriptor, so nothing can be swapped in after them.
 */
static FILE *open_map(const char *path, int pid, int *err)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		/* A socket cannot be opened: no regular file either. */
		*err = errno == ENXIO ? -EINVAL : -errno;
		return NULL;
	}
	if (fstat(fd, &st)) {
		*err = -errno;
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || !owner_ok(st.st_uid, pid)) {
		*err = S_ISREG(st.st_mode) ? -EPERM : -EINVAL;
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		*err = -errno;
		close(fd);
	}
	return f;
}

int jitmap__load(struct symtab *t, const char *path, int pid,
		 struct strpool *sp)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int err = 0;

	f = open_map(path, pid, &err);
	if (!f)
		return err;
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		uint64_t start, size;
		const char *name;
		size_t n;

		/* perf drops the last character, newline or not. */
		line[--len] = '\0';
		n = sym_parse_hex(line, &start) + 1;
		if ((ssize_t)n + 2 >= len)
			continue;
		n += sym_parse_hex(line + n, &size) + 1;
		if ((ssize_t)n + 2 >= len)
			continue;
		name = sym_intern(sp, line + n, strlen(line + n));
		if (!name) {
			err = -ENOMEM;
			break;
		}
		err = symtab__push(t, start, size, name, SYM_GLOBAL, false);
	}
	free(line);
	fclose(f);
	if (!err)
		symtab__sort(t);
	return err;
}
