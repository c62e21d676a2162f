// SPDX-License-Identifier: GPL-2.0
/*
 * What a bench run offers its scenarios (run-int.h): the workload
 * processes and the waits on them, the messages, the passes (the timed
 * repetitions, then the recorded one) with the recorder, and the reader
 * runs. The run itself (its parameters, provenance, outputs and the one
 * cleanup path) is run.c; the scenarios are scenarios.c, on this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench-breakdown.h"
#include "bench-recording.h"
#include "hist.h"
#include "run-int.h"
#include "util.h"

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

void bench_run__progress_clear(const struct bench_run *run)
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

int bench_run__stop_recorder(struct bench_run *run)
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
void bench_run__end_recorder(struct bench_run *run, bool discard)
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
 *
 * The timed repetitions are those so far planned: with --until, each
 * that does not end the run plans one more (bench_run__pass_end()), and
 * the scenarios' loops, which ask again after each pass, run it.
 */
unsigned int bench_run__nr_passes(const struct bench_run *run)
{
	return run->reps + (run->p->record || run->p->breakdown ? 1 : 0);
}

bool bench_run__recorded_pass(const struct bench_run *run, unsigned int rep)
{
	return run->p->record && rep == run->reps;
}

/*
 * The reads' decomposition rides on the recorded pass, or has a pass of
 * its own after the timed ones: never in a repetition, whose figures
 * must stay unobserved.
 */
bool bench_run__breakdown_pass(const struct bench_run *run, unsigned int rep)
{
	return run->p->breakdown && rep == run->reps;
}

/* The breakdown's pass when it is not the recorded one: no results. */
static bool breakdown_only_pass(const struct bench_run *run,
				unsigned int rep)
{
	return bench_run__breakdown_pass(run, rep) &&
	       !bench_run__recorded_pass(run, rep);
}

/*
 * "repetition 2 of 3", "repetition 4 (--until)", "the recorded pass" or
 * "the breakdown pass".
 */
const char *bench_run__pass_name(const struct bench_run *run, unsigned int rep,
			     char *buf, size_t len)
{
	if (bench_run__recorded_pass(run, rep))
		snprintf(buf, len, "the recorded pass");
	else if (breakdown_only_pass(run, rep))
		snprintf(buf, len, "the breakdown pass");
	else if (run->p->until.target_pct)
		snprintf(buf, len, "repetition %u (--until)", rep + 1);
	else
		snprintf(buf, len, "repetition %u of %u", rep + 1,
			 run->reps);
	return buf;
}

static double elapsed_s(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t0->tv_sec + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * --until: whether the timed pass rep (done) asks for another; -ENOENT
 * after saying so when the results have no metric --until names.
 */
static int until_next(struct bench_run *run, unsigned int rep)
{
	const struct bench_params *p = run->p;
	char have[512];
	int ret;

	if (!p->until.target_pct || rep + 1 != run->reps)
		return 0;
	ret = bench_until__check(&p->until, p->reps, &run->res, 1, rep + 1,
				 elapsed_s(&run->t0), &run->until, have,
				 sizeof(have));
	if (ret < 0) {
		bench_run__error(run, "bench: --until: no metric %s in the results; they have %s",
				 p->until.metric, have);
		return ret;
	}
	if (!ret)
		run->reps++;
	return 0;
}

int bench_run__pass_start(struct bench_run *run, unsigned int rep)
{
	return bench_run__recorded_pass(run, rep) ? start_recorder(run) : 0;
}

int bench_run__pass_end(struct bench_run *run, unsigned int rep, int err)
{
	if (!bench_run__recorded_pass(run, rep)) {
		if (!err && !bench_stop)
			err = until_next(run, rep);
		return err;
	}
	if (bench_run__stop_recorder(run) && !err && !bench_stop)
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

/*
 * The timed repetitions' p50 of a file's reads, their median (of the
 * first 64); 0 when no repetition read it.
 */
uint64_t bench_run__reps_p50(const struct bench_results *res,
			     const char *file)
{
	const struct bench_metric *m;
	uint64_t p50s[64];
	size_t rep, n;

	for (rep = n = 0; rep < bench_results__nr_reps(res) && n < 64;
	     rep++) {
		m = bench_results__metric_find(res, rep, "read_ns", file);
		if (m && m->is_hist)
			p50s[n++] = m->p50;
	}
	return median_of(p50s, n);
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
	uint64_t *sorted = malloc(reads * sizeof(*sorted));
	char errbuf[512];
	unsigned int f;
	uint64_t r;
	int err;

	if (!bd || !sorted) {
		free(bd);
		free(sorted);
		return -ENOMEM;
	}
	/*
	 * The reads are over. Detaching fentry programs waits for RCU
	 * Tasks grace periods, which busy updaters in the kernel stretch
	 * (10.8 s against 0.5 s with 4 memory chargers on 2 CPUs of a TCG
	 * guest): they are held still meanwhile.
	 */
	bench_proc__hold_all(run->procs, run->nr_procs, true);
	err = bench_bd_pass__stop(bp, errbuf, sizeof(errbuf));
	bench_proc__hold_all(run->procs, run->nr_procs, false);
	if (err) {
		bench_run__error(run, "bench: %s", errbuf);
		free(bd);
		free(sorted);
		return err;
	}
	snprintf(bd->pass, sizeof(bd->pass), "%s",
		 bench_run__recorded_pass(run, pass) ? "recorded" : "breakdown");
	for (f = 0; !err && f < nr; f++) {
		for (r = 0; r < reads; r++)
			one[r] = interleave ? lat[r * nr + f] :
				 lat[f * reads + r];
		memcpy(sorted, one, reads * sizeof(*one));
		qsort(sorted, reads, sizeof(*sorted), cmp_u64);
		err = bench_bd_pass__file(bp, bd, names[f], fds[f],
					  sorted[(reads - 1) / 2], one, reads);
		if (err == -ENOENT) {
			bench_run__note(run, "breakdown: %s: no read of it was seen in the kernel", names[f]);
			err = 0;
			continue;
		}
		if (err)
			break;
		bd->files[bd->nr_files - 1].unobserved_p50_ns =
			bench_run__reps_p50(run->res, names[f]);
	}
	if (!err) {
		bench_bd_pass__describe(bp, bd);
		err = bench_results__set_breakdown(run->res, bd);
	}
	free(bd);
	free(sorted);
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
