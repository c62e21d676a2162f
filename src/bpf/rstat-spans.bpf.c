// SPDX-License-Identifier: GPL-2.0
/*
 * rstat lock holds, lock waits and flushes timed in the kernel.
 *
 * A span measured between two perf samples contains the cost of writing
 * the first one; here both ends are bpf_ktime_get_ns() and the span goes
 * straight into a log2 histogram in a map, as bcc's funclatency does, so
 * nothing is written out per event.
 *
 * What sits inside a measured hold is kept to the minimum: the locked
 * program looks its per-CPU slot up (an inlined array access) before it
 * reads the clock and only stores the time after it; the unlock program
 * reads the clock first. Everything else (tracepoint fields, the stack id
 * that names the subsystem, the histogram update, the flush and memcg
 * bookkeeping) runs after the unlock's timestamp. The kernel's own
 * tracepoint dispatch (building the record before calling us) is the
 * only cost left inside, the same one bpftrace pays.
 *
 * The lock is a spinlock taken with IRQs off, so the locked -> unlock pair
 * of one hold runs on one CPU with nothing in between that could take an
 * rstat lock: a per-CPU slot pairs them without a hash lookup. Waits and
 * flushes span places where the task may migrate, so they are kept per
 * task.
 *
 * Field offsets come from tracefs at load time (.rodata), not from a
 * vmlinux.h: the record layout is what tracefs says on the running kernel.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "rstat-spans.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * What a tracepoint program returns. 0 would tell the kernel to drop the
 * hit for every perf event on that tracepoint, ours and anyone else's on
 * the machine (perf_trace_run_bpf_submit()): timing must not blind them.
 */
#define KEEP_EVENT 1

/* Set by the loader before load; the defaults are v6.18's layout. */
const volatile __u32 off_root = 8, off_id = 16, off_cpu = 24;
const volatile __u32 off_m_force = 24, off_m_needs = 25;
const volatile __s32 first_cpu;		/* first and last possible CPU */
const volatile __s32 last_cpu;
const volatile __u32 flush_spans = 1;	/* v6.15+: a lock per CPU */
const volatile __u32 filter_tgid, filter_cgroup;
const volatile __u32 want_stacks = 1;
const volatile __u32 stack_skip;
/* Live views: flushes per cgroup and level (record leaves them off). */
const volatile __u32 want_cgroups;
const volatile __s32 off_level = -1;	/* -1: no level field */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rs_bpf_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_BPF__NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct rs_bpf_key);
	__type(value, struct rs_bpf_hist);
} hists SEC(".maps");

/* A zeroed histogram to create entries from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rs_bpf_hist);
} zero_hist SEC(".maps");

/* The value size is set at load time from the depth asked for. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__uint(value_size, RS_BPF_MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* Flushes per flushed cgroup, when want_cgroups. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rs_bpf_cg_key);
	__type(value, struct rs_bpf_cg);
} cgroup_flushes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RS_BPF_LEVELS);
	__type(key, __u32);
	__type(value, struct rs_bpf_level);
} levels SEC(".maps");

/* tid -> time of its cgroup_rstat_lock_contended. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} waits SEC(".maps");

/* How many waits are open, so that unlocks skip the lookup when none. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} waits_open SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct rs_bpf_flush);
} flushes SEC(".maps");

/* tid -> time of a memcg_flush_stats that will flush. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} memcg_open SEC(".maps");

/* tid -> time it entered the probed flush function (kprobe mode). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} func_open SEC(".maps");

/* Filters: the processes (tgid) and flushed cgroups (id) to time. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u8);
} cgroups SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		(*c)++;
}

static __always_inline __s32 read_s32(void *ctx, __u32 off)
{
	__s32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

static __always_inline __u64 read_u64(void *ctx, __u32 off)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

static __always_inline __u8 read_u8(void *ctx, __u32 off)
{
	__u8 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

/* The process and the flushed cgroup pass the filters (rstat events). */
static __always_inline int wanted(void *ctx)
{
	if (filter_tgid) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (!bpf_map_lookup_elem(&tgids, &tgid))
			return 0;
	}
	if (filter_cgroup) {
		__u64 id = read_u64(ctx, off_id);

		if (!bpf_map_lookup_elem(&cgroups, &id))
			return 0;
	}
	return 1;
}

/* floor(log2(v)) + 1, 0 for 0: hist__bucket_index() (no clz in BPF). */
static __always_inline __u32 slot_of(__u64 v)
{
	__u32 r, shift;

	if (!v)
		return 0;
	r = (v > 0xffffffffULL) << 5;
	v >>= r;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r + 1;
}

/* The kernel stack here, which names the subsystem; -1 without one. */
static __always_inline __s32 stack_of(void *ctx)
{
	long sid;

	if (!want_stacks)
		return -1;
	sid = bpf_get_stackid(ctx, &stacks, stack_skip & 0xff);
	if (sid < 0) {
		count(RS_BPF_C_STACK_ERRORS);
		return -1;
	}
	return (__s32)sid;
}

static __always_inline void hist_add(struct rs_bpf_key *key, __u64 v)
{
	struct rs_bpf_hist *h;
	__u32 zero = 0;
	__u64 i;

	h = bpf_map_lookup_elem(&hists, key);
	if (!h) {
		struct rs_bpf_hist *z = bpf_map_lookup_elem(&zero_hist, &zero);

		if (!z)
			return;
		/* EEXIST: another CPU created it meanwhile; fine. */
		bpf_map_update_elem(&hists, key, z, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, key);
		if (!h) {
			count(RS_BPF_C_HIST_FULL);
			return;
		}
	}
	/* Per-CPU values: no other program updates this copy now. */
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	i = slot_of(v);
	if (i > RS_BPF_SLOTS - 1)
		i = RS_BPF_SLOTS - 1;
	/*
	 * One register for the bound and the index: clang checks a copy and
	 * indexes with another, which v6.1's verifier refuses ("R0 unbounded
	 * memory access") though later ones follow it.
	 */
	asm volatile("" : "+r"(i));
	h->slots[i]++;
}

SEC("tracepoint/cgroup/cgroup_rstat_lock_contended")
int rs_contended(void *ctx)
{
	__u32 tid, zero = 0;
	__s64 *open;
	__u64 ts;

	if (!wanted(ctx))
		return KEEP_EVENT;
	ts = bpf_ktime_get_ns();
	tid = (__u32)bpf_get_current_pid_tgid();
	count(RS_BPF_C_CONTENDED);
	/* A second contended of one task replaces the first (rare). */
	if (bpf_map_update_elem(&waits, &tid, &ts, BPF_ANY))
		return KEEP_EVENT;
	open = bpf_map_lookup_elem(&waits_open, &zero);
	if (open)
		__sync_fetch_and_add(open, 1);
	return KEEP_EVENT;
}

SEC("tracepoint/cgroup/cgroup_rstat_locked")
int rs_locked(void *ctx)
{
	struct rs_bpf_slot *slot;
	__u32 zero = 0;

	/* Before the clock: the lookup stays out of the hold. */
	slot = bpf_map_lookup_elem(&slots, &zero);
	if (!slot)
		return KEEP_EVENT;
	if ((filter_tgid || filter_cgroup) && !wanted(ctx)) {
		slot->filtered = 1;
		count(RS_BPF_C_FILTERED);
		return KEEP_EVENT;
	}
	slot->ts = bpf_ktime_get_ns();
	slot->nlocked++;
	slot->filtered = 0;
	return KEEP_EVENT;
}

/* A flush of cgroup (root, id) at level took ns (live views only). */
static __always_inline void cgroup_add(__s32 root, __u64 id, __s32 level,
				       __u64 ns)
{
	struct rs_bpf_cg_key ck = { .id = id, .root = root };
	struct rs_bpf_level *lv;
	struct rs_bpf_cg *cg, ncg = {};
	__u32 li;

	li = level < 0 ? 0 : (__u32)level;
	if (li > RS_BPF_LEVELS - 1)
		li = RS_BPF_LEVELS - 1;
	lv = bpf_map_lookup_elem(&levels, &li);
	if (lv) {
		lv->flushes++;
		lv->ns += ns;
	}
	cg = bpf_map_lookup_elem(&cgroup_flushes, &ck);
	if (!cg) {
		ncg.level = level;
		bpf_map_update_elem(&cgroup_flushes, &ck, &ncg, BPF_NOEXIST);
		cg = bpf_map_lookup_elem(&cgroup_flushes, &ck);
		if (!cg)
			return;
	}
	/* One entry for every CPU: flushes of one cgroup may race. */
	__sync_fetch_and_add(&cg->flushes, 1);
	__sync_fetch_and_add(&cg->ns, ns);
}

/* The end of a flush (its last per-CPU unlock) at ts. */
static __always_inline void flush_done(__u32 tid, __u64 start, __u64 ts,
				       struct rs_bpf_key *key, __u64 id,
				       __s32 level)
{
	__u64 *m;

	key->kind = RS_BPF_FLUSH;
	hist_add(key, ts > start ? ts - start : 0);
	count(RS_BPF_C_FLUSHES);
	if (want_cgroups)
		cgroup_add(key->root, id, level, ts > start ? ts - start : 0);
	/* The memcg flush this task asked for, if it did, ends here too. */
	m = bpf_map_lookup_elem(&memcg_open, &tid);
	if (m) {
		__u64 mstart = *m;

		key->kind = RS_BPF_MEMCG;
		hist_add(key, ts > mstart ? ts - mstart : 0);
		count(RS_BPF_C_MEMCG_SPANS);
		bpf_map_delete_elem(&memcg_open, &tid);
	}
}

/*
 * Flushes (v6.15+): css_rstat_flush() takes the lock once per possible
 * CPU, in order; the run from the first possible CPU's lock to the last
 * one's unlock, by one task on one cgroup, is one flush.
 */
static __always_inline void flush_step(__u32 tid, __s32 cpu, __s32 root,
				       __u64 id, __s32 level, __u64 start,
				       __u64 ts, struct rs_bpf_key *key)
{
	struct rs_bpf_flush *f, nf;

	if (cpu == first_cpu) {
		if (cpu == last_cpu) {
			flush_done(tid, start, ts, key, id, level);
			return;
		}
		nf.start = start;
		nf.id = id;
		nf.root = root;
		nf.last_cpu = cpu;
		nf.stack_id = key->stack_id;
		nf.pad = 0;
		bpf_map_update_elem(&flushes, &tid, &nf, BPF_ANY);
		return;
	}
	f = bpf_map_lookup_elem(&flushes, &tid);
	if (!f) {
		/* Attached in the middle of a flush, or a lost event. */
		count(RS_BPF_C_FLUSH_BROKEN);
		return;
	}
	if (f->root != root || f->id != id || cpu <= f->last_cpu) {
		count(RS_BPF_C_FLUSH_BROKEN);
		bpf_map_delete_elem(&flushes, &tid);
		return;
	}
	f->last_cpu = cpu;
	if (cpu == last_cpu) {
		__u64 fstart = f->start;

		bpf_map_delete_elem(&flushes, &tid);
		flush_done(tid, fstart, ts, key, id, level);
	}
}

SEC("tracepoint/cgroup/cgroup_rstat_unlock")
int rs_unlock(void *ctx)
{
	__u64 ts = bpf_ktime_get_ns();	/* first: the end of the hold */
	struct rs_bpf_key key = {};
	struct rs_bpf_slot *slot;
	__u32 zero = 0, tid;
	__u64 start, id, opened;
	__s32 cpu, root, level = -1;
	__s64 *open;

	slot = bpf_map_lookup_elem(&slots, &zero);
	if (!slot)
		return KEEP_EVENT;
	if (slot->filtered) {
		slot->filtered = 0;
		return KEEP_EVENT;
	}
	count(RS_BPF_C_UNLOCKED);
	if (slot->nlocked == slot->nclosed) {
		count(RS_BPF_C_UNMATCHED_END);
		return KEEP_EVENT;
	}
	opened = slot->nlocked - slot->nclosed;
	if (opened > 1) {
		__u32 idx = RS_BPF_C_UNMATCHED_START;
		__u64 *c = bpf_map_lookup_elem(&counters, &idx);

		if (c)
			*c += opened - 1;
	}
	slot->nclosed = slot->nlocked;
	start = slot->ts;

	root = read_s32(ctx, off_root);
	cpu = read_s32(ctx, off_cpu);
	id = read_u64(ctx, off_id);
	tid = (__u32)bpf_get_current_pid_tgid();

	key.kind = RS_BPF_HOLD;
	key.root = root;
	key.short_lock = cpu < 0;
	key.stack_id = -2;
	/*
	 * A flush takes the lock of each possible CPU in one loop, so every
	 * unlock after its first CPU's has that unlock's stack: reuse it.
	 * Unwinding is the programs' main cost (tens of us a stack on a
	 * shared VM): one a flush, not one a CPU.
	 */
	if (flush_spans && cpu >= 0 && cpu != first_cpu) {
		struct rs_bpf_flush *f = bpf_map_lookup_elem(&flushes, &tid);

		if (f && f->id == id && f->root == root && cpu > f->last_cpu)
			key.stack_id = f->stack_id;
	}
	/* After the timestamp: the unwinding stays out of the hold. */
	if (key.stack_id == -2)
		key.stack_id = stack_of(ctx);
	hist_add(&key, ts > start ? ts - start : 0);
	count(RS_BPF_C_PAIRS);

	open = bpf_map_lookup_elem(&waits_open, &zero);
	if (open && *open > 0) {
		__u64 *w = bpf_map_lookup_elem(&waits, &tid);

		if (w) {
			__u64 wstart = *w;

			key.kind = RS_BPF_WAIT;
			hist_add(&key, start > wstart ? start - wstart : 0);
			count(RS_BPF_C_WAIT_PAIRS);
			bpf_map_delete_elem(&waits, &tid);
			__sync_fetch_and_add(open, -1);
		}
	}
	if (want_cgroups && off_level >= 0)
		level = read_s32(ctx, (__u32)off_level);
	if (flush_spans && cpu >= 0)
		flush_step(tid, cpu, root, id, level, start, ts, &key);
	/*
	 * What this program cost after the hold ended: the per-event cost
	 * the live views report, measured where no toggle of the kernel's
	 * BPF statistics (every program's, machine-wide) is needed.
	 */
	{
		__u32 idx = RS_BPF_C_SELF_NS;
		__u64 *c = bpf_map_lookup_elem(&counters, &idx);

		if (c)
			*c += bpf_ktime_get_ns() - ts;
	}
	return KEEP_EVENT;
}

SEC("tracepoint/memcg/memcg_flush_stats")
int rs_memcg_flush(void *ctx)
{
	__u8 force, needs;
	__u32 tid;
	__u64 ts;

	/* The event's id is a memcg id, not a cgroup id: tgids only. */
	if (filter_tgid) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (!bpf_map_lookup_elem(&tgids, &tgid))
			return KEEP_EVENT;
	}
	ts = bpf_ktime_get_ns();
	force = read_u8(ctx, off_m_force);
	needs = read_u8(ctx, off_m_needs);
	count(RS_BPF_C_MEMCG_REQUESTED);
	if (force)
		count(RS_BPF_C_MEMCG_FORCED);
	if (!force && !needs) {
		/* Fires before the skip check: no flush follows. */
		count(RS_BPF_C_MEMCG_SKIPPED);
		return KEEP_EVENT;
	}
	count(RS_BPF_C_MEMCG_PERFORMED);
	tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&memcg_open, &tid, &ts, BPF_ANY);
	return KEEP_EVENT;
}

/*
 * Kernels before v6.10 have no rstat tracepoints: a flush is then timed
 * as bcc's funclatency times a function, from a kprobe on the flush
 * function (cgroup_rstat_flush_locked, as thread 002 measured it) to its
 * kretprobe, per task. The loader attaches these to that function by
 * name; they never attach on their own. The stack at the return names
 * the subsystem and who asked, as the unlock's does.
 */
SEC("kprobe")
int rs_func_entry(void *ctx)
{
	__u32 tid;
	__u64 ts;

	if (filter_tgid) {
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;

		if (!bpf_map_lookup_elem(&tgids, &tgid))
			return 0;
	}
	tid = (__u32)bpf_get_current_pid_tgid();
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&func_open, &tid, &ts, BPF_ANY);
	return 0;
}

SEC("kretprobe")
int rs_func_return(void *ctx)
{
	__u64 ts = bpf_ktime_get_ns();	/* first: the end of the call */
	struct rs_bpf_key key = { 0 };
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *start = bpf_map_lookup_elem(&func_open, &tid);
	__u64 t0;

	if (!start)
		return 0;
	t0 = *start;
	bpf_map_delete_elem(&func_open, &tid);
	key.kind = RS_BPF_FLUSH;
	key.stack_id = stack_of(ctx);
	hist_add(&key, ts > t0 ? ts - t0 : 0);
	count(RS_BPF_C_FLUSHES);
	return 0;
}
