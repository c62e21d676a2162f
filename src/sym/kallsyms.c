// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from a /proc/kallsyms style file, kept and sized the way
 * perf 6.1's dso__load_kallsyms() does: only T, W, D and B types (either
 * case), every symbol sized up to the next one, aliases at one address
 * reduced to the one perf's choose_best_symbol() prefers, module symbols
 * split into per-module tables.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym-internal.h"
#include "util.h"

static bool keep_type(char type)
{
	type = toupper((unsigned char)type);
	return type == 'T' || type == 'W' || type == 'D' || type == 'B';
}

static bool is_function(char type)
{
	type = toupper((unsigned char)type);
	return type == 'T' || type == 'W';
}

static enum sym_bind type_bind(char type)
{
	if (type == 'W')
		return SYM_WEAK;
	return isupper((unsigned char)type) ? SYM_GLOBAL : SYM_LOCAL;
}

/* Digits as perf's hex2u64() reads them: stops at the first non-digit. */
size_t sym_parse_hex(const char *s, uint64_t *val)
{
	size_t n = 0;

	*val = 0;
	for (;; n++) {
		int c = (unsigned char)s[n], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		*val = (*val << 4) | d;
	}
	return n;
}

static int add_module_sym(struct ksyms *ks, const char *mod,
			  const struct sym_entry *e)
{
	struct kmodule_syms *m = NULL;
	size_t i;
	int err;

	/* Few modules, and their symbols come grouped: check the last. */
	if (ks->nr_mods && ks->mods[ks->nr_mods - 1].name == mod) {
		m = &ks->mods[ks->nr_mods - 1];
	} else {
		for (i = 0; i < ks->nr_mods; i++)
			if (ks->mods[i].name == mod)
				m = &ks->mods[i];
	}
	if (!m) {
		struct kmodule_syms *v;

		v = realloc(ks->mods, (ks->nr_mods + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ks->mods = v;
		m = &v[ks->nr_mods++];
		memset(m, 0, sizeof(*m));
		m->name = mod;
	}
	err = symtab__push(&m->syms, e->start, e->end - e->start, e->name,
			   e->bind, true);
	return err;
}

/*
 * Module symbols carry their module in the name until the split; keep
 * the module aside, indexed by the entry's seq.
 */
static int ksyms__load_stream(struct ksyms *ks, FILE *f, struct strpool *sp)
{
	struct symtab all = { 0 };
	const char **mods = NULL;
	size_t mods_cap = 0, i, n = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *name, *mod = NULL;
		char *tab, type;
		uint64_t addr;
		size_t hl;

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		hl = sym_parse_hex(line, &addr);
		if (!hl || line[hl] != ' ' || !line[hl + 1] ||
		    line[hl + 2] != ' ')
			continue;
		type = line[hl + 1];
		name = line + hl + 3;
		if (is_function(type)) {
			if (!ks->has_text && !strcmp(name, "_text")) {
				ks->text = addr;
				ks->has_text = true;
			}
			if (!ks->has_stext && !strcmp(name, "_stext")) {
				ks->stext = addr;
				ks->has_stext = true;
			}
		}
		if (!keep_type(type) || name[0] == '$' || !name[0])
			continue;
		tab = strchr(name, '\t');
		if (tab) {
			char *mb = tab + 1, *me;

			*tab = '\0';
			me = mb + strlen(mb);
			while (me > mb && isspace((unsigned char)me[-1]))
				*--me = '\0';
			mod = sym_intern(sp, mb, me - mb);
			if (!mod) {
				err = -ENOMEM;
				break;
			}
		}
		name = sym_intern(sp, name, strlen(name));
		if (!name) {
			err = -ENOMEM;
			break;
		}
		if (n == mods_cap) {
			size_t nc = mods_cap ? mods_cap * 2 : 4096;
			const char **v = realloc(mods, nc * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			mods = v;
			mods_cap = nc;
		}
		mods[n++] = mod;
		/* perf's test for a module symbol is a '[' in the name. */
		err = symtab__push(&all, addr, 0, name, type_bind(type),
				   mod && strchr(mod, '['));
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (err)
		goto out;

	symtab__finish(&all, true);
	for (i = 0; i < all.nr && !err; i++) {
		const struct sym_entry *e = &all.v[i];

		if (e->module)
			err = add_module_sym(ks, mods[e->seq], e);
		else
			err = symtab__push(&ks->kernel, e->start,
					   e->end - e->start, e->name, e->bind,
					   false);
	}
	if (!err) {
		/* Both are already in order; only seq needs no care. */
		if (ks->kernel.nr)
			ks->first = ks->kernel.v[0].start;
		if (!all.nr)
			err = -ENOENT;
	}
out:
	free(mods);
	symtab__exit(&all);
	if (err)
		ksyms__exit(ks);
	return err;
}

int ksyms__load(struct ksyms *ks, const char *path, struct strpool *sp)
{
	FILE *f;
	int err;

	memset(ks, 0, sizeof(*ks));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = ksyms__load_stream(ks, f, sp);
	fclose(f);
	return err;
}

/*
 * The same text held in memory (the kallsyms a recording embedded in its
 * TRACING_DATA): read through a memory stream so both parse alike.
 */
int ksyms__load_buf(struct ksyms *ks, const char *text, size_t len,
		    struct strpool *sp)
{
	FILE *f;
	int err;

	memset(ks, 0, sizeof(*ks));
	/* fmemopen() refuses a zero size; an empty file has no symbols */
	if (!len)
		return -ENOENT;
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	err = ksyms__load_stream(ks, f, sp);
	fclose(f);
	return err;
}

void ksyms__exit(struct ksyms *ks)
{
	size_t i;

	symtab__exit(&ks->kernel);
	for (i = 0; i < ks->nr_mods; i++)
		symtab__exit(&ks->mods[i].syms);
	free(ks->mods);
	for (i = 0; i < ks->nr_secs; i++)
		symtab__exit(&ks->secs[i].syms);
	free(ks->secs);
	memset(ks, 0, sizeof(*ks));
}

int ksyms__ref_addr(const struct ksyms *ks, const char *name, uint64_t *addr)
{
	size_t i;

	if (!strcmp(name, "_text") && ks->has_text) {
		*addr = ks->text;
		return 0;
	}
	if (!strcmp(name, "_stext") && ks->has_stext) {
		*addr = ks->stext;
		return 0;
	}
	for (i = 0; i < ks->kernel.nr; i++) {
		if (!strcmp(ks->kernel.v[i].name, name)) {
			*addr = ks->kernel.v[i].start;
			return 0;
		}
	}
	return -ENOENT;
}

const struct symtab *ksyms__module(const struct ksyms *ks, const char *name)
{
	size_t i;

	for (i = 0; i < ks->nr_mods; i++)
		if (!strcmp(ks->mods[i].name, name))
			return &ks->mods[i].syms;
	return NULL;
}
