/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files at paths the user names (recordings, results, plot
 * scripts and images), written so that nothing another user planted at
 * or beside the name is ever written through, and a failed write leaves
 * what was there before.
 *
 * The tool runs as root, and a user may name a file in /tmp or another
 * directory everyone can write. The rules:
 * - every output is reached through a descriptor of its directory
 *   (openat, renameat, linkat), never reopened by name after a check;
 * - the last component is followed when it is a symbolic link only if
 *   the link belongs to the caller's uid or to root (nobody else could
 *   have planted it), and then step by step by the same rules; any other
 *   link is refused with -ELOOP; anything but a regular file at FILE.old
 *   (a link included) stops a rotation (OUTFILE_E_OLD);
 * - only regular files are written or replaced: a FIFO, socket, device
 *   or directory at an output name is refused (OUTFILE_E_NOTREG), never
 *   opened, so nothing can block the run; every open of an output, or of
 *   an existing file looked at, is O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
 * - the new file is written under an unpredictable name beside the
 *   target (or without a name: O_TMPFILE), created O_EXCL, and named
 *   when whole (or, for a recording, once it is live); a reader never
 *   sees half a file;
 * - with OUTFILE_ROTATE (perf's rule for recordings), FILE becomes
 *   FILE.old only when the new file gets its name, and the .old before
 *   it is kept under a hidden unpredictable name until the new file is
 *   committed: a write that fails (ENOSPC, EIO, a signal) leaves FILE and
 *   FILE.old exactly as they were;
 * - every write, flush, fsync and close is checked and the first real
 *   errno kept (outfile__errno()), so a full disk says "No space left on
 *   device";
 * - a file is removed on error only while its name still holds the very
 *   file that was made.
 */
#ifndef RS_OUTFILE_H
#define RS_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

/*
 * Errors of these functions beyond errno's, negative like -errno; give
 * them to outfile__strerror(), not strerror().
 */
#define OUTFILE_E_BASE		4096
/* A FIFO, a socket, a device at the name. */
#define OUTFILE_E_FIFO		(OUTFILE_E_BASE + 1)
#define OUTFILE_E_SOCK		(OUTFILE_E_BASE + 2)
#define OUTFILE_E_DEV		(OUTFILE_E_BASE + 3)
/* -o DIR another user's; one others can write (no sticky bit). */
#define OUTFILE_E_FOREIGN_DIR	(OUTFILE_E_BASE + 4)
#define OUTFILE_E_SHARED_DIR	(OUTFILE_E_BASE + 5)
/* Anything but a regular file at FILE.old. */
#define OUTFILE_E_OLD		(OUTFILE_E_BASE + 6)

/*
 * What an outfile error means, for messages ("PATH: <why>"): -ELOOP,
 * -EISDIR and the OUTFILE_E_ codes get their own words, the rest
 * strerror()'s.
 */
const char *outfile__strerror(int err);

/* Flags of outfile__open_at() */
enum {
	/* An existing FILE becomes FILE.old when the new one is named. */
	OUTFILE_ROTATE = 1 << 0,
	/*
	 * Made without a name (O_TMPFILE where the file system can), named
	 * by outfile__publish(); for a recording, whose name appearing means
	 * recording has started. Otherwise a hidden name beside the target.
	 */
	OUTFILE_UNNAMED = 1 << 1,
};

/* A file written beside its target and named on publish or commit. */
struct outfile;

/*
 * Start writing name in the directory dirfd (AT_FDCWD: name is a path),
 * shown as shown in messages (NULL: name). Checks the name as above,
 * then makes the new file (mode, less the umask). 0 or -errno, nothing
 * left behind on failure.
 */
int outfile__open_at(struct outfile **ofp, int dirfd, const char *name,
		     const char *shown, unsigned int flags, mode_t mode);
/* outfile__open_at(AT_FDCWD, path, ...), mode 0666, no rotation. */
int outfile__open(struct outfile **ofp, const char *path);

/* A stdio stream on the file: every write error is kept (outfile__errno). */
FILE *outfile__stream(struct outfile *of);
/* The descriptor, for a writer of its own (dup() it to keep it). */
int outfile__fd(const struct outfile *of);
/*
 * The hidden name being written, for a program that writes it by name;
 * the target's name for an unnamed file.
 */
const char *outfile__temp_path(const struct outfile *of);
/* The first write, flush, sync or close error met (-errno), or 0. */
int outfile__errno(const struct outfile *of);
/* Whether publishing moved an earlier FILE to FILE.old. */
bool outfile__rotated(const struct outfile *of);

/*
 * Give the file its name now, rotating as asked; never over an entry that
 * appeared at the name since (-EEXIST). 0 or -errno, everything undone on
 * failure.
 */
int outfile__publish(struct outfile *of);
/*
 * Flush and fsync what was written: the first error met so far, or 0
 * (the file stays open; a later commit or abort ends it).
 */
int outfile__sync(struct outfile *of);
/*
 * Flush, fsync and close (every error checked), name it if not yet, and
 * drop the .old generation kept aside; frees of. On failure everything
 * is undone as by outfile__abort() and the first real error returned.
 */
int outfile__commit(struct outfile *of);
/*
 * Close and remove the new file (while its name still holds it), and put
 * FILE and FILE.old back as they were; frees of (NULL is a no-op).
 */
void outfile__abort(struct outfile *of);

/* Flags of outfile__dir_open() */
enum {
	/* Accept a directory another user owns, or others can write. */
	OUTFILE_DIR_SHARED = 1 << 0,
};

/*
 * An output directory (bench -o DIR): made 0755 when missing; a link there
 * is followed only on the rules above (-ELOOP otherwise), anything but a
 * directory is -ENOTDIR. Unless OUTFILE_DIR_SHARED, a directory another
 * user owns (OUTFILE_E_FOREIGN_DIR) or that users other than its owner
 * can write without the sticky bit (OUTFILE_E_SHARED_DIR) is refused:
 * they could swap or delete what is written there. Returns its
 * descriptor (O_PATH, O_CLOEXEC) or -errno.
 */
int outfile__dir_open(const char *path, unsigned int flags);
/* The same, closed again: 0 or -errno. */
int outfile__dir(const char *path);

/*
 * Whether name (in dirfd; AT_FDCWD: a path) could be written by
 * outfile__open_at() now: the same checks (FILE.old too with
 * OUTFILE_ROTATE), and a file made and removed in its directory. 0 or
 * -errno.
 */
int outfile__check_at(int dirfd, const char *name, unsigned int flags);
int outfile__check(const char *path);

#endif
