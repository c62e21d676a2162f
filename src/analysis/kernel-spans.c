// SPDX-License-Identifier: GPL-2.0
/*
 * Spans timed in the kernel, as stored in a recording: see kernel-spans.h
 * and rstat-analyze-record(1) ("rstat-analyze-spans/1").
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "json-read.h"
#include "json.h"
#include "kernel-spans.h"
#include "rules.h"
#include "util.h"

/* A BPF slot is hist.h's bucket of the same index: one convention. */
_Static_assert(BPF_SPANS_SLOTS == HIST_MAX_BUCKETS,
	       "BPF span slots are numbered as hist__bucket_index()");

/* Index 0: unknown subsystem (-1), then the categories. */
#define KS_SUBSYS (RS_CAT__NR + 1)

struct kernel_spans {
	char *scope;
	char *on;	/* what the programs are attached to */
	struct bpf_spans_counts counts;
	struct bpf_spans_hist hist[BPF_SPANS__NR_KINDS][KS_SUBSYS];
	struct bpf_spans_hist any[BPF_SPANS__NR_KINDS];
};

/* The counters by their names in the text. */
static const struct {
	const char *name;
	size_t off;
} count_fields[] = {
#define F(f) { #f, offsetof(struct bpf_spans_counts, f) }
	F(locked), F(unlocked), F(contended), F(pairs), F(unmatched_start),
	F(unmatched_end), F(wait_pairs), F(flushes), F(flush_broken),
	F(memcg_requested), F(memcg_performed), F(memcg_forced),
	F(memcg_skipped), F(memcg_spans), F(stack_errors), F(hist_full),
	F(filtered), F(unresolved),
#undef F
};

static uint64_t *count_field(struct bpf_spans_counts *c, size_t i)
{
	return (uint64_t *)((char *)c + count_fields[i].off);
}

void kernel_spans__delete(struct kernel_spans *ks)
{
	if (!ks)
		return;
	free(ks->scope);
	free(ks->on);
	free(ks);
}

static struct kernel_spans *ks_new(const char *scope, const char *on)
{
	struct kernel_spans *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	ks->scope = strdup(scope ? scope : "");
	ks->on = strdup(on ? on : "rstat tracepoints");
	if (!ks->scope || !ks->on) {
		kernel_spans__delete(ks);
		return NULL;
	}
	return ks;
}

struct span_classifier {
	struct rules *own;
	struct classifier *cls;
};

struct span_classifier *span_classifier__new(const struct rules *rules)
{
	struct span_classifier *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	if (!rules) {
		sc->own = rules__new();
		rules = sc->own;
	}
	sc->cls = rules ? classifier__new(rules) : NULL;
	if (!sc->cls) {
		span_classifier__delete(sc);
		return NULL;
	}
	return sc;
}

void span_classifier__delete(struct span_classifier *sc)
{
	if (!sc)
		return;
	classifier__delete(sc->cls);
	rules__delete(sc->own);
	free(sc);
}

void span_classifier__row(struct span_classifier *sc,
			  const struct bpf_spans_row *row,
			  struct span_class *out)
{
	struct rs_stack_class c;

	out->subsys = -1;
	out->trigger = RS_TRIG_NONE;
	if (!row->nr_frames ||
	    classifier__classify(sc->cls, (const char *const *)row->frames,
				 row->nr_frames, &c))
		return;
	out->subsys = rs_stack_class__lock_subsys(&c);
	out->trigger = c.trigger;
	if (out->subsys < -1 || out->subsys >= RS_CAT__NR)
		out->subsys = -1;
	if (out->trigger < -1 || out->trigger >= RS_TRIG__NR)
		out->trigger = RS_TRIG_NONE;
}

uint64_t span_classifier__merge(struct span_classifier *sc,
				const struct bpf_spans_row *rows, size_t nr,
				struct bpf_spans_hist
				hist[BPF_SPANS__NR_KINDS][RS_CAT__NR + 1],
				struct span_class *classes)
{
	uint64_t unresolved = 0;
	struct span_class c;
	size_t i;

	memset(hist, 0, sizeof(hist[0]) * BPF_SPANS__NR_KINDS);
	for (i = 0; i < nr; i++) {
		if (rows[i].kind >= BPF_SPANS__NR_KINDS)
			continue;
		span_classifier__row(sc, &rows[i], &c);
		if (classes)
			classes[i] = c;
		bpf_spans_hist__merge(&hist[rows[i].kind][c.subsys + 1],
				      &rows[i].hist);
		if (rows[i].kind == BPF_SPANS_HOLD &&
		    (c.subsys < 0 || !rs_category_is_subsys(c.subsys)))
			unresolved += rows[i].hist.count;
	}
	return unresolved;
}

struct kernel_spans *kernel_spans__from_bpf(const struct bpf_spans *s,
					    const char *scope)
{
	struct kernel_spans *ks = ks_new(scope, bpf_spans__method(s));
	struct span_classifier *sc = span_classifier__new(NULL);
	const struct bpf_spans_row *rows;
	size_t nr;
	int k, c;

	if (!ks || !sc) {
		span_classifier__delete(sc);
		kernel_spans__delete(ks);
		return NULL;
	}
	bpf_spans__counts(s, &ks->counts);
	bpf_spans__rows(s, &rows, &nr);
	ks->counts.unresolved = span_classifier__merge(sc, rows, nr,
							ks->hist, NULL);
	span_classifier__delete(sc);
	for (k = 0; k < BPF_SPANS__NR_KINDS; k++)
		for (c = -1; c < RS_CAT__NR; c++)
			bpf_spans_hist__merge(&ks->any[k], &ks->hist[k][c + 1]);
	return ks;
}

static const char *subsys_key(int c)
{
	return c < 0 ? "unknown" : rs_category_name(c);
}

static void write_spans(struct json_writer *jw, const void *arg)
{
	const struct kernel_spans *ks = arg;
	size_t i;
	int k, c, b;

	json__object_begin(jw, NULL);
	json__string(jw, "schema", KERNEL_SPANS_SCHEMA);
	json__string(jw, "method", "bpf");
	json__string(jw, "scope", ks->scope);
	json__string(jw, "on", ks->on);
	json__object_begin(jw, "counts");
	for (i = 0; i < sizeof(count_fields) / sizeof(*count_fields); i++)
		json__u64(jw, count_fields[i].name,
			  *count_field((struct bpf_spans_counts *)&ks->counts,
				       i));
	json__object_end(jw);
	json__array_begin(jw, "spans");
	for (k = 0; k < BPF_SPANS__NR_KINDS; k++) {
		for (c = -1; c < RS_CAT__NR; c++) {
			const struct bpf_spans_hist *h = &ks->hist[k][c + 1];
			const struct json_field span[] = {
				JSON_STR("kind", bpf_spans_kind_name(k)),
				JSON_STR("subsys", subsys_key(c)),
				JSON_U64("count", h->count),
				JSON_U64("sum_ns", h->sum),
				JSON_U64("min_ns", h->min),
				JSON_U64("max_ns", h->max),
			};

			if (!h->count)
				continue;
			json__object_begin(jw, NULL);
			json__fields(jw, span, ARRAY_SIZE(span));
			/* [bucket, count] pairs, bucket as hist.h numbers them */
			json__array_begin(jw, "buckets");
			for (b = 0; b < BPF_SPANS_SLOTS; b++) {
				if (!h->slots[b])
					continue;
				json__array_begin(jw, NULL);
				json__u64(jw, NULL, b);
				json__u64(jw, NULL, h->slots[b]);
				json__array_end(jw);
			}
			json__array_end(jw);
			json__object_end(jw);
		}
	}
	json__array_end(jw);
	json__object_end(jw);
}

int kernel_spans__format(const struct kernel_spans *ks, char **text)
{
	return json__to_text(write_spans, ks, text);
}

static int bad(char *errbuf, size_t errlen, const char *what)
{
	snprintf(errbuf, errlen, "spans timed in the kernel: %s", what);
	return -EINVAL;
}

static bool get_u64(const struct jv *obj, const char *key, uint64_t *out)
{
	const struct jv *v = jv__get(obj, key);

	if (!jv__is_u64(v))
		return false;
	*out = jv__u64(v);
	return true;
}

static int parse_kind(const char *name)
{
	int k;

	for (k = 0; name && k < BPF_SPANS__NR_KINDS; k++)
		if (!strcmp(name, bpf_spans_kind_name(k)))
			return k;
	return -1;
}

static int parse_span(struct kernel_spans *ks, const struct jv *e,
		      char *errbuf, size_t errlen)
{
	const struct jv *buckets = jv__get(e, "buckets");
	const char *subsys = jv__str(e, "subsys");
	struct bpf_spans_hist h = { 0 };
	uint64_t idx, n, total = 0;
	int k = parse_kind(jv__str(e, "kind")), c;
	size_t i;

	if (k < 0)
		return bad(errbuf, errlen, "a span of an unknown kind");
	c = subsys && !strcmp(subsys, "unknown") ? -1 :
	    rs_category_parse(subsys ? subsys : "");
	if (c < -1 || c >= RS_CAT__NR)
		return bad(errbuf, errlen, "a span of an unknown subsystem");
	if (!get_u64(e, "count", &h.count) || !get_u64(e, "sum_ns", &h.sum) ||
	    !get_u64(e, "min_ns", &h.min) || !get_u64(e, "max_ns", &h.max) ||
	    jv__type(buckets) != J_ARR)
		return bad(errbuf, errlen, "a span lacks a figure");
	for (i = 0; i < jv__len(buckets); i++) {
		const struct jv *p = jv__at(buckets, i);

		if (jv__type(p) != J_ARR || jv__len(p) != 2 ||
		    !jv__is_u64(jv__at(p, 0)) || !jv__is_u64(jv__at(p, 1)))
			return bad(errbuf, errlen, "a bucket is not [index, count]");
		idx = jv__u64(jv__at(p, 0));
		n = jv__u64(jv__at(p, 1));
		if (idx >= BPF_SPANS_SLOTS || total + n < total)
			return bad(errbuf, errlen, "a bucket out of range");
		h.slots[idx] += n;
		total += n;
	}
	if (total != h.count || h.min > h.max)
		return bad(errbuf, errlen, "a histogram that does not add up");
	bpf_spans_hist__merge(&ks->hist[k][c + 1], &h);
	bpf_spans_hist__merge(&ks->any[k], &h);
	return 0;
}

/* Printed as it is: ours are short, printable ASCII (or absent). */
static bool short_line(const char *s)
{
	size_t i;

	for (i = 0; s && s[i]; i++)
		if (i >= 64 || s[i] < ' ' || s[i] > '~')
			return false;
	return true;
}

int kernel_spans__parse(struct kernel_spans **ksp, const char *text,
			size_t len, char *errbuf, size_t errlen)
{
	struct kernel_spans *ks = NULL;
	const struct jv *counts, *spans;
	const char *schema, *scope, *on;
	struct jv root;
	size_t i;
	int err;

	*ksp = NULL;
	err = jv__parse(text, len, &root, errbuf, errlen);
	if (err)
		return err;
	schema = jv__str(&root, "schema");
	if (!schema || strcmp(schema, KERNEL_SPANS_SCHEMA)) {
		err = bad(errbuf, errlen, schema ? "a schema this version does not read" :
			  "no schema");
		goto out;
	}
	scope = jv__str(&root, "scope");
	on = jv__str(&root, "on");
	if (!short_line(scope) || !short_line(on)) {
		err = bad(errbuf, errlen,
			  "a scope or probe that is not a short ASCII line");
		goto out;
	}
	ks = ks_new(scope, on);
	if (!ks) {
		err = -ENOMEM;
		goto out;
	}
	counts = jv__get(&root, "counts");
	for (i = 0; counts && i < sizeof(count_fields) / sizeof(*count_fields);
	     i++)
		get_u64(counts, count_fields[i].name,
			count_field(&ks->counts, i));
	spans = jv__get(&root, "spans");
	if (jv__type(spans) != J_ARR) {
		err = bad(errbuf, errlen, "no spans array");
		goto out;
	}
	for (i = 0; i < jv__len(spans); i++) {
		err = parse_span(ks, jv__at(spans, i), errbuf, errlen);
		if (err)
			goto out;
	}
	*ksp = ks;
	ks = NULL;
out:
	kernel_spans__delete(ks);
	jv__free(&root);
	return err;
}

void kernel_spans__hold_cost(const struct kernel_spans *ks, const int *order,
			     size_t n, struct hold_cost *hc)
{
	/* Holds where the lock was timed; flush calls where only they were. */
	enum bpf_spans_kind kind =
		kernel_spans__hist(ks, BPF_SPANS_HOLD, BPF_SPANS_ANY)->count ?
		BPF_SPANS_HOLD : BPF_SPANS_FLUSH;
	const struct bpf_spans_hist *any =
		kernel_spans__hist(ks, kind, BPF_SPANS_ANY);
	uint64_t low, high;
	size_t k;

	hc->span = kind == BPF_SPANS_HOLD ? "hold" : "flush";
	hc->bound_ns = any->count ? any->min : UINT64_MAX;
	hc->nr_dominated = 0;
	for (k = 0; any->count && k < n; k++) {
		const struct bpf_spans_hist *h = kernel_spans__hist(ks, kind,
								    order[k]);

		if (!h || !h->count)
			continue;
		bpf_spans_hist__percentile(h, 50, &low, &high);
		if (low < 3 * hc->bound_ns &&
		    hc->nr_dominated < HOLD_COST_MAX_DOMINATED)
			hc->dominated[hc->nr_dominated++] = order[k];
	}
}

const struct bpf_spans_hist *kernel_spans__hist(const struct kernel_spans *ks,
						enum bpf_spans_kind kind,
						int subsys)
{
	if ((int)kind < 0 || kind >= BPF_SPANS__NR_KINDS)
		return NULL;
	if (subsys == BPF_SPANS_ANY)
		return &ks->any[kind];
	if (subsys < -1 || subsys >= RS_CAT__NR)
		return NULL;
	return &ks->hist[kind][subsys + 1];
}

void kernel_spans__counts(const struct kernel_spans *ks,
			  struct bpf_spans_counts *c)
{
	*c = ks->counts;
}

const char *kernel_spans__scope(const struct kernel_spans *ks)
{
	return ks->scope;
}

const char *kernel_spans__on(const struct kernel_spans *ks)
{
	return ks->on;
}
