// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the pipe-layout record stream: HEADER_ATTR,
 * EVENT_UPDATE, HEADER_FEATURE, HEADER_TRACING_DATA, ID_INDEX and
 * FINISHED_ROUND in any order among the samples, consumed by the
 * analyses. fuzz-perf-data reaches these orderings only after finding a
 * whole recording's worth of structure; here an input is the stream
 * after the 16-byte pipe header, which is added when missing, so every
 * mutation is a sequence of records (tests/fuzz/gen-seeds.py writes the
 * seeds: small streams, one per ordering).
 *
 * Odd-sized inputs are read as a stream, through a pipe, as `report -i -`
 * reads them (records are copied out of a read buffer that is reused);
 * even-sized ones from memory. A consumer keeps the event name of every
 * sample and reads them all back after the stream: a name freed under a
 * consumer (issue 14) shows as a use-after-free.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-analysis.h"

#define MAX_INPUT	(256 * 1024)
#define MAX_NAMES	64

static const uint8_t pipe_header[16] = {
	'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16,
};

static volatile size_t sink;	/* keeps the reads of names */

struct consumer {
	struct analysis *an;
	const char *names[MAX_NAMES];
	unsigned int nr_names;
};

static int consume(void *ctx, const struct rs_event *ev)
{
	struct consumer *c = ctx;

	if (ev->kind == RS_EV_SAMPLE && c->nr_names < MAX_NAMES)
		c->names[c->nr_names++] = ev->sample.evsel->name;
	return analysis__event(c->an, ev);
}

/* The whole input into a pipe, read end returned; -1 if it cannot be. */
static int pipe_of(const uint8_t *a, size_t alen, const uint8_t *b,
		   size_t blen)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	/* the input must fit: nothing reads while it is written */
	if (fcntl(fds[1], F_SETPIPE_SZ, MAX_INPUT + 64) < 0 ||
	    write(fds[1], a, alen) != (ssize_t)alen ||
	    (blen && write(fds[1], b, blen) != (ssize_t)blen)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	return fds[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct consumer c = { 0 };
	struct machine *m = NULL;
	struct perf_data *pd = NULL;
	uint8_t *buf = NULL;
	const uint8_t *in = data;
	size_t len = size, i;
	int fd = -1;

	if (size > MAX_INPUT)
		return -1;	/* not added to the corpus */
	if (size < 16 || memcmp(data, pipe_header, 16)) {
		buf = malloc(size + 16);
		if (!buf)
			return 0;
		memcpy(buf, pipe_header, 16);
		memcpy(buf + 16, data, size);
		in = buf;
		len = size + 16;
	}
	if (size & 1) {
		fd = pipe_of(in, len, NULL, 0);
		if (fd < 0 || perf_data__open_fd(&pd, fd, NULL, 0))
			goto out;
	} else if (perf_data__open_mem(&pd, in, len)) {
		goto out;
	}
	c.an = fuzz_analysis_new(pd, &m);
	fuzz_analysis_run(pd, c.an, consume, &c);
	/* every name a sample carried is still readable */
	for (i = 0; i < c.nr_names; i++)
		sink += strlen(c.names[i]);
out:
	analysis__delete(c.an);
	machine__delete(m);
	perf_data__delete(pd);
	if (fd >= 0)
		close(fd);
	free(buf);
	return 0;
}
