/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader for perf.data in both layouts (file and pipe), as written by perf
 * from 3.x to today, and by `rstat-analyze record`.
 *
 * Library code: never prints. Functions return 0 or -errno; on failure
 * perf_data__strerror() gives one line ("offset N: what is wrong") that the
 * command prefixes with the file name.
 */
#ifndef RS_PERF_DATA_H
#define RS_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf-event.h"

struct perf_data;
struct tep_handle;

/* What the feature sections (or pipe-mode feature records) said. */
struct perf_header_info {
	char *hostname;
	char *os_release;
	char *perf_version;
	char *arch;
	char *cpudesc;
	char *cmdline;		/* argv joined by spaces */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t sample_time_start, sample_time_end;	/* 0 if absent */
	bool pipe_mode;
	uint64_t data_offset, data_size;
};

/* Build ids from HEADER_BUILD_ID (feature or pipe record). */
struct perf_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint8_t size;
	const char *filename;
};

struct perf_data_stats {
	uint64_t nr_records;		/* all records seen in the data */
	uint64_t nr_samples;
	uint64_t nr_lost;		/* events lost (sum of LOST.lost) */
	uint64_t nr_lost_samples;	/* sum of LOST_SAMPLES.lost */
	uint64_t nr_unknown_records;	/* record types skipped */
	uint64_t nr_unknown_features;	/* feature sections skipped */
	uint64_t nr_compressed;		/* PERF_RECORD_COMPRESSED blocks */
	uint64_t nr_unknown_id;		/* samples whose id matches no attr */
};

/*
 * Open a file ("-" for standard input, which must be the pipe layout or be
 * refused). Reads the header, attrs and feature sections; the data is read
 * by perf_data__process(). *pdp is set even on failure when an error
 * message is available, and must then be deleted by the caller.
 */
int perf_data__open(struct perf_data **pdp, const char *path);
/* Same over a memory buffer (fuzzing, tests); the buffer must outlive pd. */
int perf_data__open_mem(struct perf_data **pdp, const void *buf, size_t len);
/*
 * Open an already opened file descriptor whose first bytes (already
 * consumed by format sniffing) are given in prefix.
 */
int perf_data__open_fd(struct perf_data **pdp, int fd, const void *prefix,
		       size_t prefix_len);
void perf_data__delete(struct perf_data *pd);

/* Deliver every event in order; see rs_event_fn. */
int perf_data__process(struct perf_data *pd, rs_event_fn fn, void *ctx);
/*
 * With n >= 2, perf_data__process() reads and decodes the records on a
 * thread of its own while fn runs on the caller's, on the same events in
 * the same order (fn sees copies that live until it returns). fn must not
 * call back into pd for anything but the getters below. 1 (the default):
 * one thread.
 */
void perf_data__set_threads(struct perf_data *pd, unsigned int n);
/*
 * With two threads, ahead is called (with fn's ctx) on an event a few
 * places before fn gets it, to prefetch what fn will look up: it must
 * change nothing that fn's result depends on.
 */
void perf_data__set_lookahead(struct perf_data *pd, rs_event_fn ahead);
/*
 * With two threads, the reading thread, when it would wait for fn to
 * free a batch, calls idle(fn's ctx) instead, on its own thread, until
 * that returns false: work fn's side handed over for such a thread
 * (workq__help()). perf_data__kick() wakes it when there is some.
 */
void perf_data__set_idle(struct perf_data *pd, bool (*idle)(void *ctx));
/* From fn's thread: the reading thread waits, and there is idle work. */
void perf_data__kick(struct perf_data *pd);

const struct perf_header_info *perf_data__header(const struct perf_data *pd);
const struct perf_data_stats *perf_data__stats(const struct perf_data *pd);
uint32_t perf_data__nr_evsel(const struct perf_data *pd);
struct rs_evsel *perf_data__evsel(const struct perf_data *pd, uint32_t idx);
/* NULL when the recording carried no tracing data. */
struct tep_handle *perf_data__tep(const struct perf_data *pd);
/*
 * The /proc/kallsyms text a recording embedded in its TRACING_DATA (as
 * `rstat-analyze record` does; perf leaves it empty): 0 and *text, *len
 * (not NUL-terminated; valid until perf_data__delete()), or -ENOENT.
 */
int perf_data__kallsyms(const struct perf_data *pd, const char **text,
			size_t *len);
/*
 * The spans `rstat-analyze record` timed in the kernel, as it stored them
 * (its own feature section; kernel-spans.h reads the text): 0 and *text
 * (NUL-terminated, valid until perf_data__delete()), or -ENOENT.
 */
int perf_data__rstat_spans(const struct perf_data *pd, const char **text);
/*
 * The reads of record's targets decomposed, as it stored them (its
 * other feature section; bench_breakdown__parse() reads the text): 0
 * and *text, or -ENOENT.
 */
int perf_data__rstat_breakdown(const struct perf_data *pd,
			       const char **text);
/*
 * Tracepoint formats of the tracing data not used as they are (a print
 * fmt libtraceevent would crash on, or that names a field its format
 * lacks): how many, and the first few as "system:name: why". Their
 * events' samples are kept, with their fields when the field list
 * parsed; only printing them is lost.
 */
uint32_t perf_data__nr_bad_formats(const struct perf_data *pd);
const char *perf_data__bad_format(const struct perf_data *pd, uint32_t idx);
uint32_t perf_data__nr_build_ids(const struct perf_data *pd);
const struct perf_build_id *perf_data__build_id(const struct perf_data *pd,
						 uint32_t idx);
/* Last error as "offset N: what is wrong", or "" */
const char *perf_data__strerror(const struct perf_data *pd);

#endif
