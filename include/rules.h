/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classification rules: which kernel functions are rstat flush work
 * (and for which subsystem), which name the subsystem of a flush running
 * beneath them, which say who asked for the flush (the trigger), and which
 * are IRQ re-enable points where IRQ-off time lands with a clock event.
 *
 * Kernels rename these functions often, so the rules are data: a built-in
 * table (from docs/kernel-rstat.md, 4.18 to today) that rule files extend
 * and override; see docs/rules-format.md for the file format.
 *
 * Library code: never prints; 0 / -errno.
 */
#ifndef RS_RULES_H
#define RS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Output order. */
enum rs_category {
	RS_CAT_MEMORY,
	RS_CAT_IO,
	RS_CAT_BASE,
	RS_CAT_BPF,
	RS_CAT_CORE,
	RS_CAT_UPDATE,
	RS_CAT_PSI,
	RS_CAT_MEMCG_WALK,
	RS_CAT_INSTRUMENTATION,	/* the recorder's own work: never a flush */
	RS_CAT_OTHER,
	RS_CAT__NR,
};

enum rs_trigger {
	RS_TRIG_NONE = -1,
	RS_TRIG_MEMORY_STAT,
	RS_TRIG_NUMA_STAT,
	RS_TRIG_CPU_STAT,
	RS_TRIG_IO_STAT,
	RS_TRIG_ZSWAP_CURRENT,
	RS_TRIG_RECLAIM,
	RS_TRIG_REFAULT,
	RS_TRIG_CACHESTAT,
	RS_TRIG_SHADOW_SHRINKER,
	RS_TRIG_WRITEBACK,
	RS_TRIG_ZSWAP,
	RS_TRIG_PERIODIC,
	RS_TRIG_TEARDOWN,
	RS_TRIG_OOM,
	RS_TRIG_BPF,
	RS_TRIG_OTHER,
	RS_TRIG__NR,
};

/*
 * "memory", "io", ..., "memcg-walk", "instrumentation", "other"; "?" when
 * out of range.
 */
const char *rs_category_name(enum rs_category c);
/* "memory.stat", ..., "other"; "-" for RS_TRIG_NONE, "?" out of range. */
const char *rs_trigger_name(enum rs_trigger t);
/* The category named name, or -EINVAL. */
int rs_category_parse(const char *name);
/* *out = the trigger named name (RS_TRIG_NONE for "-"); 0 or -EINVAL. */
int rs_trigger_parse(const char *name, enum rs_trigger *out);
/* Flush work: memory, io, base, bpf, core and memcg-walk. */
bool rs_category_is_flush(enum rs_category c);
/* A subsystem with a flush callback of its own: memory, io, base, bpf. */
bool rs_category_is_subsys(enum rs_category c);

enum rs_rule_role {
	RS_ROLE_NONE,		/* nothing (a trigger at most) */
	RS_ROLE_IN,		/* the frame is inside the category */
	RS_ROLE_CALLER,		/* names the subsystem of a core flush */
	RS_ROLE_IRQ_ENABLE,	/* IRQ re-enable point: clock skid */
};

struct rs_rule_match {
	enum rs_rule_role role;
	enum rs_category category;	/* OTHER for none, irq-enable */
	enum rs_trigger trigger;	/* RS_TRIG_NONE: no trigger */
};

struct rules;

/* A table holding the built-in rules; NULL when out of memory. */
struct rules *rules__new(void);
void rules__delete(struct rules *r);

/*
 * Add the rules of a file, or of text (len bytes, need not be
 * NUL-terminated; name is used in messages). A rule whose pattern is
 * already in the table replaces that rule in place; the others are added
 * after every rule already there. All or nothing: on error the table is
 * unchanged and rules__strerror() says what is wrong, as
 * "FILE:LINE: what (expected ...)" for a bad line (-EINVAL), or
 * "FILE: strerror" when the file cannot be read (-errno).
 */
int rules__load_file(struct rules *r, const char *path);
int rules__load_text(struct rules *r, const char *text, size_t len,
		     const char *name);
/* The message of the last failed load; "" when none failed. */
const char *rules__strerror(const struct rules *r);

/*
 * The rule for the symbol name sym (bare: no "+0x.." offset): the exact
 * pattern sym; else sym without its compiler suffix (from the first '.':
 * ".isra.0", ".cold", ...); else the first glob matching either, trying
 * the rules added last first. 1 when a rule matched (fills *m), 0 when
 * none did. A neutralising rule ("- -") matches with role none.
 */
int rules__match(const struct rules *r, const char *sym,
		 struct rs_rule_match *m);

/*
 * Every rule in effect, in the file format (the output loads back into an
 * identical table): built-in rules first, then added ones, in the order
 * they were first added (a replaced rule keeps its place). 0 or -errno
 * from the write.
 */
int rules__dump(const struct rules *r, FILE *out);
uint32_t rules__count(const struct rules *r);

/* What a sample's stack is: the outcome of the rules over its frames. */
struct rs_stack_class {
	enum rs_category category;	/* RS_CAT_OTHER when no `in` frame */
	enum rs_trigger trigger;	/* outermost trigger, or RS_TRIG_NONE */
	bool skid;		/* leaf is irq-enable and category is flush */
	int category_frame;	/* innermost `in` frame (0 = leaf), or -1 */
	/*
	 * The innermost frame naming a subsystem (memory, io, base, bpf),
	 * `in` or `caller`; RS_CAT_OTHER when none does. For a stack with no
	 * flush frame, such as a lock event whose unlock is inlined into its
	 * reader (cgroup_base_stat_cputime_show's short lock).
	 */
	enum rs_category named;
	int trigger_frame;	/* outermost trigger frame, or -1 */
};

/*
 * Applies a rule table to stacks, remembering each symbol's match. The
 * rules must outlive the classifier and not change while it lives.
 */
struct classifier;

struct classifier *classifier__new(const struct rules *r);
void classifier__delete(struct classifier *c);

/*
 * The kernel the stacks come from (its release's major and minor), for
 * the rules that depend on it (rules__inline_release()). Unknown (the
 * default): none of those apply. What those rules make of each frame
 * name is cached with its rule outcome; setting the kernel empties the
 * cache.
 */
void classifier__set_kernel(struct classifier *c, int major, int minor);

/*
 * Readers that release the rstat lock themselves, the unlock inlined:
 * on such a kernel a clock sample (cpu-clock) that skids to the IRQ
 * re-enable point directly in reader sym is the time of the flush it
 * held the lock for. Returns that flush's category (the reader's), or
 * RS_CAT_OTHER when sym is no such reader on kernel major.minor.
 */
enum rs_category rules__inline_release(const char *sym, int major,
				       int minor);

/*
 * Classify the stack syms[0..n) (frame names, leaf first). The names must
 * be interned (stable pointers, one pointer per distinct string): matches
 * are cached by pointer. NULL entries match nothing. 0, -ENOMEM, or
 * -EINVAL when n exceeds INT_MAX.
 *
 * The category is that of the innermost `in` frame; when that is core,
 * the first frame toward the root that is `in` or `caller` of memory, io,
 * base or bpf names the subsystem instead. The trigger is the outermost
 * frame with one, anywhere in the stack. A stack with no `in` frame whose
 * leaf frames are IRQ re-enable points directly in a reader that, on the
 * kernel set, releases the rstat lock inline is that reader's flush
 * (skid, category_frame the reader's).
 */
int classifier__classify(struct classifier *c, const char *const *syms,
			 uint32_t n, struct rs_stack_class *out);

/*
 * The subsystem a lock event's stack names: its category when that is a
 * subsystem or core, else the frame naming one (an unlock inlined into
 * its reader); -1 when none does. perf's and BPF's spans both use it.
 */
int rs_stack_class__lock_subsys(const struct rs_stack_class *c);

#endif
