// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder library (recorder.h) against the running kernel: a
 * recording of every CPU that perf_data reads back with the events the
 * recorder opened; a failure that says what failed and leaves no file;
 * an unfinished recording that puts back the one it moved to .old;
 * a recorder inside another program that never reaps that program's
 * children (bench --record runs one beside its workloads).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf-data.h"
#include "recorder.h"
#include "unit.h"

static void opts_all(struct recorder_opts *o, const char *out)
{
	static char *argv[] = { "test-recorder", NULL };

	memset(o, 0, sizeof(*o));
	o->output = out;
	o->target = RECORDER_ALL;
	o->freq = 999;
	o->spans = RECORDER_SPANS_PERF;
	o->cmdline_argc = 1;
	o->cmdline_argv = argv;
}

static const char *cannot_record(void)
{
	if (geteuid())
		return "not root";
	if (access("/sys/kernel/tracing/events", R_OK))
		return "no tracefs";
	return NULL;
}

/*
 * A new recorder into out, of every CPU or (cgroup given) of a cgroup,
 * o its options; NULL, the case skipped or failed, when there is none.
 */
static struct recorder *new_recorder(struct recorder_opts *o,
				     const char *out, const char *cgroup)
{
	const char *why = cannot_record();
	struct recorder *r;

	if (why) {
		SKIP(why);
		return NULL;
	}
	opts_all(o, out);
	if (cgroup) {
		o->target = RECORDER_CGROUP;
		o->cgroup = cgroup;
	}
	r = recorder__new(o);
	CHECK(r != NULL);
	return r;
}

/* Drain for about ms milliseconds. */
static int drain_for(struct recorder *r, int ms)
{
	bool ended = false;
	int err = 0, i;

	for (i = 0; !err && i < ms / 50 && !ended; i++)
		err = recorder__drain(r, 50, &ended);
	return err;
}

static void test_record_all(void)
{
	const char *out = unit_tmp_path("all.data");
	struct recorder_opts o;
	struct recorder_stats st;
	struct perf_data *pd = NULL;
	struct recorder *r = new_recorder(&o, out, NULL);
	bool no_tracepoints;
	struct stat sb;

	if (!r)
		return;
	CHECK_INT(recorder__open(r), 0);
	/* Nothing is made before the start. */
	CHECK(stat(out, &sb) != 0);
	CHECK_INT(recorder__start(r), 0);
	/* Started: the output has its name. */
	CHECK_INT(stat(out, &sb), 0);
	CHECK_INT(drain_for(r, 300), 0);
	CHECK_INT(recorder__stop(r), 0);
	CHECK_STR(recorder__strerror(r), "");
	recorder__stats(r, &st);
	CHECK(st.data_size > 0);
	no_tracepoints = recorder__notes(r)->no_tracepoints;
	recorder__delete(r);
	/* Finished: the file stays, and reads back. */
	CHECK_INT(perf_data__open(&pd, out), 0);
	if (pd) {
		/*
		 * The sampling event and, where the kernel has them, the
		 * rstat tracepoints (--spans perf: the lock ones too).
		 */
		CHECK(perf_data__nr_evsel(pd) >= (no_tracepoints ? 1 : 2));
		perf_data__delete(pd);
	}
	unlink(out);
}

static void test_error_leaves_nothing(void)
{
	const char *out = unit_tmp_path("bad.data");
	struct recorder_opts o;
	struct recorder *r = new_recorder(&o, out,
					  "/nonexistent/rstat-analyze-test");
	struct stat sb;

	if (!r)
		return;
	CHECK(recorder__open(r) < 0);
	CHECK(strstr(recorder__strerror(r),
		     "--cgroup /nonexistent/rstat-analyze-test") != NULL);
	recorder__delete(r);
	CHECK(stat(out, &sb) != 0);

	/* Never opened: deleted clean. */
	recorder__delete(recorder__new(&o));
}

/*
 * Started, then deleted unfinished (a later error, an interrupt): the
 * new file goes and the recording it had moved to .old comes back.
 */
static void test_unfinished_puts_back_old(void)
{
	const char *out = unit_tmp_path("again.data");
	char old[4096], buf[16] = "";
	struct recorder_opts o;
	struct recorder *r = new_recorder(&o, out, NULL);
	struct stat sb;
	FILE *f;

	if (!r)
		return;
	snprintf(old, sizeof(old), "%s.old", out);
	f = fopen(out, "w");
	CHECK(f != NULL);
	if (!f) {
		recorder__delete(r);
		return;
	}
	fputs("earlier", f);
	fclose(f);
	CHECK_INT(recorder__open(r), 0);
	CHECK_INT(recorder__start(r), 0);
	CHECK(recorder__rotated(r));
	CHECK_INT(stat(old, &sb), 0);
	recorder__delete(r);
	CHECK(stat(old, &sb) != 0);
	f = fopen(out, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(buf, sizeof(buf), f) != NULL);
		fclose(f);
	}
	CHECK_STR(buf, "earlier");
	unlink(out);
	unlink(old);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool holds(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strcmp(buf, text);
}

/*
 * Complete, then discarded (bench interrupted after its recorded pass):
 * FILE and FILE.old are put back as they were, the .old before included;
 * kept, FILE.old is the earlier FILE and nothing hidden is left.
 */
static void test_discard_puts_back_both(void)
{
	const char *out = unit_tmp_path("both.data");
	struct recorder_opts o;
	struct recorder *r = new_recorder(&o, out, NULL);
	char old[4096];

	if (!r)
		return;
	snprintf(old, sizeof(old), "%s.old", out);
	put(out, "A");
	put(old, "B");
	CHECK_INT(recorder__open(r), 0);
	CHECK_INT(recorder__start(r), 0);
	CHECK(holds(old, "A"));
	CHECK_INT(drain_for(r, 100), 0);
	CHECK_INT(recorder__stop(r), 0);
	recorder__discard(r);
	recorder__delete(r);
	CHECK(holds(out, "A"));
	CHECK(holds(old, "B"));
	r = new_recorder(&o, out, NULL);
	if (!r)
		return;
	CHECK_INT(recorder__open(r), 0);
	CHECK_INT(recorder__start(r), 0);
	CHECK_INT(drain_for(r, 100), 0);
	CHECK_INT(recorder__stop(r), 0);
	recorder__delete(r);
	CHECK(holds(old, "A"));
	CHECK(!holds(out, "A"));
	unlink(out);
	unlink(old);
	CHECK_INT(unit_sh("ls -A '%s' | grep -q '^\\.both' && exit 1; exit 0",
			  unit_tmpdir()), 0);
}

static void test_leaves_callers_children(void)
{
	const char *out = unit_tmp_path("kids.data");
	struct recorder_opts o;
	struct recorder *r = new_recorder(&o, out, NULL);
	int status = 0;
	pid_t kid;

	if (!r)
		return;
	kid = fork();
	if (kid == 0) {
		usleep(200 * 1000);
		_exit(7);
	}
	CHECK(kid > 0);
	CHECK_INT(recorder__open(r), 0);
	CHECK_INT(recorder__start(r), 0);
	CHECK_INT(drain_for(r, 400), 0);
	CHECK_INT(recorder__stop(r), 0);
	recorder__delete(r);
	/* The caller's child, exited meanwhile, is still the caller's. */
	CHECK_INT(waitpid(kid, &status, 0), kid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	unlink(out);
}

UNIT_MAIN(UNIT(test_record_all), UNIT(test_error_leaves_nothing),
	  UNIT(test_unfinished_puts_back_old),
	  UNIT(test_discard_puts_back_both),
	  UNIT(test_leaves_callers_children))
