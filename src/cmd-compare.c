// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze compare: before/after tables from bench results files
 * (mmtests' statistics with Welch's t-test, time(1) means, ministat
 * verdicts), or side-by-side attribution shares and span histograms from
 * `report --json` profiles.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "compare.h"
#include "json-input.h"
#include "json.h"
#include "parse-options.h"

enum compare_format {
	FMT_TEXT,
	FMT_MARKDOWN,
	FMT_CSV,
	FMT_JSON,
};

struct compare_params {
	enum compare_format format;
	bool details;			/* --details */
	const char *labels_arg;		/* --labels A,B,C */
	char **files;			/* every file, side after side */
	size_t *side_start;		/* [nr_sides + 1] into files */
	size_t nr_sides, nr_files;
	char **opts;			/* the options, for the parser */
	int nr_opts;
	/* A multi-kernel bench folder's results.json files, one per side. */
	char **kernel_files;
	size_t nr_kernel_files;
};

static const char compare_about[] =
	"Compare runs side by side. Each side is one or more files, the\n"
	"sides separated by `--`; the first side is the base. A folder\n"
	"a multi-kernel `bench --kernel A --kernel B -o DIR` wrote,\n"
	"given alone, compares its kernels (DIR/<release>/results.json).\n"
	"\n"
	"Bench results files (`bench --json`, `bench -o DIR`): the key\n"
	"rows of mmtests' table (2nd-qrtle, Max-99, Amean; Hmean for\n"
	"rates) with percentages where positive is better and a `*`\n"
	"mark when Welch's t-test finds the means differ (5%), and a\n"
	"verdict per metric saying which statistic decided and, when\n"
	"none, the smallest difference the run could have shown: short\n"
	"enough to paste (72 columns, about 60 lines). Distributions\n"
	"pool the per-read samples of all repetitions and files of a\n"
	"side, in usecs.\n"
	"\n"
	"Results with a breakdown (`bench --breakdown`, or the pass of\n"
	"`bench --record`; one a side): each part's share and p50 per\n"
	"side, the change against the base (share in points, p50 in %,\n"
	"+ grew), \"not timed\" where a side did not time a part.\n"
	"\n"
	"`report --json` profiles: attribution and trigger shares with\n"
	"their deltas in percentage points, span percentiles side by\n"
	"side.\n";

static const char compare_epilogue[] =
	"Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	"See rstat-analyze-compare(1).\n";

/* --format's words, in the order of enum compare_format. */
static const char *const compare_formats[] = {
	[FMT_TEXT] = "text",
	[FMT_MARKDOWN] = "markdown",
	[FMT_CSV] = "csv",
	[FMT_JSON] = "json",
	NULL,
};

static void compare_params_free(struct compare_params *p)
{
	json_input__free_paths(p->kernel_files, p->nr_kernel_files);
	free(p->files);
	free(p->side_start);
	free(p->opts);
	memset(p, 0, sizeof(*p));
}

/*
 * `--` separates sides, so the option parser cannot see the whole argv
 * (it ends the options at the first `--`): the options are picked out
 * first, with their values (as the table says which take one), and
 * parsed alone; the rest are files.
 */
static int split_args(const struct popt_cmd *cmd, int argc, char **argv,
		      struct compare_params *p)
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
			if (popt__value_next(cmd, a) && i + 1 < argc)
				p->opts[p->nr_opts++] = argv[++i];
			continue;
		}
		p->files[p->nr_files++] = argv[i];
	}
	p->side_start[++p->nr_sides] = p->nr_files;
	return 0;
}

/*
 * `compare DIR` of the folder a multi-kernel bench wrote
 * (DIR/<release>/results.json): a side per kernel, in version order, the
 * first the base. RS_EXIT_FAIL when the folder holds one kernel only.
 */
static int kernel_sides(struct compare_params *p)
{
	const char *dir = p->files[0];
	char **paths;
	size_t n, i;
	int err;

	err = json_input__kernel_results(dir, &paths, &n);
	if (err) {
		rs_error("compare: %s: %s", dir, strerror(-err));
		return RS_EXIT_FAIL;
	}
	if (!n)
		return 0;
	if (n == 1) {
		rs_error("compare: %s holds the results of one kernel only (%s): give another side after `--`",
			 dir, paths[0]);
		json_input__free_paths(paths, n);
		return RS_EXIT_FAIL;
	}
	free(p->files);
	free(p->side_start);
	p->files = calloc(n, sizeof(*p->files));
	p->side_start = calloc(n + 1, sizeof(*p->side_start));
	p->kernel_files = paths;
	p->nr_kernel_files = n;
	if (!p->files || !p->side_start) {
		rs_error("compare: out of memory");
		return RS_EXIT_FAIL;
	}
	for (i = 0; i <= n; i++) {
		if (i < n)
			p->files[i] = paths[i];
		p->side_start[i] = i;
	}
	p->nr_files = p->nr_sides = n;
	return 0;
}

/* Returns 0, RS_EXIT_USAGE / RS_EXIT_FAIL, or -1 when --help was printed. */
static int compare_parse_args(int argc, char **argv, struct compare_params *p)
{
	int format = FMT_TEXT;
	const struct popt opts[] = {
		{ POPT_STRING(0, "labels", &p->labels_arg, "A,B,...",
			      "column labels, one per side (default: the\n"
			      "file names, or DIR of DIR/results.json)") },
		{ POPT_ENUM(0, "format", &format, "FORMAT", compare_formats,
			    "text (default; fits 72 columns), markdown,\n"
			    "csv or json (csv and json: always all)"),
		  .hint = "use text, markdown, csv or json" },
		{ POPT_FLAG(0, "details", &p->details,
			    "text, markdown: every statistic (Min,\n"
			    "quartiles, Max-N, Max, Stddev, CoeffVar),\n"
			    "every metric, the verdicts in full,\n"
			    "time(1), ministat, each side's breakdown\n"
			    "tables, span histograms") },
		POPT_HELP_ROW,
		POPT_END_ROW,
	};
	/* The files and their `--` are split off before the parse. */
	const struct popt_cmd cmd = {
		.name = "compare",
		.opts = opts,
		.max_operands = 0,
		.synopsis_pre = "BASE... -- NEW... [-- NEWER...]",
		.usage_long = true,
		.about = compare_about,
		.epilogue = compare_epilogue,
	};
	struct popt_args args;
	size_t s;
	int err;

	memset(p, 0, sizeof(*p));
	err = split_args(&cmd, argc, argv, p);
	if (err)
		return err;
	err = rs_parse_options(&cmd, p->nr_opts, p->opts, &args);
	if (err)
		return err;
	free(args.operands);
	p->format = format;
	if (!p->nr_files) {
		rs_error("compare: no input files; give BASE... -- NEW...");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	for (s = 0; s < p->nr_sides; s++)
		if (p->side_start[s] == p->side_start[s + 1]) {
			rs_error("compare: side %zu has no file (two `--` in a row, or one at an end)",
				 s + 1);
			popt__usage(&cmd, stderr);
			return RS_EXIT_USAGE;
		}
	if (p->nr_sides == 1 && p->nr_files == 1) {
		err = kernel_sides(p);
		if (err)
			return err;
	}
	if (p->nr_sides < 2) {
		rs_error("compare: one side only; separate the base from the new files with `--`");
		return RS_EXIT_FAIL;
	}
	return 0;
}

/* --- labels --------------------------------------------------------------- */

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
			char *l = compare__file_label(p->files[p->side_start[s]]);
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

/* --- the command ---------------------------------------------------------- */

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
	struct compare_inputs ci = {
		.files = (const char *const *)p->files,
		.nr_files = p->nr_files,
	};
	size_t *side = calloc(p->nr_files, sizeof(*side));
	struct compare c = { 0 };
	char err[4096];
	size_t i, s;
	int ret;

	if (!side) {
		rs_error("compare: out of memory");
		return RS_EXIT_FAIL;
	}
	for (s = 0; s < p->nr_sides; s++)
		for (i = p->side_start[s]; i < p->side_start[s + 1]; i++)
			side[i] = s;
	ci.side = side;
	c.nr_sides = p->nr_sides;
	c.labels = (const char *const *)labels;
	c.details = p->details;
	ret = compare__build(&c, &ci, err, sizeof(err));
	for (i = 0; i < c.nr_notes; i++)
		rs_note("%s", c.notes[i]);
	if (ret == -ENOMEM)
		rs_error("compare: out of memory");
	else if (ret)
		rs_error("%s", err);
	if (!ret) {
		ret = print_compare(p, &c);
		if (ret && ret != -EIO)
			rs_error("compare: %s", strerror(-ret));
		else
			ret = 0;
	}
	compare__release(&c);
	free(side);
	if (ret == -EXDEV)
		return RS_EXIT_USAGE;
	return ret ? RS_EXIT_FAIL : RS_EXIT_OK;
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
	if (ret == RS_EXIT_FAIL && params.format == FMT_JSON)
		rs_error_json();
	compare_params_free(&params);
	return rs_finish_stdout(ret);
}
