/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe points from DWARF, as perf probe finds them: a probe spec resolved
 * against a user binary (uprobes: file offsets) or a vmlinux with
 * debuginfo (kprobes: symbol + offset), and the source lines of a function
 * where a probe can go (`perf probe -L`).
 *
 * Specs:
 *   FUNC           function entry
 *   FUNC%return    function return
 *   FUNC:RLN       line RLN counted from FUNC's declaration line (line 0)
 *   SRC:ALN        absolute line ALN of source file SRC (basename or a
 *                  path suffix at a '/' boundary)
 *   FUNC+OFF       OFF bytes into FUNC (decimal, or hex with 0x)
 * SRC is told from FUNC by a '.' or '/' in it, as perf tells them.
 */
#ifndef RS_PROBE_H
#define RS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct probe_point {
	char *event;		/* as perf: FUNC, FUNC__return, FUNC_L5 */
	char *group;		/* "probe", or "probe_<binary>" (uprobes) */
	char *func;		/* function (symbol) containing the point */
	uint64_t vaddr;		/* ELF virtual address */
	uint64_t offset;	/* user: file offset; kernel: offset in func */
	bool retprobe;
	char *file;		/* source file, NULL when unknown */
	int line;		/* source line, 0 when unknown */
};

/*
 * Resolve spec in the ELF at path (kernel: a vmlinux). On success
 * *points is an array of *nr >= 1 points for probe__free_points(),
 * named as perf names them (for SRC:ALN, after the function holding each
 * point). A function inlined into callers has a point in each copy for
 * FUNC and FUNC:RLN; %return and +OFF need an out-of-line copy.
 *
 * A line gets one point per run of consecutive line-table rows of that
 * line (at its first is_stmt row), and per inlined copy: a statement the
 * compiler split into several rows is probed once, so a loop body line
 * fires once per iteration (perf probes every row and can fire twice).
 * Separate runs of one line (a for line's init and increment) stay
 * separate points.
 *
 * FUNC, FUNC%return and FUNC+OFF fall back to the ELF symbol table when
 * there is no DWARF; lines need DWARF.
 *
 * Returns 0, or with a message in errbuf: -EINVAL bad spec, -ENOENT no
 * such function, line, file or offset, -ENODATA no debuginfo, -ENOEXEC
 * not an ELF file, -ENOMEM, or the -errno of opening path.
 */
int probe__resolve(const char *path, bool kernel, const char *spec,
		   struct probe_point **points, size_t *nr,
		   char *errbuf, size_t errlen);
void probe__free_points(struct probe_point *points, size_t nr);

/*
 * perf's event name for a point in func: func up to a '.' or '@'
 * (foo.isra.0 -> foo), then suffix ("", "__return", "_L26"); malloc()ed,
 * NULL when out of memory.
 */
char *probe__event_name(const char *func, const char *suffix);

/*
 * Print func's source as `perf probe -L FUNC` does, byte for byte:
 * "<FUNC@PATH:0>", then each line from the declaration line on, numbered
 * relative to it ("%7d  ") where a probe can go and blank-numbered (nine
 * spaces) where not, and three lines past the last numbered one. The
 * source is the file DWARF names (absolute, or under DW_AT_comp_dir).
 * Returns 0 or -errno as probe__resolve(); -ENOENT (naming the path) when
 * the source file is missing; -EIO when writing out fails.
 */
int probe__lines(const char *path, bool kernel, const char *func, FILE *out,
		 char *errbuf, size_t errlen);

/*
 * The i-th place (from 0) where a debuginfo vmlinux of the running kernel
 * may be: /usr/lib/debug/boot/vmlinux-R, /usr/lib/debug/lib/modules/R/
 * vmlinux, /lib/modules/R/build/vmlinux, /boot/vmlinux-R (R: uname -r).
 * Returns 0, or -ENOENT past the last one.
 */
int probe__vmlinux_path(unsigned int i, char *buf, size_t len);

/*
 * The first of those that is an ELF file with DWARF (.debug_info), or
 * NULL when none is. Caller frees.
 */
char *probe__find_vmlinux(void);

#endif
