/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The paths of this machine's cgroups by the (hierarchy, id) pair the
 * rstat tracepoints carry (src/sym/cgroup-path.c): hierarchy 0 is the v2
 * mount, hierarchy N the v1 mount of the controllers /proc/cgroups puts
 * in N; the id is the cgroup directory's kernfs id, which
 * name_to_handle_at() returns as its file handle. A mount is walked once,
 * at its first lookup.
 */
#ifndef RS_CGROUP_PATH_H
#define RS_CGROUP_PATH_H

#include <stdint.h>

struct cgroup_paths;

/* NULL on -ENOMEM. Nothing is read before the first lookup. */
struct cgroup_paths *cgroup_paths__new(void);
void cgroup_paths__delete(struct cgroup_paths *cp);

/*
 * The path of cgroup id in hierarchy root, relative to its mount and
 * starting with '/' ("/" for the root cgroup); NULL when this machine has
 * no such cgroup now (removed, another machine, a hierarchy not mounted).
 * The string belongs to cp.
 */
const char *cgroup_paths__find(struct cgroup_paths *cp, int root,
			       uint64_t id);

/*
 * The id the rstat tracepoints give the cgroup directory path: its
 * kernfs id, an 8-byte file handle. 0, or -errno (-ENOTDIR: not a cgroup
 * directory).
 */
int cgroup_path__id(const char *path, uint64_t *id);

#endif
