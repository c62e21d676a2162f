// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic loop with known probe lines, for uprobe tests:
 * `loop N` (default 1000) calls loop_body(N) once, whose for loop runs
 * exactly N iterations and calls loop_leaf() once per iteration.
 *
 * Probe points (built -O0 -g; each marked line is one statement, run
 * exactly once per iteration):
 *
 *   loop_body:5    the "PROBE: body" line, first in the loop body
 *   loop_body:7    the "PROBE: body-end" line, last in the loop body
 *                  (a span body..body-end covers one loop_leaf() call)
 *   loop_leaf      entered N times; loop_leaf%return fires N times
 *
 * The numbers are lines relative to loop_body's declaration line, as
 * `perf probe -L loop_body` counts them (line 0 is the line with the
 * function's name). tests/unit/test-probe.c finds the markers by scanning
 * this file and checks these numbers, so keep the comment in step when
 * editing. Do not reformat the marked lines: the "for" line has several
 * statements (init, test, increment), the marked lines one each.
 *
 * gcc gives each marked line two consecutive is_stmt rows (load, then
 * store), so perf probe puts two uprobes on each (2N hits); rstat-analyze
 * puts one on the first row of each (N hits).
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long loop_sink;

__attribute__((noinline)) void loop_leaf(unsigned long i)
{
	loop_sink += i;
}

__attribute__((noinline)) unsigned long loop_body(unsigned long n)
{
	unsigned long i, sum = 0;

	for (i = 0; i < n; i++) {
		sum += i * 3;		/* PROBE: body */
		loop_leaf(i);
		sum ^= loop_sink;	/* PROBE: body-end */
	}
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;

	printf("%lu\n", loop_body(n));
	return 0;
}
