/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spans a recording timed in the kernel (bpf-spans.h: lock holds,
 * lock waits, flushes, memcg flush requests, as log2 histograms per
 * subsystem), in the form `record` stores them in its perf.data and
 * `report` reads them back: rstat-analyze's own feature section (bit 255,
 * which perf skips; perf-writer.h), holding a JSON text of schema
 * "rstat-analyze-spans/1" (rstat-analyze-record(1)). This module is its only
 * writer (kernel_spans__format) and reader (kernel_spans__parse).
 *
 * Library code: never prints; 0 / -errno.
 */
#ifndef RS_KERNEL_SPANS_H
#define RS_KERNEL_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "bpf-spans.h"
#include "rules.h"
#include "spans.h"

#define KERNEL_SPANS_SCHEMA "rstat-analyze-spans/1"

struct kernel_spans;
struct rules;

/*
 * The BPF spans' rows named by a rule table: the subsystem whose flush a
 * row's stack holds (the callback's, or for a core flush its caller's;
 * a stack with no flush frame by its first caller frame) and who asked
 * for it. bpf/ reads raw rows and names their frames; this is where they
 * are classified, as report classifies samples.
 */
struct span_class {
	int subsys;	/* enum rs_category, -1 unknown */
	int trigger;	/* enum rs_trigger, -1 none */
};

struct span_classifier;

/* rules NULL: the built-in table. NULL when out of memory. */
struct span_classifier *span_classifier__new(const struct rules *rules);
void span_classifier__delete(struct span_classifier *sc);

void span_classifier__row(struct span_classifier *sc,
			  const struct bpf_spans_row *row,
			  struct span_class *out);

/*
 * The nr rows merged into hist[kind][subsys + 1] (cleared first), and the
 * holds whose stack named no subsystem. classes (NULL: not wanted) gets
 * each row's class, so that a caller never classifies a row twice.
 */
uint64_t span_classifier__merge(struct span_classifier *sc,
				const struct bpf_spans_row *rows, size_t nr,
				struct bpf_spans_hist
				hist[BPF_SPANS__NR_KINDS][RS_CAT__NR + 1],
				struct span_class *classes);

/*
 * What the BPF spans hold as of their last bpf_spans__read(), classified
 * by the built-in rules. scope says whose spans they are ("every task",
 * "pid 123"...). NULL when out of memory.
 */
struct kernel_spans *kernel_spans__from_bpf(const struct bpf_spans *s,
					    const char *scope);
void kernel_spans__delete(struct kernel_spans *ks);

/* The JSON text, malloc'ed into *text. 0 or -ENOMEM. */
int kernel_spans__format(const struct kernel_spans *ks, char **text);

/*
 * Read a text kernel_spans__format() wrote. 0; -EINVAL with one line in
 * errbuf (not JSON, another schema, a histogram out of range); -ENOMEM.
 */
int kernel_spans__parse(struct kernel_spans **ksp, const char *text,
			size_t len, char *errbuf, size_t errlen);

/*
 * The histogram of a kind and subsystem (enum rs_category, -1 unknown,
 * BPF_SPANS_ANY every one); never NULL for a valid kind and subsystem (an
 * empty one when nothing was seen), NULL otherwise.
 */
const struct bpf_spans_hist *kernel_spans__hist(const struct kernel_spans *ks,
						enum bpf_spans_kind kind,
						int subsys);
void kernel_spans__counts(const struct kernel_spans *ks,
			  struct bpf_spans_counts *c);
/*
 * spans__hold_cost() for the spans BPF timed: no record is written inside
 * a span, so the shortest hold (or flush call, where only those were
 * timed) bounds what the two programs add to each.
 */
void kernel_spans__hold_cost(const struct kernel_spans *ks, const int *order,
			     size_t n, struct hold_cost *hc);
const char *kernel_spans__scope(const struct kernel_spans *ks);
/* What was probed: "rstat tracepoints", "kprobes on FUNC". */
const char *kernel_spans__on(const struct kernel_spans *ks);

#endif
