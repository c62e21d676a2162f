/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the flamegraph.pl input, built with the rules of
 * FlameGraph's stackcollapse-perf.pl (see docs/ and formats.md) so that the
 * two agree line for line.
 *
 * Feeding: fold__begin() once per sample, fold__frame() for each frame leaf
 * first (the order perf script prints), fold__end(). String arguments must
 * stay valid and unchanged until fold__delete(): pass interned strings (the
 * fold caches processed frame names keyed on the pointers).
 */
#ifndef RS_FOLD_H
#define RS_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fold_opts {
	bool pid;		/* comm-PID */
	bool tid;		/* comm-PID/TID */
	bool kernel;		/* _[k] on kernel frames */
	bool jit;		/* _[j] on /tmp/perf-PID.map frames */
	bool addrs;		/* keep raw addresses of unknown frames */
	bool samples;		/* count samples, not periods */
	/*
	 * Threads the fold may use (0: one): with 2 or more fold__write()
	 * sorts, merges and formats its lines on two (4096 stacks or
	 * more); with 3 or more the stacks of recorded samples
	 * (fold__begin_key()) are built on a thread of the fold's own
	 * while the caller names the next samples' frames.
	 */
	unsigned int jobs;
	/* keep only this event (modifiers optional); NULL: the first */
	const char *event_filter;
};

struct fold;

struct fold *fold__new(const struct fold_opts *opts);
void fold__delete(struct fold *f);

/*
 * Start a sample. pid is (uint32_t)-1 when unknown. has_period says
 * whether the sample header showed a period (else the count is 1).
 * The name is what the script makes of perf script's "comm PID/TID"
 * (pid known) or "comm TID" (pid unknown: "?"), quirks included: a TID
 * of 0 after a PID reads as absent, giving comm-?/PID. A NULL event is
 * kept whatever the filter (the script sees no event in a header that
 * doesn't end with "event:", e.g. a tracepoint's with its fields).
 * Returns 1 when the sample is kept, 0 when it belongs to another event
 * (then fold__frame() and fold__end() are no-ops), -ENOMEM.
 */
int fold__begin(struct fold *f, const char *event, const char *comm,
		uint32_t pid, uint32_t tid, uint64_t period, bool has_period);
/*
 * One recorded frame, as perf script would print it: sym (an offset like
 * "+0x1f" may stay: the rules strip it), dso as printed between the
 * parentheses ("[unknown]" when no map), or NULL where perf prints no dso
 * at all (tracepoint callchains in the pipe layout); addr the address as
 * printed (--addrs). Where the printed line would not split back into
 * this sym and dso (a dso "/memfd:x (deleted)"), it is split the way the
 * script's regex splits it.
 */
int fold__frame(struct fold *f, const char *sym, const char *dso,
		uint64_t addr);
/*
 * The same, for a caller that names each distinct (sym, dso, addr) with a
 * number > 0 that never names anything else during the fold's life (the
 * symbolizer's rs_frame.id): frames seen before skip all string work.
 * id 0 means no such number.
 */
int fold__frame_id(struct fold *f, uint32_t id, const char *sym,
		   const char *dso, uint64_t addr);
int fold__end(struct fold *f);

struct rs_frame;
/*
 * fold__frame_id() on each of n named frames (leaf first: id, sym, dso,
 * map_addr), then fold__end(); no_dso: as perf prints them without a
 * dso (no id, no dso). With a thread of the fold's own, the frames are
 * handed to it at once.
 */
int fold__feed(struct fold *f, const struct rs_frame *fr, uint32_t n,
	       bool no_dso);
/*
 * A shortcut for recorded samples, called after fold__begin(): h is the
 * 128-bit hash of the raw callchain and everything its naming depends on
 * (machine__callchain_hash()), where a hash of the raw callchain alone
 * (rs_sample.chain_hash[0]), which places the key in the table so that
 * fold__prefetch() can find its slot before the sample's turn. Returns 1
 * when a sample with the same process name and key was folded before:
 * this one is counted on that stack and closed, with no frames to feed.
 * Returns 0 otherwise: feed the frames, and fold__end() remembers the
 * key. -ENOMEM.
 */
int fold__begin_key(struct fold *f, const uint64_t h[2], uint64_t where);
/*
 * Start bringing into the cache the table slot a coming sample's
 * fold__begin_key() will look at (where as for it). A hint only.
 */
void fold__prefetch(const struct fold *f, uint64_t where);

/*
 * The event filter alone: 1 when samples of this event are kept (the
 * first event seen becomes the kept one unless opts.event_filter names
 * it), 0 when dropped (counted in fold__nr_dropped()), -ENOMEM. A NULL
 * event (the sample header showed none) is always kept. fold__begin()
 * calls it; the perf script reader calls it on each header line.
 */
int fold__event_keep(struct fold *f, const char *event);

/*
 * Whether event is name, or name with perf's modifiers (perf 6.1 writes
 * "cpu-clock:pppH" for -e cpu-clock; "cycles" names "cycles:u"): a filter
 * may be spelled either way.
 */
bool fold__event_match(const char *event, const char *name);

/*
 * The distinct event names fold__event_keep() was shown (up to max in
 * names, in the order seen; they belong to the fold). Returns how many
 * there were (at most 32 are kept).
 */
unsigned int fold__events_seen(const struct fold *f, const char **names,
			       unsigned int max);
/*
 * Whether any event shown to fold__event_keep() or fold__event_seen()
 * matched opts.event_filter (modifiers aside), however many distinct
 * events there were.
 */
bool fold__filter_hit(const struct fold *f);
/*
 * Count an event name among those seen, without filtering (a tracepoint
 * whose header shows no event to the script). 0 or -ENOMEM.
 */
int fold__event_seen(struct fold *f, const char *event);

/*
 * For `perf script` text, where the process name is made from the text
 * as printed: comm, pid ("PID" or NULL for "?") and tid are interned
 * strings, no event check is made (see fold__event_keep()). When a sample
 * is already open (a second header before the blank line), its frames are
 * kept and only the name and period change, as in stackcollapse-perf.pl.
 * Returns 1 or -ENOMEM.
 */
int fold__begin_text(struct fold *f, const char *comm, const char *pid,
		     const char *tid, uint64_t period, bool has_period);
/*
 * A frame line's sym, dso (between the parentheses, "" allowed) and pc
 * (the address as printed), all interned; pc may be NULL when the sym has
 * no "[unknown]" in it.
 */
int fold__frame_text(struct fold *f, const char *sym, const char *dso,
		     const char *pc);
/* Drop the open sample (input ended before its blank line). */
void fold__cancel(struct fold *f);

struct perf_script_sink;
/*
 * Fill sink so that the perf script reader (perf-script.h) feeds f:
 * fold__event_keep(), fold__event_seen(), fold__begin_text(),
 * fold__frame_text(), fold__end(), fold__cancel().
 */
void fold__script_sink(struct fold *f, struct perf_script_sink *sink);

/*
 * With fold_opts.jobs 2: while most callchains are new, their stacks are
 * built by another thread, the one that reads the records, when it
 * would otherwise wait (it calls fold__help(), which runs a block of
 * them and says whether there was one); kick(kick_ctx) is called on
 * the caller's thread when there is some. Before the first sample, and
 * before that thread starts; false when there is nothing to help with
 * (other jobs, no memory): then fold__help() must not be called.
 */
bool fold__set_helper(struct fold *f, void (*kick)(void *), void *kick_ctx);
bool fold__help(struct fold *f);
/*
 * When the stacks' side was handed over and back (jobs 2 with a helper,
 * or 3): util.h's struct offload, its turns counted. NULL: never.
 */
struct offload;
const struct offload *fold__offload(const struct fold *f);

/*
 * Wait until the fold's own thread (fold_opts.jobs) has built every
 * stack it was given, and end it: then the strings passed in may go.
 * Returns 0 or the -errno it met (frames fed to it return 0 at once).
 */
int fold__flush(struct fold *f);

/*
 * Write "a;b;c COUNT" lines, sorted bytewise; stacks whose strings are
 * equal are merged. Returns 0 or -errno.
 */
int fold__write(struct fold *f, FILE *out);

uint64_t fold__nr_kept(const struct fold *f);	/* samples kept */
uint64_t fold__nr_dropped(const struct fold *f);	/* other events */
/* Kept samples that showed no event name (tracepoints): no filter drops them. */
uint64_t fold__nr_kept_unnamed(const struct fold *f);
/*
 * The event kept (first seen or the filter), NULL before any sample
 * showed an event. The string belongs to the fold.
 */
const char *fold__event(const struct fold *f);

#endif
