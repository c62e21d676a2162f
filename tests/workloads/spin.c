// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic CPU burner with known symbols for stack tests:
 * main -> spin_outer -> spin_inner, for the given number of milliseconds
 * (default 1000). Built -O0 with frame pointers so that perf's callchains
 * walk through every function.
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long spin_sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void spin_inner(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		spin_sink += i;
}

__attribute__((noinline)) void spin_outer(void)
{
	int i;

	for (i = 0; i < 10; i++)
		spin_inner();
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000;
	double end = now_ms() + ms;

	while (now_ms() < end)
		spin_outer();
	return 0;
}
