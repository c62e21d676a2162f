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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160];
	struct profile *p;
	struct jv root;

	if (!jv__parse((const char *)data, size, &root, err, sizeof(err))) {
		(void)jv__str(jv__get(&root, "header"), "hostname");
		if (!profile__from_json(&p, &root))
			profile__delete(p);
	} else if (strncmp(err, "line ", 5) && strcmp(err, "out of memory")) {
		abort();	/* bad input is always located */
	}
	jv__free(&root);
	return 0;
}
