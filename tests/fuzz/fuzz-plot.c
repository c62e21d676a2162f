// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for plot's gnuplot writer: whatever the inputs hold,
 * the script written is data-only. It aborts when a byte of an input
 * escapes into program text, read as gnuplot 5.4 reads a script:
 * - lines ending in a backslash are joined with the next;
 * - the datablock ends at the first line that starts with "EOD", which
 *   must be exactly that, and holds numbers, bucket labels and comments
 *   of printable text only, the very lines of the .dat;
 * - every other line, once each string expression is taken out, is one
 *   of the commands plot writes (TEMPLATES). A string expression is
 *   single-quoted literals ('' a quote) and double-quoted constants of
 *   escapes only ("\n", "\ooo"), joined with " . ": in them gnuplot
 *   expands no `backquote` and no @macro.
 * And the texts come back: the image's path exactly, a label exactly
 * when it holds nothing gnuplot__string() replaces.
 *
 * The input: a flags byte, then NUL-separated title, image path, input
 * name and body. The body is JSON read as plot reads a file (bench
 * results, report --json), or, with flag 0x40, raw bytes made into
 * series directly (names, units, segments and labels with bytes JSON
 * cannot carry: control characters, invalid UTF-8). The kind is the
 * flags' low two bits, or with 0x80 breakdown.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/output/plot-int.h"
#include "gnuplot.h"
#include "json.h"
#include "plot.h"

#define EXPR "\001"	/* a string expression, in a line's skeleton */
#define N "[0-9]+"
#define ITEM "\\$rs_data( index " N ")? using " N "(:" N ")?" \
	"(:xtic\\(" N "\\))?( with steps lw 2| with points pt 7 ps 0\\.6)?" \
	"( lc rgb 0x[0-9a-f]{6})? title " EXPR

static const char *const templates[] = {
	"set encoding utf8",
	"set terminal (pngcairo|svg) noenhanced size " N "," N,
	"if \\(exists\\(\"rs_stdout\"\\)\\) \\{ set output \\} else "
	"\\{ set output " EXPR " \\}",
	"set title " EXPR,
	"set style data histograms",
	"set style histogram (clustered gap 1|rowstacked)",
	"set style fill solid 0\\.85 border -1",
	"set xtics rotate by -45 scale 0 nomirror",
	"set xtics nomirror rotate by -(20|45) \\(" EXPR " " N "(, " EXPR " " N
	")*\\)",
	"set grid( ytics)?",
	"set yrange \\[(0:\\*|0:1|\\*:\\*)\\]",
	"set key (top right|bottom right|outside right top|invert)",
	"set rmargin " N,
	"set [xy]label " EXPR,
	"set logscale [xy]",
	"set boxwidth 0\\.6",
	"plot " ITEM "(, +" ITEM ")*",
};
#define NR_TEMPLATES (sizeof(templates) / sizeof(templates[0]))
enum { T_OUTPUT = 2, T_TITLE = 3 };

static regex_t compiled[NR_TEMPLATES];

static void die(const char *why, const char *line, size_t len)
{
	fprintf(stderr, "fuzz-plot: %s: %.*s\n", why, (int)len, line);
	abort();
}

/* A growing byte buffer. */
struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* The length of "\n"/"\ooo" escapes in double quotes at p, else 0. */
static size_t escapes_len(const char *p, const char *end, struct buf *text)
{
	const char *q = p + 1;

	if (*p != '"')
		return 0;
	while (q < end && *q == '\\') {
		if (q + 1 < end && q[1] == 'n') {
			if (text)
				put(text, "\n", 1);
			q += 2;
		} else if (q + 3 < end && q[1] >= '0' && q[1] <= '3' &&
			   q[2] >= '0' && q[2] <= '7' && q[3] >= '0' &&
			   q[3] <= '7') {
			char c = (q[1] - '0') << 6 | (q[2] - '0') << 3 |
				 (q[3] - '0');

			if (text)
				put(text, &c, 1);
			q += 4;
		} else {
			return 0;
		}
	}
	if (q == p + 1 || q >= end || *q != '"')
		return 0;
	return q + 1 - p;
}

/*
 * The skeleton of one (joined) command line into sk, the texts of its
 * string expressions into texts[] (at most 64 kept).
 */
static void skeleton(const char *line, size_t len, struct buf *sk,
		     struct buf *texts, size_t *nr_texts)
{
	const char *p = line, *end = line + len, *q;
	struct buf *cur = NULL, scratch = { 0 };	/* past 64 texts */
	size_t n;

	sk->len = 0;
	put(sk, "", 0);
	while (p < end) {
		bool joined = sk->len >= 4 &&
			      !memcmp(sk->p + sk->len - 4, EXPR " . ", 4);
		struct buf *into;

		if (*p != '\'' && !escapes_len(p, end, NULL)) {
			unsigned char c = *p;

			if (c < 0x20 || c >= 0x7f)
				die("a byte outside strings", line, len);
			put(sk, p++, 1);
			continue;
		}
		if (joined && cur) {
			sk->len -= 3;	/* " . ": one expression */
			sk->p[sk->len] = '\0';
			into = cur;
		} else {
			put(sk, EXPR, 1);
			into = &scratch;
			if (*nr_texts < 64)
				into = &texts[(*nr_texts)++];
			into->len = 0;
			put(into, "", 0);
			cur = into;
		}
		if (*p == '\'') {
			for (q = p + 1;; q += 2) {
				const char *e = memchr(q, '\'', end - q);

				if (!e)
					die("an unterminated literal", line, len);
				put(into, q, e - q);
				q = e;
				if (q + 1 < end && q[1] == '\'') {
					put(into, "'", 1);
					continue;
				}
				break;
			}
			p = q + 1;
		} else {
			n = escapes_len(p, end, into);
			p += n;
		}
	}
	free(scratch.p);
}

struct seen {
	struct buf texts[64];
	size_t nr_texts;
	const char *path, *title;	/* within texts[] */
	struct buf data;		/* the datablock's lines */
};

static bool data_row(const char *p, size_t n)
{
	size_t i;

	if (n && p[0] == '#') {
		for (i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				return false;
		return p[n - 1] != '\\';
	}
	for (i = 0; i < n; i++)
		if (!strchr("-+0123456789.eEnaif\" ", p[i]) || !p[i])
			return false;
	return true;
}

static void check_script(const char *s, size_t len, struct seen *seen)
{
	const char *p = s, *end = s + len, *nl;
	struct buf line = { 0 }, sk = { 0 };
	size_t i, before;

	if (!len || s[len - 1] != '\n')
		die("no line break at the end", s, len);
	while (p < end) {
		line.len = 0;
		put(&line, "", 0);
		/* gnuplot joins a line ending in a backslash with the next. */
		for (;;) {
			nl = memchr(p, '\n', end - p);
			put(&line, p, nl - p);
			p = nl + 1;
			if (!line.len || p == end ||
			    line.p[line.len - 1] != '\\')
				break;
			line.p[--line.len] = '\0';
		}
		if (line.len && line.p[0] == '#') {
			for (i = 0; i < line.len; i++)
				if (line.p[i] < 0x20 || line.p[i] > 0x7e ||
				    line.p[i] == '`')
					die("a comment", line.p, line.len);
			continue;
		}
		if (!strcmp(line.p, "$rs_data << EOD")) {
			for (;;) {
				if (p == end)
					die("no EOD", s, len);
				nl = memchr(p, '\n', end - p);
				if (nl - p >= 3 && !memcmp(p, "EOD", 3)) {
					if (nl - p != 3)
						die("the block ends early", p,
						    nl - p);
					p = nl + 1;
					break;
				}
				if (!data_row(p, nl - p))
					die("a data row", p, nl - p);
				put(&seen->data, p, nl + 1 - p);
				p = nl + 1;
			}
			continue;
		}
		before = seen->nr_texts;
		skeleton(line.p, line.len, &sk, seen->texts, &seen->nr_texts);
		for (i = 0; i < NR_TEMPLATES; i++) {
			regmatch_t m;

			if (regexec(&compiled[i], sk.p, 1, &m, 0) ||
			    m.rm_so != 0 || (size_t)m.rm_eo != sk.len)
				continue;
			if (i == T_OUTPUT && seen->nr_texts > before)
				seen->path = seen->texts[before].p;
			if (i == T_TITLE && seen->nr_texts > before)
				seen->title = seen->texts[before].p;
			break;
		}
		if (i == NR_TEMPLATES)
			die("not a command plot writes", line.p, line.len);
	}
	free(line.p);
	free(sk.p);
}

/* Whether gnuplot__string() keeps s as it is. */
static bool plain_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	while (*p) {
		if (*p >= 0x80) {
			n = json__utf8_len(p, 4);
			if (!n || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) ||
			    (n == 3 && p[0] == 0xef && p[1] == 0xbf &&
			     p[2] >= 0xbe))
				return false;
			p += n;
			continue;
		}
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
			return false;
		p++;
	}
	return true;
}

/* The next NUL-terminated field of data (the rest when no NUL). */
static char *field(const uint8_t **data, size_t *size)
{
	const uint8_t *nul = memchr(*data, 0, *size);
	size_t n = nul ? (size_t)(nul - *data) : *size;
	char *s = strndup((const char *)*data, n);

	if (!s)
		abort();
	*data += nul ? n + 1 : n;
	*size -= nul ? n + 1 : n;
	return s;
}

/* Series made directly from raw bytes: 0x01 separates the texts. */
static int build_direct(struct plot *pl, const char *name, const char *body,
			size_t len)
{
	const char *p = body, *end = body + len, *sep;
	struct series *s;
	size_t i = 0, k;

	while (p <= end && i < 8) {
		char *text;

		sep = memchr(p, 1, end - p);
		if (!sep)
			sep = end;
		text = strndup(p, sep - p);
		if (!text)
			return -ENOMEM;
		if (pl->o.kind == PLOT_BARS || pl->o.kind == PLOT_BREAKDOWN) {
			s = plot__series_add(pl, text, NULL, NULL);
			if (s && !pl->bar_unit)
				pl->bar_unit = strdup(text);
			if (s && pl->nr_segs < 4) {
				pl->segs = realloc(pl->segs, (pl->nr_segs + 1) *
						   sizeof(*pl->segs));
				pl->segs[pl->nr_segs++] = strdup(text);
			}
			if (s) {
				s->nr_points = pl->nr_segs;
				s->y = calloc(s->nr_points, sizeof(*s->y));
				for (k = 0; k < s->nr_points; k++)
					s->y[k] = (double)(sep - p) * (k + 1);
				/* breakdown: parts not timed, and below 0. */
				for (k = 0; pl->o.kind == PLOT_BREAKDOWN &&
				     k < s->nr_points; k++)
					s->y[k] = k == i % 4 ? NAN :
						  k == 3 ? -s->y[k] : s->y[k];
			}
		} else {
			/* One unit for all, as check_units() wants. */
			s = plot__series_add(pl, name, text,
					     i ? pl->series[0].unit : text);
			if (s && pl->o.kind == PLOT_TIMELINE) {
				s->nr_points = 3;
				s->x = calloc(3, sizeof(*s->x));
				s->y = calloc(3, sizeof(*s->y));
				for (k = 0; k < 3; k++) {
					s->x[k] = k + i;
					s->y[k] = (double)(sep - p) + k;
				}
			} else if (s) {
				k = (sep - p) % HIST_MAX_BUCKETS;
				s->buckets[k] += 1 + i;
			}
		}
		free(text);
		if (!s)
			return -ENOMEM;
		i++;
		p = sep + 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct plot_opts o = { 0 };
	struct plot_image img = { 0 };
	struct plot_text text;
	struct seen seen = { 0 };
	char *title, *path, *name, *body, err[4096];
	size_t body_len, i;
	struct plot *pl;
	uint8_t flags;
	int ret;

	if (!ready) {
		for (i = 0; i < NR_TEMPLATES; i++)
			if (regcomp(&compiled[i], templates[i], REG_EXTENDED))
				abort();
		ready = true;
	}
	if (!size)
		return 0;
	flags = data[0];
	data++;
	size--;
	title = field(&data, &size);
	path = field(&data, &size);
	name = field(&data, &size);
	body = malloc(size + 1);
	if (!body)
		abort();
	memcpy(body, data, size);
	body[size] = '\0';
	body_len = size;

	o.kind = flags & 0x80 ? PLOT_BREAKDOWN : flags & 3;
	o.normalize = (o.kind == PLOT_HIST || o.kind == PLOT_BREAKDOWN) &&
		      (flags & 4);
	img.term = flags & 8 ? GNUPLOT_SVG : GNUPLOT_PNG;
	img.width = 800;
	img.height = 500;
	img.path = path;
	img.title = flags & 16 ? title : NULL;
	pl = plot__new(&o);
	if (!pl)
		abort();
	if (flags & 0x40)
		ret = build_direct(pl, name, body, body_len);
	else
		ret = plot__load_mem(pl, name, body, body_len, err,
				     sizeof(err));
	if (!ret && (flags & 0x20) && !(flags & 0x40))
		ret = plot__load_mem(pl, name, body, body_len, err,
				     sizeof(err));
	if (!ret && pl->nr_series &&
	    !plot__render(pl, &img, &text, err, sizeof(err))) {
		struct buf script = { 0 };

		put(&script, text.head, text.head_len);
		put(&script, text.data, text.data_len);
		put(&script, text.tail, text.tail_len);
		check_script(script.p, script.len, &seen);
		free(script.p);
		if (seen.data.len != text.data_len || (text.data_len &&
		    memcmp(seen.data.p, text.data, text.data_len)))
			die("the datablock is not the .dat", text.data,
			    text.data_len);
		/* The image's path exactly; a plain title exactly. */
		if (!seen.path || strcmp(seen.path, path))
			die("the output path did not come back", path,
			    strlen(path));
		if (img.title && (!seen.title || (plain_text(title) &&
						  strcmp(seen.title, title))))
			die("the title did not come back", title,
			    strlen(title));
		plot_text__release(&text);
	}
	for (i = 0; i < 64; i++)
		free(seen.texts[i].p);
	free(seen.data.p);
	plot__delete(pl);
	free(title);
	free(path);
	free(name);
	free(body);
	return 0;
}
