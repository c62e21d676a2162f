// SPDX-License-Identifier: GPL-2.0
/*
 * The session layer: one open tells the input's kind, consumers get what
 * report gets, messages come out queued in order and never printed, and
 * the timeline hands over the lock holds perf decodes from the fixture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fold.h"
#include "perf-data.h"
#include "rules.h"
#include "session.h"
#include "symbols.h"
#include "unit.h"

static const char *fixture(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", unit_fixtures(), name);
	return path;
}

/* bytes as a file with a path (a memfd: no name in /tmp to plant). */
static int memfile(const void *bytes, size_t len, char *path, size_t plen)
{
	int fd = memfd_create("session-test", 0);

	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len) {
		UNIT_FAIL("memfd: %s", strerror(errno));
		return -1;
	}
	snprintf(path, plen, "/proc/self/fd/%d", fd);
	return fd;
}

static enum session_kind kind_of(const void *bytes, size_t len)
{
	struct session_opts o = { 0 };
	enum session_kind kind = SESSION_BINARY;
	struct session *s;
	char path[64];
	int fd = memfile(bytes, len, path, sizeof(path));

	if (fd < 0)
		return kind;
	o.input = path;
	if (session__open(&s, &o))
		UNIT_FAIL("session__open(%s) failed", path);
	else
		kind = session__kind(s);
	session__delete(s);
	close(fd);
	return kind;
}

/* Each kind is told apart once, from the first bytes. */
static void test_kinds(void)
{
	static const char script[] =
		"prog 1234 [001] 100.000001:     1000 cycles: \n"
		"\t  4005d0 main (/bin/prog)\n\n";
	static const char binary[] = { 0x7f, 'E', 'L', 'F', 0, 1, 2, 3 };
	struct session_opts o = { .input = fixture("pipe-mode.data") };
	struct session *s;

	CHECK_INT(kind_of("", 0), SESSION_EMPTY);
	CHECK_INT(kind_of(script, strlen(script)), SESSION_SCRIPT);
	CHECK_INT(kind_of("  {\"runs\": []}\n", 15), SESSION_JSON);
	CHECK_INT(kind_of("hello world\nnot perf script\n", 28), SESSION_TEXT);
	CHECK_INT(kind_of("a;b;c 12\n", 9), SESSION_TEXT);
	CHECK_INT(kind_of(binary, sizeof(binary)), SESSION_BINARY);
	CHECK_INT(session__open(&s, &o), 0);
	if (s) {
		CHECK_INT(session__kind(s), SESSION_PERF_DATA);
		CHECK(session__perf_data(s) != NULL);
	}
	session__delete(s);
}

/* Opening errors are queued as one error line, in the caller's words. */
static void test_open_errors(void)
{
	struct session_opts o = { .input = "/nonexistent/rstat.data",
				  .open_hint = "give a recording" };
	struct session *s;
	const char *msg;
	bool error = false;

	CHECK_INT(session__open(&s, &o), -ENOENT);
	msg = session__next_msg(s, &error);
	CHECK_STR(msg, "/nonexistent/rstat.data: No such file or directory; give a recording");
	CHECK(error);
	CHECK(session__next_msg(s, &error) == NULL);
	session__delete(s);

	o.input = unit_fixtures();
	o.open_hint = NULL;
	CHECK_INT(session__open(&s, &o), -EISDIR);
	msg = session__next_msg(s, &error);
	CHECK(msg && strstr(msg, ": Is a directory"));
	session__delete(s);
}

/*
 * The notes of a fold come queued in report's order, never printed: the
 * kernel symbols' first, then what was mixed, in the counts perf script
 * gives for the fixture (pipe-mode.script: 7 cpu-clock samples, 18
 * tracepoint hits).
 */
static void test_fold_notes(void)
{
	struct session_opts o = { .input = fixture("pipe-mode.data") };
	struct fold_opts fo = { 0 };
	struct fold *fold = NULL;
	struct session *s;
	const char *msg;
	bool error = true;

	CHECK_INT(session__open(&s, &o), 0);
	CHECK_INT(session__fold(s, &fo, true, &fold), 0);
	CHECK(fold != NULL);
	msg = session__next_msg(s, &error);
	/* None when this machine runs the recorded kernel's release. */
	if (msg && strstr(msg, "kernel frames stay [unknown]")) {
		CHECK(!error);
		msg = session__next_msg(s, &error);
	}
	CHECK_STR(msg, "folded 7 'cpu-clock' samples and 18 tracepoint samples (tracepoints pass any --event-filter, as in stackcollapse-perf.pl)");
	CHECK(!error);
	CHECK(session__next_msg(s, &error) == NULL);
	fold__delete(fold);
	session__delete(s);
}

/*
 * A kernel symbol source that cannot be read is the session's one error,
 * and no fold is handed out.
 */
static void test_bad_kallsyms(void)
{
	struct session_opts o = { .input = fixture("pipe-mode.data"),
				  .kallsyms = "/nonexistent/kallsyms" };
	struct fold_opts fo = { 0 };
	struct fold *fold = (struct fold *)1;
	struct session *s;
	const char *msg;
	bool error = false;
	int nr_errors = 0;

	CHECK_INT(session__open(&s, &o), 0);
	CHECK(session__fold(s, &fo, false, &fold) < 0);
	CHECK(fold == NULL);
	while ((msg = session__next_msg(s, &error))) {
		if (error) {
			nr_errors++;
			CHECK_STR(msg, "/nonexistent/kallsyms: cannot read kernel symbols: No such file or directory; pass a copy of /proc/kallsyms");
		}
	}
	CHECK_INT(nr_errors, 1);
	session__delete(s);
}

struct counts {
	uint64_t samples;
	int64_t fail_offset;	/* fail at the first sample when set */
};

static int count_event(void *arg, const struct rs_event *ev)
{
	struct counts *c = arg;

	if (ev->kind != RS_EV_SAMPLE)
		return 0;
	c->samples++;
	if (c->fail_offset) {
		c->fail_offset = ev->offset;
		return -EIO;
	}
	return 0;
}

/*
 * Any consumer can be fed: every sample perf script prints for the
 * fixture (7 cpu-clock, 18 tracepoint hits), and a consumer's failure
 * becomes the one error, naming the event's offset.
 */
static void test_process(void)
{
	struct session_opts o = { .input = fixture("pipe-mode.data") };
	struct counts c = { 0 };
	struct session *s;
	const char *msg;
	char want[512];
	bool error = false;

	CHECK_INT(session__open(&s, &o), 0);
	CHECK_INT(session__process(s, count_event, &c), 0);
	CHECK_U64(c.samples, 25);
	CHECK(session__next_msg(s, &error) == NULL);
	session__delete(s);

	c.samples = 0;
	c.fail_offset = -1;
	CHECK_INT(session__open(&s, &o), 0);
	CHECK_INT(session__process(s, count_event, &c), -EIO);
	CHECK_U64(c.samples, 1);
	snprintf(want, sizeof(want), "%s: offset %lld: %s", o.input,
		 (long long)c.fail_offset, strerror(EIO));
	msg = session__next_msg(s, &error);
	CHECK_STR(msg, want);
	CHECK(error);
	session__delete(s);
}

/*
 * The user-space files the recording's build id table lists (those its
 * samples ran in) go to the dso loader as the machine is made, before
 * any event is read, and only those: the fixture lists five.
 */
static void test_sampled_files(void)
{
	struct session_opts o = { .input = fixture("flush-mixed.data"),
				  .jobs = 2 };
	struct machine_stats st = { 0 };
	struct perf_data *pd;
	struct machine *m;
	struct session *s;
	uint32_t i, want = 0;
	int tries;

	CHECK_INT(session__open(&s, &o), 0);
	pd = session__perf_data(s);
	for (i = 0; pd && i < perf_data__nr_build_ids(pd); i++) {
		const struct perf_build_id *b = perf_data__build_id(pd, i);

		want += b->filename && b->filename[0] == '/' &&
			(b->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			PERF_RECORD_MISC_USER;
	}
	CHECK_INT((int)want, 5);
	m = session__machine(s);
	CHECK(m != NULL);
	/* Queued as the loader starts, those and nothing else... */
	if (m)
		machine__stats(m, &st);
	CHECK_U64(st.dsos_queued, want);
	/* ... and read. */
	for (tries = 0; m && tries < 500; tries++) {
		machine__stats(m, &st);
		if (st.dsos_read_ahead >= want)
			break;
		usleep(10 * 1000);
	}
	CHECK_U64(st.dsos_read_ahead, want);
	session__delete(s);
}

struct holds {
	uint64_t n;
	uint64_t first_locked, first_hold;
};

static int count_hold(void *arg, uint64_t locked_time, uint64_t hold_ns)
{
	struct holds *h = arg;

	if (!h->n++) {
		h->first_locked = locked_time;
		h->first_hold = hold_ns;
	}
	return 0;
}

/*
 * plot's timeline: the first lock hold in the fixture, as perf script
 * decodes it (flush-mixed.trace.txt.gz): cgroup_rstat_locked at
 * 489.777062, its unlock at 489.777176, both cpu=0: 114 us.
 */
static void test_timeline(void)
{
	struct session_opts o = { .input = fixture("flush-mixed.data") };
	struct rules *rules = rules__new();
	struct holds h = { 0 };
	struct session *s;
	uint64_t first = 0;

	CHECK_INT(session__open(&s, &o), 0);
	CHECK(rules != NULL);
	if (s && rules)
		CHECK_INT(session__timeline(s, rules, count_hold, &h, &first),
			  0);
	CHECK(h.n > 100);
	/* at most one hold per unlock: 438 were recorded */
	CHECK(h.n <= 438);
	CHECK_U64(h.first_locked / 1000, 489777062);
	CHECK(h.first_hold >= 113000 && h.first_hold <= 115000);
	CHECK(first > 0 && first <= h.first_locked);
	session__delete(s);
	rules__delete(rules);
}

UNIT_MAIN(
	UNIT(test_kinds),
	UNIT(test_open_errors),
	UNIT(test_fold_notes),
	UNIT(test_bad_kallsyms),
	UNIT(test_process),
	UNIT(test_timeline), UNIT(test_sampled_files),
)
