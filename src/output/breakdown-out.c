// SPDX-License-Identifier: GPL-2.0
/*
 * The reads' decomposition for the terminal (breakdown-out.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "breakdown-out.h"
#include "figure.h"
#include "util.h"

/* A time in its unit, by figure.h's rule: figures in order print in order. */
static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	int n;

	if (ns < 1000) {
		snprintf(buf, len, "%" PRIu64 " ns", ns);
		return;
	}
	n = ns < 1000000 ? figure__ratio(buf, len, ns, 1, 1000, 1, 0) :
			   figure__ratio(buf, len, ns, 1, 1000000, 2, 0);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %s", ns < 1000000 ? "us" : "ms");
}

/* A share in percent, by figure.h's rule: never 0.0 when it is not 0. */
static const char *fmt_share(char *buf, size_t len, double share)
{
	figure__double(buf, len, share * 100, 1, 6);
	return buf;
}

/* A signed time, for the derived entry/exit. */
static void fmt_sns(char *buf, size_t len, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-(ns + 1) + 1 : (uint64_t)ns;

	if (ns >= 0) {
		fmt_ns(buf, len, a);
		return;
	}
	buf[0] = '-';
	fmt_ns(buf + 1, len - 1, a);
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
		fmt_sns(v[q], sizeof(v[q]), e->q[q]);
	fprintf(out, "  %-10s%9s %10s %10s %6s%%  derived\n", "entry/exit",
		v[0], v[1], v[2], fmt_share(sh, sizeof(sh), e->share));
	fprintf(out, "  entry/exit, derived: each read as the reader timed it less the kernel's\n  time above (%" PRIu64 " reads paired one to one): entering and leaving the\n  syscalls outside their tracepoints (the timing's programs there too),\n  interrupts in user space, the reader's clock; with it the parts add up\n  to the reader's time (%.1f us a read), its share is of that\n",
		f->reads, e->measured / 1e3 / f->reads);
	if (e->negative)
		fprintf(out, "  %" PRIu64 " reads below 0: the kernel counted time off the CPU after the\n  reader's clock stopped\n",
			e->negative);
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
		fmt_ns(v[q], sizeof(v[q]), r->q[q]);
		if (r->note[q][0] && l < sizeof(notes))
			l += snprintf(notes + l, sizeof(notes) - l, "%sp%g: %s",
				      l ? "; " : "", breakdown_q[q],
				      r->note[q]);
	}
	fprintf(out, "  %-8s %10s %10s %10s %6s%% %6s%s%s\n", name, v[0],
		v[1], v[2], fmt_share(sh, sizeof(sh), r->share), calls,
		*notes ? "  " : "", notes);
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
	bench_breakdown__print_skips(bd, out);
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
	char v[24], sh[32];
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
				fprintf(out, " %10s%%",
					fmt_share(sh, sizeof(sh), r->share));
				continue;
			}
			fmt_ns(v, sizeof(v), r->q[0]);
			fprintf(out, " %9s%% %9s",
				fmt_share(sh, sizeof(sh), r->share), v);
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
