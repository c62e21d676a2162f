/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A read's decomposition (breakdown.h) as tables: the kernel's syscall
 * records grouped into reads, percentiles and shares of each part, and
 * what the machine did (ticks, time off the CPU). src/analysis/breakdown.c.
 */
#ifndef RS_BREAKDOWN_TABLE_H
#define RS_BREAKDOWN_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "breakdown.h"

/*
 * A file's reads: syscalls on its fd grouped until one returns 0 or
 * less (EOF, error), as a reader that reads a file whole makes them.
 * Each syscall's tail (off the CPU after it returned, told by the
 * task's next syscall) is part of its read: in total and off-cpu.
 */
struct breakdown_read {
	uint64_t total;			/* the syscalls and their tails */
	uint64_t ns[BD_PART__NR];	/* off-cpu: the tails' too */
	uint64_t calls[BD_PART__NR];
	uint64_t tail_off;		/* off-CPU after a syscall returned */
};

/* The percentiles of a table. */
#define BD_NR_Q 3
extern const double breakdown_q[BD_NR_Q];	/* 50, 90, 99 */

/* A note next to a figure (what the machine did). */
enum {
	BD_NOTE_TICKS = 1,	/* within 10% of a multiple of the tick */
	BD_NOTE_OFF = 2,	/* that read was off the CPU for most of it */
};

struct breakdown_row {
	uint64_t q[BD_NR_Q];	/* ns, nearest rank */
	unsigned int notes[BD_NR_Q];
	unsigned int ticks[BD_NR_Q];	/* with BD_NOTE_TICKS */
	double share;		/* of the summed total, 0..1 */
	uint64_t sum;		/* ns over the reads */
};

struct breakdown_table {
	uint64_t reads;
	struct breakdown_row total;
	struct breakdown_row part[BD_PART__NR];
	uint64_t off_most;	/* reads off the CPU for over half */
	uint64_t max_gap_ns;	/* parts vs total, largest (0 normally) */
	uint64_t calls[BD_PART__NR];	/* summed over the reads */
	uint64_t tail_off_ns;	/* summed off-CPU after the syscalls */
};

/*
 * Group syscalls on fd into reads (*out, *nr; free() it); pread_only:
 * pread64 ones only (a reader that reads its files so, whose fd number
 * an earlier read(2) may have used). 0 or -ENOMEM.
 */
int breakdown__reads(const struct breakdown_syscall *sc, size_t nr_sc,
		     uint32_t fd, bool pread_only, struct breakdown_read **out,
		     size_t *nr);
/*
 * A stat file of cgroupfs, by its name (the path's last component): one
 * that ends in ".stat" (cpu.stat, memory.stat, io.stat, cgroup.stat,
 * cpuacct.stat of v1) or "_stat" (memory.numa_stat), or cpu.stat.local.
 */
bool breakdown__is_stat_file(const char *name);
/*
 * The subsystem whose rstat tree a read of this stat file flushes, by the
 * file's name (memory.stat, memory.numa_stat: BD_PART_MEMORY; io.stat:
 * BD_PART_IO; cpu.stat: BD_PART_BASE, whose tree also runs the bpf
 * callback), or -1: a file that flushes none (cgroup.stat,
 * cpu.stat.local) or one this does not know. With split trees (v6.16+,
 * breakdown__split_trees()) that tree's lock is the only one such a read
 * takes, so the time the lock is held is that subsystem's flush.
 */
int breakdown__file_tree(const char *name);

/* A stat file's reads, as record follows its targets (breakdown.h). */
struct breakdown_file_reads {
	char name[64];			/* the path's last component */
	struct breakdown_read *reads;
	size_t nr, cap;
};

struct breakdown_files_stats {
	uint64_t opens;		/* opens of stat files read */
	uint64_t other;		/* syscalls on other files (kept out) */
	uint64_t unnamed;	/* syscalls on an fd whose open was not seen */
};

/*
 * Name the file of each syscall: the path its process opened as that fd
 * last before the syscall began, following copies (dup2, F_DUPFD) to
 * the fd copied, none after a close (events: opens, copies, closes and
 * forks, in any order), else the path its parent had so before the
 * fork, up the line;
 * keep the syscalls of stat files (breakdown__is_stat_file()), group
 * each open's syscalls into reads (as breakdown__reads()), one entry per
 * file name in *out (*nr; breakdown__files_free() it). 0 or -ENOMEM.
 */
int breakdown__files(const struct breakdown_syscall *sc, size_t nr_sc,
		     const struct breakdown_event *ev, size_t nr_ev,
		     struct breakdown_file_reads **out, size_t *nr,
		     struct breakdown_files_stats *st);
void breakdown__files_free(struct breakdown_file_reads *f, size_t nr);

/*
 * The table of reads: percentiles of the total and of each part, each
 * part's share of the summed total, and the notes (hz: the scheduler
 * tick's frequency, 0 unknown: no tick notes). 0, -EINVAL (no reads),
 * -ENOMEM.
 */
int breakdown__table(const struct breakdown_read *r, size_t nr,
		     unsigned int hz, struct breakdown_table *t);

/*
 * entry/exit, derived: each read as its reader timed it (a clock pair
 * around the syscalls) less what the kernel timed of it (from the first
 * syscall's tracepoint entry to the last one's exit, and the tails). It
 * is entering and leaving the syscalls outside their tracepoints,
 * interrupts in user space, and the reader's clock; below 0 where a
 * tail the kernel counted fell after the reader's clock stopped
 * (switched out in user space).
 */
struct breakdown_entry {
	int64_t q[BD_NR_Q];	/* ns, nearest rank */
	int64_t sum;		/* ns over the reads */
	uint64_t measured;	/* the reader's ns over the reads */
	uint64_t negative;	/* reads the kernel timed longer */
	double share;		/* sum / measured */
};

/*
 * entry/exit of nr reads r[] paired one to one, in order, with the
 * reader's times of them lat[] (nr_lat of them): -EINVAL unless the
 * counts are equal (and not 0), -ENOMEM.
 */
int breakdown__entry_exit(const struct breakdown_read *r, size_t nr,
			  const uint64_t *lat, size_t nr_lat,
			  struct breakdown_entry *e);

/*
 * The kernel's CONFIG_HZ: /boot/config-RELEASE, else measured from
 * /proc/timer_list's jiffies over 200 ms, rounded to 100, 250, 300 or
 * 1000. 0 when unknown; *how says where it came from.
 */
unsigned int breakdown__scheduler_hz(const char **how);

/*
 * The same over a time of the caller's (record's whole recording),
 * instead of a 200 ms nap: mark at its start, ask at its end (which
 * naps only for what is missing of 200 ms).
 */
struct breakdown_hz_mark {
	unsigned int config_hz;		/* from /boot/config: no counting */
	bool ok;
	uint64_t jiffies, now;
};

void breakdown__hz_mark(struct breakdown_hz_mark *m);
unsigned int breakdown__hz_since(const struct breakdown_hz_mark *m,
				 const char **how);

#endif
