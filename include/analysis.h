/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyses of a recording, fed one event at a time from any source:
 * cycle attribution of the sampling events (attrib.h), and the flush spans
 * of the rstat tracepoints, memcg flush requests and user-chosen event
 * pairs (spans.h). Samples are classified with a rule table (rules.h);
 * each distinct callchain is named and classified once.
 *
 * Library code: never prints; 0 / -errno.
 */
#ifndef RS_ANALYSIS_H
#define RS_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "perf-event.h"

struct attrib;
struct machine;
struct rules;
struct spans;

/* A --span START,END request: two event names. */
struct analysis_span {
	const char *start, *end;
};

struct analysis_opts {
	const struct rules *rules;
	const struct analysis_span *spans;
	uint32_t nr_spans;
	/*
	 * The recorded kernel's release ("6.18.0-1-amd64"), which decides
	 * what cpu=-1 means in the lock tracepoints. NULL: unknown, read as
	 * v6.15 or later.
	 */
	const char *os_release;
	/*
	 * Threads it may use: with 3 or more, the frames of new callchains
	 * are classified and the samples attributed on a thread of its
	 * own while the caller names the next ones.
	 */
	unsigned int jobs;
};

struct analysis;

/* The machine (symbols, threads) is the caller's and must outlive it. */
struct analysis *analysis__new(const struct analysis_opts *opts,
			       struct machine *machine);
void analysis__delete(struct analysis *an);

/*
 * One event. Side-band events go to the machine first; samples are
 * attributed (sampling events) or paired (tracepoints).
 */
int analysis__event(struct analysis *an, const struct rs_event *ev);
/*
 * Called in order on the events a few places before analysis__event()
 * gets them (perf_data__set_lookahead()): prefetches what their samples
 * will look up. Changes nothing analysis__event() depends on.
 */
void analysis__ahead(struct analysis *an, const struct rs_event *ev);

/*
 * With analysis_opts.jobs 2: as fold__set_helper(), new callchains are
 * classified and samples attributed by the thread that reads the
 * records while it would otherwise wait (analysis__help()).
 */
void analysis__set_helper(struct analysis *an, void (*kick)(void *),
			  void *kick_ctx);
bool analysis__help(struct analysis *an);

/* The recording ended: close what is still open. */
int analysis__finish(struct analysis *an);

struct attrib *analysis__attrib(const struct analysis *an);
struct spans *analysis__spans(const struct analysis *an);

/* First and last sample time (ns), 0 when no sample had a time. */
void analysis__time_range(const struct analysis *an, uint64_t *first,
			  uint64_t *last);

/*
 * Index (in opts.spans) of a span one of whose events had no sample in
 * the recording (*start tells which end), or -1 when every span saw both.
 */
int analysis__unmatched_span(const struct analysis *an, bool *start);

/* Samples of sampling events recorded without a callchain. */
uint64_t analysis__nr_no_chain(const struct analysis *an);

/*
 * A paired event (lock tracepoints, memcg_flush_stats, span events)
 * recorded in sampling mode (-F, or -c above 1): only one hit in several
 * was recorded, so pairs may join different rounds. A lock tracepoint
 * when one is sampled, else the first such event; NULL when every one
 * recorded each hit.
 */
const struct rs_evsel *analysis__sampled_tracepoint(const struct analysis *an);

/* Samples of tracepoints whose fields could not be read (short raw data). */
uint64_t analysis__nr_bad_raw(const struct analysis *an);

/* True when the sampling event is a timer (cpu-clock, task-clock). */
bool rs_evsel_is_clock(const struct rs_evsel *evsel);
bool rs_evsel_is_sampling(const struct rs_evsel *evsel);

#endif
