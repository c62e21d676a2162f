// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze report: read a recording (perf.data in either layout, or
 * `perf script` text) and print what it holds: event counts, folded stacks
 * for flamegraph.pl, or the same as JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-path.h"
#include "cmds.h"
#include "json.h"
#include "kernel-spans.h"
#include "perf-data.h"
#include "report-out.h"
#include "rules.h"
#include "session.h"
#include "util.h"

#define DEFAULT_INPUT "rstat.data"

/* -j: threads reading a perf.data; more than two have nothing to do. */
#define REPORT_MAX_JOBS 2

/* --span options kept, at most; more is surely a mistake. */
#define REPORT_MAX_SPANS 32

enum report_mode {
	REPORT_TEXT,
	REPORT_FOLDED,
	REPORT_JSON,
	REPORT_CSV,
};

struct report_params {
	const char *input;
	const char *kallsyms;
	const char *vmlinux;
	const char *rules_file;
	enum report_mode mode;
	struct fold_opts fold;
	bool fold_option_seen;	/* a --folded sub-option was given */
	/* perf.data: fold as perf script | stackcollapse-perf.pl would */
	bool stackcollapse;
	bool rules_dump;
	bool hist;
	uint64_t divisor;	/* --unit: ns per unit */
	const char *unit;	/* "nsecs", "usecs", "msecs" */
	struct analysis_span spans[REPORT_MAX_SPANS];
	char *span_text[REPORT_MAX_SPANS];	/* START,END split in place */
	uint32_t nr_spans;
	unsigned int jobs;	/* -j: threads for a perf.data */
};

static const char report_usage_text[] =
	"usage: rstat-analyze report [-i FILE|-] [--kallsyms FILE] [--vmlinux FILE]\n"
	"                            [--rules FILE] [--hist] [--unit ns|us|ms]\n"
	"                            [--span START,END]... [--json | --csv] [-j N]\n"
	"       rstat-analyze report [-i FILE|-] [-j N] --folded [--pid|--tid]\n"
	"                            [--kernel|--jit|--all] [--addrs]\n"
	"                            [--event-filter NAME] [--samples]\n"
	"                            [--stackcollapse]\n"
	"       rstat-analyze report [--rules FILE] --rules-dump\n";

static void report_usage(FILE *out)
{
	fputs(report_usage_text, out);
}

static void report_help(void)
{
	report_usage(stdout);
	fputs("\n"
	      "Read a recording made by `rstat-analyze record` or `perf record`\n"
	      "(perf.data, file or pipe layout) and say which subsystem's rstat\n"
	      "flush spent the samples, who asked for each flush, and how long\n"
	      "the flush lock was held: attribution, trigger and span tables,\n"
	      "then every event's count.\n"
	      "\n"
	      "  -i, --input FILE      input; `-` reads standard input (default "
	      DEFAULT_INPUT ")\n"
	      "      --kallsyms FILE   kernel symbols (/proc/kallsyms format); by\n"
	      "                        default /proc/kallsyms when the recording was\n"
	      "                        made on the running kernel\n"
	      "      --vmlinux FILE    kernel symbols from an uncompressed vmlinux\n"
	      "                        (its build id must match the recording's)\n"
	      "      --rules FILE      add or override classification rules\n"
	      "      --rules-dump      print the rule table in use and exit\n"
	      "      --hist            add log2 histograms (funclatency format)\n"
	      "      --unit UNIT       ns, us (default) or ms for times\n"
	      "      --span START,END  latency from each START event to the next\n"
	      "                        END event of the same task (repeatable)\n"
	      "      --json            everything as one JSON object\n"
	      "      --csv             the tables as CSV blocks\n"
	      "      --folded          folded stacks for flamegraph.pl, line for line\n"
	      "                        as `perf script | stackcollapse-perf.pl`\n"
	      "        --pid           first frame comm-PID (the recorded PID)\n"
	      "        --tid           first frame comm-PID/TID\n"
	      "        --kernel        mark kernel frames with _[k]\n"
	      "        --jit           mark JIT frames (/tmp/perf-PID.map) with _[j]\n"
	      "        --all           both --kernel and --jit\n"
	      "        --addrs         keep raw addresses of unknown frames\n"
	      "        --event-filter NAME  fold only this event (perf's name, with\n"
	      "                        or without modifiers: cpu-clock, cycles:u)\n"
	      "                        default: the sampling event of a perf.data,\n"
	      "                        the first event seen in perf script text\n"
	      "        --samples       count samples instead of summing periods\n"
	      "        --stackcollapse  a perf.data folded exactly as\n"
	      "                        `perf script | stackcollapse-perf.pl`: the\n"
	      "                        first event seen, tracepoint hits included\n"
	      "  -j, --jobs N          threads for a perf.data: 1 reads, decodes\n"
	      "                        and folds on one; 2 (the default with two\n"
	      "                        CPUs or more) reads and decodes on a second;\n"
	      "                        the output is the same\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	      "See rstat-analyze-report(1).\n", stdout);
}

enum {
	OPT_KALLSYMS = 256,
	OPT_VMLINUX,
	OPT_FOLDED,
	OPT_PID,
	OPT_TID,
	OPT_KERNEL,
	OPT_JIT,
	OPT_ALL,
	OPT_ADDRS,
	OPT_EVENT_FILTER,
	OPT_SAMPLES,
	OPT_STACKCOLLAPSE,
	OPT_JSON,
	OPT_CSV,
	OPT_RULES,
	OPT_RULES_DUMP,
	OPT_HIST,
	OPT_UNIT,
	OPT_SPAN,
};

static const struct option report_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "samples", no_argument, NULL, OPT_SAMPLES },
	{ "stackcollapse", no_argument, NULL, OPT_STACKCOLLAPSE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "rules", required_argument, NULL, OPT_RULES },
	{ "rules-dump", no_argument, NULL, OPT_RULES_DUMP },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "jobs", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int set_mode(struct report_params *p, enum report_mode mode)
{
	if (p->mode != REPORT_TEXT && p->mode != mode) {
		rs_error("report: --folded, --json and --csv do not go together");
		return -EINVAL;
	}
	p->mode = mode;
	return 0;
}

static int set_unit(struct report_params *p, const char *unit)
{
	if (!strcmp(unit, "ns")) {
		p->divisor = 1;
		p->unit = "nsecs";
	} else if (!strcmp(unit, "us")) {
		p->divisor = 1000;
		p->unit = "usecs";
	} else if (!strcmp(unit, "ms")) {
		p->divisor = 1000000;
		p->unit = "msecs";
	} else {
		rs_error("report: --unit '%s': use ns, us or ms", unit);
		return -EINVAL;
	}
	return 0;
}

/* START,END: two non-empty event names. */
static int add_span(struct report_params *p, const char *arg)
{
	char *text, *comma;

	if (p->nr_spans == REPORT_MAX_SPANS) {
		rs_error("report: at most %d --span options",
			 REPORT_MAX_SPANS);
		return -EINVAL;
	}
	text = strdup(arg);
	if (!text) {
		rs_error("report: out of memory");
		return -ENOMEM;
	}
	comma = strchr(text, ',');
	if (!comma || comma == text || !comma[1] || strchr(comma + 1, ',')) {
		rs_error("report: --span '%s': give two event names as START,END (e.g. probe:L26,probe:L31)",
			 arg);
		free(text);
		return -EINVAL;
	}
	*comma = '\0';
	p->span_text[p->nr_spans] = text;
	p->spans[p->nr_spans].start = text;
	p->spans[p->nr_spans].end = comma + 1;
	p->nr_spans++;
	return 0;
}

/* -j N: 1 and up; more than REPORT_MAX_JOBS is taken as that many. */
static int set_jobs(struct report_params *p, const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !v || arg[0] == '-') {
		rs_error("report: -j '%s': give a number of threads, 1 or more",
			 arg);
		return -EINVAL;
	}
	p->jobs = v > REPORT_MAX_JOBS ? REPORT_MAX_JOBS : v;
	return 0;
}

/* Two threads where there are two CPUs to run them. */
static unsigned int default_jobs(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus >= 2 ? REPORT_MAX_JOBS : 1;
}

static void report_params_free(struct report_params *p)
{
	uint32_t i;

	for (i = 0; i < p->nr_spans; i++)
		free(p->span_text[i]);
	p->nr_spans = 0;
}

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int report_parse_args(int argc, char **argv, struct report_params *p)
{
	int c;

	memset(p, 0, sizeof(*p));
	p->input = DEFAULT_INPUT;
	p->divisor = 1000;
	p->unit = "usecs";
	p->jobs = default_jobs();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:j:h", report_options,
				NULL)) != -1) {
		switch (c) {
		case 'i':
			p->input = optarg;
			break;
		case 'j':
			if (set_jobs(p, optarg))
				return RS_EXIT_USAGE;
			break;
		case OPT_KALLSYMS:
			p->kallsyms = optarg;
			break;
		case OPT_VMLINUX:
			p->vmlinux = optarg;
			break;
		case OPT_FOLDED:
			if (set_mode(p, REPORT_FOLDED))
				return RS_EXIT_USAGE;
			break;
		case OPT_JSON:
			if (set_mode(p, REPORT_JSON))
				return RS_EXIT_USAGE;
			break;
		case OPT_CSV:
			if (set_mode(p, REPORT_CSV))
				return RS_EXIT_USAGE;
			break;
		case OPT_RULES:
			p->rules_file = optarg;
			break;
		case OPT_RULES_DUMP:
			p->rules_dump = true;
			break;
		case OPT_HIST:
			p->hist = true;
			break;
		case OPT_UNIT:
			if (set_unit(p, optarg))
				return RS_EXIT_USAGE;
			break;
		case OPT_SPAN:
			if (add_span(p, optarg))
				return RS_EXIT_USAGE;
			break;
		case OPT_PID:
			p->fold.pid = true;
			p->fold_option_seen = true;
			break;
		case OPT_TID:
			p->fold.tid = true;
			p->fold_option_seen = true;
			break;
		case OPT_KERNEL:
			p->fold.kernel = true;
			p->fold_option_seen = true;
			break;
		case OPT_JIT:
			p->fold.jit = true;
			p->fold_option_seen = true;
			break;
		case OPT_ALL:
			p->fold.kernel = p->fold.jit = true;
			p->fold_option_seen = true;
			break;
		case OPT_ADDRS:
			p->fold.addrs = true;
			p->fold_option_seen = true;
			break;
		case OPT_EVENT_FILTER:
			p->fold.event_filter = optarg;
			p->fold_option_seen = true;
			break;
		case OPT_SAMPLES:
			p->fold.samples = true;
			p->fold_option_seen = true;
			break;
		case OPT_STACKCOLLAPSE:
			p->stackcollapse = true;
			p->fold_option_seen = true;
			break;
		case 'h':
			report_help();
			return -1;
		default:
			return rs_bad_option("report", c, argv[optind - 1],
					     report_usage);
		}
	}
	if (optind < argc) {
		rs_error("report: unexpected argument '%s'", argv[optind]);
		report_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (p->fold_option_seen && p->mode != REPORT_FOLDED) {
		rs_error("report: --pid, --tid, --kernel, --jit, --all, --addrs, --event-filter, --samples and --stackcollapse go with --folded");
		return RS_EXIT_USAGE;
	}
	if (p->fold.pid && p->fold.tid) {
		rs_error("report: --pid and --tid do not go together (--tid names comm-PID/TID, the PID included)");
		return RS_EXIT_USAGE;
	}
	if (p->fold.event_filter && !*p->fold.event_filter) {
		rs_error("report: --event-filter needs an event name");
		return RS_EXIT_USAGE;
	}
	if (p->mode == REPORT_FOLDED && (p->hist || p->nr_spans)) {
		rs_error("report: --hist and --span do not go with --folded");
		return RS_EXIT_USAGE;
	}
	if (p->rules_dump && p->mode != REPORT_TEXT) {
		rs_error("report: --rules-dump prints the rule table alone");
		return RS_EXIT_USAGE;
	}
	return 0;
}

/*
 * Print what the session queued, in its order: notes, and the error
 * when there is one. Returns the exit status for err.
 */
static int report_status(struct session *s, int err)
{
	bool said = rs_say_session(s);

	if (!err)
		return RS_EXIT_OK;
	if (!said)
		rs_error("report: %s", err == -ENOMEM ? "out of memory" :
			 strerror(-err));
	return RS_EXIT_FAIL;
}

static int print_report(const struct report_params *p,
			const struct report_out *ro)
{
	struct json_writer *jw;

	if (p->mode == REPORT_CSV)
		return report_out__csv(stdout, ro);
	if (p->mode == REPORT_TEXT)
		return report_out__text(stdout, ro);
	jw = json_writer__new(stdout);
	if (!jw)
		return -ENOMEM;
	json__object_begin(jw, NULL);
	report_out__json(jw, ro);
	json__object_end(jw);
	json_writer__delete(jw);
	return 0;
}

/* The tables: attribution, triggers, spans, then every event's count. */
static int report_analysis(const struct report_params *p,
			   struct session *s, const struct rules *rules)
{
	struct analysis_opts o = { .rules = rules, .spans = p->spans,
				   .nr_spans = p->nr_spans };
	struct report_out ro = {
		.input = p->input, .pd = session__perf_data(s),
		.divisor = p->divisor, .unit = p->unit, .hist = p->hist,
	};
	struct kernel_spans *ks = NULL;
	struct analysis *an;
	int err;

	err = session__analyse(s, &o, &an);
	if (report_status(s, err))
		return RS_EXIT_FAIL;
	ro.an = an;
	err = session__kernel_spans(s, &ks);
	ro.kspans = ks;
	if (!err && session__recorded_here(s)) {
		ro.cgroups = cgroup_paths__new();
		if (!ro.cgroups)
			err = -ENOMEM;
	}
	if (!err) {
		rs_say_session(s);
		err = print_report(p, &ro);
	}
	cgroup_paths__delete(ro.cgroups);
	kernel_spans__delete(ks);
	analysis__delete(an);
	/* Only running out of memory stops the tables; not a short write. */
	return report_status(s, err == -ENOMEM ? err : 0);
}

static int report_folded(const struct report_params *p, struct session *s)
{
	struct fold_opts fo = p->fold;
	struct fold *fold;
	int err;

	fo.jobs = p->jobs;	/* -j: the sort of the stacks too */
	err = session__fold(s, &fo, p->stackcollapse, &fold);
	/* Notes first: on a terminal they would land inside the stacks. */
	if (report_status(s, err))
		return RS_EXIT_FAIL;
	err = fold__write(fold, stdout);
	fold__delete(fold);
	return report_status(s, err == -ENOMEM ? err : 0);
}

/* What report says of the inputs it does not read. */
static const char *const report_refusal[] = {
	[SESSION_EMPTY] = "empty: neither a perf.data file nor perf script text",
	/* Text the script's rules would fold into junk stacks. */
	[SESSION_JSON] = "JSON, not perf script output: report reads perf.data or `perf script` text (bench results go to compare and plot)",
	[SESSION_TEXT] = "not perf script output (its first line is no sample header); give a perf.data file or the output of `perf script -i FILE`",
	[SESSION_BINARY] = "offset 0: neither a perf.data file (no PERFILE2 magic) nor perf script text",
	[SESSION_SCRIPT] = "perf script text holds no tracepoint formats or periods to attribute; use --folded, or give the perf.data itself",
};

static int report_input(const struct report_params *p,
			const struct rules *rules)
{
	struct session_opts so = {
		.input = p->input, .dash_is_stdin = true,
		.open_hint = "give a recording with -i FILE",
		.kallsyms = p->kallsyms, .vmlinux = p->vmlinux,
		.jobs = p->jobs,
	};
	enum session_kind kind;
	struct session *s;
	int status = RS_EXIT_FAIL;
	int err;

	err = session__open(&s, &so);
	if (err || !s) {
		status = report_status(s, err ?: -ENOMEM);
		goto out;
	}
	kind = session__kind(s);
	if (kind == SESSION_PERF_DATA && p->mode != REPORT_FOLDED)
		status = report_analysis(p, s, rules);
	else if (kind == SESSION_PERF_DATA || (kind == SESSION_SCRIPT &&
						p->mode == REPORT_FOLDED))
		status = report_folded(p, s);
	else
		rs_error("%s: %s", p->input, report_refusal[kind]);
out:
	session__delete(s);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_params params;
	struct rules *rules = NULL;
	int ret;

	ret = report_parse_args(argc, argv, &params);
	if (ret < 0) {
		report_params_free(&params);
		return rs_finish_stdout(RS_EXIT_OK);
	}
	if (ret) {
		report_params_free(&params);
		return ret;
	}
	rules = rules__new();
	if (!rules) {
		rs_error("report: out of memory");
		ret = RS_EXIT_FAIL;
		goto out;
	}
	if (params.rules_file && rules__load_file(rules, params.rules_file)) {
		/* Name the option: the file alone does not say what it was. */
		rs_error("report: --rules %s", rules__strerror(rules));
		ret = RS_EXIT_FAIL;
		goto out;
	}
	if (params.rules_dump) {
		ret = rules__dump(rules, stdout) ? RS_EXIT_FAIL : RS_EXIT_OK;
		goto out;
	}
	ret = report_input(&params, rules);
out:
	if (ret == RS_EXIT_FAIL && params.mode == REPORT_JSON)
		rs_error_json();
	rules__delete(rules);
	report_params_free(&params);
	return rs_finish_stdout(ret);
}
