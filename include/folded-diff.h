/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two folded profiles merged as FlameGraph's difffolded.pl merges them:
 * a line is "STACK<blank>COUNT" with COUNT the digits (and an optional
 * fraction) after the last blank, a stack missing on one side counts 0,
 * normalizing scales A to B's total with int(), strip_hex turns every
 * 0x<hex> into "0x..." so that stacks differing only in addresses merge.
 * Counts add as Perl adds them: integers exactly, fractions as NVs.
 */
#ifndef RS_FOLDED_DIFF_H
#define RS_FOLDED_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct folded_diff;

struct folded_diff *folded_diff__new(bool strip_hex);
void folded_diff__delete(struct folded_diff *d);

/*
 * Add the "STACK COUNT" lines of in to side 0 (A) or 1 (B). 0, -EINVAL
 * for a line that is not one (*bad_line its number, from 1), -ENOMEM, or
 * -errno from reading.
 */
int folded_diff__read(struct folded_diff *d, FILE *in, int side,
		      uint64_t *bad_line);

/* difffolded -n: A's counts scaled so that its total is B's. */
void folded_diff__normalize(struct folded_diff *d);

/* "STACK COUNT_A COUNT_B" per stack, sorted bytewise. */
void folded_diff__write(struct folded_diff *d, FILE *out);

#endif
