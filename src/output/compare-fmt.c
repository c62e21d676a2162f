// SPDX-License-Identifier: GPL-2.0
/*
 * How compare's tables print a label, a long line, a CSV row and a time
 * (compare-int.h), one way for every table that shows them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "compare-int.h"
#include "figure.h"
#include "util.h"

void compare_fmt__label(char *buf, size_t len, const char *l, size_t width)
{
	size_t n = strlen(l), head, tail;

	if (n <= width || width < 3) {
		snprintf(buf, len, "%.*s", (int)width, l);
		return;
	}
	head = (width - 1) / 2;
	tail = width - 1 - head;
	snprintf(buf, len, "%.*s~%s", (int)head, l, l + n - tail);
}

void compare_fmt__wrapped(FILE *out, const char *fmt, ...)
{
	char line[1024];
	const char *p = line;
	size_t n, cut;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	while ((n = strlen(p)) > COMPARE_TEXT_WIDTH) {
		for (cut = COMPARE_TEXT_WIDTH; cut > 0 && p[cut] != ' '; cut--)
			;
		if (!cut)	/* one word longer than a line: left whole */
			cut = strcspn(p, " ");
		fprintf(out, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (!*p)
			return;
	}
	fprintf(out, "%s\n", p);
}

/* RFC 4180: quote a field holding a comma, quote, CR or LF. */
static void csv_field(FILE *out, const char *s, bool last)
{
	fput_csv_field(out, s ? s : "");
	fputs(last ? "\r\n" : ",", out);
}

/* Integers (counts, ns) whole, whatever their digits; others in 10. */
static void csv_num(FILE *out, double v, bool last)
{
	char buf[64] = "";

	if (isfinite(v) && v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.10g", v);
	csv_field(out, buf, last);
}

void compare_fmt__csv_row(FILE *out, const char *block, const char *row,
			  const char *metric, const char *side, double value,
			  double delta, int sig)
{
	csv_field(out, block, false);
	csv_field(out, row, false);
	csv_field(out, metric, false);
	csv_field(out, side, false);
	csv_num(out, value, false);
	csv_num(out, delta, false);
	csv_field(out, sig < 0 ? "" : sig ? "yes" : "no", true);
}

void compare_fmt__ns(char *buf, size_t len, uint64_t ns)
{
	int n;

	if (ns < 1000) {
		snprintf(buf, len, "%" PRIu64 " ns", ns);
		return;
	}
	n = ns < 1000000 ? figure__ratio(buf, len, ns, 1, 1000, 1, 0) :
			   figure__ratio(buf, len, ns, 1, 1000000, 2, 0);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " %s", ns < 1000000 ? "us" : "ms");
}

void compare_fmt__sns(char *buf, size_t len, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-(ns + 1) + 1 : (uint64_t)ns;

	if (ns >= 0) {
		compare_fmt__ns(buf, len, a);
		return;
	}
	buf[0] = '-';
	compare_fmt__ns(buf + 1, len - 1, a);
}

const char *compare_fmt__share(char *buf, size_t len, double share)
{
	figure__double(buf, len, share * 100, 1, 6);
	return buf;
}
