// SPDX-License-Identifier: GPL-2.0
/*
 * A read's decomposition (breakdown.h): syscalls grouped into reads,
 * tails joined to the syscall they follow, percentiles by nearest rank,
 * shares, the tick and off-CPU notes, and the results' JSON round trip.
 * Expected values are worked by hand from the records given.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown-out.h"
#include "results-breakdown.h"
#include "breakdown-table.h"
#include "json-read.h"
#include "json.h"
#include "rules.h"
#include "unit.h"

#ifdef RS_HAVE_BPF
#include <bpf/libbpf.h>

#include "rstat-breakdown.skel.h"
#endif

static struct breakdown_syscall sc_of(uint32_t tid, uint32_t fd,
				      int64_t ret, uint64_t walk,
				      uint64_t rest, uint64_t tail_before)
{
	struct breakdown_syscall s;

	memset(&s, 0, sizeof(s));
	s.tid = tid;
	s.fd = fd;
	s.ret = ret;
	s.pread = true;
	s.ns[BD_PART_WALK] = walk;
	s.ns[BD_PART_REST] = rest;
	s.calls[BD_PART_WALK] = walk ? 1 : 0;
	s.calls[BD_PART_REST] = 1;
	s.total = walk + rest;
	s.prev_tail_off = tail_before;
	return s;
}

/*
 * Interleaved reads of fds 3 and 4, two preads each (data, then EOF); a
 * read(2) on fd 3 before them (the start wait) is not a pread. The tail
 * told by a syscall belongs to the one before it of that task.
 */
static void test_reads_grouped(void)
{
	struct breakdown_syscall sc[6];
	struct breakdown_read *r;
	size_t nr;

	sc[0] = sc_of(7, 3, 1, 0, 50, 0);
	sc[0].pread = false;			/* the wait for the start */
	sc[1] = sc_of(7, 3, 100, 1000, 200, 0);	/* fd 3: data */
	sc[2] = sc_of(7, 3, 0, 0, 30, 0);	/* fd 3: EOF */
	sc[3] = sc_of(7, 4, 80, 0, 400, 5000);	/* fd 4; fd 3's tail 5000 */
	sc[4] = sc_of(7, 4, 0, 0, 20, 0);
	sc[5] = sc_of(7, 3, 100, 0, 60, 0);	/* cut off: no EOF seen */

	CHECK_INT(breakdown__reads(sc, 6, 3, true, &r, &nr), 0);
	CHECK_INT(nr, 1);
	CHECK_INT(r[0].total, 1000 + 200 + 30 + 5000);
	CHECK_INT(r[0].ns[BD_PART_WALK], 1000);
	CHECK_INT(r[0].ns[BD_PART_REST], 230);
	CHECK_INT(r[0].ns[BD_PART_OFF], 5000);
	CHECK_INT(r[0].tail_off, 5000);
	CHECK_INT(r[0].calls[BD_PART_REST], 2);
	free(r);
	/* Without the pread filter the wait joins the first read. */
	CHECK_INT(breakdown__reads(sc, 6, 3, false, &r, &nr), 0);
	CHECK_INT(nr, 1);
	CHECK_INT(r[0].ns[BD_PART_REST], 280);
	free(r);
	CHECK_INT(breakdown__reads(sc, 6, 4, true, &r, &nr), 0);
	CHECK_INT(nr, 1);
	CHECK_INT(r[0].total, 420);
	free(r);
}

/*
 * Ten reads: totals 1..10 ms at HZ 250 (4 ms a tick). Nearest rank: p50
 * is the 5th (5 ms, not within 0.4 ms of 4 or 8), p90 the 9th (9 ms),
 * p99 the 10th. With HZ 1000 every whole ms is a tick count.
 */
static void test_table(void)
{
	struct breakdown_read r[10];
	struct breakdown_table t;
	int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 10; i++) {
		r[i].total = (uint64_t)(i + 1) * 1000000;
		r[i].ns[BD_PART_WALK] = r[i].total / 4;
		r[i].ns[BD_PART_REST] = r[i].total - r[i].total / 4;
	}
	/* The 8 ms read was switched out for 5 ms of it. */
	r[7].ns[BD_PART_OFF] = 5000000;
	r[7].ns[BD_PART_REST] -= 5000000;
	CHECK_INT(breakdown__table(r, 10, 250, &t), 0);
	CHECK_INT(t.reads, 10);
	CHECK_INT(t.total.q[0], 5000000);
	CHECK_INT(t.total.q[1], 9000000);
	CHECK_INT(t.total.q[2], 10000000);
	CHECK_INT(t.total.notes[0], 0);
	CHECK_INT(t.total.notes[1], 0);
	CHECK_INT(t.max_gap_ns, 0);
	CHECK_INT(t.off_most, 1);
	CHECK(fabs(t.part[BD_PART_WALK].share - 0.25) < 1e-9);
	CHECK(fabs(t.part[BD_PART_OFF].share - 5.0 / 55) < 1e-9);
	CHECK_INT(t.part[BD_PART_WALK].sum, 55000000 / 4);
	/* 8 ms at HZ 250: two ticks, and that read was mostly off-CPU. */
	CHECK_INT(breakdown__table(r + 7, 1, 250, &t), 0);
	CHECK_INT(t.total.notes[0], BD_NOTE_TICKS | BD_NOTE_OFF);
	CHECK_INT(t.total.ticks[0], 2);
	CHECK_INT(breakdown__table(r, 10, 1000, &t), 0);
	CHECK_INT(t.total.ticks[0], 5);
	CHECK_INT(breakdown__table(r, 10, 0, &t), 0);
	CHECK_INT(t.total.notes[0], 0);
	CHECK_INT(breakdown__table(r, 0, 250, &t), -EINVAL);
}

/*
 * entry/exit: three reads the kernel timed 100, 200 and 300 ns, which
 * the reader timed 150, 260 and 290: 50, 60 and -10 (a tail after its
 * clock). Sorted -10, 50, 60: p50 the 2nd, p90 and p99 the 3rd. The
 * sum is 100 of 700 measured. Counts that differ do not pair.
 */
static void test_entry_exit(void)
{
	struct breakdown_read r[3];
	uint64_t lat[3] = { 150, 260, 290 };
	struct breakdown_entry e;

	memset(r, 0, sizeof(r));
	r[0].total = 100;
	r[1].total = 200;
	r[2].total = 300;
	CHECK_INT(breakdown__entry_exit(r, 3, lat, 3, &e), 0);
	CHECK_INT(e.q[0], 50);
	CHECK_INT(e.q[1], 60);
	CHECK_INT(e.q[2], 60);
	CHECK_INT(e.sum, 100);
	CHECK_INT(e.measured, 700);
	CHECK_INT(e.negative, 1);
	CHECK(fabs(e.share - 100.0 / 700) < 1e-12);
	CHECK_INT(breakdown__entry_exit(r, 3, lat, 2, &e), -EINVAL);
	CHECK_INT(breakdown__entry_exit(r, 0, lat, 0, &e), -EINVAL);
}

/* bench's breakdown JSON of a, in *buf (free() it); 0 or -1. */
static int write_bd(const struct bench_breakdown *a, char **buf, size_t *len)
{
	struct json_writer *jw;
	FILE *f = open_memstream(buf, len);

	if (!f)
		return -1;
	jw = json_writer__new(f);
	json__object_begin(jw, NULL);
	bench_breakdown__write_json(a, jw);
	json__object_end(jw);
	json_writer__delete(jw);
	return fclose(f) ? -1 : 0;
}

/*
 * In bench's breakdown JSON buf, the first at (compact or not: the space
 * after the colon optional) with word replaced by planted (as long) is
 * refused by the reader, which names what; buf is left as it was.
 */
static bool planted_refused(char *buf, size_t len, const char *at,
			    const char *word, const char *planted,
			    const char *what)
{
	struct bench_breakdown *b = calloc(1, sizeof(*b));
	char compact[64], errbuf[256], *p, *w;
	const char *colon = strstr(at, ": ");
	bool refused = false;
	struct jv doc;

	snprintf(compact, sizeof(compact), "%.*s:%s",
		 colon ? (int)(colon - at) : 0, at, colon ? colon + 2 : at);
	p = strstr(buf, at);
	if (!p)
		p = strstr(buf, compact);
	if (!b || !p || strlen(word) != strlen(planted)) {
		free(b);
		return false;
	}
	w = strstr(p, word);
	memcpy(w, planted, strlen(planted));
	if (!jv__parse(buf, len, &doc, errbuf, sizeof(errbuf))) {
		refused = bench_breakdown__read_json(b, jv__get(&doc,
				"breakdown"), errbuf, sizeof(errbuf)) ==
			  -EINVAL && strstr(errbuf, what);
		jv__free(&doc);
	}
	memcpy(w, word, strlen(word));
	free(b);
	return refused;
}

/* What bench writes reads back the same, and a wrong one is refused. */
static void test_json_round_trip(void)
{
	struct bench_breakdown *a = calloc(1, sizeof(*a));
	struct bench_breakdown *b = calloc(1, sizeof(*b));
	char *buf = NULL, errbuf[256];
	size_t len = 0;
	struct jv doc;
	int i;

	CHECK(a && b);
	if (!a || !b)
		goto out;
	snprintf(a->method, sizeof(a->method), "BPF on tracepoints only");
	snprintf(a->pass, sizeof(a->pass), "breakdown");
	a->hz = 250;
	a->split_trees = true;
	a->cb_cost.calls = 7;
	a->cb_cost.programs_ns = 7000;
	a->cb_cost.programs_after_ns = 5000;
	a->cb_cost.shortest_ns = 300;
	snprintf(a->untimed[BD_PART_MEMORY], sizeof(a->untimed[0]),
		 "no kprobes on this kernel: in walk");
	a->nr_files = 1;
	snprintf(a->files[0].file, sizeof(a->files[0].file), "cpu.stat");
	a->files[0].reads = 10;
	a->files[0].total.q[0] = 8000000;
	snprintf(a->files[0].total.note[0], sizeof(a->files[0].total.note[0]),
		 "2 ticks");
	for (i = 0; i < BD_PART__NR; i++)
		a->files[0].part[i].share = 1.0 / BD_PART__NR;
	a->files[0].part[BD_PART_WALK].calls = 30;
	a->files[0].reader_reads = 10;
	a->files[0].paired = true;
	a->files[0].entry.q[0] = -12;
	/*
	 * The kernel's total 2.5 times the reader's: ticks off the CPU
	 * after the reader's clock stopped (seen on 6.1 under TCG).
	 */
	a->files[0].entry.sum = -135000;
	a->files[0].entry.measured = 90000;
	a->files[0].entry.negative = 2;
	a->files[0].entry.share = -135000.0 / 90000;
	a->skips.counted = true;
	a->skips.reader_syscalls = 2;
	a->skips.nr = 1;
	snprintf(a->skips.prog[0].prog, sizeof(a->skips.prog[0].prog),
		 "bd_fexit_pread");
	a->skips.prog[0].recursion = 3;
	CHECK_INT(write_bd(a, &buf, &len), 0);
	if (!buf)
		goto out;
	CHECK_INT(jv__parse(buf, len, &doc, errbuf, sizeof(errbuf)), 0);
	CHECK_INT(bench_breakdown__read_json(b, jv__get(&doc, "breakdown"),
					     errbuf, sizeof(errbuf)), 0);
	CHECK_STR(b->files[0].file, "cpu.stat");
	CHECK_INT(b->files[0].total.q[0], 8000000);
	CHECK_STR(b->files[0].total.note[0], "2 ticks");
	CHECK_INT(b->files[0].part[BD_PART_WALK].calls, 30);
	CHECK_INT(b->files[0].reader_reads, 10);
	CHECK(b->files[0].paired);
	CHECK_INT(b->files[0].entry.q[0], -12);
	CHECK_INT(b->files[0].entry.sum, -135000);
	CHECK_INT(b->files[0].entry.measured, 90000);
	CHECK_INT(b->files[0].entry.negative, 2);
	CHECK(fabs(b->files[0].entry.share + 1.5) < 1e-9);
	CHECK_STR(b->untimed[BD_PART_MEMORY],
		  "no kprobes on this kernel: in walk");
	CHECK_INT(b->hz, 250);
	CHECK(b->split_trees);
	CHECK_INT(b->cb_cost.calls, 7);
	CHECK_INT(b->cb_cost.programs_ns, 7000);
	CHECK_INT(b->cb_cost.programs_after_ns, 5000);
	CHECK_INT(b->cb_cost.shortest_ns, 300);
	/* The file's tree is written, derived from its name. */
	CHECK(strstr(buf, "\"tree\": \"base\"") ||
	      strstr(buf, "\"tree\":\"base\""));
	CHECK(b->skips.counted);
	CHECK_INT(b->skips.reader_syscalls, 2);
	CHECK_INT(b->skips.nr, 1);
	CHECK_STR(b->skips.prog[0].prog, "bd_fexit_pread");
	CHECK_INT(b->skips.prog[0].recursion, 3);
	CHECK_INT(b->skips.prog[0].missed, 0);
	jv__free(&doc);
	/* A tree other than the file's, a part of no known name: refused. */
	CHECK(planted_refused(buf, len, "\"tree\": \"base\"", "base\"",
			      "io\"  ", "tree"));
	CHECK(planted_refused(buf, len, "\"part\": \"walk\"", "walk",
			      "wolk", "part"));
	free(buf);
	buf = NULL;
	/* A share above 1 would need a negative kernel total. */
	a->files[0].entry.share = 1.5;
	CHECK_INT(write_bd(a, &buf, &len), 0);
	if (buf && !jv__parse(buf, len, &doc, errbuf, sizeof(errbuf))) {
		CHECK_INT(bench_breakdown__read_json(b, jv__get(&doc,
			  "breakdown"), errbuf, sizeof(errbuf)), -EINVAL);
		jv__free(&doc);
	}
out:
	free(buf);
	free(a);
	free(b);
}

static struct breakdown_event open_ev(uint64_t ts, uint32_t tgid, int32_t fd,
				      const char *path)
{
	struct breakdown_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.tgid = tgid;
	e.fd = fd;
	snprintf(e.path, sizeof(e.path), "%s", path);
	return e;
}

static struct breakdown_event fork_ev(uint64_t ts, uint32_t parent,
				      uint32_t child)
{
	struct breakdown_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.tgid = parent;
	e.kind = BD_EV_FORK;
	e.fd = -1;
	e.child = child;
	return e;
}

static void test_stat_files(void)
{
	CHECK(breakdown__is_stat_file("cpu.stat"));
	CHECK(breakdown__is_stat_file("memory.stat"));
	CHECK(breakdown__is_stat_file("memory.numa_stat"));
	CHECK(breakdown__is_stat_file("cpuacct.stat"));
	CHECK(breakdown__is_stat_file("cpu.stat.local"));
	CHECK(!breakdown__is_stat_file(".stat"));
	CHECK(!breakdown__is_stat_file("stat"));	/* /proc/PID/stat */
	CHECK(!breakdown__is_stat_file("vmstat"));
	CHECK(!breakdown__is_stat_file("memory.current"));
	CHECK(!breakdown__is_stat_file("libc.so.6"));
}

/* Which tree a stat file's read flushes (the show functions' flushes). */
static void test_file_tree(void)
{
	struct bench_breakdown bd;

	CHECK_INT(breakdown__file_tree("memory.stat"), BD_PART_MEMORY);
	CHECK_INT(breakdown__file_tree("memory.numa_stat"), BD_PART_MEMORY);
	CHECK_INT(breakdown__file_tree("io.stat"), BD_PART_IO);
	CHECK_INT(breakdown__file_tree("cpu.stat"), BD_PART_BASE);
	CHECK_INT(breakdown__file_tree("cgroup.stat"), -1);
	CHECK_INT(breakdown__file_tree("cpu.stat.local"), -1);
	CHECK_INT(breakdown__file_tree("memory.statx"), -1);
	memset(&bd, 0, sizeof(bd));
	/* One tree for all before v6.16: no file names a tree. */
	CHECK(bench_breakdown__file_tree(&bd, "memory.stat") == NULL);
	bd.split_trees = true;
	CHECK_STR(bench_breakdown__file_tree(&bd, "memory.stat"), "memory");
	CHECK_STR(bench_breakdown__file_tree(&bd, "cpu.stat"), "base");
	CHECK(bench_breakdown__file_tree(&bd, "cgroup.stat") == NULL);
}

/*
 * Each syscall is of the file its process opened as that fd last
 * before it began: fd 3 of process 10 is cpu.stat, then (closed and
 * reused) memory.stat; process 11, forked by 10 while fd 4 was
 * cpu.stat, reads fd 4 inherited; process 12's fd 3 was never seen
 * opened; process 10's fd 5 is a library. Two cats of cpu.stat run at
 * once (13 and 14, both fd 3): their reads do not mix.
 */
static void test_files(void)
{
	struct breakdown_event ev[8];
	struct breakdown_syscall sc[14];
	struct breakdown_file_reads *f;
	struct breakdown_files_stats st;
	size_t nr, i, k;

	ev[0] = open_ev(100, 10, 3, "/sys/fs/cgroup/a/cpu.stat");
	ev[1] = open_ev(110, 10, 4, "cpu.stat");
	ev[2] = fork_ev(120, 10, 11);
	ev[3] = open_ev(300, 10, 3, "/sys/fs/cgroup/a/memory.stat");
	ev[4] = open_ev(90, 10, 5, "/lib/libc.so.6");
	ev[5] = open_ev(400, 13, 3, "/x/cpu.stat");
	ev[6] = open_ev(401, 14, 3, "/y/cpu.stat");
	ev[7] = open_ev(130, 10, 4, "/lib/other.so");	/* after the fork */
	k = 0;
	sc[k] = sc_of(1, 3, 100, 1000, 0, 0); sc[k].tgid = 10; sc[k++].start = 150;
	sc[k] = sc_of(1, 3, 0, 0, 10, 0); sc[k].tgid = 10; sc[k++].start = 160;
	sc[k] = sc_of(2, 4, 100, 2000, 0, 0); sc[k].tgid = 11; sc[k++].start = 170;
	sc[k] = sc_of(2, 4, 0, 0, 20, 0); sc[k].tgid = 11; sc[k++].start = 180;
	sc[k] = sc_of(1, 3, 100, 0, 5000, 0); sc[k].tgid = 10; sc[k++].start = 310;
	sc[k] = sc_of(1, 3, 0, 0, 30, 0); sc[k].tgid = 10; sc[k++].start = 320;
	sc[k] = sc_of(3, 3, 0, 0, 40, 0); sc[k].tgid = 12; sc[k++].start = 330;
	sc[k] = sc_of(1, 5, 0, 0, 50, 0); sc[k].tgid = 10; sc[k++].start = 340;
	/* 13 and 14 interleaved */
	sc[k] = sc_of(5, 3, 100, 300, 0, 0); sc[k].tgid = 13; sc[k++].start = 410;
	sc[k] = sc_of(6, 3, 100, 600, 0, 0); sc[k].tgid = 14; sc[k++].start = 411;
	sc[k] = sc_of(5, 3, 0, 0, 1, 0); sc[k].tgid = 13; sc[k++].start = 412;
	sc[k] = sc_of(6, 3, 0, 0, 2, 0); sc[k].tgid = 14; sc[k++].start = 413;
	/* 10's fd 4 after its reopen: a library now */
	sc[k] = sc_of(1, 4, 0, 0, 70, 0); sc[k].tgid = 10; sc[k++].start = 500;
	/* before any open of 10's fd 3 */
	sc[k] = sc_of(1, 3, 0, 0, 80, 0); sc[k].tgid = 10; sc[k++].start = 50;

	CHECK_INT(breakdown__files(sc, k, ev, 8, &f, &nr, &st), 0);
	CHECK_INT(nr, 2);
	CHECK_INT(st.unnamed, 2);	/* 12's fd 3, 10's fd 3 at 50 */
	CHECK_INT(st.other, 2);		/* libc, other.so */
	CHECK_INT(st.opens, 5);
	for (i = 0; i < nr; i++) {
		uint64_t walk = 0, total = 0;
		size_t r;

		for (r = 0; r < f[i].nr; r++) {
			walk += f[i].reads[r].ns[BD_PART_WALK];
			total += f[i].reads[r].total;
		}
		if (!strcmp(f[i].name, "cpu.stat")) {
			/* 10's fd 3, 11's inherited fd 4, 13's and 14's */
			CHECK_INT(f[i].nr, 4);
			CHECK_INT(walk, 1000 + 2000 + 300 + 600);
			CHECK_INT(total, 1010 + 2020 + 301 + 602);
		} else {
			CHECK(!strcmp(f[i].name, "memory.stat"));
			CHECK_INT(f[i].nr, 1);
			CHECK_INT(total, 5030);
		}
	}
	breakdown__files_free(f, nr);
}

static struct breakdown_event fd_ev(uint64_t ts, uint32_t tgid,
				    enum breakdown_event_kind kind,
				    int32_t fd, int32_t oldfd)
{
	struct breakdown_event e;

	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.tgid = tgid;
	e.kind = kind;
	e.fd = fd;
	e.oldfd = oldfd;
	return e;
}

/*
 * A shell's `cat < cpu.stat`, as dash makes it: open as fd 3, save fd 0
 * (F_DUPFD to 11), dup2(3, 0), close(3), fork the cat, which reads fd 0;
 * then fd 3 is a pipe (no open), whose reads are not cpu.stat's; fd 0
 * back from 11 is what it was before (unseen).
 */
static void test_files_dup(void)
{
	struct breakdown_event ev[7];
	struct breakdown_syscall sc[5];
	struct breakdown_file_reads *f;
	struct breakdown_files_stats st;
	size_t nr, k = 0;

	ev[0] = open_ev(100, 20, 3, "/sys/fs/cgroup/a/cpu.stat");
	ev[1] = fd_ev(101, 20, BD_EV_DUP, 11, 0);
	ev[2] = fd_ev(102, 20, BD_EV_DUP, 0, 3);
	ev[3] = fd_ev(103, 20, BD_EV_CLOSE, 3, -1);
	ev[4] = fork_ev(104, 20, 21);
	ev[5] = fd_ev(300, 20, BD_EV_DUP, 0, 11);
	ev[6] = fd_ev(301, 20, BD_EV_DUP, 0, 0);	/* dup2(0, 0) */
	sc[k] = sc_of(5, 0, 100, 700, 0, 0); sc[k].tgid = 21; sc[k++].start = 110;
	sc[k] = sc_of(5, 0, 0, 0, 7, 0); sc[k].tgid = 21; sc[k++].start = 111;
	sc[k] = sc_of(4, 3, 10, 0, 9, 0); sc[k].tgid = 20; sc[k++].start = 200;
	sc[k] = sc_of(4, 0, 10, 0, 9, 0); sc[k].tgid = 20; sc[k++].start = 150;
	sc[k] = sc_of(4, 0, 10, 0, 9, 0); sc[k].tgid = 20; sc[k++].start = 310;
	CHECK_INT(breakdown__files(sc, k, ev, 7, &f, &nr, &st), 0);
	CHECK_INT(nr, 1);
	CHECK_INT(st.unnamed, 2);	/* the pipe, fd 0 restored */
	CHECK_INT(st.opens, 1);
	if (nr == 1) {
		CHECK(!strcmp(f[0].name, "cpu.stat"));
		/* the cat's; the shell's of fd 0 at 150 never ended */
		CHECK_INT(f[0].nr, 1);
		CHECK_INT(f[0].reads[0].ns[BD_PART_WALK], 700);
	}
	breakdown__files_free(f, nr);
}

typedef void (*bd_printer)(const struct bench_breakdown *, FILE *);

/* What print(a) writes, in a buffer to free(); NULL when no memory. */
static char *written(bd_printer print, const struct bench_breakdown *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	print(a, f);
	fclose(f);
	return buf;
}

/* The lines of text from from up to the one that ends with last fit 80. */
static void fits_80(const char *from, const char *last)
{
	const char *e;

	for (; from && (e = strchr(from, '\n')); from = e + 1) {
		CHECK(e - from <= 80);
		if (last && (size_t)(e - from) >= strlen(last) &&
		    !strncmp(e - strlen(last), last, strlen(last)))
			break;
	}
}

/* written(), each line checked to fit 80 columns. */
static char *printed(bd_printer print, const struct bench_breakdown *a)
{
	char *buf = written(print, a);

	fits_80(buf, NULL);
	return buf;
}

/* The skipped runs said with their programs, and whose reads they cost. */
static void test_skips_printed(void)
{
	struct bench_breakdown *a = calloc(1, sizeof(*a));
	char *buf = NULL;

	CHECK(a != NULL);
	if (!a)
		return;
	/* Nothing skipped on a kernel that counts: nothing said. */
	a->skips.counted = true;
	buf = printed(bench_breakdown__print_skips, a);
	CHECK(buf && !*buf);
	free(buf);
	buf = NULL;
	a->skips.nr = 2;
	snprintf(a->skips.prog[0].prog, sizeof(a->skips.prog[0].prog),
		 "bd_raw_exit");
	a->skips.prog[0].recursion = 36;
	snprintf(a->skips.prog[1].prog, sizeof(a->skips.prog[1].prog),
		 "bd_cb_memory_entry");
	a->skips.prog[1].missed = 2;
	buf = printed(bench_breakdown__print_skips, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  38 program runs skipped by the kernel (bd_raw_exit recursion 36,") != NULL);
	CHECK(strstr(buf, "bd_cb_memory_entry kprobe-missed 2):") != NULL);
	CHECK(strstr(buf, "  bd_raw_exit: a syscall's start or end, lost unless its twin") != NULL);
	CHECK(strstr(buf, "  bd_cb_memory_entry: an entry or exit of that part") != NULL);
	CHECK(strstr(buf, "none of the skipped syscalls was the reader's") != NULL);
	CHECK(strstr(buf, "does not count") == NULL);
	free(buf);
	buf = NULL;
	/* The reader's own, and a kernel that does not count. */
	a->skips.reader_syscalls = 3;
	a->skips.counted = false;
	buf = printed(bench_breakdown__print_skips, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  3 of the reader's syscalls lost their start or end") != NULL);
	CHECK(strstr(buf, "none of the skipped") == NULL);
	CHECK(strstr(buf, "this kernel does not") != NULL);
out:
	free(buf);
	free(a);
}

/*
 * A file's table on a split-tree kernel without kprobes names its tree,
 * and the callbacks' cost is said when any was timed (80 columns).
 */
static void test_tree_and_cost_printed(void)
{
	struct bench_breakdown *a = calloc(1, sizeof(*a));
	char *buf = NULL;
	int p;

	CHECK(a != NULL);
	if (!a)
		return;
	a->split_trees = true;
	/* The longest method a kernel gets, with the tick: broken in 80. */
	snprintf(a->method, sizeof(a->method), "BPF: fentry and raw tracepoints, flush functions by fentry, no lock tracepoints");
	a->hz = 250;
	for (p = BD_PART_MEMORY; p <= BD_PART_BASE; p++)
		snprintf(a->untimed[p], sizeof(a->untimed[p]),
			 "no kprobes on this kernel: in walk");
	a->nr_files = 2;
	snprintf(a->files[0].file, sizeof(a->files[0].file), "memory.stat");
	snprintf(a->files[1].file, sizeof(a->files[1].file), "cpu.stat");
	a->files[0].reads = a->files[1].reads = 4;
	/* Notes on every percentile: under the row, not past 80. */
	snprintf(a->files[0].total.note[0], sizeof(a->files[0].total.note[0]),
		 "2 ticks");
	snprintf(a->files[0].total.note[1], sizeof(a->files[0].total.note[1]),
		 "2 ticks, off-CPU");
	snprintf(a->files[0].total.note[2], sizeof(a->files[0].total.note[2]),
		 "5 ticks, off-CPU");
	buf = printed(bench_breakdown__print, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  split trees (v6.16+): a memory.stat read flushes memory's tree alone\n  (its walk is memory's flush, memory's callback included)\n") != NULL);
	CHECK(strstr(buf, "(its walk is base's flush, base's callback and bpf's included)") != NULL);
	CHECK(strstr(buf, "observer, a flush callback") == NULL);
	CHECK(strstr(buf, "  (BPF: fentry and raw tracepoints, flush functions by fentry, no lock\n   tracepoints; HZ=250: 4.0 ms ticks)\n") != NULL);
	CHECK(strstr(buf, "\n             p50: 2 ticks; p90: 2 ticks, off-CPU; p99: 5 ticks, off-CPU\n") != NULL);
	CHECK(strstr(buf, "  not timed: memory: no kprobes on this kernel: in walk\n") != NULL);
	free(buf);
	buf = NULL;
	a->cb_cost.calls = 30;
	a->cb_cost.programs_ns = 30 * 1500;
	a->cb_cost.programs_after_ns = 30 * 1200;
	a->cb_cost.shortest_ns = 2700;
	buf = printed(bench_breakdown__print, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  observer, a flush callback: at most 2.7 us of a callback's time is the\n  timing's (the shortest of 30 timed, its own work included); the\n  programs ran 1.5 us a call (a kprobe's trap not counted),\n  1.2 us of it after the callback returned, in the part around it\n") != NULL);
	free(buf);
	buf = NULL;
	/* Timed by fentry: no trap, the trampoline before the clock. */
	a->untimed[BD_PART_MEMORY][0] = '\0';
	snprintf(a->how[BD_PART_MEMORY], sizeof(a->how[BD_PART_MEMORY]),
		 "fentry/fexit on mem_cgroup_css_rstat_flush");
	buf = printed(bench_breakdown__print, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  programs ran 1.5 us a call (the fentry trampoline's entry not counted),\n") != NULL);
	free(buf);
	/* A word longer than a line, last: left whole, no empty line after. */
	snprintf(a->untimed[BD_PART_IO], sizeof(a->untimed[BD_PART_IO]),
		 "not in kallsyms: /a/path/without/a/space/that/runs/on/for/longer/than/a/whole/line/of/eighty/columns");
	buf = written(bench_breakdown__print, a);	/* past 80 */
	if (!buf)
		goto out;
	CHECK(strstr(buf, "\n    /a/path/without/a/space/that/runs/on/for/longer/than/a/whole/line/of/eighty/columns\n") != NULL);
	CHECK(strstr(buf, "\n    \n") == NULL);
out:
	free(buf);
	free(a);
}

/*
 * A paired file whose p50s miss the reader's by more than 5% says so
 * beside entry/exit, with the figures (the CI run that found it: half
 * the reads slowed outside the kernel, half inside); within 5%, nothing.
 */
static void test_p50_sum_printed(void)
{
	struct bench_breakdown *a = calloc(1, sizeof(*a));
	struct bench_bd_file *f;
	char *buf = NULL;

	CHECK(a != NULL);
	if (!a)
		return;
	a->nr_files = 1;
	f = &a->files[0];
	snprintf(f->file, sizeof(f->file), "cgroup.stat");
	f->reads = f->reader_reads = 200;
	f->paired = true;
	f->total.q[0] = 2384;
	f->total.q[1] = 21062;
	f->entry.q[0] = 2143;
	f->entry.q[1] = 21002;
	f->entry.measured = 200 * 10405;
	f->read_p50_ns = 10405;
	buf = printed(bench_breakdown__print, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  at p50 the parts do not add up: the kernel's 2.4 us and entry/exit's 2.1 us\n  against the reader's 10.4 us (p90s: 21.1 and 21.0 us); percentiles add only\n  when the reads are alike\n") != NULL);
	free(buf);
	/*
	 * Hostile figures (results read back): the note stays within 80
	 * columns (the rows' widths are print_row()'s, tested apart).
	 */
	f->total.q[0] = f->total.q[1] = UINT64_MAX;
	f->entry.q[0] = f->entry.q[1] = INT64_MIN;
	f->read_p50_ns = UINT64_MAX / 3;
	buf = written(bench_breakdown__print, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "  at p50 the parts do not add up") != NULL);
	fits_80(strstr(buf, "  at p50 the parts do not add up"), "alike");
	free(buf);
	f->total.q[0] = 2384;
	f->total.q[1] = 21062;
	f->entry.q[1] = 21002;
	/* 2384 + 7952 = 10336 against 10716: 3.5% off, nothing said. */
	f->entry.q[0] = 7952;
	f->read_p50_ns = 10716;
	buf = printed(bench_breakdown__print, a);
	CHECK(buf && strstr(buf, "do not add up") == NULL);
	CHECK(buf && strstr(buf, "entry/exit, derived") != NULL);
out:
	free(buf);
	free(a);
}

/*
 * The CSV's blocks under the tables: outside calls by trigger only for
 * the callbacks' parts, skipped programs, the run's fields; text from a
 * recording quoted as RFC 4180 says (a method with a comma and a quote).
 */
static void test_csv_blocks(void)
{
	struct bench_breakdown *a = calloc(1, sizeof(*a));
	char *buf = NULL;

	CHECK(a != NULL);
	if (!a)
		return;
	snprintf(a->method, sizeof(a->method), "BPF, \"raw\"");
	snprintf(a->pass, sizeof(a->pass), "record");
	snprintf(a->untimed[BD_PART_WAIT], sizeof(a->untimed[BD_PART_WAIT]),
		 "no lock tracepoints");
	a->outside_calls[BD_PART_MEMORY] = 3;
	a->outside_ns[BD_PART_MEMORY] = 3000;
	a->outside_trig_calls[BD_PART_MEMORY][RS_TRIG_RECLAIM + 1] = 2;
	a->outside_trig_ns[BD_PART_MEMORY][RS_TRIG_RECLAIM + 1] = 2500;
	a->outside_trig_calls[BD_PART_MEMORY][0] = 1;
	a->outside_trig_ns[BD_PART_MEMORY][0] = 500;
	a->skips.nr = 1;
	a->skips.counted = true;
	snprintf(a->skips.prog[0].prog, sizeof(a->skips.prog[0].prog),
		 "bd_raw_exit");
	a->skips.prog[0].recursion = 7;
	a->window_start_ns = 10;
	a->window_end_ns = 20;
	a->reader_pid = -1;
	/* A file read 3 times, its reads paired; one part's p99 a note. */
	a->nr_files = 2;
	snprintf(a->files[0].file, sizeof(a->files[0].file), "cpu.stat");
	a->files[0].reads = a->files[0].reader_reads = 3;
	a->files[0].paired = true;
	a->files[0].entry = (struct breakdown_entry){ { -5, 700, 900 }, 1000,
						      9000, 1, 0.111111 };
	snprintf(a->files[0].part[BD_PART_WALK].note[2],
		 sizeof(a->files[0].part[BD_PART_WALK].note[2]), "2 ticks");
	snprintf(a->files[1].file, sizeof(a->files[1].file), "io.stat");
	a->files[1].reader_reads = 4;
	buf = written(bench_breakdown__csv, a);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "\ntable,file,p50_ns,p90_ns,p99_ns,sum_ns,measured_sum_ns,negative,share\nread_breakdown_entry,cpu.stat,-5,700,900,1000,9000,1,0.111111\n\n") != NULL);
	CHECK(strstr(buf, "read_breakdown_entry,io.stat") == NULL);
	CHECK(strstr(buf, "\nread_breakdown_files,io.stat,,0,0,0,0,0,4\n") != NULL);
	CHECK(strstr(buf, "\nread_breakdown,cpu.stat,walk,1,3,0,0,0,0.000000,0,0,,,2 ticks\n") != NULL);
	CHECK(strstr(buf, "\nread_breakdown_sources,memory,1,,3,3000\n") != NULL);
	CHECK(strstr(buf, "\nread_breakdown_sources,wait,0,no lock tracepoints,,\n") != NULL);
	CHECK(strstr(buf, "\ntable,part,trigger,calls,ns\nread_breakdown_outside,memory,-,1,500\nread_breakdown_outside,memory,reclaim,2,2500\n") != NULL);
	CHECK(strstr(buf, "\ntable,program,recursion,missed\nread_breakdown_skips,bd_raw_exit,7,0\n") != NULL);
	CHECK(strstr(buf, "\nread_breakdown_run,\"BPF, \"\"raw\"\"\",record,0,0,0,0,0,0,0,0,1,0,10,20,-1\n") != NULL);
	CHECK(strstr(buf, "read_breakdown_follow") == NULL);
out:
	free(buf);
	free(a);
}

/*
 * Every program of the object is named for what its skipped runs cost,
 * record's following ones too, whichever way in the loader took.
 */
static void test_prog_affects(void)
{
	static const char *const files[] = {
		"bd_fl_enter_openat", "bd_fl_exit_open", "bd_fl_enter_dup2",
		"bd_fl_exit_fcntl", "bd_fl_enter_close", "bd_fl_raw_enter",
		"bd_fl_raw_exit", "bd_fl_fentry_openat", "bd_fl_fexit_dup3",
		"bd_fl_fentry_close",
	};
	static const char *const children[] = {
		"bd_fl_fork", "bd_fl_exit_task", "bd_fl_raw_fork",
		"bd_fl_raw_exit_task",
	};
	static const char *const syscalls[] = {
		"bd_enter_sendfile", "bd_exit_sendfile", "bd_fentry_sendfile",
		"bd_fexit_sendfile_twin", "bd_raw_enter_twin", "bd_exit_read",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		CHECK_STR(breakdown_prog_affects(files[i]), "files");
	for (i = 0; i < sizeof(children) / sizeof(children[0]); i++)
		CHECK_STR(breakdown_prog_affects(children[i]), "children");
	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		CHECK_STR(breakdown_prog_affects(syscalls[i]), "syscalls");
	CHECK_STR(breakdown_prog_affects("bd_raw_switch"), "off-cpu");
	/* The flush functions, both ways in. */
	CHECK_STR(breakdown_prog_affects("bd_cb_memory_fentry"), "memory");
	CHECK_STR(breakdown_prog_affects("bd_cb_io_fexit"), "io");
	CHECK_STR(breakdown_prog_affects("bd_cb_base_entry"), "base");
	CHECK_STR(breakdown_prog_affects("bd_inner_fexit"), "walk");
	CHECK_STR(breakdown_prog_affects("bd_outer_fentry3"), "wait");
	CHECK_STR(breakdown_prog_affects("bd_outer_return"), "wait");
	CHECK_STR(breakdown_prog_affects("someone_elses"), "");
}

#ifdef RS_HAVE_BPF
/* ... and no program of the object built is left unnamed. */
static void test_every_prog_affects(void)
{
	struct rstat_breakdown *sk = rstat_breakdown__open();
	struct bpf_program *p;
	int n = 0;

	CHECK(sk != NULL);
	if (!sk)
		return;
	bpf_object__for_each_program(p, sk->obj) {
		const char *name = bpf_program__name(p);

		n++;
		if (!*breakdown_prog_affects(name))
			fprintf(stderr, "unnamed program: %s\n", name);
		CHECK(*breakdown_prog_affects(name));
	}
	CHECK(n > 40);
	rstat_breakdown__destroy(sk);
}
#else
static void test_every_prog_affects(void)
{
	SKIP("built without BPF: no programs to name");
}
#endif

UNIT_MAIN(UNIT(test_reads_grouped), UNIT(test_table),
	  UNIT(test_entry_exit), UNIT(test_p50_sum_printed),
	  UNIT(test_csv_blocks),
	  UNIT(test_json_round_trip),
	  UNIT(test_stat_files), UNIT(test_file_tree), UNIT(test_files), UNIT(test_files_dup),
	  UNIT(test_skips_printed), UNIT(test_tree_and_cost_printed),
	  UNIT(test_prog_affects),
	  UNIT(test_every_prog_affects))
