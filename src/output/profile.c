// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of report --json profiles (include/profile.h): the JSON
 * tree made typed once, for plot and compare.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "json.h"
#include "profile.h"

static struct profile_num num_of(const struct jv *obj, const char *key)
{
	const struct jv *v = jv__get(obj, key);
	struct profile_num n = { 0 };

	if (jv__type(v) != J_NUM)
		return n;
	n.ok = true;
	n.num = jv__num(v);
	n.exact = jv__is_u64(v);
	n.u = jv__u64(v);
	return n;
}

/* The array member key of the document, and its section state. */
static const struct jv *section(const struct jv *doc, const char *key,
				enum profile_section *sec)
{
	const struct jv *arr = jv__get(doc, key);

	*sec = !arr ? PROFILE_ABSENT : jv__type(arr) == J_ARR ? PROFILE_ARRAY :
	       PROFILE_NOT_ARRAY;
	return *sec == PROFILE_ARRAY ? arr : NULL;
}

void profile__share(const struct jv *rows, size_t i, const char *name_key,
		    struct profile_share *out)
{
	const struct jv *o = jv__at(rows, i);

	out->event = jv__str(o, PROFILE_EVENT);
	out->name = jv__str(o, name_key);
	out->share = num_of(o, PROFILE_SHARE);
	out->flush_share = num_of(o, PROFILE_FLUSH_SHARE);
}

/*
 * The rows of arr up to the first one every reader refuses, that one
 * included: the readers stop at it with its index, so the rows after it
 * are never read, and a typed row costs more than the 3 bytes of "{},"
 * (tens of times the text for a crafted file of empty rows).
 */
static size_t usable(const struct jv *arr, bool (*ok)(const struct jv *))
{
	size_t i, n = jv__len(arr);

	for (i = 0; i < n; i++)
		if (!ok(jv__at(arr, i)))
			return i + 1;
	return n;
}

/* A log2 bucket row plot and compare can take: exact integers. */
static bool hist_row_ok(const struct jv *row)
{
	return jv__is_u64(jv__get(row, PROFILE_LOW)) &&
	       jv__is_u64(jv__get(row, PROFILE_HIGH)) &&
	       jv__is_u64(jv__get(row, PROFILE_COUNT));
}

/* plot and compare refuse a span without a name or a hist array. */
static bool span_ok(const struct jv *o)
{
	return jv__str(o, PROFILE_NAME) &&
	       jv__type(jv__get(o, PROFILE_HIST)) == J_ARR;
}

/* The high end of a kernel span's percentile bucket [LOW, HIGH]. */
static struct profile_num bucket_high(const struct jv *obj, const char *key)
{
	const struct jv *v = jv__get(obj, key);
	struct profile_num n = { 0 };

	if (jv__type(v) != J_ARR || jv__len(v) != 2 ||
	    jv__type(jv__at(v, 1)) != J_NUM)
		return n;
	n.ok = true;
	n.num = jv__num(jv__at(v, 1));
	n.exact = jv__is_u64(jv__at(v, 1));
	n.u = jv__u64(jv__at(v, 1));
	return n;
}

static int read_span(const struct jv *o, struct profile_span *sp,
		     bool kernel)
{
	const struct jv *hist = jv__get(o, PROFILE_HIST);
	size_t i, n;

	sp->name = jv__str(o, PROFILE_NAME);
	sp->subsystem = jv__str(o, PROFILE_SUBSYSTEM);
	sp->count = num_of(o, PROFILE_COUNT);
	sp->kernel = kernel;
	if (kernel) {
		sp->p50_ns = bucket_high(o, PROFILE_P50);
		sp->p90_ns = bucket_high(o, PROFILE_P90);
		sp->p99_ns = bucket_high(o, PROFILE_P99);
	} else {
		sp->p50_ns = num_of(o, PROFILE_P50_NS);
		sp->p90_ns = num_of(o, PROFILE_P90_NS);
		sp->p99_ns = num_of(o, PROFILE_P99_NS);
	}
	sp->has_hist = jv__type(hist) == J_ARR;
	n = usable(hist, hist_row_ok);
	if (!n)
		return 0;
	sp->hist = calloc(n, sizeof(*sp->hist));
	if (!sp->hist)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct jv *row = jv__at(hist, i);

		sp->hist[i].low = num_of(row, PROFILE_LOW);
		sp->hist[i].high = num_of(row, PROFILE_HIGH);
		sp->hist[i].count = num_of(row, PROFILE_COUNT);
	}
	sp->nr_hist = n;
	return 0;
}

int profile__from_json(struct profile **out, struct jv *doc)
{
	struct profile *p = calloc(1, sizeof(*p));
	const struct jv *spans, *ks;
	int err = -ENOMEM;
	size_t i, n;

	*out = NULL;
	if (!p) {
		jv__free(doc);
		return -ENOMEM;
	}
	p->doc = *doc;
	memset(doc, 0, sizeof(*doc));
	p->attribution = section(&p->doc, PROFILE_ATTRIBUTION,
				 &p->attribution_sec);
	p->nr_attribution = jv__len(p->attribution);
	p->triggers = section(&p->doc, PROFILE_TRIGGERS, &p->triggers_sec);
	p->nr_triggers = jv__len(p->triggers);
	spans = section(&p->doc, PROFILE_SPANS, &p->spans_sec);
	n = usable(spans, span_ok);
	if (n) {
		p->spans = calloc(n, sizeof(*p->spans));
		if (!p->spans)
			goto fail;
		p->nr_spans = n;
		for (i = 0; i < n; i++)
			if (read_span(jv__at(spans, i), &p->spans[i], false))
				goto fail;
	}
	ks = jv__get(&p->doc, PROFILE_KERNEL_SPANS);
	spans = jv__type(ks) == J_OBJ ?
		section(ks, PROFILE_SPANS, &p->kspans_sec) : NULL;
	n = usable(spans, span_ok);
	if (n) {
		p->kspans = calloc(n, sizeof(*p->kspans));
		if (!p->kspans)
			goto fail;
		p->nr_kspans = n;
		for (i = 0; i < n; i++)
			if (read_span(jv__at(spans, i), &p->kspans[i], true))
				goto fail;
	}
	*out = p;
	return 0;
fail:
	profile__delete(p);
	return err;
}

void profile__delete(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_spans; i++)
		free(p->spans[i].hist);
	free(p->spans);
	for (i = 0; i < p->nr_kspans; i++)
		free(p->kspans[i].hist);
	free(p->kspans);
	jv__free(&p->doc);
	free(p);
}

void profile__json_hist_row(struct json_writer *jw, uint64_t low,
			    uint64_t high, uint64_t count)
{
	json__object_begin(jw, NULL);
	json__u64(jw, PROFILE_LOW, low);
	json__u64(jw, PROFILE_HIGH, high);
	json__u64(jw, PROFILE_COUNT, count);
	json__object_end(jw);
}

int profile__hist_row_index(uint64_t low, uint64_t high)
{
	int idx = low ? hist__bucket_index(low) : 1;
	uint64_t lo, hi;

	hist__row_bounds(idx, &lo, &hi);
	return lo == low && hi == high ? idx : -1;
}
