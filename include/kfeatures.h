/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel and this process can do for recording: privileges,
 * the PMU, kprobes and uprobes, tracefs and the rstat tracepoints, BTF, a
 * vmlinux with debuginfo, and the cgroup layout. `record` names the missing
 * feature in its errors with kfeatures__hint(); `doctor` prints it all.
 *
 * Probing only looks: it never mounts tracefs, creates probe events or
 * writes a sysctl. A file the caller may not read gives KF_UNKNOWN, not
 * KF_NO, so that an unprivileged run does not report features as absent.
 */
#ifndef RS_KFEATURES_H
#define RS_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>

enum kf_state { KF_YES, KF_NO, KF_UNKNOWN };

enum kf_cgroup_layout {
	KF_CG_NONE,	/* no cgroup file system mounted */
	KF_CG_V1,	/* v1 hierarchies only */
	KF_CG_V2,	/* a v2 hierarchy, no controller bound to v1 */
	KF_CG_HYBRID,	/* a v2 hierarchy and controllers bound to v1 */
};

/* The rstat tracepoints of docs/kernel-rstat.md, in kf->tracepoints. */
#define KF_NR_TRACEPOINTS 10

struct kf_tracepoint {
	const char *name;	/* "system:event" (static) */
	const char *kernels;	/* releases that have it: "v6.10+" (static) */
	int since;		/* first release as major * 1000 + minor */
	int until;		/* last one, 0 for "still there" */
	bool present;		/* state == KF_YES */
	enum kf_state state;	/* KF_UNKNOWN: tracefs absent or unreadable */
};

/* A v1 controller and where its hierarchy is mounted. */
struct kf_v1_controller {
	char *name;		/* "memory" */
	char *mount;		/* "/sys/fs/cgroup/memory" */
};

struct kfeatures {
	bool root;			/* euid 0 */
	/* CAP_PERFMON or CAP_SYS_ADMIN in the effective set (CapEff) */
	bool cap_perfmon;
	int paranoid;			/* perf_event_paranoid, or INT_MIN */
	int kptr_restrict;		/* or INT_MIN */
	/* /proc/kallsyms shows this process real addresses (not zeros) */
	enum kf_state kallsyms_addrs;
	/* perf_event_open(HARDWARE, CPU_CYCLES, user only) works here */
	enum kf_state pmu_cycles;
	int pmu_cycles_errno;		/* why not, when pmu_cycles != KF_YES */
	/* sysfs devices/{kprobe,uprobe}; <tracefs>/{kprobe,uprobe}_events */
	enum kf_state kprobe_pmu;
	enum kf_state kprobe_events;
	enum kf_state uprobe_pmu;
	enum kf_state uprobe_events;
	char *tracefs;			/* mount point, NULL when not mounted */
	bool tracefs_mountable;		/* tracefs in /proc/filesystems */
	enum kf_state btf;		/* /sys/kernel/btf/vmlinux */
	char *vmlinux;			/* vmlinux with debuginfo, or NULL */
	enum kf_cgroup_layout cgroup_layout;
	char *cgroup_v2_mount;		/* v2 root (/sys/fs/cgroup...), NULL */
	char *v2_controllers;		/* its cgroup.controllers, or NULL */
	char *v1_controllers;		/* bound v1 controllers, "" if none */
	struct kf_v1_controller *v1;	/* the same, with mount points */
	size_t nr_v1;
	struct kf_tracepoint tracepoints[KF_NR_TRACEPOINTS];
	char *release;			/* uname -r */
};

/*
 * Fill everything (kf need not be initialised). 0, or -ENOMEM with
 * nothing left to free. A feature that cannot be checked is KF_UNKNOWN
 * (or NULL, INT_MIN), never an error.
 */
int kfeatures__probe(struct kfeatures *kf);
/*
 * Only the cgroup part (layout, mounts, controllers) and root: what bench
 * needs, without opening a PMU or reading tracefs. Free as above.
 */
int kfeatures__probe_cgroups(struct kfeatures *kf);
void kfeatures__free(struct kfeatures *kf);
/* Where the v1 hierarchy of controller name is mounted; NULL: not on v1. */
const char *kfeatures__v1_mount(const struct kfeatures *kf,
				const char *name);

/* The features kfeatures__hint() has advice for. */
enum kf_feature {
	KF_FEAT_ROOT,
	KF_FEAT_PARANOID,
	KF_FEAT_KPTR_RESTRICT,
	KF_FEAT_PMU_CYCLES,
	KF_FEAT_KPROBES,	/* kprobe PMU and kprobe_events */
	KF_FEAT_UPROBES,	/* uprobe PMU and uprobe_events */
	KF_FEAT_TRACEFS,
	KF_FEAT_TRACEPOINTS,	/* the rstat tracepoints */
	KF_FEAT_BTF,
	KF_FEAT_VMLINUX,
	KF_FEAT_CGROUP_V2,
	KF_FEAT_MEMCG,		/* the memory controller */
	KF_NR_FEATURES,
};

/*
 * One line saying what to do when feature f is missing, for an error
 * message; it ends by pointing at `rstat-analyze doctor`. Static; "" for
 * an unknown f.
 */
const char *kfeatures__hint(enum kf_feature f);
/* The same advice without the pointer to doctor (doctor prints this). */
const char *kfeatures__advice(enum kf_feature f);

/*
 * The vmlinux with debuginfo for release (NULL: the running kernel's),
 * from /usr/lib/debug/boot/vmlinux-REL, /usr/lib/debug/lib/modules/REL/
 * vmlinux, /lib/modules/REL/build/vmlinux or /boot/vmlinux-REL: the first
 * readable ELF file with a .debug_info section. A malloc()ed path, or NULL
 * (errno ENOENT or ENOMEM).
 */
char *kfeatures__find_vmlinux(const char *release);

/* "yes", "no", "unknown". */
const char *kf_state__str(enum kf_state s);
/* "none", "v1", "v2", "hybrid". */
const char *kf_cgroup_layout__str(enum kf_cgroup_layout l);
/* Release text ("6.18.44-fc") as major * 1000 + minor, -1 if unparsable. */
int kfeatures__version(const char *release);
/*
 * Whether the running kernel has a text symbol of that name in
 * /proc/kallsyms, local, global or weak (bpf_rstat_flush is a __weak
 * hook: 'W'): a function that was not inlined away, one a kprobe can be
 * placed on.
 */
bool kfeatures__has_function(const char *name);
/*
 * The same for n names in one read of /proc/kallsyms (each read costs the
 * kernel tens of milliseconds of formatting, more in an emulated guest):
 * found[i] for names[i]; returns how many were found.
 */
size_t kfeatures__has_functions(const char *const *names, size_t n,
				bool *found);

#endif
