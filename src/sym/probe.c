// SPDX-License-Identifier: GPL-2.0
/*
 * Probe points from DWARF line tables, named and placed the way perf probe
 * names and places them (tools/perf/util/probe-finder.c), with one
 * deliberate difference: a line the compiler split into several
 * consecutive rows gets one point, not one per row (see probe.h).
 *
 * Functions are found through the ELF symbol table first (an address
 * leads straight to its CU), and by walking every CU only when the symbol
 * table has no such name: walking all of a vmlinux's CUs takes seconds.
 */
#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe.h"
#include "sym-internal.h"
#include "util.h"

/* perf's MAX_EVENT_NAME_LEN: longer names are cut. */
#define PROBE_NAME_MAX 64
/* Lines perf probe -L prints past the last probe-able line. */
#define LINES_AFTER 3

struct dbg {
	const char *path;
	bool kernel;
	int fd, dfd;		/* the binary, a separate debug file */
	Elf *elf, *delf;
	Dwarf *dw;		/* NULL: no DWARF anywhere */
	char *errbuf;
	size_t errlen;
};

enum spec_kind {
	SPEC_FUNC,
	SPEC_RETURN,
	SPEC_FUNC_LINE,
	SPEC_SRC_LINE,
	SPEC_FUNC_OFF,
};

struct spec {
	enum spec_kind kind;
	char *name;		/* FUNC or SRC */
	long line;
	uint64_t off;
};

/* A function definition with code. */
struct func {
	Dwarf_Die die, cu;
	bool has_die;
	char *sym;		/* symbol name, NULL without a symbol */
	uint64_t entry;
	uint64_t size;		/* 0 when unknown */
	Dwarf_Off root;		/* the definition it is a copy of */
	bool inlined;		/* a copy inlined into a caller */
};

struct point_list {
	struct probe_point *v;
	size_t nr, cap;
};

static int errmsg(struct dbg *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int errmsg(struct dbg *d, int err, const char *fmt, ...)
{
	va_list ap;

	if (d->errbuf && d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->errbuf, d->errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---- opening the ELF and its DWARF ---- */

/* DWARF in the file itself (a stripped one keeps .debug_info NOBITS). */
static bool has_debug_info(Elf *elf)
{
	return elf__has_section(elf, SHT_PROGBITS, ".debug_info");
}

static int try_debug_file(struct dbg *d, const char *path)
{
	Elf *elf;
	Dwarf *dw;
	int fd;

	if (elf__open(path, &fd, &elf))
		return -ENOENT;
	dw = has_debug_info(elf) ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) :
				   NULL;
	if (!dw) {
		elf__close(fd, elf);
		return -ENOENT;
	}
	d->dfd = fd;
	d->delf = elf;
	d->dw = dw;
	return 0;
}

/*
 * Distributions ship DWARF apart from the binary: by build id under
 * /usr/lib/debug/.build-id, or named by .gnu_debuglink next to it, in
 * its .debug directory or under /usr/lib/debug (gdb's search order).
 */
static void find_separate_debug(struct dbg *d)
{
	char buf[PATH_MAX], dir[PATH_MAX];
	uint8_t bid[ELF_BUILD_ID_LONGEST];
	const char *link;
	GElf_Word crc;
	char *slash;
	int n;

	n = elf__build_id(d->elf, bid, sizeof(bid));
	if (n > 1 && !elf__build_id_debug_path(buf, sizeof(buf), bid, n) &&
	    !try_debug_file(d, buf))
		return;
	link = dwelf_elf_gnu_debuglink(d->elf, &crc);
	if (!link || strchr(link, '/'))
		return;
	if (!realpath(d->path, dir))
		snprintf(dir, sizeof(dir), "%s", d->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	for (n = 0; n < ELF_DEBUGLINK_PLACES; n++) {
		/* the file itself is no separate debug file */
		if (!n && !strcmp(base_name(d->path), link))
			continue;
		if (!elf__debuglink_path(buf, sizeof(buf), dir, link, n) &&
		    !try_debug_file(d, buf))
			return;
	}
}

static void dbg_close(struct dbg *d)
{
	if (d->dw)
		dwarf_end(d->dw);
	elf__close(d->dfd, d->delf);
	elf__close(d->fd, d->elf);
}

static int dbg_open(struct dbg *d, const char *path, bool kernel,
		    char *errbuf, size_t errlen)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->path = path;
	d->kernel = kernel;
	d->fd = d->dfd = -1;
	d->errbuf = errbuf;
	d->errlen = errlen;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	err = elf__open(path, &d->fd, &d->elf);
	if (err == -ENOEXEC)
		return errmsg(d, err, "%s: not an ELF file", path);
	if (err)
		return errmsg(d, err, "%s: %s", path, strerror(-err));
	if (has_debug_info(d->elf))
		d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw)
		find_separate_debug(d);
	return 0;
}

static int no_dwarf(struct dbg *d)
{
	return errmsg(d, -ENODATA,
		      "%s: no debuginfo (DWARF), needed for line probes; rebuild with -g or install its debug package",
		      d->path);
}

/* ---- ELF symbols ---- */

/* The symbol table: .symtab of the binary, else of the debug file. */
static Elf_Scn *symtab_scn(struct dbg *d, Elf **elfp)
{
	Elf *elfs[2] = { d->elf, d->delf };
	int i;

	for (i = 0; i < 2; i++) {
		Elf_Scn *scn = NULL;

		if (!elfs[i])
			continue;
		while ((scn = elf_nextscn(elfs[i], scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == SHT_SYMTAB) {
				*elfp = elfs[i];
				return scn;
			}
		}
	}
	/* A stripped binary keeps the dynamic symbols only. */
	if (d->elf) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(d->elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == SHT_DYNSYM) {
				*elfp = d->elf;
				return scn;
			}
		}
	}
	return NULL;
}

typedef int (*sym_cb)(const char *name, const GElf_Sym *sym, void *arg);

/* Calls cb for each defined function symbol; stops on a non-zero return. */
static int for_each_func_sym(struct dbg *d, sym_cb cb, void *arg)
{
	Elf *elf = NULL;
	Elf_Scn *scn = symtab_scn(d, &elf);
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n;
	int ret;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		ret = cb(name, &sym, arg);
		if (ret)
			return ret;
	}
	return 0;
}

struct sym_name_ctx {
	const char *name;
	struct func *v;
	size_t nr, cap;
	bool local;		/* a static function has the name */
	int err;
};

static int sym_name_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct sym_name_ctx *c = arg;
	size_t i;

	if (strcmp(name, c->name))
		return 0;
	if (GELF_ST_BIND(sym->st_info) == STB_LOCAL)
		c->local = true;
	/* .symtab and .dynsym list the same function twice. */
	for (i = 0; i < c->nr; i++)
		if (c->v[i].entry == sym->st_value)
			return 0;
	if (grow_array((void **)&c->v, &c->cap, c->nr + 1, sizeof(*c->v))) {
		c->err = -ENOMEM;
		return 1;
	}
	memset(&c->v[c->nr], 0, sizeof(c->v[0]));
	c->v[c->nr].entry = sym->st_value;
	c->v[c->nr].size = sym->st_size;
	c->v[c->nr].sym = strdup(name);
	if (!c->v[c->nr].sym) {
		c->err = -ENOMEM;
		return 1;
	}
	c->nr++;
	return 0;
}

struct sym_addr_ctx {
	uint64_t addr;
	char *name;		/* best so far, strdup'ed */
	uint64_t start;
	bool global;
	int err;
};

/*
 * The innermost function symbol containing addr; among aliases a global
 * one, as kallsyms users expect the exported name.
 */
static int sym_addr_cb(const char *name, const GElf_Sym *sym, void *arg)
{
	struct sym_addr_ctx *c = arg;
	uint64_t end = sym->st_value + (sym->st_size ? sym->st_size : 1);
	bool global = GELF_ST_BIND(sym->st_info) != STB_LOCAL;
	char *dup;

	if (c->addr < sym->st_value || c->addr >= end)
		return 0;
	if (c->name && (sym->st_value < c->start ||
			(sym->st_value == c->start && (c->global || !global))))
		return 0;
	dup = strdup(name);
	if (!dup) {
		c->err = -ENOMEM;
		return 1;
	}
	free(c->name);
	c->name = dup;
	c->start = sym->st_value;
	c->global = global;
	return 0;
}

/* ---- DWARF helpers ---- */

static bool cu_of_addr(struct dbg *d, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(d->dw, addr, cu))
		return true;
	/* No .debug_aranges: ask each CU for its ranges. */
	while (!dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(d->dw, off + hsize, cu) &&
		    dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

/*
 * Where a function starts: its entry pc, or for a function split in hot
 * and cold parts (DW_AT_ranges) the first range, which gcc gives the hot
 * part, the one the symbol names.
 */
static bool die_entry(Dwarf_Die *die, uint64_t *entry)
{
	Dwarf_Addr base, start, end, pc;

	if (!dwarf_entrypc(die, &pc)) {
		*entry = pc;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*entry = start;
		return true;
	}
	return false;
}

/* Bytes from entry to the end of the range holding it. */
static uint64_t die_size_from(Dwarf_Die *die, uint64_t entry)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (entry >= start && entry < end)
			return end - entry;
	return 0;
}

/*
 * The out-of-line function (DW_TAG_subprogram) whose code holds addr, as
 * perf's die_find_realfunc(). Not from dwarf_getscopes(), which leaves
 * an inlined copy for the scopes of its abstract definition.
 */
static bool subprogram_at(Dwarf_Die *cu, uint64_t addr, Dwarf_Die *out)
{
	Dwarf_Die child;
	int tag;

	if (dwarf_child(cu, &child))
		return false;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram && dwarf_haspc(&child, addr) > 0) {
			*out = child;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) &&
		    subprogram_at(&child, addr, out))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

struct funcs_ctx {
	struct dbg *d;
	const char *name;
	Dwarf_Off *roots;	/* definitions seen, by DIE offset */
	size_t nr_roots, cap_roots;
	struct func *v;
	size_t nr, cap;
	Dwarf_Off cur_root;
	int err;
};

static int add_func(struct funcs_ctx *c, Dwarf_Die *die, Dwarf_Die *cu)
{
	struct func *f;
	uint64_t entry;
	size_t i;

	if (!die_entry(die, &entry))
		return 0;
	for (i = 0; i < c->nr; i++)
		if (c->v[i].entry == entry)
			return 0;
	if (grow_array((void **)&c->v, &c->cap, c->nr + 1, sizeof(*c->v)))
		return -ENOMEM;
	f = &c->v[c->nr++];
	memset(f, 0, sizeof(*f));
	f->die = *die;
	f->cu = *cu;
	f->has_die = true;
	f->entry = entry;
	f->size = die_size_from(die, entry);
	f->root = c->cur_root;
	f->inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine;
	return 0;
}

/* DIEs of cu below parent that are copies of the DIE at origin. */
static int add_instances(struct funcs_ctx *c, Dwarf_Die *cu,
			 Dwarf_Die *parent, Dwarf_Off origin)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, o;
	int tag;

	if (dwarf_child(parent, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if ((tag == DW_TAG_subprogram ||
		     tag == DW_TAG_inlined_subroutine) &&
		    dwarf_attr(&child, DW_AT_abstract_origin, &attr) &&
		    dwarf_formref_die(&attr, &o) &&
		    dwarf_dieoffset(&o) == origin &&
		    add_func(c, &child, cu))
			return -ENOMEM;
		if (dwarf_haschildren(&child) > 0 &&
		    add_instances(c, cu, &child, origin))
			return -ENOMEM;
	} while (!dwarf_siblingof(&child, &child));
	return 0;
}

/*
 * A definition of the name: as perf, a definition with code is the
 * function; an abstract one (inline) stands for all its copies, the
 * out-of-line ones (foo, foo.part.0) and those inlined into callers.
 */
static int funcs_cb(Dwarf_Die *die, void *arg)
{
	struct funcs_ctx *c = arg;
	const char *name = dwarf_diename(die);
	Dwarf_Attribute attr;
	Dwarf_Die root, cu;
	uint64_t entry;
	Dwarf_Off off;
	size_t i;

	if (!name || strcmp(name, c->name))
		return DWARF_CB_OK;
	root = *die;
	if (dwarf_attr(die, DW_AT_abstract_origin, &attr) &&
	    !dwarf_formref_die(&attr, &root))
		return DWARF_CB_OK;
	off = dwarf_dieoffset(&root);
	for (i = 0; i < c->nr_roots; i++)
		if (c->roots[i] == off)
			return DWARF_CB_OK;
	if (grow_array((void **)&c->roots, &c->cap_roots, c->nr_roots + 1,
		       sizeof(*c->roots)))
		goto nomem;
	c->roots[c->nr_roots++] = off;
	c->cur_root = off;
	if (!dwarf_diecu(&root, &cu, NULL, NULL))
		return DWARF_CB_OK;
	if (die_entry(&root, &entry)) {
		if (add_func(c, &root, &cu))
			goto nomem;
	} else if (add_instances(c, &cu, &cu, off)) {
		goto nomem;
	}
	return DWARF_CB_OK;
nomem:
	c->err = -ENOMEM;
	return DWARF_CB_ABORT;
}

static void free_funcs(struct func *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(v[i].sym);
	free(v);
}

static int funcs_in_cu(struct funcs_ctx *c, Dwarf_Off cu_off)
{
	Dwarf_Die cu;

	if (dwarf_offdie(c->d->dw, cu_off, &cu))
		dwarf_getfuncs(&cu, funcs_cb, c, 0);
	return c->err;
}

/*
 * Every definition of name with code, each copy inlined into a caller
 * too. Without DWARF, from the symbol table. With it, from the CUs the
 * symbol table points to, else from walking every CU (for functions
 * inlined everywhere, which have no symbol). first_cu: only the first CU
 * defining a static name, which perf -L shows (walking the CUs up to it).
 */
static int find_funcs(struct dbg *d, const char *name, bool first_cu,
		      struct func **out, size_t *nr)
{
	struct sym_name_ctx sc = { .name = name };
	struct funcs_ctx fc = { .d = d, .name = name };
	Dwarf_Off off = 0, next;
	size_t i, hsize;
	int err = 0;

	for_each_func_sym(d, sym_name_cb, &sc);
	if (sc.err) {
		free_funcs(sc.v, sc.nr);
		return errmsg(d, sc.err, "out of memory");
	}
	if (!d->dw) {
		if (!sc.nr)
			return errmsg(d, -ENOENT, "no function %s in %s", name,
				      d->path);
		*out = sc.v;
		*nr = sc.nr;
		return 0;
	}
	for (i = 0; i < sc.nr && !err && !(first_cu && sc.local); i++) {
		Dwarf_Die cu;

		if (cu_of_addr(d, sc.v[i].entry, &cu))
			err = funcs_in_cu(&fc, dwarf_dieoffset(&cu));
	}
	free_funcs(sc.v, sc.nr);
	while (!fc.nr && !err &&
	       !dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		err = funcs_in_cu(&fc, off + hsize);
		off = next;
	}
	free(fc.roots);
	if (err) {
		free_funcs(fc.v, fc.nr);
		return errmsg(d, err, "out of memory");
	}
	if (!fc.nr) {
		free(fc.v);
		return errmsg(d, -ENOENT, "no function %s in %s", name,
			      d->path);
	}
	*out = fc.v;
	*nr = fc.nr;
	return 0;
}

/* ---- spec parsing ---- */

static bool is_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

static bool parse_ulong(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

static void spec_free(struct spec *s)
{
	free(s->name);
	s->name = NULL;
}

static int parse_spec(struct dbg *d, const char *text, struct spec *s)
{
	const char *sep;
	uint64_t v;
	size_t len;

	memset(s, 0, sizeof(*s));
	len = strlen(text);
	if ((sep = strchr(text, '%'))) {
		if (strcmp(sep, "%return"))
			goto bad;
		s->kind = SPEC_RETURN;
		len = sep - text;
	} else if ((sep = strchr(text, ':'))) {
		if (!parse_ulong(sep + 1, 10, &v) || v > INT_MAX)
			return errmsg(d, -EINVAL,
				      "probe '%s': the line after ':' must be a decimal number",
				      text);
		s->line = v;
		len = sep - text;
		s->kind = memchr(text, '.', len) || memchr(text, '/', len) ?
			  SPEC_SRC_LINE : SPEC_FUNC_LINE;
		if (s->kind == SPEC_SRC_LINE && !s->line)
			return errmsg(d, -EINVAL,
				      "probe '%s': source lines count from 1",
				      text);
	} else if ((sep = strchr(text, '+'))) {
		bool hex = !strncmp(sep + 1, "0x", 2) ||
			   !strncmp(sep + 1, "0X", 2);

		if (!parse_ulong(hex ? sep + 3 : sep + 1, hex ? 16 : 10,
				 &s->off))
			return errmsg(d, -EINVAL,
				      "probe '%s': the offset after '+' must be decimal or 0x hex",
				      text);
		s->kind = SPEC_FUNC_OFF;
		len = sep - text;
	} else {
		s->kind = SPEC_FUNC;
	}
	s->name = strndup(text, len);
	if (!s->name)
		return errmsg(d, -ENOMEM, "out of memory");
	if (s->kind == SPEC_SRC_LINE ? !*s->name || strchr(s->name, '%') ||
				       strchr(s->name, ':') :
				       !is_ident(s->name)) {
		spec_free(s);
		goto bad;
	}
	return 0;
bad:
	return errmsg(d, -EINVAL,
		      "probe '%s': use FUNC, FUNC%%return, FUNC:RLN, SRC:ALN or FUNC+OFF",
		      text);
}

/* ---- points ---- */

/* The source file as perf finds it: absolute, or under the CU's dir. */
static char *source_path(Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute attr;
	const char *dir;
	char *p;

	if (file[0] == '/')
		return strdup(file);
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	if (!dir || asprintf(&p, "%s/%s", dir, file) < 0)
		return strdup(file);
	return p;
}

char *probe__event_name(const char *func, const char *suffix)
{
	char buf[PROBE_NAME_MAX];
	size_t len;

	if (*func == '.')
		func++;
	len = strcspn(func, ".@");
	if (len == 0)
		len = strlen(func);
	snprintf(buf, sizeof(buf), "%.*s%s", (int)len, func, suffix);
	return strdup(buf);
}

/*
 * perf's uprobe group: "probe_" and the binary's name up to a character
 * that cannot be in one (libc.so.6 -> probe_libc).
 */
static char *group_name(struct dbg *d)
{
	const char *b = base_name(d->path);
	char buf[PROBE_NAME_MAX];
	size_t len = 0;

	if (d->kernel)
		return strdup("probe");
	while (b[len] && (isalnum((unsigned char)b[len]) || b[len] == '_'))
		len++;
	snprintf(buf, sizeof(buf), "probe_%.*s", (int)len, b);
	return strdup(buf);
}

static int file_offset(struct dbg *d, uint64_t vaddr, uint64_t *off)
{
	size_t i, n;

	if (elf_getphdrnum(d->elf, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(d->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return errmsg(d, -ENOENT,
		      "%s: address 0x%" PRIx64 " is in no loadable segment",
		      d->path, vaddr);
}

/*
 * Add the point at vaddr. func names it when the spec named a function
 * (NULL: the symbol holding vaddr); file/line when known (else from the
 * line table).
 */
static int add_point(struct dbg *d, struct point_list *pl,
		     const struct spec *s, uint64_t vaddr, const char *file,
		     int line)
{
	struct sym_addr_ctx sc = { .addr = vaddr };
	struct probe_point *p;
	char suffix[32] = "";
	Dwarf_Die cu, sp;
	size_t i;
	int err;

	for (i = 0; i < pl->nr; i++)
		if (pl->v[i].vaddr == vaddr)
			return 0;
	if (grow_array((void **)&pl->v, &pl->cap, pl->nr + 1, sizeof(*p)))
		return errmsg(d, -ENOMEM, "out of memory");
	/* Counted at once, so that the caller frees what is filled in. */
	p = &pl->v[pl->nr++];
	memset(p, 0, sizeof(*p));
	p->vaddr = vaddr;
	p->retprobe = s->kind == SPEC_RETURN;
	p->line = line;

	for_each_func_sym(d, sym_addr_cb, &sc);
	if (sc.err)
		return errmsg(d, -ENOMEM, "out of memory");
	p->func = sc.name;
	if (!p->func && d->dw && cu_of_addr(d, vaddr, &cu) &&
	    subprogram_at(&cu, vaddr, &sp) && dwarf_diename(&sp) &&
	    die_entry(&sp, &sc.start)) {
		p->func = strdup(dwarf_diename(&sp));
		if (!p->func)
			return errmsg(d, -ENOMEM, "out of memory");
	}
	if (!p->func)
		return errmsg(d, -ENOENT,
			      "%s: no function holds address 0x%" PRIx64,
			      d->path, vaddr);
	if (!file && d->dw && cu_of_addr(d, vaddr, &cu)) {
		Dwarf_Line *l = dwarf_getsrc_die(&cu, vaddr);

		if (l) {
			file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &p->line);
		}
	}
	if (file) {
		p->file = file[0] != '/' && d->dw && cu_of_addr(d, vaddr, &cu) ?
			  source_path(&cu, file) : strdup(file);
		if (!p->file)
			return errmsg(d, -ENOMEM, "out of memory");
	}
	if (d->kernel) {
		p->offset = vaddr - sc.start;
	} else {
		err = file_offset(d, vaddr, &p->offset);
		if (err)
			return err;
	}
	if (s->kind == SPEC_RETURN)
		snprintf(suffix, sizeof(suffix), "__return");
	else if (s->kind == SPEC_FUNC_LINE)
		snprintf(suffix, sizeof(suffix), "_L%ld", s->line);
	p->event = probe__event_name(s->kind == SPEC_SRC_LINE ? p->func : s->name,
			      suffix);
	p->group = group_name(d);
	if (!p->event || !p->group)
		return errmsg(d, -ENOMEM, "out of memory");
	return 0;
}

/* ---- line tables ---- */

struct row {
	uint64_t addr;
	int line;
	bool stmt;
	const char *file;
};

/* The i-th row of lines, false for an end of sequence. */
static bool get_row(Dwarf_Lines *lines, size_t i, struct row *r)
{
	Dwarf_Line *l = dwarf_onesrcline(lines, i);
	Dwarf_Addr a;
	bool end;

	if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &r->line) ||
	    dwarf_lineendsequence(l, &end) || end)
		return false;
	if (dwarf_linebeginstatement(l, &r->stmt))
		r->stmt = false;
	r->addr = a;
	r->file = dwarf_linesrc(l, NULL, NULL);
	return r->file != NULL;
}

/* perf's strtailcmp(): one path is a tail of the other. */
static bool same_file(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > lb)
		return !strcmp(a + la - lb, b);
	return !strcmp(b + lb - la, a);
}

/* SRC as given: a basename, or a path suffix at a '/' boundary. */
static bool src_matches(const char *path, const char *src)
{
	size_t lp = strlen(path), ls = strlen(src);

	if (!strchr(src, '/'))
		return !strcmp(base_name(path), src);
	if (lp < ls || strcmp(path + lp - ls, src))
		return false;
	return lp == ls || path[lp - ls - 1] == '/' || src[0] == '/';
}

/* DW_AT_call_file of an inlined copy, as a path from the line table. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t n;

	if (!dwarf_attr(die, DW_AT_call_file, &attr) ||
	    dwarf_formudata(&attr, &idx) || dwarf_getsrcfiles(cu, &files, &n) ||
	    idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int call_line(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word line = 0;

	if (dwarf_attr(die, DW_AT_call_line, &attr))
		dwarf_formudata(&attr, &line);
	return line;
}

/*
 * Rows of a function's own lines: addresses in it, outside code inlined
 * into it unless the row is the call site (perf's die_walk_lines()).
 */
static bool row_in_func(Dwarf_Die *cu, Dwarf_Die *fn, const struct row *r,
			const char *decl_file)
{
	Dwarf_Die *scopes = NULL;
	const char *cf;
	bool ok = true;
	int i, n;

	if (dwarf_haspc(fn, r->addr) <= 0 || !same_file(r->file, decl_file))
		return false;
	n = dwarf_getscopes(cu, r->addr, &scopes);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		/*
		 * The innermost inlined copy decides: the call's line is
		 * fn's, and so is a copy of fn itself (gcc inlines a
		 * function into its own out-of-line copy when splitting it).
		 */
		cf = call_file(cu, &scopes[i]);
		ok = cf && same_file(cf, decl_file) &&
		     call_line(&scopes[i]) == r->line;
		if (!ok) {
			const char *df = dwarf_decl_file(&scopes[i]);
			int dl = 0, fl = 0;

			ok = df && same_file(df, decl_file) &&
			     !dwarf_decl_line(&scopes[i], &dl) &&
			     !dwarf_decl_line(fn, &fl) && dl == fl;
		}
		break;
	}
	free(scopes);
	return ok;
}

/* A copy of a function inlined into the function looked at. */
struct inl {
	uint64_t entry;
	int line;		/* the call's line */
};

struct inl_set {
	struct inl *v;
	size_t nr, cap;
};

/*
 * The copies inlined straight into fn (not into other inlined copies),
 * called from decl_file: perf counts their entries as the call's line.
 */
static int inline_copies(Dwarf_Die *cu, Dwarf_Die *parent,
			 const char *decl_file, struct inl_set *is)
{
	Dwarf_Die child;
	uint64_t entry;
	const char *cf;
	int tag;

	if (dwarf_child(parent, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_lexical_block) {
			if (inline_copies(cu, &child, decl_file, is))
				return -ENOMEM;
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		cf = call_file(cu, &child);
		if (!cf || !same_file(cf, decl_file) ||
		    call_line(&child) <= 0 || !die_entry(&child, &entry))
			continue;
		if (grow_array((void **)&is->v, &is->cap, is->nr + 1,
			       sizeof(*is->v)))
			return -ENOMEM;
		is->v[is->nr].entry = entry;
		is->v[is->nr].line = call_line(&child);
		is->nr++;
	} while (!dwarf_siblingof(&child, &child));
	return 0;
}

/*
 * The line perf's cu_find_lineinfo() gives addr: a function's entry is
 * its declaration line; else the first is_stmt row at addr (or of the
 * row holding it).
 */
static bool perf_lineinfo(Dwarf_Die *cu, Dwarf_Lines *lines, size_t n,
			  uint64_t addr, const char **file, int *line)
{
	size_t lo = 0, hi = n, i;
	Dwarf_Line *l;
	uint64_t entry;
	Dwarf_Addr a;
	Dwarf_Die sp;
	bool stmt;

	if (subprogram_at(cu, addr, &sp) && die_entry(&sp, &entry) &&
	    entry == addr) {
		*file = dwarf_decl_file(&sp);
		return *file && !dwarf_decl_line(&sp, line);
	}
	/* The first row at addr, else the last one before it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a))
			return false;
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || dwarf_lineaddr(dwarf_onesrcline(lines, lo), &a) ||
	    a != addr) {
		if (!lo)
			return false;
		lo--;
	}
	for (i = lo; i < n; i++) {
		l = dwarf_onesrcline(lines, i);
		if (!l || dwarf_lineaddr(l, &a) ||
		    dwarf_linebeginstatement(l, &stmt) || a > addr)
			return false;
		if (stmt)
			break;
	}
	if (i == n)
		return false;
	l = dwarf_onesrcline(lines, i);
	*file = dwarf_linesrc(l, NULL, NULL);
	return *file && !dwarf_lineno(l, line);
}

struct line_set {
	int *v;
	size_t nr, cap;
	int min, max;
};

static int line_set_add(struct line_set *ls, int line)
{
	size_t j, k;

	for (j = 0; j < ls->nr && ls->v[j] < line; j++)
		;
	if (j < ls->nr && ls->v[j] == line)
		return 0;
	if (grow_array((void **)&ls->v, &ls->cap, ls->nr + 1, sizeof(int)))
		return -ENOMEM;
	for (k = ls->nr; k > j; k--)
		ls->v[k] = ls->v[k - 1];
	ls->v[j] = line;
	ls->nr++;
	ls->min = ls->v[0];
	ls->max = ls->v[ls->nr - 1];
	return 0;
}

/*
 * A line perf lists for a function: in its file, from its declaration
 * on, and given back by a lookup of its address (so the row at the
 * function's entry counts as the declaration line).
 */
static int func_line_cand(Dwarf_Die *cu, Dwarf_Lines *lines, size_t n,
			  const char *decl_file, int decl_line,
			  const char *file, int line, uint64_t addr,
			  struct line_set *ls)
{
	const char *f2;
	int l2;

	if (line < decl_line || !same_file(file, decl_file) ||
	    !perf_lineinfo(cu, lines, n, addr, &f2, &l2) || l2 != line ||
	    !same_file(f2, file))
		return 0;
	return line_set_add(ls, line);
}

/*
 * The lines of fn where a probe can go, sorted, without duplicates, as
 * perf's find_line_range() finds them: is_stmt rows of the function's own
 * code, its declaration line (at its entry) and the lines calling the
 * copies inlined into it (at their entries).
 */
static int func_lines(struct dbg *d, struct func *f, const char *decl_file,
		      int decl_line, struct line_set *ls)
{
	struct inl_set is = { 0 };
	Dwarf_Lines *lines;
	struct row r;
	size_t i, n;
	int err = 0;

	memset(ls, 0, sizeof(*ls));
	if (dwarf_getsrclines(&f->cu, &lines, &n))
		return errmsg(d, -ENODATA, "%s: no line table for %s",
			      d->path, dwarf_diename(&f->die));
	for (i = 0; i < n && !err; i++) {
		if (!get_row(lines, i, &r) || !r.stmt ||
		    !row_in_func(&f->cu, &f->die, &r, decl_file))
			continue;
		err = func_line_cand(&f->cu, lines, n, decl_file, decl_line,
				     r.file, r.line, r.addr, ls);
	}
	if (!err)
		err = func_line_cand(&f->cu, lines, n, decl_file, decl_line,
				     decl_file, decl_line, f->entry, ls);
	if (!err)
		err = inline_copies(&f->cu, &f->die, decl_file, &is);
	for (i = 0; i < is.nr && !err; i++)
		err = func_line_cand(&f->cu, lines, n, decl_file, decl_line,
				     decl_file, is.v[i].line, is.v[i].entry,
				     ls);
	free(is.v);
	if (err)
		return errmsg(d, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Points for line in cu: one per run of consecutive rows of that line,
 * at the run's first is_stmt row. fn (may be NULL) keeps rows in it;
 * a row at one of the extra addresses counts as the line's (the
 * function's entry for its declaration line, inlined copies' entries
 * for their call line, as perf counts them).
 */
static int line_points(struct dbg *d, struct point_list *pl,
		       const struct spec *s, Dwarf_Die *cu, Dwarf_Die *fn,
		       const char *file, int line, const uint64_t *extra,
		       size_t nr_extra)
{
	Dwarf_Lines *lines;
	bool in_run = false, match;
	size_t i, j, n;
	struct row r;
	int err;

	if (dwarf_getsrclines(cu, &lines, &n))
		return 0;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool end = false;

		if (!get_row(lines, i, &r)) {
			if (l)
				dwarf_lineendsequence(l, &end);
			if (end)
				in_run = false;
			continue;
		}
		for (j = 0; j < nr_extra && extra[j] != r.addr; j++)
			;
		match = j < nr_extra;
		if (!match && r.line == line)
			match = s->kind == SPEC_SRC_LINE ?
				src_matches(r.file, file) :
				same_file(r.file, file);
		if (!match) {
			in_run = false;
			continue;
		}
		if (in_run || (!r.stmt && j == nr_extra))
			continue;
		if (fn && j == nr_extra && !row_in_func(cu, fn, &r, file))
			continue;
		in_run = true;
		err = add_point(d, pl, s, r.addr, j < nr_extra ? file : r.file,
				line);
		if (err)
			return err;
	}
	return 0;
}

/* Points for FUNC:RLN in one definition of FUNC. */
static int func_line_points(struct dbg *d, struct point_list *pl,
			    const struct spec *s, struct func *f,
			    const char *decl_file, int want, bool decl)
{
	struct inl_set is = { 0 };
	uint64_t *extra = NULL;
	size_t i, nr = 0;
	int err;

	if (inline_copies(&f->cu, &f->die, decl_file, &is))
		goto nomem;
	extra = calloc(is.nr + 1, sizeof(*extra));
	if (!extra)
		goto nomem;
	if (decl)
		extra[nr++] = f->entry;
	for (i = 0; i < is.nr; i++)
		if (is.v[i].line == want)
			extra[nr++] = is.v[i].entry;
	free(is.v);
	err = line_points(d, pl, s, &f->cu, &f->die, decl_file, want, extra,
			  nr);
	free(extra);
	return err;
nomem:
	free(is.v);
	return errmsg(d, -ENOMEM, "out of memory");
}

static int resolve_func_line(struct dbg *d, const struct spec *s,
			     struct func *fv, size_t nf,
			     struct point_list *pl)
{
	struct line_set ls = { 0 };
	const char *decl_file = NULL;
	int decl_line = 0, err = 0, want = 0;
	size_t i, j;

	for (i = 0; i < nf; i++) {
		struct func *f = &fv[i];

		if (!f->has_die)
			continue;
		decl_file = dwarf_decl_file(&f->die);
		if (!decl_file || dwarf_decl_line(&f->die, &decl_line))
			continue;
		want = decl_line + s->line;
		err = func_line_points(d, pl, s, f, decl_file, want, !s->line);
		if (err)
			return err;
	}
	if (pl->nr)
		return 0;
	if (!decl_file)
		return no_dwarf(d);
	/* Say what the lines are, for the last definition looked at. */
	for (i = nf; i-- > 0 && !fv[i].has_die;)
		;
	err = func_lines(d, &fv[i], decl_file, decl_line, &ls);
	if (err) {
		free(ls.v);
		return err;
	}
	if (!ls.nr)
		err = errmsg(d, -ENOENT, "%s has no lines with code in %s",
			     s->name, d->path);
	else if (want < ls.min || want > ls.max)
		err = errmsg(d, -ENOENT, "no line %ld in %s (lines %d-%d)",
			     s->line, s->name, ls.min - decl_line,
			     ls.max - decl_line);
	else {
		for (j = 0; j < ls.nr && ls.v[j] < want; j++)
			;
		if (!j || ls.v[j] == want)
			err = errmsg(d, -ENOENT, "found no code for %s:%ld",
				     s->name, s->line);
		else
			err = errmsg(d, -ENOENT,
				     "%s:%ld (%s:%d) has no code; the nearest lines with code are %s:%d and %s:%d",
				     s->name, s->line, base_name(decl_file),
				     want, s->name, ls.v[j - 1] - decl_line,
				     s->name, ls.v[j] - decl_line);
	}
	free(ls.v);
	return err;
}

static int resolve_src_line(struct dbg *d, const struct spec *s,
			    struct point_list *pl)
{
	Dwarf_Off off = 0, next, cu_off;
	int below = 0, above = INT_MAX;
	const char *seen = NULL;
	char seen_buf[PATH_MAX];
	size_t hsize;
	int err;

	while (!dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Lines *lines;
		Dwarf_Die cu;
		size_t i, n;
		struct row r;

		cu_off = off + hsize;
		off = next;
		if (!dwarf_offdie(d->dw, cu_off, &cu) ||
		    dwarf_getsrclines(&cu, &lines, &n))
			continue;
		for (i = 0; i < n; i++) {
			if (!get_row(lines, i, &r) || !r.stmt ||
			    !src_matches(r.file, s->name))
				continue;
			if (!seen) {
				snprintf(seen_buf, sizeof(seen_buf), "%s",
					 r.file);
				seen = seen_buf;
			}
			if (r.line < s->line && r.line > below)
				below = r.line;
			if (r.line > s->line && r.line < above)
				above = r.line;
		}
		err = line_points(d, pl, s, &cu, NULL, s->name, s->line, NULL,
				  0);
		if (err)
			return err;
	}
	if (pl->nr)
		return 0;
	if (!seen)
		return errmsg(d, -ENOENT, "no source file %s in %s's debuginfo",
			      s->name, d->path);
	if (!below && above == INT_MAX)
		return errmsg(d, -ENOENT, "%s has no lines with code", s->name);
	if (!below)
		return errmsg(d, -ENOENT,
			      "%s has no line %ld with code; the first is %s:%d",
			      s->name, s->line, s->name, above);
	if (above == INT_MAX)
		return errmsg(d, -ENOENT,
			      "%s has no line %ld with code; the last is %s:%d",
			      s->name, s->line, s->name, below);
	return errmsg(d, -ENOENT,
		      "%s has no line %ld with code; try %s:%d or %s:%d",
		      s->name, s->line, s->name, below, s->name, above);
}

static int resolve_func(struct dbg *d, const struct spec *s, struct func *fv,
			size_t nf, struct point_list *pl)
{
	size_t i;
	int err;

	for (i = 0; i < nf; i++) {
		struct func *f = &fv[i];
		uint64_t addr = f->entry;

		/* An inlined copy has no return, nor bytes of its own. */
		if (f->inlined && s->kind != SPEC_FUNC)
			continue;
		if (s->kind == SPEC_FUNC_OFF) {
			if (f->size && s->off >= f->size)
				return errmsg(d, -ENOENT,
					      "offset %" PRIu64 " is past the end of %s (%" PRIu64 " bytes)",
					      s->off, s->name, f->size);
			addr += s->off;
		}
		err = add_point(d, pl, s, addr, NULL, 0);
		if (err)
			return err;
	}
	if (!pl->nr)
		return errmsg(d, -ENOENT,
			      "%s is inlined everywhere in %s: no return or offset to probe; probe FUNC or FUNC:RLN",
			      s->name, d->path);
	return 0;
}

void probe__free_points(struct probe_point *points, size_t nr)
{
	size_t i;

	for (i = 0; points && i < nr; i++) {
		free(points[i].event);
		free(points[i].group);
		free(points[i].func);
		free(points[i].file);
	}
	free(points);
}

int probe__resolve(const char *path, bool kernel, const char *spec,
		   struct probe_point **points, size_t *nr,
		   char *errbuf, size_t errlen)
{
	struct point_list pl = { 0 };
	struct func *fv = NULL;
	size_t nf = 0;
	struct spec s;
	struct dbg d;
	int err;

	*points = NULL;
	*nr = 0;
	err = dbg_open(&d, path, kernel, errbuf, errlen);
	if (err)
		return err;
	err = parse_spec(&d, spec, &s);
	if (err)
		goto out;
	if (s.kind == SPEC_SRC_LINE) {
		err = d.dw ? resolve_src_line(&d, &s, &pl) : no_dwarf(&d);
		goto out;
	}
	if (s.kind == SPEC_FUNC_LINE && !d.dw) {
		err = no_dwarf(&d);
		goto out;
	}
	err = find_funcs(&d, s.name, false, &fv, &nf);
	if (err)
		goto out;
	if (s.kind == SPEC_FUNC_LINE)
		err = resolve_func_line(&d, &s, fv, nf, &pl);
	else
		err = resolve_func(&d, &s, fv, nf, &pl);
out:
	free_funcs(fv, nf);
	spec_free(&s);
	dbg_close(&d);
	if (err) {
		probe__free_points(pl.v, pl.nr);
		return err;
	}
	*points = pl.v;
	*nr = pl.nr;
	return 0;
}

/* ---- perf probe -L ---- */

static int print_lines(struct dbg *d, const char *func, const char *src,
		       int decl_line, const struct line_set *ls, FILE *out)
{
	FILE *fp = fopen(src, "r");
	char *buf = NULL;
	size_t cap = 0, j = 0;
	int l, err = 0;
	ssize_t len;

	if (!fp)
		return errmsg(d, -ENOENT,
			      "source of %s not found: %s: %s", func, src,
			      strerror(errno));
	fprintf(out, "<%s@%s:%d>\n", func, src, 0);
	for (l = 1; l <= ls->max + LINES_AFTER; l++) {
		len = getline(&buf, &cap, fp);
		if (len < 0) {
			if (l <= ls->max)
				err = errmsg(d, -ENOENT,
					     "%s has %d lines, but the debuginfo of %s puts code at line %d: not the source it was built from?",
					     src, l - 1, func, ls->max);
			break;
		}
		if (l < decl_line)
			continue;
		if (j < ls->nr && ls->v[j] == l) {
			fprintf(out, "%7d  ", l - decl_line);
			j++;
		} else {
			fputs("         ", out);
		}
		fwrite(buf, 1, len, out);
	}
	free(buf);
	fclose(fp);
	if (!err && ferror(out))
		err = errmsg(d, -EIO, "error writing the lines of %s", func);
	return err;
}

int probe__lines(const char *path, bool kernel, const char *func, FILE *out,
		 char *errbuf, size_t errlen)
{
	struct line_set ls = { 0 }, one;
	struct func *fv = NULL, *f = NULL;
	const char *decl_file;
	char *src = NULL;
	int decl_line, err;
	size_t nf = 0, i, j;
	struct dbg d;

	err = dbg_open(&d, path, kernel, errbuf, errlen);
	if (err)
		return err;
	if (!is_ident(func)) {
		err = errmsg(&d, -EINVAL, "'%s' is not a function name", func);
		goto out;
	}
	if (!d.dw) {
		err = no_dwarf(&d);
		goto out;
	}
	err = find_funcs(&d, func, true, &fv, &nf);
	if (err)
		goto out;
	/*
	 * As perf, the first definition found, with all its copies (static
	 * functions of one name in several files: the first file's).
	 */
	f = &fv[0];
	decl_file = dwarf_decl_file(&f->die);
	if (!decl_file || dwarf_decl_line(&f->die, &decl_line)) {
		err = errmsg(&d, -ENODATA, "%s: no source position for %s",
			     path, func);
		goto out;
	}
	for (i = 0; i < nf && !err; i++) {
		if (fv[i].root != f->root)
			continue;
		err = func_lines(&d, &fv[i], decl_file, decl_line, &one);
		for (j = 0; j < one.nr && !err; j++)
			if (line_set_add(&ls, one.v[j]))
				err = errmsg(&d, -ENOMEM, "out of memory");
		free(one.v);
	}
	if (err)
		goto out;
	if (!ls.nr) {
		err = errmsg(&d, -ENOENT, "%s has no lines with code in %s",
			     func, path);
		goto out;
	}
	src = source_path(&f->cu, decl_file);
	if (!src) {
		err = errmsg(&d, -ENOMEM, "out of memory");
		goto out;
	}
	err = print_lines(&d, func, src, decl_line, &ls, out);
out:
	free(src);
	free(ls.v);
	free_funcs(fv, nf);
	dbg_close(&d);
	return err;
}

/* ---- the running kernel's vmlinux ---- */

static const char *const vmlinux_fmt[] = {
	"/usr/lib/debug/boot/vmlinux-%s",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
	"/lib/modules/%s/build/vmlinux",
	"/boot/vmlinux-%s",
};

int probe__vmlinux_path(unsigned int i, char *buf, size_t len)
{
	struct utsname u;

	if (i >= ARRAY_SIZE(vmlinux_fmt))
		return -ENOENT;
	if (uname(&u))
		return -errno;
	snprintf(buf, len, vmlinux_fmt[i], u.release);
	return 0;
}

char *probe__find_vmlinux(void)
{
	char buf[PATH_MAX];
	unsigned int i;

	for (i = 0; !probe__vmlinux_path(i, buf, sizeof(buf)); i++) {
		Elf *elf;
		bool ok;
		int fd;

		if (elf__open(buf, &fd, &elf))
			continue;
		ok = has_debug_info(elf);
		elf__close(fd, elf);
		if (ok)
			return strdup(buf);
	}
	return NULL;
}
