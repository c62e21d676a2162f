/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bench run (`rstat-analyze bench`): a scenario with its parameters,
 * run in cgroups of its own, timed, optionally recorded (the recorder
 * library, in this process), its repetitions' figures kept for
 * `compare`. Everything the run creates is undone on every exit path.
 *
 * The run prints nothing: it speaks through struct bench_ops, whose
 * members the command supplies (and prints).
 */
#ifndef RS_BENCH_RUN_H
#define RS_BENCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench-accuracy.h"
#include "bench-until.h"
#include "vm.h"

#define BENCH_MAX_FILES 8

struct bench_results;

enum scenario { SC_STAT_READ, SC_MANY_CGROUPS, SC_PIPE, SC_FAULT, SC_ACCURACY };

extern const char *const scenario_names[SC_ACCURACY + 1];

extern const char *const kind_names[ACC_BOTH + 1];

enum updater { UPD_MEMORY, UPD_CPU, UPD_BOTH };

extern const char *const updater_names[UPD_BOTH + 1];

/* pipe's PSI accounting: on and off in each repetition, or one of them. */
enum psi_mode { PSI_BOTH, PSI_ON, PSI_OFF };

extern const char *const psi_names[PSI_OFF + 1];

struct bench_params {
	struct vm_opts vm;	/* --kernel: once per kernel, in a VM */
	enum scenario scenario;
	bool main_job;		/* no scenario named */
	unsigned int reps;	/* with until: the least */
	struct bench_until until;	/* --until; target_pct 0: none */
	bool record;
	/*
	 * The reads decomposed in the kernel (bench-breakdown.h): in the
	 * recorded pass with record, else in one more pass of their own.
	 */
	bool breakdown;
	const char *json;
	const char *outdir;
	/*
	 * -o DIR takes the recording alone, the results going to
	 * ops->results only: a variant's last pass (bench__run_variants()).
	 */
	bool outdir_recording_only;
	const char *root;
	bool keep;
	bool allow_shared_dir;	/* -o DIR may be another user's */
	unsigned int children;	/* 0: the scenario's default */
	unsigned int depth;
	enum updater updater;
	uint64_t memory_max;	/* 0: none */
	char *files[BENCH_MAX_FILES];
	unsigned int nr_files;
	char *files_buf;	/* --files split, argv left as it was */
	uint64_t reads;
	bool interleave;
	unsigned int cgroups;
	uint64_t round_trips;
	enum psi_mode psi;
	double duration;
	enum acc_kind kind;
	bool spread;
	double interval_ms;
	double rate;
	uint64_t step;
	bool after_flush;
	int argc;
	char **argv;
	/* --variant: several workloads in one run (bench__run_variants()) */
	struct bench_variant *variants;
	size_t nr_variants;
	bool random_order;	/* randomised blocks, not ABAB */
	uint64_t seed;		/* of random_order */
	char why[512];	/* why a bench_params__*() refused a value */
};

/* A variant's name: a directory name in -o DIR, [A-Za-z0-9._-], no dot first. */
#define BENCH_VARIANT_NAME_MAX 64
#define BENCH_MAX_VARIANTS 8

/*
 * One variant of the experiment: the run's options with the variant's own
 * on top (p), run one repetition at a time, with no output of its own.
 */
struct bench_variant {
	char name[BENCH_VARIANT_NAME_MAX + 1];
	char **opts;		/* the variant's options, as given */
	size_t nr_opts;
	char *opts_buf;		/* what opts point into */
	struct bench_params p;
};

/* The defaults; argv as bench got it (argv[1]: the scenario, if any). */
void bench_params__init(struct bench_params *p, int argc, char **argv);
/* The scenario's own defaults for what no option gave. */
void bench_params__finish(struct bench_params *p);
void bench_params__free(struct bench_params *p);
/*
 * Option values: 0, or -EINVAL with why in p->why. A count is 1 to max,
 * a number above 0 up to max, a size has an optional K, M or G suffix;
 * files are comma-separated cgroup stat files bench knows.
 */
int bench_params__count(struct bench_params *p, const char *opt,
			const char *s, uint64_t max, uint64_t *out);
int bench_params__number(struct bench_params *p, const char *opt,
			 const char *s, double max, double *out);
int bench_params__size(struct bench_params *p, const char *s, uint64_t *out);
int bench_params__files(struct bench_params *p, const char *arg);

/* How a run speaks. Any member may be NULL. */
struct bench_ops {
	void (*error)(void *ctx, const char *msg);	/* what failed */
	void (*note)(void *ctx, const char *msg);
	/* The step the run is at; NULL: the step line is done. */
	void (*progress)(void *ctx, const char *msg);
	/* The run's figures, once they are saved. */
	void (*results)(void *ctx, struct bench_results *res,
			const char *cgroup_layout);
	/* Interrupted: what finished before (res may be NULL). */
	void (*interrupted)(void *ctx, struct bench_results *res);
	void *ctx;
};

/*
 * Stop the run: a signal handler's call (async-signal-safe). The run
 * undoes what it made and returns -EINTR.
 */
void bench__stop(int sig);

/*
 * Run p's scenario (p as bench's options left it). 0 when the results are
 * saved and given to ops->results; -errno after ops->error said why
 * (-EINTR: stopped by bench__stop(), nothing left behind). With
 * p->until, repetitions follow p->reps until bench_until__check() ends
 * the run; the results' until_* parameters say how it ended.
 */
int bench__run(const struct bench_params *p, const struct bench_ops *ops);

/*
 * Run p's variants (p->variants) interleaved: each repetition of each,
 * one full run of the scenario of its own (setup, the repetition,
 * teardown), in rounds, the variants in the order given in each round
 * (ABAB...) or, with p->random_order, in an order drawn afresh each round
 * from p->seed (randomised blocks), so that whatever the machine does
 * meanwhile hits every variant alike. Each variant's repetitions are
 * kept apart, and written when all are done as DIR/<name>/results.json
 * (p->outdir), the variant, its options and the order of all runs in
 * its parameters. With p->breakdown or p->record, one more round
 * after the timed ones: each variant's pass, a run of its own,
 * decomposed (bench-breakdown.h; its unobserved p50 that of the
 * variant's repetitions) and/or recorded (into DIR/<name>/rstat.data),
 * kept in the variant's results. done, if not NULL, hears of each
 * run's end (rep 0: that pass). With
 * p->until, rounds follow the p->reps first until bench_until__check()
 * on all variants ends the run; how, in *until (if not NULL) and in each
 * variant's until_* parameters. 0, or -errno after ops->error said why
 * (-EINTR: stopped by bench__stop(), nothing written, nothing left
 * behind).
 */
int bench__run_variants(const struct bench_params *p,
			const struct bench_ops *ops,
			void (*done)(void *ctx, const struct bench_variant *v,
				     unsigned int rep, unsigned int nr_done,
				     const struct bench_results *res),
			struct bench_until_state *until);

/* Where the run records (--record). */
void bench__recording_path(const struct bench_params *p, char *buf,
			   size_t len);

#endif /* RS_BENCH_RUN_H */
