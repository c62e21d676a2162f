/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the session's consumers (fold.c, analyse.c) share with its core
 * (session.c); nothing outside src/session/ includes it.
 */
#ifndef RS_SESSION_INT_H
#define RS_SESSION_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "session.h"

/* Bytes read to tell the kind: enough for perf script's first sample. */
#define SESSION_PREFIX 4096

struct session_msg {
	bool error;
	char *text;
};

struct session {
	struct session_opts opts;
	enum session_kind kind;
	int fd;
	bool own_fd;		/* not standard input: close it */
	char prefix[SESSION_PREFIX];
	size_t prefix_len;
	size_t prefix_pos;	/* read back by the text stream so far */
	FILE *text;
	struct perf_data *pd;
	struct machine *machine;
	bool ksyms_done;	/* kernel symbol source decided */
	int ksyms_err;		/* what deciding it returned */
	char ksyms_note[512];	/* said only if the consumer succeeds */
	int64_t err_offset;	/* event a consumer failed at, or -1 */
	struct session_msg *msgs;
	size_t nr_msgs, cap_msgs, next_msg;
};

/* Queue a line: msg_error() for the one error, msg_note() for notes. */
void session_msg_error(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void session_msg_note(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Run the events through fn (ahead: the reader's lookahead, or NULL),
 * then queue the bad-format notes. fn sets s->err_offset to the offset of
 * an event it fails at (a wrapper would cost a call per event). No error
 * is queued: consumers word some failures themselves before falling back
 * on session_data_error().
 */
int session_run(struct session *s, rs_event_fn fn, rs_event_fn ahead,
		void *arg);
/*
 * Wake the thread that reads the records, if it waits, for the idle work
 * the consumer has handed it (perf_data__set_idle()); s is a session.
 */
void session_kick(void *s);
/* "INPUT: offset N: what" for err, the reader's own words first. */
void session_data_error(struct session *s, int err);
/* The kernel symbol note, when there is one: once the consumer is sure. */
void session_ksyms_note(struct session *s);

#endif
