// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the JSON tree reader (compare and plot read report
 * --json profiles with it) and the typed profile made from its tree: any
 * input parses or is refused with a line number, never a crash, a leak
 * or unbounded recursion.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-read.h"
#include "profile.h"

/*
 * Every node, name and string of a tree: ASan sees any offset of the
 * compact tree that points outside it. Returns the number of values.
 */
static size_t walk(const struct jv *v, int depth)
{
	size_t i, n = 1;

	if (depth > JV_MAX_DEPTH + 1)
		abort();
	switch (jv__type(v)) {
	case J_STR:
		if (strlen(jv__string(v)) > (1u << 28))
			abort();
		break;
	case J_OBJ:
		for (i = 0; i < jv__len(v); i++)
			if (!jv__key(v, i) || jv__get(v, jv__key(v, i)) !=
						jv__at(v, i))
				abort();
		/* fall through */
	case J_ARR:
		for (i = 0; i < jv__len(v); i++)
			n += walk(jv__at(v, i), depth + 1);
		if (jv__at(v, i))
			abort();
		break;
	default:
		break;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160];
	struct profile *p;
	struct jv root;

	if (!jv__parse((const char *)data, size, &root, err, sizeof(err))) {
		/* Values take 2 bytes of text at the least ("0,"). */
		if (walk(&root, 0) > size / 2 + 1)
			abort();
		(void)jv__str(jv__get(&root, "header"), "hostname");
		if (!profile__from_json(&p, &root))
			profile__delete(p);
	} else if (strncmp(err, "line ", 5) && strcmp(err, "out of memory")) {
		abort();	/* bad input is always located */
	}
	jv__free(&root);
	return 0;
}
