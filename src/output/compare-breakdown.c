// SPDX-License-Identifier: GPL-2.0
/*
 * The reads' breakdowns side by side (compare-out.h's struct
 * compare_bd_file, built by compare-build.c): text in 72 columns, a
 * table per file and side after the base; markdown; CSV rows; JSON.
 *
 * Text, a table:
 *
 *   cpu.stat              6.12                    7.2
 *   part         share       p50     share       p50     pts       %
 *   total       100.0%   7.70 ms    100.0%   2.10 ms    +0.0   -72.7%
 *   memory       40.2%   3.10 ms        not timed
 *
 * The short output leaves out the parts neither side timed and those 0
 * on both, naming them on a line; --details prints every row, then each
 * side's own p50/p90/p99/share/calls table and why parts were not timed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare-int.h"
#include "figure.h"
#include "json.h"

#define BD_LEAD 12		/* "%-12s": "entry/exit" and two spaces */
#define BD_CELL 18		/* " %6s%%" share + " %9s" p50 */
#define BD_PTS 8		/* " %7s" */
#define BD_PCT 9		/* " %7s%%" */

/* Whether a row is 0 on both sides, or timed on neither (short only). */
static bool bd_all_zero(const struct compare_bd_row *r, const size_t *idx,
			size_t n)
{
	size_t k;
	int q;

	for (k = 0; k < n; k++) {
		const struct compare_bd_cell *c = &r->side[idx[k]];

		if (!c->timed || c->share != 0 || c->calls || c->sum_ns)
			return false;
		for (q = 0; q < BD_NR_Q; q++)
			if (c->q[q])
				return false;
	}
	return true;
}

static bool bd_none_timed(const struct compare_bd_row *r, const size_t *idx,
			  size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (r->side[idx[k]].timed)
			return false;
	return true;
}

/* entry/exit on a side that could not derive it. */
static bool bd_underived(const struct compare_bd_row *r, const size_t *idx,
			 size_t n)
{
	size_t k;

	for (k = 0; r->derived && k < n; k++)
		if (!r->side[idx[k]].timed)
			return true;
	return false;
}

/*
 * Rows the short output folds into a line (never total or entry/exit);
 * entry/exit only when every side derived it (else a line says where
 * it was not).
 */
static bool bd_row_shown(const struct compare *c,
			 const struct compare_bd_row *r, const size_t *idx,
			 size_t n)
{
	if (r->derived)
		return !bd_underived(r, idx, n);
	if (c->details || !strcmp(r->name, "total"))
		return true;
	return !bd_none_timed(r, idx, n) && !bd_all_zero(r, idx, n);
}

/* "entry/exit: not derived on a, b (reads not paired)", or "". */
static void bd_underived_line(char *buf, size_t len,
			      const struct compare *c,
			      const struct compare_bd_file *bf,
			      const size_t *idx, size_t n)
{
	const struct compare_bd_row *r = &bf->row[bf->nr_rows - 1];
	size_t k, l, nr = 0;

	buf[0] = '\0';
	if (!bd_underived(r, idx, n))
		return;
	l = snprintf(buf, len, "entry/exit: not derived on");
	for (k = 0; k < n && l < len; k++)
		if (!r->side[idx[k]].timed)
			l += snprintf(buf + l, len - l, "%s %s",
				      nr++ ? "," : "", c->labels[idx[k]]);
	if (l < len)
		snprintf(buf + l, len - l, " (reads not paired)");
}

/* A change in points or percent, + grew; "from 0" when it has no %. */
static void bd_fmt_change(char *buf, size_t len, double v, bool pct)
{
	char num[24];

	if (isnan(v)) {
		snprintf(buf, len, "from 0");
		return;
	}
	if (fabs(v) >= 1e5) {
		snprintf(buf, len, "%+.0e%s", v, pct ? "%" : "");
		return;
	}
	figure__double(num, sizeof(num), fabs(v), 1, pct ? 6 : 5);
	snprintf(buf, len, "%s%s%s", v < 0 ? "-" : "+", num,
		 pct ? "%" : "");
}

static void bd_text_cell(FILE *out, const struct compare_bd_cell *cell)
{
	char sh[32], v[32];

	if (!cell->timed) {
		fprintf(out, " %*s", BD_CELL - 1, "not timed");
		return;
	}
	compare_fmt__sns(v, sizeof(v), cell->q[0]);
	fprintf(out, " %6s%% %9s",
		compare_fmt__share(sh, sizeof(sh), cell->share), v);
}

static void bd_text_row(FILE *out, const struct compare_bd_row *r,
			const size_t *idx, size_t n)
{
	const struct compare_bd_change *d;
	char pts[32], pct[32];
	size_t k;

	fprintf(out, "%-*s", BD_LEAD, r->name);
	for (k = 0; k < n; k++)
		bd_text_cell(out, &r->side[idx[k]]);
	for (k = 1; k < n; k++) {
		d = &r->change[idx[k]];
		if (!d->valid)
			continue;
		bd_fmt_change(pts, sizeof(pts), d->share_pts, false);
		bd_fmt_change(pct, sizeof(pct), d->q_pct[0], true);
		fprintf(out, " %*s %*s", BD_PTS - 1, pts, BD_PCT - 1, pct);
	}
	fputc('\n', out);
}

/*
 * "0 on both: a, b" or "not timed on either: c" (zero or not): the rows
 * a short table folds; "" when none.
 */
static void bd_folded(char *buf, size_t len, const struct compare *c,
		      const struct compare_bd_file *bf, const size_t *idx,
		      size_t n, bool zero)
{
	size_t r, l;

	l = snprintf(buf, len, zero ? "0 on %s: " : "not timed on %s: ",
		     zero ? (n > 2 ? "all" : "both") :
		     (n > 2 ? "any" : "either"));
	for (r = 0; r < bf->nr_rows && l < len; r++) {
		const struct compare_bd_row *row = &bf->row[r];

		if (row->derived || bd_row_shown(c, row, idx, n) ||
		    bd_all_zero(row, idx, n) != zero)
			continue;
		l += snprintf(buf + l, len - l, "%s%s",
			      buf[l - 2] == ':' ? "" : ", ", row->name);
	}
	if (buf[strlen(buf) - 1] == ' ')	/* no row */
		buf[0] = '\0';
}

static void bd_text_folded(FILE *out, const struct compare *c,
			   const struct compare_bd_file *bf, const size_t *idx,
			   size_t n, bool zero)
{
	char line[256];

	bd_folded(line, sizeof(line), c, bf, idx, n, zero);
	if (line[0])
		compare_fmt__wrapped(out, "%s", line);
}

static void bd_text_table(FILE *out, const struct compare *c,
			  const struct compare_bd_file *bf, const size_t *idx,
			  size_t n)
{
	char l[256];
	size_t k, r;

	if (strlen(bf->file) < BD_LEAD) {
		fprintf(out, "%-*s", BD_LEAD, bf->file);
	} else {
		fprintf(out, "%s\n", bf->file);
		fprintf(out, "%*s", BD_LEAD, "");
	}
	for (k = 0; k < n; k++) {
		compare_fmt__label(l, sizeof(l), c->labels[idx[k]],
				   BD_CELL - 1);
		fprintf(out, " %*s", BD_CELL - 1, l);
	}
	fprintf(out, "\n%-*s", BD_LEAD, "part");
	for (k = 0; k < n; k++)
		fprintf(out, " %7s %9s", "share", "p50");
	for (k = 1; k < n; k++)
		fprintf(out, " %*s %*s", BD_PTS - 1, "pts", BD_PCT - 1, "%");
	fputc('\n', out);
	for (r = 0; r < bf->nr_rows; r++)
		if (bd_row_shown(c, &bf->row[r], idx, n))
			bd_text_row(out, &bf->row[r], idx, n);
	bd_text_folded(out, c, bf, idx, n, false);
	bd_text_folded(out, c, bf, idx, n, true);
	bd_underived_line(l, sizeof(l), c, bf, idx, n);
	if (l[0])
		compare_fmt__wrapped(out, "%s", l);
}

/* Each side's own table of a file: p50, p90, p99, share, calls a read. */
static void bd_text_side(FILE *out, const struct compare *c,
			 const struct compare_bd_file *bf, size_t k)
{
	const struct bench_bd_file *f = bf->side[k];
	const struct bench_breakdown *bd = c->bd[k];
	char v[BD_NR_Q][32], sh[32], calls[32], notes[128], hz[24];
	size_t r, len;
	int q;

	hz[0] = '\0';
	if (bd->hz)
		snprintf(hz, sizeof(hz), "; HZ=%u", bd->hz);
	fputc('\n', out);
	compare_fmt__wrapped(out, "%s on %s: %" PRIu64 " reads of the %s pass (%s%s):",
			     bf->file, c->labels[k], f->reads, bd->pass,
			     bd->method, hz);
	fprintf(out, "%-*s %9s %9s %9s %7s %6s\n", BD_LEAD, "part", "p50",
		"p90", "p99", "share", "calls");
	for (r = 0; r < bf->nr_rows; r++) {
		const struct compare_bd_row *row = &bf->row[r];
		const struct compare_bd_cell *cell = &row->side[k];

		if (!cell->timed) {
			fprintf(out, "%-*s %9s %9s %9s %7s %6s  not %s\n",
				BD_LEAD, row->name, "-", "-", "-", "-", "-",
				row->derived ? "derived" : "timed");
			continue;
		}
		len = 0;
		notes[0] = '\0';
		for (q = 0; q < BD_NR_Q; q++) {
			compare_fmt__sns(v[q], sizeof(v[q]), cell->q[q]);
			if (cell->note[q] && cell->note[q][0] &&
			    len < sizeof(notes))
				len += snprintf(notes + len,
						sizeof(notes) - len, "%sp%g: %s",
						len ? "; " : "", breakdown_q[q],
						cell->note[q]);
		}
		if (row->derived)	/* no call of its own */
			snprintf(calls, sizeof(calls), "-");
		else
			snprintf(calls, sizeof(calls), "%.1f", f->reads ?
				 (double)cell->calls / f->reads : 0);
		fprintf(out, "%-*s %9s %9s %9s %6s%% %6s\n", BD_LEAD, row->name,
			v[0], v[1], v[2],
			compare_fmt__share(sh, sizeof(sh), cell->share), calls);
		if (len)
			compare_fmt__wrapped(out, "%*s(%s)", BD_LEAD, "", notes);
	}
}

/* Why a side did not time parts, the parts of one reason together. */
static void bd_text_untimed(FILE *out, const struct compare *c, size_t k)
{
	const struct bench_breakdown *bd = c->bd[k];
	char names[256];
	size_t len;
	int p, o;

	for (p = 0; p < BD_PART__NR; p++) {
		if (!bd->untimed[p][0])
			continue;
		for (o = 0; o < p && strcmp(bd->untimed[o], bd->untimed[p]);
		     o++)
			;
		if (o < p)	/* said with an earlier part */
			continue;
		len = 0;
		for (o = p; o < BD_PART__NR; o++)
			if (!strcmp(bd->untimed[o], bd->untimed[p]) &&
			    len < sizeof(names))
				len += snprintf(names + len,
						sizeof(names) - len, "%s%s",
						len ? ", " : "",
						breakdown_part_name(o));
		compare_fmt__wrapped(out, "not timed on %s: %s: %s",
				     c->labels[k], names, bd->untimed[p]);
	}
}

/* What the figures are, before the tables. */
static void bd_legend(char *buf, size_t len, const struct compare *c)
{
	bool entry = false;
	size_t i;

	for (i = 0; i < c->nr_bd_files; i++)
		entry |= c->bd_files[i].nr_rows > BD_PART__NR + 1;
	snprintf(buf, len, "Where a read's time goes, timed in the kernel: each part's share and p50; pts, %%: their change against %s (+: grew)%s",
		 c->labels[0], entry ?
		 "; entry/exit: derived, its share of the reader's time." :
		 ".");
}

void compare_bd__text(FILE *out, const struct compare *c)
{
	char legend[512];
	size_t i, k, t, *idx;

	if (!c->nr_bd_files)
		return;
	idx = calloc(c->nr_sides, sizeof(*idx));
	if (!idx)
		return;
	bd_legend(legend, sizeof(legend), c);
	fputc('\n', out);
	compare_fmt__wrapped(out, "%s", legend);
	for (i = 0; i < c->nr_bd_files; i++) {
		const struct compare_bd_file *bf = &c->bd_files[i];

		/* The base and one side a table: a side's 35 columns. */
		for (t = 1; t < c->nr_sides; t++) {
			idx[0] = 0;
			idx[1] = t;
			fputc('\n', out);
			bd_text_table(out, c, bf, idx, 2);
		}
		for (k = 0; c->details && k < c->nr_sides; k++)
			bd_text_side(out, c, bf, k);
	}
	if (c->details) {
		fputc('\n', out);
		for (k = 0; k < c->nr_sides; k++)
			bd_text_untimed(out, c, k);
	}
	free(idx);
}

/* --- markdown ------------------------------------------------------------ */

static void bd_md_cell(FILE *out, const struct compare_bd_cell *cell)
{
	char sh[32], v[32];

	if (!cell->timed) {
		fprintf(out, " not timed | not timed |");
		return;
	}
	compare_fmt__sns(v, sizeof(v), cell->q[0]);
	fprintf(out, " %s%% | %s |",
		compare_fmt__share(sh, sizeof(sh), cell->share), v);
}

/*
 * One table of every file's rows (60 lines are soon spent), after one
 * paragraph: what the figures are, what the table folded, where
 * entry/exit is missing.
 */
void compare_bd__markdown(FILE *out, const struct compare *c)
{
	char pts[32], pct[32], line[512];
	size_t i, k, r, *idx;
	int z;

	if (!c->nr_bd_files)
		return;
	idx = calloc(c->nr_sides, sizeof(*idx));
	if (!idx)
		return;
	for (k = 0; k < c->nr_sides; k++)
		idx[k] = k;
	bd_legend(line, sizeof(line), c);
	fprintf(out, "\n%s", line);
	/* What the table folds, in the same paragraph: lines are dear. */
	for (i = 0; i < c->nr_bd_files; i++) {
		const struct compare_bd_file *bf = &c->bd_files[i];

		for (z = 0; z < 2; z++) {
			bd_folded(line, sizeof(line), c, bf, idx,
				  c->nr_sides, z);
			if (line[0])
				fprintf(out, " %s: %s.", bf->file, line);
		}
		bd_underived_line(line, sizeof(line), c, bf, idx,
				  c->nr_sides);
		if (line[0])
			fprintf(out, " %s: %s.", bf->file, line);
	}
	fprintf(out, "\n\n| File | Part |");
	for (k = 0; k < c->nr_sides; k++)
		fprintf(out, " %s share | %s p50 |", c->labels[k],
			c->labels[k]);
	for (k = 1; k < c->nr_sides; k++)
		fprintf(out, " %s pts | %s %% |", c->labels[k], c->labels[k]);
	fprintf(out, "\n|---|---|");
	for (k = 1; k < 2 * c->nr_sides; k++)
		fprintf(out, "--:|--:|");
	fputc('\n', out);
	for (i = 0; i < c->nr_bd_files; i++) {
		const struct compare_bd_file *bf = &c->bd_files[i];

		for (r = 0; r < bf->nr_rows; r++) {
			const struct compare_bd_row *row = &bf->row[r];

			if (!bd_row_shown(c, row, idx, c->nr_sides))
				continue;
			fprintf(out, "| %s | %s |", bf->file, row->name);
			for (k = 0; k < c->nr_sides; k++)
				bd_md_cell(out, &row->side[k]);
			for (k = 1; k < c->nr_sides; k++) {
				const struct compare_bd_change *d =
					&row->change[k];

				if (!d->valid) {
					fprintf(out, " | |");
					continue;
				}
				bd_fmt_change(pts, sizeof(pts), d->share_pts,
					      false);
				bd_fmt_change(pct, sizeof(pct), d->q_pct[0],
					      true);
				fprintf(out, " %s | %s |", pts, pct);
			}
			fputc('\n', out);
		}
	}
	if (c->details) {
		fprintf(out, "\n```\n");
		for (i = 0; i < c->nr_bd_files; i++)
			for (k = 0; k < c->nr_sides; k++)
				bd_text_side(out, c, &c->bd_files[i], k);
		fputc('\n', out);
		for (k = 0; k < c->nr_sides; k++)
			bd_text_untimed(out, c, k);
		fprintf(out, "```\n");
	}
	free(idx);
}

/* --- CSV ----------------------------------------------------------------- */

enum { BD_TIMED, BD_P50, BD_P90, BD_P99, BD_SHARE, BD_CALLS, BD_SUM,
       BD__NR };

static const char *const bd_csv_rows[BD__NR] = {
	"timed", "p50_ns", "p90_ns", "p99_ns", "share_pct", "calls", "sum_ns",
};

static double bd_value(const struct compare_bd_cell *cell, int v)
{
	if (v == BD_TIMED)
		return cell->timed;
	if (!cell->timed)
		return NAN;
	switch (v) {
	case BD_SHARE:
		return cell->share * 100;
	case BD_CALLS:
		return (double)cell->calls;
	case BD_SUM:
		return (double)cell->sum_ns;
	default:
		return (double)cell->q[v - BD_P50];
	}
}

static double bd_delta(const struct compare_bd_change *d, int v)
{
	if (!d->valid || v == BD_TIMED)
		return NAN;
	switch (v) {
	case BD_SHARE:
		return d->share_pts;
	case BD_CALLS:
		return d->calls_pct;
	case BD_SUM:
		return d->sum_pct;
	default:
		return d->q_pct[v - BD_P50];
	}
}

/* Row v (BD_*) of a part, every side's. */
static void bd_csv_rows_of(FILE *out, const struct compare *c,
			   const char *metric, const struct compare_bd_row *row,
			   int v)
{
	size_t k;

	for (k = 0; k < c->nr_sides; k++)
		compare_fmt__csv_row(out, "breakdown", bd_csv_rows[v], metric,
				     c->labels[k], bd_value(&row->side[k], v),
				     k ? bd_delta(&row->change[k], v) : NAN,
				     -1);
}

/*
 * Block "breakdown", metric "FILE PART": every side's figures of every
 * part, and the change against the base (+: grew; share in points, the
 * rest in percent); a part a side did not time has timed 0 and empty
 * figures. Each file's reads first, as row "reads" of part total.
 */
void compare_bd__csv(FILE *out, const struct compare *c)
{
	char metric[128];
	size_t i, k, r;
	int v;

	for (i = 0; i < c->nr_bd_files; i++) {
		const struct compare_bd_file *bf = &c->bd_files[i];

		snprintf(metric, sizeof(metric), "%s total", bf->file);
		for (k = 0; k < c->nr_sides; k++)
			compare_fmt__csv_row(out, "breakdown", "reads", metric,
					     c->labels[k],
					     (double)bf->side[k]->reads, NAN,
					     -1);
		for (r = 0; r < bf->nr_rows; r++) {
			const struct compare_bd_row *row = &bf->row[r];

			snprintf(metric, sizeof(metric), "%s %s", bf->file,
				 row->name);
			for (v = 0; v < BD__NR; v++)
				bd_csv_rows_of(out, c, metric, row, v);
		}
	}
}

/* --- JSON ---------------------------------------------------------------- */

static void bd_json_cell(struct json_writer *jw,
			 const struct compare_bd_cell *cell)
{
	int q;

	json__object_begin(jw, NULL);
	json__bool(jw, "timed", cell->timed);
	if (!cell->timed) {
		json__string(jw, "why", cell->why);
		json__object_end(jw);
		return;
	}
	json__i64(jw, "p50_ns", cell->q[0]);
	json__i64(jw, "p90_ns", cell->q[1]);
	json__i64(jw, "p99_ns", cell->q[2]);
	json__double(jw, "share", cell->share);
	json__u64(jw, "calls", cell->calls);
	json__i64(jw, "sum_ns", cell->sum_ns);
	json__array_begin(jw, "notes");
	for (q = 0; q < BD_NR_Q; q++)
		json__string(jw, NULL, cell->note[q] ? cell->note[q] : "");
	json__array_end(jw);
	json__object_end(jw);
}

static void bd_json_change(struct json_writer *jw,
			   const struct compare_bd_change *d)
{
	if (!d->valid) {
		json__string(jw, NULL, NULL);
		return;
	}
	json__object_begin(jw, NULL);
	json__double(jw, "share_pts", d->share_pts);
	json__double(jw, "p50_pct", d->q_pct[0]);
	json__double(jw, "p90_pct", d->q_pct[1]);
	json__double(jw, "p99_pct", d->q_pct[2]);
	json__double(jw, "calls_pct", d->calls_pct);
	json__double(jw, "sum_pct", d->sum_pct);
	json__object_end(jw);
}

void compare_bd__json(struct json_writer *jw, const struct compare *c)
{
	size_t i, k, r;

	json__array_begin(jw, "breakdowns");
	for (i = 0; i < c->nr_bd_files; i++) {
		const struct compare_bd_file *bf = &c->bd_files[i];

		json__object_begin(jw, NULL);
		json__string(jw, "file", bf->file);
		json__array_begin(jw, "sides");
		for (k = 0; k < c->nr_sides; k++) {
			const struct bench_breakdown *bd = c->bd[k];

			json__object_begin(jw, NULL);
			json__string(jw, "side", c->labels[k]);
			json__u64(jw, "reads", bf->side[k]->reads);
			json__string(jw, "method", bd->method);
			json__string(jw, "pass", bd->pass);
			if (bd->hz)
				json__u64(jw, "hz", bd->hz);
			else
				json__string(jw, "hz", NULL);
			json__bool(jw, "entry_exit", bf->side[k]->paired);
			json__object_end(jw);
		}
		json__array_end(jw);
		json__array_begin(jw, "parts");
		for (r = 0; r < bf->nr_rows; r++) {
			const struct compare_bd_row *row = &bf->row[r];

			json__object_begin(jw, NULL);
			json__string(jw, "part", row->name);
			json__bool(jw, "derived", row->derived);
			json__array_begin(jw, "sides");
			for (k = 0; k < c->nr_sides; k++)
				bd_json_cell(jw, &row->side[k]);
			json__array_end(jw);
			json__array_begin(jw, "change");
			json__string(jw, NULL, NULL);
			for (k = 1; k < c->nr_sides; k++)
				bd_json_change(jw, &row->change[k]);
			json__array_end(jw);
			json__object_end(jw);
		}
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
}
