// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze record: sample the CPUs (or a process, a cgroup, a command)
 * with callchains, record every rstat tracepoint this kernel has and any
 * probe points asked for, and write a perf.data that perf itself reads.
 *
 * Events are opened before the output file is created, so a kernel that
 * lacks something fails before anything is written. Probes go through the
 * kprobe and uprobe PMUs: the kernel removes them when the file descriptors
 * close, so no exit path (not even SIGKILL) leaves one behind. A command
 * run with `--` dies with the recorder (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

#include "bpf-spans.h"
#include "cmds.h"
#include "vm.h"
#include "evlist.h"
#include "kernel-spans.h"
#include "kfeatures.h"
#include "outfile.h"
#include "perf-writer.h"
#include "probe.h"
#include "util.h"

#define DEFAULT_OUTPUT "rstat.data"
#define DEFAULT_FREQ 4999
#define MAX_EVENT_ARGS 64
/* How often the rings are drained when no wakeup comes, in ms. */
#define POLL_MS 100

/* How lock holds, waits and flushes are timed. */
enum record_spans {
	SPANS_AUTO,	/* in the kernel where BPF works, else perf */
	SPANS_BPF,	/* in the kernel (BPF), or fail */
	SPANS_PERF,	/* from perf's tracepoint records */
};

enum record_target {
	TARGET_ALL,
	TARGET_PID,
	TARGET_CGROUP,
	TARGET_CMD,
};

struct record_params {
	struct vm_opts vm;	/* --kernel: record inside a VM */
	int nopts;		/* optind after the options */
	const char *output;
	enum record_target target;
	bool target_given;
	pid_t pid;
	const char *cgroup;
	/*
	 * argv of -- CMD. Alone, CMD is the target; with -a or --cgroup it
	 * bounds the recording, as in perf: system-wide (or the cgroup) for
	 * as long as CMD runs.
	 */
	char **cmd;
	unsigned int freq;
	double duration;		/* seconds, 0: until stopped */
	const char *vmlinux;
	unsigned int mmap_pages;
	bool quiet;
	enum record_spans spans;
	const char *events[MAX_EVENT_ARGS];
	unsigned int nr_events;
	const char *probes[MAX_EVENT_ARGS];
	unsigned int nr_probes;
	const char *uprobes[MAX_EVENT_ARGS];
	unsigned int nr_uprobes;
};

/*
 * What the recording had to do without, said once the events are open (a
 * failure is then one line, not a note and an error) and not with -q.
 */
/*
 * The flush function of the kernels before the rstat tracepoints (4.18 to
 * 6.14; the tracepoints came in 6.10): probed at entry and return when
 * the tracepoints are missing, so that flushes still have spans.
 */
#define FLUSH_FUNC BPF_SPANS_FLUSH_FUNC

struct record_notes {
	bool no_cycles;		/* sampling cpu-clock instead */
	bool no_tracepoints;	/* this kernel has none */
	bool flush_kprobes;	/* ...so the flush function is probed */
	bool tracefs_denied;	/* tracefs not readable by this user */
	/* --spans auto could not time in the kernel: why (BPF's reason) */
	char no_bpf[256];
	/* no rstat tracepoints: BPF times the flush function by kprobes */
	bool bpf_kprobes;
};

/* Strings an attr points to (probe paths, symbols) until the events open. */
struct record_strings {
	char *s[MAX_EVENT_ARGS * 4];
	unsigned int n;
	/* Probes made in tracefs for inherited events: removed at the end. */
	struct tracefs_dynevent *dyn[MAX_EVENT_ARGS * 4];
	char *dyn_name[MAX_EVENT_ARGS * 4];	/* "group:event", in s[] */
	unsigned int ndyn;
	int guardian_fd;	/* its pipe's write end, or -1 */
};

static volatile sig_atomic_t record_stop;

static void record_signal(int sig)
{
	record_stop = sig;
}

static const char record_usage_text[] =
	"usage: rstat-analyze record [-o FILE] [-a | -p PID | --cgroup PATH]\n"
	"                            [-F HZ] [-e EVENT]... [--probe SPEC]...\n"
	"                            [--uprobe BINARY:SPEC]... [-d SECONDS]\n"
	"                            [--vmlinux FILE] [-m PAGES]\n"
	"                            [--spans auto|bpf|perf] [-q]\n"
	"                            [-- CMD ARGS...]\n"
	"       rstat-analyze record --kernel IMAGE [VM options] [options]\n"
	"                            [-- CMD ARGS...]\n";

static void record_usage(FILE *out)
{
	fputs(record_usage_text, out);
}

static void record_help(void)
{
	record_usage(stdout);
	fputs("\n"
	      "Record what rstat flushes cost: samples with kernel and user\n"
	      "callchains (cycles, or cpu-clock where the PMU has no cycles),\n"
	      "every rstat tracepoint this kernel has, and probe points, into\n"
	      "a perf.data file that `perf script` and `rstat-analyze report`\n"
	      "read. An existing output is renamed to FILE.old.\n"
	      "\n"
	      "  -o, --output FILE     output (default " DEFAULT_OUTPUT ")\n"
	      "  -a, --all-cpus        every CPU, every task (default)\n"
	      "  -p, --pid PID         a running process and its threads\n"
	      "      --cgroup PATH     tasks of a cgroup (a path, or a name under\n"
	      "                        the v2 or perf_event mount)\n"
	      "  -- CMD ARGS...        run CMD and record it (from its exec); with -a\n"
	      "                        or --cgroup, record those while CMD runs\n"
	      "  -F, --freq HZ         sampling frequency (default 4999)\n"
	      "  -e, --event EVENT     add a tracepoint (sys:name) or replace the\n"
	      "                        sampling event (cycles, cpu-clock, rNNN...)\n"
	      "      --probe SPEC      kernel probe: FUNC, FUNC%return, FUNC:RLN,\n"
	      "                        SRC:ALN, FUNC+OFF (lines need debuginfo)\n"
	      "      --uprobe BINARY:SPEC  the same in a user-space binary\n"
	      "  -d, --duration SECS   stop after SECS seconds\n"
	      "      --vmlinux FILE    kernel image with debuginfo for --probe\n"
	      "  -m, --mmap-pages N    ring buffer data pages per CPU (power of 2)\n"
	      "      --spans MODE      how lock holds, waits and flushes are timed:\n"
	      "                        bpf: in the kernel (no record inside a\n"
	      "                        hold); perf: from tracepoint records (per\n"
	      "                        cgroup and CPU, but each hold includes the\n"
	      "                        recorder's cost); auto (default): bpf where\n"
	      "                        it loads, else perf\n"
	      "  -q, --quiet           no progress line, notes or summary\n"
	      "  -h, --help            this text\n"
	      "\n"
	      VM_HELP_TEXT
	      "With --kernel the recording is made in a VM booted from IMAGE,\n"
	      "with CMD (and --uprobe binaries) packed in with their libraries,\n"
	      "and written here to -o FILE; the guest's symbols are inside it.\n"
	      "--probe lines resolve here, from that kernel's vmlinux (--vmlinux,\n"
	      "or IMAGE's directory's vmlinux), which the guest must be running.\n"
	      "\n"
	      "Ctrl-C or SIGTERM stops the recording cleanly.\n"
	      "Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	      "See rstat-analyze-record(1) and `rstat-analyze doctor`.\n",
	      stdout);
}

enum {
	OPT_CGROUP = 256,
	OPT_PROBE,
	OPT_UPROBE,
	OPT_VMLINUX,
	OPT_SPANS,
};

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "freq", required_argument, NULL, 'F' },
	{ "event", required_argument, NULL, 'e' },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "uprobe", required_argument, NULL, OPT_UPROBE },
	{ "duration", required_argument, NULL, 'd' },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "spans", required_argument, NULL, OPT_SPANS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	VM_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int set_target(struct record_params *p, enum record_target t)
{
	if (p->target_given && p->target != t) {
		rs_error("record: -a, -p and --cgroup are exclusive (-- CMD goes with -a or --cgroup: record while CMD runs)");
		return -EINVAL;
	}
	p->target = t;
	p->target_given = true;
	return 0;
}

static int add_arg(const char **arr, unsigned int *n, const char *arg,
		   const char *opt)
{
	if (*n == MAX_EVENT_ARGS) {
		rs_error("record: at most %d %s options", MAX_EVENT_ARGS, opt);
		return -E2BIG;
	}
	arr[(*n)++] = arg;
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *out > max)
		return -EINVAL;
	return 0;
}

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int record_parse_args(int argc, char **argv, struct record_params *p)
{
	char vmerr[256];
	unsigned long v;
	char *end;
	int c;

	memset(p, 0, sizeof(*p));
	p->output = DEFAULT_OUTPUT;
	p->freq = DEFAULT_FREQ;
	optind = 1;
	opterr = 0;
	/* '+': stop at the command's name, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+:o:ap:F:e:d:m:qh",
				record_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			p->output = optarg;
			break;
		case 'a':
			if (set_target(p, TARGET_ALL))
				return RS_EXIT_USAGE;
			break;
		case 'p':
			if (parse_uint(optarg, INT_MAX, &v) || !v) {
				rs_error("record: -p '%s': give a process id",
					 optarg);
				return RS_EXIT_USAGE;
			}
			if (set_target(p, TARGET_PID))
				return RS_EXIT_USAGE;
			p->pid = v;
			break;
		case OPT_CGROUP:
			if (set_target(p, TARGET_CGROUP))
				return RS_EXIT_USAGE;
			p->cgroup = optarg;
			break;
		case 'F':
			if (parse_uint(optarg, 1000000, &v) || !v) {
				rs_error("record: -F '%s': give a frequency in Hz (1 to 1000000)",
					 optarg);
				return RS_EXIT_USAGE;
			}
			p->freq = v;
			break;
		case 'e':
			if (add_arg(p->events, &p->nr_events, optarg, "-e"))
				return RS_EXIT_USAGE;
			break;
		case OPT_PROBE:
			if (add_arg(p->probes, &p->nr_probes, optarg,
				    "--probe"))
				return RS_EXIT_USAGE;
			break;
		case OPT_UPROBE:
			if (add_arg(p->uprobes, &p->nr_uprobes, optarg,
				    "--uprobe"))
				return RS_EXIT_USAGE;
			break;
		case 'd':
			errno = 0;
			p->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(p->duration > 0) || p->duration > 1e7) {
				rs_error("record: -d '%s': give a duration in seconds",
					 optarg);
				return RS_EXIT_USAGE;
			}
			break;
		case OPT_VMLINUX:
			p->vmlinux = optarg;
			break;
		case 'm':
			if (parse_uint(optarg, 1UL << 20, &v) || !v ||
			    (v & (v - 1))) {
				rs_error("record: -m '%s': give a power of 2 number of pages",
					 optarg);
				return RS_EXIT_USAGE;
			}
			p->mmap_pages = v;
			break;
		case OPT_SPANS:
			if (!strcmp(optarg, "auto"))
				p->spans = SPANS_AUTO;
			else if (!strcmp(optarg, "bpf"))
				p->spans = SPANS_BPF;
			else if (!strcmp(optarg, "perf"))
				p->spans = SPANS_PERF;
			else {
				rs_error("record: --spans '%s': give auto, bpf or perf",
					 optarg);
				return RS_EXIT_USAGE;
			}
			break;
		case 'q':
			p->quiet = true;
			break;
		VM_OPT_CASES:
			if (vm_opts__parse(&p->vm, c, optarg, vmerr,
					   sizeof(vmerr))) {
				rs_error("record: %s", vmerr);
				record_usage(stderr);
				return RS_EXIT_USAGE;
			}
			break;
		case 'h':
			record_help();
			return -1;
		case ':':
			rs_error("record: option '%s' needs a value",
				 argv[optind - 1]);
			record_usage(stderr);
			return RS_EXIT_USAGE;
		default:
			rs_error("record: unknown option '%s'",
				 argv[optind - 1]);
			record_usage(stderr);
			return RS_EXIT_USAGE;
		}
	}
	p->nopts = optind;
	if (p->vm.nkernels > 1) {
		rs_error("record: one --kernel at a time (bench takes several)");
		return RS_EXIT_USAGE;
	}
	if (p->vm.nkernels && p->target == TARGET_PID) {
		rs_error("record: --kernel: -p names something on this machine, not in the VM");
		return RS_EXIT_USAGE;
	}
	if (optind < argc) {
		if (p->target_given && p->target == TARGET_PID) {
			rs_error("record: -p and -- CMD are exclusive: record a running process, or a command");
			return RS_EXIT_USAGE;
		}
		if (!p->target_given)
			set_target(p, TARGET_CMD);
		p->cmd = argv + optind;
	}
	if (!strcmp(p->output, "-")) {
		rs_error("record: -o -: only the file layout is written; give a file name");
		return RS_EXIT_USAGE;
	}
	if (!*p->output) {
		rs_error("record: -o needs a file name");
		return RS_EXIT_USAGE;
	}
	return 0;
}

/* --- events ------------------------------------------------------------- */

static const uint64_t sample_base = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

static int add_evsel(struct evlist *el, struct perf_event_attr *attr,
		     const char *name)
{
	struct evsel *e = evsel__new(attr, name);

	if (!e || evlist__add(el, e)) {
		evsel__delete(e);
		rs_error("record: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Once per event: samples at a rate, or every hit of a tracepoint/probe. */
static void set_sampling(struct perf_event_attr *attr,
			 const struct record_params *p)
{
	attr->sample_type |= sample_base;
	if (attr->type == PERF_TYPE_TRACEPOINT)
		attr->sample_type |= PERF_SAMPLE_RAW;
	if (attr->type == PERF_TYPE_HARDWARE ||
	    attr->type == PERF_TYPE_SOFTWARE ||
	    attr->type == PERF_TYPE_HW_CACHE || attr->type == PERF_TYPE_RAW) {
		attr->freq = 1;
		attr->sample_freq = p->freq;
	} else {
		/*
		 * Every hit: perf record -F would sample tracepoints too,
		 * and consecutive lock events would then belong to
		 * different rounds.
		 */
		attr->freq = 0;
		attr->sample_period = 1;
	}
	if (p->target == TARGET_PID || p->target == TARGET_CMD)
		attr->inherit = 1;
	if (p->target == TARGET_CMD)
		attr->enable_on_exec = 1;
}

static bool is_sampling_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_SOFTWARE ||
	       type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/*
 * Whether the PMU has the event, whatever this user may open: a refusal
 * (perf_event_paranoid) comes before the kernel looks for the PMU, so the
 * user-space-only spelling is tried too, which paranoid 2 allows.
 */
static bool pmu_lacks(const struct perf_event_attr *attr, int *err)
{
	struct perf_event_attr u = *attr;

	if (events__supported(attr, err))
		return false;
	if (*err == -EACCES || *err == -EPERM) {
		u.exclude_kernel = 1;
		u.exclude_hv = 1;
		if (events__supported(&u, err))
			return false;
	}
	return *err == -ENOENT || *err == -ENODEV || *err == -EOPNOTSUPP;
}

/* The sampling event: -e's, else cycles where the PMU has it. */
static int add_sampling_events(struct evlist *el,
			       const struct record_params *p,
			       struct record_notes *notes)
{
	struct perf_event_attr attr;
	unsigned int i, added = 0;
	char *name = NULL;
	int err;

	for (i = 0; i < p->nr_events; i++) {
		err = events__parse(p->events[i], &attr, &name);
		if (err || !is_sampling_type(attr.type)) {
			free(name);
			name = NULL;
			continue;
		}
		set_sampling(&attr, p);
		err = add_evsel(el, &attr, name);
		free(name);
		name = NULL;
		if (err)
			return err;
		added++;
	}
	if (added)
		return 0;

	err = events__parse("cycles", &attr, &name);
	/*
	 * Only a PMU without cycles falls back; a refusal (EACCES under
	 * perf_event_paranoid) is reported when the events open.
	 */
	if (!err && pmu_lacks(&attr, &err)) {
		free(name);
		name = NULL;
		notes->no_cycles = true;
		err = events__parse("cpu-clock", &attr, &name);
	}
	if (err && err != -EACCES && err != -EPERM) {
		rs_error("record: cannot set up the sampling event: %s",
			 strerror(-err));
		return err;
	}
	set_sampling(&attr, p);
	err = add_evsel(el, &attr, name);
	free(name);
	return err;
}

/*
 * The side band rides on the first event, as in perf: process names (and
 * renames at exec), memory maps with their build ids where the kernel
 * gives them, forks and exits. Without them no user frame of a process
 * started during the recording would be named.
 */
static void set_side_band(struct evlist *el)
{
	struct perf_event_attr *attr;

	if (!evlist__nr(el))
		return;
	attr = evsel__attr(evlist__evsel(el, 0));
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->mmap_data = 0;
}

static bool name_listed(char **names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/*
 * Every rstat tracepoint this kernel has, then the -e tracepoints; their
 * names go to *tps for the TRACING_DATA feature.
 */
/*
 * The tracepoints that open and close a lock hold or wait. When BPF times
 * the spans in the kernel, perf does not record them: perf's record of
 * either end would run inside the hold being timed.
 */
static bool is_lock_tracepoint(const char *name)
{
	return !strcmp(name, "cgroup:cgroup_rstat_locked") ||
	       !strcmp(name, "cgroup:cgroup_rstat_unlock") ||
	       !strcmp(name, "cgroup:cgroup_rstat_lock_contended") ||
	       !strncmp(name, "cgroup:cgroup_rstat_cpu_", 24);
}

static int add_tracepoints(struct evlist *el, const struct record_params *p,
			   bool bpf_spans, char ***tps, size_t *nr_tps,
			   struct record_notes *notes)
{
	static const char *const globs[] = {
		"cgroup:cgroup_rstat_*", "memcg:memcg_flush_stats",
	};
	struct perf_event_attr attr;
	char **names = NULL, **all;
	size_t n, i, total = 0, nr_auto, found = 0;
	char *name;
	unsigned int g;
	int err;

	all = calloc(MAX_EVENT_ARGS * 2 + 64, sizeof(*all));
	if (!all)
		goto nomem;
	for (g = 0; g < sizeof(globs) / sizeof(*globs); g++) {
		err = events__tracepoints(globs[g], &names, &n);
		if (err == -ENOENT && g == 0) {
			rs_error("record: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing (see rstat-analyze doctor)");
			goto fail;
		}
		if ((err == -EACCES || err == -EPERM) && g == 0) {
			/*
			 * A permission, not the kernel's version: samples
			 * alone are still worth recording (-e cpu-clock:u
			 * as any user), unless a tracepoint was asked for.
			 */
			notes->tracefs_denied = true;
			break;
		}
		found += err ? 0 : n;
		for (i = 0; !err && i < n && total < 64; i++) {
			if (bpf_spans && is_lock_tracepoint(names[i]))
				continue;
			all[total] = strdup(names[i]);
			if (!all[total])
				goto nomem;
			total++;
		}
		events__free_names(names);
		names = NULL;
	}
	/* Those BPF times are not missing: no flush kprobes for them. */
	if (!found && !notes->tracefs_denied)
		notes->no_tracepoints = true;
	nr_auto = total;

	for (i = 0; i < p->nr_events; i++) {
		err = events__parse(p->events[i], &attr, &name);
		/* Counters parse without tracefs: this is a tracepoint. */
		if ((err == -EACCES || err == -EPERM || err == -ENOENT) &&
		    notes->tracefs_denied) {
			rs_error("record: -e %s: tracefs is not readable by this user: run as root to record tracepoints (see rstat-analyze doctor)",
				 p->events[i]);
			goto fail;
		}
		if (err) {
			rs_error("record: -e %s: %s; list tracepoints with `ls /sys/kernel/tracing/events`",
				 p->events[i], err == -ENOENT ?
				 "no such event on this kernel" :
				 "not an event name (sys:name, cycles, cpu-clock, rNNN)");
			goto fail;
		}
		if (attr.type != PERF_TYPE_TRACEPOINT ||
		    name_listed(all, total, name)) {
			free(name);
			continue;
		}
		all[total++] = name;
	}

	for (i = 0; i < total; i++) {
		err = events__parse(all[i], &attr, &name);
		if (err) {
			rs_error("record: %s: cannot read its id from tracefs: %s",
				 all[i], strerror(-err));
			goto fail;
		}
		set_sampling(&attr, p);
		/*
		 * A hold is timed from `locked` to `unlock`: a callchain
		 * taken at `locked` is walked inside that window and
		 * inflates every hold measured. The unlock's callchain,
		 * walked after its timestamp, names the subsystem instead
		 * (spans take it from there).
		 */
		if (!strcmp(name, "cgroup:cgroup_rstat_locked"))
			attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		/*
		 * The kernel frames name the subsystem and who asked; a
		 * user stack walked (and copied) at every hit of a hot
		 * tracepoint would add to what these events time and say
		 * nothing more. Events asked for with -e keep both.
		 */
		else if (i < nr_auto)
			attr.exclude_callchain_user = 1;
		err = add_evsel(el, &attr, name);
		free(name);
		if (err)
			goto fail;
	}
	*tps = all;
	*nr_tps = total;
	return 0;
nomem:
	rs_error("record: out of memory");
	err = -ENOMEM;
fail:
	events__free_names(names);
	for (i = 0; all && i < total; i++)
		free(all[i]);
	free(all);
	return err ? err : -EINVAL;
}

static char *keep_string(struct record_strings *rs, const char *s)
{
	char *copy;

	if (rs->n == sizeof(rs->s) / sizeof(*rs->s))
		return NULL;
	copy = strdup(s);
	if (copy)
		rs->s[rs->n++] = copy;
	return copy;
}

static bool have_event(const struct evlist *el, const char *name)
{
	struct evsel *e;
	uint32_t i;

	evlist__for_each_evsel(el, i, e)
		if (!strcmp(evsel__name(e), name))
			return true;
	return false;
}

/*
 * GROUP:EVENT, or GROUP:EVENT_1, _2... when the recording has it already,
 * as perf probe names a second probe that would take a used name (an
 * entry and FUNC+OFF, or the points of a source line in several copies).
 */
static void unique_probe_name(const struct evlist *el, char *name,
			      size_t size, const char *group,
			      const char *event)
{
	unsigned int k;

	snprintf(name, size, "%s:%s", group, event);
	for (k = 1; have_event(el, name) && k < 1024; k++)
		snprintf(name, size, "%s:%s_%u", group, event, k);
}

/* Events a command's (or a process's) children inherit. */
static bool inherited(const struct record_params *p)
{
	return p->target == TARGET_PID || p->target == TARGET_CMD;
}

/*
 * An inherited probe goes through tracefs (events__dynprobe_create() says
 * why), in a group of this process's own, "rstat_analyze_PID", which no
 * other run uses and which the end of the run removes.
 */
static int add_dynprobe(const struct record_params *p,
			const struct probe_point *pt, bool kernel,
			const char *target, struct perf_event_attr *attr,
			struct record_strings *rs)
{
	char group[64], event[128], name[200];
	int err;

	if (rs->ndyn == ARRAY_SIZE(rs->dyn)) {
		rs_error("record: too many probes");
		return -E2BIG;
	}
	snprintf(group, sizeof(group), "rstat_analyze_%d", (int)getpid());
	/* Unique in the group: the same point may be asked for twice. */
	snprintf(event, sizeof(event), "%.100s_%u", pt->event, rs->ndyn);
	err = events__dynprobe_create(group, event, kernel, target,
				      pt->offset, pt->retprobe,
				      &rs->dyn[rs->ndyn], attr);
	if (err) {
		rs_error("record: cannot create the probe %s:%s in tracefs (%s_events): %s",
			 group, event, kernel ? "kprobe" : "uprobe",
			 strerror(-err));
		return err == -ENOENT ? -EIO : err;
	}
	rs->ndyn++;
	/* Its format goes into the TRACING_DATA, as a tracepoint's. */
	snprintf(name, sizeof(name), "%s:%s", group, event);
	rs->dyn_name[rs->ndyn - 1] = keep_string(rs, name);
	if (!rs->dyn_name[rs->ndyn - 1]) {
		rs_error("record: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int add_probe_points(struct evlist *el, const struct record_params *p,
			    struct probe_point *pts, size_t n,
			    const char *path, bool kernel,
			    struct record_strings *rs)
{
	struct perf_event_attr attr;
	char name[512];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		const char *target = kernel ? keep_string(rs, pts[i].func) :
				     path;

		if (!target) {
			rs_error("record: out of memory");
			return -ENOMEM;
		}
		unique_probe_name(el, name, sizeof(name), pts[i].group,
				  pts[i].event);
		if (inherited(p))
			err = add_dynprobe(p, &pts[i], kernel, target, &attr,
					   rs);
		else
			err = kernel ? events__kprobe_attr(target,
							   pts[i].offset,
							   pts[i].retprobe,
							   &attr) :
			      events__uprobe_attr(target, pts[i].offset,
						  pts[i].retprobe, &attr);
		if (err)
			return err;
		set_sampling(&attr, p);
		err = add_evsel(el, &attr, name);
		if (err)
			return err;
	}
	return 0;
}

static void no_kprobes(const char *spec)
{
	rs_error("record: --probe %s: this kernel has no kprobe PMU (CONFIG_KPROBE_EVENTS), so kernel probes cannot be placed; --uprobe works for user space; see rstat-analyze doctor",
		 spec);
}

/*
 * FUNC, FUNC%return and FUNC+OFF need no debuginfo: the kprobe PMU takes
 * a symbol and an offset. Lines need the DWARF of the running kernel.
 */
static int add_kernel_probe(struct evlist *el, const struct record_params *p,
			    const char *spec, struct record_strings *rs)
{
	struct perf_event_attr probe_attr;
	struct probe_point *pts = NULL;
	char errbuf[256] = "", *vmlinux;
	size_t n = 0;
	int err;

	/* Whether kprobes exist at all, before asking for debuginfo. */
	if (events__kprobe_attr("schedule", 0, false, &probe_attr) == -ENOENT) {
		no_kprobes(spec);
		return -ENOENT;
	}
	vmlinux = p->vmlinux ? strdup(p->vmlinux) : probe__find_vmlinux();
	if (!vmlinux && (strchr(spec, ':') || strchr(spec, '@'))) {
		rs_error("record: --probe %s: a source line needs the kernel's debuginfo: none found (install linux-image-$(uname -r)-dbg or give --vmlinux; see rstat-analyze doctor)",
			 spec);
		return -ENOENT;
	}
	if (vmlinux && !strchr(spec, '=')) {
		err = probe__resolve(vmlinux, true, spec, &pts, &n, errbuf,
				     sizeof(errbuf));
		if (err) {
			rs_error("record: --probe %s: %s", spec,
				 *errbuf ? errbuf : strerror(-err));
			free(vmlinux);
			return err;
		}
	} else {
		/* Without DWARF: FUNC[%return] or FUNC+OFF, named as perf
		 * (perf probe names FUNC+OFF plain FUNC too), or EVENT=...
		 * as perf probe takes it (record --kernel's line probes). */
		struct probe_point pt = { 0 };
		char func[256], *ev;
		unsigned long long off = 0;
		const char *eq = strchr(spec, '=');
		const char *fs = eq ? eq + 1 : spec;
		const char *plus = strchr(fs, '+');
		const char *pct = strchr(fs, '%');
		size_t len = plus ? (size_t)(plus - fs) :
			     pct ? (size_t)(pct - fs) : strlen(fs);

		if (!len || len >= sizeof(func) || eq == spec ||
		    (pct && strcmp(pct, "%return")) ||
		    (plus && sscanf(plus + 1, "%lli", &off) != 1)) {
			rs_error("record: --probe %s: give FUNC, FUNC%%return, FUNC+OFF, FUNC:RLN or SRC:ALN",
				 spec);
			return -EINVAL;
		}
		memcpy(func, fs, len);
		func[len] = '\0';
		ev = eq ? strndup(spec, eq - spec) :
		     probe__event_name(func, pct ? "__return" : "");
		if (!ev) {
			rs_error("record: out of memory");
			return -ENOMEM;
		}
		pt.func = func;
		pt.event = ev;
		pt.group = "probe";
		pt.offset = off;
		pt.retprobe = pct != NULL;
		err = add_probe_points(el, p, &pt, 1, NULL, true, rs);
		free(ev);
		return err;
	}
	err = add_probe_points(el, p, pts, n, NULL, true, rs);
	if (err == -ENOENT)
		no_kprobes(spec);
	probe__free_points(pts, n);
	free(vmlinux);
	return err;
}

static int add_user_probe(struct evlist *el, const struct record_params *p,
			  const char *arg, struct record_strings *rs)
{
	const char *colon = strchr(arg, ':');
	struct probe_point *pts = NULL;
	char errbuf[256] = "", *bin, *path;
	size_t n = 0;
	int err;

	if (!colon || colon == arg || !colon[1]) {
		rs_error("record: --uprobe %s: give BINARY:SPEC (e.g. ./loop:loop_body:5)",
			 arg);
		return -EINVAL;
	}
	bin = strndup(arg, colon - arg);
	if (!bin) {
		rs_error("record: out of memory");
		return -ENOMEM;
	}
	/* The kernel resolves the path itself: make it absolute. */
	path = realpath(bin, NULL);
	if (!path) {
		rs_error("record: --uprobe %s: %s: %s", arg, bin,
			 strerror(errno));
		free(bin);
		return -ENOENT;
	}
	free(bin);
	err = probe__resolve(path, false, colon + 1, &pts, &n, errbuf,
			     sizeof(errbuf));
	if (err) {
		rs_error("record: --uprobe %s: %s", arg,
			 *errbuf ? errbuf : strerror(-err));
		free(path);
		return err;
	}
	if (!keep_string(rs, path)) {
		rs_error("record: out of memory");
		err = -ENOMEM;
	} else {
		err = add_probe_points(el, p, pts, n, rs->s[rs->n - 1], false,
				       rs);
		if (err == -ENOENT)
			rs_error("record: --uprobe %s: this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS); see rstat-analyze doctor",
				 arg);
	}
	probe__free_points(pts, n);
	free(path);
	return err;
}

/* --- the command to run ------------------------------------------------- */

struct child {
	pid_t pid;
	int go_fd;		/* write end: release the child to exec */
	int err_fd;		/* read end: errno of a failed exec */
};

static bool in_path(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *q;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = q + 1) {
		q = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(q - p), p, cmd);
		if (q > p && access(buf, X_OK) == 0)
			return true;
		if (!*q)
			return false;
	}
}

/*
 * Fork CMD stopped before exec: the events are opened on its pid with
 * enable_on_exec, then it is released. It dies with the recorder.
 */
static int child_start(struct child *c, char **argv)
{
	pid_t parent = getpid();
	int go[2], errp[2];
	char x;

	if (!in_path(argv[0])) {
		rs_error("record: %s: command not found (or not executable)",
			 argv[0]);
		return -ENOENT;
	}
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		close(errp[0]);
		close(errp[1]);
		return err;
	}
	if (c->pid == 0) {
		sigset_t none;
		int e, sig;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The recorder died before PDEATHSIG was set (it may be 1). */
		if (getppid() != parent)
			_exit(127);
		close(go[1]);
		close(errp[0]);
		/*
		 * The command gets the signal dispositions it would get from
		 * a shell: main() ignores SIGPIPE, and ignored signals stay
		 * ignored across exec.
		 */
		for (sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (read(go[0], &x, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	c->go_fd = go[1];
	c->err_fd = errp[0];
	return 0;
}

/* Let it exec; 0, or the -errno of a failed exec. */
static int child_go(struct child *c, char **argv)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "x", 1) != 1) {
		rs_error("record: %s: the command's process died before its exec",
			 argv[0]);
		return -EPIPE;
	}
	close(c->go_fd);
	c->go_fd = -1;
	do {
		n = read(c->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		rs_error("record: %s: %s", argv[0], strerror(e));
		return -e;
	}
	return 0;
}

/*
 * Signal every descendant of the recorder: the command, and whatever it
 * started (the recorder is their subreaper, so even orphans of the
 * command are among them). Returns how many were signalled.
 */
static int signal_descendants(int sig)
{
	pid_t queue[4096];
	unsigned int head = 0, tail = 0;
	char path[64];
	int n = 0;

	queue[tail++] = getpid();
	while (head < tail) {
		pid_t pid = queue[head++];
		struct dirent *de;
		DIR *tasks;

		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		while (tasks && (de = readdir(tasks))) {
			FILE *f;
			int child;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
				 pid, de->d_name);
			f = fopen(path, "re");
			while (f && fscanf(f, "%d", &child) == 1 &&
			       tail < sizeof(queue) / sizeof(*queue))
				queue[tail++] = child;
			if (f)
				fclose(f);
		}
		if (tasks)
			closedir(tasks);
		if (pid != getpid() && !kill(pid, sig))
			n++;
	}
	return n;
}

/* Reap every exited child without blocking; true when none is left. */
static bool reap_children(struct child *c)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == c->pid)
			c->pid = 0;
	return pid < 0 && errno == ECHILD;
}

/*
 * Stop the command and everything it started, whatever state they are
 * in: SIGTERM, half a second to exit, then SIGKILL; reap them all.
 */
static void child_stop(struct child *c)
{
	int i;

	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	if (reap_children(c))
		return;
	signal_descendants(SIGTERM);
	for (i = 0; i < 50 && !reap_children(c); i++)
		usleep(10000);
	for (i = 0; i < 100 && !reap_children(c); i++) {
		signal_descendants(SIGKILL);
		usleep(10000);
	}
	c->pid = 0;
}

/* --- recording ---------------------------------------------------------- */

struct record_ctx {
	struct perf_writer *writer;
	int err;
};

static int write_chunk(void *arg, const void *buf, size_t len)
{
	struct record_ctx *ctx = arg;

	ctx->err = perf_writer__write(ctx->writer, buf, len);
	return ctx->err;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(const struct record_params *p, struct evlist *el,
		     struct perf_writer *w, double elapsed, bool last)
{
	struct evlist_stats st;

	evlist__stats(el, &st);
	fprintf(stderr, "\rrecording: %.0f s, %" PRIu64 " samples, %" PRIu64
		" lost, %.1f MB%s", elapsed, st.samples,
		st.lost + st.lost_samples,
		perf_writer__data_size(w) / 1e6, last ? "\n" : "   ");
}

static int open_target(const struct record_params *p,
		       struct evlist_target *t, pid_t child)
{
	static const char *const mounts[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
		"/sys/fs/cgroup/perf_event",
	};
	char path[PATH_MAX];
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->cgroup_fd = -1;
	switch (p->target) {
	case TARGET_ALL:
		t->kind = EVLIST_TARGET_CPUS;
		return 0;
	case TARGET_PID:
		t->kind = EVLIST_TARGET_PID;
		t->pid = p->pid;
		if (kill(p->pid, 0) && errno == ESRCH) {
			rs_error("record: -p %d: no such process", p->pid);
			return -ESRCH;
		}
		return 0;
	case TARGET_CMD:
		t->kind = EVLIST_TARGET_PID;
		t->pid = child;
		return 0;
	case TARGET_CGROUP:
		t->kind = EVLIST_TARGET_CGROUP;
		if (p->cgroup[0] == '/') {
			t->cgroup_fd = open(p->cgroup,
					    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			for (i = 0; i < sizeof(mounts) / sizeof(*mounts) &&
			     t->cgroup_fd < 0; i++) {
				snprintf(path, sizeof(path), "%s/%s",
					 mounts[i], p->cgroup);
				t->cgroup_fd = open(path, O_RDONLY |
						    O_DIRECTORY | O_CLOEXEC);
			}
		}
		if (t->cgroup_fd < 0) {
			rs_error("record: --cgroup %s: %s; give the cgroup's directory (v2, or v1 perf_event)",
				 p->cgroup, strerror(errno));
			return -ENOENT;
		}
		return 0;
	}
	return -EINVAL;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_signal;
	/* No SA_RESTART: poll() must return at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int record_loop(const struct record_params *p, struct evlist *el,
		       struct perf_writer *w, struct child *child)
{
	struct record_ctx ctx = { .writer = w };
	bool tty = !p->quiet && isatty(STDERR_FILENO);
	double start = now_s(), last_progress = start, t;
	bool hup = false, done = false;
	int ret, status;

	while (!done) {
		ret = evlist__poll(el, POLL_MS, &hup);
		if (ret < 0 && ret != -EINTR) {
			rs_error("record: poll: %s", strerror(-ret));
			return ret;
		}
		if (evlist__drain(el, write_chunk, &ctx) ||
		    perf_writer__finished_round(w))
			goto write_error;
		t = now_s();
		if (record_stop || hup ||
		    (p->duration && t - start >= p->duration))
			done = true;
		if (child->pid > 0 &&
		    waitpid(child->pid, &status, WNOHANG) == child->pid) {
			child->pid = 0;
			done = true;
		}
		if (tty && (t - last_progress >= 1 || done)) {
			progress(p, el, w, t - start, false);
			last_progress = t;
		}
	}
	evlist__disable(el);
	if (evlist__drain(el, write_chunk, &ctx) ||
	    perf_writer__finished_round(w))
		goto write_error;
	if (tty)
		progress(p, el, w, now_s() - start, true);
	return 0;
write_error:
	if (ctx.err || *perf_writer__strerror(w))
		rs_error("record: %s: %s", p->output, ctx.err ?
			 strerror(-ctx.err) : perf_writer__strerror(w));
	else
		rs_error("record: reading the ring buffers: %s",
			 *evlist__strerror(el) ? evlist__strerror(el) :
			 "corrupt ring (head ran past tail)");
	return ctx.err ? ctx.err : -EIO;
}

/*
 * Load the BPF programs that time lock holds, waits and flushes in the
 * kernel. 0 with *bsp set; 0 with *bsp NULL when --spans auto falls back
 * to perf (why in notes->no_bpf); -1 when --spans bpf cannot be had.
 */
static int open_bpf_spans(const struct record_params *p,
			  struct bpf_spans **bsp, struct record_notes *notes)
{
	struct bpf_spans_opts o = { .nr_tgids = 0 };
	struct bpf_spans *bs;
	char errbuf[256] = "";
	pid_t pid = p->pid;
	int err;

	*bsp = NULL;
	if (p->spans == SPANS_PERF)
		return 0;
	/*
	 * Not root: BPF would be refused after tracefs was probed (whose
	 * library leaks on every refusal), so say it up front.
	 */
	if (geteuid()) {
		if (p->spans == SPANS_BPF) {
			rs_error("record: --spans bpf: loading BPF programs needs root; use --spans perf");
			return -1;
		}
		snprintf(notes->no_bpf, sizeof(notes->no_bpf),
			 "loading BPF programs needs root");
		return 0;
	}
	if (p->target == TARGET_PID) {
		o.tgids = &pid;
		o.nr_tgids = 1;
	}
	bs = bpf_spans__new(&o);
	if (!bs) {
		rs_error("record: out of memory");
		return -1;
	}
	err = bpf_spans__open(bs, errbuf, sizeof(errbuf));
	if (err) {
		bpf_spans__delete(bs);
		if (p->spans == SPANS_BPF) {
			rs_error("record: --spans bpf: %s; use --spans perf (holds then include the recorder's cost)",
				 errbuf);
			return -1;
		}
		snprintf(notes->no_bpf, sizeof(notes->no_bpf), "%s", errbuf);
		return 0;
	}
	notes->bpf_kprobes = strcmp(bpf_spans__method(bs), "rstat tracepoints");
	*bsp = bs;
	return 0;
}

/* Whose spans the BPF programs time, as the report says it. */
static const char *bpf_scope(const struct record_params *p, char *buf,
			     size_t len)
{
	if (p->target == TARGET_PID) {
		snprintf(buf, len, "process %d", (int)p->pid);
		return buf;
	}
	return "every task";
}

/* The spans BPF timed, into the recording's own feature section. */
static int store_bpf_spans(const struct record_params *p,
			   struct bpf_spans *bs, struct perf_writer *w)
{
	struct kernel_spans *ks;
	char errbuf[256] = "", scope[64];
	char *text = NULL;
	int err;

	/* The recording has ended: so has the timing, for a whole read. */
	bpf_spans__detach(bs);
	err = bpf_spans__read(bs, errbuf, sizeof(errbuf));
	if (err) {
		rs_error("record: reading the spans timed in the kernel: %s",
			 *errbuf ? errbuf : strerror(-err));
		return err;
	}
	ks = kernel_spans__from_bpf(bs, bpf_scope(p, scope, sizeof(scope)));
	err = ks ? kernel_spans__format(ks, &text) : -ENOMEM;
	if (!err)
		err = perf_writer__set_rstat_spans(w, text);
	free(text);
	kernel_spans__delete(ks);
	if (err)
		rs_error("record: out of memory");
	return err;
}

static void say_notes(const struct record_notes *n)
{
	if (n->no_cycles)
		rs_note("this machine's PMU has no cycles event: sampling cpu-clock instead (IRQ-off time skids to the IRQ re-enable point; see rstat-analyze doctor)");
	if (n->tracefs_denied)
		rs_note("tracefs is not readable by this user: recording samples only, without the rstat tracepoints (run as root to record them)");
	if (n->no_tracepoints && n->bpf_kprobes)
		rs_note("this kernel has no rstat tracepoints (cgroup:cgroup_rstat_* came in v6.10): flushes are timed in the kernel by BPF on kprobes at " BPF_SPANS_FLUSH_FUNC "'s entry and return");
	else if (n->no_tracepoints && n->flush_kprobes)
		rs_note("this kernel has no rstat tracepoints (cgroup:cgroup_rstat_* came in v6.10): probing " FLUSH_FUNC " and its return instead; its spans: report --span probe:" FLUSH_FUNC ",probe:" FLUSH_FUNC "__return");
	else if (n->no_tracepoints)
		rs_note("this kernel has no rstat tracepoints (cgroup:cgroup_rstat_* came in v6.10): recording samples only");
	else if (*n->no_bpf && !n->tracefs_denied)
		rs_note("lock holds will be timed from perf's tracepoint records and include the recorder's cost (BPF: %s)",
			n->no_bpf);
}

/*
 * The events did not open. Refused to a user who is not root: say what
 * this user can record instead (user space only, of a command or a
 * process of theirs, which perf_event_paranoid 2 allows).
 */
static void open_error(const struct record_params *p, const struct evlist *el,
		       int err)
{
	const char *name = evsel__name(evlist__evsel(el, 0));
	const char *colon = strchr(name, ':');
	int len = colon ? (int)(colon - name) : (int)strlen(name);

	if ((err == -EACCES || err == -EPERM) && geteuid() &&
	    !(colon && strchr(colon, 'u') && !strchr(colon, 'k'))) {
		rs_error("record: %s; or record user space only, as this user: -e %.*s:u%s; see rstat-analyze doctor",
			 evlist__strerror(el), len, name,
			 p->target == TARGET_PID || p->target == TARGET_CMD ?
			 "" : " with -p PID or -- CMD");
		return;
	}
	rs_error("record: %s; see rstat-analyze doctor", evlist__strerror(el));
}

/*
 * Before v6.10 there are no rstat tracepoints: probe the flush function's
 * entry and return instead, where kprobes can be placed, unless the user
 * chose probes. Quietly nothing where they cannot: the note says so.
 */
static int add_flush_kprobes(struct evlist *el, const struct record_params *p,
			     struct record_notes *notes,
			     struct record_strings *rs)
{
	struct perf_event_attr attr;
	char *path;
	bool dyn_ok;
	int err;

	/*
	 * BPF times the flush function in the kernel already: a perf probe
	 * on it would write a record inside every span it times.
	 */
	if (!notes->no_tracepoints || p->nr_probes || notes->bpf_kprobes ||
	    events__kprobe_attr("schedule", 0, false, &attr) == -ENOENT ||
	    !kfeatures__has_function(FLUSH_FUNC))
		return 0;
	path = inherited(p) ? tracefs_get_tracing_file("kprobe_events") :
	       NULL;
	dyn_ok = !inherited(p) || (path && !access(path, W_OK));
	tracefs_put_tracing_file(path);
	if (!dyn_ok)
		return 0;
	err = add_kernel_probe(el, p, FLUSH_FUNC, rs);
	if (!err)
		err = add_kernel_probe(el, p, FLUSH_FUNC "%return", rs);
	if (!err)
		notes->flush_kprobes = true;
	return err;
}

/*
 * Probes made in tracefs outlive a recorder killed with SIGKILL, unlike
 * perf events, which go with its file descriptors. A guardian removes
 * them then: a grandchild (reparented away from us before the command's
 * subreaper is set, so that stopping the command's descendants does not
 * stop it) that waits for EOF on a pipe whose write end only we hold,
 * which comes when we exit, however we exit. After a normal end we have
 * removed them already and it finds nothing to do.
 */
static int start_probe_guardian(struct record_strings *rs)
{
	int fds[2], status;
	unsigned int k, tries;
	pid_t pid;
	char c;

	if (!rs->ndyn)
		return 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		/* The grandchild: nothing of ours but the pipe. */
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(fds[1]);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		/* Busy while the dying recorder's events close: retry. */
		for (k = 0; k < rs->ndyn; k++)
			for (tries = 0; tries < 200; tries++) {
				if (!tracefs_dynevent_destroy(rs->dyn[k],
							      true) ||
				    errno == ENOENT)
					break;
				usleep(10000);
			}
		_exit(0);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rs->guardian_fd = fds[1];
	return 0;
}

/*
 * bench --record starts us and must not start its workload before our
 * events are enabled: under TCG, writing the header, the tracing data and
 * the threads of a fresh VM takes longer than any fixed wait. It passes
 * the write end of a pipe in RS_RECORD_READY_FD; one byte on it says the
 * events are on (EOF without it: we failed).
 */
static void tell_ready(void)
{
	const char *s = getenv("RS_RECORD_READY_FD");
	char *end;
	long fd;

	if (!s)
		return;
	fd = strtol(s, &end, 10);
	unsetenv("RS_RECORD_READY_FD");
	if (*end || fd < 3 || fd > 1 << 20)
		return;
	/* A failed write reads as EOF in bench, which says so. */
	if (write(fd, "1", 1) != 1)
		fd = -fd;
	close(fd < 0 ? -fd : fd);
}

static int record_run(const struct record_params *p, int argc, char **argv)
{
	struct record_strings rs = { .n = 0, .ndyn = 0, .guardian_fd = -1 };
	struct record_notes notes = { .no_cycles = false };
	struct stat sb;
	struct child child = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	struct evlist_target target = { .cgroup_fd = -1 };
	struct perf_writer *w = NULL;
	struct bpf_spans *bs = NULL;
	struct evlist_stats st;
	struct evlist *el;
	char **tps = NULL;
	size_t nr_tps = 0, i;
	unsigned int k;
	bool created = false, unnamed = false;
	int status = RS_EXIT_FAIL, err, rotated, fd, out_fd = -1;
	struct rlimit nofile;

	/*
	 * One fd per event and CPU (and thread, with -p): on a big machine
	 * that passes the usual soft limit of 1024. Use the hard limit.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &nofile) &&
	    nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	el = evlist__new();
	if (!el) {
		rs_error("record: out of memory");
		return RS_EXIT_FAIL;
	}
	if (open_bpf_spans(p, &bs, &notes) ||
	    add_sampling_events(el, p, &notes) ||
	    add_tracepoints(el, p, bs != NULL, &tps, &nr_tps, &notes))
		goto out;
	for (k = 0; k < p->nr_probes; k++)
		if (add_kernel_probe(el, p, p->probes[k], &rs))
			goto out;
	for (k = 0; k < p->nr_uprobes; k++)
		if (add_user_probe(el, p, p->uprobes[k], &rs))
			goto out;
	if (add_flush_kprobes(el, p, &notes, &rs))
		goto out;
	set_side_band(el);
	if (rs.ndyn) {
		char **all = realloc(tps, (nr_tps + rs.ndyn) * sizeof(*all));

		if (!all) {
			rs_error("record: out of memory");
			goto out;
		}
		tps = all;
		for (k = 0; k < rs.ndyn; k++) {
			tps[nr_tps] = strdup(rs.dyn_name[k]);
			if (!tps[nr_tps]) {
				rs_error("record: out of memory");
				goto out;
			}
			nr_tps++;
		}
	}

	err = start_probe_guardian(&rs);
	if (err) {
		rs_error("record: cannot start the process that removes the probes after a crash: %s",
			 strerror(-err));
		goto out;
	}
	install_signals();
	if (p->cmd) {
		/* Orphans of the command come to us, to be stopped at the end. */
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		err = child_start(&child, p->cmd);
		if (err) {
			if (err != -ENOENT)
				rs_error("record: cannot start %s: %s",
					 p->cmd[0], strerror(-err));
			goto out;
		}
	}
	if (open_target(p, &target, child.pid))
		goto out;
	/* The wakeup watermark depends on the ring size: set it first. */
	err = evlist__set_mmap_pages(el, p->mmap_pages);
	if (!err)
		err = evlist__open(el, &target);
	if (err) {
		open_error(p, el, err);
		goto out;
	}
	err = evlist__mmap(el, 0);
	if (err) {
		rs_error("record: cannot map the ring buffers: %s",
			 *evlist__strerror(el) ? evlist__strerror(el) :
			 strerror(-err));
		goto out;
	}
	if (!p->quiet)
		say_notes(&notes);

	/*
	 * Never through a link another user planted (record runs as root and
	 * may be told to write into /tmp): see outfile.h.
	 */
	rotated = outfile__rotate(p->output);
	/*
	 * The file gets its name once everything is live (below): a bench
	 * (or a script) that starts its workload when the output appears
	 * misses nothing of it. Where the file system cannot make a file
	 * without a name, it is named now.
	 */
	out_fd = rotated < 0 ? rotated :
		 outfile__create_unnamed(p->output, 0600);
	unnamed = out_fd >= 0;
	if (out_fd == -EOPNOTSUPP)
		out_fd = outfile__create(p->output, 0600);
	/* out_fd stays open to tell our file from one put in its place. */
	fd = out_fd < 0 ? out_fd : dup(out_fd);
	err = fd < 0 ? (out_fd < 0 ? out_fd : -errno) :
	      perf_writer__open_fd(&w, fd);
	if (err && out_fd >= 0 && !unnamed)
		outfile__remove_created(p->output, out_fd);
	/* Put the old recording back where it was. */
	if (err && rotated > 0)
		outfile__unrotate(p->output);
	if (err) {
		rs_error("%s: cannot create: %s", p->output,
			 outfile__strerror(err));
		goto out;
	}
	created = !unnamed;
	for (i = 0; i < evlist__nr(el); i++) {
		struct evsel *e = evlist__evsel(el, i);
		uint32_t nr_ids;
		const uint64_t *ids = evsel__ids(e, &nr_ids);

		err = perf_writer__add_event(w, evsel__attr(e), evsel__name(e),
					     ids, nr_ids);
		if (err)
			goto write_error;
	}
	/* The whole command line: argv is main()'s past "rstat-analyze". */
	err = perf_writer__set_cmdline(w, argc + 1, argv - 1);
	/*
	 * A user who cannot read tracefs has no tracepoints to describe and
	 * no kernel addresses (kptr_restrict): no TRACING_DATA, and tracefs
	 * is not touched (libtracefs leaks a string per failed lookup).
	 */
	if (!err)
		err = perf_writer__set_tracing(w, (const char *const *)tps,
					       nr_tps, !notes.tracefs_denied);
	if (!err)
		err = synthesize__kernel_mmap(w);
	if (!err)
		err = synthesize__threads(w, p->target == TARGET_PID ? p->pid :
					  p->target == TARGET_CMD ? child.pid :
					  -1);
	if (err)
		goto write_error;

	/* A command alone enables the events at its exec. */
	if (bs) {
		char errbuf[256] = "";

		err = bpf_spans__attach(bs, errbuf, sizeof(errbuf));
		if (err) {
			rs_error("record: timing spans in the kernel: %s; use --spans perf",
				 errbuf);
			goto out;
		}
	}
	if (p->target != TARGET_CMD) {
		err = evlist__enable(el);
		if (err) {
			rs_error("record: cannot enable the events: %s",
				 strerror(-err));
			goto out;
		}
	}

	if (unnamed) {
		err = outfile__publish(p->output, out_fd);
		if (err) {
			rs_error("%s: cannot create: %s", p->output,
				 outfile__strerror(err));
			goto out;
		}
		created = true;
	}
	tell_ready();
	if (p->cmd && child_go(&child, p->cmd))
		goto out;
	if (record_loop(p, el, w, &child))
		goto out;
	if (bs && store_bpf_spans(p, bs, w))
		goto out;
	err = perf_writer__finish(w);
	if (err)
		goto write_error;
	evlist__stats(el, &st);
	if (st.lost || st.lost_samples)
		rs_note("%" PRIu64 " events and %" PRIu64 " samples were lost (rings full): drain faster with a larger -m, or lower -F",
			st.lost, st.lost_samples);
	/* The file's size: features and side band count too. */
	if (!p->quiet)
		fprintf(stderr, "rstat-analyze: recorded %" PRIu64
			" samples in %s (%.1f MB)\n", st.samples, p->output,
			(stat(p->output, &sb) ? perf_writer__data_size(w) :
			 (uint64_t)sb.st_size) / 1e6);
	status = RS_EXIT_OK;
	goto out;
write_error:
	rs_error("%s: %s", p->output, *perf_writer__strerror(w) ?
		 perf_writer__strerror(w) : strerror(-err));
out:
	child_stop(&child);
	bpf_spans__delete(bs);
	evlist__delete(el);
	if (target.cgroup_fd >= 0 && p->target == TARGET_CGROUP)
		close(target.cgroup_fd);
	perf_writer__delete(w);
	/* A file cut short by an error would mislead: remove it. */
	if (created && status != RS_EXIT_OK)
		outfile__remove_created(p->output, out_fd);
	if (out_fd >= 0)
		close(out_fd);
	for (i = 0; i < nr_tps; i++)
		free(tps[i]);
	free(tps);
	for (k = 0; k < rs.n; k++)
		free(rs.s[k]);
	for (k = 0; k < rs.ndyn; k++)
		events__dynprobe_remove(rs.dyn[k]);
	/* The guardian sees EOF and finds them gone. */
	if (rs.guardian_fd >= 0)
		close(rs.guardian_fd);
	return status;
}

/* --- in a VM ------------------------------------------------------------- */

/* A program the guest needs, packed at its absolute host path. */
static int vm_program(const char *name, char *out, size_t len)
{
	char found[PATH_MAX];
	int err = vm_find_program(name, found, sizeof(found));

	if (err) {
		rs_error("record: --kernel: %s: %s", name,
			 err == -ENOENT ? "not found on PATH" : strerror(-err));
		return err;
	}
	if (found[0] != '/') {
		if (!realpath(found, out))
			return -errno;
		return 0;
	}
	snprintf(out, len, "%s", found);
	return 0;
}

static int record_in_vm(const struct record_params *p, int argc, char **argv)
{
	char paths[MAX_EVENT_ARGS + 1][PATH_MAX];
	char uprobes[MAX_EVENT_ARGS][PATH_MAX + 256];
	const char *programs[MAX_EVENT_ARGS + 2];
	struct vm_result *res = NULL;
	struct vm_opts vm = p->vm;
	struct outfile *out;
	char **gargv = NULL, **full = NULL, **lines = NULL;
	char build_id[130], errbuf[512] = "";
	const void *data;
	size_t np = 0, len;
	unsigned int k;
	int gargc, i, n = 0, status = RS_EXIT_FAIL, err;

	if (p->cmd) {
		if (vm_program(p->cmd[0], paths[np], PATH_MAX))
			return RS_EXIT_FAIL;
		programs[np] = paths[np];
		np++;
	}
	gargv = vm_guest_argv(argc, argv, p->nopts, record_options, "o",
			      &gargc);
	full = calloc(gargc + 3, sizeof(*full));
	if (!gargv || !full) {
		rs_error("record: out of memory");
		goto out;
	}
	/* The recording goes to the guest's /out, which comes back. */
	full[n++] = gargv[0];
	full[n++] = "-o";
	full[n++] = "/out/rstat.data";
	for (i = 1; i < gargc; i++) {
		const char *w = gargv[i];

		/* BINARY:SPEC of --uprobe: the binary packed, by its path. */
		for (k = 0; k < p->nr_uprobes; k++) {
			const char *colon = strchr(p->uprobes[k], ':');
			char bin[PATH_MAX];

			if (w != p->uprobes[k] || !colon ||
			    (size_t)(colon - w) >= sizeof(bin))
				continue;
			snprintf(bin, sizeof(bin), "%.*s", (int)(colon - w), w);
			if (!realpath(bin, paths[np])) {
				rs_error("record: --uprobe %s: %s: %s", w, bin,
					 strerror(errno));
				goto out;
			}
			programs[np] = paths[np];
			snprintf(uprobes[k], sizeof(uprobes[k]), "%s%s",
				 paths[np], colon);
			np++;
			w = uprobes[k];
		}
		/* CMD by the path it was found at, as the guest has it. */
		if (p->cmd && w == p->cmd[0])
			w = paths[0];
		full[n++] = (char *)w;
	}
	full[n] = NULL;
	programs[np] = NULL;
	/* --probe lines resolve here, from the guest kernel's vmlinux. */
	if (vm_probe__record_argv(p->vm.kernels[0], p->vmlinux, p->probes,
				  p->nr_probes, n, full, &lines, &n, build_id,
				  sizeof(build_id), errbuf, sizeof(errbuf))) {
		rs_error("record: --kernel %s: %s", p->vm.kernels[0], errbuf);
		goto out;
	}
	if (lines)
		vm.params.build_id = build_id;
	status = vm_cmd__run("record", &vm, p->vm.kernels[0], n,
			     lines ? lines : full, programs, NULL, &res);
	if (status)
		goto out;
	status = vm_cmd__print_output(res);
	data = vm_result__file(res, "out/rstat.data", &len);
	if (!data)
		goto out;	/* the guest's record said why */
	err = outfile__rotate(p->output);
	if (err >= 0)
		err = outfile__open(&out, p->output);
	if (err < 0) {
		rs_error("%s: cannot write: %s", p->output,
			 outfile__strerror(err));
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (fwrite(data, 1, len, outfile__stream(out)) != len) {
		outfile__abort(out);
		rs_error("%s: cannot write", p->output);
		status = RS_EXIT_FAIL;
		goto out;
	}
	err = outfile__commit(out);
	if (err) {
		rs_error("%s: %s", p->output, strerror(-err));
		status = RS_EXIT_FAIL;
	}
out:
	vm_result__delete(res);
	vm_probe__free_argv(full, lines, n);
	free(full);
	free(gargv);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct record_params params;
	int ret;

	ret = record_parse_args(argc, argv, &params);
	if (ret < 0)
		return rs_finish_stdout(RS_EXIT_OK);
	if (ret)
		return ret;
	if (params.vm.nkernels)
		return rs_finish_stdout(record_in_vm(&params, argc, argv));
	return record_run(&params, argc, argv);
}
