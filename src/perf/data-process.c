// SPDX-License-Identifier: GPL-2.0
/*
 * The data part of perf.data: reading records (from memory or a stream),
 * decoding samples and side-band records, zstd-compressed blocks, and
 * delivering events in the order `perf script` would. Delivered: SAMPLE,
 * MMAP/MMAP2, COMM, FORK, EXIT, LOST/LOST_SAMPLES, THROTTLE/UNTHROTTLE and
 * KSYMBOL (kernel code such as BPF programs coming and going); the other
 * kernel records (BPF_EVENT, SWITCH, NAMESPACES, AUX, ...) are skipped.
 *
 * Ordering follows perf's ordered_events: records with a timestamp are
 * queued; at each FINISHED_ROUND everything up to the highest timestamp
 * seen before the *previous* round is delivered, sorted by time (stable,
 * file order for equal times); at the end everything is delivered.
 * Records without a timestamp (0 or ~0) are delivered at once, as perf does.
 * A queue past its memory bound delivers its older half early. The queue
 * is ordered-events.c; perf_data__process() is in data-pipeline.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "data-int.h"
#include "util.h"

#define IBUF_SIZE	(256 * 1024)
/* Twice the largest record (64 KiB): a partial record plus a whole one. */
#define ZBUF_SIZE	(128 * 1024)
/*
 * zstd's own default limit, which perf decompresses with: perf record
 * --compression-level=22 writes frames with a 128 MiB (2^27) window.
 * Only what is decompressed is touched; the queue bounds the rest.
 */
#define ZSTD_WINDOW_LOG_MAX 27

static int handle_record(struct perf_data *pd, const uint8_t *rec,
			 uint64_t off);

/* ---- stream input ---- */

ssize_t pd_sread(struct perf_data *pd, void *dst, size_t n)
{
	uint8_t *d = dst;
	size_t got = 0;

	while (got < n) {
		size_t k;
		ssize_t r;

		if (pd->prefix_pos < pd->prefix_len) {
			k = pd->prefix_len - pd->prefix_pos;
			if (k > n - got)
				k = n - got;
			memcpy(d + got, pd->prefix + pd->prefix_pos, k);
			pd->prefix_pos += k;
			got += k;
			continue;
		}
		if (pd->ibuf_pos < pd->ibuf_len) {
			k = pd->ibuf_len - pd->ibuf_pos;
			if (k > n - got)
				k = n - got;
			memcpy(d + got, pd->ibuf + pd->ibuf_pos, k);
			pd->ibuf_pos += k;
			got += k;
			continue;
		}
		if (pd->eof)
			break;
		if (!pd->ibuf) {
			pd->ibuf = malloc(IBUF_SIZE);
			if (!pd->ibuf)
				return -ENOMEM;
		}
		r = read(pd->fd, pd->ibuf, IBUF_SIZE);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!r) {
			pd->eof = true;
			break;
		}
		pd->ibuf_len = r;
		pd->ibuf_pos = 0;
	}
	pd->spos += got;
	return got;
}

static int read_err(struct perf_data *pd, ssize_t r)
{
	return pd_err_errno(pd, (int)r, pd->spos, "read error: %s",
			    strerror((int)-r));
}

/* Next record: 1 with rec and off set, 0 at the end, < 0 on error. */
static int next_record(struct perf_data *pd, const uint8_t **rec,
		       uint64_t *off)
{
	uint16_t size;
	ssize_t r;

	if (!pd->stream) {
		uint64_t left = pd->end - pd->pos;

		if (!left)
			return 0;
		*off = pd->pos;
		if (left < 8)
			return pd_err(pd, pd->pos, "truncated record header (%" PRIu64
				      " bytes left in the data)", left);
		size = pd_u16(pd->buf + pd->pos + 6);
		if (size < 8)
			return pd_err(pd, pd->pos, "impossible record size %u (type %u)",
				      size, pd_u32(pd->buf + pd->pos));
		if (size > left)
			return pd_err(pd, pd->pos, "record of %u bytes goes beyond the end of the data (%" PRIu64 " bytes left): truncated?",
				      size, left);
		*rec = pd->buf + pd->pos;
		pd->pos += size;
		return 1;
	}
	if (pd->have_pending) {
		pd->have_pending = false;
		*rec = pd->rbuf;
		*off = pd->pending_off;
		return 1;
	}
	if (!pd->rbuf) {
		pd->rbuf_cap = 65536;
		pd->rbuf = malloc(pd->rbuf_cap);
		if (!pd->rbuf)
			return -ENOMEM;
	}
	*off = pd->spos;
	r = pd_sread(pd, pd->rbuf, 8);
	if (r < 0)
		return read_err(pd, r);
	if (!r)
		return 0;
	if (r < 8)
		return pd_err(pd, *off, "truncated record header");
	size = pd_u16(pd->rbuf + 6);
	if (size < 8)
		return pd_err(pd, *off, "impossible record size %u (type %u)", size,
			      pd_u32(pd->rbuf));
	r = pd_sread(pd, pd->rbuf + 8, size - 8);
	if (r < 0)
		return read_err(pd, r);
	if (r < size - 8)
		return pd_err(pd, *off, "record of %u bytes truncated after %zd",
			      size, r + 8);
	*rec = pd->rbuf;
	return 1;
}

/*
 * Bytes that follow a record outside of its size (tracing data, aux
 * trace). With want == false they are skipped. In a stream the buffer
 * grows only as data really arrives, so a lying size cannot make us
 * allocate more than the input holds.
 */
static int take_payload(struct perf_data *pd, uint64_t n, bool want,
			const uint8_t **out, uint64_t off)
{
	uint64_t got = 0;

	if (!pd->stream) {
		if (n > pd->end - pd->pos)
			return pd_err(pd, off, "payload of %" PRIu64 " bytes goes beyond the end of the data",
				      n);
		*out = pd->buf + pd->pos;
		pd->pos += n;
		return 0;
	}
	if (n > PD_MAX_PAYLOAD)
		return pd_err(pd, off, "payload of %" PRIu64 " bytes is too large", n);
	while (got < n) {
		uint64_t step = n - got;
		ssize_t r;

		if (step > ARENA_CHUNK)
			step = ARENA_CHUNK;
		if (!want) {
			uint8_t tmp[4096];

			if (step > sizeof(tmp))
				step = sizeof(tmp);
			r = pd_sread(pd, tmp, step);
		} else {
			if (got + step > pd->pbuf_cap) {
				size_t cap = pd->pbuf_cap ? pd->pbuf_cap : 65536;
				uint8_t *nb;

				while (cap < got + step)
					cap *= 2;
				nb = realloc(pd->pbuf, cap);
				if (!nb)
					return -ENOMEM;
				pd->pbuf = nb;
				pd->pbuf_cap = cap;
			}
			r = pd_sread(pd, pd->pbuf + got, step);
		}
		if (r < 0)
			return read_err(pd, r);
		if ((uint64_t)r < step)
			return pd_err(pd, off, "payload of %" PRIu64 " bytes truncated after %" PRIu64,
				      n, got + r);
		got += r;
	}
	*out = pd->pbuf;
	return 0;
}

/* ---- record -> evsel and timestamps ---- */

static int sample_evidx(struct perf_data *pd, const uint8_t *rec,
			uint16_t size)
{
	const struct pd_evsel *e0;
	uint64_t slot;

	if (pd->nr_evsel <= 1)
		return pd->nr_evsel ? 0 : -1;
	e0 = pd->evsel[0];
	if (e0->id_pos < 0)
		return 0;
	slot = 8 + (uint64_t)e0->id_pos * 8;
	if (slot + 8 > size)
		return -1;
	return pd_id2idx(pd, pd_u64(rec + slot));
}

static int other_evidx(struct perf_data *pd, const uint8_t *rec,
		       uint16_t size)
{
	const struct pd_evsel *e0;
	uint64_t back;
	int idx;

	if (pd->nr_evsel <= 1)
		return pd->nr_evsel ? 0 : -1;
	e0 = pd->evsel[0];
	if (!e0->ev.attr.sample_id_all || e0->is_pos < 0)
		return 0;
	back = (uint64_t)e0->is_pos * 8;
	if (back + 8 > size)
		return 0;
	idx = pd_id2idx(pd, pd_u64(rec + size - back));
	return idx < 0 ? 0 : idx;
}

/* Timestamp the ordering uses, ~0 when the record has none. */
static uint64_t rec_time(struct perf_data *pd, const uint8_t *rec,
			 uint16_t size, uint32_t type, int evidx)
{
	const struct pd_evsel *e;
	uint64_t at;

	if (evidx < 0)
		return ~0ULL;
	e = pd->evsel[evidx];
	if (type == PERF_RECORD_SAMPLE) {
		if (e->time_pos < 0)
			return ~0ULL;
		at = 8 + (uint64_t)e->time_pos * 8;
	} else {
		if (!e->trailer_len || e->trailer_time_pos < 0 ||
		    e->trailer_len + 8 > size)
			return ~0ULL;
		at = size - e->trailer_len + e->trailer_time_pos * 8;
	}
	if (at + 8 > size)
		return ~0ULL;
	return pd_u64(rec + at);
}

/* ---- decoding ---- */

#define NEED(n, what)							\
	do {								\
		if ((uint64_t)(end - p) < (uint64_t)(n))		\
			return pd_err(pd, off, "sample (%u bytes, %s) too short for %s", \
				      size, e->ev.name ? e->ev.name : "?", what); \
	} while (0)

static int parse_sample(struct perf_data *pd, struct pd_evsel *e,
			const uint8_t *rec, uint64_t off, struct rs_sample *s,
			const uint8_t **readp)
{
	const struct perf_event_attr *a = &e->ev.attr;
	uint16_t size = pd_u16(rec + 6), misc = pd_u16(rec + 4);
	const uint8_t *p = rec + 8, *end = rec + size;
	uint64_t st = a->sample_type, n;

	/* From the template: see pd_sample_blank. */
	memcpy(s, &pd_sample_blank, sizeof(*s));
	s->evsel = &e->ev;
	s->misc = misc;
	s->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

#define U64(dst, what)				\
	do {					\
		NEED(8, what);			\
		dst = pd_u64(p);		\
		p += 8;				\
	} while (0)

	if (st & PERF_SAMPLE_IDENTIFIER)
		U64(s->id, "IDENTIFIER");
	if (st & PERF_SAMPLE_IP)
		U64(s->ip, "IP");
	if (st & PERF_SAMPLE_TID) {
		NEED(8, "TID");
		s->pid = pd_u32(p);
		s->tid = pd_u32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		U64(s->time, "TIME");
	if (st & PERF_SAMPLE_ADDR)
		U64(s->addr, "ADDR");
	if (st & PERF_SAMPLE_ID)
		U64(s->id, "ID");
	if (st & PERF_SAMPLE_STREAM_ID)
		U64(s->stream_id, "STREAM_ID");
	if (st & PERF_SAMPLE_CPU) {
		NEED(8, "CPU");
		s->cpu = pd_u32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD)
		U64(s->period, "PERIOD");
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format;
		uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) +
			       !!(rf & PERF_FORMAT_LOST);

		*readp = p;
		if (rf & PERF_FORMAT_GROUP) {
			U64(n, "READ group nr");
			NEED(times * 8, "READ times");
			p += times * 8;
			if (n > (uint64_t)(end - p) / (per * 8))
				return pd_err(pd, off, "read group of %" PRIu64
					      " values is longer than the sample",
					      n);
			p += n * per * 8;
		} else {
			NEED((1 + times + per - 1) * 8, "READ");
			p += (1 + times + per - 1) * 8;
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		U64(n, "CALLCHAIN nr");
		if (n > (uint64_t)(end - p) / 8)
			return pd_err(pd, off, "callchain of %" PRIu64
				      " entries is longer than the sample (%u bytes)",
				      n, size);
		s->nr_callchain = n;
		s->callchain = (const uint64_t *)p;
		p += n * 8;
		/*
		 * Here, on the reading thread, unless it is the slower; a
		 * read group's, once for the events it becomes.
		 */
		if (!pd->defer_chain_hash || (st & PERF_SAMPLE_READ))
			pd_sample_hash_chain(s);
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t rs;

		NEED(4, "RAW size");
		rs = pd_u32(p);
		p += 4;
		if (rs > (uint64_t)(end - p))
			return pd_err(pd, off, "raw data of %u bytes is longer than the sample",
				      rs);
		s->raw_size = rs;
		s->raw = p;
		p += rs;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		U64(n, "BRANCH_STACK nr");
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(8, "BRANCH_STACK hw_idx");
			p += 8;
		}
		if (n > (uint64_t)(end - p) / 24)
			return pd_err(pd, off, "branch stack of %" PRIu64
				      " entries is longer than the sample", n);
		s->nr_branches = n;
		s->branches = p;
		p += n * 24;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		U64(n, "REGS_USER abi");
		if (n) {
			n = __builtin_popcountll(a->sample_regs_user) * 8ULL;
			NEED(n, "REGS_USER");
			p += n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		U64(n, "STACK_USER size");
		if (n) {
			NEED(n, "STACK_USER data");
			p += n;
			NEED(8, "STACK_USER dyn_size");
			p += 8;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		U64(s->weight, "WEIGHT");
		/* the struct form keeps the classic weight in its low half */
		if (st & PERF_SAMPLE_WEIGHT_STRUCT)
			s->weight &= 0xffffffffULL;
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		U64(s->data_src, "DATA_SRC");
	if (st & PERF_SAMPLE_TRANSACTION)
		U64(s->transaction, "TRANSACTION");
	if (st & PERF_SAMPLE_REGS_INTR) {
		U64(n, "REGS_INTR abi");
		if (n) {
			n = __builtin_popcountll(a->sample_regs_intr) * 8ULL;
			NEED(n, "REGS_INTR");
			p += n;
		}
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		U64(s->phys_addr, "PHYS_ADDR");
	if (st & PERF_SAMPLE_CGROUP)
		U64(s->cgroup, "CGROUP");
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		U64(s->data_page_size, "DATA_PAGE_SIZE");
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		U64(s->code_page_size, "CODE_PAGE_SIZE");
	if (st & PERF_SAMPLE_AUX) {
		U64(n, "AUX size");
		NEED(n, "AUX data");
		p += n;
	}
#undef U64
	return 0;
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *rec_str(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, 0, end - p))
		return NULL;
	return (const char *)p;
}

static int deliver_sample(struct perf_data *pd, struct rs_event *ev)
{
	struct rs_evsel *e = ev->sample.evsel;

	e->nr_samples++;
	e->total_period += ev->sample.period;
	pd->stats.nr_samples++;
	return pd->fn(pd->ctx, ev);
}

/* One PERF_SAMPLE_READ value: a sample of the counter it names. */
static int deliver_value(struct perf_data *pd, struct rs_event *ev,
			 uint64_t value, uint64_t id)
{
	struct pd_idmap *m = pd_id_find(pd, id);

	if (!m) {
		pd->stats.nr_unknown_id++;
		return 0;
	}
	ev->sample.id = id;
	ev->sample.period = value - m->last_read;
	m->last_read = value;
	if (!ev->sample.period)
		return 0;
	ev->sample.evsel = &pd->evsel[m->idx1 - 1]->ev;
	return deliver_sample(pd, ev);
}

/*
 * Samples carrying counter values are split as perf script does: one
 * sample per counter in the group, its period the counter's increase
 * since the previous sample, none when it did not move.
 */
static int deliver_read(struct perf_data *pd, struct pd_evsel *e,
			struct rs_event *ev, const uint8_t *p)
{
	uint64_t rf = e->ev.attr.read_format, nr, i, per;
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	int err;

	if (!(rf & PERF_FORMAT_ID))
		return deliver_sample(pd, ev);
	if (!(rf & PERF_FORMAT_GROUP))
		return deliver_value(pd, ev, pd_u64(p),
				     pd_u64(p + 8 + times * 8));
	per = 2 + !!(rf & PERF_FORMAT_LOST);
	nr = pd_u64(p);
	p += 8 + times * 8;
	for (i = 0; i < nr; i++, p += per * 8) {
		err = deliver_value(pd, ev, pd_u64(p), pd_u64(p + 8));
		if (err)
			return err;
	}
	return 0;
}

static int deliver(struct perf_data *pd, const uint8_t *rec, uint64_t off,
		   int evidx)
{
	uint32_t type = pd_u32(rec);
	uint16_t misc = pd_u16(rec + 4), size = pd_u16(rec + 6);
	const uint8_t *end = rec + size;
	struct rs_event ev, *sev = &ev;
	struct pd_evsel *e;
	int err;

	if (type == PERF_RECORD_SAMPLE) {
		const uint8_t *readp = NULL;

		e = pd->evsel[evidx];
		/*
		 * A read group's sample becomes several events, each made
		 * from the one before: that one stays on the stack.
		 */
		if (pd->event_slot &&
		    !(e->ev.attr.sample_type & PERF_SAMPLE_READ)) {
			sev = pd->event_slot(pd);
			if (!sev)
				return -ECANCELED;
		}
		sev->kind = RS_EV_SAMPLE;
		sev->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
		sev->offset = off;
		err = parse_sample(pd, e, rec, off, &sev->sample, &readp);
		if (err)
			return err;
		if (e->ev.attr.type == PERF_TYPE_TRACEPOINT &&
		    (e->ev.attr.sample_type & PERF_SAMPLE_RAW) && !pd->tep)
			return pd_err(pd, off, "tracepoint sample (%s) but the recording carries no tracing data",
				      e->ev.name);
		sev->time = sev->sample.time;
		if (readp)
			return deliver_read(pd, e, sev, readp);
		return deliver_sample(pd, sev);
	}

	ev.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	ev.offset = off;
	ev.time = 0;

	if (evidx >= 0) {
		uint64_t t = rec_time(pd, rec, size, type, evidx);

		ev.time = t == ~0ULL ? 0 : t;
	}
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		uint64_t fo = type == PERF_RECORD_MMAP ? 40 : 72;

		if (size < fo + 1)
			return pd_err(pd, off, "%s record of %u bytes is too short",
				      type == PERF_RECORD_MMAP ? "MMAP" : "MMAP2",
				      size);
		ev.kind = RS_EV_MMAP;
		memset(&ev.mmap, 0, sizeof(ev.mmap));
		ev.mmap.pid = pd_u32(rec + 8);
		ev.mmap.tid = pd_u32(rec + 12);
		ev.mmap.start = pd_u64(rec + 16);
		ev.mmap.len = pd_u64(rec + 24);
		ev.mmap.pgoff = pd_u64(rec + 32);
		if (type == PERF_RECORD_MMAP2) {
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t bs = rec[40];

				ev.mmap.build_id_size = bs > 20 ? 20 : bs;
				memcpy(ev.mmap.build_id, rec + 44, 20);
			}
			ev.mmap.prot = pd_u32(rec + 64);
			ev.mmap.flags = pd_u32(rec + 68);
		}
		ev.mmap.filename = rec_str(rec + fo, end);
		if (!ev.mmap.filename)
			return pd_err(pd, off, "mmap file name is not terminated");
		break;
	}
	case PERF_RECORD_COMM:
		if (size < 17)
			return pd_err(pd, off, "COMM record of %u bytes is too short",
				      size);
		ev.kind = RS_EV_COMM;
		ev.comm.pid = pd_u32(rec + 8);
		ev.comm.tid = pd_u32(rec + 12);
		ev.comm.exec = misc & PERF_RECORD_MISC_COMM_EXEC;
		ev.comm.comm = rec_str(rec + 16, end);
		if (!ev.comm.comm)
			return pd_err(pd, off, "comm is not terminated");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 32)
			return pd_err(pd, off, "FORK/EXIT record of %u bytes is too short",
				      size);
		ev.kind = type == PERF_RECORD_FORK ? RS_EV_FORK : RS_EV_EXIT;
		ev.task.pid = pd_u32(rec + 8);
		ev.task.ppid = pd_u32(rec + 12);
		ev.task.tid = pd_u32(rec + 16);
		ev.task.ptid = pd_u32(rec + 20);
		if (!ev.time)
			ev.time = pd_u64(rec + 24);
		break;
	case PERF_RECORD_LOST:
		if (size < 24)
			return pd_err(pd, off, "LOST record of %u bytes is too short",
				      size);
		ev.kind = RS_EV_LOST;
		ev.lost.id = pd_u64(rec + 8);
		ev.lost.lost = pd_u64(rec + 16);
		ev.lost.samples = false;
		pd->stats.nr_lost += ev.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (size < 16)
			return pd_err(pd, off, "LOST_SAMPLES record of %u bytes is too short",
				      size);
		ev.kind = RS_EV_LOST;
		ev.lost.id = 0;
		ev.lost.lost = pd_u64(rec + 8);
		ev.lost.samples = true;
		pd->stats.nr_lost_samples += ev.lost.lost;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (size < 32)
			return pd_err(pd, off, "THROTTLE record of %u bytes is too short",
				      size);
		ev.kind = type == PERF_RECORD_THROTTLE ? RS_EV_THROTTLE :
			  RS_EV_UNTHROTTLE;
		if (!ev.time)
			ev.time = pd_u64(rec + 8);
		break;
	case PERF_RECORD_KSYMBOL:
		/* u64 addr, u32 len, u16 ksym_type, u16 flags, char name[] */
		if (size < 25)
			return pd_err(pd, off, "KSYMBOL record of %u bytes is too short",
				      size);
		ev.kind = RS_EV_KSYMBOL;
		ev.ksymbol.addr = pd_u64(rec + 8);
		ev.ksymbol.len = pd_u32(rec + 16);
		ev.ksymbol.ksym_type = pd_u16(rec + 20);
		ev.ksymbol.unregister = pd_u16(rec + 22) &
					PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
		ev.ksymbol.name = rec_str(rec + 24, end);
		if (!ev.ksymbol.name)
			return pd_err(pd, off, "ksymbol name is not terminated");
		break;
	default:
		return 0;
	}
	return pd->fn(pd->ctx, &ev);
}

/* ---- records ---- */

static bool kernel_type_known(uint32_t type)
{
	/* READ, AUX, ITRACE_START, SWITCH*, NAMESPACES, BPF_EVENT, ... */
	return type >= 1 && type <= 21;
}

static int kernel_record(struct perf_data *pd, const uint8_t *rec,
			 uint64_t off)
{
	uint32_t type = pd_u32(rec);
	uint16_t size = pd_u16(rec + 6);
	uint64_t t;
	int evidx;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		evidx = sample_evidx(pd, rec, size);
		if (evidx < 0) {
			pd->stats.nr_unknown_id++;
			return 0;
		}
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_KSYMBOL:
		evidx = other_evidx(pd, rec, size);
		break;
	default:
		if (!kernel_type_known(type))
			pd->stats.nr_unknown_records++;
		return 0;
	}
	t = rec_time(pd, rec, size, type, evidx);
	if (!t || t == ~0ULL)
		return deliver(pd, rec, off, evidx);
	return pd_queue(pd, rec, off, t, evidx,
			pd->stream || pd->in_compressed);
}

static int header_attr(struct perf_data *pd, const uint8_t *rec, uint16_t size,
		       uint64_t off)
{
	uint32_t asz;

	if (size < 8 + PERF_ATTR_SIZE_VER0)
		return pd_err(pd, off, "HEADER_ATTR record of %u bytes is too short",
			      size);
	asz = pd_u32(rec + 8 + 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > size - 8u)
		return pd_err(pd, off, "impossible attr size %u in HEADER_ATTR",
			      asz);
	/* names only the new evsel: a full pass per attr is quadratic */
	return pd_add_attr(pd, rec + 8, asz, rec + 8 + asz,
			   (size - 8 - asz) / 8, off);
}

static int id_index(struct perf_data *pd, const uint8_t *rec, uint16_t size)
{
	uint64_t nr, i;
	int err;

	if (size < 16)
		return 0;
	nr = pd_u64(rec + 8);
	if (nr > (size - 16u) / 32)
		nr = (size - 16u) / 32;
	for (i = 0; i < nr; i++) {
		const uint8_t *ent = rec + 16 + i * 32;
		uint64_t idx = pd_u64(ent + 8);

		if (idx >= pd->nr_evsel)
			continue;
		err = pd_map_id(pd, pd_u64(ent), idx);
		if (err)
			return err;
	}
	return 0;
}

static int event_update(struct perf_data *pd, const uint8_t *rec,
			uint16_t size)
{
	const char *name;
	int idx, err;

	/* only PERF_EVENT_UPDATE__NAME (2) matters for us */
	if (size < 25 || pd_u64(rec + 8) != 2)
		return 0;
	idx = pd_id2idx(pd, pd_u64(rec + 16));
	name = rec_str(rec + 24, rec + size);
	if (idx < 0 || !name)
		return 0;
	err = pd_set_name(pd, pd->evsel[idx], name, strlen(name));
	if (err)
		return err;
	pd->evsel[idx]->name_fixed = true;
	return 0;
}

static int process_zbuf(struct perf_data *pd)
{
	size_t pos = 0;
	int err = 0;

	pd->in_compressed = true;
	while (pd->zlen - pos >= 8) {
		uint16_t size = pd_u16(pd->zbuf + pos + 6);

		if (size < 8) {
			err = pd_err(pd, pd->zoff, "impossible record size %u inside compressed block",
				     size);
			break;
		}
		if (size > pd->zlen - pos)
			break;
		if (pd_u32(pd->zbuf + pos) == PERF_RECORD_COMPRESSED ||
		    pd_u32(pd->zbuf + pos) == PERF_RECORD_COMPRESSED2) {
			/* nesting would let a block expand without bound */
			pd->stats.nr_records++;
			pd->stats.nr_unknown_records++;
		} else {
			err = handle_record(pd, pd->zbuf + pos, pd->zoff);
			if (err)
				break;
		}
		pos += size;
	}
	pd->in_compressed = false;
	memmove(pd->zbuf, pd->zbuf + pos, pd->zlen - pos);
	pd->zlen -= pos;
	return err;
}

static int decompress(struct perf_data *pd, const uint8_t *data, size_t n,
		      uint64_t off)
{
	ZSTD_inBuffer in = { data, n, 0 };

	pd->stats.nr_compressed++;
	if (!pd->zd) {
		ZSTD_DStream *zd = ZSTD_createDStream();

		if (!zd)
			return -ENOMEM;
		ZSTD_initDStream(zd);
		ZSTD_DCtx_setParameter(zd, ZSTD_d_windowLogMax,
				       ZSTD_WINDOW_LOG_MAX);
		pd->zd = zd;
		pd->zbuf = malloc(ZBUF_SIZE);
		if (!pd->zbuf)
			return -ENOMEM;
		pd->zcap = ZBUF_SIZE;
		pd->zlen = 0;
	}
	pd->zoff = off;
	for (;;) {
		ZSTD_outBuffer out = { pd->zbuf + pd->zlen, pd->zcap - pd->zlen, 0 };
		size_t r = ZSTD_decompressStream(pd->zd, &out, &in);
		int err;

		if (ZSTD_isError(r))
			return pd_err(pd, off, "corrupt compressed block: %s",
				      ZSTD_getErrorName(r));
		pd->zlen += out.pos;
		err = process_zbuf(pd);
		if (err)
			return err;
		if (in.pos == in.size && out.pos < out.size)
			break;
		if (!out.pos && in.pos == in.size)
			break;
	}
	return 0;
}

static int user_record(struct perf_data *pd, const uint8_t *rec, uint64_t off)
{
	uint32_t type = pd_u32(rec);
	uint16_t size = pd_u16(rec + 6);
	const uint8_t *payload;
	uint64_t n;
	int err;

	switch (type) {
	case PERF_RECORD_HEADER_ATTR:
	case PERF_RECORD_HEADER_TRACING_DATA:
	case PERF_RECORD_HEADER_BUILD_ID:
	case PERF_RECORD_HEADER_FEATURE:
	case PERF_RECORD_EVENT_UPDATE:
		/* They change what a callback reads through pd. */
		err = pd->drain ? pd->drain(pd) : 0;
		if (err)
			return err;
		break;
	default:
		break;
	}
	switch (type) {
	case PERF_RECORD_FINISHED_ROUND: {
		/* perf: flush up to the previous round's maximum */
		uint64_t limit = pd->next_flush;

		pd->next_flush = pd->max_ts;
		return limit ? pd_flush(pd, limit) : 0;
	}
	case PERF_RECORD_HEADER_ATTR:
		return header_attr(pd, rec, size, off);
	case PERF_RECORD_HEADER_TRACING_DATA:
		if (size < 12)
			return pd_err(pd, off, "TRACING_DATA record of %u bytes is too short",
				      size);
		n = pd_u32(rec + 8);
		if (pd->in_compressed)
			return pd_err(pd, off, "tracing data inside a compressed block");
		err = take_payload(pd, (n + 7) & ~7ULL, true, &payload, off);
		if (err)
			return err;
		return pd_tracing_data(pd, payload, n, off);
	case PERF_RECORD_HEADER_BUILD_ID:
		err = pd_build_id_rec(pd, rec, size);
		if (err == -ENOMEM)
			return err;
		if (err)
			pd->stats.nr_unknown_features++;
		return 0;
	case PERF_RECORD_HEADER_FEATURE:
		if (size < 16)
			return pd_err(pd, off, "HEADER_FEATURE record of %u bytes is too short",
				      size);
		n = pd_u64(rec + 8);
		if (n >= PERF_FEAT_BITS) {
			pd->stats.nr_unknown_features++;
			return 0;
		}
		err = pd_feature(pd, n, rec + 16, size - 16, off);
		if (!err && (n == PERF_FEAT_EVENT_DESC))
			err = pd_finalize_evsels(pd);
		return err;
	case PERF_RECORD_ID_INDEX:
		return id_index(pd, rec, size);
	case PERF_RECORD_EVENT_UPDATE:
		return event_update(pd, rec, size);
	case PERF_RECORD_AUXTRACE:
		if (size < 16)
			return pd_err(pd, off, "AUXTRACE record of %u bytes is too short",
				      size);
		if (pd->in_compressed)
			return 0;
		return take_payload(pd, pd_u64(rec + 8), false, &payload, off);
	case PERF_RECORD_COMPRESSED:
		return decompress(pd, rec + 8, size - 8, off);
	case PERF_RECORD_COMPRESSED2:
		if (size < 16 || pd_u64(rec + 8) > size - 16u)
			return pd_err(pd, off, "bad COMPRESSED2 record");
		return decompress(pd, rec + 16, pd_u64(rec + 8), off);
	case PERF_RECORD_HEADER_EVENT_TYPE:
	case PERF_RECORD_AUXTRACE_INFO:
	case PERF_RECORD_AUXTRACE_ERROR:
	case PERF_RECORD_THREAD_MAP:
	case PERF_RECORD_CPU_MAP:
	case PERF_RECORD_STAT_CONFIG:
	case PERF_RECORD_STAT:
	case PERF_RECORD_STAT_ROUND:
	case PERF_RECORD_TIME_CONV:
	case PERF_RECORD_FINISHED_INIT:
		return 0;
	default:
		pd->stats.nr_unknown_records++;
		return 0;
	}
}

static int handle_record(struct perf_data *pd, const uint8_t *rec,
			 uint64_t off)
{
	pd->stats.nr_records++;
	if (pd_u32(rec) >= PERF_RECORD_HEADER_ATTR)
		return user_record(pd, rec, off);
	return kernel_record(pd, rec, off);
}

/* Pipe layout: read the in-stream header records up to the first data. */
static bool is_header_type(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_HEADER_ATTR:
	case PERF_RECORD_HEADER_EVENT_TYPE:
	case PERF_RECORD_HEADER_TRACING_DATA:
	case PERF_RECORD_HEADER_BUILD_ID:
	case PERF_RECORD_HEADER_FEATURE:
	case PERF_RECORD_ID_INDEX:
	case PERF_RECORD_EVENT_UPDATE:
	case PERF_RECORD_THREAD_MAP:
	case PERF_RECORD_CPU_MAP:
	case PERF_RECORD_TIME_CONV:
	case PERF_RECORD_AUXTRACE_INFO:
	case PERF_RECORD_STAT_CONFIG:
		return true;
	}
	return false;
}

int pd_read_pipe_header(struct perf_data *pd)
{
	const uint8_t *rec;
	uint64_t off;
	int ret;

	for (;;) {
		uint64_t saved = pd->pos;
		uint32_t type;

		ret = next_record(pd, &rec, &off);
		if (ret <= 0)
			break;
		type = pd_u32(rec);
		if (type == PERF_RECORD_FINISHED_INIT) {
			pd->stats.nr_records++;
			break;
		}
		if (!is_header_type(type)) {
			/* leave it for perf_data__process() */
			if (pd->stream) {
				pd->have_pending = true;
				pd->pending_off = off;
			} else {
				pd->pos = saved;
			}
			break;
		}
		pd->stats.nr_records++;
		ret = user_record(pd, rec, off);
		if (ret)
			break;
	}
	if (ret >= 0)
		ret = pd_finalize_evsels(pd);
	pd->header_done = true;
	if (ret < 0)
		return ret;
	if (!pd->nr_evsel)
		return pd_err(pd, pd->stream ? pd->spos : pd->pos,
			      "no event attributes (HEADER_ATTR) in the stream");
	return 0;
}

static int noop_fn(void *ctx, const struct rs_event *ev)
{
	return 0;
}

int pd_process(struct perf_data *pd, rs_event_fn fn, void *ctx)
{
	const uint8_t *rec;
	uint64_t off;
	int ret;

	pd->fn = fn ? fn : noop_fn;
	pd->ctx = ctx;
	pd->deliver = deliver;
	for (;;) {
		ret = next_record(pd, &rec, &off);
		if (ret <= 0)
			break;
		ret = handle_record(pd, rec, off);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return ret;
	return pd_flush(pd, ~0ULL);
}

void pd_process_free(struct perf_data *pd)
{
	pd_queue_free(pd);
	if (pd->zd)
		ZSTD_freeDStream(pd->zd);
	free(pd->zbuf);
}
