// SPDX-License-Identifier: GPL-2.0
/*
 * bench --record's recorder (bench-recording.h): a struct recorder of
 * this process whose rings a thread drains while the main thread runs
 * the workloads.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-recording.h"
#include "recorder.h"
#include "util.h"

/* How often the rings are drained when no wakeup comes, in ms. */
#define POLL_MS 100

struct bench_recording {
	struct recorder *rec;
	pthread_t drainer;
	bool running;		/* the thread was started, not yet joined */
	atomic_bool stop;
	int err;		/* the thread's, once joined */
	char **argv;		/* the header's command line */
	char path[4096];
};

static void *drain_thread(void *arg)
{
	struct bench_recording *br = arg;
	bool ended = false;
	int err = 0;

	while (!err && !atomic_load(&br->stop))
		err = recorder__drain(br->rec, POLL_MS, &ended);
	br->err = err;
	return NULL;
}

/* The recorder's one line, without the "record: " it says as a command. */
static void say_error(struct bench_recording *br, char *errbuf, size_t len)
{
	const char *msg = recorder__strerror(br->rec);

	if (!strncmp(msg, "record: ", 8))
		msg += 8;
	errbuf_set(errbuf, len, "%s", msg);
}

/*
 * The drain thread takes no signal (it inherits the mask it is created
 * with): those that stop a run go to the main thread, whose waits
 * (ppoll with them unblocked) must see them at once.
 */
static int start_thread(struct bench_recording *br)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&br->drainer, NULL, drain_thread, br);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	br->running = true;
	return 0;
}

static int join_thread(struct bench_recording *br)
{
	if (!br->running)
		return 0;
	atomic_store(&br->stop, true);
	pthread_join(br->drainer, NULL);
	br->running = false;
	return br->err;
}

int bench_recording__start(struct bench_recording **out, int dirfd,
			   const char *path, const char *shown, int argc,
			   char **argv, char *errbuf, size_t len)
{
	struct recorder_opts o = {
		.output = path, .target = RECORDER_ALL, .freq = 4999,
		.output_at = true, .output_dirfd = dirfd,
		/*
		 * A flushing reader makes 100k lock events a second with
		 * callchains, while the workloads compete for the CPU the
		 * rings are drained on: 4 MiB rings rather than 1.
		 */
		.mmap_pages = 1024, .spans = RECORDER_SPANS_AUTO,
	};
	struct bench_recording *br;
	int err;

	*out = NULL;
	br = calloc(1, sizeof(*br));
	if (!br) {
		errbuf_set(errbuf, len, "out of memory");
		return -ENOMEM;
	}
	snprintf(br->path, sizeof(br->path), "%s", shown);
	/*
	 * The header's command line is the one the user ran, bench's: no
	 * `record` command line that nobody typed.
	 */
	*out = br;
	br->argv = calloc(argc + 2, sizeof(*br->argv));
	if (!br->argv) {
		errbuf_set(errbuf, len, "out of memory");
		return -ENOMEM;
	}
	br->argv[0] = "rstat-analyze";
	memcpy(br->argv + 1, argv, argc * sizeof(*argv));
	o.output_shown = br->path;
	o.cmdline_argc = argc + 1;
	o.cmdline_argv = br->argv;
	br->rec = recorder__new(&o);
	if (!br->rec) {
		errbuf_set(errbuf, len, "out of memory");
		return -ENOMEM;
	}
	err = recorder__open(br->rec);
	if (!err)
		err = recorder__start(br->rec);
	if (err) {
		say_error(br, errbuf, len);
		return err;
	}
	err = start_thread(br);
	if (err)
		errbuf_set(errbuf, len, "cannot start the thread that drains the rings: %s",
			   strerror(-err));
	return err;
}

const struct recorder_notes *
bench_recording__notes(const struct bench_recording *br)
{
	return recorder__notes(br->rec);
}

void bench_recording__stats(const struct bench_recording *br,
			    struct recorder_stats *st)
{
	recorder__stats(br->rec, st);
}

void bench_recording__discard(struct bench_recording *br)
{
	if (br && br->rec)
		recorder__discard(br->rec);
}

int bench_recording__stop(struct bench_recording *br, char *errbuf,
			  size_t len)
{
	int err = join_thread(br);

	if (!err)
		err = recorder__stop(br->rec);
	if (err)
		say_error(br, errbuf, len);
	return err;
}

void bench_recording__delete(struct bench_recording *br)
{
	if (!br)
		return;
	join_thread(br);
	recorder__delete(br->rec);
	free(br->argv);
	free(br);
}
