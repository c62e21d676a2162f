/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench's read decomposition (--breakdown, and --record's pass): the
 * reader's reads timed part by part in the kernel (breakdown.h), one
 * table per file, kept in the results ("breakdown", docs/
 * bench-results.md) and printed with them.
 */
#ifndef RS_BENCH_BREAKDOWN_H
#define RS_BENCH_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "results-breakdown.h"

/* A pass of the reader, timed part by part. */
struct bench_bd_pass;

/*
 * Load the program (-EOPNOTSUPP and why in errbuf where the kernel
 * cannot: the pass then runs without it).
 */
int bench_bd_pass__new(struct bench_bd_pass **out, char *errbuf,
		       size_t len);
/* Time the reads of pid, which has not started reading yet. */
int bench_bd_pass__start(struct bench_bd_pass *bp, pid_t pid, char *errbuf,
			 size_t len);
/* The reader is done: stop timing, collect every record. */
int bench_bd_pass__stop(struct bench_bd_pass *bp, char *errbuf, size_t len);
/*
 * File f (name, read through the reader's fd) into bd: its table, its
 * reads' p50 as the reader timed them (user_p50), and entry/exit when
 * the kernel's reads pair one to one with the reader's times of them
 * (lat, nr_lat, in the order it made them). 0, -ENOENT (no read of it
 * seen), -ENOMEM.
 */
int bench_bd_pass__file(struct bench_bd_pass *bp, struct bench_breakdown *bd,
			const char *name, int fd, uint64_t user_p50,
			const uint64_t *lat, size_t nr_lat);
/* The method, sources and counts into bd (after stop). */
void bench_bd_pass__describe(struct bench_bd_pass *bp,
			     struct bench_breakdown *bd);
void bench_bd_pass__delete(struct bench_bd_pass *bp);

#endif
