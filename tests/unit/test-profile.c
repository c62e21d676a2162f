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
	CHECK_INT(jv__line(&root), 1);
	CHECK_INT(jv__line(jv__get(&root, "a")), 2);
	CHECK_INT(jv__line(jv__at(jv__get(&root, "a"), 1)), 3);
	CHECK_STR(jv__str(&root, "b"), "\xc3\xa9");
	CHECK(jv__is_u64(jv__at(jv__get(&root, "a"), 1)));
	jv__free(&root);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(parse(bad[i].text, &root, err, sizeof(err)),
			  -EINVAL);
		CHECK_STR(err, bad[i].err);
		CHECK_INT(jv__type(&root), J_NULL);
	}
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	CHECK_INT(parse(deep, &root, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "line 1: nested deeper than 32");
}

/* Every kind of value, read back through the accessors. */
static void test_tree(void)
{
	static const char text[] =
		"{\"a\": [1, -2.5, \"x\\ty\", true, false, null, {\"k\": []}],\n"
		" \"b\": {}, \"u\": 18446744073709551615, \"z\": -0}";
	const struct jv *a, *o;
	struct jv root, copy;
	char err[200];

	CHECK_INT(parse(text, &root, err, sizeof(err)), 0);
	CHECK_INT(jv__type(&root), J_OBJ);
	CHECK_INT(jv__len(&root), 4);
	CHECK_STR(jv__key(&root, 1), "b");
	CHECK(!jv__key(&root, 4));
	a = jv__get(&root, "a");
	CHECK_INT(jv__len(a), 7);
	CHECK(jv__is_u64(jv__at(a, 0)) && jv__u64(jv__at(a, 0)) == 1);
	CHECK(!jv__is_u64(jv__at(a, 1)) && jv__num(jv__at(a, 1)) == -2.5);
	CHECK_STR(jv__string(jv__at(a, 2)), "x\ty");
	CHECK(jv__bool(jv__at(a, 3)) && !jv__bool(jv__at(a, 4)));
	CHECK_INT(jv__type(jv__at(a, 4)), J_BOOL);
	CHECK_INT(jv__type(jv__at(a, 5)), J_NULL);
	o = jv__at(a, 6);
	CHECK_INT(jv__type(jv__get(o, "k")), J_ARR);
	CHECK_INT(jv__len(jv__get(o, "k")), 0);
	CHECK(!jv__at(a, 7) && !jv__at(jv__get(o, "k"), 0));
	CHECK_INT(jv__type(jv__get(&root, "b")), J_OBJ);
	CHECK_U64(jv__u64(jv__get(&root, "u")), UINT64_MAX);
	CHECK(jv__num(jv__get(&root, "u")) == 18446744073709551615.0);
	CHECK(!jv__is_u64(jv__get(&root, "z")));
	CHECK(jv__at(&root, 0) == a);
	CHECK_INT(jv__line(jv__get(&root, "b")), 2);
	/* A copied handle takes the tree over. */
	copy = root;
	memset(&root, 0, sizeof(root));
	CHECK_STR(jv__string(jv__at(jv__get(&copy, "a"), 2)), "x\ty");
	jv__free(&root);
	jv__free(&copy);
	jv__free(&copy);
}

/*
 * A duplicate member is found wherever it is (in an object of any
 * size, nested or not), and the one reported is the first in the text.
 */
static void test_duplicates(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "{\"a\": 1,\n\"a\": {\"b\": 1,\n\"b\": 2}}",
		  "line 2: duplicate member \"a\"" },
		{ "{\"x\": {\"b\": 1,\n\"b\": 2},\n\"a\": 1,\n\"a\": 2}",
		  "line 2: duplicate member \"b\"" },
		{ "[{\"\\u0061\": 1, \"a\": 2}]",
		  "line 1: duplicate member \"a\"" },
	};
	char err[200], *text;
	struct jv root;
	size_t i, len;
	FILE *f;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(parse(bad[i].text, &root, err, sizeof(err)),
			  -EINVAL);
		CHECK_STR(err, bad[i].err);
	}
	/* 40 members, one per line: the sorted check, unique then not. */
	f = open_memstream(&text, &len);
	if (!f) {
		SKIP("open_memstream failed");
		return;
	}
	fputs("{", f);
	for (i = 0; i < 40; i++)
		fprintf(f, "%s\"k%zu\": %zu\n", i ? "," : "", i, i);
	fputs("}", f);
	fclose(f);
	CHECK_INT(parse(text, &root, err, sizeof(err)), 0);
	CHECK_INT(jv__len(&root), 40);
	CHECK_U64(jv__u64(jv__get(&root, "k39")), 39);
	CHECK_INT(jv__line(jv__get(&root, "k39")), 40);
	jv__free(&root);
	free(text);
	/* k30 again on line 41, k5 on 42: the first one is reported. */
	f = open_memstream(&text, &len);
	if (!f) {
		SKIP("open_memstream failed");
		return;
	}
	fputs("{", f);
	for (i = 0; i < 40; i++)
		fprintf(f, "%s\"k%zu\": %zu\n", i ? "," : "", i, i);
	fputs(",\"k30\": 0\n,\"k5\": 0}", f);
	fclose(f);
	CHECK_INT(parse(text, &root, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "line 41: duplicate member \"k30\"");
	free(text);
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
	CHECK_INT(jv__type(&doc), J_NULL);	/* taken over */
	return p;
}

static void test_profile(void)
{
	struct profile_share row;
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
	profile__share(p->attribution, 0, PROFILE_CATEGORY, &row);
	CHECK_STR(row.event, "cpu-clock");
	CHECK_STR(row.name, "flush-cpu");
	CHECK(row.share.ok && row.share.num == 0.25);
	CHECK(row.flush_share.ok);
	profile__share(p->attribution, 1, PROFILE_CATEGORY, &row);
	CHECK(!row.flush_share.ok);
	profile__share(p->attribution, 2, PROFILE_CATEGORY, &row);
	CHECK(!row.event && !row.name);
	CHECK(!row.share.ok);
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

UNIT_MAIN(UNIT(test_lines), UNIT(test_tree), UNIT(test_duplicates),
	  UNIT(test_profile), UNIT(test_kernel_spans), UNIT(test_hist_row_index))
