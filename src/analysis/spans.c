// SPDX-License-Identifier: GPL-2.0
/*
 * Spans between tracepoint events; the pairing rules are in spans.h.
 *
 * Open state (a lock held or waited for, a flush running, user span
 * starts) lives in hash tables keyed by task (and CPU or span), and an
 * entry is removed as soon as nothing is open for its key, so memory
 * follows what is open at once, not how many events or tasks went by.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spans.h"
#include "util.h"

/* A LOCKED or CONTENDED waiting for its UNLOCK or LOCKED. */
struct open_lock {
	uint64_t time;
	uint64_t cgroup_id;
	int32_t root, level, lock_cpu;
	int subsys;
};

/* The flush a task is in the middle of. */
struct run {
	uint64_t cgroup_id;
	uint64_t first, last;	/* first locked, last unlock */
	uint64_t locks, hold;
	int32_t root, last_cpu;
	int subsys;
	uint64_t walked;	/* v6.15: distinct CPUs, as they increase */
	int32_t *cpus;		/* v6.10: lock_cpu >= 0 seen, any order */
	size_t nr_cpus, cap_cpus;
};

/* Open starts of one user span for one task, oldest first. */
struct ustack {
	uint64_t *times;
	size_t depth, cap;
};

struct user_span {
	struct spans_user pub;
	bool same;		/* START == END: intervals between hits */
};

struct spans {
	enum rs_cpu_semantics sem;
	spans_hold_fn hold_fn;		/* each hold as it pairs, or NULL */
	void *hold_ctx;
	bool finished;
	struct spans_counts counts;

	struct hashtab holds;	/* (tid, cpu) -> struct open_lock */
	struct hashtab waits;	/* (tid, cpu) -> struct open_lock */
	struct hashtab runs;	/* tid -> struct run */
	struct hashtab ustacks;	/* (idx, tid) -> struct ustack */
	struct hashtab cgroups;	/* (cgroup_id, root:level) -> row */
	struct hashtab lock_cpus;	/* lock_cpu -> row */

	/* Indexed by subsys + 1. */
	struct hist *hold[SPANS_SUBSYS_MAX + 1];
	struct hist *wait[SPANS_SUBSYS_MAX + 1];
	struct spans_flush *flush[SPANS_SUBSYS_MAX + 1];

	struct spans_memcg memcg;

	struct user_span *users;
	size_t nr_users, cap_users;

	/* Sorted copies of the row tables, rebuilt after feeding. */
	struct spans_cgroup *cg_rows;
	size_t cg_cap;
	bool cg_valid;
	struct spans_lock_cpu *lc_rows;
	size_t lc_cap;
	bool lc_valid;
};

struct spans *spans__new(const struct spans_opts *o)
{
	struct spans *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sem = o ? o->cpu_sem : RS_CPU_SEM_6_15;
	hashtab__init(&s->holds, sizeof(struct open_lock));
	hashtab__init(&s->waits, sizeof(struct open_lock));
	hashtab__init(&s->runs, sizeof(struct run));
	hashtab__init(&s->ustacks, sizeof(struct ustack));
	hashtab__init(&s->cgroups, sizeof(struct spans_cgroup));
	hashtab__init(&s->lock_cpus, sizeof(struct spans_lock_cpu));
	s->memcg.updates = hist__new();
	if (!s->memcg.updates) {
		free(s);
		return NULL;
	}
	return s;
}

static void free_open_state(struct spans *s)
{
	struct hashtab_slot *e;
	size_t i;

	hashtab__for_each(&s->runs, i, e)
		free(((struct run *)hashtab__val(&s->runs, e))->cpus);
	hashtab__for_each(&s->ustacks, i, e)
		free(((struct ustack *)hashtab__val(&s->ustacks, e))->times);
	hashtab__exit(&s->holds);
	hashtab__exit(&s->waits);
	hashtab__exit(&s->runs);
	hashtab__exit(&s->ustacks);
}

void spans__delete(struct spans *s)
{
	size_t i;

	if (!s)
		return;
	free_open_state(s);
	hashtab__exit(&s->cgroups);
	hashtab__exit(&s->lock_cpus);
	for (i = 0; i <= SPANS_SUBSYS_MAX; i++) {
		hist__delete(s->hold[i]);
		hist__delete(s->wait[i]);
		if (s->flush[i]) {
			hist__delete(s->flush[i]->duration);
			hist__delete(s->flush[i]->cpus);
			free(s->flush[i]);
		}
	}
	hist__delete(s->memcg.updates);
	for (i = 0; i < s->nr_users; i++) {
		free((char *)s->users[i].pub.start);
		free((char *)s->users[i].pub.end);
		hist__delete(s->users[i].pub.hist);
	}
	free(s->users);
	free(s->cg_rows);
	free(s->lc_rows);
	free(s);
}

static bool subsys_ok(int subsys)
{
	return subsys >= -1 && subsys < SPANS_SUBSYS_MAX;
}

/* Add v to the hist in *slot, making it on first use. */
static int add_to(struct hist **slot, uint64_t v)
{
	if (!*slot) {
		*slot = hist__new();
		if (!*slot)
			return -ENOMEM;
	}
	return hist__add(*slot, v);
}

static struct spans_cgroup *cgroup_row(struct spans *s, int32_t root,
				       int32_t level, uint64_t id)
{
	uint64_t k1 = (uint64_t)(uint32_t)root << 32 | (uint32_t)level;
	struct spans_cgroup *row;
	bool fresh;

	row = hashtab__get(&s->cgroups, id, k1, &fresh);
	if (row && fresh) {
		row->root = root;
		row->level = level;
		row->cgroup_id = id;
	}
	return row;
}

static struct spans_lock_cpu *lock_cpu_row(struct spans *s, int32_t lock_cpu)
{
	struct spans_lock_cpu *row;
	bool fresh;

	row = hashtab__get(&s->lock_cpus, (uint32_t)lock_cpu, 0, &fresh);
	if (row && fresh)
		row->lock_cpu = lock_cpu;
	return row;
}

static bool same_fields(const struct open_lock *o,
			const struct rs_lock_event *ev)
{
	return o->root == ev->root && o->cgroup_id == ev->cgroup_id &&
	       o->lock_cpu == ev->lock_cpu;
}

static uint64_t since(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* A finished flush into the aggregates of its subsys. */
static int run_account(struct spans *s, struct run *r)
{
	struct spans_flush **fp = &s->flush[r->subsys + 1], *f;
	uint64_t walked = r->walked;
	int err;

	if (s->sem == RS_CPU_SEM_6_10) {
		size_t i;

		/* Sorted once here: inserting in order could go quadratic. */
		if (r->nr_cpus > 1)
			qsort(r->cpus, r->nr_cpus, sizeof(*r->cpus), cmp_i32);
		walked = 0;
		for (i = 0; i < r->nr_cpus; i++)
			if (!i || r->cpus[i] != r->cpus[i - 1])
				walked++;
	}
	if (!*fp) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return -ENOMEM;
		f->duration = hist__new();
		f->cpus = hist__new();
		if (!f->duration || !f->cpus) {
			hist__delete(f->duration);
			hist__delete(f->cpus);
			free(f);
			return -ENOMEM;
		}
		*fp = f;
	}
	f = *fp;
	f->flushes++;
	f->locks += r->locks;
	f->hold_ns += r->hold;
	s->counts.flushes++;
	err = hist__add(f->duration, since(r->first, r->last));
	if (!err)
		err = hist__add(f->cpus, walked);
	return err;
}

/* Add a completed pair to the task's running flush. */
static int run_add(struct spans *s, struct run *r, const struct open_lock *o,
		   uint64_t unlock_time, uint64_t hold)
{
	r->last = unlock_time;
	r->locks++;
	r->hold += hold;
	r->last_cpu = o->lock_cpu;
	if (o->lock_cpu < 0)
		return 0;
	if (s->sem == RS_CPU_SEM_6_15) {
		r->walked++;	/* strictly increasing: always a new CPU */
		return 0;
	}
	/*
	 * v6.10: retaken CPUs normally increase too, but nothing in the
	 * events promises it (or that one is not retaken twice): keep them
	 * all and count the distinct ones when the flush ends.
	 */
	if (grow_array((void **)&r->cpus, &r->cap_cpus, r->nr_cpus + 1,
		       sizeof(*r->cpus)))
		return -ENOMEM;
	r->cpus[r->nr_cpus++] = o->lock_cpu;
	return 0;
}

/* Apply the flush rules of spans.h to a completed pair of task tid. */
static int flush_pair(struct spans *s, uint32_t tid, const struct open_lock *o,
		      uint64_t unlock_time, uint64_t hold)
{
	struct run *r = hashtab__find(&s->runs, tid, 0);
	bool join = false, start = false, fresh;
	int err = 0, err2;

	if (s->sem == RS_CPU_SEM_6_15) {
		if (o->lock_cpu >= 0) {
			join = r && r->root == o->root &&
			       r->cgroup_id == o->cgroup_id &&
			       o->lock_cpu > r->last_cpu;
			start = !join;
		}
	} else if (o->lock_cpu == -1) {
		start = true;
	} else if (o->lock_cpu >= 0) {
		join = r && r->root == o->root &&
		       r->cgroup_id == o->cgroup_id;
	}
	if (join)
		return run_add(s, r, o, unlock_time, hold);
	if (r) {
		err = run_account(s, r);
		free(r->cpus);
		hashtab__remove(&s->runs, r);
	}
	if (!start)
		return err;
	r = hashtab__get(&s->runs, tid, 0, &fresh);
	if (!r)
		return -ENOMEM;
	r->root = o->root;
	r->cgroup_id = o->cgroup_id;
	r->subsys = o->subsys;
	r->first = o->time;
	r->last_cpu = o->lock_cpu;
	err2 = run_add(s, r, o, unlock_time, hold);
	return err ? err : err2;
}

/* A completed lock, held hold ns, in the tally of its key. */
static void holds_add(struct spans_holds *h, uint64_t hold)
{
	h->pairs++;
	h->hold_ns += hold;
	if (hold > h->max_hold_ns)
		h->max_hold_ns = hold;
}

/* A LOCKED and its UNLOCK. */
static int hold_pair(struct spans *s, const struct rs_lock_event *ev,
		     const struct open_lock *o)
{
	uint64_t hold = since(o->time, ev->time);
	struct spans_cgroup *cg;
	struct spans_lock_cpu *lc;
	int err;

	s->counts.pairs++;
	err = add_to(&s->hold[o->subsys + 1], hold);
	if (!err && s->hold_fn)
		err = s->hold_fn(s->hold_ctx, o->time, hold);
	if (err)
		return err;
	cg = cgroup_row(s, o->root, o->level, o->cgroup_id);
	lc = lock_cpu_row(s, o->lock_cpu);
	if (!cg || !lc)
		return -ENOMEM;
	holds_add(&cg->holds, hold);
	holds_add(&lc->holds, hold);
	return flush_pair(s, ev->tid, o, ev->time, hold);
}

static void open_from(struct open_lock *o, const struct rs_lock_event *ev)
{
	o->time = ev->time;
	o->cgroup_id = ev->cgroup_id;
	o->root = ev->root;
	o->level = ev->level;
	o->lock_cpu = ev->lock_cpu;
	o->subsys = ev->subsys;
}

/* CONTENDED or LOCKED: open (or replace) the key's entry in t. */
static int open_lock(struct hashtab *t, const struct rs_lock_event *ev,
		     uint64_t key, uint64_t *unmatched_start)
{
	struct open_lock *o;
	bool fresh;

	o = hashtab__get(t, key, 0, &fresh);
	if (!o)
		return -ENOMEM;
	if (!fresh)
		(*unmatched_start)++;
	open_from(o, ev);
	return 0;
}

/* LOCKED: close the key's wait, if any (rules in spans.h). */
static int close_wait(struct spans *s, const struct rs_lock_event *ev,
		      uint64_t key)
{
	struct open_lock *o = hashtab__find(&s->waits, key, 0);
	uint64_t wait;
	int subsys;

	if (!o) {
		if (ev->contended)
			s->counts.wait_unmatched_end++;
		return 0;
	}
	if (!same_fields(o, ev)) {
		s->counts.wait_unmatched_start++;
		if (ev->contended)
			s->counts.wait_unmatched_end++;
		hashtab__remove(&s->waits, o);
		return 0;
	}
	wait = since(o->time, ev->time);
	/* `locked` may come without a callchain (record's): the wait's own. */
	subsys = ev->subsys >= 0 ? ev->subsys : o->subsys;
	hashtab__remove(&s->waits, o);
	s->counts.wait_pairs++;
	return add_to(&s->wait[subsys + 1], wait);
}

/* UNLOCK: close the key's hold (rules in spans.h). */
static int close_hold(struct spans *s, const struct rs_lock_event *ev,
		      uint64_t key)
{
	struct open_lock *o = hashtab__find(&s->holds, key, 0), copy;

	if (!o) {
		s->counts.unmatched_end++;
		return 0;
	}
	copy = *o;
	hashtab__remove(&s->holds, o);
	if (!same_fields(&copy, ev)) {
		s->counts.unmatched_start++;
		s->counts.unmatched_end++;
		return 0;
	}
	/*
	 * record takes no callchain at `locked` (it would be walked inside
	 * the hold it times): then the unlock's names the subsystem.
	 */
	if (copy.subsys < 0)
		copy.subsys = ev->subsys;
	return hold_pair(s, ev, &copy);
}

int spans__lock(struct spans *s, const struct rs_lock_event *ev)
{
	uint64_t key = (uint64_t)ev->tid << 32 | ev->cpu;
	struct spans_cgroup *cg;
	struct spans_lock_cpu *lc;
	int err;

	if (s->finished || !subsys_ok(ev->subsys))
		return -EINVAL;
	s->cg_valid = s->lc_valid = false;
	switch (ev->kind) {
	case RS_LOCK_CONTENDED:
		s->counts.contended++;
		return open_lock(&s->waits, ev, key,
				 &s->counts.wait_unmatched_start);
	case RS_LOCK_LOCKED:
		s->counts.locked++;
		cg = cgroup_row(s, ev->root, ev->level, ev->cgroup_id);
		if (!cg)
			return -ENOMEM;
		cg->holds.locks++;
		lc = lock_cpu_row(s, ev->lock_cpu);
		if (!lc)
			return -ENOMEM;
		lc->holds.locks++;
		err = close_wait(s, ev, key);
		if (err)
			return err;
		return open_lock(&s->holds, ev, key,
				 &s->counts.unmatched_start);
	case RS_LOCK_UNLOCK:
		s->counts.unlocked++;
		return close_hold(s, ev, key);
	}
	return -EINVAL;
}

int spans__memcg_flush(struct spans *s, uint32_t tid, uint64_t time,
		       uint64_t memcg_id, int64_t stats_updates, bool force,
		       bool needs_flush)
{
	struct spans_memcg *m = &s->memcg;

	if (s->finished)
		return -EINVAL;
	m->requested++;
	if (force)
		m->forced++;
	if (force || needs_flush)
		m->performed++;
	else
		m->skipped++;
	if (stats_updates < 0) {
		m->negative++;
		return 0;
	}
	return hist__add(m->updates, (uint64_t)stats_updates);
}

int spans__add_user(struct spans *s, const char *start, const char *end)
{
	struct user_span *u;

	if (s->finished)
		return -EINVAL;
	if (s->nr_users >= INT32_MAX ||
	    grow_array((void **)&s->users, &s->cap_users, s->nr_users + 1,
		       sizeof(*s->users)))
		return -ENOMEM;
	u = &s->users[s->nr_users];
	memset(u, 0, sizeof(*u));
	u->pub.start = strdup(start);
	u->pub.end = strdup(end);
	u->pub.hist = hist__new();
	if (!u->pub.start || !u->pub.end || !u->pub.hist) {
		free((char *)u->pub.start);
		free((char *)u->pub.end);
		hist__delete(u->pub.hist);
		return -ENOMEM;
	}
	u->same = !strcmp(start, end);
	return (int)s->nr_users++;
}

static int ustack_push(struct ustack *st, uint64_t time,
		       uint64_t *unmatched_start)
{
	if (st->depth == SPANS_USER_DEPTH) {
		/* Bounded: the oldest start is the least likely to end. */
		memmove(st->times, st->times + 1,
			(st->depth - 1) * sizeof(*st->times));
		st->depth--;
		(*unmatched_start)++;
	}
	if (grow_array((void **)&st->times, &st->cap, st->depth + 1,
		       sizeof(*st->times)))
		return -ENOMEM;
	st->times[st->depth++] = time;
	return 0;
}

int spans__user_event(struct spans *s, int idx, bool is_start, uint32_t tid,
		      uint64_t time)
{
	struct user_span *u;
	struct ustack *st;
	uint64_t start;
	bool fresh;
	int err = 0;

	if (s->finished || idx < 0 || (size_t)idx >= s->nr_users)
		return -EINVAL;
	u = &s->users[idx];
	if (u->same) {
		if (!is_start)
			return 0;	/* the same hit, seen as START first */
		st = hashtab__get(&s->ustacks, (uint64_t)idx, tid, &fresh);
		if (!st)
			return -ENOMEM;
		if (st->depth)
			err = hist__add(u->pub.hist,
					since(st->times[--st->depth], time));
		if (ustack_push(st, time, &u->pub.unmatched_start))
			return -ENOMEM;
		return err;
	}
	if (is_start) {
		st = hashtab__get(&s->ustacks, (uint64_t)idx, tid, &fresh);
		if (!st)
			return -ENOMEM;
		err = ustack_push(st, time, &u->pub.unmatched_start);
		if (err && !st->depth) {
			free(st->times);
			hashtab__remove(&s->ustacks, st);
		}
		return err;
	}
	st = hashtab__find(&s->ustacks, (uint64_t)idx, tid);
	if (!st) {
		u->pub.unmatched_end++;
		return 0;
	}
	start = st->times[--st->depth];
	if (!st->depth) {
		free(st->times);
		hashtab__remove(&s->ustacks, st);
	}
	return hist__add(u->pub.hist, since(start, time));
}

int spans__finish(struct spans *s, uint64_t end_time)
{
	struct hashtab_slot *e;
	size_t i;
	int err = 0, r;

	if (s->finished)
		return 0;
	s->finished = true;
	s->counts.unmatched_start += s->holds.nr;
	s->counts.wait_unmatched_start += s->waits.nr;
	hashtab__for_each(&s->runs, i, e) {
		r = run_account(s, (struct run *)hashtab__val(&s->runs, e));
		if (r && !err)
			err = r;
	}
	hashtab__for_each(&s->ustacks, i, e) {
		struct user_span *u = &s->users[e->k0];
		struct ustack *st = hashtab__val(&s->ustacks, e);

		/* The first and last hit of a START == END span are normal. */
		if (!u->same)
			u->pub.unmatched_start += st->depth;
	}
	free_open_state(s);
	return err;
}

void spans__counts(const struct spans *s, struct spans_counts *c)
{
	*c = s->counts;
}

struct hist *spans__hold_hist(struct spans *s, int subsys)
{
	return subsys_ok(subsys) ? s->hold[subsys + 1] : NULL;
}

struct hist *spans__wait_hist(struct spans *s, int subsys)
{
	return subsys_ok(subsys) ? s->wait[subsys + 1] : NULL;
}

void spans__hold_cost(struct spans *s, const int *order, size_t n,
		      struct hold_cost *hc)
{
	size_t k;

	hc->bound_ns = UINT64_MAX;
	hc->nr_dominated = 0;
	hc->span = NULL;
	for (k = 0; k < n; k++) {
		struct hist *h = spans__hold_hist(s, order[k]);

		if (h && hist__count(h) && hist__min(h) < hc->bound_ns)
			hc->bound_ns = hist__min(h);
	}
	for (k = 0; hc->bound_ns != UINT64_MAX && k < n; k++) {
		struct hist *h = spans__hold_hist(s, order[k]);

		if (h && hist__count(h) &&
		    hist__percentile(h, 50) < 3 * hc->bound_ns &&
		    hc->nr_dominated < HOLD_COST_MAX_DOMINATED)
			hc->dominated[hc->nr_dominated++] = order[k];
	}
}

static int cmp_cgroup(const void *a, const void *b)
{
	const struct spans_cgroup *x = a, *y = b;

	if (x->holds.hold_ns != y->holds.hold_ns)
		return x->holds.hold_ns > y->holds.hold_ns ? -1 : 1;
	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	return x->level < y->level ? -1 : x->level > y->level;
}

static int cmp_lock_cpu(const void *a, const void *b)
{
	const struct spans_lock_cpu *x = a, *y = b;

	return x->lock_cpu < y->lock_cpu ? -1 : x->lock_cpu > y->lock_cpu;
}

/* Copy the values of t into *rows (grown as needed) and sort them. */
static int table_rows(const struct hashtab *t, void **rows, size_t *cap,
		      int (*cmp)(const void *, const void *))
{
	struct hashtab_slot *e;
	size_t i, n = 0;

	if (grow_array(rows, cap, t->nr, t->val_size))
		return -ENOMEM;
	hashtab__for_each(t, i, e)
		memcpy((char *)*rows + n++ * t->val_size, hashtab__val(t, e),
		       t->val_size);
	if (n)
		qsort(*rows, n, t->val_size, cmp);
	return 0;
}

int spans__cgroups(struct spans *s, const struct spans_cgroup **rows,
		   size_t *nr)
{
	if (!s->cg_valid) {
		if (table_rows(&s->cgroups, (void **)&s->cg_rows, &s->cg_cap,
			       cmp_cgroup))
			return -ENOMEM;
		s->cg_valid = true;
	}
	*rows = s->cg_rows;
	*nr = s->cgroups.nr;
	return 0;
}

int spans__lock_cpus(struct spans *s, const struct spans_lock_cpu **rows,
		     size_t *nr)
{
	size_t i;

	if (!s->lc_valid) {
		if (table_rows(&s->lock_cpus, (void **)&s->lc_rows,
			       &s->lc_cap, cmp_lock_cpu))
			return -ENOMEM;
		for (i = 0; i < s->lock_cpus.nr; i++)
			s->lc_rows[i].meaning =
				spans__lock_cpu_meaning(s->sem,
							s->lc_rows[i].lock_cpu);
		s->lc_valid = true;
	}
	*rows = s->lc_rows;
	*nr = s->lock_cpus.nr;
	return 0;
}

const char *spans__lock_cpu_meaning(enum rs_cpu_semantics sem,
				    int32_t lock_cpu)
{
	if (lock_cpu < -1)
		return "unexpected cpu value";
	if (sem == RS_CPU_SEM_6_10)
		return lock_cpu == -1 ? "first lock of a flush (v6.10-v6.14)" :
		       "lock retaken after yielding (v6.10-v6.14)";
	return lock_cpu == -1 ? "short lock after a cpu.stat flush (v6.15+)" :
	       "per-CPU lock";
}

const struct spans_flush *spans__flush(struct spans *s, int subsys)
{
	return subsys_ok(subsys) ? s->flush[subsys + 1] : NULL;
}

const struct spans_memcg *spans__memcg(struct spans *s)
{
	return &s->memcg;
}

int spans__nr_user(const struct spans *s)
{
	return (int)s->nr_users;
}

const struct spans_user *spans__user(struct spans *s, int idx)
{
	if (idx < 0 || (size_t)idx >= s->nr_users)
		return NULL;
	return &s->users[idx].pub;
}

void spans__set_hold_fn(struct spans *s, spans_hold_fn fn, void *ctx)
{
	s->hold_fn = fn;
	s->hold_ctx = ctx;
}
