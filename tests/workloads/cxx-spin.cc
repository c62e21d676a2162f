// SPDX-License-Identifier: GPL-2.0
/*
 * C++ frames with known names for the demangling tests:
 * main -> twice<int> -> ns::K::spin, for the given number of milliseconds
 * (default 500). Built -O0 with frame pointers.
 */
#include <chrono>
#include <cstdlib>

namespace ns {
struct K {
	__attribute__((noinline)) static double spin(int n)
	{
		double x = 0;

		for (int i = 0; i < n; i++)
			x += i * 0.5;
		return x;
	}
};
}

template <typename T> __attribute__((noinline)) T twice(T v)
{
	return ns::K::spin(v) + ns::K::spin(v);
}

volatile double sink;

int main(int argc, char **argv)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(argc > 1 ? atoi(argv[1]) : 500);

	while (std::chrono::steady_clock::now() < end)
		sink = sink + twice<int>(10000);
	return 0;
}
