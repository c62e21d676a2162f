// SPDX-License-Identifier: GPL-2.0
/*
 * The analyses of a recording: attribution of the sampling events and the
 * spans of the rstat tracepoints.
 *
 * Most samples repeat a callchain seen before, so each distinct callchain
 * (with what naming its frames depends on: cpumode and the versions of the
 * maps involved) is resolved and classified once and its result kept
 * under the 128-bit hash of that key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analysis.h"
#include "attrib.h"
#include "rules.h"
#include "spans.h"
#include "symbols.h"
#include "util.h"

/* perf script's default --max-stack (the kernel's perf_event_max_stack). */
#define AN_MAX_STACK 127
/* Longer callchains (in words) are classified afresh each time. */
#define AN_MAX_KEY 512
/* Samples analysis__ahead() keeps the places of; a power of two. */
#define AN_AHEAD 8

enum evsel_role {
	ROLE_UNSEEN,		/* not looked at yet */
	ROLE_SAMPLING,		/* attributed */
	ROLE_LOCKED,
	ROLE_UNLOCK,
	ROLE_CONTENDED,
	ROLE_MEMCG_FLUSH,
	ROLE_OTHER,		/* counted only (and user spans) */
};

/* A tracepoint field we read: where it is in the raw data. */
struct raw_field {
	uint32_t offset, size;
	bool is_signed;
	bool present;
};

struct evsel_info {
	const struct rs_evsel *evsel;
	enum evsel_role role;
	bool clock;
	/* lock events: root, level, id, cpu; memcg_flush_stats: id,
	 * stats_updates, force, needs_flush */
	struct raw_field f[4];
	struct raw_field contended;
	int32_t *span_start;	/* user spans this event starts, -1 ended */
	int32_t *span_end;
	uint32_t nr_span_start, nr_span_end;
};

struct chain_class {
	struct rs_stack_class cls;
	const char *stack;	/* interned flush stack, NULL if no flush */
};

/* The class of a long callchain, kept until the next one (AN_MAX_KEY). */
#define CLASS_ONCE UINT32_MAX

/*
 * What the caller's thread asks of the attribution, in order: with
 * opts.jobs > 2 a thread of the analysis's own classifies the named
 * frames of new callchains and attributes the samples, else it is done
 * at once. The same calls in the same order either way.
 */
enum {
	AOP_CLASSIFY,	/* idx, nr_syms: the next records hold the names */
	AOP_ADD,	/* attrib__add() of class idx */
};

union an_rec {
	struct {
		uint8_t op;
		bool clock;
		uint32_t idx;
		const char *name, *comm;
		union {
			uint64_t period;	/* AOP_ADD */
			uint64_t nr_syms;	/* AOP_CLASSIFY */
		};
	} op;
	const char *syms[4];
};

/* Records in a block of the attribution's thread (32 KiB). */
#define AW_RECS 1024

struct analysis {
	struct analysis_opts opts;
	struct machine *machine;
	struct classifier *classifier;
	struct attrib *attrib;
	struct spans *spans;
	struct strpool *stacks;
	struct chainmap chains;		/* callchain key -> class */
	/*
	 * analysis__ahead(): where the samples it has seen last are placed
	 * in chains, so that the class their home slot names can be
	 * fetched a few samples later, once the slot has come in.
	 */
	uint64_t ahead_where[AN_AHEAD];
	uint32_t nr_ahead;
	size_t nr_classes;		/* class numbers handed out */
	struct workq *w;		/* opts.jobs > 2 */
	/* whether w has the attribution now, and when it pays */
	struct offload off;
	/*
	 * With w: the lock subsystem of each class number below
	 * nr_lock_subsys, copied on this thread after a drain, so that a
	 * lock event waits for w only when its class is new.
	 */
	int *lock_subsys;
	size_t nr_lock_subsys, cap_lock_subsys;
	/* The attribution's side: the caller's thread's, or w's. */
	struct chain_class *classes;
	size_t nr_made, cap_classes;	/* classes made */
	struct chain_class once;	/* CLASS_ONCE */
	struct evsel_info *evsels;
	size_t nr_evsels, cap_evsels;
	bool *span_start_seen, *span_end_seen;
	int *span_idx;		/* spans__add_user() index per request */
	uint64_t first_time, last_time;
	uint64_t nr_bad_raw;
	uint64_t nr_no_chain;
	const struct rs_evsel *sampled_tp; /* a paired event sampled */
	enum evsel_role sampled_role;
	struct rs_frame frames[AN_MAX_STACK];
	const char *syms[AN_MAX_STACK];
	char *buf;		/* flush stack text being built (w's side) */
	size_t buf_cap;
};

bool rs_evsel_is_clock(const struct rs_evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_SOFTWARE &&
	       (evsel->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		evsel->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * Events that sample by period or frequency (cycles, cpu-clock, raw PMU
 * events, dynamic PMUs such as cpu_core/cycles/), as opposed to
 * tracepoints and probes, which fire once per hit.
 */
bool rs_evsel_is_sampling(const struct rs_evsel *evsel)
{
	const struct perf_event_attr *attr = &evsel->attr;

	switch (attr->type) {
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return false;
	case PERF_TYPE_SOFTWARE:
		return attr->config != PERF_COUNT_SW_DUMMY &&
		       attr->config != PERF_COUNT_SW_BPF_OUTPUT;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return true;
	default:
		return attr->freq || attr->sample_period > 1;
	}
}

static int run_block(void *arg, void *recs, uint32_t nr);

/* The attribution is w's, from now on and while it pays (an->off). */
static void worker_use(struct analysis *an, struct workq *w, bool watch_cpu)
{
	an->w = w;
	offload__init(&an->off, w != NULL, watch_cpu);
}

struct analysis *analysis__new(const struct analysis_opts *opts,
			       struct machine *machine)
{
	struct analysis *an = calloc(1, sizeof(*an));
	struct spans_opts so = { .cpu_sem = RS_CPU_SEM_6_15 };
	uint32_t i;
	int maj = 0, min = 0;	/* the recording's kernel; 0: unknown */

	if (!an)
		return NULL;
	an->opts = *opts;
	an->machine = machine;
	if (!opts->os_release ||
	    sscanf(opts->os_release, "%d.%d", &maj, &min) != 2)
		maj = min = 0;
	/* v6.10 to v6.14: cpu=-1 is the first lock of a flush. */
	if (maj == 6 && min >= 10 && min <= 14)
		so.cpu_sem = RS_CPU_SEM_6_10;
	an->classifier = classifier__new(opts->rules);
	if (an->classifier)
		classifier__set_kernel(an->classifier, maj, min);
	an->attrib = attrib__new();
	an->spans = spans__new(&so);
	an->stacks = strpool__new();
	if (opts->nr_spans) {
		an->span_start_seen = calloc(opts->nr_spans, sizeof(bool));
		an->span_end_seen = calloc(opts->nr_spans, sizeof(bool));
		an->span_idx = calloc(opts->nr_spans, sizeof(int));
		if (!an->span_start_seen || !an->span_end_seen ||
		    !an->span_idx)
			goto fail;
	}
	if (!an->classifier || !an->attrib || !an->spans || !an->stacks)
		goto fail;
	for (i = 0; i < opts->nr_spans; i++) {
		an->span_idx[i] = spans__add_user(an->spans,
						  opts->spans[i].start,
						  opts->spans[i].end);
		if (an->span_idx[i] < 0)
			goto fail;
	}
	/* Without it (no thread to be had), the same work on this one. */
	if (opts->jobs > 2)
		worker_use(an, workq__new(sizeof(union an_rec), AW_RECS,
					  run_block, an), false);
	return an;
fail:
	analysis__delete(an);
	return NULL;
}

void analysis__delete(struct analysis *an)
{
	size_t i;

	if (!an)
		return;
	workq__delete(an->w);
	for (i = 0; i < an->nr_evsels; i++) {
		free(an->evsels[i].span_start);
		free(an->evsels[i].span_end);
	}
	free(an->evsels);
	free(an->classes);
	free(an->lock_subsys);
	free(an->span_start_seen);
	free(an->span_end_seen);
	free(an->span_idx);
	free(an->buf);
	chainmap__exit(&an->chains);
	strpool__delete(an->stacks);
	spans__delete(an->spans);
	attrib__delete(an->attrib);
	classifier__delete(an->classifier);
	free(an);
}

static void find_field(const struct rs_evsel *evsel, struct raw_field *rf,
		       const char *name, const char *alt)
{
	struct tep_format_field *field;

	memset(rf, 0, sizeof(*rf));
	if (!evsel->tp)
		return;
	field = tep_find_field(evsel->tp, name);
	if (!field && alt)
		field = tep_find_field(evsel->tp, alt);
	/* Only plain integers of 1 to 8 bytes. */
	if (!field || (field->flags & (TEP_FIELD_IS_ARRAY |
				       TEP_FIELD_IS_STRING |
				       TEP_FIELD_IS_DYNAMIC)) ||
	    !field->size || field->size > 8 || field->offset < 0)
		return;
	rf->offset = field->offset;
	rf->size = field->size;
	rf->is_signed = field->flags & TEP_FIELD_IS_SIGNED;
	rf->present = true;
}

/* A field's value; false when the raw data is too short or it's absent. */
static bool read_field(const struct rs_sample *s, const struct raw_field *rf,
		       int64_t *val)
{
	const unsigned char *p = s->raw;
	uint64_t u = 0;
	uint32_t i;

	if (!rf->present || !s->raw ||
	    (uint64_t)rf->offset + rf->size > s->raw_size)
		return false;
	/* Recorded on this architecture: little endian (x86, arm64). */
	for (i = 0; i < rf->size; i++)
		u |= (uint64_t)p[rf->offset + i] << (8 * i);
	if (rf->is_signed && rf->size < 8 && (u >> (rf->size * 8 - 1)) & 1)
		u |= ~0ULL << (rf->size * 8);
	*val = (int64_t)u;
	return true;
}

static bool name_matches(const char *evname, const char *want)
{
	const char *colon;

	if (!strcmp(evname, want))
		return true;
	/* "probe:L26" may be asked for as "L26". */
	colon = strchr(evname, ':');
	return !strchr(want, ':') && colon && !strcmp(colon + 1, want);
}

static int add_index(int32_t **arr, uint32_t *nr, int32_t idx)
{
	int32_t *n = realloc(*arr, (*nr + 1) * sizeof(**arr));

	if (!n)
		return -ENOMEM;
	n[(*nr)++] = idx;
	*arr = n;
	return 0;
}

static bool is_lock_role(enum evsel_role role)
{
	return role == ROLE_LOCKED || role == ROLE_UNLOCK ||
	       role == ROLE_CONTENDED;
}

/* Whether a sampled event of this role should be the one reported. */
static bool prefer_sampled(const struct analysis *an, enum evsel_role role)
{
	return !an->sampled_tp ||
	       (is_lock_role(role) && !is_lock_role(an->sampled_role));
}

static int setup_evsel(struct analysis *an, struct evsel_info *info,
		       const struct rs_evsel *evsel)
{
	const char *name = evsel->name;
	uint32_t i;
	int err;

	info->evsel = evsel;
	info->clock = rs_evsel_is_clock(evsel);
	if (rs_evsel_is_sampling(evsel))
		info->role = ROLE_SAMPLING;
	else if (!strcmp(name, "cgroup:cgroup_rstat_locked"))
		info->role = ROLE_LOCKED;
	else if (!strcmp(name, "cgroup:cgroup_rstat_unlock"))
		info->role = ROLE_UNLOCK;
	else if (!strcmp(name, "cgroup:cgroup_rstat_lock_contended"))
		info->role = ROLE_CONTENDED;
	else if (!strcmp(name, "memcg:memcg_flush_stats"))
		info->role = ROLE_MEMCG_FLUSH;
	else
		info->role = ROLE_OTHER;

	if (info->role == ROLE_LOCKED || info->role == ROLE_UNLOCK ||
	    info->role == ROLE_CONTENDED) {
		find_field(evsel, &info->f[0], "root", NULL);
		find_field(evsel, &info->f[1], "level", NULL);
		find_field(evsel, &info->f[2], "id", NULL);
		find_field(evsel, &info->f[3], "cpu", NULL);
		find_field(evsel, &info->contended, "contended", NULL);
	} else if (info->role == ROLE_MEMCG_FLUSH) {
		find_field(evsel, &info->f[0], "memcg_id", "id");
		find_field(evsel, &info->f[1], "stats_updates", NULL);
		find_field(evsel, &info->f[2], "force", NULL);
		find_field(evsel, &info->f[3], "needs_flush", NULL);
	}
	/*
	 * perf record -F or -c N applies to tracepoints too: then only one
	 * hit in N is recorded and consecutive events need not belong to
	 * the same lock round.
	 */
	if (info->role != ROLE_SAMPLING && info->role != ROLE_OTHER &&
	    (evsel->attr.freq || evsel->attr.sample_period > 1) &&
	    prefer_sampled(an, info->role)) {
		an->sampled_tp = evsel;
		an->sampled_role = info->role;
	}
	for (i = 0; i < an->opts.nr_spans; i++) {
		if (name_matches(name, an->opts.spans[i].start)) {
			err = add_index(&info->span_start, &info->nr_span_start,
					i);
			if (err)
				return err;
			an->span_start_seen[i] = true;
		}
		if (name_matches(name, an->opts.spans[i].end)) {
			err = add_index(&info->span_end, &info->nr_span_end, i);
			if (err)
				return err;
			an->span_end_seen[i] = true;
		}
	}
	if (prefer_sampled(an, info->role) &&
	    (info->nr_span_start || info->nr_span_end) &&
	    (evsel->attr.freq || evsel->attr.sample_period > 1)) {
		an->sampled_tp = evsel;
		an->sampled_role = info->role;
	}
	return 0;
}

static struct evsel_info *evsel_info(struct analysis *an,
				     const struct rs_evsel *evsel)
{
	size_t i = evsel->idx, old = an->nr_evsels;

	if (i >= an->nr_evsels) {
		if (grow_array((void **)&an->evsels, &an->cap_evsels, i + 1,
			       sizeof(*an->evsels)))
			return NULL;
		memset(an->evsels + old, 0,
		       (i + 1 - old) * sizeof(*an->evsels));
		an->nr_evsels = i + 1;
	}
	if (an->evsels[i].role == ROLE_UNSEEN &&
	    setup_evsel(an, &an->evsels[i], evsel))
		return NULL;
	return &an->evsels[i];
}

/* "trigger;...;leaf": the flush part of the stack, root first. */
static const char *flush_stack(struct analysis *an, const char *const *syms,
			       int n, const struct rs_stack_class *cls)
{
	int top = cls->trigger_frame > cls->category_frame ?
		  cls->trigger_frame : cls->category_frame;
	size_t len = 0, need;
	int i, id;

	if (top < 0 || top >= n)
		return NULL;
	for (i = top; i >= 0; i--) {
		need = len + strlen(syms[i]) + 2;
		if (grow_array((void **)&an->buf, &an->buf_cap, need, 1))
			return NULL;
		if (len)
			an->buf[len++] = ';';
		memcpy(an->buf + len, syms[i], strlen(syms[i]));
		len += strlen(syms[i]);
	}
	id = strpool__intern(an->stacks, an->buf, len);
	return id < 0 ? NULL : strpool__str(an->stacks, id);
}

/* The attribution's side: class idx (numbered in order) of the names. */
static int classify(struct analysis *an, uint32_t idx,
		    const char *const *syms, int n)
{
	struct chain_class *out = &an->once;
	int err;

	if (idx != CLASS_ONCE) {
		if (idx != an->nr_made)
			return -EINVAL;
		err = grow_array((void **)&an->classes, &an->cap_classes,
				 an->nr_made + 1, sizeof(*an->classes));
		if (err)
			return err;
		out = &an->classes[an->nr_made++];
	}
	err = classifier__classify(an->classifier, syms, n, &out->cls);
	if (err)
		return err;
	out->stack = NULL;
	if (rs_category_is_flush(out->cls.category)) {
		out->stack = flush_stack(an, syms, n, &out->cls);
		if (!out->stack)
			return -ENOMEM;
	}
	return 0;
}

static const struct chain_class *class_of(const struct analysis *an,
					  uint32_t idx)
{
	return idx == CLASS_ONCE ? &an->once : &an->classes[idx];
}

/* The attribution's thread: a block of records, in order. */
static int run_block(void *arg, void *recs, uint32_t nr)
{
	struct analysis *an = arg;
	const union an_rec *rec = recs;
	const struct chain_class *cc;
	uint32_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		if (rec[i].op.op == AOP_CLASSIFY) {
			err = classify(an, rec[i].op.idx, rec[i + 1].syms,
				       rec[i].op.nr_syms);
			i += (rec[i].op.nr_syms + 3) / 4;
			continue;
		}
		cc = class_of(an, rec[i].op.idx);
		err = attrib__add(an->attrib, rec[i].op.name, rec[i].op.clock,
				  &cc->cls, rec[i].op.comm, cc->stack,
				  rec[i].op.period);
	}
	return err;
}

/* Name the sample's frames and have them classified as class idx. */
static int classify_chain(struct analysis *an, const struct rs_sample *s,
			  uint32_t idx)
{
	union an_rec *rec;
	int i, n, err;

	if (s->nr_callchain) {
		n = machine__resolve_callchain(an->machine, s->pid, s->tid,
					       s->cpumode, s->callchain,
					       s->nr_callchain, an->frames,
					       AN_MAX_STACK);
	} else {
		err = machine__resolve(an->machine, s->pid, s->tid,
				       s->cpumode, s->ip, an->frames);
		n = err ? err : 1;
	}
	if (n < 0)
		return n;
	if (!an->off.active) {
		for (i = 0; i < n; i++)
			an->syms[i] = an->frames[i].sym;
		return classify(an, idx, an->syms, n);
	}
	/* The names go side by side after the record, four to one. */
	rec = workq__reserve(an->w, 1 + (n + 3) / 4);
	if (!rec)
		return workq__error(an->w);
	rec->op.op = AOP_CLASSIFY;
	rec->op.idx = idx;
	rec->op.nr_syms = n;
	for (i = 0; i < n; i++)
		rec[1 + i / 4].syms[i % 4] = an->frames[i].sym;
	return 0;
}

/* The class number of a sample's stack, classified when new. */
static int sample_class(struct analysis *an, const struct rs_sample *s,
			uint32_t *out)
{
	uint64_t h[2], where;
	uint32_t idx;
	int err;

	if (s->nr_callchain > AN_MAX_KEY - 3) {
		/* Rare and long: classified each time, not kept. */
		*out = CLASS_ONCE;
		return classify_chain(an, s, CLASS_ONCE);
	}
	err = offload__turn(&an->off, an->w);
	if (err)
		return err;
	machine__callchain_hash(an->machine, s, 0, h);
	where = rs_sample_chain_where(s, h);
	if (chainmap__find(&an->chains, h, where, &idx)) {
		if (an->w)
			offload__note(&an->off, false);
		*out = idx;
		return 0;
	}
	if (an->w)
		offload__note(&an->off, true);
	if (an->nr_classes >= CLASS_ONCE)
		return -E2BIG;
	err = classify_chain(an, s, an->nr_classes);
	if (err)
		return err;
	/* Left out (no room to grow), it is only classified again later. */
	err = chainmap__insert(&an->chains, h, where, an->nr_classes,
			       an->w && an->off.fresh_on);
	if (err < 0)
		return err;
	*out = an->nr_classes++;
	return 0;
}

/* Attribute the sample to class idx. */
static int attribute(struct analysis *an, const struct rs_sample *s,
		     bool clock, uint32_t idx)
{
	const char *comm = machine__comm(an->machine, s->pid, s->tid);
	const struct chain_class *cc;
	union an_rec *rec;

	if (an->off.active) {
		rec = workq__reserve(an->w, 1);
		if (!rec)
			return workq__error(an->w);
		rec->op.op = AOP_ADD;
		rec->op.clock = clock;
		rec->op.idx = idx;
		rec->op.name = s->evsel->name;
		rec->op.comm = comm;
		rec->op.period = s->period;
		return 0;
	}
	cc = class_of(an, idx);
	return attrib__add(an->attrib, s->evsel->name, clock, &cc->cls, comm,
			   cc->stack, s->period);
}

void analysis__ahead(struct analysis *an, const struct rs_event *ev)
{
	const struct rs_sample *s = &ev->sample;
	uint64_t where;
	uint32_t idx;

	if (ev->kind != RS_EV_SAMPLE || s->nr_callchain > AN_MAX_KEY - 3 ||
	    !rs_sample_where_early(s))
		return;
	/*
	 * Two random reads per sample otherwise: the key's slot, then its
	 * class. The slot now, placed by the raw callchain alone (the key
	 * mixes in the maps the sample will see); the class the home slot
	 * of the sample half the window back names, once that slot has had
	 * time to come in: most homes hold one key (on this thread only:
	 * the attribution's thread reads the classes, and grows them).
	 */
	where = s->chain_hash[0];
	an->ahead_where[an->nr_ahead++ % AN_AHEAD] = where;
	chainmap__prefetch(&an->chains, where);
	if (!an->off.active && an->nr_ahead > AN_AHEAD / 2) {
		where = an->ahead_where[(an->nr_ahead - AN_AHEAD / 2 - 1) %
					AN_AHEAD];
		if (chainmap__home(&an->chains, where, &idx) &&
		    idx < an->nr_made)
			__builtin_prefetch(&an->classes[idx]);
	}
}

/* The subsystem a lock event's callchain names, -1 when it has none. */
static int lock_subsys(struct analysis *an, const struct rs_sample *s)
{
	uint32_t idx;
	int err;

	if (!s->nr_callchain)
		return -1;
	err = sample_class(an, s, &idx);
	if (err)
		return err;
	if (!an->off.active)
		return rs_stack_class__lock_subsys(&class_of(an, idx)->cls);
	if (idx < an->nr_lock_subsys)
		return an->lock_subsys[idx];
	/*
	 * A class the attribution's thread may not have made yet: wait for
	 * it, then copy every class made so far (the thread is idle).
	 */
	err = workq__drain(an->w);
	if (err)
		return err;
	if (idx == CLASS_ONCE)
		return rs_stack_class__lock_subsys(&an->once.cls);
	if (grow_array((void **)&an->lock_subsys, &an->cap_lock_subsys,
		       an->nr_classes, sizeof(*an->lock_subsys)))
		return -ENOMEM;
	for (; an->nr_lock_subsys < an->nr_classes; an->nr_lock_subsys++)
		an->lock_subsys[an->nr_lock_subsys] =
			rs_stack_class__lock_subsys(
				&an->classes[an->nr_lock_subsys].cls);
	return an->lock_subsys[idx];
}

static int lock_event(struct analysis *an, const struct evsel_info *info,
		      const struct rs_sample *s, uint64_t time)
{
	struct rs_lock_event le = { 0 };
	int64_t v[4], contended = 0;
	int subsys, i;

	for (i = 0; i < 4; i++) {
		if (!read_field(s, &info->f[i], &v[i])) {
			an->nr_bad_raw++;
			return 0;
		}
	}
	read_field(s, &info->contended, &contended);
	subsys = lock_subsys(an, s);
	if (subsys < -1)
		return subsys;
	le.kind = info->role == ROLE_LOCKED ? RS_LOCK_LOCKED :
		  info->role == ROLE_UNLOCK ? RS_LOCK_UNLOCK :
		  RS_LOCK_CONTENDED;
	le.tid = s->tid;
	le.cpu = s->cpu;
	le.time = time;
	le.root = (int32_t)v[0];
	le.level = (int32_t)v[1];
	le.cgroup_id = (uint64_t)v[2];
	le.lock_cpu = (int32_t)v[3];
	le.contended = contended != 0;
	le.subsys = subsys;
	return spans__lock(an->spans, &le);
}

static int memcg_event(struct analysis *an, const struct evsel_info *info,
		       const struct rs_sample *s, uint64_t time)
{
	int64_t v[4];
	int i;

	for (i = 0; i < 4; i++) {
		if (!read_field(s, &info->f[i], &v[i])) {
			an->nr_bad_raw++;
			return 0;
		}
	}
	return spans__memcg_flush(an->spans, s->tid, time, (uint64_t)v[0],
				  v[1], v[2] != 0, v[3] != 0);
}

static int user_spans(struct analysis *an, const struct evsel_info *info,
		      const struct rs_sample *s, uint64_t time)
{
	uint32_t i;
	int err;

	/* Ends first: an event that both ends and starts closes, then opens. */
	for (i = 0; i < info->nr_span_end; i++) {
		err = spans__user_event(an->spans,
					an->span_idx[info->span_end[i]],
					false, s->tid, time);
		if (err)
			return err;
	}
	for (i = 0; i < info->nr_span_start; i++) {
		err = spans__user_event(an->spans,
					an->span_idx[info->span_start[i]],
					true, s->tid, time);
		if (err)
			return err;
	}
	return 0;
}

static int sample_event(struct analysis *an, const struct rs_event *ev)
{
	const struct rs_sample *s = &ev->sample;
	struct evsel_info *info = evsel_info(an, s->evsel);
	uint32_t idx;
	uint64_t time = s->time;
	int err = 0;

	if (!info)
		return -ENOMEM;
	if (time) {
		if (!an->first_time || time < an->first_time)
			an->first_time = time;
		if (time > an->last_time)
			an->last_time = time;
	}
	switch (info->role) {
	case ROLE_SAMPLING:
		if (!s->nr_callchain)
			an->nr_no_chain++;
		err = sample_class(an, s, &idx);
		if (!err)
			err = attribute(an, s, info->clock, idx);
		break;
	case ROLE_LOCKED:
	case ROLE_UNLOCK:
	case ROLE_CONTENDED:
		err = lock_event(an, info, s, time);
		break;
	case ROLE_MEMCG_FLUSH:
		err = memcg_event(an, info, s, time);
		break;
	default:
		break;
	}
	if (!err && (info->nr_span_start || info->nr_span_end))
		err = user_spans(an, info, s, time);
	return err;
}

int analysis__event(struct analysis *an, const struct rs_event *ev)
{
	if (ev->kind == RS_EV_SAMPLE)
		return sample_event(an, ev);
	return machine__process_event(an->machine, ev);
}

void analysis__set_helper(struct analysis *an, void (*kick)(void *),
			  void *kick_ctx)
{
	if (an->opts.jobs != 2 || an->w)
		return;
	worker_use(an, workq__new_shared(sizeof(union an_rec), AW_RECS,
					 run_block, an, kick, kick_ctx), true);
}

bool analysis__help(struct analysis *an)
{
	return an->w && workq__help(an->w);
}

int analysis__finish(struct analysis *an)
{
	int err = workq__delete(an->w);

	an->w = NULL;
	an->off.active = false;
	return err ? err : spans__finish(an->spans, an->last_time);
}

struct attrib *analysis__attrib(const struct analysis *an)
{
	return an->attrib;
}

struct spans *analysis__spans(const struct analysis *an)
{
	return an->spans;
}

void analysis__time_range(const struct analysis *an, uint64_t *first,
			  uint64_t *last)
{
	*first = an->first_time;
	*last = an->last_time;
}

int analysis__unmatched_span(const struct analysis *an, bool *start)
{
	uint32_t i;

	for (i = 0; i < an->opts.nr_spans; i++) {
		if (!an->span_start_seen[i] || !an->span_end_seen[i]) {
			*start = !an->span_start_seen[i];
			return i;
		}
	}
	return -1;
}

uint64_t analysis__nr_bad_raw(const struct analysis *an)
{
	return an->nr_bad_raw;
}

uint64_t analysis__nr_no_chain(const struct analysis *an)
{
	return an->nr_no_chain;
}

const struct rs_evsel *analysis__sampled_tracepoint(const struct analysis *an)
{
	return an->sampled_tp;
}
