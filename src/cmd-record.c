// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze record: sample the CPUs (or a process, a cgroup, a command)
 * with callchains, record every rstat tracepoint this kernel has and any
 * probe points asked for, and write a perf.data that perf itself reads.
 *
 * The recording itself is the recorder library (recorder.h, src/record/):
 * this file turns the options into its options, drains it until Ctrl-C,
 * SIGTERM, -d or the target's end, and prints its notes, progress line,
 * errors and summary. With --kernel the recording is made in a VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bpf-spans.h"
#include "breakdown-out.h"
#include "cmds.h"
#include "outfile.h"
#include "parse-options.h"
#include "recorder.h"
#include "util.h"
#include "vm.h"

#define DEFAULT_OUTPUT "rstat.data"
#define DEFAULT_FREQ 4999
/* How often the rings are drained when no wakeup comes, in ms. */
#define POLL_MS 100

struct record_params {
	struct vm_opts vm;	/* --kernel: record inside a VM */
	char **gargv;		/* --kernel: the guest's argv, no -o */
	int gargc;
	const char *output;
	enum recorder_target target;
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
	bool breakdown;
	enum recorder_spans spans;
	const char *events[RECORDER_MAX_ARGS];
	unsigned int nr_events;
	const char *probes[RECORDER_MAX_ARGS];
	unsigned int nr_probes;
	const char *uprobes[RECORDER_MAX_ARGS];
	unsigned int nr_uprobes;
};

static const char record_about[] =
	"Record what rstat flushes cost: samples with kernel and user\n"
	"callchains (cycles, or cpu-clock where the PMU has no cycles),\n"
	"every rstat tracepoint this kernel has, and probe points, into\n"
	"a perf.data file that `perf script` and `rstat-analyze report`\n"
	"read. An existing output is renamed to FILE.old.\n";

static const char record_epilogue[] =
	"With --kernel the recording is made in a VM booted from IMAGE,\n"
	"with CMD (and --uprobe binaries) packed in with their libraries,\n"
	"and written here to -o FILE; the guest's symbols are inside it.\n"
	"--probe lines resolve here, from that kernel's vmlinux (--vmlinux,\n"
	"or IMAGE's directory's vmlinux), which the guest must be running.\n"
	"\n"
	"Ctrl-C or SIGTERM stops the recording cleanly.\n"
	"Exit status: 0 ok, 1 error (one line on stderr), 2 usage error;\n"
	"with -- CMD, the status of a CMD that failed (recording kept).\n"
	"See rstat-analyze-record(1) and `rstat-analyze doctor`.\n";

/* --spans' words, in the order of enum recorder_spans. */
static const char *const record_spans[] = {
	[RECORDER_SPANS_AUTO] = "auto",
	[RECORDER_SPANS_BPF] = "bpf",
	[RECORDER_SPANS_PERF] = "perf",
	NULL,
};

/* The one exclusivity group: what is recorded. */
enum { RECORD_TARGET = 1 };

/* Returns 0, RS_EXIT_USAGE or RS_EXIT_FAIL, or -1 when --help was printed. */
static int record_parse_args(int argc, char **argv, struct record_params *p)
{
	bool all = false;
	unsigned int pid = 0;
	int spans = RECORDER_SPANS_AUTO, i;
	const struct popt opts[] = {
		{ POPT_STRING('o', "output", &p->output, "FILE",
			      "output (default " DEFAULT_OUTPUT ")"),
		  /* The guest writes its own, which comes back here. */
		  .flags = POPT_HOST },
		{ POPT_FLAG('a', "all-cpus", &all,
			    "every CPU, every task (default)"),
		  .excl = RECORD_TARGET },
		{ POPT_UINT('p', "pid", &pid, "PID", 1, INT_MAX,
			    "a running process and its threads"),
		  .hint = "give a process id", .excl = RECORD_TARGET },
		{ POPT_STRING(0, "cgroup", &p->cgroup, "PATH",
			      "tasks of a cgroup (a path, or a name under\n"
			      "the v2 or perf_event mount)"),
		  .excl = RECORD_TARGET },
		POPT_OPERAND("-- CMD ARGS...",
			     "run CMD and record it (from its exec); with -a\n"
			     "or --cgroup, record those while CMD runs"),
		{ POPT_UINT('F', "freq", &p->freq, "HZ", 1, 1000000,
			    "sampling frequency (default 4999)"),
		  .hint = "give a frequency in Hz (1 to 1000000)" },
		{ POPT_LIST('e', "event", p->events, &p->nr_events, "EVENT",
			    "add a tracepoint (sys:name) or replace the\n"
			    "sampling event (cycles, cpu-clock, rNNN...)") },
		{ POPT_LIST(0, "probe", p->probes, &p->nr_probes, "SPEC",
			    "kernel probe: FUNC, FUNC%return, FUNC:RLN,\n"
			    "SRC:ALN, FUNC+OFF (lines need debuginfo)") },
		{ POPT_LIST(0, "uprobe", p->uprobes, &p->nr_uprobes,
			    "BINARY:SPEC", "the same in a user-space binary") },
		{ POPT_DOUBLE('d', "duration", &p->duration, "SECONDS", 0, 1e7,
			      "stop after SECONDS seconds"),
		  .hint = "give a duration in seconds", .flags = POPT_GT_MIN },
		{ POPT_STRING(0, "vmlinux", &p->vmlinux, "FILE",
			      "kernel image with debuginfo for --probe") },
		{ POPT_UINT('m', "mmap-pages", &p->mmap_pages, "PAGES", 1,
			    1 << 20,
			    "ring buffer data pages per CPU (power of 2)"),
		  .hint = "give a power of 2 number of pages",
		  .flags = POPT_POW2 },
		{ POPT_ENUM(0, "spans", &spans, "MODE", record_spans,
			    "how lock holds, waits and flushes are timed:\n"
			    "bpf: in the kernel (no record inside a\n"
			    "hold); perf: from tracepoint records (per\n"
			    "cgroup and CPU, but each hold includes the\n"
			    "recorder's cost); auto (default): bpf where\n"
			    "it loads, else perf") },
		{ POPT_FLAG(0, "breakdown", &p->breakdown,
			    "time the targets' stat-file reads part by\n"
			    "part (-p or -- CMD; not with -a or --cgroup):\n"
			    "its syscall tracepoints slow every task's\n"
			    "syscalls while it records (docs/breakdown.md)") },
		{ POPT_FLAG('q', "quiet", &p->quiet,
			    "no progress line, notes or summary") },
		POPT_HELP_ROW,
		VM_CMD_OPTIONS(&p->vm),
		POPT_END_ROW,
	};
	static const struct popt_excl excl_msg[] = {
		{ RECORD_TARGET,
		  "-a, -p and --cgroup are exclusive (-- CMD goes with -a or --cgroup: record while CMD runs)" },
		{ 0, NULL },
	};
	const struct popt_cmd cmd = {
		.name = "record",
		.opts = opts,
		/* The command's name ends ours: its options are its own. */
		.dashdash = POPT_STOP,
		.max_operands = -1,
		.synopsis_post = "[-- CMD ARGS...]",
		.excl_msg = excl_msg,
		.about = record_about,
		.epilogue = record_epilogue,
	};
	struct popt_args args;
	int ret;

	memset(p, 0, sizeof(*p));
	p->output = DEFAULT_OUTPUT;
	p->freq = DEFAULT_FREQ;
	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (ret)
		return ret;
	/* The operands are argv's last words: CMD and its arguments. */
	for (i = 1; args.nr && i < argc && argv[i] != args.operands[0]; i++)
		;
	free(args.operands);
	p->spans = spans;
	p->target_given = all || pid || p->cgroup;
	p->target = all ? RECORDER_ALL : pid ? RECORDER_PID :
		    p->cgroup ? RECORDER_CGROUP : RECORDER_ALL;
	p->pid = pid;
	if (p->vm.nkernels > 1) {
		rs_error("record: one --kernel at a time (bench takes several)");
		return RS_EXIT_USAGE;
	}
	if (p->vm.nkernels && p->target == RECORDER_PID) {
		rs_error("record: --kernel: -p names something on this machine, not in the VM");
		return RS_EXIT_USAGE;
	}
	if (args.nr) {
		if (p->target_given && p->target == RECORDER_PID) {
			rs_error("record: -p and -- CMD are exclusive: record a running process, or a command");
			return RS_EXIT_USAGE;
		}
		if (!p->target_given) {
			p->target = RECORDER_CMD;
			p->target_given = true;
		}
		p->cmd = argv + i;
	}
	if (!strcmp(p->output, "-")) {
		rs_error("record: -o -: only the file layout is written; give a file name");
		return RS_EXIT_USAGE;
	}
	if (!*p->output) {
		rs_error("record: -o needs a file name");
		return RS_EXIT_USAGE;
	}
	return vm_cmd__guest_argv(&cmd, &p->vm, argc, argv, &p->gargv,
				  &p->gargc);
}

/* --- recording ---------------------------------------------------------- */

static void progress(const struct recorder *r, double elapsed, bool last)
{
	struct recorder_stats st;

	recorder__stats(r, &st);
	fprintf(stderr, "\rrecording: %.0f s, %" PRIu64 " samples, %" PRIu64
		" lost, %.1f MB%s", elapsed, st.samples,
		st.lost + st.lost_samples, st.data_size / 1e6,
		last ? "\n" : "   ");
}

static void say_notes(const struct recorder_notes *n,
		      enum recorder_target target)
{
	if (n->no_cycles)
		rs_note("this machine's PMU has no cycles event: sampling cpu-clock instead (IRQ-off time skids to the IRQ re-enable point; see rstat-analyze doctor)");
	if (n->tracefs_denied)
		rs_note("tracefs is not readable by this user: recording samples only, without the rstat tracepoints (run as root to record them)");
	if (n->no_tracepoints && n->bpf_kprobes)
		rs_note("this kernel has no rstat tracepoints (cgroup:cgroup_rstat_* came in v6.10): flushes are timed in the kernel by BPF on kprobes at " BPF_SPANS_FLUSH_FUNC "'s entry and return");
	else if (n->no_tracepoints && n->flush_kprobes)
		rs_note("this kernel has no rstat tracepoints (cgroup:cgroup_rstat_* came in v6.10): probing " BPF_SPANS_FLUSH_FUNC " and its return instead; its spans: report --span probe:" BPF_SPANS_FLUSH_FUNC ",probe:" BPF_SPANS_FLUSH_FUNC "__return");
	else if (n->no_tracepoints)
		rs_note("this kernel has no rstat tracepoints (cgroup:cgroup_rstat_* came in v6.10): recording samples only");
	else if (*n->no_bpf && !n->tracefs_denied)
		rs_note("lock holds will be timed from perf's tracepoint records and include the recorder's cost (BPF: %s)",
			n->no_bpf);
	/* Set only when --breakdown asked for it. */
	if (*n->no_breakdown)
		rs_note("the targets' reads will not be decomposed: %s",
			n->no_breakdown);
}

/* Drain until stopped, the duration is up or the target is gone. */
static int record_loop(const struct record_params *p, struct recorder *r)
{
	bool tty = !p->quiet && isatty(STDERR_FILENO);
	double start = rs_now_s(), last_progress = start, t;
	bool ended = false, done = false;
	int err;

	while (!done) {
		err = recorder__drain(r, POLL_MS, &ended);
		if (err)
			return err;
		t = rs_now_s();
		if (rs_stop_signal() || ended ||
		    (p->duration && t - start >= p->duration))
			done = true;
		if (tty && (t - last_progress >= 1 || done)) {
			progress(r, t - start, false);
			last_progress = t;
		}
	}
	err = recorder__stop(r);
	if (!err && tty)
		progress(r, rs_now_s() - start, true);
	return err;
}

static void recorder_opts_from(const struct record_params *p, int argc,
			       char **argv, struct recorder_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->output = p->output;
	o->target = p->target;
	o->pid = p->pid;
	o->cgroup = p->cgroup;
	o->cmd = p->cmd;
	o->freq = p->freq;
	o->vmlinux = p->vmlinux;
	o->mmap_pages = p->mmap_pages;
	o->spans = p->spans;
	o->breakdown = p->breakdown;
	o->events = p->events;
	o->nr_events = p->nr_events;
	o->probes = p->probes;
	o->nr_probes = p->nr_probes;
	o->uprobes = p->uprobes;
	o->nr_uprobes = p->nr_uprobes;
	/* The whole command line: argv is main()'s past "rstat-analyze". */
	o->cmdline_argc = argc + 1;
	o->cmdline_argv = argv - 1;
}

static int record_run(const struct record_params *p, int argc, char **argv)
{
	struct recorder_opts o;
	struct recorder_stats st;
	struct recorder *r;
	struct stat sb;
	int err;

	recorder_opts_from(p, argc, argv, &o);
	r = recorder__new(&o);
	if (!r) {
		rs_error("record: out of memory");
		return RS_EXIT_FAIL;
	}
	rs_catch_stop_signals();
	err = recorder__open(r);
	if (!err && !p->quiet)
		say_notes(recorder__notes(r), p->target);
	if (!err)
		err = recorder__start(r);
	if (!err)
		err = record_loop(p, r);
	if (err) {
		rs_error("%s", recorder__strerror(r));
		recorder__delete(r);
		return RS_EXIT_FAIL;
	}
	recorder__stats(r, &st);
	if (st.lost || st.lost_samples)
		rs_note("%" PRIu64 " events and %" PRIu64 " samples were lost (rings full): drain faster with a larger -m, or lower -F",
			st.lost, st.lost_samples);
	/* The file's size: features and side band count too. */
	if (!p->quiet)
		fprintf(stderr, "rstat-analyze: recorded %" PRIu64
			" samples in %s (%.1f MB)\n", st.samples, p->output,
			(stat(p->output, &sb) ? st.data_size :
			 (uint64_t)sb.st_size) / 1e6);
	/* The targets' reads, as report prints them from the file. */
	if (!p->quiet && recorder__breakdown(r))
		bench_breakdown__print(recorder__breakdown(r), stderr);
	recorder__delete(r);
	/*
	 * As perf record: the recording is kept, and the status is the
	 * command's, so that `record -- CMD` can stand in for CMD in a
	 * script that checks it.
	 */
	if (st.cmd_status > 0) {
		rs_error("record: %s exited with status %d (the recording is kept)",
			 p->cmd[0], st.cmd_status);
		return st.cmd_status;
	}
	return RS_EXIT_OK;
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

/* Where the guest records; its /out comes back. */
#define GUEST_OUTPUT "/out/rstat.data"

static int record_in_vm(const struct record_params *p)
{
	char paths[RECORDER_MAX_ARGS + 1][PATH_MAX];
	char uprobes[RECORDER_MAX_ARGS][PATH_MAX + 256];
	const char *programs[RECORDER_MAX_ARGS + 2];
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
		if (vm_program(p->cmd[0], paths[np], PATH_MAX)) {
			free(p->gargv);
			return RS_EXIT_FAIL;
		}
		programs[np] = paths[np];
		np++;
	}
	gargv = p->gargv;
	gargc = p->gargc;
	full = calloc(gargc + 3, sizeof(*full));
	if (!gargv || !full) {
		rs_error("record: out of memory");
		goto out;
	}
	/* The recording goes to the guest's /out, which comes back. */
	full[n++] = gargv[0];
	full[n++] = "-o";
	full[n++] = GUEST_OUTPUT;
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
	status = vm_cmd__print_output_as(res, GUEST_OUTPUT, p->output);
	data = vm_result__file(res, "out/rstat.data", &len);
	if (!data)
		goto out;	/* the guest's record said why */
	err = outfile__open_at(&out, AT_FDCWD, p->output, NULL,
			       OUTFILE_ROTATE, 0600);
	if (err < 0) {
		rs_error("%s: cannot write: %s", p->output,
			 outfile__strerror(err));
		status = RS_EXIT_FAIL;
		goto out;
	}
	if (fwrite(data, 1, len, outfile__stream(out)) != len) {
		err = outfile__errno(out) ? outfile__errno(out) : -EIO;
		outfile__abort(out);
	} else {
		err = outfile__commit(out);
	}
	if (err) {
		rs_error("%s: cannot write: %s", p->output,
			 outfile__strerror(err));
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
		return rs_finish_stdout(record_in_vm(&params));
	return record_run(&params, argc, argv);
}
