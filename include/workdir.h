/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work directories and owner stamps: what the tool may create, and later
 * remove, on a machine it shares with other users.
 *
 * The tool runs as root on shared machines where any local user can write
 * /tmp and /var/tmp and plant links or directories under names the tool
 * might use. So a work directory is made with an unpredictable name under
 * a location no other user can write into (/var/lib/rstat-analyze as
 * root; $TMPDIR or /var/tmp, whose sticky bit keeps others off our
 * entries, otherwise), is used only through its descriptor, and carries an
 * owner stamp naming the process that made it. A later run removes a work
 * directory only when it is a real directory owned by its own uid, holds
 * a stamp of the same kind, and the stamped process is gone; the removal
 * never follows a link and never leaves the directory's file system.
 */
#ifndef RS_WORKDIR_H
#define RS_WORKDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * An owner stamp: "rstat-analyze <what> pid=<pid> start=<ticks>
 * boot=<boot id>". The start time (field 22 of /proc/PID/stat) and the
 * boot id tell a live owner from a recycled PID or an earlier boot.
 */
#define OWNER_STAMP_MAX 160

/* The calling process's stamp, of kind what ("bench"); 0 or -errno. */
int owner_stamp__self(char *buf, size_t len, const char *what);
/*
 * Whether the process a stamp names still runs: 1 alive, 0 gone, -EINVAL
 * when buf is not a stamp of kind what.
 */
int owner_stamp__alive(const char *buf, const char *what);

struct workdir;

/*
 * Make a work directory for what ("bench") under base, or under the
 * default location when base is NULL: /var/lib/rstat-analyze for root
 * (created 0700 if missing; it must be a real directory that only its
 * owner, root, may write), $TMPDIR (when absolute) or /var/tmp for other
 * users. An explicit base must be a real directory that no other user may
 * write into, unless it is sticky (as /tmp is). The directory is named
 * "rstat-analyze-<what>.<random>", mode 0700, with the owner stamp in its
 * file ".owner". 0 or -errno; on failure errbuf says what and where.
 */
int workdir__new(struct workdir **wdp, const char *what, const char *base,
		 char *errbuf, size_t errlen);
/* The directory's descriptor (O_DIRECTORY, O_CLOEXEC), for *at() calls. */
int workdir__fd(const struct workdir *wd);
/* Its path, for messages and for programs that need one. */
const char *workdir__path(const struct workdir *wd);
/*
 * Remove the directory and everything in it, then free wd (NULL is a
 * no-op). 0 or the first -errno; wd is freed either way.
 */
int workdir__delete(struct workdir *wd);

/* What a stale-run cleanup left alone, and why (one call per entry). */
typedef void (*workdir_note_fn)(void *ctx, const char *path,
				const char *why);

/*
 * Remove the work directories of kind what that dead runs left under base
 * (NULL: the default location), counting them in *removed. Entries under
 * our name pattern that are not provably a dead run's of ours (a link, a
 * file, another user's, no stamp, a live owner) are left alone; all but
 * live owners' are passed to note. 0, or -errno when base cannot be read
 * (a missing base is not an error).
 */
int workdir__cleanup_stale(const char *what, const char *base,
			   unsigned int *removed, workdir_note_fn note,
			   void *ctx);

/*
 * Remove name under the directory parentfd and, if it is a directory,
 * everything below it, through descriptors: links are removed, never
 * followed; a directory on another file system is not entered (-EXDEV).
 * 0 (also when name does not exist) or the first -errno.
 */
int remove_tree_at(int parentfd, const char *name);

#endif
