/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `rstat-analyze plot` draws (src/output/plot*.c): inputs read into
 * series (bench results, report --json profiles, recordings for the
 * timeline), then written as a gnuplot data file and the plot commands
 * of its script. The command opens the files and runs gnuplot.
 */
#ifndef RS_PLOT_H
#define RS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum plot_kind {
	PLOT_HIST,
	PLOT_CDF,
	PLOT_BARS,
	PLOT_TIMELINE,
};

/* Copied by plot__new(); its strings must outlive the plot. */
struct plot_opts {
	enum plot_kind kind;
	const char *metric;	/* --metric NAME, or NULL */
	const char *metric_qual; /* its QUAL, or NULL */
	bool normalize;		/* hist: shares instead of counts */
};

struct plot;

/* NULL when out of memory. */
struct plot *plot__new(const struct plot_opts *o);
void plot__delete(struct plot *pl);

/*
 * Read one input (a file, or a directory bench -o wrote) and add its
 * series. 0, -ENOMEM without a message, or another -errno with one line
 * in err ("INPUT: what is wrong").
 */
int plot__load(struct plot *pl, const char *input, char *err,
	       size_t errlen);

/*
 * Write the data file to dat (its name, as the script reads it, is
 * dat_name) and, to gp, the commands after gnuplot__preamble()'s. 0, or
 * -EINVAL with one line in err (series of different units, nothing to
 * draw).
 */
int plot__write(struct plot *pl, FILE *dat, FILE *gp, const char *dat_name,
		char *err, size_t errlen);

#endif
