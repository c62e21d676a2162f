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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Value of each hex digit + 1; 0 for anything else. */
static const uint8_t hex_digit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14,
	['E'] = 15, ['F'] = 16,
};

/* Digits as perf's hex2u64() reads them: stops at the first non-digit. */
size_t sym_parse_hex(const char *s, uint64_t *val)
{
	uint64_t v = 0;
	size_t n = 0;
	unsigned int d;

	/* A table, not branches per digit: 120k addresses per kallsyms. */
	while ((d = hex_digit[(unsigned char)s[n]])) {
		v = (v << 4) | (d - 1);
		n++;
	}
	*val = v;
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
			if (!strcmp(ks->mods[i].name, mod))
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
 * Far above any kernel's (/proc/kallsyms is tens of MB): the text is held
 * whole, and a wrong file (a recording, a disk image) must not take all
 * memory, where reading line by line once cost none.
 */
#define KALLSYMS_MAX ((size_t)1 << 30)

/*
 * The text of a kallsyms file, read whole: names stay where they are in it,
 * cut into strings in place, instead of being copied one by one into the
 * machine's string pool. That was half of loading 120k kernel symbols, and
 * leaves the loading free of any state shared with the machine.
 */
static int read_all(int fd, char **text, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nb;
	struct stat st;
	ssize_t r;

	/* A copy's size is known; /proc/kallsyms says 0 and grows. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > KALLSYMS_MAX)
			return -EFBIG;
		cap = (size_t)st.st_size + 4096;
	}
	for (;;) {
		if (!buf || cap - n < 4096) {
			if (n > KALLSYMS_MAX) {
				free(buf);
				return -EFBIG;
			}
			cap = buf ? cap * 2 : cap;
			/* Fresh, in huge pages: read() faults them in. */
			nb = buf ? realloc(buf, cap + 1) : malloc_huge(cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			/* Moved by realloc(): advised again where it is. */
			if (buf)
				advise_huge(nb, cap + 1);
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(buf);
			return r;
		}
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* The module named at mb, the same pointer for every symbol it has. */
static const char *module_name(const char **last, char *mb)
{
	char *me = mb + strlen(mb);

	while (me > mb && isspace((unsigned char)me[-1]))
		*--me = '\0';
	if (!*last || strcmp(*last, mb))
		*last = mb;
	return *last;
}

/*
 * The symbols of whole lines of the text, [line, end): pushed in file
 * order, each with its module (mods[seq], NULL: the kernel's), which
 * the name carries until the split. Names are cut in place.
 */
struct kpart {
	char *line, *end;
	struct symtab all;
	const char **mods;
	size_t mods_cap;
	size_t reserve;			/* symbols to make room for at once */
	uint64_t text, stext;		/* first "_text", "_stext" */
	bool has_text, has_stext;
	int err;
};

static void kpart_parse(struct kpart *kp)
{
	char *line = kp->line, *end = kp->end, *nl;
	const char *last_mod = NULL;
	int err = 0;

	/*
	 * Room for every line at once, in huge pages: grown by doubling,
	 * the arrays took a page fault per 4 KiB written, and a copy at
	 * each growth; a third of loading kallsyms.
	 */
	kp->all.v = malloc_huge(kp->reserve * sizeof(*kp->all.v));
	kp->mods = malloc_huge(kp->reserve * sizeof(*kp->mods));
	if (kp->all.v && kp->mods) {
		kp->all.cap = kp->reserve;
		kp->mods_cap = kp->reserve;
	} else {
		free(kp->all.v);
		free(kp->mods);
		kp->all.v = NULL;
		kp->mods = NULL;
	}
	for (; line < end; line = nl + 1) {
		const char *name, *mod = NULL;
		char *tab, type;
		uint64_t addr;
		size_t hl;

		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;
		*nl = '\0';
		hl = sym_parse_hex(line, &addr);
		if (!hl || line[hl] != ' ' || !line[hl + 1] ||
		    line[hl + 2] != ' ')
			continue;
		type = line[hl + 1];
		name = line + hl + 3;
		if (is_function(type)) {
			if (!kp->has_text && !strcmp(name, "_text")) {
				kp->text = addr;
				kp->has_text = true;
			}
			if (!kp->has_stext && !strcmp(name, "_stext")) {
				kp->stext = addr;
				kp->has_stext = true;
			}
		}
		if (!keep_type(type) || name[0] == '$' || !name[0])
			continue;
		/*
		 * strchr(), not memchr() to the line's end: a NUL ends the
		 * name as it always did, so a tab after it names no module.
		 */
		tab = strchr(name, '\t');
		if (tab) {
			*tab = '\0';
			mod = module_name(&last_mod, tab + 1);
		}
		if (kp->all.nr == kp->mods_cap) {
			size_t nc = kp->mods_cap ? kp->mods_cap * 2 : 4096;
			const char **v = realloc(kp->mods, nc * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			kp->mods = v;
			kp->mods_cap = nc;
		}
		kp->mods[kp->all.nr] = mod;
		/* perf's test for a module symbol is a '[' in the name. */
		err = symtab__push(&kp->all, addr, 0, name, type_bind(type),
				   mod && strchr(mod, '['));
		if (err)
			break;
	}
	kp->err = err;
}

static void kpart_free(struct kpart *kp)
{
	free(kp->mods);
	symtab__exit(&kp->all);
}

/*
 * The parts, in file order, into ks: one table, sorted and sized as
 * perf does, then split between the kernel and its modules.
 */
static int ksyms__merge(struct ksyms *ks, struct kpart *kp, size_t nr)
{
	struct symtab all = { 0 };
	const char **mods = NULL;
	size_t i, k, n = 0, at = 0;
	int err = 0;

	for (k = 0; k < nr; k++) {
		if (kp[k].err)
			return kp[k].err;
		n += kp[k].all.nr;
		if (!ks->has_text && kp[k].has_text) {
			ks->text = kp[k].text;
			ks->has_text = true;
		}
		if (!ks->has_stext && kp[k].has_stext) {
			ks->stext = kp[k].stext;
			ks->has_stext = true;
		}
	}
	if (!n)
		return -ENOENT;
	/* The first part's arrays, the others' appended: seq as in the file. */
	all = kp[0].all;
	mods = kp[0].mods;
	kp[0].all = (struct symtab){ 0 };
	kp[0].mods = NULL;
	at = all.nr;
	if (grow_array((void **)&all.v, &all.cap, n, sizeof(*all.v))) {
		err = -ENOMEM;
	} else if (nr > 1) {
		const char **v = realloc(mods, n * sizeof(*mods));

		if (v)
			mods = v;
		else
			err = -ENOMEM;
	}
	for (k = 1; k < nr && !err; k++) {
		for (i = 0; i < kp[k].all.nr; i++) {
			all.v[at] = kp[k].all.v[i];
			all.v[at].seq = at;
			mods[at++] = kp[k].mods[i];
		}
	}
	if (err)
		goto out;
	all.nr = n;
	symtab__finish(&all, true);
	/* The kernel's symbols stay where they are, the modules' go. */
	for (i = 0, at = 0; i < all.nr && !err; i++) {
		struct sym_entry e = all.v[i];

		if (e.module) {
			err = add_module_sym(ks, mods[e.seq], &e);
		} else {
			e.seq = at;
			all.v[at++] = e;
		}
	}
	if (err)
		goto out;
	/* Both are already in order; only seq needs no care. */
	all.nr = at;
	ks->kernel = all;
	all = (struct symtab){ 0 };
	if (ks->kernel.nr)
		ks->first = ks->kernel.v[0].start;
out:
	free(mods);
	symtab__exit(&all);
	return err;
}

/* Where the text is cut into parts: after a newline near each k/nr. */
static void ksyms_cut(struct ksyms *ks, struct kpart *kp, size_t nr)
{
	char *p = ks->text_buf, *end = p + ks->text_len, *cut, *nl;
	size_t k;

	for (k = 0; k < nr; k++) {
		kp[k] = (struct kpart){ .line = p };
		cut = ks->text_buf + ks->text_len / nr * (k + 1);
		nl = k + 1 < nr && cut < end ? memchr(cut, '\n', end - cut) :
		     NULL;
		p = nl ? nl + 1 : end;
		kp[k].end = p;
		/*
		 * A 64-bit kernel's lines take 44 bytes on average, 32 or
		 * more mostly (fewer: the arrays grow as they did). The
		 * first part's arrays take the others' symbols too.
		 */
		kp[k].reserve = (k ? (size_t)(p - kp[k].line) :
				 ks->text_len) / 32 + 64;
	}
}

/* ks->text_buf, len bytes followed by a NUL, parsed on this thread. */
static int ksyms__parse(struct ksyms *ks)
{
	struct kpart kp;
	int err;

	ksyms_cut(ks, &kp, 1);
	kpart_parse(&kp);
	err = ksyms__merge(ks, &kp, 1);
	kpart_free(&kp);
	if (err)
		ksyms__exit(ks);
	return err;
}

/*
 * Two parts: the thread that reads the file takes one, the first thread
 * to need the symbols (waiting for them anyway) the other.
 */
#define KSYMS_PARTS 2

struct ksyms_load {
	struct ksyms ks;		/* the text, then the symbols */
	struct kpart part[KSYMS_PARTS];
	unsigned int next;		/* parts taken (atomic) */
};

static int load_begin(struct ksyms_load **lp, struct ksyms_load *l, int err)
{
	if (err) {
		free(l->ks.text_buf);
		free(l);
		return err;
	}
	ksyms_cut(&l->ks, l->part, KSYMS_PARTS);
	*lp = l;
	return 0;
}

int ksyms__load_begin(struct ksyms_load **lp, const char *path)
{
	struct ksyms_load *l = calloc(1, sizeof(*l));
	int fd, err;

	*lp = NULL;
	if (!l)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return load_begin(lp, l, -errno);
	err = read_all(fd, &l->ks.text_buf, &l->ks.text_len);
	close(fd);
	return load_begin(lp, l, err);
}

int ksyms__load_begin_buf(struct ksyms_load **lp, const char *text,
			  size_t len)
{
	struct ksyms_load *l = calloc(1, sizeof(*l));

	*lp = NULL;
	if (!l)
		return -ENOMEM;
	if (!len)
		return load_begin(lp, l, -ENOENT);
	l->ks.text_buf = malloc(len + 1);
	if (!l->ks.text_buf)
		return load_begin(lp, l, -ENOMEM);
	memcpy(l->ks.text_buf, text, len);
	l->ks.text_buf[len] = '\0';
	l->ks.text_len = len;
	return load_begin(lp, l, 0);
}

bool ksyms__load_help(struct ksyms_load *l)
{
	unsigned int k = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQ_REL);

	if (k >= KSYMS_PARTS)
		return false;
	kpart_parse(&l->part[k]);
	return true;
}

int ksyms__load_end(struct ksyms_load *l, struct ksyms *ks)
{
	size_t k;
	int err;

	while (ksyms__load_help(l))
		;
	err = ksyms__merge(&l->ks, l->part, KSYMS_PARTS);
	for (k = 0; k < KSYMS_PARTS; k++)
		kpart_free(&l->part[k]);
	if (err)
		ksyms__exit(&l->ks);
	else
		*ks = l->ks;
	free(l);
	return err;
}

int ksyms__load(struct ksyms *ks, const char *path)
{
	struct ksyms_load *l;
	int err;

	memset(ks, 0, sizeof(*ks));
	err = ksyms__load_begin(&l, path);
	return err ? err : ksyms__load_end(l, ks);
}

/*
 * The same text held in memory (the kallsyms a recording embedded in its
 * TRACING_DATA): copied, since names are cut in place.
 */
int ksyms__load_buf(struct ksyms *ks, const char *text, size_t len)
{
	memset(ks, 0, sizeof(*ks));
	if (!len)
		return -ENOENT;
	ks->text_buf = malloc(len + 1);
	if (!ks->text_buf)
		return -ENOMEM;
	memcpy(ks->text_buf, text, len);
	ks->text_buf[len] = '\0';
	ks->text_len = len;
	return ksyms__parse(ks);
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
	free(ks->text_buf);
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

/* What a wanted address's slots hold so far (see below). */
struct kname_slot {
	uint64_t addr;		/* the nearest symbol at or below */
	char *name;
	size_t cap;
	bool set, module;
	uint64_t next;		/* the nearest symbol above */
	bool next_set, next_module;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first of the n sorted w[] at or above addr (n when none). */
static size_t lower_bound(const uint64_t *w, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int slot_take(struct kname_slot *s, uint64_t addr, const char *name,
		     size_t len, bool module)
{
	if (len + 1 > s->cap) {
		char *p = realloc(s->name, len + 1);

		if (!p)
			return -ENOMEM;
		s->name = p;
		s->cap = len + 1;
	}
	memcpy(s->name, name, len);
	s->name[len] = '\0';
	s->addr = addr;
	s->module = module;
	s->set = true;
	return 0;
}

/*
 * Where perf ends a kallsyms symbol at start (symbols__fixup_end(), as
 * symtab.c does it): at the next symbol, but a page boundary past its own
 * start when the next is on the other side of the kernel/module gap or
 * when none follows.
 */
static uint64_t kallsyms_end(uint64_t start, const struct kname_slot *next,
			     bool module)
{
	const uint64_t page = 4096;

	if (!next)
		return (start + page - 1) / page * page + page;
	if (next->next_module != module)
		return (start + page + page - 1) & ~(page - 1);
	return next->next;
}

/*
 * One pass over the file without keeping its table. A symbol at addr is
 * the nearest at or below only for wanted addresses from w[j], the first
 * at or above addr, up to the next symbol; so slot j keeps the highest
 * symbol seen for it (of aliases at one address the last: perf sizes the
 * others 0 and a sized symbol beats them), and a wanted address takes the
 * last filled slot at or before its own. The nearest symbol above, which
 * ends it, is found the same way from the other side. Memory is the
 * wanted addresses', not the table's.
 */
/* Lines of a kallsyms file, or of kallsyms text in memory. */
struct kline_iter {
	FILE *f;
	const char *p, *end;
	char *line;
	size_t cap;
};

/* The next line, without its newline, in it->line; its length or -1. */
static ssize_t kline_next(struct kline_iter *it)
{
	ssize_t len;
	const char *nl;
	size_t n;

	if (it->f) {
		len = getline(&it->line, &it->cap, it->f);
		if (len > 0 && it->line[len - 1] == '\n')
			it->line[--len] = '\0';
		return len;
	}
	if (it->p >= it->end)
		return -1;
	nl = memchr(it->p, '\n', it->end - it->p);
	n = (nl ? nl : it->end) - it->p;
	if (n + 1 > it->cap) {
		char *l = realloc(it->line, n + 1);

		if (!l)
			return -2;
		it->line = l;
		it->cap = n + 1;
	}
	memcpy(it->line, it->p, n);
	it->line[n] = '\0';
	it->p += n + (nl != NULL);
	return n;
}

static int name_addrs(struct kline_iter *it, const uint64_t *addrs,
		      size_t n, char **names);

int ksyms__name_addrs(const char *path, const uint64_t *addrs, size_t n,
		      char **names)
{
	struct kline_iter it = { 0 };
	int err;

	if (n) {
		it.f = fopen(path, "re");
		if (!it.f) {
			memset(names, 0, n * sizeof(*names));
			return -errno;
		}
	}
	err = name_addrs(&it, addrs, n, names);
	if (!err && it.f && ferror(it.f))
		err = -EIO;
	if (it.f)
		fclose(it.f);
	return err;
}

int ksyms__name_addrs_buf(const char *text, size_t len,
			  const uint64_t *addrs, size_t n, char **names)
{
	struct kline_iter it = { .p = text, .end = text + len };

	return name_addrs(&it, addrs, n, names);
}

static int name_addrs(struct kline_iter *it, const uint64_t *addrs,
		      size_t n, char **names)
{
	struct kname_slot *slot = NULL;
	uint64_t *w = NULL;
	size_t nw = 0, i, j, lo, hi;
	char *line;
	ssize_t len;
	int err = 0;

	for (i = 0; i < n; i++)
		names[i] = NULL;
	if (!n)
		return 0;
	w = malloc(n * sizeof(*w));
	slot = calloc(n, sizeof(*slot));
	if (!w || !slot) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(w, addrs, n * sizeof(*w));
	qsort(w, n, sizeof(*w), cmp_u64);
	for (i = 0; i < n; i++)
		if (!nw || w[nw - 1] != w[i])
			w[nw++] = w[i];
	while ((len = kline_next(it)) >= 0) {
		uint64_t addr;
		size_t hl, nl;
		bool module;
		char *name;

		line = it->line;
		hl = sym_parse_hex(line, &addr);
		if (!hl || line[hl] != ' ' || !line[hl + 1] ||
		    line[hl + 2] != ' ')
			continue;
		name = line + hl + 3;
		/* kptr_restrict gives every symbol 0: none names anything */
		if (!addr || !keep_type(line[hl + 1]) || name[0] == '$' ||
		    !name[0])
			continue;
		nl = strcspn(name, "\t");
		/* perf's test for a module symbol: a '[' in its module */
		module = name[nl] && strchr(name + nl, '[');
		name[nl] = '\0';
		j = lower_bound(w, nw, addr);
		if (j && (!slot[j - 1].next_set || addr < slot[j - 1].next)) {
			slot[j - 1].next = addr;
			slot[j - 1].next_module = module;
			slot[j - 1].next_set = true;
		}
		if (j == nw || (slot[j].set && addr < slot[j].addr))
			continue;
		err = slot_take(&slot[j], addr, name, nl, module);
		if (err)
			goto out;
	}
	if (len == -2) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		j = lower_bound(w, nw, addrs[i]);
		for (lo = j + 1; lo > 0 && !slot[lo - 1].set; lo--)
			;
		for (hi = j; hi < nw && !slot[hi].next_set; hi++)
			;
		/* a machine names kernel addresses from kernel symbols only */
		if (!lo || slot[lo - 1].module ||
		    addrs[i] >= kallsyms_end(slot[lo - 1].addr,
					     hi < nw ? &slot[hi] : NULL,
					     slot[lo - 1].module))
			continue;
		names[i] = strdup(slot[lo - 1].name);
		if (!names[i]) {
			err = -ENOMEM;
			goto out;
		}
	}
out:
	if (err)
		for (i = 0; i < n; i++) {
			free(names[i]);
			names[i] = NULL;
		}
	for (i = 0; slot && i < n; i++)
		free(slot[i].name);
	free(slot);
	free(w);
	free(it->line);
	return err;
}
