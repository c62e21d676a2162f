// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's one JSON reader (include/json-read.h): report --json
 * profiles read back by compare and plot, bench results files, the
 * kernel spans a recording carries. Strict to RFC 8259 (a number's
 * grammar, valid UTF-8, no duplicate member) and bounded (nesting depth,
 * number of values), so that no input makes it use unbounded stack or
 * memory; every error names the line.
 *
 * Inputs arrive by mail, so the tree must cost at most a small multiple
 * of the text: "[0,0,0,...]" spends 2 bytes of text per value. Hence two
 * passes over the text with the same code: the first only checks it and
 * counts the nodes and string bytes the tree needs, the second builds
 * the tree into one block of exactly that size, with no growing array
 * and no allocation per value. A node is 12 bytes (6x its 2 bytes of
 * text at the least), a string its decoded bytes and a NUL (<= its
 * quoted text); with the text itself, 7x and a constant.
 *
 * A node points at its children or its string by an offset from itself,
 * 32 bits (the block is under 2 GiB), fixed up the one time it moves.
 *
 * The block holds the nodes, then the strings. The second pass keeps the
 * values of the containers still open on a stack at the bottom of the
 * node area; when a container closes, its children (now contiguous on
 * the stack) move to the top of the area, which fills downwards, and the
 * container takes their place on the stack. Every node is then in one of
 * the two regions, so they never meet, and the root ends at node 0 with
 * every container's children contiguous: element i is found at once.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json-read.h"
#include "util.h"

/* struct jv's hdr: the type, a flag, the line the value starts on. */
#define JV_TYPE_MASK	0x7u
#define JV_DOC		0x7u	/* the handle jv__parse() fills */
#define JV_FLAG		0x8u	/* J_BOOL: true; J_NUM: exact in u */
#define JV_LINE_SHIFT	4
/* Lines must fit in the 28 bits left: refuse text that could pass them. */
#define JV_MAX_TEXT	((size_t)1 << (32 - JV_LINE_SHIFT))

struct jparse {
	const char *p, *end;
	unsigned int line;
	size_t values;		/* counted against JV_MAX_VALUES */
	bool build;		/* second pass: fill the block */
	size_t nodes;		/* first pass: nodes (values and names) */
	size_t sbytes;		/* first pass: string bytes with NULs */
	struct jv *node;	/* second pass: the block's nodes */
	size_t sp, top;		/* stack [0, sp), closed [top, nodes) */
	char *s;		/* the block's strings, filled in order */
	struct jv scratch;	/* first pass: what push() gives */
	const char *dup;	/* the first duplicate name, by its place */
	unsigned int dup_line;
	char msg[160];
	unsigned int err_line;
};

static unsigned int hdr(unsigned int type, bool flag, unsigned int line)
{
	return type | (flag ? JV_FLAG : 0) | line << JV_LINE_SHIFT;
}

/* The payload, unaligned: a number's 8 bytes, or an offset and a count. */
static uint64_t get_u64(const struct jv *v)
{
	uint64_t u;

	memcpy(&u, v->w, sizeof(u));
	return u;
}

static void set_u64(struct jv *v, uint64_t u)
{
	memcpy(v->w, &u, sizeof(u));
}

static double get_double(const struct jv *v)
{
	double d;

	memcpy(&d, v->w, sizeof(d));
	return d;
}

static void set_double(struct jv *v, double d)
{
	memcpy(v->w, &d, sizeof(d));
}

/* A container's first child; a string's text. */
static const struct jv *kids_of(const struct jv *v)
{
	return v + (int32_t)v->w[0];
}

static const char *str_of(const struct jv *v)
{
	return (const char *)v + (int32_t)v->w[0];
}

/* A document handle stands for its root, the first node of the block. */
static struct jv *block_of(const struct jv *v)
{
	struct jv *b;

	memcpy(&b, v->w, sizeof(b));
	return b;
}

static const struct jv *val(const struct jv *v)
{
	if (v && (v->hdr & JV_TYPE_MASK) == JV_DOC)
		return block_of(v);
	return v;
}

void jv__free(struct jv *v)
{
	/* Nodes inside a tree own nothing; only the handle frees. */
	if ((v->hdr & JV_TYPE_MASK) == JV_DOC)
		free(block_of(v));
	memset(v, 0, sizeof(*v));
}

static int jfail(struct jparse *jp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int jfail(struct jparse *jp, const char *fmt, ...)
{
	va_list ap;

	if (!jp->msg[0]) {
		va_start(ap, fmt);
		vsnprintf(jp->msg, sizeof(jp->msg), fmt, ap);
		va_end(ap);
		jp->err_line = jp->line;
	}
	return -EINVAL;
}

static void skip_ws(struct jparse *jp)
{
	while (jp->p < jp->end) {
		if (*jp->p == '\n')
			jp->line++;
		else if (*jp->p != ' ' && *jp->p != '\t' && *jp->p != '\r')
			return;
		jp->p++;
	}
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			v |= (uint32_t)(p[i] - '0');
		else if (p[i] >= 'a' && p[i] <= 'f')
			v |= (uint32_t)(p[i] - 'a' + 10);
		else if (p[i] >= 'A' && p[i] <= 'F')
			v |= (uint32_t)(p[i] - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * A new node on the stack, or only counted in the first pass (where the
 * returned scratch node is never read).
 */
static struct jv *push(struct jparse *jp, unsigned int type, bool flag,
		       unsigned int line)
{
	struct jv *v;

	if (!jp->build) {
		jp->nodes++;
		return &jp->scratch;
	}
	/* The first pass counted these nodes: this cannot happen. */
	if (jp->sp >= jp->top)
		return NULL;
	v = &jp->node[jp->sp++];
	memset(v, 0, sizeof(*v));
	v->hdr = hdr(type, flag, line);
	return v;
}

/*
 * A string literal at jp->p (the opening quote): checked, and in the
 * second pass decoded into the block's strings (*out, *n bytes); the
 * first pass counts its bytes.
 */
static int parse_string(struct jparse *jp, struct jv *v)
{
	const char *start = ++jp->p, *q;
	char tmp[4], *s, *o;
	uint32_t c, lo;
	size_t n;

	for (q = start; q < jp->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < jp->end)
			q++;
	if (q >= jp->end)
		return jfail(jp, "unterminated string");
	/* Escapes only shrink: the raw length bounds the decoded one. */
	s = o = jp->build ? jp->s : NULL;
	n = 0;
#define PUT(src, k) do {						\
		if (o)							\
			memcpy(o + n, (src), (k));			\
		n += (k);						\
	} while (0)
	while (jp->p < q) {
		unsigned char ch = (unsigned char)*jp->p;
		char e;
		int k;

		if (ch < 0x20)
			return jfail(jp, "control character in a string");
		if (ch >= 0x80) {
			k = json__utf8_len((const unsigned char *)jp->p,
					   (size_t)(q - jp->p));
			if (!k)
				return jfail(jp, "invalid UTF-8 in a string");
			PUT(jp->p, (size_t)k);
			jp->p += k;
			continue;
		}
		if (ch != '\\') {
			PUT(jp->p, 1);
			jp->p++;
			continue;
		}
		jp->p++;
		switch (*jp->p) {
		case '"': case '\\': case '/':
			e = *jp->p;
			break;
		case 'b': e = '\b'; break;
		case 'f': e = '\f'; break;
		case 'n': e = '\n'; break;
		case 'r': e = '\r'; break;
		case 't': e = '\t'; break;
		case 'u':
			if (q - jp->p < 5 || hex4(jp->p + 1, &c))
				goto bad_escape;
			jp->p += 4;
			if (c >= 0xdc00 && c <= 0xdfff)
				goto bad_escape;
			if (c >= 0xd800 && c <= 0xdbff) {
				if (q - jp->p < 7 || jp->p[1] != '\\' ||
				    jp->p[2] != 'u' || hex4(jp->p + 3, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					goto bad_escape;
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				jp->p += 6;
			}
			/* C strings: an embedded NUL would cut them. */
			if (!c)
				goto bad_escape;
			PUT(tmp, put_utf8(tmp, c));
			jp->p++;
			continue;
		default:
			goto bad_escape;
		}
		PUT(&e, 1);
		jp->p++;
	}
#undef PUT
	jp->p = q + 1;
	if (o) {
		o[n] = '\0';
		jp->s += n + 1;
		v->w[0] = (uint32_t)(int32_t)(s - (char *)v);
		v->w[1] = (uint32_t)n;
	} else {
		jp->sbytes += n + 1;
	}
	return 0;
bad_escape:
	return jfail(jp, "invalid escape in a string");
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A number, to the JSON grammar. Non-negative integers are kept exactly
 * (up to UINT64_MAX), whose nearest double is (double)u; any other as
 * the nearest double, which must be finite.
 */
static int parse_number(struct jparse *jp, unsigned int line)
{
	const char *s = jp->p, *p = s;
	bool frac = false, neg = false;
	char buf[64], *endp;
	uint64_t u = 0;
	struct jv *v;
	double d;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p >= jp->end || !is_digit(*p))
		return jfail(jp, "invalid number");
	if (*p == '0' && p + 1 < jp->end && is_digit(p[1]))
		return jfail(jp, "invalid number (leading zero)");
	while (p < jp->end && is_digit(*p)) {
		if (u > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return jfail(jp, "number out of range");
		u = u * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (p < jp->end && *p == '.') {
		frac = true;
		p++;
		if (p >= jp->end || !is_digit(*p))
			return jfail(jp, "invalid number");
		while (p < jp->end && is_digit(*p))
			p++;
	}
	if (p < jp->end && (*p == 'e' || *p == 'E')) {
		frac = true;
		p++;
		if (p < jp->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= jp->end || !is_digit(*p))
			return jfail(jp, "invalid number");
		while (p < jp->end && is_digit(*p))
			p++;
	}
	if ((size_t)(p - s) >= sizeof(buf))
		return jfail(jp, "number too long");
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	d = strtod(buf, &endp);
	if (endp != buf + (p - s) || !isfinite(d))
		return jfail(jp, "number out of range");
	jp->p = p;
	v = push(jp, J_NUM, !neg && !frac, line);
	if (!v)
		return -EFAULT;
	if (!neg && !frac)
		set_u64(v, u);
	else
		set_double(v, d);
	return 0;
}

static bool match_word(struct jparse *jp, const char *w)
{
	size_t len = strlen(w);

	if ((size_t)(jp->end - jp->p) < len || memcmp(jp->p, w, len))
		return false;
	jp->p += len;
	return true;
}

static int parse_value(struct jparse *jp, int depth);

/* The names of an object's members by their text, then their place. */
static int cmp_name(const void *a, const void *b)
{
	const char *x = str_of(*(const struct jv * const *)a);
	const char *y = str_of(*(const struct jv * const *)b);
	int c = strcmp(x, y);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

static int cmp_name_text(const struct jv *x, const struct jv *y)
{
	return strcmp(str_of(x), str_of(y));
}

/* Keep the duplicate name that comes first in the text. */
static void note_dup(struct jparse *jp, const struct jv *name)
{
	const char *s = str_of(name);

	if (!jp->dup || s < jp->dup) {
		jp->dup = s;
		jp->dup_line = name->hdr >> JV_LINE_SHIFT;
	}
}

/*
 * A duplicate among the n members of an object on the stack (names at
 * even places). Checked when the object closes, sorting its names: what
 * is kept is the duplicate that comes first in the text (strings fill
 * the block in the text's order), so the message is the one a check at
 * each name would give, whichever object it is in.
 */
static int find_dup(struct jparse *jp, struct jv *kids, size_t n)
{
	const struct jv *small[16], **names = small;
	size_t i, j;

	if (n < 2)
		return 0;
	if (n > ARRAY_SIZE(small)) {
		names = malloc(n * sizeof(*names));
		if (!names)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		names[i] = &kids[2 * i];
	if (n > ARRAY_SIZE(small)) {
		qsort(names, n, sizeof(*names), cmp_name);
		for (i = 1; i < n; i++)
			if (!cmp_name_text(names[i], names[i - 1]))
				note_dup(jp, names[i]);
		free(names);
		return 0;
	}
	for (i = 1; i < n; i++)
		for (j = 0; j < i; j++)
			if (!cmp_name_text(names[i], names[j]))
				note_dup(jp, names[i]);
	return 0;
}

/* A member name and its colon. */
static int parse_key(struct jparse *jp)
{
	unsigned int line = jp->line;
	struct jv *k;
	int err;

	if (jp->p >= jp->end || *jp->p != '"')
		return jfail(jp, "expected a member name");
	k = push(jp, J_STR, false, line);
	if (!k)
		return -EFAULT;
	err = parse_string(jp, k);
	if (err)
		return err;
	skip_ws(jp);
	if (jp->p >= jp->end || *jp->p != ':')
		return jfail(jp, "expected ':'");
	jp->p++;
	return 0;
}

/*
 * A container's children (names and values alternating in an object)
 * move from the stack to the closed area; the container takes their
 * place on the stack.
 */
static int close_container(struct jparse *jp, size_t base, unsigned int type,
			   unsigned int line, size_t n)
{
	size_t i, k = jp->sp - base, delta = 0;
	struct jv *v, *c;
	int err;

	if (jp->build) {
		if (type == J_OBJ) {
			err = find_dup(jp, &jp->node[base], n);
			if (err)
				return err;
		}
		if (k) {
			jp->top -= k;
			delta = jp->top - base;
			memmove(&jp->node[jp->top], &jp->node[base],
				k * sizeof(*v));
			/* Offsets are from the node, which moved on. */
			for (i = 0; i < k; i++) {
				c = &jp->node[jp->top + i];
				switch (c->hdr & JV_TYPE_MASK) {
				case J_STR:
					c->w[0] -= (uint32_t)(delta *
							      sizeof(*c));
					break;
				case J_ARR:
				case J_OBJ:
					if (c->w[1])
						c->w[0] -= (uint32_t)delta;
					break;
				}
			}
		}
		jp->sp = base;
	}
	v = push(jp, type, false, line);
	if (!v)
		return -EFAULT;
	/* Its children follow it: they are at top, it is at base. */
	v->w[0] = (uint32_t)delta;
	v->w[1] = (uint32_t)n;
	return 0;
}

/* Elements of an array or members of an object, from the bracket. */
static int parse_container(struct jparse *jp, bool obj, unsigned int line,
			   int depth)
{
	char close = obj ? '}' : ']';
	size_t base = jp->sp, n = 0;
	int err;

	jp->p++;
	skip_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		return close_container(jp, base, obj ? J_OBJ : J_ARR, line, 0);
	}
	for (;;) {
		skip_ws(jp);
		if (obj) {
			err = parse_key(jp);
			if (err)
				return err;
		}
		err = parse_value(jp, depth + 1);
		if (err)
			return err;
		n++;
		skip_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			return close_container(jp, base, obj ? J_OBJ : J_ARR,
					       line, n);
		}
		if (jp->p >= jp->end)
			return jfail(jp, "unexpected end of input");
		return jfail(jp, obj ? "expected ',' or '}'" :
				       "expected ',' or ']'");
	}
}

static int parse_value(struct jparse *jp, int depth)
{
	unsigned int line;
	struct jv *v;

	skip_ws(jp);
	line = jp->line;
	if (depth > JV_MAX_DEPTH)
		return jfail(jp, "nested deeper than %d", JV_MAX_DEPTH);
	if (++jp->values > JV_MAX_VALUES)
		return jfail(jp, "more than %u values", JV_MAX_VALUES);
	if (jp->p >= jp->end)
		return jfail(jp, "unexpected end of input");
	switch (*jp->p) {
	case '{':
		return parse_container(jp, true, line, depth);
	case '[':
		return parse_container(jp, false, line, depth);
	case '"':
		v = push(jp, J_STR, false, line);
		if (!v)
			return -EFAULT;
		return parse_string(jp, v);
	case 't':
	case 'f':
	case 'n':
		if (match_word(jp, "true"))
			v = push(jp, J_BOOL, true, line);
		else if (match_word(jp, "false"))
			v = push(jp, J_BOOL, false, line);
		else if (match_word(jp, "null"))
			v = push(jp, J_NULL, false, line);
		else
			return jfail(jp, "invalid literal");
		return v ? 0 : -EFAULT;
	default:
		if (*jp->p == '-' || is_digit(*jp->p))
			return parse_number(jp, line);
		return jfail(jp, "unexpected character '%c'", *jp->p);
	}
}

/* One pass over the whole text. */
static int parse_doc(struct jparse *jp, const char *buf, size_t len)
{
	int ret;

	jp->p = buf;
	jp->end = buf + len;
	jp->line = 1;
	jp->values = 0;
	ret = parse_value(jp, 0);
	if (!ret) {
		skip_ws(jp);
		if (jp->p != jp->end)
			ret = jfail(jp, "trailing data after the JSON value");
	}
	return ret;
}

int jv__parse(const char *buf, size_t len, struct jv *root, char *errbuf,
	      size_t errlen)
{
	struct jparse jp = { 0 };
	struct jv *block = NULL;
	int ret;

	memset(root, 0, sizeof(*root));
	if (len >= JV_MAX_TEXT) {
		errbuf_set(errbuf, errlen, "line 1: over %zu MiB of JSON",
			   JV_MAX_TEXT >> 20);
		return -EINVAL;
	}
	/* First pass: the text's checks, and the size of its tree. */
	ret = parse_doc(&jp, buf, len);
	if (!ret) {
		/* Offsets within the block are 32-bit. */
		if (jp.nodes * sizeof(*block) + jp.sbytes >= INT32_MAX)
			ret = jfail(&jp, "too many values");
		else
			block = malloc(jp.nodes * sizeof(*block) + jp.sbytes);
		if (!ret && !block)
			ret = -ENOMEM;
	}
	if (!ret) {
		jp.build = true;
		jp.node = block;
		jp.sp = 0;
		jp.top = jp.nodes;
		jp.s = (char *)(block + jp.nodes);
		ret = parse_doc(&jp, buf, len);
		/* Both passes read the same text the same way. */
		if (!ret && (jp.sp != 1 || jp.top != 1))
			ret = -EFAULT;
		if (!ret && jp.dup) {
			jp.line = jp.dup_line;
			ret = jfail(&jp, "duplicate member \"%s\"", jp.dup);
		}
	}
	if (ret) {
		free(block);
		if (ret == -ENOMEM)
			errbuf_set(errbuf, errlen, "out of memory");
		else if (ret == -EFAULT)
			errbuf_set(errbuf, errlen, "internal error: the JSON reader's passes disagree");
		else
			errbuf_set(errbuf, errlen, "line %u: %s",
				   jp.err_line, jp.msg);
		return ret;
	}
	root->hdr = JV_DOC;
	memcpy(root->w, &block, sizeof(block));
	return 0;
}

enum jtype jv__type(const struct jv *v)
{
	v = val(v);
	return v ? (enum jtype)(v->hdr & JV_TYPE_MASK) : J_NULL;
}

unsigned int jv__line(const struct jv *v)
{
	v = val(v);
	return v ? v->hdr >> JV_LINE_SHIFT : 0;
}

size_t jv__len(const struct jv *v)
{
	enum jtype t = jv__type(v);

	return t == J_ARR || t == J_OBJ ? val(v)->w[1] : 0;
}

const struct jv *jv__at(const struct jv *v, size_t i)
{
	enum jtype t = jv__type(v);

	if ((t != J_ARR && t != J_OBJ) || i >= val(v)->w[1])
		return NULL;
	return &kids_of(val(v))[t == J_OBJ ? 2 * i + 1 : i];
}

const char *jv__key(const struct jv *v, size_t i)
{
	if (jv__type(v) != J_OBJ || i >= val(v)->w[1])
		return NULL;
	return str_of(&kids_of(val(v))[2 * i]);
}

bool jv__bool(const struct jv *v)
{
	return jv__type(v) == J_BOOL && (val(v)->hdr & JV_FLAG);
}

bool jv__is_u64(const struct jv *v)
{
	return jv__type(v) == J_NUM && (val(v)->hdr & JV_FLAG);
}

uint64_t jv__u64(const struct jv *v)
{
	return jv__is_u64(v) ? get_u64(val(v)) : 0;
}

double jv__num(const struct jv *v)
{
	if (jv__type(v) != J_NUM)
		return 0;
	v = val(v);
	return v->hdr & JV_FLAG ? (double)get_u64(v) : get_double(v);
}

const char *jv__string(const struct jv *v)
{
	return jv__type(v) == J_STR ? str_of(val(v)) : NULL;
}

const struct jv *jv__get(const struct jv *obj, const char *key)
{
	size_t i, n = jv__len(obj);
	const struct jv *kids;

	if (jv__type(obj) != J_OBJ)
		return NULL;
	kids = kids_of(val(obj));
	for (i = 0; i < n; i++)
		if (!strcmp(str_of(&kids[2 * i]), key))
			return &kids[2 * i + 1];
	return NULL;
}

const char *jv__str(const struct jv *obj, const char *key)
{
	return jv__string(jv__get(obj, key));
}
