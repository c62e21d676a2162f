// SPDX-License-Identifier: GPL-2.0
/*
 * bench --kernel's breakdowns side by side and compare's are one table
 * from one builder: bench_breakdown__print_runs() prints, character for
 * character, the breakdown section of compare's text of the same files.
 * The inputs: tests/data/compare/bd-host.json (this development host,
 * no kprobes) and bd-kprobes.json (the same as a kernel with kprobes
 * would give them: tests/shell/compare-breakdown.py kprobes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown-out.h"
#include "compare.h"
#include "unit.h"

static const char *fixture(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("RS_FIXTURES");

	snprintf(buf, len, "%s/compare/%s", dir ? dir : "tests/data", name);
	return buf;
}

/* compare's text of files (one a side), into a string. */
static char *compare_text(const char *const *files, const char *const *labels,
			  size_t n)
{
	struct compare_inputs ci = { .files = files, .nr_files = n };
	struct compare c = { .nr_sides = n, .labels = labels };
	size_t side[4] = { 0, 1, 2, 3 }, len = 0;
	char err[512] = "", *buf = NULL;
	FILE *f;

	ci.side = side;
	CHECK_INT(compare__build(&c, &ci, err, sizeof(err)), 0);
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(compare_out__text(f, &c), 0);
		fclose(f);
	}
	compare__release(&c);
	return buf;
}

static char *print_runs(const char *const *files, const char *const *labels,
			size_t n, int *ret)
{
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	*ret = bench_breakdown__print_runs(files, labels, n, f, err,
					   sizeof(err));
	fclose(f);
	return buf;
}

static void test_same_table(void)
{
	char a[512], b[512], *text, *runs, *from, *to;
	const char *files[2] = { fixture(a, sizeof(a), "bd-host.json"),
				 fixture(b, sizeof(b), "bd-kprobes.json") };
	const char *labels[2] = { "6.18-host", "7.2-kprobes" };
	int ret = -1;

	text = compare_text(files, labels, 2);
	runs = print_runs(files, labels, 2, &ret);
	CHECK_INT(ret, 0);
	CHECK(text && runs);
	if (!text || !runs)
		goto out;
	/* compare's section: from its first line to the --details line. */
	from = strstr(text, "\nWhere a read's time goes");
	to = from ? strstr(from, "\n\nMore with --details") : NULL;
	CHECK(from && to);
	if (from && to) {
		to[1] = '\0';
		CHECK_STR(runs, from);
	}
	/* What makes it the breakdowns' table, not an empty match. */
	CHECK(strstr(runs, "\ncpu.stat ") != NULL);
	CHECK(strstr(runs, "\nmemory               not timed") != NULL);
	CHECK(strstr(runs, "from 0") != NULL);
out:
	free(text);
	free(runs);
}

/* A run without a breakdown: no table, a line saying why. */
static void test_one_without(void)
{
	char a[512], b[512], *runs;
	const char *files[2] = { fixture(a, sizeof(a), "bd-host.json"),
				 fixture(b, sizeof(b), "base.json") };
	const char *labels[2] = { "host", "plain" };
	int ret = -1;

	runs = print_runs(files, labels, 2, &ret);
	CHECK_INT(ret, 0);
	CHECK(runs != NULL);
	if (runs) {
		CHECK(strstr(runs, "breakdowns not compared: side plain has none") != NULL);
		CHECK(strstr(runs, "Where a read's time goes") == NULL);
	}
	free(runs);
}

/* A file that is no results: the error, once, in errbuf. */
static void test_bad_file(void)
{
	const char *files[2] = { "/nonexistent/a.json", "/nonexistent/b.json" };
	const char *labels[2] = { "a", "b" };
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(bench_breakdown__print_runs(files, labels, 2, f, err,
					      sizeof(err)), -ENOENT);
	fclose(f);
	CHECK(strstr(err, "/nonexistent/a.json") != NULL);
	CHECK_INT(len, 0);
	free(buf);
}

UNIT_MAIN(UNIT(test_same_table), UNIT(test_one_without),
	  UNIT(test_bad_file))
