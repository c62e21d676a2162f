// SPDX-License-Identifier: GPL-2.0
/*
 * compare's inputs read and pooled per side (include/compare.h): bench
 * results' metrics with Welch's t-test and ministat's verdict against the
 * first side, or report --json profiles' shares and span histograms.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "compare.h"
#include "hist.h"
#include "json-input.h"
#include "profile.h"
#include "stats.h"
#include "util.h"

/* --- inputs --------------------------------------------------------------- */

enum input_kind { IN_BENCH, IN_PROFILE };

struct compare_input {
	char *path;		/* the file read (DIR/results.json for a DIR) */
	size_t side;
	enum input_kind kind;
	struct bench_results *res;
	struct profile *prof;
};

/*
 * Read and tell apart one input, as plot does (json-input.c): bench
 * results (a file, or the directory bench -o wrote) or a report --json
 * profile; bench_results__read_json() says precisely what is wrong with
 * bench results.
 */
static int load_input(struct compare_input *in, const char *arg, char *err,
		      size_t errlen)
{
	struct json_input ji;
	int ret;

	ret = json_input__load(&ji, arg, 0, err, errlen);
	if (ret)
		return ret;
	/* Messages name the file read: DIR/results.json for a DIR. */
	in->path = ji.path;
	ji.path = NULL;
	if (ji.kind == JSON_INPUT_PROFILE) {
		in->kind = IN_PROFILE;
		ret = profile__from_json(&in->prof, &ji.doc);
		json_input__release(&ji);
		return ret;
	}
	in->kind = IN_BENCH;
	ret = bench_results__read_json(&in->res, &ji.doc, in->path, err,
				       errlen);
	json_input__release(&ji);
	if (ret && ret != -ENOMEM && !err[0])
		errbuf_set(err, errlen, "%s", in->path);
	return ret;
}

/*
 * A note for the command to print; one lost for want of memory is not
 * worth failing the comparison for.
 */
static void add_line(char ***v, size_t *nr, const char *fmt, va_list ap)
{
	char **nv;

	nv = realloc(*v, (*nr + 1) * sizeof(*nv));
	if (!nv)
		return;
	*v = nv;
	if (vasprintf(&nv[*nr], fmt, ap) >= 0)
		(*nr)++;
}

static void note(struct compare *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct compare *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&c->notes, &c->nr_notes, fmt, ap);
	va_end(ap);
}

static void warn(struct compare *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(struct compare *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&c->warnings, &c->nr_warnings, fmt, ap);
	va_end(ap);
}

/* --- bench results -------------------------------------------------------- */

struct dvec {
	double *v;
	size_t n, cap;
};

static int dvec_push(struct dvec *d, double x)
{
	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 256;
		double *nv = realloc(d->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		d->v = nv;
		d->cap = nc;
	}
	d->v[d->n++] = x;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* "read_ns" of cpu.stat -> "cpu.stat-us"; "reads_per_s" -> itself. */
static char *metric_label(const struct bench_metric *m, bool us)
{
	char stem[256];
	size_t len;
	char *l;
	int ret;

	snprintf(stem, sizeof(stem), "%s", m->name);
	len = strlen(stem);
	if (us && len > 3 && !strcmp(stem + len - 3, "_ns"))
		stem[len - 3] = '\0';
	if (us && m->file && !strcmp(stem, "read"))
		ret = asprintf(&l, "%s-us", m->file);
	else if (us)
		ret = asprintf(&l, "%s%s%s-us", m->file ? m->file : "",
			       m->file ? "-" : "", stem);
	else
		ret = asprintf(&l, "%s%s%s", m->file ? m->file : "",
			       m->file ? "-" : "", stem);
	return ret < 0 ? NULL : l;
}

/* The metric's figures on one side: samples pooled, or a value per rep. */
static int pool_side(const struct compare_input *in, size_t nr_in, size_t side,
		     const struct bench_metric *like, bool us,
		     struct dvec *d, bool *mismatch)
{
	size_t i, rep, k;
	int err;

	for (i = 0; i < nr_in; i++) {
		if (in[i].side != side)
			continue;
		for (rep = 0; rep < bench_results__nr_reps(in[i].res); rep++) {
			const struct bench_metric *m =
				bench_results__metric_find(in[i].res, rep,
							   like->name,
							   like->file);

			if (!m)
				continue;
			if (m->is_hist != like->is_hist ||
			    !same_str(m->unit, like->unit) ||
			    m->lower_is_better != like->lower_is_better) {
				*mismatch = true;
				return 0;
			}
			if (!m->is_hist) {
				err = dvec_push(d, m->value);
				if (err)
					return err;
				continue;
			}
			for (k = 0; k < m->nr_samples; k++) {
				err = dvec_push(d, us ? m->samples[k] / 1000.0 :
						(double)m->samples[k]);
				if (err)
					return err;
			}
		}
	}
	return 0;
}

static void shares_free(struct compare_share *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].event);
		free(rows[i].name);
		free(rows[i].share);
	}
	free(rows);
}

static void metric_free(struct compare_metric *m)
{
	free(m->label);
	free(m->sum);
	free(m->welch);
	free(m->ministat);
	free(m->verdict);
}

static void release_breakdowns(struct compare *c);

void compare__release(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nr_metrics; i++)
		metric_free(&c->metrics[i]);
	free(c->metrics);
	free(c->time);
	shares_free(c->categories, c->nr_categories);
	shares_free(c->triggers, c->nr_triggers);
	for (i = 0; i < c->nr_spans; i++) {
		free(c->spans[i].name);
		free(c->spans[i].subsystem);
		free(c->spans[i].side);
	}
	free(c->spans);
	release_breakdowns(c);
	for (i = 0; i < c->nr_notes; i++)
		free(c->notes[i]);
	free(c->notes);
	for (i = 0; i < c->nr_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	for (i = 0; i < c->nr_inputs; i++) {
		bench_results__delete(c->inputs[i].res);
		profile__delete(c->inputs[i].prof);
		free(c->inputs[i].path);
	}
	free(c->inputs);
}

/* One metric of the base's first file: pool it per side, test it. */
/* Which way a difference goes for this metric: +1 worse, -1 better. */
static int worse_sign(const struct compare_metric *m, double diff)
{
	if (diff == 0)
		return 0;
	return (diff > 0) == m->lower_is_better ? 1 : -1;
}

/*
 * The verdict of side s against the base: see struct compare_verdict.
 * pool[] holds each side's pooled values (reordered here).
 */
static int judge(struct compare_metric *m, struct dvec *pool, size_t s)
{
	struct compare_verdict *v = &m->verdict[s];
	const struct stats_welch *w = &m->welch[s];
	double base;
	int err;

	v->by_median = m->is_hist;
	if (!v->by_median) {
		double dd = stats__detectable_diff(&m->sum[0], &m->sum[s],
						   COMPARE_ALPHA,
						   COMPARE_POWER);

		v->too_few = w->verdict == STATS_WELCH_TOO_FEW;
		v->significant = w->significant;
		v->worse = v->significant ?
			   worse_sign(m, m->sum[s].amean - m->sum[0].amean) :
			   0;
		base = fabs(m->sum[0].amean);
		v->resolution_pct = base > 0 ? dd * 100 / base : NAN;
		return 0;
	}
	err = stats__mann_whitney(pool[0].v, pool[0].n, pool[s].v, pool[s].n,
				  &v->mwu);
	if (!err)
		err = stats__bootstrap_median_diff(pool[0].v, pool[0].n,
						   pool[s].v, pool[s].n,
						   COMPARE_BOOTSTRAP_ITERS,
						   COMPARE_ALPHA,
						   COMPARE_BOOTSTRAP_SEED,
						   &v->diff);
	if (err)
		return err;
	v->median_base = stats__median_inplace(pool[0].v, pool[0].n);
	v->median = stats__median_inplace(pool[s].v, pool[s].n);
	/* One value cannot vary: its interval is a point, proving nothing. */
	v->too_few = pool[0].n < 2 || pool[s].n < 2;
	if (v->too_few) {
		v->resolution_pct = NAN;
		return 0;
	}
	v->significant = v->diff.lo > 0 || v->diff.hi < 0;
	v->worse = v->significant ? worse_sign(m, v->diff.est) : 0;
	base = fabs(v->median_base);
	v->resolution_pct = base > 0 ?
			    (v->diff.hi - v->diff.lo) / 2 * 100 / base : NAN;
	/* Welch on the means, when it had variance to test. */
	v->means = MEANS_AGREE;
	if (w->verdict != STATS_WELCH_SAME &&
	    w->verdict != STATS_WELCH_DIFFERENT)
		return 0;
	if (v->significant && !w->significant)
		v->means = MEANS_SAME;
	else if (!v->significant && w->significant)
		v->means = MEANS_DIFFER;
	else if (v->significant &&
		 (m->sum[s].amean > m->sum[0].amean) != (v->diff.est > 0))
		v->means = MEANS_OPPOSITE;
	return 0;
}

/* One metric of the base's first file: pool it per side, test it. */
static int add_metric(struct compare *c, const struct compare_input *in, size_t nr_in,
		      const struct bench_metric *like)
{
	struct compare_metric *m = &c->metrics[c->nr_metrics];
	bool us = like->is_hist && same_str(like->unit, "ns");
	bool mismatch = false;
	struct dvec *pool;
	size_t s;
	int err = 0;

	memset(m, 0, sizeof(*m));
	m->name = like->name;
	m->file = like->file;
	m->unit = like->unit;
	m->display_unit = us ? "us" : like->unit;
	m->is_hist = like->is_hist;
	m->lower_is_better = like->lower_is_better;
	m->no_better = like->no_better;
	m->label = metric_label(like, us);
	m->sum = calloc(c->nr_sides, sizeof(*m->sum));
	m->welch = calloc(c->nr_sides, sizeof(*m->welch));
	m->ministat = calloc(c->nr_sides, sizeof(*m->ministat));
	m->verdict = calloc(c->nr_sides, sizeof(*m->verdict));
	pool = calloc(c->nr_sides, sizeof(*pool));
	if (!m->label || !m->sum || !m->welch || !m->ministat ||
	    !m->verdict || !pool) {
		err = -ENOMEM;
		goto out;
	}
	for (s = 0; s < c->nr_sides; s++) {
		err = pool_side(in, nr_in, s, like, us, &pool[s], &mismatch);
		if (err)
			goto out;
		if (mismatch) {
			note(c, "%s: not the same kind, unit or direction on side %s: left out",
				m->label, c->labels[s]);
			break;
		}
		if (!pool[s].n) {
			note(c, "%s: not on side %s: left out", m->label,
				c->labels[s]);
			break;
		}
		err = stats__summarize(pool[s].v, pool[s].n, &m->sum[s]);
		if (err)
			goto out;
	}
	if (s < c->nr_sides)	/* not on all sides */
		goto out;
	/* Rates, better higher: mmtests' Hmean, when it exists everywhere. */
	m->hmean = !m->lower_is_better;
	for (s = 0; s < c->nr_sides; s++)
		if (isnan(m->sum[s].hmean))
			m->hmean = false;
	for (s = 1; s < c->nr_sides; s++) {
		err = stats__welch(&m->sum[s], &m->sum[0], COMPARE_ALPHA,
				   &m->welch[s]);
		if (!err)
			err = stats__ministat(&m->sum[0], &m->sum[s],
					      &m->ministat[s]);
		if (!err)
			err = judge(m, pool, s);
		if (err)
			goto out;
	}
	c->nr_metrics++;
	for (s = 0; s < c->nr_sides; s++)
		free(pool[s].v);
	free(pool);
	return 0;
out:
	metric_free(m);
	for (s = 0; pool && s < c->nr_sides; s++)
		free(pool[s].v);
	free(pool);
	return err;
}

/* Was metric j of rep already met, in rep or an earlier one? */
static bool seen_before(const struct bench_results *r, size_t rep, size_t j)
{
	const struct bench_metric *m = bench_results__metric(r, rep, j);
	size_t pr, pj;

	for (pr = 0; pr <= rep; pr++)
		for (pj = 0; pj < (pr < rep ? bench_results__nr_metrics(r, pr) :
				   j); pj++) {
			const struct bench_metric *o =
				bench_results__metric(r, pr, pj);

			if (!strcmp(o->name, m->name) &&
			    same_str(o->file, m->file))
				return true;
		}
	return false;
}

/*
 * What else the times of a run include: a loaded machine (the load
 * average above its CPUs), CPU time the hypervisor stole, and, for the
 * scenarios whose timed task is one reader, a reader that was off the CPU
 * for much of its real time (real much larger than user + sys): its
 * wall-clock rate then follows the machine, not the reads.
 */
static void note_load(struct compare *c, const struct compare_input *in)
{
	const struct bench_provenance *p =
		bench_results__get_provenance(in->res);
	const char *sc = bench_results__scenario(in->res);
	const char *side = c->labels[in->side];
	double real = 0, cpu = 0, load;
	size_t rep;

	for (rep = 0; rep < bench_results__nr_reps(in->res); rep++) {
		const struct bench_rep_time *t =
			bench_results__rep_time(in->res, rep);

		real += t->real_s;
		cpu += t->user_s + t->sys_s;
	}
	if (p && p->has_load) {
		load = p->loadavg_before > p->loadavg_after ?
		       p->loadavg_before : p->loadavg_after;
		if (load > p->cpus)
			warn(c, "%s: the machine was loaded (load average %.1f on %u CPUs): its times include waiting for a CPU",
			     side, load, p->cpus);
		/* A tenth of a second at least: a short run's 2% is noise. */
		if (p->steal_s >= 0.1 && p->steal_s > 0.02 * real)
			warn(c, "%s: the hypervisor stole %.1f s of CPU time during the run: its times include it",
			     side, p->steal_s);
	}
	if ((!strcmp(sc, "stat-read") || !strcmp(sc, "many-cgroups")) &&
	    real > 0 && cpu < 0.7 * real)
		warn(c, "%s: the reader was on a CPU %.0f%% of its real time (user+sys against real): its reads_per_s follows the machine's load, reads_per_cpu_s does not",
		     side, cpu * 100 / real);
}

/*
 * A guest run whose clock drifted from the host's timed nothing right
 * (bench --kernel checks it): every table that uses it says so.
 */
static void note_vm_clock(struct compare *c, const struct compare_input *in)
{
	const struct bench_vm_clock *vc = bench_results__vm_clock(in->res);

	if (!vc || vc->ok)
		return;
	if (vc->icount)
		warn(c, "%s: guest time counted instructions (--vm-clock icount): its times are instruction counts",
		     c->labels[in->side]);
	else
		warn(c, "%s: the guest's clock ran %+.0f%% against the host's: its times are wrong",
		     c->labels[in->side], vc->drift * 100);
}

static int build_bench(struct compare *c, const struct compare_input *in, size_t nr_in)
{
	const struct bench_results *first = in[0].res;
	size_t i, rep, j, max = 0, s;
	int err;

	/* Metrics in the order of the base's first file. */
	for (rep = 0; rep < bench_results__nr_reps(first); rep++)
		max += bench_results__nr_metrics(first, rep);
	c->metrics = calloc(max ? max : 1, sizeof(*c->metrics));
	c->time = calloc(c->nr_sides, sizeof(*c->time));
	if (!c->metrics || !c->time)
		return -ENOMEM;
	for (rep = 0; rep < bench_results__nr_reps(first); rep++)
		for (j = 0; j < bench_results__nr_metrics(first, rep); j++) {
			const struct bench_metric *m =
				bench_results__metric(first, rep, j);

			if (seen_before(first, rep, j))
				continue;
			err = add_metric(c, in, nr_in, m);
			if (err)
				return err;
		}

	for (i = 0; i < nr_in; i++) {
		s = in[i].side;
		for (rep = 0; rep < bench_results__nr_reps(in[i].res); rep++) {
			const struct bench_rep_time *t =
				bench_results__rep_time(in[i].res, rep);

			c->time[s].real_s += t->real_s;
			c->time[s].user_s += t->user_s;
			c->time[s].sys_s += t->sys_s;
			c->time[s].n++;
		}
	}
	for (s = 0; s < c->nr_sides; s++) {
		c->time[s].real_s /= c->time[s].n;
		c->time[s].user_s /= c->time[s].n;
		c->time[s].sys_s /= c->time[s].n;
	}

	c->title = bench_results__scenario(first);
	for (i = 1; i < nr_in; i++)
		if (strcmp(bench_results__scenario(in[i].res), c->title)) {
			note(c, "%s is scenario %s, %s is %s: comparing what they share",
				in[0].path, c->title, in[i].path,
				bench_results__scenario(in[i].res));
			c->title = NULL;
			break;
		}
	for (i = 0; i < nr_in; i++) {
		note_vm_clock(c, &in[i]);
		note_load(c, &in[i]);
	}
	return 0;
}


/* --- breakdowns ----------------------------------------------------------- */

static const struct bench_bd_file *bd_file(const struct bench_breakdown *bd,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < bd->nr_files; i++)
		if (!strcmp(bd->files[i].file, name))
			return &bd->files[i];
	return NULL;
}

/* Percent of the base, + when it grew; NAN from 0 to something. */
static double bd_pct(double v, double base)
{
	if (base == 0)
		return v == 0 ? 0 : NAN;
	return (v - base) * 100 / fabs(base);
}

static void bd_cell_row(struct compare_bd_cell *cell,
			const struct bench_bd_row *r, bool timed,
			const char *why)
{
	int q;

	cell->timed = timed;
	cell->why = timed ? NULL : why;
	if (!timed)
		return;
	for (q = 0; q < BD_NR_Q; q++) {
		cell->q[q] = (int64_t)r->q[q];
		cell->note[q] = r->note[q];
	}
	cell->share = r->share;
	cell->calls = r->calls;
	cell->sum_ns = (int64_t)r->sum_ns;
}

static void bd_cell_entry(struct compare_bd_cell *cell,
			  const struct bench_bd_file *f)
{
	int q;

	cell->timed = f->paired;
	cell->why = "not derived: the kernel's reads and the reader's could not be paired";
	if (!f->paired)
		return;
	for (q = 0; q < BD_NR_Q; q++) {
		cell->q[q] = f->entry.q[q];
		cell->note[q] = "";
	}
	cell->share = f->entry.share;
	cell->calls = f->reads;
	cell->sum_ns = f->entry.sum;
}

static void bd_changes(struct compare_bd_row *row, size_t nr_sides)
{
	const struct compare_bd_cell *b = &row->side[0];
	size_t k;
	int q;

	for (k = 1; k < nr_sides; k++) {
		const struct compare_bd_cell *v = &row->side[k];
		struct compare_bd_change *d = &row->change[k];

		d->valid = b->timed && v->timed;
		if (!d->valid)
			continue;
		d->share_pts = (v->share - b->share) * 100;
		for (q = 0; q < BD_NR_Q; q++)
			d->q_pct[q] = bd_pct(v->q[q], b->q[q]);
		d->calls_pct = bd_pct(v->calls, b->calls);
		d->sum_pct = bd_pct(v->sum_ns, b->sum_ns);
	}
}

/* Row r of file bf: total (-1), a part, or entry/exit (BD_PART__NR). */
static int bd_row(struct compare *c, struct compare_bd_file *bf, int p)
{
	struct compare_bd_row *row = &bf->row[bf->nr_rows];
	size_t k;

	row->side = calloc(c->nr_sides, sizeof(*row->side));
	row->change = calloc(c->nr_sides, sizeof(*row->change));
	if (!row->side || !row->change)
		return -ENOMEM;
	bf->nr_rows++;
	row->derived = p == BD_PART__NR;
	row->name = p < 0 ? "total" : row->derived ? "entry/exit" :
		    breakdown_part_name(p);
	for (k = 0; k < c->nr_sides; k++) {
		const struct bench_bd_file *f = bf->side[k];

		if (p < 0)
			bd_cell_row(&row->side[k], &f->total, true, NULL);
		else if (row->derived)
			bd_cell_entry(&row->side[k], f);
		else
			bd_cell_row(&row->side[k], &f->part[p],
				    !c->bd[k]->untimed[p][0],
				    c->bd[k]->untimed[p]);
	}
	bd_changes(row, c->nr_sides);
	return 0;
}

static int bd_add_file(struct compare *c, const char *name)
{
	struct compare_bd_file *bf = &c->bd_files[c->nr_bd_files];
	size_t k, paired = 0;
	int p, err;

	bf->file = name;
	bf->side = calloc(c->nr_sides, sizeof(*bf->side));
	if (!bf->side)
		return -ENOMEM;
	c->nr_bd_files++;
	for (k = 0; k < c->nr_sides; k++) {
		bf->side[k] = bd_file(c->bd[k], name);
		paired += bf->side[k]->paired;
	}
	for (p = -1; p < BD_PART__NR; p++) {
		err = bd_row(c, bf, p);
		if (err)
			return err;
	}
	/* Derived from the reader's clock: a row when one side has it. */
	return paired ? bd_row(c, bf, BD_PART__NR) : 0;
}

static void release_breakdowns(struct compare *c)
{
	size_t i, r;

	for (i = 0; i < c->nr_bd_files; i++) {
		for (r = 0; r < c->bd_files[i].nr_rows; r++) {
			free(c->bd_files[i].row[r].side);
			free(c->bd_files[i].row[r].change);
		}
		free(c->bd_files[i].side);
	}
	free(c->bd_files);
	free(c->bd);
	c->bd_files = NULL;
	c->nr_bd_files = 0;
	c->bd = NULL;
}

/*
 * The sides' breakdowns, when each side has exactly one: a side pooling
 * several runs' decompositions has no one table to set beside another
 * (percentiles do not pool), and one without any has nothing to show;
 * either way a note says so, unless no side has a breakdown at all.
 */
static int build_breakdowns(struct compare *c, const struct compare_input *in,
			    size_t nr_in)
{
	const struct bench_breakdown *bd;
	size_t i, k, *nr = calloc(c->nr_sides, sizeof(*nr)), any = 0;
	unsigned int f;
	int err = 0;

	c->bd = calloc(c->nr_sides, sizeof(*c->bd));
	if (!nr || !c->bd) {
		free(nr);
		return -ENOMEM;
	}
	for (i = 0; i < nr_in; i++) {
		bd = bench_results__breakdown(in[i].res);
		if (!bd)
			continue;
		c->bd[in[i].side] = bd;
		nr[in[i].side]++;
		any++;
	}
	for (k = 0; any && k < c->nr_sides; k++) {
		if (nr[k] == 1)
			continue;
		if (nr[k])
			note(c, "breakdowns not compared: side %s has %zu files with one, and decompositions do not pool: give one file a side",
			     c->labels[k], nr[k]);
		else
			note(c, "breakdowns not compared: side %s has none (bench --breakdown, or --record's pass, makes one)",
			     c->labels[k]);
		any = 0;
	}
	free(nr);
	if (!any) {
		free(c->bd);
		c->bd = NULL;
		return 0;
	}
	c->bd_files = calloc(c->bd[0]->nr_files + 1, sizeof(*c->bd_files));
	if (!c->bd_files)
		return -ENOMEM;
	for (f = 0; f < c->bd[0]->nr_files && !err; f++) {
		const char *name = c->bd[0]->files[f].file;

		for (k = 1; k < c->nr_sides && bd_file(c->bd[k], name); k++)
			;
		if (k == c->nr_sides)
			err = bd_add_file(c, name);
		else
			note(c, "%s: decomposed on %s, not on %s: its breakdown not compared",
			     name, c->labels[0], c->labels[k]);
	}
	for (k = 1; k < c->nr_sides && !err; k++)
		for (f = 0; f < c->bd[k]->nr_files; f++)
			if (!bd_file(c->bd[0], c->bd[k]->files[f].file))
				note(c, "%s: decomposed on %s, not on %s: its breakdown not compared",
				     c->bd[k]->files[f].file, c->labels[k],
				     c->labels[0]);
	return err;
}

/* --- profiles ------------------------------------------------------------- */

static struct compare_share *share_find(struct compare_share **rows,
					size_t *nr, size_t nr_sides,
					const char *event, const char *name)
{
	struct compare_share *r, *nrows;
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*rows)[i].event, event) &&
		    !strcmp((*rows)[i].name, name))
			return &(*rows)[i];
	nrows = realloc(*rows, (*nr + 1) * sizeof(**rows));
	if (!nrows)
		return NULL;
	*rows = nrows;
	r = &nrows[*nr];
	r->event = strdup(event);
	r->name = strdup(name);
	r->share = malloc(nr_sides * sizeof(*r->share));
	if (!r->event || !r->name || !r->share) {
		free(r->event);
		free(r->name);
		free(r->share);
		return NULL;
	}
	for (i = 0; i < nr_sides; i++)
		r->share[i] = 0;
	(*nr)++;
	return r;
}

/*
 * Add a file's shares to its side's: several files on a side give the
 * mean of their shares (files[] counts them), so that each file weighs
 * the same whatever its sample count.
 */
static int add_shares(const struct compare_input *in, const char *key,
		      const char *name_key, enum profile_section sec,
		      const struct jv *shares, size_t nr_sh,
		      struct compare_share **rows, size_t *nr, size_t nr_sides,
		      char *err, size_t errlen)
{
	struct profile_share sh;
	size_t i;

	if (sec != PROFILE_ARRAY) {
		errbuf_set(err, errlen, "%s: \"%s\" is not an array: not a report --json profile",
			   in->path, key);
		return -EINVAL;
	}
	for (i = 0; i < nr_sh; i++) {
		struct compare_share *r;

		profile__share(shares, i, name_key, &sh);
		if (!sh.event || !sh.name || !sh.share.ok) {
			errbuf_set(err, errlen, "%s: %s[%zu]: needs \"event\", \"%s\" and a numeric \"share\"",
				   in->path, key, i, name_key);
			return -EINVAL;
		}
		r = share_find(rows, nr, nr_sides, sh.event, sh.name);
		if (!r)
			return -ENOMEM;
		if (isnan(r->share[in->side]))
			r->share[in->side] = 0;
		r->share[in->side] += sh.share.num;
	}
	return 0;
}

static int add_span(struct compare *c, const struct compare_input *in,
		    const struct profile_span *o, size_t idx,
		    size_t *files_on_side, char *err, size_t errlen)
{
	struct compare_span *sp = NULL, *nsp;
	struct compare_span_side *d;
	size_t i;

	if (!o->name || !o->count.ok || !o->p50_ns.ok || !o->p90_ns.ok ||
	    !o->p99_ns.ok || !o->has_hist) {
		errbuf_set(err, errlen, o->kernel ?
			   "%s: kernel_spans.spans[%zu]: needs \"name\", \"count\", \"p50\", \"p90\", \"p99\" and \"hist\"" :
			   "%s: spans[%zu]: needs \"name\", \"count\", \"p50_ns\", \"p90_ns\", \"p99_ns\" and \"hist\"",
			   in->path, idx);
		return -EINVAL;
	}
	for (i = 0; i < c->nr_spans; i++)
		if (!strcmp(c->spans[i].name, o->name) &&
		    same_str(c->spans[i].subsystem, o->subsystem) &&
		    c->spans[i].kernel == o->kernel)
			sp = &c->spans[i];
	if (!sp) {
		nsp = realloc(c->spans, (c->nr_spans + 1) * sizeof(*nsp));
		if (!nsp)
			return -ENOMEM;
		c->spans = nsp;
		sp = &nsp[c->nr_spans];
		memset(sp, 0, sizeof(*sp));
		sp->name = strdup(o->name);
		sp->subsystem = o->subsystem ? strdup(o->subsystem) : NULL;
		sp->side = calloc(c->nr_sides, sizeof(*sp->side));
		sp->kernel = o->kernel;
		c->nr_spans++;
		if (!sp->name || (o->subsystem && !sp->subsystem) ||
		    !sp->side)
			return -ENOMEM;
	}
	d = &sp->side[in->side];
	d->present = true;
	d->count += (uint64_t)o->count.num;
	/* One file: its exact percentiles; pooled files: see below. */
	if (files_on_side[in->side] == 1) {
		d->p50 = (uint64_t)o->p50_ns.num;
		d->p90 = (uint64_t)o->p90_ns.num;
		d->p99 = (uint64_t)o->p99_ns.num;
	}
	for (i = 0; i < o->nr_hist; i++) {
		const struct profile_hist_row *row = &o->hist[i];
		int b;

		b = -1;
		/* BPF's slots 0 and 1 ({0, 0}, {1, 1}) are the 0 -> 1 row. */
		if (row->low.exact && row->high.exact && row->count.exact)
			b = o->kernel && row->high.u <= 1 ? 1 :
			    profile__hist_row_index(row->low.u, row->high.u);
		if (b < 0) {
			errbuf_set(err, errlen, "%s: %sspans[%zu].hist[%zu]: not a log2 bucket",
				   in->path, o->kernel ? "kernel_spans." : "",
				   idx, i);
			return -EINVAL;
		}
		d->bucket[b] += row->count.u;
	}
	return 0;
}

/*
 * Pooled files' percentiles cannot be recovered exactly; they are read
 * off the pooled log2 buckets (the high end of the bucket holding the
 * nearest rank), which the man page states.
 */
static uint64_t bucket_percentile(const struct compare_span_side *d, double q)
{
	uint64_t total = 0, rank, seen = 0, low, high;
	int b;

	for (b = 1; b < HIST_MAX_BUCKETS; b++)
		total += d->bucket[b];
	if (!total)
		return 0;
	rank = (uint64_t)ceil(q * total / 100);
	if (!rank)
		rank = 1;
	for (b = 1; b < HIST_MAX_BUCKETS - 1; b++) {
		seen += d->bucket[b];
		if (seen >= rank)
			break;
	}
	hist__row_bounds(b, &low, &high);
	return high;
}

/* Side k's sums of shares over its nr_files profiles, made means. */
static void shares_mean(struct compare_share *rows, size_t n, size_t k,
			size_t nr_files)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(rows[i].share[k]))
			rows[i].share[k] /= nr_files;
}

static int build_profile(struct compare *c, const struct compare_input *in,
			 size_t nr_in, char *err, size_t errlen)
{
	size_t *files = calloc(c->nr_sides, sizeof(*files));
	size_t i, j, k;
	int ret = 0;

	if (!files)
		return -ENOMEM;
	c->profile = true;
	for (i = 0; i < nr_in; i++)
		files[in[i].side]++;
	for (i = 0; i < nr_in && !ret; i++) {
		const struct profile *p = in[i].prof;

		ret = add_shares(&in[i], PROFILE_ATTRIBUTION, PROFILE_CATEGORY,
				 p->attribution_sec, p->attribution,
				 p->nr_attribution, &c->categories,
				 &c->nr_categories, c->nr_sides, err, errlen);
		if (!ret)
			ret = add_shares(&in[i], PROFILE_TRIGGERS,
					 PROFILE_TRIGGER, p->triggers_sec,
					 p->triggers, p->nr_triggers,
					 &c->triggers, &c->nr_triggers,
					 c->nr_sides, err, errlen);
		if (ret)
			break;
		if (p->spans_sec == PROFILE_NOT_ARRAY) {
			errbuf_set(err, errlen, "%s: \"spans\" is not an array",
				   in[i].path);
			ret = -EINVAL;
			break;
		}
		for (j = 0; j < p->nr_spans && !ret; j++)
			ret = add_span(c, &in[i], &p->spans[j], j, files, err,
				       errlen);
		/* The default recording's spans, timed in the kernel. */
		for (j = 0; j < p->nr_kspans && !ret; j++)
			ret = add_span(c, &in[i], &p->kspans[j], j, files, err,
				       errlen);
	}
	if (ret) {
		free(files);
		return ret;
	}
	/* Means of the files' shares; an absent row counts as 0 in a file. */
	for (k = 0; k < c->nr_sides; k++) {
		shares_mean(c->categories, c->nr_categories, k, files[k]);
		shares_mean(c->triggers, c->nr_triggers, k, files[k]);
		for (i = 0; i < c->nr_spans; i++) {
			struct compare_span_side *d = &c->spans[i].side[k];

			if (files[k] > 1 && d->present) {
				d->p50 = bucket_percentile(d, 50);
				d->p90 = bucket_percentile(d, 90);
				d->p99 = bucket_percentile(d, 99);
			}
		}
	}
	free(files);
	return 0;
}

/* --- the comparison ------------------------------------------------------- */

static const char *kind_name(enum input_kind kind)
{
	return kind == IN_BENCH ? "a bench results file" :
	       "a report --json profile";
}

static int load_inputs(struct compare_input *in, const struct compare_inputs *ci,
		       char *err, size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; i < ci->nr_files; i++) {
		in[i].side = ci->side[i];
		ret = load_input(&in[i], ci->files[i], err, errlen);
		if (ret)
			return ret;
		if (in[i].kind != in[0].kind) {
			errbuf_set(err, errlen, "compare: %s is %s, %s is %s: compare results with results, profiles with profiles",
				   in[0].path, kind_name(in[0].kind),
				   in[i].path, kind_name(in[i].kind));
			return -EXDEV;
		}
	}
	return 0;
}

int compare__build(struct compare *c, const struct compare_inputs *ci,
		   char *err, size_t errlen)
{
	struct compare_input *in = calloc(ci->nr_files, sizeof(*in));
	int ret;

	if (!in)
		return -ENOMEM;
	/* The comparison borrows the inputs' strings: they go with it. */
	c->inputs = in;
	c->nr_inputs = ci->nr_files;
	ret = load_inputs(in, ci, err, errlen);
	if (!ret && in[0].kind == IN_BENCH) {
		ret = build_bench(c, in, ci->nr_files);
		if (!ret)
			ret = build_breakdowns(c, in, ci->nr_files);
		if (!ret && !c->nr_metrics) {
			errbuf_set(err, errlen, "compare: the sides have no metric in common (same name and file, kind and unit)");
			ret = -EINVAL;
		}
	} else if (!ret) {
		ret = build_profile(c, in, ci->nr_files, err, errlen);
	}
	return ret;
}

/* "runs/base.json" -> "base"; "runs/base/results.json" -> "base". */
char *compare__file_label(const char *path)
{
	char *copy = strdup(path), *base, *slash;
	size_t len;

	if (!copy)
		return NULL;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (!strcmp(base, "results.json") && slash && slash != copy) {
		*slash = '\0';
		slash = strrchr(copy, '/');
		base = slash ? slash + 1 : copy;
	} else {
		len = strlen(base);
		if (len > 5 && !strcmp(base + len - 5, ".json"))
			base[len - 5] = '\0';
	}
	base = strdup(base);
	free(copy);
	return base;
}
