/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `rstat-analyze plot` draws (src/output/plot*.c): inputs read into
 * series (bench results and their breakdowns, report --json profiles,
 * recordings for the timeline), then written as a gnuplot script with
 * its data inline. The command writes the files and runs gnuplot.
 */
#ifndef RS_PLOT_H
#define RS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gnuplot.h"

enum plot_kind {
	PLOT_HIST,
	PLOT_CDF,
	PLOT_BARS,
	PLOT_TIMELINE,
	PLOT_BREAKDOWN,
};

/* Copied by plot__new(); its strings must outlive the plot. */
struct plot_opts {
	enum plot_kind kind;
	const char *metric;	/* --metric NAME, or NULL */
	const char *metric_qual; /* its QUAL, or NULL */
	/* hist: shares instead of counts; breakdown: of the mean read */
	bool normalize;
};

struct plot;

/* NULL when out of memory. */
struct plot *plot__new(const struct plot_opts *o);
void plot__delete(struct plot *pl);

/*
 * Read one input (a file, a directory bench -o wrote, or the folder of a
 * multi-kernel bench: each DIR/<release> in version order) and add its
 * series. 0, -ENOMEM without a message, or another -errno with one line
 * in err ("INPUT: what is wrong").
 */
int plot__load(struct plot *pl, const char *input, char *err,
	       size_t errlen);
/* The same for JSON text in memory, called name (the fuzz target). */
int plot__load_mem(struct plot *pl, const char *name, const char *buf,
		   size_t len, char *err, size_t errlen);

/* The image a script draws (gnuplot__preamble()). */
struct plot_image {
	enum gnuplot_term term;
	unsigned int width, height;
	const char *path;	/* as a rerun by hand writes it */
	const char *title;	/* NULL for none */
};

/*
 * A chart's gnuplot script, self-contained (OUT.gp): head, data (the
 * datablock's lines, and OUT.dat alone), tail, one after the other.
 */
struct plot_text {
	char *head;		/* up to the datablock's first line */
	size_t head_len;
	char *data;
	size_t data_len;
	char *tail;		/* from the datablock's end line */
	size_t tail_len;
};

/*
 * Write the chart's script and data (include/gnuplot.h says how no text
 * of an input becomes program text). 0; -EINVAL with one line in err
 * (series of different units, nothing to draw); -ENOMEM. out is empty
 * unless 0.
 */
int plot__render(struct plot *pl, const struct plot_image *img,
		 struct plot_text *out, char *err, size_t errlen);
void plot_text__release(struct plot_text *t);

#endif
