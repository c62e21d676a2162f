/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Renderers of `rstat-analyze compare`: the finished comparison (each
 * side's summaries and the tests against the first side) as text that
 * fits 72 columns (mmtests' compare-kernels table, time(1) means,
 * ministat verdicts), markdown pipe tables, one RFC 4180 CSV table, or
 * JSON. They print to the stream they are given and return 0 or -EIO.
 */
#ifndef RS_COMPARE_OUT_H
#define RS_COMPARE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "stats.h"

struct json_writer;
struct compare_input;

/* One metric of bench results, pooled per side. */
struct compare_metric {
	char *label;			/* row label: "cpu.stat-us" */
	const char *name, *file, *unit;	/* as in the results (file NULL) */
	const char *display_unit;	/* "us" for ns distributions */
	bool is_hist;
	bool lower_is_better;
	bool no_better;			/* describes the run: "none" */
	bool hmean;			/* rates: Hmean instead of Amean */
	struct stats_summary *sum;	/* [nr_sides] */
	struct stats_welch *welch;	/* [nr_sides], [0] unused */
	struct stats_ministat *ministat; /* [nr_sides], [0] unused */
};

/* The time(1) figures of a side: means over its repetitions. */
struct compare_time {
	size_t n;
	double real_s, user_s, sys_s;
};

/* A share (0..1) per side of an attribution category or a trigger. */
struct compare_share {
	char *event, *name;
	double *share;			/* [nr_sides], NAN when absent */
};

/* A span's histogram per side (the log2 buckets of report --json). */
struct compare_span_side {
	bool present;
	uint64_t count, p50, p90, p99;	/* ns */
	/* By hist__bucket_index(); values 0 in bucket 1, its row 0 -> 1. */
	uint64_t bucket[HIST_MAX_BUCKETS];
};

struct compare_span {
	char *name, *subsystem;		/* subsystem may be NULL */
	/*
	 * Timed in the kernel by BPF (report --json's kernel_spans): its
	 * percentiles are the high ends of log2 buckets.
	 */
	bool kernel;
	struct compare_span_side *side;	/* [nr_sides] */
};

struct compare {
	size_t nr_sides;
	const char *const *labels;	/* [nr_sides] */
	bool profile;			/* report --json inputs */
	const char *title;		/* bench scenario, or NULL */
	/* bench results */
	struct compare_metric *metrics;
	size_t nr_metrics;
	struct compare_time *time;	/* [nr_sides] */
	/* profiles */
	struct compare_share *categories, *triggers;
	size_t nr_categories, nr_triggers;
	struct compare_span *spans;
	size_t nr_spans;
	/* What was left out while building, for the command to print. */
	char **notes;
	size_t nr_notes;
	/*
	 * What makes a side's figures wrong (a guest clock that drifted),
	 * printed with the tables themselves, not beside them.
	 */
	char **warnings;
	size_t nr_warnings;
	/* The inputs read (compare.h), which the strings above point into. */
	struct compare_input *inputs;
	size_t nr_inputs;
};

/* The significance level of the Amean/Hmean marks. */
#define COMPARE_ALPHA 0.05
/* Text output width: what survives two levels of email quoting. */
#define COMPARE_TEXT_WIDTH 72

int compare_out__text(FILE *out, const struct compare *c);
int compare_out__markdown(FILE *out, const struct compare *c);
int compare_out__csv(FILE *out, const struct compare *c);
/* The whole document (a JSON object); jw writes to its stream. */
void compare_out__json(struct json_writer *jw, const struct compare *c);

#endif
