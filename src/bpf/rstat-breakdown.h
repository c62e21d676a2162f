/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rstat-breakdown.bpf.c and its loader (breakdown-bpf.c) share: the
 * parts a read's time is split into and the record sent per read(2).
 * Only fixed-size kernel types: one layout for the bpf target and for
 * user space.
 */
#ifndef RS_BPF_RSTAT_BREAKDOWN_H
#define RS_BPF_RSTAT_BREAKDOWN_H

#include <linux/types.h>

/*
 * Where the reader is, as a stack of states: the time between two
 * events goes to the state on top, so the parts never overlap and add up
 * to the syscall's time exactly.
 */
enum {
	RS_BD_REST,	/* in the syscall, in none of the below */
	RS_BD_WAIT,	/* waiting for the rstat lock */
	RS_BD_WALK,	/* in the core flush, outside the callbacks */
	RS_BD_HELD,	/* holding the rstat lock, outside the callbacks */
	RS_BD_OFF,	/* switched out (sched_switch) */
	RS_BD_CB_BASE,	/* cgroup_base_stat_flush */
	RS_BD_CB_BPF,	/* bpf_rstat_flush */
	RS_BD_CB_MEMORY,	/* mem_cgroup_css_rstat_flush */
	RS_BD_CB_IO,	/* blkcg_rstat_flush */
	RS_BD_CPU_WAIT,	/* waiting for a per-CPU rstat lock (v6.10-v6.16) */
	RS_BD__NR,
};

#define RS_BD_DEPTH 8	/* nesting kept per task (a power of 2) */

/* Per reader task, between its sys_enter and sys_exit. */
struct rs_bd_ctx {
	__u64 start;		/* ts at sys_enter */
	__u64 last;		/* ts of the last transition */
	__u64 ns[RS_BD__NR];
	__u32 calls[RS_BD__NR];	/* pushes of each state */
	__u32 depth;
	__u32 fd;
	__u32 broken;		/* a pop that did not match the top */
	__u32 pread;		/* pread64(2), not read(2) */
	/* byte i: the state at depth i (no indexed stores: v6.1) */
	__u64 stack;
	__u64 prev_tail_off;	/* the task's last tail (below) */
	__u32 prev_tail_switches;
	__u32 just_opened;	/* until the entry's twin program ran */
	__u64 cb_start;		/* a flush callback's entry (they never nest) */
};

/*
 * After a reader's syscall returns, until its next one: switched out on
 * the way back to user space (exit_to_user_mode), after sys_exit fired.
 */
struct rs_bd_tail {
	__u64 off_start;	/* 0: on the CPU */
	__u64 off_ns;
	__u32 switches;
	__u32 just_closed;	/* until the exit's twin program ran */
};

/* One per read(2)/pread64(2) of a reader (the ring buffer). */
struct rs_bd_rec {
	__u64 start;
	__u64 total;
	__s64 ret;
	__u64 ns[RS_BD__NR];
	__u32 calls[RS_BD__NR];
	__u32 fd;
	__u32 tid;
	__u32 broken;
	__u32 prev_tail_switches;
	__u64 prev_tail_off;	/* off-CPU after the previous syscall */
	__u32 pread;
	__u32 tgid;		/* the reader's process: its fds' namespace */
};

/* Counters (a per-CPU array). */
enum {
	RS_BD_C_RECORDS,
	RS_BD_C_LOST,		/* the ring was full */
	RS_BD_C_BROKEN,		/* unmatched pops */
	RS_BD_C_OVERFLOW,	/* nesting deeper than RS_BD_DEPTH */
	RS_BD_C_OUTSIDE_CALLS,	/* callbacks outside a reader's read */
	/*
	 * A reader's syscall whose sys_enter program did not run (its exit
	 * came with no context open, after the task's previous one was
	 * seen) or whose sys_exit program did not (the next one started
	 * with the context still open): the kernel skipped the run.
	 */
	RS_BD_C_NO_ENTER,
	RS_BD_C_NO_EXIT,
	/*
	 * The observer's cost a flush callback: callbacks timed inside the
	 * reads, and the ns their programs ran after (entry) or before
	 * (return) reading the clock, which the callback's time holds.
	 */
	RS_BD_C_CB_TIMED,
	RS_BD_C_CB_PROG_NS,
	RS_BD_C_CB_PROG_AFTER_NS,	/* ... of which the return's */
	RS_BD__NR_COUNTERS,
};

/* Callback time outside the readers' reads, by state (a per-CPU array). */
struct rs_bd_outside {
	__u64 calls;
	__u64 ns;
};

/* ... and by the kernel stack at the callback's entry (who flushed). */
struct rs_bd_out_key {
	__u32 state;
	__s32 stack_id;		/* < 0: none kept */
};

struct rs_bd_out_open {
	__u64 ts;
	__s32 stack_id;
	__u32 pad;
};

#define RS_BD_STACK_DEPTH 32

/*
 * Following a process and its descendants (record -p, record -- CMD):
 * sched_process_fork makes a reader's child a reader, and each open(2)
 * or openat(2) of theirs that returns an fd sends a record to a ring of
 * its own, so that user space names the file each read is of.
 */
#define RS_BD_PATH 256

enum {
	RS_BD_EV_OPEN,		/* tgid opened path as fd */
	RS_BD_EV_FORK,		/* tgid forked child */
	RS_BD_EV_DUP,		/* tgid made fd a copy of oldfd */
	RS_BD_EV_CLOSE,		/* tgid closed fd */
};

struct rs_bd_ev {
	__u64 ts;
	__u32 kind;
	__u32 tgid;
	__u32 tid;
	__s32 fd;		/* the fd opened or made; for a fork, the child */
	__s32 oldfd;		/* dup: the fd copied */
	__u32 pad;
	char path[RS_BD_PATH];	/* open: NUL-terminated, possibly cut */
};

/* The records but an open's end before the path. */
#define RS_BD_EV_HEAD 32

/* An open(2) between its sys_enter and sys_exit (per thread). */
struct rs_bd_open_arg {
	char path[RS_BD_PATH];
};

/* Counters of the following (a per-CPU array of their own). */
enum {
	RS_BD_F_READERS_FULL,	/* a child not followed: readers was full */
	RS_BD_F_EV_LOST,	/* an open or fork record lost: ring full */
	RS_BD_F_FORKS,		/* children followed */
	RS_BD__NR_FOLLOW,
};

/* How many processes can be followed at once. */
#define RS_BD_MAX_READERS 4096

#endif
