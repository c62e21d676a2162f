// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze bench: the published rstat experiments as scenarios with
 * parameters, run in cgroups the run owns, timed, optionally recorded,
 * with every repetition's figures kept for `compare`. The run is library
 * code (bench-run.h, src/bench/); this file turns the options into
 * parameters, stops the run on SIGINT, SIGTERM and SIGHUP, and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
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
#include "breakdown-out.h"
#include "cmds.h"
#include "outfile.h"
#include "results-out.h"
#include "util.h"
#include "vm.h"

static void bench_signal(int sig)
{
	bench__stop(sig);
}

static const char bench_usage_text[] =
	"usage: rstat-analyze bench [stat-read|many-cgroups|pipe|fault|accuracy]\n"
	"                           [-r N] [--until RES[,SECS[,METRIC]]]\n"
	"                           [--record] [--breakdown] [--json FILE]\n"
	"                           [-o DIR]\n"
	"                           [--allow-shared-dir] [--root PATH] [--keep]\n"
	"                           [scenario options]\n"
	"       rstat-analyze bench SCENARIO ... --kernel IMAGE [--kernel IMAGE]...\n"
	"                           -o DIR [VM options]\n"
	"       rstat-analyze bench SCENARIO ... --variant [NAME:]OPTIONS\n"
	"                           --variant [NAME:]OPTIONS... -o DIR\n";

static void bench_usage(FILE *out)
{
	fputs(bench_usage_text, out);
}

static void bench_help(void)
{
	bench_usage(stdout);
	fputs("\n"
	      "Run a published rstat experiment in cgroups of the run's own,\n"
	      "time it, keep every repetition's figures. With no scenario\n"
	      "named: stat-read --record with small defaults, then the report.\n"
	      "\n"
	      "  -r, --repeat N        repetitions (default 1; with --until, the\n"
	      "                        least)\n"
	      "      --until RES[,SECS[,METRIC]]  repeat until the run\n"
	      "                        resolves RES percent (the detectable\n"
	      "                        difference of the per-repetition p50\n"
	      "                        of METRIC, a name or a stat file, by\n"
	      "                        default the first; e.g. 5%), SECS\n"
	      "                        pass (default 600) or 100 repetitions\n"
	      "                        are done\n"
	      "      --record          one more pass, recorded (rstat.data beside\n"
	      "                        the results; the timed repetitions are\n"
	      "                        never recorded), and the report after;\n"
	      "                        stat-read and many-cgroups also time\n"
	      "                        its reads part by part (--breakdown)\n"
	      "      --json FILE       write the results as JSON\n"
	      "  -o, --output-dir DIR  write DIR/results.json (and DIR/rstat.data)\n"
	      "      --allow-shared-dir  write into -o DIR even if another user\n"
	      "                        owns it or others can write it (no sticky\n"
	      "                        bit): they could swap what is written\n"
	      "      --root PATH       create the run's cgroups under PATH\n"
	      "      --keep            leave the run's cgroups for you to inspect\n"
	      "      --variant [NAME:]OPTIONS  a variant of the experiment:\n"
	      "                        scenario OPTIONS (split at spaces) over\n"
	      "                        the run's; twice or more, with -o DIR\n"
	      "      --variant-order alternate|random[:SEED]  each round's order\n"
	      "                        of the variants (default alternate)\n"
	      "\n"
	      "stat-read: busy children, a reader of the parent's stat files\n"
	      "      --children N      child cgroups (default 26)\n"
	      "      --depth D         levels down to the children (default 1)\n"
	      "      --updater KIND    memory, cpu or both (default both)\n"
	      "      --memory-max SIZE limit the parent (K/M/G), swap off\n"
	      "      --files LIST      stat files to read (default cgroup.stat,\n"
	      "                        cpu.stat, memory.stat, io.stat)\n"
	      "      --reads N         reads of each file (default 1000)\n"
	      "      --interleave      every file each round (default)\n"
	      "      --discrete        all reads of one file, then the next\n"
	      "      --breakdown       one more pass, its reads timed part by\n"
	      "                        part in the kernel (flush callbacks per\n"
	      "                        subsystem, tree walk, lock wait, off-CPU,\n"
	      "                        rest): a table per file (also many-cgroups)\n"
	      "many-cgroups: memory.stat of a parent of many charged memcgs\n"
	      "      --cgroups K       memory cgroups (default 2500)\n"
	      "      --reads N         reads (default 1000)\n"
	      "      --breakdown       as stat-read's\n"
	      "pipe: ping-pong over pipes in a 3-level nest, PSI on and off\n"
	      "      --round-trips N   round trips (default 100000)\n"
	      "      --psi on|off|both PSI on, off, or both in each repetition\n"
	      "                        as two figures (default both)\n"
	      "fault: page-fault-heavy updaters\n"
	      "      --children N      updaters (default: the number of CPUs)\n"
	      "      --duration SECS   how long they run (default 3)\n"
	      "accuracy: error and staleness of memory.stat reads\n"
	      "      --children N      children charging known pages (default 4)\n"
	      "      --kind KIND       anon, file or both (default both)\n"
	      "      --rate PAGES      pages a second per child (default 200)\n"
	      "      --step PAGES      pages per step (default 1)\n"
	      "      --cpus-spread HOW pinned (all on one CPU) or spread (each\n"
	      "                        step on the next CPU) (default pinned)\n"
	      "      --reads N         rounds: the parent and each child read\n"
	      "                        once (default 200)\n"
	      "      --interval MS     between rounds (default 10)\n"
	      "      --after-flush     each round right after a flush the run\n"
	      "                        makes due, children paused: the ground\n"
	      "                        truth check (the error must be 0)\n"
	      "  -h, --help            this text\n"
	      "\n"
	      VM_HELP_TEXT
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
	      "(with --kernel, each guest's, in DIR/<release>/NAME/).\n"
	      "\n"
	      "Exit status: 0 ok, 1 error or interrupted (one line on stderr),\n"
	      "2 usage error. See rstat-analyze-bench(1).\n", stdout);
}

enum {
	OPT_RECORD = 256,
	OPT_JSON,
	OPT_ROOT,
	OPT_KEEP,
	OPT_CHILDREN,
	OPT_DEPTH,
	OPT_UPDATER,
	OPT_MEMORY_MAX,
	OPT_FILES,
	OPT_READS,
	OPT_INTERLEAVE,
	OPT_DISCRETE,
	OPT_CGROUPS,
	OPT_ROUND_TRIPS,
	OPT_DURATION,
	OPT_KIND,
	OPT_RATE,
	OPT_CPUS_SPREAD,
	OPT_INTERVAL,
	OPT_AFTER_FLUSH,
	OPT_STEP,
	OPT_ALLOW_SHARED_DIR,
	OPT_PSI,
	OPT_VARIANT,
	OPT_VARIANT_ORDER,
	OPT_BREAKDOWN,
	OPT_UNTIL,
	OPT__END,
};

static const struct option bench_options[] = {
	{ "repeat", required_argument, NULL, 'r' },
	{ "record", no_argument, NULL, OPT_RECORD },
	{ "breakdown", no_argument, NULL, OPT_BREAKDOWN },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "output-dir", required_argument, NULL, 'o' },
	{ "allow-shared-dir", no_argument, NULL, OPT_ALLOW_SHARED_DIR },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "children", required_argument, NULL, OPT_CHILDREN },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "updater", required_argument, NULL, OPT_UPDATER },
	{ "memory-max", required_argument, NULL, OPT_MEMORY_MAX },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "reads", required_argument, NULL, OPT_READS },
	{ "interleave", no_argument, NULL, OPT_INTERLEAVE },
	{ "discrete", no_argument, NULL, OPT_DISCRETE },
	{ "cgroups", required_argument, NULL, OPT_CGROUPS },
	{ "round-trips", required_argument, NULL, OPT_ROUND_TRIPS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "cpus-spread", required_argument, NULL, OPT_CPUS_SPREAD },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "after-flush", no_argument, NULL, OPT_AFTER_FLUSH },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "psi", required_argument, NULL, OPT_PSI },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "variant-order", required_argument, NULL, OPT_VARIANT_ORDER },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "help", no_argument, NULL, 'h' },
	VM_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* A value bench_params__*() refused: a usage error. */
static int bad_value(const struct bench_params *p)
{
	rs_error("bench: %s", p->why);
	return RS_EXIT_USAGE;
}

/* The scenario options, and the scenarios each belongs to. */
static const struct {
	int opt;
	unsigned int scenarios;	/* bit per enum scenario */
} scenario_opts[] = {
	{ OPT_CHILDREN, 1u << SC_STAT_READ | 1u << SC_FAULT |
			1u << SC_ACCURACY },
	{ OPT_DEPTH, 1u << SC_STAT_READ },
	{ OPT_UPDATER, 1u << SC_STAT_READ },
	{ OPT_MEMORY_MAX, 1u << SC_STAT_READ },
	{ OPT_FILES, 1u << SC_STAT_READ },
	{ OPT_READS, 1u << SC_STAT_READ | 1u << SC_MANY_CGROUPS |
		     1u << SC_ACCURACY },
	{ OPT_INTERLEAVE, 1u << SC_STAT_READ },
	{ OPT_DISCRETE, 1u << SC_STAT_READ },
	{ OPT_CGROUPS, 1u << SC_MANY_CGROUPS },
	{ OPT_ROUND_TRIPS, 1u << SC_PIPE },
	{ OPT_PSI, 1u << SC_PIPE },
	{ OPT_DURATION, 1u << SC_FAULT },
	{ OPT_KIND, 1u << SC_ACCURACY },
	{ OPT_RATE, 1u << SC_ACCURACY },
	{ OPT_CPUS_SPREAD, 1u << SC_ACCURACY },
	{ OPT_INTERVAL, 1u << SC_ACCURACY },
	{ OPT_AFTER_FLUSH, 1u << SC_ACCURACY },
	{ OPT_STEP, 1u << SC_ACCURACY },
	{ OPT_BREAKDOWN, 1u << SC_STAT_READ | 1u << SC_MANY_CGROUPS },
};

/* The long name getopt knows an option by. */
static const char *option_name(int val)
{
	const struct option *o;

	for (o = bench_options; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* An option of another scenario is a mistake, not something to ignore. */
static int check_scenario_opts(const struct bench_params *p,
			       const bool *given)
{
	unsigned int i, s;
	char list[96];
	size_t used;

	for (i = 0; i < ARRAY_SIZE(scenario_opts); i++) {
		if (!given[scenario_opts[i].opt - OPT_RECORD] ||
		    scenario_opts[i].scenarios & 1u << p->scenario)
			continue;
		used = 0;
		list[0] = '\0';
		for (s = 0; s < ARRAY_SIZE(scenario_names); s++)
			if (scenario_opts[i].scenarios & 1u << s)
				used += snprintf(list + used,
						 sizeof(list) - used, "%s%s",
						 used ? ", " : "",
						 scenario_names[s]);
		rs_error("bench: --%s is not an option of %s%s (it is of %s)",
			 option_name(scenario_opts[i].opt),
			 scenario_names[p->scenario],
			 p->main_job ? ", the default scenario" : "", list);
		return -EINVAL;
	}
	return 0;
}

/*
 * A scenario option (the run's, or a variant's: the same code for both).
 * 0, RS_EXIT_USAGE after saying why, or 1 when c is no scenario option.
 */
static int set_option(struct bench_params *p, int c, const char *optarg)
{
	uint64_t v;
	char *end;
	unsigned int i;

	switch (c) {
	case OPT_BREAKDOWN:
		p->breakdown = true;
		break;
	case OPT_CHILDREN:
		if (bench_params__count(p, "--children", optarg, 1000,
					&v))
			return bad_value(p);
		p->children = v;
		break;
	case OPT_DEPTH:
		if (bench_params__count(p, "--depth", optarg, 16, &v))
			return bad_value(p);
		p->depth = v;
		break;
	case OPT_UPDATER:
		for (i = 0; i < 3; i++)
			if (!strcmp(optarg, updater_names[i]))
				break;
		if (i == 3) {
			rs_error("bench: --updater '%s': give memory, cpu or both",
				 optarg);
			return RS_EXIT_USAGE;
		}
		p->updater = i;
		break;
	case OPT_MEMORY_MAX:
		if (bench_params__size(p, optarg, &p->memory_max))
			return bad_value(p);
		break;
	case OPT_FILES:
		if (bench_params__files(p, optarg))
			return bad_value(p);
		break;
	case OPT_READS:
		if (bench_params__count(p, "--reads", optarg,
					100000000, &v))
			return bad_value(p);
		p->reads = v;
		break;
	case OPT_INTERLEAVE:
		p->interleave = true;
		break;
	case OPT_DISCRETE:
		p->interleave = false;
		break;
	case OPT_CGROUPS:
		if (bench_params__count(p, "--cgroups", optarg, 100000,
					&v))
			return bad_value(p);
		p->cgroups = v;
		break;
	case OPT_ROUND_TRIPS:
		if (bench_params__count(p, "--round-trips", optarg, 1000000000,
				&v))
			return bad_value(p);
		p->round_trips = v;
		break;
	case OPT_PSI:
		for (i = 0; i < ARRAY_SIZE(psi_names); i++)
			if (!strcmp(optarg, psi_names[i]))
				break;
		if (i == ARRAY_SIZE(psi_names)) {
			rs_error("bench: --psi '%s': give on, off or both",
				 optarg);
			return RS_EXIT_USAGE;
		}
		p->psi = i;
		break;
	case OPT_DURATION:
		errno = 0;
		p->duration = strtod(optarg, &end);
		if (errno || end == optarg || *end ||
		    !(p->duration > 0) || p->duration > 86400) {
			rs_error("bench: --duration '%s': give seconds",
				 optarg);
			return RS_EXIT_USAGE;
		}
		break;
	case OPT_KIND:
		for (i = 0; i < ARRAY_SIZE(kind_names); i++)
			if (!strcmp(optarg, kind_names[i]))
				break;
		if (i == ARRAY_SIZE(kind_names)) {
			rs_error("bench: --kind '%s': give anon, file or both",
				 optarg);
			return RS_EXIT_USAGE;
		}
		p->kind = i;
		break;
	case OPT_CPUS_SPREAD:
		if (strcmp(optarg, "pinned") &&
		    strcmp(optarg, "spread")) {
			rs_error("bench: --cpus-spread '%s': give pinned or spread",
				 optarg);
			return RS_EXIT_USAGE;
		}
		p->spread = !strcmp(optarg, "spread");
		break;
	case OPT_RATE:
		if (bench_params__number(p, "--rate", optarg, 1e7,
					 &p->rate))
			return bad_value(p);
		break;
	case OPT_INTERVAL:
		if (bench_params__number(p, "--interval", optarg, 60000,
				 &p->interval_ms))
			return bad_value(p);
		break;
	case OPT_AFTER_FLUSH:
		p->after_flush = true;
		break;
	case OPT_STEP:
		if (bench_params__count(p, "--step", optarg,
					ACC_MAX_PAGES, &v))
			return bad_value(p);
		p->step = v;
		break;
	default:
		return 1;
	}
	return 0;
}

/*
 * --variant-order alternate (A B A B...) or random[:SEED] (each round in
 * an order of its own, drawn from SEED, or from the clock and said in the
 * results so that the run can be repeated).
 */
static int parse_order(struct bench_params *p, const char *arg)
{
	char *end;

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
	rs_error("bench: --variant-order '%s': give alternate, random or random:SEED (SEED below 2^53)",
		 arg);
	return RS_EXIT_USAGE;
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
 * One --variant [NAME:]OPTIONS: the run's parameters with OPTIONS on
 * top, parsed by the code that parses the run's (set_option()). OPTIONS
 * are the scenario's options, split at spaces.
 */
static int parse_variant(const struct bench_params *base, const char *arg,
			 struct bench_variant *var)
{
	bool given[OPT__END - OPT_RECORD] = { false };
	char *argv[64], *tok, *save = NULL, *colon;
	const char *opts = arg;
	size_t n, i;
	int argc = 1, c, ret;

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
	optind = 0;	/* getopt starts afresh on this argv */
	while ((c = getopt_long(argc, argv, ":r:o:h", bench_options,
				NULL)) != -1) {
		for (i = 0; i < ARRAY_SIZE(scenario_opts); i++)
			if (scenario_opts[i].opt == c)
				break;
		if (i == ARRAY_SIZE(scenario_opts)) {
			if (c == ':' || c == '?')
				return rs_bad_option("bench --variant", c,
						     argv[optind - 1],
						     bench_usage);
			if (c < 256)
				rs_error("bench: --variant '%s': -%c is not a scenario option (they alone may differ between variants)",
					 arg, c);
			else
				rs_error("bench: --variant '%s': --%s is not a scenario option (they alone may differ between variants)",
					 arg, option_name(c));
			return RS_EXIT_USAGE;
		}
		if (c == OPT_BREAKDOWN) {
			/* Its pass is a run's, not a repetition's. */
			rs_error("bench: --variant '%s': --breakdown is not supported; run the variant you want so on its own",
				 arg);
			return RS_EXIT_USAGE;
		}
		given[c - OPT_RECORD] = true;
		ret = set_option(&var->p, c, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		rs_error("bench: --variant '%s': '%s' is not an option",
			 arg, argv[optind]);
		return RS_EXIT_USAGE;
	}
	if (check_scenario_opts(&var->p, given))
		return RS_EXIT_USAGE;
	bench_params__finish(&var->p);
	return 0;
}

/* The variants, and what a run of variants cannot do. */
static int check_variants(struct bench_params *p, const char *const *args,
			  size_t n)
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
	if (p->record || p->breakdown || p->json || p->keep) {
		rs_error("bench: --variant: %s; run the variant you want so on its own",
			 p->record ? "--record is not supported" :
			 p->breakdown ? "--breakdown is not supported" :
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
		ret = parse_variant(p, args[i], &p->variants[i]);
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

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int bench_parse_args(int argc, char **argv, struct bench_params *p)
{
	bool given[OPT__END - OPT_RECORD] = { false }, order_given = false;
	const char *variants[BENCH_MAX_VARIANTS];
	size_t nvariants = 0;
	char err[256];
	uint64_t v;
	unsigned int i;
	int c, ret;

	bench_params__init(p, argc, argv);
	optind = 1;
	opterr = 0;
	if (argc > 1 && argv[1][0] != '-') {
		for (i = 0; i < sizeof(scenario_names) /
			       sizeof(*scenario_names); i++)
			if (!strcmp(argv[1], scenario_names[i]))
				break;
		if (i == sizeof(scenario_names) / sizeof(*scenario_names)) {
			rs_error("bench: '%s' is not a scenario: stat-read, many-cgroups, pipe, fault or accuracy",
				 argv[1]);
			bench_usage(stderr);
			return RS_EXIT_USAGE;
		}
		p->scenario = i;
		optind = 2;
	}
	while ((c = getopt_long(argc, argv, ":r:o:h", bench_options,
				NULL)) != -1) {
		if (c >= OPT_RECORD && c < OPT__END)
			given[c - OPT_RECORD] = true;
		switch (c) {
		case 'r':
			if (bench_params__count(p, "-r", optarg, 1000, &v))
				return bad_value(p);
			p->reps = v;
			break;
		case OPT_RECORD:
			p->record = true;
			break;
		case OPT_JSON:
			p->json = optarg;
			break;
		case 'o':
			p->outdir = optarg;
			break;
		case OPT_ROOT:
			p->root = optarg;
			break;
		case OPT_KEEP:
			p->keep = true;
			break;
		case OPT_ALLOW_SHARED_DIR:
			p->allow_shared_dir = true;
			break;
		case OPT_VARIANT:
			if (nvariants == BENCH_MAX_VARIANTS) {
				rs_error("bench: --variant: at most %d variants",
					 BENCH_MAX_VARIANTS);
				return RS_EXIT_USAGE;
			}
			variants[nvariants++] = optarg;
			break;
		case OPT_VARIANT_ORDER:
			if (parse_order(p, optarg))
				return RS_EXIT_USAGE;
			order_given = true;
			break;
		case OPT_UNTIL:
			if (bench_until__parse(&p->until, optarg, p->why,
					       sizeof(p->why)))
				return bad_value(p);
			break;
		VM_OPT_CASES:
			if (vm_opts__parse(&p->vm, c, optarg, err,
					   sizeof(err))) {
				rs_error("bench: %s", err);
				bench_usage(stderr);
				return RS_EXIT_USAGE;
			}
			break;
		case 'h':
			bench_help();
			return -1;
		default:
			ret = set_option(p, c, optarg);
			if (ret == 1)
				return rs_bad_option("bench", c,
						     argv[optind - 1],
						     bench_usage);
			if (ret)
				return ret;
		}
	}
	if (optind < argc) {
		rs_error("bench: unexpected argument '%s' (the scenario comes first)",
			 argv[optind]);
		return RS_EXIT_USAGE;
	}
	if (check_scenario_opts(p, given)) {
		bench_usage(stderr);
		return RS_EXIT_USAGE;
	}
	p->nopts = optind;
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
	if (nvariants || order_given)
		return check_variants(p, variants, nvariants);
	return 0;
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

	t = bench_results__rep_time(res, bench_results__nr_reps(res) - 1);
	printf("# run %u of %s%zu: %s, repetition %u: real %.3f s, user %.3f s, sys %.3f s\n",
	       nr_done, p->until.target_pct ? "at most " : "",
	       (size_t)(p->until.target_pct ? p->until.max_reps : p->reps) *
	       p->nr_variants, v->name, rep, t->real_s, t->user_s, t->sys_s);
	fflush(stdout);
}

/* The kernels' decompositions side by side (a note if they cannot). */
static void print_breakdowns(const char *const *files,
			     const char *const *labels, size_t n)
{
	char errbuf[512] = "";

	if (bench_breakdown__print_runs(files, labels, n, stdout, errbuf,
					sizeof(errbuf)))
		rs_note("bench: the kernels' breakdowns side by side: %s",
			errbuf);
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
	return compare_results(files, labels, p->nr_variants);
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

static int bench_in_vms(const struct bench_params *p)
{
	char (*dirs)[PATH_MAX] = calloc(p->vm.nkernels, sizeof(*dirs));
	const char *files[VM_MAX_KERNELS], *labels[VM_MAX_KERNELS];
	char results[VM_MAX_KERNELS][PATH_MAX];
	struct vm_result *res = NULL;
	int gargc, status = RS_EXIT_FAIL, err;
	bool noted = false;
	char **gargv;
	size_t i;

	gargv = vm_guest_argv(p->argc, p->argv, p->nopts, bench_options, "o",
			      &gargc);
	if (!dirs || !gargv) {
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
		status = compare_results(files, labels, p->vm.nkernels);
		if (p->breakdown)
			print_breakdowns(files, labels, p->vm.nkernels);
	}
out:
	vm_result__delete(res);
	free(gargv);
	free(dirs);
	return status;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_params params;
	int ret;

	ret = bench_parse_args(argc, argv, &params);
	if (ret < 0)
		ret = rs_finish_stdout(RS_EXIT_OK);
	else if (!ret && params.vm.nkernels)
		ret = rs_finish_stdout(bench_in_vms(&params));
	else if (!ret && params.nr_variants)
		ret = rs_finish_stdout(bench_variants(&params));
	else if (!ret)
		ret = rs_finish_stdout(bench_run(&params));
	bench_params__free(&params);
	return ret;
}
