/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the perf.data reader and its layers, each calling only
 * the ones below it:
 *
 *   data.c            open, file header, public accessors
 *   data-pipeline.c   perf_data__process(): on one thread, or two
 *   data-process.c    records, samples, compression
 *   ordered-events.c  the ordering queue (delivers through pd->deliver)
 *   data-features.c   feature sections, tracing data, build-ids
 *   data-evsel.c      the error slot, attrs and ids, event names
 */
#ifndef RS_PERF_DATA_INT_H
#define RS_PERF_DATA_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "perf-data.h"
#include "perf-format.h"
#include "util.h"

struct strpool;

/* Tracepoint formats refused that the reader names (all are counted). */
#define PD_MAX_BAD_FORMATS	8

/* Largest payload following a pipe-mode record we are willing to buffer. */
#define PD_MAX_PAYLOAD		(1ULL << 30)

struct pd_evsel {
	struct rs_evsel ev;		/* what callers see; must stay first */
	bool name_fixed;		/* from EVENT_DESC / EVENT_UPDATE */
	/* u64 slots from the start of a sample body, -1 when absent */
	int time_pos;
	/* sample_id_all trailer: its length and where TIME sits in it */
	uint32_t trailer_len;
	int trailer_time_pos;		/* u64 slot counted from the start */
	int id_pos;			/* perf's evsel->id_pos */
	int is_pos;			/* perf's evsel->is_pos (from the end) */
};

struct pd_qent {
	uint64_t time;
	const void *rec;
	uint64_t offset;
	struct pd_chunk *chunk;		/* arena chunk of rec, or NULL */
	int32_t evidx;			/* -1: not resolved / not a sample */
};

struct pd_chunk {
	struct pd_chunk *next;
	size_t used, size;
	size_t live;			/* queued records still in here */
	uint8_t data[];
};

/*
 * Bounds of the ordering queue: past either, the older half is delivered
 * early (perf's OE_FLUSH__HALF), so that a compressed block, a pipe with no
 * FINISHED_ROUND or a file without rounds cannot take memory without end.
 */
#define PD_QUEUE_MAX_NR		(4U << 20)	/* entries */
#define PD_QUEUE_MAX_BYTES	(256U << 20)	/* entries and arena */
/* The arena's chunks (and the step of a stream's payload reads). */
#define ARENA_CHUNK	(1024 * 1024)
#define ARENA_FIRST	(64 * 1024)	/* small files never touch a full chunk */

struct pd_idmap {			/* its id is the hashtab key */
	uint64_t last_read;		/* PERF_SAMPLE_READ: previous value */
	uint32_t idx1;			/* evsel index + 1 */
};

struct perf_data {
	/* input: whole buffer in memory (mmap or caller's), else a stream */
	const uint8_t *buf;
	size_t len;
	void *map;
	size_t map_len;
	uint64_t released;		/* map bytes given back (madvise) */
	int fd;
	bool own_fd;
	bool stream;
	bool eof;
	uint8_t *prefix;
	size_t prefix_len, prefix_pos;
	uint8_t *ibuf;			/* stream read buffer */
	size_t ibuf_len, ibuf_pos;
	uint64_t spos;			/* stream bytes consumed */
	uint8_t *rbuf;			/* stream: current record */
	size_t rbuf_cap;
	uint8_t *pbuf;			/* stream: payload after a record */
	size_t pbuf_cap;
	bool have_pending;		/* rbuf holds a record not yet handled */
	uint64_t pending_off;

	bool pipe;
	uint64_t pos, end;		/* in-memory cursor and data end */
	uint64_t feat_bitmap[4];

	struct perf_header_info hdr;
	struct perf_data_stats stats;

	struct pd_evsel **evsel;
	uint32_t nr_evsel, evsel_cap;
	struct hashtab ids;		/* sample id -> struct pd_idmap */

	struct tep_handle *tep;
	bool had_tracing_data;
	/* formats not used as they are: "sys:name: why", in strs */
	const char *bad_formats[PD_MAX_BAD_FORMATS];
	uint32_t nr_bad_formats;	/* all of them, named or not */
	const char *kallsyms;		/* TRACING_DATA's, in strs; or NULL */
	size_t kallsyms_len;
	char *rstat_spans;		/* RSTAT_SPANS's text, or NULL */
	char *rstat_breakdown;		/* RSTAT_BREAKDOWN's, or NULL */

	struct perf_build_id *bids;
	uint32_t nr_bids, bids_cap;
	struct strpool *names;		/* every event name given out */
	char **strs;			/* owned strings (build-id file names) */
	uint32_t nr_strs, strs_cap;

	/* ordering queue (perf's ordered_events, as an array) */
	struct pd_qent *q, *qtmp;
	size_t q_nr, q_cap, qtmp_cap;
	size_t *runs, runs_cap;		/* sort_runs()'s run starts */
	uint64_t max_ts, next_flush;
	struct pd_chunk *arena;		/* newest chunk first */
	size_t arena_bytes;
	size_t q_max_nr, q_max_bytes;	/* PD_QUEUE_MAX_*, or a test's */

	/* zstd stream state; void * keeps zstd.h out of this header */
	void *zd;
	uint8_t *zbuf;
	size_t zlen, zcap;
	uint64_t zoff;			/* offset of the block being expanded */
	bool in_compressed;

	rs_event_fn fn;
	void *ctx;
	/* The reader's delivery of one record, for the ordering queue. */
	int (*deliver)(struct perf_data *pd, const uint8_t *rec, uint64_t off,
		       int evidx);
	/*
	 * Called before a record that changes what a callback reads
	 * through pd: the pipeline's wait for its consumer, or NULL.
	 */
	int (*drain)(struct perf_data *pd);
	/*
	 * Where the next sample is decoded: the pipeline's next batch
	 * entry, so that its delivery need not copy it there, or NULL when
	 * the consumer said stop. Without a pipeline, unset: on the stack.
	 */
	struct rs_event *(*event_slot)(struct perf_data *pd);
	unsigned int nr_threads;	/* perf_data__set_threads() */
	rs_event_fn ahead;		/* perf_data__set_lookahead() */
	bool (*idle)(void *ctx);	/* perf_data__set_idle() */
	struct pd_pipeline *pipeline;	/* while read on two threads */
	/*
	 * The pipeline's reader leaves the callchains' hashes to the
	 * consumer (pd_sample_hash_chain()) while the consumer waits for
	 * it: the same hashes either way, taken by the idle thread.
	 */
	bool defer_chain_hash;
	bool header_done;		/* pipe: the header records are read */
	bool processed;

	char err[256];
};

/*
 * A sample before its fields are read: the defaults, zero elsewhere.
 * Defined in another file (data-evsel.c) than its reader, parse_sample():
 * seeing the initializer, gcc turns the copy back into zeroing the 200
 * bytes with "rep stos", whose start-up cost was a tenth of the reading
 * thread's time; a copy is a few vector moves.
 */
extern const struct rs_sample pd_sample_blank;

/* What callers key their caches on (rs_sample.chain_hash). */
static inline void pd_sample_hash_chain(struct rs_sample *s)
{
	s->chain_has_user = hash_words128_find(s->callchain, s->nr_callchain,
					       PERF_CONTEXT_USER,
					       s->chain_hash);
	s->has_chain_hash = true;
}

static inline struct pd_evsel *pd_evsel(struct rs_evsel *ev)
{
	return (struct pd_evsel *)ev;
}

static inline uint64_t pd_u64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t pd_u32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t pd_u16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Record the error once ("offset N: ...") and return -EINVAL. */
int pd_err(struct perf_data *pd, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pd_err_errno(struct perf_data *pd, int err, uint64_t off,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* data-evsel.c */
int pd_add_attr(struct perf_data *pd, const void *attr, size_t attr_len,
		const void *ids, uint64_t nr_ids, uint64_t off);
int pd_map_id(struct perf_data *pd, uint64_t id, uint32_t idx);
int pd_id2idx(const struct perf_data *pd, uint64_t id);
struct pd_idmap *pd_id_find(struct perf_data *pd, uint64_t id);
int pd_finalize_evsels(struct perf_data *pd);
int pd_keep_str(struct perf_data *pd, char *s);
int pd_set_name(struct perf_data *pd, struct pd_evsel *e, const char *name,
		size_t len);

/* data-features.c */
int pd_feature(struct perf_data *pd, unsigned int feat, const uint8_t *p,
	       uint64_t size, uint64_t off);
int pd_tracing_data(struct perf_data *pd, const uint8_t *p, uint64_t size,
		    uint64_t off);
int pd_build_id_rec(struct perf_data *pd, const uint8_t *p, uint64_t size);

/* data-process.c */
int pd_process(struct perf_data *pd, rs_event_fn fn, void *ctx);
ssize_t pd_sread(struct perf_data *pd, void *dst, size_t n);
int pd_read_pipe_header(struct perf_data *pd);
void pd_process_free(struct perf_data *pd);

/*
 * ordered-events.c: queue a record of that time (copy: it must outlive
 * the buffer it is in); deliver the queued ones up to limit, in time
 * order; free the queue.
 */
int pd_queue(struct perf_data *pd, const uint8_t *rec, uint64_t off,
	     uint64_t time, int evidx, bool copy);
int pd_flush(struct perf_data *pd, uint64_t limit);
void pd_queue_free(struct perf_data *pd);

#endif
