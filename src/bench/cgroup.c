// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup tree of a bench run (include/bench-cgroup.h).
 *
 * Root privileges and the kernel's cgroup state are shared with everything
 * else on the machine, so this file is deliberately narrow in what it
 * touches: it only creates and removes directories below a run parent
 * named rstat-analyze-bench-<PID>, only kills processes found inside such
 * a tree, and only writes outside one to delegate a v2 controller from the
 * directory the run parent sits in (undone on destroy).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "bench-cgroup.h"
#include "kfeatures.h"
#include "util.h"
#include "workdir.h"

/* v2, then at most memory, cpu and cpuacct on v1. */
#define MAX_HIER	4
/* Run trees are shallow; deeper ones are not ours to walk. */
#define MAX_DEPTH	32
#define DESTROY_MS	5000
#define POLL_MS		10

struct hier {
	char *mount;		/* mount point of the hierarchy */
	char *base;		/* the directory the run parent goes in */
	char *dir;		/* the run parent */
	const char *label;	/* "v2", or the v1 controller: for messages */
	bool v2;
	bool created;		/* dir is ours to remove */
};

struct bench_cg {
	struct hier h[MAX_HIER];
	int nr;
	int serve[BENCH_CTRL__NR];	/* index in h[], -1: unavailable */
	char *why[BENCH_CTRL__NR];
	/* v2 controllers delegated to the run parent ("memory io") */
	char v2_ctrls[64];
	/* those we enabled in the base's subtree_control, to disable again */
	char restore[64];
	enum kf_cgroup_layout layout;
	bool keep;
	bool memsw;		/* v1 memory.memsw.* exists */
	char err[512];
};

static const char *const v2_name[BENCH_CTRL__NR] = {
	[BENCH_CTRL_MEMORY] = "memory",
	[BENCH_CTRL_IO] = "io",
	[BENCH_CTRL_CPU] = "cpu",
};

static const char *const ctrl_label[BENCH_CTRL__NR] = {
	[BENCH_CTRL_BASE] = "base",
	[BENCH_CTRL_MEMORY] = "memory",
	[BENCH_CTRL_IO] = "io",
	[BENCH_CTRL_CPU] = "cpu",
};

static int pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Cgroup files report errors on write(), not open(). */
static int write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

static int write_at(const char *dir, const char *file, const char *s)
{
	char path[PATH_MAX];
	int err = pathf(path, "%s/%s", dir, file);

	return err ? err : write_str(path, s);
}

/* The file's start, NUL-terminated; its length or -errno. */
static ssize_t read_str(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	n = n < 0 ? -errno : 0;
	close(fd);
	buf[got] = '\0';
	return n < 0 ? n : (ssize_t)got;
}

/* A read_str() result as 0 or -errno. */
static int read_err(ssize_t n)
{
	return n < 0 ? (int)n : 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* word in a list separated by blanks or newlines (cgroup.controllers). */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\n';
		char end = p[len];

		if (start && (!end || end == ' ' || end == '\n'))
			return true;
		p += len;
	}
	return false;
}

static void add_word(char *list, size_t len, const char *word)
{
	size_t used = strlen(list);

	snprintf(list + used, len - used, "%s%s", used ? " " : "", word);
}

static void elapsed_init(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * "rstat-analyze-bench-<PID>", or "...-<PID>.<N>" when another user had
 * planted the first name in a delegated subtree: the only directories
 * this file ever removes are such a directory and what lies below it.
 */
static bool run_name(const char *name, pid_t *pid)
{
	const char *p = name + strlen(BENCH_CG_PREFIX);
	char *end;
	long v, n;

	if (strncmp(name, BENCH_CG_PREFIX, strlen(BENCH_CG_PREFIX)))
		return false;
	if (*p < '1' || *p > '9')
		return false;
	errno = 0;
	v = strtol(p, &end, 10);
	if (*end == '.' && end[1] >= '1' && end[1] <= '9') {
		n = strtol(end + 1, &end, 10);
		if (n <= 0 || n > 99)
			return false;
	}
	if (*end || errno || v <= 0 || v > INT_MAX)
		return false;
	if (pid)
		*pid = v;
	return true;
}

static bool run_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && run_name(slash + 1, NULL);
}

/*
 * Scenario paths: relative, no "." or ".." (they could climb out of the
 * run parent), no empty components.
 */
static int check_rel(const char *rel, bool allow_empty)
{
	const char *p = rel;

	if (!rel)
		return -EINVAL;
	if (!*rel)
		return allow_empty ? 0 : -EINVAL;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int check_file(const char *file)
{
	if (!file || !*file)
		return 0;
	if (strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, ".."))
		return -EINVAL;
	return 0;
}

/*
 * This process's cgroup in the hierarchy of controller ctrl (NULL: v2),
 * from /proc/self/cgroup.
 */
static int own_cgroup(const char *ctrl, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 128];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2, *tok, *save = NULL;
		bool match = false;

		if (!c1 || !(c2 = strchr(c1 + 1, ':')))
			continue;
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (!ctrl) {
			match = !strcmp(line, "0:") && c1[1] == '\0';
		} else {
			for (tok = strtok_r(c1 + 1, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, ctrl))
					match = true;
		}
		if (!match)
			continue;
		err = snprintf(out, len, "%s", c2 + 1) >= (int)len ?
		      -ENAMETOOLONG : 0;
		break;
	}
	fclose(f);
	return err;
}

/*
 * The directory of the hierarchy that mnt shows (mountinfo's root field):
 * a container may see only a subtree, and /proc/self/cgroup paths are
 * relative to the hierarchy's root, not to the mount.
 */
static int mount_root(const char *mnt, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[2 * PATH_MAX];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], point[PATH_MAX];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s",
				    root, point) != 2)
			continue;
		if (strcmp(point, mnt) ||
		    (strncmp(dash, " - cgroup ", 10) &&
		     strncmp(dash, " - cgroup2 ", 11)))
			continue;
		/* The last mount of a point is the visible one. */
		err = snprintf(out, len, "%s", root) >= (int)len ?
		      -ENAMETOOLONG : 0;
	}
	fclose(f);
	return err;
}

/* Whether path is dir or below it, as path components. */
static const char *under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path;
	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path + n;
}

/*
 * Where the run parent goes in the hierarchy mounted at mnt (ctrl names
 * it in /proc/self/cgroup, NULL for v2): the caller's own cgroup, or
 * root_rel ("" for the hierarchy's root) when --root was given.
 */
static int resolve_base(const char *mnt, const char *ctrl,
			const char *root_rel, char **base,
			char *errbuf, size_t errlen)
{
	char own[PATH_MAX], mroot[PATH_MAX];
	const char *rest;
	int err;

	*base = NULL;
	if (root_rel) {
		if (asprintf(base, "%s%s%s", mnt, *root_rel ? "/" : "",
			     root_rel) < 0) {
			*base = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	err = own_cgroup(ctrl, own, sizeof(own));
	if (err) {
		errbuf_set(errbuf, errlen,
			"cannot find this process's cgroup of the %s hierarchy in /proc/self/cgroup: %s",
			ctrl ? ctrl : "v2", strerror(-err));
		return err;
	}
	if (mount_root(mnt, mroot, sizeof(mroot)))
		strcpy(mroot, "/");
	rest = under(own, mroot);
	if (!rest) {
		errbuf_set(errbuf, errlen,
			"this process's cgroup %s is outside the part of the hierarchy mounted at %s (give --root a cgroup)",
			own, mnt);
		return -ENOENT;
	}
	while (*rest == '/')
		rest++;
	if (asprintf(base, "%s%s%s", mnt, *rest ? "/" : "", rest) < 0) {
		*base = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * --root as a path relative to each hierarchy's root: relative names are
 * taken as they are; an absolute path must be in one of the cgroup mounts.
 */
static int root_relative(const struct kfeatures *kf, const char *root,
			 char *out, char *errbuf, size_t errlen)
{
	const char *best = NULL, *rest = NULL, *r;
	size_t i;

	if (root[0] != '/') {
		rest = root;
	} else {
		if (kf->cgroup_v2_mount &&
		    (r = under(root, kf->cgroup_v2_mount))) {
			best = kf->cgroup_v2_mount;
			rest = r;
		}
		for (i = 0; i < kf->nr_v1; i++) {
			r = under(root, kf->v1[i].mount);
			if (r && (!best ||
				  strlen(kf->v1[i].mount) > strlen(best))) {
				best = kf->v1[i].mount;
				rest = r;
			}
		}
		if (!best) {
			errbuf_set(errbuf, errlen,
				"--root %s is not in a cgroup file system (mounted at %s)",
				root, kf->cgroup_v2_mount ?
				kf->cgroup_v2_mount : kf->v1[0].mount);
			return -EINVAL;
		}
	}
	while (*rest == '/')
		rest++;
	if (snprintf(out, PATH_MAX, "%s", rest) >= PATH_MAX)
		return -ENAMETOOLONG;
	/* Strip trailing slashes, then the same rules as scenario paths. */
	for (i = strlen(out); i && out[i - 1] == '/'; i--)
		out[i - 1] = '\0';
	if (*out && check_rel(out, false)) {
		errbuf_set(errbuf, errlen,
			"--root %s: give a cgroup path without \".\", \"..\" or empty components",
			root);
		return -EINVAL;
	}
	return 0;
}

/*
 * Tree walking: every function below starts at a run parent (checked)
 * and never follows anything but subdirectories, which in a cgroup file
 * system are cgroups.
 */

/* Send sig (0: only count) to every process of dir and below. */
static int tree_procs(const char *dir, int sig, int depth, bool *self)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, pid;
	FILE *f;
	DIR *d;

	if (depth > MAX_DEPTH || pathf(path, "%s/cgroup.procs", dir))
		return 0;
	f = fopen(path, "re");
	if (f) {
		while (fscanf(f, "%d", &pid) == 1) {
			if (pid == getpid()) {
				*self = true;
				continue;
			}
			n++;
			if (sig)
				kill(pid, sig);
		}
		fclose(f);
	}
	d = opendir(dir);
	if (!d)
		return n;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (!pathf(path, "%s/%s", dir, de->d_name))
			n += tree_procs(path, sig, depth + 1, self);
	}
	closedir(d);
	return n;
}

/* v2: "populated 1" in cgroup.events counts the whole subtree. */
static bool v2_populated(const char *dir)
{
	char path[PATH_MAX], buf[256];

	if (pathf(path, "%s/cgroup.events", dir) ||
	    read_str(path, buf, sizeof(buf)) < 0)
		return false;
	return strstr(buf, "populated 1") != NULL;
}

/* rmdir dir and everything below it, leaves first. */
static int tree_rmdir(const char *dir, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err = 0, e;
	DIR *d;

	if (depth > MAX_DEPTH)
		return -ELOOP;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		e = pathf(path, "%s/%s", dir, de->d_name);
		if (!e)
			e = tree_rmdir(path, depth + 1);
		if (e && !err)
			err = e;
	}
	closedir(d);
	if (err)
		return err;
	if (rmdir(dir) && errno != ENOENT)
		return -errno;
	return 0;
}

/*
 * Empty and remove the run parent top within the time left since t0.
 * cgroup.kill (v2, 5.14+) kills the subtree and every fork racing with
 * it. Without it, freezing (v2, 5.2+) stops forks first; v1 has neither
 * in the run's hierarchies, so its loop relies on a fork after SIGKILL
 * failing in the parent: each round leaves only children forked before
 * their parent died, and those are found in the next one.
 */
static int tree_destroy(const char *top, bool v2, const struct timespec *t0,
			char *msg, size_t msglen)
{
	bool self = false;
	int n, err;

	if (!run_dir(top)) {
		errbuf_set(msg, msglen, "refusing to remove %s: not a run parent",
			top);
		return -EINVAL;
	}
	if (!exists(top))
		return 0;
	tree_procs(top, 0, 0, &self);
	if (self) {
		/* cgroup.kill would kill the caller too. */
		errbuf_set(msg, msglen,
			"cannot remove %s: the calling process is inside it",
			top);
		return -EBUSY;
	}
	if (v2 && write_at(top, "cgroup.kill", "1"))
		write_at(top, "cgroup.freeze", "1");
	for (;;) {
		n = tree_procs(top, SIGKILL, 0, &self);
		if (!n && !(v2 && v2_populated(top)))
			break;
		if (elapsed_ms(t0) > DESTROY_MS) {
			errbuf_set(msg, msglen,
				"%s still holds %d processes after %d s: not removed",
				top, n, DESTROY_MS / 1000);
			return -EBUSY;
		}
		sleep_ms(POLL_MS);
	}
	/* A cgroup can stay busy for a moment after its last task left. */
	while ((err = tree_rmdir(top, 0)) == -EBUSY &&
	       elapsed_ms(t0) <= DESTROY_MS)
		sleep_ms(POLL_MS);
	if (err)
		errbuf_set(msg, msglen, "cannot remove %s: %s", top,
			strerror(-err));
	return err;
}

static int add_hier(struct bench_cg *cg, const char *mnt, const char *ctrl,
		    bool v2, const char *root_rel, char *errbuf, size_t errlen)
{
	struct hier *h;
	int i, err;

	for (i = 0; i < cg->nr; i++)
		if (!strcmp(cg->h[i].mount, mnt))
			return i;
	if (cg->nr == MAX_HIER)
		return -E2BIG;
	h = &cg->h[cg->nr];
	h->mount = strdup(mnt);
	if (!h->mount)
		return -ENOMEM;
	h->v2 = v2;
	h->label = v2 ? "v2" : ctrl;
	err = resolve_base(mnt, ctrl, root_rel, &h->base, errbuf, errlen);
	if (!err && asprintf(&h->dir, "%s/" BENCH_CG_PREFIX "%d", h->base,
			     (int)getpid()) < 0) {
		h->dir = NULL;
		err = -ENOMEM;
	}
	if (err) {
		free(h->mount);
		free(h->base);
		memset(h, 0, sizeof(*h));
		return err;
	}
	return cg->nr++;
}

static int set_why(struct bench_cg *cg, enum bench_ctrl c,
		   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int set_why(struct bench_cg *cg, enum bench_ctrl c,
		   const char *fmt, ...)
{
	va_list ap;
	int n;

	cg->serve[c] = -1;
	free(cg->why[c]);
	va_start(ap, fmt);
	n = vasprintf(&cg->why[c], fmt, ap);
	va_end(ap);
	if (n < 0) {
		cg->why[c] = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Pick the hierarchy that serves each wanted controller. */
static int plan(struct bench_cg *cg, const struct kfeatures *kf,
		unsigned int need, const char *root_rel,
		char *errbuf, size_t errlen)
{
	const char *v2c = kf->v2_controllers ? kf->v2_controllers : "";
	int v2 = -1, i, c, err;
	const char *m;

	if (kf->cgroup_v2_mount) {
		v2 = add_hier(cg, kf->cgroup_v2_mount, NULL, true, root_rel,
			      errbuf, errlen);
		if (v2 < 0)
			return v2;
	}
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		const char *v1name = NULL;

		if (!(need & BENCH_NEED(c))) {
			err = set_why(cg, c, "%s: not requested",
				      ctrl_label[c]);
			if (err)
				return err;
			continue;
		}
		if (c == BENCH_CTRL_BASE && v2 >= 0) {
			cg->serve[c] = v2;
			continue;
		}
		if (c != BENCH_CTRL_BASE && v2 >= 0 && has_word(v2c, v2_name[c])) {
			/* Delegation is checked once the run parent exists. */
			cg->serve[c] = v2;
			continue;
		}
		switch (c) {
		case BENCH_CTRL_BASE:
			v1name = "cpuacct";
			break;
		case BENCH_CTRL_MEMORY:
			v1name = "memory";
			break;
		case BENCH_CTRL_CPU:
			v1name = "cpu";
			break;
		case BENCH_CTRL_IO:
			err = kfeatures__v1_mount(kf, "blkio") ?
			      set_why(cg, c, "io: blkio is on v1 (blkio.* files exist); io.stat needs the v2 io controller") :
			      set_why(cg, c, "io: no io controller in this kernel's cgroups");
			if (err)
				return err;
			continue;
		}
		m = kfeatures__v1_mount(kf, v1name);
		if (!m) {
			err = set_why(cg, c,
				      "%s: no %s controller (neither in the v2 cgroup.controllers nor mounted on v1)",
				      ctrl_label[c], v1name);
			if (err)
				return err;
			continue;
		}
		i = add_hier(cg, m, v1name, false, root_rel, errbuf, errlen);
		if (i < 0)
			return i;
		cg->serve[c] = i;
	}
	return 0;
}

/*
 * Run parents carry the owner stamp of the run that made them in a
 * trusted.* extended attribute, which only a privileged process can set:
 * a later run removes a run parent only when that stamp names a dead
 * process (or, on a kernel whose cgroup file system keeps no xattrs, when
 * the PID in its name is gone).
 */
#define STAMP_XATTR "trusted.rstat-analyze"

static int make_parent(struct hier *h, bool with_root, char *errbuf,
		       size_t errlen)
{
	char stamp[OWNER_STAMP_MAX], *dir;
	struct stat st;
	int err, n;

	/*
	 * Where another user may create cgroups (a delegated --root), the
	 * name may be taken by one of theirs: take the next free one, never
	 * theirs. One of ours under our PID (a kept tree) is refused below.
	 */
	for (n = 1; n < 100; n++) {
		if (!mkdir(h->dir, 0755)) {
			h->created = true;
			if (!owner_stamp__self(stamp, sizeof(stamp), "bench"))
				setxattr(h->dir, STAMP_XATTR, stamp,
					 strlen(stamp), 0);
			return 0;
		}
		if (errno != EEXIST || lstat(h->dir, &st) ||
		    st.st_uid == geteuid())
			break;
		if (asprintf(&dir, "%s/" BENCH_CG_PREFIX "%d.%d", h->base,
			     (int)getpid(), n) < 0) {
			errno = ENOMEM;
			break;
		}
		free(h->dir);
		h->dir = dir;
	}
	err = -errno;
	switch (err) {
	case -EACCES:
	case -EPERM:
		errbuf_set(errbuf, errlen,
			"not root: bench needs to create cgroups under %s (run as root or give --root a delegated cgroup)",
			h->base);
		break;
	case -EROFS:
		errbuf_set(errbuf, errlen,
			"the cgroup file system at %s is read-only (in a container? give --root a writable, delegated cgroup)",
			h->mount);
		break;
	case -ENOENT:
		errbuf_set(errbuf, errlen, "%s%s does not exist%s",
			with_root ? "--root: " : "", h->base,
			with_root ? " (it must exist in every hierarchy the run uses)" : "");
		break;
	case -EEXIST:
		errbuf_set(errbuf, errlen,
			"%s already exists (left by an earlier process with this PID?): remove it and retry",
			h->dir);
		break;
	default:
		errbuf_set(errbuf, errlen, "cannot create %s: %s", h->dir,
			strerror(-err));
	}
	return err;
}

/*
 * A v2 controller reaches the run parent only through the base's
 * cgroup.subtree_control. Enabling it there fails with EBUSY when the
 * base holds processes ("no internal processes"; the root is exempt),
 * which is the usual case for the caller's own cgroup: then the run
 * does without it rather than moving anybody's processes.
 */
static int delegate(struct bench_cg *cg, enum bench_ctrl c, bool with_root)
{
	const char *name = v2_name[c];
	struct hier *h = &cg->h[cg->serve[c]];
	char path[PATH_MAX], buf[512];
	const char *who = with_root ? "the --root" : "the caller's";
	int err;

	err = pathf(path, "%s/cgroup.subtree_control", h->base);
	if (!err)
		err = read_err(read_str(path, buf, sizeof(buf)));
	if (err)
		return set_why(cg, c, "%s: cannot read %s: %s", name, path,
			       strerror(-err));
	if (!has_word(buf, name)) {
		char plus[32];

		snprintf(plus, sizeof(plus), "+%s", name);
		err = write_str(path, plus);
		if (err == -EBUSY)
			return set_why(cg, c,
				       "%s: %s v2 cgroup %s does not delegate it (not in cgroup.subtree_control) and cannot, as it holds processes; give --root a cgroup without processes, e.g. --root %s",
				       name, who, h->base, h->mount);
		if (err == -ENOENT || err == -EINVAL)
			return set_why(cg, c,
				       "%s: %s v2 cgroup %s does not have it (not in its cgroup.controllers)",
				       name, who, h->base);
		if (err)
			return set_why(cg, c,
				       "%s: cannot enable it in %s: %s",
				       name, path, strerror(-err));
		add_word(cg->restore, sizeof(cg->restore), name);
	}
	snprintf(buf, sizeof(buf), "+%s", name);
	err = write_at(h->dir, "cgroup.subtree_control", buf);
	if (err)
		return set_why(cg, c,
			       "%s: cannot enable it in %s/cgroup.subtree_control: %s",
			       name, h->dir, strerror(-err));
	add_word(cg->v2_ctrls, sizeof(cg->v2_ctrls), name);
	return 0;
}

int bench_cg__new(struct bench_cg **out, const struct bench_cg_opts *o,
		  char *errbuf, size_t errlen)
{
	unsigned int need = (o ? o->need : 0) | BENCH_NEED(BENCH_CTRL_BASE);
	const char *root = o ? o->root : NULL;
	char root_rel[PATH_MAX];
	struct bench_cg *cg;
	struct kfeatures kf;
	int err, i, c;

	*out = NULL;
	errbuf_set(errbuf, errlen, "%s", "");
	err = kfeatures__probe_cgroups(&kf);
	if (err) {
		errbuf_set(errbuf, errlen, "out of memory");
		return err;
	}
	if (kf.cgroup_layout == KF_CG_NONE) {
		errbuf_set(errbuf, errlen,
			"no cgroup file system is mounted (mount cgroup2 at /sys/fs/cgroup)");
		kfeatures__free(&kf);
		return -ENOENT;
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg) {
		kfeatures__free(&kf);
		errbuf_set(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	cg->layout = kf.cgroup_layout;
	for (c = 0; c < BENCH_CTRL__NR; c++)
		cg->serve[c] = -1;

	if (root) {
		err = root_relative(&kf, root, root_rel, errbuf, errlen);
		if (err)
			goto fail;
	}
	err = plan(cg, &kf, need, root ? root_rel : NULL, errbuf, errlen);
	if (err)
		goto fail;
	for (i = 0; i < cg->nr; i++) {
		err = make_parent(&cg->h[i], root != NULL, errbuf, errlen);
		if (err)
			goto fail;
	}
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		if (cg->serve[c] < 0 || !v2_name[c] ||
		    !cg->h[cg->serve[c]].v2)
			continue;
		err = delegate(cg, c, root != NULL);
		if (err)
			goto fail;
	}
	i = cg->serve[BENCH_CTRL_MEMORY];
	if (i >= 0 && !cg->h[i].v2) {
		char path[PATH_MAX];

		cg->memsw = !pathf(path, "%s/memory.memsw.limit_in_bytes",
				   cg->h[i].dir) && exists(path);
	}
	cg->keep = o ? o->keep : false;
	kfeatures__free(&kf);
	*out = cg;
	return 0;
fail:
	if (err == -ENOMEM)
		errbuf_set(errbuf, errlen, "out of memory");
	else if (errbuf && errlen && !errbuf[0])
		errbuf_set(errbuf, errlen, "cannot set up the run's cgroups: %s",
			strerror(-err));
	/* Leave nothing behind, whatever keep says. */
	bench_cg__destroy(cg);
	bench_cg__delete(cg);
	kfeatures__free(&kf);
	return err;
}

bool bench_cg__has(const struct bench_cg *cg, enum bench_ctrl c)
{
	return cg && (unsigned int)c < BENCH_CTRL__NR && cg->serve[c] >= 0;
}

const char *bench_cg__why_not(const struct bench_cg *cg, enum bench_ctrl c)
{
	if (!cg || (unsigned int)c >= BENCH_CTRL__NR)
		return "unknown controller";
	if (cg->serve[c] >= 0)
		return "";
	return cg->why[c] ? cg->why[c] : "unavailable";
}

const char *bench_cg__layout(const struct bench_cg *cg)
{
	return kf_cgroup_layout__str(cg->layout);
}

const char *bench_cg__root(const struct bench_cg *cg, enum bench_ctrl c)
{
	if (!bench_cg__has(cg, c))
		return NULL;
	return cg->h[cg->serve[c]].dir;
}

const char *bench_cg__error(const struct bench_cg *cg)
{
	return cg ? cg->err : "";
}

/* Make sure the inner node dir hands the run's controllers down. */
static int v2_pass_down(struct bench_cg *cg, const char *dir)
{
	char path[PATH_MAX], buf[512], word[64];
	const char *p = cg->v2_ctrls;
	int err;

	if (!*p)
		return 0;
	err = pathf(path, "%s/cgroup.subtree_control", dir);
	if (!err)
		err = read_err(read_str(path, buf, sizeof(buf)));
	while (!err && *p) {
		size_t n = strcspn(p, " ");

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (!has_word(buf, word)) {
			char plus[66];

			snprintf(plus, sizeof(plus), "+%s", word);
			err = write_str(path, plus);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	if (err)
		errbuf_set(cg->err, sizeof(cg->err),
			"cannot enable %s in %s: %s%s", cg->v2_ctrls, path,
			strerror(-err), err == -EBUSY ?
			" (it holds processes: make inner cgroups before joining)" : "");
	return err;
}

int bench_cg__mkdir(struct bench_cg *cg, const char *rel)
{
	char path[PATH_MAX];
	int i, err;

	if (check_rel(rel, false))
		return -EINVAL;
	for (i = 0; i < cg->nr; i++) {
		struct hier *h = &cg->h[i];
		const char *p = rel;

		if (!h->created)
			return -ENOENT;
		for (;;) {
			size_t n = strcspn(p, "/");
			bool last = !p[n];

			err = pathf(path, "%s/%.*s", h->dir,
				    (int)(p + n - rel), rel);
			if (err)
				return err;
			if (mkdir(path, 0755) && errno != EEXIST) {
				err = -errno;
				errbuf_set(cg->err, sizeof(cg->err),
					"cannot create %s: %s", path,
					strerror(-err));
				return err;
			}
			if (last)
				break;
			if (h->v2) {
				err = v2_pass_down(cg, path);
				if (err)
					return err;
			}
			p += n + 1;
		}
	}
	return 0;
}

int bench_cg__join(struct bench_cg *cg, const char *rel, pid_t pid)
{
	char path[PATH_MAX], val[32];
	int i, err;

	if (check_rel(rel, true) || pid <= 0)
		return -EINVAL;
	snprintf(val, sizeof(val), "%d", (int)pid);
	for (i = 0; i < cg->nr; i++) {
		struct hier *h = &cg->h[i];

		if (!*rel && h->v2 && *cg->v2_ctrls) {
			errbuf_set(cg->err, sizeof(cg->err),
				"%s delegates %s, so it cannot hold processes (cgroup v2)",
				h->dir, cg->v2_ctrls);
			return -EBUSY;
		}
	}
	for (i = 0; i < cg->nr; i++) {
		struct hier *h = &cg->h[i];

		err = pathf(path, "%s%s%s/cgroup.procs", h->dir,
			    *rel ? "/" : "", rel);
		if (!err)
			err = write_str(path, val);
		if (err) {
			errbuf_set(cg->err, sizeof(cg->err),
				"cannot move %d into %s: %s", (int)pid, path,
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The v1 name of a v2 file of controller c. */
static const char *v1_file(const struct bench_cg *cg, enum bench_ctrl c,
			   const char *file)
{
	static const struct {
		enum bench_ctrl c;
		const char *v2, *v1;
	} map[] = {
		{ BENCH_CTRL_BASE, "cpu.stat", "cpuacct.stat" },
		{ BENCH_CTRL_MEMORY, "memory.max", "memory.limit_in_bytes" },
		{ BENCH_CTRL_MEMORY, "memory.current", "memory.usage_in_bytes" },
		{ BENCH_CTRL_MEMORY, "memory.peak",
		  "memory.max_usage_in_bytes" },
		{ BENCH_CTRL_CPU, "cpu.max", "cpu.cfs_quota_us" },
		{ BENCH_CTRL_CPU, "cpu.weight", "cpu.shares" },
	};
	size_t i;

	if (c == BENCH_CTRL_MEMORY && !strcmp(file, "memory.swap.max"))
		return cg->memsw ? "memory.memsw.limit_in_bytes" :
				   "memory.swappiness";
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i].c == c && !strcmp(map[i].v2, file))
			return map[i].v1;
	return file;
}

char *bench_cg__path(const struct bench_cg *cg, enum bench_ctrl c,
		     const char *rel, const char *file)
{
	const struct hier *h;
	char *path;

	if (!rel)
		rel = "";
	if (check_rel(rel, true) || check_file(file)) {
		errno = EINVAL;
		return NULL;
	}
	if (!bench_cg__has(cg, c)) {
		errno = ENODEV;
		return NULL;
	}
	h = &cg->h[cg->serve[c]];
	if (file && *file && !h->v2)
		file = v1_file(cg, c, file);
	if (asprintf(&path, "%s%s%s%s%s", h->dir, *rel ? "/" : "", rel,
		     file && *file ? "/" : "", file ? file : "") < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return path;
}

static int write_file(struct bench_cg *cg, enum bench_ctrl c,
		      const char *rel, const char *file, const char *val)
{
	char *path = bench_cg__path(cg, c, rel, file);
	int err;

	if (!path)
		return -errno;
	err = write_str(path, val);
	if (err)
		errbuf_set(cg->err, sizeof(cg->err), "cannot write \"%s\" to %s: %s",
			val, path, strerror(-err));
	free(path);
	return err;
}

static bool is_max(const char *val)
{
	return !strncmp(val, "max", 3) && (!val[3] || val[3] == '\n');
}

/* A v1 memory limit file of rel as a number (no limit is huge). */
static int v1_read_limit(struct bench_cg *cg, const char *rel,
			 const char *file, unsigned long long *v)
{
	char *path = bench_cg__path(cg, BENCH_CTRL_MEMORY, rel, file);
	char buf[64];
	ssize_t n;

	if (!path)
		return -errno;
	n = read_str(path, buf, sizeof(buf));
	free(path);
	if (n < 0)
		return n;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

#define V1_NO_LIMIT (1ULL << 62)

/*
 * v1 has no swap limit of its own: memsw limits memory + swap, so a swap
 * limit is the memory limit plus it (set memory.max first). Without memsw
 * (swapaccount=0) only "no swap" can be had, through swappiness.
 */
static int v1_swap_max(struct bench_cg *cg, const char *rel, const char *val)
{
	unsigned long long lim, swap;
	char buf[64];
	char *end;
	int err;

	if (!cg->memsw) {
		if (is_max(val))
			return write_file(cg, BENCH_CTRL_MEMORY, rel,
					  "memory.swap.max", "60");
		if (strtoull(val, &end, 10) || end == val)
			return -EOPNOTSUPP;
		return write_file(cg, BENCH_CTRL_MEMORY, rel,
				  "memory.swap.max", "0");
	}
	if (is_max(val))
		return write_file(cg, BENCH_CTRL_MEMORY, rel,
				  "memory.swap.max", "-1");
	errno = 0;
	swap = strtoull(val, &end, 10);
	if (end == val || errno)
		return -EINVAL;
	err = v1_read_limit(cg, rel, "memory.max", &lim);
	if (err)
		return err;
	/*
	 * No memory limit (PAGE_COUNTER_MAX pages): no bound to add to, but
	 * "no swap" can still be had through swappiness.
	 */
	if (lim >= V1_NO_LIMIT && !swap)
		return write_file(cg, BENCH_CTRL_MEMORY, rel,
				  "memory.swappiness", "0");
	if (lim >= V1_NO_LIMIT || lim + swap < lim)
		return -EOPNOTSUPP;
	snprintf(buf, sizeof(buf), "%llu", lim + swap);
	return write_file(cg, BENCH_CTRL_MEMORY, rel, "memory.swap.max", buf);
}

/*
 * v1 insists on memory limit <= memsw limit, so a memory.max that moves
 * the memory limit moves the memsw limit along, keeping the swap allowed
 * on top of it (what memory.swap.max set), in the order the check allows.
 */
static int v1_memory_max(struct bench_cg *cg, const char *rel,
			 const char *val)
{
	unsigned long long lim, memsw, next;
	char buf[32];
	char *end;
	int err;

	if (is_max(val)) {
		next = ~0ULL;
	} else {
		errno = 0;
		next = strtoull(val, &end, 10);
		if (end == val || errno)
			return -EINVAL;
	}
	if (!cg->memsw)
		return write_file(cg, BENCH_CTRL_MEMORY, rel, "memory.max",
				  next == ~0ULL ? "-1" : val);
	err = v1_read_limit(cg, rel, "memory.max", &lim);
	if (!err)
		err = v1_read_limit(cg, rel, "memory.swap.max", &memsw);
	if (err)
		return err;
	if (memsw >= V1_NO_LIMIT)
		return write_file(cg, BENCH_CTRL_MEMORY, rel, "memory.max",
				  next == ~0ULL ? "-1" : val);
	if (next == ~0ULL)
		snprintf(buf, sizeof(buf), "-1");
	else
		snprintf(buf, sizeof(buf), "%llu", next + (memsw - lim));
	if (next > lim) {
		err = write_file(cg, BENCH_CTRL_MEMORY, rel, "memory.swap.max",
				 buf);
		if (!err)
			err = write_file(cg, BENCH_CTRL_MEMORY, rel,
					 "memory.max",
					 next == ~0ULL ? "-1" : val);
		return err;
	}
	err = write_file(cg, BENCH_CTRL_MEMORY, rel, "memory.max", val);
	if (!err)
		err = write_file(cg, BENCH_CTRL_MEMORY, rel, "memory.swap.max",
				 buf);
	return err;
}

/* cpu.max "QUOTA|max [PERIOD]" as cfs_period_us then cfs_quota_us. */
static int v1_cpu_max(struct bench_cg *cg, const char *rel, const char *val)
{
	char quota[32], period[32];
	char *path;
	int n, err;

	n = sscanf(val, "%31s %31s", quota, period);
	if (n < 1)
		return -EINVAL;
	if (n == 2) {
		path = bench_cg__path(cg, BENCH_CTRL_CPU, rel,
				      "cpu.cfs_period_us");
		if (!path)
			return -errno;
		err = write_str(path, period);
		free(path);
		if (err)
			return err;
	}
	return write_file(cg, BENCH_CTRL_CPU, rel, "cpu.max",
			  is_max(quota) ? "-1" : quota);
}

int bench_cg__write(struct bench_cg *cg, enum bench_ctrl c, const char *rel,
		    const char *file, const char *val)
{
	char buf[32];

	if (!file || !*file || !val)
		return -EINVAL;
	if (!bench_cg__has(cg, c))
		return -ENODEV;
	if (cg->h[cg->serve[c]].v2)
		return write_file(cg, c, rel, file, val);
	if (c == BENCH_CTRL_MEMORY && !strcmp(file, "memory.swap.max"))
		return v1_swap_max(cg, rel, val);
	if (c == BENCH_CTRL_MEMORY && !strcmp(file, "memory.max"))
		return v1_memory_max(cg, rel, val);
	if (c == BENCH_CTRL_CPU && !strcmp(file, "cpu.max"))
		return v1_cpu_max(cg, rel, val);
	if (c == BENCH_CTRL_CPU && !strcmp(file, "cpu.weight")) {
		/* Both defaults (100 and 1024) map onto each other. */
		unsigned long w = strtoul(val, NULL, 10);

		if (!w)
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%lu", w * 1024 / 100 < 2 ? 2 :
			 w * 1024 / 100);
		val = buf;
	} else if (is_max(val)) {
		val = "-1";
	}
	return write_file(cg, c, rel, file, val);
}

static int64_t stat_field(const char *buf, const char *key)
{
	size_t n = strlen(key);
	const char *p = buf;

	while ((p = strstr(p, key))) {
		if ((p == buf || p[-1] == '\n') && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
		p += n;
	}
	return -1;
}

int bench_cg__counts(const struct bench_cg *cg, struct bench_cg_counts *out)
{
	char path[PATH_MAX], buf[1024], line[256], name[64];
	int i, hier, num, enabled;
	FILE *f;

	out->v2_live = out->v2_dying = out->v1_memory_cgroups = -1;
	for (i = 0; i < cg->nr; i++) {
		if (!cg->h[i].v2)
			continue;
		if (pathf(path, "%s/cgroup.stat", cg->h[i].base) ||
		    read_str(path, buf, sizeof(buf)) < 0)
			break;
		out->v2_live = stat_field(buf, "nr_descendants");
		out->v2_dying = stat_field(buf, "nr_dying_descendants");
	}
	f = fopen("/proc/cgroups", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %d %d %d", name, &hier, &num,
			   &enabled) == 4 && !strcmp(name, "memory") && hier)
			out->v1_memory_cgroups = num;
	}
	fclose(f);
	return 0;
}

int bench_cg__destroy(struct bench_cg *cg)
{
	struct timespec t0;
	int i, err, first = 0;

	if (!cg)
		return 0;
	if (cg->keep) {
		/* A kept tree is the user's: no later run may remove it. */
		for (i = 0; i < cg->nr; i++)
			if (cg->h[i].created)
				removexattr(cg->h[i].dir, STAMP_XATTR);
		return 0;
	}
	elapsed_init(&t0);
	/* v2 first: its cgroup.kill also empties the v1 trees. */
	for (i = 0; i < cg->nr; i++) {
		struct hier *h = &cg->h[i];

		if (!h->created)
			continue;
		err = tree_destroy(h->dir, h->v2, &t0,
				   first ? NULL : cg->err, sizeof(cg->err));
		if (err) {
			if (!first)
				first = err;
			continue;
		}
		h->created = false;
		/*
		 * Undo the delegation. Another run under the same base that
		 * delegates the controller further makes this fail (EBUSY),
		 * which is right: it still needs it.
		 */
		if (h->v2 && *cg->restore) {
			const char *p = cg->restore;
			char minus[66];

			while (*p) {
				size_t n = strcspn(p, " ");

				snprintf(minus, sizeof(minus), "-%.*s",
					 (int)n, p);
				write_at(h->base, "cgroup.subtree_control",
					 minus);
				p += n;
				while (*p == ' ')
					p++;
			}
			cg->restore[0] = '\0';
		}
	}
	return first;
}

void bench_cg__delete(struct bench_cg *cg)
{
	int i;

	if (!cg)
		return;
	for (i = 0; i < cg->nr; i++) {
		free(cg->h[i].mount);
		free(cg->h[i].base);
		free(cg->h[i].dir);
	}
	for (i = 0; i < BENCH_CTRL__NR; i++)
		free(cg->why[i]);
	free(cg);
}

/*
 * Whether the owner of a run parent may still be running it. Kept on the
 * safe side: killing a live run is worse than leaving a dead one, so
 * only a missing PID, or one now naming a program that cannot own runs
 * (not rstat-analyze, not one of the project's test binaries, not one of
 * the caller's name), counts as dead.
 */
static bool owner_alive(pid_t pid, const char *own_comm)
{
	char path[64], comm[64];

	if (pid == getpid())
		return true;
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (read_str(path, comm, sizeof(comm)) < 0)
		return true;
	comm[strcspn(comm, "\n")] = '\0';
	return !strncmp(comm, "rstat-analyze", 13) ||
	       !strncmp(comm, "test-", 5) || !strcmp(comm, own_comm);
}

struct stale {
	pid_t *pids;
	size_t nr, cap;
	int err;
	char *errbuf;
	size_t errlen;
	bench_cg_note_fn note;
	void *ctx;
	const char *own_comm;
};

/*
 * Whether the run parent at path is a dead run's of ours: a real
 * directory owned by our uid whose owner stamp names a process that is
 * gone. Anything else is left alone, and all but live runs are noted.
 */
static bool stale_run(const char *path, pid_t pid, struct stale *st)
{
	char stamp[OWNER_STAMP_MAX], why[96];
	struct stat sb;
	ssize_t n;
	int alive;

	if (lstat(path, &sb) || !S_ISDIR(sb.st_mode))
		return false;
	if (sb.st_uid != geteuid()) {
		snprintf(why, sizeof(why),
			 "owned by uid %u, not ours: left alone",
			 (unsigned int)sb.st_uid);
		goto note;
	}
	n = getxattr(path, STAMP_XATTR, stamp, sizeof(stamp) - 1);
	if (n < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
		return !owner_alive(pid, st->own_comm);
	if (n < 0) {
		/*
		 * A run stamps its parent just after making it: one whose
		 * PID still runs is in that window (or not ours): quietly.
		 */
		if (!kill(pid, 0) || errno != ESRCH)
			return false;
		snprintf(why, sizeof(why), "%s",
			 "no owner stamp (kept with --keep, or not ours): left alone");
		goto note;
	}
	stamp[n] = '\0';
	alive = owner_stamp__alive(stamp, "bench");
	if (alive >= 0)
		return !alive;
	snprintf(why, sizeof(why), "%s", "not a stamp of ours: left alone");
note:
	if (st->note)
		st->note(st->ctx, path, why);
	return false;
}

static int scan_stale(const char *loc, bool v2, struct stale *st)
{
	char path[PATH_MAX];
	struct timespec t0;
	struct dirent *de;
	size_t i;
	pid_t pid;
	int err;
	DIR *d;

	d = opendir(loc);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !run_name(de->d_name, &pid) ||
		    pid == getpid())
			continue;
		if (pathf(path, "%s/%s", loc, de->d_name) ||
		    !stale_run(path, pid, st))
			continue;
		elapsed_init(&t0);
		err = tree_destroy(path, v2, &t0, st->err ? NULL : st->errbuf,
				   st->errlen);
		if (err) {
			if (!st->err)
				st->err = err;
			continue;
		}
		for (i = 0; i < st->nr && st->pids[i] != pid; i++)
			;
		if (i < st->nr)
			continue;
		if (grow_array((void **)&st->pids, &st->cap, st->nr + 1,
			       sizeof(*st->pids))) {
			closedir(d);
			return -ENOMEM;
		}
		st->pids[st->nr++] = pid;
	}
	closedir(d);
	return 0;
}

int bench_cg__cleanup_stale(const char *root, unsigned int *removed,
			    bench_cg_note_fn note, void *ctx, char *errbuf,
			    size_t errlen)
{
	struct stale st = {
		.errbuf = errbuf, .errlen = errlen, .note = note, .ctx = ctx,
	};
	char root_rel[PATH_MAX], own_comm[64];
	struct {
		const char *mount, *ctrl;
		bool v2;
	} hs[64];
	struct kfeatures kf;
	size_t nh = 0, i, j;
	int err;

	*removed = 0;
	errbuf_set(errbuf, errlen, "%s", "");
	err = kfeatures__probe_cgroups(&kf);
	if (err) {
		errbuf_set(errbuf, errlen, "out of memory");
		return err;
	}
	if (kf.cgroup_layout == KF_CG_NONE)
		goto out;
	if (root) {
		err = root_relative(&kf, root, root_rel, errbuf, errlen);
		if (err)
			goto out;
	}
	if (read_str("/proc/self/comm", own_comm, sizeof(own_comm)) < 0)
		own_comm[0] = '\0';
	own_comm[strcspn(own_comm, "\n")] = '\0';
	st.own_comm = own_comm;
	if (kf.cgroup_v2_mount)
		hs[nh++] = (typeof(hs[0])){ kf.cgroup_v2_mount, NULL, true };
	for (i = 0; i < kf.nr_v1 && nh < ARRAY_SIZE(hs); i++) {
		for (j = 0; j < nh; j++)
			if (!strcmp(hs[j].mount, kf.v1[i].mount))
				break;
		if (j == nh)
			hs[nh++] = (typeof(hs[0])){ kf.v1[i].mount,
						    kf.v1[i].name, false };
	}
	for (i = 0; i < nh && !err; i++) {
		char *own = NULL, *mapped = NULL;

		/* A location that cannot be resolved has nothing of ours. */
		if (resolve_base(hs[i].mount, hs[i].ctrl, NULL, &own, NULL,
				 0) == -ENOMEM ||
		    (root && resolve_base(hs[i].mount, hs[i].ctrl, root_rel,
					  &mapped, NULL, 0) == -ENOMEM)) {
			err = -ENOMEM;
		}
		if (!err && own)
			err = scan_stale(own, hs[i].v2, &st);
		if (!err && mapped && (!own || strcmp(own, mapped)))
			err = scan_stale(mapped, hs[i].v2, &st);
		free(own);
		free(mapped);
	}
	if (err == -ENOMEM)
		errbuf_set(errbuf, errlen, "out of memory");
	else if (!err)
		err = st.err;
out:
	*removed = st.nr;
	free(st.pids);
	kfeatures__free(&kf);
	return err;
}
