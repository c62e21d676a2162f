// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf's messages kept instead of printed (bpf-int.h). One loader runs
 * at a time in a process, so the messages are kept in one place.
 */
#ifdef RS_HAVE_BPF
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf-int.h"

static char libbpf_msg[256];
static char verifier_msg[384];

/* The verifier's verdict: the last lines of a program's load log. */
static void keep_verdict(const char *log)
{
	const char *end = strstr(log, "-- END PROG LOAD LOG --"), *p;
	const char *prog = strstr(log, "prog '");
	int lines = 0;
	char *q;

	if (!end)
		return;
	p = end;
	while (p > log && lines < 4) {
		p--;
		if (*p == '\n')
			lines++;
	}
	snprintf(verifier_msg, sizeof(verifier_msg), "%.*s: %.*s",
		 prog ? (int)strcspn(prog + 6, "'") : 0, prog ? prog + 6 : "",
		 (int)(end - p), p);
	for (q = verifier_msg; *q; q++)
		if (*q == '\n')
			*q = ' ';
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char buf[sizeof(libbpf_msg)];
	size_t len;

	if (level == LIBBPF_DEBUG)
		return 0;
	if (strstr(fmt, "BEGIN PROG LOAD LOG") || strstr(fmt, "%s")) {
		char *big = NULL;
		va_list aq;

		va_copy(aq, ap);
		if (vasprintf(&big, fmt, aq) >= 0)
			keep_verdict(big);
		va_end(aq);
		free(big);
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (len)
		memcpy(libbpf_msg, buf, len + 1);
	return 0;
}

void bpf_quiet__begin(struct bpf_quiet *q)
{
	libbpf_msg[0] = '\0';
	verifier_msg[0] = '\0';
	q->old = libbpf_set_print(libbpf_quiet);
}

void bpf_quiet__end(struct bpf_quiet *q)
{
	libbpf_set_print(q->old);
}

const char *bpf_quiet__msg(void)
{
	return libbpf_msg;
}

const char *bpf_quiet__verdict(void)
{
	return verifier_msg;
}
#endif
