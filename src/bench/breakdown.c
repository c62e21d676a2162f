// SPDX-License-Identifier: GPL-2.0
/*
 * bench's read decomposition (bench-breakdown.h): the reader's pass
 * timed part by part into what the results keep.
 */
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench-breakdown.h"
#include "breakdown-table.h"
#include "util.h"

struct bench_bd_pass {
	struct breakdown *b;
	uint64_t start_ns, end_ns;
	pid_t pid;
	pthread_t poller;
	bool running;
	atomic_bool stop;
	int err;
	unsigned int hz;
	const char *hz_from;
};

static void *poll_thread(void *arg)
{
	struct bench_bd_pass *bp = arg;
	int err = 0;

	while (!err && !atomic_load(&bp->stop))
		err = breakdown__poll(bp->b, 100);
	bp->err = err;
	return NULL;
}

int bench_bd_pass__new(struct bench_bd_pass **out, char *errbuf, size_t len)
{
	struct bench_bd_pass *bp = calloc(1, sizeof(*bp));
	int err;

	*out = NULL;
	if (!bp || !(bp->b = breakdown__new())) {
		free(bp);
		errbuf_set(errbuf, len, "out of memory");
		return -ENOMEM;
	}
	err = breakdown__open(bp->b, errbuf, len);
	if (err) {
		bench_bd_pass__delete(bp);
		return err;
	}
	bp->hz = breakdown__scheduler_hz(&bp->hz_from);
	*out = bp;
	return 0;
}

int bench_bd_pass__start(struct bench_bd_pass *bp, pid_t pid, char *errbuf,
			 size_t len)
{
	sigset_t all, old;
	int err;

	err = breakdown__add_reader(bp->b, pid);
	if (err) {
		errbuf_set(errbuf, len, "BPF breakdown: the reader: %s",
			   strerror(-err));
		return err;
	}
	err = breakdown__attach(bp->b, errbuf, len);
	if (err)
		return err;
	bp->start_ns = rs_mono_ns();
	bp->pid = pid;
	/* The signals that stop a run go to the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&bp->poller, NULL, poll_thread, bp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		errbuf_set(errbuf, len, "cannot start the thread that drains the ring: %s",
			   strerror(-err));
		breakdown__detach(bp->b);
		return err;
	}
	bp->running = true;
	return 0;
}

static int join(struct bench_bd_pass *bp)
{
	if (!bp->running)
		return 0;
	atomic_store(&bp->stop, true);
	pthread_join(bp->poller, NULL);
	bp->running = false;
	return bp->err;
}

int bench_bd_pass__stop(struct bench_bd_pass *bp, char *errbuf, size_t len)
{
	int err = join(bp);

	bp->end_ns = rs_mono_ns();
	/* Detaching consumes what the ring still holds. */
	breakdown__detach(bp->b);
	if (err)
		errbuf_set(errbuf, len, "BPF breakdown: reading the ring: %s",
			   strerror(-err));
	return err;
}

void bench_bd_pass__delete(struct bench_bd_pass *bp)
{
	if (!bp)
		return;
	join(bp);
	breakdown__delete(bp->b);
	free(bp);
}

int bench_bd_pass__file(struct bench_bd_pass *bp, struct bench_breakdown *bd,
			const char *name, int fd, uint64_t user_p50,
			const uint64_t *lat, size_t nr_lat)
{
	const struct breakdown_syscall *sc;
	struct breakdown_read *reads;
	struct breakdown_table t;
	struct bench_bd_file *f;
	size_t nr_sc, nr;
	int err;

	if (bd->nr_files >= BENCH_BD_MAX_FILES)
		return -E2BIG;
	sc = breakdown__syscalls(bp->b, &nr_sc);
	/*
	 * The reader preads its files; their fds' numbers may have served
	 * a read(2) before (its wait for the start).
	 */
	err = breakdown__reads(sc, nr_sc, (uint32_t)fd, true, &reads, &nr);
	if (err)
		return err;
	err = breakdown__table(reads, nr, bp->hz, &t);
	if (err) {
		free(reads);
		return err == -EINVAL ? -ENOENT : err;
	}
	f = &bd->files[bd->nr_files++];
	bench_bd_file__from_table(f, name, &t);
	/* One record a read, in the reader's order: the counts must agree. */
	f->reader_reads = nr_lat;
	err = breakdown__entry_exit(reads, nr, lat, nr_lat, &f->entry);
	free(reads);
	if (err == -ENOMEM)
		return err;
	f->paired = !err;
	f->read_p50_ns = user_p50;
	return 0;
}

void bench_bd_pass__describe(struct bench_bd_pass *bp,
			     struct bench_breakdown *bd)
{
	bench_breakdown__describe(bd, bp->b, bp->hz, bp->hz_from);
	bd->window_start_ns = bp->start_ns;
	bd->window_end_ns = bp->end_ns;
	bd->reader_pid = bp->pid;
}
