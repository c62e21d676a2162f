// SPDX-License-Identifier: GPL-2.0
/*
 * Feature sections of perf.data (file mode: after the data; pipe mode:
 * HEADER_FEATURE / HEADER_TRACING_DATA / HEADER_BUILD_ID records with the
 * same payload). A feature we do not understand, or one that is malformed,
 * is skipped and counted: losing a host name must not lose the samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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
	b->size = (misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? p[32] : 20;
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

static bool tp_item_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

static bool tp_space(char ch)
{
	return ch == ' ' || (ch >= '\t' && ch <= '\r');
}

/*
 * The next REC->NAME of a format text from *pos: REC a whole token as
 * libtraceevent reads one (a run of letters, digits and '_'). Strings are
 * not skipped: a REC the library reads as string text is checked too,
 * which real formats never have, and no quoting rule can then make the
 * scan miss one the library reads as code. Returns the start of REC,
 * with *name and *len set (len 0 when no name follows "->": the library
 * then fails to parse, looking nothing up), or NULL.
 */
static const char *tp_next_rec(const char *fmt, size_t n, size_t *pos,
			       const char **name, size_t *len)
{
	size_t i, j;

	for (i = *pos; i + 3 <= n; i++) {
		if (memcmp(fmt + i, "REC", 3) ||
		    (i && tp_item_char(fmt[i - 1])) ||
		    (i + 3 < n && tp_item_char(fmt[i + 3])))
			continue;
		*pos = i + 3;
		for (j = i + 3; j < n && tp_space(fmt[j]); j++)
			;
		if (j + 2 > n || fmt[j] != '-' || fmt[j + 1] != '>')
			continue;
		for (j += 2; j < n && tp_space(fmt[j]); j++)
			;
		*name = fmt + j;
		for (*len = 0; j < n && tp_item_char(fmt[j]); j++)
			(*len)++;
		return fmt + i;
	}
	return NULL;
}

/*
 * libtraceevent reads a quoted string up to a quote whose previous byte is
 * no backslash (an escaped backslash does not count), and never stops at
 * the end of its input: an unclosed string is a loop without end. Its
 * argument parser reads on at the end of the input inside an open
 * parenthesis, or after an operator, and dereferences the token it did
 * not get. Real formats close their strings and brackets and end on a
 * name, a number, a closing bracket or a string: that is required.
 */
static const char *tp_format_tokens_bad(const char *fmt, size_t n)
{
	int depth[3] = { 0 };	/* () [] {} */
	char last = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char ch = fmt[i];

		if (ch == '"' || ch == '\'') {
			size_t j;

			for (j = i + 1; j < n; j++)
				if (fmt[j] == ch && fmt[j - 1] != '\\')
					break;
			if (j == n)
				return "a string with no end";
			i = j;
			last = ch;
			continue;
		}
		if (strchr("([{", ch) && ch)
			depth[strchr("([{", ch) - "([{"]++;
		else if (strchr(")]}", ch) && ch &&
			 --depth[strchr(")]}", ch) - ")]}"] < 0)
			return "a bracket closed before it is opened";
		if (!tp_space(ch))
			last = ch;
	}
	if (depth[0] || depth[1] || depth[2])
		return "a bracket with no end";
	if (last && !tp_item_char(last) && !strchr(")]}\"'", last))
		return "an end that is not the end of an argument";
	return NULL;
}

/*
 * What libtraceevent's tokenizer reads as the end of its input: a byte
 * neither printable nor space, or the end itself. Its field parser reads
 * on after some tokens without looking at what came: after the '[' of an
 * array field it compares the next token with "]" (strcmp() of NULL when
 * the input ends there or has such a byte there). Real formats are text
 * with every field on a line of its own, its arrays closed on that line:
 * that is required. A field line starts with "field"; a '[' elsewhere
 * (in print fmt strings: "[%u/%u)") is no array. Returns why a format is
 * refused, or NULL.
 */
static const char *tp_format_text_bad(const char *fmt, size_t n)
{
	const char *line = fmt, *end = fmt + n, *why;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = fmt[i];

		if ((ch < 0x20 || ch > 0x7e) && !tp_space(ch))
			return "a byte that is not text";
	}
	why = tp_format_tokens_bad(fmt, n);
	if (why)
		return why;
	while (line < end) {
		const char *nl = memchr(line, '\n', end - line);
		const char *le = nl ? nl : end, *p = line, *q;

		while (p < le && tp_space(*p))
			p++;
		if (le - p >= 5 && !memcmp(p, "field", 5)) {
			if (!nl)
				return "a field line with no end";
			for (; p < le; p++) {
				if (*p != '[')
					continue;
				for (q = p + 1; q < le && *q != ']' &&
				     *q != '"' && *q != '\''; q++)
					;
				if (q == le || *q != ']')
					return "an array field with no ']'";
			}
		}
		line = le + 1;
	}
	return NULL;
}

/* A copy of a format with every REC token renamed REX; NULL: no memory. */
static char *tp_renamed_copy(const char *fmt, size_t n)
{
	char *copy = malloc(n ? n : 1);
	const char *rec, *name;
	size_t pos = 0, len;

	if (!copy)
		return NULL;
	memcpy(copy, fmt, n);
	while ((rec = tp_next_rec(copy, n, &pos, &name, &len)))
		copy[rec - copy + 2] = 'X';
	return copy;
}

/*
 * libtraceevent 1.7.1 looks up the field a REC->NAME names when it comes
 * right after __print_flags( or __print_symbolic(, and marks it without
 * checking that the lookup found one: a print fmt naming a field its
 * format lacks there crashes the process (SIGSEGV in tep_parse_event()).
 * What arms that lookup is a global that only the next REC-> disarms, in
 * whichever format that comes. So no format goes to the library unless
 * every REC->NAME it holds names one of its fields, and the fields are
 * the library's own reading of the format: parsed first into a scratch
 * handle with every REC token renamed, which keeps the token stream (so
 * the field list) as it is while the print args name no field at all.
 *
 * renamed is that copy (tp_renamed_copy()). Returns 0 when the format
 * may be parsed as it is, 1 when it may not (*why says why, *ev is its
 * scratch event if it has one).
 */
static int tp_check_fields(struct tep_handle *scratch, const char *fmt,
			   const char *renamed, size_t n, const char *sys,
			   struct tep_event **ev, char *why, size_t why_len)
{
	const char *name;
	size_t pos = 0, len;
	char field[64];

	*ev = NULL;
	tep_parse_format(scratch, ev, renamed, n, sys);
	if (!*ev) {
		snprintf(why, why_len, "its header does not parse");
		return 1;
	}
	while (tp_next_rec(fmt, n, &pos, &name, &len)) {
		if (!len)
			continue;
		if (len >= sizeof(field)) {
			snprintf(why, why_len, "print fmt names a %zu-character field",
				 len);
			return 1;
		}
		memcpy(field, name, len);
		field[len] = 0;
		if (!tep_find_any_field(*ev, field)) {
			snprintf(why, why_len, "print fmt names field '%s', which it does not have",
				 field);
			return 1;
		}
	}
	return 0;
}

/*
 * Disarm what a format may have left armed in the library (see above):
 * each REC-> of a format that has the field clears one of the two flags.
 */
static void tp_disarm(struct tep_handle *scratch)
{
	static const char fmt[] =
		"name: rstat_analyze_disarm\nID: 0\nformat:\n"
		"\tfield:int common_pid;\toffset:0;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"%d %d\", REC->common_pid, REC->common_pid\n";

	tep_parse_event(scratch, fmt, sizeof(fmt) - 1, "rstat_analyze");
}

/*
 * Remember a format not used as it is, for the command's note: named as
 * the library read it, else by its first line ("name: NAME") when that
 * is plain text.
 */
static int tp_bad_format(struct perf_data *pd, const char *sys,
			 const struct tep_event *ev, const char *fmt,
			 size_t n, const char *why)
{
	const char *name = "?";
	char bf[64];
	size_t i;
	char *s;

	pd->nr_bad_formats++;
	if (pd->nr_bad_formats > PD_MAX_BAD_FORMATS)
		return 0;
	if (ev && ev->name) {
		name = ev->name;
	} else if (n > 6 && !memcmp(fmt, "name: ", 6)) {
		for (i = 0; i + 6 < n && i < sizeof(bf) - 1 &&
		     tp_item_char(fmt[i + 6]); i++)
			bf[i] = fmt[i + 6];
		bf[i] = 0;
		if (i)
			name = bf;
	}
	if (asprintf(&s, "%s:%s: %s", ev && ev->system ? ev->system : sys,
		     name, why) < 0)
		return -ENOMEM;
	if (pd_keep_str(pd, s)) {
		free(s);
		return -ENOMEM;
	}
	pd->bad_formats[pd->nr_bad_formats - 1] = s;
	return 0;
}

static int tp_parse_section_list(struct perf_data *pd, struct tep_handle *tep,
				 struct tep_handle *scratch, struct cur *c,
				 const char *sys)
{
	uint32_t count = take32(c), i;

	for (i = 0; i < count && !c->bad; i++) {
		uint64_t sz = take64(c);
		const char *fmt = (const char *)take(c, sz);
		struct tep_event *ev;
		const char *bad_text;
		char why[160], *copy;
		int bad, err;

		if (!fmt)
			break;
		/* one bad format must not hide the others, as in perf */
		bad_text = tp_format_text_bad(fmt, sz);
		if (!bad_text && !print_fmt_safe(fmt, sz))
			bad_text = "print fmt divides by a non-number";
		if (bad_text) {
			err = tp_bad_format(pd, sys, NULL, fmt, sz, bad_text);
			if (err)
				return err;
			continue;
		}
		copy = tp_renamed_copy(fmt, sz);
		if (!copy)
			return -ENOMEM;
		bad = tp_check_fields(scratch, fmt, copy, sz, sys, &ev, why,
				      sizeof(why));
		err = 0;
		if (!bad)
			tep_parse_event(tep, fmt, sz, sys);
		else
			err = tp_bad_format(pd, sys, ev, fmt, sz, why);
		/*
		 * A bad format whose field list parsed keeps it, so that its
		 * samples keep their field values: the renamed copy names no
		 * field in its print args, the library looks none up.
		 */
		if (bad && ev && !err)
			tep_parse_event(tep, copy, sz, sys);
		free(copy);
		if (err)
			return err;
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

/* The ftrace formats, then every system's. */
static int tp_parse_formats(struct perf_data *pd, struct tep_handle *tep,
			    struct cur *c, uint8_t lsize, uint8_t be)
{
	struct tep_handle *scratch = tep_alloc();
	uint32_t nr_sys, i;
	int err;

	if (!scratch)
		return -ENOMEM;
	tep_set_file_bigendian(scratch, be ? TEP_BIG_ENDIAN :
				TEP_LITTLE_ENDIAN);
	tep_set_long_size(scratch, lsize);
	err = tp_parse_section_list(pd, tep, scratch, c, "ftrace");
	nr_sys = err ? 0 : take32(c);
	for (i = 0; i < nr_sys && !err && !c->bad; i++) {
		const char *sys = take_cstr(c);

		err = sys ? tp_parse_section_list(pd, tep, scratch, c, sys) :
			    -EINVAL;
	}
	tp_disarm(scratch);
	tep_free(scratch);
	if (!err && c->bad)
		err = -EINVAL;
	return err;
}

static int parse_tracing(struct perf_data *pd, struct tep_handle *tep,
			 struct cur *c)
{
	const uint8_t *m = take(c, PERF_TRACING_MAGIC_LEN), *hp;
	const char *version, *s;
	uint64_t sz;
	uint8_t be, lsize;
	char *copy;
	int err;

	if (!m || memcmp(m, PERF_TRACING_MAGIC, PERF_TRACING_MAGIC_LEN))
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

	err = tp_parse_formats(pd, tep, c, lsize, be);
	if (err)
		return err;
	/*
	 * kallsyms is empty in what perf writes; `rstat-analyze record`
	 * puts the kernel's text symbols there so that a report elsewhere
	 * names kernel frames. A file's (or a caller's buffer's) text is
	 * used where it is: megabytes that a reader which never names a
	 * kernel frame (record's build-id pass) need not copy. A stream's
	 * is kept as a copy: its payload buffer is reused. Printk formats
	 * only help printing, so losing them is tolerated.
	 */
	sz = take32(c);
	hp = take(c, sz);
	if (hp && sz && !pd->kallsyms && !pd->stream) {
		pd->kallsyms = (const char *)hp;
		pd->kallsyms_len = sz;
	} else if (hp && sz && !pd->kallsyms) {
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

uint32_t perf_data__nr_bad_formats(const struct perf_data *pd)
{
	return pd->nr_bad_formats;
}

const char *perf_data__bad_format(const struct perf_data *pd, uint32_t idx)
{
	return idx < pd->nr_bad_formats && idx < PD_MAX_BAD_FORMATS ?
	       pd->bad_formats[idx] : NULL;
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

static int own_text(const char *have, const char **text)
{
	if (!have)
		return -ENOENT;
	*text = have;
	return 0;
}

int perf_data__rstat_spans(const struct perf_data *pd, const char **text)
{
	return own_text(pd->rstat_spans, text);
}

int perf_data__rstat_breakdown(const struct perf_data *pd, const char **text)
{
	return own_text(pd->rstat_breakdown, text);
}

int pd_tracing_data(struct perf_data *pd, const uint8_t *p, uint64_t size,
		    uint64_t off)
{
	struct cur c = { p, p, false };
	struct tep_handle *tep;
	int err;

	/* a second copy: keep the first; none (a stream gives NULL) */
	if (pd->tep || !size) {
		pd->stats.nr_unknown_features++;
		return 0;
	}
	c.end = p + size;
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
	case PERF_FEAT_TRACING_DATA:
		return pd_tracing_data(pd, p, size, off);
	case PERF_FEAT_BUILD_ID:
		err = build_ids(pd, &c);
		break;
	case PERF_FEAT_HOSTNAME:
		err = set_str(&pd->hdr.hostname, &c);
		break;
	case PERF_FEAT_OSRELEASE:
		err = set_str(&pd->hdr.os_release, &c);
		break;
	case PERF_FEAT_VERSION:
		err = set_str(&pd->hdr.perf_version, &c);
		break;
	case PERF_FEAT_ARCH:
		err = set_str(&pd->hdr.arch, &c);
		break;
	case PERF_FEAT_CPUDESC:
		err = set_str(&pd->hdr.cpudesc, &c);
		break;
	case PERF_FEAT_NRCPUS: {
		uint32_t avail = take32(&c), online = take32(&c);

		err = c.bad ? -EINVAL : 0;
		if (!err) {
			pd->hdr.nr_cpus_avail = avail;
			pd->hdr.nr_cpus_online = online;
		}
		break;
	}
	case PERF_FEAT_CMDLINE:
		err = cmdline(pd, &c);
		break;
	case PERF_FEAT_EVENT_DESC:
		err = event_desc(pd, &c);
		break;
	case PERF_FEAT_SAMPLE_TIME: {
		uint64_t start = take64(&c), end = take64(&c);

		err = c.bad ? -EINVAL : 0;
		if (!err) {
			pd->hdr.sample_time_start = start;
			pd->hdr.sample_time_end = end;
		}
		break;
	}
	case PERF_FEAT_RSTAT_SPANS:
		err = set_str(&pd->rstat_spans, &c);
		break;
	case PERF_FEAT_RSTAT_BREAKDOWN:
		err = set_str(&pd->rstat_breakdown, &c);
		break;
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
