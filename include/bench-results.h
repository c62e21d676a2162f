/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results of one bench run: scenario, parameters, provenance and
 * every repetition's figures. The command fills a builder and writes it
 * as JSON (docs/bench-results.md, docs/bench-results.schema.json);
 * compare reads such files back into the same object.
 *
 * Setters copy what they are given. They return 0, -EINVAL (bad
 * argument, or a metric before any repetition), -EEXIST (the metric is
 * already in this repetition) or -ENOMEM.
 */
#ifndef RS_BENCH_RESULTS_H
#define RS_BENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "hist.h"

/*
 * The version written. /2 added the recorded pass ("recording": {"pass"});
 * /1 files (no pass) still read.
 */
#define BENCH_RESULTS_SCHEMA "rstat-analyze-bench/4"	/* breakdown */
#define BENCH_RESULTS_SCHEMA_V3 "rstat-analyze-bench/3"	/* vm_clock */
#define BENCH_RESULTS_SCHEMA_V2 "rstat-analyze-bench/2"
#define BENCH_RESULTS_SCHEMA_V1 "rstat-analyze-bench/1"
/* Samples kept per histogram metric; more are subsampled. */
#define BENCH_RESULTS_MAX_SAMPLES 10000

struct bench_results;
struct jv;

struct bench_results *bench_results__new(const char *scenario);
void bench_results__delete(struct bench_results *r);

/* Parameters, in the order first set; setting a key again replaces it. */
int bench_results__param_str(struct bench_results *r, const char *key,
			     const char *value);
int bench_results__param_u64(struct bench_results *r, const char *key,
			     uint64_t value);
/* Finite values only. */
int bench_results__param_double(struct bench_results *r, const char *key,
				double value);
int bench_results__param_bool(struct bench_results *r, const char *key,
			      bool value);
int bench_results__param_strv(struct bench_results *r, const char *key,
			      const char *const *values, size_t n);

/* Live and dying cgroup counts; -1 for unknown (null in the file). */
struct bench_cgroup_counts {
	int64_t v2_live, v2_dying, v1_memory;
};

/*
 * Where and when the run happened. bench_results__provenance() fills the
 * host facts itself (hostname, kernel release and version and machine
 * from uname(2), online CPUs) and ignores those members of p; the rest
 * comes from the caller: cgroup_layout is "v2", "v1", "hybrid" or "none",
 * the controller lists may be empty (NULL with 0), started and finished
 * are wall-clock times (0 for now), command_line may be NULL.
 */
struct bench_provenance {
	const char *hostname, *kernel, *kernel_version, *arch;
	unsigned int cpus;
	const char *cgroup_layout;
	const char *const *v2_controllers;
	size_t nr_v2_controllers;
	const char *const *v1_controllers;
	size_t nr_v1_controllers;
	struct bench_cgroup_counts before, after;
	time_t started, finished;
	const char *command_line;
	/*
	 * How busy the machine was, which the run's times include: the
	 * 1-minute load average at its start and its end, and the CPU time
	 * the hypervisor stole from this machine's CPUs meanwhile (steal in
	 * /proc/stat, summed over them). has_load false: not known.
	 */
	bool has_load;
	double loadavg_before, loadavg_after, steal_s;
};
int bench_results__provenance(struct bench_results *r,
			      const struct bench_provenance *p);

/*
 * A guest run's clock held against the host's over the same stretch
 * (bench --kernel; vm.h's struct vm_clock), in the provenance as
 * "vm_clock". ok is false when the guest's clock drifted past the
 * tolerance: its timed figures are wrong, and compare says so.
 */
struct bench_vm_clock {
	bool icount;		/* guest time counts instructions */
	double guest_s, host_s;	/* the run by each clock */
	double drift;		/* guest_s / host_s - 1; NAN: too short */
	bool ok;
	char clocksource[32];
};
/* Set it (after bench_results__provenance()); 0, or -EINVAL without one. */
int bench_results__set_vm_clock(struct bench_results *r,
				const struct bench_vm_clock *c);
/* NULL unless the run was a guest's with its clock measured. */
const struct bench_vm_clock *
bench_results__vm_clock(const struct bench_results *r);

/* A part of the scenario that did not run, and why ("io.stat: ..."). */
int bench_results__skip(struct bench_results *r, const char *why);

/* Start the next repetition: the measured task's time(1) figures. */
int bench_results__rep_begin(struct bench_results *r, double real_s,
			     double user_s, double sys_s);
/*
 * A distribution in the current repetition, e.g. read_ns of cpu.stat:
 * count, min, p50, p90, p99, max from h, mean and (sample) standard
 * deviation and the log2 buckets (hist__buckets(), divisor 1) from h and
 * values, and values itself as the samples: all of them up to
 * BENCH_RESULTS_MAX_SAMPLES, else that many at a uniform stride
 * (values[i * n / BENCH_RESULTS_MAX_SAMPLES]). values are h's, in the
 * order measured (n == hist__count(h); NULL when h is empty); a copy is
 * kept for the terminal (bench_metric__values(), results-out.h). file
 * names the stat file, or is NULL.
 */
int bench_results__rep_metric_hist(struct bench_results *r, const char *name,
				   const char *unit, const char *file,
				   bool lower_is_better, struct hist *h,
				   const uint64_t *values, size_t n);
/* A single figure in the current repetition (throughput, a count). */
int bench_results__rep_metric_value(struct bench_results *r, const char *name,
				    const char *unit, bool lower_is_better,
				    double value);
/*
 * A figure that describes the run rather than measures it (a bound the
 * parameters set, a count of events seen): no direction is better. JSON
 * "better": "none"; printed without a direction.
 */
int bench_results__rep_metric_info(struct bench_results *r, const char *name,
				   const char *unit, double value);
struct bench_breakdown;
/* The reads' decomposition (bench-breakdown.h), copied. 0 or -ENOMEM. */
int bench_results__set_breakdown(struct bench_results *r,
				 const struct bench_breakdown *bd);
/* NULL when the run has none. */
const struct bench_breakdown *
bench_results__breakdown(const struct bench_results *r);
/* The perf.data recorded during the run. */
int bench_results__set_recording(struct bench_results *r, const char *file);
/*
 * Start the recorded pass: the workload once more while the recorder
 * runs, after the timed repetitions. Its time(1) figures here; the
 * rep_metric_*() calls that follow (until another rep_begin) add to it.
 * Kept apart from the repetitions (JSON: "recording": {"pass"}), so that
 * no figure taken while recording is ever read as a result; printed as
 * what recording cost. -EEXIST for a second one.
 */
int bench_results__recorded_begin(struct bench_results *r, double real_s,
				  double user_s, double sys_s);

/*
 * Move src's repetitions to the end of dst's: bench --variant runs each
 * repetition of a variant as a run of its own and keeps them in one
 * results object. A dst without provenance first takes a copy of src's
 * parameters, provenance and skipped parts; later, its provenance's
 * finished time and cgroups after become src's, and a skipped part dst
 * has not said yet is added. src keeps everything else, and no
 * repetition. 0, -EINVAL (another scenario, or src has a recorded pass)
 * or -ENOMEM (no repetition moved).
 */
int bench_results__take_reps(struct bench_results *dst,
			     struct bench_results *src);
/*
 * Move the pass after a variant's repetitions, run on its own (src, no
 * repetition): its recorded pass, recording file and decomposition
 * replace dst's, and a skipped part dst has not said yet is added. dst
 * keeps its parameters, provenance and repetitions. 0, -EINVAL (another
 * scenario, dst without provenance, src with repetitions) or -ENOMEM
 * (the skipped parts only in part added, nothing moved).
 */
int bench_results__take_pass(struct bench_results *dst,
			     struct bench_results *src);

/* The results as JSON. 0, -EINVAL (no repetition yet) or -EIO. */
int bench_results__write(struct bench_results *r, FILE *out);
/*
 * Write them to name in the directory dirfd (AT_FDCWD: a path) through
 * outfile.h: beside it, FILE to FILE.old when whole, nothing changed on
 * failure. shown names it in outfile's messages. 0 or -errno (the
 * stream's own, ENOSPC rather than EIO; outfile__strerror() words it).
 */
int bench_results__save_at(struct bench_results *r, int dirfd,
			   const char *name, const char *shown);
/*
 * Read a results file back. 0, or -EINVAL with "PATH: line N: what" in
 * errbuf for input that is not a results file of this schema (strictly:
 * unknown members, wrong types, numbers out of range are errors), -errno
 * with "PATH: what" when it cannot be read, -ENOMEM.
 */
int bench_results__read(struct bench_results **r, const char *path,
			char *errbuf, size_t errlen);
/* The same from memory; name is used in messages. */
int bench_results__read_mem(struct bench_results **r, const char *buf,
			    size_t len, const char *name, char *errbuf,
			    size_t errlen);
/* The same from a document json-read.c has parsed (json-input.h's). */
int bench_results__read_json(struct bench_results **r, const struct jv *doc,
			     const char *name, char *errbuf, size_t errlen);

/* Accessors, for compare. Strings stay valid until the object is deleted. */
const char *bench_results__scenario(const struct bench_results *r);
const char *bench_results__tool_version(const struct bench_results *r);
/* NULL when bench_results__provenance() was not called / the file has null. */
const struct bench_provenance *
bench_results__get_provenance(const struct bench_results *r);
size_t bench_results__nr_skipped(const struct bench_results *r);
const char *bench_results__skipped(const struct bench_results *r, size_t i);
/* NULL when none. */
const char *bench_results__recording(const struct bench_results *r);

enum bench_param_type {
	BENCH_PARAM_STR,
	BENCH_PARAM_U64,	/* a non-negative integer in the file */
	BENCH_PARAM_DOUBLE,	/* any other number */
	BENCH_PARAM_BOOL,
	BENCH_PARAM_STRV,
};

struct bench_param {
	const char *key;
	enum bench_param_type type;
	const char *str;
	uint64_t u64;
	double dbl;
	bool b;
	const char *const *strv;
	size_t nr_strv;
};
size_t bench_results__nr_params(const struct bench_results *r);
const struct bench_param *bench_results__param(const struct bench_results *r,
					       size_t i);
/* NULL when there is no such key. */
const struct bench_param *
bench_results__param_find(const struct bench_results *r, const char *key);
/* The value as text ("26", "a,b", "true"); snprintf()'s return. */
int bench_param__format(const struct bench_param *p, char *buf, size_t len);

struct bench_metric {
	const char *name, *unit;
	const char *file;		/* NULL when none */
	bool lower_is_better;
	bool no_better;			/* describes, not measures: "none" */
	bool is_hist;
	double value;			/* !is_hist */
	/* is_hist: */
	uint64_t count, min, p50, p90, p99, max;
	double mean, stddev;
	const struct hist_bucket *buckets;	/* raw unit, divisor 1 */
	size_t nr_buckets;
	const uint64_t *samples;
	size_t nr_samples;
};

struct bench_rep_time {
	double real_s, user_s, sys_s;
};

size_t bench_results__nr_reps(const struct bench_results *r);
/* rep < bench_results__nr_reps(), i < bench_results__nr_metrics(). */
const struct bench_rep_time *
bench_results__rep_time(const struct bench_results *r, size_t rep);
size_t bench_results__nr_metrics(const struct bench_results *r, size_t rep);
const struct bench_metric *
bench_results__metric(const struct bench_results *r, size_t rep, size_t i);
/* By name and file (NULL matches a metric without a file). */
const struct bench_metric *
bench_results__metric_find(const struct bench_results *r, size_t rep,
			   const char *name, const char *file);
/* The recorded pass's time and metrics; NULL when there was none. */
const struct bench_rep_time *
bench_results__recorded_time(const struct bench_results *r);
const struct bench_metric *
bench_results__recorded_metric_find(const struct bench_results *r,
				    const char *name, const char *file);
size_t bench_results__nr_recorded_metrics(const struct bench_results *r);
const struct bench_metric *
bench_results__recorded_metric(const struct bench_results *r, size_t i);
/*
 * A distribution's values: every one when known (a run's own, kept for
 * the terminal), else the samples a file holds; *n says how many.
 */
const uint64_t *bench_metric__values(const struct bench_metric *m, size_t *n);

#endif
