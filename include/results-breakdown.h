/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's reads decomposed in the kernel, as the results keep them
 * ("breakdown", docs/bench-results.md): bench fills it (bench-breakdown.h),
 * the results write and read it, output prints it (breakdown-out.h).
 */
#ifndef RS_RESULTS_BREAKDOWN_H
#define RS_RESULTS_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "breakdown-table.h"
#include "rules.h"

#define BENCH_BD_MAX_FILES 8
#define BENCH_BD_MAX_RUNS 8

struct bench_bd_row {
	uint64_t q[BD_NR_Q];		/* p50, p90, p99 in ns */
	double share;			/* of the reads' summed time */
	uint64_t calls;			/* entries, summed over the reads */
	uint64_t sum_ns;		/* time, summed over the reads */
	char note[BD_NR_Q][24];		/* "2 ticks", "off-CPU", "" */
};

struct bench_bd_file {
	char file[64];
	uint64_t reads;
	uint64_t off_most;		/* reads off the CPU for over half */
	/* off the CPU after a read(2) returned, in off-cpu (summed) */
	uint64_t tail_off_ns;
	/* p50 of the reads as the reader timed them, this pass */
	uint64_t read_p50_ns;
	/* ... and in the timed repetitions (0: none) */
	uint64_t unobserved_p50_ns;
	struct bench_bd_row total;
	struct bench_bd_row part[BD_PART__NR];
	/*
	 * entry/exit (breakdown-table.h), derived: the reader's time of
	 * each read less the kernel's, the reads paired one to one; not
	 * paired when the counts differ (reader_reads: the reader's, 0
	 * unknown).
	 */
	uint64_t reader_reads;
	bool paired;
	struct breakdown_entry entry;
};

struct bench_breakdown {
	char method[96];
	char pass[24];			/* "recorded", "breakdown" */
	unsigned int hz;		/* 0: unknown */
	char hz_from[48];
	/*
	 * The kernel has a tree and a lock per subsystem (v6.16+): a stat
	 * file's read flushes its subsystem's tree alone
	 * (breakdown__file_tree()), so its walk is that subsystem's flush.
	 */
	bool split_trees;
	/* "" when timed; why not otherwise */
	char untimed[BD_PART__NR][192];
	char how[BD_PART__NR][128];
	uint64_t lost, broken;
	struct breakdown_cb_cost cb_cost;	/* calls 0: none timed */
	/* program runs the kernel skipped (breakdown.h) */
	struct breakdown_skips skips;
	/*
	 * When the programs were attached and detached (CLOCK_MONOTONIC
	 * ns, the clock of bpf_ktime_get_ns() and of tracefs's "mono"
	 * trace clock) and the reader timed: for an independent count of
	 * the same events over the same window.
	 */
	uint64_t window_start_ns, window_end_ns;
	int32_t reader_pid;
	/* callbacks outside the reads (reclaim, workers): calls, ns */
	uint64_t outside_calls[BD_PART__NR], outside_ns[BD_PART__NR];
	/* ... by who flushed: [part][trigger + 1], 0 unnamed */
	uint64_t outside_trig_calls[BD_PART__NR][RS_TRIG__NR + 1];
	uint64_t outside_trig_ns[BD_PART__NR][RS_TRIG__NR + 1];
	unsigned int nr_files;
	struct bench_bd_file files[BENCH_BD_MAX_FILES];
	/*
	 * record -p / -- CMD: the processes followed and how their reads
	 * were named (set: written as "follow"; bench has one reader).
	 */
	struct bench_bd_follow {
		bool set;
		uint64_t forks;		/* children followed */
		uint64_t readers_full;	/* children not followed */
		uint64_t events_lost;	/* opens and forks lost */
		uint64_t opens;		/* opens of stat files read */
		uint64_t other;		/* syscalls on other files */
		uint64_t unnamed;	/* syscalls on an fd of unseen open */
		uint64_t files_dropped;	/* stat files past the 8 kept */
	} follow;
};

struct breakdown;
struct breakdown_table;

/* f: a file's figures from the table of its reads. */
void bench_bd_file__from_table(struct bench_bd_file *f, const char *name,
			       const struct breakdown_table *t);
/*
 * The method, sources, losses and the callbacks outside the reads (by
 * who flushed) of a detached breakdown into bd; hz and where it came
 * from.
 */
void bench_breakdown__describe(struct bench_breakdown *bd,
			       struct breakdown *b, unsigned int hz,
			       const char *hz_from);

/*
 * As a JSON document of its own, {"breakdown": {...}} (record keeps it
 * in the recording): *text malloc()ed. 0 or -ENOMEM.
 */
int bench_breakdown__format(const struct bench_breakdown *bd, char **text);
/* ... read back: 0, -EINVAL with what is wrong in errbuf, -ENOMEM. */
int bench_breakdown__parse(struct bench_breakdown *bd, const char *text,
			   size_t len, char *errbuf, size_t errlen);

/*
 * With split trees, the part whose tree a read of file flushes ("memory",
 * "io", "base"); NULL without split trees or for a file that flushes no
 * tree this knows.
 */
const char *bench_breakdown__file_tree(const struct bench_breakdown *bd,
				       const char *file);

struct json_writer;
struct jv;
void bench_breakdown__write_json(const struct bench_breakdown *bd,
				 struct json_writer *jw);
/* 0, or -EINVAL with what is wrong in errbuf. */
int bench_breakdown__read_json(struct bench_breakdown *bd,
			       const struct jv *n, char *errbuf, size_t len);

#endif
