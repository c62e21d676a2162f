// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>

#include "json.h"
#include "util.h"

#define JSON_MAX_DEPTH 64

struct json_writer {
	FILE *out;
	int depth;
	/* Per level: has a member been written yet (comma needed)? */
	bool used[JSON_MAX_DEPTH];
};

struct json_writer *json_writer__new(FILE *out)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (jw)
		jw->out = out;
	return jw;
}

void json_writer__delete(struct json_writer *jw)
{
	if (!jw)
		return;
	fputc('\n', jw->out);
	free(jw);
}

int json__to_text(void (*fill)(struct json_writer *jw, const void *arg),
		  const void *arg, char **text)
{
	struct json_writer *jw;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	*text = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	jw = json_writer__new(f);
	if (!jw) {
		fclose(f);
		free(buf);
		return -ENOMEM;
	}
	fill(jw, arg);
	json_writer__delete(jw);
	if (fclose(f) || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*text = buf;
	return 0;
}

int json__utf8_len(const unsigned char *p, size_t avail)
{
	int n, i;
	uint32_t c;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, c = p[0] & 0x07;
	else
		return 0;
	if (avail < (size_t)n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

void json_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', out);
	for (; *p; p++) {
		/*
		 * Strings from a perf.data file (hostname, cmdline) may be
		 * any bytes: JSON must stay valid UTF-8.
		 */
		if (*p >= 0x80) {
			/* A NUL ends the string before a sequence would. */
			n = json__utf8_len(p, 4);
			if (n) {
				fwrite(p, 1, n, out);
				p += n - 1;
			} else {
				fputs("\\ufffd", out);
			}
			continue;
		}
		if (fput_backslash_escape(out, *p))
			continue;
		if (*p == '\r')
			fputs("\\r", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* Comma, newline and indentation before a value, then its key. */
static void json_member(struct json_writer *jw, const char *key)
{
	int i;

	if (jw->depth > 0) {
		if (jw->used[jw->depth])
			fputc(',', jw->out);
		fputc('\n', jw->out);
		for (i = 0; i < jw->depth; i++)
			fputs("  ", jw->out);
	}
	jw->used[jw->depth] = true;
	if (key) {
		json_escape(jw->out, key);
		fputs(": ", jw->out);
	}
}

static void json_open(struct json_writer *jw, const char *key, char c)
{
	json_member(jw, key);
	fputc(c, jw->out);
	if (jw->depth < JSON_MAX_DEPTH - 1)
		jw->depth++;
	jw->used[jw->depth] = false;
}

static void json_close(struct json_writer *jw, char c)
{
	int i;
	bool had = jw->used[jw->depth];

	if (jw->depth > 0)
		jw->depth--;
	if (had) {
		fputc('\n', jw->out);
		for (i = 0; i < jw->depth; i++)
			fputs("  ", jw->out);
	}
	fputc(c, jw->out);
}

void json__object_begin(struct json_writer *jw, const char *key)
{
	json_open(jw, key, '{');
}

void json__object_end(struct json_writer *jw)
{
	json_close(jw, '}');
}

void json__array_begin(struct json_writer *jw, const char *key)
{
	json_open(jw, key, '[');
}

void json__array_end(struct json_writer *jw)
{
	json_close(jw, ']');
}

void json__string(struct json_writer *jw, const char *key, const char *val)
{
	json_member(jw, key);
	if (val)
		json_escape(jw->out, val);
	else
		fputs("null", jw->out);
}

void json__u64(struct json_writer *jw, const char *key, uint64_t val)
{
	json_member(jw, key);
	fprintf(jw->out, "%" PRIu64, val);
}

void json__i64(struct json_writer *jw, const char *key, int64_t val)
{
	json_member(jw, key);
	fprintf(jw->out, "%" PRId64, val);
}

void json__double(struct json_writer *jw, const char *key, double val)
{
	json_member(jw, key);
	/* JSON has no NaN or infinity. */
	if (isfinite(val))
		fprintf(jw->out, "%.10g", val);
	else
		fputs("null", jw->out);
}

void json__bool(struct json_writer *jw, const char *key, bool val)
{
	json_member(jw, key);
	fputs(val ? "true" : "false", jw->out);
}

void json__fields(struct json_writer *jw, const struct json_field *f,
		  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (f[i].type) {
		case JSON_FIELD_STR:
			json__string(jw, f[i].key, f[i].str);
			break;
		case JSON_FIELD_U64:
			json__u64(jw, f[i].key, f[i].num);
			break;
		case JSON_FIELD_BOOL:
			json__bool(jw, f[i].key, f[i].num);
			break;
		}
	}
}
