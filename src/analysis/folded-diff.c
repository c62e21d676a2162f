// SPDX-License-Identifier: GPL-2.0
/*
 * Two folded profiles merged into flamegraph.pl's differential input, by
 * the rules of FlameGraph's difffolded.pl (see folded-diff.h).
 * difffolded.pl prints in Perl hash order, which changes from run to
 * run; we sort bytewise, as flamegraph.pl sorts anyway.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "folded-diff.h"
#include "util.h"

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

struct folded_diff {
	struct dstack *v;
	size_t nr, cap;
	uint32_t *slots;	/* index + 1, 0 empty; open addressing */
	size_t nr_slots;
	struct dcount total[2];
	bool strip_hex;
	char *buf;		/* a stack with its addresses stripped */
	size_t bufcap;
};

static void dtable_free(struct folded_diff *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->v[i].s);
	free(t->v);
	free(t->slots);
}

static int dtable_rehash(struct folded_diff *t)
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

static struct dstack *dtable_get(struct folded_diff *t, const char *s,
				 size_t len)
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

/* One line into side; -EINVAL when it is no "STACK COUNT". */
static int add_line(struct folded_diff *t, const char *line, size_t len,
		    int side)
{
	size_t stack_len;
	struct dcount c;
	struct dstack *d;

	if (!parse_line(line, len, &stack_len, &c))
		return -EINVAL;
	if (t->strip_hex) {
		/* "0x1" (3 bytes) becomes "0x..." (5): room for it. */
		size_t need = stack_len * 2 + 8;

		if (need > t->bufcap) {
			char *nb = realloc(t->buf, need);

			if (!nb)
				return -ENOMEM;
			t->buf = nb;
			t->bufcap = need;
		}
		stack_len = strip_hex_copy(t->buf, line, stack_len);
		d = dtable_get(t, t->buf, stack_len);
	} else {
		d = dtable_get(t, line, stack_len);
	}
	if (!d)
		return -ENOMEM;
	dcount_add(&d->c[side], &c);
	dcount_add(&t->total[side], &c);
	return 0;
}

int folded_diff__read(struct folded_diff *t, FILE *in, int side,
		      uint64_t *bad_line)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t lineno = 0;
	ssize_t n;
	int err = 0;

	while (!err && (n = getline(&line, &cap, in)) >= 0) {
		size_t len = n;

		lineno++;
		if (len && line[len - 1] == '\n')
			len--;
		/* An empty line (a file's trailing one) holds no stack. */
		if (!len)
			continue;
		err = add_line(t, line, len, side);
		if (err == -EINVAL)
			*bad_line = lineno;
	}
	if (!err && ferror(in))
		err = errno ? -errno : -EIO;
	free(line);
	return err;
}

struct folded_diff *folded_diff__new(bool strip_hex)
{
	struct folded_diff *t = calloc(1, sizeof(*t));

	if (t)
		t->strip_hex = strip_hex;
	return t;
}

void folded_diff__delete(struct folded_diff *t)
{
	if (!t)
		return;
	dtable_free(t);
	free(t->buf);
	free(t);
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
void folded_diff__normalize(struct folded_diff *t)
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

static void print_count(FILE *out, const struct dcount *c)
{
	/* A truncated NV prints as an integer; other NVs as Perl's %.15g. */
	if (!c->frac)
		fprintf(out, " %" PRIu64, c->i);
	else if (c->f == trunc(c->f) && fabs(c->f) < 1e15)
		fprintf(out, " %.0f", c->f);
	else
		fprintf(out, " %.15g", c->f);
}

void folded_diff__write(struct folded_diff *t, FILE *out)
{
	size_t i;

	if (t->nr)
		qsort(t->v, t->nr, sizeof(*t->v), cmp_stack);
	for (i = 0; i < t->nr; i++) {
		fwrite(t->v[i].s, 1, t->v[i].len, out);
		print_count(out, &t->v[i].c[0]);
		print_count(out, &t->v[i].c[1]);
		putc('\n', out);
	}
}
