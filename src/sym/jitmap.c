// SPDX-License-Identifier: GPL-2.0
/*
 * /tmp/perf-PID.map files written by JITs: one "START SIZE name" line per
 * symbol, START and SIZE in hex. Parsed like perf's dso__load_perf_map():
 * digits stop at the first non-hex character, short lines are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym-internal.h"
#include "util.h"

int jitmap__load(struct symtab *t, const char *path, struct strpool *sp)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		uint64_t start, size;
		const char *name;
		size_t n;

		/* perf drops the last character, newline or not. */
		line[--len] = '\0';
		n = sym_parse_hex(line, &start) + 1;
		if ((ssize_t)n + 2 >= len)
			continue;
		n += sym_parse_hex(line + n, &size) + 1;
		if ((ssize_t)n + 2 >= len)
			continue;
		name = sym_intern(sp, line + n, strlen(line + n));
		if (!name) {
			err = -ENOMEM;
			break;
		}
		err = symtab__push(t, start, size, name, SYM_GLOBAL, false);
	}
	free(line);
	fclose(f);
	if (!err)
		symtab__sort(t);
	return err;
}
