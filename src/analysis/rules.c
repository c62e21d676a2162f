// SPDX-License-Identifier: GPL-2.0
/*
 * The rule table: built-in rules, rule files, and matching a symbol name
 * against them. Exact patterns live in a hash table; globs are few and are
 * scanned in order (the classifier caches per symbol, so each name is
 * matched once per run).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules.h"
#include "util.h"

#define PATTERN_MAX	255
#define LINE_MAX_BYTES	4096
/* A rule file is a few hundred lines; refuse to slurp anything huge. */
#define FILE_MAX_BYTES	(64u << 20)
#define ERR_SIZE	1024

static const char *const category_names[RS_CAT__NR] = {
	[RS_CAT_MEMORY]		= "memory",
	[RS_CAT_IO]		= "io",
	[RS_CAT_BASE]		= "base",
	[RS_CAT_BPF]		= "bpf",
	[RS_CAT_CORE]		= "core",
	[RS_CAT_UPDATE]		= "update",
	[RS_CAT_PSI]		= "psi",
	[RS_CAT_MEMCG_WALK]	= "memcg-walk",
	[RS_CAT_INSTRUMENTATION] = "instrumentation",
	[RS_CAT_OTHER]		= "other",
};

static const char *const trigger_names[RS_TRIG__NR] = {
	[RS_TRIG_MEMORY_STAT]		= "memory.stat",
	[RS_TRIG_NUMA_STAT]		= "memory.numa_stat",
	[RS_TRIG_CPU_STAT]		= "cpu.stat",
	[RS_TRIG_IO_STAT]		= "io.stat",
	[RS_TRIG_ZSWAP_CURRENT]		= "zswap.current",
	[RS_TRIG_RECLAIM]		= "reclaim",
	[RS_TRIG_REFAULT]		= "refault",
	[RS_TRIG_CACHESTAT]		= "cachestat",
	[RS_TRIG_SHADOW_SHRINKER]	= "shadow-shrinker",
	[RS_TRIG_WRITEBACK]		= "writeback",
	[RS_TRIG_ZSWAP]			= "zswap",
	[RS_TRIG_PERIODIC]		= "periodic",
	[RS_TRIG_TEARDOWN]		= "teardown",
	[RS_TRIG_OOM]			= "oom",
	[RS_TRIG_BPF]			= "bpf",
	[RS_TRIG_OTHER]			= "other",
};

const char *rs_category_name(enum rs_category c)
{
	return (unsigned int)c < RS_CAT__NR ? category_names[c] : "?";
}

const char *rs_trigger_name(enum rs_trigger t)
{
	if (t == RS_TRIG_NONE)
		return "-";
	return (unsigned int)t < RS_TRIG__NR ? trigger_names[t] : "?";
}

int rs_category_parse(const char *name)
{
	int i;

	for (i = 0; i < RS_CAT__NR; i++)
		if (!strcmp(name, category_names[i]))
			return i;
	return -EINVAL;
}

int rs_trigger_parse(const char *name, enum rs_trigger *out)
{
	int i;

	if (!strcmp(name, "-")) {
		*out = RS_TRIG_NONE;
		return 0;
	}
	for (i = 0; i < RS_TRIG__NR; i++) {
		if (!strcmp(name, trigger_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

bool rs_category_is_flush(enum rs_category c)
{
	switch (c) {
	case RS_CAT_MEMORY:
	case RS_CAT_IO:
	case RS_CAT_BASE:
	case RS_CAT_BPF:
	case RS_CAT_CORE:
	case RS_CAT_MEMCG_WALK:
		return true;
	default:
		return false;
	}
}

bool rs_category_is_subsys(enum rs_category c)
{
	return c == RS_CAT_MEMORY || c == RS_CAT_IO || c == RS_CAT_BASE ||
	       c == RS_CAT_BPF;
}

/* Only these subsystems own a flush callback a core flush can run for. */
static bool caller_category_ok(enum rs_category c)
{
	return rs_category_is_subsys(c);
}

struct builtin {
	const char *pattern;
	enum rs_rule_role role;
	enum rs_category category;
	enum rs_trigger trigger;
};

#define IN(p, c, t)	{ p, RS_ROLE_IN, RS_CAT_##c, RS_TRIG_##t }
#define CALLER(p, c, t)	{ p, RS_ROLE_CALLER, RS_CAT_##c, RS_TRIG_##t }
#define IRQ(p)	{ p, RS_ROLE_IRQ_ENABLE, RS_CAT_OTHER, RS_TRIG_NONE }
#define TRIG(p, t)	{ p, RS_ROLE_NONE, RS_CAT_OTHER, RS_TRIG_##t }

/*
 * From docs/kernel-rstat.md. Names of every kernel since 4.15 stay in: a
 * name that no longer exists costs nothing, and one table then reads
 * recordings of old and new kernels alike.
 */
static const struct builtin builtin_rules[] = {
	/*
	 * rstat core: the tree walk and the lock, whatever the subsystem.
	 * cgroup_rstat_* 4.18-6.15 (_flush_locked, _hold to 6.14,
	 * _irqsafe to 6.3 then _atomic, _cpu_pop_updated to 6.7, then
	 * _updated_list and _push_children); css_rstat_* from 6.16;
	 * css_process_update_tree from 6.17.
	 */
	IN("cgroup_rstat_flush", CORE, NONE),
	IN("cgroup_rstat_flush_locked", CORE, NONE),
	IN("cgroup_rstat_flush_hold", CORE, NONE),
	IN("cgroup_rstat_flush_release", CORE, NONE),
	IN("cgroup_rstat_flush_irqsafe", CORE, NONE),
	IN("cgroup_rstat_flush_atomic", CORE, NONE),
	IN("cgroup_rstat_cpu_pop_updated", CORE, NONE),
	IN("cgroup_rstat_updated_list", CORE, NONE),
	IN("cgroup_rstat_push_children", CORE, NONE),
	IN("__cgroup_rstat_lock", CORE, NONE),
	IN("__cgroup_rstat_unlock", CORE, NONE),
	IN("css_rstat_flush", CORE, NONE),
	IN("css_rstat_updated_list", CORE, NONE),
	IN("css_rstat_push_children", CORE, NONE),
	IN("__css_rstat_lock", CORE, NONE),
	IN("__css_rstat_unlock", CORE, NONE),
	IN("css_process_update_tree", CORE, NONE),

	/* Base (cpu) stats; before rstat (4.15-4.17) cgroup_stat_*. */
	IN("cgroup_stat_flush", BASE, NONE),
	IN("cgroup_stat_flush_locked", BASE, NONE),
	IN("cgroup_cpu_stat_pop_updated", BASE, NONE),
	IN("cgroup_base_stat_flush", BASE, NONE),

	/* BPF-maintained stats, 6.1+. */
	IN("bpf_rstat_flush", BPF, NONE),

	/* memcg: the callback (5.13+) and every caller of the flush. */
	IN("mem_cgroup_css_rstat_flush", MEMORY, NONE),
	IN("mem_cgroup_flush_stats", MEMORY, NONE),
	IN("__mem_cgroup_flush_stats", MEMORY, NONE),
	IN("do_flush_stats", MEMORY, NONE),
	IN("mem_cgroup_flush_stats_ratelimited", MEMORY, NONE),
	IN("mem_cgroup_flush_stats_delayed", MEMORY, NONE),
	IN("mem_cgroup_flush_stats_atomic", MEMORY, NONE),
	IN("flush_memcg_stats_dwork", MEMORY, PERIODIC),

	/* blkcg: 5.5+, the __ variant from ~6.4. */
	IN("blkcg_rstat_flush", IO, NONE),
	IN("__blkcg_rstat_flush", IO, NONE),

	/* memcg statistics before rstat (<= ~5.1): a subtree walk per read. */
	IN("tree_stat", MEMCG_WALK, NONE),
	IN("tree_events", MEMCG_WALK, NONE),
	IN("accumulate_memcg_tree", MEMCG_WALK, NONE),
	IN("mem_cgroup_read_stat", MEMCG_WALK, NONE),

	/*
	 * Writers marking a cgroup updated. The double-underscore memcg
	 * names lost their underscores by 6.18 (seen in the fixtures), and
	 * css_rstat_updated gained a __css_rstat_updated body.
	 */
	IN("cgroup_rstat_updated", UPDATE, NONE),
	IN("css_rstat_updated", UPDATE, NONE),
	IN("__css_rstat_updated", UPDATE, NONE),
	IN("memcg_rstat_updated", UPDATE, NONE),
	IN("__mod_memcg_state", UPDATE, NONE),
	IN("mod_memcg_state", UPDATE, NONE),
	IN("__mod_memcg_lruvec_state", UPDATE, NONE),
	IN("mod_memcg_lruvec_state", UPDATE, NONE),
	IN("__count_memcg_events", UPDATE, NONE),
	IN("count_memcg_events", UPDATE, NONE),

	IN("psi_task_change", PSI, NONE),
	IN("psi_task_switch", PSI, NONE),
	IN("psi_group_change", PSI, NONE),
	IN("record_times", PSI, NONE),
	IN("psi_account_irqtime", PSI, NONE),
	IN("psi_avgs_work", PSI, NONE),

	/*
	 * Readers and in-kernel askers. They are callers, not flush work:
	 * from 6.16 __mem_cgroup_flush_stats ends in a tail call, so only
	 * these frames say that a css_rstat_flush below is memcg's.
	 */
	CALLER("memory_stat_show", MEMORY, MEMORY_STAT),
	CALLER("memcg_stat_show", MEMORY, MEMORY_STAT),
	CALLER("memcg_stat_format", MEMORY, MEMORY_STAT),
	CALLER("memcg1_stat_format", MEMORY, MEMORY_STAT),
	CALLER("memory_stat_format", MEMORY, MEMORY_STAT),
	CALLER("memory_numa_stat_show", MEMORY, NUMA_STAT),
	CALLER("memcg_numa_stat_show", MEMORY, NUMA_STAT),
	CALLER("cpu_stat_show", BASE, CPU_STAT),
	CALLER("cgroup_base_stat_cputime_show", BASE, CPU_STAT),
	CALLER("blkcg_print_stat", IO, IO_STAT),
	CALLER("zswap_current_read", MEMORY, ZSWAP_CURRENT),
	CALLER("shrink_node", MEMORY, RECLAIM),
	CALLER("prepare_scan_control", MEMORY, RECLAIM),
	CALLER("prepare_scan_count", MEMORY, RECLAIM),
	CALLER("workingset_refault", MEMORY, REFAULT),
	CALLER("workingset_test_recent", MEMORY, REFAULT),
	CALLER("filemap_cachestat", MEMORY, CACHESTAT),
	CALLER("count_shadow_nodes", MEMORY, SHADOW_SHRINKER),
	CALLER("balance_dirty_pages", MEMORY, WRITEBACK),
	CALLER("wb_over_bg_thresh", MEMORY, WRITEBACK),
	CALLER("mem_cgroup_wb_stats", MEMORY, WRITEBACK),
	CALLER("zswap_store", MEMORY, ZSWAP),
	CALLER("obj_cgroup_may_zswap", MEMORY, ZSWAP),
	CALLER("zswap_shrinker_count", MEMORY, ZSWAP),
	CALLER("mem_cgroup_print_oom_meminfo", MEMORY, OOM),

	/* Teardown flushes whichever css is going: no subsystem here. */
	TRIG("css_free_rwork_fn", TEARDOWN),
	TRIG("css_rstat_exit", TEARDOWN),
	TRIG("cgroup_rstat_exit", TEARDOWN),

	/*
	 * BPF programs (bpf_prog_TAG_NAME, TAG 16 hex digits; no _NAME for
	 * unnamed programs) calling the flush kfunc.
	 */
	TRIG("bpf_prog_????????????????_*", BPF),
	TRIG("bpf_prog_????????????????", BPF),

	/*
	 * The tracing machinery: a tracepoint's perf or BPF handler, the
	 * sample it writes (callchain capture included), kprobe and uprobe
	 * handlers. Called from within what they observe, they are the
	 * innermost `in` frames of a sample taken in them: the cost of
	 * observing, whatever flush they interrupted, counted as
	 * instrumentation, never as that flush's work.
	 */
	IN("perf_trace_*", INSTRUMENTATION, NONE),
	IN("perf_tp_event*", INSTRUMENTATION, NONE),
	IN("perf_swevent_*", INSTRUMENTATION, NONE),
	IN("trace_event_raw_event_*", INSTRUMENTATION, NONE),
	IN("trace_event_buffer_*", INSTRUMENTATION, NONE),
	IN("perf_trace_buf_*", INSTRUMENTATION, NONE),
	IN("perf_event_output*", INSTRUMENTATION, NONE),
	IN("perf_output_*", INSTRUMENTATION, NONE),
	IN("perf_prepare_sample", INSTRUMENTATION, NONE),
	IN("perf_callchain*", INSTRUMENTATION, NONE),
	IN("get_perf_callchain", INSTRUMENTATION, NONE),
	IN("__perf_event_overflow", INSTRUMENTATION, NONE),
	IN("bpf_trace_run*", INSTRUMENTATION, NONE),
	IN("__bpf_trace_*", INSTRUMENTATION, NONE),
	IN("trace_call_bpf", INSTRUMENTATION, NONE),
	IN("kprobe_dispatcher", INSTRUMENTATION, NONE),
	IN("kretprobe_dispatcher", INSTRUMENTATION, NONE),
	IN("kprobe_perf_func", INSTRUMENTATION, NONE),
	IN("kretprobe_perf_func", INSTRUMENTATION, NONE),
	IN("kprobe_ftrace_handler", INSTRUMENTATION, NONE),
	IN("kprobe_int3_handler", INSTRUMENTATION, NONE),
	IN("pre_handler_kretprobe", INSTRUMENTATION, NONE),
	IN("__kretprobe_trampoline_handler", INSTRUMENTATION, NONE),
	IN("uprobe_dispatcher", INSTRUMENTATION, NONE),
	IN("uretprobe_dispatcher", INSTRUMENTATION, NONE),
	IN("__uprobe_perf_func", INSTRUMENTATION, NONE),
	IN("uprobe_perf_func", INSTRUMENTATION, NONE),
	IN("handle_swbp", INSTRUMENTATION, NONE),
	IN("uprobe_notify_resume", INSTRUMENTATION, NONE),

	/*
	 * IRQ re-enable points. A clock event (cpu-clock, no PMU) cannot
	 * sample while IRQs are off, so time under the irq-disabling rstat
	 * locks lands here once they are released.
	 */
	IRQ("_raw_spin_unlock_irq"),
	IRQ("_raw_spin_unlock_irqrestore"),
	IRQ("native_irq_enable"),
	IRQ("arch_local_irq_enable"),
	IRQ("pvm_irq_enable"),
	IRQ("__raw_callee_save_pvm_irq_enable"),
	IRQ("native_restore_fl"),
	IRQ("xen_restore_fl"),
	IRQ("trace_hardirqs_on"),
	IRQ("*irq_enable*"),
	IRQ("*irq_restore*"),
	IRQ("*restore_fl*"),
	IRQ("_raw_*_unlock_irq"),
	IRQ("_raw_*_unlock_irqrestore"),
};

/*
 * Readers whose rstat lock release is inlined into them, up to the
 * kernel where that stopped. Before 6.15, cgroup_base_stat_cputime_show
 * held the lock across its flush (cgroup_rstat_flush_hold, then
 * cgroup_rstat_flush_release), and both are inlined into it on Debian's
 * 6.1 and 6.12: the flush's time, spent with IRQs off, skids to the
 * spin_unlock_irq called right in the reader. From 6.15 the lock it takes
 * itself (cpu=-1) only guards reading the totals: no flush under it.
 */
static const struct {
	const char *reader;
	enum rs_category category;
	int last_major, last_minor;
} inline_releases[] = {
	{ "cgroup_base_stat_cputime_show", RS_CAT_BASE, 6, 14 },
};

enum rs_category rules__inline_release(const char *sym, int major,
				       int minor)
{
	size_t i, len = strcspn(sym, ".");

	if (major <= 0)
		return RS_CAT_OTHER;
	for (i = 0; i < ARRAY_SIZE(inline_releases); i++) {
		if (strlen(inline_releases[i].reader) != len ||
		    strncmp(sym, inline_releases[i].reader, len))
			continue;
		if (major < inline_releases[i].last_major ||
		    (major == inline_releases[i].last_major &&
		     minor <= inline_releases[i].last_minor))
			return inline_releases[i].category;
	}
	return RS_CAT_OTHER;
}

struct rule {
	const char *pattern;	/* in the pool: stable, NUL-terminated */
	uint32_t len;
	uint32_t hash;		/* low bits of the pattern's hash */
	bool glob;
	struct rs_rule_match m;
};

struct rules {
	struct strpool *pool;
	struct rule *rules;	/* in the order first added */
	size_t nr, cap;
	uint32_t *slots;	/* every pattern: rule index + 1, 0 = empty */
	uint32_t nr_slots;
	uint32_t *globs;	/* indices of glob rules, ascending */
	size_t nr_globs, cap_globs;
	char err[ERR_SIZE];
};

/* A rule parsed from text, before it goes in. */
struct pending {
	const char *pattern;
	uint32_t len;
	struct rs_rule_match m;
};

static bool is_glob(const char *s, size_t len)
{
	return memchr(s, '*', len) || memchr(s, '?', len);
}

/*
 * '*' any run, '?' any one byte; everything else literal. Backtracking
 * only to the last '*' suffices for this syntax and keeps it O(n * m).
 */
static bool glob_match(const char *p, const char *s, size_t n)
{
	const char *star_p = NULL;
	size_t star_s = 0, i = 0;

	while (i < n) {
		if (*p == '*') {
			star_p = ++p;
			star_s = i;
		} else if (*p && (*p == '?' || *p == s[i])) {
			p++;
			i++;
		} else if (star_p) {
			p = star_p;
			i = ++star_s;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

/* The rule with this exact pattern, or -1. */
static long find_pattern(const struct rules *r, const char *s, size_t len,
			 uint64_t h)
{
	uint32_t mask = r->nr_slots - 1, j;

	for (j = h & mask; r->slots[j]; j = (j + 1) & mask) {
		const struct rule *ru = &r->rules[r->slots[j] - 1];

		if (ru->len == len && !memcmp(ru->pattern, s, len))
			return r->slots[j] - 1;
	}
	return -1;
}

static void slot_insert(uint32_t *slots, uint32_t nr_slots, uint32_t hash,
			uint32_t idx)
{
	uint32_t j = hash & (nr_slots - 1);

	while (slots[j])
		j = (j + 1) & (nr_slots - 1);
	slots[j] = idx + 1;
}

/*
 * Room for extra more rules, so that adding them cannot fail halfway:
 * the rule and glob arrays, and a slot table kept under half full.
 */
static int reserve(struct rules *r, size_t extra)
{
	size_t need = r->nr + extra;
	uint32_t n = r->nr_slots, *slots;
	size_t i;

	if (need > UINT32_MAX / 4)
		return -ENOMEM;
	if (grow_array((void **)&r->rules, &r->cap, need, sizeof(*r->rules)))
		return -ENOMEM;
	if (grow_array((void **)&r->globs, &r->cap_globs, r->nr_globs + extra,
		       sizeof(*r->globs)))
		return -ENOMEM;
	while (need * 2 > n)
		n *= 2;
	if (n == r->nr_slots)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < r->nr; i++)
		slot_insert(slots, n, r->rules[i].hash, i);
	free(r->slots);
	r->slots = slots;
	r->nr_slots = n;
	return 0;
}

/* Add or replace one rule; pattern is interned, room reserved. */
static void add_rule(struct rules *r, const char *pattern, uint32_t len,
		     const struct rs_rule_match *m)
{
	uint64_t h = hash_bytes(pattern, len);
	long idx = find_pattern(r, pattern, len, h);
	struct rule *ru;

	if (idx >= 0) {
		r->rules[idx].m = *m;
		return;
	}
	ru = &r->rules[r->nr];
	ru->pattern = pattern;
	ru->len = len;
	ru->hash = (uint32_t)h;
	ru->glob = is_glob(pattern, len);
	ru->m = *m;
	if (ru->glob)
		r->globs[r->nr_globs++] = r->nr;
	slot_insert(r->slots, r->nr_slots, ru->hash, r->nr);
	r->nr++;
}

/* Intern every pending pattern, reserve, then add: all or nothing. */
static int add_pending(struct rules *r, struct pending *p, size_t n)
{
	size_t i;
	int id;

	for (i = 0; i < n; i++) {
		id = strpool__intern(r->pool, p[i].pattern, p[i].len);
		if (id < 0)
			return -ENOMEM;
		/* Strings left in the pool on failure are merely unused. */
		p[i].pattern = strpool__str(r->pool, id);
	}
	if (reserve(r, n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		add_rule(r, p[i].pattern, p[i].len, &p[i].m);
	return 0;
}

struct rules *rules__new(void)
{
	struct rules *r = calloc(1, sizeof(*r));
	struct pending *p = NULL;
	size_t i, n = ARRAY_SIZE(builtin_rules);

	if (!r)
		return NULL;
	r->pool = strpool__new();
	r->nr_slots = 256;
	r->slots = calloc(r->nr_slots, sizeof(*r->slots));
	p = calloc(n, sizeof(*p));
	if (!r->pool || !r->slots || !p)
		goto fail;
	for (i = 0; i < n; i++) {
		p[i].pattern = builtin_rules[i].pattern;
		p[i].len = strlen(builtin_rules[i].pattern);
		p[i].m.role = builtin_rules[i].role;
		p[i].m.category = builtin_rules[i].category;
		p[i].m.trigger = builtin_rules[i].trigger;
	}
	if (add_pending(r, p, n))
		goto fail;
	free(p);
	return r;
fail:
	free(p);
	rules__delete(r);
	return NULL;
}

void rules__delete(struct rules *r)
{
	if (!r)
		return;
	strpool__delete(r->pool);
	free(r->rules);
	free(r->slots);
	free(r->globs);
	free(r);
}

const char *rules__strerror(const struct rules *r)
{
	return r->err;
}

uint32_t rules__count(const struct rules *r)
{
	return r->nr;
}

static __attribute__((format(printf, 4, 5)))
int set_err(struct rules *r, const char *name, size_t line,
	    const char *fmt, ...)
{
	size_t off;
	va_list ap;

	snprintf(r->err, sizeof(r->err), "%s:%zu: ", name, line);
	off = strlen(r->err);
	va_start(ap, fmt);
	vsnprintf(r->err + off, sizeof(r->err) - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define CATEGORY_LIST	"memory, io, base, bpf, core, update, psi, " \
			"memcg-walk, instrumentation, other"
#define TRIGGER_LIST	"memory.stat, memory.numa_stat, cpu.stat, io.stat, " \
			"zswap.current, reclaim, refault, cachestat, " \
			"shadow-shrinker, writeback, zswap, periodic, " \
			"teardown, oom, bpf, other"

/* Column 2: "-", CATEGORY, "caller:CATEGORY" or "irq-enable". */
static int parse_role(struct rules *r, const char *name, size_t line,
		      const char *tok, struct rs_rule_match *m)
{
	int c;

	m->category = RS_CAT_OTHER;
	if (!strcmp(tok, "-")) {
		m->role = RS_ROLE_NONE;
		return 0;
	}
	if (!strcmp(tok, "irq-enable")) {
		m->role = RS_ROLE_IRQ_ENABLE;
		return 0;
	}
	if (!strncmp(tok, "caller:", 7)) {
		c = rs_category_parse(tok + 7);
		if (c < 0 || !caller_category_ok(c))
			return set_err(r, name, line,
				       "bad role '%s' (expected caller:memory, caller:io, caller:base or caller:bpf)",
				       tok);
		m->role = RS_ROLE_CALLER;
		m->category = c;
		return 0;
	}
	c = rs_category_parse(tok);
	if (c < 0)
		return set_err(r, name, line,
			       "unknown category '%s' (expected -, irq-enable, caller:CATEGORY or one of " CATEGORY_LIST ")",
			       tok);
	m->role = RS_ROLE_IN;
	m->category = c;
	return 0;
}

static int check_pattern(struct rules *r, const char *name, size_t line,
			 const char *pat, size_t len)
{
	size_t i;

	if (!len)
		return set_err(r, name, line,
			       "empty pattern (expected a function name or glob)");
	if (len > PATTERN_MAX)
		return set_err(r, name, line,
			       "pattern is %zu bytes long (expected at most %d)",
			       len, PATTERN_MAX);
	for (i = 0; i < len; i++) {
		/*
		 * fnmatch() would read these as classes and escapes; no
		 * kernel symbol contains them, so reject rather than guess.
		 */
		if (pat[i] == '[' || pat[i] == ']' || pat[i] == '\\')
			return set_err(r, name, line,
				       "'%c' in pattern '%s' is not supported (expected only '*' and '?' as wildcards)",
				       pat[i], pat);
	}
	return 0;
}

/*
 * Parse one line (NUL-terminated copy, no line ending) into *p; 1 for a
 * rule, 0 for a blank or comment line, -EINVAL.
 */
static int parse_line(struct rules *r, const char *name, size_t line,
		      char *s, struct pending *p)
{
	char *tok[3];
	int n = 0;
	enum rs_trigger t;

	for (;;) {
		char *start;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			break;
		start = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (n < 3)
			tok[n] = start;
		n++;
		if (*s)
			*s++ = '\0';
	}
	if (!n)
		return 0;
	if (n != 3)
		return set_err(r, name, line,
			       "%d column%s (expected 3: PATTERN ROLE TRIGGER)",
			       n, n == 1 ? "" : "s");
	if (check_pattern(r, name, line, tok[0], strlen(tok[0])))
		return -EINVAL;
	if (parse_role(r, name, line, tok[1], &p->m))
		return -EINVAL;
	if (rs_trigger_parse(tok[2], &t))
		return set_err(r, name, line,
			       "unknown trigger '%s' (expected - or one of " TRIGGER_LIST ")",
			       tok[2]);
	p->m.trigger = t;
	p->pattern = tok[0];
	p->len = strlen(tok[0]);
	return 1;
}

static int file_err(struct rules *r, const char *path, int err)
{
	snprintf(r->err, sizeof(r->err), "%s: %s", path, strerror(err));
	return -err;
}

int rules__load_text(struct rules *r, const char *text, size_t len,
		     const char *name)
{
	struct pending *pend = NULL;
	size_t nr = 0, cap = 0, line = 0, pos = 0;
	char *copy;
	int ret = 0;

	if (!name)
		name = "<text>";
	r->err[0] = '\0';
	if (len > FILE_MAX_BYTES)
		return file_err(r, name, EFBIG);
	/*
	 * One writable copy: lines are cut in place and the pending
	 * patterns point into it until they are interned.
	 */
	copy = malloc(len + 1);
	if (!copy)
		goto nomem;
	if (len)
		memcpy(copy, text, len);
	copy[len] = '\0';
	while (pos < len) {
		char *s = copy + pos, *eol = memchr(s, '\n', len - pos);
		size_t n = eol ? (size_t)(eol - s) : len - pos, i;

		line++;
		pos += n + (eol ? 1 : 0);
		if (n > LINE_MAX_BYTES) {
			ret = set_err(r, name, line,
				      "line is longer than %d bytes (expected one rule per line)",
				      LINE_MAX_BYTES);
			goto out;
		}
		if (n && s[n - 1] == '\r')
			n--;	/* CRLF from an editor elsewhere */
		s[n] = '\0';
		for (i = 0; i < n; i++) {
			unsigned char ch = s[i];

			if (!ch) {
				ret = set_err(r, name, line,
					      "NUL byte in line (expected a text file)");
				goto out;
			}
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
				ret = set_err(r, name, line,
					      "control character 0x%02x in line (expected text)",
					      ch);
				goto out;
			}
		}
		if (grow_array((void **)&pend, &cap, nr + 1, sizeof(*pend)))
			goto nomem;
		ret = parse_line(r, name, line, s, &pend[nr]);
		if (ret < 0)
			goto out;
		nr += ret;
	}
	ret = add_pending(r, pend, nr);
	if (ret)
		goto nomem;
	goto out;
nomem:
	snprintf(r->err, sizeof(r->err), "%s: %s", name, strerror(ENOMEM));
	ret = -ENOMEM;
out:
	free(pend);
	free(copy);
	return ret;
}

int rules__load_file(struct rules *r, const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	struct stat st;
	int fd, ret;

	r->err[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return file_err(r, path, errno);
	if (fstat(fd, &st)) {
		ret = file_err(r, path, errno);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = file_err(r, path, EISDIR);
		goto out;
	}
	/* Read to EOF rather than trust st_size: pipes, <(...), /proc. */
	for (;;) {
		ssize_t n;

		if (len == cap &&
		    grow_array((void **)&buf, &cap, len + 4096, 1)) {
			ret = file_err(r, path, ENOMEM);
			goto out;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = file_err(r, path, errno);
			goto out;
		}
		if (!n)
			break;
		len += n;
		if (len > FILE_MAX_BYTES) {
			ret = file_err(r, path, EFBIG);
			goto out;
		}
	}
	ret = rules__load_text(r, buf ? buf : "", len, path);
out:
	free(buf);
	close(fd);
	return ret;
}

int rules__match(const struct rules *r, const char *sym,
		 struct rs_rule_match *m)
{
	const char *dot;
	size_t len, base, i;
	bool stripped;
	long idx;

	if (!sym)
		return 0;
	len = strlen(sym);
	idx = find_pattern(r, sym, len, hash_bytes(sym, len));
	if (idx >= 0 && !r->rules[idx].glob)
		goto found;
	/* gcc clones and splits: name.isra.0, name.constprop.0, name.cold */
	dot = strchr(sym, '.');
	base = dot ? (size_t)(dot - sym) : len;
	stripped = base && base < len;
	if (stripped) {
		idx = find_pattern(r, sym, base, hash_bytes(sym, base));
		if (idx >= 0 && !r->rules[idx].glob)
			goto found;
	}
	for (i = r->nr_globs; i-- > 0;) {
		const char *pat = r->rules[r->globs[i]].pattern;

		if (glob_match(pat, sym, len) ||
		    (stripped && glob_match(pat, sym, base))) {
			idx = r->globs[i];
			goto found;
		}
	}
	return 0;
found:
	*m = r->rules[idx].m;
	return 1;
}

static void role_str(const struct rs_rule_match *m, char *buf, size_t size)
{
	switch (m->role) {
	case RS_ROLE_IN:
		snprintf(buf, size, "%s", rs_category_name(m->category));
		break;
	case RS_ROLE_CALLER:
		snprintf(buf, size, "caller:%s",
			 rs_category_name(m->category));
		break;
	case RS_ROLE_IRQ_ENABLE:
		snprintf(buf, size, "irq-enable");
		break;
	default:
		snprintf(buf, size, "-");
		break;
	}
}

int rules__dump(const struct rules *r, FILE *out)
{
	char role[32];
	size_t i;

	errno = 0;
	if (fprintf(out, "# %-28s %-16s %s\n", "pattern", "role+category",
		    "trigger") < 0)
		goto fail;
	for (i = 0; i < r->nr; i++) {
		const struct rule *ru = &r->rules[i];

		role_str(&ru->m, role, sizeof(role));
		if (fprintf(out, "%-30s %-16s %s\n", ru->pattern, role,
			    rs_trigger_name(ru->m.trigger)) < 0)
			goto fail;
	}
	if (fflush(out) == EOF)
		goto fail;
	return 0;
fail:
	return errno ? -errno : -EIO;
}
