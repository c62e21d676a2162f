// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze plot: gnuplot charts of one or more runs. The script, its
 * data inline, goes to OUT.png.gp and the data alone to OUT.png.dat
 * beside the image (OUT.svg.* for an SVG: each image its own), both kept,
 * and gnuplot (a program, run with an argv, as nobody when we are root)
 * draws the image from that script given over a pipe.
 *
 * Inputs are bench results files (docs/bench-results.md; their
 * "breakdown" for --kind breakdown), `report --json` output, or
 * recordings (perf.data, for --kind timeline).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "gnuplot.h"
#include "outfile.h"
#include "parse-options.h"
#include "plot.h"
#include "util.h"

#define PLOT_MAX_INPUTS 64
#define PLOT_MAX_SIZE 10000

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

static const char plot_about[] =
	"Chart one or more runs with gnuplot. The script (OUT.png.gp),\n"
	"its data inline, and the data alone (OUT.png.dat) are kept\n"
	"beside the image: restyle and rerun with `gnuplot OUT.png.gp`.\n"
	"Text from the inputs is only ever quoted data to gnuplot, which\n"
	"plot runs on a pipe, with -d, and as nobody when run as root.\n"
	"\n"
	"INPUT is bench results (bench --json FILE, the DIR of bench\n"
	"-o DIR, or of a multi-kernel bench: a series per kernel),\n"
	"`report --json` output, or, for --kind timeline, a recording\n"
	"(perf.data).\n";

static const char plot_epilogue[] =
	"Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	"See rstat-analyze-plot(1).\n";

/* --kind's words, in the order of enum plot_kind. */
static const char *const plot_kinds[] = {
	[PLOT_HIST] = "hist",
	[PLOT_CDF] = "cdf",
	[PLOT_BARS] = "bars",
	[PLOT_TIMELINE] = "timeline",
	[PLOT_BREAKDOWN] = "breakdown",
	NULL,
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

static int size_option(const struct popt *opt, const char *arg, char *err,
		       size_t errlen)
{
	struct plot_params *p = opt->value;

	return parse_size(arg, &p->width, &p->height);
}

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int plot_parse_args(int argc, char **argv, struct plot_params *p)
{
	const char *metric = NULL;
	int kind = PLOT_HIST;
	const struct popt opts[] = {
		{ POPT_STRING('o', "output", &p->output, "FILE",
			      "the image: .png (pngcairo) or .svg"),
		  .usage = "-o OUT.png|OUT.svg" },
		{ POPT_ENUM('k', "kind", &kind, "KIND", plot_kinds,
			    "hist: log2 latency histograms (default)\n"
			    "cdf: latency CDFs (bench samples, else buckets)\n"
			    "bars: stacked attribution shares (report) or\n"
			    "per-metric means (bench), one bar per input\n"
			    "timeline: flush lock hold times over the\n"
			    "recording (cgroup_rstat_locked/unlock pairs)\n"
			    "breakdown: where a read's time goes (bench's\n"
			    "breakdown, or record's targets' as report's\n"
			    "JSON has it), a bar per input and stat file\n"
			    "stacked by part: its mean time per read"),
		  .hint = "use hist, cdf, bars, timeline or breakdown",
		  .flags = POPT_SAY_LONG },
		{ POPT_STRING('t', "title", &p->title, "TEXT",
			      "the chart's title"),
		  .usage = "[--title T]" },
		{ POPT_CALLBACK('s', "size", p, "WxH", size_option,
				"image size in pixels (default 800x500)"),
		  .hint = "give WIDTHxHEIGHT in pixels, 1 to 10000 each (e.g. 800x500)",
		  .flags = POPT_SAY_LONG | POPT_REPEAT,
		  .usage = "[--size WxH]" },
		{ POPT_STRING('m', "metric", &metric, "NAME[:QUAL]",
			      "only this distribution: a bench metric\n"
			      "and its stat file, a report span and its\n"
			      "subsystem; for bars of report output, the\n"
			      "event; for breakdown, the stat file") },
		{ POPT_FLAG('n', "normalize", &p->normalize,
			    "hist: shares instead of counts; breakdown:\n"
			    "shares of the mean read (%)") },
		POPT_HELP_ROW,
		POPT_END_ROW,
	};
	const struct popt_cmd cmd = {
		.name = "plot",
		.opts = opts,
		.usage_long = true,
		.dashdash = POPT_IN_ORDER,
		.max_operands = -1,
		.synopsis_pre = "INPUT...",
		.about = plot_about,
		.epilogue = plot_epilogue,
	};
	struct popt_args args;
	enum gnuplot_term term;
	char *colon;
	int ret, i;

	memset(p, 0, sizeof(*p));
	p->width = 800;
	p->height = 500;
	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (ret)
		return ret;
	p->kind = kind;
	for (i = 0; i < args.nr && i < PLOT_MAX_INPUTS; i++)
		p->inputs[p->nr_inputs++] = args.operands[i];
	free(args.operands);
	if (i < args.nr) {
		rs_error("plot: at most %d inputs", PLOT_MAX_INPUTS);
		return RS_EXIT_USAGE;
	}
	if (metric) {
		p->metric = strdup(metric);
		if (!p->metric) {
			rs_error("plot: out of memory");
			return RS_EXIT_FAIL;
		}
	}
	if (!p->nr_inputs) {
		rs_error("plot: give at least one input");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	if (!p->output) {
		rs_error("plot: give the image with -o OUT.png or -o OUT.svg");
		popt__usage(&cmd, stderr);
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
	if (p->normalize && p->kind != PLOT_HIST && p->kind != PLOT_BREAKDOWN) {
		rs_error("plot: --normalize goes with --kind hist or breakdown");
		return RS_EXIT_USAGE;
	}
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
		rs_error("%s: cannot write: %s", name, outfile__strerror(err));
	return err;
}

static int plot_stopped(const struct plot_params *p)
{
	rs_error("plot: stopped by signal %d: %s not written",
		 rs_stop_signal(), p->output);
	return -EINTR;
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
 * when whole. gnuplot is given the .gp's text over a pipe, never the file
 * by name, and hands back the image over another, which we write beside
 * the image and rename over it on success, so that no planted link or
 * FIFO at any of the three names is ever written through or read from
 * (outfile.h), and gnuplot (as nobody, when we are root) needs to open
 * nothing.
 */
static int plot_write_and_run(const struct plot_params *p, struct plot *pl)
{
	char *gp_name = gnuplot__companion(p->output, ".gp");
	char *dat_name = gnuplot__companion(p->output, ".dat");
	struct plot_image img = {
		.width = p->width,
		.height = p->height,
		.path = p->output,
		.title = p->title,
	};
	struct outfile *dat_of = NULL, *gp_of = NULL, *img_of = NULL;
	struct plot_text text = { 0 };
	struct iovec script[3];
	char err[4096];
	int i, ret = 0;

	if (!gp_name || !dat_name) {
		rs_error("plot: out of memory");
		ret = -ENOMEM;
		goto done;
	}
	gnuplot__term_for(p->output, &img.term);
	/*
	 * SIGINT, SIGTERM or SIGHUP while the files are written or gnuplot
	 * draws: finish waiting for gnuplot, then drop what is not yet in
	 * place, so that no temporary file is left beside the outputs.
	 */
	rs_catch_stop_signals();
	ret = plot__render(pl, &img, &text, err, sizeof(err));
	if (ret == -ENOMEM)
		rs_error("plot: out of memory");
	else if (ret)
		rs_error("%s", err);
	if (ret)
		goto done;
	script[0] = (struct iovec){ text.head, text.head_len };
	script[1] = (struct iovec){ text.data, text.data_len };
	script[2] = (struct iovec){ text.tail, text.tail_len };
	/* All three open before any is renamed: a refused one leaves none. */
	ret = open_output(&dat_of, dat_name);
	if (!ret)
		ret = open_output(&gp_of, gp_name);
	if (!ret)
		ret = open_output(&img_of, p->output);
	if (!ret) {
		fwrite(text.data, 1, text.data_len, outfile__stream(dat_of));
		for (i = 0; i < 3; i++)
			fwrite(script[i].iov_base, 1, script[i].iov_len,
			       outfile__stream(gp_of));
		if (rs_stop_signal())
			ret = plot_stopped(p);
	}
	if (dat_of)
		ret = commit_checked(dat_of, dat_name, ret);
	if (gp_of)
		ret = commit_checked(gp_of, gp_name, ret);
	if (ret) {
		outfile__abort(img_of);
		goto done;
	}
	ret = gnuplot__run(script, 3, outfile__stream(img_of), err,
			   sizeof(err));
	if (rs_stop_signal())
		ret = plot_stopped(p);
	else if (ret == -ENOENT)
		rs_error("gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox), then rerun, or run `gnuplot %s` yourself",
			 gp_name);
	else if (ret == -EACCES)
		rs_error("cannot run gnuplot as nobody (plot runs it without root's privileges): Permission denied: install it where every user can run it (Debian: apt-get install gnuplot-nox)");
	else if (ret == -EIO)
		rs_error("gnuplot failed on %s: %s", gp_name, err);
	else if (ret)
		rs_error("cannot run gnuplot: %s", *err ? err : strerror(-ret));
	ret = commit_checked(img_of, p->output, ret);
done:
	plot_text__release(&text);
	free(gp_name);
	free(dat_name);
	return ret;
}

/* One line for a failed load: the library's, or out of memory. */
static int load_inputs(const struct plot_params *p, struct plot *pl)
{
	char err[4096];
	int i, ret;

	for (i = 0; i < p->nr_inputs; i++) {
		ret = plot__load(pl, p->inputs[i], err, sizeof(err));
		if (ret == -ENOMEM)
			rs_error("plot: out of memory");
		else if (ret)
			rs_error("%s", err);
		if (ret)
			return ret;
	}
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_params params;
	struct plot_opts o = { 0 };
	struct plot *pl = NULL;
	int ret, status = RS_EXIT_FAIL;

	ret = plot_parse_args(argc, argv, &params);
	if (ret < 0) {
		free(params.metric);
		return rs_finish_stdout(RS_EXIT_OK);
	}
	if (ret) {
		free(params.metric);
		return ret;
	}
	o.kind = params.kind;
	o.metric = params.metric;
	o.metric_qual = params.metric_qual;
	o.normalize = params.normalize;
	pl = plot__new(&o);
	if (!pl)
		rs_error("plot: out of memory");
	else if (!load_inputs(&params, pl) && !plot_write_and_run(&params, pl))
		status = RS_EXIT_OK;
	plot__delete(pl);
	free(params.metric);
	return rs_finish_stdout(status);
}
