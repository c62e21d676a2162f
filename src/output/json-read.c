// SPDX-License-Identifier: GPL-2.0
/*
 * A small JSON reader into a tree, for the tool's own JSON outputs read
 * back (report --json profiles by compare and plot). Bounded: nesting
 * depth is limited, and errors say the line. The strict reader of bench
 * results files (src/bench/results.c) checks its schema on the way and
 * has its own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-read.h"

/* Deeper documents are refused: the recursion stays bounded. */
#define JSON_MAX_DEPTH 64


struct jparse {
	const char *p, *end, *start;
	char err[128];
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

static int jerr(struct jparse *jp, const char *what)
{
	int line = 1;
	const char *q;

	for (q = jp->start; q < jp->p && q < jp->end; q++)
		line += *q == '\n';
	snprintf(jp->err, sizeof(jp->err), "line %d: %s", line, what);
	return -EINVAL;
}

static void jws(struct jparse *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' ||
				   *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

static int jhex4(const char *s, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static int jstring(struct jparse *jp, char **out)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);
	unsigned int c, lo;

	if (!s)
		return -ENOMEM;
	jp->p++;	/* the opening quote */
	for (;;) {
		if (len + 5 > cap) {
			char *n = realloc(s, cap * 2);

			if (!n) {
				free(s);
				return -ENOMEM;
			}
			s = n;
			cap *= 2;
		}
		if (jp->p >= jp->end) {
			free(s);
			return jerr(jp, "unterminated string");
		}
		c = (unsigned char)*jp->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			free(s);
			return jerr(jp, "control character in a string");
		}
		if (c != '\\') {
			s[len++] = c;
			continue;
		}
		if (jp->p >= jp->end) {
			free(s);
			return jerr(jp, "unterminated string");
		}
		c = *jp->p++;
		switch (c) {
		case '"': case '\\': case '/':
			s[len++] = c;
			break;
		case 'b': s[len++] = '\b'; break;
		case 'f': s[len++] = '\f'; break;
		case 'n': s[len++] = '\n'; break;
		case 'r': s[len++] = '\r'; break;
		case 't': s[len++] = '\t'; break;
		case 'u':
			if (jp->end - jp->p < 4 || jhex4(jp->p, &c))
				goto bad;
			jp->p += 4;
			if (c >= 0xd800 && c < 0xdc00) {
				if (jp->end - jp->p < 6 || jp->p[0] != '\\' ||
				    jp->p[1] != 'u' || jhex4(jp->p + 2, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					goto bad;
				jp->p += 6;
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
			} else if (c >= 0xdc00 && c < 0xe000) {
				goto bad;
			}
			/* A NUL would cut the name short: refuse it. */
			if (!c)
				goto bad;
			if (c < 0x80) {
				s[len++] = c;
			} else if (c < 0x800) {
				s[len++] = 0xc0 | c >> 6;
				s[len++] = 0x80 | (c & 0x3f);
			} else if (c < 0x10000) {
				s[len++] = 0xe0 | c >> 12;
				s[len++] = 0x80 | ((c >> 6) & 0x3f);
				s[len++] = 0x80 | (c & 0x3f);
			} else {
				s[len++] = 0xf0 | c >> 18;
				s[len++] = 0x80 | ((c >> 12) & 0x3f);
				s[len++] = 0x80 | ((c >> 6) & 0x3f);
				s[len++] = 0x80 | (c & 0x3f);
			}
			break;
		default:
			goto bad;
		}
	}
	s[len] = '\0';
	*out = s;
	return 0;
bad:
	free(s);
	return jerr(jp, "bad escape in a string");
}

static int jvalue(struct jparse *jp, struct jv *v, int depth);

static int jcontainer(struct jparse *jp, struct jv *v, int depth)
{
	bool obj = *jp->p == '{';
	char close = obj ? '}' : ']';
	size_t cap = 0;
	int err;

	v->type = obj ? J_OBJ : J_ARR;
	if (depth >= JSON_MAX_DEPTH)
		return jerr(jp, "nested too deep");
	jp->p++;
	jws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		jws(jp);
		if (obj) {
			if (jp->p >= jp->end || *jp->p != '"')
				return jerr(jp, "expected a member name");
			err = jstring(jp, &key);
			if (err)
				return err;
			jws(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				free(key);
				return jerr(jp, "expected ':'");
			}
			jp->p++;
		}
		if (v->n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct jv *ni = realloc(v->items, ncap * sizeof(*ni));

			if (!ni) {
				free(key);
				return -ENOMEM;
			}
			v->items = ni;
			if (obj) {
				char **nk = realloc(v->keys,
						    ncap * sizeof(*nk));

				if (!nk) {
					free(key);
					return -ENOMEM;
				}
				v->keys = nk;
			}
			cap = ncap;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (obj)
			v->keys[v->n] = key;
		v->n++;
		err = jvalue(jp, &v->items[v->n - 1], depth + 1);
		if (err)
			return err;
		jws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			return 0;
		}
		return jerr(jp, obj ? "expected ',' or '}'" :
				      "expected ',' or ']'");
	}
}

static int jnumber(struct jparse *jp, struct jv *v)
{
	const char *s = jp->p;
	char buf[64], *end;
	size_t len;

	while (jp->p < jp->end && strchr("+-0123456789.eE", *jp->p))
		jp->p++;
	len = jp->p - s;
	if (!len || len >= sizeof(buf))
		return jerr(jp, "bad number");
	memcpy(buf, s, len);
	buf[len] = '\0';
	v->type = J_NUM;
	errno = 0;
	v->num = strtod(buf, &end);
	if (*end || errno == ERANGE)
		return jerr(jp, "bad number");
	if (buf[0] >= '0' && buf[0] <= '9' && !strpbrk(buf, ".eE")) {
		errno = 0;
		v->u = strtoull(buf, &end, 10);
		v->is_u64 = !*end && errno != ERANGE;
	}
	return 0;
}

static int jvalue(struct jparse *jp, struct jv *v, int depth)
{
	jws(jp);
	if (jp->p >= jp->end)
		return jerr(jp, "unexpected end of input");
	switch (*jp->p) {
	case '{':
	case '[':
		return jcontainer(jp, v, depth);
	case '"':
		v->type = J_STR;
		return jstring(jp, &v->str);
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };
		size_t i;

		for (i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);

			if ((size_t)(jp->end - jp->p) >= l &&
			    !memcmp(jp->p, words[i], l)) {
				jp->p += l;
				v->type = i == 2 ? J_NULL : J_BOOL;
				v->b = i == 0;
				return 0;
			}
		}
		return jerr(jp, "unexpected word");
	}
	default:
		return jnumber(jp, v);
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
	struct jparse jp = { 0 };
	int ret;

	memset(root, 0, sizeof(*root));
	jp.p = jp.start = buf;
	jp.end = buf + len;
	ret = jvalue(&jp, root, 0);
	if (!ret) {
		jws(&jp);
		if (jp.p != jp.end)
			ret = jerr(&jp, "trailing data after the document");
	}
	if (ret) {
		snprintf(errbuf, errlen, "%s",
			 ret == -ENOMEM ? "out of memory" : jp.err);
		jv__free(root);
	}
	return ret;
}
