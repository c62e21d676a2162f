// SPDX-License-Identifier: GPL-2.0
/*
 * Output files that are never written through anything planted at their
 * names, and that leave what was there before when writing them fails
 * (see include/outfile.h for the rules).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

/* Links followed at one output name, at most (as the kernel's 40, less). */
#define MAX_LINKS 8

/* A file moved out of the way, to be put back or dropped. */
struct moved {
	char *from;		/* its name before (in dirfd) */
	char *to;		/* where it is now */
	dev_t dev;
	ino_t ino;
};

struct outfile {
	FILE *f;
	int fd;			/* -1 once closed */
	int dirfd;		/* the target's directory (O_PATH) */
	char *base;		/* the target's name in dirfd */
	char *shown;		/* the target, for messages */
	char *temp;		/* hidden name in dirfd; NULL: unnamed */
	char *temp_shown;
	unsigned int flags;
	int err;		/* the first error met writing */
	bool named;		/* base holds our file */
	dev_t dev;		/* our file */
	ino_t ino;
	struct moved rotated;	/* FILE -> FILE.old */
	struct moved old_aside;	/* the earlier FILE.old -> hidden */
	struct moved empty_aside; /* an empty FILE -> hidden */
};

const char *outfile__strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a symbolic link another user owns: not followed (remove it, or name the file it points to)";
	case -EISDIR:
		return "a directory, not a regular file: not written (name a file)";
	case -OUTFILE_E_FIFO:
		return "a FIFO, not a regular file: not written (remove it, or name another file)";
	case -OUTFILE_E_SOCK:
		return "a socket, not a regular file: not written (remove it, or name another file)";
	case -OUTFILE_E_DEV:
		return "a device, not a regular file: not written (name a regular file)";
	case -OUTFILE_E_FOREIGN_DIR:
		return "a directory another user owns, who could swap or remove what is written there: not written into (give --allow-shared-dir if you trust its owner)";
	case -OUTFILE_E_SHARED_DIR:
		return "a directory other users can write, without the sticky bit, so they could swap or remove what is written there: not written into (give --allow-shared-dir if you trust them)";
	case -OUTFILE_E_OLD:
		return "its .old is not a regular file (a link, FIFO, socket, device or directory): not replaced (remove it, or name another file)";
	default:
		return strerror(-err);
	}
}

/* A link only its caller's uid or root could have made is followed. */
static bool trusted_link(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* 0 for a regular file; what else it is, as an error. */
static int not_regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISFIFO(st->st_mode))
		return -OUTFILE_E_FIFO;
	if (S_ISSOCK(st->st_mode))
		return -OUTFILE_E_SOCK;
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	return -OUTFILE_E_DEV;
}

static void set_err(struct outfile *of, int err)
{
	if (!of->err && err)
		of->err = err;
}

/* 12 characters no other user can guess, for hidden names. */
static int random_suffix(char *buf)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[12];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		return -EIO;
	for (i = 0; i < sizeof(r); i++)
		buf[i] = chars[r[i] % (sizeof(chars) - 1)];
	buf[sizeof(r)] = '\0';
	return 0;
}

/* ".NAME.WHAT.RANDOM", hidden beside NAME; NULL when out of memory. */
static char *hidden_name(const char *base, const char *what)
{
	char rnd[13], *name;

	if (random_suffix(rnd) ||
	    asprintf(&name, ".%.200s.%s%s", base, what, rnd) < 0)
		return NULL;
	return name;
}

/*
 * The directory and last component of name, relative to dirfd: *dfd is
 * a new O_PATH descriptor of the directory, *base the component, *st
 * what is there now (st_mode 0: nothing). A trusted link is followed one
 * step at a time by the same rules; any other is -ELOOP.
 */
static int resolve(int dirfd, const char *name, int *dfd, char **base,
		   struct stat *st, int depth)
{
	const char *slash = strrchr(name, '/');
	char *dir, target[PATH_MAX];
	ssize_t n;
	int fd, err;

	*dfd = -1;
	*base = NULL;
	if (!*name)
		return -ENOENT;
	if (slash) {
		dir = slash == name ? strdup("/") :
		      strndup(name, slash - name);
		if (!dir)
			return -ENOMEM;
		fd = openat(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(dir);
		name = slash + 1;
	} else {
		fd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		close(fd);
		return -EISDIR;
	}
	if (fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW)) {
		err = errno;
		if (err != ENOENT) {
			close(fd);
			return -err;
		}
		st->st_mode = 0;
	} else if (S_ISLNK(st->st_mode)) {
		if (!trusted_link(st) || depth >= MAX_LINKS) {
			close(fd);
			return -ELOOP;
		}
		n = readlinkat(fd, name, target, sizeof(target) - 1);
		if (n < 0 || n == sizeof(target) - 1) {
			err = n < 0 ? -errno : -ENAMETOOLONG;
			close(fd);
			return err;
		}
		target[n] = '\0';
		err = resolve(fd, target, dfd, base, st, depth + 1);
		close(fd);
		return err;
	}
	*base = strdup(name);
	if (!*base) {
		close(fd);
		return -ENOMEM;
	}
	*dfd = fd;
	return 0;
}

/* What is at name in dirfd, or 0 with st_mode 0 when nothing is. */
static int look(int dirfd, const char *name, struct stat *st)
{
	if (!fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW))
		return 0;
	st->st_mode = 0;
	return errno == ENOENT ? 0 : -errno;
}

/* rename that never replaces: renameat2, or link and unlink. */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (!renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(dirfd, from, dirfd, to, 0))
		return -errno;
	unlinkat(dirfd, from, 0);
	return 0;
}

/* Move from aside to to, remembering the file to put it back by inode. */
static int move(int dirfd, const char *from, char *to,
		const struct stat *st, struct moved *m)
{
	int err;

	if (!to)
		return -ENOMEM;
	err = rename_noreplace(dirfd, from, to);
	if (err) {
		free(to);
		return err;
	}
	m->from = strdup(from);
	m->to = to;
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	if (!m->from) {
		/* Put it back at once: later we could not. */
		rename_noreplace(dirfd, to, from);
		free(to);
		m->to = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Whether name in dirfd is still the file m moved. */
static bool still(int dirfd, const char *name, const struct moved *m)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       st.st_dev == m->dev && st.st_ino == m->ino;
}

static void moved_free(struct moved *m)
{
	free(m->from);
	free(m->to);
	m->from = m->to = NULL;
}

/* Put a moved file back where it was, if both names allow it. */
static void move_back(int dirfd, struct moved *m)
{
	if (m->to && still(dirfd, m->to, m))
		rename_noreplace(dirfd, m->to, m->from);
	moved_free(m);
}

/* Drop a file moved aside for good, if it is still the one moved. */
static void drop(int dirfd, struct moved *m)
{
	if (m->to && still(dirfd, m->to, m))
		unlinkat(dirfd, m->to, 0);
	moved_free(m);
}

/*
 * perf's rule: a non-empty FILE becomes FILE.old, the .old before it
 * moved aside under a hidden name (dropped on commit, put back on
 * failure); an empty one of ours is moved aside as well (perf truncates
 * it). Only regular files are moved: anything else at FILE.old is
 * OUTFILE_E_OLD.
 */
static int rotate(struct outfile *of)
{
	struct stat st, old_st;
	char *old;
	int err;

	err = look(of->dirfd, of->base, &st);
	if (err || !st.st_mode)
		return err;
	err = not_regular(&st);
	if (err)
		return err;
	if (!st.st_size && st.st_nlink == 1 && st.st_uid == geteuid())
		return move(of->dirfd, of->base, hidden_name(of->base, "empty."),
			    &st, &of->empty_aside);
	if (asprintf(&old, "%s.old", of->base) < 0)
		return -ENOMEM;
	err = look(of->dirfd, old, &old_st);
	if (!err && old_st.st_mode) {
		err = not_regular(&old_st) ? -OUTFILE_E_OLD : 0;
		if (!err)
			err = move(of->dirfd, old,
				   hidden_name(of->base, "old."), &old_st,
				   &of->old_aside);
	}
	if (!err)
		err = move(of->dirfd, of->base, old, &st, &of->rotated);
	else
		free(old);
	if (err)
		move_back(of->dirfd, &of->old_aside);
	return err;
}

static void unrotate(struct outfile *of)
{
	/* FILE.old back to FILE first: the hidden one goes to FILE.old. */
	if (of->rotated.to && still(of->dirfd, of->rotated.to, &of->rotated))
		rename_noreplace(of->dirfd, of->rotated.to, of->rotated.from);
	moved_free(&of->rotated);
	move_back(of->dirfd, &of->old_aside);
	move_back(of->dirfd, &of->empty_aside);
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	struct outfile *of = cookie;
	int err = fd_write_all(of->fd, buf, len);

	if (err) {
		set_err(of, err);
		errno = -of->err;
		/* fopencookie(3): 0, never negative, for an error. */
		return 0;
	}
	return len;
}

static void outfile_free(struct outfile *of)
{
	free(of->base);
	free(of->shown);
	free(of->temp);
	free(of->temp_shown);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of);
}

/* The new file, without a name or under a hidden one, O_EXCL. */
static int make_file(struct outfile *of, mode_t mode)
{
	char *dir_shown;
	const char *slash;
	int fd, i;

	if (of->flags & OUTFILE_UNNAMED) {
		fd = openat(of->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
			    mode);
		if (fd >= 0)
			return fd;
		/* Kernels and file systems without O_TMPFILE say these. */
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return -errno;
	}
	for (i = 0; i < 100; i++) {
		free(of->temp);
		of->temp = hidden_name(of->base, "");
		if (!of->temp)
			return -ENOMEM;
		fd = openat(of->dirfd, of->temp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		free(of->temp);
		of->temp = NULL;
		return -errno;
	}
	slash = strrchr(of->shown, '/');
	dir_shown = slash ? strndup(of->shown, slash - of->shown + 1) :
		    strdup("");
	if (!dir_shown ||
	    asprintf(&of->temp_shown, "%s%s", dir_shown, of->temp) < 0) {
		of->temp_shown = NULL;
		free(dir_shown);
		unlinkat(of->dirfd, of->temp, 0);
		close(fd);
		return -ENOMEM;
	}
	free(dir_shown);
	return fd;
}

int outfile__open_at(struct outfile **ofp, int dirfd, const char *name,
		     const char *shown, unsigned int flags, mode_t mode)
{
	cookie_io_functions_t io = { .write = cookie_write };
	struct outfile *of;
	struct stat st;
	int err;

	*ofp = NULL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	of->fd = -1;
	of->flags = flags;
	of->shown = strdup(shown ? shown : name);
	if (!of->shown) {
		free(of);
		return -ENOMEM;
	}
	err = resolve(dirfd, name, &of->dirfd, &of->base, &st, 0);
	if (!err && st.st_mode)
		err = not_regular(&st);
	if (!err) {
		of->fd = make_file(of, mode);
		err = of->fd < 0 ? of->fd : 0;
	}
	if (!err && fstat(of->fd, &st))
		err = -errno;
	if (!err) {
		of->dev = st.st_dev;
		of->ino = st.st_ino;
		of->f = fopencookie(of, "w", io);
		if (!of->f)
			err = -errno;
	}
	if (err) {
		outfile__abort(of);
		return err;
	}
	*ofp = of;
	return 0;
}

int outfile__open(struct outfile **ofp, const char *path)
{
	return outfile__open_at(ofp, AT_FDCWD, path, NULL, 0, 0666);
}

FILE *outfile__stream(struct outfile *of)
{
	return of->f;
}

int outfile__fd(const struct outfile *of)
{
	return of->fd;
}

const char *outfile__temp_path(const struct outfile *of)
{
	return of->temp_shown ? of->temp_shown : of->shown;
}

int outfile__errno(const struct outfile *of)
{
	return of->err;
}

bool outfile__rotated(const struct outfile *of)
{
	return of->rotated.to != NULL;
}

int outfile__publish(struct outfile *of)
{
	char proc[64];
	struct stat st;
	int err;

	if (of->named)
		return 0;
	if (of->flags & OUTFILE_ROTATE) {
		err = rotate(of);
	} else {
		/* Replaced, so only ever a regular file (never followed). */
		err = look(of->dirfd, of->base, &st);
		if (!err && st.st_mode)
			err = not_regular(&st);
	}
	if (err)
		return err;
	if (!of->temp) {
		/*
		 * linkat() never replaces nor follows what is at the name.
		 * Through /proc, as AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH.
		 */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
		err = linkat(AT_FDCWD, proc, of->dirfd, of->base,
			     AT_SYMLINK_FOLLOW) ? -errno : 0;
	} else if (of->flags & OUTFILE_ROTATE) {
		/* The old one moved away: anything there now is planted. */
		err = rename_noreplace(of->dirfd, of->temp, of->base);
	} else {
		err = renameat(of->dirfd, of->temp, of->dirfd, of->base) ?
		      -errno : 0;
	}
	if (err) {
		unrotate(of);
		return err;
	}
	free(of->temp);
	of->temp = NULL;
	of->named = true;
	return 0;
}

int outfile__sync(struct outfile *of)
{
	if (of->f && fflush(of->f))
		set_err(of, errno ? -errno : -EIO);
	if (of->f && ferror(of->f))
		set_err(of, -EIO);
	if (of->fd >= 0 && fsync(of->fd))
		set_err(of, -errno);
	return of->err;
}

/* Close the stream and the file, keeping the first error. */
static void close_file(struct outfile *of)
{
	if (of->f) {
		fclose(of->f);	/* the cookie has no close: fd stays */
		of->f = NULL;
	}
	if (of->fd >= 0) {
		if (close(of->fd) && errno != EINTR)
			set_err(of, -errno);
		of->fd = -1;
	}
}

int outfile__commit(struct outfile *of)
{
	int err = outfile__sync(of);

	if (!err)
		err = outfile__publish(of);
	close_file(of);
	if (!err)
		err = of->err;
	if (err) {
		outfile__abort(of);
		return err;
	}
	drop(of->dirfd, &of->old_aside);
	drop(of->dirfd, &of->empty_aside);
	moved_free(&of->rotated);
	outfile_free(of);
	return 0;
}

void outfile__abort(struct outfile *of)
{
	struct stat st;
	const char *name;

	if (!of)
		return;
	close_file(of);
	name = of->named ? of->base : of->temp;
	/* Ours only: the name must still hold the inode we made. */
	if (name && of->dirfd >= 0 &&
	    !fstatat(of->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_dev == of->dev && st.st_ino == of->ino)
		unlinkat(of->dirfd, name, 0);
	if (of->dirfd >= 0)
		unrotate(of);
	outfile_free(of);
}

/* Whether users other than dir's owner could rename or remove in it. */
static int dir_shared(const struct stat *st)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return -OUTFILE_E_FOREIGN_DIR;
	if (st->st_mode & S_ISVTX)
		return 0;
	if ((st->st_mode & S_IWOTH) ||
	    ((st->st_mode & S_IWGRP) && st->st_gid != 0 &&
	     st->st_gid != getegid()))
		return -OUTFILE_E_SHARED_DIR;
	return 0;
}

int outfile__dir_open(const char *path, unsigned int flags)
{
	struct stat st;
	bool link = false;
	int fd, err;

	if (!*path)
		return -ENOENT;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (!trusted_link(&st))
			return -ELOOP;
		link = true;
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC |
		  (link ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return errno == ENOTDIR && !lstat(path, &st) &&
		       S_ISLNK(st.st_mode) ? -ELOOP : -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = flags & OUTFILE_DIR_SHARED ? 0 : dir_shared(&st);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int outfile__dir(const char *path)
{
	int fd = outfile__dir_open(path, 0);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int outfile__check_at(int dirfd, const char *name, unsigned int flags)
{
	struct outfile *of;
	struct stat st;
	char *old;
	int err;

	err = outfile__open_at(&of, dirfd, name, NULL, 0, 0600);
	if (err)
		return err;
	if (flags & OUTFILE_ROTATE) {
		if (asprintf(&old, "%s.old", of->base) < 0) {
			err = -ENOMEM;
		} else {
			err = look(of->dirfd, old, &st);
			if (!err && st.st_mode && not_regular(&st))
				err = -OUTFILE_E_OLD;
			free(old);
		}
	}
	outfile__abort(of);
	return err;
}

int outfile__check(const char *path)
{
	return outfile__check_at(AT_FDCWD, path, 0);
}
