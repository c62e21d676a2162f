/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench accuracy: how wrong is the memory.stat a reader gets, against a
 * truth the kernel does not batch.
 *
 * Child processes, each in a child cgroup of the run, charge and uncharge
 * a known number of pages in steps (anonymous pages written one by one,
 * page cache read from a file of their own with readahead off; page
 * cache counted back with mincore(), so that the truth is what the page
 * cache holds, not what was asked for) and publish what they hold in
 * shared memory under a sequence number, odd while a step runs
 * (seqlock). A reader in the calling process reads the parent's and every
 * child's memory.stat, takes the truth just before and just after each
 * read, and records the reported value's distance from it (anon, file,
 * their sum), the page counter (memory.current, memory.usage_in_bytes on
 * v1) against it as a second reference, and how long before the read the
 * last flush that really ran for that cgroup started (the
 * memcg:memcg_flush_stats tracepoint, v6.13+, filtered to force or
 * needs_flush, read from perf rings of its own).
 *
 * A child's own incidental charges (its stack pages broken out of
 * copy-on-write after fork, the read buffer) are not zero: they are
 * measured once, with the children paused, right after a flush that
 * covers every cgroup of the run, and subtracted as each cgroup's
 * baseline. That flush the run makes due (a "kick"): child 1 charges and
 * frees 2 x MEMCG_CHARGE_BATCH x CPUs pages outside its count, so that
 * the parent's pending updates pass the flush threshold and the next
 * read of the parent flushes the whole tree. No read from user space
 * forces a memcg flush (v6.18), and the kernel's forced one, the
 * periodic worker's, comes 2 s or later: its timer is deferrable.
 *
 * Library code: nothing is printed; errors come back as -errno with one
 * line in errbuf.
 */
#ifndef RS_BENCH_ACCURACY_H
#define RS_BENCH_ACCURACY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_results;

/* The most a child holds of each kind, in pages. */
#define ACC_MAX_PAGES 256

enum acc_kind { ACC_ANON, ACC_FILE, ACC_BOTH };

struct bench_accuracy_opts {
	unsigned int children;
	enum acc_kind kind;
	bool spread;		/* each step on the next CPU, or all on one */
	uint64_t reads;		/* rounds: the parent and each child read */
	double interval_ms;	/* between the starts of two rounds */
	double rate;		/* pages per second each child moves */
	unsigned int step;	/* pages per step, 1..ACC_MAX_PAGES */
	/*
	 * The ground truth check: before each round the children pause,
	 * child 1 makes the parent's flush due (a kick, as above) and a
	 * read of the parent flushes the tree; the error of the round's
	 * reads must then be 0.
	 */
	bool after_flush;
	int dirfd;		/* where the children's files go */
	/* Non-zero: give up with -EINTR. */
	const volatile sig_atomic_t *stop;
};

struct bench_accuracy;

/*
 * Shared memory for the children and their files (in dirfd). 0, or
 * -errno with one line in errbuf.
 */
int bench_accuracy__new(struct bench_accuracy **a,
			const struct bench_accuracy_opts *o, char *errbuf,
			size_t errlen);
/* Stops nothing: the caller stops the children first. NULL is fine. */
void bench_accuracy__delete(struct bench_accuracy *a);

/*
 * The workload of child i (0-based), for bench_proc__spawn(): it starts
 * paused and steps once bench_accuracy__settle() has its baseline.
 */
int bench_accuracy__child(void *arg);
void *bench_accuracy__child_arg(struct bench_accuracy *a, unsigned int i);

/*
 * The memory cgroup directories: cgroup 0 is the parent, 1..children the
 * children (child i - 1's). Each must have memory.stat and
 * memory.current or memory.usage_in_bytes. 0 or -errno.
 */
int bench_accuracy__set_cgroup(struct bench_accuracy *a, unsigned int i,
			       const char *dir, char *errbuf, size_t errlen);

/*
 * Once the children run: wait until they are set up, open the flush
 * watch (if the kernel has the tracepoint: *why_no_watch otherwise, a
 * static line), take the baselines right after a flush the run makes
 * due, let the children step. 0, -EINTR, -ETIMEDOUT, or -errno with
 * errbuf.
 */
int bench_accuracy__settle(struct bench_accuracy *a, const char **why_no_watch,
			   char *errbuf, size_t errlen);

/*
 * One repetition: o->reads rounds. *real_s, *user_s and *sys_s get the
 * reader's time(1) figures (this thread's rusage). 0, -EINTR, -errno.
 */
int bench_accuracy__run(struct bench_accuracy *a, double *real_s,
			double *user_s, double *sys_s, char *errbuf,
			size_t errlen);

/*
 * Why the flush watch was dropped during settle() or run() (no staleness
 * from then on), or NULL. A static line.
 */
const char *bench_accuracy__watch_lost(const struct bench_accuracy *a);

/* The last run's metrics, into the current repetition of r. */
int bench_accuracy__add_metrics(struct bench_accuracy *a,
				struct bench_results *r);

/*
 * The bound the kernel's design gives a read that did not flush, in
 * pages: MEMCG_CHARGE_BATCH (32; 64 from v6.1) x online CPUs of stat
 * updates, each changing a page statistic by a page at most; and the
 * batch itself. release is uname -r.
 */
unsigned int bench_accuracy__charge_batch(const char *release);

/* A read of the last run whose error exceeded the bound, explained. */
struct acc_over {
	uint64_t round;		/* 0-based */
	unsigned int cgroup;	/* 0 the parent, i child i */
	uint64_t error_bytes;	/* |anon + file error| */
	uint64_t stale_ns;	/* UINT64_MAX: unknown */
	const char *why;	/* static */
};
size_t bench_accuracy__nr_over(const struct bench_accuracy *a);
const struct acc_over *bench_accuracy__over(const struct bench_accuracy *a,
					    size_t i);
uint64_t bench_accuracy__bound_bytes(const struct bench_accuracy *a);

/*
 * --after-flush, last run: the reads that still differ from the truth.
 * A flush seen after a round's kick (off_flushed) means the ground truth
 * is off; a round without one (rounds_unflushed, or no flush watch at
 * all: !watched) means the read may predate the last updates. Returns
 * 1 when any read differs, else 0 (also without --after-flush).
 */
struct acc_after_flush {
	bool watched;			/* the flush watch was there */
	uint64_t rounds_unflushed;	/* no flush seen after the kick */
	uint64_t off_flushed, off_flushed_max;		/* reads, bytes */
	uint64_t off_unflushed, off_unflushed_max;
};
int bench_accuracy__after_flush(const struct bench_accuracy *a,
				struct acc_after_flush *af);

/*
 * The anon and file bytes in a memory.stat text: v2 "anon"/"file", v1
 * "total_rss"/"total_cache" (hierarchical, as v2's are). 0, or -ENOENT
 * when either is missing.
 */
int bench_accuracy__parse_stat(const char *text, uint64_t *anon,
			       uint64_t *file);

#endif
