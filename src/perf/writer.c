// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer, file layout (perf's header.c):
 *
 *   header (104 bytes, written last)
 *   data: the records, as the kernel and synthesis wrote them
 *   feature table: one {offset, size} per feature bit set, right after
 *                  the data (perf looks for it there), then the sections
 *   ids of every attr, then the attrs with their ids sections
 *
 * perf puts the attrs before the data; we put them after so that ids
 * opened late (a CPU coming online, a process forking with inherit off)
 * can still be added. perf reads them through the header wherever they
 * are.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perf-format.h"
#include "perf-writer.h"
#include "util.h"

#define PW_BUF_SIZE		(1U << 20)
#define PW_DIRECT_SIZE		(64U << 10)
/* the largest attr perf 6.1 reads; it refuses bigger ones */
#define PW_ATTR_SIZE_VER7	128

struct pw_event {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	uint32_t nr_ids;
};

struct pw_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint8_t size;
	char *filename;
};

/* A growing memory buffer; an allocation failure sticks in oom. */

struct perf_writer {
	int fd;
	uint64_t data_size;		/* written and buffered */
	uint8_t *buf;			/* data not yet written */
	size_t used;
	bool data_started, finished;

	struct pw_event *ev;
	uint32_t nr_ev;

	char **argv;
	int argc;
	bool have_time;
	uint64_t first_time, last_time;
	uint8_t *tracing;
	size_t tracing_len;
	size_t ksyms_off, ksyms_len;	/* the kallsyms text in it */
	char *rstat_spans;
	char *rstat_breakdown;
	struct pw_build_id *bids;
	uint32_t nr_bids;

	int err;			/* first failure, sticky */
	char errbuf[256];
};

static int set_err(struct perf_writer *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct perf_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errbuf, sizeof(w->errbuf), fmt, ap);
	va_end(ap);
	return err;
}

/* An I/O failure: every later call returns it too. */
static int io_err(struct perf_writer *w, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		set_err(w, err, "%s: %s", what, strerror(-err));
	}
	return w->err;
}

static void mzero(struct bytebuf *b, size_t n)
{
	static const uint8_t z[PERF_NAME_ALIGN];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		bytebuf__put(b, z, k);
		n -= k;
	}
}

static void mput_str(struct bytebuf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t len = (n + PERF_NAME_ALIGN - 1) & ~(size_t)(PERF_NAME_ALIGN - 1);

	bytebuf__put32(b, len);
	bytebuf__put(b, s, n);
	mzero(b, len - n);
}

int perf_writer__open(struct perf_writer **wp, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		      O_CLOEXEC, 0600);

	if (fd < 0) {
		*wp = NULL;
		return -errno;
	}
	return perf_writer__open_fd(wp, fd);
}

int perf_writer__open_fd(struct perf_writer **wp, int fd)
{
	struct perf_writer *w;
	int err;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->buf = malloc(PW_BUF_SIZE);
	if (!w->buf) {
		close(fd);
		free(w);
		return -ENOMEM;
	}
	w->fd = fd;
	/*
	 * The header is written by finish(), when its sizes are known:
	 * until then the file starts with zeros and no reader takes a
	 * half-written recording for a whole one. Seeking also refuses a
	 * pipe early (the file layout needs to come back to the start).
	 */
	if (lseek(w->fd, PERF_FILE_HEADER_SIZE, SEEK_SET) < 0) {
		err = -errno;
		close(w->fd);
		free(w->buf);
		free(w);
		return err;
	}
	*wp = w;
	return 0;
}

void perf_writer__delete(struct perf_writer *w)
{
	uint32_t i;

	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	for (i = 0; i < w->nr_ev; i++) {
		free(w->ev[i].name);
		free(w->ev[i].ids);
	}
	free(w->ev);
	for (i = 0; i < (uint32_t)w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->tracing);
	free(w->rstat_spans);
	free(w->rstat_breakdown);
	for (i = 0; i < w->nr_bids; i++)
		free(w->bids[i].filename);
	free(w->bids);
	free(w);
}

const char *perf_writer__strerror(const struct perf_writer *w)
{
	return w ? w->errbuf : "";
}

static int usable(struct perf_writer *w)
{
	if (w->err)
		return w->err;
	if (w->finished)
		return set_err(w, -EINVAL, "the recording is already finished");
	return 0;
}

int perf_writer__set_ids(struct perf_writer *w, uint32_t idx,
			 const uint64_t *ids, uint32_t nr_ids)
{
	uint64_t *n = NULL;
	int err = usable(w);

	if (err)
		return err;
	if (idx >= w->nr_ev)
		return set_err(w, -EINVAL, "no event %u", idx);
	if (nr_ids) {
		n = malloc(nr_ids * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memcpy(n, ids, nr_ids * sizeof(*n));
	}
	free(w->ev[idx].ids);
	w->ev[idx].ids = n;
	w->ev[idx].nr_ids = nr_ids;
	return 0;
}

int perf_writer__add_event(struct perf_writer *w,
			   const struct perf_event_attr *attr,
			   const char *name, const uint64_t *ids,
			   uint32_t nr_ids)
{
	struct pw_event *ev;
	int err = usable(w);

	if (err)
		return err;
	if (w->data_started)
		return set_err(w, -EINVAL,
			       "events must be added before any data");
	if (w->nr_ev && !!attr->sample_id_all != !!w->ev[0].attr.sample_id_all)
		return set_err(w, -EINVAL,
			       "all events must agree on sample_id_all, as perf requires");
	ev = realloc(w->ev, (w->nr_ev + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	w->ev = ev;
	ev = &w->ev[w->nr_ev];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	if (name) {
		ev->name = strdup(name);
		if (!ev->name)
			return -ENOMEM;
	}
	w->nr_ev++;
	err = perf_writer__set_ids(w, w->nr_ev - 1, ids, nr_ids);
	if (err) {
		free(ev->name);
		w->nr_ev--;
	}
	return err;
}

size_t perf_writer__id_hdr_size(const struct perf_writer *w)
{
	uint64_t st;
	size_t n = 0;

	if (!w->nr_ev || !w->ev[0].attr.sample_id_all)
		return 0;
	st = w->ev[0].attr.sample_type;
	/* perf's __evlist__id_hdr_size() */
	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

static int flush(struct perf_writer *w)
{
	int err;

	if (!w->used)
		return 0;
	err = fd_write_all(w->fd, w->buf, w->used);
	if (err)
		return io_err(w, err, "writing the data");
	w->used = 0;
	return 0;
}

int perf_writer__write(struct perf_writer *w, const void *buf, size_t len)
{
	int err = usable(w);

	if (err)
		return err;
	w->data_started = true;
	/*
	 * A ring's chunks are large under load (a wakeup comes at a quarter
	 * of the ring): they go straight to the file, sparing a copy.
	 */
	if (len > PW_BUF_SIZE - w->used || len >= PW_DIRECT_SIZE) {
		err = flush(w);
		if (err)
			return err;
		if (len >= PW_DIRECT_SIZE) {
			err = fd_write_all(w->fd, buf, len);
			if (err)
				return io_err(w, err, "writing the data");
			w->data_size += len;
			return 0;
		}
	}
	memcpy(w->buf + w->used, buf, len);
	w->used += len;
	w->data_size += len;
	return 0;
}

int perf_writer__finished_round(struct perf_writer *w)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_FINISHED_ROUND,
		.size = sizeof(h),
	};

	return perf_writer__write(w, &h, sizeof(h));
}

uint64_t perf_writer__data_size(const struct perf_writer *w)
{
	return w->data_size;
}

int perf_writer__set_cmdline(struct perf_writer *w, int argc, char **argv)
{
	char **v;
	int i;

	if (argc < 0)
		return -EINVAL;
	v = calloc(argc ? argc : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		v[i] = strdup(argv[i] ? argv[i] : "");
		if (!v[i]) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	}
	for (i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	w->argv = v;
	w->argc = argc;
	return 0;
}

int perf_writer__set_sample_time(struct perf_writer *w, uint64_t first,
				 uint64_t last)
{
	w->have_time = true;
	w->first_time = first;
	w->last_time = last;
	return 0;
}

int perf_writer__set_tracing(struct perf_writer *w,
			     const char *const *tracepoints, size_t n,
			     bool kallsyms)
{
	size_t len = 0, koff = 0, klen = 0;
	uint8_t *td = NULL;
	int err;

	if (n || kallsyms) {
		err = perf_tracing_data__build(tracepoints, n, kallsyms, &td,
					       &len, &koff, &klen, w->errbuf,
					       sizeof(w->errbuf));
		if (err)
			return err;
	}
	free(w->tracing);
	w->tracing = td;
	w->tracing_len = len;
	w->ksyms_off = koff;
	w->ksyms_len = klen;
	return 0;
}

int perf_writer__kallsyms(const struct perf_writer *w, const char **text,
			  size_t *len)
{
	if (!w->tracing || !w->ksyms_len)
		return -ENOENT;
	*text = (const char *)w->tracing + w->ksyms_off;
	*len = w->ksyms_len;
	return 0;
}

/* One of our own sections' text, copied (NULL: none). */
static int set_own_text(struct perf_writer *w, char **dst, const char *text)
{
	char *copy = text ? strdup(text) : NULL;

	if (text && !copy)
		return set_err(w, -ENOMEM, "out of memory");
	free(*dst);
	*dst = copy;
	return 0;
}

int perf_writer__set_rstat_spans(struct perf_writer *w, const char *text)
{
	return set_own_text(w, &w->rstat_spans, text);
}

int perf_writer__set_rstat_breakdown(struct perf_writer *w, const char *text)
{
	return set_own_text(w, &w->rstat_breakdown, text);
}

int perf_writer__add_build_id(struct perf_writer *w, int32_t pid,
			      uint16_t misc, const uint8_t *id, size_t size,
			      const char *filename)
{
	struct pw_build_id *b;

	if (size > sizeof(b->id) || !filename)
		return set_err(w, -EINVAL, "bad build id for %s",
			       filename ? filename : "(null)");
	b = realloc(w->bids, (w->nr_bids + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	w->bids = b;
	b = &w->bids[w->nr_bids];
	memset(b, 0, sizeof(*b));
	b->filename = strdup(filename);
	if (!b->filename)
		return -ENOMEM;
	b->pid = pid;
	b->misc = misc;
	memcpy(b->id, id, size);
	b->size = size;
	w->nr_bids++;
	return 0;
}

/* ---- host facts ---- */

/* The GNU build id note of the running kernel, 0 or -errno. */
static int kernel_build_id(uint8_t *id, size_t *size)
{
	uint8_t notes[4096];
	size_t len = 0, off = 0;
	ssize_t r;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len < sizeof(notes) &&
	       (r = read(fd, notes + len, sizeof(notes) - len)) > 0)
		len += r;
	close(fd);
	/* Elf{32,64}_Nhdr are alike: namesz, descsz, type; 4-aligned */
	while (off + 12 <= len) {
		uint32_t nsz, dsz, type;
		size_t name, desc;

		memcpy(&nsz, notes + off, 4);
		memcpy(&dsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		name = off + 12;
		desc = name + ((nsz + 3) & ~3U);
		if (desc > len || dsz > len - desc)
			break;
		if (type == 3 && nsz == 4 && !memcmp(notes + name, "GNU", 4) &&
		    dsz && dsz <= 20) {
			memcpy(id, notes + desc, dsz);
			*size = dsz;
			return 0;
		}
		off = desc + ((dsz + 3) & ~3U);
	}
	return -ENOENT;
}

/* "model name" of /proc/cpuinfo, runs of blanks squeezed as perf does. */
static char *cpu_desc(void)
{
	char *line = NULL, *out = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *p, *o;

		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		out = o = strdup(p);
		if (!out)
			break;
		for (; *p && *p != '\n'; p++) {
			bool blank = *p == ' ' || *p == '\t';

			if (blank && (o == out || o[-1] == ' '))
				continue;
			*o++ = blank ? ' ' : *p;
		}
		while (o > out && o[-1] == ' ')
			o--;
		*o = 0;
		break;
	}
	free(line);
	fclose(f);
	return out;
}

/* ---- features ---- */

struct feat {
	size_t off, len;	/* within the sections buffer */
	const void *direct;	/* or, when set, these len bytes */
};

/* Whether every event's attr is zero from byte 'from' on. */
static bool attrs_zero_from(const struct perf_writer *w, size_t from)
{
	size_t sz = sizeof(struct perf_event_attr), j;
	uint32_t i;

	for (i = 0; i < w->nr_ev; i++) {
		const uint8_t *a = (const uint8_t *)&w->ev[i].attr;

		for (j = from; j < sz; j++)
			if (a[j])
				return false;
	}
	return true;
}

/*
 * perf refuses attrs bigger than its own: 128 bytes for perf 6.1, 120 or
 * less for perf 5.12 and older (Debian 11, RHEL 8). Write the smallest
 * published attr size (PERF_ATTR_SIZE_VER0..) past which every event's
 * attr is zero, so that older perfs read what newer fields we don't use.
 */
static size_t attr_file_size(const struct perf_writer *w)
{
	static const size_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128,
					136 };
	size_t sz = sizeof(struct perf_event_attr);
	unsigned int k;

	for (k = 0; k < sizeof(sizes) / sizeof(*sizes); k++)
		if (sizes[k] < sz && attrs_zero_from(w, sizes[k]))
			return sizes[k];
	return sz;
}

static void put_attr(const struct perf_writer *w, struct bytebuf *b,
		     const struct pw_event *ev)
{
	struct perf_event_attr a = ev->attr;

	a.size = attr_file_size(w);
	bytebuf__put(b, &a, a.size);
}

/*
 * perf names events from EVENT_DESC through their first id; an entry
 * without ids would make perf 6.1 read past it, and one without a name
 * would name the event "". Without those, perf derives the names.
 */
static bool event_desc_ok(const struct perf_writer *w)
{
	uint32_t i;

	for (i = 0; i < w->nr_ev; i++)
		if (!w->ev[i].name || !w->ev[i].nr_ids)
			return false;
	return w->nr_ev > 0;
}

static void put_cmdline(const struct perf_writer *w, struct bytebuf *b)
{
	char buf[4096];
	size_t len = 0, i;
	uint32_t nr = 0;
	ssize_t r;
	int fd, k;

	if (w->argv) {
		bytebuf__put32(b, w->argc);
		for (k = 0; k < w->argc; k++)
			mput_str(b, w->argv[k]);
		return;
	}
	/* not set: our own command line, as perf writes its own */
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (len < sizeof(buf) - 1 &&
		       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += r;
		close(fd);
	}
	buf[len] = 0;
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		nr++;
	bytebuf__put32(b, nr);
	for (i = 0; i < len; i += strlen(buf + i) + 1)
		mput_str(b, buf + i);
}

static void put_build_id(struct bytebuf *b, int32_t pid, uint16_t misc,
			 const uint8_t *id, uint8_t size, const char *name)
{
	size_t n = strlen(name) + 1;
	size_t len = (n + PERF_NAME_ALIGN - 1) & ~(size_t)(PERF_NAME_ALIGN - 1);
	uint8_t bid[24] = { 0 };
	struct perf_event_header h = {
		.type = 0,
		.misc = misc | PERF_RECORD_MISC_BUILD_ID_SIZE,
		.size = sizeof(h) + 4 + sizeof(bid) + len,
	};

	memcpy(bid, id, size);
	bid[20] = size;
	bytebuf__put(b, &h, sizeof(h));
	bytebuf__put(b, &pid, 4);
	bytebuf__put(b, bid, sizeof(bid));
	bytebuf__put(b, name, n);
	mzero(b, len - n);
}

static void put_build_ids(const struct perf_writer *w, struct bytebuf *b)
{
	bool have_kernel = false;
	uint8_t id[20];
	size_t size = 0;
	uint32_t i;

	for (i = 0; i < w->nr_bids; i++) {
		const struct pw_build_id *e = &w->bids[i];

		if (!strcmp(e->filename, "[kernel.kallsyms]"))
			have_kernel = true;
	}
	/* perf puts the kernel's first; old readers look for it there */
	if (!have_kernel && !kernel_build_id(id, &size))
		put_build_id(b, -1, PERF_RECORD_MISC_KERNEL, id, size,
			     "[kernel.kallsyms]");
	for (i = 0; i < w->nr_bids; i++) {
		const struct pw_build_id *e = &w->bids[i];

		put_build_id(b, e->pid, e->misc, e->id, e->size, e->filename);
	}
}

/* One feature's payload into b; false when it is left out. */
static bool put_feature(const struct perf_writer *w, struct bytebuf *b,
			unsigned int feat, const struct utsname *u)
{
	uint32_t i, j;
	char *s;

	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		/* written from w->tracing itself: see perf_writer__finish() */
		return false;
	case PERF_FEAT_BUILD_ID: {
		size_t before = b->len;

		put_build_ids(w, b);
		return b->len != before;
	}
	case PERF_FEAT_HOSTNAME:
		mput_str(b, u->nodename);
		return true;
	case PERF_FEAT_OSRELEASE:
		mput_str(b, u->release);
		return true;
	case PERF_FEAT_VERSION: {
		/* who wrote the file: perf only prints this string */
		char who[128];

		snprintf(who, sizeof(who), "rstat-analyze %s", rs_version());
		mput_str(b, who);
		return true;
	}
	case PERF_FEAT_ARCH:
		mput_str(b, u->machine);
		return true;
	case PERF_FEAT_NRCPUS:
		bytebuf__put32(b, sysconf(_SC_NPROCESSORS_CONF));
		bytebuf__put32(b, sysconf(_SC_NPROCESSORS_ONLN));
		return true;
	case PERF_FEAT_CPUDESC:
		s = cpu_desc();
		if (!s)
			return false;
		mput_str(b, s);
		free(s);
		return true;
	case PERF_FEAT_CMDLINE:
		put_cmdline(w, b);
		return true;
	case PERF_FEAT_EVENT_DESC:
		if (!event_desc_ok(w))
			return false;
		bytebuf__put32(b, w->nr_ev);
		bytebuf__put32(b, attr_file_size(w));
		for (i = 0; i < w->nr_ev; i++) {
			const struct pw_event *ev = &w->ev[i];

			put_attr(w, b, ev);
			bytebuf__put32(b, ev->nr_ids);
			mput_str(b, ev->name);
			for (j = 0; j < ev->nr_ids; j++)
				bytebuf__put64(b, ev->ids[j]);
		}
		return true;
	case PERF_FEAT_SAMPLE_TIME:
		if (!w->have_time)
			return false;
		bytebuf__put64(b, w->first_time);
		bytebuf__put64(b, w->last_time);
		return true;
	case PERF_FEAT_RSTAT_SPANS:
		if (!w->rstat_spans)
			return false;
		mput_str(b, w->rstat_spans);
		return true;
	case PERF_FEAT_RSTAT_BREAKDOWN:
		if (!w->rstat_breakdown)
			return false;
		mput_str(b, w->rstat_breakdown);
		return true;
	}
	return false;
}

int perf_writer__finish(struct perf_writer *w)
{
	static const unsigned int feats[] = {
		PERF_FEAT_TRACING_DATA, PERF_FEAT_BUILD_ID, PERF_FEAT_HOSTNAME,
		PERF_FEAT_OSRELEASE, PERF_FEAT_VERSION, PERF_FEAT_ARCH, PERF_FEAT_NRCPUS,
		PERF_FEAT_CPUDESC, PERF_FEAT_CMDLINE, PERF_FEAT_EVENT_DESC, PERF_FEAT_SAMPLE_TIME,
		PERF_FEAT_RSTAT_BREAKDOWN, PERF_FEAT_RSTAT_SPANS,
	};
	struct feat sec[sizeof(feats) / sizeof(feats[0])];
	uint64_t bitmap[PERF_FEAT_BITS / 64] = { 0 };
	uint8_t hdr[PERF_FILE_HEADER_SIZE];
	struct bytebuf b = { 0 }, tail = { 0 };
	uint64_t table, base, ids_off, attrs_off, v;
	size_t asz, nr = 0, i;
	struct utsname u;
	uint32_t e;
	int err = usable(w);

	if (err)
		return err;
	if (!w->nr_ev)
		return set_err(w, -EINVAL, "no events to write");
	err = flush(w);
	if (err)
		return err;
	if (uname(&u))
		memset(&u, 0, sizeof(u));

	/*
	 * Feature sections, in bit order as perf reads them. The tracing
	 * data (mostly /proc/kallsyms, megabytes) is written from where it
	 * is, never copied: a copy would double the recorder's peak RSS.
	 */
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		size_t before = b.len;

		sec[nr].direct = NULL;
		if (feats[i] == PERF_FEAT_TRACING_DATA && w->tracing) {
			sec[nr].direct = w->tracing;
			sec[nr].off = 0;
			sec[nr].len = w->tracing_len;
		} else if (put_feature(w, &b, feats[i], &u)) {
			sec[nr].off = before;
			sec[nr].len = b.len - before;
		} else {
			b.len = before;
			continue;
		}
		bitmap[feats[i] / 64] |= 1ULL << (feats[i] % 64);
		nr++;
	}
	table = PERF_FILE_HEADER_SIZE + w->data_size;
	base = table + nr * 16;
	for (i = 0; i < nr; i++) {
		bytebuf__put64(&tail, base);
		bytebuf__put64(&tail, sec[i].len);
		base += sec[i].len;
	}
	err = tail.oom || b.oom ? -ENOMEM :
	      fd_write_all(w->fd, tail.p, tail.len);
	for (i = 0; !err && i < nr; i++)
		err = fd_write_all(w->fd, sec[i].direct ? sec[i].direct :
				b.p + sec[i].off, sec[i].len);
	free(b.p);
	if (err) {
		free(tail.p);
		if (err == -ENOMEM)
			return set_err(w, err,
				       "out of memory writing the header");
		return io_err(w, err, "writing the features");
	}

	/* ids, then the attrs pointing at them */
	tail.len = 0;
	asz = attr_file_size(w);
	ids_off = base;
	v = ids_off;
	for (e = 0; e < w->nr_ev; e++)
		bytebuf__put(&tail, w->ev[e].ids, w->ev[e].nr_ids * 8);
	attrs_off = ids_off + tail.len;
	for (e = 0; e < w->nr_ev; e++) {
		put_attr(w, &tail, &w->ev[e]);
		bytebuf__put64(&tail, v);
		bytebuf__put64(&tail, w->ev[e].nr_ids * 8);
		v += w->ev[e].nr_ids * 8;
	}
	if (tail.oom) {
		free(tail.p);
		return set_err(w, -ENOMEM, "out of memory writing the header");
	}
	err = fd_write_all(w->fd, tail.p, tail.len);
	free(tail.p);
	if (err)
		return io_err(w, err, "writing the features");

	memset(hdr, 0, sizeof(hdr));
	v = PERF_MAGIC2;
	memcpy(hdr, &v, 8);
	v = PERF_FILE_HEADER_SIZE;
	memcpy(hdr + 8, &v, 8);
	v = asz + 16;
	memcpy(hdr + 16, &v, 8);
	memcpy(hdr + 24, &attrs_off, 8);
	v = (uint64_t)w->nr_ev * (asz + 16);
	memcpy(hdr + 32, &v, 8);
	v = PERF_FILE_HEADER_SIZE;
	memcpy(hdr + 40, &v, 8);
	memcpy(hdr + 48, &w->data_size, 8);
	/* event_types (56..71): unused since perf 3.x, left zero */
	memcpy(hdr + 72, bitmap, sizeof(bitmap));
	if (pwrite(w->fd, hdr, sizeof(hdr), 0) != sizeof(hdr))
		return io_err(w, errno ? -errno : -EIO, "writing the header");
	w->finished = true;
	return 0;
}

int perf_writer__refinish(struct perf_writer *w)
{
	off_t end = PERF_FILE_HEADER_SIZE + w->data_size;

	if (w->err)
		return w->err;
	if (!w->finished)
		return set_err(w, -EINVAL, "the recording is not finished");
	/* The features go where they were, the data stays as it is. */
	if (lseek(w->fd, end, SEEK_SET) < 0 || ftruncate(w->fd, end))
		return io_err(w, -errno, "rewriting the features");
	w->finished = false;
	return perf_writer__finish(w);
}
