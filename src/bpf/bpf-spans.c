// SPDX-License-Identifier: GPL-2.0
/*
 * The loader and reader of rstat-spans.bpf.c (see include/bpf-spans.h).
 *
 * Built without RS_HAVE_BPF (no clang, bpftool or libbpf-dev at build
 * time) every entry point still exists: open says "built without BPF",
 * so callers keep one code path and fall back to perf.
 */
#include <errno.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bpf-spans.h"
#include "hist.h"
#include "kfeatures.h"
#include "perf-event.h"
#include "symbols.h"
#include "util.h"

#ifdef RS_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <event-parse.h>
#include <tracefs.h>

#include "bpf-int.h"
#include "rstat-spans.h"
#include "rstat-spans.skel.h"
#endif

#define DEFAULT_DEPTH 12

/* A kernel stack of the stack map, resolved once. */
struct rs_stack {
	int32_t id;
	const char **frames;
	uint32_t nr;
	bool own_names;		/* frames[] were malloc'ed for this stack */
};

/* A frame kallsyms has no symbol for, as a machine names it. */
static const char unknown_frame[] = "[unknown]";

static void stack_free(struct rs_stack *st)
{
	uint32_t i;

	for (i = 0; st->own_names && i < st->nr; i++)
		if (st->frames[i] != unknown_frame)
			free((char *)st->frames[i]);
	free(st->frames);
}

struct bpf_spans {
	struct bpf_spans_opts o;	/* arrays point at our copies */
	pid_t *tgids;
	uint64_t *cgroup_ids;
	struct machine *machine;
	bool kallsyms_tried;
	bool named;		/* a stack was named without the machine */
	const char *ktext;	/* bpf_spans__set_kallsyms_text()'s */
	size_t ktext_len;
#ifdef RS_HAVE_BPF
	struct rstat_spans *skel;
#endif
	int ncpus;
	bool attached;
	/* No rstat tracepoints: flushes timed by kprobes on FLUSH_FUNC. */
	bool kprobes;
	struct bpf_spans_sources src;
	uint64_t locked_base;	/* nlocked summed at the last reset */

	struct rs_stack *stacks;
	size_t nr_stacks, cap_stacks;

	struct bpf_spans_row *rows;
	size_t nr_rows, cap_rows;
	struct bpf_spans_counts counts;
};

static const char *const kind_names[BPF_SPANS__NR_KINDS] = {
	[BPF_SPANS_HOLD] = "hold",
	[BPF_SPANS_WAIT] = "wait",
	[BPF_SPANS_FLUSH] = "flush",
	[BPF_SPANS_MEMCG] = "memcg-flush",
};

const char *bpf_spans_kind_name(enum bpf_spans_kind k)
{
	return (unsigned int)k < BPF_SPANS__NR_KINDS ? kind_names[k] : "?";
}

uint64_t bpf_spans_hist__percentile(const struct bpf_spans_hist *h,
				    double q, uint64_t *low, uint64_t *high)
{
	uint64_t rank, seen = 0, lo = 0, hi = 0, n = 0;
	double r;
	int i;

	/*
	 * The slots' sum, not count: read while attached, a span may be
	 * counted and not yet in its slot.
	 */
	for (i = 0; h && i < BPF_SPANS_SLOTS; i++)
		n += h->slots[i];
	if (n) {
		if (!(q > 0))	/* NaN too */
			rank = 1;
		else if (q >= 100)
			rank = n;
		else {
			r = q * (double)n / 100.0;
			rank = (uint64_t)r;
			/* Nearest rank: ceil, as hist__percentile() does. */
			if ((double)rank < r - r * 1e-12)
				rank++;
			if (!rank)
				rank = 1;
		}
		for (i = 0; i < BPF_SPANS_SLOTS; i++) {
			seen += h->slots[i];
			if (seen >= rank)
				break;
		}
		if (i >= BPF_SPANS_SLOTS)
			i = BPF_SPANS_SLOTS - 1;
		hist__bucket_bounds(i, &lo, &hi);
	}
	if (low)
		*low = lo;
	if (high)
		*high = hi;
	return lo;
}

bool bpf_spans__built(void)
{
#ifdef RS_HAVE_BPF
	return true;
#else
	return false;
#endif
}

struct bpf_spans *bpf_spans__new(const struct bpf_spans_opts *o)
{
	struct bpf_spans *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (o)
		s->o = *o;
	if (s->o.nr_tgids) {
		s->tgids = calloc(s->o.nr_tgids, sizeof(*s->tgids));
		if (!s->tgids)
			goto fail;
		memcpy(s->tgids, o->tgids, s->o.nr_tgids * sizeof(*s->tgids));
	}
	s->o.tgids = s->tgids;
	if (s->o.nr_cgroup_ids) {
		s->cgroup_ids = calloc(s->o.nr_cgroup_ids,
				       sizeof(*s->cgroup_ids));
		if (!s->cgroup_ids)
			goto fail;
		memcpy(s->cgroup_ids, o->cgroup_ids,
		       s->o.nr_cgroup_ids * sizeof(*s->cgroup_ids));
	}
	s->o.cgroup_ids = s->cgroup_ids;
	s->o.kallsyms = NULL;
	if (o && o->kallsyms) {
		s->o.kallsyms = strdup(o->kallsyms);
		if (!s->o.kallsyms)
			goto fail;
	}
	return s;
fail:
	bpf_spans__delete(s);
	return NULL;
}

void bpf_spans__delete(struct bpf_spans *s)
{
	size_t i;

	if (!s)
		return;
#ifdef RS_HAVE_BPF
	/* Destroying the skeleton detaches the programs first. */
	rstat_spans__destroy(s->skel);
#endif
	for (i = 0; i < s->nr_stacks; i++)
		stack_free(&s->stacks[i]);
	free(s->stacks);
	free(s->rows);
	machine__delete(s->machine);
	free((char *)s->o.kallsyms);
	free(s->tgids);
	free(s->cgroup_ids);
	free(s);
}

const char *bpf_spans__method(const struct bpf_spans *s)
{
	return s->kprobes ? "kprobes on " BPF_SPANS_FLUSH_FUNC :
	       "rstat tracepoints";
}

void bpf_spans__counts(const struct bpf_spans *s, struct bpf_spans_counts *c)
{
	*c = s->counts;
}

void bpf_spans__rows(const struct bpf_spans *s,
		     const struct bpf_spans_row **rows, size_t *nr)
{
	*rows = s->rows;
	*nr = s->nr_rows;
}

void bpf_spans_hist__merge(struct bpf_spans_hist *dst,
			   const struct bpf_spans_hist *src)
{
	int i;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum = dst->sum + src->sum < dst->sum ? UINT64_MAX :
		dst->sum + src->sum;
	for (i = 0; i < BPF_SPANS_SLOTS; i++)
		dst->slots[i] += src->slots[i];
}

void bpf_spans__forget_symbols(struct bpf_spans *s)
{
	size_t i;

	for (i = 0; i < s->nr_stacks; i++)
		stack_free(&s->stacks[i]);
	s->nr_stacks = 0;
	s->named = false;
	s->nr_rows = 0;
	machine__delete(s->machine);
	s->machine = NULL;
	s->kallsyms_tried = false;
}

void bpf_spans__set_kallsyms_text(struct bpf_spans *s, const char *text,
				  size_t len)
{
	s->ktext = text;
	s->ktext_len = len;
}

void bpf_spans__sources(const struct bpf_spans *s,
			struct bpf_spans_sources *out)
{
	*out = s->src;
	out->kallsyms = s->machine != NULL || s->named;
}

#ifndef RS_HAVE_BPF

int bpf_spans__read_cgroups(struct bpf_spans *s, struct bpf_spans_cgroup *out,
			    size_t max, size_t *nr,
			    uint64_t level_flushes[BPF_SPANS_LEVELS],
			    uint64_t level_ns[BPF_SPANS_LEVELS])
{
	*nr = 0;
	return -EOPNOTSUPP;
}

int bpf_spans__prog_stats(const struct bpf_spans *s, uint64_t *run_ns,
			  uint64_t *runs)
{
	*run_ns = *runs = 0;
	return -EOPNOTSUPP;
}

static int no_bpf(char *errbuf, size_t errlen)
{
	errbuf_set(errbuf, errlen,
		"built without BPF (clang, bpftool or libbpf-dev were missing at build time; scripts/install-deps.sh installs them)");
	return -EOPNOTSUPP;
}

int bpf_spans__open(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	return no_bpf(errbuf, errlen);
}

int bpf_spans__attach(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	return no_bpf(errbuf, errlen);
}

int bpf_spans__read(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	return no_bpf(errbuf, errlen);
}

int bpf_spans__reset(struct bpf_spans *s)
{
	return -EOPNOTSUPP;
}

int bpf_spans__load_symbols(struct bpf_spans *s)
{
	return -ENOENT;
}

void bpf_spans__detach(struct bpf_spans *s)
{
}

#else /* RS_HAVE_BPF */

/* The layout of one tracepoint's record, from its tracefs format file. */
struct tp_layout {
	bool present;
	struct tep_handle *tep;
	struct tep_event *ev;
};

/*
 * Whether a tracefs the mount table lists is one this user may not
 * search. libtracefs cannot check such a directory and leaks the path it
 * tried on every call (tracefs_tracing_dir(), tracefs_event_get_file():
 * see kfeatures.c): ask it nothing then. No tracefs listed: false, and
 * libtracefs may mount one (as root).
 */
static bool tracefs_denied(void)
{
	struct mntent *me, mbuf;
	char buf[4096];
	bool denied = false;
	FILE *f;

	if (geteuid() == 0)
		return false;
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return false;
	while ((me = getmntent_r(f, &mbuf, buf, sizeof(buf)))) {
		if (!strcmp(me->mnt_type, "tracefs")) {
			denied = access(me->mnt_dir, R_OK | X_OK) != 0;
			break;
		}
	}
	endmntent(f);
	return denied;
}

static int tp_parse(const char *sys, const char *name, struct tp_layout *l)
{
	char *path, *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int err = 0;

	memset(l, 0, sizeof(*l));
	path = tracefs_event_get_file(NULL, sys, name, "format");
	if (!path)
		return -ENOMEM;
	f = fopen(path, "re");
	err = errno;
	tracefs_put_tracing_file(path);
	if (!f)
		return err == ENOTDIR || err == ENOENT ? 0 : -err;
	for (;;) {
		size_t got;

		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap + 8192);

			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap += 8192;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		err = -EIO;
		goto out;
	}
	l->tep = tep_alloc();
	if (!l->tep) {
		err = -ENOMEM;
		goto out;
	}
	if (tep_parse_format(l->tep, &l->ev, buf, len, sys)) {
		err = -EINVAL;
		goto out;
	}
	l->present = true;
	err = 0;
out:
	fclose(f);
	free(buf);
	return err;
}

static void tp_free(struct tp_layout *l)
{
	if (l->tep)
		tep_free(l->tep);
	memset(l, 0, sizeof(*l));
}

/* The offset of field name of size bytes, or -1. */
static int tp_field(const struct tp_layout *l, const char *name, int size)
{
	struct tep_format_field *f;

	if (!l->present)
		return -1;
	f = tep_find_field(l->ev, name);
	if (!f || f->size != size || f->offset < 0)
		return -1;
	return f->offset;
}

/* First and last possible CPU ("0-3,5" -> 0 and 5). */
static int possible_cpus(int *first, int *last)
{
	char buf[256], *p, *end;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	long v;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < 0)
		return -EINVAL;
	*first = (int)v;
	p = buf + strcspn(buf, "\n");
	*p = '\0';
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	v = strtol(p, &end, 10);
	if (end == p || v < *first)
		return -EINVAL;
	*last = (int)v;
	return 0;
}

/* Why the kernel said err to loading or attaching, for a person. */
static int bpf_refused(int err, const char *what, char *errbuf,
		       size_t errlen)
{
	if (err == -EPERM || err == -EACCES) {
		errbuf_set(errbuf, errlen,
			"%s: not permitted (%s): BPF needs root (or CAP_BPF and CAP_PERFMON)",
			what, *bpf_quiet__msg() ? bpf_quiet__msg() :
			strerror(-err));
		return -EOPNOTSUPP;
	}
	if (err == -ENOMEM) {
		errbuf_set(errbuf, errlen, "%s: out of memory", what);
		return err;
	}
	errbuf_set(errbuf, errlen, "%s: %s%s%s", what, strerror(-err),
		*bpf_quiet__msg() ? ": " : "", bpf_quiet__msg());
	/* The verifier or the kernel refused: BPF is not usable here. */
	return -EOPNOTSUPP;
}

static int fill_filters(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	int fd;
	__u8 one = 1;
	size_t i;

	fd = bpf_map__fd(s->skel->maps.tgids);
	for (i = 0; i < s->o.nr_tgids; i++) {
		__u32 tgid = (__u32)s->o.tgids[i];

		if (bpf_map_update_elem(fd, &tgid, &one, BPF_ANY)) {
			errbuf_set(errbuf, errlen, "pid filter: %s",
				strerror(errno));
			return -errno;
		}
	}
	fd = bpf_map__fd(s->skel->maps.cgroups);
	for (i = 0; i < s->o.nr_cgroup_ids; i++) {
		__u64 id = s->o.cgroup_ids[i];

		if (bpf_map_update_elem(fd, &id, &one, BPF_ANY)) {
			errbuf_set(errbuf, errlen, "cgroup filter: %s",
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/*
 * Before v6.10 (no rstat tracepoints): whether the flush function can be
 * timed by kprobes instead. 0, or -EOPNOTSUPP with the reason.
 */
static int kprobe_mode_ok(char *errbuf, size_t errlen)
{
	if (access("/sys/bus/event_source/devices/kprobe", F_OK)) {
		errbuf_set(errbuf, errlen,
			"no rstat tracepoints (v6.10+) and no kprobes on this kernel to time " BPF_SPANS_FLUSH_FUNC " instead");
		return -EOPNOTSUPP;
	}
	if (!kfeatures__has_function(BPF_SPANS_FLUSH_FUNC)) {
		errbuf_set(errbuf, errlen,
			"no rstat tracepoints (v6.10+) and no " BPF_SPANS_FLUSH_FUNC " in kallsyms to probe instead");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int do_open(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	static const char *const lock_tps[] = {
		"cgroup_rstat_locked", "cgroup_rstat_unlock",
		"cgroup_rstat_lock_contended",
	};
	struct tp_layout lock[3], memcg;
	int off_root = -1, off_id = -1, off_cpu = -1, first = 0, last = 0;
	int mforce, mneeds, err, i, version, off_level = -1;
	unsigned int depth;
	struct rstat_spans *sk;
	struct utsname u;

	if (s->skel) {
		errbuf_set(errbuf, errlen, "BPF spans already open");
		return -EINVAL;
	}
	depth = s->o.stack_depth ? s->o.stack_depth : DEFAULT_DEPTH;
	if (depth > RS_BPF_MAX_DEPTH || s->o.nr_tgids > 65536 ||
	    s->o.nr_cgroup_ids > 65536) {
		errbuf_set(errbuf, errlen,
			"BPF spans: a stack depth of at most %d frames and at most 65536 pids or cgroups",
			RS_BPF_MAX_DEPTH);
		return -EINVAL;
	}
	if (tracefs_denied()) {
		errbuf_set(errbuf, errlen,
			"tracepoint cgroup:%s: not permitted to read its format: BPF spans need root (or CAP_BPF, CAP_PERFMON and tracefs access)",
			lock_tps[0]);
		return -EOPNOTSUPP;
	}
	if (!tracefs_tracing_dir()) {
		errbuf_set(errbuf, errlen,
			"tracefs is not mounted (and could not be): the tracepoint layouts cannot be read");
		return -EOPNOTSUPP;
	}

	memset(lock, 0, sizeof(lock));
	memset(&memcg, 0, sizeof(memcg));
	err = 0;
	for (i = 0; i < 3 && !err; i++) {
		err = tp_parse("cgroup", lock_tps[i], &lock[i]);
		if (err == -EACCES || err == -EPERM) {
			errbuf_set(errbuf, errlen,
				"tracepoint cgroup:%s: not permitted to read its format: BPF spans need root (or CAP_BPF, CAP_PERFMON and tracefs access)",
				lock_tps[i]);
			err = -EOPNOTSUPP;
			break;
		}
		if (err) {
			errbuf_set(errbuf, errlen,
				"tracepoint cgroup:%s: format: %s",
				lock_tps[i], strerror(-err));
			break;
		}
		if (!lock[i].present && !i) {
			/* Before v6.10: time the flush function instead. */
			err = kprobe_mode_ok(errbuf, errlen);
			s->kprobes = !err;
			break;
		}
		if (!lock[i].present) {
			errbuf_set(errbuf, errlen,
				"tracepoint cgroup:%s is missing (needs v6.10+, or tracefs is not readable)",
				lock_tps[i]);
			err = -EOPNOTSUPP;
			break;
		}
		/* One event class: the programs use one set of offsets. */
		if ((i && (tp_field(&lock[i], "root", 4) != off_root ||
			   tp_field(&lock[i], "id", 8) != off_id ||
			   tp_field(&lock[i], "cpu", 4) != off_cpu)) ||
		    tp_field(&lock[i], "root", 4) < 0 ||
		    tp_field(&lock[i], "id", 8) < 0 ||
		    tp_field(&lock[i], "cpu", 4) < 0) {
			errbuf_set(errbuf, errlen,
				"tracepoint cgroup:%s: unexpected fields (want int root, u64 id, int cpu)",
				lock_tps[i]);
			err = -EOPNOTSUPP;
			break;
		}
		off_root = tp_field(&lock[i], "root", 4);
		if (!i)
			off_level = tp_field(&lock[i], "level", 4);
		off_id = tp_field(&lock[i], "id", 8);
		off_cpu = tp_field(&lock[i], "cpu", 4);
	}
	if (!err) {
		err = tp_parse("memcg", "memcg_flush_stats", &memcg);
		if (err)
			errbuf_set(errbuf, errlen,
				"tracepoint memcg:memcg_flush_stats: format: %s",
				strerror(-err));
	}
	mforce = tp_field(&memcg, "force", 1);
	mneeds = tp_field(&memcg, "needs_flush", 1);
	for (i = 0; i < 3; i++)
		tp_free(&lock[i]);
	tp_free(&memcg);
	if (err)
		return err;

	err = possible_cpus(&first, &last);
	if (err) {
		errbuf_set(errbuf, errlen,
			"/sys/devices/system/cpu/possible: %s", strerror(-err));
		return err;
	}
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		errbuf_set(errbuf, errlen, "cannot count the possible CPUs");
		return s->ncpus < 0 ? s->ncpus : -EINVAL;
	}

	sk = rstat_spans__open();
	if (!sk) {
		err = -errno;
		return bpf_refused(err ? err : -EINVAL, "BPF spans: open",
				   errbuf, errlen);
	}
	s->skel = sk;
	sk->rodata->off_root = (__u32)off_root;
	sk->rodata->off_id = (__u32)off_id;
	sk->rodata->off_cpu = (__u32)off_cpu;
	sk->rodata->first_cpu = first;
	sk->rodata->last_cpu = last;
	/*
	 * v6.10-v6.14 retake the lock only after yielding: no per-CPU run.
	 * An unknown release reads as the newest layout.
	 */
	version = uname(&u) ? -1 : kfeatures__version(u.release);
	sk->rodata->flush_spans = version < 0 || version >= 6015;
	sk->rodata->filter_tgid = s->o.nr_tgids > 0;
	sk->rodata->filter_cgroup = s->o.nr_cgroup_ids > 0;
	sk->rodata->want_stacks = !s->o.no_stacks;
	sk->rodata->want_cgroups = s->o.per_cgroup;
	sk->rodata->off_level = off_level;
	if (!s->o.per_cgroup)
		bpf_map__set_max_entries(sk->maps.cgroup_flushes, 1);
	s->src.lock_tracepoints = !s->kprobes;
	s->src.kprobes = s->kprobes;
	s->src.flush_spans = !s->kprobes && sk->rodata->flush_spans;
	s->src.levels = !s->kprobes && off_level >= 0;
	/* The tracepoints' programs, or the flush function's kprobes. */
	bpf_program__set_autoload(sk->progs.rs_func_entry, s->kprobes);
	bpf_program__set_autoload(sk->progs.rs_func_return, s->kprobes);
	bpf_program__set_autoload(sk->progs.rs_contended, !s->kprobes);
	bpf_program__set_autoload(sk->progs.rs_locked, !s->kprobes);
	bpf_program__set_autoload(sk->progs.rs_unlock, !s->kprobes);
	if (s->kprobes) {
		bpf_program__set_autoload(sk->progs.rs_memcg_flush, false);
	} else if (mforce >= 0 && mneeds >= 0 && sk->rodata->flush_spans) {
		sk->rodata->off_m_force = (__u32)mforce;
		sk->rodata->off_m_needs = (__u32)mneeds;
		s->src.memcg_tracepoint = true;
	} else {
		/*
		 * Before v6.13 (or another layout): no memcg spans; nor on
		 * v6.13-v6.14, where the flush end that closes one is not
		 * seen and its open entry would pair with a later flush.
		 */
		bpf_program__set_autoload(sk->progs.rs_memcg_flush, false);
	}
	if (s->o.nr_tgids > 256)
		bpf_map__set_max_entries(sk->maps.tgids,
					 (__u32)s->o.nr_tgids);
	if (s->o.nr_cgroup_ids > 256)
		bpf_map__set_max_entries(sk->maps.cgroups,
					 (__u32)s->o.nr_cgroup_ids);
	/* The value size bounds how deep the kernel unwinds. */
	bpf_map__set_value_size(sk->maps.stacks, depth * sizeof(__u64));
	if (s->o.no_stacks)
		bpf_map__set_max_entries(sk->maps.stacks, 1);

	err = rstat_spans__load(sk);
	if (err)
		return bpf_refused(err, "BPF spans: load", errbuf, errlen);
	return fill_filters(s, errbuf, errlen);
}

int bpf_spans__open(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	struct bpf_quiet q;
	int err;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	bpf_quiet__begin(&q);
	err = do_open(s, errbuf, errlen);
	bpf_quiet__end(&q);
	if (err && s->skel) {
		rstat_spans__destroy(s->skel);
		s->skel = NULL;
	}
	return err;
}

int bpf_spans__attach(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	struct bpf_quiet q;
	int err;

	if (!s->skel) {
		errbuf_set(errbuf, errlen, "BPF spans: attach before open");
		return -EINVAL;
	}
	if (s->attached)
		return 0;
	bpf_quiet__begin(&q);
	err = rstat_spans__attach(s->skel);
	/*
	 * SEC("kprobe") without a function never attaches by itself; the
	 * skeleton's links destroy these with the rest.
	 */
	if (!err && s->kprobes) {
		struct rstat_spans *sk = s->skel;

		sk->links.rs_func_entry = bpf_program__attach_kprobe(
			sk->progs.rs_func_entry, false, BPF_SPANS_FLUSH_FUNC);
		if (!sk->links.rs_func_entry)
			err = -errno;
		if (!err) {
			sk->links.rs_func_return = bpf_program__attach_kprobe(
				sk->progs.rs_func_return, true,
				BPF_SPANS_FLUSH_FUNC);
			if (!sk->links.rs_func_return)
				err = -errno;
		}
	}
	bpf_quiet__end(&q);
	if (err) {
		rstat_spans__detach(s->skel);
		return bpf_refused(err, "BPF spans: attach", errbuf, errlen);
	}
	s->attached = true;
	return 0;
}

/* Sum a per-CPU map value of n u64 words over the CPUs into out. */
static int percpu_lookup(int fd, const void *key, uint64_t *out, size_t n,
			 uint64_t *buf, int ncpus)
{
	int c;
	size_t i;

	if (bpf_map_lookup_elem(fd, key, buf))
		return -errno;
	memset(out, 0, n * sizeof(*out));
	for (c = 0; c < ncpus; c++)
		for (i = 0; i < n; i++)
			out[i] += buf[(size_t)c * n + i];
	return 0;
}


/* Sum the per-CPU copies of one hist (min and max are not sums). */
static void hist_sum_cpus(struct bpf_spans_hist *h,
			  const struct rs_bpf_hist *v, int ncpus)
{
	int c;

	memset(h, 0, sizeof(*h));
	for (c = 0; c < ncpus; c++) {
		struct bpf_spans_hist one;

		if (!v[c].count)
			continue;
		one.count = v[c].count;
		one.sum = v[c].sum;
		one.min = v[c].min;
		one.max = v[c].max;
		memcpy(one.slots, v[c].slots, sizeof(one.slots));
		bpf_spans_hist__merge(h, &one);
	}
}

static int load_kallsyms(struct bpf_spans *s)
{
	int err;

	if (s->kallsyms_tried)
		return s->machine ? 0 : -ENOENT;
	s->kallsyms_tried = true;
	s->machine = machine__new();
	if (!s->machine)
		return -ENOMEM;
	err = machine__load_kallsyms(s->machine, s->o.kallsyms ?
				     s->o.kallsyms : "/proc/kallsyms");
	if (err || !machine__has_kernel_symbols(s->machine)) {
		/* kptr_restrict: the stacks stay unnamed. */
		machine__delete(s->machine);
		s->machine = NULL;
		return err == -ENOMEM ? err : -ENOENT;
	}
	return 0;
}

/* The resolved stack of id (NULL when id < 0), resolving it once. */
static int stack_get(struct bpf_spans *s, int32_t id, struct rs_stack **out)
{
	uint64_t ips[RS_BPF_MAX_DEPTH];
	struct rs_stack *st;
	uint32_t depth, n = 0, i;
	size_t k;
	int err;

	*out = NULL;
	if (id < 0)
		return 0;
	for (k = 0; k < s->nr_stacks; k++)
		if (s->stacks[k].id == id) {
			*out = &s->stacks[k];
			return 0;
		}
	if (grow_array((void **)&s->stacks, &s->cap_stacks,
		       s->nr_stacks + 1, sizeof(*s->stacks)))
		return -ENOMEM;
	st = &s->stacks[s->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->id = id;
	depth = bpf_map__value_size(s->skel->maps.stacks) / sizeof(__u64);
	memset(ips, 0, sizeof(ips));
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks), &id,
				 ips)) {
		while (n < depth && ips[n])
			n++;
	}
	/*
	 * Without the machine (a recording), name_new_stacks() named the
	 * stacks there were: one that came after stays unnamed.
	 */
	if (n && s->machine) {
		st->frames = calloc(n, sizeof(*st->frames));
		if (!st->frames)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			struct rs_frame f;

			err = machine__resolve(s->machine, 0, 0,
					       PERF_RECORD_MISC_KERNEL,
					       ips[i], &f);
			if (err) {
				free(st->frames);
				st->frames = NULL;
				return err;
			}
			st->frames[i] = f.sym;
		}
		st->nr = n;
	}
	s->nr_stacks++;
	*out = st;
	return 0;
}

int bpf_spans__load_symbols(struct bpf_spans *s)
{
	return load_kallsyms(s);
}

static bool stack_known(const struct bpf_spans *s, int32_t id)
{
	size_t k;

	for (k = 0; k < s->nr_stacks; k++)
		if (s->stacks[k].id == id)
			return true;
	return false;
}

/*
 * Name every stack the histograms use that has no name yet, in one pass
 * over kallsyms that keeps no table (ksyms__name_addrs()). A recording
 * names a few dozen stacks once at its end: loading the whole table for
 * them was 12 MB of the recorder's peak RSS and most of its CPU time at
 * the end. A live view loads the machine up front instead
 * (bpf_spans__load_symbols()), and stack_get() uses it.
 */
static int name_new_stacks(struct bpf_spans *s, int hist_fd)
{
	uint32_t depth = bpf_map__value_size(s->skel->maps.stacks) /
			 sizeof(__u64);
	struct rs_bpf_key key, next, *prev = NULL;
	int32_t *ids = NULL;
	uint32_t *nr = NULL;
	uint64_t *ips = NULL;
	char **names = NULL;
	size_t nids = 0, cap = 0, total = 0, i, k, off;
	int err = 0;

	while (!bpf_map_get_next_key(hist_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (key.kind >= RS_BPF__NR_KINDS || key.stack_id < 0 ||
		    stack_known(s, key.stack_id))
			continue;
		for (i = 0; i < nids && ids[i] != key.stack_id; i++)
			;
		if (i < nids)
			continue;
		if (grow_array((void **)&ids, &cap, nids + 1, sizeof(*ids))) {
			err = -ENOMEM;
			goto out;
		}
		ids[nids++] = key.stack_id;
	}
	if (!nids)
		goto out;
	nr = calloc(nids, sizeof(*nr));
	ips = calloc(nids * depth, sizeof(*ips));
	if (!nr || !ips) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nids; i++) {
		uint64_t *v = ips + total;

		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks),
					&ids[i], v))
			continue;	/* unnamed, as stack_get() leaves it */
		while (nr[i] < depth && v[nr[i]])
			nr[i]++;
		total += nr[i];
	}
	names = calloc(total ? total : 1, sizeof(*names));
	if (!names) {
		err = -ENOMEM;
		goto out;
	}
	if (s->ktext)
		err = ksyms__name_addrs_buf(s->ktext, s->ktext_len, ips,
					    total, names);
	else
		err = ksyms__name_addrs(s->o.kallsyms ? s->o.kallsyms :
					"/proc/kallsyms", ips, total, names);
	if (err == -ENOMEM)
		goto out;
	err = 0;		/* no kallsyms: the stacks stay unnamed */
	for (i = 0, off = 0; i < nids; off += nr[i], i++) {
		struct rs_stack *st;
		bool any = false;

		for (k = 0; k < nr[i]; k++)
			any |= names[off + k] != NULL;
		if (grow_array((void **)&s->stacks, &s->cap_stacks,
			       s->nr_stacks + 1, sizeof(*s->stacks))) {
			err = -ENOMEM;
			goto out;
		}
		st = &s->stacks[s->nr_stacks];
		memset(st, 0, sizeof(*st));
		st->id = ids[i];
		/* kptr_restrict hides every address: unnamed */
		if (any) {
			st->frames = calloc(nr[i], sizeof(*st->frames));
			if (!st->frames) {
				err = -ENOMEM;
				goto out;
			}
			for (k = 0; k < nr[i]; k++) {
				st->frames[k] = names[off + k] ?
						names[off + k] : unknown_frame;
				names[off + k] = NULL;
			}
			st->nr = nr[i];
			st->own_names = true;
			s->named = true;
		}
		s->nr_stacks++;
	}
out:
	for (i = 0; names && i < total; i++)
		free(names[i]);
	free(names);
	free(ips);
	free(nr);
	free(ids);
	return err;
}

int bpf_spans__read(struct bpf_spans *s, char *errbuf, size_t errlen)
{
	struct rs_bpf_key key, next, *prev = NULL;
	uint64_t *buf, sums[RS_BPF__NR_COUNTERS];
	struct rs_bpf_hist *vals;
	int fd, err = 0, c;
	__u32 idx;

	if (!s->skel) {
		errbuf_set(errbuf, errlen, "BPF spans: read before open");
		return -EINVAL;
	}
	buf = calloc((size_t)s->ncpus, sizeof(struct rs_bpf_hist));
	if (!buf)
		return -ENOMEM;
	vals = (struct rs_bpf_hist *)buf;

	memset(&s->counts, 0, sizeof(s->counts));
	s->nr_rows = 0;

	fd = bpf_map__fd(s->skel->maps.counters);
	for (idx = 0; idx < RS_BPF__NR_COUNTERS; idx++) {
		err = percpu_lookup(fd, &idx, &sums[idx], 1, buf, s->ncpus);
		if (err)
			goto out;
	}
	idx = 0;
	fd = bpf_map__fd(s->skel->maps.slots);
	if (bpf_map_lookup_elem(fd, &idx, buf)) {
		err = -errno;
		goto out;
	}
	for (c = 0; c < s->ncpus; c++)
		s->counts.locked += ((struct rs_bpf_slot *)buf)[c].nlocked;
	s->counts.locked -= s->locked_base;
	s->counts.unlocked = sums[RS_BPF_C_UNLOCKED];
	s->counts.contended = sums[RS_BPF_C_CONTENDED];
	s->counts.pairs = sums[RS_BPF_C_PAIRS];
	s->counts.unmatched_start = sums[RS_BPF_C_UNMATCHED_START];
	s->counts.unmatched_end = sums[RS_BPF_C_UNMATCHED_END];
	s->counts.wait_pairs = sums[RS_BPF_C_WAIT_PAIRS];
	s->counts.flushes = sums[RS_BPF_C_FLUSHES];
	s->counts.flush_broken = sums[RS_BPF_C_FLUSH_BROKEN];
	s->counts.memcg_requested = sums[RS_BPF_C_MEMCG_REQUESTED];
	s->counts.memcg_performed = sums[RS_BPF_C_MEMCG_PERFORMED];
	s->counts.memcg_forced = sums[RS_BPF_C_MEMCG_FORCED];
	s->counts.memcg_skipped = sums[RS_BPF_C_MEMCG_SKIPPED];
	s->counts.memcg_spans = sums[RS_BPF_C_MEMCG_SPANS];
	s->counts.stack_errors = sums[RS_BPF_C_STACK_ERRORS];
	s->counts.hist_full = sums[RS_BPF_C_HIST_FULL];
	s->counts.filtered = sums[RS_BPF_C_FILTERED];
	s->counts.self_ns = sums[RS_BPF_C_SELF_NS];

	fd = bpf_map__fd(s->skel->maps.hists);
	if (!s->machine) {
		err = name_new_stacks(s, fd);
		if (err)
			goto out;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct bpf_spans_row *row;
		struct rs_stack *st;

		key = next;
		prev = &key;
		if (key.kind >= RS_BPF__NR_KINDS)
			continue;
		if (bpf_map_lookup_elem(fd, &key, buf)) {
			if (errno == ENOENT)	/* reset meanwhile */
				continue;
			err = -errno;
			goto out;
		}
		err = stack_get(s, key.stack_id, &st);
		if (err)
			goto out;
		if (grow_array((void **)&s->rows, &s->cap_rows,
			       s->nr_rows + 1, sizeof(*s->rows))) {
			err = -ENOMEM;
			goto out;
		}
		row = &s->rows[s->nr_rows++];
		memset(row, 0, sizeof(*row));
		row->kind = (enum bpf_spans_kind)key.kind;
		row->root = key.root;
		row->short_lock = key.short_lock;
		row->frames = st ? st->frames : NULL;
		row->nr_frames = st ? st->nr : 0;
		hist_sum_cpus(&row->hist, vals, s->ncpus);
	}
out:
	if (err)
		errbuf_set(errbuf, errlen, "BPF spans: read: %s",
			strerror(-err));
	free(buf);
	return err;
}

int bpf_spans__read_cgroups(struct bpf_spans *s, struct bpf_spans_cgroup *out,
			    size_t max, size_t *nr,
			    uint64_t level_flushes[BPF_SPANS_LEVELS],
			    uint64_t level_ns[BPF_SPANS_LEVELS])
{
	struct rs_bpf_cg_key key, next, *prev = NULL;
	struct rs_bpf_level *lv;
	struct rs_bpf_cg v;
	int fd, c, err = 0;
	__u32 i;

	*nr = 0;
	if (!s->skel || !s->o.per_cgroup)
		return -EINVAL;
	lv = calloc((size_t)s->ncpus, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	fd = bpf_map__fd(s->skel->maps.levels);
	for (i = 0; i < BPF_SPANS_LEVELS; i++) {
		level_flushes[i] = level_ns[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, lv)) {
			err = -errno;
			goto out;
		}
		for (c = 0; c < s->ncpus; c++) {
			level_flushes[i] += lv[c].flushes;
			level_ns[i] += lv[c].ns;
		}
	}
	fd = bpf_map__fd(s->skel->maps.cgroup_flushes);
	while (*nr < max && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;	/* evicted meanwhile */
		out[*nr].id = key.id;
		out[*nr].root = key.root;
		out[*nr].level = v.level;
		out[*nr].flushes = v.flushes;
		out[*nr].ns = v.ns;
		(*nr)++;
	}
out:
	free(lv);
	return err;
}

int bpf_spans__prog_stats(const struct bpf_spans *s, uint64_t *run_ns,
			  uint64_t *runs)
{
	struct bpf_program *p;

	*run_ns = *runs = 0;
	if (!s->skel)
		return -EINVAL;
	bpf_object__for_each_program(p, s->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (fd < 0)
			continue;	/* not loaded (another kernel's) */
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		*run_ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
	return 0;
}

void bpf_spans__detach(struct bpf_spans *s)
{
	/* The manual kprobe links are the skeleton's too: they go with it. */
	if (s->skel && s->attached)
		rstat_spans__detach(s->skel);
	s->attached = false;
}

int bpf_spans__reset(struct bpf_spans *s)
{
	struct rs_bpf_key key, next;
	uint64_t *zero;
	int fd, c;
	__u32 idx;

	if (!s->skel)
		return -EINVAL;
	zero = calloc((size_t)s->ncpus, sizeof(struct rs_bpf_slot));
	if (!zero)
		return -ENOMEM;
	/* Deleting the first key each time: the iteration cannot skip. */
	fd = bpf_map__fd(s->skel->maps.hists);
	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		key = next;
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			break;
	}
	fd = bpf_map__fd(s->skel->maps.counters);
	for (idx = 0; idx < RS_BPF__NR_COUNTERS; idx++)
		bpf_map_update_elem(fd, &idx, zero, BPF_ANY);
	/*
	 * The slots hold the pairing state of locks held right now: keep
	 * them, remember where the locked count stood instead.
	 */
	idx = 0;
	fd = bpf_map__fd(s->skel->maps.slots);
	if (!bpf_map_lookup_elem(fd, &idx, zero)) {
		s->locked_base = 0;
		for (c = 0; c < s->ncpus; c++)
			s->locked_base +=
				((struct rs_bpf_slot *)zero)[c].nlocked;
	}
	free(zero);
	return 0;
}

#endif /* RS_HAVE_BPF */
