/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Renderers of the attribution report: text tables that fit 80 columns,
 * JSON (members added to an open object) and CSV. They take finished
 * aggregates and print to the stream they are given.
 */
#ifndef RS_REPORT_OUT_H
#define RS_REPORT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct analysis;
struct bench_breakdown;
struct cgroup_paths;
struct json_writer;
struct kernel_spans;
struct perf_data;

struct report_out {
	const char *input;		/* name shown in the header */
	struct perf_data *pd;		/* header, evsels, stats */
	struct analysis *an;
	uint64_t divisor;		/* ns per display unit */
	const char *unit;		/* "nsecs", "usecs", "msecs" */
	bool hist;			/* text/CSV: add the histograms */
	/* cgroup ids to paths on this machine; NULL: ids only */
	struct cgroup_paths *cgroups;
	/* spans the recording timed in the kernel (BPF); NULL: none */
	const struct kernel_spans *kspans;
	/* the targets' reads decomposed (record -p, -- CMD); NULL: none */
	const struct bench_breakdown *bd;
};

/* 0, or -errno of a failed write. */
int report_out__text(FILE *out, const struct report_out *ro);
int report_out__csv(FILE *out, const struct report_out *ro);
/* Adds "header", "events", "attribution", ... to the object jw has open. */
void report_out__json(struct json_writer *jw, const struct report_out *ro);

#endif
