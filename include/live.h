/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstat flush cost seen live (src/live/live.c): the recorder's BPF
 * programs (bpf-spans.h) attached for as long as the caller wants, their
 * maps read into a snapshot on demand. `top` prints the difference of two
 * snapshots, `watch` serves the latest as Prometheus metrics.
 *
 * Memory is fixed after open whatever the run time and the number of
 * cgroups: the kernel maps have fixed sizes (histograms keyed by kernel
 * stack, at most 1024; flushed cgroups in an LRU map of 4096), the
 * snapshot is a fixed-size struct, and the stacks resolved once are at
 * most the stack map's 4096.
 *
 * Every value in a snapshot counts from attach (a Prometheus counter);
 * live_hist__delta() gives an interval's histogram.
 *
 * Use: new -> open (load and attach; says why not) -> sample ... ->
 * delete (detaches: no BPF program, link or map is left behind).
 * Library code: never prints; 0 / -errno with one line in errbuf.
 */
#ifndef RS_LIVE_H
#define RS_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf-spans.h"
#include "rules.h"

/* Busiest cgroups of an interval kept in a snapshot. */
#define LIVE_CGROUPS 32
#define LIVE_PATH_MAX 200

/* A source the programs could not use on this kernel. */
enum live_source {
	LIVE_SRC_RSTAT_TRACEPOINTS,	/* holds, waits (v6.10+) */
	LIVE_SRC_FLUSH_SPANS,		/* flushes: per-CPU runs (v6.15+) */
	LIVE_SRC_MEMCG_TRACEPOINT,	/* memcg flush decisions (v6.13+) */
	LIVE_SRC_CGROUP_LEVEL,		/* flushes by cgroup level */
	LIVE_SRC_KALLSYMS,		/* subsystem and trigger names */
	LIVE_SRC__NR,
};

/* "rstat_tracepoints", ...; "?" out of range. */
const char *live_source_name(enum live_source src);

struct live_cgroup {
	uint64_t id;
	int32_t root, level;
	uint64_t flushes, ns;		/* in the interval */
	char path[LIVE_PATH_MAX];	/* "" when not found */
};

struct live_snap {
	double t;			/* rs_now_s() of the read */
	double elapsed;			/* seconds since attach */
	struct bpf_spans_counts counts;
	/* [kind][subsys + 1]: index 0 unknown, 1.. enum rs_category */
	struct bpf_spans_hist hist[BPF_SPANS__NR_KINDS][RS_CAT__NR + 1];
	/* flushes by [trigger + 1][subsys + 1] (trigger 0: none) */
	uint64_t flushes[RS_TRIG__NR + 1][RS_CAT__NR + 1];
	/*
	 * Lock holds taken per CPU in a flush's loop after yielding the
	 * lock (v6.10-v6.14), and holds of the short lock cpu.stat takes.
	 */
	uint64_t yields, short_holds;
	uint64_t level_flushes[BPF_SPANS_LEVELS];
	uint64_t level_ns[BPF_SPANS_LEVELS];
	/* The busiest cgroups since the previous sample, most flushes first */
	struct live_cgroup cgroups[LIVE_CGROUPS];
	size_t nr_cgroups;
	bool missing[LIVE_SRC__NR];
	const char *method;		/* bpf_spans__method() */
	/* What watching costs: the kernel's time in the programs (when
	 * kernel.bpf_stats_enabled is on) and this process's CPU time. */
	uint64_t prog_ns, prog_runs;
	double self_cpu_s;
	long self_rss_kb;
};

struct live_opts {
	bool no_stacks;		/* cheaper; every subsystem unknown */
	bool cgroup_paths;	/* name the busiest cgroups (top) */
	/* Only flushes of these cgroups (kernfs ids); none: all. */
	const uint64_t *cgroup_ids;
	size_t nr_cgroup_ids;
};

/*
 * A --cgroup PATH of top or watch: its id appended to ids[*nr] (at most
 * max). 0, or -errno with "--cgroup PATH: why" in errbuf.
 */
int live_cgroup_arg(const char *path, uint64_t *ids, size_t *nr, size_t max,
		    char *errbuf, size_t len);

struct live;

struct live *live__new(const struct live_opts *o);
/* Detaches and unloads everything (safe at any point). */
void live__delete(struct live *l);

/*
 * Load the programs and attach them. 0; -EOPNOTSUPP with the reason
 * when BPF cannot work here; -ENOMEM; -errno.
 */
int live__open(struct live *l, char *errbuf, size_t errlen);

/* Read the maps into *snap (the busiest cgroups since the last call). */
int live__sample(struct live *l, struct live_snap *snap, char *errbuf,
		 size_t errlen);

/*
 * What can change while running: the kernel's symbols (a module loaded)
 * and the cgroup tree, read again at the next sample.
 */
void live__reload(struct live *l);

/* Read the kernel symbols now (before a privilege drop); 0 or -errno. */
int live__load_symbols(struct live *l);

/* out = cur - prev, slot by slot (prev NULL: cur). */
void live_hist__delta(struct bpf_spans_hist *out,
		      const struct bpf_spans_hist *cur,
		      const struct bpf_spans_hist *prev);

#endif
