// SPDX-License-Identifier: GPL-2.0
/*
 * The fold consumer: a session's samples as folded stacks, line for line
 * what `perf script | stackcollapse-perf.pl` makes of them, from a
 * recording or from perf script text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf-data.h"
#include "perf-script.h"
#include "symbols.h"

#include "session-int.h"

/* perf script's default --max-stack (the kernel's perf_event_max_stack). */
#define FOLD_MAX_STACK 127

/* State while folding a recording. */
struct fold_ctx {
	struct session *s;
	const struct fold_opts *opts;
	bool stackcollapse;
	struct perf_data *pd;
	struct machine *machine;
	struct fold *fold;
	struct perf_script *script;	/* names exiting tasks' samples */
	struct perf_script_sink sink;	/* it feeds the fold */
	uint64_t nr_no_chain;	/* folded samples recorded without -g */
	/*
	 * Without stackcollapse, the one event folded (chosen at the first
	 * sample, when a pipe has announced its events), and what was left
	 * out.
	 */
	const struct rs_evsel *folded;
	bool no_such_event;	/* the event filter names none of them */
	uint64_t nr_left_tp;	/* tracepoint and probe hits */
	uint64_t nr_left_other;	/* samples of other sampling events */
	struct rs_frame frames[FOLD_MAX_STACK];
};

/*
 * What perf script's default output shows for a sample of this event,
 * which is what stackcollapse-perf.pl goes by. Hardware and software
 * events print "period event:" at the end of the header line. Tracepoint
 * headers end with the formatted fields instead, so the script sees no
 * event there (the sample escapes the event filter) and no period (it
 * counts 1); and in the pipe layout perf prints their callchain frames
 * without a dso, which the script's frame regex then skips.
 */
static bool evsel_is_tracepoint(const struct rs_evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_TRACEPOINT &&
	       (evsel->attr.sample_type & PERF_SAMPLE_RAW);
}

static bool evsel_shows_period(const struct rs_evsel *evsel)
{
	return (evsel->attr.sample_type & PERF_SAMPLE_PERIOD) &&
	       !evsel_is_tracepoint(evsel);
}

/* perf script's "[001] " CPU column. */
static const char *cpu_field(uint32_t cpu, char *buf, size_t len)
{
	snprintf(buf, len, "[%03d] ", (int)cpu);
	return buf;
}

/*
 * A task sampled while exiting has pid and tid -1. perf script prints
 * its header as ":-1    -1 [001]  3081.234458:  500250 cpu-clock:", where
 * the script's header regex finds no tid: the process name becomes the
 * whole text up to the time, so each such sample is a stack of its own.
 * Print the header as perf script would (-F +pid when --pid or --tid
 * asks for the PID) and let the script's rules read it.
 */
static int begin_exiting(struct fold_ctx *ctx, const struct rs_sample *s,
			 const char *comm)
{
	uint64_t type = s->evsel->attr.sample_type;
	char secs[32], tstamp[48] = "", cpu[24];
	const char *cpu_col = "";
	uint64_t usecs = s->time / 1000;
	char *line = NULL;
	int n, ret;

	if (!ctx->script) {
		ctx->script = perf_script__new();
		if (!ctx->script)
			return -ENOMEM;
	}
	if (type & PERF_SAMPLE_TIME) {
		snprintf(secs, sizeof(secs), "%" PRIu64 ".%06" PRIu64,
			 usecs / 1000000, usecs % 1000000);
		snprintf(tstamp, sizeof(tstamp), "%12s: ", secs);
	}
	if (type & PERF_SAMPLE_CPU)
		cpu_col = cpu_field(s->cpu, cpu, sizeof(cpu));
	/* The comm comes from the file: any length, hence asprintf. */
	if (ctx->opts->pid || ctx->opts->tid)
		n = asprintf(&line, type & PERF_SAMPLE_CALLCHAIN ?
			     "%s %5d/%-5d %s%s%10" PRIu64 " %s: " :
			     "%16s %5d/%-5d %s%s%10" PRIu64 " %s: ",
			     comm, (int)s->pid, (int)s->tid, cpu_col,
			     tstamp, s->period, s->evsel->name);
	else
		n = asprintf(&line, type & PERF_SAMPLE_CALLCHAIN ?
			     "%s %5d %s%s%10" PRIu64 " %s: " :
			     "%16s %5d %s%s%10" PRIu64 " %s: ",
			     comm, (int)s->tid, cpu_col,
			     tstamp, s->period, s->evsel->name);
	if (n < 0)
		return -ENOMEM;
	ret = perf_script__begin_sample(ctx->script, &ctx->sink, line, n);
	free(line);
	return ret;
}

/*
 * A tracepoint or probe (recorded at every hit, or sampled by perf
 * record -F alike): not a sampling event, whose samples stand for time
 * or cycles spent.
 */
static bool evsel_is_hit(const struct rs_evsel *evsel)
{
	uint32_t type = evsel->attr.type;

	return type != PERF_TYPE_HARDWARE && type != PERF_TYPE_SOFTWARE &&
	       type != PERF_TYPE_HW_CACHE && type != PERF_TYPE_RAW;
}

/* perf record's side-band carrier ("dummy:HG") samples nothing. */
static bool evsel_is_dummy(const struct rs_evsel *evsel)
{
	return evsel->attr.type == PERF_TYPE_SOFTWARE &&
	       evsel->attr.config == PERF_COUNT_SW_DUMMY;
}

/*
 * The event to fold: the filter's (modifiers optional), else the first
 * sampling event, else (only tracepoints) the first event.
 */
static int choose_folded(struct fold_ctx *ctx)
{
	uint32_t i, n = perf_data__nr_evsel(ctx->pd);
	const char *want = ctx->opts->event_filter;
	const struct rs_evsel *e;

	for (i = 0; i < n; i++) {
		e = perf_data__evsel(ctx->pd, i);
		if (want ? !strcmp(e->name, want) :
		    !evsel_is_hit(e) && !evsel_is_dummy(e)) {
			ctx->folded = e;
			return 0;
		}
	}
	for (i = 0; want && i < n; i++) {
		e = perf_data__evsel(ctx->pd, i);
		if (fold__event_match(e->name, want)) {
			ctx->folded = e;
			return 0;
		}
	}
	if (want) {
		ctx->no_such_event = true;
		return -ENOENT;
	}
	if (n)
		ctx->folded = perf_data__evsel(ctx->pd, 0);
	return 0;
}

/*
 * Called on a sample a few places ahead of the one being folded (-j 2):
 * its callchain slot is fetched while this one is folded, since most
 * samples end at that one random read of a large table.
 */
static int fold_ahead(void *arg, const struct rs_event *ev)
{
	struct fold_ctx *ctx = arg;

	if (ev->kind == RS_EV_SAMPLE && rs_sample_where_early(&ev->sample))
		fold__prefetch(ctx->fold, ev->sample.chain_hash[0]);
	return 0;
}

/* Whether the sample is the folded event's; counts what is left out. */
static int keep_sample(struct fold_ctx *ctx, const struct rs_sample *s)
{
	int ret;

	if (!ctx->folded) {
		ret = choose_folded(ctx);
		if (ret)
			return ret;
	}
	if (s->evsel == ctx->folded || s->evsel->name == ctx->folded->name)
		return 1;
	if (evsel_is_hit(s->evsel))
		ctx->nr_left_tp++;
	else
		ctx->nr_left_other++;
	return 0;
}

static int fold_sample(struct fold_ctx *ctx, const struct rs_event *ev)
{
	const struct rs_sample *s = &ev->sample;
	bool tracepoint, no_dso;
	uint64_t h[2];
	const char *comm;
	int n, ret;

	if (!ctx->stackcollapse) {
		ret = keep_sample(ctx, s);
		if (ret <= 0)
			return ret;
	}
	ret = session__kernel_symbols(ctx->s);
	if (ret)
		return ret;
	comm = machine__comm(ctx->machine, s->pid, s->tid);
	tracepoint = evsel_is_tracepoint(s->evsel);
	if (s->tid == (uint32_t)-1 && evsel_shows_period(s->evsel))
		ret = begin_exiting(ctx, s, comm);
	else
		/*
		 * As the script sees perf script's lines, a tracepoint's
		 * shows no event and passes any filter. Folded alone, the
		 * event was chosen above, by its attr: a name the stream
		 * changed mid-way (EVENT_UPDATE) must not split it.
		 */
		ret = fold__begin(ctx->fold, !ctx->stackcollapse ||
				  tracepoint ? NULL : s->evsel->name, comm,
				  s->pid, s->tid, s->period,
				  evsel_shows_period(s->evsel));
	if (ret <= 0)
		return ret;
	no_dso = tracepoint && perf_data__header(ctx->pd)->pipe_mode;
	if (!(s->evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
		ctx->nr_no_chain++;

	/*
	 * Most samples repeat a callchain seen before: fold those by their
	 * raw addresses and skip naming their frames again.
	 */
	machine__callchain_hash(ctx->machine, s, no_dso, h);
	ret = fold__begin_key(ctx->fold, h, rs_sample_chain_where(s, h));
	if (ret)
		return ret < 0 ? ret : 0;

	n = machine__resolve_callchain(ctx->machine, s->pid, s->tid,
				       s->cpumode, s->callchain,
				       s->nr_callchain, ctx->frames,
				       FOLD_MAX_STACK);
	if (n < 0)
		return n;
	/* Without a dso the frame is named differently: no id. */
	return fold__feed(ctx->fold, ctx->frames, n, no_dso);
}

static int fold_event(void *arg, const struct rs_event *ev)
{
	struct fold_ctx *ctx = arg;
	int err;

	if (ev->kind == RS_EV_SAMPLE)
		err = fold_sample(ctx, ev);
	else
		err = machine__process_event(ctx->machine, ev);
	if (err)
		ctx->s->err_offset = ev->offset;
	return err;
}

/*
 * Say what the fold mixed or dropped: stackcollapse-perf.pl keeps one
 * event's samples, but a tracepoint's pass whatever the filter, so a
 * profile of cycles also counts every recorded tracepoint hit.
 */
static void note_dropped(struct session *s, const struct fold *fold)
{
	uint64_t unnamed = fold__nr_kept_unnamed(fold);
	uint64_t named = fold__nr_kept(fold) - unnamed;
	uint64_t dropped = fold__nr_dropped(fold);
	char tail[128] = "";

	if (dropped)
		snprintf(tail, sizeof(tail),
			 "; %" PRIu64 " samples of other events dropped",
			 dropped);
	if (unnamed && !named && dropped)
		session_msg_note(s, "folded the %" PRIu64 " samples of every tracepoint, not only '%s' (tracepoints pass any --event-filter, as in stackcollapse-perf.pl)%s",
				 unnamed, fold__event(fold), tail);
	else if (unnamed && named)
		session_msg_note(s, "folded %" PRIu64 " '%s' samples and %" PRIu64 " tracepoint samples (tracepoints pass any --event-filter, as in stackcollapse-perf.pl)%s",
				 named, fold__event(fold), unnamed, tail);
	else if (dropped)
		session_msg_note(s, "folded only '%s' samples%s (--event-filter picks one)",
				 fold__event(fold), tail);
}

/* Say what the fold of one event left out, and how to get it. */
static void note_left_out(const struct fold_ctx *ctx)
{
	char tp[64] = "", other[64] = "";

	if (!ctx->folded || (!ctx->nr_left_tp && !ctx->nr_left_other))
		return;
	if (ctx->nr_left_tp)
		snprintf(tp, sizeof(tp), "%" PRIu64 " tracepoint and probe hits",
			 ctx->nr_left_tp);
	if (ctx->nr_left_other)
		snprintf(other, sizeof(other),
			 "%s%" PRIu64 " samples of other events",
			 ctx->nr_left_tp ? " and " : "", ctx->nr_left_other);
	session_msg_note(ctx->s, "folded the '%s' samples alone, leaving out %s%s (--event-filter NAME folds another event; --stackcollapse folds as perf script | stackcollapse-perf.pl)",
			 ctx->folded->name, tp, other);
}

/* The reading thread, out of batches: a block of the stacks' work. */
static bool fold_idle(void *arg)
{
	struct fold_ctx *ctx = arg;

	return fold__help(ctx->fold);
}

static int fold_recording(struct session *s, struct fold_ctx *ctx)
{
	char events[512];
	int err;

	ctx->pd = s->pd;
	ctx->machine = session__machine(s);
	if (!ctx->machine)
		return -ENOMEM;
	/* -j 2: the reading thread builds stacks while it would wait. */
	if (fold__set_helper(ctx->fold, session_kick, s))
		perf_data__set_idle(s->pd, fold_idle);
	err = session_run(s, fold_event, fold_ahead, ctx);
	/* The stacks' thread reads the machine's names: done before it goes. */
	if (!err)
		err = fold__flush(ctx->fold);
	else
		fold__flush(ctx->fold);
	if (s->ksyms_done && s->ksyms_err)
		return s->ksyms_err;
	/*
	 * Chosen at the first sample; a recording without any: now. With
	 * stackcollapse too: there it only checks that the event filter
	 * names an event of the file (a typo is an error, not an empty
	 * profile).
	 */
	if (!err && !ctx->folded)
		choose_folded(ctx);
	if (ctx->no_such_event) {
		session__list_events(s, events, sizeof(events));
		session_msg_error(s, "%s: --event-filter %s: no such event in the recording (its events: %s)",
				  s->opts.input, ctx->opts->event_filter ?
				  ctx->opts->event_filter : "",
				  *events ? events : "none");
		return -ENOENT;
	}
	/*
	 * A fatal error is the error alone: stacks cut short at an unknown
	 * point, and notes about them, would pass for a profile.
	 */
	if (err) {
		session_data_error(s, err);
		return err;
	}
	/* Notes first: on a terminal they would land inside the stacks. */
	session_ksyms_note(s);
	if (ctx->stackcollapse)
		note_dropped(s, ctx->fold);
	else
		note_left_out(ctx);
	/*
	 * perf script prints such samples on one line with no blank line
	 * after, so stackcollapse-perf.pl folds nothing; process names alone
	 * say more, but say why.
	 */
	if (ctx->nr_no_chain)
		session_msg_note(s, "%" PRIu64 " samples have no callchain (record with -g): folded as process names alone",
				 ctx->nr_no_chain);
	return 0;
}

/* The names the filter did not find, for its error. */
static void list_seen(const struct fold *fold, char *list, size_t len,
		      const char **more)
{
	const char *seen[8];
	unsigned int i, n = fold__events_seen(fold, seen, 8);
	size_t used = 0;

	list[0] = '\0';
	for (i = 0; i < n && i < 8 && used + 1 < len; i++)
		used += snprintf(list + used, len - used, "%s%s",
				 i ? ", " : "", seen[i]);
	if (!n)
		snprintf(list, len, "none named");
	*more = n > 8 ? ", ..." : "";
}

static int fold_script(struct session *s, struct fold *fold,
		       const struct fold_opts *o)
{
	struct perf_script_stats st = { 0 };
	struct perf_script *ps = perf_script__new();
	struct perf_script_sink sink;
	FILE *in = session__text(s);
	const char *input = s->opts.input, *more;
	char list[512];
	int err;

	if (!ps || !in) {
		perf_script__delete(ps);
		return -ENOMEM;
	}
	fold__script_sink(fold, &sink);
	err = perf_script__fold(ps, in, &sink, &st);
	perf_script__delete(ps);
	if (err) {
		/* The error alone: cut-short stacks would pass for a profile. */
		session_msg_error(s, "%s: line %" PRIu64 ": %s", input,
				  st.err_line, st.err_msg ? st.err_msg :
				  strerror(-err));
		return err;
	}
	if (!st.nr_samples && !st.nr_filtered &&
	    (st.nr_headers || st.nr_frames)) {
		/* Without -g, perf script ends no sample with a blank line. */
		session_msg_error(s, "%s: no stacks in %" PRIu64 " lines of perf script output: it prints callchains only for recordings made with -g",
				  input, st.nr_lines);
		return -ENODATA;
	}
	if (!st.nr_samples && !st.nr_filtered) {
		session_msg_error(s, "%s: no samples found in %" PRIu64
				  " lines: not perf script output? (try `perf script -i FILE`)",
				  input, st.nr_lines);
		return -ENODATA;
	}
	if (o->event_filter && !fold__filter_hit(fold)) {
		list_seen(fold, list, sizeof(list), &more);
		session_msg_error(s, "%s: --event-filter %s: no sample of that event (its events: %s%s)",
				  input, o->event_filter, list, more);
		return -ENOENT;
	}
	note_dropped(s, fold);
	return 0;
}

int session__fold(struct session *s, const struct fold_opts *o,
		  bool stackcollapse, struct fold **foldp)
{
	struct fold_ctx *ctx;
	int err;

	*foldp = NULL;
	if (s->kind != SESSION_PERF_DATA && s->kind != SESSION_SCRIPT)
		return -EINVAL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->s = s;
	ctx->opts = o;
	ctx->stackcollapse = stackcollapse;
	ctx->fold = fold__new(o);
	if (ctx->fold)
		fold__script_sink(ctx->fold, &ctx->sink);
	if (!ctx->fold)
		err = -ENOMEM;
	else if (s->kind == SESSION_SCRIPT)
		err = fold_script(s, ctx->fold, o);
	else
		err = fold_recording(s, ctx);
	if (err)
		fold__delete(ctx->fold);
	else
		*foldp = ctx->fold;
	perf_script__delete(ctx->script);
	free(ctx);
	return err;
}
