// SPDX-License-Identifier: GPL-2.0
/*
 * The bench scenarios: the published rstat experiments, each as cgroups,
 * workloads and passes of a bench run (run-int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench-accuracy.h"
#include "run-int.h"
#include "util.h"
#include "workdir.h"

/* "d1/d2/.../c<i>" for a child at the given depth. */
static void child_rel(char *buf, size_t len, unsigned int depth,
		      unsigned int i)
{
	size_t used = 0;
	unsigned int d;

	buf[0] = '\0';
	for (d = 1; d < depth && used < len; d++)
		used += snprintf(buf + used, len - used, "d%u/", d);
	if (used < len)
		snprintf(buf + used, len - used, "c%u", i);
}

static int note_skip(struct bench_run *run, const char *fmt, const char *a,
		     const char *b)
{
	char line[512];

	snprintf(line, sizeof(line), fmt, a, b);
	bench_run__note(run, "%s", line);
	return bench_results__skip(run->res, line);
}

static int scenario_stat_read(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	static struct wl_memory mem;
	char rel[256], *paths[BENCH_MAX_FILES], *names[BENCH_MAX_FILES];
	char val[32];
	bool have_mem = bench_cg__has(run->cg, BENCH_CTRL_MEMORY);
	unsigned int i, nr = 0, rep;
	int err = 0;
	char what[32];

	for (i = 0; i < p->nr_files; i++) {
		const char *f = p->files[i];
		enum bench_ctrl c = !strncmp(f, "memory.", 7) ?
				    BENCH_CTRL_MEMORY :
				    !strncmp(f, "io.", 3) ? BENCH_CTRL_IO :
				    BENCH_CTRL_BASE;
		char *path = bench_cg__has(run->cg, c) ?
			     bench_cg__path(run->cg, c, "", f) : NULL;

		if (!path || access(path, R_OK)) {
			err = note_skip(run, "%s: not read: %s", f,
					bench_cg__has(run->cg, c) ?
					"no such file in this cgroup" :
					bench_cg__why_not(run->cg, c));
			free(path);
			if (err)
				goto out;
			continue;
		}
		paths[nr] = path;
		names[nr++] = (char *)f;
	}
	if (!nr) {
		bench_run__error(run, "bench: none of the stat files to read exists here");
		err = -ENOENT;
		goto out;
	}
	if (p->memory_max) {
		snprintf(val, sizeof(val), "%" PRIu64, p->memory_max);
		if (!have_mem)
			err = note_skip(run, "%s: not set: %s", "--memory-max",
					bench_cg__why_not(run->cg,
							  BENCH_CTRL_MEMORY));
		else if (bench_cg__write(run->cg, BENCH_CTRL_MEMORY, "",
					 "memory.max", val) ||
			 bench_cg__write(run->cg, BENCH_CTRL_MEMORY, "",
					 "memory.swap.max", "0"))
			err = note_skip(run, "%s: could not be set: %s",
					"--memory-max",
					bench_cg__error(run->cg));
		if (err)
			goto out;
	}
	if (p->updater != UPD_CPU && !have_mem) {
		err = note_skip(run, "%s: %s", "memory updaters",
				bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		if (err)
			goto out;
	}
	if (p->updater != UPD_CPU && have_mem) {
		err = bench_sparse_file(workdir__fd(run->workdir), "churn",
					CHURN_FILE_BYTES);
		if (err) {
			bench_run__error(run, "bench: %s/churn: %s",
				 workdir__path(run->workdir), strerror(-err));
			goto out;
		}
		mem.anon = true;
		mem.pagecache = true;
		mem.anon_bytes = CHURN_ANON_BYTES;
		mem.dirfd = workdir__fd(run->workdir);
		mem.file = "churn";
		mem.file_bytes = CHURN_FILE_BYTES;
	}
	/*
	 * Every updater is busy at nice 19 (weight 15 against the reader's
	 * 1024): so many of them per CPU that the reader's share of its
	 * CPU drops below half make the reads, and the run, that much
	 * slower. Say so before the wait.
	 */
	{
		unsigned int procs = p->children *
				     (p->updater == UPD_BOTH ? 2 : 1);
		double share = 1024.0 / (1024.0 + 15.0 * procs /
					 run->nr_cpus);

		if (share < 0.5)
			bench_run__note(run, "%u busy updaters (nice 19) on %u CPUs: the reader gets about %.0f%% of its CPU, so the reads take longer",
				procs, run->nr_cpus, share * 100);
	}
	bench_run__progress(run, "bench stat-read: creating %u child cgroups",
		 p->children);
	for (i = 1; i <= p->children; i++) {
		child_rel(rel, sizeof(rel), p->depth, i);
		err = bench_cg__mkdir(run->cg, rel);
		if (err) {
			bench_run__error(run, "bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			goto out;
		}
		if (p->updater != UPD_MEMORY)
			err = bench_run__start_in(run, rel, wl_cpu_spin,
						  NULL, NULL);
		if (!err && p->updater != UPD_CPU && have_mem)
			err = bench_run__start_in(run, rel, wl_memory_churn,
						  &mem, NULL);
		if (err)
			goto out;
	}
	bench_run__progress(run, "bench stat-read: warming up %u children",
		 p->children);
	err = bench_run__nap(WARMUP_MS);
	for (rep = 0; !err && rep < bench_run__nr_passes(run); rep++) {
		bench_run__progress(run, "bench stat-read: %s: %" PRIu64
			    " reads of %u file%s",
			    bench_run__pass_name(run, rep, what, sizeof(what)),
			    p->reads, nr, nr > 1 ? "s" : "");
		err = bench_run__pass_start(run, rep);
		if (!err)
			err = bench_run__read(run, rep, paths, names, nr,
					     p->reads, p->interleave);
		err = bench_run__pass_end(run, rep, err);
	}
out:
	for (i = 0; i < nr; i++)
		free(paths[i]);
	return err;
}

static int scenario_many_cgroups(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	struct wl_charge charge = {
		.dirfd = workdir__fd(run->workdir), .bytes = CHARGE_BYTES,
	};
	char rel[32], file[32], *path, *name = "memory.stat";
	struct bench_proc *proc;
	unsigned int i, rep;
	int err = 0;
	char what[32];

	if (!bench_cg__has(run->cg, BENCH_CTRL_MEMORY)) {
		bench_run__error(run, "bench: many-cgroups needs the memory controller: %s",
			 bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		return -ENOENT;
	}
	for (i = 1; i <= p->cgroups && !bench_stop; i++) {
		if (i == 1 || !(i % 100))
			bench_run__progress(run, "bench many-cgroups: charging cgroup %u of %u",
				 i, p->cgroups);
		snprintf(rel, sizeof(rel), "m%u", i);
		snprintf(file, sizeof(file), "charge-%u", i);
		err = bench_cg__mkdir(run->cg, rel);
		if (err) {
			bench_run__error(run, "bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			return err;
		}
		/* One at a time: each writes its own file, charged to it. */
		charge.file = file;
		err = bench_run__start_in(run, rel, wl_charge, &charge, &proc);
		if (!err)
			err = bench_run__wait(run, proc, NULL, NULL);
		if (err)
			return err;
		bench_proc__delete(proc);
		run->nr_procs--;
	}
	if (bench_stop)
		return -EINTR;
	path = bench_cg__path(run->cg, BENCH_CTRL_MEMORY, "", "memory.stat");
	if (!path)
		return -ENOMEM;
	for (rep = 0; !err && rep < bench_run__nr_passes(run); rep++) {
		bench_run__progress(run, "bench many-cgroups: %s: %" PRIu64 " reads",
			    bench_run__pass_name(run, rep, what, sizeof(what)),
			    p->reads);
		err = bench_run__pass_start(run, rep);
		if (!err)
			err = bench_run__read(run, rep, &path, &name, 1,
					     p->reads, true);
		err = bench_run__pass_end(run, rep, err);
	}
	free(path);
	return err;
}

static int set_pressure(struct bench_run *run, const char *const *rels,
			const char *val)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < 3; i++)
		err = bench_cg__write(run->cg, BENCH_CTRL_BASE, rels[i],
				      "cgroup.pressure", val);
	return err;
}

static int scenario_pipe(struct bench_run *run)
{
	static const char *const rels[] = { "l1", "l1/l2", "l1/l2/l3" };
	static const char *const metric[] = {
		"round_trips_per_s_psi_on", "round_trips_per_s_psi_off",
		"round_trips_per_s",
	};
	const struct bench_params *p = run->p;
	double *seconds = bench_shared__alloc(sizeof(double));
	struct wl_pipe pipe = { .round_trips = p->round_trips,
				.seconds = seconds };
	double real, tot_real, tot_user, tot_sys, value[2];
	struct bench_proc *proc;
	struct rusage ru;
	unsigned int rep, v, nv;
	bool psi;
	char *path;
	int err;
	char what[32];

	if (!seconds)
		return -ENOMEM;
	err = bench_cg__mkdir(run->cg, "l1/l2/l3");
	if (err) {
		bench_run__error(run, "bench: cannot create cgroup l1/l2/l3: %s",
			 bench_cg__error(run->cg));
		goto out;
	}
	path = bench_cg__path(run->cg, BENCH_CTRL_BASE, "l1", "cgroup.pressure");
	psi = path && !access(path, W_OK);
	free(path);
	if (!psi && p->psi != PSI_BOTH) {
		/* One side asked for, and no way to be sure it is that one. */
		bench_run__error(run, "bench pipe: --psi %s: PSI can't be toggled per cgroup here (no cgroup.pressure: needs a v2 hierarchy, CONFIG_PSI and v6.x)",
				 psi_names[p->psi]);
		err = -EOPNOTSUPP;
		goto out;
	}
	if (!psi) {
		err = note_skip(run, "%s: %s", "PSI on/off",
				"PSI can't be toggled per cgroup here (no cgroup.pressure: needs a v2 hierarchy, CONFIG_PSI and v6.x)");
		if (err)
			goto out;
	}
	/*
	 * --psi on or off: that side alone, as round_trips_per_s, so that
	 * two variants (--variant --psi=on --variant --psi=off) compare.
	 */
	nv = psi && p->psi == PSI_BOTH ? 2 : 1;
	for (rep = 0; !err && rep < bench_run__nr_passes(run); rep++) {
		bench_run__progress(run, "bench pipe: %s: %" PRIu64 " round trips%s",
			 bench_run__pass_name(run, rep, what, sizeof(what)),
			 p->round_trips, nv == 2 ? ", PSI on and off" :
			 p->psi == PSI_ON ? ", PSI on" :
			 p->psi == PSI_OFF ? ", PSI off" : "");
		err = bench_run__pass_start(run, rep);
		tot_real = tot_user = tot_sys = 0;
		for (v = 0; !err && v < nv; v++) {
			if (psi) {
				err = set_pressure(run, rels,
						   p->psi == PSI_ON ? "1" :
						   p->psi == PSI_OFF || v ?
						   "0" : "1");
				if (err) {
					bench_run__error(run, "bench: cannot write cgroup.pressure: %s",
						 bench_cg__error(run->cg));
					break;
				}
			}
			*seconds = 0;
			err = bench_run__start_in(run, "l1/l2/l3", wl_pipe_pingpong, &pipe,
				       &proc);
			if (!err)
				err = bench_run__wait(run, proc, &ru, &real);
			if (err)
				break;
			tot_real += real;
			tot_user += ru.ru_utime.tv_sec +
				    ru.ru_utime.tv_usec / 1e6;
			tot_sys += ru.ru_stime.tv_sec +
				   ru.ru_stime.tv_usec / 1e6;
			value[v] = *seconds > 0 ? p->round_trips / *seconds : 0;
		}
		if (!err)
			err = bench_run__begin_rep(run, rep, tot_real,
						   tot_user, tot_sys);
		for (v = 0; !err && v < nv; v++)
			err = bench_results__rep_metric_value(run->res,
					metric[nv == 2 ? v : 2], "1/s", false,
					value[v]);
		err = bench_run__pass_end(run, rep, err);
	}
	if (psi)
		set_pressure(run, rels, "1");
out:
	bench_shared__free(seconds, sizeof(double));
	return err;
}

static int scenario_fault(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	unsigned int n = p->children ? p->children : run->nr_cpus, i, rep;
	size_t size = n * sizeof(uint64_t) + sizeof(int);
	uint64_t *faults = bench_shared__alloc(size), total;
	volatile int *stop = (volatile int *)(faults + n);
	struct wl_fault *wl = calloc(n, sizeof(*wl));
	struct bench_proc **procs = calloc(n, sizeof(*procs));
	double t0, real, user, sys;
	struct rusage ru;
	char rel[32];
	int err = 0;
	char what[32];

	if (!faults || !wl || !procs) {
		err = -ENOMEM;
		goto out;
	}
	if (!bench_cg__has(run->cg, BENCH_CTRL_MEMORY)) {
		err = note_skip(run, "%s: %s",
				"memcg charges of the faults",
				bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		if (err)
			goto out;
	}
	for (i = 1; i <= n; i++) {
		snprintf(rel, sizeof(rel), "f%u", i);
		err = bench_cg__mkdir(run->cg, rel);
		if (err) {
			bench_run__error(run, "bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			goto out;
		}
	}
	for (rep = 0; !err && rep < bench_run__nr_passes(run); rep++) {
		bench_run__progress(run, "bench fault: %s: %u updaters for %g s",
			 bench_run__pass_name(run, rep, what, sizeof(what)), n,
			 p->duration);
		err = bench_run__pass_start(run, rep);
		if (err)
			break;
		memset(faults, 0, size);
		t0 = rs_now_s();
		for (i = 0; !err && i < n; i++) {
			snprintf(rel, sizeof(rel), "f%u", i + 1);
			wl[i].bytes = FAULT_BYTES;
			wl[i].faults = &faults[i];
			wl[i].stop = stop;
			err = bench_run__start_in(run, rel, wl_fault, &wl[i],
						  &procs[i]);
		}
		if (!err)
			err = bench_run__nap(p->duration * 1000);
		*stop = 1;
		real = rs_now_s() - t0;
		user = sys = 0;
		total = 0;
		for (i = 0; i < n && procs[i]; i++) {
			int e = bench_run__wait(run, procs[i], &ru, NULL);

			if (!err)
				err = e;
			user += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
			sys += ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
			total += faults[i];
		}
		if (!err)
			err = bench_run__begin_rep(run, rep, real, user, sys);
		if (!err)
			err = bench_results__rep_metric_value(run->res,
					"faults_per_s", "1/s", false,
					total / real);
		err = bench_run__pass_end(run, rep, err);
		/* The finished workers go; the cgroups stay for the next. */
		bench_run__stop_procs(run);
		memset(procs, 0, n * sizeof(*procs));
	}
out:
	free(wl);
	free(procs);
	if (faults)
		bench_shared__free(faults, size);
	return err;
}

/* Each read over the bound, explained (the first few, then a count). */
static void note_over(struct bench_run *run, struct bench_accuracy *a,
		      unsigned int rep)
{
	size_t i, n = bench_accuracy__nr_over(a);

	for (i = 0; i < n && i < 10; i++) {
		const struct acc_over *o = bench_accuracy__over(a, i);
		char who[32] = "the parent";

		if (o->cgroup)
			snprintf(who, sizeof(who), "child a%u", o->cgroup);
		bench_run__note(run, "accuracy: repetition %u, round %" PRIu64 ", %s: error %" PRIu64 " bytes > bound %" PRIu64 ": %s",
			rep + 1, o->round + 1, who, o->error_bytes,
			bench_accuracy__bound_bytes(a), o->why);
	}
	if (n > 10)
		bench_run__note(run, "accuracy: repetition %u: %zu more reads over the bound (reads_over_bound in the results)",
			rep + 1, n - 10);
}

/*
 * --after-flush promises reads equal to the truth: say which reads were
 * not, and why, rather than exit 0 without a word.
 */
static void note_after_flush(struct bench_run *run, struct bench_accuracy *a,
			     unsigned int rep)
{
	struct acc_after_flush af;

	if (!bench_accuracy__after_flush(a, &af))
		return;
	if (af.off_flushed)
		bench_run__note(run, "accuracy: repetition %u: %" PRIu64 " reads differ from the truth (up to %" PRIu64 " bytes) although a flush ran after the kick: the ground truth is off, not the flush (reads_off_after_flush in the results)",
			rep + 1, af.off_flushed, af.off_flushed_max);
	if (af.off_unflushed && af.watched)
		bench_run__note(run, "accuracy: repetition %u: %" PRIu64 " reads differ from the truth (up to %" PRIu64 " bytes) in the %" PRIu64 " rounds whose flush did not happen: other flushes ran during the kick and left its last updates below the threshold (reads_off_unflushed in the results)",
			rep + 1, af.off_unflushed, af.off_unflushed_max,
			af.rounds_unflushed);
	else if (af.off_unflushed)
		bench_run__note(run, "accuracy: repetition %u: %" PRIu64 " reads differ from the truth (up to %" PRIu64 " bytes) and no flush watch (memcg:memcg_flush_stats, v6.13+) tells whether the flush ran: the reads may be stale, not the truth off (reads_off_unflushed in the results)",
			rep + 1, af.off_unflushed, af.off_unflushed_max);
}

/*
 * Children charging known pages in cgroups a1..aN, and the reads of their
 * memory.stat against that truth: the work is src/bench/accuracy.c's.
 */
static int scenario_accuracy(struct bench_run *run)
{
	const struct bench_params *p = run->p;
	struct bench_accuracy_opts o = {
		.children = p->children, .kind = p->kind, .spread = p->spread,
		.reads = p->reads, .interval_ms = p->interval_ms,
		.rate = p->rate, .step = p->step, .after_flush = p->after_flush,
		.dirfd = workdir__fd(run->workdir), .stop = &bench_stop,
	};
	struct bench_accuracy *a = NULL;
	char rel[32], errbuf[512] = "", what[32], *dir;
	const char *why = NULL;
	double real, user, sys;
	unsigned int i, rep;
	int err;

	if (!bench_cg__has(run->cg, BENCH_CTRL_MEMORY)) {
		bench_run__error(run, "bench: accuracy needs the memory controller: %s",
			 bench_cg__why_not(run->cg, BENCH_CTRL_MEMORY));
		return -ENOENT;
	}
	err = bench_accuracy__new(&a, &o, errbuf, sizeof(errbuf));
	for (i = 0; !err && i <= p->children; i++) {
		snprintf(rel, sizeof(rel), "a%u", i);
		if (i && bench_cg__mkdir(run->cg, rel)) {
			bench_run__error(run, "bench: cannot create cgroup %s: %s", rel,
				 bench_cg__error(run->cg));
			err = -EIO;
			break;
		}
		dir = bench_cg__path(run->cg, BENCH_CTRL_MEMORY, i ? rel : "",
				     NULL);
		err = dir ? bench_accuracy__set_cgroup(a, i, dir, errbuf,
						       sizeof(errbuf)) :
			    -ENOMEM;
		free(dir);
		if (!err && i)
			err = bench_run__start_in(run, rel,
				bench_accuracy__child,
				bench_accuracy__child_arg(a, i - 1), NULL);
	}
	bench_run__progress(run, "bench accuracy: waiting for a flush for the baselines");
	if (!err)
		err = bench_accuracy__settle(a, &why, errbuf, sizeof(errbuf));
	if (!err && why)
		err = note_skip(run, "%s%s", why, "");
	for (rep = 0; !err && rep < bench_run__nr_passes(run); rep++) {
		if (!why && (why = bench_accuracy__watch_lost(a)))
			err = note_skip(run, "%s%s", why, "");
		bench_run__progress(run, "bench accuracy: %s: %" PRIu64 " rounds of %u reads",
			    bench_run__pass_name(run, rep, what, sizeof(what)),
			    p->reads, p->children + 1);
		err = bench_run__pass_start(run, rep);
		if (!err)
			err = bench_accuracy__run(a, &real, &user, &sys, errbuf,
						  sizeof(errbuf));
		if (!err)
			err = bench_run__begin_rep(run, rep, real, user, sys);
		if (!err && !why && (why = bench_accuracy__watch_lost(a)))
			err = note_skip(run, "%s%s", why, "");
		if (!err)
			err = bench_accuracy__add_metrics(a, run->res);
		if (!err && !bench_run__recorded_pass(run, rep)) {
			note_over(run, a, rep);
			note_after_flush(run, a, rep);
		}
		err = bench_run__pass_end(run, rep, err);
	}
	if (err && err != -EINTR && *errbuf)
		bench_run__error(run, "bench: %s", errbuf);
	else if (err == -ETIMEDOUT)
		bench_run__error(run, "bench: accuracy: timed out");
	bench_accuracy__delete(a);
	return err;
}


int bench_scenario__run(struct bench_run *run)
{
	switch (run->p->scenario) {
	case SC_STAT_READ:
		return scenario_stat_read(run);
	case SC_MANY_CGROUPS:
		return scenario_many_cgroups(run);
	case SC_PIPE:
		return scenario_pipe(run);
	case SC_FAULT:
		return scenario_fault(run);
	case SC_ACCURACY:
		return scenario_accuracy(run);
	}
	return -EINVAL;
}
