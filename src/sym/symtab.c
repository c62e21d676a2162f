// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables: sorted arrays searched by binary search. The fix-ups
 * reproduce perf's rbtree handling (tools/perf/util/symbol.c) so that the
 * same symbol wins where several share an address, and so that zero-sized
 * symbols get the same extent perf gives them.
 */
#include <errno.h>
#include <libiberty/demangle.h>
#include <stddef.h>
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

	if (t->nr == t->cap &&
	    grow_array((void **)&t->v, &t->cap, t->nr + 1, sizeof(*t->v)))
		return -ENOMEM;
	e = &t->v[t->nr];
	e->start = start;
	e->end = start + len;
	e->name = name;
	e->seq = t->nr;
	e->bind = bind;
	e->module = module;
	e->raw = SYM_NAME;
	t->nr++;
	return 0;
}

int symtab__push_raw(struct symtab *t, uint64_t start, uint64_t len,
		     const char *name, enum sym_bind bind, enum sym_raw raw,
		     struct strpool *sp)
{
	const char *copy;

	/*
	 * The raw names are copied to chunks freed with the table: many
	 * dsos with few symbols hold little, the big ones few chunks.
	 */
	if (!t->names.first) {
		t->names.first = 4096;
		t->names.max = 1024 * 1024;
	}
	copy = strarena__store(&t->names, name, strlen(name));

	if (!copy || symtab__push(t, start, len, copy, bind, false))
		return -ENOMEM;
	t->v[t->nr - 1].raw = raw;
	t->sp = sp;
	return 0;
}

/*
 * User-space names as perf 6.1 prints them: it demangles with libiberty's
 * cplus_demangle() and no options (no parameter lists), which leaves C
 * names alone and also reads Rust's legacy mangling.
 */
static bool may_be_mangled(const char *name)
{
	/*
	 * With no options, cplus_demangle() tries Rust (_ZN..., _R...) and
	 * then the Itanium C++ ABI, which reads _Z... and _GLOBAL_ ctors:
	 * anything else comes back NULL, after the work of trying. Most
	 * symbols of a C program are plain names.
	 */
	return name[0] == '_' &&
	       (name[1] == 'Z' || name[1] == 'R' || name[1] == 'G');
}

const char *sym_demangle_intern(struct strpool *sp, const char *name,
				const char *suffix)
{
	char *d = may_be_mangled(name) ? cplus_demangle(name, DMGL_NO_OPTS) :
		  NULL;
	const char *base = d ? d : name, *ret;
	size_t nb = strlen(base), ns = strlen(suffix);
	char buf[4096];

	/*
	 * Every symbol a lookup lands in comes here once: most are plain
	 * names with nothing to add, interned as they are. The rest are
	 * joined in buf, cut to its size as before.
	 */
	if (!ns && nb < sizeof(buf)) {
		ret = sym_intern(sp, base, nb);
		free(d);
		return ret;
	}
	if (nb > sizeof(buf) - 1)
		nb = sizeof(buf) - 1;
	if (ns > sizeof(buf) - 1 - nb)
		ns = sizeof(buf) - 1 - nb;
	memcpy(buf, base, nb);
	memcpy(buf + nb, suffix, ns);
	buf[nb + ns] = '\0';
	free(d);
	return sym_intern(sp, buf, nb + ns);
}

/* Demangles and interns a raw name in place. */
static int resolve_name(struct symtab *t, struct sym_entry *e)
{
	const char *name;

	if (e->raw == SYM_NAME)
		return 0;
	name = sym_demangle_intern(t->sp, e->name,
				   e->raw == SYM_RAW_PLT ? "@plt" : "");
	if (!name)
		return -ENOMEM;
	e->name = name;
	e->raw = SYM_NAME;
	return 0;
}

const char *symtab__name(struct symtab *t, const struct sym_entry *e)
{
	struct sym_entry *w;

	if (e->raw == SYM_NAME)
		return e->name;
	if (e < t->v || e >= t->v + t->nr)
		return NULL;
	w = &t->v[e - t->v];
	return resolve_name(t, w) ? NULL : w->name;
}

static int cmp_start(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* perf inserts equal keys to the right: file order is kept. */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * /proc/kallsyms lists its symbols in address order already: checking
 * costs one pass, where the sort cost a third of loading them. Keys are
 * unique (seq breaks ties), so a sorted array is the sort's result.
 */
static bool start_before(const struct sym_entry *x, const struct sym_entry *y)
{
	return x->start != y->start ? x->start < y->start : x->seq < y->seq;
}

/*
 * A merge sort with the comparison inlined: qsort() calling cmp_start()
 * was most of the cost of loading a dso's symbols (a libstdc++ has tens
 * of thousands). The keys are unique, so any sort gives this order.
 */
static void merge_by_start(struct sym_entry *v, size_t n)
{
	struct sym_entry *tmp = malloc(n * sizeof(*v)), *src = v, *dst = tmp;
	size_t width, lo, mid, hi, i, j, k;

	if (!tmp) {
		qsort(v, n, sizeof(*v), cmp_start);
		return;
	}
	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			mid = lo + width < n ? lo + width : n;
			hi = lo + 2 * width < n ? lo + 2 * width : n;
			i = lo;
			j = mid;
			k = lo;
			while (i < mid && j < hi)
				dst[k++] = start_before(&src[j], &src[i]) ?
					   src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != v) {
		memcpy(v, src, n * sizeof(*v));
		free(src);
	} else {
		free(dst);
	}
}

/*
 * A stable LSD radix sort by start, a byte at a time, skipping the bytes
 * all starts share: entries in push order (seq ascending) come out in
 * the order merge_by_start() gives, at a fraction of its cost on a big
 * table (.dynsym lists symbols in hash order). False when out of memory.
 */
static bool radix_by_start(struct sym_entry *v, size_t n)
{
	size_t (*count)[256] = calloc(8, sizeof(*count));
	struct sym_entry *tmp = malloc(n * sizeof(*v)), *src = v, *dst = tmp;
	uint64_t all = ~0ULL, any = 0, differ;
	size_t i, b, sum;

	if (!count || !tmp) {
		free(count);
		free(tmp);
		return false;
	}
	for (i = 0; i < n; i++) {
		all &= v[i].start;
		any |= v[i].start;
	}
	differ = all ^ any;
	for (b = 0; b < 8; b++) {
		unsigned int shift = 8 * b;

		if (!((differ >> shift) & 0xff))
			continue;
		for (i = 0; i < n; i++)
			count[b][(v[i].start >> shift) & 0xff]++;
	}
	for (b = 0; b < 8; b++) {
		size_t *c = count[b];
		unsigned int shift = 8 * b;

		if (!((differ >> shift) & 0xff))
			continue;
		for (i = 0, sum = 0; i < 256; i++) {
			size_t k = c[i];

			c[i] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i].start >> shift) & 0xff]++] = src[i];
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(src != v ? src : dst);
	free(count);
	return true;
}

static void sort_by_start(struct sym_entry *v, size_t n)
{
	bool sorted = true, in_seq = true;
	size_t i;

	for (i = 1; i < n; i++) {
		if (start_before(&v[i], &v[i - 1]))
			sorted = false;
		if (v[i].seq <= v[i - 1].seq)
			in_seq = false;
	}
	if (sorted)
		return;
	if (!in_seq || n < 256 || !radix_by_start(v, n))
		merge_by_start(v, n);
}

void symtab__sort(struct symtab *t)
{
	sort_by_start(t->v, t->nr);
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

/* Whether better(a, b) goes as far as comparing the names. */
static bool names_decide(const struct sym_entry *a, const struct sym_entry *b)
{
	return (a->end == a->start) == (b->end == b->start) &&
	       (a->bind == SYM_WEAK) == (b->bind == SYM_WEAK) &&
	       (a->bind == SYM_GLOBAL) == (b->bind == SYM_GLOBAL);
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

/*
 * Where ELF symbols overlap (a zero-sized _init stretched over the .plt
 * entries synthesized after it, a sized symbol nesting others), perf's
 * symbols__find() returns the first overlapping symbol its rbtree search
 * meets, which depends on the tree's shape. To give the same answers, the
 * tree perf builds is replayed: the same insertions in the same order,
 * the same red-black rebalancing as the kernel's lib/rbtree.c (textbook
 * insert and erase: same rotations, same successor), the same erasures of
 * duplicates; then its answer is read off once per interval between
 * symbol boundaries, where it cannot change.
 */
#define NIL UINT32_MAX

struct rbt_node {
	uint32_t left, right, parent;
	bool red;
};

struct rbt {
	struct rbt_node *n;
	const struct sym_entry *v;	/* keys: v[i].start */
	uint32_t root;
};

static void rbt_transplant(struct rbt *t, uint32_t u, uint32_t v)
{
	struct rbt_node *n = t->n;
	uint32_t p = n[u].parent;

	if (p == NIL)
		t->root = v;
	else if (n[p].left == u)
		n[p].left = v;
	else
		n[p].right = v;
	if (v != NIL)
		n[v].parent = p;
}

static void rbt_rotate(struct rbt *t, uint32_t x, bool left)
{
	struct rbt_node *n = t->n;
	uint32_t y = left ? n[x].right : n[x].left;
	uint32_t inner = left ? n[y].left : n[y].right;

	if (left)
		n[x].right = inner;
	else
		n[x].left = inner;
	if (inner != NIL)
		n[inner].parent = x;
	rbt_transplant(t, x, y);
	if (left)
		n[y].left = x;
	else
		n[y].right = x;
	n[x].parent = y;
}

static bool rbt_red(const struct rbt *t, uint32_t x)
{
	return x != NIL && t->n[x].red;
}

/* perf's __symbols__insert(): equal starts go right. */
static void rbt_insert(struct rbt *t, uint32_t z)
{
	struct rbt_node *n = t->n;
	uint32_t p = NIL, cur = t->root;

	while (cur != NIL) {
		p = cur;
		cur = t->v[z].start < t->v[cur].start ? n[cur].left :
							n[cur].right;
	}
	n[z] = (struct rbt_node){ NIL, NIL, p, true };
	if (p == NIL)
		t->root = z;
	else if (t->v[z].start < t->v[p].start)
		n[p].left = z;
	else
		n[p].right = z;
	while (rbt_red(t, n[z].parent)) {
		uint32_t par = n[z].parent, g = n[par].parent;
		bool left = par == n[g].left;
		uint32_t uncle = left ? n[g].right : n[g].left;

		if (rbt_red(t, uncle)) {
			n[par].red = n[uncle].red = false;
			n[g].red = true;
			z = g;
			continue;
		}
		if (z == (left ? n[par].right : n[par].left)) {
			z = par;
			rbt_rotate(t, z, left);
			par = n[z].parent;
		}
		n[par].red = false;
		n[g].red = true;
		rbt_rotate(t, g, !left);
	}
	n[t->root].red = false;
}

static uint32_t rbt_leftmost(const struct rbt *t, uint32_t x)
{
	while (x != NIL && t->n[x].left != NIL)
		x = t->n[x].left;
	return x;
}

static uint32_t rbt_next(const struct rbt *t, uint32_t x)
{
	const struct rbt_node *n = t->n;
	uint32_t p;

	if (n[x].right != NIL)
		return rbt_leftmost(t, n[x].right);
	for (p = n[x].parent; p != NIL && x == n[p].right; p = n[p].parent)
		x = p;
	return p;
}

/* x (maybe NIL) under xp lacks one black node on its paths. */
static void rbt_erase_fixup(struct rbt *t, uint32_t x, uint32_t xp)
{
	struct rbt_node *n = t->n;

	while (x != t->root && !rbt_red(t, x)) {
		bool left = x == n[xp].left;
		uint32_t w = left ? n[xp].right : n[xp].left;
		uint32_t near, far;

		if (rbt_red(t, w)) {
			n[w].red = false;
			n[xp].red = true;
			rbt_rotate(t, xp, left);
			w = left ? n[xp].right : n[xp].left;
		}
		near = left ? n[w].left : n[w].right;
		far = left ? n[w].right : n[w].left;
		if (!rbt_red(t, near) && !rbt_red(t, far)) {
			n[w].red = true;
			x = xp;
			xp = n[x].parent;
			continue;
		}
		if (!rbt_red(t, far)) {
			n[near].red = false;
			n[w].red = true;
			rbt_rotate(t, w, !left);
			w = left ? n[xp].right : n[xp].left;
			far = left ? n[w].right : n[w].left;
		}
		n[w].red = n[xp].red;
		n[xp].red = false;
		n[far].red = false;
		rbt_rotate(t, xp, left);
		x = t->root;
	}
	if (x != NIL)
		n[x].red = false;
}

static void rbt_erase(struct rbt *t, uint32_t z)
{
	struct rbt_node *n = t->n;
	uint32_t x, xp, y;
	bool y_red = n[z].red;

	if (n[z].left == NIL || n[z].right == NIL) {
		x = n[z].left == NIL ? n[z].right : n[z].left;
		xp = n[z].parent;
		rbt_transplant(t, z, x);
	} else {
		/* The in-order successor takes z's place and colour. */
		y = rbt_leftmost(t, n[z].right);
		y_red = n[y].red;
		x = n[y].right;
		if (n[y].parent == z) {
			xp = y;
		} else {
			xp = n[y].parent;
			rbt_transplant(t, y, x);
			n[y].right = n[z].right;
			n[n[y].right].parent = y;
		}
		rbt_transplant(t, z, y);
		n[y].left = n[z].left;
		n[n[y].left].parent = y;
		n[y].red = n[z].red;
	}
	if (!y_red)
		rbt_erase_fixup(t, x, xp);
}

/* perf's symbols__find(): the first node on the path that holds addr. */
static uint32_t rbt_find(const struct rbt *t, uint64_t addr)
{
	uint32_t x = t->root;

	while (x != NIL) {
		const struct sym_entry *e = &t->v[x];

		if (addr < e->start)
			x = t->n[x].left;
		else if (contains(e, addr))
			return x;
		else
			x = t->n[x].right;
	}
	return NIL;
}

/* perf's symbols__fixup_duplicate() walk, erasing in the same order. */
static int rbt_fixup_duplicate(struct rbt *t, struct symtab *st)
{
	const struct sym_entry *v = t->v;
	uint32_t cur = rbt_leftmost(t, t->root), next;

	while (cur != NIL) {
		next = rbt_next(t, cur);
		if (next == NIL)
			break;
		if (v[cur].start != v[next].start) {
			cur = next;
			continue;
		}
		/* Raw names are demangled only where they decide. */
		if (names_decide(&v[cur], &v[next]) &&
		    (resolve_name(st, &st->v[cur]) ||
		     resolve_name(st, &st->v[next])))
			return -ENOMEM;
		if (better(&v[cur], &v[next])) {
			rbt_erase(t, next);
		} else {
			rbt_erase(t, cur);
			cur = next;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The tree's answer, read off once per interval between the boundaries of
 * the sorted symbols: spans[k] holds from its start to the next span's.
 * Where no two symbols overlap, the plain search of the sorted symbols
 * gives the same answer and no spans are made.
 */
static int build_spans(struct symtab *t, const struct sym_entry *sorted,
		       size_t n, const struct rbt *tree, const uint32_t *pos)
{
	struct sym_span *spans, *trimmed;
	uint64_t *b;
	size_t i, nb = 0, ns = 0;

	for (i = 1; i < n; i++)
		if (sorted[i - 1].end > sorted[i].start ||
		    sorted[i - 1].start == sorted[i].start)
			break;
	if (i >= n)
		return 0;
	b = malloc(2 * n * sizeof(*b));
	spans = malloc(2 * n * sizeof(*spans));
	if (!b || !spans) {
		free(b);
		free(spans);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		b[nb++] = sorted[i].start;
		if (sorted[i].end != sorted[i].start)
			b[nb++] = sorted[i].end;
		else if (sorted[i].start != UINT64_MAX)
			b[nb++] = sorted[i].start + 1;
	}
	qsort(b, nb, sizeof(*b), cmp_u64);
	for (i = 0; i < nb; i++) {
		uint32_t hit;

		if (i && b[i] == b[i - 1])
			continue;
		hit = rbt_find(tree, b[i]);
		hit = hit == NIL ? NIL : pos[hit];
		if (ns && spans[ns - 1].idx == hit)
			continue;
		spans[ns].start = b[i];
		spans[ns].idx = hit;
		ns++;
	}
	free(b);
	trimmed = realloc(spans, ns * sizeof(*spans));
	t->spans = trimmed ? trimmed : spans;
	t->nr_spans = ns;
	return 0;
}

/* The table stays as long as its dso: give back what growing left over. */
static void shrink(struct symtab *t)
{
	struct sym_entry *v;

	if (t->nr == t->cap || !t->nr)
		return;
	v = realloc(t->v, t->nr * sizeof(*v));
	if (v) {
		t->v = v;
		t->cap = t->nr;
	}
}

/* Appends e to a run checked for overlaps; false where it overlaps. */
static bool run_add(const struct sym_entry **prev, const struct sym_entry *e)
{
	const struct sym_entry *p = *prev;

	*prev = e;
	return !p || (p->end <= e->start && p->start != e->start);
}

/*
 * Most dsos have no symbols that overlap once duplicates are gone: there
 * the tree's answer is the sorted array's and building it can be spared.
 * t's first nr_syms entries are sorted and their ends fixed up; the
 * duplicates go as the tree's walk takes them (its in-order walk is the
 * sorted order) and the .plt entries (in address order as made) are
 * merged in. A first pass checks without moving anything, so that the
 * tree can still be built: 0 when done, 1 when symbols overlap and the
 * tree must decide, -ENOMEM.
 */
static int finish_plain(struct symtab *t, size_t nr_syms)
{
	const struct sym_entry *prev = NULL, *plt = t->v + nr_syms;
	size_t i, j = 0, k, n = 0, last = 0, nplt = t->nr - nr_syms;
	struct sym_entry *copy;

	for (i = 0; i <= nr_syms; i++) {
		struct sym_entry *e = &t->v[i];

		if (i < nr_syms && i && t->v[last].start == e->start) {
			if (names_decide(&t->v[last], e) &&
			    (resolve_name(t, &t->v[last]) ||
			     resolve_name(t, e)))
				return -ENOMEM;
			if (!better(&t->v[last], e))
				last = i;
			continue;
		}
		/* A group of one start ended: its survivor goes in. */
		if (i) {
			for (; j < nplt && plt[j].start < t->v[last].start; j++)
				if (!run_add(&prev, &plt[j]))
					return 1;
			if (!run_add(&prev, &t->v[last]))
				return 1;
		}
		last = i;
	}
	for (; j < nplt; j++)
		if (!run_add(&prev, &plt[j]))
			return 1;
	/* Before anything moves: out of memory leaves the table as it was. */
	copy = nplt ? malloc(nplt * sizeof(*copy)) : NULL;
	if (nplt && !copy)
		return -ENOMEM;
	/* No overlaps: the same again, in place. */
	for (i = 0; i < nr_syms; i++) {
		struct sym_entry e = t->v[i];

		if (!n || t->v[n - 1].start != e.start)
			t->v[n++] = e;
		else if (!better(&t->v[n - 1], &e))
			t->v[n - 1] = e;
	}
	if (!nplt) {
		t->nr = n;
		shrink(t);
		return 0;
	}
	memcpy(copy, plt, nplt * sizeof(*copy));
	k = n + nplt;
	for (i = n, j = nplt; j; ) {
		if (i && t->v[i - 1].start > copy[j - 1].start)
			t->v[--k] = t->v[--i];
		else
			t->v[--k] = copy[--j];
	}
	free(copy);
	t->nr = n + nplt;
	shrink(t);
	return 0;
}

int symtab__finish_elf(struct symtab *t, size_t nr_syms)
{
	struct rbt tree = { .root = NIL, .v = t->v };
	struct sym_entry *sorted = NULL;
	uint32_t *pos = NULL, x;
	size_t i, n = 0;
	int err = -ENOMEM;

	if (!t->nr)
		return 0;
	if (nr_syms > t->nr)
		return -EINVAL;
	if (t->nr >= NIL)
		return -E2BIG;
	for (i = 0; i < nr_syms; i++)
		if (t->v[i].seq >= nr_syms)
			return -EINVAL;
	/*
	 * The tree's order is the sorted order, so the end fix-up can work
	 * on the sorted symbols; the tree is then built in push order (seq).
	 */
	sort_by_start(t->v, nr_syms);
	fixup_end(&(struct symtab){ .v = t->v, .nr = nr_syms }, false);
	err = finish_plain(t, nr_syms);
	if (err <= 0)
		return err;
	err = -ENOMEM;
	tree.v = t->v;
	tree.n = calloc(t->nr, sizeof(*tree.n));
	pos = malloc(t->nr * sizeof(*pos));
	sorted = malloc(t->nr * sizeof(*sorted));
	if (!tree.n || !pos || !sorted)
		goto out;
	/* pos: first push order -> sorted index, later node -> final index. */
	for (i = 0; i < nr_syms; i++)
		pos[t->v[i].seq] = i;
	for (i = 0; i < nr_syms; i++)
		rbt_insert(&tree, pos[i]);
	if (rbt_fixup_duplicate(&tree, t))
		goto out;
	/* The synthesized .plt entries go in after the fix-ups. */
	for (i = nr_syms; i < t->nr; i++)
		rbt_insert(&tree, i);
	for (x = rbt_leftmost(&tree, tree.root); x != NIL;
	     x = rbt_next(&tree, x)) {
		pos[x] = n;
		sorted[n++] = t->v[x];
	}
	err = build_spans(t, sorted, n, &tree, pos);
	if (err)
		goto out;
	free(t->v);
	t->v = sorted;
	t->nr = t->cap = n;
	sorted = NULL;
out:
	free(sorted);
	free(pos);
	free(tree.n);
	return err;
}

static const struct sym_entry *find_span(const struct symtab *t,
					 uint64_t addr)
{
	size_t lo = upper_bound_u64(t->spans, t->nr_spans, sizeof(*t->spans),
				    offsetof(struct sym_span, start), addr);

	if (!lo || t->spans[lo - 1].idx == NIL)
		return NULL;
	return &t->v[t->spans[lo - 1].idx];
}

const struct sym_entry *symtab__find(const struct symtab *t, uint64_t addr)
{
	size_t lo, i, k;

	if (t->spans)
		return find_span(t, addr);
	/* Last entry starting at or below addr. */
	lo = upper_bound_u64(t->v, t->nr, sizeof(*t->v),
			     offsetof(struct sym_entry, start), addr);
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
	strarena__free(&t->names);
	free(t->v);
	free(t->spans);
	t->v = NULL;
	t->spans = NULL;
	t->nr_spans = 0;
	t->nr = t->cap = 0;
}
