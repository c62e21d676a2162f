// SPDX-License-Identifier: GPL-2.0
/*
 * bench's read decomposition (bench-breakdown.h): the reader's pass
 * timed part by part, its tables, and their JSON.
 */
#include <errno.h>
#include <stdint.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-breakdown.h"
#include "bench-results.h"
#include "json-read.h"
#include "json.h"
#include "util.h"

struct bench_bd_pass {
	struct breakdown *b;
	uint64_t start_ns, end_ns;
	pid_t pid;
	pthread_t poller;
	bool running;
	atomic_bool stop;
	int err;
	unsigned int hz;
	const char *hz_from;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *poll_thread(void *arg)
{
	struct bench_bd_pass *bp = arg;
	int err = 0;

	while (!err && !atomic_load(&bp->stop))
		err = breakdown__poll(bp->b, 100);
	bp->err = err;
	return NULL;
}

int bench_bd_pass__new(struct bench_bd_pass **out, char *errbuf, size_t len)
{
	struct bench_bd_pass *bp = calloc(1, sizeof(*bp));
	int err;

	*out = NULL;
	if (!bp || !(bp->b = breakdown__new())) {
		free(bp);
		errbuf_set(errbuf, len, "out of memory");
		return -ENOMEM;
	}
	err = breakdown__open(bp->b, errbuf, len);
	if (err) {
		bench_bd_pass__delete(bp);
		return err;
	}
	bp->hz = breakdown__scheduler_hz(&bp->hz_from);
	*out = bp;
	return 0;
}

int bench_bd_pass__start(struct bench_bd_pass *bp, pid_t pid, char *errbuf,
			 size_t len)
{
	sigset_t all, old;
	int err;

	err = breakdown__add_reader(bp->b, pid);
	if (err) {
		errbuf_set(errbuf, len, "BPF breakdown: the reader: %s",
			   strerror(-err));
		return err;
	}
	err = breakdown__attach(bp->b, errbuf, len);
	if (err)
		return err;
	bp->start_ns = mono_ns();
	bp->pid = pid;
	/* The signals that stop a run go to the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&bp->poller, NULL, poll_thread, bp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		errbuf_set(errbuf, len, "cannot start the thread that drains the ring: %s",
			   strerror(-err));
		breakdown__detach(bp->b);
		return err;
	}
	bp->running = true;
	return 0;
}

static int join(struct bench_bd_pass *bp)
{
	if (!bp->running)
		return 0;
	atomic_store(&bp->stop, true);
	pthread_join(bp->poller, NULL);
	bp->running = false;
	return bp->err;
}

int bench_bd_pass__stop(struct bench_bd_pass *bp, char *errbuf, size_t len)
{
	int err = join(bp);

	bp->end_ns = mono_ns();
	/* Detaching consumes what the ring still holds. */
	breakdown__detach(bp->b);
	if (err)
		errbuf_set(errbuf, len, "BPF breakdown: reading the ring: %s",
			   strerror(-err));
	return err;
}

void bench_bd_pass__delete(struct bench_bd_pass *bp)
{
	if (!bp)
		return;
	join(bp);
	breakdown__delete(bp->b);
	free(bp);
}

static void row_from(struct bench_bd_row *out, const struct breakdown_row *in)
{
	int q;

	memset(out, 0, sizeof(*out));
	out->share = in->share;
	out->sum_ns = in->sum;
	for (q = 0; q < BD_NR_Q; q++) {
		out->q[q] = in->q[q];
		if (in->notes[q] & BD_NOTE_TICKS)
			snprintf(out->note[q], sizeof(out->note[q]),
				 "%u tick%s", in->ticks[q],
				 in->ticks[q] > 1 ? "s" : "");
		if (in->notes[q] & BD_NOTE_OFF) {
			size_t l = strlen(out->note[q]);

			snprintf(out->note[q] + l, sizeof(out->note[q]) - l,
				 "%soff-CPU", l ? ", " : "");
		}
	}
}

int bench_bd_pass__file(struct bench_bd_pass *bp, struct bench_breakdown *bd,
			const char *name, int fd, uint64_t user_p50)
{
	const struct breakdown_syscall *sc;
	struct breakdown_read *reads;
	struct breakdown_table t;
	struct bench_bd_file *f;
	size_t nr_sc, nr;
	int err, p;

	if (bd->nr_files >= BENCH_BD_MAX_FILES)
		return -E2BIG;
	sc = breakdown__syscalls(bp->b, &nr_sc);
	/*
	 * The reader preads its files; their fds' numbers may have served
	 * a read(2) before (its wait for the start).
	 */
	err = breakdown__reads(sc, nr_sc, (uint32_t)fd, true, &reads, &nr);
	if (err)
		return err;
	err = breakdown__table(reads, nr, bp->hz, &t);
	free(reads);
	if (err)
		return err == -EINVAL ? -ENOENT : err;
	f = &bd->files[bd->nr_files++];
	memset(f, 0, sizeof(*f));
	snprintf(f->file, sizeof(f->file), "%s", name);
	f->reads = t.reads;
	f->off_most = t.off_most;
	f->tail_off_ns = t.tail_off_ns;
	f->read_p50_ns = user_p50;
	row_from(&f->total, &t.total);
	for (p = 0; p < BD_PART__NR; p++) {
		row_from(&f->part[p], &t.part[p]);
		f->part[p].calls = t.calls[p];
	}
	f->total.calls = t.reads;
	return 0;
}

/* The callbacks outside the reads by who flushed (none if unknown). */
static void describe_outside(struct bench_bd_pass *bp,
			     struct bench_breakdown *bd)
{
	struct breakdown_outside *o;
	size_t n, i;

	if (breakdown__outside_by(bp->b, &o, &n))
		return;
	for (i = 0; i < n; i++) {
		int t = o[i].trigger;

		if (o[i].part < 0 || o[i].part >= BD_PART__NR ||
		    t < RS_TRIG_NONE || t >= RS_TRIG__NR)
			continue;
		bd->outside_trig_calls[o[i].part][t + 1] += o[i].calls;
		bd->outside_trig_ns[o[i].part][t + 1] += o[i].ns;
	}
	free(o);
}

void bench_bd_pass__describe(struct bench_bd_pass *bp,
			     struct bench_breakdown *bd)
{
	const struct breakdown_source *s;
	int p;

	snprintf(bd->method, sizeof(bd->method), "%s",
		 breakdown__method(bp->b));
	bd->hz = bp->hz;
	snprintf(bd->hz_from, sizeof(bd->hz_from), "%s", bp->hz_from);
	for (p = 0; p < BD_PART__NR; p++) {
		s = breakdown__source(bp->b, p);
		snprintf(bd->untimed[p], sizeof(bd->untimed[p]), "%s",
			 s->timed ? "" : s->why);
		snprintf(bd->how[p], sizeof(bd->how[p]), "%s",
			 s->timed ? s->how : "");
		breakdown__outside(bp->b, p, &bd->outside_calls[p],
				   &bd->outside_ns[p]);
	}
	breakdown__losses(bp->b, &bd->lost, &bd->broken);
	bd->window_start_ns = bp->start_ns;
	bd->window_end_ns = bp->end_ns;
	bd->reader_pid = bp->pid;
	describe_outside(bp, bd);
}

/* --- the terminal ----------------------------------------------------- */

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", ns / 1e6);
}

static void print_row(FILE *out, const char *name,
		      const struct bench_bd_row *r, bool timed,
		      uint64_t reads)
{
	char v[BD_NR_Q][24], notes[96] = "", calls[16];
	size_t l = 0;
	int q;

	if (!timed) {
		fprintf(out, "  %-8s %10s %10s %10s %7s %6s  not timed\n", name,
			"-", "-", "-", "-", "-");
		return;
	}
	snprintf(calls, sizeof(calls), "%.1f",
		 reads ? (double)r->calls / reads : 0);
	for (q = 0; q < BD_NR_Q; q++) {
		fmt_ns(v[q], sizeof(v[q]), r->q[q]);
		if (r->note[q][0] && l < sizeof(notes))
			l += snprintf(notes + l, sizeof(notes) - l, "%sp%g: %s",
				      l ? "; " : "", breakdown_q[q],
				      r->note[q]);
	}
	fprintf(out, "  %-8s %10s %10s %10s %6.1f%% %6s%s%s\n", name, v[0],
		v[1], v[2], r->share * 100, calls, *notes ? "  " : "", notes);
}

void bench_breakdown__print(const struct bench_breakdown *bd, FILE *out)
{
	unsigned int i;
	int p;

	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];

		fprintf(out, "\n%s: where a read's time goes, %" PRIu64 " reads of the %s pass\n",
			f->file, f->reads, bd->pass);
		fprintf(out, "  (%s", bd->method);
		if (bd->hz)
			fprintf(out, "; HZ=%u: %.1f ms ticks", bd->hz,
				1e3 / bd->hz);
		fprintf(out, ")\n");
		fprintf(out, "  %-8s %10s %10s %10s %7s %6s\n", "part", "p50",
			"p90", "p99", "share", "calls");
		print_row(out, "total", &f->total, true, f->reads);
		for (p = 0; p < BD_PART__NR; p++)
			print_row(out, breakdown_part_name(p), &f->part[p],
				  !bd->untimed[p][0], f->reads);
		if (f->tail_off_ns && f->reads)
			fprintf(out, "  off-cpu includes %.1f us a read (mean) switched out after read(2) returned\n",
				f->tail_off_ns / 1e3 / f->reads);
		if (f->off_most)
			fprintf(out, "  %" PRIu64 " of %" PRIu64 " reads were off the CPU for most of their time\n",
				f->off_most, f->reads);
		if (f->read_p50_ns)
			fprintf(out, "  the kernel's p50 is %.0f%% of the reader's (%.1f us): the rest is entering\n  and leaving the syscalls and the reader's clock\n",
				100.0 * f->total.q[0] / f->read_p50_ns,
				f->read_p50_ns / 1e3);
		if (f->unobserved_p50_ns && f->read_p50_ns) {
			double x = (double)f->read_p50_ns /
				   f->unobserved_p50_ns;

			fprintf(out, "  observer: the reader's p50 %.1f us so timed, %.1f us unobserved: %.2fx\n",
				f->read_p50_ns / 1e3,
				f->unobserved_p50_ns / 1e3, x);
			if (x > 2)
				fprintf(out, "  (over 2x: the timing inflates these reads; read the shares, not the times)\n");
		}
	}
	if (!bd->nr_files)
		return;
	for (p = 0; p < BD_PART__NR; p++)
		if (bd->untimed[p][0])
			fprintf(out, "  not timed: %s: %s\n",
				breakdown_part_name(p), bd->untimed[p]);
	for (p = 0; p < BD_PART__NR; p++) {
		int t;

		if (!bd->outside_calls[p])
			continue;
		fprintf(out, "  outside the reads: %s callbacks %" PRIu64 " calls, %.1f us\n",
			breakdown_part_name(p), bd->outside_calls[p],
			bd->outside_ns[p] / 1e3);
		for (t = 0; t <= RS_TRIG__NR; t++)
			if (bd->outside_trig_calls[p][t])
				fprintf(out, "    by %-20s %8" PRIu64 " calls %12.1f us\n",
					t ? rs_trigger_name(t - 1) :
					"(unnamed)",
					bd->outside_trig_calls[p][t],
					bd->outside_trig_ns[p][t] / 1e3);
	}
	if (bd->lost)
		fprintf(out, "  %" PRIu64 " syscalls lost (the ring was full): not in the tables\n",
			bd->lost);
	if (bd->broken)
		fprintf(out, "  %" PRIu64 " unpaired events (an end without its start, e.g. a switch BPF did\n  not see): their time stayed in the part around them\n",
			bd->broken);
}

static const struct bench_bd_file *bd_file(const struct bench_breakdown *bd,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < bd->nr_files; i++)
		if (!strcmp(bd->files[i].file, name))
			return &bd->files[i];
	return NULL;
}

static void print_side_by_side(const struct bench_breakdown *const *bd,
			       const char *const *labels, size_t n,
			       const char *file, FILE *out)
{
	const struct bench_bd_file *f[BENCH_BD_MAX_RUNS];
	char v[24];
	size_t k;
	int p;

	/* Two runs: share and p50 each; more: shares, in 80 columns. */
	bool wide = n <= 2;

	for (k = 0; k < n; k++)
		f[k] = bd_file(bd[k], file);
	fprintf(out, "\n%s: where a read's time goes (%s)\n", file,
		wide ? "share, p50" : "share");
	fprintf(out, "  %-8s", "part");
	for (k = 0; k < n; k++)
		fprintf(out, wide ? " %20.20s" : " %11.11s", labels[k]);
	fprintf(out, "%s\n", n > 1 ? "  change" : "");
	for (p = -1; p < BD_PART__NR; p++) {
		const char *name = p < 0 ? "total" : breakdown_part_name(p);

		fprintf(out, "  %-8s", name);
		for (k = 0; k < n; k++) {
			const struct bench_bd_row *r = p < 0 ? &f[k]->total :
						       &f[k]->part[p];

			if (p >= 0 && bd[k]->untimed[p][0]) {
				fprintf(out, wide ? " %20s" : " %11s",
					"not timed");
				continue;
			}
			if (!wide) {
				fprintf(out, " %10.1f%%", r->share * 100);
				continue;
			}
			fmt_ns(v, sizeof(v), r->q[0]);
			fprintf(out, " %9.1f%% %9s", r->share * 100, v);
		}
		if (p >= 0 && !bd[0]->untimed[p][0] &&
		    !bd[n - 1]->untimed[p][0])
			fprintf(out, "  %+.1f pts",
				(f[n - 1]->part[p].share -
				 f[0]->part[p].share) * 100);
		fprintf(out, "\n");
	}
}

int bench_breakdown__print_runs(const char *const *files,
				const char *const *labels, size_t n,
				FILE *out, char *errbuf, size_t len)
{
	const struct bench_breakdown *bd[BENCH_BD_MAX_RUNS];
	const char *lab[BENCH_BD_MAX_RUNS];
	struct bench_results *res[BENCH_BD_MAX_RUNS] = { NULL };
	size_t k, m = 0;
	unsigned int i;
	int err = 0;

	for (k = 0; k < n && m < BENCH_BD_MAX_RUNS; k++) {
		err = bench_results__read(&res[m], files[k], errbuf, len);
		if (err)
			goto out;
		bd[m] = bench_results__breakdown(res[m]);
		lab[m] = labels[k];
		if (bd[m])
			m++;
		else
			bench_results__delete(res[m]);
	}
	for (i = 0; m > 1 && i < bd[0]->nr_files; i++) {
		const char *file = bd[0]->files[i].file;

		for (k = 1; k < m && bd_file(bd[k], file); k++)
			;
		if (k == m)
			print_side_by_side(bd, lab, m, file, out);
	}
	if (fflush(out) || ferror(out))
		err = -EIO;
out:
	for (k = 0; k < m; k++)
		bench_results__delete(res[k]);
	if (err && err != -EIO && !*errbuf)
		errbuf_set(errbuf, len, "%s", strerror(-err));
	return err;
}

/* --- JSON ------------------------------------------------------------- */

static void write_row(struct json_writer *jw, const char *part,
		      const struct bench_bd_row *r, bool timed)
{
	int q;

	json__object_begin(jw, NULL);
	json__string(jw, "part", part);
	json__bool(jw, "timed", timed);
	json__u64(jw, "p50_ns", r->q[0]);
	json__u64(jw, "p90_ns", r->q[1]);
	json__u64(jw, "p99_ns", r->q[2]);
	json__double(jw, "share", r->share);
	json__u64(jw, "calls", r->calls);
	json__u64(jw, "sum_ns", r->sum_ns);
	json__array_begin(jw, "notes");
	for (q = 0; q < BD_NR_Q; q++)
		json__string(jw, NULL, r->note[q]);
	json__array_end(jw);
	json__object_end(jw);
}

void bench_breakdown__write_json(const struct bench_breakdown *bd,
				 struct json_writer *jw)
{
	unsigned int i;
	int p;

	json__object_begin(jw, "breakdown");
	json__string(jw, "method", bd->method);
	json__string(jw, "pass", bd->pass);
	if (bd->hz)
		json__u64(jw, "hz", bd->hz);
	else
		json__string(jw, "hz", NULL);
	json__u64(jw, "lost", bd->lost);
	json__u64(jw, "broken", bd->broken);
	json__u64(jw, "window_start_ns", bd->window_start_ns);
	json__u64(jw, "window_end_ns", bd->window_end_ns);
	json__i64(jw, "reader_pid", bd->reader_pid);
	json__array_begin(jw, "sources");
	for (p = 0; p < BD_PART__NR; p++) {
		json__object_begin(jw, NULL);
		json__string(jw, "part", breakdown_part_name(p));
		json__bool(jw, "timed", !bd->untimed[p][0]);
		json__string(jw, bd->untimed[p][0] ? "why" : "how",
			     bd->untimed[p][0] ? bd->untimed[p] : bd->how[p]);
		if (p <= BD_PART_BASE) {
			int t;

			json__u64(jw, "outside_calls", bd->outside_calls[p]);
			json__u64(jw, "outside_ns", bd->outside_ns[p]);
			json__array_begin(jw, "outside_by");
			for (t = 0; t <= RS_TRIG__NR; t++) {
				if (!bd->outside_trig_calls[p][t])
					continue;
				json__object_begin(jw, NULL);
				json__string(jw, "trigger",
					     rs_trigger_name(t - 1));
				json__u64(jw, "calls",
					  bd->outside_trig_calls[p][t]);
				json__u64(jw, "ns", bd->outside_trig_ns[p][t]);
				json__object_end(jw);
			}
			json__array_end(jw);
		}
		json__object_end(jw);
	}
	json__array_end(jw);
	json__array_begin(jw, "files");
	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];

		json__object_begin(jw, NULL);
		json__string(jw, "file", f->file);
		json__u64(jw, "reads", f->reads);
		json__u64(jw, "off_cpu_most", f->off_most);
		json__u64(jw, "tail_off_ns", f->tail_off_ns);
		json__u64(jw, "read_p50_ns", f->read_p50_ns);
		json__u64(jw, "unobserved_p50_ns", f->unobserved_p50_ns);
		json__array_begin(jw, "parts");
		write_row(jw, "total", &f->total, true);
		for (p = 0; p < BD_PART__NR; p++)
			write_row(jw, breakdown_part_name(p), &f->part[p],
				  !bd->untimed[p][0]);
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}

static int bad(char *errbuf, size_t len, const struct jv *n, const char *what)
{
	errbuf_set(errbuf, len, "\"breakdown\": %s (line %u)", what,
		   jv__line(n));
	return -EINVAL;
}

static int get_u64(const struct jv *o, const char *key, uint64_t *v)
{
	const struct jv *n = jv__get(o, key);

	if (!n || jv__type(n) != J_NUM || !jv__is_u64(n))
		return -EINVAL;
	*v = jv__u64(n);
	return 0;
}

static int get_s(const struct jv *o, const char *key, char *buf, size_t len)
{
	const struct jv *n = jv__get(o, key);

	if (!n || jv__type(n) != J_STR)
		return -EINVAL;
	snprintf(buf, len, "%s", jv__string(n));
	return 0;
}

static int read_row(const struct jv *o, struct bench_bd_row *r)
{
	const struct jv *notes = jv__get(o, "notes"), *sh;
	int q;

	if (jv__type(o) != J_OBJ || get_u64(o, "p50_ns", &r->q[0]) ||
	    get_u64(o, "calls", &r->calls) ||
	    get_u64(o, "sum_ns", &r->sum_ns) ||
	    get_u64(o, "p90_ns", &r->q[1]) || get_u64(o, "p99_ns", &r->q[2]))
		return -EINVAL;
	sh = jv__get(o, "share");
	if (!sh || jv__type(sh) != J_NUM || !(jv__num(sh) >= 0) ||
	    jv__num(sh) > 1.5)
		return -EINVAL;
	r->share = jv__num(sh);
	if (jv__type(notes) != J_ARR || jv__len(notes) != BD_NR_Q)
		return -EINVAL;
	for (q = 0; q < BD_NR_Q; q++) {
		if (jv__type(jv__at(notes, q)) != J_STR)
			return -EINVAL;
		snprintf(r->note[q], sizeof(r->note[q]), "%s",
			 jv__string(jv__at(notes, q)));
	}
	return 0;
}

int bench_breakdown__read_json(struct bench_breakdown *bd,
			       const struct jv *n, char *errbuf, size_t len)
{
	const struct jv *src, *files, *hz;
	size_t i, j;
	int p;

	memset(bd, 0, sizeof(*bd));
	if (jv__type(n) != J_OBJ)
		return bad(errbuf, len, n, "expected an object");
	if (get_s(n, "method", bd->method, sizeof(bd->method)) ||
	    get_s(n, "pass", bd->pass, sizeof(bd->pass)) ||
	    get_u64(n, "lost", &bd->lost) || get_u64(n, "broken", &bd->broken))
		return bad(errbuf, len, n,
			   "expected method, pass, lost and broken");
	{
		uint64_t pid;

		if (get_u64(n, "window_start_ns", &bd->window_start_ns) ||
		    get_u64(n, "window_end_ns", &bd->window_end_ns) ||
		    get_u64(n, "reader_pid", &pid) || pid > INT32_MAX)
			return bad(errbuf, len, n,
				   "expected window_start_ns, window_end_ns and reader_pid");
		bd->reader_pid = (int32_t)pid;
	}
	hz = jv__get(n, "hz");
	if (jv__type(hz) == J_NUM && jv__is_u64(hz) && jv__u64(hz) < 100000)
		bd->hz = (unsigned int)jv__u64(hz);
	else if (jv__type(hz) != J_NULL)
		return bad(errbuf, len, n, "\"hz\": expected a number or null");
	src = jv__get(n, "sources");
	if (jv__type(src) != J_ARR || jv__len(src) != BD_PART__NR)
		return bad(errbuf, len, n, "\"sources\": expected one per part");
	for (i = 0; i < BD_PART__NR; i++) {
		const struct jv *s = jv__at(src, i), *t;
		char name[32];

		t = jv__get(s, "timed");
		if (get_s(s, "part", name, sizeof(name)) ||
		    (p = breakdown_part_of(name)) < 0 ||
		    jv__type(t) != J_BOOL)
			return bad(errbuf, len, s, "a source: expected part and timed");
		if (!jv__bool(t) &&
		    (get_s(s, "why", bd->untimed[p], sizeof(bd->untimed[p])) ||
		     !bd->untimed[p][0]))
			return bad(errbuf, len, s, "an untimed part: expected why");
		if (jv__bool(t))
			get_s(s, "how", bd->how[p], sizeof(bd->how[p]));
		if (jv__get(s, "outside_calls") &&
		    (get_u64(s, "outside_calls", &bd->outside_calls[p]) ||
		     get_u64(s, "outside_ns", &bd->outside_ns[p])))
			return bad(errbuf, len, s, "outside_calls, outside_ns: expected counts");
		if (jv__get(s, "outside_by")) {
			const struct jv *by = jv__get(s, "outside_by");

			if (jv__type(by) != J_ARR)
				return bad(errbuf, len, s, "outside_by: expected an array");
			for (j = 0; j < jv__len(by); j++) {
				const struct jv *e = jv__at(by, j);
				char tn[32];
				enum rs_trigger t;
				uint64_t c, ns;

				if (get_s(e, "trigger", tn, sizeof(tn)) ||
				    rs_trigger_parse(tn, &t) ||
				    get_u64(e, "calls", &c) ||
				    get_u64(e, "ns", &ns))
					return bad(errbuf, len, e, "outside_by: expected trigger, calls and ns");
				bd->outside_trig_calls[p][t + 1] = c;
				bd->outside_trig_ns[p][t + 1] = ns;
			}
		}
	}
	files = jv__get(n, "files");
	if (jv__type(files) != J_ARR || jv__len(files) > BENCH_BD_MAX_FILES)
		return bad(errbuf, len, n, "\"files\": expected an array of at most 8");
	for (i = 0; i < jv__len(files); i++) {
		const struct jv *fo = jv__at(files, i), *parts;
		struct bench_bd_file *f = &bd->files[i];

		parts = jv__get(fo, "parts");
		if (get_s(fo, "file", f->file, sizeof(f->file)) ||
		    get_u64(fo, "reads", &f->reads) ||
		    get_u64(fo, "off_cpu_most", &f->off_most) ||
		    get_u64(fo, "tail_off_ns", &f->tail_off_ns) ||
		    get_u64(fo, "read_p50_ns", &f->read_p50_ns) ||
		    get_u64(fo, "unobserved_p50_ns", &f->unobserved_p50_ns) ||
		    jv__type(parts) != J_ARR ||
		    jv__len(parts) != BD_PART__NR + 1)
			return bad(errbuf, len, fo, "a file: expected file, reads, off_cpu_most, read_p50_ns, unobserved_p50_ns and parts");
		for (j = 0; j <= BD_PART__NR; j++) {
			struct bench_bd_row *r = j ? &f->part[j - 1] :
						 &f->total;
			char name[32];
			const struct jv *po = jv__at(parts, j);

			if (get_s(po, "part", name, sizeof(name)) ||
			    strcmp(name, j ? breakdown_part_name((int)j - 1) :
				   "total") || read_row(po, r))
				return bad(errbuf, len, po, "a part: expected part, timed, p50_ns, p90_ns, p99_ns, share and notes, in order");
		}
		bd->nr_files++;
	}
	return 0;
}
