// SPDX-License-Identifier: GPL-2.0
/*
 * The reads' decomposition for the terminal (breakdown-out.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown-out.h"
#include "compare-int.h"
#include "compare.h"
#include "figure.h"
#include "rules.h"
#include "util.h"

/*
 * text in 80 columns, broken at spaces: the first line after first (its
 * indent), the others after rest.
 */
static void print_wrapped(FILE *out, const char *first, const char *rest,
			  const char *text)
{
	const char *p = text;
	size_t n, cut, width = 80 - strlen(first);

	fputs(first, out);
	while ((n = strlen(p)) > width) {
		for (cut = width; cut > 0 && p[cut] != ' '; cut--)
			;
		if (!cut)	/* a word longer than the line: left whole */
			cut = strcspn(p, " ");
		if (!p[cut])	/* and the last one */
			break;
		fprintf(out, "%.*s\n%s", (int)cut, p, rest);
		p += cut;
		while (*p == ' ')
			p++;
		width = 80 - strlen(rest);
	}
	fprintf(out, "%s\n", p);
}

/*
 * Read by read the parts add up; their percentiles add only when the
 * reads are alike. When some reads are slowed in the kernel and others
 * outside it (a host busy beside the reader), the kernel's p50 plus
 * entry/exit's misses the reader's p50, and the table says so rather
 * than let the reader take the p50 column for a sum. The cause is not
 * claimed: a pairing gone wrong would miss too.
 */
#define BD_P50_SUM_PCT	5

static void print_p50_sum(FILE *out, const struct bench_bd_file *f)
{
	double sum = (double)f->total.q[0] + (double)f->entry.q[0];
	double want = (double)f->read_p50_ns;
	char text[320];

	if (!want || fabs(sum - want) <= BD_P50_SUM_PCT / 100.0 * want)
		return;
	snprintf(text, sizeof(text), "at p50 the parts do not add up: the kernel's %.1f us and entry/exit's %.1f us against the reader's %.1f us (p90s: %.1f and %.1f us); percentiles add only when the reads are alike",
		 f->total.q[0] / 1e3, f->entry.q[0] / 1e3, want / 1e3,
		 f->total.q[1] / 1e3, f->entry.q[1] / 1e3);
	print_wrapped(out, "  ", "  ", text);
}

/*
 * entry/exit, derived from the reader's clock: its share is of the
 * reader's summed time, which the parts above and it add up to.
 */
static void print_entry(FILE *out, const struct bench_bd_file *f)
{
	const struct breakdown_entry *e = &f->entry;
	char v[BD_NR_Q][24], sh[32];
	int q;

	for (q = 0; q < BD_NR_Q; q++)
		compare_fmt__sns(v[q], sizeof(v[q]), e->q[q]);
	fprintf(out, "  %-10s%9s %10s %10s %6s%%  derived\n", "entry/exit",
		v[0], v[1], v[2], compare_fmt__share(sh, sizeof(sh), e->share));
	fprintf(out, "  entry/exit, derived: each read as the reader timed it less the kernel's\n  time above (%" PRIu64 " reads paired one to one): entering and leaving the\n  syscalls outside their tracepoints (the timing's programs there too),\n  interrupts in user space, the reader's clock; with it the parts add up\n  to the reader's time (%.1f us a read), its share is of that\n",
		f->reads, e->measured / 1e3 / f->reads);
	if (e->negative)
		fprintf(out, "  %" PRIu64 " reads below 0: the kernel counted time off the CPU after the\n  reader's clock stopped\n",
			e->negative);
	print_p50_sum(out, f);
}

static void print_row(FILE *out, const char *name,
		      const struct bench_bd_row *r, bool timed,
		      uint64_t reads)
{
	char v[BD_NR_Q][24], notes[96] = "", calls[16], sh[32];
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
		compare_fmt__ns(v[q], sizeof(v[q]), r->q[q]);
		if (r->note[q][0] && l < sizeof(notes))
			l += snprintf(notes + l, sizeof(notes) - l, "%sp%g: %s",
				      l ? "; " : "", breakdown_q[q],
				      r->note[q]);
	}
	l = (size_t)fprintf(out, "  %-8s %10s %10s %10s %6s%% %6s", name,
			    v[0], v[1], v[2],
			    compare_fmt__share(sh, sizeof(sh), r->share),
			    calls);
	/* The notes beside the row, or under it when they would pass 80. */
	if (!*notes)
		fputc('\n', out);
	else if (l + 2 + strlen(notes) <= 80)
		fprintf(out, "  %s\n", notes);
	else {
		/* Under the percentiles. */
		fputc('\n', out);
		print_wrapped(out, "             ", "             ", notes);
	}
}

/*
 * What timing the callbacks cost a call: the shortest one timed bounds
 * what it put into a callback (as the shortest hold bounds a hold), and
 * the programs' own time past their clock reads.
 */
static void print_cb_cost(FILE *out, const struct bench_breakdown *bd)
{
	const struct breakdown_cb_cost *c = &bd->cb_cost;
	char shortest[24], prog[24], after[24];
	bool fentry = false, kprobe = false;
	int p;

	if (!c->calls)
		return;
	/* What comes before an entry program's clock read, by the way in. */
	for (p = BD_PART_MEMORY; p <= BD_PART_BASE; p++) {
		if (bd->untimed[p][0])
			continue;
		fentry |= !strncmp(bd->how[p], "fentry", 6);
		kprobe |= !strncmp(bd->how[p], "kprobe", 6);
	}
	compare_fmt__ns(shortest, sizeof(shortest), c->shortest_ns);
	compare_fmt__ns(prog, sizeof(prog), c->programs_ns / c->calls);
	compare_fmt__ns(after, sizeof(after), c->programs_after_ns / c->calls);
	fprintf(out, "  observer, a flush callback: at most %s of a callback's time is the\n  timing's (the shortest of %" PRIu64 " timed, its own work included); the\n  programs ran %s a call (%s not counted),\n  %s of it after the callback returned, in the part around it\n",
		shortest, c->calls, prog, fentry && !kprobe ?
		"the fentry trampoline's entry" : "a kprobe's trap", after);
}

/* record's targets: what was followed, and what was left out. */
static void print_follow(FILE *out, const struct bench_breakdown *bd)
{
	const struct bench_bd_follow *fo = &bd->follow;

	if (!bd->nr_files)
		fprintf(out, "\nread breakdown: no stat file read to its end by the targets\n");
	fprintf(out, "  targets: process %d and %" PRIu64 " children followed; %" PRIu64 " opens\n  of stat files read, %" PRIu64 " syscalls on other files left out\n",
		(int)bd->reader_pid, fo->forks, fo->opens, fo->other);
	if (fo->unnamed)
		fprintf(out, "  %" PRIu64 " syscalls on fds whose open was not seen (inherited from\n  outside the targets, pipes): left out\n",
			fo->unnamed);
	if (fo->readers_full)
		fprintf(out, "  %" PRIu64 " children not followed: the map of processes followed was full\n",
			fo->readers_full);
	if (fo->events_lost)
		fprintf(out, "  %" PRIu64 " opens or forks lost (the ring was full): their reads may be\n  left out\n",
			fo->events_lost);
	if (fo->files_dropped)
		fprintf(out, "  %" PRIu64 " more stat files read: only the %d most read are kept\n",
			fo->files_dropped, BENCH_BD_MAX_FILES);
}

/*
 * Split trees (v6.16+): the file's read flushes one subsystem's tree, so
 * its walk is that subsystem's flush, with the callback where the
 * callback is not timed apart.
 */
static void print_tree(FILE *out, const struct bench_breakdown *bd,
		       const struct bench_bd_file *f)
{
	int part = bd->split_trees ? breakdown__file_tree(f->file) : -1;
	const char *tree;

	if (part < 0)
		return;
	tree = breakdown_part_name(part);
	fprintf(out, "  split trees (v6.16+): a %s read flushes %s's tree alone\n",
		f->file, tree);
	/* The base tree runs bpf_rstat_flush as well. */
	if (bd->untimed[part][0] && !bd->untimed[BD_PART_WALK][0])
		fprintf(out, "  (its walk is %s's flush, %s's callback%s included)\n",
			tree, tree, part == BD_PART_BASE &&
			bd->untimed[BD_PART_BPF][0] ? " and bpf's" : "");
}

/* "(METHOD; HZ=250: 4.0 ms ticks)", under the table's title. */
static void print_method(FILE *out, const struct bench_breakdown *bd)
{
	char text[256];

	if (bd->hz)
		snprintf(text, sizeof(text), "(%s; HZ=%u: %.1f ms ticks)",
			 bd->method, bd->hz, 1e3 / bd->hz);
	else
		snprintf(text, sizeof(text), "(%s)", bd->method);
	print_wrapped(out, "  ", "   ", text);
}

void bench_breakdown__print(const struct bench_breakdown *bd, FILE *out)
{
	unsigned int i;
	int p;

	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];

		if (bd->follow.set)
			fprintf(out, "\n%s: where a read's time goes, %" PRIu64 " reads by the targets\n",
				f->file, f->reads);
		else
			fprintf(out, "\n%s: where a read's time goes, %" PRIu64 " reads of the %s pass\n",
				f->file, f->reads, bd->pass);
		print_method(out, bd);
		fprintf(out, "  %-8s %10s %10s %10s %7s %6s\n", "part", "p50",
			"p90", "p99", "share", "calls");
		print_row(out, "total", &f->total, true, f->reads);
		for (p = 0; p < BD_PART__NR; p++)
			print_row(out, breakdown_part_name(p), &f->part[p],
				  !bd->untimed[p][0], f->reads);
		print_tree(out, bd, f);
		if (f->tail_off_ns && f->reads)
			fprintf(out, "  off-cpu includes %.1f us a read (mean) switched out after read(2) returned\n",
				f->tail_off_ns / 1e3 / f->reads);
		if (f->off_most)
			fprintf(out, "  %" PRIu64 " of %" PRIu64 " reads were off the CPU for most of their time\n",
				f->off_most, f->reads);
		if (f->paired)
			print_entry(out, f);
		else if (f->reader_reads)
			fprintf(out, "  entry/exit not derived: the kernel saw %" PRIu64 " reads, the reader made %" PRIu64 ":\n  they cannot be paired one to one\n",
				f->reads, f->reader_reads);
		if (f->read_p50_ns && !f->paired)
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
	if (bd->follow.set)
		print_follow(out, bd);
	if (!bd->nr_files)
		return;
	for (p = 0; p < BD_PART__NR; p++) {
		char text[256];

		if (!bd->untimed[p][0])
			continue;
		snprintf(text, sizeof(text), "not timed: %s: %s",
			 breakdown_part_name(p), bd->untimed[p]);
		print_wrapped(out, "  ", "    ", text);
	}
	print_cb_cost(out, bd);
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
	bench_breakdown__print_skips(bd, out);
}

static void csv_row(FILE *out, const struct bench_bd_file *f,
		    const char *part, const struct bench_bd_row *r, bool timed)
{
	int q;

	fputs("read_breakdown,", out);
	fput_csv_field(out, f->file);
	fprintf(out, ",%s,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%.6f,%" PRIu64 ",%" PRIu64, part, timed, f->reads,
		r->q[0], r->q[1], r->q[2], r->share, r->calls, r->sum_ns);
	/* Why a percentile is not a time, as the JSON's notes. */
	for (q = 0; q < BD_NR_Q; q++) {
		fputc(',', out);
		fput_csv_field(out, r->note[q]);
	}
	fputc('\n', out);
}

/* What the text says under the tables: per file, per part, the run's. */
static void csv_files(const struct bench_breakdown *bd, FILE *out)
{
	unsigned int i;

	fputs("\ntable,file,tree,reads,off_cpu_most,tail_off_ns,read_p50_ns,unobserved_p50_ns,reader_reads\n",
	      out);
	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];
		const char *tree = bench_breakdown__file_tree(bd, f->file);

		fputs("read_breakdown_files,", out);
		fput_csv_field(out, f->file);
		fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 "\n", tree ? tree : "",
			f->reads, f->off_most, f->tail_off_ns, f->read_p50_ns,
			f->unobserved_p50_ns, f->reader_reads);
	}
}

/* entry/exit of the files whose reads were paired, as the JSON's. */
static void csv_entry(const struct bench_breakdown *bd, FILE *out)
{
	bool any = false;
	unsigned int i;

	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];
		const struct breakdown_entry *e = &f->entry;

		if (!f->paired)
			continue;
		if (!any)
			fputs("\ntable,file,p50_ns,p90_ns,p99_ns,sum_ns,measured_sum_ns,negative,share\n",
			      out);
		any = true;
		fputs("read_breakdown_entry,", out);
		fput_csv_field(out, f->file);
		fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRIu64 ",%" PRIu64 ",%.6f\n", e->q[0], e->q[1],
			e->q[2], e->sum, e->measured, e->negative, e->share);
	}
}

/* Outside the reads: only the callbacks' parts have such calls. */
static void csv_sources(const struct bench_breakdown *bd, FILE *out)
{
	bool any = false;
	int p, t;

	fputs("\ntable,part,timed,how,outside_calls,outside_ns\n", out);
	for (p = 0; p < BD_PART__NR; p++) {
		bool timed = !bd->untimed[p][0];

		fprintf(out, "read_breakdown_sources,%s,%d,",
			breakdown_part_name(p), timed);
		fput_csv_field(out, timed ? bd->how[p] : bd->untimed[p]);
		if (p <= BD_PART_BASE)
			fprintf(out, ",%" PRIu64 ",%" PRIu64 "\n",
				bd->outside_calls[p], bd->outside_ns[p]);
		else
			fputs(",,\n", out);
	}
	for (p = 0; p <= BD_PART_BASE; p++) {
		for (t = 0; t <= RS_TRIG__NR; t++) {
			if (!bd->outside_trig_calls[p][t])
				continue;
			if (!any)
				fputs("\ntable,part,trigger,calls,ns\n", out);
			any = true;
			fprintf(out, "read_breakdown_outside,%s,%s,%" PRIu64
				",%" PRIu64 "\n", breakdown_part_name(p),
				rs_trigger_name(t - 1),
				bd->outside_trig_calls[p][t],
				bd->outside_trig_ns[p][t]);
		}
	}
}

/* The program runs the kernel skipped, as the JSON's skipped_runs. */
static void csv_skips(const struct bench_breakdown *bd, FILE *out)
{
	const struct breakdown_skips *s = &bd->skips;
	unsigned int i;

	if (!s->nr)
		return;
	fputs("\ntable,program,recursion,missed\n", out);
	for (i = 0; i < s->nr && i < BD_MAX_SKIPS; i++) {
		fputs("read_breakdown_skips,", out);
		fput_csv_field(out, s->prog[i].prog);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 "\n",
			s->prog[i].recursion, s->prog[i].missed);
	}
}

static void csv_run(const struct bench_breakdown *bd, FILE *out)
{
	const struct breakdown_cb_cost *cc = &bd->cb_cost;

	fputs("\ntable,method,pass,hz,split_trees,lost,broken,callback_calls,callback_shortest_ns,callback_programs_ns,callback_programs_after_ns,skips_counted,skipped_reader_syscalls,window_start_ns,window_end_ns,reader_pid\n",
	      out);
	fputs("read_breakdown_run,", out);
	fput_csv_field(out, bd->method);
	fputc(',', out);
	fput_csv_field(out, bd->pass);
	fprintf(out, ",%u,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRId32 "\n", bd->hz, bd->split_trees, bd->lost,
		bd->broken, cc->calls, cc->shortest_ns, cc->programs_ns,
		cc->programs_after_ns, bd->skips.counted,
		bd->skips.reader_syscalls, bd->window_start_ns,
		bd->window_end_ns, bd->reader_pid);
	if (!bd->follow.set)
		return;
	fputs("\ntable,forks,readers_full,events_lost,opens,other_syscalls,unnamed_syscalls,files_dropped\n",
	      out);
	fprintf(out, "read_breakdown_follow,%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		bd->follow.forks, bd->follow.readers_full,
		bd->follow.events_lost, bd->follow.opens, bd->follow.other,
		bd->follow.unnamed, bd->follow.files_dropped);
}

void bench_breakdown__csv(const struct bench_breakdown *bd, FILE *out)
{
	unsigned int i;
	int p;

	fputs("\ntable,file,part,timed,reads,p50_ns,p90_ns,p99_ns,share,calls,sum_ns,note_p50,note_p90,note_p99\n",
	      out);
	for (i = 0; i < bd->nr_files; i++) {
		const struct bench_bd_file *f = &bd->files[i];

		csv_row(out, f, "total", &f->total, true);
		for (p = 0; p < BD_PART__NR; p++)
			csv_row(out, f, breakdown_part_name(p), &f->part[p],
				!bd->untimed[p][0]);
	}
	csv_files(bd, out);
	csv_entry(bd, out);
	csv_sources(bd, out);
	csv_skips(bd, out);
	csv_run(bd, out);
}
