// SPDX-License-Identifier: GPL-2.0
/*
 * perf_data__process(): the records read on the caller's thread, or with
 * perf_data__set_threads(pd, 2+) on two. The reader core (data-process.c)
 * knows nothing of threads: it calls pd->drain, set here, before the
 * records that change what a callback reads through pd.
 *
 * perf.data reading on two threads: one reads, decodes and orders the
 * records (perf_data__process() as ever, with a callback that copies each
 * event into a batch), the caller's thread runs the real callback on the
 * batches, in the same order. What the callback sees is what it would
 * have seen on one thread, so the output cannot depend on -j.
 *
 * Events point into the record they came from (callchain, raw data,
 * comm, file name), which the reader gives back or reuses once it has
 * delivered it: a batch holds copies. State that callbacks read through
 * the perf_data (event names and attrs, the header, tracing data) only
 * changes at the records that carry it; before handling one, the reader
 * waits until the callback has seen every event delivered so far.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "data-int.h"

/* Batches in flight, events and bytes of copied data in each. */
#define PL_BATCHES	8
#define PL_EVENTS	1024
/* Room for the largest record (a u16 size), twice over. */
#define PL_BYTES	(256u << 10)
/* How far ahead of the callback the lookahead runs, in events. */
#define PL_AHEAD	8

struct pl_batch {
	struct rs_event ev[PL_EVENTS];
	uint32_t nr;
	size_t used;
	uint8_t *data;		/* PL_BYTES */
};

struct pd_pipeline {
	struct perf_data *pd;
	rs_event_fn fn;		/* the caller's callback */
	rs_event_fn ahead;	/* perf_data__set_lookahead()'s, or NULL */
	void *ctx;

	pthread_mutex_t lock;
	pthread_cond_t filled;	/* a batch was published, or done */
	pthread_cond_t freed;	/* a batch was consumed, or stop */
	struct pl_batch *b[PL_BATCHES];
	uint32_t fill;		/* the batch the reader fills (its own) */
	uint32_t head;		/* next batch to consume */
	uint32_t count;		/* published, not yet consumed */
	bool done;		/* the reader has published its last batch */
	bool stop;		/* the consumer failed: stop reading */
	/*
	 * The reader, out of batches, looks for idle work (pd->idle) and
	 * waits: waiting is read without the lock by perf_data__kick(),
	 * which sets kicked under it.
	 */
	bool waiting;
	bool kicked;
	int reader_ret;		/* perf_data__process() in the reader */
	/* pl_pin(): whether to, the consumer kept to one CPU, its CPUs */
	bool may_pin, pinned;
	pthread_t consumer;
	cpu_set_t before;
};

/*
 * With pl->lock held, the batches all full: run a piece of the
 * consumer's idle work, true when one ran or may be waiting (look
 * again), false when there was none. The lock is let go meanwhile.
 * Waiting is set before looking, so that a consumer that hands work
 * over after the look sees it and kicks.
 */
static bool pl_idle(struct pd_pipeline *pl)
{
	bool ran;

	if (!pl->pd->idle)
		return false;
	pl->kicked = false;
	__atomic_store_n(&pl->waiting, true, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&pl->lock);
	ran = pl->pd->idle(pl->ctx);
	pthread_mutex_lock(&pl->lock);
	return ran || pl->kicked;
}

void perf_data__kick(struct perf_data *pd)
{
	struct pd_pipeline *pl = pd->pipeline;

	if (!pl || !__atomic_load_n(&pl->waiting, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&pl->lock);
	pl->kicked = true;
	pthread_cond_signal(&pl->freed);
	pthread_mutex_unlock(&pl->lock);
}

/*
 * Where the process may run on two CPUs and no more (a small VM, or
 * taskset), the two threads take one each once the consumer is the one
 * that bounds the run (the reader's batches are all full for the first
 * time): the scheduler puts a woken thread on its waker's CPU when it
 * can, so the reader, woken as batches were given back, kept taking the
 * consumer's CPU from it (about 150 times, 4 ms, in a run of 86 ms on
 * the compile recording). Not from the start: the symbol loaders run
 * then, and a reader kept to a CPU they share left the consumer waiting
 * for its first batches on the other. With more CPUs a woken thread
 * finds an idle one: both are left to the scheduler. With more threads
 * (-j 3) too: the fold's own thread, made by the consumer, would
 * inherit its one CPU. The reader's side; the consumer gives its CPUs
 * back after the join.
 */
static void pl_pin(struct pd_pipeline *pl)
{
	int cpu = sched_getcpu(), k;
	cpu_set_t one;

	pl->may_pin = false;
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &pl->before))
		return;
	for (k = 0; k < CPU_SETSIZE; k++)
		if (k != cpu && CPU_ISSET(k, &pl->before))
			break;
	if (k == CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
		return;
	CPU_ZERO(&one);
	CPU_SET(k, &one);
	pl->pinned = !pthread_setaffinity_np(pl->consumer, sizeof(one), &one);
	/* Both or neither: the reader alone kept off nothing. */
	if (!pl->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(pl->before),
				       &pl->before);
}

/* Hand the batch being filled to the consumer; false when told to stop. */
static bool pl_publish(struct pd_pipeline *pl)
{
	struct pl_batch *cur = pl->b[pl->fill];
	bool go;

	pthread_mutex_lock(&pl->lock);
	if (cur->nr) {
		pl->count++;
		pl->fill = (pl->fill + 1) % PL_BATCHES;
		pthread_cond_signal(&pl->filled);
	}
	/*
	 * Fewer than half the batches waiting: the consumer keeps up, and
	 * the reader is the one to spare. The next batch's callchains are
	 * hashed by the consumer (pl_complete()), until the consumer falls
	 * behind again; the hashes are the same whoever takes them.
	 */
	pl->pd->defer_chain_hash = pl->count < PL_BATCHES / 2;
	/*
	 * The next batch to fill must be free. pl_idle() lets go of the
	 * lock: what the consumer freed meanwhile is looked at again
	 * before waiting, as its signal came before the wait.
	 */
	if (pl->count == PL_BATCHES && pl->may_pin)
		pl_pin(pl);
	while (pl->count == PL_BATCHES && !pl->stop)
		if (!pl_idle(pl) && pl->count == PL_BATCHES && !pl->stop)
			pthread_cond_wait(&pl->freed, &pl->lock);
	__atomic_store_n(&pl->waiting, false, __ATOMIC_RELAXED);
	go = !pl->stop;
	pthread_mutex_unlock(&pl->lock);
	if (go) {
		cur = pl->b[pl->fill];
		cur->nr = 0;
		cur->used = 0;
	}
	return go;
}

/*
 * Copy n bytes keeping their alignment modulo 8, so that a consumer that
 * reads them in place (tracepoint fields) finds them as the record had
 * them.
 */
static const void *pl_copy(struct pl_batch *b, const void *src, size_t n)
{
	size_t at = (b->used + 7) & ~(size_t)7;
	uint8_t *dst;

	at += (uintptr_t)src & 7;
	dst = b->data + at;
	memcpy(dst, src, n);
	b->used = at + n;
	return dst;
}

static size_t pl_need(const struct rs_event *ev)
{
	switch (ev->kind) {
	case RS_EV_SAMPLE:
		return ev->sample.nr_callchain * 8 + ev->sample.raw_size +
		       ev->sample.nr_branches * 24 + 3 * 16;
	case RS_EV_COMM:
		return strlen(ev->comm.comm) + 1 + 16;
	case RS_EV_MMAP:
		return strlen(ev->mmap.filename) + 1 + 16;
	case RS_EV_KSYMBOL:
		return strlen(ev->ksymbol.name) + 1 + 16;
	default:
		return 0;
	}
}

/*
 * The batch entry a sample is decoded into (pd->event_slot): not yet
 * counted, so nothing reads it until pl_put() takes it. NULL when told
 * to stop.
 */
static struct rs_event *pl_slot(struct perf_data *pd)
{
	struct pd_pipeline *pl = pd->pipeline;
	struct pl_batch *b = pl->b[pl->fill];

	if (b->nr == PL_EVENTS) {
		if (!pl_publish(pl))
			return NULL;
		b = pl->b[pl->fill];
	}
	return &b->ev[b->nr];
}

/*
 * The reader's callback: the event, deep-copied into the current batch.
 * A sample decoded in its batch entry (pl_slot()) is already there,
 * unless its data did not fit: it then moves to the next batch (its
 * old entry, past the published count, is read by no one).
 */
static int pl_put(void *arg, const struct rs_event *ev)
{
	struct pd_pipeline *pl = arg;
	struct pl_batch *b = pl->b[pl->fill];
	size_t need = pl_need(ev);
	struct rs_event *e;

	/* A record is at most 64 KiB: this cannot be. */
	if (need > PL_BYTES)
		return -E2BIG;
	if (b->nr == PL_EVENTS || PL_BYTES - b->used < need) {
		if (!pl_publish(pl))
			return -ECANCELED;
		b = pl->b[pl->fill];
	}
	e = &b->ev[b->nr++];
	if (e != ev)
		*e = *ev;
	switch (ev->kind) {
	case RS_EV_SAMPLE: {
		const struct rs_sample *s = &ev->sample;

		if (s->nr_callchain)
			e->sample.callchain = pl_copy(b, s->callchain,
						      s->nr_callchain * 8);
		if (s->raw_size)
			e->sample.raw = pl_copy(b, s->raw, s->raw_size);
		if (s->nr_branches)
			e->sample.branches = pl_copy(b, s->branches,
						     s->nr_branches * 24);
		break;
	}
	case RS_EV_COMM:
		e->comm.comm = pl_copy(b, ev->comm.comm,
				       strlen(ev->comm.comm) + 1);
		break;
	case RS_EV_MMAP:
		e->mmap.filename = pl_copy(b, ev->mmap.filename,
					   strlen(ev->mmap.filename) + 1);
		break;
	case RS_EV_KSYMBOL:
		e->ksymbol.name = pl_copy(b, ev->ksymbol.name,
					  strlen(ev->ksymbol.name) + 1);
		break;
	default:
		break;
	}
	return 0;
}

/* Wait until the callback has seen every event delivered (0), or stop. */
static int pd_pipeline_drain(struct perf_data *pd)
{
	struct pd_pipeline *pl = pd->pipeline;
	bool go;

	if (!pl)
		return 0;
	if (!pl_publish(pl))
		return -ECANCELED;
	pthread_mutex_lock(&pl->lock);
	while (pl->count && !pl->stop)
		pthread_cond_wait(&pl->freed, &pl->lock);
	go = !pl->stop;
	pthread_mutex_unlock(&pl->lock);
	return go ? 0 : -ECANCELED;
}

static void *pl_reader(void *arg)
{
	struct pd_pipeline *pl = arg;
	int ret;

	ret = pd_process(pl->pd, pl_put, pl);
	/* What was delivered before an error is still the callback's. */
	if (ret != -ECANCELED && !pl_publish(pl) && !ret)
		ret = -ECANCELED;
	pthread_mutex_lock(&pl->lock);
	pl->reader_ret = ret;
	pl->done = true;
	pthread_cond_signal(&pl->filled);
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

/* What the reader left to the consumer, done before anyone reads it. */
static inline struct rs_event *pl_complete(struct rs_event *ev)
{
	if (ev->kind == RS_EV_SAMPLE && ev->sample.nr_callchain &&
	    !ev->sample.has_chain_hash)
		pd_sample_hash_chain(&ev->sample);
	return ev;
}

/* The caller's side: run the callback on each batch as it comes. */
static int pl_consume(struct pd_pipeline *pl)
{
	struct pl_batch *b;
	uint32_t i;
	int err = 0;

	for (;;) {
		pthread_mutex_lock(&pl->lock);
		while (!pl->count && !pl->done)
			pthread_cond_wait(&pl->filled, &pl->lock);
		if (!pl->count) {
			pthread_mutex_unlock(&pl->lock);
			return 0;
		}
		b = pl->b[pl->head];
		pthread_mutex_unlock(&pl->lock);

		if (pl->ahead)
			for (i = 0; i < PL_AHEAD && i < b->nr; i++)
				pl->ahead(pl->ctx, pl_complete(&b->ev[i]));
		for (i = 0; i < b->nr && !err; i++) {
			if (pl->ahead && i + PL_AHEAD < b->nr)
				pl->ahead(pl->ctx,
					  pl_complete(&b->ev[i + PL_AHEAD]));
			err = pl->fn(pl->ctx, pl_complete(&b->ev[i]));
		}

		pthread_mutex_lock(&pl->lock);
		pl->head = (pl->head + 1) % PL_BATCHES;
		pl->count--;
		if (err)
			pl->stop = true;
		pthread_cond_signal(&pl->freed);
		pthread_mutex_unlock(&pl->lock);
		if (err)
			return err;
	}
}

static void pl_free(struct pd_pipeline *pl)
{
	uint32_t i;

	for (i = 0; i < PL_BATCHES; i++) {
		if (pl->b[i])
			free(pl->b[i]->data);
		free(pl->b[i]);
	}
	free(pl);
}

/*
 * 1 and the result when the records were read on a thread of their own;
 * 0 when that could not be set up (no memory, no thread), nothing done.
 */
static int pd_pipeline_run(struct perf_data *pd, rs_event_fn fn, void *ctx,
			   int *result)
{
	struct pd_pipeline *pl = calloc(1, sizeof(*pl));
	char err_before[sizeof(pd->err)];
	pthread_t reader;
	uint32_t i;
	int err;

	if (!pl)
		return 0;
	for (i = 0; i < PL_BATCHES; i++) {
		pl->b[i] = calloc(1, sizeof(*pl->b[i]));
		if (!pl->b[i] || !(pl->b[i]->data = malloc(PL_BYTES))) {
			pl_free(pl);
			return 0;
		}
	}
	pl->pd = pd;
	pl->fn = fn;
	pl->ahead = pd->ahead;
	pl->ctx = ctx;
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->filled, NULL);
	pthread_cond_init(&pl->freed, NULL);
	memcpy(err_before, pd->err, sizeof(err_before));
	pd->pipeline = pl;
	pd->drain = pd_pipeline_drain;
	pd->event_slot = pl_slot;
	pl->consumer = pthread_self();
	pl->may_pin = pd->nr_threads == 2 &&
		      !pthread_getaffinity_np(pl->consumer, sizeof(pl->before),
					      &pl->before) &&
		      CPU_COUNT(&pl->before) == 2;
	if (pthread_create(&reader, NULL, pl_reader, pl)) {
		pd->pipeline = NULL;
		pd->drain = NULL;
		pd->event_slot = NULL;
		pl_free(pl);
		return 0;
	}
	err = pl_consume(pl);
	pthread_join(reader, NULL);
	/* The sort after, and threads made then, have both CPUs again. */
	if (pl->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(pl->before),
				       &pl->before);
	pd->pipeline = NULL;
	pd->drain = NULL;
	pd->event_slot = NULL;
	if (err) {
		/*
		 * The callback failed on an event delivered before anything
		 * the reader found wrong further on: on one thread the
		 * reader would not have got there.
		 */
		memcpy(pd->err, err_before, sizeof(pd->err));
	} else {
		err = pl->reader_ret;
	}
	pthread_cond_destroy(&pl->freed);
	pthread_cond_destroy(&pl->filled);
	pthread_mutex_destroy(&pl->lock);
	pl_free(pl);
	*result = err;
	return 1;
}

int perf_data__process(struct perf_data *pd, rs_event_fn fn, void *ctx)
{
	int ret;

	if (pd->processed)
		return pd_err_errno(pd, -EALREADY, 0, "data already processed");
	pd->processed = true;
	if (fn && pd->nr_threads > 1 && pd_pipeline_run(pd, fn, ctx, &ret))
		return ret;
	return pd_process(pd, fn, ctx);
}

void perf_data__set_threads(struct perf_data *pd, unsigned int n)
{
	pd->nr_threads = n;
}

void perf_data__set_lookahead(struct perf_data *pd, rs_event_fn ahead)
{
	pd->ahead = ahead;
}

void perf_data__set_idle(struct perf_data *pd, bool (*idle)(void *ctx))
{
	pd->idle = idle;
}
