// SPDX-License-Identifier: GPL-2.0
/*
 * User-space ELF symbols the way perf 6.1's dso__load() finds them: the
 * first candidate image with a .symtab gives the names, the first with a
 * .dynsym is the runtime image whose PT_LOAD headers turn symbol values
 * into file offsets. Images whose build id differs from the dso's are
 * refused, as perf refuses them.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym-internal.h"
#include "util.h"

struct image {
	int fd;
	Elf *elf;
	bool has_symtab, has_dynsym;
};

static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

/* Symbols may be loaded on a thread of their own (machine.c): once. */
static void elf_init_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, elf_init);
}

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int note_build_id(Elf_Data *data, uint8_t *bid, size_t size)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(name, "GNU", 4)) {
			size_t n = nh.n_descsz < size ? nh.n_descsz : size;

			memcpy(bid, (const char *)data->d_buf + desc_off, n);
			return n;
		}
	}
	return 0;
}

static int elf_build_id(Elf *elf, uint8_t *bid, size_t size)
{
	Elf_Scn *scn = NULL;
	size_t i, n;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && (ret = note_build_id(d, bid, size)) > 0)
			return ret;
	}
	/* Section headers may be gone (the vdso keeps them; others not). */
	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		if (d && (ret = note_build_id(d, bid, size)) > 0)
			return ret;
	}
	return 0;
}

int elf__build_id(struct Elf *elf, uint8_t *bid, size_t size)
{
	return elf_build_id(elf, bid, size);
}

/*
 * The paths of a recording's DSOs (and their debug files) are its MMAP
 * events' names: by the time of the report, anyone may have put a FIFO
 * or a device there. Open without waiting and read regular files only
 * (not their owner: binaries are anyone's, and a build-id checks them).
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -ENOEXEC;	/* as for any file that is not ELF */
	else
		return fd;
	close(fd);
	return err;
}

int elf__read_build_id(const char *path, uint8_t *bid, size_t size)
{
	Elf *elf;
	int fd, ret;

	elf_init_once();
	fd = open_regular(path);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -EINVAL;
	} else {
		ret = elf_build_id(elf, bid, size);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

static Elf_Scn *find_section(Elf *elf, uint32_t type, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (n && !strcmp(n, name)))
			return scn;
	}
	return NULL;
}

/* Takes fd (may be -1 for memory images); fills img or returns -errno. */
static int image_init(struct image *img, int fd, Elf *elf,
		      const uint8_t *bid, size_t bid_size)
{
	img->fd = fd;
	img->elf = elf;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto fail;
	if (bid_size) {
		uint8_t got[BUILD_ID_MAX];
		int n = elf_build_id(elf, got, sizeof(got));

		if (n <= 0 || !sym_bid_equal(bid, bid_size, got, n))
			goto fail;
	}
	img->has_symtab = find_section(elf, SHT_SYMTAB, ".symtab");
	img->has_dynsym = find_section(elf, SHT_DYNSYM, ".dynsym");
	return 0;
fail:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	img->elf = NULL;
	img->fd = -1;
	return -ENOENT;
}

int elf__open(const char *path, int *fd, Elf **elf)
{
	elf_init_once();
	*elf = NULL;
	*fd = open_regular(path);
	if (*fd < 0) {
		int err = *fd;

		*fd = -1;
		return err;
	}
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		elf__close(*fd, *elf);
		*fd = -1;
		*elf = NULL;
		return -ENOEXEC;
	}
	return 0;
}

void elf__close(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

bool elf__has_section(Elf *elf, uint32_t type, const char *name)
{
	return find_section(elf, type, name) != NULL;
}

static int image_open(struct image *img, const char *path,
		      const uint8_t *bid, size_t bid_size)
{
	Elf *elf;
	int fd, err;

	if (!is_regular(path))
		return -ENOENT;
	err = elf__open(path, &fd, &elf);
	if (err == -ENOEXEC)
		return -ENOENT;
	if (err)
		return err;
	return image_init(img, fd, elf, bid, bid_size);
}

static void image_close(struct image *img)
{
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	img->elf = NULL;
	img->fd = -1;
}

/* The PT_LOAD holding vaddr, as perf's elf_read_program_header(). */
static int load_segment(Elf *elf, uint64_t vaddr, GElf_Phdr *ph)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t sz;

		if (!gelf_getphdr(elf, i, ph))
			return -1;
		if (ph->p_type != PT_LOAD)
			continue;
		sz = ph->p_memsz > ph->p_filesz ? ph->p_memsz : ph->p_filesz;
		if (sz && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + sz)
			return 0;
	}
	return -1;
}

/*
 * load_segment() for every symbol of a table reads the program headers
 * again each time: keep the PT_LOADs of one image instead (when they
 * could all be read and are few, as always; else ok is false and
 * load_segment() answers).
 */
#define MAX_LOADS 32

struct loads {
	GElf_Phdr ph[MAX_LOADS];
	size_t n;
	bool ok;
};

static void loads_read(Elf *elf, struct loads *l)
{
	size_t i, n;
	GElf_Phdr ph;

	l->n = 0;
	l->ok = false;
	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return;
		if (ph.p_type != PT_LOAD)
			continue;
		if (l->n == MAX_LOADS)
			return;
		l->ph[l->n++] = ph;
	}
	l->ok = true;
}

static int loads_find(Elf *elf, const struct loads *l, uint64_t vaddr,
		      GElf_Phdr *ph)
{
	size_t i;

	if (!l->ok)
		return load_segment(elf, vaddr, ph);
	for (i = 0; i < l->n; i++) {
		const GElf_Phdr *p = &l->ph[i];
		uint64_t sz = p->p_memsz > p->p_filesz ? p->p_memsz :
			      p->p_filesz;

		if (sz && vaddr >= p->p_vaddr && vaddr < p->p_vaddr + sz) {
			*ph = *p;
			return 0;
		}
	}
	return -1;
}

bool elf__sym_wanted(const GElf_Sym *s, bool *is_label)
{
	int type = GELF_ST_TYPE(s->st_info);
	int vis = GELF_ST_VISIBILITY(s->st_other);

	*is_label = false;
	if (!s->st_name || s->st_shndx == SHN_UNDEF)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	if (type == STT_NOTYPE && s->st_shndx != SHN_ABS &&
	    vis != STV_HIDDEN && vis != STV_INTERNAL) {
		*is_label = true;
		return true;
	}
	return false;
}

enum sym_bind elf__sym_bind(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return SYM_GLOBAL;
	case STB_WEAK:
		return SYM_WEAK;
	default:
		return SYM_LOCAL;
	}
}

/*
 * What a symbol's section lets through, worked out once per section
 * rather than once per symbol.
 */
enum sec_verdict {
	SEC_UNKNOWN,
	SEC_SKIP,	/* no such section, or not loaded at run time */
	SEC_DATA,	/* symbols kept, labels not */
	SEC_TEXT,	/* a code section: labels kept too */
};

static enum sec_verdict sec_verdict(struct image *syms, struct image *runtime,
				    size_t shstr_syms, size_t shstr_run,
				    size_t shndx)
{
	size_t shstr = shstr_syms;
	Elf *secelf = syms->elf;
	const char *secname;
	GElf_Shdr ssh;
	Elf_Scn *sec;

	sec = elf_getscn(syms->elf, shndx);
	if (!sec || !gelf_getshdr(sec, &ssh))
		return SEC_SKIP;
	/* Not loaded at run time (e.g. .gnu.warning.*). */
	if (!(ssh.sh_flags & SHF_ALLOC))
		return SEC_SKIP;
	/* Debug files keep sections as NOBITS: ask the runtime. */
	if (ssh.sh_type == SHT_NOBITS) {
		sec = elf_getscn(runtime->elf, shndx);
		if (!sec || !gelf_getshdr(sec, &ssh))
			return SEC_SKIP;
		shstr = shstr_run;
		secelf = runtime->elf;
	}
	/* Labels count only in code sections, as perf filters them. */
	secname = elf_strptr(secelf, shstr, ssh.sh_name);
	return secname && strstr(secname, "text") ? SEC_TEXT : SEC_DATA;
}

/*
 * The symbol table's string table, to read names without elf_strptr()
 * for each: only a plain one-piece SHT_STRTAB, where reading it directly
 * gives what elf_strptr() gives (NULL where no NUL ends the name in the
 * section); else NULL and elf_strptr() answers.
 */
static Elf_Data *plain_strtab(Elf *elf, size_t idx)
{
	Elf_Scn *scn = elf_getscn(elf, idx);
	Elf_Data *d;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    (sh.sh_flags & SHF_COMPRESSED))
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_off || d->d_size != sh.sh_size ||
	    elf_getdata(scn, d))
		return NULL;
	return d;
}

static const char *sym_name(Elf *elf, size_t idx, const Elf_Data *strs,
			    size_t off)
{
	const char *p;

	if (!strs)
		return elf_strptr(elf, idx, off);
	if (off >= strs->d_size)
		return NULL;
	p = (const char *)strs->d_buf + off;
	return memchr(p, '\0', strs->d_size - off) ? p : NULL;
}

static int load_syms(struct symtab *t, struct image *syms,
		     struct image *runtime, struct strpool *sp)
{
	size_t shstr_syms, shstr_run, i, n, nsecs;
	Elf_Data *data, *strs;
	Elf_Scn *scn = NULL;
	struct loads loads;
	uint8_t *verdicts;
	GElf_Shdr sh;
	int err = 0;

	if (syms->has_symtab)
		scn = find_section(syms->elf, SHT_SYMTAB, ".symtab");
	if (!scn)
		scn = find_section(syms->elf, SHT_DYNSYM, ".dynsym");
	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	if (elf_getshdrstrndx(syms->elf, &shstr_syms) ||
	    elf_getshdrstrndx(runtime->elf, &shstr_run) ||
	    elf_getshdrnum(syms->elf, &nsecs))
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	/* At most SHN_LORESERVE: symbols of higher indexes are skipped. */
	if (nsecs > SHN_LORESERVE)
		nsecs = SHN_LORESERVE;
	verdicts = calloc(nsecs ? nsecs : 1, 1);
	if (!verdicts)
		return -ENOMEM;
	strs = plain_strtab(syms->elf, sh.sh_link);
	loads_read(runtime->elf, &loads);
	for (i = 0; i < n && !err; i++) {
		const char *name;
		GElf_Phdr ph;
		GElf_Sym s;
		bool label;
		uint8_t *v;

		if (!gelf_getsym(data, i, &s) || !elf__sym_wanted(&s, &label))
			continue;
		if (s.st_shndx >= nsecs)
			continue;
		v = &verdicts[s.st_shndx];
		if (*v == SEC_UNKNOWN)
			*v = sec_verdict(syms, runtime, shstr_syms, shstr_run,
					 s.st_shndx);
		if (*v == SEC_SKIP || (label && *v != SEC_TEXT))
			continue;
		if (loads_find(runtime->elf, &loads, s.st_value, &ph))
			continue;
		s.st_value -= ph.p_vaddr - ph.p_offset;
		name = sym_name(syms->elf, sh.sh_link, strs, s.st_name);
		if (!name)
			continue;
		err = symtab__push_raw(t, s.st_value, s.st_size, name,
				       elf__sym_bind(&s), SYM_RAW, sp);
	}
	free(verdicts);
	return err;
}

/*
 * perf 6.1's dso__synthesize_plt_symbols(): one "name@plt" per .rela.plt
 * (or .rel.plt) entry, laid out after the .plt header in the runtime
 * image. perf inserts them after the fix-ups, so a zero-sized symbol
 * stretched across the .plt (such as _init) still overlaps them: which
 * one a lookup gives is settled by symtab__finish_elf().
 */
static int synth_plt(struct symtab *t, struct image *rt, struct strpool *sp)
{
	Elf_Scn *dynsym, *rel, *plt;
	GElf_Shdr dsh, rsh, psh;
	Elf_Data *rdata, *sdata;
	uint64_t off, hdr, ent;
	size_t i, n;
	GElf_Ehdr eh;

	dynsym = find_section(rt->elf, SHT_DYNSYM, ".dynsym");
	rel = find_section(rt->elf, SHT_RELA, ".rela.plt");
	if (!rel)
		rel = find_section(rt->elf, SHT_REL, ".rel.plt");
	plt = find_section(rt->elf, SHT_PROGBITS, ".plt");
	if (!dynsym || !rel || !plt || !gelf_getehdr(rt->elf, &eh) ||
	    !gelf_getshdr(dynsym, &dsh) || !gelf_getshdr(rel, &rsh) ||
	    !gelf_getshdr(plt, &psh) || !rsh.sh_entsize ||
	    rsh.sh_link != elf_ndxscn(dynsym))
		return 0;
	switch (eh.e_machine) {
	case EM_ARM:
		hdr = 20;
		ent = 12;
		break;
	case EM_AARCH64:
		hdr = 32;
		ent = 16;
		break;
	default:
		hdr = ent = psh.sh_entsize;
		break;
	}
	rdata = elf_getdata(rel, NULL);
	sdata = elf_getdata(dynsym, NULL);
	if (!rdata || !sdata)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	off = psh.sh_offset + hdr;
	for (i = 0; i < n; i++, off += ent) {
		const char *name;
		uint64_t info;
		GElf_Sym s;

		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(rdata, i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rdata, i, &r))
				break;
			info = r.r_info;
		}
		if (!gelf_getsym(sdata, GELF_R_SYM(info), &s))
			continue;
		name = elf_strptr(rt->elf, dsh.sh_link, s.st_name);
		if (symtab__push_raw(t, off, ent, name ? name : "", SYM_GLOBAL,
				     SYM_RAW_PLT, sp))
			return -ENOMEM;
	}
	return 0;
}

static int read_debuglink(const char *path, char *out, size_t size)
{
	struct image img = { .fd = -1 };
	Elf_Data *d;
	Elf_Scn *scn;
	int ret = -ENOENT;

	if (image_open(&img, path, NULL, 0))
		return -ENOENT;
	scn = find_section(img.elf, SHT_PROGBITS, ".gnu_debuglink");
	if (scn && (d = elf_getdata(scn, NULL)) && d->d_size) {
		size_t n = strnlen(d->d_buf, d->d_size);

		if (n && n < size) {
			memcpy(out, d->d_buf, n);
			out[n] = '\0';
			ret = 0;
		}
	}
	image_close(&img);
	return ret;
}

/* Every candidate path spells the build id: sprintf() per byte showed. */
static void hex(char *out, const uint8_t *bid, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[bid[i] >> 4];
		out[2 * i + 1] = digits[bid[i] & 0xf];
	}
	out[2 * n] = '\0';
}

int elf__build_id_cache_path(char *out, size_t size, const uint8_t *bid,
			     size_t bid_size, const char *base)
{
	char bidhex[2 * BUILD_ID_MAX + 1];
	const char *home = getenv("HOME");

	if (!bid_size || bid_size > BUILD_ID_MAX || !home)
		return -ENOENT;
	hex(bidhex, bid, bid_size);
	snprintf(out, size, "%s/.debug/.build-id/%.2s/%s/%s", home, bidhex,
		 bidhex + 2, base);
	return 0;
}

int elf__build_id_debug_path(char *out, size_t size, const uint8_t *bid,
			     size_t bid_size)
{
	/* Not only perf's 20 bytes: a linker may write longer ones. */
	char bidhex[2 * ELF_BUILD_ID_LONGEST + 1];

	if (!bid_size || bid_size > ELF_BUILD_ID_LONGEST)
		return -ENOENT;
	hex(bidhex, bid, bid_size);
	snprintf(out, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", bidhex,
		 bidhex + 2);
	return 0;
}

int elf__debuglink_path(char *out, size_t size, const char *dir,
			const char *link, int k)
{
	static const char * const fmt[] = {
		"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s",
	};
	int n;

	if (k < 0 || k >= ELF_DEBUGLINK_PLACES)
		return -EINVAL;
	n = snprintf(out, size, fmt[k], dir, link);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * What the candidates of one file are made of; its .gnu_debuglink is
 * read once for the four places perf looks for it (each read opened and
 * mapped the image, and unmapping it stops the other CPU for a TLB
 * flush).
 */
struct candidates {
	const char *path;
	const uint8_t *bid;
	size_t bid_size;
	int link_err;		/* 1: not read yet */
	char link[PATH_MAX];
};

/* Candidate images in perf 6.1's binary_type_symtab order. */
static int next_candidate(int k, struct candidates *c, char *out,
			  size_t size)
{
	const char *path = c->path, *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 0,
		 path);
	switch (k) {
	case 0: case 1: case 2: case 3:	/* DEBUGLINK */
		if (c->link_err == 1)
			c->link_err = !is_regular(path) ? -ENOENT :
				      read_debuglink(path, c->link,
						     sizeof(c->link));
		if (c->link_err)
			return -1;
		/* perf tries the name alone first, from where it runs */
		if (!k)
			snprintf(out, size, "%s", c->link);
		else
			elf__debuglink_path(out, size, dir, c->link, k - 1);
		return 0;
	case 4:				/* BUILD_ID_CACHE */
	case 5:				/* BUILD_ID_CACHE_DEBUGINFO */
		if (elf__build_id_cache_path(out, size, c->bid, c->bid_size,
					     k == 4 ? "elf" : "debug"))
			return -1;
		return 0;
	case 6:				/* FEDORA_DEBUGINFO */
		snprintf(out, size, "/usr/lib/debug%s.debug", path);
		return 0;
	case 7:				/* UBUNTU_DEBUGINFO */
		snprintf(out, size, "/usr/lib/debug%s", path);
		return 0;
	case 8:				/* BUILDID_DEBUGINFO */
		return elf__build_id_debug_path(out, size, c->bid,
						c->bid_size) ? -1 : 0;
	case 9:				/* SYSTEM_PATH_DSO */
		snprintf(out, size, "%s", path);
		return 0;
	}
	return -2;
}

int elf__load_dso(struct symtab *t, const char *path, const uint8_t *bid,
		  size_t bid_size, struct strpool *sp)
{
	struct image imgs[2] = { { .fd = -1 }, { .fd = -1 } };
	struct image *syms = NULL, *runtime = NULL;
	struct candidates c = { .path = path, .link_err = 1 };
	uint8_t own[BUILD_ID_MAX];
	char cand[PATH_MAX];
	int k, r, nimg = 0, err = 0;
	size_t nr_syms;

	elf_init_once();
	/* perf reads the build id from the file when none was recorded. */
	if (!bid_size && is_regular(path)) {
		r = elf__read_build_id(path, own, sizeof(own));
		if (r > 0) {
			bid = own;
			bid_size = r;
		}
	}
	c.bid = bid;
	c.bid_size = bid_size;
	for (k = 0; nimg < 2; k++) {
		struct image *img = &imgs[nimg];
		bool used = false;

		r = next_candidate(k, &c, cand, sizeof(cand));
		if (r == -2)
			break;
		if (r || image_open(img, cand, bid, bid_size))
			continue;
		if (!syms && img->has_symtab) {
			syms = img;
			used = true;
		}
		if (!runtime && img->has_dynsym) {
			runtime = img;
			used = true;
		}
		if (used) {
			nimg++;
			if (syms && runtime)
				break;
		} else {
			image_close(img);
		}
	}
	if (!syms)
		syms = runtime;
	if (!runtime)
		runtime = syms;
	if (syms)
		err = load_syms(t, syms, runtime, sp);
	else
		err = -ENOENT;
	nr_syms = t->nr;
	if (!err && nr_syms)
		err = synth_plt(t, runtime, sp);
	if (!err)
		err = symtab__finish_elf(t, nr_syms);
	image_close(&imgs[0]);
	image_close(&imgs[1]);
	return err;
}

int elf__load_mem(struct symtab *t, const void *image, size_t size,
		  const uint8_t *bid, size_t bid_size, struct strpool *sp)
{
	struct image img;
	Elf *elf;
	int err;

	elf_init_once();
	elf = elf_memory((char *)image, size);
	if (image_init(&img, -1, elf, bid, bid_size))
		return -ENOENT;
	err = load_syms(t, &img, &img, sp);
	if (!err)
		err = symtab__finish_elf(t, t->nr);
	image_close(&img);
	return err;
}
