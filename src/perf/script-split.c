// SPDX-License-Identifier: GPL-2.0
/*
 * stackcollapse-perf.pl's frame regex, in one place for the two sides that
 * need it: the perf script reader (script.c) on the lines it reads, and
 * the fold (analysis/fold.c) on the lines perf would print for a recorded
 * frame. It parses perf script text, so it sits with the reader.
 */
#include <string.h>

#include "perf-script.h"
#include "util.h"

/*
 * ^\s*(\w+)\s*(.+) \((.*)\)
 *
 * Greedy (.+) ends at the last " (" that has a ')' somewhere after it;
 * (.*) runs to the last ')'. The start of (.+) is the latest one Perl's
 * backtracking reaches that leaves it at least one byte: the end of the
 * blanks after the word, or earlier, giving bytes back from the blanks and
 * then from the word itself.
 */
bool perf_script__split_frame(const char *p, size_t n,
			      struct perf_script_frame *fr)
{
	size_t i0, i1, ew, s, q;
	const char *rp;

	for (i0 = 0; i0 < n && ascii_is_space(p[i0]); i0++)
		;
	if (i0 >= n || !ascii_is_word(p[i0]))
		return false;
	for (i1 = i0; i1 < n && ascii_is_word(p[i1]); i1++)
		;
	for (ew = i1; ew < n && ascii_is_space(p[ew]); ew++)
		;
	rp = memrchr(p, ')', n);
	if (!rp || (size_t)(rp - p) < i0 + 4)
		return false;
	/* The last " (" at q with q + 2 <= the last ')', (.+) before it. */
	for (q = rp - p - 2; q >= i0 + 2; q--)
		if (p[q] == ' ' && p[q + 1] == '(')
			break;
	if (q < i0 + 2)
		return false;
	s = ew < q - 1 ? ew : q - 1;
	fr->pc_off = i0;
	fr->pc_len = (s < i1 ? s : i1) - i0;
	fr->sym_off = s;
	fr->sym_len = q - s;
	fr->dso_off = q + 2;
	fr->dso_len = (size_t)(rp - p) - (q + 2);
	return true;
}
