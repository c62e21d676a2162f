// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables: sorted arrays searched by binary search. The fix-ups
 * reproduce perf's rbtree handling (tools/perf/util/symbol.c) so that the
 * same symbol wins where several share an address, and so that zero-sized
 * symbols get the same extent perf gives them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym-internal.h"
#include "util.h"

#define PAGE 4096ULL

const char *sym_intern(struct strpool *sp, const char *s, size_t len)
{
	int id = strpool__intern(sp, s, len);

	return id < 0 ? NULL : strpool__str(sp, id);
}

int symtab__push(struct symtab *t, uint64_t start, uint64_t len,
		 const char *name, enum sym_bind bind, bool module)
{
	struct sym_entry *e;

	if (grow_array((void **)&t->v, &t->cap, t->nr + 1, sizeof(*t->v)))
		return -ENOMEM;
	e = &t->v[t->nr];
	e->start = start;
	e->end = start + len;
	e->name = name;
	e->seq = t->nr;
	e->bind = bind;
	e->module = module;
	t->nr++;
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* perf inserts equal keys to the right: file order is kept. */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void symtab__sort(struct symtab *t)
{
	if (t->nr > 1)
		qsort(t->v, t->nr, sizeof(*t->v), cmp_start);
}

static void fixup_end(struct symtab *t, bool is_kallsyms)
{
	size_t i;

	for (i = 1; i < t->nr; i++) {
		struct sym_entry *prev = &t->v[i - 1], *curr = &t->v[i];

		if (prev->end != prev->start)
			continue;
		/*
		 * Between kernel text and module text lies a big gap that
		 * perf does not give to the last symbol before it.
		 */
		if (is_kallsyms && prev->module != curr->module)
			prev->end = (prev->end + PAGE + PAGE - 1) & ~(PAGE - 1);
		else
			prev->end = curr->start;
	}
	if (t->nr) {
		struct sym_entry *last = &t->v[t->nr - 1];

		if (last->end == last->start)
			last->end = (last->start + PAGE - 1) / PAGE * PAGE + PAGE;
	}
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when a beats b. */
static bool better(const struct sym_entry *a, const struct sym_entry *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	size_t ua, ub, na, nb;

	if (lb == 0 && la > 0)
		return true;
	if (la == 0 && lb > 0)
		return false;
	if ((a->bind == SYM_WEAK) != (b->bind == SYM_WEAK))
		return b->bind == SYM_WEAK;
	if ((a->bind == SYM_GLOBAL) != (b->bind == SYM_GLOBAL))
		return a->bind == SYM_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na != nb)
		return na > nb;
	return true;
}

static void fixup_duplicate(struct symtab *t)
{
	size_t i, out = 0;

	for (i = 0; i < t->nr; i++) {
		struct sym_entry *e = &t->v[i];

		if (out && t->v[out - 1].start == e->start) {
			/* Pairwise, in order, like perf's walk. */
			if (!better(&t->v[out - 1], e))
				t->v[out - 1] = *e;
			continue;
		}
		t->v[out++] = *e;
	}
	t->nr = out;
}

void symtab__finish(struct symtab *t, bool is_kallsyms)
{
	symtab__sort(t);
	if (!t->nr)
		return;
	fixup_end(t, is_kallsyms);
	fixup_duplicate(t);
}

static bool contains(const struct sym_entry *e, uint64_t addr)
{
	if (addr < e->start)
		return false;
	return addr < e->end || (addr == e->start && e->start == e->end);
}

const struct sym_entry *symtab__find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr, i, k;

	/* Last entry starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	if (contains(&t->v[i], addr))
		return &t->v[i];
	/*
	 * ELF symbols may nest (a sized symbol covering later ones); look a
	 * little further back for one that spans addr.
	 */
	for (k = 0; k < 16 && i > 0; k++) {
		i--;
		if (contains(&t->v[i], addr))
			return &t->v[i];
	}
	return NULL;
}

void symtab__exit(struct symtab *t)
{
	free(t->v);
	t->v = NULL;
	t->nr = t->cap = 0;
}
