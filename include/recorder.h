/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder: samples with callchains, every rstat tracepoint this
 * kernel has, probe points and the spans BPF times in the kernel, written
 * to a perf.data that perf itself reads. `record` is its command; `bench
 * --record` runs one in its own process around the recorded pass.
 *
 *	recorder__new()		the options, nothing touched yet
 *	recorder__open()	events set up, opened and mapped (a kernel
 *				that lacks something fails here, before
 *				any file is made); the notes are known
 *	recorder__start()	the output made, the events enabled, a
 *				command released to exec: from here on
 *				nothing of the target is missed
 *	recorder__drain()	the rings into the file, once per call
 *	recorder__stop()	disable, last drain, BPF spans, finish
 *	recorder__delete()	stop a command, remove probes; an output
 *				that was not finished is removed and an
 *				earlier one it moved to .old put back
 *
 * Nothing is printed: an error's one line is recorder__strerror(), what
 * the recording had to do without is recorder__notes().
 *
 * With a command (opts.cmd), the process becomes a child subreaper for
 * good, and recorder__delete() stops and reaps every descendant of the
 * process, not only the command's: a caller with children of its own
 * (bench's workloads) records without a command.
 */
#ifndef RS_RECORDER_H
#define RS_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define RECORDER_MAX_ARGS 64

enum recorder_target {
	RECORDER_ALL,		/* every CPU, every task */
	RECORDER_PID,		/* a running process and its threads */
	RECORDER_CGROUP,	/* the tasks of a cgroup */
	RECORDER_CMD,		/* a command, from its exec */
};

/* How lock holds, waits and flushes are timed. */
enum recorder_spans {
	RECORDER_SPANS_AUTO,	/* in the kernel where BPF works, else perf */
	RECORDER_SPANS_BPF,	/* in the kernel (BPF), or fail */
	RECORDER_SPANS_PERF,	/* from perf's tracepoint records */
};

/* Borrowed: every pointer must outlive the recorder. */
struct recorder_opts {
	const char *output;
	/* With output_at, output is a name in the directory output_dirfd. */
	bool output_at;
	int output_dirfd;
	const char *output_shown;	/* for messages; NULL: output */
	enum recorder_target target;
	pid_t pid;
	const char *cgroup;
	/*
	 * argv of a command. Alone (RECORDER_CMD) it is the target; with
	 * RECORDER_ALL or RECORDER_CGROUP it bounds the recording, as in
	 * perf: recorder__drain() says when it has ended.
	 */
	char **cmd;
	unsigned int freq;		/* Hz */
	const char *vmlinux;		/* NULL: looked for */
	unsigned int mmap_pages;	/* 0: the default */
	enum recorder_spans spans;
	/*
	 * Decompose the targets' reads (-p, -- CMD; --breakdown): opt-in,
	 * its syscall tracepoints slow every task's syscalls.
	 */
	bool breakdown;
	const char *const *events;	/* -e: tracepoints or a sampling event */
	unsigned int nr_events;
	const char *const *probes;	/* kernel probe specs */
	unsigned int nr_probes;
	const char *const *uprobes;	/* BINARY:SPEC */
	unsigned int nr_uprobes;
	/* The command line the header keeps (argv[0] included). */
	int cmdline_argc;
	char **cmdline_argv;
};

/* What the recording had to do without; known after recorder__open(). */
struct recorder_notes {
	bool no_cycles;		/* sampling cpu-clock instead */
	bool no_tracepoints;	/* this kernel has none */
	bool flush_kprobes;	/* ...so the flush function is probed */
	bool tracefs_denied;	/* tracefs not readable by this user */
	/* auto spans could not time in the kernel: why (BPF's reason) */
	char no_bpf[256];
	/* no rstat tracepoints: BPF times the flush function by kprobes */
	bool bpf_kprobes;
	/* the targets' reads are not decomposed: why ("" when they are) */
	char no_breakdown[256];
};

struct recorder_stats {
	uint64_t samples;
	uint64_t lost;		/* records lost (PERF_RECORD_LOST) */
	uint64_t lost_samples;
	uint64_t data_size;	/* bytes written to the data section */
	/*
	 * The recorded command's status as a shell gives it (its exit
	 * code, 128 + the signal that killed it), or -1: no command, or
	 * one the recording's end stopped.
	 */
	int cmd_status;
};

struct recorder;

/* NULL when out of memory. */
struct recorder *recorder__new(const struct recorder_opts *o);
void recorder__delete(struct recorder *r);

int recorder__open(struct recorder *r);
const struct recorder_notes *recorder__notes(const struct recorder *r);
int recorder__start(struct recorder *r);
/*
 * Wait up to timeout_ms for data, then write what the rings hold. *ended
 * is set when the target is gone: the command exited, or every event
 * hung up (the process recorded exited).
 */
int recorder__drain(struct recorder *r, int timeout_ms, bool *ended);
int recorder__stop(struct recorder *r);
/*
 * Have recorder__delete() remove the output even when finished, putting
 * back OUTPUT and OUTPUT.old as they were (bench interrupted after).
 */
void recorder__discard(struct recorder *r);
/* Whether recorder__start() moved an earlier output to OUTPUT.old. */
bool recorder__rotated(const struct recorder *r);
void recorder__stats(const struct recorder *r, struct recorder_stats *st);
/*
 * The targets' reads decomposed, one table per stat file (docs/
 * breakdown.md), after recorder__stop(); NULL when not timed.
 */
struct bench_breakdown;
const struct bench_breakdown *recorder__breakdown(const struct recorder *r);
/* The one line that says what failed, "" if nothing did. */
const char *recorder__strerror(const struct recorder *r);

#endif /* RS_RECORDER_H */
