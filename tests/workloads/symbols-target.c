// SPDX-License-Identifier: GPL-2.0
/*
 * Known symbols for the symbolizer's tests: a parent and a forked child
 * each burn CPU through static and global functions of this binary and
 * through libc (getppid, memset), for about 300 ms (argv[1] overrides, in
 * ms). Built -O0 with frame pointers so that perf walks every frame.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sym_sink;
static char sym_buf[1 << 16];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void sym_static_leaf(void)
{
	unsigned long i;

	for (i = 0; i < 20000; i++)
		sym_sink += i;
}

__attribute__((noinline)) void sym_global_leaf(void)
{
	unsigned long i;

	for (i = 0; i < 20000; i++)
		sym_sink ^= i;
	memset(sym_buf, (int)sym_sink, sizeof(sym_buf));
}

__attribute__((noinline)) void sym_middle(int n)
{
	if (n & 1)
		sym_static_leaf();
	else
		sym_global_leaf();
	sym_sink += getppid();
}

__attribute__((noinline)) void sym_outer(double ms)
{
	double end = now_ms() + ms;
	int n = 0;

	while (now_ms() < end)
		sym_middle(n++);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	pid_t child = fork();

	sym_outer(ms);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
