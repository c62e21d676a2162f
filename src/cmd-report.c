// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze report: read a recording (perf.data in either layout, or
 * `perf script` text) and print what it holds: event counts, folded stacks
 * for flamegraph.pl, or the same as JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-path.h"
#include "cmds.h"
#include "results-breakdown.h"
#include "json.h"
#include "kernel-spans.h"
#include "perf-data.h"
#include "parse-options.h"
#include "report-out.h"
#include "rules.h"
#include "session.h"
#include "util.h"

#define DEFAULT_INPUT "rstat.data"

/*
 * -j: threads reading a perf.data (reading; naming; folding or
 * attributing); more than three have nothing to do.
 */
#define REPORT_MAX_JOBS 3

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

static const char report_about[] =
	"Read a recording made by `rstat-analyze record` or `perf record`\n"
	"(perf.data, file or pipe layout) and say which subsystem's rstat\n"
	"flush spent the samples, who asked for each flush, and how long\n"
	"the flush lock was held: attribution, trigger and span tables,\n"
	"then every event's count.\n";

static const char report_epilogue[] =
	"Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	"See rstat-analyze-report(1).\n";

/* --unit's words, the ns in one of each and the unit's name. */
static const char *const report_units[] = { "ns", "us", "ms", NULL };
static const struct {
	uint64_t divisor;
	const char *name;
} report_unit_table[] = {
	{ 1, "nsecs" },
	{ 1000, "usecs" },
	{ 1000000, "msecs" },
};

/* The exclusivity groups. */
enum {
	REPORT_EXCL_MODE = 1,	/* --folded, --json, --csv */
	REPORT_EXCL_WHO,	/* --pid, --tid */
};

/* --span START,END: two non-empty event names. */
static int add_span(const struct popt *opt, const char *arg, char *err,
		    size_t errlen)
{
	struct report_params *p = opt->value;
	char *text, *comma;

	if (p->nr_spans == REPORT_MAX_SPANS) {
		snprintf(err, errlen, "at most %d --span options",
			 REPORT_MAX_SPANS);
		return -EINVAL;
	}
	text = strdup(arg);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	comma = strchr(text, ',');
	if (!comma || comma == text || !comma[1] || strchr(comma + 1, ',')) {
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
static int set_jobs(const struct popt *opt, const char *arg, char *err,
		    size_t errlen)
{
	unsigned int *jobs = opt->value;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !v || arg[0] == '-')
		return -EINVAL;
	*jobs = v > REPORT_MAX_JOBS ? REPORT_MAX_JOBS : v;
	return 0;
}

/*
 * Two threads where there are two CPUs to run them; the reading one
 * builds stacks in its idle time. A third is asked for: on two CPUs it
 * did not pay beside the reading thread's help (docs/performance.md,
 * sixth and eighth rounds), and it was not measured on more.
 */
static unsigned int default_jobs(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus >= 2 ? 2 : 1;
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
	bool folded = false, json = false, csv = false, all = false;
	int unit = 1;
	const struct popt opts[] = {
		{ POPT_STRING('i', "input", &p->input, "FILE",
			      "input; `-` reads standard input (default "
			      DEFAULT_INPUT ")"),
		  .usage = "[-i FILE|-]" },
		{ POPT_STRING(0, "kallsyms", &p->kallsyms, "FILE",
			      "kernel symbols (/proc/kallsyms format); by\n"
			      "default /proc/kallsyms when the recording was\n"
			      "made on the running kernel") },
		{ POPT_STRING(0, "vmlinux", &p->vmlinux, "FILE",
			      "kernel symbols from an uncompressed vmlinux\n"
			      "(its build id must match the recording's)") },
		{ POPT_STRING(0, "rules", &p->rules_file, "FILE",
			      "add or override classification rules") },
		{ POPT_FLAG(0, "rules-dump", &p->rules_dump,
			    "print the rule table in use and exit") },
		{ POPT_FLAG(0, "hist", &p->hist,
			    "add log2 histograms (funclatency format)") },
		{ POPT_ENUM(0, "unit", &unit, "UNIT", report_units,
			    "ns, us (default) or ms for times"),
		  .hint = "use ns, us or ms" },
		{ POPT_CALLBACK(0, "span", p, "START,END", add_span,
				"latency from each START event to the next\n"
				"END event of the same task (repeatable)"),
		  .hint = "give two event names as START,END (e.g. probe:L26,probe:L31)",
		  .flags = POPT_REPEAT },
		{ POPT_FLAG(0, "json", &json, "everything as one JSON object"),
		  .excl = REPORT_EXCL_MODE },
		{ POPT_FLAG(0, "csv", &csv, "the tables as CSV blocks"),
		  .excl = REPORT_EXCL_MODE },
		{ POPT_FLAG(0, "folded", &folded,
			    "folded stacks for flamegraph.pl, line for line\n"
			    "as `perf script | stackcollapse-perf.pl`"),
		  .excl = REPORT_EXCL_MODE },
		{ POPT_FLAG(0, "pid", &p->fold.pid,
			    "first frame comm-PID (the recorded PID)"),
		  .excl = REPORT_EXCL_WHO, .flags = POPT_INDENT },
		{ POPT_FLAG(0, "tid", &p->fold.tid, "first frame comm-PID/TID"),
		  .excl = REPORT_EXCL_WHO, .flags = POPT_INDENT },
		{ POPT_FLAG(0, "kernel", &p->fold.kernel,
			    "mark kernel frames with _[k]"),
		  .flags = POPT_INDENT },
		{ POPT_FLAG(0, "jit", &p->fold.jit,
			    "mark JIT frames (/tmp/perf-PID.map) with _[j]"),
		  .flags = POPT_INDENT },
		{ POPT_FLAG(0, "all", &all, "both --kernel and --jit"),
		  .flags = POPT_INDENT },
		{ POPT_FLAG(0, "addrs", &p->fold.addrs,
			    "keep raw addresses of unknown frames"),
		  .flags = POPT_INDENT },
		{ POPT_STRING(0, "event-filter", &p->fold.event_filter, "NAME",
			      "fold only this event (perf's name, with\n"
			      "or without modifiers: cpu-clock, cycles:u)\n"
			      "default: the sampling event of a perf.data,\n"
			      "the first event seen in perf script text"),
		  .flags = POPT_INDENT },
		{ POPT_FLAG(0, "samples", &p->fold.samples,
			    "count samples instead of summing periods"),
		  .flags = POPT_INDENT },
		{ POPT_FLAG(0, "stackcollapse", &p->stackcollapse,
			    "a perf.data folded exactly as\n"
			    "`perf script | stackcollapse-perf.pl`: the\n"
			    "first event seen, tracepoint hits included"),
		  .flags = POPT_INDENT },
		{ POPT_CALLBACK('j', "jobs", &p->jobs, "N", set_jobs,
				"threads for a perf.data: 1 reads, decodes\n"
				"and folds on one; 2 (the default with two\n"
				"CPUs or more) reads and decodes on a second,\n"
				"which also folds or attributes new\n"
				"callchains while it would wait; 3 does that\n"
				"on a third; the output is the same"),
		  .hint = "give a number of threads, 1 or more" },
		POPT_HELP_ROW,
		POPT_END_ROW,
	};
	static const struct popt_excl excl_msg[] = {
		{ REPORT_EXCL_MODE,
		  "--folded, --json and --csv do not go together" },
		{ REPORT_EXCL_WHO,
		  "--pid and --tid do not go together (--tid names comm-PID/TID, the PID included)" },
		{ 0, NULL },
	};
	const struct popt_cmd cmd = {
		.name = "report",
		.opts = opts,
		.max_operands = 0,
		.excl_msg = excl_msg,
		.about = report_about,
		.epilogue = report_epilogue,
	};
	struct popt_args args;
	int ret;

	memset(p, 0, sizeof(*p));
	p->input = DEFAULT_INPUT;
	p->jobs = default_jobs();
	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (ret)
		return ret;
	free(args.operands);
	p->divisor = report_unit_table[unit].divisor;
	p->unit = report_unit_table[unit].name;
	p->mode = folded ? REPORT_FOLDED : json ? REPORT_JSON :
		  csv ? REPORT_CSV : REPORT_TEXT;
	if (all)
		p->fold.kernel = p->fold.jit = true;
	p->fold_option_seen = p->fold.pid || p->fold.tid || p->fold.kernel ||
			      p->fold.jit || p->fold.addrs ||
			      p->fold.event_filter || p->fold.samples ||
			      p->stackcollapse;
	if (p->fold_option_seen && p->mode != REPORT_FOLDED) {
		rs_error("report: --pid, --tid, --kernel, --jit, --all, --addrs, --event-filter, --samples and --stackcollapse go with --folded");
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

/*
 * The targets' reads decomposed, which record keeps in a section of its
 * own: *bdp NULL when there is none, or it does not parse (a note says
 * so). 0 or -ENOMEM.
 */
static int report_breakdown(const struct report_params *p, struct session *s,
			    struct bench_breakdown **bdp)
{
	struct perf_data *pd = session__perf_data(s);
	struct bench_breakdown *bd;
	char errbuf[256] = "";
	const char *text;
	int err;

	*bdp = NULL;
	if (!pd || perf_data__rstat_breakdown(pd, &text))
		return 0;
	bd = calloc(1, sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	err = bench_breakdown__parse(bd, text, strlen(text), errbuf,
				     sizeof(errbuf));
	if (err) {
		free(bd);
		if (err == -ENOMEM)
			return err;
		rs_note("%s: the read breakdown section: %s; left out of the report",
			p->input, errbuf);
		return 0;
	}
	*bdp = bd;
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
	struct bench_breakdown *bd = NULL;
	struct analysis *an;
	int err;

	err = session__analyse(s, &o, &an);
	if (report_status(s, err))
		return RS_EXIT_FAIL;
	ro.an = an;
	err = session__kernel_spans(s, &ks);
	ro.kspans = ks;
	if (!err)
		err = report_breakdown(p, s, &bd);
	ro.bd = bd;
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
	free(bd);
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
