/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF program (rstat-spans.bpf.c) and its loader (spans.c) share:
 * map keys, values and counter indexes. Only fixed-size kernel types, so
 * that the same layout compiles for the bpf target and for user space.
 */
#ifndef RS_BPF_RSTAT_SPANS_H
#define RS_BPF_RSTAT_SPANS_H

#include <linux/types.h>

/*
 * log2 buckets as hist__bucket_index() numbers them: 0 holds 0, bucket
 * i >= 1 holds [2^(i-1), 2^i - 1]; 65 of them cover every u64.
 */
#define RS_BPF_SLOTS 65

/* What a histogram times (rs_bpf_key.kind). */
enum {
	RS_BPF_HOLD,	/* cgroup_rstat_locked -> _unlock, one CPU */
	RS_BPF_WAIT,	/* _lock_contended -> _locked, one task */
	RS_BPF_FLUSH,	/* first locked -> last unlock of a flush */
	RS_BPF_MEMCG,	/* memcg_flush_stats -> end of that flush */
	RS_BPF__NR_KINDS,
};

struct rs_bpf_key {
	__u32 kind;
	__s32 stack_id;	/* kernel stack at the unlock, < 0: none */
	__s32 root;		/* hierarchy id, 0 = v2 */
	__u32 short_lock;	/* the tracepoint's cpu was -1 */
};

struct rs_bpf_hist {
	__u64 count, sum, min, max;
	__u64 slots[RS_BPF_SLOTS];
};

/* Per-CPU state of the lock held on that CPU (IRQs are off under it). */
struct rs_bpf_slot {
	__u64 ts;		/* bpf_ktime_get_ns() at the last locked */
	__u64 nlocked;		/* locked events seen on this CPU */
	__u64 nclosed;		/* nlocked when the last unlock paired */
	__u32 filtered;		/* the last locked was filtered out */
	__u32 pad;
};

/* Per task: the flush in progress (a run of per-CPU locks). */
struct rs_bpf_flush {
	__u64 start;		/* ts of the flush's first locked */
	__u64 id;		/* cgroup id */
	__s32 root;
	__s32 last_cpu;		/* the cpu field of the last lock */
	__s32 stack_id;		/* the stack at its first CPU's unlock */
	__u32 pad;
};

/*
 * Flushes per flushed cgroup (the live views' busiest cgroups), keyed by
 * hierarchy and id: an LRU map, so its memory is fixed however many
 * cgroups come and go; the least recently flushed drop out first.
 */
struct rs_bpf_cg_key {
	__u64 id;
	__s32 root;
	__u32 pad;
};

struct rs_bpf_cg {
	__u64 flushes;
	__u64 ns;		/* summed flush time */
	__s32 level;		/* the tracepoint's level, -1 unknown */
	__u32 pad;
};

/* Flushes by the flushed cgroup's level (deeper ones in the last). */
#define RS_BPF_LEVELS 16

struct rs_bpf_level {
	__u64 flushes;
	__u64 ns;
};

/* Indexes into the per-CPU counters array. */
enum {
	RS_BPF_C_UNLOCKED,
	RS_BPF_C_CONTENDED,
	RS_BPF_C_PAIRS,
	RS_BPF_C_UNMATCHED_START,
	RS_BPF_C_UNMATCHED_END,
	RS_BPF_C_WAIT_PAIRS,
	RS_BPF_C_FLUSHES,
	RS_BPF_C_FLUSH_BROKEN,
	RS_BPF_C_MEMCG_REQUESTED,
	RS_BPF_C_MEMCG_PERFORMED,
	RS_BPF_C_MEMCG_FORCED,
	RS_BPF_C_MEMCG_SKIPPED,
	RS_BPF_C_MEMCG_SPANS,
	RS_BPF_C_STACK_ERRORS,
	RS_BPF_C_HIST_FULL,
	RS_BPF_C_FILTERED,
	RS_BPF_C_SELF_NS,	/* ns in rs_unlock after its clock */
	RS_BPF__NR_COUNTERS,
};

/* Kernel frames kept per stack at most (the stack map's value size). */
#define RS_BPF_MAX_DEPTH 64

#endif
