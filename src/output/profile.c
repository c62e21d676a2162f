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

	if (!v || v->type != J_NUM)
		return n;
	n.ok = true;
	n.num = v->num;
	n.exact = v->is_u64;
	n.u = v->u;
	return n;
}

/* The array member key of the document, and its section state. */
static const struct jv *section(const struct jv *doc, const char *key,
				enum profile_section *sec)
{
	const struct jv *arr = jv__get(doc, key);

	*sec = !arr ? PROFILE_ABSENT : arr->type == J_ARR ? PROFILE_ARRAY :
	       PROFILE_NOT_ARRAY;
	return *sec == PROFILE_ARRAY ? arr : NULL;
}

static int read_shares(const struct jv *doc, const char *key,
		       const char *name_key, enum profile_section *sec,
		       struct profile_share **out, size_t *nr)
{
	const struct jv *arr = section(doc, key, sec);
	size_t i;

	if (!arr || !arr->n)
		return 0;
	*out = calloc(arr->n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < arr->n; i++) {
		const struct jv *o = &arr->items[i];
		struct profile_share *s = &(*out)[i];

		s->event = jv__str(o, PROFILE_EVENT);
		s->name = jv__str(o, name_key);
		s->share = num_of(o, PROFILE_SHARE);
		s->flush_share = num_of(o, PROFILE_FLUSH_SHARE);
	}
	*nr = arr->n;
	return 0;
}

/* The high end of a kernel span's percentile bucket [LOW, HIGH]. */
static struct profile_num bucket_high(const struct jv *obj, const char *key)
{
	const struct jv *v = jv__get(obj, key);
	struct profile_num n = { 0 };

	if (!v || v->type != J_ARR || v->n != 2 ||
	    v->items[1].type != J_NUM)
		return n;
	n.ok = true;
	n.num = v->items[1].num;
	n.exact = v->items[1].is_u64;
	n.u = v->items[1].u;
	return n;
}

static int read_span(const struct jv *o, struct profile_span *sp,
		     bool kernel)
{
	const struct jv *hist = jv__get(o, PROFILE_HIST);
	size_t i;

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
	sp->has_hist = hist && hist->type == J_ARR;
	if (!sp->has_hist || !hist->n)
		return 0;
	sp->hist = calloc(hist->n, sizeof(*sp->hist));
	if (!sp->hist)
		return -ENOMEM;
	for (i = 0; i < hist->n; i++) {
		const struct jv *row = &hist->items[i];

		sp->hist[i].low = num_of(row, PROFILE_LOW);
		sp->hist[i].high = num_of(row, PROFILE_HIGH);
		sp->hist[i].count = num_of(row, PROFILE_COUNT);
	}
	sp->nr_hist = hist->n;
	return 0;
}

int profile__from_json(struct profile **out, struct jv *doc)
{
	struct profile *p = calloc(1, sizeof(*p));
	const struct jv *spans, *ks;
	int err = -ENOMEM;
	size_t i;

	*out = NULL;
	if (!p) {
		jv__free(doc);
		return -ENOMEM;
	}
	p->doc = *doc;
	memset(doc, 0, sizeof(*doc));
	if (read_shares(&p->doc, PROFILE_ATTRIBUTION, PROFILE_CATEGORY,
			&p->attribution_sec, &p->attribution,
			&p->nr_attribution) ||
	    read_shares(&p->doc, PROFILE_TRIGGERS, PROFILE_TRIGGER,
			&p->triggers_sec, &p->triggers, &p->nr_triggers))
		goto fail;
	spans = section(&p->doc, PROFILE_SPANS, &p->spans_sec);
	if (spans && spans->n) {
		p->spans = calloc(spans->n, sizeof(*p->spans));
		if (!p->spans)
			goto fail;
		p->nr_spans = spans->n;
		for (i = 0; i < spans->n; i++)
			if (read_span(&spans->items[i], &p->spans[i], false))
				goto fail;
	}
	ks = jv__get(&p->doc, PROFILE_KERNEL_SPANS);
	spans = ks && ks->type == J_OBJ ?
		section(ks, PROFILE_SPANS, &p->kspans_sec) : NULL;
	if (spans && spans->n) {
		p->kspans = calloc(spans->n, sizeof(*p->kspans));
		if (!p->kspans)
			goto fail;
		p->nr_kspans = spans->n;
		for (i = 0; i < spans->n; i++)
			if (read_span(&spans->items[i], &p->kspans[i], true))
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
	free(p->attribution);
	free(p->triggers);
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
