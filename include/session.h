/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session: one input opened once (perf.data file or pipe, standard
 * input, perf script text, JSON, other text), its kind sniffed once, and
 * what reading a recording needs kept in one place, as perf's
 * util/session.c does: the perf_data reader, the machine (tasks, maps,
 * symbols), the build ids the recording lists, and the kernel-symbol
 * policy (--kallsyms, --vmlinux, the recording's own kallsyms, this
 * machine's when it was recorded here). Consumers (fold, analysis,
 * timeline) are fed from it.
 *
 * Like all library code the session prints nothing: what it has to say
 * (errors, notes) is queued as lines, in the order a reader should see
 * them, for the command to print with session__next_msg().
 */
#ifndef RS_SESSION_H
#define RS_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "fold.h"
#include "spans.h"

struct session;
struct perf_data;
struct machine;
struct kernel_spans;

enum session_kind {
	SESSION_EMPTY,		/* no byte at all */
	SESSION_PERF_DATA,	/* PERFILE2 magic: file or pipe layout */
	SESSION_SCRIPT,		/* `perf script` text */
	SESSION_JSON,		/* text starting with { or [ (report, bench) */
	SESSION_TEXT,		/* other text (folded stacks, or not ours) */
	SESSION_BINARY,		/* neither text nor a recording */
};

/*
 * What the first n bytes of an input are: the one place that tells a
 * recording, perf script text, JSON and other text apart (report,
 * diff-folded, plot and compare all ask it).
 */
enum session_kind session_kind__sniff(const void *buf, size_t n);

/* Kept by the session: the strings must outlive it. */
struct session_opts {
	const char *input;	/* a path; "-" with dash_is_stdin */
	bool dash_is_stdin;
	/*
	 * Said after an input that cannot be opened ("give a recording
	 * with -i FILE"); NULL: the system's message alone.
	 */
	const char *open_hint;
	const char *kallsyms;	/* kernel symbols: wins over vmlinux */
	const char *vmlinux;
	unsigned int jobs;	/* threads for a perf.data (0: one) */
};

/*
 * Open o->input, read what tells its kind and, for a recording, open the
 * reader (regular files mapped whole, streams read as they come). *sp is
 * set whenever memory allowed, even on failure: the error is then the
 * session's first message. 0 or -errno.
 */
int session__open(struct session **sp, const struct session_opts *o);
void session__delete(struct session *s);

enum session_kind session__kind(const struct session *s);
/* A recording's reader; NULL for the other kinds. */
struct perf_data *session__perf_data(const struct session *s);
/* Tasks, maps and symbols, with the recording's build ids registered. */
struct machine *session__machine(struct session *s);

/*
 * Text inputs: the whole input as a stream, the sniffed bytes first. The
 * session owns it; NULL when out of memory.
 */
FILE *session__text(struct session *s);

/*
 * The oldest message not yet taken, NULL when there is none; *error says
 * whether it is the error (print it with rs_error(), the notes with
 * rs_note()).
 */
const char *session__next_msg(struct session *s, bool *error);

/*
 * Decide the kernel symbols once (later calls return what the first
 * did): --kallsyms, else --vmlinux (its build id must match), else the
 * kallsyms the recording carries, else /proc/kallsyms when the recording
 * comes from the running kernel, else none (a note says why). Consumers
 * call it at the first sample: in the pipe layout OSRELEASE comes in the
 * stream. An error is queued.
 */
int session__kernel_symbols(struct session *s);

/*
 * Deliver every event of the recording to fn. An error (the reader's, or
 * fn's at an event) is queued as "INPUT: offset N: what", after which
 * notes about bad tracepoint formats follow, as they come only once the
 * data is read. 0 or -errno.
 */
int session__process(struct session *s, rs_event_fn fn, void *arg);

/* Names of the recording's events, ", "-separated, for a message. */
void session__list_events(const struct session *s, char *buf, size_t len);

/*
 * Fold the input's samples (a recording, or perf script text) as
 * `report --folded` does: by default the first sampling event alone,
 * with stackcollapse as `perf script | stackcollapse-perf.pl` would.
 * On success *foldp is the fold to write and the notes are queued; on
 * failure the error is queued (-ENOMEM may come without one).
 */
int session__fold(struct session *s, const struct fold_opts *o,
		  bool stackcollapse, struct fold **foldp);

/*
 * Attribute and pair a recording's samples (report's tables): o's rules
 * and spans; its os_release is the recording's. On success *anp is the
 * finished analysis and the notes about it are queued; on failure the
 * error is queued (-ENOMEM may come without one).
 */
int session__analyse(struct session *s, const struct analysis_opts *o,
		     struct analysis **anp);

/*
 * Lock holds as report pairs them, handed to hold(arg, locked_time,
 * hold_ns) as they close (plot --kind timeline): the rstat lock
 * tracepoints need no symbols, so none are loaded. *first is the time of
 * the recording's first sample. On failure the error is queued
 * ("INPUT: what"; -ENOMEM without one).
 */
int session__timeline(struct session *s, const struct rules *rules,
		      spans_hold_fn hold, void *arg, uint64_t *first);

/*
 * The BPF-timed spans the recording carries (NULL when none); a section
 * that does not parse is left out with a note. 0 or -ENOMEM.
 */
int session__kernel_spans(struct session *s, struct kernel_spans **ksp);

/*
 * Whether the recording was made on this machine in this boot (same host
 * name and kernel, no sample later than now): only then do cgroup ids
 * name the paths found here.
 */
bool session__recorded_here(const struct session *s);

#endif
