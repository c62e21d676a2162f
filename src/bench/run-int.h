/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside a bench run (bench-run.h): the run's state, and what the
 * scenarios (scenarios.c) and the run (run.c) use of its passes and
 * processes (pass.c).
 */
#ifndef RS_BENCH_RUN_INT_H
#define RS_BENCH_RUN_INT_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "bench-cgroup.h"
#include "bench-results.h"
#include "bench-run.h"
#include "bench-workload.h"

#define MAX_PROCS 4096
#define CHURN_FILE_BYTES (64ULL << 20)
#define CHURN_ANON_BYTES (4ULL << 20)
#define CHARGE_BYTES (64ULL << 10)
#define FAULT_BYTES (16ULL << 20)
#define WARMUP_MS 300

struct bench_recording;
struct workdir;

/* What the run holds, for the one cleanup path. */
struct bench_run {
	const struct bench_params *p;
	struct bench_cg *cg;
	struct bench_results *res;
	struct bench_proc *procs[MAX_PROCS];
	unsigned int nr_procs;
	struct bench_recording *recorder;
	struct workdir *workdir;	/* the work files */
	char recording[PATH_MAX];
	struct bench_cgroup_counts before;
	time_t started;
	/* The machine's load at the start (-1: unknown), steal so far. */
	double loadavg_before, steal_before_s;
	unsigned int nr_cpus;
	const struct bench_ops *ops;
	int outdir_fd;		/* -o DIR (outfile__dir_open), or -1 */
	bool recorder_stopped;	/* its file complete, or its error said */
	/* The timed repetitions planned: p->reps, more with --until. */
	unsigned int reps;
	struct timespec t0;	/* CLOCK_MONOTONIC at the start */
	struct bench_until_state until;
};


/* The stop flag bench__stop() sets; scenarios look at it between steps. */
extern volatile sig_atomic_t bench_stop;

void bench_run__error(struct bench_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_run__note(struct bench_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_run__progress(const struct bench_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void bench_run__stop_procs(struct bench_run *run);
int bench_run__start_in(struct bench_run *run, const char *rel,
			int (*fn)(void *), void *arg, struct bench_proc **out);
int bench_run__wait(struct bench_run *run, struct bench_proc *proc,
		    struct rusage *ru, double *real_s);
int bench_run__nap(double ms);

unsigned int bench_run__nr_passes(const struct bench_run *run);
bool bench_run__recorded_pass(const struct bench_run *run, unsigned int rep);
/* The pass whose reads are decomposed (breakdown: the last one). */
bool bench_run__breakdown_pass(const struct bench_run *run, unsigned int rep);
const char *bench_run__pass_name(const struct bench_run *run,
				 unsigned int rep, char *buf, size_t len);
int bench_run__pass_start(struct bench_run *run, unsigned int rep);
int bench_run__pass_end(struct bench_run *run, unsigned int rep, int err);
int bench_run__begin_rep(struct bench_run *run, unsigned int rep,
			 double real, double user, double sys);
int bench_run__read(struct bench_run *run, unsigned int pass, char **paths,
		    char **names, unsigned int nr, uint64_t reads,
		    bool interleave);
/* The timed repetitions' p50 of file's reads, their median; 0: none. */
uint64_t bench_run__reps_p50(const struct bench_results *res,
			     const char *file);

/* For the run's end (run.c): the recorder stopped, then let go. */
int bench_run__stop_recorder(struct bench_run *run);
void bench_run__end_recorder(struct bench_run *run, bool discard);
/* The progress line taken off the terminal. */
void bench_run__progress_clear(const struct bench_run *run);

/* scenarios.c */
int bench_scenario__run(struct bench_run *run);

#endif /* RS_BENCH_RUN_INT_H */
