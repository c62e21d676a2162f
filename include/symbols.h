/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine a recording was made on, as far as symbolization needs it:
 * kernel symbols (a kallsyms file), threads with their comm, and per-process
 * memory maps whose ELF files give user-space symbols (libelf/libdw).
 *
 * Every resolved name is interned: the strings machine__resolve() hands out
 * are stable until machine__delete(), so callers may key caches on the
 * pointers. Each (map, address) pair is resolved once.
 *
 * Library code: never prints; 0 / -errno.
 */
#ifndef RS_SYMBOLS_H
#define RS_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "perf-event.h"

struct machine;

/* One resolved frame, named the way `perf script` prints it. */
struct rs_frame {
	uint64_t addr;
	const char *sym;	/* "[unknown]" when no symbol */
	uint64_t sym_off;	/* addr - symbol start, 0 when unknown */
	const char *dso;	/* "[kernel.kallsyms]", "[vdso]", a path, or
				   "[unknown]" when no map covers addr */
	bool known;		/* a symbol was found */
};

struct machine *machine__new(void);
void machine__delete(struct machine *m);

/*
 * Kernel symbols from a file in /proc/kallsyms format. Kernel modules'
 * symbols get the dso "[module]" as perf names them.
 */
int machine__load_kallsyms(struct machine *m, const char *path);
bool machine__has_kernel_symbols(const struct machine *m);

/* Side band: COMM, FORK, EXIT, MMAP/MMAP2; other kinds are ignored. */
int machine__process_event(struct machine *m, const struct rs_event *ev);

/* The thread's current comm as perf prints it (":TID" when never named). */
const char *machine__comm(struct machine *m, uint32_t pid, uint32_t tid);

/*
 * Resolve addr seen in a sample of (pid, tid) with the given cpumode
 * (PERF_RECORD_MISC_KERNEL, _USER, _GUEST_*...). Fills *frame; returns 0,
 * or -ENOMEM.
 */
int machine__resolve(struct machine *m, uint32_t pid, uint32_t tid,
		     uint16_t cpumode, uint64_t addr, struct rs_frame *frame);

#endif
