// SPDX-License-Identifier: GPL-2.0
/*
 * bench --variant's results of runs of their own: the repetitions
 * (bench_results__take_reps) and the pass after them
 * (bench_results__take_pass: recorded, decomposed) moved into one
 * variant's results.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench-results.h"
#include "hist.h"
#include "results-breakdown.h"
#include "unit.h"

/* A run's results: its provenance, reps repetitions of cpu.stat reads. */
static struct bench_results *run(unsigned int reps, uint64_t p50)
{
	struct bench_results *r = bench_results__new("stat-read");
	struct bench_provenance prov = { .cgroup_layout = "v2" };
	unsigned int i;

	CHECK(r != NULL);
	if (!r)
		return NULL;
	CHECK_INT(bench_results__provenance(r, &prov), 0);
	for (i = 0; i < reps; i++) {
		struct hist *h = hist__new();
		uint64_t x = p50 + i;

		CHECK(h && !hist__add(h, x));
		CHECK_INT(bench_results__rep_begin(r, 1, 0.5, 0.5), 0);
		CHECK_INT(bench_results__rep_metric_hist(r, "read_ns", "ns",
							 "cpu.stat", true, h,
							 &x, 1), 0);
		hist__delete(h);
	}
	return r;
}

static void test_take_pass(void)
{
	struct bench_results *acc = bench_results__new("stat-read");
	struct bench_results *one = run(2, 1000), *pass = run(0, 0);
	struct bench_breakdown *bd = calloc(1, sizeof(*bd));
	const struct bench_breakdown *got;
	const struct bench_metric *m;

	CHECK(acc && one && pass && bd);
	if (!acc || !one || !pass || !bd)
		goto out;
	/* Not before the repetitions: no provenance yet. */
	CHECK_INT(bench_results__take_pass(acc, pass), -EINVAL);
	CHECK_INT(bench_results__take_reps(acc, one), 0);
	CHECK_INT((int)bench_results__nr_reps(acc), 2);
	/* The pass: recorded, decomposed, a note. */
	snprintf(bd->pass, sizeof(bd->pass), "recorded");
	bd->nr_files = 1;
	snprintf(bd->files[0].file, sizeof(bd->files[0].file), "cpu.stat");
	CHECK_INT(bench_results__set_breakdown(pass, bd), 0);
	CHECK_INT(bench_results__set_recording(pass, "ab/a/rstat.data"), 0);
	CHECK_INT(bench_results__recorded_begin(pass, 2, 1, 1), 0);
	CHECK_INT(bench_results__rep_metric_value(pass, "reads_per_s", "1/s",
						  false, 42), 0);
	CHECK_INT(bench_results__skip(pass, "breakdown: a note"), 0);
	/* A run with repetitions is not a pass. */
	bench_results__delete(one);
	one = run(1, 5);
	CHECK_INT(bench_results__take_pass(acc, one), -EINVAL);
	CHECK_INT(bench_results__take_pass(acc, pass), 0);
	CHECK_INT((int)bench_results__nr_reps(acc), 2);
	got = bench_results__breakdown(acc);
	CHECK(got && got->nr_files == 1 && !strcmp(got->pass, "recorded"));
	CHECK(!bench_results__breakdown(pass));
	CHECK(bench_results__recording(acc) &&
	      !strcmp(bench_results__recording(acc), "ab/a/rstat.data"));
	m = bench_results__recorded_metric_find(acc, "reads_per_s", NULL);
	CHECK(m && m->value == 42);
	CHECK(!bench_results__recorded_metric_find(pass, "reads_per_s",
						   NULL));
	CHECK_INT((int)bench_results__nr_skipped(acc), 1);
	CHECK_STR(bench_results__skipped(acc, 0), "breakdown: a note");
	/* An empty run's repetitions: none moved, nothing broken. */
	CHECK_INT(bench_results__take_reps(acc, pass), 0);
	CHECK_INT((int)bench_results__nr_reps(acc), 2);
out:
	free(bd);
	bench_results__delete(acc);
	bench_results__delete(one);
	bench_results__delete(pass);
}

UNIT_MAIN(UNIT(test_take_pass))
