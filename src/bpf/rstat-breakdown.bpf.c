// SPDX-License-Identifier: GPL-2.0
/*
 * Where a stat read's time goes, timed in the kernel.
 *
 * For the reader processes user space names (tgids), each read(2) or
 * pread64(2) opens a context at its entry and closes it at its exit
 * (fentry/fexit, raw or classic syscall tracepoints: the loader takes
 * the first the kernel allows, see "Two ways in" below);
 * in between, every event that changes where the reader is pushes or
 * pops a state (rstat-breakdown.h): the rstat lock's tracepoints (wait,
 * held; v6.10+), sched_switch (off the CPU), and the core flush function
 * (the tree walk) and each subsystem's per-css flush callback, by
 * fentry/fexit where the kernel allows, else by kprobes where it has
 * them. The time between two events goes to the state on top, so the
 * parts are disjoint and add up to the syscall's time. At sys_exit
 * one record goes to a ring buffer; user space groups a file's syscalls
 * into reads and takes percentiles.
 *
 * Programs run only on the readers' events, except sched_switch (every
 * switch on the machine: one hash lookup each) and the callbacks' programs
 * outside reads (their time is summed per subsystem, the flushes that
 * reclaim and the workers make).
 *
 * Field offsets come from tracefs at load time (.rodata).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "rstat-breakdown.h"

char LICENSE[] SEC("license") = "GPL";

/* Keep the hit for every other user of the tracepoint (see rstat-spans). */
#define KEEP_EVENT 1

const volatile __u32 off_fd = 16, off_ret = 16;
const volatile __u32 off_prev_pid = 24, off_next_pid = 56;
/* Before v6.10: the outer flush's entry -> the inner one's is the wait. */
const volatile __u32 outer_is_wait;
/*
 * No kprobe times the walk: the time the lock is held stands for it. With
 * one, the locked/unlock pair is left out (on v6.10-v6.14 the lock is
 * dropped and retaken inside the walk, which would not nest).
 */
const volatile __u32 held_is_walk;
/*
 * The syscalls' entry and exit each have two programs, twins (fentry
 * and raw tracepoints: each its own guard), and the one that runs first
 * does the work: a syscall is lost only if both were skipped.
 */
const volatile __u32 twins;
/*
 * Where a syscall's registers keep its first argument (fd) and its
 * number; the numbers of read(2) and pread64(2) (x86-64's).
 */
const volatile __u32 off_regs_arg0 = 112, off_regs_nr = 120;
const volatile __u32 nr_read = 0, nr_pread64 = 17;
/*
 * Following (record): the second argument's place (sendfile's in_fd,
 * openat's path, fcntl's cmd), and the numbers of the syscalls followed
 * by the raw tracepoints (~0: not followed).
 */
const volatile __u32 off_regs_arg1 = 104;
const volatile __u32 nr_sendfile = ~0u, nr_open = ~0u, nr_openat = ~0u;
const volatile __u32 nr_dup2 = ~0u, nr_dup3 = ~0u, nr_fcntl = ~0u;
const volatile __u32 nr_close = ~0u;

/* CO-RE: the kernel's layout at load time (its BTF). */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} readers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct rs_bd_ctx);
} ctxs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct rs_bd_tail);
} tails SEC(".maps");

/* A zeroed context to start from (too big for the stack twice). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rs_bd_ctx);
} zero_ctx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);	/* resized by the loader */
} records SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_BD__NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* Callbacks outside the readers' reads: tid -> entry time, stack. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct rs_bd_out_open);
} outside_open SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__uint(value_size, RS_BD_STACK_DEPTH * sizeof(__u64));
} out_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct rs_bd_out_key);
	__type(value, struct rs_bd_outside);
} outside_by SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_BD__NR);
	__type(key, __u32);
	__type(value, struct rs_bd_outside);
} outside SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		(*c)++;
}

static __always_inline void add(__u32 idx, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += v;
}

static __always_inline __u64 read_u64(void *ctx, __u32 off)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

static __always_inline __u32 read_u32(void *ctx, __u32 off)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

static __always_inline __u32 top_of(struct rs_bd_ctx *c)
{
	__u32 d = c->depth;

	if (!d || d > RS_BD_DEPTH)
		return RS_BD_REST;
	return (__u32)(c->stack >> (((d - 1) & (RS_BD_DEPTH - 1)) * 8)) &
	       0xff;
}

/*
 * The time since the last transition goes to the state on top. A
 * program that took its time and was then preempted before charging it
 * (seen on sid's 7.2 with one CPU: the parts came to 101% of the reads)
 * finds a later time charged by the sched_switch meanwhile: it charges
 * nothing and never moves last back, so that the parts keep adding up
 * to the syscall's time.
 */
static __always_inline void charge(struct rs_bd_ctx *c, __u64 now)
{
	__u32 t = top_of(c);

	if (now <= c->last)
		return;
	if (t < RS_BD__NR)
		c->ns[t] += now - c->last;
	c->last = now;
}

static __always_inline void push(struct rs_bd_ctx *c, __u32 state,
				 __u64 now)
{
	charge(c, now);
	if (c->depth >= RS_BD_DEPTH) {
		count(RS_BD_C_OVERFLOW);
		return;
	}
	{
		__u32 sh = (c->depth & (RS_BD_DEPTH - 1)) * 8;

		c->stack &= ~(0xffULL << sh);
		c->stack |= (__u64)(state & 0xff) << sh;
	}
	c->depth++;
	if (state < RS_BD__NR)
		c->calls[state]++;
}

/* Pop state if it is on top; 1 if it was. */
static __always_inline int pop(struct rs_bd_ctx *c, __u32 state, __u64 now)
{
	if (!c->depth || top_of(c) != state) {
		c->broken++;
		count(RS_BD_C_BROKEN);
		return 0;
	}
	charge(c, now);
	c->depth--;
	return 1;
}

static __always_inline struct rs_bd_ctx *ctx_of_current(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return bpf_map_lookup_elem(&ctxs, &tid);
}

static __always_inline int sys_enter(__u32 fd, __u32 pread)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id, zero = 0;
	struct rs_bd_tail *t;
	struct rs_bd_ctx *z;

	if (!bpf_map_lookup_elem(&readers, &tgid))
		return KEEP_EVENT;
	z = bpf_map_lookup_elem(&ctxs, &tid);
	/* Open, and no end seen since: the twin's work, or a lost end. */
	if (z && !bpf_map_lookup_elem(&tails, &tid)) {
		if (twins && z->just_opened) {
			z->just_opened = 0;
			return KEEP_EVENT;
		}
		count(RS_BD_C_NO_EXIT);
	}
	z = bpf_map_lookup_elem(&zero_ctx, &zero);
	if (!z)
		return KEEP_EVENT;
	__builtin_memset(z, 0, sizeof(*z));
	t = bpf_map_lookup_elem(&tails, &tid);
	if (t) {
		z->prev_tail_off = t->off_ns;
		z->prev_tail_switches = t->switches;
		bpf_map_delete_elem(&tails, &tid);
	}
	z->fd = fd;
	z->pread = pread;
	z->start = bpf_ktime_get_ns();
	z->last = z->start;
	z->just_opened = 1;
	bpf_map_update_elem(&ctxs, &tid, z, BPF_ANY);
	return KEEP_EVENT;
}

/*
 * A record wakes its ring's reader only when the ring is half full.
 * With flags 0 each record wakes a reader that has caught up, and the
 * task that made it pays an irq_work self-interrupt and, when the poller
 * sleeps on its CPU, a switch there and back, after the program's last
 * clock read: 15-28 us of entry/exit a read in this machine's VM, the
 * reader's p50 12-21 times its unobserved one. The poller drains on its
 * own timer instead (breakdown__poll()).
 */
static __always_inline __u64 rb_wakeup(void *rb)
{
	return bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >=
	       bpf_ringbuf_query(rb, BPF_RB_RING_SIZE) / 2 ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline int sys_exit(__s64 ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rs_bd_ctx *c = bpf_map_lookup_elem(&ctxs, &tid);
	struct rs_bd_tail tail = { .just_closed = 1 }, *t;
	struct rs_bd_rec *r;
	int i;

	if (!c) {
		/*
		 * A reader's, seen to end before: closed by the twin, or
		 * its start was skipped.
		 */
		t = bpf_map_lookup_elem(&tails, &tid);
		if (t && twins && t->just_closed)
			t->just_closed = 0;
		else if (t)
			count(RS_BD_C_NO_ENTER);
		return KEEP_EVENT;
	}
	charge(c, now);
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count(RS_BD_C_LOST);
		bpf_map_delete_elem(&ctxs, &tid);
		return KEEP_EVENT;
	}
	r->start = c->start;
	/* The syscall ends at its last transition, if later than now. */
	r->total = c->last - c->start;
	r->ret = ret;
	for (i = 0; i < RS_BD__NR; i++) {
		r->ns[i] = c->ns[i];
		r->calls[i] = c->calls[i];
	}
	r->fd = c->fd;
	r->tid = tid;
	r->broken = c->broken + (c->depth ? 1 : 0);
	r->prev_tail_off = c->prev_tail_off;
	r->prev_tail_switches = c->prev_tail_switches;
	r->pread = c->pread;
	r->tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	bpf_ringbuf_submit(r, rb_wakeup(&records));
	count(RS_BD_C_RECORDS);
	bpf_map_delete_elem(&ctxs, &tid);
	bpf_map_update_elem(&tails, &tid, &tail, BPF_ANY);
	return KEEP_EVENT;
}

/*
 * Two ways in for each event: raw tracepoints (or fentry), where the
 * kernel has them (each program its own recursion guard: v6.2+), and
 * the classic ones as the fallback. A classic tracepoint or kprobe
 * program is skipped whenever another one runs on that CPU (one guard
 * for all of them, bpf_prog_active), one preempted inside its run too:
 * on sid's 7.2 (PREEMPT_LAZY) that cost most of a reader's syscalls.
 */
SEC("tracepoint/syscalls/sys_enter_read")
int bd_enter_read(void *ctx)
{
	return sys_enter((__u32)read_u64(ctx, off_fd), 0);
}

SEC("tracepoint/syscalls/sys_exit_read")
int bd_exit_read(void *ctx)
{
	return sys_exit((__s64)read_u64(ctx, off_ret));
}

SEC("tracepoint/syscalls/sys_enter_pread64")
int bd_enter_pread(void *ctx)
{
	return sys_enter((__u32)read_u64(ctx, off_fd), 1);
}

SEC("tracepoint/syscalls/sys_exit_pread64")
int bd_exit_pread(void *ctx)
{
	return sys_exit((__s64)read_u64(ctx, off_ret));
}

/*
 * fentry/fexit on the syscalls' own functions run for those syscalls
 * alone, each program with its own guard: a preempted run (7.2's
 * PREEMPT_LAZY preempts them) holds back only runs of the same program
 * on that CPU, calls of the same syscall. The raw sys_enter tracepoint
 * would run for every syscall of every task instead. Argument 0 is the
 * syscall's registers; fexit's 1 the return value.
 */
static __always_inline __u64 regs_arg(__u64 *args, __u32 off)
{
	return read_u64((void *)args[0], off);
}

static __always_inline __u32 regs_fd(__u64 *args)
{
	return (__u32)regs_arg(args, off_regs_arg0);
}

/* fd_off: the register of the fd read (sendfile's in_fd is second). */
#define SYSCALL_FENTRY_AT(name, func, pread, fd_off)		\
SEC("fentry/" func)						\
int bd_fentry_##name(__u64 *args)				\
{								\
	sys_enter((__u32)regs_arg(args, fd_off), pread);	\
	return 0;						\
}								\
SEC("fexit/" func)						\
int bd_fexit_##name(__u64 *args)				\
{								\
	sys_exit((__s64)args[1]);				\
	return 0;						\
}
#define SYSCALL_FENTRY(name, func, pread)			\
	SYSCALL_FENTRY_AT(name, func, pread, off_regs_arg0)

/*
 * Each twice (see twins): other tasks' calls of the same syscall, the
 * children churning files with pread64(2), run the same programs, and
 * one preempted inside a run holds it back on that CPU for everyone.
 */
SYSCALL_FENTRY(read, "__x64_sys_read", 0)
SYSCALL_FENTRY(pread, "__x64_sys_pread64", 1)
SYSCALL_FENTRY(read_twin, "__x64_sys_read", 0)
SYSCALL_FENTRY(pread_twin, "__x64_sys_pread64", 1)
/*
 * sendfile(2) reads its in_fd as read(2) would (busybox's cat copies
 * so): record's targets' are timed as reads of in_fd.
 */
SYSCALL_FENTRY_AT(sendfile, "__x64_sys_sendfile64", 0, off_regs_arg1)
SYSCALL_FENTRY_AT(sendfile_twin, "__x64_sys_sendfile64", 0, off_regs_arg1)

/*
 * Where fentry is refused (a kernel that keeps ftrace from BPF): the raw
 * syscall tracepoints, (struct pt_regs *regs, long id), (regs, long
 * ret), for every syscall of every task: filtered here.
 */
static __always_inline void raw_enter(__u64 *args)
{
	__u64 nr = args[1];

	if (nr == nr_read || nr == nr_pread64)
		sys_enter(regs_fd(args), nr == nr_pread64);
	else if (nr == nr_sendfile)
		sys_enter((__u32)regs_arg(args, off_regs_arg1), 0);
}

static __always_inline void raw_exit(__u64 *args)
{
	__u64 nr = read_u64((void *)args[0], off_regs_nr);

	if (nr == nr_read || nr == nr_pread64 || nr == nr_sendfile)
		sys_exit((__s64)args[1]);
}

#define SYSCALL_RAW(suffix)					\
SEC("raw_tp/sys_enter")						\
int bd_raw_enter##suffix(__u64 *args)				\
{								\
	raw_enter(args);					\
	return 0;						\
}								\
SEC("raw_tp/sys_exit")						\
int bd_raw_exit##suffix(__u64 *args)				\
{								\
	raw_exit(args);						\
	return 0;						\
}

SYSCALL_RAW()
SYSCALL_RAW(_twin)

static __always_inline void on_switch(__u32 prev, __u32 next, __u64 now)
{
	struct rs_bd_ctx *c;
	struct rs_bd_tail *t;

	c = bpf_map_lookup_elem(&ctxs, &prev);
	if (c) {
		push(c, RS_BD_OFF, now);
	} else {
		t = bpf_map_lookup_elem(&tails, &prev);
		if (t && !t->off_start)
			t->off_start = now;
	}
	c = bpf_map_lookup_elem(&ctxs, &next);
	if (c) {
		pop(c, RS_BD_OFF, now);
	} else {
		t = bpf_map_lookup_elem(&tails, &next);
		if (t && t->off_start) {
			t->off_ns += now - t->off_start;
			t->off_start = 0;
			t->switches++;
		}
	}
}

SEC("tracepoint/sched/sched_switch")
int bd_switch(void *ctx)
{
	on_switch(read_u32(ctx, off_prev_pid), read_u32(ctx, off_next_pid),
		  bpf_ktime_get_ns());
	return KEEP_EVENT;
}

/* (bool preempt, struct task_struct *prev, *next, ...) */
SEC("raw_tp/sched_switch")
int bd_raw_switch(__u64 *args)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *prev = (void *)args[1], *next = (void *)args[2];

	on_switch((__u32)BPF_CORE_READ(prev, pid),
		  (__u32)BPF_CORE_READ(next, pid), now);
	return 0;
}

static __always_inline void on_contended(__u32 state)
{
	struct rs_bd_ctx *c = ctx_of_current();

	if (c)
		push(c, state, bpf_ktime_get_ns());
}

static __always_inline void on_locked(void)
{
	__u64 now = bpf_ktime_get_ns();
	struct rs_bd_ctx *c = ctx_of_current();

	if (!c)
		return;
	if (top_of(c) == RS_BD_WAIT)
		pop(c, RS_BD_WAIT, now);
	if (held_is_walk)
		push(c, RS_BD_HELD, now);
}

static __always_inline void on_unlock(void)
{
	struct rs_bd_ctx *c;

	if (!held_is_walk)
		return;
	c = ctx_of_current();
	if (c)
		pop(c, RS_BD_HELD, bpf_ktime_get_ns());
}

/*
 * The per-CPU locks (v6.10-v6.16): the flusher takes each CPU's to walk
 * its updated tree, while that CPU's updaters take it to add to it.
 */
static __always_inline void on_cpu_locked(void)
{
	struct rs_bd_ctx *c = ctx_of_current();

	if (c && top_of(c) == RS_BD_CPU_WAIT)
		pop(c, RS_BD_CPU_WAIT, bpf_ktime_get_ns());
}

/* One event, a classic and a raw program: both return what they must. */
#define LOCK_EVENT(name, event, body)				\
SEC("tracepoint/cgroup/" #event)				\
int bd_##name(void *ctx)					\
{								\
	body;							\
	return KEEP_EVENT;					\
}								\
SEC("raw_tp/" #event)						\
int bd_raw_##name(void *ctx)					\
{								\
	body;							\
	return 0;						\
}

LOCK_EVENT(contended, cgroup_rstat_lock_contended, on_contended(RS_BD_WAIT))
LOCK_EVENT(locked, cgroup_rstat_locked, on_locked())
LOCK_EVENT(unlock, cgroup_rstat_unlock, on_unlock())
LOCK_EVENT(cpu_contended, cgroup_rstat_cpu_lock_contended,
	   on_contended(RS_BD_CPU_WAIT))
LOCK_EVENT(cpu_locked, cgroup_rstat_cpu_locked, on_cpu_locked())

/*
 * The core flush (attached by name by the loader: fentry/fexit where the
 * kernel allows, kprobes where not): from v6.10 the outer function
 * (cgroup_rstat_flush, css_rstat_flush) is the walk, the lock's
 * tracepoints nested inside it. Before, there are no such tracepoints:
 * the outer function's entry opens the wait, which ends when the inner
 * cgroup_rstat_flush_locked starts (the lock is taken in between).
 */
static __always_inline void outer_entry(void)
{
	struct rs_bd_ctx *c = ctx_of_current();

	if (c)
		push(c, outer_is_wait ? RS_BD_WAIT : RS_BD_WALK,
		     bpf_ktime_get_ns());
}

static __always_inline void outer_return(void)
{
	struct rs_bd_ctx *c = ctx_of_current();
	__u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	if (outer_is_wait) {
		/* The inner function popped it, unless it never ran. */
		if (top_of(c) == RS_BD_WAIT)
			pop(c, RS_BD_WAIT, now);
		return;
	}
	pop(c, RS_BD_WALK, now);
}

static __always_inline void inner_entry(void)
{
	struct rs_bd_ctx *c = ctx_of_current();

	if (c)
		push(c, RS_BD_WALK, bpf_ktime_get_ns());
}

static __always_inline void inner_return(void)
{
	struct rs_bd_ctx *c = ctx_of_current();
	__u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	if (pop(c, RS_BD_WALK, now) && top_of(c) == RS_BD_WAIT)
		pop(c, RS_BD_WAIT, now);	/* the outer's rest: unlock */
}

/*
 * Each function's programs, both ways in: a kprobe and a kretprobe, an
 * fentry and an fexit (their target set by the loader before loading).
 * The loader attaches one pair; where fentry is refused at attach the
 * kprobes, loaded too, stand in.
 */
#define KPROBE_PROGS(name, entry, ret)				\
SEC("kprobe")							\
int bd_##name##_entry(void *ctx)				\
{								\
	entry;							\
	return 0;						\
}								\
SEC("kretprobe")						\
int bd_##name##_return(void *ctx)				\
{								\
	ret;							\
	return 0;						\
}
#define FENTRY_PROGS(fe, fx, entry, ret)			\
SEC("fentry")							\
int fe(__u64 *ctx)						\
{								\
	entry;							\
	return 0;						\
}								\
SEC("fexit")							\
int fx(__u64 *ctx)						\
{								\
	ret;							\
	return 0;						\
}
#define FUNC_PROGS(name, entry, ret)				\
	KPROBE_PROGS(name, entry, ret)				\
	FENTRY_PROGS(bd_##name##_fentry, bd_##name##_fexit, entry, ret)

FUNC_PROGS(inner, inner_entry(), inner_return())

/*
 * The outer functions: one kprobe pair attached to each, or an fentry
 * pair of its own each (an fentry program has one target).
 */
KPROBE_PROGS(outer, outer_entry(), outer_return())
#define OUTER_FENTRY(n)						\
	FENTRY_PROGS(bd_outer_fentry##n, bd_outer_fexit##n,	\
		     outer_entry(), outer_return())
OUTER_FENTRY(0)
OUTER_FENTRY(1)
OUTER_FENTRY(2)
OUTER_FENTRY(3)

/*
 * The shortest callback timed inside the reads (a per-CPU minimum, 0:
 * none yet): the most the timing can have put into one, the callback's
 * own work included, as the shortest hold bounds it for the lock.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} cb_shortest SEC(".maps");

static __always_inline int cb_entry(void *ctx, __u32 state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rs_bd_ctx *c = bpf_map_lookup_elem(&ctxs, &tid);
	struct rs_bd_out_open o = {};

	if (c) {
		push(c, state, now);
		c->cb_start = now;
		/* This program's time from here on is the callback's. */
		add(RS_BD_C_CB_PROG_NS, bpf_ktime_get_ns() - now);
		return 0;
	}
	/* Who flushed: the stack names the trigger (reclaim, worker...). */
	o.stack_id = (__s32)bpf_get_stackid(ctx, &out_stacks, 0);
	o.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&outside_open, &tid, &o, BPF_ANY);
	return 0;
}

static __always_inline int cb_return(__u32 state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rs_bd_ctx *c = bpf_map_lookup_elem(&ctxs, &tid);
	struct rs_bd_out_key key = { .state = state };
	struct rs_bd_outside *o, zero = {};
	struct rs_bd_out_open *t0;
	__u64 start, ns;

	if (c) {
		__u32 zero_key = 0;
		__u64 *min = bpf_map_lookup_elem(&cb_shortest, &zero_key);

		pop(c, state, now);
		if (c->cb_start && now > c->cb_start) {
			ns = now - c->cb_start;
			if (min && (!*min || ns < *min))
				*min = ns;
			count(RS_BD_C_CB_TIMED);
		}
		c->cb_start = 0;
		/* ... and up to here the enclosing part's (the walk). */
		ns = bpf_ktime_get_ns() - now;
		add(RS_BD_C_CB_PROG_NS, ns);
		add(RS_BD_C_CB_PROG_AFTER_NS, ns);
		return 0;
	}
	t0 = bpf_map_lookup_elem(&outside_open, &tid);
	if (!t0)
		return 0;
	start = t0->ts;
	key.stack_id = t0->stack_id < 0 ? -1 : t0->stack_id;
	bpf_map_delete_elem(&outside_open, &tid);
	ns = now > start ? now - start : 0;
	o = bpf_map_lookup_elem(&outside, &state);
	if (o) {
		o->calls++;
		o->ns += ns;
	}
	o = bpf_map_lookup_elem(&outside_by, &key);
	if (!o) {
		bpf_map_update_elem(&outside_by, &key, &zero, BPF_NOEXIST);
		o = bpf_map_lookup_elem(&outside_by, &key);
	}
	if (o) {
		__sync_fetch_and_add(&o->calls, 1);
		__sync_fetch_and_add(&o->ns, ns);
	}
	count(RS_BD_C_OUTSIDE_CALLS);
	return 0;
}

/*
 * From fentry, bpf_get_stackid (the arguments as context) unwinds from
 * the program itself: its frame and the trampoline's come first, the
 * trigger frames below are the kprobe's (sid's 7.2: the worker's
 * flushes still named "periodic").
 */
#define CALLBACK(name, state)					\
	FUNC_PROGS(cb_##name, cb_entry(ctx, state), cb_return(state))

CALLBACK(base, RS_BD_CB_BASE)
CALLBACK(bpf, RS_BD_CB_BPF)
CALLBACK(memory, RS_BD_CB_MEMORY)
CALLBACK(io, RS_BD_CB_IO)

/*
 * Following the readers' children and naming their files (record -p,
 * record -- CMD). Loaded only when the loader asks (follow): the
 * readers map is then resized to RS_BD_MAX_READERS.
 */
const volatile __u32 off_open_name = 16, off_openat_name = 24;
const volatile __u32 off_open_ret = 16;
const volatile __u32 off_fork_child = 20;
const volatile __u32 off_sendfile_in = 24;
const volatile __u32 off_dup_old = 16, off_fcntl_cmd = 24;
const volatile __u32 off_close_fd = 16;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* resized by the loader */
} bd_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct rs_bd_open_arg);
} bd_open_args SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rs_bd_open_arg);
} bd_open_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_BD__NR_FOLLOW);
	__type(key, __u32);
	__type(value, __u64);
} bd_follow_counters SEC(".maps");

static __always_inline void follow_count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&bd_follow_counters, &idx);

	if (c)
		(*c)++;
}

static __always_inline int is_reader(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&readers, &tgid) != NULL;
}

/*
 * The work of each event, whichever program brings it: classic
 * tracepoints (their fields), or raw tracepoints and fentry (the
 * syscall's registers, a task's pid by CO-RE).
 */
static __always_inline void open_enter(const char *name)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct rs_bd_open_arg *a;

	if (!is_reader())
		return;
	a = bpf_map_lookup_elem(&bd_open_zero, &zero);
	if (!a)
		return;
	a->path[0] = 0;
	if (bpf_probe_read_user_str(a->path, sizeof(a->path), name) < 0)
		a->path[0] = 0;
	bpf_map_update_elem(&bd_open_args, &tid, a, BPF_ANY);
}

static __always_inline void open_exit(__s64 ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct rs_bd_open_arg *a = bpf_map_lookup_elem(&bd_open_args, &tid);
	struct rs_bd_ev *e;

	if (!a)
		return;
	if (ret >= 0) {
		e = bpf_ringbuf_reserve(&bd_events, sizeof(*e), 0);
		if (e) {
			e->ts = bpf_ktime_get_ns();
			e->kind = RS_BD_EV_OPEN;
			e->tgid = id >> 32;
			e->tid = tid;
			e->fd = (__s32)ret;
			e->oldfd = -1;
			e->pad = 0;
			__builtin_memcpy(e->path, a->path, sizeof(e->path));
			e->path[RS_BD_PATH - 1] = 0;
			bpf_ringbuf_submit(e, rb_wakeup(&bd_events));
		} else {
			follow_count(RS_BD_F_EV_LOST);
		}
	}
	bpf_map_delete_elem(&bd_open_args, &tid);
}

/* A record without a path (fork, dup, close) for the current task. */
static __always_inline void send_head(__u32 kind, __s32 fd, __s32 oldfd)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct rs_bd_ev *e;

	e = bpf_ringbuf_reserve(&bd_events, RS_BD_EV_HEAD, 0);
	if (!e) {
		follow_count(RS_BD_F_EV_LOST);
		return;
	}
	e->ts = bpf_ktime_get_ns();
	e->kind = kind;
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->fd = fd;
	e->oldfd = oldfd;
	e->pad = 0;
	bpf_ringbuf_submit(e, rb_wakeup(&bd_events));
}

/*
 * A reader's child is a reader (a thread's tid joins too: harmless, a
 * tid is no other process's tgid while it lives). Said to user space,
 * whose child inherits the parent's fds.
 */
static __always_inline void on_fork(__u32 child)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&readers, &tgid) || child == tgid)
		return;
	if (bpf_map_update_elem(&readers, &child, &one, BPF_ANY)) {
		follow_count(RS_BD_F_READERS_FULL);
		return;
	}
	follow_count(RS_BD_F_FORKS);
	send_head(RS_BD_EV_FORK, (__s32)child, -1);
}

/*
 * A task that exits leaves the readers (its slot is free again for the
 * next child: a shell loop forks thousands). A process whose leader
 * exits before its other threads is no longer followed.
 */
static __always_inline void on_exit_task(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&readers, &tid);
}

/*
 * A shell's redirection opens the file, then moves it onto another fd
 * (dup2, or fcntl F_DUPFD to save one) and closes the first: the fd a
 * command reads is a copy. Copies and closes are said too, so that
 * user space follows the file to the fd read, and a number closed and
 * reused by a pipe is not taken for the file.
 */
#define RS_F_DUPFD 0
#define RS_F_DUPFD_CLOEXEC 1030

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __s32);
} bd_dup_args SEC(".maps");

static __always_inline void dup_enter(__s32 oldfd)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (is_reader())
		bpf_map_update_elem(&bd_dup_args, &tid, &oldfd, BPF_ANY);
}

static __always_inline void fcntl_enter(__s32 fd, __u64 cmd)
{
	if (cmd == RS_F_DUPFD || cmd == RS_F_DUPFD_CLOEXEC)
		dup_enter(fd);
}

static __always_inline void dup_exit(__s64 ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__s32 *oldfd = bpf_map_lookup_elem(&bd_dup_args, &tid);

	if (!oldfd)
		return;
	if (ret >= 0)
		send_head(RS_BD_EV_DUP, (__s32)ret, *oldfd);
	bpf_map_delete_elem(&bd_dup_args, &tid);
}

static __always_inline void close_enter(__s32 fd)
{
	if (is_reader())
		send_head(RS_BD_EV_CLOSE, fd, -1);
}

/*
 * Three ways in, as for the reads (the loader takes the first the
 * kernel allows): fentry/fexit on each syscall's function, the raw
 * syscall tracepoints filtered by number, or the classic tracepoints.
 * Only the classic ones share one guard with the kprobes of the flush
 * callbacks (bpf_prog_active): one preempted inside its run (7.2's
 * PREEMPT_LAZY) would make every callback's kprobe on that CPU skip.
 * fork and exit: raw tracepoints in both other ways (no fentry there).
 *
 * The classic tracepoints: their fields where the loader found them.
 */
SEC("tracepoint/syscalls/sys_enter_openat")
int bd_fl_enter_openat(void *ctx)
{
	open_enter((const char *)read_u64(ctx, off_openat_name));
	return KEEP_EVENT;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int bd_fl_exit_openat(void *ctx)
{
	open_exit((__s64)read_u64(ctx, off_open_ret));
	return KEEP_EVENT;
}

SEC("tracepoint/syscalls/sys_enter_open")
int bd_fl_enter_open(void *ctx)
{
	open_enter((const char *)read_u64(ctx, off_open_name));
	return KEEP_EVENT;
}

SEC("tracepoint/syscalls/sys_exit_open")
int bd_fl_exit_open(void *ctx)
{
	open_exit((__s64)read_u64(ctx, off_open_ret));
	return KEEP_EVENT;
}

/* A read of in_fd, a twin-less program of the classic way's syscalls. */
SEC("tracepoint/syscalls/sys_enter_sendfile64")
int bd_enter_sendfile(void *ctx)
{
	return sys_enter((__u32)read_u64(ctx, off_sendfile_in), 0);
}

SEC("tracepoint/syscalls/sys_exit_sendfile64")
int bd_exit_sendfile(void *ctx)
{
	return sys_exit((__s64)read_u64(ctx, off_ret));
}

SEC("tracepoint/sched/sched_process_fork")
int bd_fl_fork(void *ctx)
{
	on_fork(read_u32(ctx, off_fork_child));
	return KEEP_EVENT;
}

SEC("tracepoint/sched/sched_process_exit")
int bd_fl_exit_task(void *ctx)
{
	on_exit_task();
	return KEEP_EVENT;
}

#define CLASSIC_DUP(name, enter)				\
SEC("tracepoint/syscalls/sys_enter_" #name)			\
int bd_fl_enter_##name(void *ctx)				\
{								\
	enter;							\
	return KEEP_EVENT;					\
}								\
SEC("tracepoint/syscalls/sys_exit_" #name)			\
int bd_fl_exit_##name(void *ctx)				\
{								\
	dup_exit((__s64)read_u64(ctx, off_open_ret));		\
	return KEEP_EVENT;					\
}

CLASSIC_DUP(dup2, dup_enter((__s32)read_u32(ctx, off_dup_old)))
CLASSIC_DUP(dup3, dup_enter((__s32)read_u32(ctx, off_dup_old)))
CLASSIC_DUP(fcntl, fcntl_enter((__s32)read_u32(ctx, off_dup_old),
			       read_u64(ctx, off_fcntl_cmd)))

SEC("tracepoint/syscalls/sys_enter_close")
int bd_fl_enter_close(void *ctx)
{
	close_enter((__s32)read_u32(ctx, off_close_fd));
	return KEEP_EVENT;
}

/* fork and exit: (parent, child), (task, ...): pids by CO-RE. */
SEC("raw_tp/sched_process_fork")
int bd_fl_raw_fork(__u64 *args)
{
	struct task_struct *child = (void *)args[1];

	on_fork((__u32)BPF_CORE_READ(child, pid));
	return 0;
}

SEC("raw_tp/sched_process_exit")
int bd_fl_raw_exit_task(__u64 *args)
{
	on_exit_task();
	return 0;
}

/* fentry/fexit: each syscall's own programs (sendfile's above). */
#define FOLLOW_FENTRY(name, enter, exit)			\
SEC("fentry/__x64_sys_" #name)					\
int bd_fl_fentry_##name(__u64 *args)				\
{								\
	enter;							\
	return 0;						\
}								\
SEC("fexit/__x64_sys_" #name)					\
int bd_fl_fexit_##name(__u64 *args)				\
{								\
	exit((__s64)args[1]);					\
	return 0;						\
}

FOLLOW_FENTRY(openat,
	      open_enter((const char *)regs_arg(args, off_regs_arg1)),
	      open_exit)
FOLLOW_FENTRY(open, open_enter((const char *)regs_arg(args, off_regs_arg0)),
	      open_exit)
FOLLOW_FENTRY(dup2, dup_enter((__s32)regs_arg(args, off_regs_arg0)),
	      dup_exit)
FOLLOW_FENTRY(dup3, dup_enter((__s32)regs_arg(args, off_regs_arg0)),
	      dup_exit)
FOLLOW_FENTRY(fcntl, fcntl_enter((__s32)regs_arg(args, off_regs_arg0),
				 regs_arg(args, off_regs_arg1)),
	      dup_exit)

SEC("fentry/__x64_sys_close")
int bd_fl_fentry_close(__u64 *args)
{
	close_enter((__s32)regs_arg(args, off_regs_arg0));
	return 0;
}

/*
 * The raw syscall tracepoints, where fentry is refused: one program
 * each way for all the syscalls followed, filtered by number (every
 * syscall of every task runs them: nothing but the compares for others).
 */
SEC("raw_tp/sys_enter")
int bd_fl_raw_enter(__u64 *args)
{
	__u64 nr = args[1];

	if (nr == nr_openat)
		open_enter((const char *)regs_arg(args, off_regs_arg1));
	else if (nr == nr_open)
		open_enter((const char *)regs_arg(args, off_regs_arg0));
	else if (nr == nr_dup2 || nr == nr_dup3)
		dup_enter((__s32)regs_arg(args, off_regs_arg0));
	else if (nr == nr_fcntl)
		fcntl_enter((__s32)regs_arg(args, off_regs_arg0),
			    regs_arg(args, off_regs_arg1));
	else if (nr == nr_close)
		close_enter((__s32)regs_arg(args, off_regs_arg0));
	return 0;
}

SEC("raw_tp/sys_exit")
int bd_fl_raw_exit(__u64 *args)
{
	__u64 nr;

	/* Most syscalls are none of these: their number first. */
	nr = read_u64((void *)args[0], off_regs_nr);
	if (nr == nr_openat || nr == nr_open)
		open_exit((__s64)args[1]);
	else if (nr == nr_dup2 || nr == nr_dup3 || nr == nr_fcntl)
		dup_exit((__s64)args[1]);
	return 0;
}
