// SPDX-License-Identifier: GPL-2.0
/*
 * One rule for every printed number (include/figure.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figure.h"

typedef unsigned __int128 u128;

static u128 pow10_128(int n)
{
	u128 p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

static int clamp_decimals(int d)
{
	return d < 0 ? 0 : d > FIGURE_MAX_DECIMALS ? FIGURE_MAX_DECIMALS : d;
}

/* Drop the zeros of a fraction past keep decimals, and a bare point. */
static void strip_zeros(char *s, int keep)
{
	char *dot = strchr(s, '.'), *end;

	if (!dot)
		return;
	end = s + strlen(s);
	while (end > dot + 1 + keep && end[-1] == '0')
		end--;
	if (end == dot + 1)
		end--;
	*end = '\0';
}

/* n / d rounded half up at decimals, as text, into buf (>= 48 bytes). */
static void ratio_text(char *buf, size_t len, u128 n, u128 d, int decimals)
{
	u128 p = pow10_128(decimals), r = (2 * n * p + d) / (2 * d);
	uint64_t ip = (uint64_t)(r / p);
	u128 frac = r % p;
	char f[FIGURE_MAX_DECIMALS + 1];
	int i;

	if (!decimals) {
		snprintf(buf, len, "%" PRIu64, ip);
		return;
	}
	for (i = decimals - 1; i >= 0; i--) {
		f[i] = '0' + (char)(frac % 10);
		frac /= 10;
	}
	f[decimals] = '\0';
	snprintf(buf, len, "%" PRIu64 ".%s", ip, f);
}

/*
 * The decimals that give a figure under one unit sig significant digits:
 * the position of its first nonzero digit, plus sig - 1.
 */
static int sub_unit_decimals(u128 n, u128 d, int sig)
{
	int first = 1;

	while (n * 10 < d && first < FIGURE_MAX_DECIMALS) {
		n *= 10;
		first++;
	}
	return clamp_decimals(first + sig - 1);
}

int figure__ratio(char *buf, size_t len, uint64_t num, uint64_t den,
		  uint64_t unit, int decimals, int width)
{
	u128 n = num, d = (u128)(den ? den : 1) * (unit ? unit : 1);
	char text[64];
	int sig, dec;

	decimals = clamp_decimals(decimals);
	if (num && n < d) {
		/* Under one unit: significant digits, then what fits. */
		for (sig = FIGURE_SIG; sig >= 1; sig--) {
			dec = sub_unit_decimals(n, d, sig);
			if (dec < decimals)
				dec = decimals;
			ratio_text(text, sizeof(text), n, d, dec);
			strip_zeros(text, sig == FIGURE_SIG ? decimals : 0);
			if (!width || (int)strlen(text) <= width)
				break;
		}
		return snprintf(buf, len, "%s", text);
	}
	for (dec = decimals; dec >= 0; dec--) {
		ratio_text(text, sizeof(text), n, d, dec);
		if (!width || (int)strlen(text) <= width)
			break;
	}
	return snprintf(buf, len, "%s", text);
}

int figure__double(char *buf, size_t len, double v, int decimals, int width)
{
	double a = fabs(v);
	char text[400];
	int sig, dec;

	if (isnan(v))
		return snprintf(buf, len, "nan");
	if (isinf(v))
		return snprintf(buf, len, v < 0 ? "-inf" : "inf");
	decimals = clamp_decimals(decimals);
	if (a > 0 && a < 1) {
		for (sig = FIGURE_SIG; sig >= 1; sig--) {
			dec = -(int)floor(log10(a)) + sig - 1;
			dec = clamp_decimals(dec < decimals ? decimals : dec);
			snprintf(text, sizeof(text), "%.*f", dec, v);
			strip_zeros(text, sig == FIGURE_SIG ? decimals : 0);
			if (!width || (int)strlen(text) <= width)
				break;
		}
		return snprintf(buf, len, "%s", text);
	}
	for (dec = decimals; dec >= 0; dec--) {
		snprintf(text, sizeof(text), "%.*f", dec, v);
		if (!width || (int)strlen(text) <= width)
			break;
	}
	return snprintf(buf, len, "%s", text);
}

int figure__count(char *buf, size_t len, double v, int decimals, int width)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 1e18)
		return snprintf(buf, len, "%.0f", v);
	return figure__double(buf, len, v, decimals, width);
}

const char *figure__time_unit(uint64_t divisor)
{
	switch (divisor) {
	case 1:
		return "ns";
	case 1000:
		return "us";
	case 1000000:
		return "ms";
	case 1000000000:
		return "s";
	default:
		return NULL;
	}
}
