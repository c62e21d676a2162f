/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness. Each test binary defines test functions and
 * lists them with UNIT_MAIN(); every case prints one line that tests/run.sh
 * counts:
 *   PASS name
 *   FAIL name: file:line: what
 *   SKIP name: why
 * and a case that did only part of its work says so first:
 *   PART-SKIP name: what was not done and why
 * A case passes only if it checked something (CHECK*(), UNIT_FAIL() or
 * UNIT_CHECKED()): one that asserts nothing fails, so that it cannot pass
 * for a test. Housekeeping (removing the case's scratch directory) goes
 * in a UNIT_CLEANUP() case, which prints "CLEANUP name" and is no test.
 * Each case is announced ("# RUN name") before it starts, so that a crash
 * (a sanitizer abort, a signal, a timeout) is pinned on its case, and
 * UNIT_START=N runs the cases after the first N: tests/run.sh restarts a
 * crashed binary there, and the cases after a crash still run.
 * The binary exits 1 when any case failed.
 */
#ifndef RS_UNIT_H
#define RS_UNIT_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

struct unit_case {
	const char *name;
	void (*fn)(void);
	int cleanup;		/* housekeeping, not a test */
};

static int unit_failed;		/* failures in the current case */
static unsigned long unit_checks;	/* assertions the case made */
static const char *unit_skip;	/* reason when the case skipped itself */
static const char *unit_name;

/* A case that checks by hand ("if (bad) UNIT_FAIL()") says it did. */
#define UNIT_CHECKED() (unit_checks++)

#define UNIT_FAIL(fmt, ...)						\
	do {								\
		unit_checks++;						\
		if (!unit_failed)					\
			printf("FAIL %s: %s:%d: " fmt "\n", unit_name,	\
			       __FILE__, __LINE__, ##__VA_ARGS__);	\
		unit_failed++;						\
	} while (0)

#define CHECK(cond)							\
	do {								\
		unit_checks++;						\
		if (!(cond))						\
			UNIT_FAIL("%s", #cond);				\
	} while (0)

#define CHECK_INT(a, b)							\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		unit_checks++;						\
		if (_a != _b)						\
			UNIT_FAIL("%s == %lld, expected %lld", #a, _a, _b); \
	} while (0)

#define CHECK_U64(a, b)							\
	do {								\
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);	\
		unit_checks++;						\
		if (_a != _b)						\
			UNIT_FAIL("%s == %" PRIu64 ", expected %" PRIu64, \
				  #a, _a, _b);				\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *_a = (a), *_b = (b);			\
		unit_checks++;						\
		if (!_a || !_b || strcmp(_a, _b))			\
			UNIT_FAIL("%s == \"%s\", expected \"%s\"", #a,	\
				  _a ? _a : "(null)", _b ? _b : "(null)"); \
	} while (0)

/* Mark the running case skipped (call, then return from the case). */
#define SKIP(why) (unit_skip = (why))

/* The case goes on, but part of its work is not done here: say which. */
#define SKIP_PART(fmt, ...)						\
	do {								\
		printf("PART-SKIP %s: " fmt "\n", unit_name,		\
		       ##__VA_ARGS__);					\
		fflush(stdout);						\
	} while (0)

static inline int unit_run(const struct unit_case *cases, size_t n)
{
	const char *start = getenv("UNIT_START");
	int bad = 0;
	size_t i;

	for (i = start ? strtoul(start, NULL, 10) : 0; i < n; i++) {
		unit_name = cases[i].name;
		printf("# RUN %s\n", unit_name);
		fflush(stdout);
		unit_failed = 0;
		unit_checks = 0;
		unit_skip = NULL;
		cases[i].fn();
		if (unit_failed)
			bad++;
		else if (cases[i].cleanup)
			printf("CLEANUP %s\n", unit_name);
		else if (unit_skip)
			printf("SKIP %s: %s\n", unit_name, unit_skip);
		else if (!unit_checks) {
			printf("FAIL %s: asserted nothing (a test checks something; housekeeping is a UNIT_CLEANUP case)\n",
			       unit_name);
			bad++;
		} else
			printf("PASS %s\n", unit_name);
		fflush(stdout);
	}
	return bad ? 1 : 0;
}

#define UNIT_MAIN(...)							\
	int main(void)							\
	{								\
		static const struct unit_case cases[] = { __VA_ARGS__ }; \
		return unit_run(cases, sizeof(cases) / sizeof(cases[0])); \
	}

#define UNIT(fn) { #fn, fn, 0 }
/* Housekeeping after the tests: run, reported as CLEANUP, not counted. */
#define UNIT_CLEANUP(fn) { #fn, fn, 1 }

/* Directory of the repository's tests, for data files (set by run.sh). */
static inline const char *unit_srcdir(void)
{
	const char *d = getenv("RS_TESTS_DIR");

	return d ? d : "tests";
}

/* The bundled recordings (tests/data, copied from shared/fixtures). */
static inline const char *unit_fixtures(void)
{
	const char *d = getenv("RS_FIXTURES");

	return d && *d ? d : "tests/data";
}

/*
 * A scratch directory for the test binary, made on first use; a last case
 * calls unit_tmp_cleanup() to remove it.
 */
static inline const char *unit_tmpdir(void)
{
	static char dir[192] = "/tmp/rs-unit-XXXXXX";
	static int made;
	/* run.sh's own scratch directory: what a crash leaves goes with it. */
	const char *base = getenv("RS_UNIT_TMP");

	if (!made && base && *base)
		snprintf(dir, sizeof(dir), "%s/rs-unit-XXXXXX", base);
	if (!made && mkdtemp(dir))
		made = 1;
	/* Never the template's own name, which anyone may have made. */
	if (!made) {
		fprintf(stderr, "unit: cannot make a scratch directory %s: %s\n",
			dir, strerror(errno));
		abort();
	}
	return dir;
}

/* The test process's threads now (/proc/self/status), -1 unknown. */
static inline int unit_threads(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* DIR/name in the scratch directory (eight results live at once). */
static inline const char *unit_tmp_path(const char *name)
{
	static char buf[8][256];
	static int n;
	char *p = buf[n++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", unit_tmpdir(), name);
	return p;
}

/* Run a shell command; its exit status, or -1. */
static inline int unit_sh(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline int unit_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return r == -1 ? -1 : WEXITSTATUS(r);
}

static inline void unit_tmp_cleanup(void)
{
	unit_sh("rm -rf '%s'", unit_tmpdir());
}

#endif
