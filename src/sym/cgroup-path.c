// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup ids to paths, on the running machine.
 *
 * The rstat tracepoints name a cgroup by hierarchy id and cgroup id, the
 * kernfs node id of its directory. That id is also the directory's file
 * handle (name_to_handle_at(), no privilege needed), so walking a
 * hierarchy's mount once gives every id a path. Nothing else in the tool
 * depends on the result: an id that stays unknown is printed as an id.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-path.h"
#include "util.h"

/* Hierarchy ids are small (one per v1 mount); 0 is v2. */
#define CG_MAX_ROOTS 64
/* Bounds for a walk: deeper or bigger trees are left partly unnamed. */
#define CG_MAX_DEPTH 32
#define CG_MAX_DIRS 200000

struct cg_ent {
	uint64_t id;
	char *path;
};

struct cg_tree {
	bool walked;
	struct cg_ent *ents;
	size_t n, cap;
};

struct cgroup_paths {
	struct cg_tree trees[CG_MAX_ROOTS];
};

struct cgroup_paths *cgroup_paths__new(void)
{
	return calloc(1, sizeof(struct cgroup_paths));
}

void cgroup_paths__delete(struct cgroup_paths *cp)
{
	size_t r, i;

	if (!cp)
		return;
	for (r = 0; r < CG_MAX_ROOTS; r++) {
		for (i = 0; i < cp->trees[r].n; i++)
			free(cp->trees[r].ents[i].path);
		free(cp->trees[r].ents);
	}
	free(cp);
}

/* The controllers /proc/cgroups puts in hierarchy root, ","-joined. */
static bool hierarchy_controllers(int root, char *buf, size_t len)
{
	char name[64];
	int hier, n, en;
	size_t used = 0;
	FILE *f = fopen("/proc/cgroups", "re");
	char line[256];

	if (!f)
		return false;
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %d %d %d", name, &hier, &n, &en) != 4 ||
		    hier != root)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s", used ? "," : "", name);
	}
	fclose(f);
	return buf[0] && used < len;
}

/* Whether every controller of want is among the mount options opts. */
static bool opts_have(const char *opts, const char *want)
{
	char copy[256], *save = NULL, *c;
	size_t len;
	const char *p;

	snprintf(copy, sizeof(copy), "%s", want);
	for (c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		len = strlen(c);
		for (p = opts; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			if (!strncmp(p, c, len) && (p[len] == ',' || !p[len]))
				break;
		if (!p)
			return false;
	}
	return true;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				    (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

/* The mount point of hierarchy root (a mount of its whole tree). */
static bool find_mount(int root, char *dir, size_t len)
{
	char ctl[256] = "", *line = NULL, *dash, mroot[4096], mpoint[4096];
	char fstype[64], opts[1024];
	bool found = false;
	size_t cap = 0;
	FILE *f;

	if (root && !hierarchy_controllers(root, ctl, sizeof(ctl)))
		return false;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		dash = strstr(line, " - ");
		if (!dash ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", mroot,
			   mpoint) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2 ||
		    strcmp(mroot, "/"))
			continue;
		if (root ? !strcmp(fstype, "cgroup") && opts_have(opts, ctl) :
		    !strcmp(fstype, "cgroup2")) {
			unescape(mpoint);
			snprintf(dir, len, "%s", mpoint);
			found = true;
		}
	}
	free(line);
	fclose(f);
	return found;
}

static int add_ent(struct cg_tree *t, uint64_t id, const char *rel)
{
	struct cg_ent *e;

	if (grow_array((void **)&t->ents, &t->cap, t->n + 1,
		       sizeof(*t->ents)))
		return -ENOMEM;
	e = &t->ents[t->n];
	e->id = id;
	e->path = strdup(*rel ? rel : "/");
	if (!e->path)
		return -ENOMEM;
	t->n++;
	return 0;
}

int cgroup_path__id(const char *path, uint64_t *id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + 64];
	} h;
	int mnt;

	h.fh.handle_bytes = 64;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(*id))
		return -ENOTDIR;	/* not a kernfs (cgroup) directory */
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/*
 * Every directory under path (len bytes of it are the mount point):
 * their ids and paths relative to the mount.
 */
static int walk(struct cg_tree *t, char *path, size_t len, size_t mlen,
		int depth)
{
	struct dirent *de;
	uint64_t id;
	size_t n;
	DIR *d;
	int err = 0;

	if (!cgroup_path__id(path, &id))
		err = add_ent(t, id, path + mlen);
	if (err || depth >= CG_MAX_DEPTH)
		return err;
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && t->n < CG_MAX_DIRS && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		n = strlen(de->d_name);
		if (len + 1 + n + 1 > 4096)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		err = walk(t, path, len + 1 + n, mlen, depth + 1);
		path[len] = '\0';
	}
	closedir(d);
	return err;
}

const char *cgroup_paths__find(struct cgroup_paths *cp, int root,
			       uint64_t id)
{
	struct cg_tree *t;
	char path[4096];
	size_t i;

	if (!cp || root < 0 || root >= CG_MAX_ROOTS)
		return NULL;
	t = &cp->trees[root];
	if (!t->walked) {
		t->walked = true;
		if (find_mount(root, path, sizeof(path)) &&
		    walk(t, path, strlen(path), strlen(path), 0))
			return NULL;
	}
	for (i = 0; i < t->n; i++)
		if (t->ents[i].id == id)
			return t->ents[i].path;
	return NULL;
}
