// SPDX-License-Identifier: GPL-2.0
/*
 * `perf script` text to folded stacks.
 *
 * The line classification follows stackcollapse-perf.pl's Perl regexes to
 * the letter, backtracking included, so that odd lines (comms with spaces
 * or digits, tracepoint fields, dsos with parentheses) land where the
 * script puts them:
 *
 *   header  ^(\S.+?)\s+(\d+)[/]*(\d+)*\s+       comm, pid, tid
 *           :\s*(\d+)*\s+(\S+):\s*$            period, event
 *   frame   ^\s*(\w+)\s*(.+) \((.*)\)          pc, sym, dso
 *
 * Each matcher below is written out by hand (linear time, no regex
 * engine) with the reasoning about which match Perl picks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf-format.h"
#include "perf-script.h"
#include "util.h"

#define READ_CHUNK (1u << 20)

struct span {
	size_t off, len;
	bool set;
};

struct perf_script {
	struct strpool *pool;
	char *buf;		/* read buffer: data in [pos, end) */
	size_t cap, pos, end;
	bool eof;
};

struct perf_script *perf_script__new(void)
{
	struct perf_script *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->pool = strpool__new();
	ps->cap = READ_CHUNK;
	ps->buf = malloc(ps->cap);
	if (!ps->pool || !ps->buf) {
		perf_script__delete(ps);
		return NULL;
	}
	return ps;
}

void perf_script__delete(struct perf_script *ps)
{
	if (!ps)
		return;
	strpool__delete(ps->pool);
	free(ps->buf);
	free(ps);
}

/*
 * ^(\S.+?)\s+(\d+)[/]*(\d+)*\s+
 *
 * The lazy comm is the shortest prefix (two bytes at least) after which
 * come blanks, digits, slashes, digits, a blank. Digits can't be blanks,
 * so backtracking inside the tail never turns a failure into a match:
 * each candidate end is checked once, and only at the start of a blank
 * run (a later start in the same run sees the same tail).
 */
static bool match_header(const char *p, size_t n, struct span *comm,
			 struct span *pid, struct span *tid)
{
	size_t e, f, g, h, i;

	if (n < 3 || ascii_is_space(p[0]))
		return false;
	for (e = 2; e < n; e++) {
		if (!ascii_is_space(p[e]) || (e > 2 && ascii_is_space(p[e - 1])))
			continue;
		for (f = e; f < n && ascii_is_space(p[f]); f++)
			;
		for (g = f; g < n && ascii_is_digit(p[g]); g++)
			;
		if (g == f)
			continue;
		for (h = g; h < n && p[h] == '/'; h++)
			;
		for (i = h; i < n && ascii_is_digit(p[i]); i++)
			;
		if (i >= n || !ascii_is_space(p[i]))
			continue;
		*comm = (struct span){ 0, e, true };
		*pid = (struct span){ f, g - f, true };
		*tid = (struct span){ h, i - h, i > h };
		return true;
	}
	return false;
}

/*
 * :\s*(\d+)*\s+(\S+):\s*$
 *
 * The final ':' must be the last non-blank byte; (\S+) is the whole
 * non-blank run before it, preceded by blanks; before those come either
 * digits (the period), optional blanks and a ':', or directly the ':'.
 * Only one placement of the leading ':' can fit, so leftmost-first picks
 * that one.
 */
static bool match_event(const char *p, size_t n, struct span *period,
			struct span *event)
{
	size_t c = n, e, j, b, k;

	while (c > 0 && ascii_is_space(p[c - 1]))
		c--;
	if (!c || p[--c] != ':')
		return false;
	for (e = c; e > 0 && !ascii_is_space(p[e - 1]); e--)
		;
	if (e == c)
		return false;
	for (j = e; j > 0 && ascii_is_space(p[j - 1]); j--)
		;
	if (j == e || j == 0)
		return false;
	*event = (struct span){ e, c - e, true };
	if (p[j - 1] == ':') {
		period->set = false;
		return true;
	}
	if (!ascii_is_digit(p[j - 1]))
		return false;
	for (b = j; b > 0 && ascii_is_digit(p[b - 1]); b--)
		;
	for (k = b; k > 0 && ascii_is_space(p[k - 1]); k--)
		;
	if (k == 0 || p[k - 1] != ':')
		return false;
	*period = (struct span){ b, j - b, true };
	return true;
}

static const char *intern(struct perf_script *ps, const char *p,
			  const struct span *sp, int *err)
{
	int id = strpool__intern(ps->pool, p + sp->off, sp->len);

	if (id < 0) {
		*err = id;
		return NULL;
	}
	return strpool__str(ps->pool, id);
}

static uint64_t parse_u64(const char *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned d = p[i] - '0';

		if (v > (UINT64_MAX - d) / 10)
			return UINT64_MAX;
		v = v * 10 + d;
	}
	return v;
}

/*
 * A tracepoint's header, whose event the script does not see (its fields
 * follow): "... 489.647942: cgroup:cgroup_rstat_locked: root=0 ...", the
 * period optional. The event is the word after the time column, ending
 * in ':' and holding another ':'.
 */
static bool match_tp_event(const char *p, size_t n, struct span *event)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		if (!ascii_is_digit(p[i]) || (i && ascii_is_digit(p[i - 1])))
			continue;
		for (j = i; j < n && ascii_is_digit(p[j]); j++)
			;
		if (j + 1 >= n || p[j] != '.' || !ascii_is_digit(p[j + 1]))
			continue;
		for (j++; j < n && ascii_is_digit(p[j]); j++)
			;
		if (j >= n || p[j] != ':')
			continue;
		for (j++; j < n && ascii_is_space(p[j]); j++)
			;
		for (k = j; k < n && ascii_is_digit(p[k]); k++)
			;
		if (k > j && k < n && ascii_is_space(p[k]))
			for (j = k; j < n && ascii_is_space(p[j]); j++)
				;
		for (k = j; k < n && !ascii_is_space(p[k]); k++)
			;
		if (k - j < 4 || p[k - 1] != ':' ||
		    !memchr(p + j, ':', k - j - 1))
			return false;
		*event = (struct span){ j, k - 1 - j, true };
		return true;
	}
	return false;
}

/* 0: not a header, 1: a header of another event, 2: a kept one. */
static int do_header(struct perf_script *ps,
		     const struct perf_script_sink *sk, const char *p,
		     size_t n, struct perf_script_stats *st)
{
	struct span comm, pid, tid, period = { 0 }, event;
	const char *c, *ps_pid, *ps_tid, *ev = NULL;
	bool has_period = false;
	uint64_t val = 0;
	int err = 0, ret;

	if (!match_header(p, n, &comm, &pid, &tid))
		return 0;
	st->nr_headers++;
	if (match_event(p, n, &period, &event)) {
		ev = intern(ps, p, &event, &err);
		if (!ev)
			return err;
		ret = sk->event_keep(sk->ctx, ev);
		if (ret < 0)
			return ret;
		if (!ret) {
			/* The script skips the line: the sample stays open. */
			st->nr_filtered++;
			return 1;
		}
	} else if (match_tp_event(p, n, &event)) {
		/* Kept whatever the filter; named for its messages. */
		ev = intern(ps, p, &event, &err);
		if (!ev)
			return err;
		ret = sk->event_seen(sk->ctx, ev);
		if (ret < 0)
			return ret;
	}
	/* Perl's "not $period" and "not $tid": undef and "0" are false. */
	if (period.set && !(period.len == 1 && p[period.off] == '0')) {
		has_period = true;
		val = parse_u64(p + period.off, period.len);
	}
	c = intern(ps, p, &comm, &err);
	if (tid.set && !(tid.len == 1 && p[tid.off] == '0')) {
		ps_pid = intern(ps, p, &pid, &err);
		ps_tid = intern(ps, p, &tid, &err);
	} else {
		ps_pid = NULL;
		ps_tid = intern(ps, p, &pid, &err);
	}
	if (err)
		return err;
	ret = sk->begin(sk->ctx, c, ps_pid, ps_tid, val, has_period);
	return ret < 0 ? ret : 2;
}

int perf_script__begin_sample(struct perf_script *ps,
			      const struct perf_script_sink *sink,
			      const char *line, size_t n)
{
	struct perf_script_stats st = { 0 };
	int ret = do_header(ps, sink, line, n, &st);

	return ret < 0 ? ret : ret == 2;
}

static int do_frame(struct perf_script *ps,
		    const struct perf_script_sink *sk, const char *p,
		    size_t n, bool open, struct perf_script_stats *st)
{
	struct perf_script_frame fr;
	struct span pc, sym, dso;
	const char *s, *d, *a = NULL;
	int err = 0;

	if (!perf_script__split_frame(p, n, &fr))
		return 0;
	pc = (struct span){ fr.pc_off, fr.pc_len, true };
	sym = (struct span){ fr.sym_off, fr.sym_len, true };
	dso = (struct span){ fr.dso_off, fr.dso_len, true };
	st->nr_frames++;
	if (!open)
		return 1;
	s = intern(ps, p, &sym, &err);
	d = intern(ps, p, &dso, &err);
	/* The address is printed only for [unknown] frames. */
	if (memmem(p + sym.off, sym.len, "[unknown]", 9))
		a = intern(ps, p, &pc, &err);
	if (err)
		return err;
	err = sk->frame(sk->ctx, s, d, a);
	return err < 0 ? err : 1;
}

/*
 * Next line without its '\n' in *line / *len. Returns 1, 0 at the end,
 * -EIO, or -E2BIG for a line of PERF_SCRIPT_MAX_LINE bytes or more: perf
 * never prints one, and cutting it would lose a frame or misread a header
 * without anyone knowing, so the input is refused at that line.
 */
static int next_line(struct perf_script *ps, FILE *in, char **line,
		     size_t *len)
{
	for (;;) {
		char *nl = memchr(ps->buf + ps->pos, '\n', ps->end - ps->pos);
		size_t got;

		if (nl) {
			*line = ps->buf + ps->pos;
			*len = nl - *line;
			ps->pos = nl - ps->buf + 1;
			return 1;
		}
		if (ps->eof) {
			if (ps->pos == ps->end)
				return 0;
			*line = ps->buf + ps->pos;
			*len = ps->end - ps->pos;
			ps->pos = ps->end;
			return 1;
		}
		/* No '\n' in the buffer: make room and read more. */
		if (ps->pos) {
			memmove(ps->buf, ps->buf + ps->pos, ps->end - ps->pos);
			ps->end -= ps->pos;
			ps->pos = 0;
		}
		if (ps->end == ps->cap) {
			char *b;

			if (ps->cap >= PERF_SCRIPT_MAX_LINE)
				return -E2BIG;
			b = realloc(ps->buf, ps->cap * 2);
			if (!b)
				return -ENOMEM;
			ps->buf = b;
			ps->cap *= 2;
		}
		got = fread(ps->buf + ps->end, 1, ps->cap - ps->end, in);
		ps->end += got;
		if (got == 0) {
			if (ferror(in))
				return -EIO;
			ps->eof = true;
		}
	}
}

int perf_script__fold(struct perf_script *ps, FILE *in,
		      const struct perf_script_sink *sink,
		      struct perf_script_stats *st)
{
	struct perf_script_stats dummy;
	bool open = false;
	char *p;
	size_t n;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	ps->pos = ps->end = 0;
	ps->eof = false;

	while ((ret = next_line(ps, in, &p, &n)) > 0) {
		st->nr_lines++;
		if (n && p[0] == '#') {
			st->nr_comments++;
			continue;
		}
		if (!n) {
			st->nr_blank++;
			if (open) {
				ret = sink->end(sink->ctx);
				if (ret < 0)
					goto err;
				st->nr_samples++;
				open = false;
			}
			continue;
		}
		/* perf never prints NULs; C strings can't carry them. */
		if (memchr(p, '\0', n)) {
			st->nr_nul++;
			st->nr_ignored++;
			continue;
		}
		ret = do_header(ps, sink, p, n, st);
		if (ret < 0)
			goto err;
		if (ret) {
			/* 2: a kept header opens (or retitles) a sample. */
			if (ret == 2)
				open = true;
			continue;
		}
		ret = do_frame(ps, sink, p, n, open, st);
		if (ret < 0)
			goto err;
		if (!ret)
			st->nr_ignored++;
	}
	if (ret < 0)
		goto err;
	if (open) {
		/* Like the script: a sample without its blank line is lost. */
		sink->cancel(sink->ctx);
		st->nr_unterminated = 1;
	}
	return 0;
err:
	sink->cancel(sink->ctx);
	/* Read errors and long lines come before the line is counted. */
	st->err_line = st->nr_lines + (ret == -EIO || ret == -E2BIG);
	st->err_msg = ret == -EIO ? "read error" :
		      ret == -E2BIG ?
		      "a line of 16 MiB or more, which perf script never prints: refused" :
		      ret == -ENOMEM ? "out of memory" : "cannot fold";
	return ret;
}

bool perf_script__sniff(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i, bad = 0;

	if (perf_format__sniff(p, len) != PERF_LAYOUT_NONE)
		return false;
	for (i = 0; i < len; i++) {
		if (!p[i])
			return false;
		if (p[i] < 0x20 && !ascii_is_space(p[i]) && p[i] != 0x1b)
			bad++;
		else if (p[i] == 0x7f)
			bad++;
	}
	/* A stray control byte is text damage; many mean binary. */
	return bad * 100 <= len;
}

/* "DIGITS.DIGITS:" somewhere in the line: perf script's time column. */
static bool has_timestamp(const char *p, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!ascii_is_digit(p[i]) || (i && ascii_is_digit(p[i - 1])))
			continue;
		for (j = i; j < n && ascii_is_digit(p[j]); j++)
			;
		if (j + 2 >= n || p[j] != '.' || !ascii_is_digit(p[j + 1]))
			continue;
		for (j++; j < n && ascii_is_digit(p[j]); j++)
			;
		if (j < n && p[j] == ':')
			return true;
	}
	return false;
}

/*
 * A word ending in ':' then a blank or the end of the line: an event as
 * perf prints it ("cycles:", "cycles:ppp:", "sched:sched_switch:"), with
 * or without the time column before it.
 */
static bool has_event_word(const char *p, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i = j) {
		for (; i < n && ascii_is_space(p[i]); i++)
			;
		for (j = i; j < n && !ascii_is_space(p[j]); j++)
			;
		if (j - i >= 2 && p[j - 1] == ':')
			return true;
	}
	return false;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && ascii_is_space(*p))
		p++;
	return p;
}

/* "ip sym (dso)" with ip in hex, as perf prints a frame ("%16lx "). */
static bool is_frame(const char *p, const char *end)
{
	struct perf_script_frame fr;
	const char *h;

	p = skip_blanks(p, end);
	for (h = p; h < end && ascii_is_xdigit(*h); h++)
		;
	return h > p && h < end && ascii_is_space(*h) &&
	       perf_script__split_frame(p, end - p, &fr);
}

/*
 * What perf script prints after "comm pid[/tid] " is its choice of
 * fields (-F), in this order: "[cpu]", "secs.usecs:", the period, the
 * event name ("%*s: ", padded when events differ in length), then for a
 * sample without a callchain "ip sym+off (dso)" on the same line, or
 * tracepoint fields. Its layouts since perf 3.x:
 *
 *   java 19983 [001] 8521.418375: cycles:      perf 3.x, trailing blank
 *   java 19983/19990 8521.418: 250000 cycles:ppp:   -F +pid, period
 *   java 19983 cycles:                         -F comm,tid,event,...
 *   sleep 901 [000]                            -F comm,tid,cpu,ip,sym
 *   java 19983 [001] 1.5: cycles: 7f12 main (/bin/x)   no callchain
 *
 * So a first sample line is perf's when it shows an event word or a
 * time, when its rest is a frame, or when its rest is empty (a CPU
 * column aside) and the line after it is a frame.
 */
static int header_is_perf(const char *p, size_t n, const char *next,
			  const char *end)
{
	struct span comm, pid, tid, period, event;
	const char *r, *re = p + n, *nl;

	if (!match_header(p, n, &comm, &pid, &tid))
		return 0;
	if (match_event(p, n, &period, &event) || has_timestamp(p, n))
		return 1;
	r = p + (tid.set ? tid.off + tid.len : pid.off + pid.len);
	if (has_event_word(r, re - r))
		return 1;
	r = skip_blanks(r, re);
	if (r < re && *r == '[') {
		const char *c = r + 1;

		while (c < re && ascii_is_digit(*c))
			c++;
		if (c > r + 1 && c < re && *c == ']')
			r = skip_blanks(c + 1, re);
	}
	if (r < re)
		return is_frame(r, re);
	nl = memchr(next, '\n', end - next);
	if (!nl)
		return -1;	/* the next line is not whole: undecided */
	return is_frame(next, nl);
}

bool perf_script__recognise(const void *buf, size_t len)
{
	const char *p = buf, *end = p + len, *nl;
	size_t n;

	if (!perf_script__sniff(buf, len))
		return false;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return true;	/* no whole line yet: undecided */
		n = nl - p;
		while (n && ascii_is_space(*p)) {
			p++;
			n--;
		}
		if (!n || *p == '#')
			continue;
		return header_is_perf(p, n, nl + 1, end) != 0;
	}
	return true;
}
