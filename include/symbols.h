/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine a recording was made on, as far as symbolization needs it:
 * kernel symbols (a kallsyms file), threads with their comm, and per-process
 * memory maps whose ELF files give user-space symbols (libelf/libdw).
 *
 * The names machine__resolve() hands out are stable until
 * machine__delete(), even across a second load of kernel symbols, so
 * callers may key caches on the pointers; equal names need not share one
 * (kallsyms names point into the file's text). Each (map, address) pair
 * is resolved once.
 *
 * Library code: never prints; 0 / -errno.
 */
#ifndef RS_SYMBOLS_H
#define RS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf-event.h"
#include "util.h"

struct machine;

/* One resolved frame, named the way `perf script` prints it. */
struct rs_frame {
	uint64_t addr;
	const char *sym;	/* "[unknown]" when no symbol */
	uint64_t sym_off;	/* addr - symbol start, 0 when unknown */
	const char *dso;	/* "[kernel.kallsyms]", "[vdso]", a path, or
				   "[unknown]" when no map covers addr */
	bool known;		/* a symbol was found */
	uint64_t map_addr;	/* addr as perf script prints it: relative to
				   the file (addr - map start + pgoff) for
				   file-backed maps, addr otherwise */
	uint32_t id;		/* > 0: names this (sym, dso, map_addr) for
				   the machine's life, so callers can cache
				   per frame without hashing strings; 0: no
				   such number (no map covered addr) */
};

struct machine *machine__new(void);
void machine__delete(struct machine *m);

/*
 * Kernel symbols from a file in /proc/kallsyms format. Kernel modules'
 * symbols get the dso "[module]" as perf names them.
 */
int machine__load_kallsyms(struct machine *m, const char *path);
/*
 * The names of the kernel symbols holding the n addrs, read in one pass
 * over the kallsyms file at path without keeping its table: for a few
 * hundred frames (BPF stack maps) that table would cost megabytes. Each
 * names[i] is the symbol a machine that loaded path names addrs[i] with
 * (the nearest T/W/D/B symbol at or below it, aliases as perf chooses
 * them, a module's symbol without its module), malloc'ed, or NULL when
 * none lies below. 0, or -errno with every names[i] NULL.
 */
int ksyms__name_addrs(const char *path, const uint64_t *addrs, size_t n,
		      char **names);
/* The same from kallsyms text in memory (len bytes, no NUL needed). */
int ksyms__name_addrs_buf(const char *text, size_t len,
			  const uint64_t *addrs, size_t n, char **names);
/*
 * The same from text in memory (/proc/kallsyms format, len bytes, need not
 * end in a NUL), e.g. what perf_data__kallsyms() gives.
 */
int machine__load_kallsyms_buf(struct machine *m, const char *text,
			       size_t len);
/*
 * Start reading the kallsyms file path (text NULL) or the len bytes at
 * text on a thread of its own, so that the work overlaps whatever the
 * caller does before it needs them: the next machine__load_kallsyms() of
 * the same path, or machine__load_kallsyms_buf() of the same text, waits
 * for it and installs what it read, with the same result as if it had
 * read it then. text must stay valid until then or machine__delete().
 * A hint: 0, or -errno when no thread could be started.
 */
/*
 * Load the symbol tables of the files that MMAP events map on a thread of
 * their own, as the events come (or, of the files named by
 * machine__sampled_file(), at once), so that the first sample in a dso
 * does not wait for its ELF to be read: it takes a table the thread has
 * loaded, waits for one it is loading, or loads one still queued itself.
 * The tables are the same whichever thread reads them. A hint: 0, or
 * -errno when no thread could be started.
 */
int machine__load_dsos_ahead(struct machine *m);
int machine__prefetch_kallsyms(struct machine *m, const char *path,
			       const char *text, size_t len);

/*
 * Kernel symbols from an uncompressed vmlinux ELF image (its .symtab), as
 * `perf script -k FILE` reads them: symbols keep their ELF sizes, so an
 * address past a function's end is "[unknown]"; the kernel map becomes
 * the image's .text; symbols of other sections (.init.text, ...) get the
 * dso "[kernel.kallsyms]<section>"; addresses in no section have no map.
 * Relocated like kallsyms, by the runtime _text of the kernel MMAP event.
 * Module frames get no symbols from it. A build id registered for
 * "[kernel.kallsyms]" (machine__add_build_id(), call it first) must
 * match the image's.
 *
 * Returns 0, or:
 *   -EINVAL   build id mismatch (the only source of -EINVAL here);
 *   -ENOEXEC  not an ELF file, or an ELF without .text or _text/_stext;
 *   -ENODATA  a stripped image: no .symtab;
 *   -ENOENT, -EACCES, -EISDIR, ...  the file cannot be opened;
 *   -ENOMEM.
 *
 * Either loader replaces the kernel symbols loaded before; on failure
 * those stay as they were.
 */
int machine__load_vmlinux(struct machine *m, const char *path);
bool machine__has_kernel_symbols(const struct machine *m);

/*
 * Side band: COMM, FORK, EXIT, MMAP/MMAP2, KSYMBOL (BPF programs and other
 * code kallsyms does not name, as perf names it); other kinds are ignored.
 */
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

/* Build id of an ELF file; returns its size (> 0), 0 when none, or -errno. */
int elf__read_build_id(const char *path, uint8_t *bid, size_t size);

/*
 * A build id the recording knew for a file (HEADER_BUILD_ID): perf refuses
 * symbol images whose build id differs, and finds debug files and the
 * vdso by it. Register before the file's first MMAP event. size <= 20.
 */
int machine__add_build_id(struct machine *m, const char *filename,
			  const uint8_t *id, size_t size);

/*
 * A file the recording's samples ran in: perf record lists only those
 * in HEADER_BUILD_ID (unless --buildid-all; perf 6.1 only those of the
 * samples' own addresses, record those of their callchains too). Once
 * told of any, the loader (machine__load_dsos_ahead(), call it after)
 * reads these from its start, before their MMAP events come (the 1024
 * biggest), and no other file: a lookup reads it. Names are paths;
 * register the build id first. A hint: 0, -EINVAL (not a path), -ENOENT
 * (no build id registered for it), -ENOMEM.
 */
int machine__sampled_file(struct machine *m, const char *filename);

/*
 * Resolve a whole callchain the way perf script walks it: context markers
 * (>= PERF_CONTEXT_MAX) switch the cpumode (KERNEL, USER, HV) and are not
 * frames; an unknown marker ends the chain. The first entries, before any
 * marker, use the sample's cpumode. Writes at most max frames to frames[]
 * and returns how many, or -ENOMEM.
 */
/*
 * The name of the file (or "[vdso]", "//anon"...) mapped at a user-space
 * address of a thread, or NULL: the map alone, no symbol is loaded. The
 * name lives as long as the machine, one pointer per name.
 */
const char *machine__user_dso(struct machine *m, uint32_t pid, uint32_t tid,
			      uint64_t addr);
int machine__resolve_callchain(struct machine *m, uint32_t pid, uint32_t tid,
			       uint16_t cpumode, const uint64_t *chain,
			       uint64_t nr, struct rs_frame *frames,
			       uint32_t max);

/*
 * What resolving the addresses of (pid, tid) depends on, as two numbers:
 * they change whenever that thread's maps or the kernel's maps and symbols
 * do, so a caller may reuse frames resolved under the same numbers (the
 * report caches whole callchains this way). Processes that share their
 * maps (a fork, until either side maps more) share the numbers too.
 */
void machine__maps_version(struct machine *m, uint32_t pid, uint32_t tid,
			   uint64_t version[2]);

/*
 * The 128-bit hash of a sample's callchain key, for caches of its named
 * frames: what naming them depends on (the cpumode, the caller's tag, the
 * versions of the maps involved) and the raw entries (through their hash,
 * s->chain_hash, when the reader took it), or the sampled ip when there
 * is no callchain. Kernel-only chains leave the thread's maps out, so
 * that every process shares them.
 */
void machine__callchain_hash(struct machine *m, const struct rs_sample *s,
			     uint16_t tag, uint64_t h[2]);

/*
 * Where a callchain's key (machine__callchain_hash()) is placed in a
 * table (util.h's chainmap): the hash of its raw entries, taken as the
 * sample was read, so that the slot can be fetched before the key is
 * made. Without entries, a key is the ip mixed with its naming state,
 * the same for every key of the state but for the ip, which a crafted
 * recording can pick so that all share a home: those, and a sample read
 * without the hash, are placed by the key's first half, hashed again.
 */
static inline bool rs_sample_where_early(const struct rs_sample *s)
{
	return s->has_chain_hash && s->nr_callchain;
}

static inline uint64_t rs_sample_chain_where(const struct rs_sample *s,
					     const uint64_t h[2])
{
	return rs_sample_where_early(s) ? s->chain_hash[0] : hash_u64(h[0]);
}

/* Counters for tests and reports. */
struct machine_stats {
	uint64_t lookups;	/* machine__resolve() calls */
	uint64_t cache_hits;
	uint64_t dsos_loaded;	/* symbol sources opened */
	uint64_t dsos_from_loader;	/* of those, read by the loader */
	uint64_t dsos_queued;		/* files given the loader thread */
	uint64_t dsos_read_ahead;	/* files the loader thread read */
	uint64_t threads;
};
void machine__stats(const struct machine *m, struct machine_stats *st);
/*
 * The i-th file (0-based) whose frames went unnamed because its build id
 * is not the one recorded (rebuilt since the recording), or NULL.
 */
const char *machine__stale_dso(const struct machine *m, size_t i);

/*
 * Symbol files the recording names that were not read because anyone
 * could have planted them: a /tmp/perf-PID.map that is not a regular
 * file (-EINVAL), is a symbolic link (-ELOOP) or is owned by another
 * user than root, the reader and the process's (-EPERM). How many, and
 * the first one's name and error, for a note.
 */
uint64_t machine__refused(const struct machine *m, const char **name,
			  int *err);

#endif
