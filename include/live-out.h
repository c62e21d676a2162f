/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live views' writers (src/output/live-out.c): top's table, for a
 * terminal or one parsable block per interval, and the Prometheus text
 * exposition format (0.0.4) that watch serves. They only write to out.
 */
#ifndef RS_LIVE_OUT_H
#define RS_LIVE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "live.h"

/* What top sorts its subsystem rows by (descending). */
enum live_sort {
	LIVE_SORT_FLUSHES,
	LIVE_SORT_TIME,		/* flush time */
	LIVE_SORT_HOLDS,
	LIVE_SORT_HOLD_P99,
	LIVE_SORT_WAITS,
	LIVE_SORT__NR,
};

/* "flushes", "time", "holds", "hold-p99", "waits"; 0 or -EINVAL. */
int live_sort__parse(const char *name, enum live_sort *out);
const char *live_sort__names(void);

struct live_top_opts {
	bool tty;		/* redraw the screen, else one block each */
	enum live_sort sort;
	unsigned int cgroups;	/* busiest cgroups shown, <= LIVE_CGROUPS */
	double wall;		/* time of day of the sample (seconds) */
};

/* One interval: cur - prev (prev NULL: since attach). */
void live_out__top(FILE *out, const struct live_snap *cur,
		   const struct live_snap *prev,
		   const struct live_top_opts *o);

/* Every metric of snap in the text exposition format 0.0.4. */
void live_out__prometheus(FILE *out, const struct live_snap *snap);

#endif
