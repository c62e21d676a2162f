// SPDX-License-Identifier: GPL-2.0
/*
 * A plot and its series (plot-int.h): what plot-load.c and
 * plot-timeline.c fill and plot-write.c draws.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot-int.h"
#include "util.h"

struct plot *plot__new(const struct plot_opts *o)
{
	struct plot *pl = calloc(1, sizeof(*pl));

	if (pl)
		pl->o = *o;
	return pl;
}

struct series *plot__series_add(struct plot *ctx, const char *input,
				const char *what, const char *unit)
{
	struct series *s;
	size_t len;

	if (grow_array((void **)&ctx->series, &ctx->cap_series,
		       ctx->nr_series + 1, sizeof(*ctx->series)))
		return NULL;
	s = &ctx->series[ctx->nr_series];
	memset(s, 0, sizeof(*s));
	len = strlen(input) + (what ? strlen(what) + 2 : 0) + 1;
	s->name = malloc(len);
	if (!s->name)
		return NULL;
	s->input_len = strlen(input);
	if (what)
		snprintf(s->name, len, "%s: %s", input, what);
	else
		snprintf(s->name, len, "%s", input);
	/* The input's strings go with it: keep a copy. */
	s->unit = strdup(unit ? unit : "");
	if (!s->unit) {
		free(s->name);
		return NULL;
	}
	ctx->nr_series++;
	return s;
}

static void series_free(struct series *s)
{
	free(s->name);
	free(s->unit);
	free(s->samples);
	free(s->x);
	free(s->y);
}

void plot__delete(struct plot *pl)
{
	size_t i;

	if (!pl)
		return;
	for (i = 0; i < pl->nr_series; i++)
		series_free(&pl->series[i]);
	free(pl->series);
	for (i = 0; i < pl->nr_segs; i++)
		free(pl->segs[i]);
	free(pl->segs);
	free(pl->bar_unit);
	free(pl);
}
