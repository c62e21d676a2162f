// SPDX-License-Identifier: GPL-2.0
/*
 * bench --until (include/bench-until.h): when a run has repeated enough.
 *
 * A run of three repetitions on a loaded machine could not tell a 10%
 * effect from noise, and nothing said so. The figure that says it is the
 * difference the repetitions' spread lets through: Welch's detectable
 * difference at 80% power, of the p50 each repetition measured, the
 * figure compare prints as "could not resolve less than" for one value
 * per repetition. Repeating shrinks it as 1/sqrt(n) while the machine is
 * steady; the run stops once it is at or below the target, or when the
 * time limit or the cap of repetitions says the machine will not get
 * there.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "bench-until.h"
#include "stats.h"

/* As compare's resolution of a figure per repetition. */
#define UNTIL_ALPHA 0.05
#define UNTIL_POWER 0.8

static const char *const end_names[] = {
	[BENCH_UNTIL_RUNNING] = "running",
	[BENCH_UNTIL_RESOLVED] = "resolution",
	[BENCH_UNTIL_TIME] = "time",
	[BENCH_UNTIL_REPS] = "repetitions",
};

const char *bench_until__end_name(enum bench_until_end end)
{
	return end_names[end];
}

static bool metric_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

int bench_until__parse(struct bench_until *u, const char *arg, char *why,
		       size_t len)
{
	char *end;
	const char *metric = "";
	double res, secs = BENCH_UNTIL_MAX_S;
	size_t i;

	errno = 0;
	res = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (end == arg || errno || !(res > 0) || res > 1000 ||
	    (*end && *end != ',')) {
		snprintf(why, len, "--until '%s': give the resolution in percent, e.g. 5%% or 5%%,300 (300 seconds at most)",
			 arg);
		return -EINVAL;
	}
	if (*end == ',') {
		const char *s = end + 1;

		errno = 0;
		secs = strtod(s, &end);
		if (end != s && *end == 's')
			end++;
		if (*end == ',')
			metric = end + 1;
		if (end == s || (*end && *end != ',') || errno ||
		    !(secs > 0) || secs > 7 * 86400) {
			snprintf(why, len, "--until '%s': the time limit is seconds above 0, at most a week (e.g. 5%%,300)",
				 arg);
			return -EINVAL;
		}
	}
	for (i = 0; metric[i] && metric_char(metric[i]); i++)
		;
	if (metric[i] || (*end == ',' && !i) || i >= sizeof(u->metric)) {
		snprintf(why, len, "--until '%s': the metric is a name or a stat file (e.g. 5%%,300,cpu.stat)",
			 arg);
		return -EINVAL;
	}
	u->target_pct = res;
	u->max_s = secs;
	u->max_reps = BENCH_UNTIL_MAX_REPS;
	snprintf(u->metric, sizeof(u->metric), "%s", metric);
	return 0;
}

static bool named(const struct bench_metric *m, const char *want)
{
	return !*want || !strcmp(m->name, want) ||
	       (m->file && !strcmp(m->file, want));
}

/*
 * The metric judged: the first distribution of the first repetition
 * that want names (by its name or its file; "": any), else the first
 * figure it names (stat-read with no want: the first file's reads).
 */
static const struct bench_metric *primary(struct bench_results *r,
					  const char *want)
{
	const struct bench_metric *m;
	size_t i, n;

	if (!bench_results__nr_reps(r))
		return NULL;
	n = bench_results__nr_metrics(r, 0);
	for (i = 0; i < n; i++) {
		m = bench_results__metric(r, 0, i);
		if (m->is_hist && named(m, want))
			return m;
	}
	for (i = 0; i < n; i++) {
		m = bench_results__metric(r, 0, i);
		if (named(m, want))
			return m;
	}
	return NULL;
}

/* "read_ns cgroup.stat, reads_per_s, ..." into why. */
static void list_metrics(struct bench_results *r, char *why, size_t len)
{
	const struct bench_metric *m;
	size_t i, n = bench_results__nr_metrics(r, 0), used = 0;

	why[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		m = bench_results__metric(r, 0, i);
		used += snprintf(why + used, len - used, "%s%s%s%s",
				 i ? ", " : "", m->name, m->file ? " " : "",
				 m->file ? m->file : "");
	}
}

/*
 * The per-repetition p50 (or value) of name/file in r, summarised. A
 * p50 is a whole number of its unit (ns): its rounding adds a variance
 * of 1/12 unit^2 to whatever the repetitions show, so that repetitions
 * agreeing to the nanosecond (20000 reads each often do) resolve what a
 * nanosecond can, not an exact 0%.
 */
static int summarize(struct bench_results *r, const char *name,
		     const char *file, struct stats_summary *s)
{
	size_t n = bench_results__nr_reps(r), i, k = 0;
	const struct bench_metric *m;
	double *x = calloc(n ? n : 1, sizeof(*x));
	bool whole = false;
	int err;

	if (!x)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		m = bench_results__metric_find(r, i, name, file);
		if (m) {
			x[k++] = m->is_hist ? (double)m->p50 : m->value;
			whole = m->is_hist;
		}
	}
	err = k ? stats__summarize(x, k, s) : -ENOENT;
	if (!err && whole)
		s->var += 1.0 / 12;
	free(x);
	return err;
}

/* The resolution in percent of the base; NAN when it cannot say yet. */
static double resolution(struct bench_results *const *res, size_t n,
			 const struct bench_metric *m)
{
	struct stats_summary base, side;
	double dd, worst = NAN;
	size_t v;

	if (summarize(res[0], m->name, m->file, &base) || !base.amean)
		return NAN;
	if (n == 1) {
		dd = stats__detectable_diff(&base, &base, UNTIL_ALPHA,
					    UNTIL_POWER);
		return dd * 100 / fabs(base.amean);
	}
	for (v = 1; v < n; v++) {
		if (summarize(res[v], m->name, m->file, &side))
			return NAN;
		dd = stats__detectable_diff(&base, &side, UNTIL_ALPHA,
					    UNTIL_POWER);
		if (isnan(dd))
			return NAN;
		dd = dd * 100 / fabs(base.amean);
		if (isnan(worst) || dd > worst)
			worst = dd;
	}
	return worst;
}

int bench_until__check(const struct bench_until *u, unsigned int min_reps,
		       struct bench_results *const *res, size_t n,
		       unsigned int reps, double elapsed_s,
		       struct bench_until_state *st, char *why, size_t len)
{
	const struct bench_metric *m = n ? primary(res[0], u->metric) : NULL;

	if (!m && n && *u->metric && bench_results__nr_reps(res[0])) {
		list_metrics(res[0], why, len);
		return -ENOENT;
	}
	st->reps = reps;
	st->elapsed_s = elapsed_s;
	st->resolution_pct = NAN;
	st->end = BENCH_UNTIL_RUNNING;
	if (m) {
		snprintf(st->metric, sizeof(st->metric), "%s%s%s", m->name,
			 m->file ? " " : "", m->file ? m->file : "");
		st->resolution_pct = resolution(res, n, m);
	}
	if (reps < min_reps)
		return false;
	/* Two repetitions that agree are luck, not a resolution. */
	if (reps >= BENCH_UNTIL_MIN_REPS &&
	    st->resolution_pct <= u->target_pct)
		st->end = BENCH_UNTIL_RESOLVED;
	else if (elapsed_s >= u->max_s)
		st->end = BENCH_UNTIL_TIME;
	else if (reps >= u->max_reps)
		st->end = BENCH_UNTIL_REPS;
	return st->end != BENCH_UNTIL_RUNNING ? 1 : 0;
}

int bench_until__save(struct bench_results *r, const struct bench_until *u,
		      const struct bench_until_state *st)
{
	int err;

	err = bench_results__param_double(r, "until_target_pct",
					  u->target_pct);
	err = err ?: bench_results__param_double(r, "until_max_s", u->max_s);
	err = err ?: bench_results__param_u64(r, "until_max_repetitions",
					      u->max_reps);
	err = err ?: bench_results__param_str(r, "until_metric", st->metric);
	err = err ?: bench_results__param_str(r, "until_end",
					      end_names[st->end]);
	/* A number or nothing: the file has no NaN. */
	if (!err && isfinite(st->resolution_pct))
		err = bench_results__param_double(r, "until_resolution_pct",
						  st->resolution_pct);
	err = err ?: bench_results__param_double(r, "until_elapsed_s",
						 st->elapsed_s);
	err = err ?: bench_results__param_u64(r, "repetitions", st->reps);
	return err;
}

/* A number parameter, which the file may hold as an integer. */
static double num(const struct bench_results *r, const char *key)
{
	const struct bench_param *p = bench_results__param_find(r, key);

	if (!p)
		return NAN;
	if (p->type == BENCH_PARAM_U64)
		return p->u64;
	return p->type == BENCH_PARAM_DOUBLE ? p->dbl : NAN;
}

int bench_until__load(const struct bench_results *r, struct bench_until *u,
		      struct bench_until_state *st)
{
	const struct bench_param *end, *metric;
	size_t i;

	end = bench_results__param_find(r, "until_end");
	metric = bench_results__param_find(r, "until_metric");
	if (!end || end->type != BENCH_PARAM_STR)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->end = BENCH_UNTIL_RUNNING;
	for (i = 0; i < sizeof(end_names) / sizeof(*end_names); i++)
		if (!strcmp(end->str, end_names[i]))
			st->end = i;
	if (metric && metric->type == BENCH_PARAM_STR)
		snprintf(st->metric, sizeof(st->metric), "%s", metric->str);
	st->resolution_pct = num(r, "until_resolution_pct");
	st->elapsed_s = num(r, "until_elapsed_s");
	st->reps = bench_results__nr_reps(r);
	u->target_pct = num(r, "until_target_pct");
	u->max_s = num(r, "until_max_s");
	u->max_reps = num(r, "until_max_repetitions");
	return 0;
}
