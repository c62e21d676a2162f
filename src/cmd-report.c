// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze report: read a recording (perf.data in either layout, or
 * `perf script` text) and print what it holds: event counts, folded stacks
 * for flamegraph.pl, or the same as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "attrib.h"
#include "cgroup-path.h"
#include "cmds.h"
#include "fold.h"
#include "json.h"
#include "kernel-spans.h"
#include "perf-data.h"
#include "perf-script.h"
#include "report-out.h"
#include "rules.h"
#include "symbols.h"

#define DEFAULT_INPUT "rstat.data"
/* perf script's default --max-stack (the kernel's perf_event_max_stack). */
#define REPORT_MAX_STACK 127

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
	FILE *out;		/* folded stacks: stdout, or diff-folded's */
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

/* What finding kernel symbols needs; shared by folding and analysis. */
struct kernel_syms_ctx {
	const struct report_params *params;
	struct perf_data *pd;
	struct machine *machine;
	bool kernel_checked;	/* kernel symbol source decided */
	bool reported;		/* an error was already printed */
	char note[512];		/* said only if the report succeeds */
};

/* State while folding a perf.data recording. */
struct report_fold_ctx {
	const struct report_params *params;
	struct perf_data *pd;
	struct machine *machine;
	struct kernel_syms_ctx ksyms;
	struct fold *fold;
	struct perf_script *script;	/* names exiting tasks' samples */
	uint64_t nr_no_chain;	/* folded samples recorded without -g */
	int64_t err_offset;	/* event a consumer error happened at */
	/*
	 * Without --stackcollapse, the one event folded (chosen at the
	 * first sample, when a pipe has announced its events), and what
	 * was left out.
	 */
	const struct rs_evsel *folded;
	bool no_such_event;	/* --event-filter names none of them */
	uint64_t nr_left_tp;	/* tracepoint and probe hits */
	uint64_t nr_left_other;	/* samples of other sampling events */
	struct rs_frame frames[REPORT_MAX_STACK];
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
	p->out = stdout;
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
		case ':':
			rs_error("report: option '%s' needs a value",
				 argv[optind - 1]);
			report_usage(stderr);
			return RS_EXIT_USAGE;
		default:
			rs_error("report: unknown option '%s'",
				 argv[optind - 1]);
			report_usage(stderr);
			return RS_EXIT_USAGE;
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
 * The kernel symbols to use: --kallsyms, else this machine's when the
 * recording comes from the running kernel. Decided at the first sample,
 * since in the pipe layout the OSRELEASE feature arrives in the stream.
 */
static int load_kernel_symbols(struct kernel_syms_ctx *ctx)
{
	const struct perf_header_info *hdr = perf_data__header(ctx->pd);
	struct utsname uts = { 0 };
	const char *text;
	size_t len;
	int err;

	ctx->kernel_checked = true;
	/* As in perf, --kallsyms wins over --vmlinux. */
	if (!ctx->params->kallsyms && ctx->params->vmlinux) {
		const char *path = ctx->params->vmlinux;

		err = machine__load_vmlinux(ctx->machine, path);
		if (err == -EINVAL)
			rs_error("%s: build id differs from the recorded kernel's; give the vmlinux of the kernel that was recorded",
				 path);
		else if (err == -ENODATA)
			rs_error("%s: no symbol table (stripped?); give an unstripped vmlinux or --kallsyms",
				 path);
		else if (err == -ENOEXEC)
			rs_error("%s: not a vmlinux image; give the uncompressed ELF (not a bzImage) or --kallsyms",
				 path);
		else if (err)
			rs_error("%s: cannot read kernel symbols: %s", path,
				 strerror(-err));
		ctx->reported = err != 0;
		return err;
	}
	if (ctx->params->kallsyms) {
		const char *path = ctx->params->kallsyms;
		struct stat sb;

		/*
		 * The loader says -ENOENT for a file with no symbol line and
		 * -EIO for a directory: name what the file is instead.
		 */
		if (stat(path, &sb))
			err = -errno;
		else if (S_ISDIR(sb.st_mode))
			err = -EISDIR;
		else
			err = machine__load_kallsyms(ctx->machine, path);
		if (err == -ENOENT && !stat(path, &sb))
			rs_error("%s: not a kallsyms file (no 'ADDRESS TYPE NAME' lines); pass a copy of /proc/kallsyms taken as root",
				 path);
		else if (err == -EISDIR)
			rs_error("%s: is a directory; pass a copy of /proc/kallsyms taken as root",
				 path);
		else if (err)
			rs_error("%s: cannot read kernel symbols: %s; pass a copy of /proc/kallsyms",
				 path, strerror(-err));
		ctx->reported = err != 0;
		return err;
	}
	/*
	 * A recording made by `record` carries the kernel's text symbols
	 * (the kallsyms section of its tracing data): they are the ones the
	 * addresses were taken with, even on another machine.
	 */
	if (!perf_data__kallsyms(ctx->pd, &text, &len)) {
		err = machine__load_kallsyms_buf(ctx->machine, text, len);
		if (!err && machine__has_kernel_symbols(ctx->machine))
			return 0;
	}
	if (uname(&uts))
		strcpy(uts.release, "(unknown)");
	if (hdr->os_release &&
	    !strcmp(hdr->os_release, uts.release)) {
		err = machine__load_kallsyms(ctx->machine, "/proc/kallsyms");
		if (!err && machine__has_kernel_symbols(ctx->machine))
			return 0;
		snprintf(ctx->note, sizeof(ctx->note),
			 "/proc/kallsyms gives no addresses (kptr_restrict?); kernel frames stay [unknown]");
		return 0;
	}
	snprintf(ctx->note, sizeof(ctx->note),
		 "recording made on kernel %s, this is %s: kernel frames stay [unknown]; pass --kallsyms FILE captured there",
		 hdr->os_release ? hdr->os_release : "(unknown)", uts.release);
	return 0;
}

/* What load_kernel_symbols() had to say, once the report is sure. */
static void say_ksyms_note(const struct kernel_syms_ctx *ctx)
{
	if (ctx->note[0])
		rs_note("%s", ctx->note);
}

/*
 * What perf script's default output shows for a sample of this event,
 * which is what stackcollapse-perf.pl goes by. Hardware and software
 * events print "period event:" at the end of the header line. Tracepoint
 * headers end with the formatted fields instead, so the script sees no
 * event there (the sample escapes the event filter) and no period (it
 * counts 1); and in the pipe layout perf prints their callchain frames
 * without a dso, which the script's frame regex then skips.
 */
static bool evsel_is_tracepoint(const struct rs_evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_TRACEPOINT &&
	       (evsel->attr.sample_type & PERF_SAMPLE_RAW);
}

static bool evsel_shows_period(const struct rs_evsel *evsel)
{
	return (evsel->attr.sample_type & PERF_SAMPLE_PERIOD) &&
	       !evsel_is_tracepoint(evsel);
}

/* perf script's "[001] " CPU column. */
static const char *cpu_field(uint32_t cpu)
{
	static char buf[24];

	snprintf(buf, sizeof(buf), "[%03d] ", (int)cpu);
	return buf;
}

/*
 * A task sampled while exiting has pid and tid -1. perf script prints
 * its header as ":-1    -1 [001]  3081.234458:  500250 cpu-clock:", where
 * the script's header regex finds no tid: the process name becomes the
 * whole text up to the time, so each such sample is a stack of its own.
 * Print the header as perf script would (-F +pid when --pid or --tid
 * asks for the PID) and let the script's rules read it.
 */
static int begin_exiting(struct report_fold_ctx *ctx,
			 const struct rs_sample *s, const char *comm)
{
	uint64_t type = s->evsel->attr.sample_type;
	char secs[32], tstamp[48] = "";
	uint64_t usecs = s->time / 1000;
	char *line = NULL;
	int n, ret;

	if (!ctx->script) {
		ctx->script = perf_script__new();
		if (!ctx->script)
			return -ENOMEM;
	}
	if (type & PERF_SAMPLE_TIME) {
		snprintf(secs, sizeof(secs), "%" PRIu64 ".%06" PRIu64,
			 usecs / 1000000, usecs % 1000000);
		snprintf(tstamp, sizeof(tstamp), "%12s: ", secs);
	}
	/* The comm comes from the file: any length, hence asprintf. */
	if (ctx->params->fold.pid || ctx->params->fold.tid)
		n = asprintf(&line, type & PERF_SAMPLE_CALLCHAIN ?
			     "%s %5d/%-5d %s%s%10" PRIu64 " %s: " :
			     "%16s %5d/%-5d %s%s%10" PRIu64 " %s: ",
			     comm, (int)s->pid, (int)s->tid,
			     type & PERF_SAMPLE_CPU ? cpu_field(s->cpu) : "",
			     tstamp, s->period, s->evsel->name);
	else
		n = asprintf(&line, type & PERF_SAMPLE_CALLCHAIN ?
			     "%s %5d %s%s%10" PRIu64 " %s: " :
			     "%16s %5d %s%s%10" PRIu64 " %s: ",
			     comm, (int)s->tid,
			     type & PERF_SAMPLE_CPU ? cpu_field(s->cpu) : "",
			     tstamp, s->period, s->evsel->name);
	if (n < 0)
		return -ENOMEM;
	ret = perf_script__begin_sample(ctx->script, ctx->fold, line, n);
	free(line);
	return ret;
}

/*
 * A tracepoint or probe (recorded at every hit, or sampled by perf
 * record -F alike): not a sampling event, whose samples stand for time
 * or cycles spent.
 */
static bool evsel_is_hit(const struct rs_evsel *evsel)
{
	uint32_t type = evsel->attr.type;

	return type != PERF_TYPE_HARDWARE && type != PERF_TYPE_SOFTWARE &&
	       type != PERF_TYPE_HW_CACHE && type != PERF_TYPE_RAW;
}

/* perf record's side-band carrier ("dummy:HG") samples nothing. */
static bool evsel_is_dummy(const struct rs_evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_SOFTWARE &&
	       evsel->attr.config == PERF_COUNT_SW_DUMMY;
}

/*
 * The event to fold: --event-filter's (modifiers optional), else the
 * first sampling event, else (only tracepoints) the first event.
 */
static int choose_folded(struct report_fold_ctx *ctx)
{
	uint32_t i, n = perf_data__nr_evsel(ctx->pd);
	const char *want = ctx->params->fold.event_filter;
	const struct rs_evsel *e;

	for (i = 0; i < n; i++) {
		e = perf_data__evsel(ctx->pd, i);
		if (want ? !strcmp(e->name, want) :
		    !evsel_is_hit(e) && !evsel_is_dummy(e)) {
			ctx->folded = e;
			return 0;
		}
	}
	for (i = 0; want && i < n; i++) {
		e = perf_data__evsel(ctx->pd, i);
		if (fold__event_match(e->name, want)) {
			ctx->folded = e;
			return 0;
		}
	}
	if (want) {
		ctx->no_such_event = true;
		return -ENOENT;
	}
	if (n)
		ctx->folded = perf_data__evsel(ctx->pd, 0);
	return 0;
}

/* Where fold__begin_key() places a sample's key: see fold_ahead(). */
static uint64_t chain_where(const struct rs_sample *s, const uint64_t h[2])
{
	return s->has_chain_hash ? s->chain_hash[0] : h[0];
}

/*
 * Called on a sample a few places ahead of the one being folded (-j 2):
 * its callchain slot is fetched while this one is folded, since most
 * samples end at that one random read of a large table.
 */
static int fold_ahead(void *arg, const struct rs_event *ev)
{
	struct report_fold_ctx *ctx = arg;

	if (ev->kind == RS_EV_SAMPLE && ev->sample.has_chain_hash)
		fold__prefetch(ctx->fold, ev->sample.chain_hash[0]);
	return 0;
}

static int fold_sample(struct report_fold_ctx *ctx, const struct rs_event *ev)
{
	const struct rs_sample *s = &ev->sample;
	bool tracepoint, no_dso;
	uint64_t h[2];
	const char *comm;
	int i, n, ret;

	if (!ctx->params->stackcollapse) {
		if (!ctx->folded) {
			ret = choose_folded(ctx);
			if (ret)
				return ret;
		}
		if (s->evsel != ctx->folded &&
		    s->evsel->name != ctx->folded->name) {
			if (evsel_is_hit(s->evsel))
				ctx->nr_left_tp++;
			else
				ctx->nr_left_other++;
			return 0;
		}
	}
	if (!ctx->ksyms.kernel_checked) {
		ret = load_kernel_symbols(&ctx->ksyms);
		if (ret)
			return ret;
	}
	comm = machine__comm(ctx->machine, s->pid, s->tid);
	tracepoint = evsel_is_tracepoint(s->evsel);
	if (s->tid == (uint32_t)-1 && evsel_shows_period(s->evsel))
		ret = begin_exiting(ctx, s, comm);
	else
		/*
		 * As the script sees perf script's lines, a tracepoint's
		 * shows no event and passes any filter. Folded alone, the
		 * event was chosen above, by its attr: a name the stream
		 * changed mid-way (EVENT_UPDATE) must not split it.
		 */
		ret = fold__begin(ctx->fold, !ctx->params->stackcollapse ||
				  tracepoint ? NULL : s->evsel->name, comm,
				  s->pid, s->tid, s->period,
				  evsel_shows_period(s->evsel));
	if (ret <= 0)
		return ret;
	no_dso = tracepoint && perf_data__header(ctx->pd)->pipe_mode;
	if (!(s->evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
		ctx->nr_no_chain++;

	/*
	 * Most samples repeat a callchain seen before: fold those by their
	 * raw addresses and skip naming their frames again.
	 */
	machine__callchain_hash(ctx->machine, s, no_dso, h);
	ret = fold__begin_key(ctx->fold, h, chain_where(s, h));
	if (ret)
		return ret < 0 ? ret : 0;

	n = machine__resolve_callchain(ctx->machine, s->pid, s->tid,
				       s->cpumode, s->callchain,
				       s->nr_callchain, ctx->frames,
				       REPORT_MAX_STACK);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		/* --addrs prints the address as perf script does. */
		const struct rs_frame *fr = &ctx->frames[i];

		/* Without a dso the frame is named differently: no id. */
		ret = fold__frame_id(ctx->fold, no_dso ? 0 : fr->id, fr->sym,
				     no_dso ? NULL : fr->dso, fr->map_addr);
		if (ret)
			return ret;
	}
	return fold__end(ctx->fold);
}

/* Symbols are only taken from files whose build id matches the recording. */
static void register_build_ids(struct machine *m, struct perf_data *pd)
{
	uint32_t i, n = perf_data__nr_build_ids(pd);

	for (i = 0; i < n; i++) {
		const struct perf_build_id *bid = perf_data__build_id(pd, i);

		if (bid->filename)
			machine__add_build_id(m, bid->filename, bid->id,
					      bid->size);
	}
}

static int fold_event(void *arg, const struct rs_event *ev)
{
	struct report_fold_ctx *ctx = arg;
	int err;

	if (ev->kind == RS_EV_SAMPLE)
		err = fold_sample(ctx, ev);
	else
		err = machine__process_event(ctx->machine, ev);
	if (err)
		ctx->err_offset = ev->offset;
	return err;
}

/*
 * The reader's own message names the offset; an error from the consumer
 * (out of memory while folding) gets the offset of the event it was on.
 */
static void print_data_error(const char *input, struct perf_data *pd,
			     int err, int64_t offset)
{
	const char *msg = pd ? perf_data__strerror(pd) : "";

	if (msg && *msg)
		rs_error("%s: %s", input, msg);
	else if (offset >= 0)
		rs_error("%s: offset %" PRId64 ": %s", input, offset,
			 strerror(-err));
	else
		rs_error("%s: %s", input, strerror(-err));
}

/* The report-core keys: header, events and reader counters. */
static void json_header(struct json_writer *jw, struct perf_data *pd)
{
	const struct perf_header_info *hdr = perf_data__header(pd);
	const struct perf_data_stats *st = perf_data__stats(pd);
	uint32_t i, n = perf_data__nr_evsel(pd);

	json__object_begin(jw, "header");
	json__string(jw, "hostname", hdr->hostname);
	json__string(jw, "os_release", hdr->os_release);
	json__string(jw, "perf_version", hdr->perf_version);
	json__string(jw, "arch", hdr->arch);
	json__u64(jw, "nr_cpus", hdr->nr_cpus_online);
	json__u64(jw, "nr_cpus_avail", hdr->nr_cpus_avail);
	json__string(jw, "cpudesc", hdr->cpudesc);
	json__string(jw, "cmdline", hdr->cmdline);
	json__bool(jw, "pipe_mode", hdr->pipe_mode);
	if (hdr->sample_time_end) {
		json__u64(jw, "sample_time_start", hdr->sample_time_start);
		json__u64(jw, "sample_time_end", hdr->sample_time_end);
	}
	json__object_end(jw);
	json__array_begin(jw, "events");
	for (i = 0; i < n; i++) {
		const struct rs_evsel *evsel = perf_data__evsel(pd, i);

		json__object_begin(jw, NULL);
		json__string(jw, "name", evsel->name);
		json__u64(jw, "samples", evsel->nr_samples);
		json__u64(jw, "period", evsel->total_period);
		json__object_end(jw);
	}
	json__array_end(jw);
	json__u64(jw, "samples", st->nr_samples);
	json__u64(jw, "lost", st->nr_lost);
	json__u64(jw, "lost_samples", st->nr_lost_samples);
	json__u64(jw, "unknown_records", st->nr_unknown_records);
	json__u64(jw, "records", st->nr_records);
}

/*
 * Say what the fold mixed or dropped: stackcollapse-perf.pl keeps one
 * event's samples, but a tracepoint's pass whatever the filter, so a
 * profile of cycles also counts every recorded tracepoint hit.
 */
static void note_dropped(const struct fold *fold)
{
	uint64_t unnamed = fold__nr_kept_unnamed(fold);
	uint64_t named = fold__nr_kept(fold) - unnamed;
	uint64_t dropped = fold__nr_dropped(fold);
	char tail[128] = "";

	if (dropped)
		snprintf(tail, sizeof(tail),
			 "; %" PRIu64 " samples of other events dropped",
			 dropped);
	if (unnamed && !named && dropped)
		rs_note("folded the %" PRIu64 " samples of every tracepoint, not only '%s' (tracepoints pass any --event-filter, as in stackcollapse-perf.pl)%s",
			unnamed, fold__event(fold), tail);
	else if (unnamed && named)
		rs_note("folded %" PRIu64 " '%s' samples and %" PRIu64 " tracepoint samples (tracepoints pass any --event-filter, as in stackcollapse-perf.pl)%s",
			named, fold__event(fold), unnamed, tail);
	else if (dropped)
		rs_note("folded only '%s' samples%s (--event-filter picks one)",
			fold__event(fold), tail);
}

/* State while analysing a perf.data recording. */
struct report_an_ctx {
	struct kernel_syms_ctx ksyms;
	const struct rules *rules;
	struct analysis *an;	/* made at the first sample */
	int64_t err_offset;
};

static int analyse_event(void *arg, const struct rs_event *ev)
{
	struct report_an_ctx *ctx = arg;
	const struct report_params *p = ctx->ksyms.params;
	int err;

	if (ev->kind == RS_EV_SAMPLE && !ctx->an) {
		/*
		 * In the pipe layout OSRELEASE, which says what the lock
		 * events' cpu field means, comes in the stream: wait for
		 * the first sample.
		 */
		struct analysis_opts o = {
			.rules = ctx->rules,
			.spans = p->spans,
			.nr_spans = p->nr_spans,
			.os_release = perf_data__header(ctx->ksyms.pd)->os_release,
		};

		err = load_kernel_symbols(&ctx->ksyms);
		if (err)
			return err;
		ctx->an = analysis__new(&o, ctx->ksyms.machine);
		if (!ctx->an)
			err = -ENOMEM;
	}
	if (ctx->an)
		err = analysis__event(ctx->an, ev);
	else
		err = machine__process_event(ctx->ksyms.machine, ev);
	if (err)
		ctx->err_offset = ev->offset;
	return err;
}

/* Names of the recording's events, for a message. */
static void list_events(struct perf_data *pd, char *buf, size_t len)
{
	uint32_t i, n = perf_data__nr_evsel(pd);
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 perf_data__evsel(pd, i)->name);
}

static void note_skid(struct analysis *an)
{
	struct attrib *at = analysis__attrib(an);
	uint32_t i;

	for (i = 0; i < attrib__nr_events(at); i++) {
		const struct attrib_event *ev = attrib__event(at, i);

		if (!ev->clock || !ev->skid.samples)
			continue;
		rs_note("%s cannot sample while IRQs are off: %.1f%% of its flush samples are skid at the IRQ re-enable point; per-callback attribution inside the lock needs a PMU event (cycles), the lock hold times are the precise figure",
			ev->name, 100.0 * ev->skid.period / ev->flush.period);
		return;
	}
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
	json_header(jw, ro->pd);
	report_out__json(jw, ro);
	json__object_end(jw);
	json_writer__delete(jw);
	return 0;
}

/*
 * cgroup ids name paths only on the machine, and in the boot, they were
 * recorded in: same host name and kernel, and no sample time (perf's
 * clock counts from boot) later than this boot's clock now.
 */
static bool recorded_here(struct perf_data *pd)
{
	const struct perf_header_info *hdr = perf_data__header(pd);
	struct utsname uts;
	struct timespec ts;

	if (uname(&uts) || !hdr->hostname || !hdr->os_release ||
	    strcmp(hdr->hostname, uts.nodename) ||
	    strcmp(hdr->os_release, uts.release) ||
	    clock_gettime(CLOCK_MONOTONIC, &ts))
		return false;
	return hdr->sample_time_end <=
	       (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int print_analysis(const struct report_params *p, struct perf_data *pd,
			  struct analysis *an)
{
	struct report_out ro = {
		.input = p->input, .pd = pd, .an = an,
		.divisor = p->divisor, .unit = p->unit, .hist = p->hist,
	};
	struct kernel_spans *ks = NULL;
	char errbuf[256] = "";
	const char *text;
	int ret;

	/* After the data: a pipe carries its features among the records. */
	if (!perf_data__rstat_spans(pd, &text)) {
		ret = kernel_spans__parse(&ks, text, strlen(text), errbuf,
					  sizeof(errbuf));
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			rs_note("%s: %s; left out of the report", p->input,
				errbuf);
	}
	ro.kspans = ks;
	if (recorded_here(pd)) {
		ro.cgroups = cgroup_paths__new();
		if (!ro.cgroups) {
			kernel_spans__delete(ks);
			return -ENOMEM;
		}
	}
	ret = print_report(p, &ro);
	cgroup_paths__delete(ro.cgroups);
	kernel_spans__delete(ks);
	return ret;
}

/*
 * Formats the reader would not hand to libtraceevent as they are (one
 * could crash it): the samples stay, but the user should know which
 * event's format the recording got wrong.
 */
static void note_bad_formats(const struct perf_data *pd)
{
	uint32_t i, n = perf_data__nr_bad_formats(pd);
	const char *what;

	for (i = 0; (what = perf_data__bad_format(pd, i)); i++)
		rs_note("bad tracepoint format in the recording (%s): not parsed as it is; its samples are kept",
			what);
	if (n > i)
		rs_note("%u more bad tracepoint formats in the recording were ignored",
			n - i);
}

static int report_analysis(const struct report_params *p,
			   struct perf_data *pd, const struct rules *rules)
{
	struct report_an_ctx ctx = { .rules = rules, .err_offset = -1 };
	struct analysis_opts empty = { .rules = rules, .spans = p->spans,
				       .nr_spans = p->nr_spans };
	int status = RS_EXIT_OK;
	char events[512];
	bool start;
	int err, idx;

	ctx.ksyms.params = p;
	ctx.ksyms.pd = pd;
	ctx.ksyms.machine = machine__new();
	if (!ctx.ksyms.machine) {
		rs_error("report: out of memory");
		return RS_EXIT_FAIL;
	}
	register_build_ids(ctx.ksyms.machine, pd);
	err = perf_data__process(pd, analyse_event, &ctx);
	/* after the data: in a pipe the tracing data may come late */
	note_bad_formats(pd);
	if (ctx.ksyms.reported) {
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (err) {
		/* Half a report would mislead: say where the data broke. */
		print_data_error(p->input, pd, err, ctx.err_offset);
		status = RS_EXIT_FAIL;
		goto out;
	}
	/* A recording with no sample still gets its header and counts. */
	if (!ctx.an)
		ctx.an = analysis__new(&empty, ctx.ksyms.machine);
	if (!ctx.an || analysis__finish(ctx.an)) {
		rs_error("report: out of memory");
		status = RS_EXIT_FAIL;
		goto out;
	}
	idx = analysis__unmatched_span(ctx.an, &start);
	if (idx >= 0) {
		list_events(pd, events, sizeof(events));
		rs_error("%s: --span %s,%s: no sample of '%s' in the recording (its events: %s)",
			 p->input, p->spans[idx].start, p->spans[idx].end,
			 start ? p->spans[idx].start : p->spans[idx].end,
			 events);
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (analysis__nr_bad_raw(ctx.an))
		rs_note("%" PRIu64 " tracepoint samples too short for their fields were left out",
			analysis__nr_bad_raw(ctx.an));
	if (analysis__sampled_tracepoint(ctx.an)) {
		const struct rs_evsel *tp =
			analysis__sampled_tracepoint(ctx.an);

		rs_note("%s was sampled (%" PRIu64 " of %" PRIu64
			" hits recorded: perf record -F and -c apply to tracepoints): spans may pair events of different rounds; record tracepoints with -c 1",
			tp->name, tp->nr_samples, tp->total_period);
	}
	if (analysis__nr_no_chain(ctx.an))
		rs_note("%" PRIu64 " samples have no callchain (record with -g): only their sampled function was classified",
			analysis__nr_no_chain(ctx.an));
	/* Notes first: on a terminal they would land inside the tables. */
	say_ksyms_note(&ctx.ksyms);
	note_skid(ctx.an);
	err = print_analysis(p, pd, ctx.an);
	if (err == -ENOMEM) {
		rs_error("report: out of memory");
		status = RS_EXIT_FAIL;
		goto out;
	}
out:
	analysis__delete(ctx.an);
	machine__delete(ctx.ksyms.machine);
	return status;
}

/* Say what the fold of one event left out, and how to get it. */
static void note_left_out(const struct report_fold_ctx *ctx)
{
	char tp[64] = "", other[64] = "";

	if (!ctx->folded || (!ctx->nr_left_tp && !ctx->nr_left_other))
		return;
	if (ctx->nr_left_tp)
		snprintf(tp, sizeof(tp), "%" PRIu64 " tracepoint and probe hits",
			 ctx->nr_left_tp);
	if (ctx->nr_left_other)
		snprintf(other, sizeof(other),
			 "%s%" PRIu64 " samples of other events",
			 ctx->nr_left_tp ? " and " : "", ctx->nr_left_other);
	rs_note("folded the '%s' samples alone, leaving out %s%s (--event-filter NAME folds another event; --stackcollapse folds as perf script | stackcollapse-perf.pl)",
		ctx->folded->name, tp, other);
}

static int report_perf_data(const struct report_params *p,
			    struct perf_data *pd, const struct rules *rules)
{
	struct report_fold_ctx ctx = { .params = p, .pd = pd,
				       .err_offset = -1 };
	int status = RS_EXIT_OK;
	char events[512];
	int err;

	if (p->mode != REPORT_FOLDED)
		return report_analysis(p, pd, rules);

	ctx.machine = machine__new();
	ctx.ksyms.params = p;
	ctx.ksyms.pd = pd;
	ctx.ksyms.machine = ctx.machine;
	ctx.fold = fold__new(&p->fold);
	if (ctx.machine)
		register_build_ids(ctx.machine, pd);
	if (!ctx.machine || !ctx.fold) {
		rs_error("report: out of memory");
		status = RS_EXIT_FAIL;
		goto out;
	}
	perf_data__set_lookahead(pd, fold_ahead);
	err = perf_data__process(pd, fold_event, &ctx);
	note_bad_formats(pd);
	if (ctx.ksyms.reported) {
		status = RS_EXIT_FAIL;
		goto out;
	}
	/*
	 * Chosen at the first sample; a recording without any: now. With
	 * --stackcollapse too: there it only checks that --event-filter
	 * names an event of the file (a typo is an error, not an empty
	 * profile).
	 */
	if (!err && !ctx.folded)
		choose_folded(&ctx);
	if (ctx.no_such_event) {
		list_events(pd, events, sizeof(events));
		rs_error("%s: --event-filter %s: no such event in the recording (its events: %s)",
			 p->input, p->fold.event_filter ?
			 p->fold.event_filter : "", *events ? events : "none");
		status = RS_EXIT_FAIL;
		goto out;
	}
	/*
	 * A fatal error prints the error alone: stacks cut short at an
	 * unknown point, and notes about them, would pass for a profile.
	 */
	if (err) {
		print_data_error(p->input, pd, err, ctx.err_offset);
		status = RS_EXIT_FAIL;
		goto out;
	}
	/* Notes first: on a terminal they would land inside the stacks. */
	say_ksyms_note(&ctx.ksyms);
	if (p->stackcollapse)
		note_dropped(ctx.fold);
	else
		note_left_out(&ctx);
	/*
	 * perf script prints such samples on one line with no blank line
	 * after, so stackcollapse-perf.pl folds nothing; process names alone
	 * say more, but say why.
	 */
	if (ctx.nr_no_chain)
		rs_note("%" PRIu64 " samples have no callchain (record with -g): folded as process names alone",
			ctx.nr_no_chain);
	if (fold__write(ctx.fold, p->out) == -ENOMEM) {
		rs_error("report: out of memory");
		status = RS_EXIT_FAIL;
	}
out:
	fold__delete(ctx.fold);
	perf_script__delete(ctx.script);
	machine__delete(ctx.machine);
	return status;
}

/*
 * Standard input after sniffing: the bytes already read, then the rest of
 * the descriptor, as one stream for the text reader.
 */
struct prefixed_input {
	int fd;
	const char *prefix;
	size_t len, pos;
};

static ssize_t prefixed_read(void *cookie, char *buf, size_t size)
{
	struct prefixed_input *in = cookie;
	ssize_t n;

	if (in->pos < in->len) {
		n = in->len - in->pos < size ? in->len - in->pos : size;
		memcpy(buf, in->prefix + in->pos, n);
		in->pos += n;
		return n;
	}
	do {
		n = read(in->fd, buf, size);
	} while (n < 0 && errno == EINTR);
	return n;
}

static int report_text(const struct report_params *p, FILE *in)
{
	struct perf_script_stats st = { 0 };
	struct perf_script *ps;
	struct fold *fold;
	int status = RS_EXIT_OK;
	int err;

	if (p->mode != REPORT_FOLDED) {
		rs_error("%s: perf script text holds no tracepoint formats or periods to attribute; use --folded, or give the perf.data itself",
			 p->input);
		return RS_EXIT_FAIL;
	}
	ps = perf_script__new();
	fold = fold__new(&p->fold);
	if (!ps || !fold) {
		rs_error("report: out of memory");
		status = RS_EXIT_FAIL;
		goto out;
	}
	err = perf_script__fold(ps, in, fold, &st);
	if (err) {
		/* The error alone: cut-short stacks would pass for a profile. */
		rs_error("%s: line %" PRIu64 ": %s", p->input, st.err_line,
			 st.err_msg ? st.err_msg : strerror(-err));
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (!st.nr_samples && !st.nr_filtered &&
	    (st.nr_headers || st.nr_frames)) {
		/* Without -g, perf script ends no sample with a blank line. */
		rs_error("%s: no stacks in %" PRIu64 " lines of perf script output: it prints callchains only for recordings made with -g",
			 p->input, st.nr_lines);
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (!st.nr_samples && !st.nr_filtered) {
		rs_error("%s: no samples found in %" PRIu64
			 " lines: not perf script output? (try `perf script -i FILE`)",
			 p->input, st.nr_lines);
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (p->fold.event_filter && !fold__filter_hit(fold)) {
		const char *seen[8];
		unsigned int i, n = fold__events_seen(fold, seen, 8);
		char list[512] = "";
		size_t used = 0;

		for (i = 0; i < n && i < 8 && used + 1 < sizeof(list); i++)
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", i ? ", " : "", seen[i]);
		rs_error("%s: --event-filter %s: no sample of that event (its events: %s%s)",
			 p->input, p->fold.event_filter, n ? list : "none named",
			 n > 8 ? ", ..." : "");
		status = RS_EXIT_FAIL;
		goto out;
	}
	note_dropped(fold);
	if (fold__write(fold, p->out) == -ENOMEM) {
		rs_error("report: out of memory");
		status = RS_EXIT_FAIL;
	}
out:
	fold__delete(fold);
	perf_script__delete(ps);
	return status;
}

/* Read up to len bytes, fewer only at end of file. */
static ssize_t read_prefix(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/*
 * Text, but not perf script output: its lines would fold into junk
 * stacks. Say what it looks like, where that is clear.
 */
static void not_script_error(const char *input, const char *text, size_t n)
{
	size_t i = 0;

	while (i < n && (text[i] == ' ' || text[i] == '\t' ||
			 text[i] == '\n' || text[i] == '\r'))
		i++;
	if (i < n && (text[i] == '{' || text[i] == '['))
		rs_error("%s: JSON, not perf script output: report reads perf.data or `perf script` text (bench results go to compare and plot)",
			 input);
	else
		rs_error("%s: not perf script output (its first line is no sample header); give a perf.data file or the output of `perf script -i FILE`",
			 input);
}

static int report_input(const struct report_params *p,
			const struct rules *rules)
{
	bool is_stdin = !strcmp(p->input, "-");
	struct perf_data *pd = NULL;
	char prefix[4096];
	struct stat sb = { 0 };
	ssize_t n;
	int fd, err, status;

	fd = is_stdin ? STDIN_FILENO : open(p->input, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rs_error("%s: %s; give a recording with -i FILE", p->input,
			 strerror(errno));
		return RS_EXIT_FAIL;
	}
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		rs_error("%s: is a directory; give a recording with -i FILE",
			 p->input);
		status = RS_EXIT_FAIL;
		goto out;
	}
	n = read_prefix(fd, prefix, sizeof(prefix));
	if (n < 0) {
		rs_error("%s: %s", p->input, strerror((int)-n));
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (n == 0) {
		rs_error("%s: empty: neither a perf.data file nor perf script text",
			 p->input);
		status = RS_EXIT_FAIL;
		goto out;
	}

	if (perf_data__sniff(prefix, n)) {
		/* Regular files are mapped whole; streams read as they come. */
		if (!is_stdin && S_ISREG(sb.st_mode))
			err = perf_data__open(&pd, p->input);
		else
			err = perf_data__open_fd(&pd, fd, prefix, n);
		if (err) {
			print_data_error(p->input, pd, err, -1);
			status = RS_EXIT_FAIL;
		} else {
			perf_data__set_threads(pd, p->jobs);
			status = report_perf_data(p, pd, rules);
		}
		perf_data__delete(pd);
	} else if (perf_script__sniff(prefix, n) &&
		   !perf_script__recognise(prefix, n)) {
		not_script_error(p->input, prefix, n);
		status = RS_EXIT_FAIL;
	} else if (perf_script__sniff(prefix, n)) {
		struct prefixed_input cookie = {
			.fd = fd, .prefix = prefix, .len = n,
		};
		cookie_io_functions_t io = { .read = prefixed_read };
		FILE *in = fopencookie(&cookie, "r", io);

		if (!in) {
			rs_error("report: out of memory");
			status = RS_EXIT_FAIL;
			goto out;
		}
		status = report_text(p, in);
		fclose(in);
	} else {
		rs_error("%s: offset 0: neither a perf.data file (no PERFILE2 magic) nor perf script text",
			 p->input);
		status = RS_EXIT_FAIL;
	}
out:
	if (!is_stdin)
		close(fd);
	return status;
}

int report_fold(const char *input, const char *kallsyms, FILE *out)
{
	struct report_params p = {
		.input = input, .kallsyms = kallsyms, .out = out,
		.mode = REPORT_FOLDED, .divisor = 1000, .unit = "usecs",
	};

	return report_input(&p, NULL);
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
		rs_error("%s", rules__strerror(rules));
		ret = RS_EXIT_FAIL;
		goto out;
	}
	if (params.rules_dump) {
		ret = rules__dump(rules, stdout) ? RS_EXIT_FAIL : RS_EXIT_OK;
		goto out;
	}
	ret = report_input(&params, rules);
out:
	/* In JSON mode a failure is JSON too, as bpftool does it. */
	if (ret == RS_EXIT_FAIL && params.mode == REPORT_JSON) {
		struct json_writer *jw = json_writer__new(stdout);

		if (jw) {
			json__object_begin(jw, NULL);
			json__string(jw, "error", rs_last_error());
			json__object_end(jw);
			json_writer__delete(jw);
		}
	}
	rules__delete(rules);
	report_params_free(&params);
	return rs_finish_stdout(ret);
}
