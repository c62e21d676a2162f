// SPDX-License-Identifier: GPL-2.0
/*
 * Cycle attribution tables. Per sample: a few array increments and, for
 * flush samples, two hash lookups keyed on interned pointers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "util.h"

struct keyed_table {
	struct attrib_keyed *rows;
	size_t nr, cap;
};

struct attrib_slot {
	struct attrib_event ev;
	struct keyed_table comms, stacks;
};

struct attrib {
	struct attrib_slot *events;
	size_t nr, cap;
	const char *last_name;	/* the event of the previous sample */
	uint32_t last_idx;
	struct keymap *index;	/* (string, table) -> row */
};

struct attrib *attrib__new(void)
{
	struct attrib *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->index = keymap__new();
	if (!a->index) {
		free(a);
		return NULL;
	}
	return a;
}

void attrib__delete(struct attrib *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr; i++) {
		free(a->events[i].comms.rows);
		free(a->events[i].stacks.rows);
	}
	free(a->events);
	keymap__delete(a->index);
	free(a);
}

/* Event names come from the recording's evsels: few, and stable. */
static int find_event(struct attrib *a, const char *name, bool clock)
{
	size_t i;
	int err;

	if (a->last_name == name)
		return a->last_idx;
	for (i = 0; i < a->nr; i++)
		if (!strcmp(a->events[i].ev.name, name))
			break;
	if (i == a->nr) {
		err = grow_array((void **)&a->events, &a->cap, a->nr + 1,
				 sizeof(*a->events));
		if (err)
			return err;
		memset(&a->events[i], 0, sizeof(a->events[i]));
		a->events[i].ev.name = name;
		a->events[i].ev.clock = clock;
		a->nr++;
	}
	a->last_name = name;
	a->last_idx = i;
	return i;
}

static void row_add(struct attrib_row *r, uint64_t period)
{
	r->samples++;
	r->period += period;
}

/* Table number: event index * 2, + 1 for stacks. */
static int keyed_add(struct attrib *a, struct keyed_table *t, uint64_t table,
		     const char *name, uint64_t period)
{
	uint64_t key[2] = { (uintptr_t)name, table };
	uint32_t row;
	int err;

	if (!keymap__find(a->index, key, &row)) {
		err = grow_array((void **)&t->rows, &t->cap, t->nr + 1,
				 sizeof(*t->rows));
		if (err)
			return err;
		row = t->nr++;
		t->rows[row].name = name;
		t->rows[row].row.samples = 0;
		t->rows[row].row.period = 0;
		err = keymap__set(a->index, key, row);
		if (err) {
			t->nr--;
			return err;
		}
	}
	row_add(&t->rows[row].row, period);
	return 0;
}

int attrib__add(struct attrib *a, const char *name, bool clock,
		const struct rs_stack_class *cls, const char *comm,
		const char *stack, uint64_t period)
{
	struct attrib_slot *slot;
	struct attrib_event *ev;
	int idx, err, trig;

	idx = find_event(a, name, clock);
	if (idx < 0)
		return idx;
	slot = &a->events[idx];
	ev = &slot->ev;
	row_add(&ev->total, period);
	row_add(&ev->cat[cls->category], period);
	if (!rs_category_is_flush(cls->category))
		return 0;

	row_add(&ev->flush, period);
	if (cls->skid)
		row_add(&ev->skid, period);
	trig = cls->trigger == RS_TRIG_NONE ? RS_TRIG_OTHER : cls->trigger;
	row_add(&ev->trig[trig], period);
	row_add(&ev->cross[cls->category][trig], period);
	if (comm) {
		err = keyed_add(a, &slot->comms, (uint64_t)idx * 2, comm,
				period);
		if (err)
			return err;
	}
	if (stack) {
		err = keyed_add(a, &slot->stacks, (uint64_t)idx * 2 + 1, stack,
				period);
		if (err)
			return err;
	}
	return 0;
}

uint32_t attrib__nr_events(const struct attrib *a)
{
	return a->nr;
}

const struct attrib_event *attrib__event(const struct attrib *a, uint32_t i)
{
	return i < a->nr ? &a->events[i].ev : NULL;
}

static int keyed_cmp(const void *pa, const void *pb)
{
	const struct attrib_keyed *x = pa, *y = pb;

	if (x->row.period != y->row.period)
		return x->row.period > y->row.period ? -1 : 1;
	if (x->row.samples != y->row.samples)
		return x->row.samples > y->row.samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int top_rows(const struct keyed_table *t, struct attrib_keyed *out,
		    uint32_t max)
{
	struct attrib_keyed *sorted;
	uint32_t n;

	if (!t->nr || !max)
		return 0;
	sorted = malloc(t->nr * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, t->rows, t->nr * sizeof(*sorted));
	qsort(sorted, t->nr, sizeof(*sorted), keyed_cmp);
	n = t->nr < max ? t->nr : max;
	memcpy(out, sorted, n * sizeof(*out));
	free(sorted);
	return n;
}

int attrib__top_comms(const struct attrib *a, uint32_t i,
		      struct attrib_keyed *out, uint32_t max)
{
	return i < a->nr ? top_rows(&a->events[i].comms, out, max) : 0;
}

int attrib__top_stacks(const struct attrib *a, uint32_t i,
		       struct attrib_keyed *out, uint32_t max)
{
	return i < a->nr ? top_rows(&a->events[i].stacks, out, max) : 0;
}

uint32_t attrib__nr_comms(const struct attrib *a, uint32_t i)
{
	return i < a->nr ? a->events[i].comms.nr : 0;
}

uint32_t attrib__nr_stacks(const struct attrib *a, uint32_t i)
{
	return i < a->nr ? a->events[i].stacks.nr : 0;
}
