// SPDX-License-Identifier: GPL-2.0
/*
 * bench accuracy: children whose memory use is known at every moment, a
 * reader of their memory.stat, and the error of every read (see
 * include/bench-accuracy.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <tracefs.h>

#include "bench-accuracy.h"
#include "bench-results.h"
#include "bench-workload.h"
#include "evlist.h"
#include "hist.h"
#include "kfeatures.h"
#include "util.h"

#define MAX_ANCESTORS 32
#define STAT_BUF 16384
#define RING_PAGES 8		/* data pages per CPU: ~580 flush records */
/*
 * Cgroup ids named in the tracepoint's filter: beyond that many, every
 * flush that ran comes through and is sorted out here.
 */
#define MAX_FILTER_IDS 64
#define READY_TIMEOUT_S 10
#define KICK_TRIES 3

/* One child's state, shared: a seqlock, odd while a step runs. */
struct acc_slot {
	uint64_t seq;
	uint64_t anon, file;		/* pages held after the last step */
	uint64_t anon_to, file_to;	/* the step in flight's target */
	uint64_t steps;
	int ready, paused, err;
};

struct acc_ctl {
	int pause;			/* reader: stop stepping */
	int go;				/* reader: baseline taken */
	int kick;			/* reader: child 1, make a flush due */
	struct acc_slot slot[];
};

struct acc_child {
	struct bench_accuracy *a;
	unsigned int idx;
	char file[32];
};

struct acc_cgroup {
	int stat_fd, usage_fd;
	uint64_t ids[MAX_ANCESTORS];	/* its own, then its ancestors' */
	unsigned int nr_ids;
	/* Pages that are not the children's steps', and bytes. */
	int64_t base_anon, base_file;
	int64_t base_usage;
	uint64_t last_flush_ns;		/* monotonic; 0: none seen */
};

/* The figures of one group of reads: the parent's, or the children's. */
struct acc_series {
	uint64_t *anon, *file, *sum, *ppm, *stale, *usage, *truth;
	size_t n, cap;
	uint64_t below, above;		/* reads under / over the truth */
	uint64_t in_step;		/* truth moving during the read */
	uint64_t over;
};

typedef void (*flush_fn)(void *ctx, uint64_t time_ns, uint64_t id);

/*
 * memcg:memcg_flush_stats, filtered to flushes that run, on every CPU,
 * through the recorder's rings (evlist).
 */
struct flush_watch {
	struct evlist *el;
	unsigned int id_off;
	flush_fn fn;			/* during a drain */
	void *ctx;
};

struct bench_accuracy {
	struct bench_accuracy_opts o;
	long page;
	unsigned int batch, ncpus;
	int *cpus;			/* allowed CPUs, for pinning */
	unsigned int nr_cpus;
	struct acc_ctl *ctl;
	size_t ctl_size;
	struct acc_child *child;
	struct acc_cgroup *cg;		/* children + 1 */
	struct flush_watch *fw;
	char *buf;
	uint64_t *seq;			/* each child's, before a read */
	struct acc_series series[2];	/* parent, children */
	struct acc_over *over;
	size_t nr_over, cap_over;
	uint64_t flushes;		/* covering the parent, last run */
	const char *watch_lost;		/* why the watch was dropped */
	/*
	 * --after-flush, last run: whether the round being read had a
	 * flush seen after its kick ended; the rounds without one; the
	 * reads that still differ from the truth, by whether their round's
	 * flush was seen (then the truth is off) or not (the read may be).
	 */
	bool round_flushed;
	uint64_t rounds_unflushed;
	uint64_t off_flushed, off_unflushed;
	uint64_t off_flushed_max, off_unflushed_max;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	nanosleep(&ts, NULL);
}

unsigned int bench_accuracy__charge_batch(const char *release)
{
	/* MEMCG_CHARGE_BATCH went from 32 to 64 pages in v6.1. */
	return kfeatures__version(release) >= 6001 ? 64 : 32;
}

/* --- the children ------------------------------------------------------- */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static uint64_t resident(const unsigned char *map, size_t len, long page,
			 unsigned char *vec)
{
	size_t i, n = len / page;
	uint64_t count = 0;

	if (mincore((void *)map, len, vec))
		return 0;
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	return count;
}

static void publish_begin(struct acc_slot *s, uint64_t anon_to,
			  uint64_t file_to)
{
	uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->anon_to, anon_to, __ATOMIC_RELAXED);
	__atomic_store_n(&s->file_to, file_to, __ATOMIC_RELAXED);
}

static void publish_end(struct acc_slot *s, uint64_t anon, uint64_t file)
{
	uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&s->anon, anon, __ATOMIC_RELAXED);
	__atomic_store_n(&s->file, file, __ATOMIC_RELAXED);
	__atomic_store_n(&s->steps, s->steps + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELEASE);
}

/*
 * Child 1, asked by the reader while every child is paused: charge and
 * free pages of a mapping of its own, outside what it publishes, so that
 * the stat updates (two or more per page) pass the flush threshold of
 * the parent (MEMCG_CHARGE_BATCH x CPUs, plus up to a batch per CPU
 * still in per-CPU counters) and the parent's next read flushes its whole
 * subtree. What it holds is back where it was before the reader looks.
 */
static void kick(struct bench_accuracy *a, struct acc_child *c,
		 unsigned char *kmap, size_t klen)
{
	size_t off;

	if (c->idx || !__atomic_load_n(&a->ctl->kick, __ATOMIC_ACQUIRE))
		return;
	for (off = 0; off < klen; off += a->page)
		((volatile unsigned char *)kmap)[off] = 1;
	madvise(kmap, klen, MADV_DONTNEED);
	__atomic_store_n(&a->ctl->kick, 0, __ATOMIC_RELEASE);
}

int bench_accuracy__child(void *arg)
{
	struct acc_child *c = arg;
	struct bench_accuracy *a = c->a;
	struct acc_slot *s = &a->ctl->slot[c->idx];
	bool anon = a->o.kind != ACC_FILE, file = a->o.kind != ACC_ANON;
	size_t len = (size_t)ACC_MAX_PAGES * a->page;
	size_t step_len = (size_t)a->o.step * a->page;
	uint64_t level = 0, file_pages = 0, period, next, now, k = 0, p;
	unsigned char *amap, *fmap = NULL, *buf, *vec, *kmap = MAP_FAILED;
	size_t klen = (size_t)2 * a->batch * a->ncpus * a->page;
	bool up = true;
	int fd = -1, err = 0;

	amap = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	buf = mmap(NULL, step_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	vec = malloc(ACC_MAX_PAGES);
	if (!c->idx)
		kmap = mmap(NULL, klen, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (amap == MAP_FAILED || buf == MAP_FAILED || !vec ||
	    (!c->idx && kmap == MAP_FAILED)) {
		err = ENOMEM;
		goto fail;
	}
	/* One page per write: a huge page would charge 512 at once. */
	madvise(amap, len, MADV_NOHUGEPAGE);
	if (!c->idx)
		madvise(kmap, klen, MADV_NOHUGEPAGE);
	memset(buf, 0, step_len);
	memset(vec, 0, ACC_MAX_PAGES);
	fd = openat(a->o.dirfd, c->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto fail;
	}
	/* Readahead would charge pages beyond the step. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	fmap = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (fmap == MAP_FAILED) {
		err = errno;
		goto fail;
	}
	pin(a->cpus[a->o.spread ? c->idx % a->nr_cpus : a->nr_cpus - 1]);
	/*
	 * One step up and down before the baseline, so that the stack and
	 * the paths a step takes are charged (copy-on-write after fork)
	 * before it is measured, not during the run.
	 */
	for (p = 0; p < a->o.step; p++)
		((volatile unsigned char *)amap)[p * a->page] = 1;
	madvise(amap, step_len, MADV_DONTNEED);
	if (pread(fd, buf, step_len, 0) < 0)
		err = errno;
	posix_fadvise(fd, 0, step_len, POSIX_FADV_DONTNEED);
	if (err)
		goto fail;
	file_pages = resident(fmap, len, a->page, vec);
	publish_begin(s, 0, file_pages);
	publish_end(s, 0, file_pages);
	__atomic_store_n(&s->paused, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&a->ctl->go, __ATOMIC_ACQUIRE)) {
		kick(a, c, kmap, klen);
		sleep_ns(1000000);
	}

	period = (uint64_t)(1e9 * a->o.step / a->o.rate);
	next = now_ns();
	for (;;) {
		if (__atomic_load_n(&a->ctl->pause, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&s->paused, 1, __ATOMIC_RELEASE);
			kick(a, c, kmap, klen);
			sleep_ns(1000000);
			next = now_ns();
			continue;
		}
		__atomic_store_n(&s->paused, 0, __ATOMIC_RELEASE);
		now = now_ns();
		if (now < next) {
			sleep_ns(next - now);
			continue;
		}
		/* Behind (a busy CPU): step on, do not catch up in a burst. */
		next = (now > next + period ? now : next) + period;
		if (a->o.spread)
			pin(a->cpus[(c->idx + ++k) % a->nr_cpus]);
		if (up && level + a->o.step > ACC_MAX_PAGES)
			up = false;
		else if (!up && level < a->o.step)
			up = true;
		if (up) {
			publish_begin(s, anon ? level + a->o.step : 0,
				      file ? file_pages + a->o.step :
				      file_pages);
			if (anon)
				for (p = level; p < level + a->o.step; p++)
					((volatile unsigned char *)amap)
						[p * a->page] = 1;
			if (file && pread(fd, buf, step_len,
					  level * a->page) < 0)
				err = errno;
			level += a->o.step;
		} else {
			level -= a->o.step;
			publish_begin(s, anon ? level : 0,
				      !file ? file_pages :
				      file_pages > a->o.step ?
				      file_pages - a->o.step : 0);
			if (anon)
				madvise(amap + level * a->page, step_len,
					MADV_DONTNEED);
			if (file)
				posix_fadvise(fd, level * a->page, step_len,
					      POSIX_FADV_DONTNEED);
		}
		/* What the page cache holds, not what was asked for. */
		if (file)
			file_pages = resident(fmap, len, a->page, vec);
		publish_end(s, anon ? level : 0, file_pages);
		if (err)
			goto fail;
	}
fail:
	__atomic_store_n(&s->err, err ? err : EIO, __ATOMIC_RELEASE);
	return err ? err : EIO;
}

void *bench_accuracy__child_arg(struct bench_accuracy *a, unsigned int i)
{
	return i < a->o.children ? &a->child[i] : NULL;
}

/* [lo, hi] of what a child held while it was looked at. */
struct acc_range {
	uint64_t anon_lo, anon_hi, file_lo, file_hi;
	bool moving;
};

static void slot_look(struct acc_slot *s, struct acc_range *r)
{
	uint64_t seq, anon, file, anon_to, file_to;

	do {
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		anon = __atomic_load_n(&s->anon, __ATOMIC_RELAXED);
		file = __atomic_load_n(&s->file, __ATOMIC_RELAXED);
		anon_to = __atomic_load_n(&s->anon_to, __ATOMIC_RELAXED);
		file_to = __atomic_load_n(&s->file_to, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq);
	r->anon_lo = r->anon_hi = anon;
	r->file_lo = r->file_hi = file;
	r->moving = seq & 1;
	if (seq & 1) {
		r->anon_lo = anon < anon_to ? anon : anon_to;
		r->anon_hi = anon < anon_to ? anon_to : anon;
		r->file_lo = file < file_to ? file : file_to;
		r->file_hi = file < file_to ? file_to : file;
	}
}

/*
 * What cgroup i (0: the parent, the sum of all children) holds now; moving
 * when a step runs, or one ended since a->seq was taken.
 */
static void truth(struct bench_accuracy *a, unsigned int i,
		  struct acc_range *out)
{
	unsigned int c, first = i ? i - 1 : 0, last = i ? i : a->o.children;
	struct acc_range r;

	memset(out, 0, sizeof(*out));
	for (c = first; c < last; c++) {
		slot_look(&a->ctl->slot[c], &r);
		out->anon_lo += r.anon_lo;
		out->anon_hi += r.anon_hi;
		out->file_lo += r.file_lo;
		out->file_hi += r.file_hi;
		out->moving |= r.moving ||
			       __atomic_load_n(&a->ctl->slot[c].seq,
					       __ATOMIC_RELAXED) !=
			       a->seq[c];
	}
}

/* --- the flush watch ---------------------------------------------------- */

static void flush_watch__delete(struct flush_watch *fw)
{
	if (!fw)
		return;
	evlist__delete(fw->el);
	free(fw);
}

/* Where the tracepoint's u64 id sits in its raw record. */
static int id_offset(unsigned int *off)
{
	char *fmt = tracefs_event_file_read(NULL, "memcg",
					    "memcg_flush_stats", "format",
					    NULL);
	const char *p = fmt ? strstr(fmt, "field:u64 id;") : NULL;
	int ret = -ENOENT;

	if (p && sscanf(p, "field:u64 id;\toffset:%u;", off) == 1)
		ret = 0;
	free(fmt);
	return ret;
}

/*
 * Only the flushes that ran (skipped ones fire the tracepoint too) and,
 * when they are few, only those of the run's cgroups and their
 * ancestors: other runs flushing their own trees at thousands a second
 * would otherwise fill the rings between two reads and lose ours.
 */
static char *flush_filter(const struct bench_accuracy *a)
{
	uint64_t ids[MAX_FILTER_IDS];
	unsigned int n = 0, i, k, j;
	size_t len = 64 + MAX_FILTER_IDS * 32, used;
	char *f = malloc(len);

	if (!f)
		return NULL;
	for (i = 0; i <= a->o.children; i++)
		for (k = 0; k < a->cg[i].nr_ids; k++) {
			for (j = 0; j < n && ids[j] != a->cg[i].ids[k]; j++)
				;
			if (j < n)
				continue;
			if (n == MAX_FILTER_IDS)
				goto all;
			ids[n++] = a->cg[i].ids[k];
		}
	used = snprintf(f, len, "(force != 0 || needs_flush != 0) && (");
	for (j = 0; j < n; j++)
		used += snprintf(f + used, len - used, "%sid == %" PRIu64,
				 j ? " || " : "", ids[j]);
	snprintf(f + used, len - used, ")");
	return f;
all:
	snprintf(f, len, "force != 0 || needs_flush != 0");
	return f;
}

static int flush_watch__new(struct flush_watch **out,
			    const struct bench_accuracy *a, const char **why)
{
	struct evlist_target t = { .kind = EVLIST_TARGET_CPUS };
	struct perf_event_attr attr;
	struct flush_watch *fw;
	struct evsel *e;
	char *filter = NULL;
	unsigned int off;
	int err;

	*out = NULL;
	err = events__parse("memcg:memcg_flush_stats", &attr, NULL);
	if (!err)
		err = id_offset(&off);
	if (err) {
		*why = "staleness: no memcg:memcg_flush_stats tracepoint (v6.13+) or tracefs not readable";
		return err;
	}
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	/* The reader's clock: a flush's time against a read's. */
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	fw = calloc(1, sizeof(*fw));
	filter = flush_filter(a);
	e = evsel__new(&attr, "memcg:memcg_flush_stats");
	if (!fw || !filter || !e || !(fw->el = evlist__new())) {
		evsel__delete(e);
		free(fw);
		free(filter);
		return -ENOMEM;
	}
	fw->id_off = off;
	err = evsel__set_filter(e, filter);
	free(filter);
	if (!err)
		err = evlist__add(fw->el, e);
	else
		evsel__delete(e);
	if (err) {
		flush_watch__delete(fw);
		return err;
	}
	err = evlist__set_mmap_pages(fw->el, RING_PAGES);
	if (!err)
		err = evlist__open(fw->el, &t);
	if (!err)
		err = evlist__mmap(fw->el, 0);
	if (!err)
		err = evlist__enable(fw->el);
	if (err) {
		*why = "staleness: the memcg:memcg_flush_stats tracepoint cannot be opened (perf_event_open)";
		flush_watch__delete(fw);
		return err;
	}
	*out = fw;
	return 0;
}

/*
 * A sample is its header, then (the evlist's PERF_SAMPLE_IDENTIFIER
 * first) id, time, the raw size and the raw data.
 */
static int flush_record(void *ctx, const struct perf_event_header *hdr)
{
	const size_t raw = sizeof(*hdr) + 8 + 8 + 4;
	const unsigned char *rec = (const void *)hdr;
	struct flush_watch *fw = ctx;
	uint64_t t, id;
	uint32_t raw_size;

	if (hdr->type != PERF_RECORD_SAMPLE || hdr->size < raw)
		return 0;
	memcpy(&t, rec + sizeof(*hdr) + 8, 8);
	memcpy(&raw_size, rec + sizeof(*hdr) + 16, 4);
	if (raw_size >= fw->id_off + 8 && raw + raw_size <= hdr->size) {
		memcpy(&id, rec + raw + fw->id_off, 8);
		fw->fn(fw->ctx, t, id);
	}
	return 0;
}

/* Every flush record since the last drain. */
static void flush_watch__drain(struct flush_watch *fw, flush_fn fn, void *ctx)
{
	if (!fw)
		return;
	fw->fn = fn;
	fw->ctx = ctx;
	evlist__drain_records(fw->el, flush_record, fw);
}

/* A flush of a cgroup covers it and everything below it. */
static void on_flush(void *ctx, uint64_t t, uint64_t id)
{
	struct bench_accuracy *a = ctx;
	struct acc_cgroup *cg;
	unsigned int i, k;

	for (i = 0; i <= a->o.children; i++) {
		cg = &a->cg[i];
		for (k = 0; k < cg->nr_ids; k++) {
			if (cg->ids[k] != id)
				continue;
			if (t > cg->last_flush_ns)
				cg->last_flush_ns = t;
			if (!i)
				a->flushes++;
			break;
		}
	}
}

/* --- setup -------------------------------------------------------------- */

int bench_accuracy__new(struct bench_accuracy **ap,
			const struct bench_accuracy_opts *o, char *errbuf,
			size_t errlen)
{
	struct bench_accuracy *a;
	struct utsname u;
	cpu_set_t set;
	unsigned int i, c;
	long n;
	int err;

	*ap = NULL;
	if (!o->children || o->rate <= 0 || !o->reads || !o->step ||
	    o->step > ACC_MAX_PAGES) {
		errbuf_set(errbuf, errlen,
			   "accuracy: no children, rate, reads or step");
		return -EINVAL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->o = *o;
	a->page = sysconf(_SC_PAGESIZE);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	a->ncpus = n > 0 ? n : 1;
	a->batch = bench_accuracy__charge_batch(uname(&u) ? NULL : u.release);
	a->cpus = calloc(CPU_SETSIZE, sizeof(*a->cpus));
	a->child = calloc(o->children, sizeof(*a->child));
	a->cg = calloc(o->children + 1, sizeof(*a->cg));
	a->buf = malloc(STAT_BUF);
	a->seq = calloc(o->children, sizeof(*a->seq));
	a->ctl_size = sizeof(*a->ctl) + o->children * sizeof(struct acc_slot);
	a->ctl = bench_shared__alloc(a->ctl_size);
	if (!a->cpus || !a->child || !a->cg || !a->buf || !a->seq ||
	    !a->ctl) {
		err = -ENOMEM;
		goto fail;
	}
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set)) {
		err = -errno;
		errbuf_set(errbuf, errlen, "accuracy: sched_getaffinity: %s",
			   strerror(errno));
		goto fail;
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			a->cpus[a->nr_cpus++] = c;
	for (i = 0; i <= o->children; i++)
		a->cg[i].stat_fd = a->cg[i].usage_fd = -1;
	for (i = 0; i < o->children; i++) {
		a->child[i].a = a;
		a->child[i].idx = i;
		snprintf(a->child[i].file, sizeof(a->child[i].file),
			 "accuracy-%u", i + 1);
		/*
		 * A sparse file on the work directory's disk file system:
		 * reading a hole there puts a page in the page cache (on
		 * tmpfs it would map the zero page and charge nothing).
		 */
		err = bench_sparse_file(o->dirfd, a->child[i].file,
					(size_t)ACC_MAX_PAGES * a->page);
		if (err) {
			errbuf_set(errbuf, errlen, "accuracy: %s: %s",
				   a->child[i].file, strerror(-err));
			goto fail;
		}
	}
	*ap = a;
	return 0;
fail:
	bench_accuracy__delete(a);
	return err;
}

static void series_free(struct acc_series *s)
{
	free(s->anon);
	free(s->file);
	free(s->sum);
	free(s->ppm);
	free(s->stale);
	free(s->usage);
	free(s->truth);
	memset(s, 0, sizeof(*s));
}

void bench_accuracy__delete(struct bench_accuracy *a)
{
	unsigned int i;

	if (!a)
		return;
	flush_watch__delete(a->fw);
	for (i = 0; a->cg && i <= a->o.children; i++) {
		if (a->cg[i].stat_fd >= 0)
			close(a->cg[i].stat_fd);
		if (a->cg[i].usage_fd >= 0)
			close(a->cg[i].usage_fd);
	}
	if (a->ctl)
		bench_shared__free(a->ctl, a->ctl_size);
	series_free(&a->series[0]);
	series_free(&a->series[1]);
	free(a->over);
	free(a->cpus);
	free(a->child);
	free(a->cg);
	free(a->buf);
	free(a->seq);
	free(a);
}

int bench_accuracy__set_cgroup(struct bench_accuracy *a, unsigned int i,
			       const char *dir, char *errbuf, size_t errlen)
{
	struct acc_cgroup *cg;
	char path[PATH_MAX], *slash;
	struct stat st;
	dev_t dev;
	int fd;

	if (i > a->o.children)
		return -EINVAL;
	cg = &a->cg[i];
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	cg->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (cg->stat_fd < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		goto fail;
	cg->usage_fd = fd;
	/*
	 * The ids the tracepoint names: a cgroup's id is its directory's
	 * inode number (kernfs). Up to the hierarchy's root, whose flush
	 * (the periodic worker's) covers every cgroup.
	 */
	snprintf(path, sizeof(path), "%s", dir);
	if (stat(path, &st))
		goto fail;
	dev = st.st_dev;
	/* Up to the mount point: above it is another file system. */
	while (cg->nr_ids < MAX_ANCESTORS && !stat(path, &st) &&
	       st.st_dev == dev) {
		cg->ids[cg->nr_ids++] = st.st_ino;
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			break;
		*slash = '\0';
	}
	return 0;
fail:
	errbuf_set(errbuf, errlen, "%s: %s", path, strerror(errno));
	return -errno;
}

/* --- reading ------------------------------------------------------------ */

static int read_fd(int fd, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;

	while (used + 1 < len) {
		n = pread(fd, buf + used, len - 1 - used, used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		used += n;
	}
	buf[used] = '\0';
	return 0;
}

static bool stat_key(const char *text, const char *key, uint64_t *v)
{
	size_t n = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ') {
			*v = strtoull(p + n + 1, NULL, 10);
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

int bench_accuracy__parse_stat(const char *text, uint64_t *anon,
			       uint64_t *file)
{
	if (stat_key(text, "total_rss", anon))
		return stat_key(text, "total_cache", file) ? 0 : -ENOENT;
	if (stat_key(text, "anon", anon) && stat_key(text, "file", file))
		return 0;
	return -ENOENT;
}

static int read_stat(struct bench_accuracy *a, unsigned int i,
		     uint64_t *anon, uint64_t *file)
{
	int err = read_fd(a->cg[i].stat_fd, a->buf, STAT_BUF);

	if (!err && bench_accuracy__parse_stat(a->buf, anon, file))
		err = -EPROTO;
	return err;
}

static int read_usage(struct bench_accuracy *a, unsigned int i,
		      uint64_t *usage)
{
	int err = read_fd(a->cg[i].usage_fd, a->buf, STAT_BUF);

	if (!err)
		*usage = strtoull(a->buf, NULL, 10);
	return err;
}

static void take_seq(struct bench_accuracy *a)
{
	unsigned int c;

	for (c = 0; c < a->o.children; c++)
		a->seq[c] = __atomic_load_n(&a->ctl->slot[c].seq,
					    __ATOMIC_ACQUIRE);
}

static bool stopped(const struct bench_accuracy *a)
{
	return a->o.stop && *a->o.stop;
}

static int set_pause(struct bench_accuracy *a, bool pause)
{
	uint64_t t0 = now_ns();
	unsigned int i;

	__atomic_store_n(&a->ctl->pause, pause, __ATOMIC_RELEASE);
	if (!pause)
		return 0;
	for (i = 0; i < a->o.children; i++) {
		while (!__atomic_load_n(&a->ctl->slot[i].paused,
					__ATOMIC_ACQUIRE)) {
			if (stopped(a))
				return -EINTR;
			if (a->ctl->slot[i].err)
				return -a->ctl->slot[i].err;
			if (now_ns() - t0 > READY_TIMEOUT_S * 1000000000ULL)
				return -ETIMEDOUT;
			sleep_ns(200000);
		}
	}
	return 0;
}

/* With the children paused: make the parent's next read flush. */
static int kick_flush(struct bench_accuracy *a)
{
	uint64_t t0 = now_ns();

	__atomic_store_n(&a->ctl->kick, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&a->ctl->kick, __ATOMIC_ACQUIRE)) {
		if (stopped(a))
			return -EINTR;
		if (a->ctl->slot[0].err)
			return -a->ctl->slot[0].err;
		if (now_ns() - t0 > READY_TIMEOUT_S * 1000000000ULL)
			return -ETIMEDOUT;
		sleep_ns(200000);
	}
	return 0;
}

/*
 * After a kick, a read of the parent's memory.stat (not counted) flushes
 * the run's tree; kick again until the flush watch saw it. Then read,
 * with nothing left to flush.
 *
 * Only a flush that began after the kick ended proves that: on a busy
 * host other readers and the periodic worker flush ancestors all the
 * time, and one that runs during the kick folds in part of it and sets
 * the threshold count back, so that the rest of the kick (a few pages'
 * updates) stays below the threshold and the parent's read does not
 * flush. Counting such a flush gave reads 12 pages off "after a flush".
 *
 * The kernel flushes there by design (the tracefs event shows it does);
 * a watch that sees no flush at all in three tries is not seeing
 * flushes: a BPF program attached to the same tracepoint that returns 0
 * keeps every hit from the perf events on it
 * (perf_trace_run_bpf_submit()), as bpf-spans' programs do while they
 * run. Staleness is then unknown, and left out with a reason, rather
 * than measured from flushes missed. A watch that saw flushes, but none
 * after a kick, leaves the round unconfirmed (a->round_flushed).
 */
static int flushed_read(struct bench_accuracy *a, uint64_t round,
			int (*then)(struct bench_accuracy *a, uint64_t round))
{
	uint64_t t0, t_kicked, anon, file;
	bool seen = false;
	int tries, err;

	a->round_flushed = false;
	for (tries = 0; tries < KICK_TRIES; tries++) {
		t0 = now_ns();
		err = kick_flush(a);
		t_kicked = now_ns();
		if (!err)
			err = read_stat(a, 0, &anon, &file);
		if (err)
			return err;
		if (!a->fw)
			return then(a, round);
		flush_watch__drain(a->fw, on_flush, a);
		if (a->cg[0].last_flush_ns >= t0)
			seen = true;
		if (a->cg[0].last_flush_ns >= t_kicked) {
			a->round_flushed = true;
			return then(a, round);
		}
	}
	if (seen) {
		a->rounds_unflushed++;
		return then(a, round);
	}
	a->watch_lost = "staleness: memcg:memcg_flush_stats delivered nothing for flushes the run caused (a BPF program on that tracepoint returning 0 hides it from perf): left out";
	flush_watch__delete(a->fw);
	a->fw = NULL;
	return then(a, round);
}

const char *bench_accuracy__watch_lost(const struct bench_accuracy *a)
{
	return a->watch_lost;
}

/* What each cgroup holds besides the children's steps. */
static int read_baselines(struct bench_accuracy *a, uint64_t round)
{
	uint64_t anon, file, usage;
	struct acc_range r;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i <= a->o.children; i++) {
		err = read_stat(a, i, &anon, &file);
		if (!err)
			err = read_usage(a, i, &usage);
		if (err)
			break;
		take_seq(a);
		truth(a, i, &r);
		a->cg[i].base_anon = (int64_t)(anon / a->page) -
				     (int64_t)r.anon_lo;
		a->cg[i].base_file = (int64_t)(file / a->page) -
				     (int64_t)r.file_lo;
		a->cg[i].base_usage = (int64_t)usage -
				      (int64_t)((r.anon_lo + r.file_lo) *
						a->page);
	}
	return err;
}

int bench_accuracy__settle(struct bench_accuracy *a, const char **why,
			   char *errbuf, size_t errlen)
{
	uint64_t t0 = now_ns();
	unsigned int i;
	int err;

	*why = NULL;
	for (i = 0; i < a->o.children; i++) {
		while (!__atomic_load_n(&a->ctl->slot[i].ready,
					__ATOMIC_ACQUIRE)) {
			if (stopped(a))
				return -EINTR;
			if (a->ctl->slot[i].err) {
				errbuf_set(errbuf, errlen,
					   "accuracy: child %u: %s", i + 1,
					   strerror(a->ctl->slot[i].err));
				return -a->ctl->slot[i].err;
			}
			if (now_ns() - t0 > READY_TIMEOUT_S * 1000000000ULL) {
				errbuf_set(errbuf, errlen,
					   "accuracy: child %u did not start within %d s",
					   i + 1, READY_TIMEOUT_S);
				return -ETIMEDOUT;
			}
			sleep_ns(1000000);
		}
	}
	err = flush_watch__new(&a->fw, a, why);
	if (err == -ENOMEM)
		return err;
	/* The children wait for go: the baselines after a flush. */
	err = flushed_read(a, 0, read_baselines);
	if (err == -EPROTO)
		errbuf_set(errbuf, errlen,
			   "accuracy: memory.stat has no anon and file (v2) or total_rss and total_cache (v1)");
	else if (err && err != -EINTR)
		errbuf_set(errbuf, errlen, "accuracy: reading memory.stat: %s",
			   strerror(-err));
	if (err)
		return err;
	__atomic_store_n(&a->ctl->go, 1, __ATOMIC_RELEASE);
	return 0;
}

static int series_grow(struct acc_series *s, size_t need)
{
	uint64_t **arrs[] = { &s->anon, &s->file, &s->sum, &s->ppm,
			      &s->stale, &s->usage, &s->truth };
	size_t i, cap = s->cap;

	if (need <= s->cap)
		return 0;
	for (i = 0; i < ARRAY_SIZE(arrs); i++) {
		void *p = *arrs[i];

		cap = s->cap;
		if (grow_array(&p, &cap, need, sizeof(uint64_t)))
			return -ENOMEM;
		*arrs[i] = p;
	}
	s->cap = cap;
	return 0;
}

/* Distance from v to [lo, hi], signed: above is positive. */
static int64_t off_range(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? v - lo : v > hi ? v - hi : 0;
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

static const char *why_over(const struct bench_accuracy *a, uint64_t err,
			    uint64_t stale)
{
	uint64_t residue = (uint64_t)(2 * a->batch - 1) * a->ncpus * a->page;

	/*
	 * The threshold counts the updates that left the per-CPU
	 * counters; each CPU keeps up to MEMCG_CHARGE_BATCH - 1 more that
	 * no reader's check sees.
	 */
	if (err <= residue)
		return "within the updates still held per CPU (below MEMCG_CHARGE_BATCH each), which the flush threshold does not count";
	if (stale != UINT64_MAX && stale > 2500000000ULL)
		return "no flush covered this cgroup for more than the periodic worker's 2 s";
	return "beyond the threshold and the per-CPU updates: a read that needed a flush did not get one (ratelimited or a flush in progress)";
}

static int add_over(struct bench_accuracy *a, uint64_t round,
		    unsigned int cgroup, uint64_t err, uint64_t stale)
{
	struct acc_over *o;
	void *p = a->over;

	if (grow_array(&p, &a->cap_over, a->nr_over + 1, sizeof(*o)))
		return -ENOMEM;
	a->over = p;
	o = &a->over[a->nr_over++];
	o->round = round;
	o->cgroup = cgroup;
	o->error_bytes = err;
	o->stale_ns = stale;
	o->why = why_over(a, err, stale);
	return 0;
}

/* One read of cgroup i, its errors appended to its series. */
static int read_one(struct bench_accuracy *a, uint64_t round, unsigned int i)
{
	struct acc_series *s = &a->series[i ? 1 : 0];
	struct acc_cgroup *cg = &a->cg[i];
	uint64_t anon, file, usage, t0, stale;
	struct acc_range r1, r2;
	int64_t pg = a->page, ea, ef, es, eu, lo, hi, alo, ahi, flo, fhi;
	size_t k;
	int err;

	take_seq(a);
	truth(a, i, &r1);
	t0 = now_ns();
	err = read_stat(a, i, &anon, &file);
	truth(a, i, &r2);
	if (!err)
		err = read_usage(a, i, &usage);
	if (err)
		return err;
	if (a->fw)
		flush_watch__drain(a->fw, on_flush, a);
	err = series_grow(s, s->n + 1);
	if (err)
		return err;
	k = s->n++;
	/* The truth is anywhere it was between the two looks. */
	alo = (int64_t)(r1.anon_lo < r2.anon_lo ? r1.anon_lo : r2.anon_lo);
	ahi = (int64_t)(r1.anon_hi > r2.anon_hi ? r1.anon_hi : r2.anon_hi);
	flo = (int64_t)(r1.file_lo < r2.file_lo ? r1.file_lo : r2.file_lo);
	fhi = (int64_t)(r1.file_hi > r2.file_hi ? r1.file_hi : r2.file_hi);
	ea = off_range((int64_t)anon, (alo + cg->base_anon) * pg,
		       (ahi + cg->base_anon) * pg);
	ef = off_range((int64_t)file, (flo + cg->base_file) * pg,
		       (fhi + cg->base_file) * pg);
	lo = alo + flo;
	hi = ahi + fhi;
	es = off_range((int64_t)(anon + file),
		       (lo + cg->base_anon + cg->base_file) * pg,
		       (hi + cg->base_anon + cg->base_file) * pg);
	eu = off_range((int64_t)usage, lo * pg + cg->base_usage,
		       hi * pg + cg->base_usage);
	s->anon[k] = mag(ea);
	s->file[k] = mag(ef);
	s->sum[k] = mag(es);
	s->usage[k] = mag(eu);
	/*
	 * The truth nearest to the read (what the children and their
	 * baselines hold), and the error's share of it in parts per million.
	 */
	{
		int64_t t = (int64_t)(anon + file) - es;

		s->truth[k] = t > 0 ? (uint64_t)t : 0;
		s->ppm[k] = t > 0 ? (uint64_t)((double)mag(es) * 1e6 / t) :
			    mag(es) ? 1000000 : 0;
	}
	s->below += es < 0;
	s->above += es > 0;
	if (a->o.after_flush && es) {
		bool seen = a->fw && a->round_flushed;

		if (seen) {
			a->off_flushed++;
			if (mag(es) > a->off_flushed_max)
				a->off_flushed_max = mag(es);
		} else {
			a->off_unflushed++;
			if (mag(es) > a->off_unflushed_max)
				a->off_unflushed_max = mag(es);
		}
	}
	if (r1.moving || r2.moving)
		s->in_step++;
	stale = UINT64_MAX;
	if (a->fw && cg->last_flush_ns)
		stale = t0 > cg->last_flush_ns ? t0 - cg->last_flush_ns : 0;
	s->stale[k] = stale == UINT64_MAX ? 0 : stale;
	if (s->sum[k] > bench_accuracy__bound_bytes(a)) {
		s->over++;
		err = add_over(a, round, i, s->sum[k], stale);
	}
	return err;
}

static int read_nothing(struct bench_accuracy *a, uint64_t round)
{
	return 0;
}

/* The parent, then every child. */
static int read_round(struct bench_accuracy *a, uint64_t round)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i <= a->o.children; i++)
		err = read_one(a, round, i);
	return err;
}

uint64_t bench_accuracy__bound_bytes(const struct bench_accuracy *a)
{
	return (uint64_t)a->batch * a->ncpus * a->page;
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

int bench_accuracy__run(struct bench_accuracy *a, double *real_s,
			double *user_s, double *sys_s, char *errbuf,
			size_t errlen)
{
	uint64_t round, t_start, next;
	uint64_t interval = (uint64_t)(a->o.interval_ms * 1e6);
	struct rusage ru0, ru1;
	unsigned int i;
	int err = 0;

	series_free(&a->series[0]);
	series_free(&a->series[1]);
	a->nr_over = 0;
	a->flushes = 0;
	a->rounds_unflushed = a->off_flushed = a->off_unflushed = 0;
	a->off_flushed_max = a->off_unflushed_max = 0;
	/*
	 * Whether the watch still sees flushes: a recorder started since
	 * (--record's pass) may have attached BPF programs to the
	 * tracepoint. A kick with the children paused, not timed.
	 */
	if (a->fw) {
		err = set_pause(a, true);
		if (!err)
			err = flushed_read(a, 0, read_nothing);
		if (!err)
			err = set_pause(a, false);
		if (err)
			return err;
	}
	getrusage(RUSAGE_THREAD, &ru0);
	t_start = next = now_ns();
	if (a->fw)
		flush_watch__drain(a->fw, on_flush, a);
	for (round = 0; !err && round < a->o.reads; round++) {
		if (stopped(a)) {
			err = -EINTR;
			break;
		}
		/* The children step meanwhile. */
		if (now_ns() < next)
			sleep_ns(next - now_ns());
		next += interval;
		if (a->o.after_flush) {
			err = set_pause(a, true);
			if (!err)
				err = flushed_read(a, round, read_round);
		} else {
			err = read_round(a, round);
		}
		if (err && err != -ENOMEM && err != -EINTR)
			errbuf_set(errbuf, errlen,
				   "accuracy: reading memory.stat: %s",
				   strerror(-err));
		for (i = 0; !err && i < a->o.children; i++)
			if (a->ctl->slot[i].err) {
				err = -a->ctl->slot[i].err;
				errbuf_set(errbuf, errlen,
					   "accuracy: child %u: %s", i + 1,
					   strerror(-err));
			}
		if (a->o.after_flush && !err)
			err = set_pause(a, false);
	}
	getrusage(RUSAGE_THREAD, &ru1);
	*real_s = (now_ns() - t_start) / 1e9;
	*user_s = tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime);
	*sys_s = tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime);
	if (*user_s < 0)
		*user_s = 0;
	if (*sys_s < 0)
		*sys_s = 0;
	return err;
}

static int add_hist(struct bench_results *r, const char *name,
		    const char *unit, const char *file, const uint64_t *v,
		    size_t n)
{
	struct hist *h = hist__new();
	size_t i;
	int err = h ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++)
		err = hist__add(h, v[i]);
	if (!err)
		err = bench_results__rep_metric_hist(r, name, unit, file, true,
						     h, n ? v : NULL, n);
	hist__delete(h);
	return err;
}

int bench_accuracy__add_metrics(struct bench_accuracy *a,
				struct bench_results *r)
{
	static const char *const files[] = { "memory.stat", "c*/memory.stat" };
	/* Single figures have no file: the children's carry a prefix. */
	static const char *const prefix[] = { "", "children_" };
	char name[64];
	unsigned int g;
	int err = 0;

	for (g = 0; !err && g < 2; g++) {
		const struct acc_series *s = &a->series[g];

		err = add_hist(r, "error_bytes", "bytes", files[g], s->sum,
			       s->n);
		err = err ?: add_hist(r, "error_anon_bytes", "bytes",
				      files[g], s->anon, s->n);
		err = err ?: add_hist(r, "error_file_bytes", "bytes",
				      files[g], s->file, s->n);
		err = err ?: add_hist(r, "error_ppm", "ppm", files[g], s->ppm,
				      s->n);
		if (a->fw)
			err = err ?: add_hist(r, "staleness_ns", "ns",
					      files[g], s->stale, s->n);
		err = err ?: add_hist(r, "usage_error_bytes", "bytes",
				      files[g], s->usage, s->n);
		err = err ?: add_hist(r, "truth_bytes", "bytes", files[g],
				      s->truth, s->n);
		snprintf(name, sizeof(name), "%sreads_below_truth", prefix[g]);
		err = err ?: bench_results__rep_metric_value(r, name, "reads",
				true, s->below);
		snprintf(name, sizeof(name), "%sreads_above_truth", prefix[g]);
		err = err ?: bench_results__rep_metric_value(r, name, "reads",
				true, s->above);
		snprintf(name, sizeof(name), "%sreads_over_bound", prefix[g]);
		err = err ?: bench_results__rep_metric_value(r, name, "reads",
				true, s->over);
		snprintf(name, sizeof(name), "%sreads_during_step", prefix[g]);
		err = err ?: bench_results__rep_metric_value(r, name, "reads",
				true, s->in_step);
	}
	/* The bound and the flushes seen describe the run: no direction. */
	err = err ?: bench_results__rep_metric_info(r, "bound_bytes",
			"bytes", bench_accuracy__bound_bytes(a));
	if (a->fw)
		err = err ?: bench_results__rep_metric_info(r, "flushes",
				"flushes", a->flushes);
	if (a->o.after_flush) {
		err = err ?: bench_results__rep_metric_value(r,
				"rounds_unflushed", "rounds", true,
				a->rounds_unflushed);
		err = err ?: bench_results__rep_metric_value(r,
				"reads_off_after_flush", "reads", true,
				a->off_flushed);
		err = err ?: bench_results__rep_metric_value(r,
				"reads_off_unflushed", "reads", true,
				a->off_unflushed);
	}
	return err;
}

int bench_accuracy__after_flush(const struct bench_accuracy *a,
				struct acc_after_flush *af)
{
	memset(af, 0, sizeof(*af));
	if (!a->o.after_flush)
		return 0;
	af->watched = a->fw != NULL;
	af->rounds_unflushed = a->rounds_unflushed;
	af->off_flushed = a->off_flushed;
	af->off_flushed_max = a->off_flushed_max;
	af->off_unflushed = a->off_unflushed;
	af->off_unflushed_max = a->off_unflushed_max;
	return af->off_flushed || af->off_unflushed;
}

size_t bench_accuracy__nr_over(const struct bench_accuracy *a)
{
	return a->nr_over;
}

const struct acc_over *bench_accuracy__over(const struct bench_accuracy *a,
					    size_t i)
{
	return i < a->nr_over ? &a->over[i] : NULL;
}
