/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup tree of one `bench` run. The run owns one directory named
 * rstat-analyze-bench-<PID> (the bench process) in every hierarchy it
 * needs: the v2 hierarchy when one is mounted, and on v1 or hybrid systems
 * the v1 hierarchy of each controller the scenario wants there (memory,
 * cpu; cpuacct for base stats when there is no v2). Scenarios name cgroups
 * by a path relative to that run parent ("c3", "l1/l2/l3") and files by
 * their v2 names; v1 names are mapped here.
 *
 * Nothing outside a run parent is ever removed, and the only file written
 * outside one is the cgroup.subtree_control of the directory the run
 * parent sits in, to delegate a v2 controller; that change is undone by
 * bench_cg__destroy().
 */
#ifndef RS_BENCH_CGROUP_H
#define RS_BENCH_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Run parents are named BENCH_CG_PREFIX "<PID>". */
#define BENCH_CG_PREFIX "rstat-analyze-bench-"

enum bench_ctrl {
	BENCH_CTRL_BASE,	/* cpu.stat base stats: v2, or v1 cpuacct */
	BENCH_CTRL_MEMORY,	/* memory.stat: v2 memory, or v1 memory */
	BENCH_CTRL_IO,		/* io.stat: the v2 io controller only */
	BENCH_CTRL_CPU,		/* v2 cpu controller, or v1 cpu */
	BENCH_CTRL__NR,
};

#define BENCH_NEED(c) (1u << (c))

struct bench_cg_opts {
	/*
	 * NULL: the run parent goes under the caller's own cgroup in each
	 * hierarchy. A relative path is taken under each hierarchy's mount
	 * point; an absolute one must lie in a cgroup file system and is
	 * mapped to the same relative path in the other hierarchies. It must
	 * exist in every hierarchy the run uses.
	 */
	const char *root;
	bool keep;		/* destroy() leaves everything for inspection */
	/* BENCH_NEED() bits the scenario wants; BASE is always included. */
	unsigned int need;
};

struct bench_cg;

/*
 * Create the run parent in each hierarchy the run needs and delegate the
 * wanted v2 controllers to it. 0, or -errno with one line in errbuf:
 * -EACCES/-EPERM (not root), -ENOENT (no cgroup file system, or --root
 * missing), -EROFS, -EEXIST (a run parent of this PID is left over),
 * -EINVAL (bad --root). On failure *cg is NULL and nothing is left.
 */
int bench_cg__new(struct bench_cg **cg, const struct bench_cg_opts *o,
		  char *errbuf, size_t errlen);

/* Whether the run has controller c, and if not, one line saying why. */
bool bench_cg__has(const struct bench_cg *cg, enum bench_ctrl c);
/* "" when bench_cg__has(); static or owned by cg otherwise. */
const char *bench_cg__why_not(const struct bench_cg *cg, enum bench_ctrl c);
/* "v2", "v1" or "hybrid". */
const char *bench_cg__layout(const struct bench_cg *cg);

/*
 * Create rel (parents first; existing directories are fine) under the run
 * parent in every hierarchy of the run. In v2, each inner node gets the
 * run's v2 controllers in its cgroup.subtree_control: -EBUSY when such a
 * node already holds processes. -EINVAL for an empty rel, an absolute
 * one, or one with ".", ".." or empty components.
 */
int bench_cg__mkdir(struct bench_cg *cg, const char *rel);

/*
 * Move pid into rel in every hierarchy of the run. "" is the run parent,
 * which cannot take processes on v2 once it delegates controllers
 * (-EBUSY).
 */
int bench_cg__join(struct bench_cg *cg, const char *rel, pid_t pid);

/*
 * The path of file (a v2 name; NULL or "" for the directory) of rel in
 * the hierarchy serving c, malloc()ed. On v1, names are mapped:
 * cpu.stat of BASE -> cpuacct.stat; memory.max -> memory.limit_in_bytes;
 * memory.swap.max -> memory.memsw.limit_in_bytes (memory.swappiness
 * without memsw); memory.current -> memory.usage_in_bytes; memory.peak ->
 * memory.max_usage_in_bytes; cpu.max -> cpu.cfs_quota_us; cpu.weight ->
 * cpu.shares. NULL (errno ENODEV) when the run does not have c, EINVAL for
 * a bad rel or file, ENOMEM.
 */
char *bench_cg__path(const struct bench_cg *cg, enum bench_ctrl c,
		     const char *rel, const char *file);

/*
 * Write val to such a file; on v1 the value is mapped too ("max" -> -1;
 * memory.swap.max N -> memsw limit = memory limit + N; cpu.max "Q P" ->
 * cfs_period_us then cfs_quota_us; cpu.weight -> shares). 0 or -errno
 * (-ENODEV: no such controller in the run, -EOPNOTSUPP: no v1 mapping).
 */
int bench_cg__write(struct bench_cg *cg, enum bench_ctrl c, const char *rel,
		    const char *file, const char *val);

/* Cgroup counts for provenance before and after a run; -1: unknown. */
struct bench_cg_counts {
	int64_t v2_live;	/* nr_descendants of the run parent's parent */
	int64_t v2_dying;	/* nr_dying_descendants of the same */
	/* num_cgroups of memory in /proc/cgroups (v1 memory only) */
	int64_t v1_memory_cgroups;
};
int bench_cg__counts(const struct bench_cg *cg, struct bench_cg_counts *out);

/*
 * Kill every process in the run's trees (cgroup.kill on v2 where the
 * kernel has it, else freeze where possible and SIGKILL until empty),
 * wait until they are empty (about 5 s at most), remove them leaf first
 * in every hierarchy and undo the delegation bench_cg__new() did. With
 * keep, does nothing. 0, or -EBUSY (see bench_cg__error()) with what is
 * left still recorded, so that a later call retries; once everything is
 * gone, further calls return 0. NULL is fine.
 */
int bench_cg__destroy(struct bench_cg *cg);
/* Free cg (NULL is fine); does not destroy the tree. */
void bench_cg__delete(struct bench_cg *cg);

/* The last error of destroy(), mkdir(), join() or write(), or "". */
const char *bench_cg__error(const struct bench_cg *cg);

/* The run parent in the hierarchy serving c (for messages), or NULL. */
const char *bench_cg__root(const struct bench_cg *cg, enum bench_ctrl c);

/* A run parent that a stale-run cleanup left alone, and why. */
typedef void (*bench_cg_note_fn)(void *ctx, const char *path,
				 const char *why);

/*
 * Remove the run parents of dead runs found under the caller's cgroup in
 * every hierarchy and under root (as in bench_cg_opts; NULL: none). A run
 * parent is a dead run's when it is a directory owned by the caller's uid
 * whose owner stamp (include/workdir.h; set by bench_cg__new() in the
 * trusted.rstat-analyze xattr) names a process that is gone. Where the
 * cgroup file system keeps no xattrs, the PID in the name decides: gone,
 * or now naming a process that cannot own a run (its comm is not
 * rstat-analyze*, test-* (the unit tests) or the caller's own). The
 * caller's own PID is never stale. A run parent without a stamp (kept
 * with --keep, or made by another tool or version) or of another uid is
 * left alone and passed to note (NULL: none). Their processes are killed
 * first. *removed gets the number of runs (PIDs) removed. 0 or -errno
 * with one line in errbuf; the other stale runs are still handled after
 * an error.
 */
int bench_cg__cleanup_stale(const char *root, unsigned int *removed,
			    bench_cg_note_fn note, void *ctx, char *errbuf,
			    size_t errlen);

#endif
