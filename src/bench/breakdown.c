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
#include <time.h>

#include "bench-breakdown.h"
#include "breakdown-table.h"
#include "rules.h"
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
	bp->start_ns = mono_ns();
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

	bp->end_ns = mono_ns();
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

static void row_from(struct bench_bd_row *out, const struct breakdown_row *in)
{
	int q;

	memset(out, 0, sizeof(*out));
	out->share = in->share;
	out->sum_ns = in->sum;
	for (q = 0; q < BD_NR_Q; q++) {
		out->q[q] = in->q[q];
		if (in->notes[q] & BD_NOTE_TICKS)
			snprintf(out->note[q], sizeof(out->note[q]),
				 "%u tick%s", in->ticks[q],
				 in->ticks[q] > 1 ? "s" : "");
		if (in->notes[q] & BD_NOTE_OFF) {
			size_t l = strlen(out->note[q]);

			snprintf(out->note[q] + l, sizeof(out->note[q]) - l,
				 "%soff-CPU", l ? ", " : "");
		}
	}
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
	int err, p;

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
	memset(f, 0, sizeof(*f));
	/* One record a read, in the reader's order: the counts must agree. */
	f->reader_reads = nr_lat;
	err = breakdown__entry_exit(reads, nr, lat, nr_lat, &f->entry);
	free(reads);
	if (err == -ENOMEM)
		return err;
	f->paired = !err;
	snprintf(f->file, sizeof(f->file), "%s", name);
	f->reads = t.reads;
	f->off_most = t.off_most;
	f->tail_off_ns = t.tail_off_ns;
	f->read_p50_ns = user_p50;
	row_from(&f->total, &t.total);
	for (p = 0; p < BD_PART__NR; p++) {
		row_from(&f->part[p], &t.part[p]);
		f->part[p].calls = t.calls[p];
	}
	f->total.calls = t.reads;
	return 0;
}

/* The callbacks outside the reads by who flushed (none if unknown). */
static void describe_outside(struct bench_bd_pass *bp,
			     struct bench_breakdown *bd)
{
	struct breakdown_outside *o;
	struct classifier *cls;
	struct rules *rules;
	size_t n, i;

	if (breakdown__outside_by(bp->b, &o, &n))
		return;
	rules = rules__new();
	cls = rules ? classifier__new(rules) : NULL;
	for (i = 0; cls && i < n; i++) {
		struct rs_stack_class c;
		int t = RS_TRIG_NONE;

		/* Who flushed: the outermost trigger frame of its stack. */
		if (o[i].nr_frames &&
		    !classifier__classify(cls, o[i].frames, o[i].nr_frames,
					  &c))
			t = c.trigger;
		if (o[i].part < 0 || o[i].part >= BD_PART__NR ||
		    t < RS_TRIG_NONE || t >= RS_TRIG__NR)
			continue;
		bd->outside_trig_calls[o[i].part][t + 1] += o[i].calls;
		bd->outside_trig_ns[o[i].part][t + 1] += o[i].ns;
	}
	classifier__delete(cls);
	rules__delete(rules);
	free(o);
}

void bench_bd_pass__describe(struct bench_bd_pass *bp,
			     struct bench_breakdown *bd)
{
	const struct breakdown_source *s;
	int p;

	snprintf(bd->method, sizeof(bd->method), "%s",
		 breakdown__method(bp->b));
	bd->hz = bp->hz;
	snprintf(bd->hz_from, sizeof(bd->hz_from), "%s", bp->hz_from);
	for (p = 0; p < BD_PART__NR; p++) {
		s = breakdown__source(bp->b, p);
		snprintf(bd->untimed[p], sizeof(bd->untimed[p]), "%s",
			 s->timed ? "" : s->why);
		snprintf(bd->how[p], sizeof(bd->how[p]), "%s",
			 s->timed ? s->how : "");
		breakdown__outside(bp->b, p, &bd->outside_calls[p],
				   &bd->outside_ns[p]);
	}
	breakdown__losses(bp->b, &bd->lost, &bd->broken);
	breakdown__skipped(bp->b, &bd->skips);
	bd->window_start_ns = bp->start_ns;
	bd->window_end_ns = bp->end_ns;
	bd->reader_pid = bp->pid;
	describe_outside(bp, bd);
}
