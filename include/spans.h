/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spans between tracepoint events: rstat lock hold and wait times, the work
 * of one flush, memcg flush requests, and user-named START,END spans.
 *
 * Pure aggregation: the caller decodes the tracepoint fields and passes
 * plain values, in time order. Memory is proportional to what is open at
 * once (per-task lock state, user span stacks) plus the rows and kept hist
 * values of the results, so a recording full of unmatched events costs no
 * more than a clean one.
 *
 * Kernel facts this relies on (docs/kernel-rstat.md, "Tracepoints"):
 * cgroup:cgroup_rstat_{lock_contended,locked,unlock} (v6.10+) carry root
 * (hierarchy id, 0 = v2), level, id (cgroup id), cpu and contended. The
 * lock is a spinlock taken with IRQs off, so a task cannot migrate while
 * it holds or waits for it: the events of one lock round share the task
 * and the CPU they were sampled on. What cpu means changed in v6.15:
 *   v6.10-v6.14: cpu = -1 is the first lock of a flush; cpu >= 0 is the
 *     lock retaken after yielding inside the per-CPU loop.
 *   v6.15+: the lock is taken once per CPU inside the loop (cpu = N, each
 *     possible CPU in turn); cpu = -1 only for the short lock
 *     cgroup_base_stat_cputime_show() takes after flushing.
 *
 * PAIRING RULES
 *
 * Key = (tid, sample cpu); fields = (root, cgroup_id, lock_cpu); level is
 * carried along but not compared.
 *
 * Hold: LOCKED opens a hold for its key. The next UNLOCK of the key closes
 * it when the fields are equal: a pair, hold = unlock.time - locked.time
 * (0 if the clock went backwards). Otherwise:
 *   - UNLOCK with nothing open: unmatched_end.
 *   - UNLOCK with different fields: unmatched_end, and the open LOCKED is
 *     discarded as unmatched_start.
 *   - LOCKED while one is open: the old one is unmatched_start, the new one
 *     replaces it.
 *   - still open at spans__finish(): unmatched_start (the recording's end).
 *
 * Wait: CONTENDED opens a wait for its key (a second CONTENDED replaces
 * it, the first counting as wait_unmatched_start). The next LOCKED of the
 * key closes it when the fields are equal: wait = locked.time -
 * contended.time, into the wait hist of the LOCKED's subsys. A LOCKED with
 * different fields discards the open wait (wait_unmatched_start) and, if
 * its contended flag is set, counts wait_unmatched_end. A LOCKED with no
 * wait open counts wait_unmatched_end only when its contended flag is set:
 * most locks are taken uncontended and have no CONTENDED before them by
 * design. Open waits at spans__finish() are wait_unmatched_start.
 *
 * Only completed pairs feed the aggregates below; unmatched events only
 * count in spans_counts (and the per-cgroup / per-lock_cpu "locks").
 *
 * Flushes ("work per flush": the run of locks one task takes inside one
 * flush call), built per tid from its completed hold pairs in order:
 *   RS_CPU_SEM_6_15: consecutive pairs with lock_cpu >= 0, the same (root,
 *     cgroup_id) and lock_cpu strictly increasing form one flush. A pair
 *     with lock_cpu == -1, another cgroup, or lock_cpu <= the previous one
 *     ends the current flush; the latter two start a new one, a -1 pair
 *     belongs to no flush.
 *   RS_CPU_SEM_6_10: a pair with lock_cpu == -1 ends the current flush and
 *     starts a new one; following pairs of the same (root, cgroup_id) with
 *     lock_cpu >= 0 join it; any other pair ends it and belongs to no flush.
 * Unmatched events in between neither join nor end a flush. A flush still
 * running at spans__finish() counts: as far as the recording shows it was
 * complete (under v6.15 semantics nothing but the task's next lock can end
 * one, so the last flush of every task ends there).
 * Per flush: duration = last unlock - first locked; locks = its pairs;
 * CPUs walked = distinct lock_cpu >= 0 among them (v6.15: = locks; v6.10:
 * the CPUs the lock was retaken on, often 0); hold = sum of its holds;
 * subsys = the first pair's.
 *
 * memcg:memcg_flush_stats (v6.13+) fires at the start of
 * __mem_cgroup_flush_stats(), before the skip check: every event is a
 * request; performed = force || needs_flush, forced = force, skipped =
 * !force && !needs_flush. stats_updates goes to a hist of counts; negative
 * values (a racy counter read) are counted as negative and kept out of it.
 *
 * User spans (--span START,END): spans__add_user() each pair first, then
 * report every event whose name is START or END with spans__user_event().
 * Per span and tid, starts stack up (LIFO, at most SPANS_USER_DEPTH deep:
 * a deeper start drops the oldest, counted unmatched_start); an end pops
 * the latest start of its tid into the span's hist, or counts
 * unmatched_end when none is open; starts open at spans__finish() are
 * unmatched_start. When START and END are the same name the span measures
 * the interval between consecutive hits per tid: call with is_start = true
 * once per hit (it closes the pending one, if any, then opens a new one);
 * calls with is_start = false are ignored, so a caller that tests a name
 * against START and then END still counts each hit once. The first and
 * last hit of each tid are not counted unmatched there.
 *
 * Subsystems are the caller's category indices, kept opaque: 0..15, or -1
 * for unknown (SPANS_SUBSYS_MAX bounds them).
 */
#ifndef RS_SPANS_H
#define RS_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define SPANS_SUBSYS_MAX 16	/* subsys is -1..SPANS_SUBSYS_MAX - 1 */
#define SPANS_USER_DEPTH 64	/* open starts kept per user span and tid */

enum rs_lock_kind { RS_LOCK_CONTENDED, RS_LOCK_LOCKED, RS_LOCK_UNLOCK };

struct rs_lock_event {
	enum rs_lock_kind kind;
	uint32_t tid;
	uint32_t cpu;		/* the CPU the sample was taken on */
	uint64_t time;		/* ns */
	int32_t root, level;
	uint64_t cgroup_id;
	int32_t lock_cpu;	/* the tracepoint's cpu field */
	bool contended;
	int subsys;		/* category from the callchain, -1 unknown */
};

/* What lock_cpu == -1 means: which kernel recorded the events. */
enum rs_cpu_semantics { RS_CPU_SEM_6_15, RS_CPU_SEM_6_10 };

struct spans_opts {
	enum rs_cpu_semantics cpu_sem;
};

struct spans;

/* o may be NULL: v6.15+ semantics. */
struct spans *spans__new(const struct spans_opts *o);
void spans__delete(struct spans *s);

/*
 * Feeding. Each returns 0, -EINVAL (an unknown kind, a subsys outside
 * -1..15, a bad user span index, or a call after spans__finish()) or
 * -ENOMEM; after an error the event may be partly counted.
 */
int spans__lock(struct spans *s, const struct rs_lock_event *ev);
int spans__memcg_flush(struct spans *s, uint32_t tid, uint64_t time,
		       uint64_t memcg_id, int64_t stats_updates, bool force,
		       bool needs_flush);
/*
 * Register a user span (names are copied): its index >= 0, -EINVAL after
 * spans__finish(), or -ENOMEM.
 */
int spans__add_user(struct spans *s, const char *start, const char *end);
int spans__user_event(struct spans *s, int idx, bool is_start, uint32_t tid,
		      uint64_t time);
/*
 * The end of the recording: count what is still open (see the rules
 * above) and close running flushes. end_time is not used to lengthen
 * anything: an open span's true length is unknown. Call once; 0 or
 * -ENOMEM.
 */
int spans__finish(struct spans *s, uint64_t end_time);

/*
 * Called with each lock hold as it pairs (locked time and hold, ns), for
 * a caller that wants the holds one by one (plot's timeline); a non-zero
 * return stops the feeding call with it.
 */
typedef int (*spans_hold_fn)(void *ctx, uint64_t locked_time,
			     uint64_t hold_ns);
void spans__set_hold_fn(struct spans *s, spans_hold_fn fn, void *ctx);

/*
 * Reading. Hists and rows belong to the spans object; rows stay valid until
 * the next feeding call or spans__delete(). The hists are non-const only
 * because hist__percentile() sorts lazily.
 */
struct spans_counts {
	uint64_t locked, unlocked, contended;	/* events seen */
	uint64_t pairs, unmatched_start, unmatched_end;		/* hold */
	uint64_t wait_pairs, wait_unmatched_start, wait_unmatched_end;
	uint64_t flushes;	/* all subsystems */
};

void spans__counts(const struct spans *s, struct spans_counts *c);

/* Hold / wait time hists (ns) of a subsys -1..15; NULL when it has none. */
struct hist *spans__hold_hist(struct spans *s, int subsys);
struct hist *spans__wait_hist(struct spans *s, int subsys);

/*
 * What observing a hold costs, from the recording itself: the shortest
 * hold is a locked record and an unlock record back to back with the
 * least kernel work between them, so it bounds what writing the locked
 * record adds to every hold. A median within 3x of that bound is mostly
 * the recorder's (the subsystem is "dominated"); in-kernel timing (BPF)
 * is then the figure to trust. kernel_spans__hold_cost() says the same
 * of the spans BPF timed (kernel-spans.h).
 */
#define HOLD_COST_MAX_DOMINATED 8
struct hold_cost {
	uint64_t bound_ns;		/* UINT64_MAX: no hold */
	int dominated[HOLD_COST_MAX_DOMINATED];	/* subsystems, in order */
	unsigned int nr_dominated;
	/* in-kernel spans: the kind that gave the bound ("hold", "flush") */
	const char *span;
};

/* The bound over the n subsystems of order, dominated ones in order. */
void spans__hold_cost(struct spans *s, const int *order, size_t n,
		      struct hold_cost *hc);

/* Per cgroup, sorted by hold_ns descending (then root, cgroup_id, level). */
/* The locks taken under one key (a cgroup, a cpu field value). */
struct spans_holds {
	uint64_t locks;		/* LOCKED events */
	uint64_t pairs;		/* of them completed */
	uint64_t hold_ns, max_hold_ns;
};

struct spans_cgroup {
	int32_t root, level;
	uint64_t cgroup_id;
	struct spans_holds holds;
};

int spans__cgroups(struct spans *s, const struct spans_cgroup **rows,
		   size_t *nr);

/* Per value of the tracepoint's cpu field, sorted by lock_cpu ascending. */
struct spans_lock_cpu {
	int32_t lock_cpu;
	struct spans_holds holds;
	const char *meaning;	/* spans__lock_cpu_meaning() */
};

int spans__lock_cpus(struct spans *s, const struct spans_lock_cpu **rows,
		     size_t *nr);

/*
 * What a lock with this cpu field is under sem, for a table column:
 * "short lock after a cpu.stat flush (v6.15+)", "first lock of a flush
 * (v6.10-v6.14)", "per-CPU lock", "lock retaken after yielding
 * (v6.10-v6.14)", or "unexpected cpu value" below -1.
 */
const char *spans__lock_cpu_meaning(enum rs_cpu_semantics sem,
				    int32_t lock_cpu);

/* Flushes by the subsys of their first pair. */
struct spans_flush {
	uint64_t flushes, locks, hold_ns;
	struct hist *duration;	/* ns, first locked to last unlock */
	struct hist *cpus;	/* CPUs walked per flush (plain counts) */
};

/* NULL when the subsys (-1..15) has no flush. */
const struct spans_flush *spans__flush(struct spans *s, int subsys);

struct spans_memcg {
	uint64_t requested, performed, forced, skipped, negative;
	struct hist *updates;	/* stats_updates >= 0 of every request */
};

const struct spans_memcg *spans__memcg(struct spans *s);

struct spans_user {
	const char *start, *end;
	struct hist *hist;	/* ns */
	uint64_t unmatched_start, unmatched_end;
};

int spans__nr_user(const struct spans *s);
/* NULL for an index out of range. */
const struct spans_user *spans__user(struct spans *s, int idx);

#endif
