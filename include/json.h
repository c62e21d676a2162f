/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming JSON writer (like bpftool's json_writer): every printer in
 * the tool has a JSON twin built on this. Keys are given for members of
 * objects and NULL for elements of arrays and the top-level value.
 */
#ifndef RS_JSON_H
#define RS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

struct json_writer *json_writer__new(FILE *out);
/* Ends the document with a newline; does not close the stream. */
void json_writer__delete(struct json_writer *jw);
/*
 * A document in memory: fill(jw, arg) writes its top-level value; *text
 * is malloc()ed and NUL-terminated. 0 or -ENOMEM.
 */
int json__to_text(void (*fill)(struct json_writer *jw, const void *arg),
		  const void *arg, char **text);

void json__object_begin(struct json_writer *jw, const char *key);
void json__object_end(struct json_writer *jw);
void json__array_begin(struct json_writer *jw, const char *key);
void json__array_end(struct json_writer *jw);
/* NULL val prints null. */
void json__string(struct json_writer *jw, const char *key, const char *val);
void json__u64(struct json_writer *jw, const char *key, uint64_t val);
void json__i64(struct json_writer *jw, const char *key, int64_t val);
void json__double(struct json_writer *jw, const char *key, double val);
void json__bool(struct json_writer *jw, const char *key, bool val);

/*
 * A record's plain members as data: one table per record (the perf
 * header, bench's provenance, a span's counts...) instead of one call per
 * member, written in table order.
 */
enum json_field_type { JSON_FIELD_STR, JSON_FIELD_U64, JSON_FIELD_BOOL };

struct json_field {
	const char *key;
	enum json_field_type type;
	const char *str;	/* JSON_FIELD_STR; NULL prints null */
	uint64_t num;		/* JSON_FIELD_U64, and 0/1 for BOOL */
};

#define JSON_STR(k, v)	{ (k), JSON_FIELD_STR, (v), 0 }
#define JSON_U64(k, v)	{ (k), JSON_FIELD_U64, NULL, (v) }
#define JSON_BOOL(k, v)	{ (k), JSON_FIELD_BOOL, NULL, !!(v) }

void json__fields(struct json_writer *jw, const struct json_field *f,
		  size_t n);

/*
 * Length of the valid UTF-8 sequence at p (2-4 bytes, within avail), or
 * 0: overlong forms, surrogates and values past U+10FFFF are not. The
 * writer's and the reader's (json-read.c) one check.
 */
int json__utf8_len(const unsigned char *p, size_t avail);

/* Write s as a JSON string literal, quotes included. */
void json_escape(FILE *out, const char *s);

#endif
