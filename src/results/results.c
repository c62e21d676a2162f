// SPDX-License-Identifier: GPL-2.0
/*
 * Bench results: the builder the command fills, its JSON form
 * (docs/bench-results.md), and a strict reader of the JSON form for
 * compare and plot. Below bench/ and output/, which both use it; the
 * terminal form is output/results-out.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "results-breakdown.h"
#include "bench-results.h"
#include "json.h"
#include "json-read.h"
#include "outfile.h"
#include "util.h"

struct metric {
	struct bench_metric pub;
	/* Every value, when known: what the terminal histogram is made of. */
	uint64_t *all;
	size_t nr_all;
};

struct rep {
	struct bench_rep_time t;
	struct metric *m;
	size_t nr, cap;
};

struct bench_results {
	char *scenario, *tool_version;
	struct bench_param *params;
	size_t nr_params, cap_params;
	bool has_prov;
	struct bench_provenance prov;
	bool has_vm_clock;
	struct bench_vm_clock vm_clock;
	char **skipped;
	size_t nr_skipped, cap_skipped;
	struct rep *reps;
	size_t nr_reps, cap_reps;
	char *recording;
	/*
	 * The recorded pass: the workload once more while the recorder
	 * ran, kept apart so that no recorded figure is taken for a result.
	 * in_recorded: new metrics go there, not to the last repetition.
	 */
	struct rep *recorded;
	bool in_recorded;
	struct bench_breakdown *bd;	/* NULL: none */
};

/* --- builder --------------------------------------------------------- */

struct bench_results *bench_results__new(const char *scenario)
{
	struct bench_results *r;

	if (!scenario)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->scenario = strdup(scenario);
	r->tool_version = strdup(rs_version());
	if (!r->scenario || !r->tool_version) {
		bench_results__delete(r);
		return NULL;
	}
	return r;
}

static void strv_free(const char *const *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free((char *)v[i]);
	free((void *)v);
}

/* A copy of n strings; an empty vector is a non-NULL one. */
static char **strv_dup(const char *const *v, size_t n)
{
	char **c = calloc(n ? n : 1, sizeof(*c));
	size_t i;

	if (!c)
		return NULL;
	for (i = 0; i < n; i++) {
		c[i] = v[i] ? strdup(v[i]) : NULL;
		if (!c[i]) {
			strv_free((const char *const *)c, i);
			return NULL;
		}
	}
	return c;
}

static void param_clear(struct bench_param *p)
{
	free((char *)p->str);
	strv_free(p->strv, p->nr_strv);
	p->str = NULL;
	p->strv = NULL;
	p->nr_strv = 0;
}

static void prov_clear(struct bench_provenance *p)
{
	free((char *)p->hostname);
	free((char *)p->kernel);
	free((char *)p->kernel_version);
	free((char *)p->arch);
	free((char *)p->cgroup_layout);
	free((char *)p->command_line);
	strv_free(p->v2_controllers, p->nr_v2_controllers);
	strv_free(p->v1_controllers, p->nr_v1_controllers);
	memset(p, 0, sizeof(*p));
}

static void metric_clear(struct metric *m)
{
	free((char *)m->pub.name);
	free((char *)m->pub.unit);
	free((char *)m->pub.file);
	free((void *)m->pub.buckets);
	free((void *)m->pub.samples);
	free(m->all);
}

void bench_results__delete(struct bench_results *r)
{
	size_t i, j;

	if (!r)
		return;
	free(r->scenario);
	free(r->tool_version);
	for (i = 0; i < r->nr_params; i++) {
		free((char *)r->params[i].key);
		param_clear(&r->params[i]);
	}
	free(r->params);
	prov_clear(&r->prov);
	strv_free((const char *const *)r->skipped, r->nr_skipped);
	for (i = 0; i < r->nr_reps; i++) {
		for (j = 0; j < r->reps[i].nr; j++)
			metric_clear(&r->reps[i].m[j]);
		free(r->reps[i].m);
	}
	free(r->reps);
	if (r->recorded) {
		for (j = 0; j < r->recorded->nr; j++)
			metric_clear(&r->recorded->m[j]);
		free(r->recorded->m);
		free(r->recorded);
	}
	free(r->recording);
	free(r->bd);
	free(r);
}

/* The parameter named key, cleared for a new value, or a new one. */
static struct bench_param *param_slot(struct bench_results *r,
				      const char *key)
{
	struct bench_param *p;
	size_t i;

	for (i = 0; i < r->nr_params; i++) {
		if (!strcmp(r->params[i].key, key)) {
			param_clear(&r->params[i]);
			return &r->params[i];
		}
	}
	if (grow_array((void **)&r->params, &r->cap_params, r->nr_params + 1,
		       sizeof(*r->params)))
		return NULL;
	p = &r->params[r->nr_params];
	memset(p, 0, sizeof(*p));
	p->key = strdup(key);
	if (!p->key)
		return NULL;
	r->nr_params++;
	return p;
}

/*
 * Set key to v, whose strings the results now own: on failure they are
 * freed.
 */
static int param_set(struct bench_results *r, const char *key,
		     struct bench_param *v)
{
	struct bench_param *p;

	p = key ? param_slot(r, key) : NULL;
	if (!p) {
		param_clear(v);
		return key ? -ENOMEM : -EINVAL;
	}
	v->key = p->key;
	*p = *v;
	return 0;
}

int bench_results__param_str(struct bench_results *r, const char *key,
			     const char *value)
{
	struct bench_param v = { .type = BENCH_PARAM_STR };

	if (!key || !value)
		return -EINVAL;
	v.str = strdup(value);
	if (!v.str)
		return -ENOMEM;
	return param_set(r, key, &v);
}

int bench_results__param_u64(struct bench_results *r, const char *key,
			     uint64_t value)
{
	struct bench_param v = { .type = BENCH_PARAM_U64, .u64 = value };

	return param_set(r, key, &v);
}

int bench_results__param_double(struct bench_results *r, const char *key,
				double value)
{
	struct bench_param v = { .type = BENCH_PARAM_DOUBLE, .dbl = value };

	if (!isfinite(value))
		return -EINVAL;
	return param_set(r, key, &v);
}

int bench_results__param_bool(struct bench_results *r, const char *key,
			      bool value)
{
	struct bench_param v = { .type = BENCH_PARAM_BOOL, .b = value };

	return param_set(r, key, &v);
}

int bench_results__param_strv(struct bench_results *r, const char *key,
			      const char *const *values, size_t n)
{
	struct bench_param v = { .type = BENCH_PARAM_STRV, .nr_strv = n };
	size_t i;

	if (!key || (n && !values))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!values[i])
			return -EINVAL;
	v.strv = (const char *const *)strv_dup(values, n);
	if (!v.strv)
		return -ENOMEM;
	return param_set(r, key, &v);
}

static bool layout_ok(const char *s)
{
	return s && (!strcmp(s, "v2") || !strcmp(s, "v1") ||
		     !strcmp(s, "hybrid") || !strcmp(s, "none"));
}

static bool counts_ok(const struct bench_cgroup_counts *c)
{
	return c->v2_live >= -1 && c->v2_dying >= -1 && c->v1_memory >= -1;
}

int bench_results__provenance(struct bench_results *r,
			      const struct bench_provenance *p)
{
	struct bench_provenance n = { 0 };
	struct utsname u;
	char host[256];
	long cpus;
	size_t i;

	if (!p || !layout_ok(p->cgroup_layout) || !counts_ok(&p->before) ||
	    !counts_ok(&p->after) ||
	    (p->nr_v2_controllers && !p->v2_controllers) ||
	    (p->nr_v1_controllers && !p->v1_controllers))
		return -EINVAL;
	for (i = 0; i < p->nr_v2_controllers; i++)
		if (!p->v2_controllers[i])
			return -EINVAL;
	for (i = 0; i < p->nr_v1_controllers; i++)
		if (!p->v1_controllers[i])
			return -EINVAL;
	if (uname(&u) < 0)
		return -errno;
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "%s", u.nodename);
	host[sizeof(host) - 1] = '\0';
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	n.hostname = strdup(host);
	n.kernel = strdup(u.release);
	n.kernel_version = strdup(u.version);
	n.arch = strdup(u.machine);
	n.cpus = cpus > 0 ? (unsigned int)cpus : 1;
	n.cgroup_layout = strdup(p->cgroup_layout);
	n.v2_controllers = (const char *const *)strv_dup(p->v2_controllers,
							 p->nr_v2_controllers);
	n.nr_v2_controllers = p->nr_v2_controllers;
	n.v1_controllers = (const char *const *)strv_dup(p->v1_controllers,
							 p->nr_v1_controllers);
	n.nr_v1_controllers = p->nr_v1_controllers;
	n.before = p->before;
	n.after = p->after;
	n.started = p->started ? p->started : time(NULL);
	n.finished = p->finished ? p->finished : time(NULL);
	n.command_line = strdup(p->command_line ? p->command_line : "");
	n.has_load = p->has_load;
	n.loadavg_before = p->loadavg_before;
	n.loadavg_after = p->loadavg_after;
	n.steal_s = p->steal_s;
	if (!n.hostname || !n.kernel || !n.kernel_version || !n.arch ||
	    !n.cgroup_layout || !n.v2_controllers || !n.v1_controllers ||
	    !n.command_line) {
		prov_clear(&n);
		return -ENOMEM;
	}
	prov_clear(&r->prov);
	r->prov = n;
	r->has_prov = true;
	return 0;
}

int bench_results__skip(struct bench_results *r, const char *why)
{
	char *s;

	if (!why)
		return -EINVAL;
	if (grow_array((void **)&r->skipped, &r->cap_skipped,
		       r->nr_skipped + 1, sizeof(*r->skipped)))
		return -ENOMEM;
	s = strdup(why);
	if (!s)
		return -ENOMEM;
	r->skipped[r->nr_skipped++] = s;
	return 0;
}

static bool time_ok(double s)
{
	return isfinite(s) && s >= 0;
}

int bench_results__rep_begin(struct bench_results *r, double real_s,
			     double user_s, double sys_s)
{
	struct rep *rep;

	if (!time_ok(real_s) || !time_ok(user_s) || !time_ok(sys_s))
		return -EINVAL;
	if (grow_array((void **)&r->reps, &r->cap_reps, r->nr_reps + 1,
		       sizeof(*r->reps)))
		return -ENOMEM;
	rep = &r->reps[r->nr_reps++];
	memset(rep, 0, sizeof(*rep));
	rep->t.real_s = real_s;
	rep->t.user_s = user_s;
	rep->t.sys_s = sys_s;
	r->in_recorded = false;
	return 0;
}

int bench_results__recorded_begin(struct bench_results *r, double real_s,
				  double user_s, double sys_s)
{
	if (!time_ok(real_s) || !time_ok(user_s) || !time_ok(sys_s))
		return -EINVAL;
	if (r->recorded)
		return -EEXIST;
	r->recorded = calloc(1, sizeof(*r->recorded));
	if (!r->recorded)
		return -ENOMEM;
	r->recorded->t.real_s = real_s;
	r->recorded->t.user_s = user_s;
	r->recorded->t.sys_s = sys_s;
	r->in_recorded = true;
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A new metric in the current repetition, its strings copied. */
static int metric_add(struct bench_results *r, const char *name,
		      const char *unit, const char *file, bool lower,
		      struct metric **out)
{
	struct metric *m;
	struct rep *rep;
	size_t i;

	if (!name || !unit || (!r->in_recorded && !r->nr_reps))
		return -EINVAL;
	rep = r->in_recorded ? r->recorded : &r->reps[r->nr_reps - 1];
	for (i = 0; i < rep->nr; i++)
		if (!strcmp(rep->m[i].pub.name, name) &&
		    same_file(rep->m[i].pub.file, file))
			return -EEXIST;
	if (grow_array((void **)&rep->m, &rep->cap, rep->nr + 1,
		       sizeof(*rep->m)))
		return -ENOMEM;
	m = &rep->m[rep->nr];
	memset(m, 0, sizeof(*m));
	m->pub.name = strdup(name);
	m->pub.unit = strdup(unit);
	m->pub.file = file ? strdup(file) : NULL;
	m->pub.lower_is_better = lower;
	if (!m->pub.name || !m->pub.unit || (file && !m->pub.file)) {
		metric_clear(m);
		return -ENOMEM;
	}
	rep->nr++;
	*out = m;
	return 0;
}

int bench_results__rep_metric_hist(struct bench_results *r, const char *name,
				   const char *unit, const char *file,
				   bool lower_is_better, struct hist *h,
				   const uint64_t *values, size_t n)
{
	struct hist_bucket *b = NULL;
	uint64_t *all = NULL, *s = NULL;
	struct hist_summary sum;
	double mean = 0, m2 = 0, d;
	size_t i, ns;
	struct metric *m;
	int nb, err;

	if (!h || hist__count(h) != n || (n && !values))
		return -EINVAL;
	nb = hist__buckets(h, 1, NULL, 0);
	if (nb < 0)
		return nb;
	ns = n < BENCH_RESULTS_MAX_SAMPLES ? n : BENCH_RESULTS_MAX_SAMPLES;
	if (n) {
		b = calloc((size_t)nb ? (size_t)nb : 1, sizeof(*b));
		all = malloc(n * sizeof(*all));
		s = malloc(ns * sizeof(*s));
		if (!b || !all || !s) {
			err = -ENOMEM;
			goto fail;
		}
		hist__buckets(h, 1, b, nb);
		memcpy(all, values, n * sizeof(*all));
		for (i = 0; i < ns; i++)
			s[i] = values[(uint64_t)i * n / ns];
		/* Welford: no cancellation for large, close values. */
		for (i = 0; i < n; i++) {
			d = (double)values[i] - mean;
			mean += d / (double)(i + 1);
			m2 += d * ((double)values[i] - mean);
		}
	}
	err = metric_add(r, name, unit, file, lower_is_better, &m);
	if (err)
		goto fail;
	m->pub.is_hist = true;
	m->pub.count = n;
	hist__summary(h, &sum);
	m->pub.min = sum.min;
	m->pub.max = sum.max;
	m->pub.p50 = sum.p50;
	m->pub.p90 = sum.p90;
	m->pub.p99 = sum.p99;
	m->pub.mean = mean;
	m->pub.stddev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
	m->pub.buckets = b;
	m->pub.nr_buckets = n ? (size_t)nb : 0;
	m->pub.samples = s;
	m->pub.nr_samples = ns;
	m->all = all;
	m->nr_all = n;
	return 0;
fail:
	free(b);
	free(all);
	free(s);
	return err;
}

int bench_results__rep_metric_value(struct bench_results *r, const char *name,
				    const char *unit, bool lower_is_better,
				    double value)
{
	struct metric *m;
	int err;

	if (!isfinite(value))
		return -EINVAL;
	err = metric_add(r, name, unit, NULL, lower_is_better, &m);
	if (err)
		return err;
	m->pub.value = value;
	return 0;
}

int bench_results__rep_metric_info(struct bench_results *r, const char *name,
				   const char *unit, double value)
{
	struct metric *m;
	int err;

	if (!isfinite(value))
		return -EINVAL;
	err = metric_add(r, name, unit, NULL, true, &m);
	if (err)
		return err;
	m->pub.value = value;
	m->pub.no_better = true;
	return 0;
}

int bench_results__set_recording(struct bench_results *r, const char *file)
{
	char *s;

	if (!file)
		return -EINVAL;
	s = strdup(file);
	if (!s)
		return -ENOMEM;
	free(r->recording);
	r->recording = s;
	return 0;
}

/* --- one variant's repetitions from runs of their own ----------------- */

/* A deep copy of src; 0 or -ENOMEM (out cleared). */
static int prov_copy(struct bench_provenance *out,
		     const struct bench_provenance *src)
{
	struct bench_provenance n = *src;

	n.hostname = strdup(src->hostname);
	n.kernel = strdup(src->kernel);
	n.kernel_version = strdup(src->kernel_version);
	n.arch = strdup(src->arch);
	n.cgroup_layout = strdup(src->cgroup_layout);
	n.command_line = strdup(src->command_line);
	n.v2_controllers = (const char *const *)
		strv_dup(src->v2_controllers, src->nr_v2_controllers);
	n.v1_controllers = (const char *const *)
		strv_dup(src->v1_controllers, src->nr_v1_controllers);
	if (!n.hostname || !n.kernel || !n.kernel_version || !n.arch ||
	    !n.cgroup_layout || !n.command_line || !n.v2_controllers ||
	    !n.v1_controllers) {
		prov_clear(&n);
		memset(out, 0, sizeof(*out));
		return -ENOMEM;
	}
	*out = n;
	return 0;
}

static int param_copy(struct bench_results *r, const struct bench_param *p)
{
	switch (p->type) {
	case BENCH_PARAM_STR:
		return bench_results__param_str(r, p->key, p->str);
	case BENCH_PARAM_U64:
		return bench_results__param_u64(r, p->key, p->u64);
	case BENCH_PARAM_DOUBLE:
		return bench_results__param_double(r, p->key, p->dbl);
	case BENCH_PARAM_BOOL:
		return bench_results__param_bool(r, p->key, p->b);
	case BENCH_PARAM_STRV:
		return bench_results__param_strv(r, p->key, p->strv,
						 p->nr_strv);
	}
	return -EINVAL;
}

static bool said_skip(const struct bench_results *r, const char *why)
{
	size_t i;

	for (i = 0; i < r->nr_skipped; i++)
		if (!strcmp(r->skipped[i], why))
			return true;
	return false;
}

/* src's skipped parts dst has not said yet, into dst's. */
static int take_skipped(struct bench_results *dst,
			const struct bench_results *src)
{
	size_t i;

	for (i = 0; i < src->nr_skipped; i++)
		if (!said_skip(dst, src->skipped[i]) &&
		    bench_results__skip(dst, src->skipped[i]))
			return -ENOMEM;
	return 0;
}

int bench_results__take_reps(struct bench_results *dst,
			     struct bench_results *src)
{
	struct bench_provenance prov;
	size_t i;
	int err;

	if (!dst || !src || strcmp(dst->scenario, src->scenario) ||
	    src->recorded || !src->has_prov)
		return -EINVAL;
	if (grow_array((void **)&dst->reps, &dst->cap_reps,
		       dst->nr_reps + src->nr_reps, sizeof(*dst->reps)))
		return -ENOMEM;
	if (!dst->has_prov) {
		for (i = 0; i < src->nr_params; i++) {
			err = param_copy(dst, &src->params[i]);
			if (err)
				return err;
		}
		err = prov_copy(&prov, &src->prov);
		if (err)
			return err;
		dst->prov = prov;
		dst->has_prov = true;
	} else {
		dst->prov.finished = src->prov.finished;
		dst->prov.after = src->prov.after;
	}
	if (take_skipped(dst, src))
		return -ENOMEM;
	/* The metrics' memory changes hands: nothing to copy or fail. */
	if (src->nr_reps)
		memcpy(dst->reps + dst->nr_reps, src->reps,
		       src->nr_reps * sizeof(*src->reps));
	dst->nr_reps += src->nr_reps;
	src->nr_reps = 0;
	dst->in_recorded = false;
	return 0;
}

int bench_results__take_pass(struct bench_results *dst,
			     struct bench_results *src)
{
	size_t j;

	if (!dst || !src || strcmp(dst->scenario, src->scenario) ||
	    !dst->has_prov || src->nr_reps)
		return -EINVAL;
	if (take_skipped(dst, src))
		return -ENOMEM;
	if (src->recorded) {
		if (dst->recorded) {
			for (j = 0; j < dst->recorded->nr; j++)
				metric_clear(&dst->recorded->m[j]);
			free(dst->recorded->m);
			free(dst->recorded);
		}
		dst->recorded = src->recorded;
		src->recorded = NULL;
	}
	if (src->recording) {
		free(dst->recording);
		dst->recording = src->recording;
		src->recording = NULL;
	}
	if (src->bd) {
		free(dst->bd);
		dst->bd = src->bd;
		src->bd = NULL;
	}
	src->in_recorded = dst->in_recorded = false;
	return 0;
}

/* --- JSON ------------------------------------------------------------ */

static void iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "1970-01-01T00:00:00Z");
}

static void write_count(struct json_writer *jw, const char *key, int64_t v)
{
	if (v < 0)
		json__string(jw, key, NULL);
	else
		json__i64(jw, key, v);
}

static void write_counts(struct json_writer *jw, const char *key,
			 const struct bench_cgroup_counts *c)
{
	json__object_begin(jw, key);
	write_count(jw, "v2_live", c->v2_live);
	write_count(jw, "v2_dying", c->v2_dying);
	write_count(jw, "v1_memory", c->v1_memory);
	json__object_end(jw);
}

static void write_strv(struct json_writer *jw, const char *key,
		       const char *const *v, size_t n)
{
	size_t i;

	json__array_begin(jw, key);
	for (i = 0; i < n; i++)
		json__string(jw, NULL, v[i]);
	json__array_end(jw);
}

static void write_param(struct json_writer *jw, const struct bench_param *p)
{
	switch (p->type) {
	case BENCH_PARAM_STR:
		json__string(jw, p->key, p->str);
		break;
	case BENCH_PARAM_U64:
		json__u64(jw, p->key, p->u64);
		break;
	case BENCH_PARAM_DOUBLE:
		json__double(jw, p->key, p->dbl);
		break;
	case BENCH_PARAM_BOOL:
		json__bool(jw, p->key, p->b);
		break;
	case BENCH_PARAM_STRV:
		write_strv(jw, p->key, p->strv, p->nr_strv);
		break;
	}
}

static void write_prov(struct json_writer *jw, const struct bench_provenance *p)
{
	const struct json_field machine[] = {
		JSON_STR("hostname", p->hostname),
		JSON_STR("kernel", p->kernel),
		JSON_STR("kernel_version", p->kernel_version),
		JSON_STR("arch", p->arch),
		JSON_U64("cpus", p->cpus),
		JSON_STR("cgroup_layout", p->cgroup_layout),
	};
	char t[32];

	json__object_begin(jw, "provenance");
	json__fields(jw, machine, ARRAY_SIZE(machine));
	write_strv(jw, "v2_controllers", p->v2_controllers,
		   p->nr_v2_controllers);
	write_strv(jw, "v1_controllers", p->v1_controllers,
		   p->nr_v1_controllers);
	write_counts(jw, "cgroups_before", &p->before);
	write_counts(jw, "cgroups_after", &p->after);
	iso_time(p->started, t, sizeof(t));
	json__string(jw, "started", t);
	iso_time(p->finished, t, sizeof(t));
	json__string(jw, "finished", t);
	json__string(jw, "command_line", p->command_line);
	if (p->has_load) {
		json__object_begin(jw, "load");
		json__double(jw, "loadavg_before", p->loadavg_before);
		json__double(jw, "loadavg_after", p->loadavg_after);
		json__double(jw, "steal_s", p->steal_s);
		json__object_end(jw);
	}
}

static void write_vm_clock(struct json_writer *jw,
			   const struct bench_vm_clock *c)
{
	json__object_begin(jw, "vm_clock");
	json__string(jw, "clock", c->icount ? "icount" : "real");
	json__double(jw, "guest_s", c->guest_s);
	json__double(jw, "host_s", c->host_s);
	json__double(jw, "drift", c->drift);	/* NAN: null */
	json__string(jw, "clocksource", c->clocksource);
	json__bool(jw, "ok", c->ok);
	json__object_end(jw);
}

int bench_results__set_vm_clock(struct bench_results *r,
				const struct bench_vm_clock *c)
{
	if (!r->has_prov)
		return -EINVAL;
	r->vm_clock = *c;
	r->has_vm_clock = true;
	return 0;
}

const struct bench_vm_clock *
bench_results__vm_clock(const struct bench_results *r)
{
	return r->has_vm_clock ? &r->vm_clock : NULL;
}

static void write_metric(struct json_writer *jw, const struct bench_metric *m)
{
	size_t i;

	json__object_begin(jw, NULL);
	json__string(jw, "name", m->name);
	json__string(jw, "kind", m->is_hist ? "hist" : "value");
	json__string(jw, "unit", m->unit);
	json__string(jw, "better", m->no_better ? "none" :
		     m->lower_is_better ? "lower" : "higher");
	json__string(jw, "file", m->file);
	if (!m->is_hist) {
		json__double(jw, "value", m->value);
		json__object_end(jw);
		return;
	}
	json__u64(jw, "count", m->count);
	json__u64(jw, "min", m->min);
	json__u64(jw, "p50", m->p50);
	json__u64(jw, "p90", m->p90);
	json__u64(jw, "p99", m->p99);
	json__u64(jw, "max", m->max);
	json__double(jw, "mean", m->mean);
	json__double(jw, "stddev", m->stddev);
	json__array_begin(jw, "hist");
	for (i = 0; i < m->nr_buckets; i++) {
		json__object_begin(jw, NULL);
		json__u64(jw, "low", m->buckets[i].low);
		json__u64(jw, "high", m->buckets[i].high);
		json__u64(jw, "count", m->buckets[i].count);
		json__object_end(jw);
	}
	json__array_end(jw);
	json__array_begin(jw, "samples");
	for (i = 0; i < m->nr_samples; i++)
		json__u64(jw, NULL, m->samples[i]);
	json__array_end(jw);
	json__object_end(jw);
}

int bench_results__write(struct bench_results *r, FILE *out)
{
	struct json_writer *jw;
	size_t i, j;

	if (!r->nr_reps)
		return -EINVAL;
	jw = json_writer__new(out);
	if (!jw)
		return -ENOMEM;
	json__object_begin(jw, NULL);
	json__string(jw, "schema", BENCH_RESULTS_SCHEMA);
	json__string(jw, "scenario", r->scenario);
	json__string(jw, "tool_version", r->tool_version);
	json__object_begin(jw, "params");
	for (i = 0; i < r->nr_params; i++)
		write_param(jw, &r->params[i]);
	json__object_end(jw);
	if (r->has_prov) {
		write_prov(jw, &r->prov);
		if (r->has_vm_clock)
			write_vm_clock(jw, &r->vm_clock);
		json__object_end(jw);
	} else
		json__string(jw, "provenance", NULL);
	write_strv(jw, "skipped", (const char *const *)r->skipped,
		   r->nr_skipped);
	json__array_begin(jw, "repetitions");
	for (i = 0; i < r->nr_reps; i++) {
		json__object_begin(jw, NULL);
		json__u64(jw, "index", i);
		json__object_begin(jw, "time");
		json__double(jw, "real_s", r->reps[i].t.real_s);
		json__double(jw, "user_s", r->reps[i].t.user_s);
		json__double(jw, "sys_s", r->reps[i].t.sys_s);
		json__object_end(jw);
		json__array_begin(jw, "metrics");
		for (j = 0; j < r->reps[i].nr; j++)
			write_metric(jw, &r->reps[i].m[j].pub);
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
	if (r->recording) {
		json__object_begin(jw, "recording");
		json__string(jw, "file", r->recording);
		if (r->recorded) {
			json__object_begin(jw, "pass");
			json__object_begin(jw, "time");
			json__double(jw, "real_s", r->recorded->t.real_s);
			json__double(jw, "user_s", r->recorded->t.user_s);
			json__double(jw, "sys_s", r->recorded->t.sys_s);
			json__object_end(jw);
			json__array_begin(jw, "metrics");
			for (j = 0; j < r->recorded->nr; j++)
				write_metric(jw, &r->recorded->m[j].pub);
			json__array_end(jw);
			json__object_end(jw);
		}
		json__object_end(jw);
	} else {
		json__string(jw, "recording", NULL);
	}
	if (r->bd)
		bench_breakdown__write_json(r->bd, jw);
	json__object_end(jw);
	json_writer__delete(jw);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

int bench_results__save_at(struct bench_results *r, int dirfd,
			   const char *name, const char *shown)
{
	struct outfile *out;
	int err;

	err = outfile__open_at(&out, dirfd, name, shown, OUTFILE_ROTATE, 0666);
	if (err)
		return err;
	err = bench_results__write(r, outfile__stream(out));
	if (err) {
		/* The stream's own error says why (ENOSPC, not EIO). */
		if (outfile__errno(out))
			err = outfile__errno(out);
		outfile__abort(out);
		return err;
	}
	return outfile__commit(out);
}

/* --- accessors ------------------------------------------------------- */

static const struct metric *rep_find(const struct rep *rep, const char *name,
				     const char *file)
{
	size_t i;

	for (i = 0; i < rep->nr; i++)
		if (!strcmp(rep->m[i].pub.name, name) &&
		    same_file(rep->m[i].pub.file, file))
			return &rep->m[i];
	return NULL;
}

int bench_results__set_breakdown(struct bench_results *r,
				 const struct bench_breakdown *bd)
{
	struct bench_breakdown *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	*c = *bd;
	free(r->bd);
	r->bd = c;
	return 0;
}

const struct bench_breakdown *
bench_results__breakdown(const struct bench_results *r)
{
	return r->bd;
}

const char *bench_results__scenario(const struct bench_results *r)
{
	return r->scenario;
}

const char *bench_results__tool_version(const struct bench_results *r)
{
	return r->tool_version;
}

const struct bench_provenance *
bench_results__get_provenance(const struct bench_results *r)
{
	return r->has_prov ? &r->prov : NULL;
}

size_t bench_results__nr_skipped(const struct bench_results *r)
{
	return r->nr_skipped;
}

const char *bench_results__skipped(const struct bench_results *r, size_t i)
{
	return i < r->nr_skipped ? r->skipped[i] : NULL;
}

const char *bench_results__recording(const struct bench_results *r)
{
	return r->recording;
}

size_t bench_results__nr_params(const struct bench_results *r)
{
	return r->nr_params;
}

const struct bench_param *bench_results__param(const struct bench_results *r,
					       size_t i)
{
	return i < r->nr_params ? &r->params[i] : NULL;
}

const struct bench_param *
bench_results__param_find(const struct bench_results *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nr_params; i++)
		if (!strcmp(r->params[i].key, key))
			return &r->params[i];
	return NULL;
}

int bench_param__format(const struct bench_param *p, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	switch (p->type) {
	case BENCH_PARAM_STR:
		return snprintf(buf, len, "%s", p->str);
	case BENCH_PARAM_U64:
		return snprintf(buf, len, "%" PRIu64, p->u64);
	case BENCH_PARAM_DOUBLE:
		return snprintf(buf, len, "%.10g", p->dbl);
	case BENCH_PARAM_BOOL:
		return snprintf(buf, len, "%s", p->b ? "true" : "false");
	case BENCH_PARAM_STRV:
		if (len)
			buf[0] = '\0';
		for (i = 0; i < p->nr_strv; i++) {
			n = snprintf(buf + (used < len ? used : len),
				     used < len ? len - used : 0, "%s%s",
				     i ? "," : "", p->strv[i]);
			if (n < 0)
				return n;
			used += (size_t)n;
		}
		return (int)used;
	}
	return -EINVAL;
}

size_t bench_results__nr_reps(const struct bench_results *r)
{
	return r->nr_reps;
}

const struct bench_rep_time *
bench_results__rep_time(const struct bench_results *r, size_t rep)
{
	return rep < r->nr_reps ? &r->reps[rep].t : NULL;
}

size_t bench_results__nr_metrics(const struct bench_results *r, size_t rep)
{
	return rep < r->nr_reps ? r->reps[rep].nr : 0;
}

const struct bench_metric *
bench_results__metric(const struct bench_results *r, size_t rep, size_t i)
{
	if (rep >= r->nr_reps || i >= r->reps[rep].nr)
		return NULL;
	return &r->reps[rep].m[i].pub;
}

const struct bench_metric *
bench_results__metric_find(const struct bench_results *r, size_t rep,
			   const char *name, const char *file)
{
	const struct metric *m;

	if (rep >= r->nr_reps)
		return NULL;
	m = rep_find(&r->reps[rep], name, file);
	return m ? &m->pub : NULL;
}

const struct bench_rep_time *
bench_results__recorded_time(const struct bench_results *r)
{
	return r->recorded ? &r->recorded->t : NULL;
}

const struct bench_metric *
bench_results__recorded_metric_find(const struct bench_results *r,
				    const char *name, const char *file)
{
	const struct metric *m;

	if (!r->recorded)
		return NULL;
	m = rep_find(r->recorded, name, file);
	return m ? &m->pub : NULL;
}

size_t bench_results__nr_recorded_metrics(const struct bench_results *r)
{
	return r->recorded ? r->recorded->nr : 0;
}

const struct bench_metric *
bench_results__recorded_metric(const struct bench_results *r, size_t i)
{
	if (!r->recorded || i >= r->recorded->nr)
		return NULL;
	return &r->recorded->m[i].pub;
}

const uint64_t *bench_metric__values(const struct bench_metric *m, size_t *n)
{
	const struct metric *mm = (const struct metric *)m;

	*n = mm->all ? mm->nr_all : m->nr_samples;
	return mm->all ? mm->all : m->samples;
}

/* --- reading: a strict JSON parser ----------------------------------- */

/* --- reading: from the JSON tree to the results ---------------------- */

struct reader {
	const char *name;
	char *err;
	size_t errlen;
};

static int bad(struct reader *rd, const struct jv *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct reader *rd, const struct jv *n, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rd->errlen)
		snprintf(rd->err, rd->errlen, "%s: line %u: %s", rd->name,
			 jv__line(n), msg);
	return -EINVAL;
}

/*
 * obj must be an object with exactly the members named in keys (NULL
 * terminated); those after the first NULL-terminated list in opt are
 * optional.
 */
static int check_object(struct reader *rd, const struct jv *obj,
			const char *what, const char *const *keys,
			const char *const *opt)
{
	const char *const *k;
	uint32_t i;
	bool known;

	if (jv__type(obj) != J_OBJ)
		return bad(rd, obj, "%s: expected an object", what);
	for (i = 0; i < jv__len(obj); i++) {
		known = false;
		for (k = keys; *k && !known; k++)
			known = !strcmp(*k, jv__key(obj, i));
		for (k = opt; k && *k && !known; k++)
			known = !strcmp(*k, jv__key(obj, i));
		if (!known)
			return bad(rd, jv__at(obj, i),
				   "%s: unknown member \"%s\"", what,
				   jv__key(obj, i));
	}
	for (k = keys; *k; k++)
		if (!jv__get(obj, *k))
			return bad(rd, obj, "%s: missing \"%s\"", what, *k);
	return 0;
}

static int get_str(struct reader *rd, const struct jv *obj,
		   const char *key, bool nullable, char **out)
{
	const struct jv *n = jv__get(obj, key);

	*out = NULL;
	if (nullable && jv__type(n) == J_NULL)
		return 0;
	if (jv__type(n) != J_STR)
		return bad(rd, n, "\"%s\": expected a string%s", key,
			   nullable ? " or null" : "");
	*out = strdup(jv__string(n));
	return *out ? 0 : -ENOMEM;
}

static int get_u64(struct reader *rd, const struct jv *obj,
		   const char *key, uint64_t *out)
{
	const struct jv *n = jv__get(obj, key);

	if (!jv__is_u64(n))
		return bad(rd, n, "\"%s\": expected a non-negative integer",
			   key);
	*out = jv__u64(n);
	return 0;
}

static int get_double(struct reader *rd, const struct jv *obj,
		      const char *key, bool nonneg, double *out)
{
	const struct jv *n = jv__get(obj, key);

	if (jv__type(n) != J_NUM || (nonneg && jv__num(n) < 0))
		return bad(rd, n, "\"%s\": expected a %snumber", key,
			   nonneg ? "non-negative " : "");
	*out = jv__num(n);
	return 0;
}

static int get_strv(struct reader *rd, const struct jv *n,
		    const char *key, const char *const **out, size_t *nr)
{
	char **v;
	uint32_t i;

	if (jv__type(n) != J_ARR)
		return bad(rd, n, "\"%s\": expected an array of strings", key);
	for (i = 0; i < jv__len(n); i++)
		if (jv__type(jv__at(n, i)) != J_STR)
			return bad(rd, jv__at(n, i),
				   "\"%s\": expected an array of strings", key);
	v = calloc(jv__len(n) ? jv__len(n) : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < jv__len(n); i++) {
		v[i] = strdup(jv__string(jv__at(n, i)));
		if (!v[i]) {
			strv_free((const char *const *)v, i);
			return -ENOMEM;
		}
	}
	*out = (const char *const *)v;
	*nr = jv__len(n);
	return 0;
}

static int read_params(struct reader *rd, struct bench_results *r,
		       const struct jv *obj)
{
	const struct jv *n;
	const char *const *v;
	const char *key;
	uint32_t i;
	size_t nr;
	int err;

	if (jv__type(obj) != J_OBJ)
		return bad(rd, obj, "\"params\": expected an object");
	for (i = 0; i < jv__len(obj); i++) {
		n = jv__at(obj, i);
		key = jv__key(obj, i);
		switch (jv__type(n)) {
		case J_STR:
			err = bench_results__param_str(r, key, jv__string(n));
			break;
		case J_NUM:
			err = jv__is_u64(n) ?
			      bench_results__param_u64(r, key, jv__u64(n)) :
			      bench_results__param_double(r, key, jv__num(n));
			break;
		case J_BOOL:
			err = bench_results__param_bool(r, key, jv__bool(n));
			break;
		case J_ARR:
			err = get_strv(rd, n, key, &v, &nr);
			if (err)
				return err;
			err = bench_results__param_strv(r, key, v, nr);
			strv_free(v, nr);
			break;
		default:
			return bad(rd, n,
				   "param \"%s\": expected a string, number, boolean or array of strings",
				   key);
		}
		if (err)
			return err;
	}
	return 0;
}

static int read_count(struct reader *rd, const struct jv *obj,
		      const char *key, int64_t *out)
{
	const struct jv *n = jv__get(obj, key);

	if (jv__type(n) == J_NULL) {
		*out = -1;
		return 0;
	}
	if (!jv__is_u64(n) || jv__u64(n) > INT64_MAX)
		return bad(rd, n, "\"%s\": expected a count or null", key);
	*out = (int64_t)jv__u64(n);
	return 0;
}

static int read_counts(struct reader *rd, const struct jv *obj,
		       const char *key, struct bench_cgroup_counts *c)
{
	static const char *const keys[] = {
		"v2_live", "v2_dying", "v1_memory", NULL
	};
	const struct jv *n = jv__get(obj, key);
	int err;

	err = check_object(rd, n, key, keys, NULL);
	if (!err)
		err = read_count(rd, n, "v2_live", &c->v2_live);
	if (!err)
		err = read_count(rd, n, "v2_dying", &c->v2_dying);
	if (!err)
		err = read_count(rd, n, "v1_memory", &c->v1_memory);
	return err;
}

/* "2026-11-30T20:00:00Z", exactly as written. */
static int read_time(struct reader *rd, const struct jv *obj,
		     const char *key, time_t *out)
{
	const struct jv *n = jv__get(obj, key);
	struct tm tm = { 0 };
	int y, mo, d, h, mi, s, len = 0;

	if (jv__type(n) != J_STR ||
	    sscanf(jv__string(n), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d,
		   &h, &mi, &s, &len) != 6 || len != 20 ||
	    strlen(jv__string(n)) != 20 ||
	    y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || s > 60 || h < 0 || mi < 0 || s < 0)
		return bad(rd, n,
			   "\"%s\": expected a UTC time as YYYY-MM-DDTHH:MM:SSZ",
			   key);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	*out = timegm(&tm);
	return 0;
}

static int read_vm_clock(struct reader *rd, const struct jv *n,
			 struct bench_vm_clock *c)
{
	static const char *const keys[] = {
		"clock", "guest_s", "host_s", "drift", "clocksource", "ok", NULL
	};
	const struct jv *v;
	char *s = NULL;
	int err;

	err = check_object(rd, n, "vm_clock", keys, NULL);
	if (err)
		return err;
	err = get_str(rd, n, "clock", false, &s);
	if (err)
		return err;
	c->icount = !strcmp(s, "icount");
	if (!c->icount && strcmp(s, "real")) {
		free(s);
		return bad(rd, jv__get(n, "clock"),
			   "\"clock\": expected real or icount");
	}
	free(s);
	err = get_str(rd, n, "clocksource", false, &s);
	if (err)
		return err;
	snprintf(c->clocksource, sizeof(c->clocksource), "%s", s);
	free(s);
	if ((err = get_double(rd, n, "guest_s", true, &c->guest_s)) ||
	    (err = get_double(rd, n, "host_s", true, &c->host_s)))
		return err;
	v = jv__get(n, "drift");
	if (jv__type(v) == J_NULL)
		c->drift = NAN;
	else if ((err = get_double(rd, n, "drift", false, &c->drift)))
		return err;
	v = jv__get(n, "ok");
	if (jv__type(v) != J_BOOL)
		return bad(rd, v, "\"ok\": expected true or false");
	c->ok = jv__bool(v);
	return 0;
}

static int read_prov(struct reader *rd, struct bench_results *r,
		     const struct jv *n)
{
	static const char *const keys[] = {
		"hostname", "kernel", "kernel_version", "arch", "cpus",
		"cgroup_layout", "v2_controllers", "v1_controllers",
		"cgroups_before", "cgroups_after", "started", "finished",
		"command_line", NULL
	};
	static const char *const opt[] = { "vm_clock", "load", NULL };
	struct bench_provenance *p = &r->prov;
	uint64_t cpus = 0;
	int err;

	if (jv__type(n) == J_NULL)
		return 0;
	err = check_object(rd, n, "provenance", keys, opt);
	if (err)
		return err;
	r->has_prov = true;
	if (jv__get(n, "load")) {
		static const char *const lkeys[] = {
			"loadavg_before", "loadavg_after", "steal_s", NULL
		};
		const struct jv *l = jv__get(n, "load");

		if ((err = check_object(rd, l, "load", lkeys, NULL)) ||
		    (err = get_double(rd, l, "loadavg_before", true,
				      &p->loadavg_before)) ||
		    (err = get_double(rd, l, "loadavg_after", true,
				      &p->loadavg_after)) ||
		    (err = get_double(rd, l, "steal_s", true, &p->steal_s)))
			return err;
		p->has_load = true;
	}
	if (jv__get(n, "vm_clock")) {
		err = read_vm_clock(rd, jv__get(n, "vm_clock"),
				    &r->vm_clock);
		if (err)
			return err;
		r->has_vm_clock = true;
	}
	if ((err = get_str(rd, n, "hostname", false, (char **)&p->hostname)) ||
	    (err = get_str(rd, n, "kernel", false, (char **)&p->kernel)) ||
	    (err = get_str(rd, n, "kernel_version", false,
			   (char **)&p->kernel_version)) ||
	    (err = get_str(rd, n, "arch", false, (char **)&p->arch)) ||
	    (err = get_u64(rd, n, "cpus", &cpus)) ||
	    (err = get_str(rd, n, "cgroup_layout", false,
			   (char **)&p->cgroup_layout)) ||
	    (err = get_strv(rd, jv__get(n, "v2_controllers"), "v2_controllers",
			    &p->v2_controllers, &p->nr_v2_controllers)) ||
	    (err = get_strv(rd, jv__get(n, "v1_controllers"), "v1_controllers",
			    &p->v1_controllers, &p->nr_v1_controllers)) ||
	    (err = read_counts(rd, n, "cgroups_before", &p->before)) ||
	    (err = read_counts(rd, n, "cgroups_after", &p->after)) ||
	    (err = read_time(rd, n, "started", &p->started)) ||
	    (err = read_time(rd, n, "finished", &p->finished)) ||
	    (err = get_str(rd, n, "command_line", false,
			   (char **)&p->command_line)))
		return err;
	if (cpus < 1 || cpus > UINT32_MAX)
		return bad(rd, jv__get(n, "cpus"), "\"cpus\": out of range");
	p->cpus = (unsigned int)cpus;
	if (!layout_ok(p->cgroup_layout))
		return bad(rd, jv__get(n, "cgroup_layout"),
			   "\"cgroup_layout\": expected v2, v1, hybrid or none");
	return 0;
}

/* "none" (a describing figure) reads as lower for compare's arithmetic. */
static int read_better(struct reader *rd, const struct jv *m, bool *lower,
		       bool *none)
{
	const struct jv *n = jv__get(m, "better");

	*none = false;
	if (jv__type(n) == J_STR && !strcmp(jv__string(n), "lower"))
		*lower = true;
	else if (jv__type(n) == J_STR && !strcmp(jv__string(n), "higher"))
		*lower = false;
	else if (jv__type(n) == J_STR && !strcmp(jv__string(n), "none"))
		*lower = *none = true;
	else
		return bad(rd, n,
			   "\"better\": expected \"lower\", \"higher\" or \"none\"");
	return 0;
}

static int read_hist_rows(struct reader *rd, struct bench_metric *p,
			  const struct jv *a)
{
	static const char *const keys[] = { "low", "high", "count", NULL };
	struct hist_bucket *b;
	uint64_t sum = 0;
	uint32_t i;
	int err;

	if (jv__type(a) != J_ARR)
		return bad(rd, a, "\"hist\": expected an array");
	b = calloc(jv__len(a) ? jv__len(a) : 1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	p->buckets = b;
	p->nr_buckets = jv__len(a);
	for (i = 0; i < jv__len(a); i++) {
		err = check_object(rd, jv__at(a, i), "hist row", keys, NULL);
		if (!err)
			err = get_u64(rd, jv__at(a, i), "low", &b[i].low);
		if (!err)
			err = get_u64(rd, jv__at(a, i), "high", &b[i].high);
		if (!err)
			err = get_u64(rd, jv__at(a, i), "count", &b[i].count);
		if (err)
			return err;
		if (b[i].low > b[i].high ||
		    (i && b[i].low <= b[i - 1].high))
			return bad(rd, jv__at(a, i),
				   "hist row: bounds out of order");
		if (b[i].count > p->count - sum)
			return bad(rd, jv__at(a, i),
				   "hist: more values than \"count\"");
		sum += b[i].count;
	}
	if (sum != p->count)
		return bad(rd, a, "hist: %" PRIu64 " values, \"count\" is %"
			   PRIu64, sum, p->count);
	return 0;
}

static int read_samples(struct reader *rd, struct bench_metric *p,
			const struct jv *a)
{
	uint64_t want = p->count < BENCH_RESULTS_MAX_SAMPLES ?
			p->count : BENCH_RESULTS_MAX_SAMPLES;
	uint64_t *s;
	uint32_t i;

	if (jv__type(a) != J_ARR)
		return bad(rd, a, "\"samples\": expected an array");
	if (jv__len(a) != want)
		return bad(rd, a, "\"samples\": %zu values, expected %" PRIu64,
			   jv__len(a), want);
	s = malloc((jv__len(a) ? jv__len(a) : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	p->samples = s;
	p->nr_samples = jv__len(a);
	for (i = 0; i < jv__len(a); i++) {
		if (!jv__is_u64(jv__at(a, i)))
			return bad(rd, jv__at(a, i),
				   "\"samples\": expected non-negative integers");
		s[i] = jv__u64(jv__at(a, i));
	}
	return 0;
}

static int read_metric(struct reader *rd, struct bench_results *r,
		       const struct jv *m)
{
	static const char *const value_keys[] = {
		"name", "kind", "unit", "better", "file", "value", NULL
	};
	static const char *const hist_keys[] = {
		"name", "kind", "unit", "better", "file", "count", "min",
		"p50", "p90", "p99", "max", "mean", "stddev", "hist",
		"samples", NULL
	};
	const struct jv *kind;
	/* The repetition read last, or the recorded pass. */
	struct rep *rep = r->in_recorded ? r->recorded :
			  &r->reps[r->nr_reps - 1];
	struct bench_metric *p;
	struct metric *x;
	bool hist;
	int err;

	if (jv__type(m) != J_OBJ)
		return bad(rd, m, "metric: expected an object");
	kind = jv__get(m, "kind");
	if (!kind)
		return bad(rd, m, "metric: missing \"kind\"");
	if (jv__type(kind) != J_STR ||
	    (strcmp(jv__string(kind), "hist") &&
	     strcmp(jv__string(kind), "value")))
		return bad(rd, kind,
			   "\"kind\": expected \"hist\" or \"value\"");
	hist = !strcmp(jv__string(kind), "hist");
	err = check_object(rd, m, "metric", hist ? hist_keys : value_keys,
			   NULL);
	if (err)
		return err;
	if (grow_array((void **)&rep->m, &rep->cap, rep->nr + 1,
		       sizeof(*rep->m)))
		return -ENOMEM;
	x = &rep->m[rep->nr++];
	memset(x, 0, sizeof(*x));
	p = &x->pub;
	p->is_hist = hist;
	if ((err = get_str(rd, m, "name", false, (char **)&p->name)) ||
	    (err = get_str(rd, m, "unit", false, (char **)&p->unit)) ||
	    (err = get_str(rd, m, "file", true, (char **)&p->file)) ||
	    (err = read_better(rd, m, &p->lower_is_better, &p->no_better)))
		return err;
	if (rep_find(rep, p->name, p->file) != x)
		return bad(rd, m, "metric \"%s\" appears twice", p->name);
	if (!hist) {
		err = get_double(rd, m, "value", false, &p->value);
		return err;
	}
	if ((err = get_u64(rd, m, "count", &p->count)) ||
	    (err = get_u64(rd, m, "min", &p->min)) ||
	    (err = get_u64(rd, m, "p50", &p->p50)) ||
	    (err = get_u64(rd, m, "p90", &p->p90)) ||
	    (err = get_u64(rd, m, "p99", &p->p99)) ||
	    (err = get_u64(rd, m, "max", &p->max)) ||
	    (err = get_double(rd, m, "mean", true, &p->mean)) ||
	    (err = get_double(rd, m, "stddev", true, &p->stddev)))
		return err;
	if (p->min > p->p50 || p->p50 > p->p90 || p->p90 > p->p99 ||
	    p->p99 > p->max)
		return bad(rd, m,
			   "metric \"%s\": min <= p50 <= p90 <= p99 <= max does not hold",
			   p->name);
	err = read_hist_rows(rd, p, jv__get(m, "hist"));
	if (!err)
		err = read_samples(rd, p, jv__get(m, "samples"));
	return err;
}

/*
 * A repetition's "time" and "metrics" in n: a repetition of the results,
 * or (recorded) the recorded pass.
 */
static int read_pass(struct reader *rd, struct bench_results *r,
		     const struct jv *n, bool recorded)
{
	static const char *const tkeys[] = {
		"real_s", "user_s", "sys_s", NULL
	};
	const struct jv *t, *ms;
	double real = 0, user = 0, sys = 0;
	uint32_t i;
	int err;

	t = jv__get(n, "time");
	if ((err = check_object(rd, t, "time", tkeys, NULL)) ||
	    (err = get_double(rd, t, "real_s", true, &real)) ||
	    (err = get_double(rd, t, "user_s", true, &user)) ||
	    (err = get_double(rd, t, "sys_s", true, &sys)))
		return err;
	err = recorded ? bench_results__recorded_begin(r, real, user, sys) :
	      bench_results__rep_begin(r, real, user, sys);
	if (err)
		return err;
	ms = jv__get(n, "metrics");
	if (jv__type(ms) != J_ARR)
		return bad(rd, ms, "\"metrics\": expected an array");
	for (i = 0; i < jv__len(ms); i++) {
		err = read_metric(rd, r, jv__at(ms, i));
		if (err)
			return err;
	}
	return 0;
}

static int read_rep(struct reader *rd, struct bench_results *r,
		    const struct jv *n)
{
	static const char *const keys[] = { "index", "time", "metrics", NULL };
	uint64_t index = 0;
	int err;

	err = check_object(rd, n, "repetition", keys, NULL);
	if (err)
		return err;
	err = get_u64(rd, n, "index", &index);
	if (err)
		return err;
	if (index != r->nr_reps)
		return bad(rd, jv__get(n, "index"),
			   "\"index\": %" PRIu64 ", expected %zu", index,
			   r->nr_reps);
	return read_pass(rd, r, n, false);
}

static int read_top(struct reader *rd, struct bench_results *r,
		    const struct jv *top)
{
	static const char *const keys[] = {
		"schema", "scenario", "tool_version", "params", "provenance",
		"skipped", "repetitions", "recording", NULL
	};
	static const char *const topt[] = { "breakdown", NULL };
	static const char *const rkeys[] = { "file", NULL };
	static const char *const ropt[] = { "pass", NULL };
	static const char *const pkeys[] = { "time", "metrics", NULL };
	const struct jv *p;
	bool v1, v4;
	const struct jv *n, *reps;
	const char *const *v;
	size_t nr, i;
	int err;

	/* The version first: another one is not a list of odd members. */
	if (jv__type(top) != J_OBJ)
		return bad(rd, top, "results: expected an object");
	n = jv__get(top, "schema");
	v1 = jv__type(n) == J_STR &&
	     !strcmp(jv__string(n), BENCH_RESULTS_SCHEMA_V1);
	if (jv__type(n) != J_STR ||
	    (!v1 && strcmp(jv__string(n), BENCH_RESULTS_SCHEMA) &&
	     strcmp(jv__string(n), BENCH_RESULTS_SCHEMA_V3) &&
	     strcmp(jv__string(n), BENCH_RESULTS_SCHEMA_V2)))
		return bad(rd, n ? n : top,
			   "\"schema\": expected \"%s\" (or \"%s\", \"%s\", \"%s\")",
			   BENCH_RESULTS_SCHEMA, BENCH_RESULTS_SCHEMA_V3,
			   BENCH_RESULTS_SCHEMA_V2, BENCH_RESULTS_SCHEMA_V1);
	v4 = !strcmp(jv__string(n), BENCH_RESULTS_SCHEMA);
	err = check_object(rd, top, "results", keys, topt);
	if (err)
		return err;
	free(r->scenario);
	free(r->tool_version);
	r->tool_version = NULL;
	if ((err = get_str(rd, top, "scenario", false, &r->scenario)) ||
	    (err = get_str(rd, top, "tool_version", false, &r->tool_version)))
		return err;
	err = read_params(rd, r, jv__get(top, "params"));
	if (!err)
		err = read_prov(rd, r, jv__get(top, "provenance"));
	if (err)
		return err;
	err = get_strv(rd, jv__get(top, "skipped"), "skipped", &v, &nr);
	if (err)
		return err;
	for (i = 0; i < nr && !err; i++)
		err = bench_results__skip(r, v[i]);
	strv_free(v, nr);
	if (err)
		return err;
	reps = jv__get(top, "repetitions");
	if (jv__type(reps) != J_ARR || !jv__len(reps))
		return bad(rd, reps,
			   "\"repetitions\": expected a non-empty array");
	for (i = 0; i < jv__len(reps); i++) {
		err = read_rep(rd, r, jv__at(reps, i));
		if (err)
			return err;
	}
	n = jv__get(top, "breakdown");
	if (n && !v4)
		return bad(rd, n, "\"breakdown\": came with %s",
			   BENCH_RESULTS_SCHEMA);
	if (n) {
		struct bench_breakdown *bd = calloc(1, sizeof(*bd));
		char why[256];

		if (!bd)
			return -ENOMEM;
		err = bench_breakdown__read_json(bd, n, why, sizeof(why));
		if (err) {
			free(bd);
			return bad(rd, n, "%s", why);
		}
		free(r->bd);
		r->bd = bd;
	}
	n = jv__get(top, "recording");
	if (jv__type(n) == J_NULL)
		return 0;
	/* The recorded pass came with /2. */
	err = check_object(rd, n, "recording", rkeys, v1 ? NULL : ropt);
	if (!err)
		err = get_str(rd, n, "file", false, &r->recording);
	p = err ? NULL : jv__get(n, "pass");
	if (!p)
		return err;
	/* The recorded pass: a repetition's time and metrics, no index. */
	err = check_object(rd, p, "pass", pkeys, NULL);
	return err ? err : read_pass(rd, r, p, true);
}

/* No results file is larger (bench_results__read() stops past it). */
#define RESULTS_MAX_SIZE	(64u << 20)

int bench_results__read_json(struct bench_results **out, const struct jv *doc,
			     const char *name, char *errbuf, size_t errlen)
{
	struct reader rd = { name ? name : "(input)", errbuf, errlen };
	struct bench_results *r;
	int err;

	*out = NULL;
	if (errlen)
		errbuf[0] = '\0';
	r = bench_results__new("");
	if (!r)
		return -ENOMEM;
	err = read_top(&rd, r, doc);
	if (err) {
		bench_results__delete(r);
		return err;
	}
	*out = r;
	return 0;
}

int bench_results__read_mem(struct bench_results **out, const char *buf,
			    size_t len, const char *name, char *errbuf,
			    size_t errlen)
{
	struct jv top;
	char msg[200];
	int err;

	*out = NULL;
	if (errlen)
		errbuf[0] = '\0';
	name = name ? name : "(input)";
	if (len > RESULTS_MAX_SIZE) {
		errbuf_set(errbuf, errlen, "%s: line 1: larger than %u bytes",
			   name, RESULTS_MAX_SIZE);
		return -EINVAL;
	}
	err = jv__parse(buf, len, &top, msg, sizeof(msg));
	if (err == -EINVAL)
		errbuf_set(errbuf, errlen, "%s: %s", name, msg);
	if (err)
		return err;
	err = bench_results__read_json(out, &top, name, errbuf, errlen);
	jv__free(&top);
	return err;
}

int bench_results__read(struct bench_results **out, const char *path,
			char *errbuf, size_t errlen)
{
	size_t n = 0, cap = 0;
	char *buf = NULL;
	size_t k;
	FILE *f;
	int err;

	*out = NULL;
	if (errlen)
		errbuf[0] = '\0';
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(-err));
		return err;
	}
	/* Up to one byte past the limit: enough to tell it was exceeded. */
	do {
		if (n == cap && grow_array((void **)&buf, &cap, n + 65536, 1)) {
			free(buf);
			fclose(f);
			return -ENOMEM;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k && n <= RESULTS_MAX_SIZE);
	if (ferror(f)) {
		err = -EIO;
		snprintf(errbuf, errlen, "%s: read error", path);
	} else {
		err = bench_results__read_mem(out, buf ? buf : "", n, path,
					      errbuf, errlen);
	}
	free(buf);
	fclose(f);
	return err;
}
