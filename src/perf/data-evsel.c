// SPDX-License-Identifier: GPL-2.0
/*
 * The bottom of the perf.data reader, under data-features.c,
 * data-process.c and data.c: the error slot, owned strings, the attrs with
 * their ids (the id -> event map), event names and the blank sample.
 * Everything above calls down into this file; it calls none of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "data-int.h"
#include "util.h"

const struct rs_sample pd_sample_blank = {
	.period = 1,
	.cpu = (uint32_t)-1,
};

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

/* ---- sample id -> evsel map (a hashtab: ids are sparse) ---- */

struct pd_idmap *pd_id_find(struct perf_data *pd, uint64_t id)
{
	return hashtab__find(&pd->ids, id, 0);
}

int pd_id2idx(const struct perf_data *pd, uint64_t id)
{
	const struct pd_idmap *m = hashtab__find(&pd->ids, id, 0);

	return m ? (int)m->idx1 - 1 : -1;
}

int pd_map_id(struct perf_data *pd, uint64_t id, uint32_t idx)
{
	struct pd_idmap *m;
	bool fresh;

	m = hashtab__get(&pd->ids, id, 0, &fresh);
	if (!m)
		return -ENOMEM;
	/* first mapping wins, as in perf's evlist */
	if (fresh)
		m->idx1 = idx + 1;
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
