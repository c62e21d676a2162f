// SPDX-License-Identifier: GPL-2.0
/*
 * The reads' decomposition in the results' JSON (results-breakdown.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json-read.h"
#include "json.h"
#include "results-breakdown.h"
#include "util.h"

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

/* entry/exit: derived, signed (below 0 when the kernel timed longer). */
static void write_entry(struct json_writer *jw, const struct breakdown_entry *e)
{
	json__object_begin(jw, "entry_exit");
	json__i64(jw, "p50_ns", e->q[0]);
	json__i64(jw, "p90_ns", e->q[1]);
	json__i64(jw, "p99_ns", e->q[2]);
	json__i64(jw, "sum_ns", e->sum);
	json__u64(jw, "measured_sum_ns", e->measured);
	json__u64(jw, "negative", e->negative);
	json__double(jw, "share", e->share);
	json__object_end(jw);
}

static void write_skips(struct json_writer *jw,
			const struct breakdown_skips *s)
{
	unsigned int i;

	json__object_begin(jw, "skipped_runs");
	json__bool(jw, "counted", s->counted);
	json__u64(jw, "reader_syscalls", s->reader_syscalls);
	json__array_begin(jw, "programs");
	for (i = 0; i < s->nr && i < BD_MAX_SKIPS; i++) {
		json__object_begin(jw, NULL);
		json__string(jw, "program", s->prog[i].prog);
		json__u64(jw, "recursion", s->prog[i].recursion);
		json__u64(jw, "missed", s->prog[i].missed);
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}

const char *bench_breakdown__file_tree(const struct bench_breakdown *bd,
				       const char *file)
{
	int part = breakdown__file_tree(file);

	return bd->split_trees && part >= 0 ? breakdown_part_name(part) : NULL;
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
	json__bool(jw, "split_trees", bd->split_trees);
	json__u64(jw, "lost", bd->lost);
	json__u64(jw, "broken", bd->broken);
	json__object_begin(jw, "callback_cost");
	json__u64(jw, "calls", bd->cb_cost.calls);
	json__u64(jw, "programs_ns", bd->cb_cost.programs_ns);
	json__u64(jw, "programs_after_ns", bd->cb_cost.programs_after_ns);
	json__u64(jw, "shortest_ns", bd->cb_cost.shortest_ns);
	json__object_end(jw);
	write_skips(jw, &bd->skips);
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
		json__string(jw, "tree", bench_breakdown__file_tree(bd, f->file));
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
		json__u64(jw, "reader_reads", f->reader_reads);
		if (f->paired)
			write_entry(jw, &f->entry);
		else
			json__string(jw, "entry_exit", NULL);
		json__object_end(jw);
	}
	json__array_end(jw);
	if (bd->follow.set) {
		const struct bench_bd_follow *fo = &bd->follow;

		json__object_begin(jw, "follow");
		json__u64(jw, "forks", fo->forks);
		json__u64(jw, "readers_full", fo->readers_full);
		json__u64(jw, "events_lost", fo->events_lost);
		json__u64(jw, "opens", fo->opens);
		json__u64(jw, "other_syscalls", fo->other);
		json__u64(jw, "unnamed_syscalls", fo->unnamed);
		json__u64(jw, "files_dropped", fo->files_dropped);
		json__object_end(jw);
	}
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

/* A signed integer that a double holds exactly. */
static int get_s64(const struct jv *o, const char *key, int64_t *v)
{
	const struct jv *n = jv__get(o, key);
	double d = jv__num(n);

	if (jv__type(n) != J_NUM || d != floor(d) ||
	    fabs(d) > 9007199254740992.0)
		return -EINVAL;
	*v = (int64_t)d;
	return 0;
}

/* "follow": absent (bench), or the counts of record's following. */
static int read_follow(const struct jv *n, struct bench_bd_follow *fo)
{
	const struct jv *o = jv__get(n, "follow");

	if (!o)
		return 0;
	if (jv__type(o) != J_OBJ || get_u64(o, "forks", &fo->forks) ||
	    get_u64(o, "readers_full", &fo->readers_full) ||
	    get_u64(o, "events_lost", &fo->events_lost) ||
	    get_u64(o, "opens", &fo->opens) ||
	    get_u64(o, "other_syscalls", &fo->other) ||
	    get_u64(o, "unnamed_syscalls", &fo->unnamed) ||
	    get_u64(o, "files_dropped", &fo->files_dropped))
		return -EINVAL;
	fo->set = true;
	return 0;
}

/*
 * entry_exit: null (not paired), absent (older results), or the object.
 * Its share is 1 less the kernel's total over the reader's: at most 1,
 * and below -1 when tails off the CPU after the reader's clock stopped
 * add up to more than twice the reads' time (a tick or two preempting
 * a reader of 10 us reads).
 */
static int read_entry(const struct jv *fo, struct bench_bd_file *f)
{
	const struct jv *o = jv__get(fo, "entry_exit"), *sh;

	if (jv__get(fo, "reader_reads") &&
	    get_u64(fo, "reader_reads", &f->reader_reads))
		return -EINVAL;
	if (!o || jv__type(o) == J_NULL)
		return 0;
	sh = jv__get(o, "share");
	if (jv__type(o) != J_OBJ || get_s64(o, "p50_ns", &f->entry.q[0]) ||
	    get_s64(o, "p90_ns", &f->entry.q[1]) ||
	    get_s64(o, "p99_ns", &f->entry.q[2]) ||
	    get_s64(o, "sum_ns", &f->entry.sum) ||
	    get_u64(o, "measured_sum_ns", &f->entry.measured) ||
	    get_u64(o, "negative", &f->entry.negative) ||
	    jv__type(sh) != J_NUM || !(jv__num(sh) <= 1) ||
	    !isfinite(jv__num(sh)))
		return -EINVAL;
	f->entry.share = jv__num(sh);
	f->paired = true;
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

/* skipped_runs: absent in results before it (nothing said then). */
static int read_skips(const struct jv *n, struct breakdown_skips *s)
{
	const struct jv *o = jv__get(n, "skipped_runs"), *c, *progs;
	size_t i;

	if (!o)
		return 0;
	c = jv__get(o, "counted");
	progs = jv__get(o, "programs");
	if (jv__type(o) != J_OBJ || jv__type(c) != J_BOOL ||
	    get_u64(o, "reader_syscalls", &s->reader_syscalls) ||
	    jv__type(progs) != J_ARR || jv__len(progs) > BD_MAX_SKIPS)
		return -EINVAL;
	s->counted = jv__bool(c);
	for (i = 0; i < jv__len(progs); i++) {
		const struct jv *e = jv__at(progs, i);
		struct breakdown_skip *k = &s->prog[i];

		if (get_s(e, "program", k->prog, sizeof(k->prog)) ||
		    get_u64(e, "recursion", &k->recursion) ||
		    get_u64(e, "missed", &k->missed))
			return -EINVAL;
	}
	s->nr = (unsigned int)jv__len(progs);
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
	if (read_skips(n, &bd->skips))
		return bad(errbuf, len, n,
			   "\"skipped_runs\": expected counted, reader_syscalls and at most 8 programs (program, recursion, missed)");
	{
		uint64_t pid;

		if (get_u64(n, "window_start_ns", &bd->window_start_ns) ||
		    get_u64(n, "window_end_ns", &bd->window_end_ns) ||
		    get_u64(n, "reader_pid", &pid) || pid > INT32_MAX)
			return bad(errbuf, len, n,
				   "expected window_start_ns, window_end_ns and reader_pid");
		bd->reader_pid = (int32_t)pid;
	}
	{
		/* Since split trees were told apart: absent before. */
		const struct jv *st = jv__get(n, "split_trees");

		if (st && jv__type(st) != J_BOOL)
			return bad(errbuf, len, n,
				   "\"split_trees\": expected true or false");
		bd->split_trees = st && jv__bool(st);
	}
	{
		/* Since the callbacks' cost was kept: absent before. */
		const struct jv *cc = jv__get(n, "callback_cost");

		if (cc && (get_u64(cc, "calls", &bd->cb_cost.calls) ||
			   get_u64(cc, "programs_ns",
				   &bd->cb_cost.programs_ns) ||
			   get_u64(cc, "shortest_ns",
				   &bd->cb_cost.shortest_ns)))
			return bad(errbuf, len, n,
				   "\"callback_cost\": expected calls, programs_ns and shortest_ns");
		/* Since the return's share was kept apart: absent before. */
		if (cc && jv__get(cc, "programs_after_ns") &&
		    (get_u64(cc, "programs_after_ns",
			     &bd->cb_cost.programs_after_ns) ||
		     bd->cb_cost.programs_after_ns > bd->cb_cost.programs_ns))
			return bad(errbuf, len, n,
				   "\"callback_cost\": programs_after_ns: expected a number no larger than programs_ns");
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
		const struct jv *fo = jv__at(files, i), *parts, *tree;
		const char *want;
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
		/* Derived from the file's name: refused if it says otherwise. */
		tree = jv__get(fo, "tree");
		want = bench_breakdown__file_tree(bd, f->file);
		if (tree && (want ? jv__type(tree) != J_STR ||
			     strcmp(jv__string(tree), want) :
			     jv__type(tree) != J_NULL))
			return bad(errbuf, len, tree, "a file: tree: not the one its name and split_trees give");
		if (read_entry(fo, f))
			return bad(errbuf, len, fo, "a file: entry_exit: expected null or p50_ns, p90_ns, p99_ns, sum_ns, measured_sum_ns, negative and share; reader_reads: a count");
		bd->nr_files++;
	}
	if (read_follow(n, &bd->follow))
		return bad(errbuf, len, n, "\"follow\": expected forks, readers_full, events_lost, opens, other_syscalls, unnamed_syscalls and files_dropped");
	return 0;
}
