/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files at paths the user names (recordings, results, plot
 * scripts and images), written so that a link or file another user
 * planted there is never written through.
 *
 * The tool runs as root, and a user may name a file in /tmp or another
 * directory everyone can write. The rules:
 * - the last component of an output path is followed when it is a
 *   symbolic link only if the link belongs to the caller's uid or to root
 *   (nobody else could have planted it); any other link is refused with
 *   -ELOOP, as is a link at FILE.old;
 * - new files are created with O_CREAT | O_EXCL | O_NOFOLLOW, or written
 *   under an unpredictable temporary name beside the target and renamed
 *   over it once complete, so a planted name is replaced, never followed,
 *   and a reader never sees half a file;
 * - a file is removed on error only while its path still names the very
 *   file that was created.
 * Character devices and FIFOs (/dev/null, /dev/stdout) are written in
 * place, as they are.
 */
#ifndef RS_OUTFILE_H
#define RS_OUTFILE_H

#include <stdio.h>
#include <sys/stat.h>

/*
 * What an outfile error means, for messages ("PATH: <why>"): the
 * -ELOOP and -EISDIR of these functions get their own words.
 */
const char *outfile__strerror(int err);

/*
 * perf's rule for recordings: an existing non-empty regular file at path
 * becomes path.old (replacing an earlier .old); an empty one of the
 * caller's, with no other link, is removed. 1 when rotated, 0 when the
 * path is free (or a device), -errno (-ELOOP: a foreign link at path or
 * path.old; -EISDIR: a directory or other non-file there).
 */
int outfile__rotate(const char *path);
/* Put path.old back at path (undoing a rotate that returned 1). */
int outfile__unrotate(const char *path);

/*
 * Create path for writing; it must be free (outfile__rotate() first). A
 * character device or FIFO there is opened as it is. Returns the
 * descriptor (O_CLOEXEC) or -errno.
 */
int outfile__create(const char *path, mode_t mode);
/*
 * The same file, made without a name yet (O_TMPFILE in path's directory):
 * a writer can fill it while nobody sees it, and outfile__publish() names
 * it path when it is ready (a recording once its events are live, so that
 * the name appearing means recording has started). -EOPNOTSUPP when the
 * file system cannot; use outfile__create() then.
 */
int outfile__create_unnamed(const char *path, mode_t mode);
/*
 * Name the file of outfile__create_unnamed() path: never over an entry
 * that appeared there since (-EEXIST). 0 or -errno.
 */
int outfile__publish(const char *path, int fd);
/*
 * Remove path if it is still the regular file open at fd (an inode
 * cannot be reused while fd holds it). 0 or -errno.
 */
int outfile__remove_created(const char *path, int fd);

/* A file written beside its target and renamed over it on commit. */
struct outfile;

/*
 * Start writing path: checks it as above, then opens a temporary file in
 * its directory (mode 0666 less the umask, as fopen would create it). 0 or
 * -errno, and nothing is left behind on failure.
 */
int outfile__open(struct outfile **ofp, const char *path);
FILE *outfile__stream(struct outfile *of);
/* The name being written (the temporary one), for a program that writes it. */
const char *outfile__temp_path(const struct outfile *of);
/* Close, check every write, rename into place; frees of. 0 or -errno. */
int outfile__commit(struct outfile *of);
/* Close and remove the temporary file; frees of (NULL is a no-op). */
void outfile__abort(struct outfile *of);

/*
 * An output directory (bench -o DIR): made 0755 when missing; a link there
 * is followed only on the rules above (-ELOOP otherwise), anything but a
 * directory is -ENOTDIR. 0 or -errno.
 */
int outfile__dir(const char *path);

/*
 * Whether path could be written by outfile__open() now: the same checks,
 * and a temporary file made and removed in its directory. 0 or -errno.
 */
int outfile__check(const char *path);

#endif
