// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze diff-folded: two profiles as one differential input for
 * flamegraph.pl, "stack COUNT_A COUNT_B" per stack, with the rules of
 * FlameGraph's difffolded.pl: a line is "STACK<blank>COUNT" with COUNT
 * the digits (and an optional fraction) after the last blank, a stack
 * missing on one side counts 0, -n scales A to B's total with int(), -s
 * turns every 0x<hex> into "0x..." so that stacks differing only in
 * addresses merge. difffolded.pl prints in Perl hash order, which changes
 * from run to run; we sort bytewise, as flamegraph.pl sorts anyway.
 *
 * Either input may be a recording: it is folded by report's own code
 * (report_fold()), in-process, exactly as `report --folded` prints it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "perf-data.h"
#include "util.h"

struct diff_params {
	const char *input[2];
	const char *kallsyms;
	bool normalize;
	bool strip_hex;
};

/* A count as difffolded.pl sums it: integers exactly, fractions as NV. */
struct dcount {
	uint64_t i;
	double f;
	bool frac;	/* some count had a fraction: print f */
};

struct dstack {
	char *s;
	size_t len;
	struct dcount c[2];
};

struct dtable {
	struct dstack *v;
	size_t nr, cap;
	uint32_t *slots;	/* index + 1, 0 empty; open addressing */
	size_t nr_slots;
	struct dcount total[2];
};

static const char diff_usage_text[] =
	"usage: rstat-analyze diff-folded A B [--normalize] [--strip-hex]\n"
	"                                 [--kallsyms FILE]\n";

static void diff_usage(FILE *out)
{
	fputs(diff_usage_text, out);
}

static void diff_help(void)
{
	diff_usage(stdout);
	fputs("\n"
	      "Merge two profiles into the differential input of flamegraph.pl,\n"
	      "as FlameGraph's difffolded.pl does: one line per stack of either,\n"
	      "`stack COUNT_A COUNT_B`, 0 where one side lacks it, sorted bytewise.\n"
	      "A and B are folded stack files (`stack COUNT` lines) or recordings\n"
	      "(perf.data), folded as `rstat-analyze report --folded` does.\n"
	      "Pipe into `flamegraph.pl`; swap A and B and add its --negate\n"
	      "for the before widths.\n"
	      "\n"
	      "  -n, --normalize       scale A's counts so that its total is B's\n"
	      "  -s, --strip-hex       turn 0x<hex> into 0x... and merge the stacks\n"
	      "                        that then read the same\n"
	      "      --kallsyms FILE   kernel symbols for folding recordings\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	      "See rstat-analyze-diff-folded(1).\n", stdout);
}

enum {
	OPT_KALLSYMS = 256,
};

static const struct option diff_options[] = {
	{ "normalize", no_argument, NULL, 'n' },
	{ "strip-hex", no_argument, NULL, 's' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int diff_parse_args(int argc, char **argv, struct diff_params *p)
{
	int c, nr = 0;

	memset(p, 0, sizeof(*p));
	optind = 1;
	opterr = 0;
	/* "-" first: operands and options may come in any order. */
	while ((c = getopt_long(argc, argv, "-:nsh", diff_options,
				NULL)) != -1) {
		switch (c) {
		case 1:
			if (nr == 2) {
				rs_error("diff-folded: unexpected argument '%s'",
					 optarg);
				diff_usage(stderr);
				return RS_EXIT_USAGE;
			}
			p->input[nr++] = optarg;
			break;
		case 'n':
			p->normalize = true;
			break;
		case 's':
			p->strip_hex = true;
			break;
		case OPT_KALLSYMS:
			p->kallsyms = optarg;
			break;
		case 'h':
			diff_help();
			return -1;
		case ':':
			rs_error("diff-folded: option '%s' needs a value",
				 argv[optind - 1]);
			diff_usage(stderr);
			return RS_EXIT_USAGE;
		default:
			rs_error("diff-folded: unknown option '%s'",
				 argv[optind - 1]);
			diff_usage(stderr);
			return RS_EXIT_USAGE;
		}
	}
	/* After "--", getopt leaves the rest as operands. */
	for (; optind < argc; optind++) {
		if (nr == 2) {
			rs_error("diff-folded: unexpected argument '%s'",
				 argv[optind]);
			diff_usage(stderr);
			return RS_EXIT_USAGE;
		}
		p->input[nr++] = argv[optind];
	}
	if (nr != 2) {
		rs_error("diff-folded: give two profiles, A and B");
		diff_usage(stderr);
		return RS_EXIT_USAGE;
	}
	return 0;
}

static void dtable_free(struct dtable *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->v[i].s);
	free(t->v);
	free(t->slots);
}

static int dtable_rehash(struct dtable *t)
{
	size_t n = t->nr_slots ? t->nr_slots * 2 : 1024, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		size_t h = hash_bytes(t->v[i].s, t->v[i].len) & (n - 1);

		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nr_slots = n;
	return 0;
}

static struct dstack *dtable_get(struct dtable *t, const char *s, size_t len)
{
	struct dstack *d;
	size_t h;

	if ((t->nr + 1) * 2 > t->nr_slots) {
		if (t->nr >= UINT32_MAX / 2 || dtable_rehash(t))
			return NULL;
	}
	h = hash_bytes(s, len) & (t->nr_slots - 1);
	while (t->slots[h]) {
		d = &t->v[t->slots[h] - 1];
		if (d->len == len && !memcmp(d->s, s, len))
			return d;
		h = (h + 1) & (t->nr_slots - 1);
	}
	if (grow_array((void **)&t->v, &t->cap, t->nr + 1, sizeof(*t->v)))
		return NULL;
	d = &t->v[t->nr];
	memset(d, 0, sizeof(*d));
	d->s = malloc(len + 1);
	if (!d->s)
		return NULL;
	memcpy(d->s, s, len);
	d->s[len] = '\0';
	d->len = len;
	t->slots[h] = ++t->nr;
	return d;
}

static void dcount_add(struct dcount *c, const struct dcount *v)
{
	/* Perl keeps integers exact until they overflow, then goes NV. */
	if (!c->frac && !v->frac && c->i + v->i >= c->i) {
		c->i += v->i;
		c->f = (double)c->i;
		return;
	}
	if (!c->frac)
		c->f = (double)c->i;
	c->f += v->frac ? v->f : (double)v->i;
	c->frac = true;
}

/* Perl's \s on bytes. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\f' || c == '\v';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * difffolded.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/ on a chomped line: the
 * count runs from after the last blank to the end; the stack is what
 * precedes that one blank (blanks before it stay in the stack).
 * false when the line does not match.
 */
static bool parse_line(const char *line, size_t len, size_t *stack_len,
		       struct dcount *count)
{
	size_t i = len, start, dot = 0;
	uint64_t v = 0;

	while (i > 0 && !is_blank(line[i - 1]))
		i--;
	if (i == 0 || i == len)
		return false;
	start = i;
	for (; i < len && is_digit(line[i]); i++)
		;
	if (i == start)
		return false;
	if (i < len) {
		if (line[i] != '.')
			return false;
		dot = i++;
		for (; i < len && is_digit(line[i]); i++)
			;
		if (i < len)
			return false;
	}
	*stack_len = start - 1;
	memset(count, 0, sizeof(*count));
	for (i = start; i < (dot ? dot : len); i++) {
		if (v > (UINT64_MAX - 9) / 10) {
			count->frac = true;	/* beyond 64 bits: an NV */
			break;
		}
		v = v * 10 + (line[i] - '0');
	}
	/* "5." and "5.000" are the integer 5 to Perl's arithmetic. */
	if (dot && !count->frac) {
		for (i = dot + 1; i < len; i++) {
			if (line[i] != '0') {
				count->frac = true;
				break;
			}
		}
	}
	if (count->frac)
		count->f = strtod(line + start, NULL);
	else
		count->i = v;
	return true;
}

/*
 * difffolded -s: s/0x[0-9a-fA-F]+/0x.../g from src into dst (room for
 * twice len: "0x1" grows to "0x..."); returns the new length.
 */
static size_t strip_hex_copy(char *dst, const char *src, size_t len)
{
	size_t i = 0, o = 0;

	while (i < len) {
		if (i + 2 < len && src[i] == '0' && src[i + 1] == 'x' &&
		    isxdigit((unsigned char)src[i + 2])) {
			for (i += 2; i < len && isxdigit((unsigned char)src[i]);
			     i++)
				;
			memcpy(dst + o, "0x...", 5);
			o += 5;
			continue;
		}
		dst[o++] = src[i++];
	}
	return o;
}

/*
 * Read folded lines from in into side (0: A, 1: B). name is the file for
 * messages. 0, or RS_EXIT_FAIL after printing the one line.
 */
static int read_folded(struct dtable *t, FILE *in, const char *name,
		       int side, bool strip)
{
	char *line = NULL, *buf = NULL;
	size_t cap = 0, bufcap = 0, stack_len;
	uint64_t lineno = 0;
	struct dcount c;
	struct dstack *d;
	ssize_t n;
	int status = 0;

	while ((n = getline(&line, &cap, in)) >= 0) {
		size_t len = n;

		lineno++;
		if (len && line[len - 1] == '\n')
			len--;
		/* An empty line (a file's trailing one) holds no stack. */
		if (!len)
			continue;
		if (!parse_line(line, len, &stack_len, &c)) {
			rs_error("%s:%" PRIu64 ": not a folded stack line 'STACK COUNT'",
				 name, lineno);
			status = RS_EXIT_FAIL;
			goto out;
		}
		if (strip) {
			/* "0x1" (3 bytes) becomes "0x..." (5): room for it. */
			size_t need = stack_len * 2 + 8;

			if (need > bufcap) {
				char *nb = realloc(buf, need);

				if (!nb)
					goto nomem;
				buf = nb;
				bufcap = need;
			}
			stack_len = strip_hex_copy(buf, line, stack_len);
			d = dtable_get(t, buf, stack_len);
		} else {
			d = dtable_get(t, line, stack_len);
		}
		if (!d)
			goto nomem;
		dcount_add(&d->c[side], &c);
		dcount_add(&t->total[side], &c);
	}
	if (ferror(in)) {
		rs_error("%s: %s", name, strerror(errno));
		status = RS_EXIT_FAIL;
	}
	goto out;
nomem:
	rs_error("diff-folded: out of memory");
	status = RS_EXIT_FAIL;
out:
	free(line);
	free(buf);
	return status;
}

/*
 * Fold a recording as `report --folded` does, in-process (no command runs
 * another as a child), and read the stacks back.
 */
static int read_recording(struct dtable *t, const struct diff_params *p,
			  const char *name, int side)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int status;

	mem = open_memstream(&buf, &len);
	if (!mem) {
		rs_error("diff-folded: out of memory");
		return RS_EXIT_FAIL;
	}
	/* report prints its one line itself. */
	status = report_fold(name, p->kallsyms, mem);
	if (fclose(mem) && !status) {
		rs_error("diff-folded: out of memory");
		status = RS_EXIT_FAIL;
	}
	if (!status && len) {
		mem = fmemopen(buf, len, "r");
		if (!mem) {
			rs_error("diff-folded: out of memory");
			status = RS_EXIT_FAIL;
		} else {
			status = read_folded(t, mem, name, side, p->strip_hex);
			fclose(mem);
		}
	}
	free(buf);
	return status ? RS_EXIT_FAIL : 0;
}

static int read_input(struct dtable *t, const struct diff_params *p, int side)
{
	const char *name = p->input[side];
	char prefix[8];
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f, *mem;
	int status;

	f = fopen(name, "r");
	if (!f) {
		rs_error("%s: %s", name, strerror(errno));
		return RS_EXIT_FAIL;
	}
	n = fread(prefix, 1, sizeof(prefix), f);
	if (ferror(f)) {
		rs_error("%s: %s", name, strerror(errno));
		fclose(f);
		return RS_EXIT_FAIL;
	}
	if (perf_data__sniff(prefix, n)) {
		fclose(f);
		return read_recording(t, p, name, side);
	}
	/*
	 * Folded text, maybe from a pipe (<(...)) that cannot be rewound:
	 * the bytes read, then the rest, from memory.
	 */
	for (;;) {
		if (len + 65536 > cap) {
			size_t ncap = cap ? cap * 2 : 131072;
			char *nb = realloc(buf, ncap);

			if (!nb) {
				rs_error("diff-folded: out of memory");
				status = RS_EXIT_FAIL;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		if (!len) {
			memcpy(buf, prefix, n);
			len = n;
			if (n < sizeof(prefix))
				break;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (!n)
			break;
	}
	if (ferror(f)) {
		rs_error("%s: %s", name, strerror(errno));
		status = RS_EXIT_FAIL;
		goto out;
	}
	status = 0;
	if (!len)
		goto out;
	mem = fmemopen(buf, len, "r");
	if (!mem) {
		rs_error("diff-folded: %s", strerror(errno));
		status = RS_EXIT_FAIL;
		goto out;
	}
	status = read_folded(t, mem, name, side, p->strip_hex);
	fclose(mem);
out:
	fclose(f);
	free(buf);
	return status;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct dstack *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* difffolded -n: int(count1 * total2 / total1) when the totals differ. */
static void normalize(struct dtable *t)
{
	const struct dcount *t1 = &t->total[0], *t2 = &t->total[1];
	size_t i;

	if (t1->frac || t2->frac) {
		double a = t1->frac ? t1->f : (double)t1->i;
		double b = t2->frac ? t2->f : (double)t2->i;

		if (a == b || a == 0)
			return;
		for (i = 0; i < t->nr; i++) {
			struct dcount *c = &t->v[i].c[0];
			double v = c->frac ? c->f : (double)c->i;

			c->f = trunc(v * b / a);
			c->frac = true;
		}
		return;
	}
	/* Nothing to scale from: A is empty (difffolded divides by 0). */
	if (t1->i == t2->i || t1->i == 0)
		return;
	for (i = 0; i < t->nr; i++) {
		struct dcount *c = &t->v[i].c[0];

		/* Exact, as Perl's integer product and division give. */
		c->i = (uint64_t)((unsigned __int128)c->i * t2->i / t1->i);
		c->f = (double)c->i;
	}
}

static void print_count(const struct dcount *c)
{
	/* A truncated NV prints as an integer; other NVs as Perl's %.15g. */
	if (!c->frac)
		printf(" %" PRIu64, c->i);
	else if (c->f == trunc(c->f) && fabs(c->f) < 1e15)
		printf(" %.0f", c->f);
	else
		printf(" %.15g", c->f);
}

int cmd_diff_folded(int argc, char **argv)
{
	struct diff_params params;
	struct dtable t = { 0 };
	size_t i;
	int ret;

	ret = diff_parse_args(argc, argv, &params);
	if (ret < 0)
		return rs_finish_stdout(RS_EXIT_OK);
	if (ret)
		return ret;
	ret = read_input(&t, &params, 0);
	if (!ret)
		ret = read_input(&t, &params, 1);
	if (ret)
		goto out;
	if (params.normalize)
		normalize(&t);
	if (t.nr)
		qsort(t.v, t.nr, sizeof(*t.v), cmp_stack);
	for (i = 0; i < t.nr; i++) {
		fwrite(t.v[i].s, 1, t.v[i].len, stdout);
		print_count(&t.v[i].c[0]);
		print_count(&t.v[i].c[1]);
		putchar('\n');
	}
out:
	dtable_free(&t);
	return rs_finish_stdout(ret);
}
