/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cycle attribution: where each sampling event's samples went, by the
 * category of the flush they fell in, by who asked for the flush (the
 * trigger), by both, by process, and by flush stack. Samples are counted
 * and their periods summed, per sampling event (cycles, cpu-clock, ...).
 *
 * Strings passed in (comms, stacks) must be interned by the caller: the
 * tables key on the pointers. Library code: never prints; 0 / -errno.
 */
#ifndef RS_ATTRIB_H
#define RS_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>

#include "rules.h"

struct attrib_row {
	uint64_t samples;
	uint64_t period;
};

/* The aggregates of one sampling event. */
struct attrib_event {
	const char *name;
	bool clock;		/* a timer event: IRQ-off time skids */
	struct attrib_row total;
	struct attrib_row flush;	/* in flush categories */
	struct attrib_row skid;		/* flush samples at an IRQ re-enable */
	struct attrib_row cat[RS_CAT__NR];
	struct attrib_row trig[RS_TRIG__NR];	/* flush samples only */
	struct attrib_row cross[RS_CAT__NR][RS_TRIG__NR];	/* likewise */
};

/* A keyed row: a process name or a flush stack. */
struct attrib_keyed {
	const char *name;
	struct attrib_row row;
};

struct attrib;

struct attrib *attrib__new(void);
void attrib__delete(struct attrib *a);

/*
 * One sample of the event named name (the first call with a name adds the
 * event; events keep that order). stack is the flush part of the stack as
 * text (NULL for samples outside a flush); comm the process name. A flush
 * sample with no trigger frame counts under the trigger "other".
 */
int attrib__add(struct attrib *a, const char *name, bool clock,
		const struct rs_stack_class *cls, const char *comm,
		const char *stack, uint64_t period);

uint32_t attrib__nr_events(const struct attrib *a);
const struct attrib_event *attrib__event(const struct attrib *a, uint32_t i);

/*
 * The flush samples of event i by process, or by flush stack: the max
 * biggest by period (then samples, then name), written to out[]; returns
 * how many, or -ENOMEM.
 */
int attrib__top_comms(const struct attrib *a, uint32_t i,
		      struct attrib_keyed *out, uint32_t max);
int attrib__top_stacks(const struct attrib *a, uint32_t i,
		       struct attrib_keyed *out, uint32_t max);

/* Number of distinct processes / stacks with flush samples for event i. */
uint32_t attrib__nr_comms(const struct attrib *a, uint32_t i);
uint32_t attrib__nr_stacks(const struct attrib *a, uint32_t i);

#endif
