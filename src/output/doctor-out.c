// SPDX-License-Identifier: GPL-2.0
/*
 * doctor's report: what the kernel and this machine offer the tool, as
 * kfeatures__probe() found it, each item with the advice due, as text for
 * people or as one JSON object for scripts (the same set of hints in
 * both). Library code: writes to the stream it is given, never exits.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doctor-out.h"
#include "json.h"
#include "kfeatures.h"

#define DOCTOR_COLS 80
/* Where values start: two spaces of indent and the label column. */
#define DOCTOR_LABEL_WIDTH 20
#define DOCTOR_HINT_PREFIX "    -> "

/* What the report needs beside the probed features. */
struct doctor_ctx {
	FILE *out;
	const struct kfeatures *kf;
	int version;		/* of the running kernel, -1 unknown */
	bool tracefs_readable;
	const char *memcg_where;	/* "v1", "v2" or NULL */
	const char *memcg_path;
	bool io_v2;
	const char *blkio_v1;		/* mount of blkio on v1, NULL */
	bool cpu_v2;
};

/* Whether word is in the space-separated list. */
static bool word_in(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	if (!list)
		return false;
	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return true;
		p += len;
	}
	return false;
}

static void doctor_ctx_init(struct doctor_ctx *c, FILE *out,
			    const struct kfeatures *kf)
{
	memset(c, 0, sizeof(*c));
	c->out = out;
	c->kf = kf;
	c->version = kfeatures__version(kf->release);
	c->tracefs_readable = kf->tracefs &&
			      !access(kf->tracefs, R_OK | X_OK);
	if (word_in(kf->v2_controllers, "memory")) {
		c->memcg_where = "v2";
		c->memcg_path = kf->cgroup_v2_mount;
	} else if (kfeatures__v1_mount(kf, "memory")) {
		c->memcg_where = "v1";
		c->memcg_path = kfeatures__v1_mount(kf, "memory");
	}
	c->io_v2 = word_in(kf->v2_controllers, "io");
	c->blkio_v1 = kfeatures__v1_mount(kf, "blkio");
	c->cpu_v2 = kf->cgroup_v2_mount != NULL;
}

/*
 * Whether a tracepoint's absence is explained by the kernel release:
 * then it is no problem and gets no advice.
 */
static bool tp_expected(const struct doctor_ctx *c,
			const struct kf_tracepoint *tp)
{
	if (c->version < 0)
		return true;
	return c->version >= tp->since &&
	       (!tp->until || c->version <= tp->until);
}

/*
 * Whether a line may break at the space p[i]: not inside `...` or $(...),
 * so that a command in a hint can be copied whole.
 */
static bool can_break(const char *p, int i)
{
	int tick = 0, paren = 0, j;

	if (p[i] != ' ')
		return false;
	for (j = 0; j < i; j++) {
		if (p[j] == '`')
			tick ^= 1;
		else if (p[j] == '$' && p[j + 1] == '(')
			paren++;
		else if (p[j] == ')' && paren)
			paren--;
	}
	return !tick && !paren;
}

/*
 * Print text from column col, wrapped at word boundaries to fit
 * DOCTOR_COLS, continuation lines indented to indent.
 */
static void put_wrapped(FILE *out, const char *text, int col, int indent)
{
	const char *p = text;

	while (*p) {
		int room = DOCTOR_COLS - col;
		int len = strlen(p);
		int cut;

		if (len <= room) {
			fputs(p, out);
			break;
		}
		for (cut = room; cut > 0 && !can_break(p, cut); cut--)
			;
		if (cut == 0) {
			/* One word longer than the line: let it run over. */
			for (cut = room; p[cut] && !can_break(p, cut); cut++)
				;
			if (!p[cut]) {
				fputs(p, out);
				break;
			}
		}
		fprintf(out, "%.*s\n%*s", cut, p, indent, "");
		p += cut;
		while (*p == ' ')
			p++;
		col = indent;
	}
	fputc('\n', out);
}

static void item(const struct doctor_ctx *c, int width, const char *label,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void item(const struct doctor_ctx *c, int width, const char *label,
		 const char *fmt, ...)
{
	char value[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	fprintf(c->out, "  %-*s ", width, label);
	put_wrapped(c->out, value, 3 + width, 3 + width);
}

/*
 * Every piece of advice doctor can give, decided in one place so that the
 * text report and --json give the same set: the text prints each under
 * the item it concerns, --json lists them with a feature name.
 */
enum doctor_hint {
	DH_ROOT,
	DH_PARANOID,
	DH_KALLSYMS,
	DH_PMU_CYCLES,
	DH_KPROBES,
	DH_UPROBES,
	DH_VMLINUX,
	DH_TRACEFS,
	DH_TRACEPOINTS,
	DH_TRACEFS_ACCESS,
	DH_BTF,
	DH_MEMCG,
	DH_CPU_STAT,
	DH_IO_STAT,
	DH_NR
};

static const char *const doctor_hint_feature[DH_NR] = {
	[DH_ROOT]		= "root",
	[DH_PARANOID]		= "perf_event_paranoid",
	[DH_KALLSYMS]		= "kallsyms_addresses",
	[DH_PMU_CYCLES]		= "pmu_cycles",
	[DH_KPROBES]		= "kprobes",
	[DH_UPROBES]		= "uprobes",
	[DH_VMLINUX]		= "vmlinux",
	[DH_TRACEFS]		= "tracefs",
	[DH_TRACEPOINTS]	= "tracepoints",
	[DH_TRACEFS_ACCESS]	= "tracefs_access",
	[DH_BTF]		= "btf",
	[DH_MEMCG]		= "memory_controller",
	[DH_CPU_STAT]		= "cgroup_v2",
	[DH_IO_STAT]		= "io_controller",
};

/* Whether a tracepoint this kernel should have is missing, or unreadable. */
static bool tracepoints_state(const struct doctor_ctx *c, enum kf_state s)
{
	const struct kfeatures *kf = c->kf;
	size_t i;

	for (i = 0; i < KF_NR_TRACEPOINTS; i++) {
		const struct kf_tracepoint *tp = &kf->tracepoints[i];

		if (tp->state == s && (s != KF_NO || tp_expected(c, tp)))
			return true;
	}
	return false;
}

/* The advice for id on this machine, or NULL when none is due. */
static const char *doctor_hint_text(const struct doctor_ctx *c,
				    enum doctor_hint id)
{
	const struct kfeatures *kf = c->kf;
	bool privileged = kf->root || kf->cap_perfmon;

	switch (id) {
	case DH_ROOT:
		return kf->root ? NULL : kfeatures__advice(KF_FEAT_ROOT);
	case DH_PARANOID:
		if (privileged || (kf->paranoid != INT_MIN && kf->paranoid <= 0))
			return NULL;
		return kfeatures__advice(KF_FEAT_PARANOID);
	case DH_KALLSYMS:
		return kf->kallsyms_addrs == KF_YES ? NULL :
		       kfeatures__advice(KF_FEAT_KPTR_RESTRICT);
	case DH_PMU_CYCLES:
		if (kf->pmu_cycles == KF_YES)
			return NULL;
		if (kf->pmu_cycles == KF_NO)
			return kfeatures__advice(KF_FEAT_PMU_CYCLES);
		return "perf_event_open was refused (perf_event_paranoid 3, or seccomp in a container): run as root, outside the container's seccomp profile";
	case DH_KPROBES:
		/* The PMU comes with CONFIG_KPROBE_EVENTS: its absence decides. */
		return kf->kprobe_pmu == KF_NO && kf->kprobe_events != KF_YES ?
		       kfeatures__advice(KF_FEAT_KPROBES) : NULL;
	case DH_UPROBES:
		return kf->uprobe_pmu == KF_NO && kf->uprobe_events != KF_YES ?
		       kfeatures__advice(KF_FEAT_UPROBES) : NULL;
	case DH_VMLINUX:
		return kf->vmlinux ? NULL : kfeatures__advice(KF_FEAT_VMLINUX);
	case DH_TRACEFS:
		return !kf->tracefs && kf->tracefs_mountable ?
		       kfeatures__advice(KF_FEAT_TRACEFS) : NULL;
	case DH_TRACEPOINTS:
		return tracepoints_state(c, KF_NO) ?
		       kfeatures__advice(KF_FEAT_TRACEPOINTS) : NULL;
	case DH_TRACEFS_ACCESS:
		/* Users were told to be root above; root may still be refused. */
		return kf->tracefs && kf->root && tracepoints_state(c, KF_UNKNOWN) ?
		       "tracefs refused root: check its mount options and any LSM policy" :
		       NULL;
	case DH_BTF:
		return kf->btf == KF_YES ? NULL : kfeatures__advice(KF_FEAT_BTF);
	case DH_MEMCG:
		return c->memcg_where ? NULL : kfeatures__advice(KF_FEAT_MEMCG);
	case DH_CPU_STAT:
		return c->cpu_v2 ? NULL : kfeatures__advice(KF_FEAT_CGROUP_V2);
	case DH_IO_STAT:
		if (c->io_v2)
			return NULL;
		if (c->blkio_v1)
			return "io.stat flushes need the io controller on v2: boot with cgroup_no_v1=blkio, then echo +io > cgroup.subtree_control";
		if (kf->cgroup_v2_mount)
			return "echo +io > cgroup.subtree_control of the parent cgroup for io.stat";
		return kfeatures__advice(KF_FEAT_CGROUP_V2);
	default:
		return NULL;
	}
}

static void hint(const struct doctor_ctx *c, enum doctor_hint id)
{
	const char *text = doctor_hint_text(c, id);

	if (!text)
		return;
	fputs(DOCTOR_HINT_PREFIX, c->out);
	put_wrapped(c->out, text, strlen(DOCTOR_HINT_PREFIX),
		    strlen(DOCTOR_HINT_PREFIX));
}

static const char *paranoid_meaning(int level)
{
	if (level == INT_MIN)
		return "unknown";
	if (level <= -1)
		return "no restrictions for users";
	if (level == 0)
		return "users may profile the kernel and whole CPUs";
	if (level == 1)
		return "users may profile the kernel in their own tasks";
	if (level == 2)
		return "users may profile their own tasks, user space only";
	return "users may not use perf_event_open";
}

static const char *kptr_meaning(int level)
{
	switch (level) {
	case INT_MIN:
		return "unknown";
	case 0:
		return "kernel addresses shown per perf_event_paranoid";
	case 1:
		return "kernel addresses shown to CAP_SYSLOG only";
	default:
		return "kernel addresses hidden from everyone";
	}
}

static void text_privileges(const struct doctor_ctx *c)
{
	const struct kfeatures *kf = c->kf;
	const int w = DOCTOR_LABEL_WIDTH;
	bool privileged = kf->root || kf->cap_perfmon;

	fputs("privileges\n", c->out);
	if (kf->root)
		item(c, w, "root", "yes");
	else
		item(c, w, "root", "no (euid %u)", (unsigned int)geteuid());
	hint(c, DH_ROOT);
	item(c, w, "CAP_PERFMON", "%s", kf->cap_perfmon ?
	     "yes (CAP_PERFMON or CAP_SYS_ADMIN effective)" : "no");
	if (kf->paranoid == INT_MIN)
		item(c, w, "perf_event_paranoid", "unknown (no %s)",
		     "/proc/sys/kernel/perf_event_paranoid");
	else
		item(c, w, "perf_event_paranoid", "%d: %s%s", kf->paranoid,
		     paranoid_meaning(kf->paranoid),
		     privileged ? "; you are exempt" : "");
	hint(c, DH_PARANOID);
	if (kf->kptr_restrict == INT_MIN)
		item(c, w, "kptr_restrict", "unknown");
	else
		item(c, w, "kptr_restrict", "%d: %s", kf->kptr_restrict,
		     kptr_meaning(kf->kptr_restrict));
	item(c, w, "kallsyms addresses", "%s",
	     kf->kallsyms_addrs == KF_YES ? "yes (this process sees them)" :
	     kf->kallsyms_addrs == KF_NO ? "no (zeros for this process)" :
	     "unknown (/proc/kallsyms unreadable)");
	hint(c, DH_KALLSYMS);
}

static void text_sampling(const struct doctor_ctx *c)
{
	const struct kfeatures *kf = c->kf;
	const int w = DOCTOR_LABEL_WIDTH;

	fputs("sampling\n", c->out);
	switch (kf->pmu_cycles) {
	case KF_YES:
		item(c, w, "PMU cycles", "yes: record samples cycles");
		break;
	case KF_NO:
		item(c, w, "PMU cycles",
		     "no: record falls back to cpu-clock; skid inside IRQ-off regions");
		break;
	default:
		item(c, w, "PMU cycles", "unknown: perf_event_open: %s",
		     strerror(kf->pmu_cycles_errno));
		break;
	}
	hint(c, DH_PMU_CYCLES);
}

/* "yes", "no", or why it is unknown. */
static const char *tracefs_file_value(const struct doctor_ctx *c,
				      enum kf_state s)
{
	if (s != KF_UNKNOWN)
		return kf_state__str(s);
	if (!c->kf->tracefs)
		return "unknown (tracefs not mounted)";
	return "unknown (tracefs not readable)";
}

static void text_probes(const struct doctor_ctx *c)
{
	const struct kfeatures *kf = c->kf;
	const int w = DOCTOR_LABEL_WIDTH;

	fputs("probes\n", c->out);
	item(c, w, "kprobe PMU", "%s", kf_state__str(kf->kprobe_pmu));
	item(c, w, "kprobe_events", "%s",
	     tracefs_file_value(c, kf->kprobe_events));
	hint(c, DH_KPROBES);
	item(c, w, "uprobe PMU", "%s", kf_state__str(kf->uprobe_pmu));
	item(c, w, "uprobe_events", "%s",
	     tracefs_file_value(c, kf->uprobe_events));
	hint(c, DH_UPROBES);
	if (kf->vmlinux) {
		item(c, w, "vmlinux debuginfo", "%s", kf->vmlinux);
	} else {
		item(c, w, "vmlinux debuginfo",
		     "none (for --probe FUNC:LINE and `probe --lines`)");
	}
	hint(c, DH_VMLINUX);
}

static void text_tracing(const struct doctor_ctx *c)
{
	const struct kfeatures *kf = c->kf;
	const int w = DOCTOR_LABEL_WIDTH;
	int tw = 0;
	size_t i;

	fputs("tracing\n", c->out);
	if (kf->tracefs && c->tracefs_readable) {
		item(c, w, "tracefs", "%s", kf->tracefs);
	} else if (kf->tracefs) {
		item(c, w, "tracefs", "%s (not readable by this user)",
		     kf->tracefs);
	} else if (kf->tracefs_mountable) {
		item(c, w, "tracefs", "not mounted, mountable");
	} else {
		item(c, w, "tracefs", "not in this kernel (CONFIG_TRACING)");
	}
	hint(c, DH_TRACEFS);

	for (i = 0; i < KF_NR_TRACEPOINTS; i++) {
		int len = strlen(kf->tracepoints[i].name);

		if (len > tw)
			tw = len;
	}
	for (i = 0; i < KF_NR_TRACEPOINTS; i++) {
		const struct kf_tracepoint *tp = &kf->tracepoints[i];
		const char *state = tp->state == KF_YES ? "yes" :
				    tp->state == KF_NO ? "no" : "unknown";

		item(c, tw, tp->name, "%s (%s)", state, tp->kernels);
	}
	hint(c, DH_TRACEPOINTS);
	hint(c, DH_TRACEFS_ACCESS);
	item(c, w, "BTF", "%s", kf->btf == KF_YES ?
	     "yes (/sys/kernel/btf/vmlinux)" : kf_state__str(kf->btf));
	hint(c, DH_BTF);
}

static const char *layout_meaning(enum kf_cgroup_layout l)
{
	switch (l) {
	case KF_CG_V1:
		return "v1: controllers on v1 hierarchies, no v2";
	case KF_CG_V2:
		return "v2: one unified hierarchy";
	case KF_CG_HYBRID:
		return "hybrid: controllers on v1, a v2 hierarchy beside";
	default:
		return "none: no cgroup file system mounted";
	}
}

static void text_cgroups(const struct doctor_ctx *c)
{
	const struct kfeatures *kf = c->kf;
	const int w = DOCTOR_LABEL_WIDTH;

	fputs("cgroups\n", c->out);
	item(c, w, "layout", "%s", layout_meaning(kf->cgroup_layout));
	item(c, w, "v2 mount", "%s", kf->cgroup_v2_mount ? kf->cgroup_v2_mount :
	     "none");
	if (kf->cgroup_v2_mount)
		item(c, w, "v2 controllers", "%s",
		     kf->v2_controllers && *kf->v2_controllers ?
		     kf->v2_controllers : "none");
	item(c, w, "v1 controllers", "%s",
	     kf->v1_controllers && *kf->v1_controllers ?
	     kf->v1_controllers : "none");

	if (c->memcg_where) {
		item(c, w, "memory.stat", "%s: %s/.../memory.stat", c->memcg_where,
		     c->memcg_path);
	} else {
		item(c, w, "memory.stat", "none (no memory controller)");
	}
	hint(c, DH_MEMCG);
	if (c->cpu_v2) {
		item(c, w, "cpu.stat", "v2: %s/.../cpu.stat (base stats%s)",
		     kf->cgroup_v2_mount,
		     word_in(kf->v2_controllers, "cpu") ?
		     " and the cpu controller's" : "");
	} else {
		item(c, w, "cpu.stat",
		     "none (v2 only; v1 cpuacct files do not flush rstat)");
	}
	hint(c, DH_CPU_STAT);
	if (c->io_v2) {
		item(c, w, "io.stat", "v2: %s/.../io.stat", kf->cgroup_v2_mount);
	} else if (c->blkio_v1) {
		item(c, w, "io.stat",
		     "none: the io controller is blkio on v1 (%s)",
		     c->blkio_v1);
	} else {
		item(c, w, "io.stat", "none (no io controller)");
	}
	hint(c, DH_IO_STAT);
}

void doctor_out__text(FILE *out, const struct kfeatures *kf)
{
	struct doctor_ctx ctx, *c = &ctx;

	doctor_ctx_init(c, out, kf);
	fprintf(c->out, "rstat-analyze doctor: kernel %s\n",
	       c->kf->release ? c->kf->release : "unknown");
	text_privileges(c);
	text_sampling(c);
	text_probes(c);
	text_tracing(c);
	text_cgroups(c);
}

/* true/false, or null when unknown. */
static void json_state(struct json_writer *jw, const char *key,
		       enum kf_state s)
{
	if (s == KF_UNKNOWN)
		json__string(jw, key, NULL);
	else
		json__bool(jw, key, s == KF_YES);
}

static void json_int_or_null(struct json_writer *jw, const char *key, int v)
{
	if (v == INT_MIN)
		json__string(jw, key, NULL);
	else
		json__i64(jw, key, v);
}

/* A space-separated list as an array; null for a NULL list. */
static void json_words(struct json_writer *jw, const char *key,
		       const char *list)
{
	const char *p = list;

	if (!list) {
		json__string(jw, key, NULL);
		return;
	}
	json__array_begin(jw, key);
	while (*p) {
		size_t len = strcspn(p, " ");
		char word[256];

		if (len && len < sizeof(word)) {
			memcpy(word, p, len);
			word[len] = '\0';
			json__string(jw, NULL, word);
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	json__array_end(jw);
}

static void json_stat(struct json_writer *jw, const char *key,
		      const char *hierarchy, const char *path)
{
	if (!hierarchy) {
		json__string(jw, key, NULL);
		return;
	}
	json__object_begin(jw, key);
	json__string(jw, "hierarchy", hierarchy);
	json__string(jw, "path", path);
	json__object_end(jw);
}

/* The hints the text report prints, for scripts that act on them. */
static void json_hints(struct json_writer *jw, const struct doctor_ctx *c)
{
	int id;

	json__array_begin(jw, "hints");
	for (id = 0; id < DH_NR; id++) {
		const char *text = doctor_hint_text(c, id);

		if (!text)
			continue;
		json__object_begin(jw, NULL);
		json__string(jw, "feature", doctor_hint_feature[id]);
		json__string(jw, "hint", text);
		json__object_end(jw);
	}
	json__array_end(jw);
}

int doctor_out__json(FILE *out, const struct kfeatures *kf)
{
	struct doctor_ctx ctx, *c = &ctx;
	struct json_writer *jw = json_writer__new(out);
	size_t i;

	if (!jw)
		return -ENOMEM;
	doctor_ctx_init(c, out, kf);
	json__object_begin(jw, NULL);
	json__string(jw, "release", kf->release);
	json__bool(jw, "root", kf->root);
	json__u64(jw, "euid", geteuid());
	json__bool(jw, "cap_perfmon", kf->cap_perfmon);
	json_int_or_null(jw, "perf_event_paranoid", kf->paranoid);
	json_int_or_null(jw, "kptr_restrict", kf->kptr_restrict);
	json_state(jw, "kallsyms_addresses", kf->kallsyms_addrs);
	json_state(jw, "pmu_cycles", kf->pmu_cycles);
	json__string(jw, "sampling_event",
		     kf->pmu_cycles == KF_YES ? "cycles" : "cpu-clock");
	json_state(jw, "kprobe_pmu", kf->kprobe_pmu);
	json_state(jw, "kprobe_events", kf->kprobe_events);
	json_state(jw, "uprobe_pmu", kf->uprobe_pmu);
	json_state(jw, "uprobe_events", kf->uprobe_events);
	json__string(jw, "vmlinux", kf->vmlinux);
	json__string(jw, "tracefs", kf->tracefs);
	json__bool(jw, "tracefs_mountable", kf->tracefs_mountable);
	json__bool(jw, "tracefs_readable", c->tracefs_readable);
	json__array_begin(jw, "tracepoints");
	for (i = 0; i < KF_NR_TRACEPOINTS; i++) {
		const struct kf_tracepoint *tp = &kf->tracepoints[i];

		json__object_begin(jw, NULL);
		json__string(jw, "name", tp->name);
		json_state(jw, "present", tp->state);
		json__string(jw, "kernels", tp->kernels);
		json__object_end(jw);
	}
	json__array_end(jw);
	json_state(jw, "btf", kf->btf);
	json__string(jw, "cgroup_layout",
		     kf_cgroup_layout__str(kf->cgroup_layout));
	json__string(jw, "cgroup_v2_mount", kf->cgroup_v2_mount);
	json_words(jw, "v2_controllers", kf->v2_controllers);
	json__array_begin(jw, "v1_controllers");
	for (i = 0; i < kf->nr_v1; i++) {
		json__object_begin(jw, NULL);
		json__string(jw, "name", kf->v1[i].name);
		json__string(jw, "mount", kf->v1[i].mount);
		json__object_end(jw);
	}
	json__array_end(jw);
	json_stat(jw, "memory_stat", c->memcg_where, c->memcg_path);
	json_stat(jw, "cpu_stat", c->cpu_v2 ? "v2" : NULL,
		  kf->cgroup_v2_mount);
	json_stat(jw, "io_stat", c->io_v2 ? "v2" : NULL, kf->cgroup_v2_mount);
	json_hints(jw, c);
	json__object_end(jw);
	json_writer__delete(jw);
	return 0;
}
