// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader's ordering queue, perf's ordered_events kept apart
 * as perf keeps ordered-events.c: records with a timestamp are queued
 * (copied, when the buffer they were read into will not last), sorted by
 * time (stable: file order for equal times) and handed back to the
 * reader's pd->deliver() up to a time; a queue past its memory bound
 * delivers its older half early. Which records are queued, and when the
 * queue is flushed, is the reader's (data-process.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "data-int.h"
#include "util.h"

/*
 * Records that must outlive the buffer they were read into (stream,
 * decompressed) are copied into chunks. Each chunk counts the queued
 * records in it and is freed when that drops to zero, so a record that
 * stays queued across rounds is copied once, not at every flush.
 */
static bool arena_has_room(const struct perf_data *pd, size_t n)
{
	return pd->arena && pd->arena->size - pd->arena->used >= n;
}

/* Chunks double up to ARENA_CHUNK as the queue proves busy. */
static size_t arena_next_size(const struct perf_data *pd, size_t n)
{
	size_t sz = pd->arena ? pd->arena->size * 2 : ARENA_FIRST;

	if (sz > ARENA_CHUNK)
		sz = ARENA_CHUNK;
	return sz < n ? n : sz;
}

static void *arena_alloc(struct perf_data *pd, size_t n,
			 struct pd_chunk **chunk)
{
	struct pd_chunk *c = pd->arena;
	void *p;

	if (!arena_has_room(pd, n)) {
		size_t sz = arena_next_size(pd, n);

		c = malloc(sizeof(*c) + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		c->live = 0;
		c->next = pd->arena;
		pd->arena = c;
		pd->arena_bytes += sz;
	}
	p = c->data + c->used;
	c->used += (n + 7) & ~(size_t)7;
	if (c->used > c->size)
		c->used = c->size;
	c->live++;
	*chunk = c;
	return p;
}

/* Free the chunks no queued record is in; an empty newest one is reused. */
static void arena_sweep(struct perf_data *pd)
{
	struct pd_chunk **pp = &pd->arena, *c;

	while ((c = *pp)) {
		if (c->live) {
			pp = &c->next;
		} else if (c == pd->arena) {
			c->used = 0;
			pp = &c->next;
		} else {
			*pp = c->next;
			pd->arena_bytes -= c->size;
			free(c);
		}
	}
}

static void arena_free(struct pd_chunk *c)
{
	while (c) {
		struct pd_chunk *n = c->next;

		free(c);
		c = n;
	}
}

static int flush_half(struct perf_data *pd);

/* Memory the queued records take: their entries and the arena. */
static size_t queue_bytes(const struct perf_data *pd)
{
	return pd->q_nr * sizeof(*pd->q) + pd->arena_bytes;
}

int pd_queue(struct perf_data *pd, const uint8_t *rec, uint64_t off,
	     uint64_t time, int evidx, bool copy)
{
	struct pd_chunk *chunk = NULL;
	struct pd_qent *q;
	int err;

	if (copy) {
		uint16_t size = pd_u16(rec + 6);
		void *d;

		/* only a new chunk adds memory: make room before taking one */
		while (pd->q_nr && !arena_has_room(pd, size) &&
		       queue_bytes(pd) + arena_next_size(pd, size) >
		       pd->q_max_bytes) {
			err = flush_half(pd);
			if (err)
				return err;
		}
		d = arena_alloc(pd, size, &chunk);
		if (!d)
			return -ENOMEM;
		memcpy(d, rec, size);
		rec = d;
	}
	if (grow_array((void **)&pd->q, &pd->q_cap, pd->q_nr + 1,
		       sizeof(*pd->q)))
		return -ENOMEM;
	q = &pd->q[pd->q_nr];
	q->time = time;
	q->rec = rec;
	q->offset = off;
	q->evidx = evidx;
	q->chunk = chunk;
	pd->q_nr++;
	if (time > pd->max_ts)
		pd->max_ts = time;
	/* entries of a mapped file are the memory: bound them too */
	if (pd->q_nr >= pd->q_max_nr || queue_bytes(pd) > pd->q_max_bytes)
		return flush_half(pd);
	return 0;
}

/*
 * Merge the sorted runs a[0, mid) and a[mid, n), stably, the shorter one
 * through tmp (at most half of the entries).
 */
static void merge_runs(struct pd_qent *a, struct pd_qent *tmp, size_t mid,
		       size_t n)
{
	size_t i, j, k;

	if (a[mid - 1].time <= a[mid].time)
		return;
	if (mid <= n - mid) {
		memcpy(tmp, a, mid * sizeof(*a));
		for (i = 0, j = mid, k = 0; i < mid && j < n; k++)
			a[k] = tmp[i].time <= a[j].time ? tmp[i++] : a[j++];
		while (i < mid)
			a[k++] = tmp[i++];
		return;
	}
	/* From the back: on equal times the right run's entry goes last. */
	memcpy(tmp, a + mid, (n - mid) * sizeof(*a));
	for (i = mid, j = n - mid, k = n; j > 0 && i > 0;)
		a[--k] = a[i - 1].time > tmp[j - 1].time ? a[--i] : tmp[--j];
	while (j > 0)
		a[--k] = tmp[--j];
}

/*
 * A round of perf record -a is one sorted run per CPU buffer, written
 * one after another: the runs are found (the first starts at 0, the
 * second at first) and merged pairwise, a pass per doubling, O(n log
 * runs). Stable, so records of one time keep perf's order.
 */
static int sort_runs(struct perf_data *pd, size_t first)
{
	struct pd_qent *a = pd->q, *tmp = pd->qtmp;
	size_t n = pd->q_nr, nr = 0, i, w, *run;

	/* The runs' starts, then n; the caller found the first descent. */
	if (grow_array((void **)&pd->runs, &pd->runs_cap, 2,
		       sizeof(*pd->runs)))
		return -ENOMEM;
	pd->runs[nr++] = 0;
	for (i = first; i < n; i++) {
		if (a[i - 1].time <= a[i].time)
			continue;
		if (grow_array((void **)&pd->runs, &pd->runs_cap, nr + 2,
			       sizeof(*pd->runs)))
			return -ENOMEM;
		pd->runs[nr++] = i;
	}
	run = pd->runs;
	run[nr] = n;
	/* Pass by pass, runs 2k and 2k + 1 become run k. */
	while (nr > 1) {
		for (i = 0, w = 0; i < nr; i += 2, w++) {
			if (i + 1 < nr)
				merge_runs(a + run[i], tmp,
					   run[i + 1] - run[i],
					   run[i + 2] - run[i]);
			run[w] = run[i];
		}
		nr = w;
		run[nr] = n;
	}
	return 0;
}

static int sort_queue(struct perf_data *pd)
{
	size_t i;

	for (i = 1; i < pd->q_nr; i++)
		if (pd->q[i - 1].time > pd->q[i].time)
			break;
	if (i >= pd->q_nr)
		return 0;
	/* merge_runs() never holds more than half of the entries in tmp */
	if (pd->qtmp_cap < pd->q_nr / 2 + 1) {
		free(pd->qtmp);
		pd->qtmp = malloc((pd->q_cap / 2 + 1) * sizeof(*pd->qtmp));
		if (!pd->qtmp) {
			pd->qtmp_cap = 0;
			return -ENOMEM;
		}
		pd->qtmp_cap = pd->q_cap / 2 + 1;
	}
	return sort_runs(pd, i);
}

/*
 * Pages of a mapped file that every delivered record has left behind are
 * given back, so that resident memory stays near one round of records
 * rather than the whole file (perf report maps a window for the same
 * reason). Read-only private pages come back from the page cache if
 * touched again, so nothing can read stale bytes. A file truncated while
 * we read it makes such a touch SIGBUS; perf has the same exposure.
 */
static void release_mapped(struct perf_data *pd)
{
	uintptr_t base = (uintptr_t)pd->map, low = (uintptr_t)pd->buf + pd->pos;
	long page = sysconf(_SC_PAGESIZE);
	size_t i;

	if (!pd->map || page <= 0)
		return;
	for (i = 0; i < pd->q_nr; i++) {
		uintptr_t r = (uintptr_t)pd->q[i].rec;

		if (!pd->q[i].chunk && r < low)
			low = r;
	}
	/* Never the header and attrs before the data; a megabyte at a time. */
	if (low < base + pd->released)
		return;
	low = (low - base) & ~((uintptr_t)page - 1);
	if (low < pd->released + (1u << 20))
		return;
	if (pd->released < pd->hdr.data_offset)
		pd->released = pd->hdr.data_offset & ~((uint64_t)page - 1);
	if (low > pd->released)
		madvise((char *)pd->map + pd->released, low - pd->released,
			MADV_DONTNEED);
	pd->released = low;
}

/* Deliver the first k records of the sorted queue, keep the rest. */
static int deliver_queued(struct perf_data *pd, size_t k)
{
	size_t i, rest;
	int err;

	for (i = 0; i < k; i++) {
		const struct pd_qent *q = &pd->q[i];

		err = pd->deliver(pd, q->rec, q->offset, q->evidx);
		if (err)
			return err;
		if (q->chunk)
			q->chunk->live--;
	}
	rest = pd->q_nr - k;
	memmove(pd->q, pd->q + k, rest * sizeof(*pd->q));
	pd->q_nr = rest;
	release_mapped(pd);
	arena_sweep(pd);
	return 0;
}

/* Deliver queued records with time <= limit, keep the rest. */
int pd_flush(struct perf_data *pd, uint64_t limit)
{
	size_t k;
	int err;

	if (!pd->q_nr)
		return 0;
	err = sort_queue(pd);
	if (err)
		return err;
	for (k = 0; k < pd->q_nr && pd->q[k].time <= limit; k++)
		;
	return deliver_queued(pd, k);
}

/*
 * The queue reached its bound: deliver the older half now, as perf's
 * ordered_events does (OE_FLUSH__HALF) when over its memory limit. A
 * record older than those arriving later is then out of order, which
 * only a round far beyond what perf record writes can cause.
 */
static int flush_half(struct perf_data *pd)
{
	int err = sort_queue(pd);

	if (err)
		return err;
	return deliver_queued(pd, (pd->q_nr + 1) / 2);
}

void pd_queue_free(struct perf_data *pd)
{
	free(pd->q);
	free(pd->qtmp);
	free(pd->runs);
	arena_free(pd->arena);
}
