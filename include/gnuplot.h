/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gnuplot output: the pieces every chart's script needs and running
 * gnuplot on it.
 *
 * Everything a chart shows comes from input files that travel by mail,
 * so no byte of an input ever becomes gnuplot program text:
 * - numbers go in an inline datablock (GNUPLOT_DATA), whose lines the
 *   writer generates itself (none can end the block early);
 * - text (names, units, titles, the image's path) goes only into
 *   single-quoted string literals, which gnuplot 5.4 takes as they are:
 *   no `backquote` substitution, no @macro expansion, no backslash
 *   escapes; a line break is a constant "\n" joined on with '.' (and a
 *   path's other control bytes constants "\ooo").
 * The script is self-contained (a user can restyle it and rerun
 * `gnuplot OUT.gp`), and the tool hands gnuplot that same text over a
 * pipe, takes the image back over another, and runs it with its default
 * settings, a fixed environment and, as root, as nobody.
 *
 * Library code: never prints except to the FILE * it is given; 0/-errno.
 */
#ifndef RS_GNUPLOT_H
#define RS_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/uio.h>

enum gnuplot_term {
	GNUPLOT_PNG,	/* pngcairo */
	GNUPLOT_SVG,
};

/* The datablock the plot commands read. */
#define GNUPLOT_DATA "$rs_data"

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
 * Write s as a gnuplot string expression that stands for s itself:
 * single-quoted literals ('' for a quote inside), a line break as "\n"
 * between them ('a' . "\n" . 'b'). Other control characters, invalid
 * UTF-8 and what SVG cannot hold become U+FFFD, so the script and the
 * image are valid UTF-8.
 */
void gnuplot__string(FILE *out, const char *s);

/*
 * The same for a file name, byte for byte: what gnuplot__string() would
 * replace is joined on as "\ooo" escapes of its bytes instead.
 */
void gnuplot__path(FILE *out, const char *s);

/*
 * Write s for a comment line of the data (a unit in the .dat's header):
 * control characters become '?', so that it stays one line.
 */
void gnuplot__comment_text(FILE *out, const char *s);

/*
 * The script's preamble: encoding, terminal (size in pixels, noenhanced
 * so that "_" and "^" in names stay as they are), output and title (NULL
 * for none). The output is image, or gnuplot's standard output when the
 * variable rs_stdout exists (as gnuplot__run() sets it). -EIO when a
 * write failed.
 */
int gnuplot__preamble(FILE *gp, enum gnuplot_term term, unsigned int width,
		      unsigned int height, const char *image,
		      const char *title);

/*
 * A script holds its data in the datablock GNUPLOT_DATA, between the
 * lines GNUPLOT_DATA_BEGIN and GNUPLOT_DATA_END. 0 when data (len bytes
 * of whole lines) can go there; -EINVAL when a line could end the block
 * early (it starts with a capital: the writers never write one) or
 * continue onto the next, or the last line has no line break.
 */
#define GNUPLOT_DATA_BEGIN GNUPLOT_DATA " << EOD\n"
#define GNUPLOT_DATA_END "EOD\n"
int gnuplot__datablock_check(const char *data, size_t len);

/*
 * Run gnuplot (the first on PATH) on the script text, the nr pieces of
 * script one after the other (its data is not copied), given over a
 * pipe, and copy the image it writes to its standard output into image;
 * a failed write there is left in image's error flag, for the caller's
 * check when it closes the file. gnuplot runs with -d (no ~/.gnuplot),
 * no shell, a fixed environment, no new privileges and, when we are
 * root, as the user nobody without supplementary groups.
 *
 * 0 on success; -ENOENT when no gnuplot is on PATH; -EACCES when we are
 * root and nobody may not run the one found; -EIO when gnuplot failed
 * or wrote no image, with its first error line (the one naming the
 * script line when there is one, else the first line it printed) in
 * errbuf; other -errno when it could not be started, saying why in
 * errbuf when it could not be set up (its privileges dropped) or exec
 * failed. The caller ignores SIGPIPE (main() does): gnuplot may stop
 * reading the script early.
 */
int gnuplot__run(const struct iovec *script, int nr, FILE *image,
		 char *errbuf, size_t errlen);

#endif
