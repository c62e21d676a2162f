// SPDX-License-Identifier: GPL-2.0
/*
 * A bench run (bench-run.h): its workload processes and the waits on
 * them, its passes (the timed repetitions, then the recorded one), its
 * recorder, its parameters and provenance in the results, its outputs,
 * and the one cleanup path. The scenarios are in scenarios.c.
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

#include "bench-breakdown.h"
#include "bench-recording.h"
#include "hist.h"
#include "kfeatures.h"
#include "outfile.h"
#include "run-int.h"
#include "util.h"
#include "workdir.h"

const char *const scenario_names[SC_ACCURACY + 1] = {
	"stat-read", "many-cgroups", "pipe", "fault", "accuracy",
};

const char *const kind_names[ACC_BOTH + 1] = { "anon", "file", "both" };

const char *const updater_names[UPD_BOTH + 1] = { "memory", "cpu", "both" };

const char *const psi_names[PSI_OFF + 1] = { "both", "on", "off" };

volatile sig_atomic_t bench_stop;

/* --- processes ---------------------------------------------------------- */

static int add_proc(struct bench_run *run, struct bench_proc *proc)
{
	if (!proc) {
		bench_run__error(run, "bench: cannot start a workload process: %s",
			 strerror(errno));
		return -errno;
	}
	if (run->nr_procs == MAX_PROCS) {
		bench_proc__delete(proc);
		bench_run__error(run, "bench: more than %d workload processes", MAX_PROCS);
		return -E2BIG;
	}
	run->procs[run->nr_procs++] = proc;
	return 0;
}

void bench_run__stop_procs(struct bench_run *run)
{
	unsigned int i;

	bench_proc__stop_all(run->procs, run->nr_procs);
	for (i = 0; i < run->nr_procs; i++)
		bench_proc__delete(run->procs[i]);
	run->nr_procs = 0;
}

/* Spawn fn in cgroup rel and let it run. */
int bench_run__start_in(struct bench_run *run, const char *rel,
		    int (*fn)(void *), void *arg, struct bench_proc **out)
{
	struct bench_proc *proc = bench_proc__spawn(fn, arg);
	int err = add_proc(run, proc);

	if (err)
		return err;
	if (rel) {
		err = bench_cg__join(run->cg, rel, bench_proc__pid(proc));
		if (err) {
			bench_run__error(run, "bench: cannot move a workload into %s: %s",
				 rel, *bench_cg__error(run->cg) ?
				 bench_cg__error(run->cg) : strerror(-err));
			return err;
		}
	}
	/* Updaters yield to the measured task, as in the seeds' runs. */
	if (fn == wl_cpu_spin || fn == wl_memory_churn)
		setpriority(PRIO_PROCESS, bench_proc__pid(proc), 19);
	err = bench_proc__start(proc);
	if (err) {
		bench_run__error(run, "bench: cannot start a workload: %s", strerror(-err));
		return err;
	}
	if (out)
		*out = proc;
	return 0;
}

/*
 * Block the signals that stop a run (old: the mask before), so that a
 * look at bench_stop and the wait after it cannot lose one.
 */
static void block_stops(sigset_t *stops, sigset_t *old)
{
	sigemptyset(stops);
	sigaddset(stops, SIGINT);
	sigaddset(stops, SIGTERM);
	sigaddset(stops, SIGHUP);
	sigprocmask(SIG_BLOCK, stops, old);
}

/* Wait for a started process; -EINTR when the run is being stopped. */
int bench_run__wait(struct bench_run *run, struct bench_proc *proc,
		    struct rusage *ru, double *real_s)
{
	struct timespec tick = { 0, 1000 * 1000 };
	struct pollfd pfd = { .events = POLLIN };
	sigset_t stops, old;
	int status, err;

	/*
	 * Not a plain blocking wait4(): a signal landing between a look at
	 * bench_stop and the wait would be lost, and the run would wait out
	 * the workload (minutes for pipe's round trips). With the stop
	 * signals blocked, bench_stop is looked at, then ppoll() on a pidfd
	 * unblocks them atomically: it returns when the child ends or a
	 * signal comes, never missing either, and costs nothing meanwhile.
	 * Without pidfds (before 5.3) it polls, from 1 ms up to 20 ms, so
	 * that short workloads (many-cgroups' thousands of charges) are not
	 * slowed by the poll.
	 */
	pfd.fd = pidfd_open(bench_proc__pid(proc), 0);
	block_stops(&stops, &old);
	while ((err = bench_proc__poll(proc)) > 0 && !bench_stop) {
		if (pfd.fd >= 0) {
			ppoll(&pfd, 1, NULL, &old);
			continue;
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		nanosleep(&tick, NULL);
		if (tick.tv_nsec < 20 * 1000 * 1000)
			tick.tv_nsec *= 2;
		sigprocmask(SIG_BLOCK, &stops, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pfd.fd >= 0)
		close(pfd.fd);
	if (err > 0)
		return -EINTR;
	if (!err)
		err = bench_proc__wait(proc, &status, ru, real_s);
	if (err)
		return err;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (bench_stop)
			return -EINTR;
		bench_run__error(run, "bench: a workload failed: %s",
			 WIFEXITED(status) ? strerror(WEXITSTATUS(status)) :
			 strsignal(WTERMSIG(status)));
		return -EIO;
	}
	return 0;
}

/*
 * Sleep ms, cut short when the run is being stopped. As in
 * bench_run__wait(), bench_stop is looked at with the stop signals
 * blocked and ppoll() unblocks them atomically, so a signal landing just
 * before a long sleep (fault's --duration) ends it at once.
 */
int bench_run__nap(double ms)
{
	struct timespec end, now, ts;
	sigset_t stops, old;
	double left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)(ms / 1000);
	end.tv_nsec += (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	block_stops(&stops, &old);
	while (!bench_stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) +
		       (end.tv_nsec - now.tv_nsec) / 1e9;
		if (left <= 0)
			break;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		ppoll(NULL, 0, &ts, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return bench_stop ? -EINTR : 0;
}

static void say(void (*fn)(void *, const char *), void *ctx,
		const char *fmt, va_list ap)
{
	char msg[1024];

	if (!fn)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fn(ctx, msg);
}

void bench_run__error(struct bench_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(run->ops->error, run->ops->ctx, fmt, ap);
	va_end(ap);
}

void bench_run__note(struct bench_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(run->ops->note, run->ops->ctx, fmt, ap);
	va_end(ap);
}

/* The step the run is at (the command shows it on a terminal). */
void bench_run__progress(const struct bench_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(run->ops->progress, run->ops->ctx, fmt, ap);
	va_end(ap);
}

static void progress_clear(const struct bench_run *run)
{
	if (run->ops->progress)
		run->ops->progress(run->ops->ctx, NULL);
}

/* --- recording ---------------------------------------------------------- */

/*
 * The recorder is the recorder library in this process (bench-recording.h):
 * the same events as `record -a`, and a recording perf reads. It is live
 * when this returns, so the pass's workload misses nothing of it.
 */
static int start_recorder(struct bench_run *run)
{
	char errbuf[512] = "";
	int err;

	bench__recording_path(run->p, run->recording, sizeof(run->recording));
	err = bench_recording__start(&run->recorder, run->outdir_fd >= 0 ?
				     run->outdir_fd : AT_FDCWD, "rstat.data",
				     run->recording, run->p->argc,
				     run->p->argv, errbuf, sizeof(errbuf));
	if (err) {
		bench_recording__delete(run->recorder);
		run->recorder = NULL;
		bench_run__error(run, "bench: --record: %s", errbuf);
		return err;
	}
	/* As record says it: what observing then costs the holds. */
	if (*bench_recording__notes(run->recorder)->no_bpf)
		bench_run__note(run, "--record: lock holds will be timed from perf's tracepoint records and include the recorder's cost (BPF: %s)",
				bench_recording__notes(run->recorder)->no_bpf);
	return bench_stop ? -EINTR : 0;
}

static int stop_recorder(struct bench_run *run)
{
	struct recorder_stats st;
	char errbuf[512] = "";
	int err;

	if (!run->recorder || run->recorder_stopped)
		return 0;
	run->recorder_stopped = true;
	err = bench_recording__stop(run->recorder, errbuf, sizeof(errbuf));
	if (err && !bench_stop)
		bench_run__error(run, "bench: --record: %s", errbuf);
	bench_recording__stats(run->recorder, &st);
	/* A recording with holes would undercount: say so, as record does. */
	if (!err && (st.lost || st.lost_samples))
		bench_run__note(run, "--record: %" PRIu64 " events and %" PRIu64 " samples were lost (rings full): the recording undercounts the recorded pass",
				st.lost, st.lost_samples);
	return err;
}

/*
 * The recording is complete when the recorder stops, but the run may yet
 * be interrupted: it is removed with the run then, and the earlier
 * recording and its .old are put back (the recorder keeps the older .old
 * aside until here).
 */
static void end_recorder(struct bench_run *run, bool discard)
{
	if (!run->recorder)
		return;
	if (discard)
		bench_recording__discard(run->recorder);
	bench_recording__delete(run->recorder);
	run->recorder = NULL;
}

/* --- passes ---------------------------------------------------------- */

static int add_hist_metric(struct bench_run *run, const char *file,
			   const uint64_t *lat, size_t n)
{
	struct hist *h = hist__new();
	size_t i;
	int err = h ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++)
		err = hist__add(h, lat[i]);
	if (!err)
		err = bench_results__rep_metric_hist(run->res, "read_ns", "ns",
						     file, true, h, lat, n);
	hist__delete(h);
	return err;
}

/*
 * Passes: the timed repetitions, never recorded, then with --record one
 * more pass of the same workload while the recorder runs. A recorder
 * inflates what it observes (a 0.6 us cpu.stat read took 8 us while
 * callchains were recorded): its pass is kept apart, as what recording
 * cost, and no figure of it is ever printed or saved as a result.
 */
unsigned int bench_run__nr_passes(const struct bench_run *run)
{
	return run->p->reps + (run->p->record || run->p->breakdown ? 1 : 0);
}

bool bench_run__recorded_pass(const struct bench_run *run, unsigned int rep)
{
	return run->p->record && rep == run->p->reps;
}

/*
 * The reads' decomposition rides on the recorded pass, or has a pass of
 * its own after the timed ones: never in a repetition, whose figures
 * must stay unobserved.
 */
bool bench_run__breakdown_pass(const struct bench_run *run, unsigned int rep)
{
	return run->p->breakdown && rep == run->p->reps;
}

/* The breakdown's pass when it is not the recorded one: no results. */
static bool breakdown_only_pass(const struct bench_run *run,
				unsigned int rep)
{
	return bench_run__breakdown_pass(run, rep) &&
	       !bench_run__recorded_pass(run, rep);
}

/* "repetition 2 of 3", or "the recorded pass". */
const char *bench_run__pass_name(const struct bench_run *run, unsigned int rep,
			     char *buf, size_t len)
{
	if (bench_run__recorded_pass(run, rep))
		snprintf(buf, len, "the recorded pass");
	else if (breakdown_only_pass(run, rep))
		snprintf(buf, len, "the breakdown pass");
	else
		snprintf(buf, len, "repetition %u of %u", rep + 1,
			 run->p->reps);
	return buf;
}

int bench_run__pass_start(struct bench_run *run, unsigned int rep)
{
	return bench_run__recorded_pass(run, rep) ? start_recorder(run) : 0;
}

int bench_run__pass_end(struct bench_run *run, unsigned int rep, int err)
{
	if (!bench_run__recorded_pass(run, rep))
		return err;
	if (stop_recorder(run) && !err && !bench_stop)
		return -EIO;
	return err;
}

int bench_run__begin_rep(struct bench_run *run, unsigned int rep, double real,
		     double user, double sys)
{
	if (bench_run__recorded_pass(run, rep))
		return bench_results__recorded_begin(run->res, real, user,
						     sys);
	return bench_results__rep_begin(run->res, real, user, sys);
}

/* The median of n values (sorts them). */
static uint64_t median_of(uint64_t *v, size_t n)
{
	size_t i, j;

	if (!n)
		return 0;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[(n - 1) / 2];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The breakdown of the pass's reads, or why there is none (a note). */
static struct bench_bd_pass *breakdown_open(struct bench_run *run)
{
	struct bench_bd_pass *bp;
	char errbuf[512], line[600];
	int err;

	err = bench_bd_pass__new(&bp, errbuf, sizeof(errbuf));
	if (!err)
		return bp;
	snprintf(line, sizeof(line), "breakdown: reads not decomposed: %s",
		 errbuf);
	bench_run__note(run, "%s", line);
	bench_results__skip(run->res, line);
	return NULL;
}

/* Spawn the reader, have its reads timed, then let it read. */
static int start_reader(struct bench_run *run, struct wl_reader *rd,
			struct bench_bd_pass **bp, struct bench_proc **out)
{
	struct bench_proc *proc = bench_proc__spawn(wl_reader, rd);
	char errbuf[512], line[600];
	int err = add_proc(run, proc);

	if (err)
		return err;
	if (*bp && bench_bd_pass__start(*bp, bench_proc__pid(proc), errbuf,
					sizeof(errbuf))) {
		snprintf(line, sizeof(line),
			 "breakdown: reads not decomposed: %s", errbuf);
		bench_run__note(run, "%s", line);
		bench_results__skip(run->res, line);
		bench_bd_pass__delete(*bp);
		*bp = NULL;
	}
	err = bench_proc__start(proc);
	if (err) {
		bench_run__error(run, "bench: cannot start a workload: %s", strerror(-err));
		return err;
	}
	*out = proc;
	return 0;
}

/*
 * The pass's reads of each file, decomposed, into the results; each
 * file's p50 as the reader timed it beside the repetitions' (the
 * observer's cost).
 */
static int breakdown_save(struct bench_run *run, struct bench_bd_pass *bp,
			  unsigned int pass, char **names, int *fds,
			  unsigned int nr, const uint64_t *lat,
			  uint64_t reads, bool interleave, uint64_t *one)
{
	struct bench_breakdown *bd = calloc(1, sizeof(*bd));
	uint64_t p50s[64];
	char errbuf[512];
	unsigned int f;
	size_t rep, n;
	uint64_t r;
	int err;

	if (!bd)
		return -ENOMEM;
	err = bench_bd_pass__stop(bp, errbuf, sizeof(errbuf));
	if (err) {
		bench_run__error(run, "bench: %s", errbuf);
		free(bd);
		return err;
	}
	snprintf(bd->pass, sizeof(bd->pass), "%s",
		 bench_run__recorded_pass(run, pass) ? "recorded" : "breakdown");
	for (f = 0; !err && f < nr; f++) {
		for (r = 0; r < reads; r++)
			one[r] = interleave ? lat[r * nr + f] :
				 lat[f * reads + r];
		qsort(one, reads, sizeof(*one), cmp_u64);
		err = bench_bd_pass__file(bp, bd, names[f], fds[f],
					  one[(reads - 1) / 2]);
		if (err == -ENOENT) {
			bench_run__note(run, "breakdown: %s: no read of it was seen in the kernel", names[f]);
			err = 0;
			continue;
		}
		if (err)
			break;
		/* The timed repetitions' p50, their median. */
		for (rep = n = 0; rep < bench_results__nr_reps(run->res) &&
		     n < 64; rep++) {
			const struct bench_metric *m =
				bench_results__metric_find(run->res, rep,
							   "read_ns",
							   names[f]);

			if (m && m->is_hist)
				p50s[n++] = m->p50;
		}
		bd->files[bd->nr_files - 1].unobserved_p50_ns =
			median_of(p50s, n);
	}
	if (!err) {
		bench_bd_pass__describe(bp, bd);
		err = bench_results__set_breakdown(run->res, bd);
	}
	free(bd);
	return err;
}

/*
 * One reader run: reads files reads times (interleaved or one after the
 * other) from outside the measured tree; its time(1) figures are the
 * pass's, each file's read latencies a metric.
 */
int bench_run__read(struct bench_run *run, unsigned int pass, char **paths,
		      char **names, unsigned int nr, uint64_t reads,
		      bool interleave)
{
	size_t slots = reads * nr, size = slots * sizeof(uint64_t) +
		       sizeof(uint64_t) + sizeof(int);
	struct wl_reader rd = {
		.files = paths, .nr_files = nr, .reads = reads,
		.interleave = interleave,
	};
	struct bench_proc *proc;
	struct bench_bd_pass *bp = NULL;
	struct rusage ru;
	double real, cpu;
	uint64_t *lat, *one;
	unsigned int f;
	uint64_t r;
	void *shm;
	int err;

	if (bench_run__breakdown_pass(run, pass))
		bp = breakdown_open(run);
	/* The reader's fds come back through the shared page. */
	size += BENCH_MAX_FILES * sizeof(int);
	shm = bench_shared__alloc(size);
	if (!shm) {
		bench_run__error(run, "bench: out of memory for %zu read timings", slots);
		return -ENOMEM;
	}
	rd.lat_ns = shm;
	rd.done = (uint64_t *)shm + slots;
	rd.err = (int *)(rd.done + 1);
	rd.fds = (int *)(rd.err + 1);
	one = malloc(reads * sizeof(*one));
	err = one ? start_reader(run, &rd, &bp, &proc) : -ENOMEM;
	if (!err)
		err = bench_run__wait(run, proc, &ru, &real);
	if (!err && (*rd.err || *rd.done != slots)) {
		bench_run__error(run, "bench: the reader stopped after %" PRIu64 " of %zu reads: %s",
			 *rd.done, slots, strerror(*rd.err ? *rd.err : EIO));
		err = -EIO;
	}
	if (!err && bp)
		err = breakdown_save(run, bp, pass, names, rd.fds, nr,
				     rd.lat_ns, reads, interleave, one);
	bench_bd_pass__delete(bp);
	if (!err && breakdown_only_pass(run, pass)) {
		/* Observed reads: none of their figures is a result. */
		free(one);
		bench_shared__free(shm, size);
		return 0;
	}
	if (!err)
		err = bench_run__begin_rep(run, pass, real,
				ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
				ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	for (f = 0; !err && f < nr; f++) {
		lat = rd.lat_ns;
		for (r = 0; r < reads; r++)
			one[r] = interleave ? lat[r * nr + f] :
				 lat[f * reads + r];
		err = add_hist_metric(run, names[f], one, reads);
	}
	if (!err)
		err = bench_results__rep_metric_value(run->res, "reads_per_s",
						      "1/s", false,
						      slots / real);
	/*
	 * Per second of the reader's CPU time too: the wall-clock rate
	 * follows the machine's load (a preempted reader reads nothing),
	 * this one the cost of the reads themselves.
	 */
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (!err && cpu > 0)
		err = bench_results__rep_metric_value(run->res,
						      "reads_per_cpu_s", "1/s",
						      false, slots / cpu);
	free(one);
	bench_shared__free(shm, size);
	return err;
}

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
	if (p->outdir && check_output(run, true, "results.json"))
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

	if (run->p->outdir) {
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
	struct bench_run run = { .p = p, .ops = ops, .outdir_fd = -1 };
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
	if (stop_recorder(&run) && !err && !bench_stop)
		err = -EIO;
	/* cgroups_after counts what the run leaves, not its own tree. */
	bench_run__progress(&run, "bench %s: removing the run's cgroups",
		 scenario_names[p->scenario]);
	if (!bench_stop && !err && bench_cg__destroy(run.cg)) {
		bench_run__error(&run, "bench: %s", bench_cg__error(run.cg));
		goto out;
	}
	progress_clear(&run);
	if (bench_stop)
		goto out;
	if (err) {
		if (err == -ENOMEM)
			bench_run__error(&run, "bench: out of memory");
		goto out;
	}
	if (p->record)
		bench_results__set_recording(run.res, run.recording);
	if (set_provenance(&run) || write_results(&run))
		goto out;
	if (ops->results)
		ops->results(ops->ctx, run.res, bench_cg__layout(run.cg));
	status = 0;
out:
	progress_clear(&run);
	bench_run__stop_procs(&run);
	stop_recorder(&run);
	recorded = run.recorder != NULL;
	end_recorder(&run, bench_stop && status);
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


void bench__recording_path(const struct bench_params *p, char *buf,
			   size_t len)
{
	if (p->outdir)
		snprintf(buf, len, "%s/rstat.data", p->outdir);
	else
		snprintf(buf, len, "rstat.data");
}

void bench__stop(int sig)
{
	bench_stop = sig;
}
