// SPDX-License-Identifier: GPL-2.0
/*
 * Work directories and owner stamps (see include/workdir.h for the rules).
 *
 * Everything below works through directory descriptors: a name read from
 * a shared directory is looked at with fstatat(AT_SYMLINK_NOFOLLOW),
 * opened with O_NOFOLLOW | O_DIRECTORY and checked again by inode before
 * anything is removed inside it, so that swapping a directory for a link
 * between two steps gains nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "workdir.h"

#define ROOT_BASE "/var/lib/rstat-analyze"
#define USER_BASE "/var/tmp"
#define STAMP_FILE ".owner"
#define NAME_PREFIX "rstat-analyze-"
#define RANDOM_CHARS 12
#define MAX_TREE_DEPTH 64

struct workdir {
	int basefd;		/* the directory it was made in */
	int fd;
	char *name;		/* its name under base */
	char *path;
};

/* --- owner stamps -------------------------------------------------------- */

/* Field 22 of /proc/<pid>/stat: the start time in clock ticks. */
static int proc_start_time(int pid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* comm (field 2) may hold spaces and ')': skip to its last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	/* Field 3 starts at p + 2; field 22 is 19 fields further. */
	p += 2;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", start) != 1)
		return -EIO;
	return 0;
}

static int boot_id(char *buf, size_t len)
{
	ssize_t n;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int owner_stamp__self(char *buf, size_t len, const char *what)
{
	unsigned long long start;
	char boot[64];
	int err, n;

	err = proc_start_time(getpid(), &start);
	if (!err)
		err = boot_id(boot, sizeof(boot));
	if (err)
		return err;
	n = snprintf(buf, len, "rstat-analyze %s pid=%d start=%llu boot=%s\n",
		     what, (int)getpid(), start, boot);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int owner_stamp__alive(const char *buf, const char *what)
{
	char kind[32], boot[64], now_boot[64];
	unsigned long long start, now_start;
	int pid, end = 0, err;

	if (sscanf(buf, "rstat-analyze %31s pid=%d start=%llu boot=%63s%n",
		   kind, &pid, &start, boot, &end) != 4 || !end ||
	    (buf[end] && buf[end] != '\n') || pid <= 0 ||
	    (what && strcmp(kind, what)))
		return -EINVAL;
	/* When in doubt, alive: removing a live run's files is worse. */
	if (boot_id(now_boot, sizeof(now_boot)))
		return 1;
	/* A stamp from an earlier boot names no process of this one. */
	if (strcmp(boot, now_boot))
		return 0;
	err = proc_start_time(pid, &now_start);
	if (err)
		return err == -ENOENT ? 0 : 1;
	return now_start == start;
}

/* --- removal ------------------------------------------------------------- */

static int empty_dir(int dirfd, dev_t dev, int depth);

static int remove_entry(int parentfd, const char *name, dev_t dev, int depth)
{
	struct stat st, st2;
	int fd, err;

	if (fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parentfd, name, 0) && errno != ENOENT ?
		       -errno : 0;
	if (st.st_dev != dev)
		return -EXDEV;
	if (depth > MAX_TREE_DEPTH)
		return -ELOOP;
	fd = openat(parentfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* The same directory that was looked at, not a swapped-in one. */
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	err = empty_dir(fd, dev, depth + 1);
	close(fd);
	if (err)
		return err;
	return unlinkat(parentfd, name, AT_REMOVEDIR) && errno != ENOENT ?
	       -errno : 0;
}

static int empty_dir(int dirfd, dev_t dev, int depth)
{
	struct dirent *de;
	int fd, err = 0, e;
	DIR *d;

	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		e = remove_entry(dirfd, de->d_name, dev, depth);
		if (e && !err)
			err = e;
	}
	closedir(d);
	return err;
}

int remove_tree_at(int parentfd, const char *name)
{
	struct stat st;

	if (fstat(parentfd, &st))
		return -errno;
	return remove_entry(parentfd, name, st.st_dev, 0);
}

/* --- locations ----------------------------------------------------------- */

/*
 * Open base as a directory nobody else can plant entries in: owned by us
 * or root, and not writable by others unless sticky. Root's default
 * location is created when missing.
 */
static int open_base(const char *base, bool create, char *errbuf,
		     size_t errlen)
{
	struct stat st;
	int fd;

	if (create && mkdir(base, 0700) && errno != EEXIST) {
		errbuf_set(errbuf, errlen, "%s: cannot create: %s", base,
			strerror(errno));
		return -errno;
	}
	fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = errno == ELOOP || errno == ENOTDIR ? -ENOTDIR :
			  -errno;

		errbuf_set(errbuf, errlen, "%s: %s", base,
			err == -ENOTDIR ? "not a directory (a link?): refusing to work in it" :
			strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	if ((st.st_uid != geteuid() && st.st_uid != 0) ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	     !(st.st_mode & S_ISVTX))) {
		close(fd);
		errbuf_set(errbuf, errlen,
			"%s: owned by uid %u with mode %04o: other users could plant files in it; remove it or fix its owner and mode",
			base, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return fd;
}

static const char *default_base(bool *create)
{
	const char *t = getenv("TMPDIR");

	*create = geteuid() == 0;
	if (*create)
		return ROOT_BASE;
	return t && t[0] == '/' ? t : USER_BASE;
}

static int random_name(char *buf, size_t len, const char *what)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[RANDOM_CHARS];
	int n, i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	n = snprintf(buf, len, NAME_PREFIX "%s.", what);
	if (n < 0 || (size_t)n + RANDOM_CHARS >= len)
		return -ENAMETOOLONG;
	for (i = 0; i < RANDOM_CHARS; i++)
		buf[n + i] = chars[r[i] % (sizeof(chars) - 1)];
	buf[n + RANDOM_CHARS] = '\0';
	return 0;
}

static int write_stamp(int dirfd, const char *what)
{
	char stamp[OWNER_STAMP_MAX];
	size_t len;
	int fd, err;

	err = owner_stamp__self(stamp, sizeof(stamp), what);
	if (err)
		return err;
	fd = openat(dirfd, STAMP_FILE,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	len = strlen(stamp);
	err = write(fd, stamp, len) == (ssize_t)len ? 0 : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int workdir__new(struct workdir **wdp, const char *what, const char *base,
		 char *errbuf, size_t errlen)
{
	struct workdir *wd;
	char name[NAME_MAX + 1];
	bool create = false;
	struct stat st;
	int err = 0, tries;

	*wdp = NULL;
	errbuf_set(errbuf, errlen, "%s", "");
	if (!base)
		base = default_base(&create);
	wd = calloc(1, sizeof(*wd));
	if (!wd)
		return -ENOMEM;
	wd->fd = -1;
	wd->basefd = open_base(base, create, errbuf, errlen);
	if (wd->basefd < 0) {
		err = wd->basefd;
		free(wd);
		return err;
	}
	for (tries = 0; tries < 100; tries++) {
		err = random_name(name, sizeof(name), what);
		if (err)
			break;
		if (!mkdirat(wd->basefd, name, 0700))
			break;
		err = -errno;
		if (err != -EEXIST)
			break;
	}
	if (err) {
		errbuf_set(errbuf, errlen, "%s: cannot make a work directory: %s",
			base, strerror(-err));
		goto fail;
	}
	wd->name = strdup(name);
	if (!wd->name || asprintf(&wd->path, "%s/%s", base, name) < 0) {
		wd->path = NULL;
		err = -ENOMEM;
		goto fail_made;
	}
	wd->fd = openat(wd->basefd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (wd->fd < 0 || fstat(wd->fd, &st) || st.st_uid != geteuid()) {
		err = wd->fd < 0 ? -errno : -EPERM;
		goto fail_made;
	}
	err = write_stamp(wd->fd, what);
	if (err)
		goto fail_made;
	*wdp = wd;
	return 0;
fail_made:
	errbuf_set(errbuf, errlen, "%s/%s: %s", base, name, strerror(-err));
	remove_tree_at(wd->basefd, name);
fail:
	if (wd->fd >= 0)
		close(wd->fd);
	close(wd->basefd);
	free(wd->name);
	free(wd->path);
	free(wd);
	return err;
}

int workdir__fd(const struct workdir *wd)
{
	return wd->fd;
}

const char *workdir__path(const struct workdir *wd)
{
	return wd->path;
}

int workdir__delete(struct workdir *wd)
{
	int err;

	if (!wd)
		return 0;
	close(wd->fd);
	err = remove_tree_at(wd->basefd, wd->name);
	close(wd->basefd);
	free(wd->name);
	free(wd->path);
	free(wd);
	return err;
}

/* --- stale runs ---------------------------------------------------------- */

/* The stamp inside dirfd, if it is a plain file of ours: 0 or -errno. */
static int read_stamp(int dirfd, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(dirfd, STAMP_FILE,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

static void note_path(workdir_note_fn note, void *ctx, const char *base,
		      const char *name, const char *why)
{
	char path[PATH_MAX];

	if (!note)
		return;
	snprintf(path, sizeof(path), "%s/%s", base, name);
	note(ctx, path, why);
}

/* One entry under our name pattern: remove it if a dead run's of ours. */
static int check_stale(int basefd, const char *base, const char *name,
		       const char *what, workdir_note_fn note, void *ctx)
{
	char stamp[OWNER_STAMP_MAX], why[96];
	struct stat st, st2;
	int fd, alive, err;

	if (fstatat(basefd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		note_path(note, ctx, base, name, S_ISLNK(st.st_mode) ?
			  "a symbolic link, not ours: left alone" :
			  "not a directory, not ours: left alone");
		return 0;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, sizeof(why),
			 "owned by uid %u, not ours: left alone",
			 (unsigned int)st.st_uid);
		note_path(note, ctx, base, name, why);
		return 0;
	}
	fd = openat(basefd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st2) || st2.st_ino != st.st_ino ||
	    st2.st_dev != st.st_dev) {
		close(fd);
		return 0;
	}
	err = read_stamp(fd, stamp, sizeof(stamp));
	alive = err ? -EINVAL : owner_stamp__alive(stamp, what);
	if (alive < 0) {
		note_path(note, ctx, base, name,
			  "no owner stamp of ours: left alone");
		close(fd);
		return 0;
	}
	if (alive) {
		close(fd);
		return 0;
	}
	err = empty_dir(fd, st.st_dev, 1);
	close(fd);
	if (!err && unlinkat(basefd, name, AT_REMOVEDIR) && errno != ENOENT)
		err = -errno;
	if (err) {
		snprintf(why, sizeof(why), "a dead run's, but not removed: %s",
			 strerror(-err));
		note_path(note, ctx, base, name, why);
		return 0;
	}
	return 1;
}

int workdir__cleanup_stale(const char *what, const char *base,
			   unsigned int *removed, workdir_note_fn note,
			   void *ctx)
{
	char prefix[64];
	struct dirent *de;
	bool create;
	int basefd, fd;
	size_t plen;
	DIR *d;

	*removed = 0;
	if (!base)
		base = default_base(&create);
	basefd = open_base(base, false, NULL, 0);
	if (basefd < 0)
		return basefd == -ENOENT ? 0 : basefd;
	snprintf(prefix, sizeof(prefix), NAME_PREFIX "%s.", what);
	plen = strlen(prefix);
	fd = dup(basefd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		close(basefd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen) ||
		    strlen(de->d_name) != plen + RANDOM_CHARS)
			continue;
		if (check_stale(basefd, base, de->d_name, what, note, ctx) > 0)
			(*removed)++;
	}
	closedir(d);
	close(basefd);
	return 0;
}
