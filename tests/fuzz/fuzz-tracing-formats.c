// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the tracepoint formats of a recording's tracing
 * data: the text the reader checks and hands to libtraceevent (header
 * page, event formats, printk formats), then the evsels it names and the
 * fields the analyses read from raw samples. No format may crash the
 * process, whatever the library does with it (issue 14).
 *
 * An input is text split at NUL bytes: the header_page text, then event
 * formats (system "cgroup", so that the rstat lock formats reach span
 * pairing), then, when there are three parts or more, the printk
 * formats. The target wraps it into a pipe-layout stream: TRACING_DATA,
 * a tracepoint attr for every "ID: N" the formats hold, and one raw
 * sample for each. tests/fuzz/gen-seeds.py writes seeds from the running
 * kernel's formats.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-analysis.h"
#include "util.h"

#define MAX_INPUT	(64 * 1024)
#define MAX_IDS		16
#define RAW_SIZE	60	/* 4 + 60: a sample body of whole u64s */

static const uint64_t sample_type = PERF_SAMPLE_IDENTIFIER |
				    PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				    PERF_SAMPLE_RAW;

/*
 * libtraceevent allocates every token it reads, and ASan recording a stack
 * for each allocation was most of a run's time. A crash this target finds
 * replays with whole stacks: ASAN_OPTIONS=malloc_context_size=30.
 */
const char *__asan_default_options(void)
{
	return "malloc_context_size=2";
}

static void put_str(struct bytebuf *b, const char *s)
{
	bytebuf__put(b, s, strlen(s) + 1);
}

static void put_rec(struct bytebuf *b, uint32_t type, const void *body,
		    size_t len)
{
	uint16_t misc = 0, size = 8 + len;

	bytebuf__put32(b, type);
	bytebuf__put(b, &misc, 2);
	bytebuf__put(b, &size, 2);
	bytebuf__put(b, body, len);
}

/* The "ID: N" lines of the format parts, at most MAX_IDS. */
static int find_ids(const uint8_t *p, size_t n, uint64_t *ids)
{
	const uint8_t *end = p + n, *q = p;
	int nr = 0;

	while (nr < MAX_IDS &&
	       (q = memmem(q, end - q, "\nID: ", 5)) != NULL) {
		uint64_t id = 0;

		for (q += 5; q < end && *q >= '0' && *q <= '9'; q++)
			id = id * 10 + (*q - '0');
		ids[nr++] = id;
	}
	return nr;
}

static void tracing_data(struct bytebuf *b, const uint8_t *data, size_t size)
{
	static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i',
					 'n', 'g' };
	const uint8_t *end = data + size, *hp_end, *fmt_end, *p;
	uint32_t nr = 0;
	size_t count_at;

	hp_end = memchr(data, 0, size);
	if (!hp_end)
		hp_end = end;
	/* the printk part: after the last NUL, when there are two */
	fmt_end = end;
	if (hp_end < end)
		for (p = end; p > hp_end + 1; p--)
			if (!p[-1]) {
				fmt_end = p - 1;
				break;
			}
	bytebuf__put(b, magic, sizeof(magic));
	put_str(b, "0.6");
	bytebuf__put(b, (uint8_t[]){ 0, 8 }, 2);
	bytebuf__put32(b, 4096);
	put_str(b, "header_page");
	bytebuf__put64(b, hp_end - data);
	bytebuf__put(b, data, hp_end - data);
	put_str(b, "header_event");
	bytebuf__put64(b, 0);
	bytebuf__put32(b, 0);		/* ftrace formats */
	bytebuf__put32(b, 1);		/* systems */
	put_str(b, "cgroup");
	count_at = b->len;
	bytebuf__put32(b, 0);
	for (p = hp_end + 1; p < fmt_end; nr++) {
		const uint8_t *e = memchr(p, 0, fmt_end - p);

		if (!e)
			e = fmt_end;
		bytebuf__put64(b, e - p);
		bytebuf__put(b, p, e - p);
		p = e + 1;
	}
	if (!b->oom)
		memcpy(b->p + count_at, &nr, 4);
	bytebuf__put32(b, 0);		/* kallsyms */
	p = fmt_end < end ? fmt_end + 1 : end;
	bytebuf__put32(b, end - p);
	bytebuf__put(b, p, end - p);
	bytebuf__put64(b, 0);		/* saved cmdlines */
}

static int build(struct bytebuf *b, const uint8_t *data, size_t size)
{
	struct bytebuf td = { 0 };
	uint64_t ids[MAX_IDS];
	uint8_t raw[RAW_SIZE];
	int nr, i;

	tracing_data(&td, data, size);
	if (td.oom) {
		free(td.p);
		return -1;
	}
	bytebuf__put(b, "PERFILE2", 8);
	bytebuf__put64(b, 16);
	nr = find_ids(data, size, ids);
	for (i = 0; i < nr; i++) {
		struct perf_event_attr a = { 0 };
		uint8_t body[sizeof(a) + 8];

		a.type = PERF_TYPE_TRACEPOINT;
		a.size = sizeof(a);
		a.config = ids[i];
		a.sample_period = 1;
		a.sample_type = sample_type;
		memcpy(body, &a, sizeof(a));
		memcpy(body + sizeof(a), &(uint64_t){ i + 1 }, 8);
		put_rec(b, 64, body, sizeof(body));	/* HEADER_ATTR */
	}
	{
		uint32_t hdr[2] = { td.len, 0 };
		uint8_t pad[8] = { 0 };

		put_rec(b, 66, hdr, sizeof(hdr));	/* TRACING_DATA */
		bytebuf__put(b, td.p, td.len);
		bytebuf__put(b, pad, -td.len & 7);
	}
	free(td.p);
	/* a raw sample of each: a pattern the fields read as they are */
	for (i = 0; i < RAW_SIZE; i++)
		raw[i] = i * 37 + 1;
	for (i = 0; i < nr; i++) {
		struct bytebuf s = { 0 };
		uint16_t type = ids[i];

		memcpy(raw, &type, 2);
		bytebuf__put64(&s, i + 1);		/* IDENTIFIER */
		bytebuf__put32(&s, 100);		/* pid, tid */
		bytebuf__put32(&s, 100);
		bytebuf__put64(&s, 1000 + i);		/* TIME */
		bytebuf__put32(&s, RAW_SIZE);
		bytebuf__put(&s, raw, RAW_SIZE);
		if (!s.oom)
			put_rec(b, PERF_RECORD_SAMPLE, s.p, s.len);
		free(s.p);
	}
	return b->oom ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct analysis *an = NULL;
	struct machine *m = NULL;
	struct perf_data *pd = NULL;
	struct bytebuf b = { 0 };

	if (size > MAX_INPUT)
		return -1;	/* not added to the corpus */
	if (build(&b, data, size) ||
	    perf_data__open_mem(&pd, b.p, b.len))
		goto out;
	an = fuzz_analysis_new(pd, &m);
	fuzz_analysis_run(pd, an, fuzz_analyse, an);
out:
	analysis__delete(an);
	machine__delete(m);
	perf_data__delete(pd);
	free(b.p);
	return 0;
}
