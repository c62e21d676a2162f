// SPDX-License-Identifier: GPL-2.0
/*
 * A read's time, decomposed (breakdown.h): the kernel's per-syscall
 * records grouped into reads, their percentiles and shares, and the
 * notes on what the machine did (scheduler ticks, time off the CPU).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "breakdown-table.h"
#include "util.h"

const double breakdown_q[BD_NR_Q] = { 50, 90, 99 };

int breakdown__reads(const struct breakdown_syscall *sc, size_t nr_sc,
		     uint32_t fd, bool pread_only, struct breakdown_read **out,
		     size_t *nr)
{
	struct breakdown_read *r = NULL, cur;
	size_t n = 0, cap = 0, i;
	bool open = false;
	int p;

	*out = NULL;
	*nr = 0;
	memset(&cur, 0, sizeof(cur));
	for (i = 0; i < nr_sc; i++) {
		uint64_t tail = 0;
		size_t j;

		if (sc[i].fd != fd || (pread_only && !sc[i].pread))
			continue;
		/* The tail of i is told by the task's next syscall. */
		for (j = i + 1; j < nr_sc; j++)
			if (sc[j].tid == sc[i].tid) {
				tail = sc[j].prev_tail_off;
				break;
			}
		cur.total += sc[i].total + tail;
		cur.tail_off += tail;
		for (p = 0; p < BD_PART__NR; p++) {
			cur.ns[p] += sc[i].ns[p];
			cur.calls[p] += sc[i].calls[p];
		}
		cur.ns[BD_PART_OFF] += tail;
		open = true;
		if (sc[i].ret > 0)
			continue;
		if (grow_array((void **)&r, &cap, n + 1, sizeof(*r))) {
			free(r);
			return -ENOMEM;
		}
		r[n++] = cur;
		memset(&cur, 0, sizeof(cur));
		open = false;
	}
	/* A read cut off at the end (its EOF not seen) is left out. */
	(void)open;
	*out = r;
	*nr = n;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as hist__percentile() takes it. */
static size_t rank_of(double q, size_t n)
{
	double r = q * (double)n / 100.0;
	size_t k = (size_t)r;

	if ((double)k < r - r * 1e-12)
		k++;
	if (!k)
		k = 1;
	if (k > n)
		k = n;
	return k - 1;
}

/* v within 10% of a tick of k >= 1 ticks: k, else 0. */
static unsigned int ticks_of(uint64_t v, unsigned int hz)
{
	double tick, k;

	if (!hz)
		return 0;
	tick = 1e9 / hz;
	k = floor((double)v / tick + 0.5);
	if (k < 1 || fabs((double)v - k * tick) > 0.1 * tick)
		return 0;
	return (unsigned int)k;
}

struct by_total {
	uint64_t total, off;
};

static int cmp_total(const void *a, const void *b)
{
	const struct by_total *x = a, *y = b;

	return x->total < y->total ? -1 : x->total > y->total;
}

int breakdown__table(const struct breakdown_read *r, size_t nr,
		     unsigned int hz, struct breakdown_table *t)
{
	struct by_total *bt;
	uint64_t *v;
	double sum_total = 0, sum[BD_PART__NR] = { 0 };
	size_t i;
	int p, q;

	memset(t, 0, sizeof(*t));
	if (!nr)
		return -EINVAL;
	v = calloc(nr, sizeof(*v));
	bt = calloc(nr, sizeof(*bt));
	if (!v || !bt) {
		free(v);
		free(bt);
		return -ENOMEM;
	}
	t->reads = nr;
	for (i = 0; i < nr; i++) {
		uint64_t parts = 0;

		sum_total += (double)r[i].total;
		for (p = 0; p < BD_PART__NR; p++) {
			sum[p] += (double)r[i].ns[p];
			parts += r[i].ns[p];
		}
		if (parts != r[i].total) {
			uint64_t gap = parts > r[i].total ?
				       parts - r[i].total :
				       r[i].total - parts;

			if (gap > t->max_gap_ns)
				t->max_gap_ns = gap;
		}
		if (r[i].ns[BD_PART_OFF] * 2 > r[i].total)
			t->off_most++;
		for (p = 0; p < BD_PART__NR; p++)
			t->calls[p] += r[i].calls[p];
		t->tail_off_ns += r[i].tail_off;
		bt[i].total = r[i].total;
		bt[i].off = r[i].ns[BD_PART_OFF];
	}
	/* The total: which read sits at each percentile, for its notes. */
	qsort(bt, nr, sizeof(*bt), cmp_total);
	for (q = 0; q < BD_NR_Q; q++) {
		const struct by_total *at = &bt[rank_of(breakdown_q[q], nr)];

		t->total.q[q] = at->total;
		t->total.ticks[q] = ticks_of(at->total, hz);
		if (t->total.ticks[q])
			t->total.notes[q] |= BD_NOTE_TICKS;
		if (at->off * 2 > at->total)
			t->total.notes[q] |= BD_NOTE_OFF;
	}
	t->total.share = 1;
	t->total.sum = (uint64_t)sum_total;
	for (p = 0; p < BD_PART__NR; p++) {
		for (i = 0; i < nr; i++)
			v[i] = r[i].ns[p];
		qsort(v, nr, sizeof(*v), cmp_u64);
		for (q = 0; q < BD_NR_Q; q++) {
			t->part[p].q[q] = v[rank_of(breakdown_q[q], nr)];
			t->part[p].ticks[q] = ticks_of(t->part[p].q[q], hz);
			if (t->part[p].ticks[q])
				t->part[p].notes[q] |= BD_NOTE_TICKS;
		}
		t->part[p].share = sum_total > 0 ? sum[p] / sum_total : 0;
		t->part[p].sum = (uint64_t)sum[p];
	}
	free(v);
	free(bt);
	return 0;
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int breakdown__entry_exit(const struct breakdown_read *r, size_t nr,
			  const uint64_t *lat, size_t nr_lat,
			  struct breakdown_entry *e)
{
	int64_t *v;
	size_t i;
	int q;

	memset(e, 0, sizeof(*e));
	if (!nr || nr != nr_lat)
		return -EINVAL;
	v = calloc(nr, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		v[i] = (int64_t)lat[i] - (int64_t)r[i].total;
		e->sum += v[i];
		e->measured += lat[i];
		if (v[i] < 0)
			e->negative++;
	}
	qsort(v, nr, sizeof(*v), cmp_s64);
	for (q = 0; q < BD_NR_Q; q++)
		e->q[q] = v[rank_of(breakdown_q[q], nr)];
	e->share = e->measured ? (double)e->sum / (double)e->measured : 0;
	free(v);
	return 0;
}

/* CONFIG_HZ=N in /boot/config-RELEASE: N, or 0. */
static unsigned int hz_from_config(void)
{
	char path[512], line[256];
	unsigned int hz = 0;
	struct utsname u;
	FILE *f;

	if (uname(&u))
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!hz && fgets(line, sizeof(line), f))
		if (sscanf(line, "CONFIG_HZ=%u", &hz) != 1)
			hz = 0;
	fclose(f);
	return hz;
}

/* jiffies and "now at N nsecs" from /proc/timer_list. */
static int timer_list(uint64_t *jiffies, uint64_t *now)
{
	char line[256];
	bool have_j = false, have_n = false;
	FILE *f = fopen("/proc/timer_list", "re");

	if (!f)
		return -errno;
	while ((!have_j || !have_n) && fgets(line, sizeof(line), f)) {
		if (!have_n && sscanf(line, "now at %" SCNu64 " nsecs",
				      now) == 1)
			have_n = true;
		else if (!have_j && sscanf(line, "jiffies: %" SCNu64,
					   jiffies) == 1)
			have_j = true;
	}
	fclose(f);
	return have_j && have_n ? 0 : -ENOENT;
}

unsigned int breakdown__scheduler_hz(const char **how)
{
	static const unsigned int known[] = { 100, 250, 300, 1000 };
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	uint64_t j0, j1, n0, n1;
	unsigned int hz = hz_from_config(), i, best = 0;
	double rate, err = 1e9;

	*how = "unknown";
	if (hz) {
		*how = "/boot/config";
		return hz;
	}
	if (timer_list(&j0, &n0))
		return 0;
	nanosleep(&nap, NULL);
	if (timer_list(&j1, &n1) || n1 <= n0 || j1 <= j0)
		return 0;
	rate = (double)(j1 - j0) * 1e9 / (double)(n1 - n0);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (fabs(rate - known[i]) < err) {
			err = fabs(rate - known[i]);
			best = known[i];
		}
	/* Tickless idle still counts jiffies; a wild rate is not trusted. */
	if (err > 0.15 * best)
		return 0;
	*how = "jiffies in /proc/timer_list";
	return best;
}
