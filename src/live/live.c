// SPDX-License-Identifier: GPL-2.0
/*
 * The live views' reader (include/live.h): bpf_spans attached with the
 * per-cgroup counts on, read into fixed-size snapshots.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bpf-spans.h"
#include "cgroup-path.h"
#include "hist.h"
#include "kernel-spans.h"
#include "live.h"
#include "util.h"

/* The kernel's LRU map holds at most this many cgroups. */
#define LIVE_MAX_CG 4096

struct live {
	struct live_opts o;
	struct bpf_spans *bs;
	struct span_classifier *sc;	/* names each row's subsystem */
	struct span_class *classes;	/* the last sample's, one a row */
	size_t cap_classes;
	double t0;
	/* The per-cgroup totals of the previous sample, sorted by key. */
	struct bpf_spans_cgroup *prev, *cur;
	size_t nr_prev;
	struct cgroup_paths *paths;
	bool reload_paths;
	double paths_at;	/* when the tree was last walked */
};

static const char *const source_names[LIVE_SRC__NR] = {
	[LIVE_SRC_RSTAT_TRACEPOINTS] = "rstat_tracepoints",
	[LIVE_SRC_FLUSH_SPANS] = "flush_spans",
	[LIVE_SRC_MEMCG_TRACEPOINT] = "memcg_flush_stats",
	[LIVE_SRC_CGROUP_LEVEL] = "cgroup_level",
	[LIVE_SRC_KALLSYMS] = "kallsyms",
};

const char *live_source_name(enum live_source src)
{
	return (unsigned int)src < LIVE_SRC__NR ? source_names[src] : "?";
}

struct live *live__new(const struct live_opts *o)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	if (o)
		l->o = *o;
	l->prev = calloc(LIVE_MAX_CG, sizeof(*l->prev));
	l->cur = calloc(LIVE_MAX_CG, sizeof(*l->cur));
	l->sc = span_classifier__new(NULL);
	if (!l->prev || !l->cur || !l->sc) {
		live__delete(l);
		return NULL;
	}
	return l;
}

void live__delete(struct live *l)
{
	if (!l)
		return;
	bpf_spans__delete(l->bs);
	span_classifier__delete(l->sc);
	free(l->classes);
	cgroup_paths__delete(l->paths);
	free(l->prev);
	free(l->cur);
	free(l);
}

int live__open(struct live *l, char *errbuf, size_t errlen)
{
	struct bpf_spans_opts bo = { .nr_tgids = 0 };
	int err;

	if (l->bs) {
		errbuf_set(errbuf, errlen, "live: already open");
		return -EINVAL;
	}
	bo.no_stacks = l->o.no_stacks;
	bo.per_cgroup = true;
	bo.cgroup_ids = l->o.cgroup_ids;
	bo.nr_cgroup_ids = l->o.nr_cgroup_ids;
	l->bs = bpf_spans__new(&bo);
	if (!l->bs) {
		errbuf_set(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	err = bpf_spans__open(l->bs, errbuf, errlen);
	if (!err)
		err = bpf_spans__attach(l->bs, errbuf, errlen);
	if (err) {
		bpf_spans__delete(l->bs);
		l->bs = NULL;
		return err;
	}
	l->t0 = rs_now_s();
	return 0;
}

int live_cgroup_arg(const char *path, uint64_t *ids, size_t *nr, size_t max,
		    char *errbuf, size_t len)
{
	struct statfs fs;
	int err;

	if (*nr == max) {
		errbuf_set(errbuf, len, "at most %zu --cgroup", max);
		return -E2BIG;
	}
	/* tmpfs gives 8-byte handles too: only a cgroup mount's dirs. */
	if (statfs(path, &fs))
		err = -errno;
	else if (fs.f_type != CGROUP2_SUPER_MAGIC &&
		 fs.f_type != CGROUP_SUPER_MAGIC)
		err = -ENOTDIR;
	else
		err = cgroup_path__id(path, &ids[*nr]);
	if (err) {
		errbuf_set(errbuf, len, "--cgroup %s: %s: give a cgroup directory",
			   path, strerror(-err));
		return err;
	}
	(*nr)++;
	return 0;
}

int live__load_symbols(struct live *l)
{
	return l->bs ? bpf_spans__load_symbols(l->bs) : -EINVAL;
}

void live__reload(struct live *l)
{
	if (l->bs)
		bpf_spans__forget_symbols(l->bs);
	l->reload_paths = true;
	l->paths_at = 0;	/* now, not in 10 s */
}

void live_hist__delta(struct bpf_spans_hist *out,
		      const struct bpf_spans_hist *cur,
		      const struct bpf_spans_hist *prev)
{
	int i, lo = -1, hi = -1;
	uint64_t low, high;

	*out = *cur;
	if (!prev)
		return;
	out->count = cur->count >= prev->count ? cur->count - prev->count : 0;
	out->sum = cur->sum >= prev->sum ? cur->sum - prev->sum : 0;
	for (i = 0; i < BPF_SPANS_SLOTS; i++) {
		out->slots[i] = cur->slots[i] >= prev->slots[i] ?
			cur->slots[i] - prev->slots[i] : 0;
		if (out->slots[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
	}
	/* The interval's extremes are known to their bucket only. */
	out->min = out->max = 0;
	if (lo >= 0) {
		hist__bucket_bounds(lo, &low, &high);
		out->min = low;
		hist__bucket_bounds(hi, &low, &high);
		out->max = high;
	}
}

static int cg_cmp(const void *a, const void *b)
{
	const struct bpf_spans_cgroup *x = a, *y = b;

	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

static int busy_cmp(const void *a, const void *b)
{
	const struct live_cgroup *x = a, *y = b;

	if (x->flushes != y->flushes)
		return x->flushes > y->flushes ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Keep c among the LIVE_CGROUPS busiest of snap (a small sorted list). */
static void keep_busiest(struct live_snap *snap, const struct live_cgroup *c)
{
	size_t n = snap->nr_cgroups;

	if (n == LIVE_CGROUPS) {
		if (busy_cmp(c, &snap->cgroups[n - 1]) >= 0)
			return;
		n--;
	}
	snap->cgroups[n] = *c;
	snap->nr_cgroups = n + 1;
	qsort(snap->cgroups, snap->nr_cgroups, sizeof(*c), busy_cmp);
}

static int read_cgroups(struct live *l, struct live_snap *snap)
{
	struct bpf_spans_cgroup *tmp;
	size_t nr = 0, i;
	int err;

	err = bpf_spans__read_cgroups(l->bs, l->cur, LIVE_MAX_CG, &nr,
				      snap->level_flushes, snap->level_ns);
	if (err)
		return err;
	qsort(l->cur, nr, sizeof(*l->cur), cg_cmp);
	for (i = 0; i < nr; i++) {
		const struct bpf_spans_cgroup *c = &l->cur[i], *p;
		struct live_cgroup lc;

		p = bsearch(c, l->prev, l->nr_prev, sizeof(*c), cg_cmp);
		memset(&lc, 0, sizeof(lc));
		lc.id = c->id;
		lc.root = c->root;
		lc.level = c->level;
		/* Evicted and back: its count restarted from 0. */
		lc.flushes = p && p->flushes <= c->flushes ?
			c->flushes - p->flushes : c->flushes;
		lc.ns = p && p->ns <= c->ns ? c->ns - p->ns : c->ns;
		if (lc.flushes)
			keep_busiest(snap, &lc);
	}
	tmp = l->prev;
	l->prev = l->cur;
	l->cur = tmp;
	l->nr_prev = nr;
	return 0;
}

/*
 * Name the busiest cgroups. The tree is walked again after a reload, or
 * when one was not found (made since), at most every 10 s: a cgroup
 * removed since its flush is never found, and must not make every
 * interval walk the whole tree.
 */
static int name_cgroups(struct live *l, struct live_snap *snap)
{
	size_t i;

	if (!l->paths || (l->reload_paths && snap->t - l->paths_at >= 10)) {
		cgroup_paths__delete(l->paths);
		l->paths = cgroup_paths__new();
		l->reload_paths = false;
		l->paths_at = snap->t;
		if (!l->paths)
			return -ENOMEM;
	}
	for (i = 0; i < snap->nr_cgroups; i++) {
		struct live_cgroup *c = &snap->cgroups[i];
		const char *p = cgroup_paths__find(l->paths, c->root, c->id);

		if (p)
			snprintf(c->path, sizeof(c->path), "%s", p);
		else
			/* Made after the walk: look again next time. */
			l->reload_paths = true;
	}
	return 0;
}

static void self_cost(struct live_snap *snap)
{
	struct rusage ru;
	long pages = 0, rss = 0;
	FILE *f;

	if (!getrusage(RUSAGE_SELF, &ru))
		snap->self_cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) == 2)
			snap->self_rss_kb = rss *
				(sysconf(_SC_PAGESIZE) / 1024);
		fclose(f);
	}
}

int live__sample(struct live *l, struct live_snap *snap, char *errbuf,
		 size_t errlen)
{
	const struct bpf_spans_row *rows;
	struct bpf_spans_sources src;
	size_t nr, i;
	int err;

	memset(snap, 0, sizeof(*snap));
	if (!l->bs) {
		errbuf_set(errbuf, errlen, "live: sample before open");
		return -EINVAL;
	}
	err = bpf_spans__read(l->bs, errbuf, errlen);
	if (err)
		return err;
	snap->t = rs_now_s();
	snap->elapsed = snap->t - l->t0;
	bpf_spans__counts(l->bs, &snap->counts);
	bpf_spans__sources(l->bs, &src);
	bpf_spans__rows(l->bs, &rows, &nr);
	if (grow_array((void **)&l->classes, &l->cap_classes, nr ? nr : 1,
		       sizeof(*l->classes))) {
		errbuf_set(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	snap->counts.unresolved = span_classifier__merge(l->sc, rows, nr,
							 snap->hist,
							 l->classes);
	for (i = 0; i < nr; i++) {
		int t = l->classes[i].trigger, s = l->classes[i].subsys;

		if (rows[i].kind == BPF_SPANS_HOLD && rows[i].short_lock)
			snap->short_holds += rows[i].hist.count;
		else if (rows[i].kind == BPF_SPANS_HOLD && !src.flush_spans)
			snap->yields += rows[i].hist.count;

		if (rows[i].kind != BPF_SPANS_FLUSH)
			continue;
		if (t < -1 || t >= RS_TRIG__NR)
			t = -1;
		if (s < -1 || s >= RS_CAT__NR)
			s = -1;
		snap->flushes[t + 1][s + 1] += rows[i].hist.count;
	}
	err = read_cgroups(l, snap);
	if (!err && l->o.cgroup_paths)
		err = name_cgroups(l, snap);
	if (err) {
		errbuf_set(errbuf, errlen, "live: cgroup flushes: %s",
			strerror(-err));
		return err;
	}
	snap->missing[LIVE_SRC_RSTAT_TRACEPOINTS] = !src.lock_tracepoints;
	snap->missing[LIVE_SRC_FLUSH_SPANS] = !src.flush_spans &&
		!src.kprobes;
	snap->missing[LIVE_SRC_MEMCG_TRACEPOINT] = !src.memcg_tracepoint;
	snap->missing[LIVE_SRC_CGROUP_LEVEL] = !src.levels;
	/* Unknown until a stack needed it; no stack then, nothing lost. */
	snap->missing[LIVE_SRC_KALLSYMS] = !l->o.no_stacks && !src.kallsyms &&
		snap->counts.pairs + snap->counts.flushes > 0;
	if (l->o.no_stacks)
		snap->missing[LIVE_SRC_KALLSYMS] = true;
	snap->method = bpf_spans__method(l->bs);
	bpf_spans__prog_stats(l->bs, &snap->prog_ns, &snap->prog_runs);
	self_cost(snap);
	return 0;
}
