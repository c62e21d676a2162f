// SPDX-License-Identifier: GPL-2.0
/*
 * Calls into libc through the .plt for the given number of milliseconds
 * (default 500), so that many samples land on the .plt stubs themselves.
 * perf names a .plt address either "func@plt" or the zero-sized _init
 * stretched over the .plt, depending on its symbol tree's shape; the
 * folded-stack test checks that rstat-analyze gives the same name for
 * every stub. Built -O0 -fno-builtin so the calls stay calls.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile long plt_sink;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long end = now_ms() + (argc > 1 ? atoi(argv[1]) : 500);
	int i;

	while (now_ms() < end) {
		for (i = 0; i < 20000; i++) {
			plt_sink += labs(i);
			plt_sink += abs(-i);
			plt_sink += strlen("");
			plt_sink += strnlen("x", 1);
		}
	}
	return 0;
}
