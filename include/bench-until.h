/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench --until (src/bench/until.c): repeat until the run resolves a
 * given difference, or a time limit passes, or a cap of repetitions is
 * reached. The resolution is the difference the repetitions could show:
 * Welch's detectable difference (5%, 80% power) of the per-repetition
 * p50 of the primary metric, in percent of the base's mean p50, as
 * compare says "could not resolve less than" of a figure per repetition.
 * Without variants the run is its own base (the difference between two
 * runs like it); with variants, the worst of each variant against the
 * first.
 */
#ifndef RS_BENCH_UNTIL_H
#define RS_BENCH_UNTIL_H

#include <stdbool.h>
#include <stddef.h>

struct bench_results;

/* --until RES[,SECONDS[,METRIC]] */
struct bench_until {
	double target_pct;	/* 0: no --until */
	double max_s;		/* the time limit */
	unsigned int max_reps;	/* repetitions (of each variant) at most */
	/* A metric's name or stat file ("cpu.stat"); "": the first. */
	char metric[64];
};

#define BENCH_UNTIL_MAX_S 600
#define BENCH_UNTIL_MAX_REPS 100
/* The repetitions (of each variant) before a resolution ends a run. */
#define BENCH_UNTIL_MIN_REPS 3

/* What ended a run, as the results name it. */
enum bench_until_end {
	BENCH_UNTIL_RUNNING,
	BENCH_UNTIL_RESOLVED,	/* "resolution" */
	BENCH_UNTIL_TIME,	/* "time" */
	BENCH_UNTIL_REPS,	/* "repetitions" */
};

struct bench_until_state {
	char metric[160];	/* "read_ns cgroup.stat", "" before one */
	double resolution_pct;	/* NAN: fewer than 2 repetitions */
	unsigned int reps;	/* repetitions (of each variant) done */
	double elapsed_s;
	enum bench_until_end end;
};

/*
 * Parse "RES[,SECONDS[,METRIC]]" (RES a percentage, "%" optional, above
 * 0 and at most 1000; SECONDS above 0; METRIC a metric's name or its
 * stat file, of [A-Za-z0-9._-]): 0, or -EINVAL with why.
 */
int bench_until__parse(struct bench_until *u, const char *arg, char *why,
		       size_t len);

/*
 * After a repetition of each of res[0..n) (the base first), reps of them
 * done, elapsed_s since the run began, with min_reps asked for (-r):
 * st's resolution and, when the run ends here, st->end. 1 when it ends,
 * 0 when it goes on, -ENOENT when the results have no metric u->metric
 * names (the metrics they have in why).
 */
int bench_until__check(const struct bench_until *u, unsigned int min_reps,
		       struct bench_results *const *res, size_t n,
		       unsigned int reps, double elapsed_s,
		       struct bench_until_state *st, char *why, size_t len);

/* The parameters of r that say so (until_*): 0 or -ENOMEM. */
int bench_until__save(struct bench_results *r, const struct bench_until *u,
		      const struct bench_until_state *st);
/* And back: 0, or -ENOENT when r ran without --until. */
int bench_until__load(const struct bench_results *r, struct bench_until *u,
		      struct bench_until_state *st);

const char *bench_until__end_name(enum bench_until_end end);

#endif
