// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze compare: before/after tables from bench results files
 * (mmtests' statistics with Welch's t-test, time(1) means, ministat
 * verdicts), or side-by-side attribution shares and span histograms from
 * `report --json` profiles.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "cmds.h"
#include "json-input.h"
#include "json-read.h"
#include "compare-out.h"
#include "hist.h"
#include "json.h"
#include "stats.h"

/* As bench_results__read(): no input of the tool is bigger. */
#define COMPARE_MAX_DEPTH 32

enum compare_format {
	FMT_TEXT,
	FMT_MARKDOWN,
	FMT_CSV,
	FMT_JSON,
};

struct compare_params {
	enum compare_format format;
	const char *labels_arg;		/* --labels A,B,C */
	char **files;			/* every file, side after side */
	size_t *side_start;		/* [nr_sides + 1] into files */
	size_t nr_sides, nr_files;
	char **opts;			/* the options, for getopt_long */
	int nr_opts;
};

static const char compare_usage_text[] =
	"usage: rstat-analyze compare BASE... -- NEW... [-- NEWER...]\n"
	"                             [--labels A,B,...]\n"
	"                             [--format text|markdown|csv|json]\n";

static void compare_usage(FILE *out)
{
	fputs(compare_usage_text, out);
}

static void compare_help(void)
{
	compare_usage(stdout);
	fputs("\n"
	      "Compare runs side by side. Each side is one or more files, the\n"
	      "sides separated by `--`; the first side is the base.\n"
	      "\n"
	      "Bench results files (`bench --json`, `bench -o DIR`): for every\n"
	      "metric on all sides, mmtests' table (Min, quartiles, Max-N\n"
	      "percentiles, Max, Amean or Hmean for rates, Stddev, CoeffVar)\n"
	      "with percentages where positive is better and a `*` mark when\n"
	      "Welch's t-test finds the means differ (5%); then the time(1)\n"
	      "means and ministat's verdict. Distributions pool the per-read\n"
	      "samples of all repetitions and files of a side, in usecs.\n"
	      "\n"
	      "`report --json` profiles: attribution and trigger shares with\n"
	      "their deltas in percentage points, span percentiles and log2\n"
	      "histograms side by side.\n"
	      "\n"
	      "      --labels A,B,...  column labels, one per side (default: the\n"
	      "                        file names, or DIR of DIR/results.json)\n"
	      "      --format FORMAT   text (default; fits 72 columns), markdown,\n"
	      "                        csv or json\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	      "See rstat-analyze-compare(1).\n", stdout);
}

enum {
	OPT_LABELS = 256,
	OPT_FORMAT,
};

static const struct option compare_options[] = {
	{ "labels", required_argument, NULL, OPT_LABELS },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void compare_params_free(struct compare_params *p)
{
	free(p->files);
	free(p->side_start);
	free(p->opts);
	memset(p, 0, sizeof(*p));
}

/* Does the option token (a long one, maybe abbreviated) take a value? */
static bool option_takes_value(const char *tok)
{
	size_t len;
	const struct option *o;

	if (tok[1] != '-')
		return false;	/* -h is the only short option */
	tok += 2;
	if (strchr(tok, '='))
		return false;
	len = strlen(tok);
	for (o = compare_options; o->name; o++)
		if (len && !strncmp(o->name, tok, len))
			return o->has_arg == required_argument;
	return false;
}

/*
 * `--` separates sides, so getopt_long cannot see the whole argv (it
 * stops at the first `--`): the options are picked out first, with their
 * values, and getopt_long parses them alone; the rest are files.
 */
static int split_args(int argc, char **argv, struct compare_params *p)
{
	int i;

	p->files = calloc(argc, sizeof(*p->files));
	p->side_start = calloc(argc + 1, sizeof(*p->side_start));
	p->opts = calloc(argc + 1, sizeof(*p->opts));
	if (!p->files || !p->side_start || !p->opts) {
		rs_error("compare: out of memory");
		return RS_EXIT_FAIL;
	}
	p->opts[p->nr_opts++] = argv[0];
	p->side_start[0] = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			p->side_start[++p->nr_sides] = p->nr_files;
			continue;
		}
		if (a[0] == '-' && a[1]) {
			p->opts[p->nr_opts++] = argv[i];
			if (option_takes_value(a) && i + 1 < argc)
				p->opts[p->nr_opts++] = argv[++i];
			continue;
		}
		p->files[p->nr_files++] = argv[i];
	}
	p->side_start[++p->nr_sides] = p->nr_files;
	return 0;
}

/* Returns 0, RS_EXIT_USAGE / RS_EXIT_FAIL, or -1 when --help was printed. */
static int compare_parse_args(int argc, char **argv, struct compare_params *p)
{
	size_t s;
	int c, err;

	memset(p, 0, sizeof(*p));
	err = split_args(argc, argv, p);
	if (err)
		return err;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(p->nr_opts, p->opts, ":h", compare_options,
				NULL)) != -1) {
		switch (c) {
		case OPT_LABELS:
			p->labels_arg = optarg;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text")) {
				p->format = FMT_TEXT;
			} else if (!strcmp(optarg, "markdown")) {
				p->format = FMT_MARKDOWN;
			} else if (!strcmp(optarg, "csv")) {
				p->format = FMT_CSV;
			} else if (!strcmp(optarg, "json")) {
				p->format = FMT_JSON;
			} else {
				rs_error("compare: --format '%s': use text, markdown, csv or json",
					 optarg);
				return RS_EXIT_USAGE;
			}
			break;
		case 'h':
			compare_help();
			return -1;
		case ':':
			rs_error("compare: option '%s' needs a value",
				 p->opts[optind - 1]);
			compare_usage(stderr);
			return RS_EXIT_USAGE;
		default:
			rs_error("compare: unknown option '%s'",
				 p->opts[optind - 1]);
			compare_usage(stderr);
			return RS_EXIT_USAGE;
		}
	}
	if (!p->nr_files) {
		rs_error("compare: no input files; give BASE... -- NEW...");
		compare_usage(stderr);
		return RS_EXIT_USAGE;
	}
	for (s = 0; s < p->nr_sides; s++)
		if (p->side_start[s] == p->side_start[s + 1]) {
			rs_error("compare: side %zu has no file (two `--` in a row, or one at an end)",
				 s + 1);
			compare_usage(stderr);
			return RS_EXIT_USAGE;
		}
	if (p->nr_sides < 2) {
		rs_error("compare: one side only; separate the base from the new files with `--`");
		return RS_EXIT_FAIL;
	}
	return 0;
}

/* --- labels --------------------------------------------------------------- */

/* "runs/base.json" -> "base"; "runs/base/results.json" -> "base". */
static char *file_label(const char *path)
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

/*
 * One label per side: --labels, else the first file's name, with "+N"
 * when N more files pool into the side.
 */
static char **make_labels(const struct compare_params *p)
{
	char **labels = calloc(p->nr_sides, sizeof(*labels));
	size_t s, n;

	if (!labels) {
		rs_error("compare: out of memory");
		return NULL;
	}
	if (p->labels_arg) {
		char *copy = strdup(p->labels_arg), *tok, *save = NULL;

		n = 0;
		for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (n < p->nr_sides)
				labels[n] = strdup(tok);
			n++;
		}
		free(copy);
		if (n != p->nr_sides) {
			rs_error("compare: --labels '%s' names %zu sides, there are %zu",
				 p->labels_arg, n, p->nr_sides);
			goto fail;
		}
	} else {
		for (s = 0; s < p->nr_sides; s++) {
			char *l = file_label(p->files[p->side_start[s]]);
			size_t more = p->side_start[s + 1] -
				      p->side_start[s] - 1;

			if (l && more) {
				char *m;

				if (asprintf(&m, "%s+%zu", l, more) < 0)
					m = NULL;
				free(l);
				l = m;
			}
			labels[s] = l;
		}
	}
	for (s = 0; s < p->nr_sides; s++)
		if (!labels[s]) {
			rs_error("compare: out of memory");
			goto fail;
		}
	return labels;
fail:
	for (s = 0; s < p->nr_sides; s++)
		free(labels[s]);
	free(labels);
	return NULL;
}

static bool jnum(const struct jv *o, const char *key, double *out)
{
	const struct jv *v = jv__get(o, key);

	if (!v || v->type != J_NUM)
		return false;
	*out = v->num;
	return true;
}

/* --- inputs --------------------------------------------------------------- */

enum input_kind { IN_BENCH, IN_PROFILE };

struct input {
	const char *path;
	char *file;		/* the file read (DIR/results.json for a DIR) */
	size_t side;
	enum input_kind kind;
	struct bench_results *res;
	struct jv doc;
};

/*
 * Read and tell apart one input, as plot does (json-input.c): bench
 * results (a file, or the directory bench -o wrote) or a report --json
 * profile; bench_results__read_mem() says precisely what is wrong with
 * bench results.
 */
static int load_input(struct input *in)
{
	struct json_input ji;
	char err[512];
	int ret;

	ret = json_input__load(&ji, in->path, 0, err, sizeof(err));
	if (ret) {
		if (ret == -ENOMEM)
			rs_error("compare: out of memory");
		else
			rs_error("%s", err);
		return ret;
	}
	/* Messages name the file read: DIR/results.json for a DIR. */
	in->file = ji.path;
	ji.path = NULL;
	in->path = in->file;
	if (ji.kind == JSON_INPUT_PROFILE) {
		in->kind = IN_PROFILE;
		in->doc = ji.doc;
		memset(&ji.doc, 0, sizeof(ji.doc));
		json_input__release(&ji);
		return 0;
	}
	in->kind = IN_BENCH;
	/* The results' own reader parses the text again: the tree can go. */
	jv__free(&ji.doc);
	ret = bench_results__read_mem(&in->res, ji.buf, ji.len, in->path, err,
				      sizeof(err));
	json_input__release(&ji);
	if (ret) {
		if (ret == -ENOMEM)
			rs_error("compare: out of memory");
		else
			rs_error("%s", err[0] ? err : in->path);
		return ret;
	}
	return 0;
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
static int pool_side(const struct input *in, size_t nr_in, size_t side,
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

static void compare_free(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nr_metrics; i++) {
		free(c->metrics[i].label);
		free(c->metrics[i].sum);
		free(c->metrics[i].welch);
		free(c->metrics[i].ministat);
	}
	free(c->metrics);
	free(c->time);
	for (i = 0; i < c->nr_categories; i++) {
		free(c->categories[i].event);
		free(c->categories[i].name);
		free(c->categories[i].share);
	}
	free(c->categories);
	for (i = 0; i < c->nr_triggers; i++) {
		free(c->triggers[i].event);
		free(c->triggers[i].name);
		free(c->triggers[i].share);
	}
	free(c->triggers);
	for (i = 0; i < c->nr_spans; i++) {
		free(c->spans[i].name);
		free(c->spans[i].subsystem);
		free(c->spans[i].side);
	}
	free(c->spans);
}

/* One metric of the base's first file: pool it per side, test it. */
static int add_metric(struct compare *c, const struct input *in, size_t nr_in,
		      const struct bench_metric *like)
{
	struct compare_metric *m = &c->metrics[c->nr_metrics];
	bool us = like->is_hist && same_str(like->unit, "ns");
	bool mismatch = false;
	struct dvec d = { 0 };
	size_t s;
	int err = 0;

	memset(m, 0, sizeof(*m));
	m->name = like->name;
	m->file = like->file;
	m->unit = like->unit;
	m->display_unit = us ? "us" : like->unit;
	m->is_hist = like->is_hist;
	m->lower_is_better = like->lower_is_better;
	m->label = metric_label(like, us);
	m->sum = calloc(c->nr_sides, sizeof(*m->sum));
	m->welch = calloc(c->nr_sides, sizeof(*m->welch));
	m->ministat = calloc(c->nr_sides, sizeof(*m->ministat));
	if (!m->label || !m->sum || !m->welch || !m->ministat) {
		err = -ENOMEM;
		goto out;
	}
	for (s = 0; s < c->nr_sides; s++) {
		d.n = 0;
		err = pool_side(in, nr_in, s, like, us, &d, &mismatch);
		if (err)
			goto out;
		if (mismatch) {
			rs_note("%s: not the same kind, unit or direction on side %s: left out",
				m->label, c->labels[s]);
			break;
		}
		if (!d.n) {
			rs_note("%s: not on side %s: left out", m->label,
				c->labels[s]);
			break;
		}
		err = stats__summarize(d.v, d.n, &m->sum[s]);
		if (err)
			goto out;
	}
	if (s < c->nr_sides) {	/* not on all sides */
		free(m->label);
		free(m->sum);
		free(m->welch);
		free(m->ministat);
		goto out;
	}
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
		if (err)
			goto out;
	}
	c->nr_metrics++;
	free(d.v);
	return 0;
out:
	if (err) {
		free(m->label);
		free(m->sum);
		free(m->welch);
		free(m->ministat);
	}
	free(d.v);
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

static int build_bench(struct compare *c, const struct input *in, size_t nr_in)
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
			rs_note("%s is scenario %s, %s is %s: comparing what they share",
				in[0].path, c->title, in[i].path,
				bench_results__scenario(in[i].res));
			c->title = NULL;
			break;
		}
	return 0;
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
static int add_shares(const struct input *in, const char *key,
		      const char *name_key, struct compare_share **rows,
		      size_t *nr, size_t nr_sides)
{
	const struct jv *arr = jv__get(&in->doc, key);
	size_t i;

	if (!arr || arr->type != J_ARR) {
		rs_error("%s: \"%s\" is not an array: not a report --json profile",
			 in->path, key);
		return -EINVAL;
	}
	for (i = 0; i < arr->n; i++) {
		const struct jv *o = &arr->items[i];
		const char *ev = jv__str(o, "event"), *name = jv__str(o, name_key);
		struct compare_share *r;
		double share;

		if (!ev || !name || !jnum(o, "share", &share)) {
			rs_error("%s: %s[%zu]: needs \"event\", \"%s\" and a numeric \"share\"",
				 in->path, key, i, name_key);
			return -EINVAL;
		}
		r = share_find(rows, nr, nr_sides, ev, name);
		if (!r) {
			rs_error("compare: out of memory");
			return -ENOMEM;
		}
		if (isnan(r->share[in->side]))
			r->share[in->side] = 0;
		r->share[in->side] += share;
	}
	return 0;
}

/* The bucket index of a report --json hist row, -1 if not a log2 row. */
static int bucket_of(uint64_t low, uint64_t high)
{
	uint64_t lo, hi;
	int idx;

	if (low == 0)
		return high == 1 ? 1 : -1;
	idx = hist__bucket_index(low);
	hist__bucket_bounds(idx, &lo, &hi);
	if (idx < 2 || low != lo || (idx < 64 && high != hi))
		return -1;
	return idx;
}

static int add_span(struct compare *c, const struct input *in,
		    const struct jv *o, size_t idx, size_t *files_on_side)
{
	const char *name = jv__str(o, "name"), *subsys = jv__str(o, "subsystem");
	const struct jv *hist = jv__get(o, "hist");
	struct compare_span *sp = NULL, *nsp;
	struct compare_span_side *d;
	double count, p50, p90, p99;
	size_t i;

	if (!name || !jnum(o, "count", &count) || !jnum(o, "p50_ns", &p50) ||
	    !jnum(o, "p90_ns", &p90) || !jnum(o, "p99_ns", &p99) || !hist ||
	    hist->type != J_ARR) {
		rs_error("%s: spans[%zu]: needs \"name\", \"count\", \"p50_ns\", \"p90_ns\", \"p99_ns\" and \"hist\"",
			 in->path, idx);
		return -EINVAL;
	}
	for (i = 0; i < c->nr_spans; i++)
		if (!strcmp(c->spans[i].name, name) &&
		    same_str(c->spans[i].subsystem, subsys))
			sp = &c->spans[i];
	if (!sp) {
		nsp = realloc(c->spans, (c->nr_spans + 1) * sizeof(*nsp));
		if (!nsp)
			return -ENOMEM;
		c->spans = nsp;
		sp = &nsp[c->nr_spans];
		memset(sp, 0, sizeof(*sp));
		sp->name = strdup(name);
		sp->subsystem = subsys ? strdup(subsys) : NULL;
		sp->side = calloc(c->nr_sides, sizeof(*sp->side));
		c->nr_spans++;
		if (!sp->name || (subsys && !sp->subsystem) || !sp->side)
			return -ENOMEM;
	}
	d = &sp->side[in->side];
	d->present = true;
	d->count += (uint64_t)count;
	/* One file: its exact percentiles; pooled files: see below. */
	if (files_on_side[in->side] == 1) {
		d->p50 = (uint64_t)p50;
		d->p90 = (uint64_t)p90;
		d->p99 = (uint64_t)p99;
	}
	for (i = 0; i < hist->n; i++) {
		const struct jv *row = &hist->items[i];
		double low, high, n;
		int b;

		if (!jnum(row, "low", &low) || !jnum(row, "high", &high) ||
		    !jnum(row, "count", &n) || low < 0 || high < low ||
		    (b = bucket_of((uint64_t)low, (uint64_t)high)) < 0) {
			rs_error("%s: spans[%zu].hist[%zu]: not a log2 bucket",
				 in->path, idx, i);
			return -EINVAL;
		}
		d->bucket[b] += (uint64_t)n;
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

static int build_profile(struct compare *c, const struct input *in,
			 size_t nr_in)
{
	size_t *files = calloc(c->nr_sides, sizeof(*files));
	size_t i, j, k;
	int err = 0;

	if (!files)
		return -ENOMEM;
	c->profile = true;
	for (i = 0; i < nr_in; i++)
		files[in[i].side]++;
	for (i = 0; i < nr_in && !err; i++) {
		const struct jv *spans = jv__get(&in[i].doc, "spans");

		err = add_shares(&in[i], "attribution", "category",
				 &c->categories, &c->nr_categories,
				 c->nr_sides);
		if (!err)
			err = add_shares(&in[i], "triggers", "trigger",
					 &c->triggers, &c->nr_triggers,
					 c->nr_sides);
		if (err)
			break;
		if (spans && spans->type != J_ARR) {
			rs_error("%s: \"spans\" is not an array", in[i].path);
			err = -EINVAL;
			break;
		}
		for (j = 0; spans && j < spans->n && !err; j++) {
			err = add_span(c, &in[i], &spans->items[j], j, files);
			if (err == -ENOMEM)
				rs_error("compare: out of memory");
		}
	}
	if (err) {
		free(files);
		return err == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	/* Means of the files' shares; an absent row counts as 0 in a file. */
	for (k = 0; k < c->nr_sides; k++) {
		for (i = 0; i < c->nr_categories; i++)
			if (!isnan(c->categories[i].share[k]))
				c->categories[i].share[k] /= files[k];
		for (i = 0; i < c->nr_triggers; i++)
			if (!isnan(c->triggers[i].share[k]))
				c->triggers[i].share[k] /= files[k];
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

/* --- the command ---------------------------------------------------------- */

static const char *kind_name(enum input_kind kind)
{
	return kind == IN_BENCH ? "a bench results file" :
	       "a report --json profile";
}

static int print_compare(const struct compare_params *p,
			 const struct compare *c)
{
	struct json_writer *jw;

	switch (p->format) {
	case FMT_MARKDOWN:
		return compare_out__markdown(stdout, c);
	case FMT_CSV:
		return compare_out__csv(stdout, c);
	case FMT_JSON:
		jw = json_writer__new(stdout);
		if (!jw)
			return -ENOMEM;
		compare_out__json(jw, c);
		json_writer__delete(jw);
		return ferror(stdout) ? -EIO : 0;
	default:
		return compare_out__text(stdout, c);
	}
}

static int __cmd_compare(const struct compare_params *p, char **labels)
{
	struct input *in = calloc(p->nr_files, sizeof(*in));
	struct compare c = { 0 };
	size_t i, s;
	int err = 0, ret = RS_EXIT_FAIL;

	if (!in) {
		rs_error("compare: out of memory");
		return RS_EXIT_FAIL;
	}
	for (s = 0; s < p->nr_sides; s++)
		for (i = p->side_start[s]; i < p->side_start[s + 1]; i++) {
			in[i].path = p->files[i];
			in[i].side = s;
		}
	for (i = 0; i < p->nr_files; i++) {
		err = load_input(&in[i]);
		if (err)
			goto out;
		if (in[i].kind != in[0].kind) {
			rs_error("compare: %s is %s, %s is %s: compare results with results, profiles with profiles",
				 in[0].path, kind_name(in[0].kind),
				 in[i].path, kind_name(in[i].kind));
			ret = RS_EXIT_USAGE;
			goto out;
		}
	}
	c.nr_sides = p->nr_sides;
	c.labels = (const char *const *)labels;
	if (in[0].kind == IN_BENCH) {
		err = build_bench(&c, in, p->nr_files);
		if (err == -ENOMEM)
			rs_error("compare: out of memory");
		if (err)
			goto out;
		if (!c.nr_metrics) {
			rs_error("compare: the sides have no metric in common (same name and file, kind and unit)");
			goto out;
		}
	} else {
		err = build_profile(&c, in, p->nr_files);
		if (err == -ENOMEM)
			rs_error("compare: out of memory");
		if (err)
			goto out;
	}
	err = print_compare(p, &c);
	if (err && err != -EIO) {
		rs_error("compare: %s", strerror(-err));
		goto out;
	}
	ret = RS_EXIT_OK;
out:
	compare_free(&c);
	for (i = 0; i < p->nr_files; i++) {
		bench_results__delete(in[i].res);
		jv__free(&in[i].doc);
		free(in[i].file);
	}
	free(in);
	return ret;
}

int compare_results(const char *const *files, const char *const *labels,
		    size_t n)
{
	struct compare_params p = { .format = FMT_TEXT };
	size_t *starts = calloc(n + 1, sizeof(*starts));
	size_t i;
	int ret;

	if (!starts) {
		rs_error("compare: out of memory");
		return RS_EXIT_FAIL;
	}
	for (i = 0; i <= n; i++)
		starts[i] = i;
	p.files = (char **)files;
	p.side_start = starts;
	p.nr_sides = p.nr_files = n;
	ret = __cmd_compare(&p, (char **)labels);
	free(starts);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_params params;
	char **labels;
	size_t s;
	int ret;

	ret = compare_parse_args(argc, argv, &params);
	if (ret < 0) {
		compare_params_free(&params);
		return rs_finish_stdout(RS_EXIT_OK);
	}
	if (!ret) {
		labels = make_labels(&params);
		if (labels) {
			ret = __cmd_compare(&params, labels);
			for (s = 0; s < params.nr_sides; s++)
				free(labels[s]);
			free(labels);
		} else {
			ret = params.labels_arg ? RS_EXIT_USAGE : RS_EXIT_FAIL;
		}
	}
	/* bpftool's convention: a JSON consumer gets the error too. */
	if (ret == RS_EXIT_FAIL && params.format == FMT_JSON) {
		struct json_writer *jw = json_writer__new(stdout);

		if (jw) {
			json__object_begin(jw, NULL);
			json__string(jw, "error", rs_last_error());
			json__object_end(jw);
			json_writer__delete(jw);
		}
	}
	compare_params_free(&params);
	return rs_finish_stdout(ret);
}
