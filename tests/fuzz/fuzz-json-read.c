// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the JSON tree reader (compare and plot read report
 * --json profiles with it): any input parses or is refused with a line
 * number, never a crash, a leak or unbounded recursion.
 */
#include <stdint.h>
#include <stdio.h>

#include "json-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[160];
	struct jv root;

	if (!jv__parse((const char *)data, size, &root, err, sizeof(err))) {
		(void)jv__str(jv__get(&root, "header"), "hostname");
		(void)jv__get(&root, "attribution");
	}
	jv__free(&root);
	return 0;
}
