// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader (json-read.c) and the typed profile plot and compare
 * read report --json output into (profile.c): values keep their line,
 * what is malformed is refused with its line, and the profile keeps what
 * a document holds and marks what it lacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "json-read.h"
#include "profile.h"
#include "unit.h"

static int parse(const char *text, struct jv *root, char *err, size_t len)
{
	return jv__parse(text, strlen(text), root, err, len);
}

/* Each value knows the line it starts on; errors say theirs. */
static void test_lines(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "[1,\n2,\n]", "line 3: unexpected character ']'" },
		{ "{\"a\": 1,\n \"a\": 2}", "line 2: duplicate member \"a\"" },
		{ "\n\n01", "line 3: invalid number (leading zero)" },
		{ "[\"\xc3\x28\"]", "line 1: invalid UTF-8 in a string" },
		{ "{\"a\": 1} x", "line 1: trailing data after the JSON value" },
		{ "18446744073709551616", "line 1: number out of range" },
		{ "{\"a\": nul}", "line 1: invalid literal" },
	};
	struct jv root;
	char err[200], deep[80];
	size_t i;

	CHECK_INT(parse("{\n\"a\": [1,\n  2],\n\"b\": \"\\u00e9\"\n}", &root,
			err, sizeof(err)), 0);
	CHECK_INT(root.line, 1);
	CHECK_INT(jv__get(&root, "a")->line, 2);
	CHECK_INT(jv__get(&root, "a")->items[1].line, 3);
	CHECK_STR(jv__str(&root, "b"), "\xc3\xa9");
	CHECK(jv__get(&root, "a")->items[1].is_u64);
	jv__free(&root);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(parse(bad[i].text, &root, err, sizeof(err)),
			  -EINVAL);
		CHECK_STR(err, bad[i].err);
		CHECK_INT(root.type, J_NULL);
	}
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	CHECK_INT(parse(deep, &root, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "line 1: nested deeper than 32");
}

static struct profile *profile_of(const char *text)
{
	struct profile *p = NULL;
	struct jv doc;
	char err[200];

	if (parse(text, &doc, err, sizeof(err))) {
		UNIT_FAIL("%s", err);
		return NULL;
	}
	CHECK_INT(profile__from_json(&p, &doc), 0);
	CHECK_INT(doc.type, J_NULL);	/* taken over */
	return p;
}

static void test_profile(void)
{
	struct profile *p = profile_of(
		"{\"attribution\": [\n"
		" {\"event\": \"cpu-clock\", \"category\": \"flush-cpu\",\n"
		"  \"share\": 0.25, \"flush_share\": 0.5},\n"
		" {\"event\": \"cpu-clock\", \"category\": \"other\",\n"
		"  \"share\": 0.75, \"flush_share\": null},\n"
		" {\"category\": 3}],\n"
		"\"triggers\": {},\n"
		"\"spans\": [{\"name\": \"lock-hold\", \"subsystem\": \"cpu\",\n"
		"  \"count\": 3, \"p50_ns\": 700, \"p90_ns\": 900,\n"
		"  \"p99_ns\": 900, \"hist\": [\n"
		"   {\"low\": 512, \"high\": 1023, \"count\": 3},\n"
		"   {\"low\": -1, \"high\": 1.5}]},\n"
		"  {\"name\": \"flush\"}]}");

	if (!p)
		return;
	CHECK_INT(p->attribution_sec, PROFILE_ARRAY);
	CHECK_INT(p->triggers_sec, PROFILE_NOT_ARRAY);
	CHECK_INT(p->spans_sec, PROFILE_ARRAY);
	CHECK_INT(p->nr_attribution, 3);
	CHECK_STR(p->attribution[0].event, "cpu-clock");
	CHECK_STR(p->attribution[0].name, "flush-cpu");
	CHECK(p->attribution[0].share.ok && p->attribution[0].share.num == 0.25);
	CHECK(p->attribution[0].flush_share.ok);
	CHECK(!p->attribution[1].flush_share.ok);
	CHECK(!p->attribution[2].event && !p->attribution[2].name);
	CHECK(!p->attribution[2].share.ok);
	CHECK_INT(p->nr_triggers, 0);
	CHECK_INT(p->nr_spans, 2);
	CHECK_STR(p->spans[0].subsystem, "cpu");
	CHECK(p->spans[0].count.exact && p->spans[0].count.u == 3);
	CHECK(p->spans[0].has_hist);
	CHECK_INT(p->spans[0].nr_hist, 2);
	CHECK_U64(p->spans[0].hist[0].high.u, 1023);
	CHECK(p->spans[0].hist[1].low.ok && !p->spans[0].hist[1].low.exact);
	CHECK(p->spans[0].hist[1].high.ok && !p->spans[0].hist[1].high.exact);
	CHECK(!p->spans[0].hist[1].count.ok);
	CHECK(!p->spans[1].has_hist && !p->spans[1].count.ok);
	profile__delete(p);

	/* Another kind of document: every section absent. */
	p = profile_of("[1, 2]");
	if (p) {
		CHECK_INT(p->attribution_sec, PROFILE_ABSENT);
		CHECK_INT(p->triggers_sec, PROFILE_ABSENT);
		CHECK_INT(p->spans_sec, PROFILE_ABSENT);
	}
	profile__delete(p);
	profile__delete(NULL);
}

/*
 * Rows read back bin where report --json wrote them: the printed rows
 * round-trip, anything else is refused (values 0 count in bucket 1,
 * printed {0, 1}; {1, 1} is no printed row).
 */
/*
 * report --json's kernel_spans (issue 27 item 2): read as spans whose
 * percentiles are buckets, p50_ns... the high end; null or absent gives
 * none.
 */
static void test_kernel_spans(void)
{
	struct profile *p = profile_of(
		"{\"spans\": [],\n"
		"\"kernel_spans\": {\"method\": \"bpf\", \"spans\": [\n"
		" {\"name\": \"hold\", \"subsystem\": \"core\", \"count\": 4,\n"
		"  \"p50\": [1024, 2047], \"p90\": [16384, 32767],\n"
		"  \"p99\": [16384, 32767], \"hist\": [\n"
		"   {\"low\": 1024, \"high\": 2047, \"count\": 3},\n"
		"   {\"low\": 16384, \"high\": 32767, \"count\": 1}]},\n"
		" {\"name\": \"flush\", \"p50\": [1]}]}}");

	if (!p)
		return;
	CHECK_INT(p->nr_spans, 0);
	CHECK_INT(p->kspans_sec, PROFILE_ARRAY);
	CHECK_INT(p->nr_kspans, 2);
	CHECK(p->kspans[0].kernel);
	CHECK_STR(p->kspans[0].name, "hold");
	CHECK_STR(p->kspans[0].subsystem, "core");
	CHECK(p->kspans[0].p50_ns.exact && p->kspans[0].p50_ns.u == 2047);
	CHECK(p->kspans[0].p90_ns.exact && p->kspans[0].p90_ns.u == 32767);
	CHECK_INT(p->kspans[0].nr_hist, 2);
	/* a percentile that is no [LOW, HIGH] pair is missing */
	CHECK(!p->kspans[1].p50_ns.ok && !p->kspans[1].count.ok);
	profile__delete(p);

	p = profile_of("{\"spans\": [], \"kernel_spans\": null}");
	if (p)
		CHECK(p->kspans_sec == PROFILE_ABSENT && !p->nr_kspans);
	profile__delete(p);
}

static void test_hist_row_index(void)
{
	static const struct {
		uint64_t low, high;
		int idx;
	} rows[] = {
		{ 0, 1, 1 }, { 2, 3, 2 }, { 4, 7, 3 }, { 1024, 2047, 11 },
		{ 1ULL << 63, UINT64_MAX, 64 },
		{ 0, 0, -1 }, { 1, 1, -1 }, { 4, 8, -1 }, { 5, 7, -1 },
		{ 3, 3, -1 }, { 1ULL << 63, 1ULL << 63, -1 },
	};
	uint64_t low, high;
	size_t i;
	int idx;

	for (i = 0; i < sizeof(rows) / sizeof(*rows); i++)
		CHECK_INT(profile__hist_row_index(rows[i].low, rows[i].high),
			  rows[i].idx);
	for (idx = 1; idx < HIST_MAX_BUCKETS; idx++) {
		hist__row_bounds(idx, &low, &high);
		CHECK_INT(profile__hist_row_index(low, high), idx);
	}
}

UNIT_MAIN(UNIT(test_lines), UNIT(test_profile), UNIT(test_kernel_spans),
	  UNIT(test_hist_row_index))
