// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis consumers: a session's samples attributed to rstat
 * flushes and its lock events paired (report's tables), or only the lock
 * holds, as they close (plot's timeline).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "perf-data.h"
#include "symbols.h"

#include "session-int.h"

/* State while analysing a recording. */
struct analyse_ctx {
	struct session *s;
	const struct analysis_opts *opts;
	struct analysis *an;	/* made at the first sample */
	/* an, for the reading thread once it may help it (atomic) */
	struct analysis *helped;
	bool kernel_symbols;	/* load them before the first sample */
};

static struct analysis *analysis_for(struct analyse_ctx *ctx)
{
	/*
	 * In the pipe layout OSRELEASE, which says what the lock events'
	 * cpu field means, comes in the stream: known at the first sample.
	 */
	struct analysis_opts o = *ctx->opts;

	o.os_release = perf_data__header(ctx->s->pd)->os_release;
	o.jobs = ctx->s->opts.jobs;
	return analysis__new(&o, ctx->s->machine);
}

/* At the first sample: the kernel's symbols, then the analysis. */
static int start_analysis(struct analyse_ctx *ctx)
{
	int err = 0;

	if (ctx->kernel_symbols)
		err = session__kernel_symbols(ctx->s);
	if (err)
		return err;
	ctx->an = analysis_for(ctx);
	if (!ctx->an)
		return -ENOMEM;
	analysis__set_helper(ctx->an, session_kick, ctx->s);
	__atomic_store_n(&ctx->helped, ctx->an, __ATOMIC_RELEASE);
	return 0;
}

/* The reading thread, out of batches: a block of the attribution. */
static bool analyse_idle(void *arg)
{
	struct analyse_ctx *ctx = arg;
	struct analysis *an = __atomic_load_n(&ctx->helped, __ATOMIC_ACQUIRE);

	return an && analysis__help(an);
}

static int analyse_event(void *arg, const struct rs_event *ev)
{
	struct analyse_ctx *ctx = arg;
	int err = 0;

	if (ev->kind == RS_EV_SAMPLE && !ctx->an)
		err = start_analysis(ctx);
	if (!err)
		err = ctx->an ? analysis__event(ctx->an, ev) :
		      machine__process_event(ctx->s->machine, ev);
	if (err)
		ctx->s->err_offset = ev->offset;
	return err;
}

/* With -j 2, a few events ahead of analyse_event(): prefetch only. */
static int analyse_ahead(void *arg, const struct rs_event *ev)
{
	struct analyse_ctx *ctx = arg;

	if (ctx->an)
		analysis__ahead(ctx->an, ev);
	return 0;
}

static void note_skid(struct session *s, struct analysis *an)
{
	struct attrib *at = analysis__attrib(an);
	uint32_t i;

	for (i = 0; i < attrib__nr_events(at); i++) {
		const struct attrib_event *ev = attrib__event(at, i);

		if (!ev->clock || !ev->skid.samples)
			continue;
		session_msg_note(s, "%s cannot sample while IRQs are off: %.1f%% of its flush samples are skid at the IRQ re-enable point; per-callback attribution inside the lock needs a PMU event (cycles), the lock hold times are the precise figure",
				 ev->name,
				 100.0 * ev->skid.period / ev->flush.period);
		return;
	}
}

/* Notes on what the analysis could not do as asked. */
static void note_analysis(struct session *s, struct analysis *an)
{
	const struct rs_evsel *tp = analysis__sampled_tracepoint(an);

	if (analysis__nr_bad_raw(an))
		session_msg_note(s, "%" PRIu64 " tracepoint samples too short for their fields were left out",
				 analysis__nr_bad_raw(an));
	if (tp)
		session_msg_note(s, "%s was sampled (%" PRIu64 " of %" PRIu64
				 " hits recorded: perf record -F and -c apply to tracepoints): spans may pair events of different rounds; record tracepoints with -c 1",
				 tp->name, tp->nr_samples, tp->total_period);
	if (analysis__nr_no_chain(an))
		session_msg_note(s, "%" PRIu64 " samples have no callchain (record with -g): only their sampled function was classified",
				 analysis__nr_no_chain(an));
	/* Notes first: on a terminal they would land inside the tables. */
	session_ksyms_note(s);
	note_skid(s, an);
}

/* Every --span must have met its events. */
static int check_spans(struct session *s, const struct analysis_opts *o,
		       struct analysis *an)
{
	char events[512];
	bool start;
	int idx = analysis__unmatched_span(an, &start);

	if (idx < 0)
		return 0;
	session__list_events(s, events, sizeof(events));
	session_msg_error(s, "%s: --span %s,%s: no sample of '%s' in the recording (its events: %s)",
			  s->opts.input, o->spans[idx].start, o->spans[idx].end,
			  start ? o->spans[idx].start : o->spans[idx].end,
			  events);
	return -ENOENT;
}

int session__analyse(struct session *s, const struct analysis_opts *o,
		     struct analysis **anp)
{
	struct analyse_ctx ctx = { .s = s, .opts = o, .kernel_symbols = true };
	int err;

	*anp = NULL;
	if (s->kind != SESSION_PERF_DATA)
		return -EINVAL;
	if (!session__machine(s))
		return -ENOMEM;
	/* -j 2: the reading thread attributes while it would wait. */
	if (s->opts.jobs == 2)
		perf_data__set_idle(s->pd, analyse_idle);
	err = session_run(s, analyse_event, analyse_ahead, &ctx);
	/* A kernel symbol error was queued when it happened. */
	if (err && !s->ksyms_err)
		session_data_error(s, err);
	if (err)
		goto fail;
	/* A recording with no sample still gets its header and counts. */
	if (!ctx.an)
		ctx.an = analysis__new(o, s->machine);
	if (!ctx.an) {
		err = -ENOMEM;
		goto fail;
	}
	/* What a thread of the analysis's own failed on (-j 3), said once. */
	err = analysis__finish(ctx.an);
	if (err) {
		session_data_error(s, err);
		goto fail;
	}
	err = check_spans(s, o, ctx.an);
	if (err)
		goto fail;
	note_analysis(s, ctx.an);
	*anp = ctx.an;
	return 0;
fail:
	analysis__delete(ctx.an);
	return err;
}

int session__timeline(struct session *s, const struct rules *rules,
		      spans_hold_fn hold, void *arg, uint64_t *first)
{
	struct analysis_opts o = { .rules = rules };
	struct analyse_ctx ctx = { .s = s, .opts = &o };
	uint64_t last;
	int err;

	*first = 0;
	if (s->kind != SESSION_PERF_DATA)
		return -EINVAL;
	if (!session__machine(s))
		return -ENOMEM;
	/* Made now, not at the first sample: the holds go to hold(). */
	ctx.an = analysis_for(&ctx);
	if (!ctx.an)
		return -ENOMEM;
	spans__set_hold_fn(analysis__spans(ctx.an), hold, arg);
	err = session_run(s, analyse_event, analyse_ahead, &ctx);
	if (err && err != -ENOMEM) {
		const char *msg = perf_data__strerror(s->pd);

		if (msg && *msg)
			session_msg_error(s, "%s: %s", s->opts.input, msg);
		else
			session_msg_error(s, "%s: %s", s->opts.input,
					  strerror(-err));
	}
	if (!err)
		analysis__time_range(ctx.an, first, &last);
	analysis__delete(ctx.an);
	return err;
}
