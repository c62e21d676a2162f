// SPDX-License-Identifier: GPL-2.0
/*
 * Spans: each pairing rule of spans.h on hand-built sequences (the
 * expected numbers are worked out in the comment above each case), then
 * the real recording tests/data/flush-mixed.trace.txt.gz against totals
 * computed independently with awk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spans.h"
#include "unit.h"
#include "util.h"

enum { MEM = 0, BASE = 2 };	/* the lead's category numbers */

#define C RS_LOCK_CONTENDED
#define L RS_LOCK_LOCKED
#define U RS_LOCK_UNLOCK

/*
 * Feed one lock event: kind, tid, sample cpu, time, root, cgroup id, the
 * tracepoint's cpu field, subsys (level is root ? 3 : 1; contended set on
 * LOCKED only through feed_c()).
 */
static void feed(struct spans *s, enum rs_lock_kind kind, uint32_t tid,
		 uint32_t cpu, uint64_t time, int32_t root, uint64_t id,
		 int32_t lock_cpu, int subsys)
{
	struct rs_lock_event ev = {
		.kind = kind, .tid = tid, .cpu = cpu, .time = time,
		.root = root, .level = root ? 3 : 1, .cgroup_id = id,
		.lock_cpu = lock_cpu, .subsys = subsys,
	};

	if (spans__lock(s, &ev))
		UNIT_FAIL("spans__lock failed");
}

static void feed_c(struct spans *s, uint32_t tid, uint32_t cpu,
		   uint64_t time, int32_t lock_cpu)
{
	struct rs_lock_event ev = {
		.kind = L, .tid = tid, .cpu = cpu, .time = time,
		.root = 0, .level = 1, .cgroup_id = 25, .lock_cpu = lock_cpu,
		.contended = true, .subsys = BASE,
	};

	if (spans__lock(s, &ev))
		UNIT_FAIL("spans__lock failed");
}

/* A v2 base-stat lock round of tid 1 on CPU 0, cgroup 25. */
#define BL(s, t, lc) feed(s, L, 1, 0, t, 0, 25, lc, BASE)
#define BU(s, t, lc) feed(s, U, 1, 0, t, 0, 25, lc, BASE)

static struct spans *new_spans(enum rs_cpu_semantics sem)
{
	struct spans_opts o = { .cpu_sem = sem };
	struct spans *s = spans__new(&o);

	if (!s)
		UNIT_FAIL("spans__new");
	return s;
}

/* L at 100, U at 150: one pair, hold 50, in the hist of the L's subsys. */
static void test_hold_pair(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	struct spans_counts c;
	struct hist *h;

	BL(s, 100, 0);
	BU(s, 150, 0);
	spans__finish(s, 200);
	spans__counts(s, &c);
	CHECK_U64(c.locked, 1);
	CHECK_U64(c.unlocked, 1);
	CHECK_U64(c.pairs, 1);
	CHECK_U64(c.unmatched_start, 0);
	CHECK_U64(c.unmatched_end, 0);
	h = spans__hold_hist(s, BASE);
	CHECK(h != NULL);
	if (h) {
		CHECK_U64(hist__count(h), 1);
		CHECK_U64(hist__total(h), 50);
	}
	CHECK(spans__hold_hist(s, MEM) == NULL);
	CHECK(spans__hold_hist(s, 16) == NULL);
	CHECK(spans__wait_hist(s, BASE) == NULL);
	spans__delete(s);
}

/*
 *   U(0) with nothing open             -> unmatched_end 1
 *   L(0)@10, L(0)@20                   -> unmatched_start 1 (the @10)
 *   U(0)@25                            -> pair, hold 5
 *   L(0)@30, U(1)@40 (other lock_cpu)  -> unmatched_end 2, unmatched_start 2
 *   U(0)@45 (the L was discarded)      -> unmatched_end 3
 *   L(0)@50 for cgroup 26, U cgroup 25 -> unmatched_end 4, unmatched_start 3
 *   L(0)@60 root 4, U root 0           -> unmatched_end 5, unmatched_start 4
 *   L(1)@70, still open at finish      -> unmatched_start 5
 * locked 6 = pairs 1 + unmatched_start 5; unlocked 6 = 1 + unmatched_end 5.
 */
static void test_hold_unmatched(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	struct spans_counts c;

	BU(s, 5, 0);
	BL(s, 10, 0);
	BL(s, 20, 0);
	BU(s, 25, 0);
	BL(s, 30, 0);
	BU(s, 40, 1);
	BU(s, 45, 0);
	feed(s, L, 1, 0, 50, 0, 26, 0, BASE);
	BU(s, 55, 0);
	feed(s, L, 1, 0, 60, 4, 25, 0, MEM);
	BU(s, 65, 0);
	BL(s, 70, 1);
	spans__counts(s, &c);
	CHECK_U64(c.unmatched_start, 4);	/* the last L still open */
	spans__finish(s, 100);
	spans__counts(s, &c);
	CHECK_U64(c.locked, 6);
	CHECK_U64(c.unlocked, 6);
	CHECK_U64(c.pairs, 1);
	CHECK_U64(c.unmatched_start, 5);
	CHECK_U64(c.unmatched_end, 5);
	CHECK_U64(hist__total(spans__hold_hist(s, BASE)), 5);
	spans__delete(s);
}

/*
 * Keys are (tid, sample cpu): tid 1 and tid 2 interleave on CPUs 0 and 1,
 * and tid 3 holds a lock on CPU 0 while an event of tid 3 on CPU 1 (a
 * different key) must not close it.
 *   t1c0 L@100  t2c1 L@110  t1c0 U@130 (30)  t2c1 U@170 (60)
 *   t3c0 L@200  t3c1 U@210 -> unmatched_end (nothing open for t3c1)
 *   t3c0 U@260 (60)
 * Pairs 3, holds 30 + 60 + 60 = 150, max 60.
 */
static void test_interleaved(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	struct spans_counts c;
	struct hist *h;

	feed(s, L, 1, 0, 100, 0, 25, 0, BASE);
	feed(s, L, 2, 1, 110, 0, 25, 0, BASE);
	feed(s, U, 1, 0, 130, 0, 25, 0, BASE);
	feed(s, U, 2, 1, 170, 0, 25, 0, BASE);
	feed(s, L, 3, 0, 200, 0, 25, 1, BASE);
	feed(s, U, 3, 1, 210, 0, 25, 1, BASE);
	feed(s, U, 3, 0, 260, 0, 25, 1, BASE);
	spans__finish(s, 300);
	spans__counts(s, &c);
	CHECK_U64(c.pairs, 3);
	CHECK_U64(c.unmatched_end, 1);
	CHECK_U64(c.unmatched_start, 0);
	h = spans__hold_hist(s, BASE);
	CHECK_U64(hist__total(h), 150);
	CHECK_U64(hist__max(h), 60);
	CHECK_U64(hist__min(h), 30);
	spans__delete(s);
}

/*
 * Waits, all tid 1 CPU 0, lock_cpu 0 unless said:
 *   C@100, L(contended)@110, U@200  -> wait 10, hold 90
 *   L(uncontended)@300, U@310       -> no wait counted at all
 *   L(contended)@400, U@410         -> wait_unmatched_end 1
 *   C@500, C@510                    -> wait_unmatched_start 1
 *   L(contended)@530, U@540         -> wait 20 (from the C@510)
 *   C@600 lock_cpu 1, L(contended, lock_cpu 0)@610, U@620
 *                                   -> wait_unmatched_start 2, _end 2
 *   C@700, open at finish           -> wait_unmatched_start 3
 * contended 5 = wait_pairs 2 + wait_unmatched_start 3.
 */
static void test_wait(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	struct spans_counts c;
	struct hist *h;

	feed(s, C, 1, 0, 100, 0, 25, 0, BASE);
	feed_c(s, 1, 0, 110, 0);
	BU(s, 200, 0);
	BL(s, 300, 0);
	BU(s, 310, 0);
	feed_c(s, 1, 0, 400, 0);
	BU(s, 410, 0);
	feed(s, C, 1, 0, 500, 0, 25, 0, BASE);
	feed(s, C, 1, 0, 510, 0, 25, 0, BASE);
	feed_c(s, 1, 0, 530, 0);
	BU(s, 540, 0);
	feed(s, C, 1, 0, 600, 0, 25, 1, BASE);
	feed_c(s, 1, 0, 610, 0);
	BU(s, 620, 0);
	feed(s, C, 1, 0, 700, 0, 25, 0, BASE);
	spans__finish(s, 800);
	spans__counts(s, &c);
	CHECK_U64(c.contended, 5);
	CHECK_U64(c.wait_pairs, 2);
	CHECK_U64(c.wait_unmatched_start, 3);
	CHECK_U64(c.wait_unmatched_end, 2);
	CHECK_U64(c.pairs, 5);
	h = spans__wait_hist(s, BASE);
	CHECK(h != NULL);
	if (h) {
		CHECK_U64(hist__count(h), 2);
		CHECK_U64(hist__total(h), 30);
	}
	spans__delete(s);
}

/*
 * v6.15+: per-CPU locks 0, 1 then the -1 short lock, twice, then a v1
 * memory flush (root 4, cgroup 6272) walking 0, 1 and again 0, 1 without
 * anything between (0 <= 1 ends the first), the last one still running at
 * finish.
 *   L0@100 U0@110  L1@120 U1@140  L-1@150 U-1@155   flush A: 140-100 = 40
 *   L0@200 U0@205  L1@210 U1@230  L-1@240 U-1@245   flush B: 230-200 = 30
 *   M0@300 M0@310  M1@320 M1@350                    flush C: 50
 *   M0@400 M0@402  M1@404 M1@410                    flush D: 10 (at finish)
 * base: 2 flushes, 4 locks, CPUs walked 2 each, hold 10+20+5+20 = 55
 * (the -1 pairs, 5 each, are held but in no flush: cgroup 25 holds 65),
 * durations 40 + 30 = 70; memory: 2 flushes, 4 locks, hold
 * 10+30+2+6 = 48, durations 50 + 10 = 60. lock_cpu rows: -1 (2 pairs, hold 5+5 = 10),
 * 0 (4 pairs, 10+5+10+2 = 27), 1 (4 pairs, 20+20+30+6 = 76, max 30).
 */
static void test_flush_6_15(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_flush *f;
	const struct spans_lock_cpu *lc;
	const struct spans_cgroup *cg;
	struct spans_counts c;
	size_t n;

	BL(s, 100, 0); BU(s, 110, 0); BL(s, 120, 1); BU(s, 140, 1);
	BL(s, 150, -1); BU(s, 155, -1);
	BL(s, 200, 0); BU(s, 205, 0); BL(s, 210, 1); BU(s, 230, 1);
	BL(s, 240, -1); BU(s, 245, -1);
	feed(s, L, 1, 0, 300, 4, 6272, 0, MEM);
	feed(s, U, 1, 0, 310, 4, 6272, 0, MEM);
	feed(s, L, 1, 0, 320, 4, 6272, 1, MEM);
	feed(s, U, 1, 0, 350, 4, 6272, 1, MEM);
	feed(s, L, 1, 0, 400, 4, 6272, 0, MEM);
	feed(s, U, 1, 0, 402, 4, 6272, 0, MEM);
	feed(s, L, 1, 0, 404, 4, 6272, 1, MEM);
	feed(s, U, 1, 0, 410, 4, 6272, 1, MEM);
	spans__counts(s, &c);
	CHECK_U64(c.flushes, 3);	/* D still running */
	CHECK_INT(spans__finish(s, 500), 0);
	spans__counts(s, &c);
	CHECK_U64(c.flushes, 4);

	f = spans__flush(s, BASE);
	CHECK(f != NULL);
	if (f) {
		CHECK_U64(f->flushes, 2);
		CHECK_U64(f->locks, 4);
		CHECK_U64(f->hold_ns, 55);
		CHECK_U64(hist__total(f->duration), 70);
		CHECK_U64(hist__min(f->cpus), 2);
		CHECK_U64(hist__max(f->cpus), 2);
	}
	f = spans__flush(s, MEM);
	CHECK(f != NULL);
	if (f) {
		CHECK_U64(f->flushes, 2);
		CHECK_U64(f->locks, 4);
		CHECK_U64(f->hold_ns, 48);
		CHECK_U64(hist__total(f->duration), 60);
		CHECK_U64(hist__total(f->cpus), 4);
	}
	CHECK(spans__flush(s, -1) == NULL);
	/* The -1 pairs are in the hold hist, just in no flush. */
	CHECK_U64(hist__count(spans__hold_hist(s, BASE)), 6);
	CHECK_U64(hist__total(spans__hold_hist(s, BASE)), 65);

	CHECK_INT(spans__lock_cpus(s, &lc, &n), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_INT(lc[0].lock_cpu, -1);
		CHECK_U64(lc[0].holds.pairs, 2);
		CHECK_U64(lc[0].holds.hold_ns, 10);
		CHECK_STR(lc[0].meaning,
			  "short lock after a cpu.stat flush (v6.15+)");
		CHECK_INT(lc[1].lock_cpu, 0);
		CHECK_U64(lc[1].holds.locks, 4);
		CHECK_U64(lc[1].holds.hold_ns, 27);
		CHECK_STR(lc[1].meaning, "per-CPU lock");
		CHECK_INT(lc[2].lock_cpu, 1);
		CHECK_U64(lc[2].holds.hold_ns, 76);
		CHECK_U64(lc[2].holds.max_hold_ns, 30);
	}
	/* Cgroups by hold: 25 (35 + 30 = 65) before 6272 (48). */
	CHECK_INT(spans__cgroups(s, &cg, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_U64(cg[0].cgroup_id, 25);
		CHECK_INT(cg[0].root, 0);
		CHECK_INT(cg[0].level, 1);
		CHECK_U64(cg[0].holds.locks, 6);
		CHECK_U64(cg[0].holds.pairs, 6);
		CHECK_U64(cg[0].holds.hold_ns, 65);
		CHECK_U64(cg[0].holds.max_hold_ns, 20);
		CHECK_U64(cg[1].cgroup_id, 6272);
		CHECK_INT(cg[1].root, 4);
		CHECK_INT(cg[1].level, 3);
		CHECK_U64(cg[1].holds.hold_ns, 48);
	}
	spans__delete(s);
}

/*
 * v6.15 run breaks: a cgroup change ends a flush and starts one; an
 * unmatched event in the middle neither joins nor ends it.
 *   L0@10 U0@20 (cg 25)  L1@30 U1@40 (cg 26)      -> flushes 25:{0}, 26:{1}
 *   L2@50 (cg 26, never unlocked)  L3@60 U3@70     -> joins 26: {1, 3}
 *   finish: the running {1, 3} counts: 2 flushes, locks 3, walked 1 + 2.
 */
static void test_flush_6_15_breaks(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_flush *f;

	feed(s, L, 1, 0, 10, 0, 25, 0, BASE);
	feed(s, U, 1, 0, 20, 0, 25, 0, BASE);
	feed(s, L, 1, 0, 30, 0, 26, 1, BASE);
	feed(s, U, 1, 0, 40, 0, 26, 1, BASE);
	feed(s, L, 1, 0, 50, 0, 26, 2, BASE);
	feed(s, L, 1, 0, 60, 0, 26, 3, BASE);
	feed(s, U, 1, 0, 70, 0, 26, 3, BASE);
	spans__finish(s, 100);
	f = spans__flush(s, BASE);
	CHECK(f != NULL);
	if (f) {
		CHECK_U64(f->flushes, 2);
		CHECK_U64(f->locks, 3);
		CHECK_U64(hist__total(f->cpus), 3);
		/* durations 20 - 10 = 10 and 70 - 30 = 40 */
		CHECK_U64(hist__total(f->duration), 50);
	}
	spans__delete(s);
}

/*
 * v6.10-v6.14: -1 opens a flush, retakes (>= 0) of the same cgroup join.
 *   L-1@100 U-1@110  L0@120 U0@125  L1@130 U1@150  -> flush: 3 locks,
 *     2 CPUs, duration 50, hold 10+5+20 = 35
 *   L-1@200 U-1@230                                -> flush: 1 lock, 0 CPUs,
 *     duration 30 (running at finish... until the next pair)
 *   L0@300 U0@310 of cgroup 26                     -> other cgroup: ends
 *     it, and belongs to no flush
 *   L-1@400 U-1@405  L3@410 U3@420  L3@430 U3@440  -> 3 locks, CPU 3 twice
 *     counts once: 1 CPU; duration 40; running at finish
 * 3 flushes, locks 7, CPUs walked 2 + 0 + 1.
 */
static void test_flush_6_10(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_10);
	const struct spans_flush *f;
	const struct spans_lock_cpu *lc;
	size_t n;

	BL(s, 100, -1); BU(s, 110, -1); BL(s, 120, 0); BU(s, 125, 0);
	BL(s, 130, 1); BU(s, 150, 1);
	BL(s, 200, -1); BU(s, 230, -1);
	feed(s, L, 1, 0, 300, 0, 26, 0, BASE);
	feed(s, U, 1, 0, 310, 0, 26, 0, BASE);
	BL(s, 400, -1); BU(s, 405, -1); BL(s, 410, 3); BU(s, 420, 3);
	BL(s, 430, 3); BU(s, 440, 3);
	spans__finish(s, 500);
	f = spans__flush(s, BASE);
	CHECK(f != NULL);
	if (f) {
		CHECK_U64(f->flushes, 3);
		CHECK_U64(f->locks, 7);
		CHECK_U64(hist__total(f->cpus), 3);
		CHECK_U64(hist__min(f->cpus), 0);
		CHECK_U64(hist__max(f->cpus), 2);
		CHECK_U64(hist__total(f->duration), 50 + 30 + 40);
		CHECK_U64(f->hold_ns, 35 + 30 + 5 + 10 + 10);
	}
	CHECK_INT(spans__lock_cpus(s, &lc, &n), 0);
	CHECK(n >= 2);
	if (n >= 2) {
		CHECK_INT(lc[0].lock_cpu, -1);
		CHECK_STR(lc[0].meaning, "first lock of a flush (v6.10-v6.14)");
		CHECK_STR(lc[1].meaning,
			  "lock retaken after yielding (v6.10-v6.14)");
	}
	CHECK_STR(spans__lock_cpu_meaning(RS_CPU_SEM_6_15, -2),
		  "unexpected cpu value");
	spans__delete(s);
}

/*
 * Requests (force, needs_flush): (0,1) performed, (0,0) skipped, (1,0)
 * forced+performed, (1,1) forced+performed, (0,0) skipped with
 * stats_updates -5 (negative, not in the hist). Hist: 192, 0, 64, 128.
 */
static void test_memcg(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_memcg *m;

	spans__memcg_flush(s, 1, 10, 6272, 192, false, true);
	spans__memcg_flush(s, 1, 20, 6272, 0, false, false);
	spans__memcg_flush(s, 1, 30, 6272, 64, true, false);
	spans__memcg_flush(s, 1, 40, 6272, 128, true, true);
	spans__memcg_flush(s, 1, 50, 6272, -5, false, false);
	spans__finish(s, 100);
	m = spans__memcg(s);
	CHECK_U64(m->requested, 5);
	CHECK_U64(m->performed, 3);
	CHECK_U64(m->forced, 2);
	CHECK_U64(m->skipped, 2);
	CHECK_U64(m->negative, 1);
	CHECK_U64(hist__count(m->updates), 4);
	CHECK_U64(hist__total(m->updates), 384);
	spans__delete(s);
}

/*
 * LIFO per tid: tid 1 starts @10 and @20, tid 2 starts @15; tid 1 ends
 * @25 (pops @20: 5) and @40 (pops @10: 30); tid 2 ends @45 (30); tid 1
 * ends @50 with nothing open (unmatched_end); tid 3 starts @60, open at
 * finish (unmatched_start). A second span is independent.
 */
static void test_user_lifo(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_user *u;
	int a = spans__add_user(s, "sys_enter_read", "sys_exit_read");
	int b = spans__add_user(s, "x", "y");

	CHECK_INT(a, 0);
	CHECK_INT(b, 1);
	CHECK_INT(spans__nr_user(s), 2);
	spans__user_event(s, a, true, 1, 10);
	spans__user_event(s, a, true, 1, 20);
	spans__user_event(s, a, true, 2, 15);
	spans__user_event(s, b, false, 1, 22);
	spans__user_event(s, a, false, 1, 25);
	spans__user_event(s, a, false, 1, 40);
	spans__user_event(s, a, false, 2, 45);
	spans__user_event(s, a, false, 1, 50);
	spans__user_event(s, a, true, 3, 60);
	CHECK_INT(spans__user_event(s, 2, true, 1, 70), -EINVAL);
	spans__finish(s, 100);
	u = spans__user(s, a);
	CHECK_STR(u->start, "sys_enter_read");
	CHECK_STR(u->end, "sys_exit_read");
	CHECK_U64(hist__count(u->hist), 3);
	CHECK_U64(hist__total(u->hist), 65);
	CHECK_U64(hist__min(u->hist), 5);
	CHECK_U64(u->unmatched_end, 1);
	CHECK_U64(u->unmatched_start, 1);
	u = spans__user(s, b);
	CHECK_U64(u->unmatched_end, 1);
	CHECK_U64(hist__count(u->hist), 0);
	CHECK(spans__user(s, 2) == NULL);
	spans__delete(s);
}

/*
 * Depth cap: 66 starts at 1..66 keep the last 64 (2..66 minus 1: 3..66),
 * dropping @1 and @2 as unmatched_start; 65 ends at 100 pop 66, 65, ...,
 * 3 (latencies 34..97) and the 65th finds nothing (unmatched_end).
 * Sum of 34..97 = 64 * (34 + 97) / 2 = 4192.
 */
static void test_user_overflow(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_user *u;
	int a = spans__add_user(s, "a", "b"), i;

	for (i = 1; i <= 66; i++)
		spans__user_event(s, a, true, 7, i);
	for (i = 0; i < 65; i++)
		spans__user_event(s, a, false, 7, 100);
	spans__finish(s, 200);
	u = spans__user(s, a);
	CHECK_U64(u->unmatched_start, 2);
	CHECK_U64(u->unmatched_end, 1);
	CHECK_U64(hist__count(u->hist), 64);
	CHECK_U64(hist__total(u->hist), 4192);
	CHECK_U64(hist__min(u->hist), 34);
	CHECK_U64(hist__max(u->hist), 97);
	spans__delete(s);
}

/*
 * START == END: intervals between consecutive hits per tid. The caller
 * tests the name against START then END, so each hit comes as a start and
 * an end call; the end call is ignored. tid 1 hits @100, @150, @300 (50,
 * 150); tid 2 hits @120, @130 (10). First and last hits are not unmatched.
 */
static void test_user_same(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_user *u;
	static const struct { uint32_t tid; uint64_t t; } hits[] = {
		{ 1, 100 }, { 2, 120 }, { 2, 130 }, { 1, 150 }, { 1, 300 },
	};
	int a = spans__add_user(s, "tick", "tick");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hits); i++) {
		spans__user_event(s, a, true, hits[i].tid, hits[i].t);
		spans__user_event(s, a, false, hits[i].tid, hits[i].t);
	}
	spans__finish(s, 400);
	u = spans__user(s, a);
	CHECK_U64(hist__count(u->hist), 3);
	CHECK_U64(hist__total(u->hist), 210);
	CHECK_U64(hist__max(u->hist), 150);
	CHECK_U64(u->unmatched_start, 0);
	CHECK_U64(u->unmatched_end, 0);
	spans__delete(s);
}

/*
 * Many keys open at once, closed in a scrambled order: every UNLOCK must
 * still find its LOCKED while the table grows, shifts entries back on
 * removal and shrinks again. 20000 tasks on 2 CPUs: 40000 pairs; task t
 * locks on CPU c at t + c, and its k-th unlock (in time order) comes at
 * 1000000 + k, so the expected total is summed as the test goes.
 */
static void test_many_keys(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	struct spans_counts c;
	uint64_t want = 0, now = 1000000;
	uint32_t t, k;
	int cpu;

	for (t = 0; t < 20000; t++)
		for (cpu = 0; cpu < 2; cpu++)
			feed(s, L, t, cpu, t + cpu, 0, 25, 0, BASE);
	for (k = 0; k < 20000; k++) {
		t = (k * 7919) % 20000;		/* 7919 is prime to 20000 */
		for (cpu = 1; cpu >= 0; cpu--) {
			feed(s, U, t, cpu, now, 0, 25, 0, BASE);
			want += now++ - (t + cpu);
		}
	}
	spans__finish(s, 2000000);
	spans__counts(s, &c);
	CHECK_U64(c.pairs, 40000);
	CHECK_U64(c.unmatched_start, 0);
	CHECK_U64(c.unmatched_end, 0);
	CHECK_U64(hist__total(spans__hold_hist(s, BASE)), want);
	spans__delete(s);
}

/* Bad input comes back as -EINVAL; feeding after finish too. */
static void test_errors(void)
{
	struct spans *s = spans__new(NULL);
	struct rs_lock_event ev = { .kind = L, .subsys = 16 };

	CHECK_INT(spans__lock(s, &ev), -EINVAL);
	ev.subsys = -2;
	CHECK_INT(spans__lock(s, &ev), -EINVAL);
	ev.subsys = -1;
	ev.kind = (enum rs_lock_kind)7;
	CHECK_INT(spans__lock(s, &ev), -EINVAL);
	ev.kind = L;
	CHECK_INT(spans__lock(s, &ev), 0);
	CHECK_INT(spans__user_event(s, -1, true, 1, 1), -EINVAL);
	CHECK_INT(spans__finish(s, 10), 0);
	CHECK_INT(spans__lock(s, &ev), -EINVAL);
	CHECK_INT(spans__memcg_flush(s, 1, 1, 1, 1, 0, 0), -EINVAL);
	CHECK_INT(spans__finish(s, 10), 0);
	CHECK(spans__hold_hist(s, -1) == NULL);	/* never paired */
	spans__delete(s);
	spans__delete(NULL);
}

/*
 * Hostile input: a million events of random kinds, tasks, CPUs, fields
 * and a few subsystems. Whatever the order, every LOCKED ends paired or
 * unmatched_start, every UNLOCK paired or unmatched_end, every CONTENDED
 * a wait pair or wait_unmatched_start - with ASan watching the tables grow,
 * shift and shrink.
 */
static void test_hostile(void)
{
	struct spans *s = new_spans(RS_CPU_SEM_6_10);
	struct spans_counts c;
	uint64_t x = 88172645463325252ULL;
	int i, a = spans__add_user(s, "s", "e");

	for (i = 0; i < 1000000; i++) {
		struct rs_lock_event ev;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memset(&ev, 0, sizeof(ev));
		ev.kind = (enum rs_lock_kind)(x % 3);
		ev.tid = (uint32_t)(x >> 8) % (i < 500000 ? 50000 : 20);
		ev.cpu = (x >> 30) % 4;
		ev.time = (uint64_t)i * 10;
		ev.root = (x >> 33) % 2;
		ev.cgroup_id = 25 + (x >> 35) % 2;
		ev.lock_cpu = (int32_t)((x >> 37) % 4) - 1;
		ev.contended = (x >> 40) & 1;
		ev.subsys = (int)((x >> 41) % 4) - 1;
		if (spans__lock(s, &ev)) {
			UNIT_FAIL("spans__lock at %d", i);
			break;
		}
		if (spans__user_event(s, a, (x >> 45) & 1, ev.tid, ev.time)) {
			UNIT_FAIL("spans__user_event at %d", i);
			break;
		}
	}
	CHECK_INT(spans__finish(s, (uint64_t)i * 10), 0);
	spans__counts(s, &c);
	CHECK_U64(c.pairs + c.unmatched_start, c.locked);
	CHECK_U64(c.pairs + c.unmatched_end, c.unlocked);
	CHECK_U64(c.wait_pairs + c.wait_unmatched_start, c.contended);
	CHECK_U64(c.locked + c.unlocked + c.contended, 1000000);
	CHECK(c.pairs > 0 && c.flushes > 0);
	spans__delete(s);
}

/*
 * The real recording. Expected totals, computed from perf's own decoding
 * with awk and none of this code (fields: $2 tid, $3 [cpu], $4 time,
 * $5 event, $6 root=, $7 id=, $9 cpu=):
 *
 * zcat tests/data/flush-mixed.trace.txt.gz | awk '
 * function us(s, a) { sub(":", "", s); split(s, a, ".");
 *	return a[1] * 1000000 + a[2] }
 * function pair(tid, f, lt, ut,  n, lc, same) {
 *	split(f, n, " "); sub("cpu=", "", n[3]); lc = n[3] + 0
 *	same = (tid in run) && cg[tid] == n[1] " " n[2]
 *	if (lc >= 0 && same && lc > last[tid]) {
 *		nl[tid]++; end[tid] = ut; last[tid] = lc; return }
 *	if (tid in run) endrun(tid)
 *	if (lc >= 0) { run[tid] = 1; cg[tid] = n[1] " " n[2];
 *		st[tid] = lt; end[tid] = ut; nl[tid] = 1; last[tid] = lc } }
 * function endrun(tid) { fl++; fll += nl[tid]; fd += end[tid] - st[tid];
 *	delete run[tid] }
 * $5 == "cgroup:cgroup_rstat_locked:" { k = $2 " " $3; L++;
 *	if (k in open) us_++; open[k] = $6 " " $7 " " $9; ot[k] = us($4) }
 * $5 == "cgroup:cgroup_rstat_unlock:" { k = $2 " " $3; U++;
 *	if (!(k in open)) ue++
 *	else if (open[k] != $6 " " $7 " " $9) { us_++; ue++; delete open[k] }
 *	else { p++; h = us($4) - ot[k]; hold += h; if (h > mx) mx = h;
 *		pair($2, open[k], ot[k], us($4)); delete open[k] } }
 * $5 == "memcg:memcg_flush_stats:" { m++; split($7, a, "=");
 *	split($8, b, "="); split($9, c, "="); up += a[2];
 *	if (b[2] == 1) f++; if (b[2] == 1 || c[2] == 1) pf++; else sk++ }
 * END { for (k in open) us_++; for (t in run) endrun(t);
 *	print L, U, p, us_, ue, hold, mx, m, pf, f, sk, up, fl, fll, fd }'
 *
 * prints 439 438 149 290 289 376323 85316 440 12 1 428 4096 86 104 579314
 * (times in us; the trace has us resolution, so ns = us * 1000). Only 149
 * of 438 unlocks pair: the recording lost events (the fixture's trace shows
 * e.g. a locked cpu=0 followed by an unlock cpu=1), which is what the
 * unmatched counters are for. No stats_updates is negative.
 */
struct fixture_totals {
	struct spans_counts c;
	uint64_t hold_ns, max_hold_ns;
};

/* Parse "comm tid [cpu] secs.frac: event: fields" (comm may have spaces). */
static int parse_line(const char *line, uint32_t *tid, uint32_t *cpu,
		      uint64_t *ns, char *event, size_t ev_sz,
		      const char **fields)
{
	const char *p = line, *q;
	unsigned long long secs, frac = 0;
	int digits = 0;

	/* The first " [digits]" preceded by " digits" is the tid and cpu. */
	for (;;) {
		p = strstr(p, " [");
		if (!p)
			return -1;
		q = p;
		while (q > line && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q < p && q > line && q[-1] == ' ' &&
		    sscanf(p, " [%u]", cpu) == 1)
			break;
		p += 2;
	}
	*tid = (uint32_t)strtoul(q, NULL, 10);
	p = strchr(p, ']');
	if (!p)
		return -1;
	secs = strtoull(p + 1, (char **)&q, 10);
	if (*q == '.')
		for (q++; *q >= '0' && *q <= '9'; q++, digits++)
			frac = frac * 10 + (unsigned long long)(*q - '0');
	if (*q != ':' || digits > 9)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	*ns = secs * 1000000000ULL + frac;
	q++;
	while (*q == ' ')
		q++;
	p = strstr(q, ": ");
	if (!p) {
		/* An event with no fields ends the line with its ':'. */
		snprintf(event, ev_sz, "%.*s", (int)strcspn(q, ":\n"), q);
		*fields = "";
		return 0;
	}
	snprintf(event, ev_sz, "%.*s", (int)(p - q), q);
	*fields = p + 2;
	return 0;
}

static void test_fixture(void)
{
	char path[4096], cmd[4200], line[4096], event[128];
	struct spans *s = new_spans(RS_CPU_SEM_6_15);
	const struct spans_flush *fb, *fm;
	const struct spans_memcg *m;
	const struct spans_cgroup *cg;
	struct spans_counts c;
	struct hist *hb, *hm;
	uint64_t ns, last = 0, flushes, locks, dur, hold, max;
	uint32_t tid, cpu;
	size_t n, i;
	FILE *in;

	snprintf(path, sizeof(path), "%s/flush-mixed.trace.txt.gz",
		 unit_fixtures());
	if (access(path, R_OK)) {
		UNIT_FAIL("no fixture %s", path);
		spans__delete(s);
		return;
	}
	if (unit_sh("command -v zcat >/dev/null 2>&1")) {
		SKIP("no zcat");
		spans__delete(s);
		return;
	}
	snprintf(cmd, sizeof(cmd), "zcat '%s'", path);
	in = popen(cmd, "r");
	if (!in) {
		UNIT_FAIL("popen");
		spans__delete(s);
		return;
	}
	while (fgets(line, sizeof(line), in)) {
		struct rs_lock_event ev = { 0 };
		const char *f;
		long long upd;
		int force, need, contended;

		if (parse_line(line, &tid, &cpu, &ns, event, sizeof(event),
			       &f)) {
			UNIT_FAIL("unparsed line: %s", line);
			break;
		}
		if (ns < last)
			UNIT_FAIL("out of order at %s", line);
		last = ns;
		if (!strcmp(event, "memcg:memcg_flush_stats")) {
			unsigned long long id;

			if (sscanf(f, "memcg_id=%llu stats_updates=%lld force=%d needs_flush=%d",
				   &id, &upd, &force, &need) != 4)
				UNIT_FAIL("memcg fields: %s", f);
			else if (spans__memcg_flush(s, tid, ns, id, upd, force,
						    need))
				UNIT_FAIL("spans__memcg_flush");
			continue;
		}
		if (!strcmp(event, "cgroup:cgroup_rstat_locked"))
			ev.kind = RS_LOCK_LOCKED;
		else if (!strcmp(event, "cgroup:cgroup_rstat_unlock"))
			ev.kind = RS_LOCK_UNLOCK;
		else if (!strcmp(event, "cgroup:cgroup_rstat_lock_contended"))
			ev.kind = RS_LOCK_CONTENDED;
		else
			continue;
		if (sscanf(f, "root=%d id=%" SCNu64 " level=%d cpu=%d lock contended:%d",
			   &ev.root, &ev.cgroup_id, &ev.level, &ev.lock_cpu,
			   &contended) != 5) {
			UNIT_FAIL("lock fields: %s", f);
			continue;
		}
		ev.tid = tid;
		ev.cpu = cpu;
		ev.time = ns;
		ev.contended = contended;
		/* The callchain would say; here v2 is base, v1 memory. */
		ev.subsys = ev.root ? MEM : BASE;
		if (spans__lock(s, &ev))
			UNIT_FAIL("spans__lock");
	}
	pclose(in);
	CHECK_INT(spans__finish(s, last), 0);

	spans__counts(s, &c);
	CHECK_U64(c.locked, 439);
	CHECK_U64(c.unlocked, 438);
	CHECK_U64(c.contended, 0);
	CHECK_U64(c.pairs, 149);
	CHECK_U64(c.unmatched_start, 290);
	CHECK_U64(c.unmatched_end, 289);
	CHECK_U64(c.wait_pairs + c.wait_unmatched_start +
		  c.wait_unmatched_end, 0);
	hb = spans__hold_hist(s, BASE);
	hm = spans__hold_hist(s, MEM);
	hold = (hb ? hist__total(hb) : 0) + (hm ? hist__total(hm) : 0);
	max = hb ? hist__max(hb) : 0;
	if (hm && hist__max(hm) > max)
		max = hist__max(hm);
	CHECK_U64((hb ? hist__count(hb) : 0) + (hm ? hist__count(hm) : 0),
		  149);
	CHECK_U64(hold, 376323000ULL);
	CHECK_U64(max, 85316000ULL);

	/* The per-cgroup rows add up to the same. */
	CHECK_INT(spans__cgroups(s, &cg, &n), 0);
	for (i = 0, locks = 0, hold = 0; i < n; i++) {
		locks += cg[i].holds.locks;
		hold += cg[i].holds.hold_ns;
	}
	CHECK_U64(locks, 439);
	CHECK_U64(hold, 376323000ULL);
	CHECK(n > 0 && cg[0].cgroup_id == 25 && cg[0].root == 0);

	m = spans__memcg(s);
	CHECK_U64(m->requested, 440);
	CHECK_U64(m->performed, 12);
	CHECK_U64(m->forced, 1);
	CHECK_U64(m->skipped, 428);
	CHECK_U64(m->negative, 0);
	CHECK_U64(hist__total(m->updates), 4096);

	fb = spans__flush(s, BASE);
	fm = spans__flush(s, MEM);
	flushes = (fb ? fb->flushes : 0) + (fm ? fm->flushes : 0);
	locks = (fb ? fb->locks : 0) + (fm ? fm->locks : 0);
	dur = (fb ? hist__total(fb->duration) : 0) +
	      (fm ? hist__total(fm->duration) : 0);
	CHECK_U64(flushes, 86);
	CHECK_U64(locks, 104);
	CHECK_U64(dur, 579314000ULL);
	/* v6.15: CPUs walked = locks. */
	CHECK_U64((fb ? hist__total(fb->cpus) : 0) +
		  (fm ? hist__total(fm->cpus) : 0), 104);
	spans__delete(s);
}

UNIT_MAIN(UNIT(test_hold_pair), UNIT(test_hold_unmatched),
	  UNIT(test_interleaved), UNIT(test_wait), UNIT(test_flush_6_15),
	  UNIT(test_flush_6_15_breaks), UNIT(test_flush_6_10),
	  UNIT(test_memcg), UNIT(test_user_lifo), UNIT(test_user_overflow),
	  UNIT(test_user_same), UNIT(test_many_keys), UNIT(test_errors),
	  UNIT(test_hostile), UNIT(test_fixture))
