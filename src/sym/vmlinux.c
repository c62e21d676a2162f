// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from an uncompressed vmlinux, kept the way perf 6.1's
 * dso__load_vmlinux() -> dso__load_sym() keeps them for `perf script -k`:
 *
 *  - functions and objects of the .symtab, and visible NOTYPE labels in
 *    sections named like text or data, each sized by st_size (kallsyms
 *    has no sizes, so there every symbol reaches the next one);
 *  - the kernel map shrinks to .text; every other allocated section that
 *    holds a symbol gets a map and dso of its own, named
 *    "[kernel.kallsyms]" followed by the section name;
 *  - only the .text table gets perf's end and alias fix-ups;
 *  - an image whose build id differs from the recorded one is refused.
 *
 * Addresses stay file addresses: the machine relocates them with the same
 * ref_reloc_sym delta as kallsyms, so _text and _stext are noted from any
 * symbol of that name, as perf's first pass over the table does.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym-internal.h"
#include "util.h"

#define KERNEL_DSO "[kernel.kallsyms]"

#define SEC_NONE	(-2)	/* no symbol placed yet */
#define SEC_TEXT	(-1)	/* the kernel map itself */

struct secinfo {
	const char *name;
	uint64_t addr, size;
	bool alloc;
	bool label_ok;		/* perf's elf_sec__filter() */
	int tab;		/* SEC_TEXT, SEC_NONE or an index in secs */
};

static struct secinfo *read_sections(Elf *elf, size_t *nr)
{
	struct secinfo *si;
	size_t shnum, shstrndx, i;

	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	si = calloc(shnum ? shnum : 1, sizeof(*si));
	if (!si)
		return NULL;
	for (i = 0; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		const char *n;

		si[i].tab = SEC_NONE;
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		si[i].name = n ? n : "";
		si[i].addr = sh.sh_addr;
		si[i].size = sh.sh_size;
		si[i].alloc = sh.sh_flags & SHF_ALLOC;
		si[i].label_ok = strstr(si[i].name, "text") ||
				 strstr(si[i].name, "data");
		if (!strcmp(si[i].name, ".text"))
			si[i].tab = SEC_TEXT;
	}
	*nr = shnum;
	return si;
}

/* The table of a non-.text section, made on its first symbol. */
static struct symtab *section_table(struct ksyms *ks, struct secinfo *si,
				    struct strpool *sp)
{
	char name[512];
	struct ksection *v, *s;
	const char *dso;
	size_t i;
	int n;

	if (si->tab >= 0)
		return &ks->secs[si->tab].syms;
	n = snprintf(name, sizeof(name), KERNEL_DSO "%s", si->name);
	if (n >= (int)sizeof(name))
		n = sizeof(name) - 1;
	dso = sym_intern(sp, name, n);
	if (!dso)
		return NULL;
	/* perf finds section maps by name: same-named sections share. */
	for (i = 0; i < ks->nr_secs; i++) {
		if (ks->secs[i].dso_name == dso) {
			si->tab = i;
			return &ks->secs[i].syms;
		}
	}
	v = realloc(ks->secs, (ks->nr_secs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	ks->secs = v;
	s = &v[ks->nr_secs];
	memset(s, 0, sizeof(*s));
	s->dso_name = dso;
	s->start = si->addr;
	s->end = si->addr + si->size;
	si->tab = ks->nr_secs++;
	return &s->syms;
}

/* ARM "mapping symbols" ($a, $d, $t, $x...) name no function. */
static bool arm_mapping_symbol(const GElf_Ehdr *eh, const char *name)
{
	if (eh->e_machine != EM_ARM && eh->e_machine != EM_AARCH64)
		return false;
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.');
}

static void note_ref(struct ksyms *ks, const char *name, uint64_t value)
{
	if (!ks->has_text && !strcmp(name, "_text")) {
		ks->text = value;
		ks->has_text = true;
	}
	if (!ks->has_stext && !strcmp(name, "_stext")) {
		ks->stext = value;
		ks->has_stext = true;
	}
}

static int load_symtab(struct ksyms *ks, Elf *elf, const GElf_Ehdr *eh,
		       Elf_Scn *symscn, struct secinfo *si, size_t nsec,
		       struct strpool *sp)
{
	Elf_Data *data = elf_getdata(symscn, NULL);
	GElf_Shdr sh;
	size_t i, n;

	if (!data || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		return -ENODATA;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		struct symtab *t;
		const char *name;
		struct secinfo *sec;
		bool label;
		GElf_Sym s;
		int err;

		if (!gelf_getsym(data, i, &s))
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name)
			continue;
		note_ref(ks, name, s.st_value);
		if (!elf__sym_wanted(&s, &label) ||
		    arm_mapping_symbol(eh, name))
			continue;
		/* ABS and other reserved indexes name no section. */
		if (s.st_shndx >= SHN_LORESERVE || s.st_shndx >= nsec)
			continue;
		sec = &si[s.st_shndx];
		/* Not loaded at run time (e.g. .gnu.warning.*). */
		if (!sec->alloc || (label && !sec->label_ok))
			continue;
		/* Thumb functions have the low bit set. */
		if (eh->e_machine == EM_ARM &&
		    GELF_ST_TYPE(s.st_info) == STT_FUNC)
			s.st_value &= ~1ULL;
		if (sec->tab == SEC_TEXT)
			t = &ks->kernel;
		else
			t = section_table(ks, sec, sp);
		if (!t)
			return -ENOMEM;
		name = sym_intern(sp, name, strlen(name));
		if (!name)
			return -ENOMEM;
		err = symtab__push(t, s.st_value, s.st_size, name,
				   elf__sym_bind(&s), false);
		if (err)
			return err;
	}
	return 0;
}

static int cmp_section(const void *a, const void *b)
{
	const struct ksection *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int load_image(struct ksyms *ks, Elf *elf, const uint8_t *bid,
		      size_t bid_size, struct strpool *sp)
{
	struct secinfo *si;
	Elf_Scn *symscn = NULL;
	size_t nsec = 0, i;
	GElf_Ehdr eh;
	int err;

	if (!gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	/* perf checks the build id before anything else (symsrc__init). */
	if (bid_size) {
		uint8_t got[BUILD_ID_MAX];
		int n = elf__build_id(elf, got, sizeof(got));

		if (n <= 0 || !sym_bid_equal(bid, bid_size, got, n))
			return -EINVAL;
	}
	si = read_sections(elf, &nsec);
	if (!si)
		return -ENOEXEC;
	for (i = 0; i < nsec; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (si[i].tab == SEC_TEXT && !ks->text_end) {
			ks->text_start = si[i].addr;
			ks->text_end = si[i].addr + si[i].size;
		}
		if (!symscn && scn && gelf_getshdr(scn, &sh) &&
		    sh.sh_type == SHT_SYMTAB && !strcmp(si[i].name, ".symtab"))
			symscn = scn;
	}
	/* Stripped: perf would fall back to kallsyms; the caller may. */
	if (!symscn) {
		err = -ENODATA;
		goto out;
	}
	err = load_symtab(ks, elf, &eh, symscn, si, nsec, sp);
	if (err)
		goto out;
	/* Any ELF has symbols; only a kernel image has these. */
	if (!ks->text_end || (!ks->has_text && !ks->has_stext)) {
		err = -ENOEXEC;
		goto out;
	}
	/* Sized kernel symbols can nest: look them up as perf would. */
	err = symtab__finish_elf(&ks->kernel, ks->kernel.nr);
	if (err)
		goto out;
	for (i = 0; i < ks->nr_secs; i++)
		symtab__sort(&ks->secs[i].syms);
	if (ks->nr_secs > 1)
		qsort(ks->secs, ks->nr_secs, sizeof(*ks->secs), cmp_section);
	if (ks->kernel.nr)
		ks->first = ks->kernel.v[0].start;
	ks->vmlinux = true;
out:
	free(si);
	return err;
}

int ksyms__load_vmlinux(struct ksyms *ks, const char *path,
			const uint8_t *bid, size_t bid_size,
			struct strpool *sp)
{
	struct stat st;
	Elf *elf;
	int fd, err;

	memset(ks, 0, sizeof(*ks));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	else
		err = load_image(ks, elf, bid, bid_size, sp);
	if (elf)
		elf_end(elf);
	close(fd);
	if (err)
		ksyms__exit(ks);
	return err;
}

int ksyms__section(const struct ksyms *ks, uint64_t addr)
{
	/* Last section starting at or below addr. */
	size_t lo = upper_bound_u64(ks->secs, ks->nr_secs, sizeof(*ks->secs),
				    offsetof(struct ksection, start), addr);

	if (lo && addr < ks->secs[lo - 1].end)
		return lo - 1;
	return -1;
}
