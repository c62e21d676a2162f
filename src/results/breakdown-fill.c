// SPDX-License-Identifier: GPL-2.0
/*
 * A run's reads decomposed, from the timing to what the results keep
 * (results-breakdown.h): bench's reader and record's targets alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown-table.h"
#include "json-read.h"
#include "json.h"
#include "results-breakdown.h"
#include "rules.h"
#include "util.h"

static void row_from(struct bench_bd_row *out, const struct breakdown_row *in)
{
	int q;

	memset(out, 0, sizeof(*out));
	out->share = in->share;
	out->sum_ns = in->sum;
	for (q = 0; q < BD_NR_Q; q++) {
		out->q[q] = in->q[q];
		if (in->notes[q] & BD_NOTE_TICKS)
			snprintf(out->note[q], sizeof(out->note[q]),
				 "%u tick%s", in->ticks[q],
				 in->ticks[q] > 1 ? "s" : "");
		if (in->notes[q] & BD_NOTE_OFF) {
			size_t l = strlen(out->note[q]);

			snprintf(out->note[q] + l, sizeof(out->note[q]) - l,
				 "%soff-CPU", l ? ", " : "");
		}
	}
}

void bench_bd_file__from_table(struct bench_bd_file *f, const char *name,
			       const struct breakdown_table *t)
{
	int p;

	memset(f, 0, sizeof(*f));
	snprintf(f->file, sizeof(f->file), "%s", name);
	f->reads = t->reads;
	f->off_most = t->off_most;
	f->tail_off_ns = t->tail_off_ns;
	row_from(&f->total, &t->total);
	for (p = 0; p < BD_PART__NR; p++) {
		row_from(&f->part[p], &t->part[p]);
		f->part[p].calls = t->calls[p];
	}
	f->total.calls = t->reads;
}

/* The callbacks outside the reads by who flushed (none if unknown). */
static void describe_outside(struct breakdown *b, struct bench_breakdown *bd)
{
	struct breakdown_outside *o;
	struct classifier *cls;
	struct rules *rules;
	size_t n, i;

	if (breakdown__outside_by(b, &o, &n))
		return;
	rules = rules__new();
	cls = rules ? classifier__new(rules) : NULL;
	for (i = 0; cls && i < n; i++) {
		struct rs_stack_class c;
		int t = RS_TRIG_NONE;

		/* Who flushed: the outermost trigger frame of its stack. */
		if (o[i].nr_frames &&
		    !classifier__classify(cls, o[i].frames, o[i].nr_frames,
					  &c))
			t = c.trigger;
		if (o[i].part < 0 || o[i].part >= BD_PART__NR ||
		    t < RS_TRIG_NONE || t >= RS_TRIG__NR)
			continue;
		bd->outside_trig_calls[o[i].part][t + 1] += o[i].calls;
		bd->outside_trig_ns[o[i].part][t + 1] += o[i].ns;
	}
	classifier__delete(cls);
	rules__delete(rules);
	free(o);
}

void bench_breakdown__describe(struct bench_breakdown *bd,
			       struct breakdown *b, unsigned int hz,
			       const char *hz_from)
{
	const struct breakdown_source *s;
	int p;

	snprintf(bd->method, sizeof(bd->method), "%s", breakdown__method(b));
	bd->split_trees = breakdown__split_trees(b);
	bd->hz = hz;
	snprintf(bd->hz_from, sizeof(bd->hz_from), "%s", hz_from);
	for (p = 0; p < BD_PART__NR; p++) {
		s = breakdown__source(b, p);
		snprintf(bd->untimed[p], sizeof(bd->untimed[p]), "%s",
			 s->timed ? "" : s->why);
		snprintf(bd->how[p], sizeof(bd->how[p]), "%s",
			 s->timed ? s->how : "");
		breakdown__outside(b, p, &bd->outside_calls[p],
				   &bd->outside_ns[p]);
	}
	breakdown__losses(b, &bd->lost, &bd->broken);
	breakdown__cb_cost(b, &bd->cb_cost);
	breakdown__skipped(b, &bd->skips);
	describe_outside(b, bd);
}

static void write_doc(struct json_writer *jw, const void *arg)
{
	json__object_begin(jw, NULL);
	bench_breakdown__write_json(arg, jw);
	json__object_end(jw);
}

int bench_breakdown__format(const struct bench_breakdown *bd, char **text)
{
	return json__to_text(write_doc, bd, text);
}

int bench_breakdown__parse(struct bench_breakdown *bd, const char *text,
			   size_t len, char *errbuf, size_t errlen)
{
	struct jv root;
	const struct jv *n;
	int err;

	memset(bd, 0, sizeof(*bd));
	err = jv__parse(text, len, &root, errbuf, errlen);
	if (err)
		return err;
	n = jv__get(&root, "breakdown");
	if (!n) {
		errbuf_set(errbuf, errlen, "no \"breakdown\" object");
		err = -EINVAL;
	} else
		err = bench_breakdown__read_json(bd, n, errbuf, errlen);
	jv__free(&root);
	return err;
}
