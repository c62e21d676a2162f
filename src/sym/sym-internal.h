/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the symbolizer's files: symbol tables built the way
 * perf builds its rbtrees (same ordering, end fix-ups and alias choice), and
 * the loaders that fill them (kallsyms, ELF, perf-PID.map).
 */
#ifndef RS_SYM_INTERNAL_H
#define RS_SYM_INTERNAL_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

/* Longest build id perf records (SHA-1); shorter ones exist (MD5, ...). */
#define BUILD_ID_MAX 20

struct strpool;

/*
 * perf's dso__build_id_equal(): want (recorded) matches got (from a file)
 * when they are equal, or when want is got padded with zeros to
 * BUILD_ID_MAX bytes, as old perf.data files without
 * PERF_RECORD_MISC_BUILD_ID_SIZE store a shorter id.
 */
static inline bool sym_bid_equal(const uint8_t *want, size_t wsize,
				 const uint8_t *got, size_t gsize)
{
	size_t i;

	if (wsize > gsize && wsize == BUILD_ID_MAX) {
		if (memcmp(want, got, gsize))
			return false;
		for (i = gsize; i < wsize; i++)
			if (want[i])
				return false;
		return true;
	}
	return wsize == gsize && !memcmp(want, got, wsize);
}

enum sym_bind {
	SYM_LOCAL,
	SYM_GLOBAL,
	SYM_WEAK,
};

/*
 * An ELF symbol's name stays as the file spells it until a lookup lands
 * in the symbol: most symbols of a dso are never hit, and demangling and
 * interning all of them was most of the cost of loading a dso.
 */
enum sym_raw {
	SYM_NAME,		/* name is interned, as printed */
	SYM_RAW,		/* name is the file's: demangle it */
	SYM_RAW_PLT,		/* same, then append "@plt" */
};

struct sym_entry {
	uint64_t start, end;	/* [start, end); start == end: exact only */
	const char *name;	/* interned, or the file's (raw) */
	uint32_t seq;		/* insertion order, to keep sorting stable */
	uint8_t bind;
	uint8_t module;		/* kallsyms: "\t[mod]" followed the name */
	uint8_t raw;		/* enum sym_raw */
};

/* From spans[k].start up to the next span's start, v[idx] (none: -1U). */
struct sym_span {
	uint64_t start;
	uint32_t idx;
};

struct symtab {
	struct sym_entry *v;
	size_t nr, cap;
	/*
	 * Set by symtab__finish_elf() where symbols overlap: lookups follow
	 * perf's tree.
	 */
	struct sym_span *spans;
	size_t nr_spans;
	/* Raw names live here, interned into sp when first needed. */
	struct strarena names;
	struct strpool *sp;
};

int symtab__push(struct symtab *t, uint64_t start, uint64_t len,
		 const char *name, enum sym_bind bind, bool module);
/*
 * Same with a raw name (enum sym_raw), copied into t: its symbol's name
 * is demangled and interned into sp by symtab__name(). 0 or -ENOMEM.
 */
int symtab__push_raw(struct symtab *t, uint64_t start, uint64_t len,
		     const char *name, enum sym_bind bind, enum sym_raw raw,
		     struct strpool *sp);
/*
 * The name of e, an entry of t, as perf prints it: a raw name is
 * demangled and interned once, and e keeps the result. NULL: no memory.
 */
const char *symtab__name(struct symtab *t, const struct sym_entry *e);
/*
 * Sort by start (ties in insertion order, as perf's rbtree keeps them),
 * then apply perf's symbols__fixup_end() and symbols__fixup_duplicate().
 */
void symtab__finish(struct symtab *t, bool is_kallsyms);
/*
 * ELF symbols as perf 6.1's dso__load_sym() and
 * dso__synthesize_plt_symbols() keep them: t holds only what was pushed,
 * the first nr_syms entries in symbol table order, the synthesized .plt
 * entries after them. Sorts, applies the fix-ups, and makes symtab__find()
 * give the symbol perf's rbtree search gives where symbols overlap. 0,
 * -ENOMEM, -EINVAL when t held entries before these or nr_syms > t->nr,
 * -E2BIG for 2^32 entries or more.
 */
int symtab__finish_elf(struct symtab *t, size_t nr_syms);
/* Sort only (perf-PID.map files: perf applies no fix-ups to them). */
void symtab__sort(struct symtab *t);
const struct sym_entry *symtab__find(const struct symtab *t, uint64_t addr);
void symtab__exit(struct symtab *t);

/* Kernel symbols as perf's dso__load_kallsyms() keeps them. */
struct kmodule_syms {
	const char *name;	/* "[mod]", interned */
	struct symtab syms;
};

/*
 * A vmlinux section other than .text that holds symbols: perf gives each
 * its own map and dso, "[kernel.kallsyms]" followed by the section name.
 */
struct ksection {
	const char *dso_name;	/* "[kernel.kallsyms].init.text", interned */
	uint64_t start, end;	/* file addresses */
	struct symtab syms;	/* sorted only: perf fixes up no ends here */
};

struct ksyms {
	struct symtab kernel;		/* addresses as in the file */
	struct kmodule_syms *mods;
	size_t nr_mods;
	uint64_t text, stext;		/* first "_text", "_stext" */
	bool has_text, has_stext;
	uint64_t first;			/* lowest kernel symbol */
	/* From a vmlinux: kernel holds .text only, which bounds the map. */
	bool vmlinux;
	uint64_t text_start, text_end;
	struct ksection *secs;		/* by start */
	size_t nr_secs;
	/* kallsyms: the file's text, which the names point into */
	char *text_buf;
	size_t text_len;
};

int ksyms__load(struct ksyms *ks, const char *path);
/*
 * The same load in steps, for threads to share: begin reads the text
 * (or copies it); help parses a part of it not yet taken, false when
 * none is left; end parses what is left, waits for nothing (every help
 * must have returned: the caller's to see to), puts the parts together
 * into *ks and frees the load. 0 or -errno; on error *ks is untouched.
 */
struct ksyms_load;
int ksyms__load_begin(struct ksyms_load **lp, const char *path);
int ksyms__load_begin_buf(struct ksyms_load **lp, const char *text,
			  size_t len);
bool ksyms__load_help(struct ksyms_load *l);
int ksyms__load_end(struct ksyms_load *l, struct ksyms *ks);
int ksyms__load_buf(struct ksyms *ks, const char *text, size_t len);
/* Hex digits at s as perf's hex2u64() reads them; returns how many. */
size_t sym_parse_hex(const char *s, uint64_t *val);
/*
 * Kernel symbols from a vmlinux's .symtab as perf's dso__load_sym() keeps
 * them. bid (bid_size bytes, 0 for none) is the build id the recording
 * has for the kernel. Returns 0, -EINVAL on a build id mismatch, -ENOEXEC
 * when the file is no ELF kernel image, -ENODATA when it has no .symtab,
 * or another -errno.
 */
int ksyms__load_vmlinux(struct ksyms *ks, const char *path,
			const uint8_t *bid, size_t bid_size,
			struct strpool *sp);
void ksyms__exit(struct ksyms *ks);
/* The vmlinux section other than .text holding addr, or -1. */
int ksyms__section(const struct ksyms *ks, uint64_t addr);
/* Address of a ref_reloc_sym name in the file, as perf looks it up. */
int ksyms__ref_addr(const struct ksyms *ks, const char *name,
		    uint64_t *addr);
const struct symtab *ksyms__module(const struct ksyms *ks, const char *name);

/* ELF symbols of a user-space dso, in file-offset space (perf's adjust). */
int elf__load_dso(struct symtab *t, const char *path, const uint8_t *bid,
		  size_t bid_size, struct strpool *sp);
/* Same for an open libelf handle (libelf's Elf is struct Elf). */
struct Elf;
int elf__build_id(struct Elf *elf, uint8_t *bid, size_t size);
/*
 * The symbols perf keeps (GElf_Sym is Elf64_Sym): functions, objects and
 * visible NOTYPE labels, *is_label telling the last, which perf keeps
 * only in some sections.
 */
bool elf__sym_wanted(const Elf64_Sym *s, bool *is_label);
enum sym_bind elf__sym_bind(const Elf64_Sym *s);
/*
 * perf's build-id cache file for bid: "$HOME/.debug/.build-id/xx/yyy/base"
 * (base "elf", "debug" or "vdso"). Returns 0, or -ENOENT when there is
 * no build id or no $HOME.
 */
int elf__build_id_cache_path(char *out, size_t size, const uint8_t *bid,
			     size_t bid_size, const char *base);
/*
 * Open path as an ELF file for reading (libelf set up once): 0 with *fd
 * and *elf to give to elf__close(), -errno when it cannot be opened,
 * -ENOEXEC when it is no ELF file.
 */
int elf__open(const char *path, int *fd, struct Elf **elf);
void elf__close(int fd, struct Elf *elf);
/* Whether the file has a section of this type and name (NULL: any). */
bool elf__has_section(struct Elf *elf, uint32_t type, const char *name);
/*
 * The distribution's debug file for a build id:
 * "/usr/lib/debug/.build-id/xx/yyy.debug". 0, or -ENOENT without one (or
 * one longer than ELF_BUILD_ID_LONGEST bytes).
 */
#define ELF_BUILD_ID_LONGEST 64
int elf__build_id_debug_path(char *out, size_t size, const uint8_t *bid,
			     size_t bid_size);
/*
 * The places a .gnu_debuglink name is looked for, for a file in dir, in
 * gdb's and perf's order: k 0 "dir/link", 1 "dir/.debug/link", 2
 * "/usr/lib/debug" "dir/link". 0, or -ENAMETOOLONG when it does not fit
 * (-EINVAL past the last k).
 */
#define ELF_DEBUGLINK_PLACES 3
int elf__debuglink_path(char *out, size_t size, const char *dir,
			const char *link, int k);
/* Same for an ELF image in memory (the vdso). */
int elf__load_mem(struct symtab *t, const void *image, size_t size,
		  const uint8_t *bid, size_t bid_size, struct strpool *sp);

/*
 * A perf-PID.map file: "START SIZE name" lines, hex. Only a regular file,
 * not reached through a symbolic link, owned by root, the reader or (while
 * it runs) process pid's user is read: -EINVAL for another file type,
 * -ELOOP for a link, -EPERM for another owner. pid <= 0: unknown.
 */
int jitmap__load(struct symtab *t, const char *path, int pid,
		 struct strpool *sp);

const char *sym_intern(struct strpool *sp, const char *s, size_t len);
/*
 * A user-space name as perf 6.1 prints it, interned: name demangled,
 * suffix appended, cut to 4095 bytes. NULL: no memory.
 */
const char *sym_demangle_intern(struct strpool *sp, const char *name,
				const char *suffix);

#endif
