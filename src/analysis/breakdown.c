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

/*
 * The index of the task's next syscall after each (nr_sc: none), which
 * tells the tail of the one before it. *out: free() it.
 */
static int next_of_task(const struct breakdown_syscall *sc, size_t nr_sc,
			size_t **out)
{
	struct { uint32_t tid; bool set; size_t at; } *h;
	size_t *next = calloc(nr_sc ? nr_sc : 1, sizeof(*next));
	size_t cap = 64, i, j;

	while (cap < nr_sc * 2)
		cap *= 2;
	h = calloc(cap, sizeof(*h));
	*out = h ? next : NULL;
	if (!h || !next) {
		free(h);
		free(next);
		return -ENOMEM;
	}
	/* Backwards, an open-addressed table tid -> its latest index. */
	for (i = nr_sc; i-- > 0;) {
		j = (sc[i].tid * 2654435761u) & (cap - 1);
		while (h[j].set && h[j].tid != sc[i].tid)
			j = (j + 1) & (cap - 1);
		next[i] = h[j].set ? h[j].at : nr_sc;
		h[j].set = true;
		h[j].tid = sc[i].tid;
		h[j].at = i;
	}
	free(h);
	return 0;
}

/*
 * The syscalls idx[] (ascending) of one file's fd grouped into reads,
 * appended to *r (*n of *cap). A read cut off at the end (its EOF not
 * seen) is left out. 0 or -ENOMEM.
 */
static int group_reads(const struct breakdown_syscall *sc, size_t nr_sc,
		       const size_t *next, const size_t *idx, size_t nr_idx,
		       struct breakdown_read **r, size_t *n, size_t *cap)
{
	struct breakdown_read cur;
	size_t k;
	int p;

	memset(&cur, 0, sizeof(cur));
	for (k = 0; k < nr_idx; k++) {
		const struct breakdown_syscall *s = &sc[idx[k]];
		uint64_t tail = next[idx[k]] < nr_sc ?
				sc[next[idx[k]]].prev_tail_off : 0;

		cur.total += s->total + tail;
		cur.tail_off += tail;
		for (p = 0; p < BD_PART__NR; p++) {
			cur.ns[p] += s->ns[p];
			cur.calls[p] += s->calls[p];
		}
		cur.ns[BD_PART_OFF] += tail;
		if (s->ret > 0)
			continue;
		if (grow_array((void **)r, cap, *n + 1, sizeof(**r)))
			return -ENOMEM;
		(*r)[(*n)++] = cur;
		memset(&cur, 0, sizeof(cur));
	}
	return 0;
}

int breakdown__reads(const struct breakdown_syscall *sc, size_t nr_sc,
		     uint32_t fd, bool pread_only, struct breakdown_read **out,
		     size_t *nr)
{
	struct breakdown_read *r = NULL;
	size_t n = 0, cap = 0, nr_idx = 0, i, *idx, *next;
	int err;

	*out = NULL;
	*nr = 0;
	idx = calloc(nr_sc ? nr_sc : 1, sizeof(*idx));
	if (!idx || next_of_task(sc, nr_sc, &next)) {
		free(idx);
		return -ENOMEM;
	}
	for (i = 0; i < nr_sc; i++)
		if (sc[i].fd == fd && (!pread_only || sc[i].pread))
			idx[nr_idx++] = i;
	err = group_reads(sc, nr_sc, next, idx, nr_idx, &r, &n, &cap);
	free(idx);
	free(next);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	*nr = n;
	return 0;
}

int breakdown__file_tree(const char *name)
{
	/* The show functions' flushes: memcg_stat_format, blkcg_print_stat... */
	static const struct {
		const char *name;
		int part;
	} trees[] = {
		{ "memory.stat", BD_PART_MEMORY },
		{ "memory.numa_stat", BD_PART_MEMORY },
		{ "io.stat", BD_PART_IO },
		{ "cpu.stat", BD_PART_BASE },
	};
	size_t k;

	for (k = 0; k < sizeof(trees) / sizeof(*trees); k++)
		if (!strcmp(name, trees[k].name))
			return trees[k].part;
	return -1;
}

bool breakdown__is_stat_file(const char *name)
{
	static const char *const suffixes[] = { ".stat", "_stat" };
	size_t len = strlen(name), k;

	if (!strcmp(name, "cpu.stat.local"))
		return true;
	for (k = 0; k < sizeof(suffixes) / sizeof(*suffixes); k++) {
		size_t sl = strlen(suffixes[k]);

		/* A name of its own before the suffix: not ".stat" alone. */
		if (len > sl && !strcmp(name + len - sl, suffixes[k]))
			return true;
	}
	return false;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * What happened to fds (opens, copies, closes) in (tgid, fd, ts) order,
 * the forks by child.
 */
struct bd_index {
	const struct breakdown_event *ev;
	size_t *opens, nr_opens;
	size_t *forks, nr_forks;
};

static int cmp_open(const void *a, const void *b, void *arg)
{
	const struct breakdown_event *ev = arg;
	const struct breakdown_event *x = &ev[*(const size_t *)a];
	const struct breakdown_event *y = &ev[*(const size_t *)b];

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int cmp_fork(const void *a, const void *b, void *arg)
{
	const struct breakdown_event *ev = arg;
	const struct breakdown_event *x = &ev[*(const size_t *)a];
	const struct breakdown_event *y = &ev[*(const size_t *)b];

	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return 0;
}

/* The last event of (tgid, fd) at or before ts: its index, or -1. */
static long last_open(const struct bd_index *ix, uint32_t tgid, int32_t fd,
		      uint64_t ts)
{
	size_t lo = 0, hi = ix->nr_opens;

	/* The first open past (tgid, fd, ts); the one before it, if ours. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct breakdown_event *e = &ix->ev[ix->opens[mid]];

		if (e->tgid < tgid || (e->tgid == tgid && (e->fd < fd ||
		    (e->fd == fd && e->ts <= ts))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	lo--;
	if (ix->ev[ix->opens[lo]].tgid != tgid ||
	    ix->ev[ix->opens[lo]].fd != fd)
		return -1;
	return (long)ix->opens[lo];
}

/* The fork that made child (the last one before ts), or NULL. */
static const struct breakdown_event *fork_of(const struct bd_index *ix,
					     uint32_t child, uint64_t ts)
{
	const struct breakdown_event *found = NULL;
	size_t lo = 0, hi = ix->nr_forks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->ev[ix->forks[mid]].child < child)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->nr_forks && ix->ev[ix->forks[lo]].child == child;
	     lo++)
		if (ix->ev[ix->forks[lo]].ts <= ts)
			found = &ix->ev[ix->forks[lo]];
	return found;
}

/*
 * The open a syscall's fd stands for: the last thing its process did
 * with that fd before the syscall began: an open is it, a close means
 * none, a copy (dup2, F_DUPFD) is what the fd copied was then; nothing
 * seen, what its parent had as that fd when it forked (an inherited
 * fd), up the line. -1 when no open was seen.
 */
static long open_of(const struct bd_index *ix,
		    const struct breakdown_syscall *s)
{
	uint32_t tgid = s->tgid;
	int32_t fd = (int32_t)s->fd;
	uint64_t ts = s->start;
	int depth;

	for (depth = 0; depth < 32; depth++) {
		const struct breakdown_event *e, *f;
		long o = last_open(ix, tgid, fd, ts);

		if (o >= 0) {
			e = &ix->ev[o];
			if (e->kind == BD_EV_OPEN)
				return o;
			if (e->kind == BD_EV_CLOSE || !e->ts)
				return -1;
			/* dup2(fd, fd) changes nothing: look before it. */
			fd = e->oldfd;
			ts = e->ts - (e->oldfd == e->fd);
			continue;
		}
		f = fork_of(ix, tgid, ts);
		if (!f)
			return -1;
		tgid = f->tgid;
		ts = f->ts;
	}
	return -1;
}

struct bd_sc_open {
	long open;
	size_t at;
};

static int cmp_sc_open(const void *a, const void *b)
{
	const struct bd_sc_open *x = a, *y = b;

	if (x->open != y->open)
		return x->open < y->open ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

void breakdown__files_free(struct breakdown_file_reads *f, size_t nr)
{
	size_t i;

	for (i = 0; f && i < nr; i++)
		free(f[i].reads);
	free(f);
}

/* The file named name in f[] (added when new), or NULL: -ENOMEM. */
static struct breakdown_file_reads *file_of(struct breakdown_file_reads **f,
					    size_t *nr, size_t *cap,
					    const char *name)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*f)[i].name, name))
			return &(*f)[i];
	if (grow_array((void **)f, cap, *nr + 1, sizeof(**f)))
		return NULL;
	memset(&(*f)[*nr], 0, sizeof(**f));
	snprintf((*f)[*nr].name, sizeof((*f)[*nr].name), "%.63s", name);
	return &(*f)[(*nr)++];
}

int breakdown__files(const struct breakdown_syscall *sc, size_t nr_sc,
		     const struct breakdown_event *ev, size_t nr_ev,
		     struct breakdown_file_reads **out, size_t *nr,
		     struct breakdown_files_stats *st)
{
	struct bd_index ix = { .ev = ev };
	struct breakdown_file_reads *f = NULL;
	struct bd_sc_open *so = NULL;
	size_t n = 0, cap = 0, nr_so = 0, i, j, *next = NULL, *idx = NULL;
	int err = -ENOMEM;

	*out = NULL;
	*nr = 0;
	memset(st, 0, sizeof(*st));
	ix.opens = calloc(nr_ev ? nr_ev : 1, sizeof(*ix.opens));
	ix.forks = calloc(nr_ev ? nr_ev : 1, sizeof(*ix.forks));
	so = calloc(nr_sc ? nr_sc : 1, sizeof(*so));
	idx = calloc(nr_sc ? nr_sc : 1, sizeof(*idx));
	if (!ix.opens || !ix.forks || !so || !idx ||
	    next_of_task(sc, nr_sc, &next))
		goto out;
	for (i = 0; i < nr_ev; i++) {
		if (ev[i].kind == BD_EV_FORK)
			ix.forks[ix.nr_forks++] = i;
		else
			ix.opens[ix.nr_opens++] = i;
	}
	qsort_r(ix.opens, ix.nr_opens, sizeof(*ix.opens), cmp_open,
		(void *)ev);
	qsort_r(ix.forks, ix.nr_forks, sizeof(*ix.forks), cmp_fork,
		(void *)ev);
	for (i = 0; i < nr_sc; i++) {
		long o = open_of(&ix, &sc[i]);

		if (o < 0) {
			st->unnamed++;
			continue;
		}
		if (!breakdown__is_stat_file(base_name(ev[o].path))) {
			st->other++;
			continue;
		}
		so[nr_so].open = o;
		so[nr_so].at = i;
		nr_so++;
	}
	/* Each open's syscalls in order, then into its file's reads. */
	qsort(so, nr_so, sizeof(*so), cmp_sc_open);
	for (i = 0; i < nr_so; i = j) {
		struct breakdown_file_reads *fr;
		size_t k = 0;

		for (j = i; j < nr_so && so[j].open == so[i].open; j++)
			idx[k++] = so[j].at;
		fr = file_of(&f, &n, &cap, base_name(ev[so[i].open].path));
		if (!fr || group_reads(sc, nr_sc, next, idx, k, &fr->reads,
				       &fr->nr, &fr->cap))
			goto out;
		st->opens++;
	}
	err = 0;
out:
	free(ix.opens);
	free(ix.forks);
	free(so);
	free(idx);
	free(next);
	if (err) {
		breakdown__files_free(f, n);
		return err;
	}
	*out = f;
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

void breakdown__hz_mark(struct breakdown_hz_mark *m)
{
	memset(m, 0, sizeof(*m));
	m->config_hz = hz_from_config();
	if (!m->config_hz)
		m->ok = !timer_list(&m->jiffies, &m->now);
}

#define HZ_SPAN_NS (200 * 1000 * 1000ull)

unsigned int breakdown__hz_since(const struct breakdown_hz_mark *m,
				 const char **how)
{
	static const unsigned int known[] = { 100, 250, 300, 1000 };
	uint64_t j1, n1;
	unsigned int i, best = 0;
	double rate, err = 1e9;

	*how = "unknown";
	if (m->config_hz) {
		*how = "/boot/config";
		return m->config_hz;
	}
	if (!m->ok || timer_list(&j1, &n1))
		return 0;
	/* At least 200 ms of jiffies: 50 ticks at HZ=250. */
	if (n1 > m->now && n1 - m->now < HZ_SPAN_NS) {
		uint64_t left = HZ_SPAN_NS - (n1 - m->now);
		struct timespec nap = { 0, (long)left };

		nanosleep(&nap, NULL);
		if (timer_list(&j1, &n1))
			return 0;
	}
	if (n1 <= m->now || j1 <= m->jiffies)
		return 0;
	rate = (double)(j1 - m->jiffies) * 1e9 / (double)(n1 - m->now);
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

unsigned int breakdown__scheduler_hz(const char **how)
{
	struct breakdown_hz_mark m;

	breakdown__hz_mark(&m);
	return breakdown__hz_since(&m, how);
}
