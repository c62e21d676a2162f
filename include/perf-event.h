/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event model every source produces and every analysis consumes:
 * perf.data files (both layouts), perf script text and, later, live rings.
 * Analyses never know where an event came from.
 */
#ifndef RS_PERF_EVENT_H
#define RS_PERF_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct tep_event;

/* One event selector (one attr of a recording). */
struct rs_evsel {
	struct perf_event_attr attr;	/* zero-extended to our sizeof */
	/*
	 * As `perf script -F event` prints it. A pipe may rename an event
	 * mid-stream: every name given out stays valid until the source is
	 * deleted.
	 */
	const char *name;
	uint64_t *ids;			/* sample ids mapping records to this attr */
	uint32_t nr_ids;
	uint32_t idx;			/* position in the file */
	struct tep_event *tp;		/* tracepoint format, NULL if none */
	uint64_t nr_samples;		/* filled while reading */
	uint64_t total_period;
};

/* A decoded PERF_RECORD_SAMPLE. Pointers refer into the record. */
struct rs_sample {
	struct rs_evsel *evsel;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;			/* 0 when not sampled */
	uint64_t addr;
	uint64_t id, stream_id;
	uint32_t cpu;
	uint64_t period;		/* 1 when not sampled, as perf does */
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	uint16_t cpumode;		/* PERF_RECORD_MISC_CPUMODE_MASK bits */
	uint16_t misc;
	uint64_t nr_callchain;		/* entries, context markers included */
	const uint64_t *callchain;	/* unaligned-safe: use rs_u64() */
	/*
	 * hash_words128() of the raw callchain, when has_chain_hash: taken
	 * where the record is decoded, or with -j 2 by whichever thread
	 * was idle (the reader, or the consumer before its callback).
	 */
	bool has_chain_hash;
	/* With chain_hash: a PERF_CONTEXT_USER marker is in the chain. */
	bool chain_has_user;
	uint64_t chain_hash[2];
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_branches;
	const void *branches;		/* struct perf_branch_entry[] */
};

enum rs_event_kind {
	RS_EV_SAMPLE,
	RS_EV_COMM,
	RS_EV_FORK,
	RS_EV_EXIT,
	RS_EV_MMAP,		/* MMAP and MMAP2 */
	RS_EV_LOST,		/* LOST and LOST_SAMPLES */
	RS_EV_THROTTLE,
	RS_EV_UNTHROTTLE,
	RS_EV_KSYMBOL,		/* kernel code (de)registered: BPF, ... */
};

struct rs_comm {
	uint32_t pid, tid;
	const char *comm;	/* NUL-terminated within the record */
	bool exec;
};

struct rs_task {		/* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
};

struct rs_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	const char *filename;
	uint8_t build_id[20];
	uint8_t build_id_size;	/* 0: none in the record */
};

/*
 * PERF_RECORD_KSYMBOL: kernel code that kallsyms does not describe, a JITed
 * BPF program (bpf_prog_<tag>_<name>), a trampoline, out-of-line code,
 * appeared at [addr, addr + len) or, with unregister, went away.
 */
struct rs_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;	/* PERF_RECORD_KSYMBOL_TYPE_* */
	bool unregister;	/* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
	const char *name;	/* NUL-terminated within the record */
};

struct rs_lost {
	uint64_t id, lost;
	bool samples;		/* PERF_RECORD_LOST_SAMPLES */
};

struct rs_event {
	enum rs_event_kind kind;
	uint16_t cpumode;	/* from header.misc */
	uint64_t time;		/* sample time or sample_id_all time, else 0 */
	uint64_t offset;	/* file offset of the record, for messages */
	union {
		struct rs_sample sample;
		struct rs_comm comm;
		struct rs_task task;
		struct rs_mmap mmap;
		struct rs_lost lost;
		struct rs_ksymbol ksymbol;
	};
};

/*
 * Callback for each event, in the order perf script would see it (time
 * order within FINISHED_ROUND rounds). A non-zero return stops reading and
 * is returned by the reader.
 */
typedef int (*rs_event_fn)(void *ctx, const struct rs_event *ev);

/* Callchain entries may be unaligned in a record buffer. */
static inline uint64_t rs_u64(const uint64_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

#endif
