/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gnuplot output: the pieces every chart's script needs (the terminal for
 * the image, string literals safe for any text) and running gnuplot
 * itself, as a program with an argv (no shell), on a script kept beside
 * the image so that a user can restyle it and rerun `gnuplot OUT.gp`.
 *
 * Library code: never prints except to the FILE * it is given; 0/-errno.
 */
#ifndef RS_GNUPLOT_H
#define RS_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

enum gnuplot_term {
	GNUPLOT_PNG,	/* pngcairo */
	GNUPLOT_SVG,
};

/*
 * The terminal an image path asks for, by its extension (.png or .svg,
 * any case). 0, or -EINVAL for any other name.
 */
int gnuplot__term_for(const char *image, enum gnuplot_term *term);

/*
 * The companion files of an image: "dir/name.png" gives "dir/name.png" +
 * ext (".gp", ".dat"), so that each image has its own. Returns a
 * malloc()ed string, NULL on -ENOMEM.
 */
char *gnuplot__companion(const char *image, const char *ext);

/*
 * Write s as a gnuplot double-quoted string literal, quotes included:
 * backslash, double quote and control characters escaped, so that any
 * text (a file name holding quotes or newlines) stays one literal.
 */
void gnuplot__quote(FILE *out, const char *s);

/*
 * The script's preamble: terminal (size in pixels, noenhanced so that
 * "_" and "^" in names stay as they are), output file and title (NULL for
 * none). The output is image unless the variable rs_output is set (as
 * gnuplot__run() sets it), so that a rerun by hand writes image while the
 * tool has gnuplot write a file of its own first. -EIO when a write
 * failed.
 */
int gnuplot__preamble(FILE *gp, enum gnuplot_term term, unsigned int width,
		      unsigned int height, const char *image,
		      const char *title);

/*
 * Run `gnuplot SCRIPT` in the current directory and wait for it, with
 * rs_output set to output when it is not NULL (see gnuplot__preamble()).
 * 0 on success; -ENOENT when no gnuplot is on PATH; -EIO when gnuplot
 * failed, with its first error line (the one naming the script line when
 * there is one, else the first line it printed) in errbuf; other -errno
 * when it could not be started. errbuf is "" unless -EIO.
 */
int gnuplot__run(const char *script, const char *output, char *errbuf,
		 size_t errlen);

#endif
