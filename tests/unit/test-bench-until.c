// SPDX-License-Identifier: GPL-2.0
/*
 * bench --until's pure parts: its argument, the resolution of synthetic
 * results against Welch's detectable difference worked out with scipy
 * (stats.t.ppf; the values below), what ends a run and when, and the
 * results' until_* parameters written and read back.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench-results.h"
#include "bench-until.h"
#include "hist.h"
#include "unit.h"

#define CHECK_NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol))

static void test_parse(void)
{
	struct bench_until u = { 0 };
	char why[256];

	CHECK_INT(bench_until__parse(&u, "5%", why, sizeof(why)), 0);
	CHECK(u.target_pct == 5 && u.max_s == BENCH_UNTIL_MAX_S &&
	      u.max_reps == BENCH_UNTIL_MAX_REPS);
	CHECK_INT(bench_until__parse(&u, "2.5", why, sizeof(why)), 0);
	CHECK(u.target_pct == 2.5);
	CHECK_INT(bench_until__parse(&u, "1%,300", why, sizeof(why)), 0);
	CHECK(u.target_pct == 1 && u.max_s == 300);
	CHECK_INT(bench_until__parse(&u, "1%,0.5s", why, sizeof(why)), 0);
	CHECK(u.max_s == 0.5);
	CHECK_STR(u.metric, "");
	CHECK_INT(bench_until__parse(&u, "3%,60,cpu.stat", why, sizeof(why)),
		  0);
	CHECK(u.target_pct == 3 && u.max_s == 60);
	CHECK_STR(u.metric, "cpu.stat");
}

static void test_parse_refused(void)
{
	static const char *const bad[] = {
		"", "0", "-1", "abc", "5%x", "5%%", "1001", "nan", "5%,",
		"5%,0", "5%,x", "5%,-3", "5%,3x", "inf", "5%,3,",
		"5%,3,a/b", "5%,3,a b", "5%,,cpu.stat",
		"5%,3,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	struct bench_until u = { .target_pct = 7 };
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK_INT(bench_until__parse(&u, bad[i], why, sizeof(why)),
			  -EINVAL);
		CHECK(strstr(why, "--until") != NULL);
	}
	CHECK(u.target_pct == 7);	/* untouched */
}

/* Results of one repetition per p50 in x[], read_ns of cpu.stat. */
static struct bench_results *results(const uint64_t *x, size_t n)
{
	struct bench_results *r = bench_results__new("stat-read");
	size_t i;

	CHECK(r != NULL);
	for (i = 0; r && i < n; i++) {
		struct hist *h = hist__new();

		CHECK(h && !hist__add(h, x[i]));
		CHECK_INT(bench_results__rep_begin(r, 1, 0.5, 0.5), 0);
		/* A figure first: the distribution is still the one judged. */
		CHECK_INT(bench_results__rep_metric_value(r, "reads_per_s",
							  "1/s", false,
							  1000 + i), 0);
		CHECK_INT(bench_results__rep_metric_hist(r, "read_ns", "ns",
							 "cpu.stat", true, h,
							 &x[i], 1), 0);
		hist__delete(h);
	}
	return r;
}

static void test_resolution(void)
{
	static const uint64_t base[] = { 1000, 1020, 980 };
	static const uint64_t wide[] = { 1100, 1140, 1060 };
	struct bench_until u = { .target_pct = 1, .max_s = 600,
				 .max_reps = 100 };
	struct bench_until_state st;
	struct bench_results *r[2] = { results(base, 3), results(wide, 3) };
	char why[512];

	/*
	 * One run, its own base: scipy gives 6.071136902463902 (with the
	 * nanosecond's rounding, a variance of 1/12; 6.0705 without).
	 */
	CHECK(!bench_until__check(&u, 1, r, 1, 3, 0, &st, why, sizeof(why)));
	CHECK_NEAR(st.resolution_pct, 6.071136902463902, 1e-6);
	CHECK_STR(st.metric, "read_ns cpu.stat");
	CHECK_INT(st.end, BENCH_UNTIL_RUNNING);
	/* Two variants, the worst against the first: 10.845430375764002. */
	CHECK(!bench_until__check(&u, 1, r, 2, 3, 0, &st, why, sizeof(why)));
	CHECK_NEAR(st.resolution_pct, 10.845430375764002, 1e-6);
	bench_results__delete(r[0]);
	bench_results__delete(r[1]);
}

static void test_ends(void)
{
	static const uint64_t x[] = { 1000, 1020, 980 }, same[] = { 990, 990 };
	struct bench_until u = { .target_pct = 7, .max_s = 60,
				 .max_reps = 100 };
	struct bench_until_state st;
	struct bench_results *r = results(x, 3), *two = results(same, 2);
	char why[512];

	/* 6.07% is at most 7%: resolved. */
	CHECK(bench_until__check(&u, 1, &r, 1, 3, 1, &st, why, sizeof(why)));
	CHECK_INT(st.end, BENCH_UNTIL_RESOLVED);
	CHECK(st.reps == 3 && st.elapsed_s == 1);
	/* -r 4 asked for more: on, whatever the resolution or the time. */
	CHECK(!bench_until__check(&u, 4, &r, 1, 3, 100, &st, why, sizeof(why)));
	/*
	 * Two repetitions that agree do not end a run by their resolution,
	 * which only the nanosecond's rounding limits: 0.15638940139088625.
	 */
	CHECK(!bench_until__check(&u, 1, &two, 1, 2, 1, &st, why, sizeof(why)));
	CHECK_NEAR(st.resolution_pct, 0.15638940139088625, 1e-6);
	/* ... but the time limit does. */
	CHECK(bench_until__check(&u, 1, &two, 1, 2, 60, &st, why, sizeof(why)));
	CHECK_INT(st.end, BENCH_UNTIL_TIME);
	u.target_pct = 1;
	CHECK(!bench_until__check(&u, 1, &r, 1, 3, 59.9, &st, why, sizeof(why)));
	CHECK(bench_until__check(&u, 1, &r, 1, 3, 60, &st, why, sizeof(why)));
	CHECK_INT(st.end, BENCH_UNTIL_TIME);
	u.max_reps = 3;
	CHECK(bench_until__check(&u, 1, &r, 1, 3, 1, &st, why, sizeof(why)));
	CHECK_INT(st.end, BENCH_UNTIL_REPS);
	bench_results__delete(r);
	bench_results__delete(two);
}

/* --until RES,SECS,METRIC: by its name or its file; absent, refused. */
static void test_chosen_metric(void)
{
	static const uint64_t x[] = { 1000, 1020, 980 };
	struct bench_until u = { .target_pct = 50, .max_s = 60,
				 .max_reps = 100 };
	struct bench_until_state st;
	struct bench_results *r = results(x, 3);
	char why[512];

	snprintf(u.metric, sizeof(u.metric), "reads_per_s");
	CHECK_INT(bench_until__check(&u, 1, &r, 1, 3, 0, &st, why,
				     sizeof(why)), 1);
	CHECK_STR(st.metric, "reads_per_s");
	/* 1000, 1001, 1002 (no rounding: a figure, not a p50): scipy */
	CHECK_NEAR(st.resolution_pct, 0.3032220075507902, 1e-6);
	snprintf(u.metric, sizeof(u.metric), "cpu.stat");
	CHECK_INT(bench_until__check(&u, 1, &r, 1, 3, 0, &st, why,
				     sizeof(why)), 1);
	CHECK_STR(st.metric, "read_ns cpu.stat");
	snprintf(u.metric, sizeof(u.metric), "memory.stat");
	CHECK_INT(bench_until__check(&u, 1, &r, 1, 3, 0, &st, why,
				     sizeof(why)), -ENOENT);
	CHECK_STR(why, "reads_per_s, read_ns cpu.stat");
	bench_results__delete(r);
}

static void test_save_load(void)
{
	static const uint64_t x[] = { 1000, 1020, 980 };
	struct bench_until u = { .target_pct = 7.5, .max_s = 60,
				 .max_reps = 100 }, back;
	struct bench_until_state st, got;
	struct bench_results *r = results(x, 3), *one = results(x, 1);
	char why[512];

	CHECK_INT(bench_until__load(r, &back, &got), -ENOENT);
	CHECK(bench_until__check(&u, 1, &r, 1, 3, 2.5, &st, why, sizeof(why)));
	CHECK_INT(bench_until__save(r, &u, &st), 0);
	CHECK_INT(bench_until__load(r, &back, &got), 0);
	CHECK(back.target_pct == 7.5 && back.max_s == 60 &&
	      back.max_reps == 100);
	CHECK_INT(got.end, BENCH_UNTIL_RESOLVED);
	CHECK(got.reps == 3 && got.elapsed_s == 2.5);
	CHECK(got.resolution_pct == st.resolution_pct);
	CHECK_STR(got.metric, "read_ns cpu.stat");
	CHECK_STR(bench_until__end_name(got.end), "resolution");
	/* One repetition: no spread, no resolution in the file. */
	CHECK(bench_until__check(&u, 1, &one, 1, 1, 61, &st, why, sizeof(why)));
	CHECK(isnan(st.resolution_pct));
	CHECK_INT(bench_until__save(one, &u, &st), 0);
	CHECK(!bench_results__param_find(one, "until_resolution_pct"));
	CHECK_INT(bench_until__load(one, &back, &got), 0);
	CHECK(isnan(got.resolution_pct));
	CHECK_INT(got.end, BENCH_UNTIL_TIME);
	bench_results__delete(r);
	bench_results__delete(one);
}

UNIT_MAIN(UNIT(test_parse), UNIT(test_parse_refused), UNIT(test_resolution),
	  UNIT(test_ends), UNIT(test_chosen_metric), UNIT(test_save_load))
