// SPDX-License-Identifier: GPL-2.0
/*
 * The live views' writers (src/output/live-out.c) on snapshots made by
 * hand: the Prometheus histogram buckets are the log2 slots at le = 2^i
 * ns, cumulative, +Inf equal to _count, _sum in seconds; counters and the
 * missing-sources gauge as the snapshot says; label values escaped; top's
 * batch block is the interval's difference; top's terminal screen holds
 * the rates, times and counts worked out by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live-out.h"
#include "unit.h"

/* What out wrote, as a string (free it). */
static char *render(void (*fn)(FILE *, const struct live_snap *,
			       const struct live_snap *),
		    const struct live_snap *a, const struct live_snap *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, a, b);
	fclose(f);
	return buf;
}

static void prom(FILE *f, const struct live_snap *a,
		 const struct live_snap *b)
{
	live_out__prometheus(f, a);
}

static void top_batch(FILE *f, const struct live_snap *cur,
		      const struct live_snap *prev)
{
	struct live_top_opts o = { .tty = false, .cgroups = 5,
				   .wall = 1700000000.25 };

	live_out__top(f, cur, prev, &o);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static void test_histogram_buckets(void)
{
	struct live_snap *s = calloc(1, sizeof(*s));
	struct bpf_spans_hist *h;
	char *t;

	if (!s) {
		UNIT_FAIL("out of memory");
		return;
	}
	/* Holds of base: 3 in slot 8 ([128, 255] ns), 1 in slot 10. */
	h = &s->hist[BPF_SPANS_HOLD][RS_CAT_BASE + 1];
	h->slots[8] = 3;
	h->slots[10] = 1;
	h->count = 4;
	h->sum = 3 * 200 + 700;
	t = render(prom, s, NULL);
	CHECK(t != NULL);
	CHECK(has_line(t, "# TYPE rstat_lock_hold_seconds histogram"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"0\"} 0"));
	/* slot 7 ([64, 127] ns) closes at le 128 ns: none yet */
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"1.28e-07\"} 0"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"2.56e-07\"} 3"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"5.12e-07\"} 3"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"1.024e-06\"} 4"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"34.359738368\"} 4"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_bucket{subsys=\"base\",le=\"+Inf\"} 4"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_count{subsys=\"base\"} 4"));
	CHECK(has_line(t, "rstat_lock_hold_seconds_sum{subsys=\"base\"} 0.000001300"));
	/* No series for what was not seen. */
	CHECK(!strstr(t, "rstat_lock_hold_seconds_bucket{subsys=\"memory\""));
	CHECK(!strstr(t, "rstat_flush_seconds_bucket{"));
	free(t);
	free(s);
}

static void test_counters_and_gauges(void)
{
	struct live_snap *s = calloc(1, sizeof(*s));
	char *t;

	if (!s) {
		UNIT_FAIL("out of memory");
		return;
	}
	s->flushes[RS_TRIG_CPU_STAT + 1][RS_CAT_BASE + 1] = 7;
	s->flushes[0][0] = 2;		/* no trigger, unknown subsystem */
	s->level_flushes[1] = 7;
	s->level_ns[1] = 1500000000;
	s->counts.contended = 5;
	s->counts.memcg_requested = 9;
	s->counts.memcg_skipped = 4;
	s->counts.self_ns = 2500;
	s->missing[LIVE_SRC_MEMCG_TRACEPOINT] = true;
	t = render(prom, s, NULL);
	CHECK(t != NULL);
	CHECK(has_line(t, "rstat_flush_total{subsys=\"base\",trigger=\"cpu.stat\"} 7"));
	CHECK(has_line(t, "rstat_flush_total{subsys=\"unknown\",trigger=\"none\"} 2"));
	CHECK(has_line(t, "rstat_flush_level_total{level=\"1\"} 7"));
	CHECK(has_line(t, "rstat_flush_level_seconds_total{level=\"1\"} 1.500000000"));
	CHECK(has_line(t, "rstat_lock_contended_total 5"));
	CHECK(has_line(t, "rstat_memcg_flush_requested_total 9"));
	CHECK(has_line(t, "rstat_memcg_flush_skipped_total 4"));
	CHECK(has_line(t, "rstat_exporter_bpf_unlock_seconds_total 0.000002500"));
	CHECK(has_line(t, "rstat_exporter_source_missing{source=\"memcg_flush_stats\"} 1"));
	CHECK(has_line(t, "rstat_exporter_source_missing{source=\"rstat_tracepoints\"} 0"));
	CHECK(has_line(t, "# TYPE rstat_flush_total counter"));
	CHECK(has_line(t, "# TYPE rstat_exporter_source_missing gauge"));
	free(t);
	free(s);
}

static void test_top_batch_delta(void)
{
	struct live_snap *s = calloc(2, sizeof(*s));
	char *t;

	if (!s) {
		UNIT_FAIL("out of memory");
		return;
	}
	s[0].elapsed = 1;
	s[0].method = s[1].method = "rstat tracepoints";
	s[0].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].slots[12] = 10;
	s[0].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].count = 10;
	s[0].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].sum = 30000;
	s[0].flushes[RS_TRIG_CPU_STAT + 1][RS_CAT_BASE + 1] = 10;
	s[1] = s[0];
	s[1].elapsed = 3;
	s[1].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].slots[12] = 14;
	s[1].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].count = 14;
	s[1].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].sum = 42000;
	s[1].flushes[RS_TRIG_CPU_STAT + 1][RS_CAT_BASE + 1] = 14;
	s[1].nr_cgroups = 1;
	s[1].cgroups[0] = (struct live_cgroup){ .id = 9, .level = 2,
		.flushes = 4, .ns = 12000, .path = "/a b/c" };
	t = render(top_batch, &s[1], &s[0]);
	CHECK(t != NULL);
	CHECK(has_line(t, "# time=2023-11-14T22:13:20.250Z interval=2.000 method=\"rstat tracepoints\""));
	CHECK(strstr(t, "\nsummary flushes=4 flush_ns=12000 ") != NULL);
	CHECK(has_line(t, "trigger name=cpu.stat subsys=base flushes=4"));
	CHECK(has_line(t, "cgroup root=0 level=2 id=9 flushes=4 flush_ns=12000 path=/a b/c"));
	free(t);
	free(s);
}

/*
 * top's terminal screen, read as a user reads it: over 2 s, base ran 4
 * flushes (12000 ns: 6.0us per second), 6 holds in slot 14 ([8192,
 * 16383] ns: p50 and p99 8.2us, lower bounds) and 2 waits in slot 21
 * ([1048576, ...]: 1.0ms); every figure worked out here by hand.
 */
static void test_top_terminal(void)
{
	struct live_snap *s = calloc(2, sizeof(*s));
	struct live_top_opts o = { .tty = true, .cgroups = 5,
				   .wall = 1700000000.25 };
	struct bpf_spans_hist *h;
	char *buf = NULL, *row;
	size_t len = 0;
	FILE *f;

	if (!s) {
		UNIT_FAIL("out of memory");
		return;
	}
	s[0].elapsed = 1;
	s[0].method = s[1].method = "rstat tracepoints";
	s[0].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].slots[12] = 10;
	s[0].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].count = 10;
	s[0].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1].sum = 30000;
	s[1] = s[0];
	s[1].elapsed = 3;
	h = &s[1].hist[BPF_SPANS_FLUSH][RS_CAT_BASE + 1];
	h->slots[12] = 14;
	h->count = 14;
	h->sum = 42000;
	h = &s[1].hist[BPF_SPANS_HOLD][RS_CAT_BASE + 1];
	h->slots[14] = 6;
	h->count = 6;
	h->sum = 6 * 9000;
	h = &s[1].hist[BPF_SPANS_WAIT][RS_CAT_BASE + 1];
	h->slots[21] = 2;
	h->count = 2;
	h->sum = 2 * 1100000;
	f = open_memstream(&buf, &len);
	if (!f) {
		UNIT_FAIL("open_memstream");
		free(s);
		return;
	}
	live_out__top(f, &s[1], &s[0], &o);
	fclose(f);
	CHECK(buf && strstr(buf, "Flushes: 2/s  flush time: 6.0us per second  Holds: 3/s  ") != NULL);
	CHECK(buf && has_line(buf, "Hold p50 8.2us p99 8.2us  Wait p50 1.0ms p99 1.0ms (log2 bucket lower bounds)"));
	/* SUBSYS FLUSHES/s FLUSH-T/s HOLDS/s HOLD-p50 HOLD-p99 WAITS ... */
	row = buf ? strstr(buf, "\nbase ") : NULL;
	CHECK(row != NULL);
	if (row) {
		char name[16], ft[16], hp50[16], hp99[16], wp50[16], wp99[16];
		unsigned long long fl, ho, wa;

		CHECK_INT(sscanf(row + 1, "%15s %llu %15s %llu %15s %15s %llu %15s %15s",
				 name, &fl, ft, &ho, hp50, hp99, &wa, wp50,
				 wp99), 9);
		CHECK_INT(fl, 2);
		CHECK(!strcmp(ft, "6.0us"));
		CHECK_INT(ho, 3);
		CHECK(!strcmp(hp50, "8.2us") && !strcmp(hp99, "8.2us"));
		CHECK_INT(wa, 2);
		CHECK(!strcmp(wp50, "1.0ms") && !strcmp(wp99, "1.0ms"));
	}
	free(buf);
	free(s);
}

UNIT_MAIN(UNIT(test_histogram_buckets), UNIT(test_counters_and_gauges),
	  UNIT(test_top_batch_delta), UNIT(test_top_terminal))
