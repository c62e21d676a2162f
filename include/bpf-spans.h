/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstat lock holds, lock waits and flushes timed and aggregated in the
 * kernel by a BPF program on the rstat tracepoints (src/bpf/
 * rstat-spans.bpf.c), as bcc's funclatency times functions: both ends of
 * a span are bpf_ktime_get_ns() and the span goes into a log2 histogram in
 * a map, so no record is written between them and the recorder's cost
 * stays out of the figure (docs/performance.md, "Observer effect: spans
 * timed in the kernel").
 *
 * What is timed (docs/kernel-rstat.md, "Tracepoints"):
 *   hold   cgroup:cgroup_rstat_locked -> cgroup_rstat_unlock on one CPU
 *          (the lock is a spinlock taken with IRQs off);
 *   wait   cgroup_rstat_lock_contended -> cgroup_rstat_locked, per task;
 *   flush  v6.15+: the first possible CPU's locked -> the last one's
 *          unlock, one task and cgroup: css_rstat_flush()'s loop;
 *   memcg  memcg:memcg_flush_stats (v6.13+) that will flush (force or
 *          needs_flush) -> the end of that task's next flush.
 * Before v6.10, which has no rstat tracepoints, where kprobes can be placed:
 *   flush  BPF_SPANS_FLUSH_FUNC's entry -> its return, per task, as bcc's
 *          funclatency times it (thread 002's figures): no holds nor
 *          waits then (their lock is taken inside it).
 * Each span is keyed by the kernel stack at its unlock (return), taken after the
 * end timestamp, by the hierarchy (root: 0 = v2) and by whether the
 * tracepoint's cpu was -1 (the short lock cpu.stat takes after a flush
 * on v6.15+). bpf_spans__read() names the stacks' frames from kallsyms;
 * which subsystem a stack's flush belongs to is analysis's to say, with
 * the rule table (span_classifier in kernel-spans.h): the flush's caller
 * on v6.16+, where each subsystem has its own lock.
 *
 * Use: new -> open (load; says why BPF cannot work here) -> attach ->
 * run the workload -> read (as often as wanted) -> delete (detaches).
 *
 * Library code: never prints; 0 / -errno, with one line in errbuf. When
 * BPF cannot be used -EOPNOTSUPP says so and why ("built without BPF",
 * "not permitted: ...", "tracepoint cgroup:cgroup_rstat_locked missing
 * (needs v6.10+)", ...): the caller falls back to perf and says the spans
 * then include the recorder's cost.
 */
#ifndef RS_BPF_SPANS_H
#define RS_BPF_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>


/* The function kprobes time where the kernel has no rstat tracepoints. */
#define BPF_SPANS_FLUSH_FUNC "cgroup_rstat_flush_locked"

enum bpf_spans_kind {
	BPF_SPANS_HOLD,
	BPF_SPANS_WAIT,
	BPF_SPANS_FLUSH,
	BPF_SPANS_MEMCG,
	BPF_SPANS__NR_KINDS,
};

/* "hold", "wait", "flush", "memcg-flush"; "?" out of range. */
const char *bpf_spans_kind_name(enum bpf_spans_kind k);

/*
 * log2 buckets numbered as hist__bucket_index() does: bucket 0 holds 0,
 * bucket i >= 1 holds [2^(i-1), 2^i - 1] ns.
 */
#define BPF_SPANS_SLOTS 65

struct bpf_spans_hist {
	uint64_t count, sum, min, max;	/* ns; min, max 0 if empty */
	uint64_t slots[BPF_SPANS_SLOTS];
};

/*
 * The bucket holding the nearest-rank percentile q (0..100) as
 * [*low, *high] ns (bpftrace prints it as "[256, 512)": high here is 511).
 * q <= 0 is the bucket of min, an empty hist gives 0, 0. Returns *low.
 */
uint64_t bpf_spans_hist__percentile(const struct bpf_spans_hist *h,
				    double q, uint64_t *low, uint64_t *high);

/* Add src's spans to dst (the sum saturates at UINT64_MAX). */
void bpf_spans_hist__merge(struct bpf_spans_hist *dst,
			   const struct bpf_spans_hist *src);

struct bpf_spans_opts {
	/* Only these processes (tgids); none: every process. */
	const pid_t *tgids;
	size_t nr_tgids;
	/* Only flushes of these cgroups (the tracepoints' id); none: all. */
	const uint64_t *cgroup_ids;
	size_t nr_cgroup_ids;
	/* Kernel frames kept per stack: 0 is 12, at most 64. */
	unsigned int stack_depth;
	/* No stacks: cheaper unlocks, but every subsys is unknown (-1). */
	bool no_stacks;
	/* NULL: /proc/kallsyms. */
	const char *kallsyms;
	/*
	 * Also count flushes per flushed cgroup and per cgroup level (the
	 * live views, top and watch): a few map updates per flush.
	 */
	bool per_cgroup;
};

struct bpf_spans;

/* Whether the tool was built with BPF (clang, bpftool, libbpf). */
bool bpf_spans__built(void);

/* o may be NULL (everything, defaults; copied). NULL when out of memory. */
struct bpf_spans *bpf_spans__new(const struct bpf_spans_opts *o);
void bpf_spans__delete(struct bpf_spans *s);

/*
 * Check that BPF can work here, read the tracepoint layouts from tracefs
 * and load the program. 0; -EOPNOTSUPP with the reason when BPF is not
 * available (built without it, not permitted, tracepoints missing, the
 * verifier refused); -EINVAL on a bad option; -ENOMEM.
 */
int bpf_spans__open(struct bpf_spans *s, char *errbuf, size_t errlen);

/* Attach to the tracepoints (after open). 0 or -errno (-EOPNOTSUPP...). */
int bpf_spans__attach(struct bpf_spans *s, char *errbuf, size_t errlen);

/*
 * Snapshot the maps into the results below and resolve new stacks. May be
 * called while attached. 0, -EINVAL (not opened), -ENOMEM or -errno.
 */
int bpf_spans__read(struct bpf_spans *s, char *errbuf, size_t errlen);

/*
 * Stop timing (the programs stay loaded, the maps readable): a read after
 * it sees counters and histograms of the same spans, none half-added.
 */
void bpf_spans__detach(struct bpf_spans *s);

/* Zero every histogram and counter in the kernel (e.g. between passes). */
int bpf_spans__reset(struct bpf_spans *s);

struct bpf_spans_counts {
	/* events that passed the filters */
	uint64_t locked, unlocked, contended;
	uint64_t pairs, unmatched_start, unmatched_end;	/* holds */
	uint64_t wait_pairs;
	/* broken: a run of per-CPU locks cut off */
	uint64_t flushes, flush_broken;
	uint64_t memcg_requested, memcg_performed, memcg_forced;
	uint64_t memcg_skipped, memcg_spans;
	uint64_t stack_errors;	/* unlocks whose stack was not kept */
	uint64_t hist_full;	/* spans lost: the histogram map was full */
	uint64_t filtered;	/* locked events the filters left out */
	/* holds whose stack named no subsystem: set by the classifier */
	uint64_t unresolved;
	/*
	 * ns the unlock program ran after its clock (stack, histograms,
	 * bookkeeping): divided by pairs, its cost per hold outside it.
	 */
	uint64_t self_ns;
};

/*
 * What the spans are timed on, after open: "rstat tracepoints", or
 * "kprobes on cgroup_rstat_flush_locked" on kernels before v6.10.
 */
const char *bpf_spans__method(const struct bpf_spans *s);

/* As of the last bpf_spans__read(). */
void bpf_spans__counts(const struct bpf_spans *s,
		       struct bpf_spans_counts *c);

/* One histogram per (kind, kernel stack, root, short lock). */
struct bpf_spans_row {
	enum bpf_spans_kind kind;
	int32_t root;			/* hierarchy id, 0 = v2 */
	bool short_lock;		/* the tracepoint's cpu was -1 */
	const char *const *frames;	/* leaf first; interned */
	uint32_t nr_frames;		/* 0: no stack */
	struct bpf_spans_hist hist;
};

/* Rows as of the last read; valid until the next read or delete. */
void bpf_spans__rows(const struct bpf_spans *s,
		     const struct bpf_spans_row **rows, size_t *nr);

/* A subsystem that stands for every row of a kind (kernel-spans.h). */
#define BPF_SPANS_ANY (-2)


/*
 * Forget the resolved stacks and kernel symbols: the next read resolves
 * them again (a module loaded meanwhile). Rows are invalid until then.
 */
void bpf_spans__forget_symbols(struct bpf_spans *s);

/*
 * Read the kernel's symbols now rather than at the first stack (before
 * dropping the privileges kptr_restrict asks for). 0, -ENOENT (no
 * symbols readable: subsystems stay unknown), -ENOMEM.
 */
int bpf_spans__load_symbols(struct bpf_spans *s);

/*
 * Name the stacks from this kallsyms text (len bytes, kept by the caller
 * until the next read) rather than by reading opts.kallsyms or
 * /proc/kallsyms again: a recorder passes what its recording embeds.
 */
void bpf_spans__set_kallsyms_text(struct bpf_spans *s, const char *text,
				  size_t len);

/* Which sources the programs could use here, after open. */
struct bpf_spans_sources {
	bool lock_tracepoints;	/* cgroup:cgroup_rstat_locked, ... */
	bool memcg_tracepoint;	/* memcg:memcg_flush_stats timed */
	bool flush_spans;	/* flushes as runs of per-CPU locks (6.15+) */
	bool kprobes;		/* flushes timed by kprobes instead */
	bool levels;		/* the tracepoints carry the cgroup level */
	bool kallsyms;		/* stacks resolved: subsystems named */
};

void bpf_spans__sources(const struct bpf_spans *s,
			struct bpf_spans_sources *out);

/* Flushes of one cgroup since attach (opts.per_cgroup). */
struct bpf_spans_cgroup {
	uint64_t id;
	int32_t root;			/* hierarchy, 0 = v2 */
	int32_t level;			/* -1 unknown */
	uint64_t flushes, ns;
};

#define BPF_SPANS_LEVELS 16

/*
 * Copy up to max per-cgroup entries into out (*nr of them; the map holds
 * at most 4096, the least recently flushed evicted first), and the
 * flushes and their time by level (the last level holds the deeper
 * ones). 0 or -errno; -EINVAL unless opened with per_cgroup.
 */
int bpf_spans__read_cgroups(struct bpf_spans *s, struct bpf_spans_cgroup *out,
			    size_t max, size_t *nr,
			    uint64_t level_flushes[BPF_SPANS_LEVELS],
			    uint64_t level_ns[BPF_SPANS_LEVELS]);

/*
 * The time the kernel spent in our programs and how many times they ran
 * (summed over the programs): only counted while the kernel's BPF run
 * statistics are on (sysctl kernel.bpf_stats_enabled=1), 0 otherwise.
 */
int bpf_spans__prog_stats(const struct bpf_spans *s, uint64_t *run_ns,
			  uint64_t *runs);

#endif
