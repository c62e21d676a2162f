// SPDX-License-Identifier: GPL-2.0
/*
 * Output files that are never written through a planted link (see
 * include/outfile.h for the rules).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

struct outfile {
	FILE *f;
	char *temp;		/* NULL when writing a device in place */
	char *path;		/* the target (a trusted link resolved) */
};

const char *outfile__strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link another user owns: not followed (remove it, or name the file it points to)";
	case -EISDIR:
		return "not a regular file: not replaced";
	default:
		return strerror(-err);
	}
}

/* A link only its caller's uid or root could have made is followed. */
static bool trusted_link(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* 0 when path is free or may be replaced; -ELOOP or -EISDIR when not. */
static int check_entry(const char *path, struct stat *st, bool *exists)
{
	*exists = false;
	if (lstat(path, st))
		return errno == ENOENT ? 0 : -errno;
	*exists = true;
	if (S_ISLNK(st->st_mode)) {
		if (!trusted_link(st))
			return -ELOOP;
		if (stat(path, st))
			return errno == ENOENT ? (*exists = false, 0) : -errno;
	}
	if (S_ISREG(st->st_mode) || S_ISCHR(st->st_mode) ||
	    S_ISFIFO(st->st_mode))
		return 0;
	return -EISDIR;
}

int outfile__rotate(const char *path)
{
	struct stat st, old_st;
	bool exists, old_exists;
	char *old;
	int err;

	err = check_entry(path, &st, &exists);
	if (err || !exists || !S_ISREG(st.st_mode))
		return err;
	if (!st.st_size && st.st_nlink == 1 && st.st_uid == geteuid()) {
		/* perf truncates an empty one; a fresh file is as good. */
		return unlink(path) && errno != ENOENT ? -errno : 0;
	}
	if (asprintf(&old, "%s.old", path) < 0)
		return -ENOMEM;
	/* rename() replaces what is at .old; only ever a file. */
	if (lstat(old, &old_st))
		old_exists = false, err = errno == ENOENT ? 0 : -errno;
	else
		old_exists = true;
	if (!err && old_exists && !S_ISREG(old_st.st_mode))
		err = S_ISLNK(old_st.st_mode) ? -ELOOP : -EISDIR;
	if (!err)
		err = rename(path, old) ? -errno : 1;
	free(old);
	return err;
}

int outfile__unrotate(const char *path)
{
	char *old;
	int err = 0;

	if (asprintf(&old, "%s.old", path) < 0)
		return -ENOMEM;
	if (rename(old, path) && errno != ENOENT)
		err = -errno;
	free(old);
	return err;
}

int outfile__create(const char *path, mode_t mode)
{
	struct stat st;
	bool exists;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  mode);
	if (fd >= 0)
		return fd;
	if (errno != EEXIST)
		return -errno;
	err = check_entry(path, &st, &exists);
	if (err)
		return err;
	if (!exists || S_ISREG(st.st_mode))
		return -EEXIST;	/* appeared since the rotation: a race */
	/* A device or FIFO, written in place. */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The directory part of path, "." for a bare name, into buf. */
static int dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		snprintf(buf, len, ".");
		return 0;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return 0;
}

int outfile__create_unnamed(const char *path, mode_t mode)
{
	char dir[PATH_MAX];
	int fd, err = dir_of(path, dir, sizeof(dir));

	if (err)
		return err;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd >= 0)
		return fd;
	/* Kernels and file systems without O_TMPFILE say it these ways. */
	if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)
		return -EOPNOTSUPP;
	return -errno;
}

int outfile__publish(const char *path, int fd)
{
	char proc[64];

	/*
	 * linkat() never replaces nor follows what is at path. Through
	 * /proc, as AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH.
	 */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		return -errno;
	return 0;
}

int outfile__remove_created(const char *path, int fd)
{
	struct stat st, made;

	if (fstat(fd, &made) || !S_ISREG(made.st_mode) || lstat(path, &st) ||
	    st.st_dev != made.st_dev || st.st_ino != made.st_ino)
		return 0;
	return unlink(path) ? -errno : 0;
}

static mode_t current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

int outfile__open(struct outfile **ofp, const char *path)
{
	struct outfile *of;
	struct stat st;
	bool exists;
	char *slash;
	int fd, err;

	*ofp = NULL;
	err = check_entry(path, &st, &exists);
	if (err)
		return err;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	/* A trusted link: write where it points, as fopen() would. */
	of->path = exists ? realpath(path, NULL) : strdup(path);
	if (!of->path) {
		err = -errno;
		free(of);
		return err;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		of->f = fopen(of->path, "we");
		if (!of->f) {
			err = -errno;
			goto fail;
		}
		*ofp = of;
		return 0;
	}
	slash = strrchr(of->path, '/');
	if (asprintf(&of->temp, "%.*s.%s.XXXXXX",
		     slash ? (int)(slash - of->path + 1) : 0, of->path,
		     slash ? slash + 1 : of->path) < 0) {
		of->temp = NULL;
		err = -ENOMEM;
		goto fail;
	}
	fd = mkostemp(of->temp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(of->temp);
		of->temp = NULL;
		goto fail;
	}
	if (fchmod(fd, 0666 & ~current_umask()) ||
	    !(of->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlink(of->temp);
		goto fail;
	}
	*ofp = of;
	return 0;
fail:
	free(of->temp);
	free(of->path);
	free(of);
	return err;
}

FILE *outfile__stream(struct outfile *of)
{
	return of->f;
}

const char *outfile__temp_path(const struct outfile *of)
{
	return of->temp ? of->temp : of->path;
}

static void outfile_free(struct outfile *of)
{
	free(of->temp);
	free(of->path);
	free(of);
}

int outfile__commit(struct outfile *of)
{
	bool bad = ferror(of->f);
	int err = 0;

	errno = 0;
	if (fclose(of->f) || bad)
		err = errno ? -errno : -EIO;
	if (of->temp) {
		if (!err && rename(of->temp, of->path))
			err = -errno;
		if (err)
			unlink(of->temp);
	}
	outfile_free(of);
	return err;
}

void outfile__abort(struct outfile *of)
{
	if (!of)
		return;
	fclose(of->f);
	if (of->temp)
		unlink(of->temp);
	outfile_free(of);
}

int outfile__dir(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && !trusted_link(&st))
		return -ELOOP;
	if (!mkdir(path, 0755))
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int outfile__check(const char *path)
{
	struct outfile *of;
	struct stat st;
	bool exists;
	int err = check_entry(path, &st, &exists);

	/* A device or FIFO is written in place: opening one may block. */
	if (err || (exists && !S_ISREG(st.st_mode)))
		return err;
	err = outfile__open(&of, path);
	if (!err)
		outfile__abort(of);
	return err;
}
