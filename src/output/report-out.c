// SPDX-License-Identifier: GPL-2.0
/*
 * The attribution report as text tables (80 columns, ready to paste into
 * an email), JSON and CSV. Every table has the same rows in the three
 * forms; the text form leaves out empty rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "attrib.h"
#include "cgroup-path.h"
#include "figure.h"
#include "hist.h"
#include "json.h"
#include "kernel-spans.h"
#include "perf-data.h"
#include "profile.h"
#include "breakdown-out.h"
#include "report-out.h"
#include "rules.h"
#include "spans.h"
#include "util.h"

#define TOP_COMMS 10
#define TOP_STACKS 8
#define TEXT_WIDTH 80
/* MEMCG_CHARGE_BATCH from v6.1 (32 before). */
#define MEMCG_CHARGE_BATCH 64

/* Subsystems in table order: the categories, then "unknown". */
static const int subsys_order[] = {
	RS_CAT_MEMORY, RS_CAT_IO, RS_CAT_BASE, RS_CAT_BPF, RS_CAT_CORE, -1,
};

static const char *subsys_name(int subsys)
{
	return subsys < 0 ? "unknown" : rs_category_name(subsys);
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / whole : 0.0;
}

/*
 * part / whole in percent with decimals decimals, by figure.h's rule
 * (exact, a half up; a share under 1% keeps two significant digits:
 * one sample in 21047 is 0.0048%, not 0.00%), "0" decimals when whole
 * is 0.
 */
static const char *fmt_pct(char *buf, size_t len, uint64_t part,
			   uint64_t whole, int decimals, int width)
{
	if (!whole)
		figure__ratio(buf, len, 0, 1, 1, decimals, width);
	else if (part > UINT64_MAX / 100)
		figure__double(buf, len, 100.0 * part / whole, decimals,
			       width);
	else
		figure__ratio(buf, len, part * 100, whole, 1, decimals,
			      width);
	return buf;
}

/* The decimals a time in the display unit deserves. */
static int time_decimals(const struct report_out *ro)
{
	return ro->divisor == 1 ? 0 : ro->divisor == 1000 ? 1 : 3;
}

/*
 * num / den ns in the display unit, with the digits that unit deserves,
 * by figure.h's rule, in width columns when it can (0: any width).
 */
static void fmt_ratio(char *buf, size_t len, uint64_t num, uint64_t den,
		      const struct report_out *ro, int width)
{
	figure__ratio(buf, len, num, den, ro->divisor, time_decimals(ro),
		      width);
}

static void fmt_time(char *buf, size_t len, uint64_t ns,
		     const struct report_out *ro)
{
	fmt_ratio(buf, len, ns, 1, ro, 0);
}

/* fmt_time(), giving up decimals when that is what overflows width. */
static void fmt_time_fit(char *buf, size_t len, uint64_t ns,
			 const struct report_out *ro, size_t width)
{
	fmt_ratio(buf, len, ns, 1, ro, (int)width);
}

static const char *unit_short(const struct report_out *ro)
{
	const char *u = figure__time_unit(ro->divisor);

	return u ? u : "ms";
}

/*
 * Text too long for one line, broken after a separator (';' in stacks,
 * ' ' in command lines) into lines of at most width columns, each
 * continuation indented by indent. A piece longer than a line is cut
 * where it must be.
 */
static void text_wrap(FILE *out, const char *text, char sep, int first,
		      int width, const char *indent)
{
	int avail = width - first, len;
	const char *p = text;

	while ((len = strlen(p)) > avail && avail > 0) {
		int cut = avail;

		while (cut > 0 && p[cut - 1] != sep)
			cut--;
		if (!cut)
			cut = avail;
		/* A space separator ends the line unprinted. */
		fprintf(out, "%.*s\n%s", cut - (sep == ' ' && p[cut - 1] == ' '),
			p, indent);
		p += cut;
		avail = width - (int)strlen(indent);
	}
	fprintf(out, "%s\n", p);
}

/* --- header and event counts ------------------------------------------ */

static void text_header(FILE *out, const struct report_out *ro)
{
	const struct perf_header_info *hdr = perf_data__header(ro->pd);
	uint64_t first, last;

	analysis__time_range(ro->an, &first, &last);
	fprintf(out, "# rstat-analyze report: %s (%s layout)\n", ro->input,
		hdr->pipe_mode ? "pipe" : "file");
	fprintf(out, "# host: %s, kernel: %s, arch: %s, cpus: %u\n",
		hdr->hostname ? hdr->hostname : "?",
		hdr->os_release ? hdr->os_release : "?",
		hdr->arch ? hdr->arch : "?", hdr->nr_cpus_online);
	if (last > first)
		fprintf(out, "# duration: %.3f s\n", (last - first) / 1e9);
	/* Our own recordings say "rstat-analyze VERSION" there. */
	if (hdr->perf_version)
		fprintf(out, "# recorded by: %s%s\n",
			strncmp(hdr->perf_version, "rstat-analyze", 13) ?
			"perf " : "", hdr->perf_version);
	if (hdr->cmdline) {
		fputs("# cmdline: ", out);
		text_wrap(out, hdr->cmdline, ' ', 11, TEXT_WIDTH, "#   ");
	}
}

static void text_counts(FILE *out, const struct report_out *ro)
{
	const struct perf_data_stats *st = perf_data__stats(ro->pd);
	uint32_t i, n = perf_data__nr_evsel(ro->pd);

	fprintf(out, "\nEvent counts\n%-46s %12s %18s\n", "event", "samples",
		"period");
	for (i = 0; i < n; i++) {
		const struct rs_evsel *evsel = perf_data__evsel(ro->pd, i);

		fprintf(out, "%-46s %12" PRIu64 " %18" PRIu64 "\n",
			evsel->name, evsel->nr_samples, evsel->total_period);
	}
	fprintf(out, "lost events: %" PRIu64 ", lost samples: %" PRIu64
		", unknown records: %" PRIu64 "\n", st->nr_lost,
		st->nr_lost_samples, st->nr_unknown_records);
}

/* --- attribution -------------------------------------------------------- */

static int text_attrib_event(FILE *out, const struct report_out *ro,
			     uint32_t idx)
{
	const struct attrib_event *ev = attrib__event(analysis__attrib(ro->an),
						      idx);
	struct attrib_keyed top[TOP_COMMS > TOP_STACKS ? TOP_COMMS :
				TOP_STACKS];
	char p1[48], p2[48];
	int c, t, n, i;

	fprintf(out, "\nAttribution of %s: %" PRIu64 " samples, %" PRIu64
		" (%s%%) in flushes\n", ev->name, ev->total.samples,
		ev->flush.samples, fmt_pct(p1, sizeof(p1), ev->flush.period,
					   ev->total.period, 1, 0));
	fprintf(out, "%-15s %10s %20s %8s %8s\n", "category", "samples",
		"period", "% all", "% flush");
	for (c = 0; c < RS_CAT__NR; c++) {
		const struct attrib_row *r = &ev->cat[c];

		if (!r->samples)
			continue;
		fprintf(out, "%-15s %10" PRIu64 " %20" PRIu64 " %8s ",
			rs_category_name(c), r->samples, r->period,
			fmt_pct(p1, sizeof(p1), r->period, ev->total.period,
				2, 8));
		if (rs_category_is_flush(c))
			fprintf(out, "%8s\n", fmt_pct(p2, sizeof(p2),
				r->period, ev->flush.period, 2, 8));
		else
			fprintf(out, "%8s\n", "-");
	}
	if (ev->cat[RS_CAT_INSTRUMENTATION].samples)
		fprintf(out, "instrumentation: the recorder's own work (tracepoint handlers, sample\nand callchain capture) in the sampled stacks; not counted as flush work\n");
	if (!ev->flush.samples)
		return 0;

	fprintf(out, "\nFlush triggers (who asked), %s\n", ev->name);
	fprintf(out, "%-17s %10s %20s %8s\n", "trigger", "samples", "period",
		"% flush");
	for (t = 0; t < RS_TRIG__NR; t++) {
		const struct attrib_row *r = &ev->trig[t];

		if (r->samples)
			fprintf(out, "%-17s %10" PRIu64 " %20" PRIu64
				" %8s\n", rs_trigger_name(t), r->samples,
				r->period, fmt_pct(p1, sizeof(p1), r->period,
						   ev->flush.period, 2, 8));
	}

	fprintf(out, "\nCategory x trigger, %s\n", ev->name);
	fprintf(out, "%-15s %-17s %10s %20s %8s\n", "category", "trigger",
		"samples", "period", "% flush");
	for (c = 0; c < RS_CAT__NR; c++)
		for (t = 0; t < RS_TRIG__NR; t++) {
			const struct attrib_row *r = &ev->cross[c][t];

			if (r->samples)
				fprintf(out, "%-15s %-17s %10" PRIu64
					" %20" PRIu64 " %8s\n",
					rs_category_name(c),
					rs_trigger_name(t), r->samples,
					r->period,
					fmt_pct(p1, sizeof(p1), r->period,
						ev->flush.period, 2, 8));
		}

	n = attrib__top_comms(analysis__attrib(ro->an), idx, top, TOP_COMMS);
	if (n < 0)
		return n;
	fprintf(out, "\nFlushing processes, %s (top %d of %u)\n", ev->name,
		n, attrib__nr_comms(analysis__attrib(ro->an), idx));
	fprintf(out, "%-29s %10s %20s %8s\n", "comm", "samples", "period",
		"% flush");
	for (i = 0; i < n; i++)
		fprintf(out, "%-29.29s %10" PRIu64 " %20" PRIu64 " %8s\n",
			top[i].name, top[i].row.samples, top[i].row.period,
			fmt_pct(p1, sizeof(p1), top[i].row.period,
				ev->flush.period, 2, 8));

	n = attrib__top_stacks(analysis__attrib(ro->an), idx, top,
			       TOP_STACKS);
	if (n < 0)
		return n;
	fprintf(out, "\nTop flush stacks, %s (trigger first, leaf last)\n",
		ev->name);
	fprintf(out, "%7s %10s  %s\n", "% flush", "samples", "stack");
	for (i = 0; i < n; i++) {
		fprintf(out, "%7s %10" PRIu64 "  ",
			fmt_pct(p1, sizeof(p1), top[i].row.period,
				ev->flush.period, 2, 7),
			top[i].row.samples);
		text_wrap(out, top[i].name, ';', 20, TEXT_WIDTH,
			  "                    ");
	}
	if (ev->clock && ev->skid.samples)
		fprintf(out, "\nskid: %s%% of the flush samples of %s sit at an IRQ re-enable\npoint: time with IRQs off is charged there (see the lock hold times below)\n",
			fmt_pct(p1, sizeof(p1), ev->skid.period,
				ev->flush.period, 1, 0), ev->name);
	return 0;
}

/* --- spans -------------------------------------------------------------- */

static void text_hist_row(FILE *out, const struct report_out *ro,
			  const char *name, struct hist *h, int width)
{
	struct hist_summary s;
	char v[6][24];

	hist__summary(h, &s);
	fmt_time_fit(v[0], sizeof(v[0]), s.total, ro, 11);
	fmt_time_fit(v[1], sizeof(v[1]), s.min, ro, 8);
	fmt_time_fit(v[2], sizeof(v[2]), s.p50, ro, 8);
	fmt_time_fit(v[3], sizeof(v[3]), s.p90, ro, 8);
	fmt_time_fit(v[4], sizeof(v[4]), s.p99, ro, 8);
	fmt_time_fit(v[5], sizeof(v[5]), s.max, ro, 8);
	fprintf(out, "%-*.*s %7" PRIu64 " %11s %8s %8s %8s %8s %8s\n", width,
		width, name, s.count, v[0], v[1], v[2], v[3], v[4], v[5]);
}

static void text_hist_head(FILE *out, const struct report_out *ro,
			   const char *first, int width)
{
	fprintf(out, "%-*s %7s %11s %8s %8s %8s %8s %8s\n", width, first,
		"count", "total", "min", "p50", "p90", "p99", "max");
	(void)ro;
}

/*
 * A cgroup's path where this machine has it, else its id; a path too long
 * for width keeps its end, the most specific part.
 */
static void cgroup_name(FILE *out, const struct report_out *ro,
			const struct spans_cgroup *cg, int width)
{
	const char *path = cgroup_paths__find(ro->cgroups, cg->root,
					      cg->cgroup_id);
	int len;

	if (!path) {
		fprintf(out, "id %" PRIu64 "\n", cg->cgroup_id);
		return;
	}
	len = strlen(path);
	if (len > width)
		fprintf(out, "...%s\n", path + len - (width - 3));
	else
		fprintf(out, "%s\n", path);
}

#define NR_SUBSYS (sizeof(subsys_order) / sizeof(*subsys_order))

/* The cost bound of the recording's holds, in table order. */
static void hold_cost(struct spans *sp, struct hold_cost *hc)
{
	spans__hold_cost(sp, subsys_order, NR_SUBSYS, hc);
}

/* The subsystems a cost bound dominates, ending the cost line. */
static void text_dominated(FILE *out, const struct hold_cost *hc,
			   const char *by)
{
	unsigned int i;

	if (!hc->nr_dominated) {
		fputs("\n", out);
		return;
	}
	fprintf(out, ";\np50 within 3x of it, dominated by the %s:", by);
	for (i = 0; i < hc->nr_dominated; i++)
		fprintf(out, "%s %s", i ? "," : "",
			subsys_name(hc->dominated[i]));
}

static void text_hold_cost(FILE *out, const struct report_out *ro,
			   const struct hold_cost *hc)
{
	char a[32], b[32];

	if (hc->bound_ns == UINT64_MAX)
		return;
	fmt_time(a, sizeof(a), hc->bound_ns, ro);
	fprintf(out, "recording cost: at most %s %s a hold (the shortest one: a locked and an\nunlock record back to back)",
		a, unit_short(ro));
	text_dominated(out, hc, "recorder");
	if (!hc->nr_dominated)
		return;
	fmt_time(b, sizeof(b), 3 * hc->bound_ns, ro);
	fprintf(out, " (< %s %s);\ntime holds in the kernel (BPF) for their own length\n",
		b, unit_short(ro));
}

/* The same as JSON: "hold_cost": {"bound_ns", "dominated": [...]}. */
static void json_cost(struct json_writer *jw, const struct hold_cost *hc)
{
	unsigned int i;

	if (hc->bound_ns == UINT64_MAX) {
		json__string(jw, "hold_cost", NULL);
		return;
	}
	json__object_begin(jw, "hold_cost");
	json__u64(jw, "bound_ns", hc->bound_ns);
	if (hc->span)
		json__string(jw, "span", hc->span);
	json__array_begin(jw, "dominated");
	for (i = 0; i < hc->nr_dominated; i++)
		json__string(jw, NULL, subsys_name(hc->dominated[i]));
	json__array_end(jw);
	json__object_end(jw);
}

static void json_hold_cost(struct json_writer *jw, struct spans *sp)
{
	struct hold_cost hc;

	hold_cost(sp, &hc);
	json_cost(jw, &hc);
}

/*
 * Waits and flushes are timed from the same records as the holds, so
 * they carry the same cost: say so under their tables, with the hold
 * bound, so that no wait or flush length reads as the kernel's alone.
 * what: what the span holds of the records, and how many bounds.
 */
static void text_span_cost(FILE *out, const struct report_out *ro,
			   const struct hold_cost *hc, const char *what)
{
	char a[32];

	if (hc->bound_ns == UINT64_MAX)
		return;
	fmt_time(a, sizeof(a), hc->bound_ns, ro);
	fprintf(out, "recording cost: %s %s %s (the shortest hold above)\n",
		what, a, unit_short(ro));
}

static void text_locks(FILE *out, const struct report_out *ro)
{
	struct spans *sp = analysis__spans(ro->an);
	const struct rs_evsel *sampled =
		analysis__sampled_tracepoint(ro->an);
	const struct spans_cgroup *cg;
	const struct spans_lock_cpu *lc;
	struct spans_counts c;
	struct hold_cost hc;
	size_t nr, i;
	char a[24], b[24];
	unsigned int k;

	spans__counts(sp, &c);
	if (!c.locked && !c.unlocked && !c.contended)
		return;
	hold_cost(sp, &hc);
	fprintf(out, "\nLock hold time (cgroup_rstat_locked -> unlock), %s\n",
		unit_short(ro));
	text_hist_head(out, ro, "subsystem", 10);
	for (k = 0; k < sizeof(subsys_order) / sizeof(*subsys_order); k++) {
		struct hist *h = spans__hold_hist(sp, subsys_order[k]);

		if (h && hist__count(h))
			text_hist_row(out, ro, subsys_name(subsys_order[k]),
				      h, 10);
	}
	fprintf(out, "pairs: %" PRIu64 "; locked without unlock: %" PRIu64
		", unlock without locked: %" PRIu64 "\n", c.pairs,
		c.unmatched_start, c.unmatched_end);
	text_hold_cost(out, ro, &hc);
	if (sampled)
		fprintf(out, "caution: %s recorded %" PRIu64 " of %" PRIu64
			" hits (sampled): pairs\nmay join different lock rounds; record tracepoints with -c 1\n",
			sampled->name, sampled->nr_samples,
			sampled->total_period);

	if (c.contended || c.wait_pairs) {
		fprintf(out, "\nLock wait time (lock_contended -> locked), %s\n",
			unit_short(ro));
		text_hist_head(out, ro, "subsystem", 10);
		for (k = 0; k < sizeof(subsys_order) / sizeof(*subsys_order);
		     k++) {
			struct hist *h = spans__wait_hist(sp,
							  subsys_order[k]);

			if (h && hist__count(h))
				text_hist_row(out, ro,
					      subsys_name(subsys_order[k]),
					      h, 10);
		}
		fprintf(out, "waits: %" PRIu64 "; unmatched: %" PRIu64
			" contended, %" PRIu64 " locked\n", c.wait_pairs,
			c.wait_unmatched_start, c.wait_unmatched_end);
		text_span_cost(out, ro, &hc,
			       "each wait also holds the end of a contended record and\nthe start of a locked one: at most");
	} else {
		fprintf(out, "no contended lock (lock wait time 0)\n");
	}

	if (c.flushes) {
		fprintf(out, "\nWork per flush (one task's run of locks in one flush), %s\n",
			unit_short(ro));
		text_hist_head(out, ro, "subsystem", 10);
		for (k = 0; k < sizeof(subsys_order) / sizeof(*subsys_order);
		     k++) {
			const struct spans_flush *f =
				spans__flush(sp, subsys_order[k]);

			if (f && f->flushes)
				text_hist_row(out, ro,
					      subsys_name(subsys_order[k]),
					      f->duration, 10);
		}
		fprintf(out, "%-10s %7s %11s %8s %8s %8s\n", "subsystem",
			"flushes", "locks", "cpus avg", "cpus max",
			"hold/fl");
		for (k = 0; k < sizeof(subsys_order) / sizeof(*subsys_order);
		     k++) {
			const struct spans_flush *f =
				spans__flush(sp, subsys_order[k]);

			if (!f || !f->flushes)
				continue;
			fmt_ratio(a, sizeof(a), f->hold_ns, f->flushes, ro,
				  0);
			figure__ratio(b, sizeof(b), hist__total(f->cpus),
				      f->flushes, 1, 1, 8);
			fprintf(out, "%-10s %7" PRIu64 " %11" PRIu64
				" %8s %8" PRIu64 " %8s\n",
				subsys_name(subsys_order[k]), f->flushes,
				f->locks, b, hist__max(f->cpus), a);
		}
		text_span_cost(out, ro, &hc,
			       "a flush of N locks is 2N records; the 2N - 1 gaps\nbetween them hold at most 2N - 1 times");
	}

	if (!spans__cgroups(sp, &cg, &nr) && nr) {
		fprintf(out, "\nLocks per cgroup (root 0: the v2 hierarchy; %s), %s\n",
			ro->cgroups ? "paths as on this machine now" :
			"ids: recorded elsewhere", unit_short(ro));
		fprintf(out, "%4s %5s %8s %12s %10s  %s\n", "root", "level",
			"locks", "hold total", "hold max", "cgroup");
		for (i = 0; i < nr && i < 20; i++) {
			fmt_time(a, sizeof(a), cg[i].holds.hold_ns, ro);
			fmt_time(b, sizeof(b), cg[i].holds.max_hold_ns, ro);
			fprintf(out, "%4d %5d %8" PRIu64 " %12s %10s  ",
				cg[i].root, cg[i].level, cg[i].holds.locks, a,
				b);
			cgroup_name(out, ro, &cg[i], 80 - 45);
		}
		if (nr > 20)
			fprintf(out, "(%zu more cgroups)\n", nr - 20);
	}
	if (!spans__lock_cpus(sp, &lc, &nr) && nr) {
		fprintf(out, "\nLocks by the events' cpu field, %s\n",
			unit_short(ro));
		fprintf(out, "%5s %8s %10s %9s  %s\n", "cpu", "locks",
			"hold total", "hold max", "meaning");
		for (i = 0; i < nr; i++) {
			fmt_time(a, sizeof(a), lc[i].holds.hold_ns, ro);
			fmt_time(b, sizeof(b), lc[i].holds.max_hold_ns, ro);
			fprintf(out, "%5d %8" PRIu64 " %10s %9s  %.42s\n",
				lc[i].lock_cpu, lc[i].holds.locks, a, b,
				lc[i].meaning);
		}
	}
}

/* --- spans timed in the kernel ----------------------------------------- */

/* The kinds in the order printed, with their row names. */
static const struct {
	enum bpf_spans_kind kind;
	const char *name;
} kspan_kinds[] = {
	{ BPF_SPANS_HOLD, "hold" },
	{ BPF_SPANS_WAIT, "wait" },
	{ BPF_SPANS_FLUSH, "flush" },
	{ BPF_SPANS_MEMCG, "memcg-flush" },
};

/*
 * The kernel spans that have values, in the order printed (by kind, then
 * subsystem): the next after *pos (0 to begin) with its kind's and its
 * subsystem's names, or NULL after the last.
 */
static const struct bpf_spans_hist *kspan_next(const struct kernel_spans *ks,
					       unsigned int *pos,
					       const char **kind,
					       const char **subsys)
{
	const unsigned int nr_sub = ARRAY_SIZE(subsys_order);
	const struct bpf_spans_hist *h;
	unsigned int i, k;

	while (ks && *pos < ARRAY_SIZE(kspan_kinds) * nr_sub) {
		i = *pos / nr_sub;
		k = *pos % nr_sub;
		(*pos)++;
		h = kernel_spans__hist(ks, kspan_kinds[i].kind,
				       subsys_order[k]);
		if (h && h->count) {
			*kind = kspan_kinds[i].name;
			*subsys = subsys_name(subsys_order[k]);
			return h;
		}
	}
	return NULL;
}

/* A count in ns as bpftrace prints bucket bounds: 512, 1K, 2M... */
static void fmt_pow2(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = " KMGTPE";
	unsigned int i = 0;

	while (v >= 1024 && !(v & 1023) && i < sizeof(suffix) - 2) {
		v >>= 10;
		i++;
	}
	if (i)
		snprintf(buf, len, "%" PRIu64 "%c", v, suffix[i]);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* The bucket of a percentile as "[256, 512)" (ns) without the space. */
static void fmt_bucket(char *buf, size_t len, const struct bpf_spans_hist *h,
		       double q)
{
	uint64_t low, high;
	char a[22], b[22];

	bpf_spans_hist__percentile(h, q, &low, &high);
	fmt_pow2(a, sizeof(a), low);
	if (high == UINT64_MAX)
		snprintf(b, sizeof(b), "inf");
	else
		fmt_pow2(b, sizeof(b), high + 1);
	snprintf(buf, len, "[%s,%s)", a, b);
}

/*
 * What timing costs in the kernel: the shortest hold bounds what the two
 * programs add to each (the tail of locked's, the head of unlock's); a
 * median bucket that starts below 3x of it is mostly that cost.
 */
static void kspans_hold_cost(const struct kernel_spans *ks,
			     struct hold_cost *hc)
{
	kernel_spans__hold_cost(ks, subsys_order, NR_SUBSYS, hc);
}

static void text_kspans(FILE *out, const struct report_out *ro)
{
	const struct kernel_spans *ks = ro->kspans;
	struct bpf_spans_counts c;
	const struct bpf_spans_hist *h;
	const char *kind, *sub;
	struct hold_cost hc;
	char name[48], v[5][48];
	unsigned int pos = 0;

	if (!ks)
		return;
	kernel_spans__counts(ks, &c);
	fprintf(out, "\nSpans timed in the kernel by BPF (%s), %s\n%s; p50..p99: the log2 bucket in ns, as bpftrace prints it\n",
		kernel_spans__on(ks), unit_short(ro), kernel_spans__scope(ks));
	fprintf(out, "%-18s %7s %8s %11s %11s %11s %8s\n", "span", "count",
		"avg", "p50", "p90", "p99", "max");
	while ((h = kspan_next(ks, &pos, &kind, &sub))) {
		snprintf(name, sizeof(name), "%s %s", kind, sub);
		fmt_ratio(v[0], sizeof(v[0]), h->sum, h->count, ro, 8);
		fmt_bucket(v[1], sizeof(v[1]), h, 50);
		fmt_bucket(v[2], sizeof(v[2]), h, 90);
		fmt_bucket(v[3], sizeof(v[3]), h, 99);
		fmt_time_fit(v[4], sizeof(v[4]), h->max, ro, 8);
		fprintf(out, "%-18.18s %7" PRIu64 " %8s %11s %11s %11s %8s\n",
			name, h->count, v[0], v[1], v[2], v[3], v[4]);
	}
	fprintf(out, "holds: %" PRIu64 " (unmatched: %" PRIu64 " locked, %"
		PRIu64 " unlock); waits: %" PRIu64 "; flushes: %" PRIu64 "\n",
		c.pairs, c.unmatched_start, c.unmatched_end, c.wait_pairs,
		c.flushes);
	if (c.hist_full || c.stack_errors)
		fprintf(out, "lost: %" PRIu64 " spans (histogram map full), %"
			PRIu64 " stacks (subsystem unknown)\n", c.hist_full,
			c.stack_errors);
	kspans_hold_cost(ks, &hc);
	if (hc.bound_ns == UINT64_MAX)
		return;
	fmt_time(name, sizeof(name), hc.bound_ns, ro);
	fprintf(out, "timing cost: no record is written inside a span; the shortest %s,\n%s %s, bounds what the two BPF programs add to each",
		hc.span, name, unit_short(ro));
	text_dominated(out, &hc, "timing");
	if (hc.nr_dominated)
		fputs("\n", out);
}

static void json_kspans(struct json_writer *jw, const struct report_out *ro)
{
	const struct kernel_spans *ks = ro->kspans;
	struct bpf_spans_counts c;
	const struct bpf_spans_hist *h;
	const char *kind, *sub;
	struct hold_cost hc;
	uint64_t low, high;
	unsigned int pos = 0, q;
	static const double qs[] = { 50, 90, 99 };
	static const char *const qnames[] = { "p50", "p90", "p99" };
	int b;

	if (!ks) {
		json__string(jw, "kernel_spans", NULL);
		return;
	}
	kernel_spans__counts(ks, &c);
	json__object_begin(jw, "kernel_spans");
	json__string(jw, "method", "bpf");
	json__string(jw, "on", kernel_spans__on(ks));
	json__string(jw, "scope", kernel_spans__scope(ks));
	json__u64(jw, "holds", c.pairs);
	json__u64(jw, "waits", c.wait_pairs);
	json__u64(jw, "flushes", c.flushes);
	json__u64(jw, "unmatched_locked", c.unmatched_start);
	json__u64(jw, "unmatched_unlock", c.unmatched_end);
	json__u64(jw, "lost_spans", c.hist_full);
	kspans_hold_cost(ks, &hc);
	json_cost(jw, &hc);
	json__array_begin(jw, "spans");
	while ((h = kspan_next(ks, &pos, &kind, &sub))) {
		json__object_begin(jw, NULL);
		json__string(jw, "name", kind);
		json__string(jw, "subsystem", sub);
		json__u64(jw, "count", h->count);
		json__u64(jw, "total_ns", h->sum);
		json__u64(jw, "min_ns", h->min);
		json__u64(jw, "max_ns", h->max);
		/* percentiles are buckets: [low, high] ns */
		for (q = 0; q < 3; q++) {
			bpf_spans_hist__percentile(h, qs[q], &low, &high);
			json__array_begin(jw, qnames[q]);
			json__u64(jw, NULL, low);
			json__u64(jw, NULL, high);
			json__array_end(jw);
		}
		json__array_begin(jw, "hist");
		for (b = 0; b < BPF_SPANS_SLOTS; b++) {
			if (!h->slots[b])
				continue;
			hist__bucket_bounds(b, &low, &high);
			profile__json_hist_row(jw, low, high, h->slots[b]);
		}
		json__array_end(jw);
		json__object_end(jw);
	}
	json__array_end(jw);
	json__object_end(jw);
}

static void text_memcg(FILE *out, const struct report_out *ro)
{
	const struct spans_memcg *m = spans__memcg(analysis__spans(ro->an));
	const struct perf_header_info *hdr = perf_data__header(ro->pd);
	struct hist_summary s;

	if (!m || !m->requested)
		return;
	fprintf(out, "\nmemcg_flush_stats: %" PRIu64 " requested, %" PRIu64
		" performed (%" PRIu64 " forced), %" PRIu64 " skipped\n",
		m->requested, m->performed, m->forced, m->skipped);
	hist__summary(m->updates, &s);
	fprintf(out, "stats_updates: p50 %" PRIu64 ", p90 %" PRIu64
		", p99 %" PRIu64 ", max %" PRIu64 "\n",
		s.p50, s.p90, s.p99, s.max);
	/* A line of its own: with the figures above it passed 80 columns. */
	if (hdr->nr_cpus_online)
		fprintf(out, "flush threshold: %d x %u cpus = %u stats_updates\n",
			MEMCG_CHARGE_BATCH, hdr->nr_cpus_online,
			MEMCG_CHARGE_BATCH * hdr->nr_cpus_online);
}

static void text_user_spans(FILE *out, const struct report_out *ro)
{
	struct spans *sp = analysis__spans(ro->an);
	int i, n = spans__nr_user(sp);

	if (!n)
		return;
	fprintf(out, "\nSpans, %s\n", unit_short(ro));
	/* 15: the widest the 80 columns leave beside the seven figures */
	text_hist_head(out, ro, "span", 15);
	for (i = 0; i < n; i++) {
		const struct spans_user *u = spans__user(sp, i);
		char name[1024];

		/* A name that would be cut gets lines of its own. */
		snprintf(name, sizeof(name), "%s,%s", u->start, u->end);
		if (strlen(name) > 15) {
			text_wrap(out, name, ',', 0, 80, "  ");
			*name = '\0';
		}
		text_hist_row(out, ro, name, u->hist, 15);
		if (u->unmatched_start || u->unmatched_end)
			fprintf(out, "%-15s unmatched: %" PRIu64
				" starts without end, %" PRIu64
				" ends without start\n", "", u->unmatched_start,
				u->unmatched_end);
	}
}

/*
 * One span histogram of the report's tables: per subsystem (in table
 * order) the lock holds, the lock waits and the flushes (f set), then the
 * user's spans (u set, no subsystem).
 */
enum span_kind { SPAN_HOLD, SPAN_WAIT, SPAN_FLUSH, SPAN_USER };

struct span_row {
	enum span_kind kind;
	const char *name;
	const char *subsys;		/* NULL for a user's span */
	struct hist *h;
	const struct spans_flush *f;	/* the flush row's record */
	const struct spans_user *u;	/* the user's span */
};

static void span_rows__each(struct spans *sp,
			    void (*fn)(void *arg, const struct span_row *r),
			    void *arg)
{
	unsigned int k;
	int u, n;

	for (k = 0; k < sizeof(subsys_order) / sizeof(*subsys_order); k++) {
		int s = subsys_order[k];
		const struct spans_flush *f = spans__flush(sp, s);
		struct span_row r = { .subsys = subsys_name(s) };

		r.h = spans__hold_hist(sp, s);
		if (r.h && hist__count(r.h)) {
			r.kind = SPAN_HOLD;
			r.name = "lock-hold";
			fn(arg, &r);
		}
		r.h = spans__wait_hist(sp, s);
		if (r.h && hist__count(r.h)) {
			r.kind = SPAN_WAIT;
			r.name = "lock-wait";
			fn(arg, &r);
		}
		if (f && f->flushes) {
			r.kind = SPAN_FLUSH;
			r.name = "flush";
			r.h = f->duration;
			r.f = f;
			fn(arg, &r);
		}
	}
	n = spans__nr_user(sp);
	for (u = 0; u < n; u++) {
		const struct spans_user *us = spans__user(sp, u);
		struct span_row r = { .kind = SPAN_USER, .h = us->hist,
				      .u = us };
		char name[256];

		snprintf(name, sizeof(name), "%s,%s", us->start, us->end);
		r.name = name;
		fn(arg, &r);
	}
}

/*
 * The attribution tables JSON and CSV share, row by row: per event the
 * categories (share of all samples; flush categories also of the flush
 * samples), the triggers, category x trigger (shares of the flush
 * samples), then every flushing comm or stack.
 */
enum attrib_table {
	AT_CATEGORY, AT_TRIGGER, AT_CROSS, AT_COMM, AT_STACK,
};

struct attrib_out_row {
	const char *event;
	const char *key, *name;		/* what the row is */
	const char *key2, *name2;	/* a cross row's trigger, else NULL */
	const struct attrib_row *r;
	double share;
	/* the category table's last column: empty unless a flush category */
	bool flush_col, has_flush_share;
	double flush_share;
};

struct attrib_walk {
	void (*fn)(void *arg, const struct attrib_out_row *row);
	void *arg;
	struct attrib_out_row row;
};

/* A row, unless empty (the top comms and stacks never are). */
static void attrib_walk__row(struct attrib_walk *w, const char *key,
			     const char *name, const struct attrib_row *r,
			     uint64_t whole)
{
	if (!r->samples)
		return;
	w->row.key = key;
	w->row.name = name;
	w->row.r = r;
	w->row.share = share(r->period, whole);
	w->fn(w->arg, &w->row);
}

static void attrib_rows__each(struct attrib *at, enum attrib_table tb,
			      void (*fn)(void *arg,
					 const struct attrib_out_row *row),
			      void *arg)
{
	struct attrib_walk w = { fn, arg, { NULL } };
	uint32_t i, n = attrib__nr_events(at), max;
	struct attrib_keyed *top;
	int c, t, j, nk;

	for (i = 0; i < n; i++) {
		const struct attrib_event *ev = attrib__event(at, i);
		uint64_t flush = ev->flush.period;

		w.row.event = ev->name;
		w.row.flush_col = tb == AT_CATEGORY;
		for (c = 0; tb == AT_CATEGORY && c < RS_CAT__NR; c++) {
			w.row.has_flush_share = rs_category_is_flush(c);
			w.row.flush_share = share(ev->cat[c].period, flush);
			attrib_walk__row(&w, PROFILE_CATEGORY,
					 rs_category_name(c), &ev->cat[c],
					 ev->total.period);
		}
		for (t = 0; tb == AT_TRIGGER && t < RS_TRIG__NR; t++)
			attrib_walk__row(&w, PROFILE_TRIGGER,
					 rs_trigger_name(t), &ev->trig[t],
					 flush);
		w.row.key2 = tb == AT_CROSS ? PROFILE_TRIGGER : NULL;
		for (c = 0; tb == AT_CROSS && c < RS_CAT__NR; c++)
			for (t = 0; t < RS_TRIG__NR; t++) {
				w.row.name2 = rs_trigger_name(t);
				attrib_walk__row(&w, PROFILE_CATEGORY,
						 rs_category_name(c),
						 &ev->cross[c][t], flush);
			}
		if (tb != AT_COMM && tb != AT_STACK)
			continue;
		max = tb == AT_STACK ? attrib__nr_stacks(at, i) :
		      attrib__nr_comms(at, i);
		top = max ? calloc(max, sizeof(*top)) : NULL;
		if (!top)
			continue;
		nk = tb == AT_STACK ? attrib__top_stacks(at, i, top, max) :
		     attrib__top_comms(at, i, top, max);
		for (j = 0; j < nk; j++)
			attrib_walk__row(&w, tb == AT_STACK ? "stack" : "comm",
					 top[j].name, &top[j].row, flush);
		free(top);
	}
}

struct text_hists {
	FILE *out;
	const struct report_out *ro;
	enum span_kind kind;
};

static void text_hist_block(void *arg, const struct span_row *r)
{
	static const char *const titles[] = {
		[SPAN_HOLD] = "lock hold",
		[SPAN_WAIT] = "lock wait",
		[SPAN_FLUSH] = "flush duration",
	};
	const struct text_hists *th = arg;

	if (r->kind != th->kind)
		return;
	fprintf(th->out, "\n%s, %s:\n", titles[r->kind], r->subsys);
	hist__print(r->h, th->out, th->ro->divisor, th->ro->unit);
}

/*
 * The spans timed in the kernel: their log2 slots as they are (ns, as
 * bpftrace buckets them), then their exact figures in the display unit;
 * their percentiles are buckets, given in the table of these spans.
 */
static void text_kspan_hists(FILE *out, const struct report_out *ro)
{
	const struct kernel_spans *ks = ro->kspans;
	const struct bpf_spans_hist *h;
	const char *kind, *sub;
	unsigned int pos = 0;
	char f[4][48];

	while ((h = kspan_next(ks, &pos, &kind, &sub))) {
		fprintf(out, "\nkernel span %s, %s (BPF; buckets in ns):\n",
			kind, sub);
		hist__print_rows(out, h->slots, BPF_SPANS_SLOTS, "nsecs");
		fmt_ratio(f[0], sizeof(f[0]), h->sum, h->count, ro, 0);
		fmt_time(f[1], sizeof(f[1]), h->sum, ro);
		fmt_time(f[2], sizeof(f[2]), h->min, ro);
		fmt_time(f[3], sizeof(f[3]), h->max, ro);
		fprintf(out, "avg = %s %s, total: %s %s, count: %" PRIu64
			"\nmin = %s %s, max = %s %s\n", f[0], ro->unit,
			f[1], ro->unit, h->count, f[2], ro->unit, f[3],
			ro->unit);
	}
}

/*
 * Each kind of span in a block of its own, the user's spans last, the
 * kernel-timed ones after them.
 */
static void text_hists(FILE *out, const struct report_out *ro)
{
	struct spans *sp = analysis__spans(ro->an);
	const struct spans_memcg *m = spans__memcg(sp);
	struct text_hists th = { out, ro, SPAN_HOLD };
	int i, n;

	for (th.kind = SPAN_HOLD; th.kind < SPAN_USER; th.kind++)
		span_rows__each(sp, text_hist_block, &th);
	n = spans__nr_user(sp);
	for (i = 0; i < n; i++) {
		const struct spans_user *u = spans__user(sp, i);

		fprintf(out, "\nspan %s,%s:\n", u->start, u->end);
		hist__print(u->hist, out, ro->divisor, ro->unit);
	}
	text_kspan_hists(out, ro);
	if (m && hist__count(m->updates)) {
		fprintf(out, "\nmemcg_flush_stats stats_updates:\n");
		hist__print(m->updates, out, 1, "updates");
	}
}

int report_out__text(FILE *out, const struct report_out *ro)
{
	struct attrib *at = analysis__attrib(ro->an);
	uint32_t i;
	int err;

	text_header(out, ro);
	for (i = 0; i < attrib__nr_events(at); i++) {
		err = text_attrib_event(out, ro, i);
		if (err)
			return err;
	}
	if (!attrib__nr_events(at))
		fprintf(out, "\nno sampling event (cycles, cpu-clock...): no attribution\n");
	text_locks(out, ro);
	text_kspans(out, ro);
	if (ro->bd)
		bench_breakdown__print(ro->bd, out);
	text_memcg(out, ro);
	text_user_spans(out, ro);
	text_counts(out, ro);
	if (ro->hist)
		text_hists(out, ro);
	return 0;
}

/* --- JSON --------------------------------------------------------------- */

static void json_hist(struct json_writer *jw, struct hist *h)
{
	struct hist_bucket b[HIST_MAX_BUCKETS];
	int i, n = hist__buckets(h, 1, b, HIST_MAX_BUCKETS);

	json__array_begin(jw, PROFILE_HIST);
	for (i = 0; i < n; i++)
		profile__json_hist_row(jw, b[i].low, b[i].high, b[i].count);
	json__array_end(jw);
}

static void json_span(struct json_writer *jw, const char *name,
		      const char *subsys, struct hist *h)
{
	struct hist_summary s;

	hist__summary(h, &s);
	json__object_begin(jw, NULL);
	json__string(jw, PROFILE_NAME, name);
	json__string(jw, PROFILE_SUBSYSTEM, subsys);
	json__u64(jw, PROFILE_COUNT, s.count);
	json__u64(jw, "total_ns", s.total);
	json__u64(jw, "min_ns", s.min);
	json__u64(jw, "max_ns", s.max);
	json__u64(jw, PROFILE_P50_NS, s.p50);
	json__u64(jw, PROFILE_P90_NS, s.p90);
	json__u64(jw, PROFILE_P99_NS, s.p99);
	json_hist(jw, h);
}

static void json_attrib_row(void *arg, const struct attrib_out_row *row)
{
	struct json_writer *jw = arg;

	json__object_begin(jw, NULL);
	json__string(jw, PROFILE_EVENT, row->event);
	json__string(jw, row->key, row->name);
	if (row->key2)
		json__string(jw, row->key2, row->name2);
	json__u64(jw, "samples", row->r->samples);
	json__u64(jw, "period", row->r->period);
	json__double(jw, PROFILE_SHARE, row->share);
	if (row->flush_col && row->has_flush_share)
		json__double(jw, PROFILE_FLUSH_SHARE, row->flush_share);
	else if (row->flush_col)
		json__string(jw, PROFILE_FLUSH_SHARE, NULL);
	json__object_end(jw);
}

static void json_attrib(struct json_writer *jw, const struct report_out *ro)
{
	static const struct {
		const char *key;
		enum attrib_table tb;
	} tables[] = {
		{ PROFILE_ATTRIBUTION, AT_CATEGORY },
		{ PROFILE_TRIGGERS, AT_TRIGGER },
		{ "category_triggers", AT_CROSS },
		{ "flush_comms", AT_COMM },
		{ "flush_stacks", AT_STACK },
	};
	struct attrib *at = analysis__attrib(ro->an);
	uint32_t i, n = attrib__nr_events(at);

	for (i = 0; i < sizeof(tables) / sizeof(*tables); i++) {
		json__array_begin(jw, tables[i].key);
		attrib_rows__each(at, tables[i].tb, json_attrib_row, jw);
		json__array_end(jw);
	}

	/* One skid figure: the first clock event's (perf records one). */
	for (i = 0; i < n; i++)
		if (attrib__event(at, i)->clock)
			break;
	if (i < n) {
		const struct attrib_event *ev = attrib__event(at, i);

		json__object_begin(jw, "skid");
		json__string(jw, "event", ev->name);
		json__u64(jw, "samples", ev->skid.samples);
		json__u64(jw, "flush_samples", ev->flush.samples);
		json__double(jw, "fraction", share(ev->skid.period,
						   ev->flush.period));
		json__object_end(jw);
	} else {
		json__string(jw, "skid", NULL);
	}
}

static void json_span_row(void *arg, const struct span_row *r)
{
	struct json_writer *jw = arg;

	json_span(jw, r->name, r->subsys, r->h);
	if (r->f) {
		json__u64(jw, "locks", r->f->locks);
		json__u64(jw, "hold_ns", r->f->hold_ns);
		json__u64(jw, "cpus_walked_total", hist__total(r->f->cpus));
		json__u64(jw, "cpus_walked_max", hist__max(r->f->cpus));
	}
	if (r->u) {
		json__u64(jw, "unmatched_start", r->u->unmatched_start);
		json__u64(jw, "unmatched_end", r->u->unmatched_end);
	}
	json__object_end(jw);
}

static void json_holds(struct json_writer *jw, const struct spans_holds *h)
{
	json__u64(jw, "locks", h->locks);
	json__u64(jw, "pairs", h->pairs);
	json__u64(jw, "hold_ns", h->hold_ns);
	json__u64(jw, "max_hold_ns", h->max_hold_ns);
}

/* A hist's summary under names of its own, "count" ... "p99". */
static void json_summary(struct json_writer *jw, const struct hist_summary *s)
{
	const struct json_field f[] = {
		JSON_U64("count", s->count),
		JSON_U64("min", s->min),
		JSON_U64("max", s->max),
		JSON_U64("p50", s->p50),
		JSON_U64("p90", s->p90),
		JSON_U64("p99", s->p99),
	};

	json__fields(jw, f, ARRAY_SIZE(f));
}

/* memcg_flush_stats: the flushes asked for, done and skipped. */
static void json_memcg(struct json_writer *jw, const struct spans_memcg *m)
{
	const struct json_field flushes[] = {
		JSON_U64("requested", m->requested),
		JSON_U64("performed", m->performed),
		JSON_U64("forced", m->forced),
		JSON_U64("skipped", m->skipped),
		JSON_U64("negative_updates", m->negative),
	};
	struct hist_summary s;

	hist__summary(m->updates, &s);
	json__object_begin(jw, "memcg_flush_stats");
	json__fields(jw, flushes, ARRAY_SIZE(flushes));
	json__object_begin(jw, "stats_updates");
	json_summary(jw, &s);
	json_hist(jw, m->updates);
	json__object_end(jw);
	json__object_end(jw);
}

static void json_spans(struct json_writer *jw, const struct report_out *ro)
{
	struct spans *sp = analysis__spans(ro->an);
	const struct spans_cgroup *cg;
	const struct spans_lock_cpu *lc;
	const struct spans_memcg *m;
	struct spans_counts c;
	size_t nr, i;

	json_hold_cost(jw, sp);
	json_kspans(jw, ro);
	json__array_begin(jw, PROFILE_SPANS);
	span_rows__each(sp, json_span_row, jw);
	json__array_end(jw);

	spans__counts(sp, &c);
	json__object_begin(jw, "locks");
	json__u64(jw, "locked", c.locked);
	json__u64(jw, "unlocked", c.unlocked);
	json__u64(jw, "contended", c.contended);
	json__u64(jw, "pairs", c.pairs);
	json__u64(jw, "unmatched_start", c.unmatched_start);
	json__u64(jw, "unmatched_end", c.unmatched_end);
	json__u64(jw, "wait_pairs", c.wait_pairs);
	json__u64(jw, "wait_unmatched_start", c.wait_unmatched_start);
	json__u64(jw, "wait_unmatched_end", c.wait_unmatched_end);
	json__u64(jw, "flushes", c.flushes);
	/* Only one hit in several recorded: pairs are not to be trusted. */
	json__string(jw, "sampled_event",
		     analysis__sampled_tracepoint(ro->an) ?
		     analysis__sampled_tracepoint(ro->an)->name : NULL);
	json__object_end(jw);

	json__array_begin(jw, "lock_cgroups");
	if (!spans__cgroups(sp, &cg, &nr))
		for (i = 0; i < nr; i++) {
			json__object_begin(jw, NULL);
			json__i64(jw, "root", cg[i].root);
			json__u64(jw, "id", cg[i].cgroup_id);
			json__string(jw, "path",
				     cgroup_paths__find(ro->cgroups,
							cg[i].root,
							cg[i].cgroup_id));
			json__i64(jw, "level", cg[i].level);
			json_holds(jw, &cg[i].holds);
			json__object_end(jw);
		}
	json__array_end(jw);

	json__array_begin(jw, "lock_cpus");
	if (!spans__lock_cpus(sp, &lc, &nr))
		for (i = 0; i < nr; i++) {
			json__object_begin(jw, NULL);
			json__i64(jw, "cpu", lc[i].lock_cpu);
			json_holds(jw, &lc[i].holds);
			json__string(jw, "meaning", lc[i].meaning);
			json__object_end(jw);
		}
	json__array_end(jw);

	m = spans__memcg(sp);
	if (m && m->requested)
		json_memcg(jw, m);
	else
		json__string(jw, "memcg_flush_stats", NULL);
}

/* The report-core keys: header, events and reader counters. */
static void json_header(struct json_writer *jw, struct perf_data *pd)
{
	const struct perf_header_info *hdr = perf_data__header(pd);
	const struct perf_data_stats *st = perf_data__stats(pd);
	uint32_t i, n = perf_data__nr_evsel(pd);

	const struct json_field header[] = {
		JSON_STR("hostname", hdr->hostname),
		JSON_STR("os_release", hdr->os_release),
		JSON_STR("perf_version", hdr->perf_version),
		JSON_STR("arch", hdr->arch),
		JSON_U64("nr_cpus", hdr->nr_cpus_online),
		JSON_U64("nr_cpus_avail", hdr->nr_cpus_avail),
		JSON_STR("cpudesc", hdr->cpudesc),
		JSON_STR("cmdline", hdr->cmdline),
		JSON_BOOL("pipe_mode", hdr->pipe_mode),
	};
	const struct json_field times[] = {
		JSON_U64("sample_time_start", hdr->sample_time_start),
		JSON_U64("sample_time_end", hdr->sample_time_end),
	};
	const struct json_field counts[] = {
		JSON_U64("samples", st->nr_samples),
		JSON_U64("lost", st->nr_lost),
		JSON_U64("lost_samples", st->nr_lost_samples),
		JSON_U64("unknown_records", st->nr_unknown_records),
		JSON_U64("records", st->nr_records),
	};

	json__object_begin(jw, "header");
	json__fields(jw, header, ARRAY_SIZE(header));
	/* Only when the recording says (HEADER_SAMPLE_TIME). */
	if (hdr->sample_time_end)
		json__fields(jw, times, ARRAY_SIZE(times));
	json__object_end(jw);
	json__array_begin(jw, "events");
	for (i = 0; i < n; i++) {
		const struct rs_evsel *evsel = perf_data__evsel(pd, i);
		const struct json_field ev[] = {
			JSON_STR("name", evsel->name),
			JSON_U64("samples", evsel->nr_samples),
			JSON_U64("period", evsel->total_period),
		};

		json__object_begin(jw, NULL);
		json__fields(jw, ev, ARRAY_SIZE(ev));
		json__object_end(jw);
	}
	json__array_end(jw);
	json__fields(jw, counts, ARRAY_SIZE(counts));
}

void report_out__json(struct json_writer *jw, const struct report_out *ro)
{
	uint32_t i, n = perf_data__nr_evsel(ro->pd);

	json_header(jw, ro->pd);
	json_attrib(jw, ro);
	json_spans(jw, ro);
	if (ro->bd)
		bench_breakdown__write_json(ro->bd, jw);
	json__array_begin(jw, "counts");
	for (i = 0; i < n; i++) {
		const struct rs_evsel *evsel = perf_data__evsel(ro->pd, i);

		json__object_begin(jw, NULL);
		json__string(jw, "event", evsel->name);
		json__u64(jw, "count", evsel->nr_samples);
		json__object_end(jw);
	}
	json__array_end(jw);
}

/* --- CSV ---------------------------------------------------------------- */

static void csv_hist_row(FILE *out, const char *table, const char *name,
			 const char *subsys, struct hist *h)
{
	struct hist_summary s;

	hist__summary(h, &s);
	fprintf(out, "%s,", table);
	fput_csv_field(out, name);
	fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", subsys, s.count,
		s.total, s.min, s.max, s.p50, s.p90, s.p99);
}

static void csv_buckets(FILE *out, const char *name, const char *subsys,
			struct hist *h)
{
	struct hist_bucket b[HIST_MAX_BUCKETS];
	int i, n = hist__buckets(h, 1, b, HIST_MAX_BUCKETS);

	for (i = 0; i < n; i++) {
		fputs("hist,", out);
		fput_csv_field(out, name);
		fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			subsys, b[i].low, b[i].high, b[i].count);
	}
}

static void csv_span_row(void *arg, const struct span_row *r)
{
	csv_hist_row(arg, "spans", r->name, r->subsys ? r->subsys : "", r->h);
}

static void csv_bucket_rows(void *arg, const struct span_row *r)
{
	csv_buckets(arg, r->name, r->subsys ? r->subsys : "", r->h);
}

/*
 * The spans timed in the kernel: exact count, total, min and max, and
 * each percentile as its log2 bucket (low and high ns, as in JSON); with
 * buckets, the rows of their log2 buckets instead.
 */
static void csv_kspans(FILE *out, const struct report_out *ro, bool buckets)
{
	static const double qs[] = { 50, 90, 99 };
	const struct kernel_spans *ks = ro->kspans;
	const struct bpf_spans_hist *h;
	const char *kind, *sub;
	uint64_t low, high;
	unsigned int pos = 0, q;
	int b;

	if (!ks)
		return;
	/* Bucket rows join the hist block, under its header. */
	if (!buckets)
		fputs("\ntable,name,subsystem,count,total_ns,min_ns,max_ns,p50_low_ns,p50_high_ns,p90_low_ns,p90_high_ns,p99_low_ns,p99_high_ns\n",
		      out);
	while ((h = kspan_next(ks, &pos, &kind, &sub))) {
		for (b = 0; buckets && b < BPF_SPANS_SLOTS; b++) {
			if (!h->slots[b])
				continue;
			hist__bucket_bounds(b, &low, &high);
			fprintf(out, "kernel_hist,%s,%s,%" PRIu64 ",%" PRIu64
				",%" PRIu64 "\n", kind, sub, low, high,
				h->slots[b]);
		}
		if (buckets)
			continue;
		fprintf(out, "kernel_spans,%s,%s,%" PRIu64 ",%" PRIu64 ",%"
			PRIu64 ",%" PRIu64, kind, sub, h->count, h->sum,
			h->min, h->max);
		for (q = 0; q < 3; q++) {
			bpf_spans_hist__percentile(h, qs[q], &low, &high);
			fprintf(out, ",%" PRIu64 ",%" PRIu64, low, high);
		}
		fputc('\n', out);
	}
}

/* CSV rows name their table first. */
struct csv_table {
	FILE *out;
	const char *name;
};

static void csv_attrib_row(void *arg, const struct attrib_out_row *row)
{
	const struct csv_table *tb = arg;
	FILE *out = tb->out;

	fprintf(out, "%s,", tb->name);
	fput_csv_field(out, row->event);
	fputc(',', out);
	fput_csv_field(out, row->name);
	if (row->key2) {
		fputc(',', out);
		fput_csv_field(out, row->name2);
	}
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.6f", row->r->samples,
		row->r->period, row->share);
	if (row->flush_col)
		fputc(',', out);
	if (row->has_flush_share)
		fprintf(out, "%.6f", row->flush_share);
	fputc('\n', out);
}

/*
 * Several tables, each a header line then its rows, separated by a blank
 * line; the first column names the table so that rows stay
 * self-describing when the blocks are concatenated or grepped.
 */
int report_out__csv(FILE *out, const struct report_out *ro)
{
	static const struct {
		const char *name, *columns;
		enum attrib_table tb;
	} tables[] = {
		{ "attribution", "category", AT_CATEGORY },
		{ "triggers", "trigger", AT_TRIGGER },
		{ "category_triggers", "category,trigger", AT_CROSS },
		{ "flush_comms", "comm", AT_COMM },
	};
	struct attrib *at = analysis__attrib(ro->an);
	struct spans *sp = analysis__spans(ro->an);
	uint32_t i, ne;

	for (i = 0; i < sizeof(tables) / sizeof(*tables); i++) {
		struct csv_table tb = { out, tables[i].name };

		fprintf(out, "%stable,event,%s,samples,period,share%s\n",
			i ? "\n" : "", tables[i].columns,
			tables[i].tb == AT_CATEGORY ? ",flush_share" : "");
		attrib_rows__each(at, tables[i].tb, csv_attrib_row, &tb);
	}

	fputs("\ntable,name,subsystem,count,total_ns,min_ns,max_ns,p50_ns,p90_ns,p99_ns\n",
	      out);
	span_rows__each(sp, csv_span_row, out);
	csv_kspans(out, ro, false);
	if (ro->bd)
		bench_breakdown__csv(ro->bd, out);

	fputs("\ntable,event,count\n", out);
	ne = perf_data__nr_evsel(ro->pd);
	for (i = 0; i < ne; i++) {
		const struct rs_evsel *evsel = perf_data__evsel(ro->pd, i);

		fputs("counts,", out);
		fput_csv_field(out, evsel->name);
		fprintf(out, ",%" PRIu64 "\n", evsel->nr_samples);
	}

	if (ro->hist) {
		fputs("\ntable,name,subsystem,low_ns,high_ns,count\n", out);
		span_rows__each(sp, csv_bucket_rows, out);
		csv_kspans(out, ro, true);
	}
	return ferror(out) ? -EIO : 0;
}
