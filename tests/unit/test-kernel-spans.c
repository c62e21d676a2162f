// SPDX-License-Identifier: GPL-2.0
/*
 * The stored form of the spans timed in the kernel: a text written by hand
 * from the schema reads as it says (counts, buckets, percentiles as
 * bpftrace would give them), formats again to a text that reads the same,
 * and every malformed text is refused with one line, not half-read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-spans.h"
#include "rules.h"
#include "unit.h"

/*
 * 10 base holds: 6 in [256, 511], 3 in [512, 1023], 1 in [2048, 4095];
 * nearest rank: p50 is rank 5 (first bucket), p90 rank 9 (second), p99
 * rank 10 (the last).
 */
static const char good[] =
	"{\"schema\": \"rstat-analyze-spans/1\", \"method\": \"bpf\",\n"
	" \"scope\": \"every task\",\n"
	" \"counts\": {\"locked\": 11, \"pairs\": 10, \"flushes\": 3,\n"
	"            \"unmatched_start\": 1, \"hist_full\": 0},\n"
	" \"spans\": [\n"
	"  {\"kind\": \"hold\", \"subsys\": \"base\", \"count\": 10,\n"
	"   \"sum_ns\": 8000, \"min_ns\": 300, \"max_ns\": 3000,\n"
	"   \"buckets\": [[9, 6], [10, 3], [12, 1]]},\n"
	"  {\"kind\": \"flush\", \"subsys\": \"base\", \"count\": 3,\n"
	"   \"sum_ns\": 30000, \"min_ns\": 9000, \"max_ns\": 11000,\n"
	"   \"buckets\": [[14, 3]]},\n"
	"  {\"kind\": \"hold\", \"subsys\": \"unknown\", \"count\": 1,\n"
	"   \"sum_ns\": 100, \"min_ns\": 100, \"max_ns\": 100,\n"
	"   \"buckets\": [[7, 1]]}\n"
	" ]}\n";

static struct kernel_spans *parse(const char *text, int want)
{
	struct kernel_spans *ks = NULL;
	char err[200] = "";

	CHECK_INT(kernel_spans__parse(&ks, text, strlen(text), err,
				      sizeof(err)), want);
	if (want) {
		CHECK(ks == NULL);
		CHECK(*err != '\0');
	}
	return ks;
}

static void test_read(void)
{
	struct kernel_spans *ks = parse(good, 0);
	const struct bpf_spans_hist *h;
	struct bpf_spans_counts c;
	uint64_t low, high;

	if (!ks)
		return;
	CHECK_STR(kernel_spans__scope(ks), "every task");
	kernel_spans__counts(ks, &c);
	CHECK_U64(c.locked, 11);
	CHECK_U64(c.pairs, 10);
	CHECK_U64(c.flushes, 3);
	CHECK_U64(c.unmatched_start, 1);
	CHECK_U64(c.contended, 0);	/* absent: 0 */

	h = kernel_spans__hist(ks, BPF_SPANS_HOLD, RS_CAT_BASE);
	CHECK(h != NULL);
	if (h) {
		CHECK_U64(h->count, 10);
		CHECK_U64(h->sum, 8000);
		CHECK_U64(h->min, 300);
		CHECK_U64(h->max, 3000);
		CHECK_U64(bpf_spans_hist__percentile(h, 50, &low, &high), 256);
		CHECK_U64(high, 511);
		CHECK_U64(bpf_spans_hist__percentile(h, 90, &low, &high), 512);
		CHECK_U64(high, 1023);
		CHECK_U64(bpf_spans_hist__percentile(h, 99, &low, &high),
			  2048);
		CHECK_U64(high, 4095);
	}
	h = kernel_spans__hist(ks, BPF_SPANS_HOLD, -1);
	CHECK(h && h->count == 1 && h->min == 100);
	/* every subsystem together: min of all, counts summed */
	h = kernel_spans__hist(ks, BPF_SPANS_HOLD, BPF_SPANS_ANY);
	CHECK(h && h->count == 11 && h->min == 100 && h->max == 3000);
	h = kernel_spans__hist(ks, BPF_SPANS_WAIT, RS_CAT_MEMORY);
	CHECK(h && h->count == 0);
	CHECK(kernel_spans__hist(ks, BPF_SPANS__NR_KINDS, 0) == NULL);
	CHECK(kernel_spans__hist(ks, BPF_SPANS_HOLD, RS_CAT__NR) == NULL);
	kernel_spans__delete(ks);
}

/* What it formats reads back to the same figures, and formats the same. */
static void test_round_trip(void)
{
	struct kernel_spans *ks = parse(good, 0), *again;
	char *text = NULL, *text2 = NULL;
	const struct bpf_spans_hist *a, *b;
	int k, c;

	if (!ks)
		return;
	CHECK_INT(kernel_spans__format(ks, &text), 0);
	again = text ? parse(text, 0) : NULL;
	if (again) {
		for (k = 0; k < BPF_SPANS__NR_KINDS; k++) {
			for (c = -1; c < RS_CAT__NR; c++) {
				a = kernel_spans__hist(ks, k, c);
				b = kernel_spans__hist(again, k, c);
				CHECK(!memcmp(a, b, sizeof(*a)));
			}
		}
		CHECK_INT(kernel_spans__format(again, &text2), 0);
		CHECK_STR(text2, text);
	}
	free(text);
	free(text2);
	kernel_spans__delete(again);
	kernel_spans__delete(ks);
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"",
		"not json",
		"{\"schema\": \"rstat-analyze-spans/2\", \"spans\": []}",
		"{\"spans\": []}",
		"{\"schema\": \"rstat-analyze-spans/1\"}",
		/* a bucket index past the last slot */
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [{\"kind\":"
		" \"hold\", \"subsys\": \"base\", \"count\": 1, \"sum_ns\": 1,"
		" \"min_ns\": 1, \"max_ns\": 1, \"buckets\": [[65, 1]]}]}",
		/* buckets that do not add up to the count */
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [{\"kind\":"
		" \"hold\", \"subsys\": \"base\", \"count\": 2, \"sum_ns\": 1,"
		" \"min_ns\": 1, \"max_ns\": 1, \"buckets\": [[1, 1]]}]}",
		/* counts that overflow when added */
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [{\"kind\":"
		" \"hold\", \"subsys\": \"base\", \"count\": 1, \"sum_ns\": 1,"
		" \"min_ns\": 1, \"max_ns\": 1, \"buckets\": [[1,"
		" 18446744073709551615], [2, 2]]}]}",
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [{\"kind\":"
		" \"nap\", \"subsys\": \"base\", \"count\": 0, \"sum_ns\": 0,"
		" \"min_ns\": 0, \"max_ns\": 0, \"buckets\": []}]}",
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [{\"kind\":"
		" \"hold\", \"subsys\": \"gpu\", \"count\": 0, \"sum_ns\": 0,"
		" \"min_ns\": 0, \"max_ns\": 0, \"buckets\": []}]}",
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [{\"kind\":"
		" \"hold\", \"subsys\": \"base\", \"count\": -1, \"sum_ns\": 0,"
		" \"min_ns\": 0, \"max_ns\": 0, \"buckets\": []}]}",
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": [[1]]}",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		kernel_spans__delete(parse(bad[i], -EINVAL));
}

UNIT_MAIN(UNIT(test_read), UNIT(test_round_trip), UNIT(test_refused))
