/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the recorder (include/recorder.h): the object, and the parts
 * that set up its events (events.c), its probes (probes.c) and the
 * command it runs (child.c).
 */
#ifndef RS_RECORD_INT_H
#define RS_RECORD_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "bpf-spans.h"
#include "evlist.h"
#include "recorder.h"

/*
 * The flush function of the kernels before the rstat tracepoints (4.18 to
 * 6.14; the tracepoints came in 6.10): probed at entry and return when
 * the tracepoints are missing, so that flushes still have spans.
 */
#define FLUSH_FUNC BPF_SPANS_FLUSH_FUNC

/* Strings an attr points to (probe paths, symbols) until the events open. */
struct record_strings {
	char *s[RECORDER_MAX_ARGS * 4];
	unsigned int n;
	/* Probes made in tracefs for inherited events: removed at the end. */
	struct tracefs_dynevent *dyn[RECORDER_MAX_ARGS * 4];
	char *dyn_name[RECORDER_MAX_ARGS * 4];	/* "group:event", in s[] */
	unsigned int ndyn;
	int guardian_fd;	/* its pipe's write end, or -1 */
};

/* The command recorded (or bounding the recording). */
struct record_child {
	pid_t pid;		/* 0: none, or reaped */
	bool started;		/* forked: its descendants are ours to stop */
	int go_fd;		/* write end: release the child to exec */
	int err_fd;		/* read end: errno of a failed exec */
	/* How it ended on its own (wait status), or -1: still running,
	 * or stopped by us at the end of the recording. */
	int exit_status;
};

struct recorder {
	struct recorder_opts o;
	struct recorder_notes notes;
	struct record_strings rs;
	struct record_child child;
	struct evlist_target target;
	struct evlist *el;
	struct perf_writer *w;
	struct bpf_spans *bs;
	struct rec_bd *bd;	/* the targets' reads decomposed (breakdown.c) */
	char **tps;		/* tracepoint names, for the TRACING_DATA */
	size_t nr_tps;
	struct outfile *out;	/* the output (outfile.h) */
	bool finished;		/* recorder__stop() completed it */
	bool discard;		/* recorder__discard(): removed even so */
	int write_err;		/* of the last chunk written */
	char err[768];
};

/*
 * Say what failed: the first failure is the one kept. Here, so that the
 * parts the recorder calls need nothing of recorder.c.
 */
static inline __attribute__((format(printf, 2, 3)))
void rec_error(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (*r->err)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

/*
 * buildids.c: after perf_writer__finish(), read the recording back and
 * add the build ids of the user-space files its samples hit, then write
 * the features again. 0 or -errno; *nr_written says how many.
 */
int rec_buildids__write(struct recorder *r, size_t *nr_written);

/* events.c */
int rec_events__add_sampling(struct recorder *r);
int rec_events__add_tracepoints(struct recorder *r);
void rec_events__set_side_band(struct recorder *r);
void rec_events__set_sampling(struct recorder *r,
			      struct perf_event_attr *attr);
int rec_events__add(struct recorder *r, struct perf_event_attr *attr,
		    const char *name);

/* probes.c */
int rec_probes__add_kernel(struct recorder *r, const char *spec);
int rec_probes__add_user(struct recorder *r, const char *arg);
int rec_probes__add_flush(struct recorder *r);
void rec_probes__remove(struct recorder *r);

/* breakdown.c: the targets' reads, part by part (none: r->bd NULL) */
struct rec_bd;
int rec_bd__open(struct recorder *r);
int rec_bd__start(struct recorder *r);
int rec_bd__poll(struct recorder *r);
int rec_bd__store(struct recorder *r);
void rec_bd__delete(struct rec_bd *bd);

/* child.c */
int rec_child__start(struct recorder *r);
int rec_child__go(struct recorder *r);
bool rec_child__exited(struct recorder *r);
void rec_child__settle(struct recorder *r, int timeout_ms);
void rec_child__stop(struct recorder *r);

#endif /* RS_RECORD_INT_H */
