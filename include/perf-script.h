/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader of `perf script` text (its default output and the -F variants),
 * handing samples to a sink (a fold: fold__script_sink() fills one) with
 * exactly the line rules of FlameGraph's stackcollapse-perf.pl: its header
 * and frame regexes decide what a line is; lines they don't match are
 * ignored (and counted), like the script's "Unrecognized line" warnings.
 *
 *	struct perf_script *ps = perf_script__new();
 *	struct fold *f = fold__new(&opts);
 *	struct perf_script_sink sink;
 *	fold__script_sink(f, &sink);
 *	err = perf_script__fold(ps, in, &sink, &st);
 *	...fold__write(f, out)...
 *	fold__delete(f);
 *	perf_script__delete(ps);	(after the fold: it owns the strings)
 */
#ifndef RS_PERF_SCRIPT_H
#define RS_PERF_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct perf_script_stats {
	uint64_t nr_lines;	/* lines read */
	uint64_t nr_headers;	/* sample header lines */
	uint64_t nr_filtered;	/* headers of another event (not kept) */
	uint64_t nr_frames;	/* frame lines */
	uint64_t nr_samples;	/* samples folded (ended by a blank line) */
	uint64_t nr_comments;	/* '#' lines */
	uint64_t nr_blank;	/* blank lines */
	uint64_t nr_ignored;	/* lines that are none of the above */
	uint64_t nr_nul;	/* of which lines holding NUL bytes */
	uint64_t nr_unterminated; /* 1 when input ended inside a sample */
	/* On error: the line it happened at (1-based) and what went wrong. */
	uint64_t err_line;
	const char *err_msg;
};

/*
 * A line this long or longer is refused (-E2BIG, with its line number):
 * perf never prints one, and the read buffer stays bounded by it.
 */
#define PERF_SCRIPT_MAX_LINE (16u << 20)

/*
 * Where the reader hands what it reads. Every string is interned by the
 * reader: it stays valid and unchanged until perf_script__delete(), and
 * equal strings are the same pointer. Each callback gets ctx first;
 * negative returns (-ENOMEM) stop the read and are returned by it.
 *   event_keep	a sample header showing an event ("cycles:"): 1 when its
 *		samples are kept, 0 when the header is to be skipped (the
 *		open sample, if any, stays open)
 *   event_seen	a header with no event for the script (a tracepoint's,
 *		with its fields): its name, counted but never filtered
 *   begin	a kept header: comm, pid ("PID", NULL for "?"), tid as the
 *		script makes them, the period when the header has one; a
 *		second header before the blank line retitles the open
 *		sample, its frames stay
 *   frame	a frame line of an open sample, leaf first: sym, dso (""
 *		allowed), pc (the address as printed, only when sym holds
 *		"[unknown]", else NULL)
 *   end	the blank line closing a sample
 *   cancel	drop the open sample (input ended before its blank line,
 *		or an error)
 */
struct perf_script_sink {
	void *ctx;
	int (*event_keep)(void *ctx, const char *event);
	int (*event_seen)(void *ctx, const char *event);
	int (*begin)(void *ctx, const char *comm, const char *pid,
		     const char *tid, uint64_t period, bool has_period);
	int (*frame)(void *ctx, const char *sym, const char *dso,
		     const char *pc);
	int (*end)(void *ctx);
	void (*cancel)(void *ctx);
};

/* Where a frame line's parts are, as offsets into the line. */
struct perf_script_frame {
	size_t pc_off, pc_len;
	size_t sym_off, sym_len;
	size_t dso_off, dso_len;
};

/*
 * Split a frame line ("\t addr sym+off (dso)") the way the script's regex
 * does, backtracking included: false when it is no frame line. The reader
 * splits the lines it reads with it, the fold the lines perf would print
 * for recorded frames.
 */
bool perf_script__split_frame(const char *line, size_t n,
			      struct perf_script_frame *fr);

struct perf_script;

struct perf_script *perf_script__new(void);
/* Delete after every sink fed by this reader: they keep its strings. */
void perf_script__delete(struct perf_script *ps);

/*
 * Read `in` to its end, feeding sink. Returns 0 (even when nothing in the
 * text was a sample: check st->nr_samples), -EIO on a read error,
 * -E2BIG on a line of PERF_SCRIPT_MAX_LINE bytes or more, or -ENOMEM;
 * then st->err_line and st->err_msg say where and what. st may
 * be NULL. The reader can be used again on another input.
 */
int perf_script__fold(struct perf_script *ps, FILE *in,
		      const struct perf_script_sink *sink,
		      struct perf_script_stats *st);

/*
 * Begin a sample in sink from one header line as perf script prints it, by
 * the script's rules: for recorded samples that perf prints in a way the
 * script reads oddly (a task that exited, tid -1). Returns 1 when the
 * sample is kept (feed its frames, then end it), 0 when it is not
 * (another event, or no header for the script), -ENOMEM.
 */
int perf_script__begin_sample(struct perf_script *ps,
			      const struct perf_script_sink *sink,
			      const char *line, size_t n);

/*
 * Whether the first bytes of an input look like text rather than a
 * perf.data file: no perf.data magic, no NUL bytes, few control bytes.
 * An empty buffer counts as text.
 */
bool perf_script__sniff(const void *buf, size_t len);

/*
 * Whether text is perf script output: its first line that is neither
 * blank nor a '#' comment (leading blanks aside, as perf pads the comm;
 * perf script --header's "# ========" block is comments) is a sample
 * header by the script's rule, followed by fields in one of the layouts
 * perf script has printed since 3.x: a time column ("489.647942:") or an
 * event word ("cycles:", with or without a time, a period or a trailing
 * blank), a frame on the same line (no callchain), or nothing but a CPU
 * column with a frame on the next line. True when the buffer holds no
 * such line yet (a long '#' header); false for any other text (a README,
 * JSON), or for what perf_script__sniff() refuses.
 */
bool perf_script__recognise(const void *buf, size_t len);

#endif
