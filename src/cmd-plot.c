// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze plot: gnuplot charts of one or more runs. The data goes to
 * OUT.png.dat and the script to OUT.png.gp beside the image (OUT.svg.*
 * for an SVG: each image its own), both kept, and
 * gnuplot (a program, run with an argv) draws the image from them.
 *
 * Inputs are bench results files (docs/bench-results.md), `report --json`
 * output, or recordings (perf.data, for --kind timeline).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "bench-results.h"
#include "cmds.h"
#include "gnuplot.h"
#include "json-input.h"
#include "json-read.h"
#include "outfile.h"
#include "perf-data.h"
#include "rules.h"
#include "spans.h"
#include "symbols.h"
#include "util.h"

#define PLOT_MAX_INPUTS 64
#define PLOT_MAX_SIZE 10000

enum plot_kind {
	PLOT_HIST,
	PLOT_CDF,
	PLOT_BARS,
	PLOT_TIMELINE,
};

struct plot_params {
	const char *inputs[PLOT_MAX_INPUTS];
	int nr_inputs;
	const char *output;
	enum plot_kind kind;
	const char *title;
	unsigned int width, height;
	char *metric;		/* --metric NAME[:QUAL], split in place */
	const char *metric_qual;
	bool normalize;
};

/* One curve or group of bars: an input, or one distribution of it. */
struct series {
	char *name;
	char *unit;		/* of the values: "ns", or a bench unit */
	uint64_t buckets[HIST_MAX_BUCKETS];	/* by bucket index */
	uint64_t *samples;	/* cdf: exact values, when known */
	size_t nr_samples;
	double *x, *y;		/* timeline points; bars: y per segment */
	size_t nr_points;
};

struct plot_ctx {
	const struct plot_params *p;
	struct series *series;
	size_t nr_series, cap_series;
	/* bars: the stacked segments, in first-seen order */
	char **segs;
	size_t nr_segs, cap_segs;
	char *bar_unit;		/* bars: "%", or a bench unit */
};

static const char plot_usage_text[] =
	"usage: rstat-analyze plot INPUT... -o OUT.png|OUT.svg\n"
	"                          [--kind hist|cdf|bars|timeline] [--title T]\n"
	"                          [--size WxH] [--metric NAME[:QUAL]] [--normalize]\n";

static void plot_usage(FILE *out)
{
	fputs(plot_usage_text, out);
}

static void plot_help(void)
{
	plot_usage(stdout);
	fputs("\n"
	      "Chart one or more runs with gnuplot. The data (OUT.png.dat) and\n"
	      "the script (OUT.png.gp) are kept beside the image: restyle and\n"
	      "rerun with `gnuplot OUT.png.gp` from the same directory.\n"
	      "\n"
	      "INPUT is bench results (bench --json FILE, or the DIR of bench\n"
	      "-o DIR), `report --json` output, or, for --kind timeline, a\n"
	      "recording (perf.data).\n"
	      "\n"
	      "  -o, --output FILE     the image: .png (pngcairo) or .svg\n"
	      "  -k, --kind KIND       hist: log2 latency histograms (default)\n"
	      "                        cdf: latency CDFs (bench samples, else buckets)\n"
	      "                        bars: stacked attribution shares (report) or\n"
	      "                        per-metric means (bench), one bar per input\n"
	      "                        timeline: flush lock hold times over the\n"
	      "                        recording (cgroup_rstat_locked/unlock pairs)\n"
	      "  -t, --title TEXT      the chart's title\n"
	      "  -s, --size WxH        image size in pixels (default 800x500)\n"
	      "  -m, --metric NAME[:QUAL]  only this distribution: a bench metric\n"
	      "                        and its stat file, a report span and its\n"
	      "                        subsystem; for bars of report output, the\n"
	      "                        event\n"
	      "  -n, --normalize       hist: shares instead of counts\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	      "See rstat-analyze-plot(1).\n", stdout);
}

static const struct option plot_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "kind", required_argument, NULL, 'k' },
	{ "title", required_argument, NULL, 't' },
	{ "size", required_argument, NULL, 's' },
	{ "metric", required_argument, NULL, 'm' },
	{ "normalize", no_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_size(const char *s, unsigned int *w, unsigned int *h)
{
	char *end;
	unsigned long a, b;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	a = strtoul(s, &end, 10);
	if (*end != 'x' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	b = strtoul(end + 1, &end, 10);
	if (*end || !a || !b || a > PLOT_MAX_SIZE || b > PLOT_MAX_SIZE)
		return -EINVAL;
	*w = a;
	*h = b;
	return 0;
}

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int plot_parse_args(int argc, char **argv, struct plot_params *p)
{
	enum gnuplot_term term;
	char *colon;
	int c;

	memset(p, 0, sizeof(*p));
	p->width = 800;
	p->height = 500;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-:o:k:t:s:m:nh", plot_options,
				NULL)) != -1) {
		switch (c) {
		case 1:
			if (p->nr_inputs == PLOT_MAX_INPUTS) {
				rs_error("plot: at most %d inputs",
					 PLOT_MAX_INPUTS);
				return RS_EXIT_USAGE;
			}
			p->inputs[p->nr_inputs++] = optarg;
			break;
		case 'o':
			p->output = optarg;
			break;
		case 'k':
			if (!strcmp(optarg, "hist")) {
				p->kind = PLOT_HIST;
			} else if (!strcmp(optarg, "cdf")) {
				p->kind = PLOT_CDF;
			} else if (!strcmp(optarg, "bars")) {
				p->kind = PLOT_BARS;
			} else if (!strcmp(optarg, "timeline")) {
				p->kind = PLOT_TIMELINE;
			} else {
				rs_error("plot: --kind '%s': use hist, cdf, bars or timeline",
					 optarg);
				return RS_EXIT_USAGE;
			}
			break;
		case 't':
			p->title = optarg;
			break;
		case 's':
			if (parse_size(optarg, &p->width, &p->height)) {
				rs_error("plot: --size '%s': give WIDTHxHEIGHT in pixels, 1 to %d each (e.g. 800x500)",
					 optarg, PLOT_MAX_SIZE);
				return RS_EXIT_USAGE;
			}
			break;
		case 'm':
			free(p->metric);
			p->metric = strdup(optarg);
			if (!p->metric) {
				rs_error("plot: out of memory");
				return RS_EXIT_FAIL;
			}
			break;
		case 'n':
			p->normalize = true;
			break;
		case 'h':
			plot_help();
			return -1;
		case ':':
			rs_error("plot: option '%s' needs a value",
				 argv[optind - 1]);
			plot_usage(stderr);
			return RS_EXIT_USAGE;
		default:
			rs_error("plot: unknown option '%s'", argv[optind - 1]);
			plot_usage(stderr);
			return RS_EXIT_USAGE;
		}
	}
	for (; optind < argc; optind++) {
		if (p->nr_inputs == PLOT_MAX_INPUTS) {
			rs_error("plot: at most %d inputs", PLOT_MAX_INPUTS);
			return RS_EXIT_USAGE;
		}
		p->inputs[p->nr_inputs++] = argv[optind];
	}
	if (!p->nr_inputs) {
		rs_error("plot: give at least one input");
		plot_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (!p->output) {
		rs_error("plot: give the image with -o OUT.png or -o OUT.svg");
		plot_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (gnuplot__term_for(p->output, &term)) {
		rs_error("plot: -o '%s': the image must end in .png or .svg",
			 p->output);
		return RS_EXIT_USAGE;
	}
	if (p->metric) {
		/* "read_ns:cpu.stat"; for report bars, "cgroup:EVENT" */
		colon = strchr(p->metric, ':');
		if (colon) {
			*colon = '\0';
			p->metric_qual = colon + 1;
		}
		if (!*p->metric) {
			rs_error("plot: --metric needs a name");
			return RS_EXIT_USAGE;
		}
	}
	if (p->normalize && p->kind != PLOT_HIST) {
		rs_error("plot: --normalize goes with --kind hist");
		return RS_EXIT_USAGE;
	}
	return 0;
}


/* ------------------------------------------------------------------ */

static struct series *series_add(struct plot_ctx *ctx, const char *input,
				 const char *what, const char *unit)
{
	struct series *s;
	size_t len;

	if (grow_array((void **)&ctx->series, &ctx->cap_series,
		       ctx->nr_series + 1, sizeof(*ctx->series)))
		return NULL;
	s = &ctx->series[ctx->nr_series];
	memset(s, 0, sizeof(*s));
	len = strlen(input) + (what ? strlen(what) + 2 : 0) + 1;
	s->name = malloc(len);
	if (!s->name)
		return NULL;
	if (what)
		snprintf(s->name, len, "%s: %s", input, what);
	else
		snprintf(s->name, len, "%s", input);
	/* The input's strings go with it: keep a copy. */
	s->unit = strdup(unit ? unit : "");
	if (!s->unit) {
		free(s->name);
		return NULL;
	}
	ctx->nr_series++;
	return s;
}

static void series_free(struct series *s)
{
	free(s->name);
	free(s->unit);
	free(s->samples);
	free(s->x);
	free(s->y);
}

/* The bucket index of a log2 row {low, high}: 1 for {0, 1}. */
static int row_index(uint64_t low)
{
	return low ? hist__bucket_index(low) : 1;
}

static int add_buckets(struct series *s, const struct hist_bucket *b,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int idx = row_index(b[i].low);

		if (idx >= HIST_MAX_BUCKETS)
			return -EINVAL;
		s->buckets[idx] += b[i].count;
	}
	return 0;
}

static int add_samples(struct series *s, const uint64_t *v, size_t n)
{
	uint64_t *ns;

	if (!n)
		return 0;
	ns = realloc(s->samples, (s->nr_samples + n) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	memcpy(ns + s->nr_samples, v, n * sizeof(*ns));
	s->samples = ns;
	s->nr_samples += n;
	return 0;
}

/* The index of a bar segment by label, added when new; -ENOMEM. */
static int seg_index(struct plot_ctx *ctx, const char *label)
{
	size_t i;

	for (i = 0; i < ctx->nr_segs; i++)
		if (!strcmp(ctx->segs[i], label))
			return i;
	if (grow_array((void **)&ctx->segs, &ctx->cap_segs, ctx->nr_segs + 1,
		       sizeof(*ctx->segs)))
		return -ENOMEM;
	ctx->segs[ctx->nr_segs] = strdup(label);
	if (!ctx->segs[ctx->nr_segs])
		return -ENOMEM;
	return ctx->nr_segs++;
}

static int bar_set(struct plot_ctx *ctx, struct series *s, const char *label,
		   double value)
{
	int idx = seg_index(ctx, label);
	size_t i;

	if (idx < 0)
		return idx;
	if ((size_t)idx >= s->nr_points) {
		double *ny = realloc(s->y, (idx + 1) * sizeof(*ny));

		if (!ny)
			return -ENOMEM;
		for (i = s->nr_points; i <= (size_t)idx; i++)
			ny[i] = 0;
		s->y = ny;
		s->nr_points = idx + 1;
	}
	s->y[idx] += value;
	return 0;
}

static int set_bar_unit(struct plot_ctx *ctx, const char *input,
			const char *unit)
{
	if (!ctx->bar_unit) {
		ctx->bar_unit = strdup(unit);
		return ctx->bar_unit ? 0 : -ENOMEM;
	}
	if (strcmp(ctx->bar_unit, unit)) {
		rs_error("%s: bars in %s next to bars in %s: plot inputs of one kind (or pick one metric with --metric)",
			 input, unit, ctx->bar_unit);
		return -EINVAL;
	}
	return 0;
}

static bool metric_wanted(const struct plot_params *p, const char *name,
			  const char *qual)
{
	if (!p->metric)
		return true;
	if (strcmp(p->metric, name))
		return false;
	return !p->metric_qual || (qual && !strcmp(p->metric_qual, qual));
}

/* A report's event named by --metric, the colon being part of its name. */
static bool event_wanted(const struct plot_params *p, const char *ev)
{
	size_t n = strlen(p->metric);

	if (!p->metric_qual)
		return !strcmp(ev, p->metric);
	return !strncmp(ev, p->metric, n) && ev[n] == ':' &&
	       !strcmp(ev + n + 1, p->metric_qual);
}

static int metric_label(char *buf, size_t len, const struct bench_metric *m)
{
	return snprintf(buf, len, "%s%s%s", m->name, m->file ? " " : "",
			m->file ? m->file : "");
}

/*
 * A bench results file: each distribution (name, file), summed over the
 * repetitions; or, for bars, each metric's mean over them.
 */
static int load_bench(struct plot_ctx *ctx, const char *input,
		      const struct json_input *ji)
{
	const struct plot_params *p = ctx->p;
	struct bench_results *r;
	struct series *bar = NULL;
	char err[512], label[256];
	size_t rep, i, found = 0;
	bool has_hist = false;
	int ret;

	ret = bench_results__read_mem(&r, ji->buf, ji->len, ji->path, err,
				      sizeof(err));
	if (ret) {
		if (ret == -ENOMEM)
			rs_error("plot: out of memory");
		else
			rs_error("%s", err);
		return -EINVAL;
	}
	if (p->kind == PLOT_BARS) {
		bar = series_add(ctx, input, NULL, NULL);
		if (!bar)
			goto nomem;
	}
	for (i = 0; i < bench_results__nr_metrics(r, 0); i++)
		has_hist |= bench_results__metric(r, 0, i)->is_hist;
	/* The metrics of the first repetition name the series. */
	for (i = 0; i < bench_results__nr_metrics(r, 0); i++) {
		const struct bench_metric *m0 = bench_results__metric(r, 0, i);
		struct series *s = NULL;
		double sum = 0;
		size_t nr = 0;

		if (!metric_wanted(p, m0->name, m0->file))
			continue;
		/*
		 * Bars of single figures when asked for by name, or when the
		 * run has nothing else (fault: faults/s; pipe: round trips).
		 */
		if (!m0->is_hist &&
		    (p->kind != PLOT_BARS || (!p->metric && has_hist)))
			continue;
		found++;
		metric_label(label, sizeof(label), m0);
		if (bar) {
			ret = set_bar_unit(ctx, input, m0->unit);
			if (ret)
				goto out;
		} else {
			s = series_add(ctx, input, label, m0->unit);
			if (!s)
				goto nomem;
		}
		for (rep = 0; rep < bench_results__nr_reps(r); rep++) {
			const struct bench_metric *m =
				bench_results__metric_find(r, rep, m0->name,
							   m0->file);

			if (!m || m->is_hist != m0->is_hist)
				continue;
			if (bar) {
				sum += m->is_hist ? m->mean : m->value;
				nr++;
				continue;
			}
			if (add_buckets(s, m->buckets, m->nr_buckets))
				goto bad_hist;
			/* The samples of each repetition, in order. */
			if (add_samples(s, m->samples, m->nr_samples))
				goto nomem;
		}
		if (bar && nr && bar_set(ctx, bar, label, sum / nr))
			goto nomem;
	}
	if (!found) {
		if (p->metric)
			rs_error("%s: no metric '%s%s%s' (a distribution, or for bars any metric)",
				 input, p->metric, p->metric_qual ? ":" : "",
				 p->metric_qual ? p->metric_qual : "");
		else
			rs_error("%s: no distribution metrics to plot",
				 input);
		ret = -EINVAL;
	}
	goto out;
bad_hist:
	rs_error("%s: a histogram row beyond 2^64", input);
	ret = -EINVAL;
	goto out;
nomem:
	rs_error("plot: out of memory");
	ret = -ENOMEM;
out:
	bench_results__delete(r);
	return ret;
}

/* report --json: spans' hist rows, or the attribution shares. */
static int load_report(struct plot_ctx *ctx, const char *input,
		       const struct jv *root)
{
	const struct plot_params *p = ctx->p;
	const struct jv *arr;
	const char *first_event = NULL;
	size_t i, j, found = 0;
	struct series *bar;
	int ret;

	if (p->kind == PLOT_BARS) {
		arr = jv__get(root, "attribution");
		if (!arr || arr->type != J_ARR) {
			rs_error("%s: no \"attribution\" array: not report --json output", input);
			return -EINVAL;
		}
		ret = set_bar_unit(ctx, input, "%");
		if (ret)
			return ret;
		bar = series_add(ctx, input, NULL, NULL);
		if (!bar)
			goto nomem;
		/*
		 * The flush categories' shares of the flush samples: of all
		 * samples they are slivers beside "other". Without any
		 * flush sample, the shares of all samples.
		 */
		for (j = 0; j < 2 && !found; j++)
		for (i = 0; i < arr->n; i++) {
			const struct jv *a = &arr->items[i];
			const char *ev = jv__str(a, "event");
			const char *cat = jv__str(a, "category");
			const struct jv *share = jv__get(a, j ? "share" :
						     "flush_share");

			if (!j && (!share || share->type != J_NUM))
				continue;
			if (!ev || !cat || !share || share->type != J_NUM) {
				rs_error("%s: attribution row %zu lacks event, category or share",
					 input, i);
				return -EINVAL;
			}
			/* One event's shares per bar: the asked or first. */
			if (p->metric ? !event_wanted(p, ev) :
			    (first_event && strcmp(ev, first_event)))
				continue;
			first_event = ev;
			found++;
			if (bar_set(ctx, bar, cat, share->num * 100))
				goto nomem;
		}
		if (!found) {
			if (p->metric)
				rs_error("%s: no attribution for event '%s%s%s'",
					 input, p->metric,
					 p->metric_qual ? ":" : "",
					 p->metric_qual ? p->metric_qual : "");
			else
				rs_error("%s: empty attribution", input);
			return -EINVAL;
		}
		return 0;
	}
	arr = jv__get(root, "spans");
	if (!arr || arr->type != J_ARR) {
		rs_error("%s: no \"spans\" array: not report --json output",
			 input);
		return -EINVAL;
	}
	for (i = 0; i < arr->n; i++) {
		const struct jv *sp = &arr->items[i];
		const char *name = jv__str(sp, "name");
		const char *sub = jv__str(sp, "subsystem");
		const struct jv *hist = jv__get(sp, "hist");
		char what[256];
		struct series *s;

		if (!name || !hist || hist->type != J_ARR) {
			rs_error("%s: span %zu lacks a name or hist", input,
				 i);
			return -EINVAL;
		}
		if (!metric_wanted(p, name, sub))
			continue;
		snprintf(what, sizeof(what), "%s%s%s", name, sub ? " " : "",
			 sub ? sub : "");
		s = series_add(ctx, input, what, "ns");
		if (!s)
			goto nomem;
		found++;
		for (j = 0; j < hist->n; j++) {
			const struct jv *low = jv__get(&hist->items[j], "low");
			const struct jv *cnt = jv__get(&hist->items[j], "count");
			struct hist_bucket b;

			if (!low || !cnt || !low->is_u64 || !cnt->is_u64) {
				rs_error("%s: span '%s': hist row %zu lacks low or count",
					 input, what, j);
				return -EINVAL;
			}
			b.low = low->u;
			b.count = cnt->u;
			if (add_buckets(s, &b, 1)) {
				rs_error("%s: span '%s': a hist row beyond 2^64",
					 input, what);
				return -EINVAL;
			}
		}
	}
	if (!found) {
		if (p->metric)
			rs_error("%s: no span '%s%s%s'", input, p->metric,
				 p->metric_qual ? ":" : "",
				 p->metric_qual ? p->metric_qual : "");
		else
			rs_error("%s: no spans (record the rstat tracepoints, or give --span to report)",
				 input);
		return -EINVAL;
	}
	return 0;
nomem:
	rs_error("plot: out of memory");
	return -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* timeline: lock hold times from a recording.                          */

struct tl_ctx {
	struct series *s;
	size_t cap_points;
	struct machine *machine;
	struct analysis *an;
};

static int tl_point(struct tl_ctx *ctx, double x, double y)
{
	struct series *s = ctx->s;

	if (s->nr_points == ctx->cap_points) {
		size_t ncap = ctx->cap_points ? ctx->cap_points * 2 : 256;
		double *nx = realloc(s->x, ncap * sizeof(*nx));

		if (!nx)
			return -ENOMEM;
		s->x = nx;
		nx = realloc(s->y, ncap * sizeof(*nx));
		if (!nx)
			return -ENOMEM;
		s->y = nx;
		ctx->cap_points = ncap;
	}
	s->x[s->nr_points] = x;
	s->y[s->nr_points] = y;
	s->nr_points++;
	return 0;
}

/*
 * Each hold as report pairs it (the analyses' spans, so the rules are
 * the same): x the locked time, made relative to the recording's first
 * sample once it is known, y the hold in us.
 */
static int tl_hold(void *arg, uint64_t locked_time, uint64_t hold_ns)
{
	return tl_point(arg, locked_time / 1e9, hold_ns / 1e3);
}

static int tl_event(void *arg, const struct rs_event *ev)
{
	struct tl_ctx *ctx = arg;

	return analysis__event(ctx->an, ev);
}

static int load_recording(struct plot_ctx *ctx, const char *input)
{
	struct tl_ctx tl = { 0 };
	struct analysis_opts o = { 0 };
	struct perf_data *pd = NULL;
	struct rules *rules = NULL;
	uint64_t first = 0, last, i;
	const char *msg;
	int err;

	if (ctx->p->kind != PLOT_TIMELINE) {
		rs_error("%s: a recording plots only as --kind timeline; for the others give `report --json` output of it",
			 input);
		return -EINVAL;
	}
	tl.s = series_add(ctx, input, NULL, "us");
	err = tl.s ? perf_data__open(&pd, input) : -ENOMEM;
	if (!err) {
		rules = rules__new();
		tl.machine = machine__new();
		o.rules = rules;
		o.os_release = perf_data__header(pd)->os_release;
		tl.an = rules && tl.machine ?
			analysis__new(&o, tl.machine) : NULL;
		if (!tl.an)
			err = -ENOMEM;
	}
	if (!err) {
		spans__set_hold_fn(analysis__spans(tl.an), tl_hold, &tl);
		err = perf_data__process(pd, tl_event, &tl);
	}
	if (err) {
		msg = pd ? perf_data__strerror(pd) : "";
		if (err == -ENOMEM)
			rs_error("plot: out of memory");
		else if (msg && *msg)
			rs_error("%s: %s", input, msg);
		else
			rs_error("%s: %s", input, strerror(-err));
		err = -EINVAL;
	} else if (!tl.s->nr_points) {
		rs_error("%s: no cgroup:cgroup_rstat_locked/unlock pairs with root, id and cpu fields: record them with `rstat-analyze record`",
			 input);
		err = -EINVAL;
	} else {
		analysis__time_range(tl.an, &first, &last);
		for (i = 0; i < tl.s->nr_points; i++)
			tl.s->x[i] -= first / 1e9;
	}
	analysis__delete(tl.an);
	machine__delete(tl.machine);
	rules__delete(rules);
	perf_data__delete(pd);
	return err;
}

/*
 * Read and tell apart one input, as compare does (json-input.c): bench
 * results (a file, or the directory bench -o wrote), report --json
 * output, or a recording for --kind timeline.
 */
static int load_input(struct plot_ctx *ctx, const char *input)
{
	struct json_input ji;
	char err[512];
	int ret;

	ret = json_input__load(&ji, input, JSON_INPUT_RECORDINGS, err,
			       sizeof(err));
	if (ret == -ENOMEM) {
		rs_error("plot: out of memory");
		return ret;
	}
	if (ctx->p->kind == PLOT_TIMELINE &&
	    (ret == -EINVAL || ret == -EFBIG ||
	     (!ret && ji.kind != JSON_INPUT_RECORDING))) {
		rs_error("%s: not a recording (no PERFILE2 magic): --kind timeline reads perf.data",
			 input);
		json_input__release(&ji);
		return -EINVAL;
	}
	if (ret) {
		rs_error("%s", err);
		return ret;
	}
	switch (ji.kind) {
	case JSON_INPUT_RECORDING:
		ret = load_recording(ctx, input);
		break;
	case JSON_INPUT_BENCH:
		ret = load_bench(ctx, input, &ji);
		break;
	case JSON_INPUT_PROFILE:
		ret = load_report(ctx, input, &ji.doc);
		break;
	}
	json_input__release(&ji);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Writing OUT.dat and OUT.gp.                                          */

struct display_unit {
	double div;
	const char *label;
};

/* Nanoseconds shown in the unit that keeps numbers readable. */
static struct display_unit pick_unit(const char *unit, double max)
{
	if (!unit || strcmp(unit, "ns"))
		return (struct display_unit){ 1, unit ? unit : "" };
	if (max < 1e4)
		return (struct display_unit){ 1, "ns" };
	if (max < 1e7)
		return (struct display_unit){ 1e3, "us" };
	return (struct display_unit){ 1e6, "ms" };
}

/* All series in one unit, or an error naming the odd one. */
static int check_units(const struct plot_ctx *ctx)
{
	size_t i;

	for (i = 1; i < ctx->nr_series; i++) {
		if (strcmp(ctx->series[i].unit, ctx->series[0].unit)) {
			rs_error("%s: in %s, %s in %s: plot distributions of one unit (pick one with --metric)",
				 ctx->series[i].name, ctx->series[i].unit,
				 ctx->series[0].name, ctx->series[0].unit);
			return -EINVAL;
		}
	}
	return 0;
}

static void bucket_bounds(int idx, uint64_t *low, uint64_t *high)
{
	*low = idx <= 1 ? 0 : 1ULL << (idx - 1);
	*high = idx == 64 ? UINT64_MAX : (1ULL << idx) - 1;
}

static void plot_titles(FILE *gp, const struct plot_ctx *ctx, size_t i)
{
	fputs(" title ", gp);
	gnuplot__quote(gp, ctx->series[i].name);
}

/* A bucket bound for a label: whole numbers from 100, else 3 digits. */
static void print_bound(FILE *out, double v)
{
	if (v >= 100)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.3g", v);
}

/* The characters print_bound() writes. */
static int label_len(double v)
{
	char buf[32];

	return snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : "%.3g", v);
}

static int write_hist(const struct plot_ctx *ctx, FILE *dat, FILE *gp,
		      const char *dat_name)
{
	const struct plot_params *p = ctx->p;
	int lo = HIST_MAX_BUCKETS, hi = -1, b;
	uint64_t low, high;
	struct display_unit du;
	size_t i;

	if (check_units(ctx))
		return -EINVAL;
	for (i = 0; i < ctx->nr_series; i++) {
		for (b = 0; b < HIST_MAX_BUCKETS; b++) {
			if (!ctx->series[i].buckets[b])
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	if (hi < 0) {
		rs_error("%s: every histogram is empty: nothing to plot",
			 ctx->series[0].name);
		return -EINVAL;
	}
	/* Values of 0 are counted in the first row, {0, 1}. */
	if (lo == 0)
		lo = 1;
	/* The unit of the smallest row keeps every label short. */
	bucket_bounds(lo, &low, &high);
	du = pick_unit(ctx->series[0].unit, (double)high * 10);
	fprintf(dat, "# rstat-analyze plot --kind hist: log2 buckets in %s; columns: bucket index, label, then %s per series in the order of the .gp's plot\n",
		du.label, p->normalize ? "share" : "count");
	for (b = lo; b <= hi; b++) {
		bucket_bounds(b, &low, &high);
		fprintf(dat, "%d \"", b);
		print_bound(dat, low / du.div);
		fputc('-', dat);
		print_bound(dat, high / du.div);
		fputc('"', dat);
		for (i = 0; i < ctx->nr_series; i++) {
			const struct series *s = &ctx->series[i];
			uint64_t n = s->buckets[b] + (b == 1 ? s->buckets[0] : 0);

			if (p->normalize) {
				uint64_t total = 0;
				int k;

				for (k = 0; k < HIST_MAX_BUCKETS; k++)
					total += s->buckets[k];
				fprintf(dat, " %.10g", total ? (double)n / total : 0);
			} else {
				fprintf(dat, " %" PRIu64, n);
			}
		}
		fputc('\n', dat);
	}
	fputs("set style data histograms\n"
	      "set style histogram clustered gap 1\n"
	      "set style fill solid 0.85 border -1\n"
	      "set xtics rotate by -45 scale 0 nomirror\n"
	      "set grid ytics\n"
	      "set yrange [0:*]\n"
	      "set key top right\n", gp);
	/*
	 * A label rotated by -45 runs right of its tic by 0.7 of its
	 * length: leave room for the last one, which gnuplot's automatic
	 * margin does not count (it was clipped at the image's edge).
	 */
	bucket_bounds(hi, &low, &high);
	fprintf(gp, "set rmargin %d\n",
		(int)(0.75 * (label_len(low / du.div) +
			      label_len(high / du.div) + 1)) + 3);
	fprintf(gp, "set xlabel \"log2 bucket (%s)\"\n", du.label);
	fprintf(gp, "set ylabel \"%s\"\n", p->normalize ? "share" : "count");
	fputs("plot ", gp);
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", \\\n     ", gp);
		gnuplot__quote(gp, dat_name);
		if (i)
			fprintf(gp, " using %zu", i + 3);
		else
			fputs(" using 3:xtic(2)", gp);
		plot_titles(gp, ctx, i);
	}
	fputc('\n', gp);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int write_cdf(const struct plot_ctx *ctx, FILE *dat, FILE *gp,
		     const char *dat_name)
{
	struct display_unit du;
	double max = 0;
	bool positive = true;
	size_t i, j;
	int b;

	if (check_units(ctx))
		return -EINVAL;
	for (i = 0; i < ctx->nr_series; i++) {
		struct series *s = &ctx->series[i];
		uint64_t total = 0, low, high;

		if (s->nr_samples) {
			qsort(s->samples, s->nr_samples, sizeof(*s->samples),
			      cmp_u64);
			max = fmax(max, s->samples[s->nr_samples - 1]);
			positive &= s->samples[0] > 0;
			continue;
		}
		for (b = 0; b < HIST_MAX_BUCKETS; b++) {
			total += s->buckets[b];
			if (s->buckets[b]) {
				bucket_bounds(b, &low, &high);
				max = fmax(max, high);
			}
		}
		if (!total) {
			rs_error("%s: an empty distribution has no CDF",
				 s->name);
			return -EINVAL;
		}
	}
	du = pick_unit(ctx->series[0].unit, max);
	fprintf(dat, "# rstat-analyze plot --kind cdf: one block per series (gnuplot index 0, 1, ...); columns: value (%s), fraction of values <= it\n",
		du.label);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];
		uint64_t total = 0, cum = 0, low, high;

		fprintf(dat, "%s# series %zu\n", i ? "\n\n" : "", i);
		if (s->nr_samples) {
			/* Exact: one step per distinct value. */
			for (j = 0; j < s->nr_samples; j++) {
				if (j + 1 < s->nr_samples &&
				    s->samples[j + 1] == s->samples[j])
					continue;
				fprintf(dat, "%.10g %.10g\n",
					s->samples[j] / du.div,
					(double)(j + 1) / s->nr_samples);
			}
			continue;
		}
		for (b = 0; b < HIST_MAX_BUCKETS; b++)
			total += s->buckets[b];
		/* From buckets: all of a row counts as reached at its top. */
		for (b = 0; b < HIST_MAX_BUCKETS; b++) {
			if (!s->buckets[b])
				continue;
			cum += s->buckets[b];
			bucket_bounds(b < 1 ? 1 : b, &low, &high);
			fprintf(dat, "%.10g %.10g\n", high / du.div,
				(double)cum / total);
		}
	}
	fputs("set grid\n"
	      "set key bottom right\n"
	      "set yrange [0:1]\n"
	      "set ylabel \"fraction of values <= x\"\n", gp);
	fprintf(gp, "set xlabel \"latency (%s)\"\n", du.label);
	/* Latencies span decades; a log axis needs no zero values. */
	if (positive)
		fputs("set logscale x\n", gp);
	fputs("plot ", gp);
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", \\\n     ", gp);
		gnuplot__quote(gp, dat_name);
		fprintf(gp, " index %zu using 1:2 with steps lw 2", i);
		plot_titles(gp, ctx, i);
	}
	fputc('\n', gp);
	return 0;
}

static int write_bars(const struct plot_ctx *ctx, FILE *dat, FILE *gp,
		      const char *dat_name)
{
	struct display_unit du;
	double max = 0;
	size_t i, j;

	for (i = 0; i < ctx->nr_series; i++)
		for (j = 0; j < ctx->series[i].nr_points; j++)
			max = fmax(max, ctx->series[i].y[j]);
	du = pick_unit(ctx->bar_unit, max);
	fprintf(dat, "# rstat-analyze plot --kind bars: one row per input (the xtics of the .gp); columns: index, then one per segment (%s) in the order of the .gp's plot\n",
		du.label);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];

		fprintf(dat, "%zu", i);
		for (j = 0; j < ctx->nr_segs; j++)
			fprintf(dat, " %.10g",
				j < s->nr_points ? s->y[j] / du.div : 0);
		fputc('\n', dat);
	}
	fputs("set style data histograms\n"
	      "set style histogram rowstacked\n"
	      "set style fill solid 0.85 border -1\n"
	      "set boxwidth 0.6\n"
	      "set grid ytics\n"
	      "set yrange [0:*]\n"
	      "set key outside right top\n"
	      "set xtics nomirror rotate by -20 (", gp);
	/* Input names go in the script, quoted: they may hold anything. */
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", ", gp);
		gnuplot__quote(gp, ctx->series[i].name);
		fprintf(gp, " %zu", i);
	}
	fputs(")\n", gp);
	if (!strcmp(du.label, "%"))
		fputs("set ylabel \"share of the event's flush samples (%)\"\n", gp);
	else
		fprintf(gp, "set ylabel \"mean (%s)\"\n", du.label);
	fputs("plot ", gp);
	for (j = 0; j < ctx->nr_segs; j++) {
		if (j)
			fputs(", \\\n     ", gp);
		gnuplot__quote(gp, dat_name);
		fprintf(gp, " using %zu title ", j + 2);
		gnuplot__quote(gp, ctx->segs[j]);
	}
	fputc('\n', gp);
	return 0;
}

static int write_timeline(const struct plot_ctx *ctx, FILE *dat, FILE *gp,
			  const char *dat_name)
{
	bool positive = true;
	double max = 0;
	size_t i, j;

	fputs("# rstat-analyze plot --kind timeline: one block per recording (gnuplot index 0, 1, ...); columns: lock time since the recording's first sample (s), hold time (us)\n",
	      dat);
	for (i = 0; i < ctx->nr_series; i++) {
		const struct series *s = &ctx->series[i];

		fprintf(dat, "%s# series %zu\n", i ? "\n\n" : "", i);
		for (j = 0; j < s->nr_points; j++) {
			fprintf(dat, "%.10g %.10g\n", s->x[j], s->y[j]);
			positive &= s->y[j] > 0;
			max = fmax(max, s->y[j]);
		}
	}
	fputs("set grid\n"
	      "set key top right\n"
	      "set xlabel \"time since the recording's first sample (s)\"\n",
	      gp);
	/*
	 * Holds span decades: most take microseconds, and one of 14 ms on
	 * a linear axis flattens all the others into a line at zero. A log
	 * axis shows both; it needs no hold of 0 (below the clock's tick).
	 */
	if (positive && max > 0) {
		fputs("set logscale y\n"
		      "set ylabel \"lock hold time (us, log scale)\"\n", gp);
	} else {
		fputs("set ylabel \"lock hold time (us)\"\n"
		      "set yrange [0:*]\n", gp);
	}
	fputs("plot ", gp);
	for (i = 0; i < ctx->nr_series; i++) {
		if (i)
			fputs(", \\\n     ", gp);
		gnuplot__quote(gp, dat_name);
		fprintf(gp, " index %zu using 1:2 with points pt 7 ps 0.6", i);
		plot_titles(gp, ctx, i);
	}
	fputc('\n', gp);
	return 0;
}

/* Rename a finished companion file into place; report a failure once. */
static int commit_checked(struct outfile *of, const char *name, int ret)
{
	int err;

	if (ret) {
		outfile__abort(of);
		return ret;
	}
	err = outfile__commit(of);
	if (err)
		rs_error("%s: cannot write: %s", name, strerror(-err));
	return err;
}

static int open_output(struct outfile **of, const char *name)
{
	int err = outfile__open(of, name);

	if (err)
		rs_error("%s: cannot write: %s", name, outfile__strerror(err));
	return err;
}

/*
 * The .dat and .gp are written beside their names and renamed into place
 * when whole; gnuplot draws into a file of ours beside the image, renamed
 * over it on success, so that no planted link at any of the three names
 * is ever written through (outfile.h).
 */
static int plot_write_and_run(const struct plot_ctx *ctx)
{
	const struct plot_params *p = ctx->p;
	char *gp_name = gnuplot__companion(p->output, ".gp");
	char *dat_name = gnuplot__companion(p->output, ".dat");
	struct outfile *gp_of = NULL, *dat_of = NULL, *img_of = NULL;
	FILE *gp = NULL, *dat = NULL;
	enum gnuplot_term term;
	char err[512];
	int ret = 0;

	if (!gp_name || !dat_name) {
		rs_error("plot: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	gnuplot__term_for(p->output, &term);
	ret = open_output(&dat_of, dat_name);
	if (ret)
		goto out;
	dat = outfile__stream(dat_of);
	ret = open_output(&gp_of, gp_name);
	if (ret)
		goto out;
	gp = outfile__stream(gp_of);
	fputs("# Written by rstat-analyze plot; restyle and rerun with `gnuplot FILE.gp`\n# from the directory plot ran in (the paths below are as it was given them).\n",
	      gp);
	ret = gnuplot__preamble(gp, term, p->width, p->height, p->output,
				p->title);
	if (ret)
		goto out;
	switch (p->kind) {
	case PLOT_HIST:
		ret = write_hist(ctx, dat, gp, dat_name);
		break;
	case PLOT_CDF:
		ret = write_cdf(ctx, dat, gp, dat_name);
		break;
	case PLOT_BARS:
		ret = write_bars(ctx, dat, gp, dat_name);
		break;
	case PLOT_TIMELINE:
		ret = write_timeline(ctx, dat, gp, dat_name);
		break;
	}
out:
	if (dat_of)
		ret = commit_checked(dat_of, dat_name, ret);
	if (gp_of)
		ret = commit_checked(gp_of, gp_name, ret);
	if (ret)
		goto done;
	ret = open_output(&img_of, p->output);
	if (ret)
		goto done;
	ret = gnuplot__run(gp_name, outfile__temp_path(img_of), err,
			   sizeof(err));
	if (ret == -ENOENT)
		rs_error("gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox), then rerun, or run `gnuplot %s` yourself",
			 gp_name);
	else if (ret == -EIO)
		rs_error("gnuplot failed on %s: %s", gp_name, err);
	else if (ret)
		rs_error("cannot run gnuplot: %s", strerror(-ret));
	ret = commit_checked(img_of, p->output, ret);
done:
	free(gp_name);
	free(dat_name);
	return ret;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_params params;
	struct plot_ctx ctx = { .p = &params };
	size_t i;
	int ret, status = RS_EXIT_OK;

	ret = plot_parse_args(argc, argv, &params);
	if (ret < 0) {
		free(params.metric);
		return rs_finish_stdout(RS_EXIT_OK);
	}
	if (ret) {
		free(params.metric);
		return ret;
	}
	for (i = 0; i < (size_t)params.nr_inputs; i++) {
		if (load_input(&ctx, params.inputs[i])) {
			status = RS_EXIT_FAIL;
			goto out;
		}
	}
	if (plot_write_and_run(&ctx))
		status = RS_EXIT_FAIL;
out:
	for (i = 0; i < ctx.nr_series; i++)
		series_free(&ctx.series[i]);
	free(ctx.series);
	for (i = 0; i < ctx.nr_segs; i++)
		free(ctx.segs[i]);
	free(ctx.segs);
	free(ctx.bar_unit);
	free(params.metric);
	return rs_finish_stdout(status);
}
