// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze bench: the published rstat experiments as scenarios with
 * parameters, run in cgroups the run owns, timed, optionally recorded,
 * with every repetition's figures kept for `compare`.
 *
 * Everything the run creates (cgroups, workload processes, work files,
 * the recorder) is undone on every exit path: normal end, error, SIGINT,
 * SIGTERM. Workloads and the recorder also die with the bench process
 * (PR_SET_PDEATHSIG), and a later run removes the cgroups and work files
 * a SIGKILLed run left.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-accuracy.h"
#include "bench-cgroup.h"
#include "bench-results.h"
#include "bench-workload.h"
#include "cmds.h"
#include "hist.h"
#include "kfeatures.h"
#include "outfile.h"
#include "util.h"
#include "vm.h"
#include "workdir.h"

#define MAX_FILES 8
#define MAX_PROCS 4096
#define CHURN_FILE_BYTES (64ULL << 20)
#define CHURN_ANON_BYTES (4ULL << 20)
#define CHARGE_BYTES (64ULL << 10)
#define FAULT_BYTES (16ULL << 20)
#define WARMUP_MS 300

enum scenario { SC_STAT_READ, SC_MANY_CGROUPS, SC_PIPE, SC_FAULT, SC_ACCURACY };

static const char *const scenario_names[] = {
	"stat-read", "many-cgroups", "pipe", "fault", "accuracy",
};

static const char *const kind_names[] = { "anon", "file", "both" };

enum updater { UPD_MEMORY, UPD_CPU, UPD_BOTH };

static const char *const updater_names[] = { "memory", "cpu", "both" };

struct bench_params {
	struct vm_opts vm;	/* --kernel: once per kernel, in a VM */
	int nopts;		/* optind after the options */
	enum scenario scenario;
	bool main_job;		/* no scenario named */
	unsigned int reps;
	bool record;
	const char *json;
	const char *outdir;
	const char *root;
	bool keep;
	unsigned int children;	/* 0: the scenario's default */
	unsigned int depth;
	enum updater updater;
	uint64_t memory_max;	/* 0: none */
	char *files[MAX_FILES];
	unsigned int nr_files;
	char *files_buf;	/* --files split, argv left as it was */
	uint64_t reads;
	bool interleave;
	unsigned int cgroups;
	uint64_t round_trips;
	double duration;
	enum acc_kind kind;
	bool spread;
	double interval_ms;
	double rate;
	uint64_t step;
	bool after_flush;
	int argc;
	char **argv;
};

/* What the run holds, for the one cleanup path. */
struct bench_run {
	const struct bench_params *p;
	struct bench_cg *cg;
	struct bench_results *res;
	struct bench_proc *procs[MAX_PROCS];
	unsigned int nr_procs;
	pid_t recorder;
	struct workdir *workdir;	/* the work files */
	char recording[PATH_MAX];
	struct bench_cgroup_counts before;
	time_t started;
	unsigned int nr_cpus;
	bool tty;		/* progress on stderr */
	struct stat recording_st;	/* the file our recorder made */
	bool rotated;		/* an earlier recording is at .old */
};

static volatile sig_atomic_t bench_stop;

static void bench_signal(int sig)
{
	bench_stop = sig;
}

static const char bench_usage_text[] =
	"usage: rstat-analyze bench [stat-read|many-cgroups|pipe|fault|accuracy]\n"
	"                           [-r N] [--record] [--json FILE] [-o DIR]\n"
	"                           [--root PATH] [--keep] [scenario options]\n"
	"       rstat-analyze bench SCENARIO ... --kernel IMAGE [--kernel IMAGE]...\n"
	"                           -o DIR [VM options]\n";

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
	      "  -r, --repeat N        repetitions (default 1)\n"
	      "      --record          one more pass, recorded (rstat.data beside\n"
	      "                        the results; the timed repetitions are\n"
	      "                        never recorded), and the report after\n"
	      "      --json FILE       write the results as JSON\n"
	      "  -o, --output-dir DIR  write DIR/results.json (and DIR/rstat.data)\n"
	      "      --root PATH       create the run's cgroups under PATH\n"
	      "      --keep            leave the run's cgroups for you to inspect\n"
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
	      "many-cgroups: memory.stat of a parent of many charged memcgs\n"
	      "      --cgroups K       memory cgroups (default 2500)\n"
	      "      --reads N         reads (default 1000)\n"
	      "pipe: ping-pong over pipes in a 3-level nest, PSI on and off\n"
	      "      --round-trips N   round trips (default 100000)\n"
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
	OPT__END,
};

static const struct option bench_options[] = {
	{ "repeat", required_argument, NULL, 'r' },
	{ "record", no_argument, NULL, OPT_RECORD },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "output-dir", required_argument, NULL, 'o' },
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
	{ "help", no_argument, NULL, 'h' },
	VM_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int parse_count(const char *opt, const char *s, uint64_t max,
		       uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || !*out || *out > max) {
		rs_error("bench: %s '%s': give a number from 1 to %" PRIu64,
			 opt, s, max);
		return -EINVAL;
	}
	return 0;
}

/* A positive number up to max (--rate, --interval). */
static int parse_number(const char *opt, const char *s, double max,
			double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || *out > max) {
		rs_error("bench: %s '%s': give a number above 0, at most %g",
			 opt, s, max);
		return -EINVAL;
	}
	return 0;
}

/* SIZE with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || !v || v > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	rs_error("bench: --memory-max '%s': give a size like 512M", s);
	return -EINVAL;
}

/*
 * The cgroup files a reader may time: the stat files that flush (or, as
 * cgroup.stat and cpu.stat.local, do not) and the usual counters beside
 * them, v2 and v1 names. A typo is a usage error, not a run that reads
 * nothing.
 */
static const char *const known_files[] = {
	"cgroup.stat", "cgroup.events", "cpu.stat", "cpu.stat.local",
	"cpu.pressure", "memory.stat", "memory.numa_stat", "memory.current",
	"memory.peak", "memory.events", "memory.events.local",
	"memory.pressure", "memory.swap.current", "memory.zswap.current",
	"io.stat", "io.pressure", "pids.current", "memory.usage_in_bytes",
	"memory.max_usage_in_bytes", "cpuacct.stat", "cpuacct.usage",
	"cpuacct.usage_percpu",
};

static bool known_file(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_files); i++)
		if (!strcmp(name, known_files[i]))
			return true;
	return false;
}

static int parse_files(struct bench_params *p, const char *arg)
{
	char *tok, *save = NULL, *list;

	/* A copy: argv stays whole for the results' command_line. */
	free(p->files_buf);
	list = p->files_buf = strdup(arg);
	if (!list) {
		rs_error("bench: out of memory");
		return -ENOMEM;
	}
	p->nr_files = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (p->nr_files == MAX_FILES) {
			rs_error("bench: --files: give at most %d file names of the parent cgroup, comma-separated",
				 MAX_FILES);
			return -EINVAL;
		}
		if (!known_file(tok)) {
			rs_error("bench: --files: '%s' is not a cgroup stat file bench knows (cgroup.stat, cpu.stat, cpu.stat.local, memory.stat, memory.numa_stat, io.stat, the *.pressure and *.current files...)",
				 tok);
			return -EINVAL;
		}
		p->files[p->nr_files++] = tok;
	}
	if (!p->nr_files) {
		rs_error("bench: --files needs at least one file name");
		return -EINVAL;
	}
	return 0;
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
	{ OPT_DURATION, 1u << SC_FAULT },
	{ OPT_KIND, 1u << SC_ACCURACY },
	{ OPT_RATE, 1u << SC_ACCURACY },
	{ OPT_CPUS_SPREAD, 1u << SC_ACCURACY },
	{ OPT_INTERVAL, 1u << SC_ACCURACY },
	{ OPT_AFTER_FLUSH, 1u << SC_ACCURACY },
	{ OPT_STEP, 1u << SC_ACCURACY },
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

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int bench_parse_args(int argc, char **argv, struct bench_params *p)
{
	bool given[OPT__END - OPT_RECORD] = { false };
	static char *default_files[] = {
		"cgroup.stat", "cpu.stat", "memory.stat", "io.stat",
	};
	char err[256];
	uint64_t v;
	char *end;
	unsigned int i;
	int c;

	memset(p, 0, sizeof(*p));
	p->reps = 1;
	p->depth = 1;
	p->updater = UPD_BOTH;
	p->reads = 0;
	p->interleave = true;
	p->cgroups = 2500;
	p->round_trips = 100000;
	p->duration = 3;
	p->kind = ACC_BOTH;
	p->interval_ms = 10;
	p->rate = 200;
	p->step = 1;
	p->argc = argc;
	p->argv = argv;
	for (i = 0; i < sizeof(default_files) / sizeof(*default_files); i++)
		p->files[p->nr_files++] = default_files[i];
	/*
	 * No scenario named: the main job, small enough for a minute on 2
	 * CPUs, recorded and reported. Options (--root in a container, -o)
	 * change it but do not turn it into a bare stat-read.
	 */
	p->main_job = argc == 1 || argv[1][0] == '-';
	if (p->main_job) {
		p->record = true;
		p->children = 26;
		p->reads = 2000;
	}
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
			if (parse_count("-r", optarg, 1000, &v))
				return RS_EXIT_USAGE;
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
		case OPT_CHILDREN:
			if (parse_count("--children", optarg, 1000, &v))
				return RS_EXIT_USAGE;
			p->children = v;
			break;
		case OPT_DEPTH:
			if (parse_count("--depth", optarg, 16, &v))
				return RS_EXIT_USAGE;
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
			if (parse_size(optarg, &p->memory_max))
				return RS_EXIT_USAGE;
			break;
		case OPT_FILES:
			if (parse_files(p, optarg))
				return RS_EXIT_USAGE;
			break;
		case OPT_READS:
			if (parse_count("--reads", optarg, 100000000, &v))
				return RS_EXIT_USAGE;
			p->reads = v;
			break;
		case OPT_INTERLEAVE:
			p->interleave = true;
			break;
		case OPT_DISCRETE:
			p->interleave = false;
			break;
		case OPT_CGROUPS:
			if (parse_count("--cgroups", optarg, 100000, &v))
				return RS_EXIT_USAGE;
			p->cgroups = v;
			break;
		case OPT_ROUND_TRIPS:
			if (parse_count("--round-trips", optarg, 1000000000,
					&v))
				return RS_EXIT_USAGE;
			p->round_trips = v;
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
			if (parse_number("--rate", optarg, 1e7, &p->rate))
				return RS_EXIT_USAGE;
			break;
		case OPT_INTERVAL:
			if (parse_number("--interval", optarg, 60000,
					 &p->interval_ms))
				return RS_EXIT_USAGE;
			break;
		case OPT_AFTER_FLUSH:
			p->after_flush = true;
			break;
		case OPT_STEP:
			if (parse_count("--step", optarg, ACC_MAX_PAGES, &v))
				return RS_EXIT_USAGE;
			p->step = v;
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
		case ':':
			rs_error("bench: option '%s' needs a value",
				 argv[optind - 1]);
			bench_usage(stderr);
			return RS_EXIT_USAGE;
		default:
			rs_error("bench: unknown option '%s'",
				 argv[optind - 1]);
			bench_usage(stderr);
			return RS_EXIT_USAGE;
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
	if (!p->reads)
		p->reads = p->scenario == SC_ACCURACY ? 200 : 1000;
	if (!p->children)
		p->children = p->scenario == SC_FAULT ? 0 :
			      p->scenario == SC_ACCURACY ? 4 : 26;
	return 0;
}

/* --- processes ---------------------------------------------------------- */

static int add_proc(struct bench_run *run, struct bench_proc *proc)
{
	if (!proc) {
		rs_error("bench: cannot start a workload process: %s",
			 strerror(errno));
		return -errno;
	}
	if (run->nr_procs == MAX_PROCS) {
		bench_proc__delete(proc);
		rs_error("bench: more than %d workload processes", MAX_PROCS);
		return -E2BIG;
	}
	run->procs[run->nr_procs++] = proc;
	return 0;
}

static void stop_procs(struct bench_run *run)
{
	unsigned int i;

	bench_proc__stop_all(run->procs, run->nr_procs);
	for (i = 0; i < run->nr_procs; i++)
		bench_proc__delete(run->procs[i]);
	run->nr_procs = 0;
}

/* Spawn fn in cgroup rel and let it run. */
static int start_in(struct bench_run *run, const char *rel,
		    int (*fn)(void *), void *arg, struct bench_proc **out)
{
	struct bench_proc *proc = bench_proc__spawn(fn, arg);
	int err = add_proc(run, proc);

	if (err)
		return err;
	if (rel) {
		err = bench_cg__join(run->cg, rel, bench_proc__pid(proc));
		if (err) {
			rs_error("bench: cannot move a workload into %s: %s",
				 rel, *bench_cg__error(run->cg) ?
				 bench_cg__error(run->cg) : strerror(-err));
			return err;
		}
	}
	/* Updaters yield to the measured task, as in the seeds' runs. */
	if (fn == wl_cpu_spin || fn == wl_memory_churn)
		setpriority(PRIO_PROCESS, bench_proc__pid(proc), 19);
	err = bench_proc__start(proc);
	if (err) {
		rs_error("bench: cannot start a workload: %s", strerror(-err));
		return err;
	}
	if (out)
		*out = proc;
	return 0;
}

/*
 * Block the signals that stop a run (old: the mask before), so that a
 * look at bench_stop and the wait after it cannot lose one.
 */
static void block_stops(sigset_t *stops, sigset_t *old)
{
	sigemptyset(stops);
	sigaddset(stops, SIGINT);
	sigaddset(stops, SIGTERM);
	sigaddset(stops, SIGHUP);
	sigprocmask(SIG_BLOCK, stops, old);
}

/* Wait for a started process; -EINTR when the run is being stopped. */
static int wait_proc(struct bench_proc *proc, struct rusage *ru,
		     double *real_s)
{
	struct timespec tick = { 0, 1000 * 1000 };
	struct pollfd pfd = { .events = POLLIN };
	sigset_t stops, old;
	int status, err;

	/*
	 * Not a plain blocking wait4(): a signal landing between a look at
	 * bench_stop and the wait would be lost, and the run would wait out
	 * the workload (minutes for pipe's round trips). With the stop
	 * signals blocked, bench_stop is looked at, then ppoll() on a pidfd
	 * unblocks them atomically: it returns when the child ends or a
	 * signal comes, never missing either, and costs nothing meanwhile.
	 * Without pidfds (before 5.3) it polls, from 1 ms up to 20 ms, so
	 * that short workloads (many-cgroups' thousands of charges) are not
	 * slowed by the poll.
	 */
	pfd.fd = pidfd_open(bench_proc__pid(proc), 0);
	block_stops(&stops, &old);
	while ((err = bench_proc__poll(proc)) > 0 && !bench_stop) {
		if (pfd.fd >= 0) {
			ppoll(&pfd, 1, NULL, &old);
			continue;
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		nanosleep(&tick, NULL);
		if (tick.tv_nsec < 20 * 1000 * 1000)
			tick.tv_nsec *= 2;
		sigprocmask(SIG_BLOCK, &stops, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pfd.fd >= 0)
		close(pfd.fd);
	if (err > 0)
		return -EINTR;
	if (!err)
		err = bench_proc__wait(proc, &status, ru, real_s);
	if (err)
		return err;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (bench_stop)
			return -EINTR;
		rs_error("bench: a workload failed: %s",
			 WIFEXITED(status) ? strerror(WEXITSTATUS(status)) :
			 strsignal(WTERMSIG(status)));
		return -EIO;
	}
	return 0;
}

/*
 * Sleep ms, cut short when the run is being stopped. As in wait_proc(),
 * bench_stop is looked at with the stop signals blocked and ppoll()
 * unblocks them atomically, so a signal landing just before a long sleep
 * (fault's --duration) ends it at once.
 */
static int nap(double ms)
{
	struct timespec end, now, ts;
	sigset_t stops, old;
	double left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(ms / 1000);
	end.tv_nsec += (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	block_stops(&stops, &old);
	while (!bench_stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) +
		       (end.tv_nsec - now.tv_nsec) / 1e9;
		if (left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		ppoll(NULL, 0, &ts, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return bench_stop ? -EINTR : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * On a terminal, the step the run is at, on one stderr line that the
 * next step overwrites (as record's progress line); nothing otherwise.
 */
static void progress(const struct bench_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct bench_run *run, const char *fmt, ...)
{
	char msg[80];
	va_list ap;

	if (!run->tty)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r%-79.79s", msg);
}

static void progress_clear(const struct bench_run *run)
{
	if (run->tty)
		fprintf(stderr, "\r%79s\r", "");
}

/* --- recording ---------------------------------------------------------- */

/*
 * The recorder is `rstat-analyze record` itself, in a child: the same
 * events as record, and a recording perf reads. It gets SIGINT to stop,
 * also when the bench process dies (PDEATHSIG), so the file is complete.
 */
static int start_recorder(struct bench_run *run)
{
	pid_t parent = getpid();
	struct pollfd pfd;
	int ready[2], n;
	double t0;
	char c;
	pid_t pid;
	int err;

	if (run->p->outdir)
		snprintf(run->recording, sizeof(run->recording),
			 "%s/rstat.data", run->p->outdir);
	else
		snprintf(run->recording, sizeof(run->recording), "rstat.data");
	/* As record does: the previous recording becomes .old. */
	err = outfile__rotate(run->recording);
	if (err < 0) {
		rs_error("%s: %s", run->recording, outfile__strerror(err));
		return err;
	}
	run->rotated = err == 1;
	/*
	 * The recorder says on this pipe when its events are enabled (see
	 * record's tell_ready()); only then does the workload start. Its
	 * output appears only once they are, too, but only where the file
	 * system can make an unnamed file (O_TMPFILE; a guest's initramfs
	 * may not): without it the name comes before the header, the
	 * tracing data and the threads are written, which under TCG took
	 * longer than the whole recorded pass. The pipe holds everywhere.
	 */
	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(ready[0]);
		close(ready[1]);
		return err;
	}
	if (pid == 0) {
		char fdnum[16];

		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(ready[0]);
		/* The write end alone survives the exec. */
		if (fcntl(ready[1], F_SETFD, 0) < 0)
			_exit(127);
		snprintf(fdnum, sizeof(fdnum), "%d", ready[1]);
		setenv("RS_RECORD_READY_FD", fdnum, 1);
		/*
		 * A flushing reader makes 100k lock events a second with
		 * callchains, while the workloads compete for the CPU the
		 * recorder drains on: 4 MiB rings rather than 1.
		 */
		execl("/proc/self/exe", "rstat-analyze", "record", "-q", "-a",
		      "-m", "1024", "-o", run->recording, (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	run->recorder = pid;
	pfd.fd = ready[0];
	pfd.events = POLLIN;
	for (t0 = now_s(); now_s() - t0 < 120; ) {
		if (bench_stop) {
			close(ready[0]);
			return -EINTR;
		}
		n = poll(&pfd, 1, 100);
		if (n <= 0)
			continue;
		n = read(ready[0], &c, 1);
		close(ready[0]);
		/* Which file is ours, to remove if the run is interrupted. */
		lstat(run->recording, &run->recording_st);
		if (n == 1)
			return 0;
		rs_error("bench: --record: the recorder failed (run `rstat-analyze record -d 1` to see why)");
		return -EIO;
	}
	close(ready[0]);
	rs_error("bench: --record: the recorder did not enable its events within 120 s");
	return -ETIMEDOUT;
}

static int stop_recorder(struct bench_run *run)
{
	int status = 0, i;

	if (run->recorder <= 0)
		return 0;
	kill(run->recorder, SIGINT);
	for (i = 0; i < 3000; i++) {
		if (waitpid(run->recorder, &status, WNOHANG) == run->recorder)
			break;
		usleep(10000);
	}
	if (i == 3000) {
		kill(run->recorder, SIGKILL);
		waitpid(run->recorder, &status, 0);
	}
	run->recorder = 0;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
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

/* --- scenarios ---------------------------------------------------------- */

static int add_hist_metric(struct bench_run *run, const char *file,
			   const uint64_t *lat, size_t n)
{
	struct hist *h = hist__new();
	size_t i;
	int err = h ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++)
		err = hist__add(h, lat[i]);
	if (!err)
		err = bench_results__rep_metric_hist(run->res, "read_ns", "ns",
						     file, true, h, lat, n);
	hist__delete(h);
	return err;
}

/*
 * Passes: the timed repetitions, never recorded, then with --record one
 * more pass of the same workload while the recorder runs. A recorder
 * inflates what it observes (a 0.6 us cpu.stat read took 8 us while
 * callchains were recorded): its pass is kept apart, as what recording
 * cost, and no figure of it is ever printed or saved as a result.
 */
static unsigned int nr_passes(const struct bench_run *run)
{
	return run->p->reps + (run->p->record ? 1 : 0);
}

static bool recorded_pass(const struct bench_run *run, unsigned int rep)
{
	return run->p->record && rep == run->p->reps;
}

/* "repetition 2 of 3", or "the recorded pass". */
static const char *pass_name(const struct bench_run *run, unsigned int rep,
			     char *buf, size_t len)
{
	if (recorded_pass(run, rep))
		snprintf(buf, len, "the recorded pass");
	else
		snprintf(buf, len, "repetition %u of %u", rep + 1,
			 run->p->reps);
	return buf;
}

static int pass_start(struct bench_run *run, unsigned int rep)
{
	return recorded_pass(run, rep) ? start_recorder(run) : 0;
}

static int pass_end(struct bench_run *run, unsigned int rep, int err)
{
	if (!recorded_pass(run, rep))
		return err;
	if (stop_recorder(run) && !err && !bench_stop) {
		rs_error("bench: --record: the recorder failed; see %s",
			 run->recording);
		return -EIO;
	}
	return err;
}

static int begin_rep(struct bench_run *run, unsigned int rep, double real,
		     double user, double sys)
{
	if (recorded_pass(run, rep))
		return bench_results__recorded_begin(run->res, real, user,
						     sys);
	return bench_results__rep_begin(run->res, real, user, sys);
}

/*
 * One reader run: reads files reads times (interleaved or one after the
 * other) from outside the measured tree; its time(1) figures are the
 * pass's, each file's read latencies a metric.
 */
static int run_reader(struct bench_run *run, unsigned int pass, char **paths,
		      char **names, unsigned int nr, uint64_t reads,
		      bool interleave)
{
	size_t slots = reads * nr, size = slots * sizeof(uint64_t) +
		       sizeof(uint64_t) + sizeof(int);
	struct wl_reader rd = {
		.files = paths, .nr_files = nr, .reads = reads,
		.interleave = interleave,
	};
	struct bench_proc *proc;
	struct rusage ru;
	double real;
	uint64_t *lat, *one;
	unsigned int f;
	uint64_t r;
	void *shm;
	int err;

	shm = bench_shared__alloc(size);
	if (!shm) {
		rs_error("bench: out of memory for %zu read timings", slots);
		return -ENOMEM;
	}
	rd.lat_ns = shm;
	rd.done = (uint64_t *)shm + slots;
	rd.err = (int *)(rd.done + 1);
	one = malloc(reads * sizeof(*one));
	err = one ? start_in(run, NULL, wl_reader, &rd, &proc) : -ENOMEM;
	if (!err)
		err = wait_proc(proc, &ru, &real);
	if (!err && (*rd.err || *rd.done != slots)) {
		rs_error("bench: the reader stopped after %" PRIu64 " of %zu reads: %s",
			 *rd.done, slots, strerror(*rd.err ? *rd.err : EIO));
		err = -EIO;
	}
	if (!err)
		err = begin_rep(run, pass, real,
				ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
				ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	for (f = 0; !err && f < nr; f++) {
		lat = rd.lat_ns;
		for (r = 0; r < reads; r++)
			one[r] = interleave ? lat[r * nr + f] :
				 lat[f * reads + r];
		err = add_hist_metric(run, names[f], one, reads);
	}
	if (!err)
		err = bench_results__rep_metric_value(run->res, "reads_per_s",
						      "1/s", false,
						      slots / real);
	free(one);
	bench_shared__free(shm, size);
	return err;
}

/* "d1/d2/.../c<i>" for a child at the given depth. */
static void child_rel(char *buf, size_t len, unsigned int depth,
		      unsigned int i)
{
	size_t used = 0;
	unsigned int d;

	buf[0] = '\0';
	for (d = 1; d < depth && used < len; d++)
		used += snprintf(buf + used, len - used, "d%u/", d);
	if (used < len)
		snprintf(buf + used, len - used, "c%u", i);
}

static int note_skip(struct bench_run *run, const char *fmt, const char *a,
		     const char *b)
{
	char line[512];

	snprintf(line, sizeof(line), fmt, a, b);
	rs_note("%s", line);
	return bench_results__skip(run->res, line);
}

static int scenario_stat_read(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	static struct wl_memory mem;
	char rel[256], *paths[MAX_FILES], *names[MAX_FILES];
	char val[32];
	bool have_mem = bench_cg__has(run->cg, BENCH_CTRL_MEMORY);
	unsigned int i, nr = 0, rep;
	int err = 0;
	char what[32];

	for (i = 0; i < p->nr_files; i++) {
		const char *f = p->files[i];
		enum bench_ctrl c = !strncmp(f, "memory.", 7) ?
				    BENCH_CTRL_MEMORY :
				    !strncmp(f, "io.", 3) ? BENCH_CTRL_IO :
				    BENCH_CTRL_BASE;
		char *path = bench_cg__has(run->cg, c) ?
			     bench_cg__path(run->cg, c, "", f) : NULL;

		if (!path || access(path, R_OK)) {
			err = note_skip(run, "%s: not read: %s", f,
					bench_cg__has(run->cg, c) ?
					"no such file in this cgroup" :
					bench_cg__why_not(run->cg, c));
			free(path);
			if (err)
				goto out;
			continue;
		}
		paths[nr] = path;
		names[nr++] = (char *)f;
	}
	if (!nr) {
		rs_error("bench: none of the stat files to read exists here");
		err = -ENOENT;
		goto out;
	}
	if (p->memory_max) {
		snprintf(val, sizeof(val), "%" PRIu64, p->memory_max);
		if (!have_mem)
			err = note_skip(run, "%s: not set: %s", "--memory-max",
					bench_cg__why_not(run->cg,
							  BENCH_CTRL_MEMORY));
		else if (bench_cg__write(run->cg, BENCH_CTRL_MEMORY, "",
					 "memory.max", val) ||
			 bench_cg__write(run->cg, BENCH_CTRL_MEMORY, "",
					 "memory.swap.max", "0"))
			err = note_skip(run, "%s: could not be set: %s",
					"--memory-max",
					bench_cg__error(run->cg));
		if (err)
			goto out;
	}
	if (p->updater != UPD_CPU && !have_mem) {
		err = note_skip(run, "%s: %s", "memory updaters",
				bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		if (err)
			goto out;
	}
	if (p->updater != UPD_CPU && have_mem) {
		err = bench_sparse_file(workdir__fd(run->workdir), "churn",
					CHURN_FILE_BYTES);
		if (err) {
			rs_error("bench: %s/churn: %s",
				 workdir__path(run->workdir), strerror(-err));
			goto out;
		}
		mem.anon = true;
		mem.pagecache = true;
		mem.anon_bytes = CHURN_ANON_BYTES;
		mem.dirfd = workdir__fd(run->workdir);
		mem.file = "churn";
		mem.file_bytes = CHURN_FILE_BYTES;
	}
	/*
	 * Every updater is busy at nice 19 (weight 15 against the reader's
	 * 1024): so many of them per CPU that the reader's share of its
	 * CPU drops below half make the reads, and the run, that much
	 * slower. Say so before the wait.
	 */
	{
		unsigned int procs = p->children *
				     (p->updater == UPD_BOTH ? 2 : 1);
		double share = 1024.0 / (1024.0 + 15.0 * procs /
					 run->nr_cpus);

		if (share < 0.5)
			rs_note("%u busy updaters (nice 19) on %u CPUs: the reader gets about %.0f%% of its CPU, so the reads take longer",
				procs, run->nr_cpus, share * 100);
	}
	progress(run, "bench stat-read: creating %u child cgroups",
		 p->children);
	for (i = 1; i <= p->children; i++) {
		child_rel(rel, sizeof(rel), p->depth, i);
		err = bench_cg__mkdir(run->cg, rel);
		if (err) {
			rs_error("bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			goto out;
		}
		if (p->updater != UPD_MEMORY)
			err = start_in(run, rel, wl_cpu_spin, NULL, NULL);
		if (!err && p->updater != UPD_CPU && have_mem)
			err = start_in(run, rel, wl_memory_churn, &mem, NULL);
		if (err)
			goto out;
	}
	progress(run, "bench stat-read: warming up %u children",
		 p->children);
	err = nap(WARMUP_MS);
	for (rep = 0; !err && rep < nr_passes(run); rep++) {
		progress(run, "bench stat-read: %s: %" PRIu64
			 " reads of %u file%s",
			 pass_name(run, rep, what, sizeof(what)), p->reads, nr,
			 nr > 1 ? "s" : "");
		err = pass_start(run, rep);
		if (!err)
			err = run_reader(run, rep, paths, names, nr, p->reads,
					 p->interleave);
		err = pass_end(run, rep, err);
	}
out:
	for (i = 0; i < nr; i++)
		free(paths[i]);
	return err;
}

static int scenario_many_cgroups(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	struct wl_charge charge = {
		.dirfd = workdir__fd(run->workdir), .bytes = CHARGE_BYTES,
	};
	char rel[32], file[32], *path, *name = "memory.stat";
	struct bench_proc *proc;
	unsigned int i, rep;
	int err = 0;
	char what[32];

	if (!bench_cg__has(run->cg, BENCH_CTRL_MEMORY)) {
		rs_error("bench: many-cgroups needs the memory controller: %s",
			 bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		return -ENOENT;
	}
	for (i = 1; i <= p->cgroups && !bench_stop; i++) {
		if (i == 1 || !(i % 100))
			progress(run, "bench many-cgroups: charging cgroup %u of %u",
				 i, p->cgroups);
		snprintf(rel, sizeof(rel), "m%u", i);
		snprintf(file, sizeof(file), "charge-%u", i);
		err = bench_cg__mkdir(run->cg, rel);
		if (err) {
			rs_error("bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			return err;
		}
		/* One at a time: each writes its own file, charged to it. */
		charge.file = file;
		err = start_in(run, rel, wl_charge, &charge, &proc);
		if (!err)
			err = wait_proc(proc, NULL, NULL);
		if (err)
			return err;
		bench_proc__delete(proc);
		run->nr_procs--;
	}
	if (bench_stop)
		return -EINTR;
	path = bench_cg__path(run->cg, BENCH_CTRL_MEMORY, "", "memory.stat");
	if (!path)
		return -ENOMEM;
	for (rep = 0; !err && rep < nr_passes(run); rep++) {
		progress(run, "bench many-cgroups: %s: %" PRIu64 " reads",
			 pass_name(run, rep, what, sizeof(what)), p->reads);
		err = pass_start(run, rep);
		if (!err)
			err = run_reader(run, rep, &path, &name, 1, p->reads,
					 true);
		err = pass_end(run, rep, err);
	}
	free(path);
	return err;
}

static int set_pressure(struct bench_run *run, const char *const *rels,
			const char *val)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < 3; i++)
		err = bench_cg__write(run->cg, BENCH_CTRL_BASE, rels[i],
				      "cgroup.pressure", val);
	return err;
}

static int scenario_pipe(struct bench_run *run)
{
	static const char *const rels[] = { "l1", "l1/l2", "l1/l2/l3" };
	static const char *const metric[] = {
		"round_trips_per_s_psi_on", "round_trips_per_s_psi_off",
		"round_trips_per_s",
	};
	const struct bench_params *p = run->p;
	double *seconds = bench_shared__alloc(sizeof(double));
	struct wl_pipe pipe = { .round_trips = p->round_trips,
				.seconds = seconds };
	double real, tot_real, tot_user, tot_sys, value[2];
	struct bench_proc *proc;
	struct rusage ru;
	unsigned int rep, v, nv;
	bool psi;
	char *path;
	int err;
	char what[32];

	if (!seconds)
		return -ENOMEM;
	err = bench_cg__mkdir(run->cg, "l1/l2/l3");
	if (err) {
		rs_error("bench: cannot create cgroup l1/l2/l3: %s",
			 bench_cg__error(run->cg));
		goto out;
	}
	path = bench_cg__path(run->cg, BENCH_CTRL_BASE, "l1", "cgroup.pressure");
	psi = path && !access(path, W_OK);
	free(path);
	if (!psi) {
		err = note_skip(run, "%s: %s", "PSI on/off",
				"PSI can't be toggled per cgroup here (no cgroup.pressure: needs a v2 hierarchy, CONFIG_PSI and v6.x)");
		if (err)
			goto out;
	}
	nv = psi ? 2 : 1;
	for (rep = 0; !err && rep < nr_passes(run); rep++) {
		progress(run, "bench pipe: %s: %" PRIu64 " round trips%s",
			 pass_name(run, rep, what, sizeof(what)),
			 p->round_trips, psi ? ", PSI on and off" : "");
		err = pass_start(run, rep);
		tot_real = tot_user = tot_sys = 0;
		for (v = 0; !err && v < nv; v++) {
			if (psi) {
				err = set_pressure(run, rels, v ? "0" : "1");
				if (err) {
					rs_error("bench: cannot write cgroup.pressure: %s",
						 bench_cg__error(run->cg));
					break;
				}
			}
			*seconds = 0;
			err = start_in(run, "l1/l2/l3", wl_pipe_pingpong, &pipe,
				       &proc);
			if (!err)
				err = wait_proc(proc, &ru, &real);
			if (err)
				break;
			tot_real += real;
			tot_user += ru.ru_utime.tv_sec +
				    ru.ru_utime.tv_usec / 1e6;
			tot_sys += ru.ru_stime.tv_sec +
				   ru.ru_stime.tv_usec / 1e6;
			value[v] = *seconds > 0 ? p->round_trips / *seconds : 0;
		}
		if (!err)
			err = begin_rep(run, rep, tot_real, tot_user, tot_sys);
		for (v = 0; !err && v < nv; v++)
			err = bench_results__rep_metric_value(run->res,
					metric[psi ? v : 2], "1/s", false,
					value[v]);
		err = pass_end(run, rep, err);
	}
	if (psi)
		set_pressure(run, rels, "1");
out:
	bench_shared__free(seconds, sizeof(double));
	return err;
}

static int scenario_fault(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	unsigned int n = p->children ? p->children : run->nr_cpus, i, rep;
	size_t size = n * sizeof(uint64_t) + sizeof(int);
	uint64_t *faults = bench_shared__alloc(size), total;
	volatile int *stop = (volatile int *)(faults + n);
	struct wl_fault *wl = calloc(n, sizeof(*wl));
	struct bench_proc **procs = calloc(n, sizeof(*procs));
	double t0, real, user, sys;
	struct rusage ru;
	char rel[32];
	int err = 0;
	char what[32];

	if (!faults || !wl || !procs) {
		err = -ENOMEM;
		goto out;
	}
	if (!bench_cg__has(run->cg, BENCH_CTRL_MEMORY)) {
		err = note_skip(run, "%s: %s",
				"memcg charges of the faults",
				bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		if (err)
			goto out;
	}
	for (i = 1; i <= n; i++) {
		snprintf(rel, sizeof(rel), "f%u", i);
		err = bench_cg__mkdir(run->cg, rel);
		if (err) {
			rs_error("bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			goto out;
		}
	}
	for (rep = 0; !err && rep < nr_passes(run); rep++) {
		progress(run, "bench fault: %s: %u updaters for %g s",
			 pass_name(run, rep, what, sizeof(what)), n,
			 p->duration);
		err = pass_start(run, rep);
		if (err)
			break;
		memset(faults, 0, size);
		t0 = now_s();
		for (i = 0; !err && i < n; i++) {
			snprintf(rel, sizeof(rel), "f%u", i + 1);
			wl[i].bytes = FAULT_BYTES;
			wl[i].faults = &faults[i];
			wl[i].stop = stop;
			err = start_in(run, rel, wl_fault, &wl[i], &procs[i]);
		}
		if (!err)
			err = nap(p->duration * 1000);
		*stop = 1;
		real = now_s() - t0;
		user = sys = 0;
		total = 0;
		for (i = 0; i < n && procs[i]; i++) {
			int e = wait_proc(procs[i], &ru, NULL);

			if (!err)
				err = e;
			user += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
			sys += ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
			total += faults[i];
		}
		if (!err)
			err = begin_rep(run, rep, real, user, sys);
		if (!err)
			err = bench_results__rep_metric_value(run->res,
					"faults_per_s", "1/s", false,
					total / real);
		err = pass_end(run, rep, err);
		/* The finished workers go; the cgroups stay for the next. */
		stop_procs(run);
		memset(procs, 0, n * sizeof(*procs));
	}
out:
	free(wl);
	free(procs);
	if (faults)
		bench_shared__free(faults, size);
	return err;
}

/* Each read over the bound, explained (the first few, then a count). */
static void note_over(struct bench_run *run, struct bench_accuracy *a,
		      unsigned int rep)
{
	size_t i, n = bench_accuracy__nr_over(a);

	for (i = 0; i < n && i < 10; i++) {
		const struct acc_over *o = bench_accuracy__over(a, i);
		char who[32] = "the parent";

		if (o->cgroup)
			snprintf(who, sizeof(who), "child a%u", o->cgroup);
		rs_note("accuracy: repetition %u, round %" PRIu64 ", %s: error %" PRIu64 " bytes > bound %" PRIu64 ": %s",
			rep + 1, o->round + 1, who, o->error_bytes,
			bench_accuracy__bound_bytes(a), o->why);
	}
	if (n > 10)
		rs_note("accuracy: repetition %u: %zu more reads over the bound (reads_over_bound in the results)",
			rep + 1, n - 10);
}

/*
 * Children charging known pages in cgroups a1..aN, and the reads of their
 * memory.stat against that truth: the work is src/bench/accuracy.c's.
 */
static int scenario_accuracy(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	struct bench_accuracy_opts o = {
		.children = p->children, .kind = p->kind, .spread = p->spread,
		.reads = p->reads, .interval_ms = p->interval_ms,
		.rate = p->rate, .step = p->step, .after_flush = p->after_flush,
		.dirfd = workdir__fd(run->workdir), .stop = &bench_stop,
	};
	struct bench_accuracy *a = NULL;
	char rel[32], errbuf[512] = "", what[32], *dir;
	const char *why = NULL;
	double real, user, sys;
	unsigned int i, rep;
	int err;

	if (!bench_cg__has(run->cg, BENCH_CTRL_MEMORY)) {
		rs_error("bench: accuracy needs the memory controller: %s",
			 bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		return -ENOENT;
	}
	err = bench_accuracy__new(&a, &o, errbuf, sizeof(errbuf));
	for (i = 0; !err && i <= p->children; i++) {
		snprintf(rel, sizeof(rel), "a%u", i);
		if (i && bench_cg__mkdir(run->cg, rel)) {
			rs_error("bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			err = -EIO;
			break;
		}
		dir = bench_cg__path(run->cg, BENCH_CTRL_MEMORY, i ? rel : "",
				     NULL);
		err = dir ? bench_accuracy__set_cgroup(a, i, dir, errbuf,
						       sizeof(errbuf)) :
			    -ENOMEM;
		free(dir);
		if (!err && i)
			err = start_in(run, rel, bench_accuracy__child,
				       bench_accuracy__child_arg(a, i - 1),
				       NULL);
	}
	progress(run, "bench accuracy: waiting for a flush for the baselines");
	if (!err)
		err = bench_accuracy__settle(a, &why, errbuf, sizeof(errbuf));
	if (!err && why)
		err = note_skip(run, "%s%s", why, "");
	for (rep = 0; !err && rep < nr_passes(run); rep++) {
		if (!why && (why = bench_accuracy__watch_lost(a)))
			err = note_skip(run, "%s%s", why, "");
		progress(run, "bench accuracy: %s: %" PRIu64 " rounds of %u reads",
			 pass_name(run, rep, what, sizeof(what)), p->reads,
			 p->children + 1);
		err = pass_start(run, rep);
		if (!err)
			err = bench_accuracy__run(a, &real, &user, &sys, errbuf,
						  sizeof(errbuf));
		if (!err)
			err = begin_rep(run, rep, real, user, sys);
		if (!err && !why && (why = bench_accuracy__watch_lost(a)))
			err = note_skip(run, "%s%s", why, "");
		if (!err)
			err = bench_accuracy__add_metrics(a, run->res);
		if (!err && !recorded_pass(run, rep))
			note_over(run, a, rep);
		err = pass_end(run, rep, err);
	}
	if (err && err != -EINTR && *errbuf)
		rs_error("bench: %s", errbuf);
	else if (err == -ETIMEDOUT)
		rs_error("bench: accuracy: timed out");
	bench_accuracy__delete(a);
	return err;
}

/* --- the run ------------------------------------------------------------ */

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bench_signal;
	/* No SA_RESTART: waits must return to look at bench_stop. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void note_left_alone(void *ctx, const char *path, const char *why)
{
	rs_note("%s: %s", path, why);
}

static void split_words(const char *s, const char **out, size_t *n,
			size_t max, char *buf, size_t len)
{
	char *tok, *save = NULL;

	*n = 0;
	if (!s)
		return;
	snprintf(buf, len, "%s", s);
	for (tok = strtok_r(buf, " ", &save); tok && *n < max;
	     tok = strtok_r(NULL, " ", &save))
		out[(*n)++] = tok;
}

static int set_params(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	struct bench_results *r = run->res;
	const char *files[MAX_FILES];
	unsigned int i;
	int err;

	err = bench_results__param_u64(r, "repetitions", p->reps);
	err = err ?: bench_results__param_bool(r, "record", p->record);
	err = err ?: bench_results__param_str(r, "root",
					      p->root ? p->root : "");
	switch (p->scenario) {
	case SC_STAT_READ:
		for (i = 0; i < p->nr_files; i++)
			files[i] = p->files[i];
		err = err ?: bench_results__param_u64(r, "children",
						      p->children);
		err = err ?: bench_results__param_u64(r, "depth", p->depth);
		err = err ?: bench_results__param_str(r, "updater",
						      updater_names[p->updater]);
		err = err ?: bench_results__param_u64(r, "memory_max",
						      p->memory_max);
		err = err ?: bench_results__param_strv(r, "files", files,
						       p->nr_files);
		err = err ?: bench_results__param_u64(r, "reads", p->reads);
		err = err ?: bench_results__param_str(r, "order",
						      p->interleave ?
						      "interleave" :
						      "discrete");
		break;
	case SC_MANY_CGROUPS:
		err = err ?: bench_results__param_u64(r, "cgroups",
						      p->cgroups);
		err = err ?: bench_results__param_u64(r, "reads", p->reads);
		err = err ?: bench_results__param_u64(r, "charge_bytes",
						      CHARGE_BYTES);
		break;
	case SC_PIPE:
		err = err ?: bench_results__param_u64(r, "round_trips",
						      p->round_trips);
		break;
	case SC_FAULT:
		err = err ?: bench_results__param_u64(r, "children",
				p->children ? p->children : run->nr_cpus);
		err = err ?: bench_results__param_double(r, "duration_s",
							 p->duration);
		err = err ?: bench_results__param_u64(r, "bytes",
						      FAULT_BYTES);
		break;
	case SC_ACCURACY:
		err = err ?: bench_results__param_u64(r, "children",
						      p->children);
		err = err ?: bench_results__param_str(r, "kind",
						      kind_names[p->kind]);
		err = err ?: bench_results__param_double(r, "rate", p->rate);
		err = err ?: bench_results__param_str(r, "cpus_spread",
						      p->spread ? "spread" :
						      "pinned");
		err = err ?: bench_results__param_u64(r, "reads", p->reads);
		err = err ?: bench_results__param_double(r, "interval_ms",
							 p->interval_ms);
		err = err ?: bench_results__param_bool(r, "after_flush",
						       p->after_flush);
		err = err ?: bench_results__param_u64(r, "step_pages",
						      p->step);
		err = err ?: bench_results__param_u64(r, "max_pages",
						      ACC_MAX_PAGES);
		break;
	}
	return err;
}

static int set_provenance(struct bench_run *run)
{
	struct bench_provenance prov = { 0 };
	struct bench_cg_counts after;
	struct kfeatures kf = { 0 };
	const char *v2[64], *v1[64];
	char b2[1024], b1[1024], cmd[2048];
	size_t used = 0;
	int i, err;

	err = kfeatures__probe_cgroups(&kf);
	if (err)
		return err;
	split_words(kf.v2_controllers, v2, &prov.nr_v2_controllers, 64, b2,
		    sizeof(b2));
	split_words(kf.v1_controllers, v1, &prov.nr_v1_controllers, 64, b1,
		    sizeof(b1));
	prov.v2_controllers = v2;
	prov.v1_controllers = v1;
	prov.cgroup_layout = bench_cg__layout(run->cg);
	prov.before = run->before;
	if (!bench_cg__counts(run->cg, &after)) {
		prov.after.v2_live = after.v2_live;
		prov.after.v2_dying = after.v2_dying;
		prov.after.v1_memory = after.v1_memory_cgroups;
	} else {
		prov.after.v2_live = prov.after.v2_dying = -1;
		prov.after.v1_memory = -1;
	}
	prov.started = run->started;
	prov.finished = time(NULL);
	cmd[0] = '\0';
	used = snprintf(cmd, sizeof(cmd), "rstat-analyze");
	for (i = 0; i < run->p->argc && used < sizeof(cmd); i++)
		used += snprintf(cmd + used, sizeof(cmd) - used, " %s",
				 run->p->argv[i]);
	prov.command_line = cmd;
	err = bench_results__provenance(run->res, &prov);
	kfeatures__free(&kf);
	return err;
}

/*
 * As record does with recordings, an earlier results file becomes .old;
 * the new one is written beside it and renamed into place when whole.
 */
static int write_results_to(struct bench_run *run, const char *file)
{
	struct outfile *out;
	int err;

	err = outfile__rotate(file);
	if (err >= 0)
		err = outfile__open(&out, file);
	if (err < 0) {
		rs_error("%s: cannot write: %s", file, outfile__strerror(err));
		return err;
	}
	err = bench_results__write(run->res, outfile__stream(out));
	if (err) {
		outfile__abort(out);
	} else {
		err = outfile__commit(out);
	}
	if (err)
		rs_error("%s: %s", file, strerror(-err));
	return err;
}

static int check_output(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "",
		 name);
	err = outfile__check(path);
	if (err)
		rs_error("%s: cannot write: %s", path, outfile__strerror(err));
	return err;
}

/*
 * Before the run: that every output can be written, so that an hour of
 * bench is not lost to a typo in a path. -o DIR is made here; a link
 * there is followed only if its owner is ours or root's (outfile.h).
 */
static int check_outputs(const struct bench_params *p)
{
	int err = p->outdir ? outfile__dir(p->outdir) : 0;

	if (err) {
		rs_error("%s: %s", p->outdir, outfile__strerror(err));
		return err;
	}
	if (p->outdir && check_output(p->outdir, "results.json"))
		return -EIO;
	if (p->record && check_output(p->outdir, "rstat.data"))
		return -EIO;
	if (p->json && check_output(NULL, p->json))
		return -EIO;
	return 0;
}

/* --json FILE and -o DIR each get a copy when both are given. */
static int write_results(struct bench_run *run)
{
	char path[PATH_MAX];
	int err;

	if (run->p->outdir) {
		snprintf(path, sizeof(path), "%s/results.json", run->p->outdir);
		err = write_results_to(run, path);
		if (err)
			return err;
	}
	if (run->p->json)
		return write_results_to(run, run->p->json);
	return 0;
}

static unsigned int scenario_need(const struct bench_params *p)
{
	unsigned int need = BENCH_NEED(BENCH_CTRL_BASE), i;

	switch (p->scenario) {
	case SC_STAT_READ:
		if (p->updater != UPD_CPU || p->memory_max)
			need |= BENCH_NEED(BENCH_CTRL_MEMORY);
		for (i = 0; i < p->nr_files; i++) {
			if (!strncmp(p->files[i], "memory.", 7))
				need |= BENCH_NEED(BENCH_CTRL_MEMORY);
			if (!strncmp(p->files[i], "io.", 3))
				need |= BENCH_NEED(BENCH_CTRL_IO);
		}
		break;
	case SC_MANY_CGROUPS:
	case SC_FAULT:
	case SC_ACCURACY:
		need |= BENCH_NEED(BENCH_CTRL_MEMORY);
		break;
	case SC_PIPE:
		break;
	}
	return need;
}

/* --keep: the tree is the user's now; say where, once per hierarchy. */
static void note_kept(const struct bench_cg *cg)
{
	const char *dirs[BENCH_CTRL__NR];
	unsigned int n = 0, i;
	int c;

	for (c = 0; c < BENCH_CTRL__NR; c++) {
		const char *d = bench_cg__root(cg, c);

		for (i = 0; d && i < n && strcmp(dirs[i], d); i++)
			;
		if (d && i == n)
			dirs[n++] = d;
	}
	for (i = 0; i < n; i++)
		rs_note("--keep: the run's cgroups stay in %s: yours to remove (rmdir, leaves first); no later run touches them",
			dirs[i]);
}

/*
 * An interrupted run removes its recording too (and puts back the one it
 * had moved to .old): only the file its recorder made, by inode.
 */
static void remove_recording(struct bench_run *run)
{
	struct stat st;

	if (!run->recording_st.st_ino || lstat(run->recording, &st) ||
	    st.st_dev != run->recording_st.st_dev ||
	    st.st_ino != run->recording_st.st_ino)
		return;
	if (!unlink(run->recording) && run->rotated)
		outfile__unrotate(run->recording);
}

/* What finished before an interrupt is worth seeing; not worth saving. */
static void print_finished(const struct bench_run *run)
{
	unsigned int n = run->res ? bench_results__nr_reps(run->res) : 0;

	if (!n)
		return;
	printf("# rstat-analyze bench %s: interrupted after %u of %u repetition%s (not saved)\n",
	       scenario_names[run->p->scenario], n, run->p->reps,
	       run->p->reps > 1 ? "s" : "");
	bench_results__print(run->res, stdout, 0, NULL);
}

static int bench_run(const struct bench_params *p)
{
	struct bench_run run = { .p = p };
	struct bench_cg_opts o = {
		.root = p->root, .keep = p->keep, .need = scenario_need(p),
	};
	struct bench_cg_counts c;
	char errbuf[512] = "";
	unsigned int removed = 0;
	int err, status = RS_EXIT_FAIL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	run.nr_cpus = ncpu > 0 ? ncpu : 1;
	run.started = time(NULL);
	run.tty = isatty(STDERR_FILENO);
	install_signals();
	if (bench_cg__cleanup_stale(p->root, &removed, note_left_alone, NULL,
				    errbuf,
				    sizeof(errbuf)) && *errbuf)
		rs_note("leftovers of earlier runs: %s", errbuf);
	else if (removed)
		rs_note("removed the cgroups of %u earlier run%s that did not finish",
			removed, removed > 1 ? "s" : "");
	if (!workdir__cleanup_stale("bench", NULL, &removed,
				    note_left_alone, NULL) && removed)
		rs_note("removed the work files of %u earlier run%s that did not finish",
			removed, removed > 1 ? "s" : "");
	if (check_outputs(p))
		return RS_EXIT_FAIL;
	err = bench_cg__new(&run.cg, &o, errbuf, sizeof(errbuf));
	if (err) {
		rs_error("bench: %s", *errbuf ? errbuf : strerror(-err));
		return RS_EXIT_FAIL;
	}
	if (!bench_cg__counts(run.cg, &c)) {
		run.before.v2_live = c.v2_live;
		run.before.v2_dying = c.v2_dying;
		run.before.v1_memory = c.v1_memory_cgroups;
	} else {
		run.before.v2_live = run.before.v2_dying = -1;
		run.before.v1_memory = -1;
	}
	if (workdir__new(&run.workdir, "bench", NULL, errbuf,
			 sizeof(errbuf))) {
		rs_error("bench: %s", errbuf);
		goto out;
	}
	run.res = bench_results__new(scenario_names[p->scenario]);
	if (!run.res || set_params(&run)) {
		rs_error("bench: out of memory");
		goto out;
	}
	switch (p->scenario) {
	case SC_STAT_READ:
		err = scenario_stat_read(&run);
		break;
	case SC_MANY_CGROUPS:
		err = scenario_many_cgroups(&run);
		break;
	case SC_PIPE:
		err = scenario_pipe(&run);
		break;
	case SC_FAULT:
		err = scenario_fault(&run);
		break;
	case SC_ACCURACY:
		err = scenario_accuracy(&run);
		break;
	}
	progress(&run, "bench %s: stopping the workloads",
		 scenario_names[p->scenario]);
	stop_procs(&run);
	if (stop_recorder(&run) && !err && !bench_stop) {
		rs_error("bench: --record: the recorder failed; see %s",
			 run.recording);
		err = -EIO;
	}
	/* cgroups_after counts what the run leaves, not its own tree. */
	progress(&run, "bench %s: removing the run's cgroups",
		 scenario_names[p->scenario]);
	if (!bench_stop && !err && bench_cg__destroy(run.cg)) {
		rs_error("bench: %s", bench_cg__error(run.cg));
		goto out;
	}
	progress_clear(&run);
	if (bench_stop)
		goto out;
	if (err) {
		if (err == -ENOMEM)
			rs_error("bench: out of memory");
		goto out;
	}
	if (p->record)
		bench_results__set_recording(run.res, run.recording);
	if (set_provenance(&run) || write_results(&run))
		goto out;
	printf("# rstat-analyze bench %s: %u repetition%s, cgroups %s\n",
	       scenario_names[p->scenario], p->reps, p->reps > 1 ? "s" : "",
	       bench_cg__layout(run.cg));
	bench_results__print(run.res, stdout, 0, NULL);
	status = RS_EXIT_OK;
out:
	progress_clear(&run);
	stop_procs(&run);
	stop_recorder(&run);
	if (bench_stop && status != RS_EXIT_OK)
		remove_recording(&run);
	if (run.cg && bench_cg__destroy(run.cg)) {
		rs_error("bench: %s", bench_cg__error(run.cg));
		status = RS_EXIT_FAIL;
	} else if (bench_stop && status != RS_EXIT_OK) {
		/*
		 * Whatever step the signal cut short (the recorder's start,
		 * a wait, a scenario), it is said here, once, after the
		 * cleanup it claims.
		 */
		print_finished(&run);
		rs_error("bench: interrupted by SIG%s: removed what the run created%s",
			 sigabbrev_np(bench_stop),
			 run.recording_st.st_ino ?
			 ", the recording included" : "");
	}
	if (run.cg && p->keep)
		note_kept(run.cg);
	bench_cg__delete(run.cg);
	if (run.workdir) {
		char wpath[PATH_MAX];

		snprintf(wpath, sizeof(wpath), "%s",
			 workdir__path(run.workdir));
		if (workdir__delete(run.workdir)) {
			rs_error("bench: %s: could not remove all of it", wpath);
			status = RS_EXIT_FAIL;
		}
	}
	if (status == RS_EXIT_OK && p->record) {
		printf("\n");
		print_report(run.recording);
	}
	bench_results__delete(run.res);
	return status;
}

/* --- in VMs ---------------------------------------------------------------- */

/* A guest's release as a directory name: nothing a path could make of it. */
static bool release_ok(const char *r)
{
	const char *c;

	if (!*r || !strcmp(r, ".") || !strcmp(r, ".."))
		return false;
	for (c = r; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+-~", *c))
			return false;
	return true;
}

static int write_guest_file(const struct vm_result *res, const char *name,
			    const char *path)
{
	struct outfile *out;
	const void *data;
	size_t len;
	int err;

	data = vm_result__file(res, name, &len);
	if (!data)
		return 0;
	err = outfile__rotate(path);
	if (err >= 0)
		err = outfile__open(&out, path);
	if (err < 0) {
		rs_error("%s: cannot write: %s", path, outfile__strerror(err));
		return err;
	}
	if (fwrite(data, 1, len, outfile__stream(out)) != len) {
		outfile__abort(out);
		rs_error("%s: cannot write", path);
		return -EIO;
	}
	err = outfile__commit(out);
	if (err)
		rs_error("%s: %s", path, strerror(-err));
	return err;
}

/*
 * DIR/<release>/ for one guest's results; a release seen before (the same
 * kernel twice, or a patched kernel built with the same version string)
 * gets -2, -3...
 */
static int guest_dir(const struct bench_params *p, const char *release,
		     char (*seen)[PATH_MAX], size_t i, char *dir, size_t len)
{
	unsigned int n;
	size_t j;
	int err;

	for (n = 1; ; n++) {
		bool dup = false;

		if (n == 1)
			snprintf(dir, len, "%s/%s", p->outdir, release);
		else
			snprintf(dir, len, "%s/%s-%u", p->outdir, release, n);
		for (j = 0; j < i; j++)
			dup |= !strcmp(seen[j], dir);
		if (!dup)
			break;
	}
	if (n > 1)
		rs_note("%s ran as kernel %s again: its results go to %s",
			p->vm.kernels[i], release, dir);
	snprintf(seen[i], PATH_MAX, "%s", dir);
	err = outfile__dir(dir);
	if (err)
		rs_error("%s: %s", dir, outfile__strerror(err));
	return err;
}

static int bench_in_vms(const struct bench_params *p)
{
	char (*dirs)[PATH_MAX] = calloc(p->vm.nkernels, sizeof(*dirs));
	const char *files[VM_MAX_KERNELS], *labels[VM_MAX_KERNELS];
	char results[VM_MAX_KERNELS][PATH_MAX];
	char path[PATH_MAX + 32];
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
	err = outfile__dir(p->outdir);
	if (err) {
		rs_error("%s: %s", p->outdir, outfile__strerror(err));
		goto out;
	}
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
		if (!release_ok(rel)) {
			rs_error("bench --kernel %s: the guest's release '%s' cannot name a directory",
				 p->vm.kernels[i], rel);
			goto out;
		}
		if (!vm_result__file(res, "out/results.json", NULL)) {
			rs_error("bench --kernel %s: the guest sent no results.json",
				 p->vm.kernels[i]);
			goto out;
		}
		if (guest_dir(p, rel, dirs, i, results[i], PATH_MAX))
			goto out;
		snprintf(path, sizeof(path), "%s/results.json", results[i]);
		if (write_guest_file(res, "out/results.json", path))
			goto out;
		snprintf(path, sizeof(path), "%s/rstat.data", results[i]);
		if (write_guest_file(res, "out/rstat.data", path))
			goto out;
		snprintf(results[i], PATH_MAX, "%s/results.json", dirs[i]);
		files[i] = results[i];
		labels[i] = dirs[i] + strlen(p->outdir) + 1;
		vm_result__delete(res);
		res = NULL;
		printf("\n");
	}
	status = RS_EXIT_OK;
	if (p->vm.nkernels > 1) {
		fflush(stdout);
		status = compare_results(files, labels, p->vm.nkernels);
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
	else if (!ret)
		ret = rs_finish_stdout(bench_run(&params));
	free(params.files_buf);
	return ret;
}
