// SPDX-License-Identifier: GPL-2.0
/*
 * A bench run (bench-run.h): its parameters and provenance in the
 * results, its outputs, and the one cleanup path. The scenarios are in
 * scenarios.c; the workload processes, the passes and the recorder they
 * use in pass.c.
 *
 * Everything the run creates (cgroups, workload processes, work files,
 * the recording) is undone on every exit path: normal end, error,
 * bench__stop(). Workloads die with the bench process (PR_SET_PDEATHSIG),
 * the recorder is a thread of it, and a later run removes the cgroups and
 * work files a SIGKILLed run left.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench-recording.h"
#include "hist.h"
#include "kfeatures.h"
#include "outfile.h"
#include "run-int.h"
#include "util.h"
#include "workdir.h"

/* --- the run ------------------------------------------------------------ */

static void note_left_alone(void *ctx, const char *path, const char *why)
{
	struct bench_run *run = ctx;

	bench_run__note(run, "%s: %s", path, why);
}

static void split_words(const char *s, const char **out, size_t *n,
			size_t max, char *buf, size_t len)
{
	char *tok, *save = NULL;

	*n = 0;
	if (!s)
		return;
	snprintf(buf, len, "%s", s);
	for (tok = strtok_r(buf, " ", &save); tok && *n < max;
	     tok = strtok_r(NULL, " ", &save))
		out[(*n)++] = tok;
}

/* The results' parameters as set_params() sets them: the first error. */
struct param_sink {
	struct bench_results *r;
	int err;
};

static void put_u64(struct param_sink *s, const char *key, uint64_t v)
{
	if (!s->err)
		s->err = bench_results__param_u64(s->r, key, v);
}

static void put_double(struct param_sink *s, const char *key, double v)
{
	if (!s->err)
		s->err = bench_results__param_double(s->r, key, v);
}

static void put_bool(struct param_sink *s, const char *key, bool v)
{
	if (!s->err)
		s->err = bench_results__param_bool(s->r, key, v);
}

static void put_str(struct param_sink *s, const char *key, const char *v)
{
	if (!s->err)
		s->err = bench_results__param_str(s->r, key, v);
}

static void put_strv(struct param_sink *s, const char *key,
		     const char *const *v, size_t n)
{
	if (!s->err)
		s->err = bench_results__param_strv(s->r, key, v, n);
}

static int set_params(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	struct param_sink s = { .r = run->res };
	const char *files[BENCH_MAX_FILES];
	unsigned int i;

	put_u64(&s, "repetitions", p->reps);
	put_bool(&s, "record", p->record);
	put_bool(&s, "breakdown", p->breakdown);
	put_str(&s, "root", p->root ? p->root : "");
	switch (p->scenario) {
	case SC_STAT_READ:
		for (i = 0; i < p->nr_files; i++)
			files[i] = p->files[i];
		put_u64(&s, "children", p->children);
		put_u64(&s, "depth", p->depth);
		put_str(&s, "updater", updater_names[p->updater]);
		put_u64(&s, "memory_max", p->memory_max);
		put_strv(&s, "files", files, p->nr_files);
		put_u64(&s, "reads", p->reads);
		put_str(&s, "order", p->interleave ? "interleave" : "discrete");
		break;
	case SC_MANY_CGROUPS:
		put_u64(&s, "cgroups", p->cgroups);
		put_u64(&s, "reads", p->reads);
		put_u64(&s, "charge_bytes", CHARGE_BYTES);
		break;
	case SC_PIPE:
		put_u64(&s, "round_trips", p->round_trips);
		put_str(&s, "psi", psi_names[p->psi]);
		break;
	case SC_FAULT:
		put_u64(&s, "children",
			p->children ? p->children : run->nr_cpus);
		put_double(&s, "duration_s", p->duration);
		put_u64(&s, "bytes", FAULT_BYTES);
		break;
	case SC_ACCURACY:
		put_u64(&s, "children", p->children);
		put_str(&s, "kind", kind_names[p->kind]);
		put_double(&s, "rate", p->rate);
		put_str(&s, "cpus_spread", p->spread ? "spread" : "pinned");
		put_u64(&s, "reads", p->reads);
		put_double(&s, "interval_ms", p->interval_ms);
		put_bool(&s, "after_flush", p->after_flush);
		put_u64(&s, "step_pages", p->step);
		put_u64(&s, "max_pages", ACC_MAX_PAGES);
		break;
	}
	return s.err;
}

/* The cgroups on the machine now, as the results keep them; -1: unknown. */
static void count_cgroups(const struct bench_cg *cg,
			  struct bench_cgroup_counts *out)
{
	struct bench_cg_counts c;

	if (!bench_cg__counts(cg, &c)) {
		out->v2_live = c.v2_live;
		out->v2_dying = c.v2_dying;
		out->v1_memory = c.v1_memory_cgroups;
	} else {
		out->v2_live = out->v2_dying = -1;
		out->v1_memory = -1;
	}
}

/* The 1-minute load average; -1 when it cannot be read. */
static double loadavg_1m(void)
{
	double v;
	FILE *f = fopen("/proc/loadavg", "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%lf", &v);
	fclose(f);
	return n == 1 ? v : -1;
}

/* The steal time of every CPU so far, in seconds; -1 when unknown. */
static double steal_s(void)
{
	unsigned long long v[8];
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -1;
	/* cpu user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 && hz > 0 ? (double)v[7] / hz : -1;
}

static int set_provenance(struct bench_run *run)
{
	struct bench_provenance prov = { 0 };
	struct kfeatures kf = { 0 };
	const char *v2[64], *v1[64];
	char b2[1024], b1[1024], *cmd;
	size_t used, need;
	int err;

	err = kfeatures__probe_cgroups(&kf);
	if (err)
		return err;
	split_words(kf.v2_controllers, v2, &prov.nr_v2_controllers, 64, b2,
		    sizeof(b2));
	split_words(kf.v1_controllers, v1, &prov.nr_v1_controllers, 64, b1,
		    sizeof(b1));
	prov.v2_controllers = v2;
	prov.v1_controllers = v1;
	prov.cgroup_layout = bench_cg__layout(run->cg);
	prov.before = run->before;
	count_cgroups(run->cg, &prov.after);
	prov.started = run->started;
	prov.loadavg_after = loadavg_1m();
	prov.steal_s = steal_s() - run->steal_before_s;
	prov.loadavg_before = run->loadavg_before;
	prov.has_load = run->loadavg_before >= 0 && prov.loadavg_after >= 0 &&
			run->steal_before_s >= 0 && prov.steal_s >= 0;
	prov.finished = time(NULL);
	/* Quoted as a shell needs it, so that it can be run again. */
	used = strlen("rstat-analyze");
	need = shell_words(NULL, 0, used, run->p->argc, run->p->argv) + 1;
	cmd = malloc(need);
	if (!cmd) {
		kfeatures__free(&kf);
		return -ENOMEM;
	}
	memcpy(cmd, "rstat-analyze", used);
	shell_words(cmd, need, used, run->p->argc, run->p->argv);
	prov.command_line = cmd;
	err = bench_results__provenance(run->res, &prov);
	free(cmd);
	kfeatures__free(&kf);
	return err;
}

/*
 * As record does with recordings, an earlier results file becomes .old,
 * when the new one, written beside it, is whole and renamed into place:
 * a write that fails leaves both as they were (outfile.h).
 */
static int write_results_to(struct bench_run *run, int dirfd,
			    const char *name, const char *shown)
{
	int err = bench_results__save_at(run->res, dirfd, name, shown);

	if (err)
		bench_run__error(run, "%s: cannot write: %s; the earlier file, if any, is as it was",
				 shown, outfile__strerror(err));
	return err;
}

/* name in -o DIR when in_dir, else as given; rotated, so .old too. */
static int check_output(struct bench_run *run, bool in_dir, const char *name)
{
	const char *dir = in_dir ? run->p->outdir : NULL;
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "",
		 name);
	err = outfile__check_at(dir ? run->outdir_fd : AT_FDCWD, name,
				OUTFILE_ROTATE);
	if (err)
		bench_run__error(run, "%s: cannot write: %s", path, outfile__strerror(err));
	return err;
}

/*
 * Before the run: that every output can be written, so that an hour of
 * bench is not lost to a typo in a path. -o DIR is made here and opened
 * once: a link there is followed only if its owner is ours or root's, and
 * a directory others could swap our files in is refused unless
 * --allow-shared-dir (outfile.h); what goes in it is written through its
 * descriptor.
 */
static int check_outputs(struct bench_run *run)
{
	const struct bench_params *p = run->p;

	if (p->outdir) {
		run->outdir_fd = outfile__dir_open(p->outdir,
			p->allow_shared_dir ? OUTFILE_DIR_SHARED : 0);
		if (run->outdir_fd < 0) {
			bench_run__error(run, "%s: %s", p->outdir,
					 outfile__strerror(run->outdir_fd));
			return -EIO;
		}
	}
	if (p->outdir && !p->outdir_recording_only &&
	    check_output(run, true, "results.json"))
		return -EIO;
	if (p->record && check_output(run, !!p->outdir, "rstat.data"))
		return -EIO;
	if (p->json && check_output(run, false, p->json))
		return -EIO;
	return 0;
}

/* --json FILE and -o DIR each get a copy when both are given. */
static int write_results(struct bench_run *run)
{
	char path[PATH_MAX];
	int err;

	if (run->p->outdir && !run->p->outdir_recording_only) {
		snprintf(path, sizeof(path), "%s/results.json", run->p->outdir);
		err = write_results_to(run, run->outdir_fd, "results.json",
				       path);
		if (err)
			return err;
	}
	if (run->p->json)
		return write_results_to(run, AT_FDCWD, run->p->json,
					run->p->json);
	return 0;
}

static unsigned int scenario_need(const struct bench_params *p)
{
	unsigned int need = BENCH_NEED(BENCH_CTRL_BASE), i;

	switch (p->scenario) {
	case SC_STAT_READ:
		if (p->updater != UPD_CPU || p->memory_max)
			need |= BENCH_NEED(BENCH_CTRL_MEMORY);
		for (i = 0; i < p->nr_files; i++) {
			if (!strncmp(p->files[i], "memory.", 7))
				need |= BENCH_NEED(BENCH_CTRL_MEMORY);
			if (!strncmp(p->files[i], "io.", 3))
				need |= BENCH_NEED(BENCH_CTRL_IO);
		}
		break;
	case SC_MANY_CGROUPS:
	case SC_FAULT:
	case SC_ACCURACY:
		need |= BENCH_NEED(BENCH_CTRL_MEMORY);
		break;
	case SC_PIPE:
		break;
	}
	return need;
}

/* --keep: the tree is the user's now; say where, once per hierarchy. */
static void note_kept(struct bench_run *run)
{
	const struct bench_cg *cg = run->cg;
	const char *dirs[BENCH_CTRL__NR];
	unsigned int n = 0, i;
	int c;

	for (c = 0; c < BENCH_CTRL__NR; c++) {
		const char *d = bench_cg__root(cg, c);

		for (i = 0; d && i < n && strcmp(dirs[i], d); i++)
			;
		if (d && i == n)
			dirs[n++] = d;
	}
	for (i = 0; i < n; i++)
		bench_run__note(run, "--keep: the run's cgroups stay in %s: yours to remove (rmdir, leaves first); no later run touches them",
			dirs[i]);
}

int bench__run(const struct bench_params *p, const struct bench_ops *ops)
{
	struct bench_run run = { .p = p, .ops = ops, .outdir_fd = -1,
				 .reps = p->reps };
	struct bench_cg_opts o = {
		.root = p->root, .keep = p->keep, .need = scenario_need(p),
	};
	char errbuf[512] = "";
	unsigned int removed = 0;
	bool recorded;
	int err, status = -EIO;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	run.nr_cpus = ncpu > 0 ? ncpu : 1;
	run.started = time(NULL);
	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	run.loadavg_before = loadavg_1m();
	run.steal_before_s = steal_s();
	if (bench_cg__cleanup_stale(p->root, &removed, note_left_alone, &run,
				    errbuf,
				    sizeof(errbuf)) && *errbuf)
		bench_run__note(&run, "leftovers of earlier runs: %s", errbuf);
	else if (removed)
		bench_run__note(&run, "removed the cgroups of %u earlier run%s that did not finish",
			removed, removed > 1 ? "s" : "");
	if (!workdir__cleanup_stale("bench", NULL, &removed,
				    note_left_alone, &run) && removed)
		bench_run__note(&run, "removed the work files of %u earlier run%s that did not finish",
			removed, removed > 1 ? "s" : "");
	if (check_outputs(&run)) {
		if (run.outdir_fd >= 0)
			close(run.outdir_fd);
		return -EIO;
	}
	err = bench_cg__new(&run.cg, &o, errbuf, sizeof(errbuf));
	if (err) {
		bench_run__error(&run, "bench: %s",
				 *errbuf ? errbuf : strerror(-err));
		return err;
	}
	count_cgroups(run.cg, &run.before);
	if (workdir__new(&run.workdir, "bench", NULL, errbuf,
			 sizeof(errbuf))) {
		bench_run__error(&run, "bench: %s", errbuf);
		goto out;
	}
	run.res = bench_results__new(scenario_names[p->scenario]);
	if (!run.res || set_params(&run)) {
		bench_run__error(&run, "bench: out of memory");
		goto out;
	}
	err = bench_scenario__run(&run);
	bench_run__progress(&run, "bench %s: stopping the workloads",
		 scenario_names[p->scenario]);
	bench_run__stop_procs(&run);
	if (bench_run__stop_recorder(&run) && !err && !bench_stop)
		err = -EIO;
	/* cgroups_after counts what the run leaves, not its own tree. */
	bench_run__progress(&run, "bench %s: removing the run's cgroups",
		 scenario_names[p->scenario]);
	if (!bench_stop && !err && bench_cg__destroy(run.cg)) {
		bench_run__error(&run, "bench: %s", bench_cg__error(run.cg));
		goto out;
	}
	bench_run__progress_clear(&run);
	if (bench_stop)
		goto out;
	if (err) {
		if (err == -ENOMEM)
			bench_run__error(&run, "bench: out of memory");
		goto out;
	}
	if (p->record)
		bench_results__set_recording(run.res, run.recording);
	if (p->until.target_pct &&
	    bench_until__save(run.res, &p->until, &run.until)) {
		bench_run__error(&run, "bench: out of memory");
		goto out;
	}
	if (set_provenance(&run) || write_results(&run))
		goto out;
	if (ops->results)
		ops->results(ops->ctx, run.res, bench_cg__layout(run.cg));
	status = 0;
out:
	bench_run__progress_clear(&run);
	bench_run__stop_procs(&run);
	bench_run__stop_recorder(&run);
	recorded = run.recorder != NULL;
	bench_run__end_recorder(&run, bench_stop && status);
	if (run.cg && bench_cg__destroy(run.cg)) {
		bench_run__error(&run, "bench: %s", bench_cg__error(run.cg));
		status = -EIO;
	} else if (bench_stop && status) {
		/*
		 * Whatever step the signal cut short (the recorder's start,
		 * a wait, a scenario), it is said here, once, after the
		 * cleanup it claims.
		 */
		if (ops->interrupted)
			ops->interrupted(ops->ctx, run.res);
		bench_run__error(&run, "bench: interrupted by SIG%s: removed what the run created%s",
			 sigabbrev_np(bench_stop),
			 recorded ? ", the recording included" : "");
	}
	if (run.cg && p->keep)
		note_kept(&run);
	bench_cg__delete(run.cg);
	if (run.workdir) {
		char wpath[PATH_MAX];

		snprintf(wpath, sizeof(wpath), "%s",
			 workdir__path(run.workdir));
		if (workdir__delete(run.workdir)) {
			bench_run__error(&run, "bench: %s: could not remove all of it", wpath);
			status = -EIO;
		}
	}
	bench_results__delete(run.res);
	if (run.outdir_fd >= 0)
		close(run.outdir_fd);
	if (status && bench_stop)
		return -EINTR;
	return status;
}


void bench__stop(int sig)
{
	bench_stop = sig;
}
