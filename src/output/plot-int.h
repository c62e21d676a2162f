/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of src/output/plot*.c share: the series of a plot and
 * how they grow. Not for the rest of the tool (include/plot.h is).
 */
#ifndef RS_PLOT_INT_H
#define RS_PLOT_INT_H

#include <stdint.h>

#include "hist.h"
#include "plot.h"

/* One curve or group of bars: an input, or one distribution of it. */
struct series {
	char *name;
	size_t input_len;	/* name's first bytes: the input's */
	char *unit;		/* of the values: "ns", or a bench unit */
	uint64_t buckets[HIST_MAX_BUCKETS];	/* by bucket index */
	uint64_t *samples;	/* cdf: exact values, when known */
	size_t nr_samples;
	double *x, *y;		/* timeline points; bars: y per segment */
	size_t nr_points;
};

struct plot {
	struct plot_opts o;
	struct series *series;
	size_t nr_series, cap_series;
	/* bars: the stacked segments, in first-seen order */
	char **segs;
	size_t nr_segs, cap_segs;
	char *bar_unit;		/* bars: "%", or a bench unit */
};

/* breakdown: the derived segment's name, after the parts' own. */
#define PLOT_BD_ENTRY "entry/exit"

/* plot.c: a new series "INPUT: WHAT" (or "INPUT") in unit; NULL: no memory. */
struct series *plot__series_add(struct plot *ctx, const char *input,
				const char *what, const char *unit);

/* A recording's lock holds over time (plot-timeline.c). */
int plot__load_recording(struct plot *ctx, const char *input, char *err,
			 size_t errlen);

#endif
