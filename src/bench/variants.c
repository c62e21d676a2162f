// SPDX-License-Identifier: GPL-2.0
/*
 * bench --variant (bench-run.h): two or more variants of one experiment
 * in one run, interleaved repetition by repetition. Two runs minutes
 * apart on a shared machine differ by the machine's load as much as by
 * the variable; run in rounds, A B A B..., drift hits every variant
 * alike.
 *
 * Each (variant, repetition) is a whole run of its own through
 * bench__run(): its own cgroups, set up and removed, so that no variant
 * inherits another's state (dying cgroups, charged pages, a warm tree).
 * That costs a setup per repetition, and buys the cleanup bench__run()
 * already guarantees on every exit path.
 *
 * With --breakdown, one more round follows the timed ones: each
 * variant's breakdown pass, a run of its own too (setup, the pass,
 * teardown), so that no timed repetition is ever observed and each
 * variant's reads are decomposed on a tree like its repetitions'.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench-results.h"
#include "bench-run.h"
#include "outfile.h"
#include "results-breakdown.h"
#include "run-int.h"
#include "util.h"

struct variants_run {
	const struct bench_params *p;
	const struct bench_ops *ops;
	struct bench_results *acc[BENCH_MAX_VARIANTS];
	size_t cur;		/* the variant running */
	bool pass_round;	/* the last round: each variant's pass */
	int dirfd;		/* -o DIR */
	int err;		/* of taking a run's repetition */
};

static void fwd_error(void *ctx, const char *msg)
{
	struct variants_run *vr = ctx;

	if (vr->ops->error)
		vr->ops->error(vr->ops->ctx, msg);
}

static void fwd_note(void *ctx, const char *msg)
{
	struct variants_run *vr = ctx;

	if (vr->ops->note)
		vr->ops->note(vr->ops->ctx, msg);
}

static void fwd_progress(void *ctx, const char *msg)
{
	struct variants_run *vr = ctx;

	vr->ops->progress(vr->ops->ctx, msg);
}

/*
 * A variant's pass after its repetitions (bench_results__take_pass()),
 * each file's unobserved p50 that of its timed repetitions: the pass's
 * own run had none.
 */
static int take_pass(struct bench_results *acc, struct bench_results *res)
{
	const struct bench_breakdown *got;
	struct bench_breakdown *bd;
	unsigned int i;
	int err = bench_results__take_pass(acc, res);

	got = err ? NULL : bench_results__breakdown(acc);
	if (!got)
		return err;	/* none: the run said why */
	bd = malloc(sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	*bd = *got;
	for (i = 0; i < bd->nr_files; i++)
		bd->files[i].unobserved_p50_ns =
			bench_run__reps_p50(acc, bd->files[i].file);
	err = bench_results__set_breakdown(acc, bd);
	free(bd);
	return err;
}

/*
 * A run's results, before bench__run() deletes them: its repetition,
 * or in the last round its pass (recorded, decomposed).
 */
static void take(void *ctx, struct bench_results *res, const char *layout)
{
	struct variants_run *vr = ctx;
	struct bench_results **acc = &vr->acc[vr->cur];

	if (vr->pass_round) {
		vr->err = take_pass(*acc, res);
		return;
	}
	if (!*acc)
		*acc = bench_results__new(bench_results__scenario(res));
	vr->err = *acc ? bench_results__take_reps(*acc, res) : -ENOMEM;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t0->tv_sec + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* splitmix64: the same sequence from a seed on every machine and libc. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The order of every run: rounds of all variants, in the order given or
 * shuffled afresh each round (Fisher-Yates). order[k]: the variant of
 * run k. With --until, the rounds of its cap, of which the run may do
 * fewer: the first rounds are the same either way.
 */
static void plan(const struct bench_params *p, unsigned int *order,
		 unsigned int rounds)
{
	uint64_t state = p->seed;
	size_t n = p->nr_variants, i, j;
	unsigned int rep, tmp, *round;

	for (rep = 0; rep < rounds; rep++) {
		round = order + rep * n;
		for (i = 0; i < n; i++)
			round[i] = i;
		if (!p->random_order)
			continue;
		for (i = n - 1; i > 0; i--) {
			j = next_random(&state) % (i + 1);
			tmp = round[i];
			round[i] = round[j];
			round[j] = tmp;
		}
	}
}

/*
 * Before the first run, that every variant's results.json (and
 * rstat.data) could be written, so that an hour of runs is not lost to
 * a directory in the way. DIR/<name> is made only when its recording or
 * its results are written.
 */
static int check_outputs(const struct bench_params *p,
			 const struct bench_ops *ops, int dirfd)
{
	char path[PATH_MAX + 96], msg[PATH_MAX + 256];
	const char *name, *file;
	size_t i;
	int fd, err;

	for (i = 0; i < p->nr_variants; i++) {
		name = p->variants[i].name;
		snprintf(path, sizeof(path), "%s/%s", p->outdir, name);
		fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			fd = outfile__dir_open(path, p->allow_shared_dir ?
					       OUTFILE_DIR_SHARED : 0);
			file = "results.json";
			err = fd < 0 ? fd :
			      outfile__check_at(fd, file, OUTFILE_ROTATE);
			if (!err && p->record) {
				file = "rstat.data";
				err = outfile__check_at(fd, file,
							OUTFILE_ROTATE);
			}
			if (fd >= 0)
				close(fd);
			if (err)
				snprintf(path + strlen(path),
					 sizeof(path) - strlen(path), "/%s",
					 file);
		} else {
			err = errno == ENOENT ?
			      outfile__check_at(dirfd, name, 0) : -errno;
		}
		if (err) {
			snprintf(msg, sizeof(msg), "%s: cannot write: %s",
				 path, outfile__strerror(err));
			fwd_error(&(struct variants_run){ .ops = ops }, msg);
			return -EIO;
		}
	}
	return 0;
}

/* What a reader of one variant's file needs to know of the others. */
static int set_variant_params(const struct bench_params *p, size_t v,
			      struct bench_results *r,
			      const unsigned int *order, size_t nr_runs,
			      const struct bench_until_state *until)
{
	const char *names[BENCH_MAX_VARIANTS], **seq;
	size_t i;
	int err;

	seq = calloc(nr_runs, sizeof(*seq));
	if (!seq)
		return -ENOMEM;
	for (i = 0; i < p->nr_variants; i++)
		names[i] = p->variants[i].name;
	for (i = 0; i < nr_runs; i++)
		seq[i] = names[order[i]];
	err = bench_results__param_u64(r, "repetitions",
				       bench_results__nr_reps(r));
	/* The timed runs' said false: the variant's pass was its own. */
	if (!err)
		err = bench_results__param_bool(r, "record", p->record);
	if (!err)
		err = bench_results__param_bool(r, "breakdown", p->breakdown);
	if (!err && p->until.target_pct)
		err = bench_until__save(r, &p->until, until);
	if (!err)
		err = bench_results__param_str(r, "variant", names[v]);
	if (!err)
		err = bench_results__param_strv(r, "variant_options",
				(const char *const *)p->variants[v].opts,
				p->variants[v].nr_opts);
	if (!err)
		err = bench_results__param_strv(r, "variants", names,
						p->nr_variants);
	if (!err)
		err = bench_results__param_str(r, "variant_order",
				p->random_order ? "random" : "alternate");
	if (!err && p->random_order)
		err = bench_results__param_u64(r, "variant_seed", p->seed);
	if (!err)
		err = bench_results__param_strv(r, "variant_sequence", seq,
						nr_runs);
	free(seq);
	return err;
}

static int write_variant(const struct bench_params *p,
			 const struct bench_ops *ops, int dirfd, size_t v,
			 struct bench_results *r)
{
	const char *name = p->variants[v].name;
	char dir[PATH_MAX], shown[PATH_MAX + 96], msg[PATH_MAX + 256];
	int fd, err;

	snprintf(dir, sizeof(dir), "%s/%s", p->outdir, name);
	snprintf(shown, sizeof(shown), "%s/results.json", dir);
	err = mkdirat(dirfd, name, 0755) && errno != EEXIST ? -errno : 0;
	fd = err ? err : outfile__dir_open(dir, p->allow_shared_dir ?
					   OUTFILE_DIR_SHARED : 0);
	err = fd < 0 ? fd : bench_results__save_at(r, fd, "results.json",
						   shown);
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(msg, sizeof(msg), "%s: cannot write: %s", shown,
			 outfile__strerror(err));
		fwd_error(&(struct variants_run){ .ops = ops }, msg);
	}
	return err;
}

/*
 * One run of variant v: a timed repetition, or in the last round its
 * pass alone (decomposed, recorded into DIR/<name>/rstat.data). 0, or
 * -errno after saying why.
 */
static int run_one(struct variants_run *vr, const struct bench_ops *inner,
		   size_t v)
{
	const struct bench_params *p = vr->p;
	const char *name = p->variants[v].name;
	char msg[PATH_MAX + 256], dir[PATH_MAX];
	struct bench_params one;
	bool made = false;
	int err;

	if (bench_stop) {
		snprintf(msg, sizeof(msg), "bench: interrupted by SIG%s: removed what the run created",
			 sigabbrev_np(bench_stop));
		fwd_error(vr, msg);
		return -EINTR;
	}
	vr->cur = v;
	vr->err = 0;
	/* No results file of its own, whatever p said. */
	one = p->variants[v].p;
	one.reps = vr->pass_round ? 0 : 1;
	one.breakdown = vr->pass_round && p->breakdown;
	one.record = vr->pass_round && p->record;
	one.outdir = one.json = NULL;
	if (one.record) {
		snprintf(dir, sizeof(dir), "%s/%s", p->outdir, name);
		made = !mkdirat(vr->dirfd, name, 0755);
		if (!made && errno != EEXIST) {
			snprintf(msg, sizeof(msg), "%s: cannot write: %s",
				 dir, strerror(errno));
			fwd_error(vr, msg);
			return -EIO;
		}
		one.outdir = dir;
		one.outdir_recording_only = true;
	}
	one.nr_variants = 0;
	/* --until counts rounds of all variants, not this run's. */
	one.until.target_pct = 0;
	err = bench__run(&one, inner);
	if (!err && vr->err) {
		err = vr->err;
		fwd_error(vr, "bench: out of memory");
	}
	/* A failed run discarded its recording: the directory made goes. */
	if (err && made)
		unlinkat(vr->dirfd, name, AT_REMOVEDIR);
	return err;
}

int bench__run_variants(const struct bench_params *p,
			const struct bench_ops *ops,
			void (*done)(void *ctx, const struct bench_variant *v,
				     unsigned int rep, unsigned int nr_done,
				     const struct bench_results *res),
			struct bench_until_state *until)
{
	struct variants_run vr = { .p = p, .ops = ops };
	struct bench_ops inner = {
		.error = fwd_error, .note = fwd_note,
		.progress = ops->progress ? fwd_progress : NULL,
		.results = take, .ctx = &vr,
	};
	unsigned int rounds = p->until.target_pct ?
			      p->until.max_reps : p->reps;
	size_t nr_runs = (size_t)rounds * p->nr_variants, k, v;
	unsigned int *order = calloc(nr_runs, sizeof(*order));
	struct bench_until_state st = { .end = BENCH_UNTIL_RUNNING };
	struct timespec t0;
	unsigned int *reps_done = calloc(p->nr_variants, sizeof(*reps_done));
	char have[512], msg[640];
	int dirfd = -1, err = -ENOMEM, ended;

	if (!order || !reps_done) {
		fwd_error(&vr, "bench: out of memory");
		goto out;
	}
	if (p->nr_variants < 2 || p->nr_variants > BENCH_MAX_VARIANTS ||
	    !p->outdir) {
		err = -EINVAL;
		fwd_error(&vr, "bench: --variant: give 2 to 8 variants and -o DIR");
		goto out;
	}
	dirfd = outfile__dir_open(p->outdir, p->allow_shared_dir ?
				  OUTFILE_DIR_SHARED : 0);
	if (dirfd < 0) {
		char msg[PATH_MAX + 128];

		snprintf(msg, sizeof(msg), "%s: %s", p->outdir,
			 outfile__strerror(dirfd));
		fwd_error(&vr, msg);
		err = -EIO;
		goto out;
	}
	vr.dirfd = dirfd;
	err = check_outputs(p, ops, dirfd);
	if (err)
		goto out;
	plan(p, order, rounds);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < nr_runs; k++) {
		err = run_one(&vr, &inner, order[k]);
		if (err)
			goto out;
		reps_done[vr.cur]++;
		if (done)
			done(ops->ctx, &p->variants[vr.cur],
			     reps_done[vr.cur], k + 1, vr.acc[vr.cur]);
		/* --until: at the end of each round, on all variants */
		if (!p->until.target_pct || (k + 1) % p->nr_variants)
			continue;
		ended = bench_until__check(&p->until, p->reps, vr.acc,
					   p->nr_variants,
					   (k + 1) / p->nr_variants,
					   elapsed_s(&t0), &st, have,
					   sizeof(have));
		if (ended < 0) {
			snprintf(msg, sizeof(msg), "bench: --until: no metric %s in the results; they have %s",
				 p->until.metric, have);
			fwd_error(&vr, msg);
			err = ended;
			goto out;
		}
		if (ended) {
			nr_runs = k + 1;
			break;
		}
	}
	if (until)
		*until = st;
	/* --breakdown, --record: each variant's pass, after every timed run. */
	vr.pass_round = p->breakdown || p->record;
	for (v = 0; vr.pass_round && v < p->nr_variants; v++) {
		err = run_one(&vr, &inner, v);
		if (err)
			goto out;
		if (done)
			done(ops->ctx, &p->variants[v], 0, nr_runs + v + 1,
			     vr.acc[v]);
	}
	for (v = 0; v < p->nr_variants; v++) {
		err = set_variant_params(p, v, vr.acc[v], order, nr_runs,
					 &st);
		if (err) {
			fwd_error(&vr, "bench: out of memory");
			goto out;
		}
	}
	for (v = 0; !err && v < p->nr_variants; v++)
		err = write_variant(p, ops, dirfd, v, vr.acc[v]);
out:
	if (dirfd >= 0)
		close(dirfd);
	for (v = 0; v < BENCH_MAX_VARIANTS; v++)
		bench_results__delete(vr.acc[v]);
	free(order);
	free(reps_done);
	return err;
}
