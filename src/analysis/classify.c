// SPDX-License-Identifier: GPL-2.0
/*
 * Stack classification: the rules applied to every frame of a sample's
 * stack. Frame names come interned, so each distinct name is matched
 * against the rules once and its outcome cached by pointer.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "util.h"

struct cache_entry {
	const char *key;	/* NULL: empty slot */
	struct rs_rule_match m;
	/* rules__inline_release() of the name on the kernel set */
	enum rs_category inline_release;
};

struct classifier {
	const struct rules *rules;
	struct cache_entry *slots;
	uint32_t nr_slots, count;
	int major, minor;	/* the kernel's release; 0: unknown */
};

struct classifier *classifier__new(const struct rules *r)
{
	struct classifier *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->rules = r;
	c->nr_slots = 1024;
	c->slots = calloc(c->nr_slots, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	return c;
}

void classifier__set_kernel(struct classifier *c, int major, int minor)
{
	c->major = major;
	c->minor = minor;
	/* The cached outcomes hold the previous kernel's inline releases. */
	memset(c->slots, 0, c->nr_slots * sizeof(*c->slots));
	c->count = 0;
}

void classifier__delete(struct classifier *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

static uint32_t slot_of(const char *key, uint32_t nr_slots)
{
	return hash_u64((uintptr_t)key) & (nr_slots - 1);
}

static int grow(struct classifier *c)
{
	uint32_t n = c->nr_slots * 2, i, j;
	struct cache_entry *slots;

	if (n < c->nr_slots)
		return -ENOMEM;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < c->nr_slots; i++) {
		if (!c->slots[i].key)
			continue;
		for (j = slot_of(c->slots[i].key, n); slots[j].key;
		     j = (j + 1) & (n - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->nr_slots = n;
	return 0;
}

static const struct rs_rule_match nothing = {
	RS_ROLE_NONE, RS_CAT_OTHER, RS_TRIG_NONE
};

/*
 * What is known of one frame name: the rule outcome (no match reads as
 * role none) and whether it releases the rstat lock inline, both worked
 * out once per distinct name.
 */
static int lookup_entry(struct classifier *c, const char *sym,
			const struct cache_entry **out)
{
	static const struct cache_entry unnamed = {
		NULL, { RS_ROLE_NONE, RS_CAT_OTHER, RS_TRIG_NONE },
		RS_CAT_OTHER
	};
	struct cache_entry *e;
	uint32_t j;

	if (!sym) {
		*out = &unnamed;
		return 0;
	}
	for (j = slot_of(sym, c->nr_slots); c->slots[j].key;
	     j = (j + 1) & (c->nr_slots - 1)) {
		if (c->slots[j].key == sym) {
			*out = &c->slots[j];
			return 0;
		}
	}
	/* Kept under half full, so probing always finds an empty slot. */
	if ((c->count + 1) * 2 > c->nr_slots) {
		if (grow(c))
			return -ENOMEM;
		for (j = slot_of(sym, c->nr_slots); c->slots[j].key;
		     j = (j + 1) & (c->nr_slots - 1))
			;
	}
	e = &c->slots[j];
	if (!rules__match(c->rules, sym, &e->m))
		e->m = nothing;
	e->inline_release = rules__inline_release(sym, c->major, c->minor);
	e->key = sym;
	c->count++;
	*out = e;
	return 0;
}

static int lookup(struct classifier *c, const char *sym,
		  const struct rs_rule_match **out)
{
	const struct cache_entry *e;
	int ret = lookup_entry(c, sym, &e);

	if (!ret)
		*out = &e->m;
	return ret;
}

/* Subsystems whose frames can say whose flush a core frame is doing. */
static bool names_subsystem(const struct rs_rule_match *m)
{
	return (m->role == RS_ROLE_IN || m->role == RS_ROLE_CALLER) &&
	       rs_category_is_subsys(m->category);
}

int rs_stack_class__lock_subsys(const struct rs_stack_class *c)
{
	if (rs_category_is_subsys(c->category) || c->category == RS_CAT_CORE)
		return c->category;
	return c->named != RS_CAT_OTHER ? (int)c->named : -1;
}

int classifier__classify(struct classifier *c, const char *const *syms,
			 uint32_t n, struct rs_stack_class *out)
{
	const struct rs_rule_match *m;
	bool resolving = false;	/* core found, its subsystem not yet */
	bool leaf_irq = false;
	int below_irq = -1;	/* the first frame under the leaf IRQ ones */
	uint32_t i;
	int ret;

	out->category = RS_CAT_OTHER;
	out->trigger = RS_TRIG_NONE;
	out->skid = false;
	out->category_frame = -1;
	out->trigger_frame = -1;
	out->named = RS_CAT_OTHER;
	if (n > INT_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		ret = lookup(c, syms[i], &m);
		if (ret)
			return ret;
		if (i == 0 && m->role == RS_ROLE_IRQ_ENABLE)
			leaf_irq = true;
		if (leaf_irq && below_irq < 0 &&
		    m->role != RS_ROLE_IRQ_ENABLE)
			below_irq = i;
		if (out->named == RS_CAT_OTHER && names_subsystem(m))
			out->named = m->category;
		/* Outermost wins: the frame that started it all asked. */
		if (m->trigger != RS_TRIG_NONE) {
			out->trigger = m->trigger;
			out->trigger_frame = i;
		}
		if (out->category_frame < 0) {
			if (m->role != RS_ROLE_IN)
				continue;
			out->category = m->category;
			out->category_frame = i;
			resolving = m->category == RS_CAT_CORE;
		} else if (resolving && names_subsystem(m)) {
			/*
			 * From 6.16 each subsystem has its own tree, and the
			 * caller is all that tells them apart; before, the
			 * callbacks beneath already did.
			 */
			out->category = m->category;
			resolving = false;
		}
	}
	/*
	 * Instrumentation needs no special case: the tracing machinery is
	 * always called from within what it observes, so its frames are
	 * the innermost `in` frames of such a sample. A flush called from
	 * a BPF program (bpf_trace_run* outside it) stays a flush.
	 */
	if (out->category_frame < 0 && below_irq >= 0 && syms[below_irq]) {
		const struct cache_entry *e;

		/* The reader the skidding unlock is inlined in held a flush:
		 * only while the rules still call it that subsystem's. */
		ret = lookup_entry(c, syms[below_irq], &e);
		if (ret)
			return ret;
		if (e->m.role == RS_ROLE_CALLER &&
		    e->inline_release == e->m.category) {
			out->category = e->m.category;
			out->category_frame = below_irq;
		}
	}
	out->skid = leaf_irq && rs_category_is_flush(out->category);
	return 0;
}
