/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a stat read's time goes, timed in the kernel (docs/breakdown.md).
 *
 * A BPF program (src/bpf/rstat-breakdown.bpf.c) follows the reader
 * processes named here through each read(2)/pread64(2) and splits its
 * time into disjoint parts:
 *   memory, io, bpf, base  each subsystem's per-css flush callback
 *                          (kprobes: mem_cgroup_css_rstat_flush,
 *                          blkcg_rstat_flush, bpf_rstat_flush,
 *                          cgroup_base_stat_flush);
 *   walk     in the core flush outside the callbacks (the tree walk;
 *            without kprobes: the time the rstat lock is held, the
 *            callbacks included);
 *   wait     waiting for the rstat lock;
 *   cpu-wait waiting for a per-CPU rstat lock inside the walk (v6.10 to
 *            v6.16, whose tracepoints say when it is contended);
 *   off-cpu  switched out inside the read (sched_switch);
 *   rest     the rest of the syscall (formatting, copying out).
 * Parts the kernel cannot time (no kprobes, a callback inlined or not
 * probeable, no lock tracepoints) are said with the reason
 * (breakdown__source()); their time stays in the enclosing part.
 *
 * Use: new -> open (load) -> add_reader -> attach -> poll while the
 * readers run -> detach -> syscalls; breakdown-table.h groups them into
 * reads and tables.
 * Library code: never prints; 0 / -errno with one line in errbuf.
 */
#ifndef RS_BREAKDOWN_H
#define RS_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum breakdown_part {
	BD_PART_MEMORY,
	BD_PART_IO,
	BD_PART_BPF,
	BD_PART_BASE,
	BD_PART_WALK,
	BD_PART_WAIT,
	BD_PART_CPU_WAIT,
	BD_PART_OFF,
	BD_PART_REST,
	BD_PART__NR,
};

/*
 * "memory", "io", "bpf", "base", "walk", "wait", "cpu-wait", "off-cpu",
 * "rest".
 */
const char *breakdown_part_name(int part);
/* The part of a name, or -1. */
int breakdown_part_of(const char *name);

/* One syscall of a reader, as the kernel timed it. */
struct breakdown_syscall {
	uint64_t start, total;		/* ns, bpf_ktime_get_ns() */
	int64_t ret;
	uint32_t fd, tid;
	uint32_t tgid;			/* the process (fds are its own) */
	uint64_t ns[BD_PART__NR];
	uint32_t calls[BD_PART__NR];	/* entries of each part */
	uint32_t broken;		/* unmatched events (lost kretprobe) */
	/*
	 * Off the CPU after the task's previous syscall returned, before
	 * this one (preempted on the way back to user space).
	 */
	uint64_t prev_tail_off;
	uint32_t prev_tail_switches;
	bool pread;			/* pread64(2), not read(2) */
};

/* How a part is timed here, after open. */
struct breakdown_source {
	bool timed;
	char how[128];		/* what it is timed with */
	char why[192];		/* when !timed: why not, where it goes */
};

struct breakdown;

struct breakdown *breakdown__new(void);
void breakdown__delete(struct breakdown *b);

/*
 * Load the program: read the tracepoints' layouts, find which flush
 * functions kallsyms has and kprobes can take. -EOPNOTSUPP with the
 * reason when nothing can be timed (built without BPF, not root, no
 * syscall tracepoints).
 */
int breakdown__open(struct breakdown *b, char *errbuf, size_t errlen);
/* Time this process's reads (before attach or while attached). */
int breakdown__add_reader(struct breakdown *b, pid_t tgid);
int breakdown__attach(struct breakdown *b, char *errbuf, size_t errlen);
/* Move what the ring holds into the records: timeout in ms. 0 or -errno. */
int breakdown__poll(struct breakdown *b, int timeout_ms);
void breakdown__detach(struct breakdown *b);

const struct breakdown_source *breakdown__source(const struct breakdown *b,
						 int part);
/* "BPF: kprobes and tracepoints", "BPF: tracepoints only, no kprobes" */
const char *breakdown__method(const struct breakdown *b);
/*
 * After open: the kernel gives each subsystem an rstat tree and lock of
 * its own (v6.16+: css_rstat_flush and __css_rstat_lock in kallsyms).
 */
bool breakdown__split_trees(const struct breakdown *b);

/* The syscalls so far, in the order they ended. */
const struct breakdown_syscall *breakdown__syscalls(const struct breakdown *b,
						    size_t *nr);
/* Records lost (ring full) and events that did not pair. */
void breakdown__losses(const struct breakdown *b, uint64_t *lost,
		       uint64_t *broken);
/*
 * A program of the breakdown whose runs the kernel skipped: it runs no
 * classic tracepoint or kprobe program while another runs on that CPU
 * (one guard for all of them, bpf_prog_active), no raw tracepoint
 * program while the same one runs there (v6.2+; fentry too), and misses
 * a kprobe hit inside another kprobe. A program "runs" while preempted
 * inside its run too: sid's 7.2 (PREEMPT_LAZY) preempts syscall probes.
 */
struct breakdown_skip {
	char prog[32];		/* the program's name */
	uint64_t recursion;	/* runs skipped (recursion_misses) */
	uint64_t missed;	/* its kprobes' missed hits (v6.7+) */
};

#define BD_MAX_SKIPS 8

struct breakdown_skips {
	/*
	 * Whether this kernel counts every skip: classic tracepoint and
	 * kprobe programs' from v6.7; raw tracepoints' from v6.2, and
	 * before, they never skip.
	 */
	bool counted;
	/*
	 * The readers' syscalls whose start or end was skipped (seen from
	 * the other end): the reads they belong to are missing, or merged
	 * with the next.
	 */
	uint64_t reader_syscalls;
	unsigned int nr;		/* programs that skipped */
	struct breakdown_skip prog[BD_MAX_SKIPS];
};

/* The runs of the programs the kernel skipped since load. */
void breakdown__skipped(const struct breakdown *b, struct breakdown_skips *s);
/*
 * What a skipped run of a program leaves out, in a few words:
 * "syscalls" (a read missing or merged), "off-cpu", a part's name, or
 * "" for a program that is not the breakdown's.
 */
const char *breakdown_prog_affects(const char *prog);

/*
 * What timing the flush callbacks cost inside the reads: the callbacks
 * timed there, the ns their programs ran past their clock reads (inside
 * the callback at entry, the enclosing part at return; a kprobe's trap
 * not counted), and the shortest callback timed (the most the timing put
 * into one, its own work included; 0: none).
 */
struct breakdown_cb_cost {
	uint64_t calls, programs_ns, shortest_ns;
	uint64_t programs_after_ns;	/* of programs_ns: the return's */
};
void breakdown__cb_cost(const struct breakdown *b,
			struct breakdown_cb_cost *cost);
/* Callback time outside the readers' reads: calls and ns of a part. */
void breakdown__outside(const struct breakdown *b, int part,
			uint64_t *calls, uint64_t *ns);

/* ... by the kernel stack at the callback's entry (who flushed). */
struct breakdown_outside {
	int part;			/* memory, io, bpf, base */
	const char *const *frames;	/* leaf first; NULL: none kept */
	uint32_t nr_frames;
	uint64_t calls, ns;
};

/*
 * The callbacks' time outside the reads by part and stack (*out, *nr;
 * free() it), the stacks resolved through /proc/kallsyms (the names
 * stay valid until breakdown__delete(); no frames without kernel
 * symbols). The rule table names who flushed (rules.h). 0 or -ENOMEM.
 */
int breakdown__outside_by(struct breakdown *b, struct breakdown_outside **out,
			  size_t *nr);

/*
 * Following processes (record -p PID, record -- CMD): with follow set
 * before open, a reader's children become readers (sched_process_fork)
 * and the readers' open(2)/openat(2) calls that return an fd are kept,
 * so that each syscall's fd can be named (breakdown__files() in
 * breakdown-table.h).
 */
void breakdown__set_follow(struct breakdown *b, bool follow);

#define BD_PATH_MAX 256

enum breakdown_event_kind {
	BD_EV_OPEN,		/* open(2), openat(2) returned fd */
	BD_EV_FORK,		/* tgid forked child */
	BD_EV_DUP,		/* dup2, dup3, fcntl F_DUPFD: fd copies oldfd */
	BD_EV_CLOSE,		/* close(2) of fd */
};

struct breakdown_event {
	uint64_t ts;		/* bpf_ktime_get_ns() */
	uint32_t tgid;		/* who opened, forked, copied, closed */
	enum breakdown_event_kind kind;
	int32_t fd;		/* the fd opened, made or closed */
	int32_t oldfd;		/* dup: the fd copied */
	uint32_t child;		/* fork: the child's pid */
	char path[BD_PATH_MAX];	/* open: as given (relative or cut) */
};

/* The opens and forks so far, in the order they came. */
const struct breakdown_event *breakdown__events(const struct breakdown *b,
						size_t *nr);

struct breakdown_follow_stats {
	uint64_t forks;		/* children followed */
	uint64_t readers_full;	/* children not followed: map full */
	uint64_t events_lost;	/* opens and forks lost: ring full */
};

void breakdown__follow_stats(const struct breakdown *b,
			     struct breakdown_follow_stats *st);

#endif
