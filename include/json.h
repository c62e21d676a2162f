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
 * Length of the valid UTF-8 sequence at p (2-4 bytes, within avail), or
 * 0: overlong forms, surrogates and values past U+10FFFF are not. The
 * writer's and the reader's (json-read.c) one check.
 */
int json__utf8_len(const unsigned char *p, size_t avail);

/* Write s as a JSON string literal, quotes included. */
void json_escape(FILE *out, const char *s);

#endif
