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
#include "results-breakdown.h"
#include "stats.h"

struct json_writer;
struct compare_input;

/* One metric of bench results, pooled per side. */
/*
 * What decides whether a side differs from the base, as the verdict line
 * says it: for a distribution (latencies), the median of the pooled
 * values, by a bootstrap interval of its difference and the Mann-Whitney
 * rank test, which tails cannot sway as they sway a mean; for a single
 * figure per repetition (a rate), Welch's t on the repetitions. Either
 * way the smallest difference the run could have shown is kept, for the
 * "no difference" that would otherwise say nothing.
 */
struct compare_verdict {
	bool by_median;
	double median_base, median;	/* display unit; by_median only */
	struct stats_ci diff;		/* median(side) - median(base) */
	struct stats_mwu mwu;
	bool too_few;			/* one value on a side: no test */
	bool significant;
	int worse;			/* +1 worse, -1 better, 0 none */
	/* The smallest difference the run resolves, in percent of the base:
	 * by_median, the bootstrap interval's half width; else Welch's at
	 * 80% power. NAN when it cannot say (one value on a side). */
	double resolution_pct;
	/* What the means' Welch test says against it (by_median only). */
	enum {
		MEANS_AGREE,
		MEANS_SAME,		/* the medians moved, the means not */
		MEANS_DIFFER,		/* the means moved, the medians not */
		MEANS_OPPOSITE,		/* both, opposite ways */
	} means;
};

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
	struct compare_verdict *verdict; /* [nr_sides], [0] unused */
};

/* The bootstrap's resamples and seed: the same inputs, the same interval. */
#define COMPARE_BOOTSTRAP_ITERS 1000
#define COMPARE_BOOTSTRAP_SEED 20261207ULL
/* The power the resolution of a single figure is given at. */
#define COMPARE_POWER 0.8

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


/*
 * The reads' breakdowns (bench --breakdown, results-breakdown.h) side by
 * side: for each file every side decomposed, each part's figures per
 * side and their change against the base. Built once
 * (compare-build.c) for every format, and for bench --kernel's own
 * printing (breakdown-out.h).
 */
struct compare_bd_cell {
	bool timed;		/* false: this side did not time the part */
	const char *why;	/* ... and why, in the results' words */
	int64_t q[BD_NR_Q];	/* p50, p90, p99 in ns (entry/exit signed) */
	double share;		/* 0..1 of the reads' summed time */
	uint64_t calls;		/* entries summed over the reads */
	int64_t sum_ns;		/* time summed over the reads */
	const char *note[BD_NR_Q];	/* "2 ticks", "off-CPU", "" */
};

/*
 * A part's change on a side against the base, + when it grew: the share
 * in percentage points, the times and calls in percent of the base's
 * (NAN when the base's is 0 and the side's is not). valid only when
 * both sides timed the part: a part one side did not time has no
 * change, never a 0.
 */
struct compare_bd_change {
	bool valid;
	double share_pts;
	double q_pct[BD_NR_Q];
	double calls_pct, sum_pct;
};

/* total, the parts of breakdown.h, and entry/exit (when derived) */
#define COMPARE_BD_ROWS (BD_PART__NR + 2)

struct compare_bd_row {
	const char *name;	/* "total", "memory", ..., "entry/exit" */
	bool derived;		/* entry/exit: reader less kernel */
	struct compare_bd_cell *side;		/* [nr_sides] */
	struct compare_bd_change *change;	/* [nr_sides], [0] unused */
};

struct compare_bd_file {
	const char *file;
	const struct bench_bd_file **side;	/* [nr_sides] */
	/*
	 * entry/exit's row is there when a side derived it; a side that
	 * could not has it not timed, and text and markdown show it only
	 * for sides that all did.
	 */
	struct compare_bd_row row[COMPARE_BD_ROWS];
	size_t nr_rows;
};

struct compare {
	size_t nr_sides;
	const char *const *labels;	/* [nr_sides] */
	bool profile;			/* report --json inputs */
	const char *title;		/* bench scenario, or NULL */
	/*
	 * Text and markdown: every statistic, every metric, time(1),
	 * ministat and the profiles' histograms. Without it they print
	 * what a reply on a mailing list needs (compare_out__text()).
	 */
	bool details;
	/* bench results */
	struct compare_metric *metrics;
	size_t nr_metrics;
	struct compare_time *time;	/* [nr_sides] */
	/* profiles */
	struct compare_share *categories, *triggers;
	size_t nr_categories, nr_triggers;
	struct compare_span *spans;
	size_t nr_spans;
	/*
	 * The breakdowns, when every side has exactly one (else a note
	 * says why none is compared): each side's ([nr_sides]) and the
	 * files all of them decomposed.
	 */
	const struct bench_breakdown **bd;
	struct compare_bd_file *bd_files;
	size_t nr_bd_files;
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

/*
 * Text in 72 columns. By default short enough to paste (at most about 60
 * lines): the warnings, the key rows of mmtests' table (distributions:
 * 2nd-qrtle, Max-99 and Amean; accuracy's error and staleness: 2nd-qrtle,
 * Max-99 and Max; single figures: Amean or Hmean), a verdict line per
 * metric and side, and a line saying what --details adds. The rows are
 * the full table's, figure for figure. With c->details: every
 * statistic, the verdicts in full, time(1) and ministat.
 */
int compare_out__text(FILE *out, const struct compare *c);
int compare_out__markdown(FILE *out, const struct compare *c);
int compare_out__csv(FILE *out, const struct compare *c);
/*
 * The breakdowns' tables alone, as compare_out__text() prints them after
 * its own (nothing when there are none): what bench --kernel prints.
 */
int compare_out__breakdowns(FILE *out, const struct compare *c);
/* The whole document (a JSON object); jw writes to its stream. */
void compare_out__json(struct json_writer *jw, const struct compare *c);

#endif
