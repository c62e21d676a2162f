/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the flamegraph.pl input, built with the rules of
 * FlameGraph's stackcollapse-perf.pl (see docs/ and formats.md) so that the
 * two agree line for line.
 *
 * Feeding: fold__begin() once per sample, fold__frame() for each frame leaf
 * first (the order perf script prints), fold__end(). String arguments must
 * stay valid and unchanged until fold__delete(): pass interned strings (the
 * fold caches processed frame names keyed on the pointers).
 */
#ifndef RS_FOLD_H
#define RS_FOLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct fold_opts {
	bool pid;		/* comm-PID */
	bool tid;		/* comm-PID/TID */
	bool kernel;		/* _[k] on kernel frames */
	bool jit;		/* _[j] on /tmp/perf-PID.map frames */
	bool addrs;		/* keep raw addresses of unknown frames */
	bool samples;		/* count samples, not periods */
	const char *event_filter;	/* keep only this event; NULL: first */
};

struct fold;

struct fold *fold__new(const struct fold_opts *opts);
void fold__delete(struct fold *f);

/*
 * Start a sample. pid is (uint32_t)-1 when unknown. has_period says
 * whether the sample header showed a period (else the count is 1).
 * Returns 1 when the sample is kept, 0 when it belongs to another event
 * (then fold__frame() and fold__end() are no-ops), -ENOMEM.
 */
int fold__begin(struct fold *f, const char *event, const char *comm,
		uint32_t pid, uint32_t tid, uint64_t period, bool has_period);
/*
 * One frame: sym as perf script prints it (may carry "+0x1f"), dso as
 * printed between the parentheses ("[unknown]" or NULL when none), addr
 * the frame address.
 */
int fold__frame(struct fold *f, const char *sym, const char *dso,
		uint64_t addr);
int fold__end(struct fold *f);

/* Write "a;b;c COUNT" lines, sorted bytewise. Returns 0 or -errno. */
int fold__write(struct fold *f, FILE *out);

uint64_t fold__nr_stacks(const struct fold *f);
uint64_t fold__nr_kept(const struct fold *f);	/* samples kept */
uint64_t fold__nr_dropped(const struct fold *f);	/* other events */
/* The event kept (first seen or the filter), NULL before any sample. */
const char *fold__event(const struct fold *f);

#endif
