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

static size_t hex_prefix(const char *s, uint64_t *val)
{
	size_t n = 0;

	*val = 0;
	for (;; n++) {
		int c = (unsigned char)s[n], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		*val = (*val << 4) | d;
	}
	return n;
}

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
		n = hex_prefix(line, &start) + 1;
		if ((ssize_t)n + 2 >= len)
			continue;
		n += hex_prefix(line + n, &size) + 1;
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
