// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze bench: the published rstat experiments as scenarios with
 * parameters, run in cgroups the run owns, timed, optionally recorded,
 * with every repetition's figures kept for `compare`. The run is library
 * code (bench-run.h, src/bench/); this file turns the options into
 * parameters, stops the run on SIGINT, SIGTERM and SIGHUP, and prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-accuracy.h"
#include "bench-results.h"
#include "bench-run.h"
#include "bench-vm.h"
#include "cmds.h"
#include "outfile.h"
#include "parse-options.h"
#include "results-out.h"
#include "util.h"
#include "vm.h"

static void bench_signal(int sig)
{
	bench__stop(sig);
}

static const char bench_about[] =
	"Run a published rstat experiment in cgroups of the run's own,\n"
	"time it, keep every repetition's figures. With no scenario\n"
	"named: stat-read --record with small defaults, then the report.\n";

static const char bench_epilogue[] =
	"With --kernel the scenario runs once per kernel, each in a fresh\n"
	"VM, into DIR/<guest uname -r>/ (results.json, and rstat.data with\n"
	"--record, which holds the guest's kallsyms); with two kernels or\n"
	"more, the compare table follows, the first kernel the base.\n"
	"\n"
	"With --variant each repetition of each variant is a run of its\n"
	"own, in rounds (A B A B..., or each round shuffled from SEED),\n"
	"so that machine drift hits them alike; each variant's results\n"
	"go to DIR/NAME/results.json (NAME: given, or made from the\n"
	"options), then the compare table follows, the first the base\n"
	"(with --kernel, each guest's, in DIR/<release>/NAME/). With\n"
	"--breakdown or --record, one more round: each variant's pass,\n"
	"decomposed (and recorded into DIR/NAME/rstat.data); after the\n"
	"compare table, the variants' decompositions side by side, each\n"
	"part's share and its change from the first variant.\n"
	"\n"
	"Exit status: 0 ok, 1 error or interrupted (one line on stderr),\n"
	"2 usage error. See rstat-analyze-bench(1).\n";

/* The scenario options: the ones a --variant may change. */
enum bench_opt {
	BO_CHILDREN,
	BO_DEPTH,
	BO_UPDATER,
	BO_MEMORY_MAX,
	BO_FILES,
	BO_READS,
	BO_INTERLEAVE,
	BO_DISCRETE,
	BO_BREAKDOWN,
	BO_CGROUPS,
	BO_ROUND_TRIPS,
	BO_PSI,
	BO_DURATION,
	BO_KIND,
	BO_RATE,
	BO_STEP,
	BO_CPUS_SPREAD,
	BO_INTERVAL,
	BO_AFTER_FLUSH,
	BO__END,
};

#define SC(s) (1u << (s))
/* The scenarios each scenario option belongs to. */
static const unsigned int scenarios_of[BO__END] = {
	[BO_CHILDREN] = SC(SC_STAT_READ) | SC(SC_FAULT) | SC(SC_ACCURACY),
	[BO_DEPTH] = SC(SC_STAT_READ),
	[BO_UPDATER] = SC(SC_STAT_READ),
	[BO_MEMORY_MAX] = SC(SC_STAT_READ),
	[BO_FILES] = SC(SC_STAT_READ),
	[BO_READS] = SC(SC_STAT_READ) | SC(SC_MANY_CGROUPS) |
		     SC(SC_ACCURACY),
	[BO_INTERLEAVE] = SC(SC_STAT_READ),
	[BO_DISCRETE] = SC(SC_STAT_READ),
	[BO_BREAKDOWN] = SC(SC_STAT_READ) | SC(SC_MANY_CGROUPS),
	[BO_CGROUPS] = SC(SC_MANY_CGROUPS),
	[BO_ROUND_TRIPS] = SC(SC_PIPE),
	[BO_PSI] = SC(SC_PIPE),
	[BO_DURATION] = SC(SC_FAULT),
	[BO_KIND] = SC(SC_ACCURACY),
	[BO_RATE] = SC(SC_ACCURACY),
	[BO_STEP] = SC(SC_ACCURACY),
	[BO_CPUS_SPREAD] = SC(SC_ACCURACY),
	[BO_INTERVAL] = SC(SC_ACCURACY),
	[BO_AFTER_FLUSH] = SC(SC_ACCURACY),
};

/*
 * What the option rows write into: the run's parameters (or a variant's),
 * which scenario options were given, and the run's --variant words.
 */
struct bench_opts {
	struct bench_params *p;
	bool given[BO__END];
	/* Parsing a --variant's options: its argument, for messages. */
	const char *variant;
	/* A row's own message, said as bench's (not the parser's). */
	bool own_error;
	const char *variants[BENCH_MAX_VARIANTS];
	size_t nr_variants;
	bool order_given;
};

/* Set p->why; -EINVAL. */
static int refuse(struct bench_params *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(struct bench_params *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The index of word among names, or -1. */
static int word_index(const char *const *names, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(word, names[i]))
			return i;
	return -1;
}

/*
 * A scenario option's value into p (the run's, or a variant's: the same
 * code for both): 0, or -EINVAL with p->why saying why.
 */
static int set_option(struct bench_params *p, enum bench_opt opt,
		      const char *arg)
{
	uint64_t v;
	char *end;
	int i;

	switch (opt) {
	case BO_BREAKDOWN:
		p->breakdown = true;
		return 0;
	case BO_CHILDREN:
		if (bench_params__count(p, "--children", arg, 1000, &v))
			return -EINVAL;
		p->children = v;
		return 0;
	case BO_DEPTH:
		if (bench_params__count(p, "--depth", arg, 16, &v))
			return -EINVAL;
		p->depth = v;
		return 0;
	case BO_UPDATER:
		i = word_index(updater_names, ARRAY_SIZE(updater_names), arg);
		if (i < 0)
			return refuse(p, "--updater '%s': give memory, cpu or both",
				      arg);
		p->updater = i;
		return 0;
	case BO_MEMORY_MAX:
		return bench_params__size(p, arg, &p->memory_max);
	case BO_FILES:
		return bench_params__files(p, arg);
	case BO_READS:
		return bench_params__count(p, "--reads", arg, 100000000,
					   &p->reads);
	case BO_INTERLEAVE:
		p->interleave = true;
		return 0;
	case BO_DISCRETE:
		p->interleave = false;
		return 0;
	case BO_CGROUPS:
		if (bench_params__count(p, "--cgroups", arg, 100000, &v))
			return -EINVAL;
		p->cgroups = v;
		return 0;
	case BO_ROUND_TRIPS:
		return bench_params__count(p, "--round-trips", arg, 1000000000,
					   &p->round_trips);
	case BO_PSI:
		i = word_index(psi_names, ARRAY_SIZE(psi_names), arg);
		if (i < 0)
			return refuse(p, "--psi '%s': give on, off or both", arg);
		p->psi = i;
		return 0;
	case BO_DURATION:
		errno = 0;
		p->duration = strtod(arg, &end);
		if (errno || end == arg || *end ||
		    !(p->duration > 0) || p->duration > 86400)
			return refuse(p, "--duration '%s': give seconds", arg);
		return 0;
	case BO_KIND:
		i = word_index(kind_names, ARRAY_SIZE(kind_names), arg);
		if (i < 0)
			return refuse(p, "--kind '%s': give anon, file or both",
				      arg);
		p->kind = i;
		return 0;
	case BO_CPUS_SPREAD:
		if (strcmp(arg, "pinned") && strcmp(arg, "spread"))
			return refuse(p, "--cpus-spread '%s': give pinned or spread",
				      arg);
		p->spread = !strcmp(arg, "spread");
		return 0;
	case BO_RATE:
		return bench_params__number(p, "--rate", arg, 1e7, &p->rate);
	case BO_INTERVAL:
		return bench_params__number(p, "--interval", arg, 60000,
					    &p->interval_ms);
	case BO_AFTER_FLUSH:
		p->after_flush = true;
		return 0;
	case BO_STEP:
		return bench_params__count(p, "--step", arg, ACC_MAX_PAGES,
					   &p->step);
	default:
		return refuse(p, "internal: no such scenario option");
	}
}

/* A scenario option's row: its value set, the option marked given. */
static int scenario_option(const struct popt *opt, const char *arg,
			   char *err, size_t errlen)
{
	struct bench_opts *o = opt->value;

	o->own_error = true;
	if (o->variant && opt->data == BO_BREAKDOWN) {
		/* Its pass is the run's, after every variant's repetitions. */
		snprintf(err, errlen, "--variant '%s': --breakdown is the run's, not a variant's: give it outside --variant (each variant's reads are then decomposed)",
			 o->variant);
		return -EINVAL;
	}
	o->given[opt->data] = true;
	if (set_option(o->p, opt->data, arg)) {
		snprintf(err, errlen, "%s", o->p->why);
		return -EINVAL;
	}
	o->own_error = false;
	return 0;
}

/* In a --variant, each option that is not a scenario option's row. */
static int not_scenario_option(const struct popt *opt, const char *arg,
			       char *err, size_t errlen)
{
	struct bench_opts *o = opt->value;
	char name[64];

	o->own_error = true;
	snprintf(err, errlen, "--variant '%s': %s is not a scenario option (they alone may differ between variants)",
		 o->variant, popt__name(opt, name, sizeof(name)));
	return -EINVAL;
}

static int variant_option(const struct popt *opt, const char *arg,
			  char *err, size_t errlen)
{
	struct bench_opts *o = opt->value;

	if (o->nr_variants == BENCH_MAX_VARIANTS) {
		snprintf(err, errlen, "--variant: at most %d variants",
			 BENCH_MAX_VARIANTS);
		return -EINVAL;
	}
	o->variants[o->nr_variants++] = arg;
	return 0;
}

/*
 * --variant-order alternate (A B A B...) or random[:SEED] (each round in
 * an order of its own, drawn from SEED, or from the clock and said in the
 * results so that the run can be repeated).
 */
static int order_option(const struct popt *opt, const char *arg,
			char *err, size_t errlen)
{
	struct bench_opts *o = opt->value;
	struct bench_params *p = o->p;
	char *end;

	o->order_given = true;
	if (!strcmp(arg, "alternate")) {
		p->random_order = false;
		return 0;
	}
	if (!strcmp(arg, "random")) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		p->random_order = true;
		p->seed = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		/* JSON numbers beyond 2^53 would not read back exactly. */
		p->seed &= (1ULL << 53) - 1;
		return 0;
	}
	if (!strncmp(arg, "random:", 7) && arg[7] && arg[7] != '-') {
		errno = 0;
		p->seed = strtoull(arg + 7, &end, 10);
		if (!errno && !*end && p->seed < 1ULL << 53) {
			p->random_order = true;
			return 0;
		}
	}
	snprintf(err, errlen, "--variant-order '%s': give alternate, random or random:SEED (SEED below 2^53)",
		 arg);
	return -EINVAL;
}

static int until_option(const struct popt *opt, const char *arg,
			char *err, size_t errlen)
{
	struct bench_opts *o = opt->value;

	if (bench_until__parse(&o->p->until, arg, o->p->why,
			       sizeof(o->p->why))) {
		snprintf(err, errlen, "%s", o->p->why);
		return -EINVAL;
	}
	return 0;
}

static const char *const updater_words[] = { "memory", "cpu", "both", NULL };
static const char *const psi_words[] = { "on", "off", "both", NULL };
static const char *const kind_words[] = { "anon", "file", "both", NULL };
static const char *const spread_words[] = { "pinned", "spread", NULL };
static const char *const order_words[] = { "alternate", "random", NULL };

/* A scenario option's row; usage says them all as [scenario options]. */
#define SCENARIO_ROW(l, opt, a, h)					\
	POPT_CALLBACK(0, l, o, a, scenario_option, h), .data = (opt),	\
	.usage = ""
#define SCENARIO_FLAG(l, opt, h)					\
	POPT_CALLBACK(0, l, o, NULL, scenario_option, h),		\
	.data = (opt), .flags = POPT_NOARG, .usage = ""

#define BENCH_MAX_ROWS 64

/*
 * bench's option table, its rows writing into o (o->p: the run's
 * parameters, or a variant's); the number of rows, the end row included.
 */
static size_t bench_rows(struct bench_opts *o, struct popt *rows)
{
	struct bench_params *p = o->p;
	const struct popt opts[] = {
		{ POPT_UINT('r', "repeat", &p->reps, "N", 1, 1000,
			    "repetitions (default 1; with --until, the\n"
			    "least)"),
		  .hint = "give a number from 1 to 1000" },
		{ POPT_CALLBACK(0, "until", o, "RES[,SECONDS[,METRIC]]",
				until_option,
				"repeat until the run\n"
				"resolves RES percent (the detectable\n"
				"difference of the per-repetition p50\n"
				"of METRIC, a name or a stat file, by\n"
				"default the first; e.g. 5%), SECONDS\n"
				"pass (default 600) or 100 repetitions\n"
				"are done") },
		{ POPT_FLAG(0, "record", &p->record,
			    "one more pass, recorded (rstat.data beside\n"
			    "the results; the timed repetitions are\n"
			    "never recorded), and the report after;\n"
			    "stat-read and many-cgroups also time\n"
			    "its reads part by part (--breakdown)") },
		{ POPT_STRING(0, "json", &p->json, "FILE",
			      "write the results as JSON") },
		{ POPT_STRING('o', "output-dir", &p->outdir, "DIR",
			      "write DIR/results.json (and DIR/rstat.data)"),
		  /* The guest writes into its /out, which comes back. */
		  .flags = POPT_HOST },
		{ POPT_FLAG(0, "allow-shared-dir", &p->allow_shared_dir,
			    "write into -o DIR even if another user\n"
			    "owns it or others can write it (no sticky\n"
			    "bit): they could swap what is written") },
		{ POPT_STRING(0, "root", &p->root, "PATH",
			      "create the run's cgroups under PATH") },
		{ POPT_FLAG(0, "keep", &p->keep,
			    "leave the run's cgroups for you to inspect") },
		{ POPT_CALLBACK(0, "variant", o, "[NAME:]OPTIONS",
				variant_option,
				"a variant of the experiment:\n"
				"scenario OPTIONS (split at spaces) over\n"
				"the run's; twice or more, with -o DIR"),
		  .flags = POPT_REPEAT },
		{ POPT_CALLBACK(0, "variant-order", o,
				"alternate|random[:SEED]", order_option,
				"each round's order\n"
				"of the variants (default alternate)"),
		  .choices = order_words },
		POPT_HELP_ROW,

		POPT_GROUP("stat-read: busy children, a reader of the parent's stat files"),
		{ POPT_CALLBACK(0, "children", o, "N", scenario_option,
				"child cgroups (default 26); fault:\n"
				"updaters (default: the number of CPUs);\n"
				"accuracy: children charging known pages\n"
				"(default 4)"),
		  .data = BO_CHILDREN, .usage = "[scenario options]" },
		{ SCENARIO_ROW("depth", BO_DEPTH, "D",
			       "levels down to the children (default 1)") },
		{ SCENARIO_ROW("updater", BO_UPDATER, "KIND",
			       "memory, cpu or both (default both)"),
		  .choices = updater_words },
		{ SCENARIO_ROW("memory-max", BO_MEMORY_MAX, "SIZE",
			       "limit the parent (K/M/G), swap off") },
		{ SCENARIO_ROW("files", BO_FILES, "LIST",
			       "stat files to read (default cgroup.stat,\n"
			       "cpu.stat, memory.stat, io.stat)") },
		{ SCENARIO_ROW("reads", BO_READS, "N",
			       "reads of each file (default 1000);\n"
			       "many-cgroups: reads (default 1000);\n"
			       "accuracy: rounds, the parent and each\n"
			       "child read once (default 200)") },
		{ SCENARIO_FLAG("interleave", BO_INTERLEAVE,
			        "every file each round (default)") },
		{ SCENARIO_FLAG("discrete", BO_DISCRETE,
			        "all reads of one file, then the next") },
		{ SCENARIO_FLAG("breakdown", BO_BREAKDOWN,
			        "one more pass, its reads timed part by\n"
			        "part in the kernel (flush callbacks per\n"
			        "subsystem, tree walk, lock wait, off-CPU,\n"
			        "rest): a table per file (also many-cgroups)") },
		POPT_GROUP("many-cgroups: memory.stat of a parent of many charged memcgs\n"
			   "(and --reads, --breakdown)"),
		{ SCENARIO_ROW("cgroups", BO_CGROUPS, "K",
			       "memory cgroups (default 2500)") },
		POPT_GROUP("pipe: ping-pong over pipes in a 3-level nest, PSI on and off"),
		{ SCENARIO_ROW("round-trips", BO_ROUND_TRIPS, "N",
			       "round trips (default 100000)") },
		{ SCENARIO_ROW("psi", BO_PSI, "on|off|both",
			       "PSI on, off, or both in each repetition\n"
			       "as two figures (default both)"),
		  .choices = psi_words },
		POPT_GROUP("fault: page-fault-heavy updaters (and --children)"),
		{ SCENARIO_ROW("duration", BO_DURATION, "SECONDS",
			       "how long they run (default 3)") },
		POPT_GROUP("accuracy: error and staleness of memory.stat reads\n"
			   "(and --children, --reads)"),
		{ SCENARIO_ROW("kind", BO_KIND, "KIND",
			       "anon, file or both (default both)"),
		  .choices = kind_words },
		{ SCENARIO_ROW("rate", BO_RATE, "PAGES",
			       "pages a second per child (default 200)") },
		{ SCENARIO_ROW("step", BO_STEP, "PAGES",
			       "pages per step (default 1)") },
		{ SCENARIO_ROW("cpus-spread", BO_CPUS_SPREAD, "HOW",
			       "pinned (all on one CPU) or spread (each\n"
			       "step on the next CPU) (default pinned)"),
		  .choices = spread_words },
		{ SCENARIO_ROW("interval", BO_INTERVAL, "MS",
			       "between rounds (default 10)") },
		{ SCENARIO_FLAG("after-flush", BO_AFTER_FLUSH,
			        "each round right after a flush the run\n"
			        "makes due, children paused: the ground\n"
			        "truth check (the error must be 0)") },
		VM_CMD_OPTIONS(&p->vm),
		POPT_END_ROW,
	};

	_Static_assert(ARRAY_SIZE(opts) <= BENCH_MAX_ROWS,
		       "bench's rows outgrew BENCH_MAX_ROWS");
	memcpy(rows, opts, sizeof(opts));
	return ARRAY_SIZE(opts);
}

/* An option of another scenario is a mistake, not something to ignore. */
static int check_scenario_opts(const struct bench_params *p,
			       const struct bench_opts *o,
			       const struct popt *rows)
{
	const struct popt *r;
	unsigned int s;
	char list[96];
	size_t used;

	for (r = rows; r->type != POPT_T_END; r++) {
		if (r->cb != scenario_option || !o->given[r->data] ||
		    scenarios_of[r->data] & SC(p->scenario))
			continue;
		used = 0;
		list[0] = '\0';
		for (s = 0; s < ARRAY_SIZE(scenario_names); s++)
			if (scenarios_of[r->data] & SC(s))
				used += snprintf(list + used,
						 sizeof(list) - used, "%s%s",
						 used ? ", " : "",
						 scenario_names[s]);
		rs_error("bench: --%s is not an option of %s%s (it is of %s)",
			 r->long_name, scenario_names[p->scenario],
			 p->main_job ? ", the default scenario" : "", list);
		return -EINVAL;
	}
	return 0;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/*
 * A variant's name from its options when none is given: "--updater cpu"
 * is updater-cpu. Only characters a directory name takes safely.
 */
static void derive_name(char *name, size_t len, char *const *opts,
			size_t n)
{
	size_t used = 0, i;
	const char *s;

	for (i = 0; i < n && used + 1 < len; i++) {
		s = opts[i];
		while (*s == '-')
			s++;
		if (used && used + 1 < len)
			name[used++] = '-';
		for (; *s && used + 1 < len; s++)
			name[used++] = name_char(*s) ? *s :
				       *s == '=' ? '-' : '_';
	}
	name[used] = '\0';
}

/*
 * A variant's options, by bench's own rows: the scenario options write
 * into the variant's parameters, every other option is refused.
 */
static int parse_variant_opts(const struct popt_cmd *bench_cmd,
			      const char *arg, int argc, char **argv,
			      struct bench_variant *var)
{
	struct bench_opts o = { .p = &var->p, .variant = arg };
	struct popt rows[BENCH_MAX_ROWS];
	const struct popt_cmd cmd = {
		.name = "bench --variant",
		.opts = rows,
		.max_operands = -1,
	};
	struct popt_args args;
	struct popt *r;
	char err[1024];	/* as long as an error line gets */
	int ret;

	bench_rows(&o, rows);
	for (r = rows; r->type != POPT_T_END; r++) {
		if (r->type == POPT_T_GROUP || r->type == POPT_T_OPERAND ||
		    r->cb == scenario_option)
			continue;
		r->flags = r->type == POPT_T_FLAG || r->type == POPT_T_HELP ||
			   (r->type == POPT_T_CALLBACK &&
			    r->flags & POPT_NOARG) ? POPT_NOARG : 0;
		r->type = POPT_T_CALLBACK;
		r->cb = not_scenario_option;
		r->value = &o;
		r->excl = 0;
	}
	ret = popt__parse(&cmd, argc, argv, &args, err, sizeof(err));
	if (ret == POPT_NOMEM) {
		rs_error("bench: out of memory");
		return RS_EXIT_FAIL;
	}
	if (ret == POPT_LIST_OPTIONS) {
		snprintf(err, sizeof(err), "unknown option '--list-options'");
		args.usage = true;
	}
	if (ret) {
		if (o.own_error) {
			rs_error("bench: %s", err);
		} else {
			rs_error("bench --variant: %s", err);
			if (args.usage)
				popt__usage(bench_cmd, stderr);
		}
		free(args.operands);
		return RS_EXIT_USAGE;
	}
	if (args.nr) {
		rs_error("bench: --variant '%s': '%s' is not an option",
			 arg, args.operands[0]);
		free(args.operands);
		return RS_EXIT_USAGE;
	}
	free(args.operands);
	if (check_scenario_opts(&var->p, &o, rows))
		return RS_EXIT_USAGE;
	return 0;
}

/*
 * One --variant [NAME:]OPTIONS: the run's parameters with OPTIONS on
 * top, parsed by the rows that parse the run's. OPTIONS are the
 * scenario's options, split at spaces.
 */
static int parse_variant(const struct popt_cmd *bench_cmd,
			 const struct bench_params *base, const char *arg,
			 struct bench_variant *var)
{
	char *argv[64], *tok, *save = NULL, *colon;
	const char *opts = arg;
	size_t n, i;
	int argc = 1, ret;

	var->p = *base;
	/* The run's --files list stays the run's; a variant's is its own. */
	var->p.files_buf = NULL;
	var->p.variants = NULL;
	var->p.nr_variants = 0;
	colon = arg[0] != '-' ? strchr(arg, ':') : NULL;
	if (colon) {
		n = colon - arg;
		for (i = 0; i < n && name_char(arg[i]); i++)
			;
		if (!n || i < n || n > BENCH_VARIANT_NAME_MAX ||
		    arg[0] == '.' || arg[0] == '-') {
			rs_error("bench: --variant '%s': a name is up to %d of A-Z a-z 0-9 . _ - and does not begin with . or -",
				 arg, BENCH_VARIANT_NAME_MAX);
			return RS_EXIT_USAGE;
		}
		memcpy(var->name, arg, n);
		var->name[n] = '\0';
		opts = colon + 1;
	}
	var->opts_buf = strdup(opts);
	if (!var->opts_buf) {
		rs_error("bench: out of memory");
		return RS_EXIT_FAIL;
	}
	argv[0] = "bench";
	for (tok = strtok_r(var->opts_buf, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (argc == ARRAY_SIZE(argv) - 1) {
			rs_error("bench: --variant '%s': too many options",
				 arg);
			return RS_EXIT_USAGE;
		}
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	if (argc == 1) {
		rs_error("bench: --variant '%s': give the variant's options, e.g. --variant discrete:--discrete",
			 arg);
		return RS_EXIT_USAGE;
	}
	var->opts = calloc(argc, sizeof(*var->opts));
	if (!var->opts) {
		rs_error("bench: out of memory");
		return RS_EXIT_FAIL;
	}
	for (i = 1; i < (size_t)argc; i++)
		var->opts[var->nr_opts++] = argv[i];
	if (!var->name[0]) {
		derive_name(var->name, sizeof(var->name), var->opts,
			    var->nr_opts);
		if (var->name[0] == '.')
			var->name[0] = '_';
	}
	if (!var->name[0]) {
		rs_error("bench: --variant '%s': no name comes of these options: give one, NAME:OPTIONS",
			 arg);
		return RS_EXIT_USAGE;
	}
	ret = parse_variant_opts(bench_cmd, arg, argc, argv, var);
	if (ret)
		return ret;
	bench_params__finish(&var->p);
	return 0;
}

/* The variants, and what a run of variants cannot do. */
static int check_variants(const struct popt_cmd *cmd, struct bench_params *p,
			  const char *const *args, size_t n)
{
	size_t i, j;
	int ret;

	if (n < 2) {
		rs_error("bench: %s", n ? "--variant: give two variants or more" :
			 "--variant-order orders variants: give --variant twice or more");
		return RS_EXIT_USAGE;
	}
	if (p->main_job) {
		rs_error("bench: --variant: name the scenario first, e.g. bench stat-read --variant ...");
		return RS_EXIT_USAGE;
	}
	if (p->json || p->keep) {
		rs_error("bench: --variant: %s; run the variant you want so on its own",
			 p->json ? "--json is not supported (each variant goes to -o DIR/<variant>/)" :
			 "--keep is not supported (each repetition's cgroups are removed before the next)");
		return RS_EXIT_USAGE;
	}
	if (!p->outdir) {
		rs_error("bench: --variant writes DIR/<variant>/results.json: give -o DIR");
		return RS_EXIT_USAGE;
	}
	p->variants = calloc(n, sizeof(*p->variants));
	if (!p->variants) {
		rs_error("bench: out of memory");
		return RS_EXIT_FAIL;
	}
	p->nr_variants = n;
	for (i = 0; i < n; i++) {
		ret = parse_variant(cmd, p, args[i], &p->variants[i]);
		if (ret)
			return ret;
		for (j = 0; j < i; j++)
			if (!strcmp(p->variants[j].name,
				    p->variants[i].name)) {
				rs_error("bench: --variant '%s': the name %s is taken; give each its own, e.g. --variant NAME:%s",
					 args[i], p->variants[i].name,
					 p->variants[i].opts[0]);
				return RS_EXIT_USAGE;
			}
	}
	return 0;
}

/*
 * Returns 0, RS_EXIT_USAGE or RS_EXIT_FAIL, or -1 when --help was
 * printed. With --kernel, *gargv is the guest's argv (free() it).
 */
static int bench_parse_args(int argc, char **argv, struct bench_params *p,
			    char ***gargv, int *gargc)
{
	struct bench_opts o = { .p = p };
	struct popt rows[BENCH_MAX_ROWS];
	const struct popt_cmd cmd = {
		.name = "bench",
		.opts = rows,
		.max_operands = -1,
		.synopsis_pre = "[stat-read|many-cgroups|pipe|fault|accuracy]",
		.about = bench_about,
		.epilogue = bench_epilogue,
	};
	struct popt_args args;
	int first = 1, i, ret;

	*gargv = NULL;
	bench_params__init(p, argc, argv);
	bench_rows(&o, rows);
	if (argc > 1 && argv[1][0] != '-') {
		i = word_index(scenario_names, ARRAY_SIZE(scenario_names),
			       argv[1]);
		if (i < 0) {
			rs_error("bench: '%s' is not a scenario: stat-read, many-cgroups, pipe, fault or accuracy",
				 argv[1]);
			popt__usage(&cmd, stderr);
			return RS_EXIT_USAGE;
		}
		p->scenario = i;
		first = 2;
	}
	/* The scenario, if named, stands where the parser skips a name. */
	ret = rs_parse_options(&cmd, argc - first + 1, argv + first - 1,
			       &args);
	if (ret)
		return ret;
	if (args.nr) {
		rs_error("bench: unexpected argument '%s' (the scenario comes first)",
			 args.operands[0]);
		free(args.operands);
		return RS_EXIT_USAGE;
	}
	free(args.operands);
	if (check_scenario_opts(p, &o, rows)) {
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	if (p->vm.nkernels && !p->outdir) {
		rs_error("bench: --kernel writes DIR/<kernel release>/: give -o DIR");
		return RS_EXIT_USAGE;
	}
	if (p->vm.nkernels && (p->json || p->root || p->keep)) {
		rs_error("bench: --kernel: %s means nothing in a throwaway VM; use -o DIR",
			 p->json ? "--json" : p->root ? "--root" : "--keep");
		return RS_EXIT_USAGE;
	}
	/* -r is the least: the cap is never below it. */
	if (p->until.target_pct && p->until.max_reps < p->reps)
		p->until.max_reps = p->reps;
	bench_params__finish(p);
	if (o.nr_variants || o.order_given) {
		ret = check_variants(&cmd, p, o.variants, o.nr_variants);
		if (ret)
			return ret;
	}
	/* The guest's: without -o and the VM options. */
	return vm_cmd__guest_argv(&cmd, &p->vm, argc, argv, gargv, gargc);
}

/* --- the run ------------------------------------------------------------ */

static void say_error(void *ctx, const char *msg)
{
	rs_error("%s", msg);
}

static void say_note(void *ctx, const char *msg)
{
	rs_note("%s", msg);
}

/*
 * On a terminal, the step the run is at, on one stderr line that the
 * next step overwrites (as record's progress line); nothing otherwise.
 */
static void say_progress(void *ctx, const char *msg)
{
	if (!msg)
		fprintf(stderr, "\r%79s\r", "");
	else
		fprintf(stderr, "\r%-79.79s", msg);
}

/* How a --until run ended, and the resolution it reached. */
static void print_until(const struct bench_until *u,
			const struct bench_until_state *st)
{
	char res[32] = "none (fewer than 2 repetitions)";

	if (!isnan(st->resolution_pct))
		snprintf(res, sizeof(res), "%.2f%%", st->resolution_pct);
	printf("# --until %g%%: ended by ", u->target_pct);
	if (st->end == BENCH_UNTIL_RESOLVED)
		printf("the resolution");
	else if (st->end == BENCH_UNTIL_TIME)
		printf("the time limit (%g s)", u->max_s);
	else
		printf("the cap of %u repetitions", u->max_reps);
	printf(" after %u repetition%s in %.1f s: resolution %s of the p50 of %s\n",
	       st->reps, st->reps == 1 ? "" : "s", st->elapsed_s, res,
	       *st->metric ? st->metric : "no metric");
}

static void print_results(void *ctx, struct bench_results *res,
			  const char *layout)
{
	const struct bench_params *p = ctx;
	size_t n = bench_results__nr_reps(res);
	struct bench_until_state st;
	struct bench_until u;

	printf("# rstat-analyze bench %s: %zu repetition%s, cgroups %s\n",
	       scenario_names[p->scenario], n, n > 1 ? "s" : "", layout);
	if (!bench_until__load(res, &u, &st))
		print_until(&u, &st);
	bench_results__print(res, stdout, 0, NULL);
}

/* What finished before an interrupt is worth seeing; not worth saving. */
static void print_finished(void *ctx, struct bench_results *res)
{
	const struct bench_params *p = ctx;
	unsigned int n = res ? bench_results__nr_reps(res) : 0;

	if (!n)
		return;
	if (p->until.target_pct)
		printf("# rstat-analyze bench %s: interrupted after %u repetition%s of --until (not saved)\n",
		       scenario_names[p->scenario], n, n > 1 ? "s" : "");
	else
		printf("# rstat-analyze bench %s: interrupted after %u of %u repetition%s (not saved)\n",
		       scenario_names[p->scenario], n, p->reps,
		       p->reps > 1 ? "s" : "");
	bench_results__print(res, stdout, 0, NULL);
}

/*
 * The report of the recorded pass, as `rstat-analyze report -i FILE`
 * prints it: report's own entry point, called in this process (as perf
 * c2c calls cmd_record()), not the tool run again as a child.
 */
static void print_report(const char *file)
{
	char *argv[] = { "report", "-i", (char *)file, NULL };

	fflush(stdout);
	cmd_report(3, argv);
}

static int bench_run(const struct bench_params *p)
{
	struct bench_ops ops = {
		.error = say_error, .note = say_note,
		.progress = isatty(STDERR_FILENO) ? say_progress : NULL,
		.results = print_results, .interrupted = print_finished,
		.ctx = (void *)p,
	};
	char recording[PATH_MAX];

	rs_on_stop_signals(bench_signal);
	if (bench__run(p, &ops))
		return RS_EXIT_FAIL;
	if (p->record) {
		bench__recording_path(p, recording, sizeof(recording));
		printf("\n");
		print_report(recording);
	}
	return RS_EXIT_OK;
}

/* --- variants ---------------------------------------------------------- */

/*
 * Each run of a variant says the same notes (starved reader, a skipped
 * file): once is enough.
 */
static void say_note_once(void *ctx, const char *msg)
{
	static char *said[32];
	static size_t nr_said;
	size_t i;

	for (i = 0; i < nr_said; i++)
		if (!strcmp(said[i], msg))
			return;
	if (nr_said < ARRAY_SIZE(said))
		said[nr_said++] = strdup(msg);
	rs_note("%s", msg);
}

/* A line per run, so that the order and the progress show. */
static void say_run_done(void *ctx, const struct bench_variant *v,
			 unsigned int rep, unsigned int nr_done,
			 const struct bench_results *res)
{
	const struct bench_params *p = ctx;
	const struct bench_rep_time *t;

	if (!rep) {
		printf("# run %u: %s, the %s pass\n", nr_done, v->name,
		       p->record ? "recorded" : "breakdown");
		fflush(stdout);
		return;
	}
	t = bench_results__rep_time(res, bench_results__nr_reps(res) - 1);
	printf("# run %u of %s%zu: %s, repetition %u: real %.3f s, user %.3f s, sys %.3f s\n",
	       nr_done, p->until.target_pct ? "at most " : "",
	       (size_t)(p->until.target_pct ? p->until.max_reps : p->reps) *
	       p->nr_variants, v->name, rep, t->real_s, t->user_s, t->sys_s);
	fflush(stdout);
}

/*
 * Every variant's repetitions, then compare on their results as
 * `rstat-analyze compare` does, the first variant the base: compare's
 * own entry point, in this process.
 */
static int bench_variants(const struct bench_params *p)
{
	struct bench_ops ops = {
		.error = say_error, .note = say_note_once,
		.progress = isatty(STDERR_FILENO) ? say_progress : NULL,
		.ctx = (void *)p,
	};
	const char *files[BENCH_MAX_VARIANTS], *labels[BENCH_MAX_VARIANTS];
	char paths[BENCH_MAX_VARIANTS][PATH_MAX];
	struct bench_until_state st;
	size_t i, j;
	int status;

	printf("# rstat-analyze bench %s: %zu variants, %s%u repetition%s each, order %s",
	       scenario_names[p->scenario], p->nr_variants,
	       p->until.target_pct ? "--until, at least " : "", p->reps,
	       p->reps > 1 ? "s" : "",
	       p->random_order ? "random" : "alternate");
	if (p->random_order)
		printf(" (seed %" PRIu64 ")", p->seed);
	printf("\n");
	for (i = 0; i < p->nr_variants; i++) {
		printf("#   %s:", p->variants[i].name);
		for (j = 0; j < p->variants[i].nr_opts; j++)
			printf(" %s", p->variants[i].opts[j]);
		printf("\n");
	}
	fflush(stdout);
	rs_on_stop_signals(bench_signal);
	if (bench__run_variants(p, &ops, say_run_done, &st))
		return RS_EXIT_FAIL;
	if (p->until.target_pct)
		print_until(&p->until, &st);
	for (i = 0; i < p->nr_variants; i++) {
		snprintf(paths[i], PATH_MAX, "%s/%s/results.json", p->outdir,
			 p->variants[i].name);
		files[i] = paths[i];
		labels[i] = p->variants[i].name;
	}
	printf("\n");
	fflush(stdout);
	status = compare_results(files, labels, p->nr_variants);
	if (!status && p->record) {
		printf("\n");
		for (i = 0; i < p->nr_variants; i++)
			printf("# %s's recorded pass: rstat-analyze report -i %s/%s/rstat.data\n",
			       p->variants[i].name, p->outdir,
			       p->variants[i].name);
	}
	return status;
}

/* --- in VMs ---------------------------------------------------------------- */

/*
 * The guest's results into DIR/<release>/ (dir): results.json, or with
 * --variant each variant's NAME/results.json; said once if not.
 */
static int save_guest(const struct bench_params *p, const struct vm_result *res,
		      const char *rel, char (*dirs)[PATH_MAX], size_t i,
		      char *dir)
{
	char path[PATH_MAX + 96], name[BENCH_VARIANT_NAME_MAX + 32];
	char errbuf[PATH_MAX + 128] = "";
	bool again;
	size_t v;
	int err;

	err = bench_vm__guest_dir(p->outdir, rel, dirs, i, dir, PATH_MAX,
				  &again, errbuf, sizeof(errbuf));
	if (!err && again)
		rs_note("%s ran as kernel %s again: its results go to %s",
			p->vm.kernels[i], rel, dir);
	for (v = 0; !err && v < p->nr_variants; v++) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 p->variants[v].name);
		err = outfile__dir(path);
		if (err) {
			snprintf(errbuf, sizeof(errbuf), "%s: %s", path,
				 outfile__strerror(err));
			break;
		}
		snprintf(name, sizeof(name), "out/%s/results.json",
			 p->variants[v].name);
		snprintf(path, sizeof(path), "%s/%s/results.json", dir,
			 p->variants[v].name);
		err = bench_vm__save_results(res, name, path, errbuf,
					     sizeof(errbuf));
		snprintf(name, sizeof(name), "out/%s/rstat.data",
			 p->variants[v].name);
		snprintf(path, sizeof(path), "%s/%s/rstat.data", dir,
			 p->variants[v].name);
		if (!err)
			err = bench_vm__save_file(res, name, path, errbuf,
						  sizeof(errbuf));
	}
	snprintf(path, sizeof(path), "%s/results.json", dir);
	if (!err && !p->nr_variants)
		err = bench_vm__save_results(res, "out/results.json", path,
					     errbuf, sizeof(errbuf));
	snprintf(path, sizeof(path), "%s/rstat.data", dir);
	if (!err)
		err = bench_vm__save_file(res, "out/rstat.data", path,
					  errbuf, sizeof(errbuf));
	if (err)
		rs_error("%s", errbuf);
	return err;
}

/* Whether the guest sent every results file the run makes. */
static bool guest_sent_all(const struct bench_params *p,
			   const struct vm_result *res, size_t i)
{
	char name[BENCH_VARIANT_NAME_MAX + 32];
	size_t v;

	if (!p->nr_variants) {
		if (vm_result__file(res, "out/results.json", NULL))
			return true;
		rs_error("bench --kernel %s: the guest sent no results.json",
			 p->vm.kernels[i]);
		return false;
	}
	for (v = 0; v < p->nr_variants; v++) {
		snprintf(name, sizeof(name), "out/%s/results.json",
			 p->variants[v].name);
		if (!vm_result__file(res, name, NULL)) {
			rs_error("bench --kernel %s: the guest sent no %s/results.json",
				 p->vm.kernels[i], p->variants[v].name);
			return false;
		}
	}
	return true;
}

static int bench_in_vms(const struct bench_params *p, char **gargv,
			int gargc)
{
	char (*dirs)[PATH_MAX] = calloc(p->vm.nkernels, sizeof(*dirs));
	const char *files[VM_MAX_KERNELS], *labels[VM_MAX_KERNELS];
	char results[VM_MAX_KERNELS][PATH_MAX];
	struct vm_result *res = NULL;
	int status = RS_EXIT_FAIL, err;
	bool noted = false;
	size_t i, v;

	if (!dirs) {
		rs_error("bench: out of memory");
		goto out;
	}
	/* The guest writes into its /out, which comes back. */
	gargv[gargc++] = "-o";
	gargv[gargc++] = "/out";
	gargv[gargc] = NULL;
	err = outfile__dir_open(p->outdir, p->allow_shared_dir ?
				OUTFILE_DIR_SHARED : 0);
	if (err < 0) {
		rs_error("%s: %s", p->outdir, outfile__strerror(err));
		goto out;
	}
	close(err);
	for (i = 0; i < p->vm.nkernels; i++) {
		const char *rel;

		printf("# rstat-analyze bench: kernel %s\n", p->vm.kernels[i]);
		fflush(stdout);
		status = vm_cmd__run("bench", &p->vm, p->vm.kernels[i], gargc,
				     gargv, NULL, NULL, &res);
		if (status)
			goto out;
		rel = vm_result__release(res);
		if (vm_result__tcg(res) && !noted) {
			rs_note("the guests run under TCG (emulated, clock: the TSC, tsc=reliable): times are several times real ones, only ratios between kernels mean anything");
			noted = true;
		}
		status = vm_cmd__print_output(res);
		if (status)
			goto out;	/* the guest said why, on stderr */
		status = RS_EXIT_FAIL;
		if (!bench_vm__release_ok(rel)) {
			rs_error("bench --kernel %s: the guest's release '%s' cannot name a directory",
				 p->vm.kernels[i], rel);
			goto out;
		}
		if (!guest_sent_all(p, res, i))
			goto out;
		if (save_guest(p, res, rel, dirs, i, results[i]))
			goto out;
		/* The guest named its /out; here they are in DIR. */
		for (v = 0; p->record && v < p->nr_variants; v++)
			printf("# %s's recorded pass, on this host: rstat-analyze report -i %s/%s/rstat.data\n",
			       p->variants[v].name, dirs[i],
			       p->variants[v].name);
		snprintf(results[i], PATH_MAX, "%s/results.json", dirs[i]);
		files[i] = results[i];
		labels[i] = dirs[i] + strlen(p->outdir) + 1;
		vm_result__delete(res);
		res = NULL;
		printf("\n");
	}
	status = RS_EXIT_OK;
	if (p->vm.nkernels > 1 && p->nr_variants) {
		/* Each guest printed its variants' table; kernels apart. */
		rs_note("each guest compared its variants; compare kernels per variant with: rstat-analyze compare %s/%s -- %s/%s",
			dirs[0], p->variants[0].name, dirs[1],
			p->variants[0].name);
	} else if (p->vm.nkernels > 1) {
		fflush(stdout);
		/* compare's tables, the kernels' breakdowns among them */
		status = compare_results(files, labels, p->vm.nkernels);
	}
out:
	vm_result__delete(res);
	free(dirs);
	return status;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_params params;
	char **gargv;
	int gargc = 0, ret;

	ret = bench_parse_args(argc, argv, &params, &gargv, &gargc);
	if (ret < 0)
		ret = rs_finish_stdout(RS_EXIT_OK);
	else if (!ret && params.vm.nkernels)
		ret = rs_finish_stdout(bench_in_vms(&params, gargv, gargc));
	else if (!ret && params.nr_variants)
		ret = rs_finish_stdout(bench_variants(&params));
	else if (!ret)
		ret = rs_finish_stdout(bench_run(&params));
	free(gargv);
	bench_params__free(&params);
	return ret;
}
