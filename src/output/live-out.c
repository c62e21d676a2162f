// SPDX-License-Identifier: GPL-2.0
/*
 * top's table and watch's Prometheus text (include/live-out.h).
 *
 * Percentiles come from log2 histograms: top prints the lower bound of
 * the bucket that holds them (a hold p50 of 512 ns means [512, 1023]).
 * Prometheus gets the buckets themselves, cumulative, with le in seconds,
 * and does its own interpolation in histogram_quantile().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live-out.h"
#include "rules.h"
#include "util.h"

static const char *const sort_names[LIVE_SORT__NR] = {
	[LIVE_SORT_FLUSHES] = "flushes",
	[LIVE_SORT_TIME] = "time",
	[LIVE_SORT_HOLDS] = "holds",
	[LIVE_SORT_HOLD_P99] = "hold-p99",
	[LIVE_SORT_WAITS] = "waits",
};

int live_sort__parse(const char *name, enum live_sort *out)
{
	int i;

	for (i = 0; i < LIVE_SORT__NR; i++)
		if (!strcmp(name, sort_names[i])) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

const char *live_sort__names(void)
{
	return "flushes, time, holds, hold-p99 or waits";
}

/* "unknown" for -1, else the category's name. */
static const char *subsys_name(int c)
{
	return c < 0 ? "unknown" : rs_category_name(c);
}

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

/* One subsystem's interval. */
struct top_row {
	int subsys;
	struct bpf_spans_hist d[BPF_SPANS__NR_KINDS];
	uint64_t hold_p50, hold_p99, wait_p50, wait_p99;
};

static uint64_t row_key(const struct top_row *r, enum live_sort s)
{
	switch (s) {
	case LIVE_SORT_TIME:
		return r->d[BPF_SPANS_FLUSH].sum;
	case LIVE_SORT_HOLDS:
		return r->d[BPF_SPANS_HOLD].count;
	case LIVE_SORT_HOLD_P99:
		return r->hold_p99;
	case LIVE_SORT_WAITS:
		return r->d[BPF_SPANS_WAIT].count;
	default:
		return r->d[BPF_SPANS_FLUSH].count;
	}
}

static enum live_sort sort_by;

static int row_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	uint64_t kx = row_key(x, sort_by), ky = row_key(y, sort_by);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->subsys - y->subsys;
}

static uint64_t pct(const struct bpf_spans_hist *h, double q)
{
	return bpf_spans_hist__percentile(h, q, NULL, NULL);
}

static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : 0;
}

void live_out__top(FILE *out, const struct live_snap *cur,
		   const struct live_snap *prev,
		   const struct live_top_opts *o)
{
	struct top_row rows[RS_CAT__NR + 1], all;
	const struct bpf_spans_counts *c = &cur->counts;
	const struct bpf_spans_counts *pc = prev ? &prev->counts : NULL;
	double secs = cur->elapsed - (prev ? prev->elapsed : 0);
	size_t nr = 0, i;
	char when[64], a[32], b[32], d[32], e[32], f[32];
	uint64_t memreq, memperf, memskip, memforced, contended, yields;
	time_t wall = (time_t)o->wall;
	struct tm tm;
	int k, s, t, missing = 0;

	if (secs <= 0)
		secs = 1e-9;
	gmtime_r(&wall, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03dZ",
		 (int)((o->wall - (double)wall) * 1000) % 1000);

	memset(&all, 0, sizeof(all));
	all.subsys = -2;
	for (s = -1; s < RS_CAT__NR; s++) {
		struct top_row *r = &rows[nr];

		memset(r, 0, sizeof(*r));
		r->subsys = s;
		for (k = 0; k < BPF_SPANS__NR_KINDS; k++) {
			live_hist__delta(&r->d[k], &cur->hist[k][s + 1],
					 prev ? &prev->hist[k][s + 1] : NULL);
			bpf_spans_hist__merge(&all.d[k], &r->d[k]);
		}
		if (!r->d[BPF_SPANS_HOLD].count &&
		    !r->d[BPF_SPANS_FLUSH].count &&
		    !r->d[BPF_SPANS_WAIT].count)
			continue;
		r->hold_p50 = pct(&r->d[BPF_SPANS_HOLD], 50);
		r->hold_p99 = pct(&r->d[BPF_SPANS_HOLD], 99);
		r->wait_p50 = pct(&r->d[BPF_SPANS_WAIT], 50);
		r->wait_p99 = pct(&r->d[BPF_SPANS_WAIT], 99);
		nr++;
	}
	sort_by = o->sort;
	qsort(rows, nr, sizeof(rows[0]), row_cmp);
	all.hold_p50 = pct(&all.d[BPF_SPANS_HOLD], 50);
	all.hold_p99 = pct(&all.d[BPF_SPANS_HOLD], 99);
	all.wait_p50 = pct(&all.d[BPF_SPANS_WAIT], 50);
	all.wait_p99 = pct(&all.d[BPF_SPANS_WAIT], 99);

	memreq = delta(c->memcg_requested, pc ? pc->memcg_requested : 0);
	memperf = delta(c->memcg_performed, pc ? pc->memcg_performed : 0);
	memskip = delta(c->memcg_skipped, pc ? pc->memcg_skipped : 0);
	memforced = delta(c->memcg_forced, pc ? pc->memcg_forced : 0);
	contended = delta(c->contended, pc ? pc->contended : 0);
	yields = delta(cur->yields, prev ? prev->yields : 0);

	if (!o->tty) {
		/*
		 * One block per interval: a "#" line, then one record per
		 * line, "KIND key=value ..." with times in ns and a path,
		 * which may hold spaces, always last.
		 */
		fprintf(out, "# time=%s interval=%.3f method=\"%s\"\n", when,
			secs, cur->method ? cur->method : "");
		fprintf(out,
			"summary flushes=%llu flush_ns=%llu holds=%llu hold_p50_ns=%llu hold_p99_ns=%llu waits=%llu wait_p50_ns=%llu wait_p99_ns=%llu contended=%llu yields=%llu memcg_requested=%llu memcg_performed=%llu memcg_skipped=%llu memcg_forced=%llu",
			(unsigned long long)all.d[BPF_SPANS_FLUSH].count,
			(unsigned long long)all.d[BPF_SPANS_FLUSH].sum,
			(unsigned long long)all.d[BPF_SPANS_HOLD].count,
			(unsigned long long)all.hold_p50,
			(unsigned long long)all.hold_p99,
			(unsigned long long)all.d[BPF_SPANS_WAIT].count,
			(unsigned long long)all.wait_p50,
			(unsigned long long)all.wait_p99,
			(unsigned long long)contended,
			(unsigned long long)yields,
			(unsigned long long)memreq,
			(unsigned long long)memperf,
			(unsigned long long)memskip,
			(unsigned long long)memforced);
		fputs(" missing=", out);
		for (k = 0; k < LIVE_SRC__NR; k++)
			if (cur->missing[k])
				fprintf(out, "%s%s", missing++ ? "," : "",
					live_source_name(k));
		if (!missing)
			fputc('-', out);
		fputc('\n', out);
		for (i = 0; i < nr; i++) {
			const struct top_row *r = &rows[i];

			fprintf(out,
				"subsys name=%s flushes=%llu flush_ns=%llu holds=%llu hold_p50_ns=%llu hold_p99_ns=%llu waits=%llu wait_p50_ns=%llu wait_p99_ns=%llu\n",
				subsys_name(r->subsys),
				(unsigned long long)r->d[BPF_SPANS_FLUSH].count,
				(unsigned long long)r->d[BPF_SPANS_FLUSH].sum,
				(unsigned long long)r->d[BPF_SPANS_HOLD].count,
				(unsigned long long)r->hold_p50,
				(unsigned long long)r->hold_p99,
				(unsigned long long)r->d[BPF_SPANS_WAIT].count,
				(unsigned long long)r->wait_p50,
				(unsigned long long)r->wait_p99);
		}
		for (t = -1; t < RS_TRIG__NR; t++)
			for (s = -1; s < RS_CAT__NR; s++) {
				uint64_t n = delta(cur->flushes[t + 1][s + 1],
					prev ? prev->flushes[t + 1][s + 1] : 0);

				if (n)
					fprintf(out,
						"trigger name=%s subsys=%s flushes=%llu\n",
						rs_trigger_name(t),
						subsys_name(s),
						(unsigned long long)n);
			}
		for (i = 0; i < cur->nr_cgroups && i < o->cgroups; i++) {
			const struct live_cgroup *g = &cur->cgroups[i];

			fprintf(out,
				"cgroup root=%d level=%d id=%llu flushes=%llu flush_ns=%llu path=%s\n",
				g->root, g->level, (unsigned long long)g->id,
				(unsigned long long)g->flushes,
				(unsigned long long)g->ns,
				g->path[0] ? g->path : "?");
		}
		fputc('\n', out);
		fflush(out);
		return;
	}

	/* A terminal: home, clear, then the screen. */
	term_control(out, "\033[H\033[2J");
	fprintf(out, "rstat-analyze top - %s  interval %.2fs  (%s)\n", when,
		secs, cur->method ? cur->method : "");
	fmt_ns(a, sizeof(a), (double)all.d[BPF_SPANS_FLUSH].sum / secs);
	fprintf(out,
		"Flushes: %.0f/s  flush time: %s per second  Holds: %.0f/s  contended: %llu  yields: %llu\n",
		(double)all.d[BPF_SPANS_FLUSH].count / secs, a,
		(double)all.d[BPF_SPANS_HOLD].count / secs,
		(unsigned long long)contended, (unsigned long long)yields);
	fmt_ns(a, sizeof(a), (double)all.hold_p50);
	fmt_ns(b, sizeof(b), (double)all.hold_p99);
	fmt_ns(d, sizeof(d), (double)all.wait_p50);
	fmt_ns(e, sizeof(e), (double)all.wait_p99);
	fprintf(out, "Hold p50 %s p99 %s  Wait p50 %s p99 %s (log2 bucket lower bounds)\n",
		a, b, d, e);
	fprintf(out, "memcg flushes: requested %llu  performed %llu  skipped %llu  forced %llu\n",
		(unsigned long long)memreq, (unsigned long long)memperf,
		(unsigned long long)memskip, (unsigned long long)memforced);
	for (k = 0; k < LIVE_SRC__NR; k++)
		if (cur->missing[k])
			fprintf(out, "%s%s", missing++ ? ", " : "Missing: ",
				live_source_name(k));
	if (missing)
		fputc('\n', out);
	fprintf(out, "\n%-10s %9s %11s %9s %9s %9s %8s %9s %9s\n",
		"SUBSYS", "FLUSHES/s", "FLUSH-T/s", "HOLDS/s", "HOLD-p50",
		"HOLD-p99", "WAITS", "WAIT-p50", "WAIT-p99");
	for (i = 0; i < nr; i++) {
		const struct top_row *r = &rows[i];

		fmt_ns(a, sizeof(a),
		       (double)r->d[BPF_SPANS_FLUSH].sum / secs);
		fmt_ns(b, sizeof(b), (double)r->hold_p50);
		fmt_ns(d, sizeof(d), (double)r->hold_p99);
		fmt_ns(e, sizeof(e), (double)r->wait_p50);
		fmt_ns(f, sizeof(f), (double)r->wait_p99);
		fprintf(out, "%-10s %9.0f %11s %9.0f %9s %9s %8llu %9s %9s\n",
			subsys_name(r->subsys),
			(double)r->d[BPF_SPANS_FLUSH].count / secs, a,
			(double)r->d[BPF_SPANS_HOLD].count / secs, b, d,
			(unsigned long long)r->d[BPF_SPANS_WAIT].count, e, f);
	}
	fprintf(out, "\n%-18s %-10s %9s\n", "TRIGGER", "SUBSYS", "FLUSHES");
	for (t = -1; t < RS_TRIG__NR; t++)
		for (s = -1; s < RS_CAT__NR; s++) {
			uint64_t n = delta(cur->flushes[t + 1][s + 1],
				prev ? prev->flushes[t + 1][s + 1] : 0);

			if (n)
				fprintf(out, "%-18s %-10s %9llu\n",
					rs_trigger_name(t), subsys_name(s),
					(unsigned long long)n);
		}
	fprintf(out, "\n%5s %8s %11s  %s\n", "LEVEL", "FLUSHES", "FLUSH-TIME",
		"CGROUP");
	for (i = 0; i < cur->nr_cgroups && i < o->cgroups; i++) {
		const struct live_cgroup *g = &cur->cgroups[i];

		fmt_ns(a, sizeof(a), (double)g->ns);
		fprintf(out, "%5d %8llu %11s  %s%s\n", g->level,
			(unsigned long long)g->flushes, a,
			g->root ? "(v1) " : "", g->path[0] ? g->path : "?");
	}
	fflush(out);
}

/*
 * Buckets le = 2^i ns for i in 0..LE_SLOTS-1 (le 0 for slot 0, which
 * holds 0 ns): always the same set, as Prometheus wants, up to 2^35 ns
 * (34 s); longer spans are in +Inf only.
 */
#define LE_SLOTS 36

/* A label value: backslash, quote and newline escaped. */
static void label_value(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n') {
			fputs("\\n", out);
			continue;
		}
		fputc(*v, out);
	}
}

static void histogram(FILE *out, const char *name,
		      const struct bpf_spans_hist *h, const char *subsys)
{
	uint64_t cum = 0, n = 0;
	int i;

	for (i = 0; i < BPF_SPANS_SLOTS; i++)
		n += h->slots[i];
	for (i = 0; i < LE_SLOTS; i++) {
		cum += h->slots[i];
		fprintf(out, "%s_bucket{subsys=\"", name);
		label_value(out, subsys);
		if (i)
			fprintf(out, "\",le=\"%.12g\"} %llu\n",
				(double)(1ULL << i) / 1e9,
				(unsigned long long)cum);
		else
			fprintf(out, "\",le=\"0\"} %llu\n",
				(unsigned long long)cum);
	}
	/*
	 * From the slots, not h->count: read while attached, a span may be
	 * counted and not yet in its slot, and +Inf must equal _count.
	 */
	fprintf(out, "%s_bucket{subsys=\"", name);
	label_value(out, subsys);
	fprintf(out, "\",le=\"+Inf\"} %llu\n", (unsigned long long)n);
	fprintf(out, "%s_sum{subsys=\"", name);
	label_value(out, subsys);
	fprintf(out, "\"} %.9f\n", (double)h->sum / 1e9);
	fprintf(out, "%s_count{subsys=\"", name);
	label_value(out, subsys);
	fprintf(out, "\"} %llu\n", (unsigned long long)n);
}

static void counter(FILE *out, const char *name, const char *help,
		    uint64_t v)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help,
		name, name, (unsigned long long)v);
}

void live_out__prometheus(FILE *out, const struct live_snap *snap)
{
	static const struct {
		enum bpf_spans_kind kind;
		const char *name, *help;
	} hists[] = {
		{ BPF_SPANS_FLUSH, "rstat_flush_seconds",
		  "Time of one rstat flush (css_rstat_flush), by subsystem." },
		{ BPF_SPANS_HOLD, "rstat_lock_hold_seconds",
		  "Time an rstat lock was held (locked to unlock), by subsystem." },
		{ BPF_SPANS_WAIT, "rstat_lock_wait_seconds",
		  "Time a task waited for a contended rstat lock, by subsystem." },
		{ BPF_SPANS_MEMCG, "rstat_memcg_flush_seconds",
		  "From a memcg flush decision that flushes to the end of that flush." },
	};
	const struct bpf_spans_counts *c = &snap->counts;
	size_t i;
	int s, t, k;

	fputs("# HELP rstat_flush_total rstat flushes, by subsystem and by what asked for them.\n"
	      "# TYPE rstat_flush_total counter\n", out);
	for (t = -1; t < RS_TRIG__NR; t++)
		for (s = -1; s < RS_CAT__NR; s++) {
			if (!snap->flushes[t + 1][s + 1])
				continue;
			fputs("rstat_flush_total{subsys=\"", out);
			label_value(out, subsys_name(s));
			fputs("\",trigger=\"", out);
			label_value(out, t < 0 ? "none" : rs_trigger_name(t));
			fprintf(out, "\"} %llu\n", (unsigned long long)
				snap->flushes[t + 1][s + 1]);
		}
	fputs("# HELP rstat_flush_level_total rstat flushes by the flushed cgroup's level (15: 15 and deeper).\n"
	      "# TYPE rstat_flush_level_total counter\n", out);
	for (i = 0; i < BPF_SPANS_LEVELS; i++)
		if (snap->level_flushes[i])
			fprintf(out, "rstat_flush_level_total{level=\"%zu\"} %llu\n",
				i, (unsigned long long)snap->level_flushes[i]);
	fputs("# HELP rstat_flush_level_seconds_total Time spent flushing, by the flushed cgroup's level.\n"
	      "# TYPE rstat_flush_level_seconds_total counter\n", out);
	for (i = 0; i < BPF_SPANS_LEVELS; i++)
		if (snap->level_flushes[i])
			fprintf(out, "rstat_flush_level_seconds_total{level=\"%zu\"} %.9f\n",
				i, (double)snap->level_ns[i] / 1e9);

	for (i = 0; i < sizeof(hists) / sizeof(hists[0]); i++) {
		k = hists[i].kind;
		fprintf(out, "# HELP %s %s\n# TYPE %s histogram\n",
			hists[i].name, hists[i].help, hists[i].name);
		for (s = -1; s < RS_CAT__NR; s++)
			if (snap->hist[k][s + 1].count)
				histogram(out, hists[i].name,
					  &snap->hist[k][s + 1],
					  subsys_name(s));
	}

	counter(out, "rstat_lock_contended_total",
		"rstat lock acquisitions that found the lock taken.",
		c->contended);
	counter(out, "rstat_lock_yield_total",
		"rstat lock holds taken again inside a flush after yielding it (v6.10-v6.14).",
		snap->yields);
	counter(out, "rstat_lock_short_holds_total",
		"Holds of the short lock readers take after a flush (tracepoint cpu -1).",
		snap->short_holds);
	counter(out, "rstat_memcg_flush_requested_total",
		"memcg_flush_stats events: a memcg stats flush was asked for.",
		c->memcg_requested);
	counter(out, "rstat_memcg_flush_performed_total",
		"memcg flushes asked for that went ahead (forced or needed).",
		c->memcg_performed);
	counter(out, "rstat_memcg_flush_skipped_total",
		"memcg flushes asked for and skipped (too few pending updates).",
		c->memcg_skipped);
	counter(out, "rstat_memcg_flush_forced_total",
		"memcg flushes asked for with force set.", c->memcg_forced);

	fputs("# HELP rstat_exporter_source_missing 1 when this kernel lacks the source (the metrics it feeds stay empty).\n"
	      "# TYPE rstat_exporter_source_missing gauge\n", out);
	for (k = 0; k < LIVE_SRC__NR; k++)
		fprintf(out, "rstat_exporter_source_missing{source=\"%s\"} %d\n",
			live_source_name(k), snap->missing[k] ? 1 : 0);
	fputs("# HELP rstat_exporter_lost_total Spans or stacks the BPF programs could not keep, by reason.\n"
	      "# TYPE rstat_exporter_lost_total counter\n", out);
	fprintf(out, "rstat_exporter_lost_total{reason=\"stack\"} %llu\n",
		(unsigned long long)c->stack_errors);
	fprintf(out, "rstat_exporter_lost_total{reason=\"histogram_full\"} %llu\n",
		(unsigned long long)c->hist_full);
	fprintf(out, "rstat_exporter_lost_total{reason=\"broken_flush\"} %llu\n",
		(unsigned long long)c->flush_broken);
	fprintf(out, "rstat_exporter_lost_total{reason=\"unmatched_lock\"} %llu\n",
		(unsigned long long)(c->unmatched_start + c->unmatched_end));
	fputs("# HELP rstat_exporter_cpu_seconds_total CPU time of the exporter process (user and system).\n"
	      "# TYPE rstat_exporter_cpu_seconds_total counter\n", out);
	fprintf(out, "rstat_exporter_cpu_seconds_total %.6f\n",
		snap->self_cpu_s);
	fputs("# HELP rstat_exporter_bpf_run_seconds_total Kernel time in the exporter's BPF programs (0 unless sysctl kernel.bpf_stats_enabled=1).\n"
	      "# TYPE rstat_exporter_bpf_run_seconds_total counter\n", out);
	fprintf(out, "rstat_exporter_bpf_run_seconds_total %.9f\n",
		(double)snap->prog_ns / 1e9);
	fputs("# HELP rstat_exporter_bpf_unlock_seconds_total Time the unlock program ran after the hold's end (stack, histograms): with the holds' _count, the per-event cost.\n"
	      "# TYPE rstat_exporter_bpf_unlock_seconds_total counter\n", out);
	fprintf(out, "rstat_exporter_bpf_unlock_seconds_total %.9f\n",
		(double)c->self_ns / 1e9);
	counter(out, "rstat_exporter_bpf_runs_total",
		"Runs of the exporter's BPF programs (0 unless kernel.bpf_stats_enabled=1).",
		snap->prog_runs);
	fputs("# HELP rstat_exporter_resident_memory_bytes Resident memory of the exporter process.\n"
	      "# TYPE rstat_exporter_resident_memory_bytes gauge\n", out);
	fprintf(out, "rstat_exporter_resident_memory_bytes %lld\n",
		(long long)snap->self_rss_kb * 1024);
	fputs("# HELP rstat_exporter_uptime_seconds Seconds since the programs were attached.\n"
	      "# TYPE rstat_exporter_uptime_seconds gauge\n", out);
	fprintf(out, "rstat_exporter_uptime_seconds %.3f\n", snap->elapsed);
}
