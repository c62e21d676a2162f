// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's one JSON reader (include/json-read.h): report --json
 * profiles read back by compare and plot, bench results files, the
 * kernel spans a recording carries. Strict to RFC 8259 (a number's
 * grammar, valid UTF-8, no duplicate member) and bounded (nesting depth,
 * number of values), so that no input makes it use unbounded stack or
 * memory; every error names the line.
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

struct jparse {
	const char *p, *end;
	unsigned int line;
	size_t values;
	char msg[160];
	unsigned int err_line;
};

void jv__free(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jv__free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	/* Freed twice is harmless: callers free on every path. */
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

/* A string literal at jp->p (the opening quote), decoded into *out. */
static int parse_string(struct jparse *jp, char **out)
{
	const char *start = ++jp->p, *q;
	uint32_t c, lo;
	char *s, *o;
	int n;

	/* Escapes only shrink: the raw length bounds the decoded one. */
	for (q = start; q < jp->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < jp->end)
			q++;
	if (q >= jp->end)
		return jfail(jp, "unterminated string");
	s = malloc((size_t)(q - start) + 1);
	if (!s)
		return -ENOMEM;
	o = s;
	while (jp->p < q) {
		unsigned char ch = (unsigned char)*jp->p;

		if (ch < 0x20) {
			free(s);
			return jfail(jp, "control character in a string");
		}
		if (ch >= 0x80) {
			n = json__utf8_len((const unsigned char *)jp->p,
					   (size_t)(q - jp->p));
			if (!n) {
				free(s);
				return jfail(jp, "invalid UTF-8 in a string");
			}
			memcpy(o, jp->p, (size_t)n);
			o += n;
			jp->p += n;
			continue;
		}
		if (ch != '\\') {
			*o++ = (char)ch;
			jp->p++;
			continue;
		}
		jp->p++;
		switch (*jp->p) {
		case '"': case '\\': case '/':
			*o++ = *jp->p;
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
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
			o += put_utf8(o, c);
			break;
		default:
			goto bad_escape;
		}
		jp->p++;
	}
	*o = '\0';
	jp->p = q + 1;
	*out = s;
	return 0;
bad_escape:
	free(s);
	return jfail(jp, "invalid escape in a string");
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A number, to the JSON grammar. Non-negative integers are kept exactly
 * (up to UINT64_MAX); every number also as the nearest double, which
 * must be finite.
 */
static int parse_number(struct jparse *jp, struct jv *v)
{
	const char *s = jp->p, *p = s;
	bool frac = false, neg = false;
	char buf[64], *endp;
	uint64_t u = 0;

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
	v->type = J_NUM;
	v->num = strtod(buf, &endp);
	if (endp != buf + (p - s) || !isfinite(v->num))
		return jfail(jp, "number out of range");
	v->is_u64 = !neg && !frac;
	v->u = v->is_u64 ? u : 0;
	jp->p = p;
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

static int parse_value(struct jparse *jp, struct jv *v, int depth);

/* A member name and its colon, the name refused if already there. */
static int parse_key(struct jparse *jp, const struct jv *obj, char **key)
{
	size_t i;
	int err;

	if (jp->p >= jp->end || *jp->p != '"')
		return jfail(jp, "expected a member name");
	err = parse_string(jp, key);
	if (err)
		return err;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], *key))
			break;
	if (i < obj->n)
		err = jfail(jp, "duplicate member \"%s\"", *key);
	skip_ws(jp);
	if (!err && (jp->p >= jp->end || *jp->p != ':'))
		err = jfail(jp, "expected ':'");
	if (err) {
		free(*key);
		*key = NULL;
		return err;
	}
	jp->p++;
	return 0;
}

/* Elements of an array or members of an object, after the bracket. */
static int parse_container(struct jparse *jp, struct jv *v, int depth)
{
	bool obj = v->type == J_OBJ;
	char close = obj ? '}' : ']';
	size_t cap = 0, kcap = 0;
	struct jv kid;
	char *key = NULL;
	int err;

	jp->p++;
	skip_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		return 0;
	}
	for (;;) {
		skip_ws(jp);
		if (obj) {
			err = parse_key(jp, v, &key);
			if (err)
				return err;
		}
		memset(&kid, 0, sizeof(kid));
		err = parse_value(jp, &kid, depth + 1);
		if (!err && grow_array((void **)&v->items, &cap, v->n + 1,
				       sizeof(*v->items)))
			err = -ENOMEM;
		if (!err && obj && grow_array((void **)&v->keys, &kcap,
					      v->n + 1, sizeof(*v->keys)))
			err = -ENOMEM;
		if (err) {
			jv__free(&kid);
			free(key);
			return err;
		}
		v->items[v->n] = kid;
		if (obj)
			v->keys[v->n] = key;
		key = NULL;
		v->n++;
		skip_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			return 0;
		}
		if (jp->p >= jp->end)
			return jfail(jp, "unexpected end of input");
		return jfail(jp, obj ? "expected ',' or '}'" :
				       "expected ',' or ']'");
	}
}

static int parse_value(struct jparse *jp, struct jv *v, int depth)
{
	skip_ws(jp);
	v->line = jp->line;
	if (depth > JV_MAX_DEPTH)
		return jfail(jp, "nested deeper than %d", JV_MAX_DEPTH);
	if (++jp->values > JV_MAX_VALUES)
		return jfail(jp, "more than %u values", JV_MAX_VALUES);
	if (jp->p >= jp->end)
		return jfail(jp, "unexpected end of input");
	switch (*jp->p) {
	case '{':
		v->type = J_OBJ;
		return parse_container(jp, v, depth);
	case '[':
		v->type = J_ARR;
		return parse_container(jp, v, depth);
	case '"':
		v->type = J_STR;
		return parse_string(jp, &v->str);
	case 't':
	case 'f':
	case 'n':
		if (match_word(jp, "true")) {
			v->type = J_BOOL;
			v->b = true;
			return 0;
		}
		if (match_word(jp, "false")) {
			v->type = J_BOOL;
			return 0;
		}
		if (match_word(jp, "null"))
			return 0;
		return jfail(jp, "invalid literal");
	default:
		if (*jp->p == '-' || is_digit(*jp->p))
			return parse_number(jp, v);
		return jfail(jp, "unexpected character '%c'", *jp->p);
	}
}

const struct jv *jv__get(const struct jv *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *jv__str(const struct jv *obj, const char *key)
{
	const struct jv *v = jv__get(obj, key);

	return v && v->type == J_STR ? v->str : NULL;
}

int jv__parse(const char *buf, size_t len, struct jv *root, char *errbuf,
	      size_t errlen)
{
	struct jparse jp = { .p = buf, .end = buf + len, .line = 1 };
	int ret;

	memset(root, 0, sizeof(*root));
	ret = parse_value(&jp, root, 0);
	if (!ret) {
		skip_ws(&jp);
		if (jp.p != jp.end)
			ret = jfail(&jp, "trailing data after the JSON value");
	}
	if (ret) {
		if (ret == -ENOMEM)
			errbuf_set(errbuf, errlen, "out of memory");
		else
			errbuf_set(errbuf, errlen, "line %u: %s",
				   jp.err_line, jp.msg);
		jv__free(root);
	}
	return ret;
}
