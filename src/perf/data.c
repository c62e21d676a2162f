// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: opening (mmap, memory, stream), the file header, the
 * attrs with their ids, event names, accessors.
 *
 * Byte-swapped (other-endian) files are recognised and refused with a
 * clear message: perf only writes them on a big-endian machine and we
 * would have to swap every record, feature and tracepoint field.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "data-int.h"
#include "util.h"

#define MAX_ATTR_SIZE		4096

static int pd_verr(struct perf_data *pd, uint64_t off, const char *fmt,
		   va_list ap)
{
	int n;

	if (pd->err[0])
		return -EINVAL;
	n = snprintf(pd->err, sizeof(pd->err), "offset %" PRIu64 ": ", off);
	if (n > 0 && (size_t)n < sizeof(pd->err))
		vsnprintf(pd->err + n, sizeof(pd->err) - n, fmt, ap);
	return -EINVAL;
}

int pd_err(struct perf_data *pd, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd_verr(pd, off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int pd_err_errno(struct perf_data *pd, int err, uint64_t off,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pd_verr(pd, off, fmt, ap);
	va_end(ap);
	return err;
}

int pd_keep_str(struct perf_data *pd, char *s)
{
	if (pd->nr_strs == pd->strs_cap) {
		uint32_t cap = pd->strs_cap ? pd->strs_cap * 2 : 16;
		char **n = realloc(pd->strs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pd->strs = n;
		pd->strs_cap = cap;
	}
	pd->strs[pd->nr_strs++] = s;
	return 0;
}

/* ---- sample id -> evsel map (open addressing, ids are sparse) ---- */

static uint32_t id_slot(const struct perf_data *pd, uint64_t id)
{
	return hash_u64(id) & (pd->ids_cap - 1);
}

struct pd_idmap *pd_id_find(struct perf_data *pd, uint64_t id)
{
	uint32_t i;

	if (!pd->ids_nr)
		return NULL;
	for (i = id_slot(pd, id);; i = (i + 1) & (pd->ids_cap - 1)) {
		if (!pd->ids[i].idx1)
			return NULL;
		if (pd->ids[i].id == id)
			return &pd->ids[i];
	}
}

int pd_id2idx(const struct perf_data *pd, uint64_t id)
{
	const struct pd_idmap *m = pd_id_find((struct perf_data *)pd, id);

	return m ? (int)m->idx1 - 1 : -1;
}

int pd_map_id(struct perf_data *pd, uint64_t id, uint32_t idx)
{
	uint32_t i;

	if ((pd->ids_nr + 1) * 2 > pd->ids_cap) {
		uint32_t cap = pd->ids_cap ? pd->ids_cap * 2 : 64;
		struct pd_idmap *old = pd->ids, *n = calloc(cap, sizeof(*n));
		uint32_t oldcap = pd->ids_cap, j;

		if (!n)
			return -ENOMEM;
		pd->ids = n;
		pd->ids_cap = cap;
		for (j = 0; j < oldcap; j++) {
			if (!old[j].idx1)
				continue;
			for (i = id_slot(pd, old[j].id); n[i].idx1;
			     i = (i + 1) & (cap - 1))
				;
			n[i] = old[j];
		}
		free(old);
	}
	for (i = id_slot(pd, id); pd->ids[i].idx1; i = (i + 1) & (pd->ids_cap - 1)) {
		/* first mapping wins, as in perf's evlist */
		if (pd->ids[i].id == id)
			return 0;
	}
	pd->ids[i].id = id;
	pd->ids[i].idx1 = idx + 1;
	pd->ids_nr++;
	return 0;
}

/* ---- attrs ---- */

static void compute_positions(struct pd_evsel *e)
{
	const struct perf_event_attr *a = &e->ev.attr;
	uint64_t st = a->sample_type;
	int idx = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		idx++;
	if (st & PERF_SAMPLE_IP)
		idx++;
	if (st & PERF_SAMPLE_TID)
		idx++;
	e->time_pos = (st & PERF_SAMPLE_TIME) ? idx : -1;

	/* Where perf looks for the id of a sample (evsel__calc_id_pos). */
	if (st & PERF_SAMPLE_IDENTIFIER) {
		e->id_pos = 0;
		e->is_pos = 1;
	} else if (st & PERF_SAMPLE_ID) {
		e->id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		e->is_pos = 1 + !!(st & PERF_SAMPLE_CPU) +
			    !!(st & PERF_SAMPLE_STREAM_ID);
	} else {
		e->id_pos = -1;
		e->is_pos = -1;
	}

	e->trailer_len = 0;
	e->trailer_time_pos = -1;
	if (!a->sample_id_all)
		return;
	idx = 0;
	if (st & PERF_SAMPLE_TID)
		idx++;
	if (st & PERF_SAMPLE_TIME)
		e->trailer_time_pos = idx++;
	if (st & PERF_SAMPLE_ID)
		idx++;
	if (st & PERF_SAMPLE_STREAM_ID)
		idx++;
	if (st & PERF_SAMPLE_CPU)
		idx++;
	if (st & PERF_SAMPLE_IDENTIFIER)
		idx++;
	e->trailer_len = idx * 8;
}

static int finalize_evsel(struct perf_data *pd, struct pd_evsel *e);

int pd_add_attr(struct perf_data *pd, const void *attr, size_t attr_len,
		const void *ids, uint64_t nr_ids, uint64_t off)
{
	struct pd_evsel *e;
	uint64_t i;
	uint32_t sz;
	int err;

	if (attr_len < PERF_ATTR_SIZE_VER0)
		return pd_err(pd, off, "event attribute of %zu bytes is too small",
			      attr_len);
	/* attr.size says how much is meaningful; 0 is the first ABI. */
	sz = pd_u32((const uint8_t *)attr + 4);
	if (!sz)
		sz = PERF_ATTR_SIZE_VER0;
	if (sz > attr_len)
		sz = attr_len;
	if (pd->nr_evsel >= 65536)
		return pd_err(pd, off, "too many event attributes");
	if (pd->nr_evsel == pd->evsel_cap) {
		uint32_t cap = pd->evsel_cap ? pd->evsel_cap * 2 : 8;
		struct pd_evsel **n = realloc(pd->evsel, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pd->evsel = n;
		pd->evsel_cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* older attrs are zero-extended, newer ones cut to what we know */
	memcpy(&e->ev.attr, attr, sz < sizeof(e->ev.attr) ? sz : sizeof(e->ev.attr));
	e->ev.idx = pd->nr_evsel;
	if (nr_ids) {
		e->ev.ids = malloc(nr_ids * sizeof(uint64_t));
		if (!e->ev.ids) {
			free(e);
			return -ENOMEM;
		}
		memcpy(e->ev.ids, ids, nr_ids * sizeof(uint64_t));
		e->ev.nr_ids = nr_ids;
	}
	compute_positions(e);
	/*
	 * Named at once, so that no evsel is ever seen without a name, and
	 * only this one: renaming them all per attr is quadratic in a pipe.
	 */
	err = finalize_evsel(pd, e);
	if (err) {
		free(e->ev.ids);
		free(e);
		return err;
	}
	pd->evsel[pd->nr_evsel++] = e;
	for (i = 0; i < nr_ids; i++) {
		err = pd_map_id(pd, e->ev.ids[i], e->ev.idx);
		if (err)
			return err;
	}
	return 0;
}

/* ---- event names, spelled as perf 6.1's evsel__name() does ---- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};

/* Which ops each cache type supports (read, write, prefetch bits). */
static const uint8_t cache_ops_valid[] = { 7, 5, 7, 7, 1, 1, 7 };
static const char *const cache_op_names[][2] = {
	{ "load", "loads" }, { "store", "stores" },
	{ "prefetch", "prefetches" },
};
static const char *const cache_result_names[] = { "refs", "misses" };

/*
 * The ":ukhppp HG" suffix perf derives from the exclude bits. Guest/host
 * letters only show when exclude_guest differs from what perf would have
 * set by default for such an event.
 */
static size_t add_modifiers(const struct perf_event_attr *a, char *bf,
			    size_t size)
{
	char mods[16];
	size_t n = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mods[n++] = 'k';
		if (!a->exclude_user)
			mods[n++] = 'u';
		if (!a->exclude_hv)
			mods[n++] = 'h';
		guest_default = true;
	}
	if (a->precise_ip) {
		unsigned int p;

		for (p = 0; p < a->precise_ip && p < 3; p++)
			mods[n++] = 'p';
		guest_default = true;
	}
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mods[n++] = 'H';
		if (!a->exclude_guest)
			mods[n++] = 'G';
	}
	if (!n)
		return 0;
	return snprintf(bf, size, ":%.*s", (int)n, mods);
}

static void derive_name(const struct pd_evsel *e, char *bf, size_t size)
{
	const struct perf_event_attr *a = &e->ev.attr;
	uint64_t c = a->config;
	size_t r = 0;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		r = snprintf(bf, size, "%s", c < ARRAY_SIZE(hw_names) ?
			     hw_names[c] : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		r = snprintf(bf, size, "%s", c < ARRAY_SIZE(sw_names) ?
			     sw_names[c] : "unknown-software");
		break;
	case PERF_TYPE_RAW:
		r = snprintf(bf, size, "raw 0x%" PRIx64, c);
		break;
	case PERF_TYPE_HW_CACHE: {
		unsigned int type = c & 0xff, op = (c >> 8) & 0xff;
		unsigned int res = (c >> 16) & 0xff;
		const char *err = NULL;

		if (type >= ARRAY_SIZE(cache_names))
			err = "unknown-ext-hardware-cache-type";
		else if (op >= ARRAY_SIZE(cache_op_names))
			err = "unknown-ext-hardware-cache-op";
		else if (res >= ARRAY_SIZE(cache_result_names))
			err = "unknown-ext-hardware-cache-result";
		else if (!(cache_ops_valid[type] & (1 << op)))
			err = "invalid-cache";
		if (err)
			r = snprintf(bf, size, "%s", err);
		else if (res)
			r = snprintf(bf, size, "%s-%s-%s", cache_names[type],
				     cache_op_names[op][0],
				     cache_result_names[res]);
		else
			r = snprintf(bf, size, "%s-%s", cache_names[type],
				     cache_op_names[op][1]);
		break;
	}
	case PERF_TYPE_TRACEPOINT:
		if (e->ev.tp)
			snprintf(bf, size, "%s:%s", e->ev.tp->system,
				 e->ev.tp->name);
		else
			snprintf(bf, size, "unknown tracepoint");
		return;	/* perf adds no modifiers to tracepoint names */
	case PERF_TYPE_BREAKPOINT:
		r = snprintf(bf, size, "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr,
			     (a->bp_type & 1) ? "r" : "",
			     (a->bp_type & 2) ? "w" : "",
			     (a->bp_type & 4) ? "x" : "");
		break;
	default:
		snprintf(bf, size, "unknown attr type: %u", a->type);
		return;
	}
	if (r < size)
		add_modifiers(a, bf + r, size - r);
}

/*
 * Names are interned for the reader's life and never freed on a rename:
 * a pipe may rename an event (EVENT_UPDATE, a late EVENT_DESC, tracing
 * data naming a tracepoint) after samples were delivered, and consumers
 * keep the name those samples carried, as `perf script` prints each
 * sample with the name its event had then. Interning also bounds what
 * renames back and forth can take to the distinct names. On failure the
 * previous name stays.
 */
int pd_set_name(struct perf_data *pd, struct pd_evsel *e, const char *name,
		size_t len)
{
	int id;

	if (!pd->names) {
		pd->names = strpool__new();
		if (!pd->names)
			return -ENOMEM;
	}
	id = strpool__intern(pd->names, name, strnlen(name, len));
	if (id < 0)
		return id;
	e->ev.name = strpool__str(pd->names, id);
	return 0;
}

/* Tracepoint format and derived name of one evsel. */
static int finalize_evsel(struct perf_data *pd, struct pd_evsel *e)
{
	char bf[160];

	if (e->ev.attr.type == PERF_TYPE_TRACEPOINT && pd->tep &&
	    !e->ev.tp && e->ev.attr.config <= INT32_MAX)
		e->ev.tp = tep_find_event(pd->tep, e->ev.attr.config);
	if (e->name_fixed)
		return 0;
	derive_name(e, bf, sizeof(bf));
	if (e->ev.name && !strcmp(e->ev.name, bf))
		return 0;
	return pd_set_name(pd, e, bf, strlen(bf));
}

/*
 * Attach tracepoint formats and give every evsel without a recorded name
 * the one perf would derive. Called again when tracing data or event
 * descriptions arrive later in a pipe.
 */
int pd_finalize_evsels(struct perf_data *pd)
{
	uint32_t i;
	int err;

	for (i = 0; i < pd->nr_evsel; i++) {
		err = finalize_evsel(pd, pd->evsel[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- file layout ---- */

static bool in_file(const struct perf_data *pd, uint64_t off, uint64_t size)
{
	return off <= pd->len && size <= pd->len - off;
}

static int read_attrs(struct perf_data *pd, uint64_t attr_size,
		      uint64_t off, uint64_t size)
{
	uint64_t nr, i, total_ids = 0;
	int err;

	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > MAX_ATTR_SIZE)
		return pd_err(pd, 16, "impossible attr size %" PRIu64, attr_size);
	if (!in_file(pd, off, size))
		return pd_err(pd, 24, "attrs section (%" PRIu64 " bytes at %"
			      PRIu64 ") is beyond the end of the file (%zu bytes)",
			      size, off, pd->len);
	nr = size / attr_size;
	if (!nr)
		return pd_err(pd, 24, "no event attributes in the file");
	for (i = 0; i < nr; i++) {
		uint64_t a = off + i * attr_size;
		const uint8_t *p = pd->buf + a;
		uint64_t ids_off = pd_u64(p + attr_size - 16);
		uint64_t ids_size = pd_u64(p + attr_size - 8);

		if (!in_file(pd, ids_off, ids_size))
			return pd_err(pd, a + attr_size - 16,
				      "ids of attr %" PRIu64 " are beyond the end of the file",
				      i);
		/*
		 * Attrs may all name the same ids; each would copy and map
		 * them, quadratic in the file size. perf writes each id once.
		 */
		total_ids += ids_size / 8;
		if (total_ids > pd->len / 8)
			return pd_err(pd, a + attr_size - 16,
				      "ids sections hold more ids than the file has room for");
		err = pd_add_attr(pd, p, attr_size - 16, pd->buf + ids_off,
				  ids_size / 8, a);
		if (err)
			return err;
	}
	return 0;
}

static int read_features(struct perf_data *pd, uint64_t table)
{
	unsigned int feat, n = 0;
	int err;

	for (feat = 0; feat < PERF_FEAT_BITS; feat++) {
		uint64_t so = table + n * 16, off, size;

		if (!(pd->feat_bitmap[feat / 64] & (1ULL << (feat % 64))))
			continue;
		n++;
		if (!in_file(pd, so, 16))
			return pd_err(pd, so, "feature table is beyond the end of the file");
		off = pd_u64(pd->buf + so);
		size = pd_u64(pd->buf + so + 8);
		if (!in_file(pd, off, size))
			return pd_err(pd, so, "feature %u section (%" PRIu64
				      " bytes at %" PRIu64 ") is beyond the end of the file",
				      feat, size, off);
		err = pd_feature(pd, feat, pd->buf + off, size, off);
		if (err)
			return err;
	}
	return 0;
}

static int open_file_layout(struct perf_data *pd)
{
	const uint8_t *b = pd->buf;
	uint64_t hsize, attr_size, data_off, data_size;
	int err;

	if (pd->len < PERF_FILE_HEADER_OLD_SIZE)
		return pd_err(pd, pd->len, "file header truncated (%zu of %d bytes)",
			      pd->len, PERF_FILE_HEADER_SIZE);
	hsize = pd_u64(b + 8);
	if (hsize == PERF_FILE_HEADER_SIZE) {
		if (pd->len < PERF_FILE_HEADER_SIZE)
			return pd_err(pd, pd->len, "file header truncated (%zu of %d bytes)",
				      pd->len, PERF_FILE_HEADER_SIZE);
		memcpy(pd->feat_bitmap, b + 72, sizeof(pd->feat_bitmap));
	} else if (hsize != PERF_FILE_HEADER_OLD_SIZE) {
		return pd_err(pd, 8, "unknown file header size %" PRIu64, hsize);
	}
	attr_size = pd_u64(b + 16);
	data_off = pd_u64(b + 40);
	data_size = pd_u64(b + 48);
	if (!in_file(pd, data_off, data_size))
		return pd_err(pd, 40, "data section (%" PRIu64 " bytes at %" PRIu64
			      ") is beyond the end of the file (%zu bytes): truncated?",
			      data_size, data_off, pd->len);
	pd->hdr.data_offset = data_off;
	pd->hdr.data_size = data_size;
	pd->pos = data_off;
	pd->end = data_off + data_size;

	err = read_attrs(pd, attr_size, pd_u64(b + 24), pd_u64(b + 32));
	if (err)
		return err;
	err = read_features(pd, data_off + data_size);
	if (err)
		return err;
	err = pd_finalize_evsels(pd);
	if (err)
		return err;
	pd->header_done = true;
	return 0;
}

/* The layout the magic says, or the error that refuses it. */
static int check_magic(struct perf_data *pd, const uint8_t *b, size_t len,
		       enum perf_layout *layout)
{
	if (len < 8)
		return pd_err(pd, len, "file too short for a perf.data header");
	*layout = perf_format__sniff(b, len);
	switch (*layout) {
	case PERF_LAYOUT_FILE:
	case PERF_LAYOUT_PIPE:
		return 0;
	case PERF_LAYOUT_SWAPPED:
		return pd_err_errno(pd, -ENOTSUP, 0,
				    "other-endian perf.data is not supported; convert it on a machine of that byte order");
	case PERF_LAYOUT_V1:
		return pd_err_errno(pd, -ENOTSUP, 0,
				    "perf.data version 1 (PERFFILE) is not supported");
	case PERF_LAYOUT_NONE:
		break;
	}
	return pd_err(pd, 0, "not a perf.data file (bad magic)");
}

static int open_in_memory(struct perf_data *pd)
{
	enum perf_layout layout;
	int err = check_magic(pd, pd->buf, pd->len, &layout);

	if (err)
		return err;
	if (layout == PERF_LAYOUT_PIPE) {
		pd->pipe = true;
		pd->hdr.pipe_mode = true;
		pd->pos = PERF_PIPE_HEADER_SIZE;
		pd->end = pd->len;
		return pd_read_pipe_header(pd);
	}
	return open_file_layout(pd);
}

static struct perf_data *pd_alloc(void)
{
	struct perf_data *pd = calloc(1, sizeof(*pd));

	if (pd) {
		pd->fd = -1;
		pd->q_max_nr = PD_QUEUE_MAX_NR;
		pd->q_max_bytes = PD_QUEUE_MAX_BYTES;
	}
	return pd;
}

static int finish_open(struct perf_data **pdp, struct perf_data *pd, int err)
{
	*pdp = pd;
	return err;
}

int perf_data__open_mem(struct perf_data **pdp, const void *buf, size_t len)
{
	struct perf_data *pd = pd_alloc();

	*pdp = NULL;
	if (!pd)
		return -ENOMEM;
	pd->buf = buf;
	pd->len = len;
	return finish_open(pdp, pd, open_in_memory(pd));
}

static int open_stream(struct perf_data *pd)
{
	enum perf_layout layout;
	uint8_t h[16];
	size_t n = 0;
	ssize_t r;

	r = pd_sread(pd, h, sizeof(h));
	if (r < 0)
		return pd_err_errno(pd, (int)r, 0, "read error: %s",
				    strerror((int)-r));
	n = r;
	r = check_magic(pd, h, n, &layout);
	if (r)
		return r;
	if (n < 16)
		return pd_err(pd, n, "header truncated");
	if (layout != PERF_LAYOUT_PIPE)
		return pd_err_errno(pd, -ENOTSUP, 8,
				    "file layout perf.data on a pipe: give the file name, or record with -o -");
	pd->pipe = true;
	pd->hdr.pipe_mode = true;
	return pd_read_pipe_header(pd);
}

static int open_fd(struct perf_data *pd, const void *prefix, size_t plen)
{
	struct stat st;

	if (fstat(pd->fd, &st))
		return pd_err_errno(pd, -errno, 0, "cannot stat: %s",
				    strerror(errno));
	if (S_ISREG(st.st_mode)) {
		if (!st.st_size)
			return pd_err(pd, 0, "empty file");
		pd->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE,
			       pd->fd, 0);
		if (pd->map == MAP_FAILED) {
			pd->map = NULL;
			return pd_err_errno(pd, -errno, 0, "cannot map: %s",
					    strerror(errno));
		}
		pd->map_len = st.st_size;
		madvise(pd->map, pd->map_len, MADV_SEQUENTIAL);
		pd->buf = pd->map;
		pd->len = pd->map_len;
		return open_in_memory(pd);
	}
	pd->stream = true;
	if (plen) {
		pd->prefix = malloc(plen);
		if (!pd->prefix)
			return -ENOMEM;
		memcpy(pd->prefix, prefix, plen);
		pd->prefix_len = plen;
	}
	return open_stream(pd);
}

int perf_data__open_fd(struct perf_data **pdp, int fd, const void *prefix,
		       size_t prefix_len)
{
	struct perf_data *pd = pd_alloc();

	*pdp = NULL;
	if (!pd)
		return -ENOMEM;
	pd->fd = fd;
	return finish_open(pdp, pd, open_fd(pd, prefix, prefix_len));
}

int perf_data__open(struct perf_data **pdp, const char *path)
{
	struct perf_data *pd = pd_alloc();

	*pdp = NULL;
	if (!pd)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		pd->fd = STDIN_FILENO;
	} else {
		pd->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (pd->fd < 0)
			return finish_open(pdp, pd, pd_err_errno(pd, -errno, 0,
					   "cannot open: %s", strerror(errno)));
		pd->own_fd = true;
	}
	return finish_open(pdp, pd, open_fd(pd, NULL, 0));
}

void perf_data__delete(struct perf_data *pd)
{
	uint32_t i;

	if (!pd)
		return;
	pd_process_free(pd);
	for (i = 0; i < pd->nr_evsel; i++) {
		free(pd->evsel[i]->ev.ids);
		free(pd->evsel[i]);
	}
	free(pd->evsel);
	strpool__delete(pd->names);
	free(pd->ids);
	if (pd->tep)
		tep_free(pd->tep);
	free(pd->bids);
	for (i = 0; i < pd->nr_strs; i++)
		free(pd->strs[i]);
	free(pd->strs);
	free(pd->hdr.hostname);
	free(pd->rstat_spans);
	free(pd->hdr.os_release);
	free(pd->hdr.perf_version);
	free(pd->hdr.arch);
	free(pd->hdr.cpudesc);
	free(pd->hdr.cmdline);
	if (pd->map)
		munmap(pd->map, pd->map_len);
	if (pd->own_fd)
		close(pd->fd);
	free(pd->prefix);
	free(pd->ibuf);
	free(pd->rbuf);
	free(pd->pbuf);
	free(pd);
}

const struct perf_header_info *perf_data__header(const struct perf_data *pd)
{
	return &pd->hdr;
}

const struct perf_data_stats *perf_data__stats(const struct perf_data *pd)
{
	return &pd->stats;
}

uint32_t perf_data__nr_evsel(const struct perf_data *pd)
{
	return pd->nr_evsel;
}

struct rs_evsel *perf_data__evsel(const struct perf_data *pd, uint32_t idx)
{
	return idx < pd->nr_evsel ? &pd->evsel[idx]->ev : NULL;
}

struct tep_handle *perf_data__tep(const struct perf_data *pd)
{
	return pd->tep;
}

uint32_t perf_data__nr_build_ids(const struct perf_data *pd)
{
	return pd->nr_bids;
}

const struct perf_build_id *perf_data__build_id(const struct perf_data *pd,
						 uint32_t idx)
{
	return idx < pd->nr_bids ? &pd->bids[idx] : NULL;
}

const char *perf_data__strerror(const struct perf_data *pd)
{
	return pd ? pd->err : "";
}

bool perf_data__sniff(const void *buf, size_t len)
{
	enum perf_layout layout = perf_format__sniff(buf, len);

	return layout == PERF_LAYOUT_FILE || layout == PERF_LAYOUT_PIPE ||
	       layout == PERF_LAYOUT_SWAPPED;
}
