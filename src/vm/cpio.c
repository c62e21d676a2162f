// SPDX-License-Identifier: GPL-2.0
/*
 * A newc cpio writer: the initramfs format the kernel unpacks into its
 * rootfs (Documentation/driver-api/early-userspace/buffer-format.rst).
 *
 * Each entry is the magic "070701", thirteen 8-digit hex fields, the name
 * with its NUL padded to a multiple of four, then the data padded likewise;
 * the archive ends with an entry named "TRAILER!!!". Owners are root and
 * times are 0, so an image depends only on what is in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "vm.h"

struct cpio {
	FILE *out;
	unsigned long long written;
	unsigned int ino;
	char **paths;		/* what was added, for parents and dedup */
	size_t npaths, cap;
	bool error;
};

struct cpio *cpio__new(FILE *out)
{
	struct cpio *c = calloc(1, sizeof(*c));

	if (c) {
		c->out = out;
		c->ino = 1;
	}
	return c;
}

void cpio__delete(struct cpio *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->npaths; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c);
}

bool cpio__has(const struct cpio *c, const char *path)
{
	size_t i;

	while (*path == '/')
		path++;
	for (i = 0; i < c->npaths; i++)
		if (!strcmp(c->paths[i], path))
			return true;
	return false;
}

static void put(struct cpio *c, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, c->out) != n)
		c->error = true;
	c->written += n;
}

static void pad4(struct cpio *c)
{
	static const char zeros[4];

	put(c, zeros, (4 - c->written % 4) % 4);
}

/*
 * One header and the name; the caller writes the data, then pad4().
 * rdev is the device a special file stands for, major and minor.
 */
static int header(struct cpio *c, const char *name, unsigned int mode,
		  unsigned int nlink, unsigned long long size,
		  const unsigned int rdev[2])
{
	char h[111];

	if (size > 0xffffffffULL)
		return -EFBIG;
	snprintf(h, sizeof(h),
		 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 c->ino++, mode, 0, 0, nlink, 0, (unsigned int)size, 0, 0,
		 rdev ? rdev[0] : 0, rdev ? rdev[1] : 0,
		 (unsigned int)strlen(name) + 1, 0);
	put(c, h, 110);
	put(c, name, strlen(name) + 1);
	pad4(c);
	return c->error ? -EIO : 0;
}

static int remember(struct cpio *c, const char *path)
{
	char *dup = strdup(path);

	if (!dup || grow_array((void **)&c->paths, &c->cap, c->npaths + 1,
			       sizeof(*c->paths))) {
		free(dup);
		return -ENOMEM;
	}
	c->paths[c->npaths++] = dup;
	return 0;
}

/* Names in the archive are relative ("usr/lib"), as the kernel expects. */
static const char *relative(const char *path)
{
	while (*path == '/')
		path++;
	return path;
}

static int add_dir_one(struct cpio *c, const char *rel)
{
	int err;

	if (cpio__has(c, rel))
		return 0;
	err = header(c, rel, S_IFDIR | 0755, 2, 0, NULL);
	return err ? err : remember(c, rel);
}

/* Every parent directory of rel, outermost first. */
static int add_parents(struct cpio *c, const char *rel)
{
	char buf[4096];
	char *slash;
	int err;

	if (strlen(rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, rel);
	for (slash = strchr(buf, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		err = add_dir_one(c, buf);
		*slash = '/';
		if (err)
			return err;
	}
	return 0;
}

/* Whether rel may name a new entry (not a directory). */
static int check_new(struct cpio *c, const char *rel)
{
	if (!*rel)
		return -EINVAL;
	return cpio__has(c, rel) ? -EEXIST : 0;
}

/* A file's or device's parents, then its header and name. */
static int begin_entry(struct cpio *c, const char *rel, unsigned int mode,
		       unsigned long long size, const unsigned int rdev[2])
{
	int err = add_parents(c, rel);

	return err ? err : header(c, rel, mode, 1, size, rdev);
}

/* Close an entry whose header and data are written. */
static int finish_entry(struct cpio *c, const char *rel)
{
	pad4(c);
	if (c->error)
		return -EIO;
	return remember(c, rel);
}

int cpio__add_dir(struct cpio *c, const char *path)
{
	const char *rel = relative(path);
	int err;

	if (!*rel)
		return -EINVAL;
	err = add_parents(c, rel);
	return err ? err : add_dir_one(c, rel);
}

int cpio__add_data(struct cpio *c, const char *path, unsigned int mode,
		   const void *data, size_t len)
{
	const char *rel = relative(path);
	int err;

	err = check_new(c, rel);
	if (!err)
		err = begin_entry(c, rel, S_IFREG | (mode & 07777), len, NULL);
	if (err)
		return err;
	put(c, data, len);
	return finish_entry(c, rel);
}

int cpio__add_file(struct cpio *c, const char *path, unsigned int mode,
		   const char *src)
{
	const char *rel = relative(path);
	unsigned long long left;
	char buf[65536];
	struct stat st;
	int fd, err;

	err = check_new(c, rel);
	if (err)
		return err;
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		close(fd);
		return err;
	}
	err = begin_entry(c, rel, S_IFREG | (mode & 07777), st.st_size, NULL);
	for (left = st.st_size; !err && left; ) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left :
				 sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* The size is in the header already: a short file
			 * would shift every entry after it. */
			err = n < 0 ? -errno : -EIO;
			break;
		}
		put(c, buf, n);
		left -= n;
	}
	close(fd);
	return err ? err : finish_entry(c, rel);
}

int cpio__add_chardev(struct cpio *c, const char *path, unsigned int mode,
		      unsigned int major, unsigned int minor)
{
	const unsigned int rdev[2] = { major, minor };
	const char *rel = relative(path);
	int err;

	err = check_new(c, rel);
	if (!err)
		err = begin_entry(c, rel, S_IFCHR | (mode & 07777), 0, rdev);
	return err ? err : finish_entry(c, rel);
}

int cpio__finish(struct cpio *c)
{
	static const char zeros[512];
	int err = header(c, "TRAILER!!!", 0, 1, 0, NULL);

	if (err)
		return err;
	put(c, zeros, (512 - c->written % 512) % 512);
	if (fflush(c->out) || c->error)
		return -EIO;
	return 0;
}
