/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `rstat-analyze compare` compares (src/output/compare-build.c): its
 * inputs read and told apart (json-input.c), then pooled per side into a
 * struct compare (compare-out.h), which the renderers print: bench
 * results' metrics with their tests, or report --json profiles' shares
 * and span histograms.
 */
#ifndef RS_COMPARE_H
#define RS_COMPARE_H

#include <stddef.h>

#include "compare-out.h"

struct compare_inputs {
	const char *const *files;	/* [nr_files], side after side */
	const size_t *side;		/* [nr_files]: the side of each */
	size_t nr_files;
};

/*
 * Read every file and build c, whose nr_sides and labels the caller has
 * set. Notes (a metric left out, scenarios that differ) go to c->notes,
 * in order. 0; -ENOMEM without a message; -EXDEV when the files are of
 * different kinds (a usage error); another -errno with one line in err.
 * compare__release() c in every case.
 */
int compare__build(struct compare *c, const struct compare_inputs *in,
		   char *err, size_t errlen);
void compare__release(struct compare *c);

/* A side's default label: "runs/base.json" and "runs/base/" give "base". */
char *compare__file_label(const char *path);

#endif
