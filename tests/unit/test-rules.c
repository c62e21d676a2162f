// SPDX-License-Identifier: GPL-2.0
/*
 * The rule table and the stack classifier. Stacks marked "fixture" are
 * copied from tests/data/flush-mixed.script.gz (kernel 6.18, cpu-clock);
 * the pre-6.16 ones are built from the call graphs of those kernels as
 * docs/kernel-rstat.md describes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "unit.h"
#include "util.h"

/* One pool for every frame name: the classifier keys on the pointers. */
static struct strpool *pool;

static const char *intern(const char *s, size_t len)
{
	int id;

	if (!pool)
		pool = strpool__new();
	id = pool ? strpool__intern(pool, s, len) : -ENOMEM;
	return id < 0 ? NULL : strpool__str(pool, id);
}

/* The kernel classify_with() says the stacks come from; 0: unknown. */
static int kernel_major, kernel_minor;

/*
 * Classify "leaf;caller;...;root" with the rules r (built-in when NULL);
 * returns the classifier's status.
 */
static int classify_with(const struct rules *r, const char *stack,
			 struct rs_stack_class *out)
{
	struct rules *own = NULL;
	struct classifier *c;
	const char *syms[128];
	uint32_t n = 0;
	int ret;

	if (!r)
		r = own = rules__new();
	c = r ? classifier__new(r) : NULL;
	if (!c) {
		UNIT_FAIL("setup");
		rules__delete(own);
		return -ENOMEM;
	}
	if (kernel_major)
		classifier__set_kernel(c, kernel_major, kernel_minor);
	while (*stack && n < ARRAY_SIZE(syms)) {
		size_t len = strcspn(stack, ";");

		syms[n++] = intern(stack, len);
		stack += len + (stack[len] == ';');
	}
	ret = classifier__classify(c, syms, n, out);
	/* Twice: the second answer comes from the per-pointer cache. */
	if (!ret) {
		struct rs_stack_class again;

		ret = classifier__classify(c, syms, n, &again);
		if (!ret && (again.category != out->category ||
			     again.trigger != out->trigger ||
			     again.skid != out->skid ||
			     again.category_frame != out->category_frame ||
			     again.trigger_frame != out->trigger_frame))
			UNIT_FAIL("cached classification differs");
	}
	classifier__delete(c);
	rules__delete(own);
	return ret;
}

#define CHECK_CLASS_R(r, stack, cat, trig, skid_, cf, tf)		\
	do {								\
		struct rs_stack_class _c;				\
		CHECK_INT(classify_with(r, stack, &_c), 0);		\
		CHECK_STR(rs_category_name(_c.category),		\
			  rs_category_name(cat));			\
		CHECK_STR(rs_trigger_name(_c.trigger),			\
			  rs_trigger_name(trig));			\
		CHECK_INT(_c.skid, skid_);				\
		CHECK_INT(_c.category_frame, cf);			\
		CHECK_INT(_c.trigger_frame, tf);			\
	} while (0)

#define CHECK_CLASS(stack, cat, trig, skid_, cf, tf)			\
	CHECK_CLASS_R(NULL, stack, cat, trig, skid_, cf, tf)

static void test_names(void)
{
	enum rs_trigger t;
	int i;

	for (i = 0; i < RS_CAT__NR; i++)
		CHECK_INT(rs_category_parse(rs_category_name(i)), i);
	for (i = 0; i < RS_TRIG__NR; i++) {
		CHECK_INT(rs_trigger_parse(rs_trigger_name(i), &t), 0);
		CHECK_INT(t, i);
	}
	CHECK_STR(rs_category_name(RS_CAT_MEMCG_WALK), "memcg-walk");
	CHECK_STR(rs_category_name(RS_CAT__NR), "?");
	CHECK_STR(rs_trigger_name(RS_TRIG_NONE), "-");
	CHECK_STR(rs_trigger_name(RS_TRIG_NUMA_STAT), "memory.numa_stat");
	CHECK_STR(rs_trigger_name(RS_TRIG_SHADOW_SHRINKER),
		  "shadow-shrinker");
	CHECK_STR(rs_trigger_name(RS_TRIG__NR), "?");
	CHECK_INT(rs_trigger_parse("-", &t), 0);
	CHECK_INT(t, RS_TRIG_NONE);
	CHECK_INT(rs_trigger_parse("memory", &t), -EINVAL);
	CHECK_INT(rs_category_parse("-"), -EINVAL);
	CHECK_INT(rs_category_parse("Memory"), -EINVAL);
	CHECK_INT(rs_category_parse(""), -EINVAL);
	CHECK(rs_category_is_flush(RS_CAT_MEMORY));
	CHECK(rs_category_is_flush(RS_CAT_IO));
	CHECK(rs_category_is_flush(RS_CAT_BASE));
	CHECK(rs_category_is_flush(RS_CAT_BPF));
	CHECK(rs_category_is_flush(RS_CAT_CORE));
	CHECK(rs_category_is_flush(RS_CAT_MEMCG_WALK));
	CHECK(!rs_category_is_flush(RS_CAT_UPDATE));
	CHECK(!rs_category_is_flush(RS_CAT_PSI));
	CHECK(!rs_category_is_flush(RS_CAT_OTHER));
}

/* Every function docs/kernel-rstat.md names, and what it must be. */
static const struct {
	const char *sym;
	enum rs_rule_role role;
	enum rs_category cat;
	enum rs_trigger trig;
} doc_names[] = {
#define D(s, r, c, t) { s, RS_ROLE_##r, RS_CAT_##c, RS_TRIG_##t }
	D("cgroup_stat_flush", IN, BASE, NONE),
	D("cgroup_stat_flush_locked", IN, BASE, NONE),
	D("cgroup_cpu_stat_pop_updated", IN, BASE, NONE),
	D("cgroup_rstat_flush", IN, CORE, NONE),
	D("cgroup_rstat_flush_hold", IN, CORE, NONE),
	D("cgroup_rstat_flush_release", IN, CORE, NONE),
	D("cgroup_rstat_flush_locked", IN, CORE, NONE),
	D("cgroup_rstat_flush_irqsafe", IN, CORE, NONE),
	D("cgroup_rstat_flush_atomic", IN, CORE, NONE),
	D("cgroup_rstat_cpu_pop_updated", IN, CORE, NONE),
	D("cgroup_rstat_updated_list", IN, CORE, NONE),
	D("cgroup_rstat_push_children", IN, CORE, NONE),
	D("__cgroup_rstat_lock", IN, CORE, NONE),
	D("__cgroup_rstat_unlock", IN, CORE, NONE),
	D("css_rstat_flush", IN, CORE, NONE),
	D("css_rstat_updated_list", IN, CORE, NONE),
	D("css_rstat_push_children", IN, CORE, NONE),
	D("__css_rstat_lock", IN, CORE, NONE),
	D("__css_rstat_unlock", IN, CORE, NONE),
	D("css_process_update_tree", IN, CORE, NONE),
	D("cgroup_base_stat_flush", IN, BASE, NONE),
	D("bpf_rstat_flush", IN, BPF, NONE),
	D("mem_cgroup_css_rstat_flush", IN, MEMORY, NONE),
	D("mem_cgroup_flush_stats", IN, MEMORY, NONE),
	D("__mem_cgroup_flush_stats", IN, MEMORY, NONE),
	D("do_flush_stats", IN, MEMORY, NONE),
	D("mem_cgroup_flush_stats_ratelimited", IN, MEMORY, NONE),
	D("mem_cgroup_flush_stats_delayed", IN, MEMORY, NONE),
	D("mem_cgroup_flush_stats_atomic", IN, MEMORY, NONE),
	D("flush_memcg_stats_dwork", IN, MEMORY, PERIODIC),
	D("blkcg_rstat_flush", IN, IO, NONE),
	D("__blkcg_rstat_flush", IN, IO, NONE),
	D("tree_stat", IN, MEMCG_WALK, NONE),
	D("tree_events", IN, MEMCG_WALK, NONE),
	D("accumulate_memcg_tree", IN, MEMCG_WALK, NONE),
	D("mem_cgroup_read_stat", IN, MEMCG_WALK, NONE),
	D("cgroup_rstat_updated", IN, UPDATE, NONE),
	D("css_rstat_updated", IN, UPDATE, NONE),
	D("memcg_rstat_updated", IN, UPDATE, NONE),
	D("__mod_memcg_state", IN, UPDATE, NONE),
	D("__mod_memcg_lruvec_state", IN, UPDATE, NONE),
	D("__count_memcg_events", IN, UPDATE, NONE),
	D("mod_memcg_state", IN, UPDATE, NONE),
	D("psi_task_change", IN, PSI, NONE),
	D("psi_task_switch", IN, PSI, NONE),
	D("psi_group_change", IN, PSI, NONE),
	D("record_times", IN, PSI, NONE),
	D("psi_account_irqtime", IN, PSI, NONE),
	D("psi_avgs_work", IN, PSI, NONE),
	D("memory_stat_show", CALLER, MEMORY, MEMORY_STAT),
	D("memcg_stat_show", CALLER, MEMORY, MEMORY_STAT),
	D("memcg_stat_format", CALLER, MEMORY, MEMORY_STAT),
	D("memcg1_stat_format", CALLER, MEMORY, MEMORY_STAT),
	D("memory_stat_format", CALLER, MEMORY, MEMORY_STAT),
	D("memory_numa_stat_show", CALLER, MEMORY, NUMA_STAT),
	D("memcg_numa_stat_show", CALLER, MEMORY, NUMA_STAT),
	D("cpu_stat_show", CALLER, BASE, CPU_STAT),
	D("cgroup_base_stat_cputime_show", CALLER, BASE, CPU_STAT),
	D("blkcg_print_stat", CALLER, IO, IO_STAT),
	D("zswap_current_read", CALLER, MEMORY, ZSWAP_CURRENT),
	D("shrink_node", CALLER, MEMORY, RECLAIM),
	D("prepare_scan_control", CALLER, MEMORY, RECLAIM),
	D("prepare_scan_count", CALLER, MEMORY, RECLAIM),
	D("workingset_refault", CALLER, MEMORY, REFAULT),
	D("workingset_test_recent", CALLER, MEMORY, REFAULT),
	D("filemap_cachestat", CALLER, MEMORY, CACHESTAT),
	D("count_shadow_nodes", CALLER, MEMORY, SHADOW_SHRINKER),
	D("balance_dirty_pages", CALLER, MEMORY, WRITEBACK),
	D("wb_over_bg_thresh", CALLER, MEMORY, WRITEBACK),
	D("mem_cgroup_wb_stats", CALLER, MEMORY, WRITEBACK),
	D("zswap_store", CALLER, MEMORY, ZSWAP),
	D("obj_cgroup_may_zswap", CALLER, MEMORY, ZSWAP),
	D("zswap_shrinker_count", CALLER, MEMORY, ZSWAP),
	D("css_free_rwork_fn", NONE, OTHER, TEARDOWN),
	D("css_rstat_exit", NONE, OTHER, TEARDOWN),
	D("cgroup_rstat_exit", NONE, OTHER, TEARDOWN),
	D("mem_cgroup_print_oom_meminfo", CALLER, MEMORY, OOM),
	D("bpf_prog_6deef7357e7b4530_sd_fw_ingress", NONE, OTHER, BPF),
	D("bpf_prog_6deef7357e7b4530", NONE, OTHER, BPF),
	D("_raw_spin_unlock_irq", IRQ_ENABLE, OTHER, NONE),
	D("_raw_spin_unlock_irqrestore", IRQ_ENABLE, OTHER, NONE),
	D("pvm_irq_enable", IRQ_ENABLE, OTHER, NONE),
	D("__raw_callee_save_pvm_irq_enable", IRQ_ENABLE, OTHER, NONE),
	D("native_irq_enable", IRQ_ENABLE, OTHER, NONE),
	D("arch_local_irq_enable", IRQ_ENABLE, OTHER, NONE),
	D("arch_local_irq_restore", IRQ_ENABLE, OTHER, NONE),
	D("xen_restore_fl_direct", IRQ_ENABLE, OTHER, NONE),
	D("trace_hardirqs_on", IRQ_ENABLE, OTHER, NONE),
	D("_raw_read_unlock_irqrestore", IRQ_ENABLE, OTHER, NONE),
#undef D
};

static void test_builtin_table(void)
{
	struct rules *r = rules__new();
	struct rs_rule_match m;
	size_t i;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_STR(rules__strerror(r), "");
	for (i = 0; i < ARRAY_SIZE(doc_names); i++) {
		const char *s = doc_names[i].sym;

		if (rules__match(r, s, &m) != 1) {
			UNIT_FAIL("no rule for %s", s);
			continue;
		}
		if (m.role != doc_names[i].role ||
		    m.category != doc_names[i].cat ||
		    m.trigger != doc_names[i].trig)
			UNIT_FAIL("%s: role %d %s %s", s, m.role,
				  rs_category_name(m.category),
				  rs_trigger_name(m.trigger));
	}
	/* Not rules: near misses of the globs and ordinary functions. */
	CHECK_INT(rules__match(r, "bpf_prog_6deef73_x", &m), 0);
	CHECK_INT(rules__match(r, "__raw_callee_save_pvm_irq_disable", &m),
		  0);
	CHECK_INT(rules__match(r, "__restore_rt", &m), 0);
	CHECK_INT(rules__match(r, "finish_task_switch.isra.0", &m), 0);
	CHECK_INT(rules__match(r, "seq_read_iter", &m), 0);
	CHECK_INT(rules__match(r, "", &m), 0);
	CHECK_INT(rules__match(r, NULL, &m), 0);
	rules__delete(r);
}

static char *dump(const struct rules *r);

/*
 * Every category and trigger can come out of some built-in rule: read the
 * table back from its dump, and check each line against rules__match().
 */
static void test_builtin_reach(void)
{
	bool cat[RS_CAT__NR] = { 0 }, trig[RS_TRIG__NR] = { 0 };
	bool caller[RS_CAT__NR] = { 0 };
	struct rules *r = rules__new();
	struct rs_rule_match m;
	char *text, *line, *save = NULL;
	uint32_t lines = 0;
	int k;

	if (!r) {
		UNIT_FAIL("rules__new");
		return;
	}
	text = dump(r);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char pat[256], role[64], tname[64];
		enum rs_trigger t;
		int c;

		if (line[0] == '#')
			continue;
		lines++;
		if (sscanf(line, "%255s %63s %63s", pat, role, tname) != 3 ||
		    rs_trigger_parse(tname, &t)) {
			UNIT_FAIL("bad dump line '%s'", line);
			continue;
		}
		if (t != RS_TRIG_NONE)
			trig[t] = true;
		if (!strncmp(role, "caller:", 7)) {
			c = rs_category_parse(role + 7);
			if (c >= 0)
				caller[c] = true;
		} else {
			c = rs_category_parse(role);
			if (c >= 0)
				cat[c] = true;
		}
		/* Globs are checked with the names of test_builtin_table. */
		if (strchr(pat, '*') || strchr(pat, '?'))
			continue;
		if (rules__match(r, pat, &m) != 1 || m.trigger != t ||
		    (c >= 0 && (int)m.category != c))
			UNIT_FAIL("%s does not match its own rule", pat);
	}
	free(text);
	CHECK_U64(lines, rules__count(r));
	/*
	 * "other" is what no rule says (category: no `in` frame; trigger:
	 * a flush with no trigger frame, counted by the attribution), so
	 * it needs no built-in rule.
	 */
	for (k = 0; k < RS_CAT__NR; k++)
		if (k != RS_CAT_OTHER && !cat[k])
			UNIT_FAIL("no built-in rule is in %s",
				  rs_category_name(k));
	for (k = 0; k < RS_TRIG__NR; k++)
		if (k != RS_TRIG_OTHER && !trig[k])
			UNIT_FAIL("no built-in rule triggers %s",
				  rs_trigger_name(k));
	CHECK(caller[RS_CAT_MEMORY] && caller[RS_CAT_BASE] &&
	      caller[RS_CAT_IO]);
	rules__delete(r);
}

/* Fixture: a cpu.stat read on 6.18, the sample inside the flush. */
#define CPU_STAT_TAIL "cgroup_base_stat_cputime_show;cpu_stat_show;" \
	"seq_read_iter;vfs_read;ksys_read;do_syscall_64;" \
	"entry_SYSCALL_64_after_hwframe;read;[unknown]"
#define MEM_STAT_TAIL "memcg1_stat_format;memory_stat_show;" \
	"seq_read_iter;vfs_read;ksys_read;do_syscall_64;" \
	"entry_SYSCALL_64_after_hwframe;read;[unknown]"
#define SKID_HEAD "pvm_irq_enable;__raw_callee_save_pvm_irq_enable;" \
	"_raw_spin_unlock_irq;"

static void test_fixture_stacks(void)
{
	/* css_rstat_flush is core; the reader above names the subsystem. */
	CHECK_CLASS("css_rstat_flush;" CPU_STAT_TAIL,
		    RS_CAT_BASE, RS_TRIG_CPU_STAT, false, 0, 2);
	CHECK_CLASS("css_rstat_flush;" MEM_STAT_TAIL,
		    RS_CAT_MEMORY, RS_TRIG_MEMORY_STAT, false, 0, 2);
	/* IRQ-off time under the rstat lock surfaces at the unlock. */
	CHECK_CLASS(SKID_HEAD "css_rstat_flush;" CPU_STAT_TAIL,
		    RS_CAT_BASE, RS_TRIG_CPU_STAT, true, 3, 5);
	CHECK_CLASS(SKID_HEAD "css_rstat_flush;" MEM_STAT_TAIL,
		    RS_CAT_MEMORY, RS_TRIG_MEMORY_STAT, true, 3, 5);
	/* The lock tracepoint's own stack (compiler-suffixed name). */
	CHECK_CLASS("__css_rstat_lock.isra.0;css_rstat_flush;" CPU_STAT_TAIL,
		    RS_CAT_BASE, RS_TRIG_CPU_STAT, false, 0, 3);
	/* cpu=-1: the short lock cgroup_base_stat_cputime_show takes. */
	CHECK_CLASS("__css_rstat_lock.isra.0;" CPU_STAT_TAIL,
		    RS_CAT_BASE, RS_TRIG_CPU_STAT, false, 0, 2);
	/* ...whose unlock, with no flush frame left, is not flush time. */
	CHECK_CLASS(SKID_HEAD CPU_STAT_TAIL,
		    RS_CAT_OTHER, RS_TRIG_CPU_STAT, false, -1, 4);
	/* The periodic worker flushing the memcg tree. */
	CHECK_CLASS("__css_rstat_lock.isra.0;css_rstat_flush;"
		    "flush_memcg_stats_dwork;process_one_work;worker_thread;"
		    "kthread;ret_from_fork;ret_from_fork_asm",
		    RS_CAT_MEMORY, RS_TRIG_PERIODIC, false, 0, 2);
	/*
	 * A sample in the memcg_flush_stats tracepoint's perf handler, under
	 * the memcg caller: the recorder's work, not the flush's (issue 13),
	 * and so no skid either.
	 */
	CHECK_CLASS("pvm_irq_enable;__raw_callee_save_pvm_irq_enable;"
		    "perf_swevent_event;perf_tp_event;"
		    "perf_trace_memcg_flush_stats;__mem_cgroup_flush_stats;"
		    MEM_STAT_TAIL,
		    RS_CAT_INSTRUMENTATION, RS_TRIG_MEMORY_STAT, false, 2, 7);
	CHECK_CLASS("perf_output_sample;perf_event_output_forward;"
		    "__perf_event_overflow;perf_swevent_event;perf_tp_event;"
		    "perf_trace_cgroup_rstat;__css_rstat_lock;css_rstat_flush;"
		    CPU_STAT_TAIL,
		    RS_CAT_INSTRUMENTATION, RS_TRIG_CPU_STAT, false, 0, 9);
	CHECK_CLASS("bpf_prog_0123456789abcdef_spans;bpf_trace_run2;"
		    "__bpf_trace_cgroup_rstat;__css_rstat_unlock;"
		    "css_rstat_flush;" CPU_STAT_TAIL,
		    RS_CAT_INSTRUMENTATION, RS_TRIG_CPU_STAT, false, 1, 6);
	/* The same IRQ re-enable leaf in the scheduler: no flush, no skid. */
	CHECK_CLASS("pvm_irq_enable;__raw_callee_save_pvm_irq_enable;"
		    "finish_task_switch.isra.0;__schedule;schedule;"
		    "do_nanosleep;hrtimer_nanosleep;common_nsleep;"
		    "__x64_sys_clock_nanosleep;do_syscall_64;"
		    "entry_SYSCALL_64_after_hwframe;"
		    "clock_nanosleep@GLIBC_2.2.5;[unknown];[unknown]",
		    RS_CAT_OTHER, RS_TRIG_NONE, false, -1, -1);
	/* Formatting memory.stat after the flush: a trigger, no flush. */
	CHECK_CLASS("number;vsnprintf;seq_buf_printf;" MEM_STAT_TAIL,
		    RS_CAT_OTHER, RS_TRIG_MEMORY_STAT, false, -1, 4);
	/* Update side: a charge marking the memcg updated. */
	CHECK_CLASS("__css_rstat_updated;mod_memcg_state;"
		    "obj_cgroup_charge_pages;obj_cgroup_charge_account;"
		    "__memcg_slab_post_alloc_hook;__kvmalloc_node_noprof;"
		    "seq_read_iter;vfs_read;ksys_read;do_syscall_64",
		    RS_CAT_UPDATE, RS_TRIG_NONE, false, 0, -1);
	CHECK_CLASS("mod_memcg_lruvec_state;__lruvec_stat_mod_folio;"
		    "folio_remove_rmap_ptes;unmap_page_range",
		    RS_CAT_UPDATE, RS_TRIG_NONE, false, 0, -1);
}

static void test_old_kernels(void)
{
	/* 5.13-6.15: one lock, the callback names the subsystem. */
	CHECK_CLASS("mem_cgroup_css_rstat_flush;cgroup_rstat_flush_locked;"
		    "cgroup_rstat_flush;mem_cgroup_flush_stats;"
		    "memory_stat_show;seq_read_iter;vfs_read",
		    RS_CAT_MEMORY, RS_TRIG_MEMORY_STAT, false, 0, 4);
	/* memcg asked, but the base callback is what ran: base, reclaim. */
	CHECK_CLASS("cgroup_base_stat_flush;cgroup_rstat_flush_locked;"
		    "mem_cgroup_flush_stats;shrink_node;do_try_to_free_pages",
		    RS_CAT_BASE, RS_TRIG_RECLAIM, false, 0, 3);
	CHECK_CLASS("__blkcg_rstat_flush;blkcg_rstat_flush;"
		    "cgroup_rstat_flush_locked;cgroup_rstat_flush;"
		    "blkcg_print_stat;seq_read_iter",
		    RS_CAT_IO, RS_TRIG_IO_STAT, false, 0, 4);
	CHECK_CLASS("bpf_rstat_flush;cgroup_rstat_flush_locked;"
		    "cgroup_rstat_flush;"
		    "bpf_prog_0123456789abcdef_cgroup_iter;bpf_iter_run_prog",
		    RS_CAT_BPF, RS_TRIG_BPF, false, 0, 3);
	/* Tree walk in the core, under the memcg flush caller. */
	CHECK_CLASS("cgroup_rstat_cpu_pop_updated;cgroup_rstat_flush_locked;"
		    "cgroup_rstat_flush_irqsafe;mem_cgroup_flush_stats;"
		    "workingset_refault;filemap_fault",
		    RS_CAT_MEMORY, RS_TRIG_REFAULT, false, 0, 4);
	/* Pre-rstat kernels. */
	CHECK_CLASS("cgroup_cpu_stat_pop_updated;cgroup_stat_flush_locked;"
		    "cgroup_stat_flush;cgroup_base_stat_cputime_show;"
		    "cpu_stat_show",
		    RS_CAT_BASE, RS_TRIG_CPU_STAT, false, 0, 4);
	CHECK_CLASS("tree_stat;memcg_stat_show;seq_read",
		    RS_CAT_MEMCG_WALK, RS_TRIG_MEMORY_STAT, false, 0, 1);
	/* 6.8-6.15 tree walk, skid under the lock, nothing above. */
	CHECK_CLASS("_raw_spin_unlock_irq;__cgroup_rstat_unlock;"
		    "cgroup_rstat_flush;css_release_work_fn",
		    RS_CAT_CORE, RS_TRIG_NONE, true, 1, -1);
}

/*
 * Before 6.15 the base reader held the rstat lock across its flush and
 * released it inline: seen on 6.1 in a guest, cpu-clock samples of the
 * flush land in "_raw_spin_unlock_irq;cgroup_base_stat_cputime_show".
 */
static void test_inline_release(void)
{
	static const struct { int major, minor; bool flush; } kernels[] = {
		{ 6, 1, true }, { 6, 12, true }, { 6, 14, true },
		{ 5, 15, true }, { 6, 15, false }, { 6, 18, false },
		{ 7, 0, false }, { 0, 0, false },
	};
	struct rules *r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kernels); i++) {
		kernel_major = kernels[i].major;
		kernel_minor = kernels[i].minor;
		if (kernels[i].flush) {
			CHECK_CLASS("_raw_spin_unlock_irq;" CPU_STAT_TAIL,
				    RS_CAT_BASE, RS_TRIG_CPU_STAT, true, 1, 2);
			CHECK_CLASS(SKID_HEAD CPU_STAT_TAIL, RS_CAT_BASE,
				    RS_TRIG_CPU_STAT, true, 3, 4);
		} else {
			CHECK_CLASS("_raw_spin_unlock_irq;" CPU_STAT_TAIL,
				    RS_CAT_OTHER, RS_TRIG_CPU_STAT, false, -1,
				    2);
		}
	}
	kernel_major = 6;
	kernel_minor = 1;
	/* Formatting after the release: no IRQ re-enable leaf, no flush. */
	CHECK_CLASS("seq_printf;" CPU_STAT_TAIL,
		    RS_CAT_OTHER, RS_TRIG_CPU_STAT, false, -1, 2);
	/* An unlock under another frame than the reader's. */
	CHECK_CLASS("_raw_spin_unlock_irq;cputime_adjust;" CPU_STAT_TAIL,
		    RS_CAT_OTHER, RS_TRIG_CPU_STAT, false, -1, 3);
	/* blkcg_print_stat's own queue_lock unlocks are no flush's. */
	CHECK_CLASS("_raw_spin_unlock_irq;blkcg_print_stat;seq_read_iter",
		    RS_CAT_OTHER, RS_TRIG_IO_STAT, false, -1, 1);
	/* A flush frame in the stack still decides, as ever. */
	CHECK_CLASS("_raw_spin_unlock_irq;cgroup_rstat_flush_locked;"
		    CPU_STAT_TAIL, RS_CAT_BASE, RS_TRIG_CPU_STAT, true, 1, 3);
	/* A rule file that takes the reader's role away turns it off. */
	r = rules__new();
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(rules__load_text(r,
			  "cgroup_base_stat_cputime_show - cpu.stat\n", 41,
			  "t"), 0);
		CHECK_CLASS_R(r, "_raw_spin_unlock_irq;" CPU_STAT_TAIL,
			      RS_CAT_OTHER, RS_TRIG_CPU_STAT, false, -1, 2);
		rules__delete(r);
	}
	CHECK_INT(rules__inline_release("cgroup_base_stat_cputime_show.cold",
					6, 1), RS_CAT_BASE);
	CHECK_INT(rules__inline_release("cpu_stat_show", 6, 1), RS_CAT_OTHER);
	kernel_major = 0;
	kernel_minor = 0;
}

/*
 * The inline release is worked out once per frame name and cached with
 * its rule outcome: a kernel set after some stacks were classified must
 * still decide the next ones.
 */
static void test_inline_release_kernel_change(void)
{
	static const char stack[] = "_raw_spin_unlock_irq;" CPU_STAT_TAIL;
	struct rules *r = rules__new();
	struct classifier *c = r ? classifier__new(r) : NULL;
	const char *syms[8];
	struct rs_stack_class cl;
	const char *p = stack;
	uint32_t n = 0;

	CHECK(c != NULL);
	if (!c) {
		rules__delete(r);
		return;
	}
	while (*p && n < ARRAY_SIZE(syms)) {
		size_t len = strcspn(p, ";");

		syms[n++] = intern(p, len);
		p += len + (p[len] == ';');
	}
	CHECK_INT(classifier__classify(c, syms, n, &cl), 0);
	CHECK_INT(cl.category, RS_CAT_OTHER);
	classifier__set_kernel(c, 6, 1);
	CHECK_INT(classifier__classify(c, syms, n, &cl), 0);
	CHECK_INT(cl.category, RS_CAT_BASE);
	CHECK_INT(cl.category_frame, 1);
	classifier__set_kernel(c, 6, 18);
	CHECK_INT(classifier__classify(c, syms, n, &cl), 0);
	CHECK_INT(cl.category, RS_CAT_OTHER);
	classifier__delete(c);
	rules__delete(r);
}

static void test_suffixes(void)
{
	CHECK_CLASS("css_rstat_updated_list.isra.0;css_rstat_flush.cold;"
		    "cgroup_base_stat_cputime_show.constprop.0;"
		    "cpu_stat_show.part.0",
		    RS_CAT_BASE, RS_TRIG_CPU_STAT, false, 0, 3);
	CHECK_CLASS("native_irq_enable.part.0;css_rstat_flush",
		    RS_CAT_CORE, RS_TRIG_NONE, true, 1, -1);
}

/*
 * The innermost frame naming a subsystem, `in` or `caller`: what names a
 * lock event whose stack has no flush frame (an unlock inlined into its
 * reader), while the sample itself stays out of the flush categories.
 */
static void test_named_subsystem(void)
{
	static const struct {
		const char *stack;
		enum rs_category category, named;
	} t[] = {
		{ "cgroup_base_stat_cputime_show;cpu_stat_show;seq_read_iter",
		  RS_CAT_OTHER, RS_CAT_BASE },
		{ "memcg1_stat_format;memory_stat_show;seq_read_iter",
		  RS_CAT_OTHER, RS_CAT_MEMORY },
		{ "mem_cgroup_css_rstat_flush;css_rstat_flush;"
		  "cgroup_base_stat_cputime_show",
		  RS_CAT_MEMORY, RS_CAT_MEMORY },
		{ "css_rstat_flush;blkcg_print_stat", RS_CAT_IO, RS_CAT_IO },
		{ "schedule;do_nanosleep", RS_CAT_OTHER, RS_CAT_OTHER },
	};
	struct rs_stack_class c;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		CHECK_INT(classify_with(NULL, t[i].stack, &c), 0);
		CHECK_STR(rs_category_name(c.category),
			  rs_category_name(t[i].category));
		CHECK_STR(rs_category_name(c.named),
			  rs_category_name(t[i].named));
	}
}

static void test_trigger_and_core(void)
{
	/* A reclaim inside a memory.stat read: the read asked first. */
	CHECK_CLASS("mem_cgroup_css_rstat_flush;cgroup_rstat_flush;"
		    "mem_cgroup_flush_stats;shrink_node;"
		    "try_to_free_mem_cgroup_pages;try_charge_memcg;"
		    "__kmalloc;memcg_stat_show;seq_read",
		    RS_CAT_MEMORY, RS_TRIG_MEMORY_STAT, false, 0, 7);
	/* Core with nothing naming a subsystem stays core. */
	CHECK_CLASS("css_rstat_updated_list;css_rstat_flush",
		    RS_CAT_CORE, RS_TRIG_NONE, false, 0, -1);
	CHECK_CLASS("css_process_update_tree;css_rstat_updated_list;"
		    "css_rstat_flush;css_rstat_exit;css_free_rwork_fn;"
		    "process_one_work",
		    RS_CAT_CORE, RS_TRIG_TEARDOWN, false, 0, 4);
	CHECK_CLASS("css_rstat_flush;blkcg_print_stat",
		    RS_CAT_IO, RS_TRIG_IO_STAT, false, 0, 1);
	/* A BPF program is a trigger, not a subsystem. */
	CHECK_CLASS("css_rstat_flush;bpf_prog_0123456789abcdef_dump;"
		    "bpf_trace_run2",
		    RS_CAT_CORE, RS_TRIG_BPF, false, 0, 1);
	/* PSI is neither flush nor skid. */
	CHECK_CLASS("_raw_spin_unlock_irq;psi_group_change;psi_task_switch;"
		    "__schedule;schedule",
		    RS_CAT_PSI, RS_TRIG_NONE, false, 1, -1);
	CHECK_CLASS("record_times;psi_group_change;psi_task_change",
		    RS_CAT_PSI, RS_TRIG_NONE, false, 0, -1);
	/* Update inside a flush-triggering path stays update. */
	CHECK_CLASS("memcg_rstat_updated;__mod_memcg_lruvec_state;"
		    "shrink_node",
		    RS_CAT_UPDATE, RS_TRIG_RECLAIM, false, 0, 2);
	/* Empty stacks and NULL frames. */
	CHECK_CLASS("", RS_CAT_OTHER, RS_TRIG_NONE, false, -1, -1);
	{
		struct rules *r = rules__new();
		struct classifier *c = r ? classifier__new(r) : NULL;
		const char *syms[] = { NULL, intern("css_rstat_flush", 15) };
		struct rs_stack_class cls;

		CHECK(c != NULL);
		if (c) {
			CHECK_INT(classifier__classify(c, syms, 2, &cls), 0);
			CHECK_INT(cls.category, RS_CAT_CORE);
			CHECK_INT(cls.category_frame, 1);
		}
		classifier__delete(c);
		rules__delete(r);
	}
}

/* Many distinct names: the classifier's cache grows past its table. */
static void test_cache_growth(void)
{
	struct rules *r = rules__new();
	struct classifier *c = r ? classifier__new(r) : NULL;
	const char *syms[2];
	struct rs_stack_class cls;
	char buf[32];
	int i;

	if (!c) {
		UNIT_FAIL("setup");
		rules__delete(r);
		return;
	}
	syms[1] = intern("css_rstat_flush", 15);
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "func_%d", i);
		syms[0] = intern(buf, strlen(buf));
		if (classifier__classify(c, syms, 2, &cls) ||
		    cls.category != RS_CAT_CORE) {
			UNIT_FAIL("frame %d", i);
			break;
		}
	}
	syms[0] = intern("pvm_irq_enable", 14);
	CHECK_INT(classifier__classify(c, syms, 2, &cls), 0);
	CHECK(cls.skid);
	classifier__delete(c);
	rules__delete(r);
}

static char *dump(const struct rules *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("");
	if (rules__dump(r, f))
		UNIT_FAIL("rules__dump");
	fclose(f);
	return buf;
}

#define LOAD(r, text) rules__load_text(r, text, strlen(text), "user.rules")

static void test_user_rules(void)
{
	struct rules *r = rules__new();
	struct rs_rule_match m;
	uint32_t n;
	char *before, *after;

	if (!r) {
		UNIT_FAIL("rules__new");
		return;
	}
	n = rules__count(r);
	before = dump(r);
	/* Same pattern: replaced in place, nothing added. */
	CHECK_INT(LOAD(r, "css_rstat_flush   io   io.stat\n"), 0);
	CHECK_INT(rules__count(r), n);
	CHECK_INT(rules__match(r, "css_rstat_flush", &m), 1);
	CHECK_INT(m.role, RS_ROLE_IN);
	CHECK_INT(m.category, RS_CAT_IO);
	CHECK_INT(m.trigger, RS_TRIG_IO_STAT);
	after = dump(r);
	/* The dump shows the new rule where the built-in one was. */
	CHECK(strstr(before, "\ncss_rstat_flush ") - before ==
	      strstr(after, "\ncss_rstat_flush ") - after);
	CHECK(strstr(after, "\ncss_rstat_flush                io               "
		     "io.stat\n") != NULL);
	free(before);
	free(after);

	/* Neutralise: exact beats the built-in globs. */
	CHECK_CLASS_R(r, "pvm_irq_enable;_raw_spin_unlock_irq;"
		      "mem_cgroup_css_rstat_flush",
		      RS_CAT_MEMORY, RS_TRIG_NONE, true, 2, -1);
	CHECK_INT(LOAD(r, "# no skid at the PV hook\n"
		       "pvm_irq_enable - -\n"), 0);
	CHECK_INT(rules__count(r), n);
	CHECK_INT(rules__match(r, "pvm_irq_enable", &m), 1);
	CHECK_INT(m.role, RS_ROLE_NONE);
	CHECK_INT(m.trigger, RS_TRIG_NONE);
	CHECK_CLASS_R(r, "pvm_irq_enable;_raw_spin_unlock_irq;"
		      "mem_cgroup_css_rstat_flush",
		      RS_CAT_MEMORY, RS_TRIG_NONE, false, 2, -1);

	/* Globs: later files first, but any exact name beats them. */
	CHECK_INT(LOAD(r, "pvm_*\t\tcaller:bpf\tbpf\n"
		       "my_flush_?_*  io  io.stat  # trailing comment\n"
		       "*_ender memcg-walk -\n"), 0);
	CHECK_INT(rules__count(r), n + 3);
	CHECK_INT(rules__match(r, "pvm_irq_enable", &m), 1);
	CHECK_INT(m.role, RS_ROLE_NONE);
	CHECK_INT(rules__match(r, "pvm_irq_enable_x", &m), 1);
	CHECK_INT(m.role, RS_ROLE_CALLER);
	CHECK_INT(m.category, RS_CAT_BPF);
	CHECK_INT(rules__match(r, "__raw_callee_save_pvm_irq_enable", &m), 1);
	CHECK_INT(m.role, RS_ROLE_IRQ_ENABLE);
	CHECK_INT(rules__match(r, "native_irq_enable_hook", &m), 1);
	CHECK_INT(m.role, RS_ROLE_IRQ_ENABLE);
	CHECK_CLASS_R(r, "my_flush_a_b.cold;css_rstat_flush",
		      RS_CAT_IO, RS_TRIG_IO_STAT, false, 0, 1);
	CHECK_INT(rules__match(r, "my_flush_ab", &m), 0);
	/* Globs see the stripped name too: "a_ender.cold" -> "a_ender". */
	CHECK_INT(rules__match(r, "a_ender.cold", &m), 1);
	CHECK_INT(m.category, RS_CAT_MEMCG_WALK);
	CHECK_INT(rules__match(r, "a_ender_not", &m), 0);

	/* A rule for a name the table lacks, then override it again. */
	CHECK_INT(LOAD(r, "my_reader caller:memory cachestat\r\n"
		       "my_reader caller:base cpu.stat\r\n"), 0);
	CHECK_INT(rules__count(r), n + 4);
	CHECK_CLASS_R(r, "css_rstat_updated_list;my_reader",
		      RS_CAT_BASE, RS_TRIG_CPU_STAT, false, 0, 1);
	rules__delete(r);
}

static void test_dump_reloads(void)
{
	struct rules *r = rules__new(), *r2 = rules__new();
	char *a, *b;

	if (!r || !r2) {
		UNIT_FAIL("rules__new");
		goto out;
	}
	CHECK_INT(LOAD(r, "css_rstat_flush memory -\n"
		       "extra_glob_* psi oom\n"
		       "extra_exact irq-enable teardown\n"
		       "extra_caller caller:io -\n"
		       "shrink_node - -\n"), 0);
	a = dump(r);
	CHECK(strncmp(a, "# pattern", 9) == 0);
	CHECK(strstr(a, "\nmemcg1_stat_format             caller:memory    "
		     "memory.stat\n") != NULL);
	CHECK(strstr(a, "\n_raw_spin_unlock_irq           irq-enable       "
		     "-\n") != NULL);
	CHECK(strstr(a, "\nflush_memcg_stats_dwork        memory           "
		     "periodic\n") != NULL);
	CHECK(strstr(a, "\nshrink_node                    -                "
		     "-\n") != NULL);
	CHECK_INT(rules__load_text(r2, a, strlen(a), "dump"), 0);
	CHECK_INT(rules__count(r2), rules__count(r));
	b = dump(r2);
	CHECK_STR(b, a);
	free(b);
	/* Reloading into itself changes nothing either. */
	CHECK_INT(rules__load_text(r, a, strlen(a), "dump"), 0);
	b = dump(r);
	CHECK_STR(b, a);
	free(b);
	free(a);
out:
	rules__delete(r);
	rules__delete(r2);
}

/* A bad line: -EINVAL, the message, and the table left as it was. */
#define CHECK_BAD(text, msg)						\
	do {								\
		struct rules *_r = rules__new();			\
		char *_a, *_b;						\
		if (!_r) {						\
			UNIT_FAIL("rules__new");			\
			break;						\
		}							\
		_a = dump(_r);						\
		CHECK_INT(rules__load_text(_r, text, sizeof(text) - 1,	\
					   "my.rules"), -EINVAL);	\
		CHECK_STR(rules__strerror(_r), msg);			\
		_b = dump(_r);						\
		CHECK_STR(_b, _a);					\
		free(_a);						\
		free(_b);						\
		rules__delete(_r);					\
	} while (0)

#define GOOD "# ok\n\nfoo core -\n"

static void test_syntax_errors(void)
{
	CHECK_BAD(GOOD "bar memory\n",
		  "my.rules:4: 2 columns (expected 3: PATTERN ROLE TRIGGER)");
	CHECK_BAD(GOOD "bar memory - x\n",
		  "my.rules:4: 4 columns (expected 3: PATTERN ROLE TRIGGER)");
	CHECK_BAD("   bar\n",
		  "my.rules:1: 1 column (expected 3: PATTERN ROLE TRIGGER)");
	CHECK_BAD(GOOD "bar mem -\n",
		  "my.rules:4: unknown category 'mem' (expected -, irq-enable, caller:CATEGORY or one of memory, io, base, bpf, core, update, psi, memcg-walk, instrumentation, other)");
	CHECK_BAD(GOOD "bar caller:core -\n",
		  "my.rules:4: bad role 'caller:core' (expected caller:memory, caller:io, caller:base or caller:bpf)");
	CHECK_BAD(GOOD "bar caller: -\n",
		  "my.rules:4: bad role 'caller:' (expected caller:memory, caller:io, caller:base or caller:bpf)");
	CHECK_BAD(GOOD "bar core memory-stat\n",
		  "my.rules:4: unknown trigger 'memory-stat' (expected - or one of memory.stat, memory.numa_stat, cpu.stat, io.stat, zswap.current, reclaim, refault, cachestat, shadow-shrinker, writeback, zswap, periodic, teardown, oom, bpf, other)");
	CHECK_BAD("b[ae]r core -\n",
		  "my.rules:1: '[' in pattern 'b[ae]r' is not supported (expected only '*' and '?' as wildcards)");
	CHECK_BAD("bar\\* core -\n",
		  "my.rules:1: '\\' in pattern 'bar\\*' is not supported (expected only '*' and '?' as wildcards)");
	CHECK_BAD("a\0b core -\n",
		  "my.rules:1: NUL byte in line (expected a text file)");
	CHECK_BAD("ok core -\r\nbad\rx core -\r\n",
		  "my.rules:2: control character 0x0d in line (expected text)");
	{
		/* 256 bytes of pattern; 255 is fine. */
		char text[600], msg[128];
		struct rules *r = rules__new();

		if (!r) {
			UNIT_FAIL("rules__new");
			return;
		}
		memset(text, 'a', 255);
		strcpy(text + 255, " core -\n");
		CHECK_INT(LOAD(r, text), 0);
		memset(text, 'b', 256);
		strcpy(text + 256, " core -\n");
		CHECK_INT(rules__load_text(r, text, strlen(text), "long"),
			  -EINVAL);
		snprintf(msg, sizeof(msg),
			 "long:1: pattern is 256 bytes long (expected at most 255)");
		CHECK_STR(rules__strerror(r), msg);
		rules__delete(r);
	}
}

static void test_long_lines(void)
{
	struct rules *r = rules__new();
	size_t len = 4096 + 64;
	char *text = malloc(len + 1);

	if (!r || !text) {
		UNIT_FAIL("setup");
		goto out;
	}
	/* Line 2: 4096 bytes of comment pass; line 3: 4097 do not. */
	strcpy(text, "x core -\n#");
	memset(text + 10, 'c', 4095);
	text[4105] = '\n';
	text[4106] = '\0';
	CHECK_INT(LOAD(r, text), 0);
	CHECK_INT(LOAD(r, "# a\n# b\n"), 0);
	memset(text + 10, 'c', 4096);
	text[4106] = '\n';
	text[4107] = '\0';
	CHECK_INT(LOAD(r, text), -EINVAL);
	CHECK_STR(rules__strerror(r),
		  "user.rules:2: line is longer than 4096 bytes (expected one rule per line)");
	/* An error is forgotten by the next good load. */
	CHECK_INT(LOAD(r, ""), 0);
	CHECK_STR(rules__strerror(r), "");
	CHECK_INT(rules__load_text(r, "no_newline core -", 17, NULL), 0);
	CHECK_INT(rules__load_text(r, "x", 1, NULL), -EINVAL);
	CHECK_STR(rules__strerror(r),
		  "<text>:1: 1 column (expected 3: PATTERN ROLE TRIGGER)");
out:
	free(text);
	rules__delete(r);
}

static void test_files(void)
{
	struct rules *r = rules__new();
	const char *path = unit_tmp_path("ok.rules");
	const char *bad = unit_tmp_path("bad.rules");
	struct rs_rule_match m;
	char msg[512];
	FILE *f;

	if (!r) {
		UNIT_FAIL("rules__new");
		return;
	}
	f = fopen(path, "w");
	if (f) {
		fputs("# site rules\r\nmy_dwork  memory  periodic\r\n", f);
		fclose(f);
	}
	CHECK_INT(rules__load_file(r, path), 0);
	CHECK_INT(rules__match(r, "my_dwork", &m), 1);
	CHECK_INT(m.trigger, RS_TRIG_PERIODIC);

	f = fopen(bad, "w");
	if (f) {
		fputs("ok core -\n\n  # indented comment\nbad core - -\n", f);
		fclose(f);
	}
	CHECK_INT(rules__load_file(r, bad), -EINVAL);
	snprintf(msg, sizeof(msg),
		 "%s:4: 4 columns (expected 3: PATTERN ROLE TRIGGER)", bad);
	CHECK_STR(rules__strerror(r), msg);
	CHECK_INT(rules__match(r, "ok", &m), 0);

	CHECK_INT(rules__load_file(r, unit_tmp_path("missing.rules")),
		  -ENOENT);
	snprintf(msg, sizeof(msg), "%s: No such file or directory",
		 unit_tmp_path("missing.rules"));
	CHECK_STR(rules__strerror(r), msg);

	CHECK_INT(rules__load_file(r, unit_tmpdir()), -EISDIR);
	snprintf(msg, sizeof(msg), "%s: Is a directory", unit_tmpdir());
	CHECK_STR(rules__strerror(r), msg);

	/* Not a regular file: read to EOF all the same. */
	CHECK_INT(rules__load_file(r, "/dev/null"), 0);
	rules__delete(r);
}

/*
 * Every sample of the fixture recording. The tracepoints say which
 * hierarchy flushed (root=0: v2, base stats only; root=4: v1 memory), so
 * their stacks must classify that way; the cpu-clock counts were worked
 * out from perf script's stacks with grep.
 */
static void test_fixture_file(void)
{
	char cmd[512], line[4096];
	const char *event = "";
	const char *syms[256];
	uint32_t n = 0, cats[RS_CAT__NR] = { 0 };
	uint32_t skid = 0, cpu_stat = 0, mem_stat = 0, clock = 0;
	uint32_t locked = 0, flushes = 0, short_unlock = 0;
	int root = -1, cpu = 0;
	struct rules *r = rules__new();
	struct classifier *c = r ? classifier__new(r) : NULL;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "zcat '%s/flush-mixed.script.gz'",
		 unit_fixtures());
	f = c ? popen(cmd, "r") : NULL;
	if (!f) {
		UNIT_FAIL("setup");
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		struct rs_stack_class cls;
		char *p, *sym;

		if (line[0] != '\t' && line[0] != '\n') {
			/* Header: "comm tid [cpu] time: [period] event: ..." */
			event = strstr(line, "cpu-clock:") ? "cpu-clock" :
				strstr(line, "cgroup_rstat_") ? "rstat" :
				strstr(line, "memcg_flush_stats") ? "memcg" :
				"";
			p = strstr(line, " root=");
			root = p ? atoi(p + 6) : -1;
			p = strstr(line, " cpu=");
			cpu = p ? atoi(p + 5) : 0;
			if (strstr(line, "cgroup_rstat_unlock:") && cpu == -1)
				event = "short-unlock";
			n = 0;
			continue;
		}
		if (line[0] == '\t') {
			/* "\t  addr sym+0xoff (dso)" */
			sym = line + strspn(line, "\t ");
			sym += strcspn(sym, " ");
			sym += strspn(sym, " ");
			p = strstr(sym, " (");
			if (p)
				*p = '\0';
			p = strstr(sym, "+0x");
			if (p)
				*p = '\0';
			if (n < ARRAY_SIZE(syms))
				syms[n++] = intern(sym, strlen(sym));
			continue;
		}
		if (classifier__classify(c, syms, n, &cls)) {
			UNIT_FAIL("classify");
			break;
		}
		n = 0;
		if (!strcmp(event, "cpu-clock")) {
			clock++;
			cats[cls.category]++;
			skid += cls.skid;
			if (rs_category_is_flush(cls.category)) {
				cpu_stat += cls.trigger == RS_TRIG_CPU_STAT;
				mem_stat += cls.trigger == RS_TRIG_MEMORY_STAT;
			}
		} else if (!strcmp(event, "rstat")) {
			locked++;
			if (root == 0 && cls.category != RS_CAT_BASE)
				UNIT_FAIL("root=0 lock event is %s",
					  rs_category_name(cls.category));
			if (root == 4 && cls.category != RS_CAT_MEMORY)
				UNIT_FAIL("root=4 lock event is %s",
					  rs_category_name(cls.category));
		} else if (!strcmp(event, "short-unlock")) {
			/*
			 * Unlocking the short lock that
			 * cgroup_base_stat_cputime_show takes after its flush
			 * (the unlock inlined into it): no flush frame, so
			 * not flush work.
			 */
			short_unlock++;
			if (cls.category != RS_CAT_OTHER ||
			    cls.trigger != RS_TRIG_CPU_STAT)
				UNIT_FAIL("cpu=-1 unlock is %s",
					  rs_category_name(cls.category));
		} else if (!strcmp(event, "memcg")) {
			flushes++;
			if (cls.category != RS_CAT_MEMORY)
				UNIT_FAIL("memcg_flush_stats is %s",
					  rs_category_name(cls.category));
		}
	}
	pclose(f);
	CHECK_INT(clock, 21047);
	CHECK_INT(locked + short_unlock, 877);
	CHECK_INT(short_unlock, 146);
	CHECK_INT(flushes, 440);
	CHECK_INT(cats[RS_CAT_BASE], 31);
	/* 8 of the memory.stat path's 10 are its tracepoint's handler. */
	CHECK_INT(cats[RS_CAT_MEMORY], 2);
	CHECK_INT(cats[RS_CAT_INSTRUMENTATION], 9);
	CHECK_INT(cats[RS_CAT_UPDATE], 5);
	CHECK_INT(cats[RS_CAT_IO] + cats[RS_CAT_BPF] + cats[RS_CAT_CORE] +
		  cats[RS_CAT_PSI] + cats[RS_CAT_MEMCG_WALK], 0);
	CHECK_INT(skid, 32);	/* 5 more sat in the tracepoint handler */
	CHECK_INT(cpu_stat, 31);
	CHECK_INT(mem_stat, 2);
out:
	classifier__delete(c);
	rules__delete(r);
}

static void test_cleanup(void)
{
	strpool__delete(pool);
	pool = NULL;
	unit_tmp_cleanup();
}

UNIT_MAIN(
	UNIT(test_names),
	UNIT(test_builtin_table),
	UNIT(test_builtin_reach),
	UNIT(test_fixture_stacks),
	UNIT(test_old_kernels),
	UNIT(test_suffixes),
	UNIT(test_named_subsystem), UNIT(test_trigger_and_core),
	UNIT(test_cache_growth),
	UNIT(test_inline_release),
	UNIT(test_inline_release_kernel_change),
	UNIT(test_user_rules),
	UNIT(test_dump_reloads),
	UNIT(test_syntax_errors),
	UNIT(test_long_lines),
	UNIT(test_files),
	UNIT(test_fixture_file),
	UNIT_CLEANUP(test_cleanup),
)
