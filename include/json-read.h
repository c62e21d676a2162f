/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's JSON reader into a tree (src/json/json-read.c), for its
 * own JSON read back: report --json profiles, bench results, the kernel
 * spans of a recording. Strict (RFC 8259: a number's grammar, valid
 * UTF-8, no duplicate member) and bounded.
 */
#ifndef RS_JSON_READ_H
#define RS_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deeper documents, or more values, are refused: memory stays bounded. */
#define JV_MAX_DEPTH	32
#define JV_MAX_VALUES	(4u << 20)

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

/*
 * A value in a tree, 12 bytes: read it only through the functions below
 * (its fields are the reader's). A struct jv that jv__parse() filled is
 * the handle of the whole tree: it stands for the root value in every
 * function, may be copied (the copy takes over the tree) and is freed
 * with jv__free(); a zeroed one is an empty null. The values a tree
 * holds, their strings included, live until the tree is freed.
 */
struct jv {
	uint32_t hdr;		/* type, flag, line */
	uint32_t w[2];		/* number; offset, count; handle: tree */
};

/*
 * Parse a whole document into *root (freed with jv__free()). 0, -EINVAL
 * with "line N: what" in errbuf, or -ENOMEM. Its memory is one block of
 * 12 bytes per value and member name plus the decoded strings: at most
 * 6 bytes per byte of text, and nothing before the text is known good.
 */
int jv__parse(const char *buf, size_t len, struct jv *root, char *errbuf,
	      size_t errlen);
/* Frees the tree of a handle and empties it (a second call does nothing). */
void jv__free(struct jv *v);

/* J_NULL for NULL: the functions below all take NULL. */
enum jtype jv__type(const struct jv *v);
/* The line the value starts on, from 1 (0 for NULL). */
unsigned int jv__line(const struct jv *v);
/* Elements of an array, members of an object; 0 for anything else. */
size_t jv__len(const struct jv *v);
/* Element i of an array, or the value of member i of an object; NULL. */
const struct jv *jv__at(const struct jv *v, size_t i);
/* The name of member i of an object; NULL. */
const char *jv__key(const struct jv *v, size_t i);
bool jv__bool(const struct jv *v);
/* A number as the nearest double (0 when not a number). */
double jv__num(const struct jv *v);
/* Whether a number is a non-negative integer, kept exactly: jv__u64(). */
bool jv__is_u64(const struct jv *v);
uint64_t jv__u64(const struct jv *v);
/* A string's text, NUL-terminated (no NUL inside); NULL when not one. */
const char *jv__string(const struct jv *v);
/* A member of an object, NULL when absent or obj is not an object. */
const struct jv *jv__get(const struct jv *obj, const char *key);
/* A string member, NULL when absent or not a string. */
const char *jv__str(const struct jv *obj, const char *key);

#endif
