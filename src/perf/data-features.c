// SPDX-License-Identifier: GPL-2.0
/*
 * Feature sections of perf.data (file mode: after the data; pipe mode:
 * HEADER_FEATURE / HEADER_TRACING_DATA / HEADER_BUILD_ID records with the
 * same payload). A feature we do not understand, or one that is malformed,
 * is skipped and counted: losing a host name must not lose the samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "data-int.h"

/* A bounded cursor over a feature payload. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static const uint8_t *take(struct cur *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t take32(struct cur *c)
{
	const uint8_t *p = take(c, 4);

	return p ? pd_u32(p) : 0;
}

static uint64_t take64(struct cur *c)
{
	const uint8_t *p = take(c, 8);

	return p ? pd_u64(p) : 0;
}

/* perf_header_string: u32 length (padding included), then the bytes. */
static char *take_str(struct cur *c)
{
	uint32_t len = take32(c);
	const uint8_t *p = take(c, len);

	if (!p)
		return NULL;
	return strndup((const char *)p, len);
}

/* A NUL-terminated string inside the tracing data. */
static const char *take_cstr(struct cur *c)
{
	const uint8_t *nul;

	if (c->bad)
		return NULL;
	nul = memchr(c->p, 0, c->end - c->p);
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	return (const char *)take(c, nul - c->p + 1);
}

static int set_str(char **dst, struct cur *c)
{
	char *s = take_str(c);

	if (!s)
		return c->bad ? -EINVAL : -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

static int cmdline(struct perf_data *pd, struct cur *c)
{
	uint32_t nr = take32(c), i;
	size_t len = 0;
	char *out = NULL;

	if (nr > (uint64_t)(c->end - c->p) / 4)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		char *s = take_str(c), *n;
		size_t sl;

		if (!s) {
			free(out);
			return c->bad ? -EINVAL : -ENOMEM;
		}
		sl = strlen(s);
		n = realloc(out, len + sl + 2);
		if (!n) {
			free(s);
			free(out);
			return -ENOMEM;
		}
		out = n;
		if (len)
			out[len++] = ' ';
		memcpy(out + len, s, sl + 1);
		len += sl;
		free(s);
	}
	free(pd->hdr.cmdline);
	pd->hdr.cmdline = out ? out : strdup("");
	return pd->hdr.cmdline ? 0 : -ENOMEM;
}

/*
 * EVENT_DESC: u32 nr, u32 attr_size, then per event the attr, u32 nr_ids,
 * the name string and the ids. Only the names matter to us: the attrs
 * came from the attrs section already.
 */
static int event_desc(struct perf_data *pd, struct cur *c)
{
	uint32_t nr = take32(c), sz = take32(c), i, j;

	if (c->bad || sz < PERF_ATTR_SIZE_VER0 ||
	    nr > (uint64_t)(c->end - c->p) / sz)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		uint32_t nr_ids;
		char *name;
		const uint8_t *ids;
		int idx = -1, err;

		take(c, sz);
		nr_ids = take32(c);
		name = take_str(c);
		if (!name)
			return c->bad ? -EINVAL : -ENOMEM;
		ids = take(c, (uint64_t)nr_ids * 8);
		if (!ids) {
			free(name);
			return -EINVAL;
		}
		for (j = 0; j < nr_ids && idx < 0; j++)
			idx = pd_id2idx(pd, pd_u64(ids + j * 8));
		if (idx < 0 && !nr_ids && i < pd->nr_evsel)
			idx = i;
		if (idx >= 0 && !pd->evsel[idx]->name_fixed) {
			err = pd_set_name(pd, pd->evsel[idx], name,
					  strlen(name));
			if (err) {
				free(name);
				return err;
			}
			pd->evsel[idx]->name_fixed = true;
		}
		free(name);
	}
	return 0;
}

/* One build-id record: header, pid, 24 id bytes, file name. */
int pd_build_id_rec(struct perf_data *pd, const uint8_t *p, uint64_t size)
{
	struct perf_build_id *b;
	uint16_t misc = pd_u16(p + 4);
	char *fn;

	if (size < 8 + 4 + 24)
		return -EINVAL;
	fn = strndup((const char *)p + 36, size - 36);
	if (!fn || pd_keep_str(pd, fn)) {
		free(fn);
		return -ENOMEM;
	}
	if (pd->nr_bids == pd->bids_cap) {
		uint32_t cap = pd->bids_cap ? pd->bids_cap * 2 : 16;
		struct perf_build_id *n = realloc(pd->bids, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pd->bids = n;
		pd->bids_cap = cap;
	}
	b = &pd->bids[pd->nr_bids++];
	memset(b, 0, sizeof(*b));
	b->pid = (int32_t)pd_u32(p + 8);
	b->misc = misc;
	memcpy(b->id, p + 12, 20);
	/* newer perf stores the id length; older ids are SHA-1 sized */
	b->size = (misc & PD_MISC_BUILD_ID_SIZE) ? p[32] : 20;
	if (b->size > 20)
		b->size = 20;
	b->filename = fn;
	return 0;
}

static int build_ids(struct perf_data *pd, struct cur *c)
{
	while (c->p < c->end) {
		uint16_t sz;
		int err;

		if (c->end - c->p < 8)
			return -EINVAL;
		sz = pd_u16(c->p + 6);
		if (sz < 36 || sz > c->end - c->p)
			return -EINVAL;
		err = pd_build_id_rec(pd, c->p, sz);
		if (err)
			return err;
		c->p += sz;
	}
	return 0;
}

/* ---- tracing data (perf's trace-event-read.c layout) ---- */

/*
 * libtraceevent folds constant sub-expressions of a print fmt while
 * parsing, and a word that is not a number folds to 0: "a / b" in a
 * corrupt format divides by zero (SIGFPE). Real formats divide by
 * numbers or by fields, so anything else after '/' or '%' is refused.
 */
static bool print_fmt_safe(const char *fmt, size_t n)
{
	static const char key[] = "print fmt:";
	const char *p = memmem(fmt, n, key, sizeof(key) - 1);
	const char *end = fmt + n;
	bool in_str = false;

	if (!p)
		return true;
	for (p += sizeof(key) - 1; p < end; p++) {
		const char *q;

		if (*p == '\\' && in_str) {
			p++;
			continue;
		}
		if (*p == '"')
			in_str = !in_str;
		if (in_str || (*p != '/' && *p != '%'))
			continue;
		for (q = p + 1; q < end && (*q == ' ' || *q == '('); q++)
			;
		if (q < end && *q >= '1' && *q <= '9')
			continue;
		if (end - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
			continue;
		if (end - q >= 5 && !memcmp(q, "REC->", 5))
			continue;
		return false;
	}
	return true;
}

static int tp_parse_section_list(struct tep_handle *tep, struct cur *c,
				 const char *sys)
{
	uint32_t count = take32(c), i;

	for (i = 0; i < count && !c->bad; i++) {
		uint64_t sz = take64(c);
		const uint8_t *fmt = take(c, sz);

		if (!fmt)
			break;
		/* one bad format must not hide the others, as in perf */
		if (print_fmt_safe((const char *)fmt, sz))
			tep_parse_event(tep, (const char *)fmt, sz, sys);
	}
	return c->bad ? -EINVAL : 0;
}

/*
 * Printk formats ("0xADDR : \"fmt\"" lines) let %s of a kernel pointer
 * print. libtraceevent skips the character after the ':' and trims quotes
 * and a trailing "\\n" without looking, so lines with fewer than a few
 * characters after the ':' are dropped before parsing. It splits a line
 * with strtok_r(), which skips leading ':'s: a line starting with one
 * would be split at a later ':' than the one checked, so it is dropped
 * too (a fuzzed input read before the buffer that way).
 */
static void tp_parse_printk(struct tep_handle *tep, struct cur *c)
{
	uint32_t sz = take32(c);
	const uint8_t *p = take(c, sz);
	const char *line, *end;
	char *s, *o;

	if (!p || !sz)
		return;
	/* a newline may be added, and the NUL; size_t: sz may be ~0U */
	s = malloc((size_t)sz + 2);
	if (!s)
		return;
	o = s;
	for (line = (const char *)p, end = line + sz; line < end;) {
		const char *nl = memchr(line, '\n', end - line);
		const char *le = nl ? nl : end;
		const char *colon = memchr(line, ':', le - line);
		size_t n = le - line;

		if (colon && colon != line && le - colon >= 6 &&
		    !memchr(line, 0, n)) {
			memcpy(o, line, n);
			o += n;
			*o++ = '\n';
		}
		line = le + 1;
	}
	*o = 0;
	if (o != s)
		tep_parse_printk_formats(tep, s);
	free(s);
}

static int parse_tracing(struct perf_data *pd, struct tep_handle *tep,
			 struct cur *c)
{
	static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i',
					 'n', 'g' };
	const uint8_t *m = take(c, sizeof(magic)), *hp;
	const char *version, *s;
	uint32_t nr_sys, i;
	uint64_t sz;
	uint8_t be, lsize;
	char *copy;

	if (!m || memcmp(m, magic, sizeof(magic)))
		return -EINVAL;
	version = take_cstr(c);
	m = take(c, 2);
	if (!version || !m)
		return -EINVAL;
	be = m[0];
	lsize = m[1];
	/* libtraceevent divides by the long size: only 4 and 8 exist */
	if (lsize != 4 && lsize != 8)
		return -EINVAL;
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, lsize);
	tep_set_page_size(tep, take32(c));

	s = take_cstr(c);
	if (!s || strcmp(s, "header_page"))
		return -EINVAL;
	sz = take64(c);
	hp = take(c, sz);
	if (!hp)
		return -EINVAL;
	copy = malloc(sz + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, hp, sz);
	copy[sz] = 0;
	tep_parse_header_page(tep, copy, sz, lsize);
	free(copy);

	s = take_cstr(c);
	if (!s || strcmp(s, "header_event"))
		return -EINVAL;
	sz = take64(c);
	if (!take(c, sz))
		return -EINVAL;

	if (tp_parse_section_list(tep, c, "ftrace"))
		return -EINVAL;
	nr_sys = take32(c);
	for (i = 0; i < nr_sys && !c->bad; i++) {
		const char *sys = take_cstr(c);

		if (!sys || tp_parse_section_list(tep, c, sys))
			return -EINVAL;
	}
	if (c->bad)
		return -EINVAL;
	/*
	 * kallsyms is empty in what perf writes; `rstat-analyze record`
	 * puts the kernel's text symbols there so that a report elsewhere
	 * names kernel frames. Kept as a copy: in a pipe the payload buffer
	 * is reused. Printk formats only help printing, so losing them is
	 * tolerated.
	 */
	sz = take32(c);
	hp = take(c, sz);
	if (hp && sz && !pd->kallsyms) {
		char *ks = malloc((size_t)sz + 1);

		if (!ks || pd_keep_str(pd, ks)) {
			free(ks);
			return -ENOMEM;
		}
		memcpy(ks, hp, sz);
		ks[sz] = 0;
		pd->kallsyms = ks;
		pd->kallsyms_len = sz;
	}
	tp_parse_printk(tep, c);
	return 0;
}

int perf_data__kallsyms(const struct perf_data *pd, const char **text,
			size_t *len)
{
	if (!pd->kallsyms)
		return -ENOENT;
	*text = pd->kallsyms;
	*len = pd->kallsyms_len;
	return 0;
}

int pd_tracing_data(struct perf_data *pd, const uint8_t *p, uint64_t size,
		    uint64_t off)
{
	struct cur c = { p, p + size, false };
	struct tep_handle *tep;
	int err;

	if (pd->tep) {	/* a second copy: keep the first */
		pd->stats.nr_unknown_features++;
		return 0;
	}
	tep = tep_alloc();
	if (!tep)
		return -ENOMEM;
	err = parse_tracing(pd, tep, &c);
	if (err) {
		tep_free(tep);
		if (err == -ENOMEM)
			return err;
		pd->stats.nr_unknown_features++;
		return 0;
	}
	pd->tep = tep;
	pd->had_tracing_data = true;
	return pd_finalize_evsels(pd);
}

int pd_feature(struct perf_data *pd, unsigned int feat, const uint8_t *p,
	       uint64_t size, uint64_t off)
{
	struct cur c = { p, p + size, false };
	int err;

	switch (feat) {
	case PD_FEAT_TRACING_DATA:
		return pd_tracing_data(pd, p, size, off);
	case PD_FEAT_BUILD_ID:
		err = build_ids(pd, &c);
		break;
	case PD_FEAT_HOSTNAME:
		err = set_str(&pd->hdr.hostname, &c);
		break;
	case PD_FEAT_OSRELEASE:
		err = set_str(&pd->hdr.os_release, &c);
		break;
	case PD_FEAT_VERSION:
		err = set_str(&pd->hdr.perf_version, &c);
		break;
	case PD_FEAT_ARCH:
		err = set_str(&pd->hdr.arch, &c);
		break;
	case PD_FEAT_CPUDESC:
		err = set_str(&pd->hdr.cpudesc, &c);
		break;
	case PD_FEAT_NRCPUS: {
		uint32_t avail = take32(&c), online = take32(&c);

		err = c.bad ? -EINVAL : 0;
		if (!err) {
			pd->hdr.nr_cpus_avail = avail;
			pd->hdr.nr_cpus_online = online;
		}
		break;
	}
	case PD_FEAT_CMDLINE:
		err = cmdline(pd, &c);
		break;
	case PD_FEAT_EVENT_DESC:
		err = event_desc(pd, &c);
		break;
	case PD_FEAT_SAMPLE_TIME: {
		uint64_t start = take64(&c), end = take64(&c);

		err = c.bad ? -EINVAL : 0;
		if (!err) {
			pd->hdr.sample_time_start = start;
			pd->hdr.sample_time_end = end;
		}
		break;
	}
	default:
		err = -ENOENT;
		break;
	}
	if (err == -ENOMEM)
		return err;
	if (err)
		pd->stats.nr_unknown_features++;
	return 0;
}
