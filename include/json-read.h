/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's JSON reader into a tree (src/output/json-read.c), for its
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

struct jv {
	enum jtype type;
	bool b;
	double num;
	uint64_t u;		/* J_NUM: exact when is_u64 */
	bool is_u64;		/* a non-negative integer (no fraction) */
	char *str;
	struct jv *items;	/* J_ARR, J_OBJ (values) */
	char **keys;		/* J_OBJ */
	size_t n;
	unsigned int line;	/* where the value starts, from 1 */
};

/*
 * Parse a whole document into *root (freed with jv__free()). 0, -EINVAL
 * with "line N: what" in errbuf, or -ENOMEM.
 */
int jv__parse(const char *buf, size_t len, struct jv *root, char *errbuf,
	      size_t errlen);
/* Frees what v holds and empties it (a second call does nothing). */
void jv__free(struct jv *v);
/* A member of an object, NULL when absent or obj is not an object. */
const struct jv *jv__get(const struct jv *obj, const char *key);
/* A string member, NULL when absent or not a string. */
const char *jv__str(const struct jv *obj, const char *key);

#endif
