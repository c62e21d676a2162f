/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bench workloads: forked processes that wait until the caller has
 * moved them into their cgroup, then run one workload function each.
 *
 * A child is stopped (blocked reading a pipe) from fork until
 * bench_proc__start(), so that none of its work is charged to the
 * caller's cgroup. Children die with the process that forked them
 * (PR_SET_PDEATHSIG SIGKILL; fork from the thread that stays alive, as
 * the death signal follows the forking thread), so a SIGKILLed bench
 * leaves no workload behind. They start with SIGTERM and SIGINT at their
 * default action, whatever the caller installed.
 *
 * Workload functions run in the child and return its exit status: 0, or
 * an errno value. Those without a count loop until SIGTERM.
 */
#ifndef RS_BENCH_WORKLOAD_H
#define RS_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct bench_proc;

/*
 * Fork a child that waits until bench_proc__start(), then runs fn(arg)
 * and _exit()s with its return value. NULL and errno set on failure.
 */
struct bench_proc *bench_proc__spawn(int (*fn)(void *arg), void *arg);
pid_t bench_proc__pid(const struct bench_proc *p);
/* Let it run; its real time is measured from here. 0 or -errno. */
int bench_proc__start(struct bench_proc *p);
/*
 * Wait for a started child to end by itself: status as waitpid() gives
 * it, the child's rusage (its own and its reaped children's) and the real
 * time since bench_proc__start(); any pointer may be NULL. Once reaped,
 * gives the same figures again. -EINVAL when never started (it would
 * wait for ever), -EINTR when a signal interrupted the wait (call again
 * to go on waiting), else 0 or -errno.
 */
int bench_proc__wait(struct bench_proc *p, int *status, struct rusage *ru,
		     double *real_s);
/*
 * Reap a started child if it has ended, without waiting: 0 when it has
 * (bench_proc__wait() then gives its figures at once), 1 when it still
 * runs, or -errno.
 */
int bench_proc__poll(struct bench_proc *p);
/*
 * Stop it, started or not (SIGTERM, then SIGKILL after 1 s), and reap
 * it; the figures stay available to bench_proc__wait(). Idempotent.
 * 0 or -errno.
 */
int bench_proc__stop(struct bench_proc *p);
/* Stops it if still running, then frees it. */
void bench_proc__delete(struct bench_proc *p);
/*
 * Stop n children at once: SIGTERM to all, a second for all of them to
 * exit, then SIGKILL to all that did not and reap them. A child at a time
 * would cost a second each, and children asleep in the kernel (fadvise's
 * lru_add_drain_all) wait out their sleeps one after the other instead of
 * together. Idempotent; the figures stay available.
 */
void bench_proc__stop_all(struct bench_proc **procs, size_t n);
/*
 * Hold the started, unreaped children of n still (SIGSTOP), or let them
 * go on (SIGCONT, also what bench_proc__stop*() send after SIGTERM).
 */
void bench_proc__hold_all(struct bench_proc **procs, size_t n, bool hold);

/*
 * Zeroed memory shared with the children forked after it is allocated
 * (MAP_SHARED | MAP_ANONYMOUS): where they leave their results. NULL and
 * errno set on failure.
 */
void *bench_shared__alloc(size_t size);
void bench_shared__free(void *p, size_t size);

/* Busy loop: CPU time only, i.e. base (cpu.stat) updates. */
int wl_cpu_spin(void *arg);

/*
 * Memory churn, for memcg statistics updates. anon: mmap anon_bytes, write
 * every page (one fault and one charge each), munmap (the uncharges).
 * pagecache: read file_bytes of file (a name under the directory dirfd,
 * or AT_FDCWD) from offset 0, then drop its pages
 * (POSIX_FADV_DONTNEED) so that the next pass charges them again. The
 * file is meant to be a large sparse one (bench_sparse_file()) on a disk
 * filesystem: on tmpfs reading a hole maps the zero page and charges
 * nothing. Both, in turn, when both are set.
 */
struct wl_memory {
	size_t anon_bytes;
	int dirfd;
	const char *file;
	size_t file_bytes;
	bool anon, pagecache;
};
int wl_memory_churn(void *arg);

/*
 * Create (or truncate) name under the directory dirfd (or AT_FDCWD) as a
 * sparse file of bytes, never through a link. 0 or -errno.
 */
int bench_sparse_file(int dirfd, const char *name, size_t bytes);

/*
 * The stat file reader. Opens each file once, then reads each file
 * `reads` times; one read is what cat does: pread() from offset 0 until
 * end of file (a seq_file, which every cgroup stat file is, formats its
 * content again on a read at offset 0: no reopening, no lseek), timed
 * with CLOCK_MONOTONIC around the whole file.
 *
 * interleave: round r reads every file once, in order, and its times go
 * to lat_ns[r * nr_files + f]; otherwise (discrete) all reads of file 0
 * first, then file 1..., in lat_ns[f * reads + r]. lat_ns (reads *
 * nr_files slots), done and err are shared memory: *done counts the
 * complete file reads, *err is the first error (an errno value, and the
 * read that failed is not counted), 0 if none.
 */
struct wl_reader {
	char **files;
	unsigned int nr_files;
	uint64_t reads;
	bool interleave;
	uint64_t *lat_ns;
	uint64_t *done;
	int *err;
	int *fds;	/* if not NULL: the fds it read each file through */
};
int wl_reader(void *arg);

/*
 * Charge a little page cache to the cgroup the process runs in, then exit
 * (many-cgroups scenario): writes bytes to file under the directory dirfd
 * (or AT_FDCWD), created or truncated, never through a link; it should be
 * this process's own. New page cache pages are charged
 * to the writer's memcg and stay charged after it exits, as long as the
 * file is kept and its pages cached.
 */
struct wl_charge {
	int dirfd;
	const char *file;
	size_t bytes;
};
int wl_charge(void *arg);

/*
 * perf bench sched pipe: forks a partner (it inherits the cgroup), the
 * two pass an int back and forth over two pipes round_trips times, and
 * the first writes the elapsed seconds to *seconds (shared).
 */
struct wl_pipe {
	uint64_t round_trips;
	double *seconds;
};
int wl_pipe_pingpong(void *arg);

/*
 * will-it-scale's page_fault2: map bytes of a private file-backed mapping
 * (a memfd), write one byte per page (a fault and a charge each), unmap,
 * again, until *stop (may be NULL) or SIGTERM. Adds the pages of each
 * finished pass to *faults (shared, atomically). bytes is rounded down to
 * pages, at least one.
 */
struct wl_fault {
	size_t bytes;
	uint64_t *faults;
	volatile int *stop;
};
int wl_fault(void *arg);

/*
 * What timing a read costs: 1M back-to-back CLOCK_MONOTONIC pairs, the
 * smallest and the median difference. 0 or -errno.
 */
int bench_timer_overhead(uint64_t *ns_min, uint64_t *ns_median);

#endif
