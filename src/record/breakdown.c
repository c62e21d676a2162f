// SPDX-License-Identifier: GPL-2.0
/*
 * The reads of record's targets (-p PID: the process; -- CMD: the command
 * and every process it starts), decomposed in the kernel as bench's
 * reader's are (breakdown.h, docs/breakdown.md): the same BPF program,
 * following the targets' forks and naming each read's file by the
 * open(2) that made its fd. At the end, one table per stat file goes to
 * the recording's own feature section (perf-writer.h), as a JSON
 * document that report reads back.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breakdown-table.h"
#include "perf-writer.h"
#include "record-int.h"
#include "results-breakdown.h"
#include "util.h"

struct rec_bd {
	struct breakdown *b;
	struct breakdown_hz_mark hz;	/* the tick, counted while recording */
	pid_t pid;			/* the target followed */
	uint64_t start_ns, end_ns;
	/* -p: the fds the process had open when the recording began */
	struct breakdown_event *before;
	size_t nr_before, cap_before;
	struct bench_breakdown *out;	/* after rec_bd__store() */
};

void rec_bd__delete(struct rec_bd *bd)
{
	if (!bd)
		return;
	breakdown__delete(bd->b);
	free(bd->before);
	free(bd->out);
	free(bd);
}

int rec_bd__open(struct recorder *r)
{
	struct rec_bd *bd;
	char errbuf[256] = "";
	int err;

	if (!r->o.breakdown)
		return 0;
	if (r->o.target != RECORDER_PID && r->o.target != RECORDER_CMD) {
		snprintf(r->notes.no_breakdown, sizeof(r->notes.no_breakdown),
			 "no target processes with -a or --cgroup (use -p PID or -- CMD)");
		return 0;
	}
	if (geteuid()) {
		snprintf(r->notes.no_breakdown, sizeof(r->notes.no_breakdown),
			 "loading BPF programs needs root");
		return 0;
	}
	bd = calloc(1, sizeof(*bd));
	if (!bd || !(bd->b = breakdown__new())) {
		free(bd);
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	breakdown__set_follow(bd->b, true);
	err = breakdown__open(bd->b, errbuf, sizeof(errbuf));
	if (err) {
		rec_bd__delete(bd);
		snprintf(r->notes.no_breakdown, sizeof(r->notes.no_breakdown),
			 "%s", errbuf);
		return 0;
	}
	r->bd = bd;
	return 0;
}

/*
 * -p: what the process has open now, as opens before the recording
 * (time 0), so that the reads of a file it keeps open are named.
 */
static int snapshot_fds(struct rec_bd *bd, pid_t pid)
{
	char dir[64], path[PATH_MAX], target[BD_PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;	/* gone, or not ours: named by opens alone */
	while ((de = readdir(d))) {
		struct breakdown_event *e;
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		ssize_t n;

		if (*end || end == de->d_name || fd < 0 || fd > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof(target));
		/* Cut (its name lost) or gone: left unnamed. */
		if (n <= 0 || (size_t)n >= sizeof(target))
			continue;
		target[n] = '\0';
		if (grow_array((void **)&bd->before, &bd->cap_before,
			       bd->nr_before + 1, sizeof(*bd->before))) {
			closedir(d);
			return -ENOMEM;
		}
		e = &bd->before[bd->nr_before++];
		memset(e, 0, sizeof(*e));
		e->tgid = (uint32_t)pid;
		e->fd = (int32_t)fd;
		memcpy(e->path, target, (size_t)n + 1);
	}
	closedir(d);
	return 0;
}

int rec_bd__start(struct recorder *r)
{
	struct rec_bd *bd = r->bd;
	char errbuf[256] = "";
	int err;

	if (!bd)
		return 0;
	bd->pid = r->o.target == RECORDER_PID ? r->o.pid : r->child.pid;
	err = breakdown__add_reader(bd->b, bd->pid);
	if (!err)
		err = breakdown__attach(bd->b, errbuf, sizeof(errbuf));
	if (!err && r->o.target == RECORDER_PID)
		err = snapshot_fds(bd, bd->pid);
	if (err) {
		rec_error(r, "record: timing the targets' reads: %s; record without --breakdown",
			  *errbuf ? errbuf : strerror(-err));
		return err;
	}
	bd->start_ns = rs_mono_ns();
	breakdown__hz_mark(&bd->hz);
	return 0;
}

int rec_bd__poll(struct recorder *r)
{
	int err;

	if (!r->bd)
		return 0;
	err = breakdown__poll(r->bd->b, 0);
	if (err)
		rec_error(r, "record: reading the targets' reads: %s",
			  strerror(-err));
	return err;
}

static int cmp_reads(const void *a, const void *b)
{
	const struct breakdown_file_reads *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every event: the fds open before the recording, then the BPF ones. */
static int all_events(struct rec_bd *bd, struct breakdown_event **out,
		      size_t *nr)
{
	const struct breakdown_event *ev;
	size_t n;

	ev = breakdown__events(bd->b, &n);
	*out = calloc(bd->nr_before + n + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	if (bd->nr_before)
		memcpy(*out, bd->before, bd->nr_before * sizeof(**out));
	if (n)
		memcpy(*out + bd->nr_before, ev, n * sizeof(**out));
	*nr = bd->nr_before + n;
	return 0;
}

/* The tables into bd->out: the files most read first, 8 at most. */
static int tables(struct rec_bd *bd, struct bench_breakdown *o,
		  unsigned int hz)
{
	const struct breakdown_syscall *sc;
	struct breakdown_file_reads *f = NULL;
	struct breakdown_files_stats st;
	struct breakdown_follow_stats fs;
	struct breakdown_event *ev;
	size_t nr_sc, nr_ev, nr = 0, i;
	int err;

	err = all_events(bd, &ev, &nr_ev);
	if (err)
		return err;
	sc = breakdown__syscalls(bd->b, &nr_sc);
	err = breakdown__files(sc, nr_sc, ev, nr_ev, &f, &nr, &st);
	free(ev);
	if (err)
		return err;
	if (nr)
		qsort(f, nr, sizeof(*f), cmp_reads);
	for (i = 0; i < nr; i++) {
		struct breakdown_table t;

		if (o->nr_files == BENCH_BD_MAX_FILES) {
			o->follow.files_dropped++;
			continue;
		}
		/* A file opened but never read to its end: no read. */
		if (breakdown__table(f[i].reads, f[i].nr, hz, &t))
			continue;
		bench_bd_file__from_table(&o->files[o->nr_files++], f[i].name,
					  &t);
	}
	breakdown__files_free(f, nr);
	breakdown__follow_stats(bd->b, &fs);
	o->follow.set = true;
	o->follow.forks = fs.forks;
	o->follow.readers_full = fs.readers_full;
	o->follow.events_lost = fs.events_lost;
	o->follow.opens = st.opens;
	o->follow.other = st.other;
	o->follow.unnamed = st.unnamed;
	return 0;
}

int rec_bd__store(struct recorder *r)
{
	struct rec_bd *bd = r->bd;
	struct bench_breakdown *o;
	const char *hz_from;
	unsigned int hz;
	char *text = NULL;
	int err;

	if (!bd)
		return 0;
	hz = breakdown__hz_since(&bd->hz, &hz_from);
	/* Detaching consumes what the ring still holds. */
	breakdown__detach(bd->b);
	bd->end_ns = rs_mono_ns();
	o = calloc(1, sizeof(*o));
	if (!o) {
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	snprintf(o->pass, sizeof(o->pass), "record");
	bench_breakdown__describe(o, bd->b, hz, hz_from);
	o->window_start_ns = bd->start_ns;
	o->window_end_ns = bd->end_ns;
	o->reader_pid = bd->pid;
	err = tables(bd, o, hz);
	if (!err)
		err = bench_breakdown__format(o, &text);
	if (!err)
		err = perf_writer__set_rstat_breakdown(r->w, text);
	free(text);
	if (err) {
		free(o);
		rec_error(r, "record: out of memory");
		return err;
	}
	bd->out = o;
	return 0;
}

const struct bench_breakdown *recorder__breakdown(const struct recorder *r)
{
	return r->bd ? r->bd->out : NULL;
}
