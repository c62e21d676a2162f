// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel feature detection for record and doctor. Every check looks at
 * what the kernel exposes (procfs, sysfs, tracefs, a perf_event_open that
 * is closed at once) and changes nothing: doctor must be safe to run on a
 * production machine, and record must not mount file systems behind the
 * user's back.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "kfeatures.h"
#include "util.h"

#define CAP_BIT_SYS_ADMIN	21
#define CAP_BIT_PERFMON		38

#define PMU_DEVICES "/sys/bus/event_source/devices"

/* The rstat tracepoints and the releases that have them (kernel-rstat.md). */
static const struct {
	const char *name;
	const char *kernels;
	int since, until;
} rstat_tracepoints[KF_NR_TRACEPOINTS] = {
	{ "cgroup:cgroup_rstat_lock_contended", "v6.10+", 6010, 0 },
	{ "cgroup:cgroup_rstat_locked", "v6.10+", 6010, 0 },
	{ "cgroup:cgroup_rstat_unlock", "v6.10+", 6010, 0 },
	{ "cgroup:cgroup_rstat_cpu_lock_contended", "v6.10-v6.16", 6010, 6016 },
	{ "cgroup:cgroup_rstat_cpu_lock_contended_fastpath", "v6.10-v6.16",
	  6010, 6016 },
	{ "cgroup:cgroup_rstat_cpu_locked", "v6.10-v6.16", 6010, 6016 },
	{ "cgroup:cgroup_rstat_cpu_locked_fastpath", "v6.10-v6.16",
	  6010, 6016 },
	{ "cgroup:cgroup_rstat_cpu_unlock", "v6.10-v6.16", 6010, 6016 },
	{ "cgroup:cgroup_rstat_cpu_unlock_fastpath", "v6.10-v6.16",
	  6010, 6016 },
	{ "memcg:memcg_flush_stats", "v6.13+", 6013, 0 },
};

/*
 * The advice per feature. Error messages add a pointer to doctor; doctor
 * itself prints the advice alone. Both tables come from this one list so
 * that they cannot drift apart.
 */
#define KF_SEE_DOCTOR "; see `rstat-analyze doctor`"
#define KF_ADVICE(X)							\
	X(KF_FEAT_ROOT,							\
	  "run as root: system-wide recording, tracepoints and probe events need it (tracefs is root-only)") \
	X(KF_FEAT_PARANOID,						\
	  "as a user, record -a and kernel stacks need perf_event_paranoid <= 0 (sysctl kernel.perf_event_paranoid=0), CAP_PERFMON or root") \
	X(KF_FEAT_KPTR_RESTRICT,					\
	  "kernel addresses are hidden from this user: run as root, or set kernel.kptr_restrict=0 and perf_event_paranoid <= 1, or give report --kallsyms a copy root saved") \
	X(KF_FEAT_PMU_CYCLES,						\
	  "for cycles, give the machine a PMU (a VM: QEMU -cpu host, or the hypervisor's vPMU setting); the tracepoints' lock hold times stay exact either way") \
	X(KF_FEAT_KPROBES,						\
	  "this kernel has no kprobes (CONFIG_KPROBES, CONFIG_KPROBE_EVENTS): --probe cannot work here; --uprobe does") \
	X(KF_FEAT_UPROBES,						\
	  "this kernel has no uprobes (CONFIG_UPROBES, CONFIG_UPROBE_EVENTS): --uprobe cannot work here") \
	X(KF_FEAT_TRACEFS,						\
	  "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing") \
	X(KF_FEAT_TRACEPOINTS,						\
	  "the rstat tracepoints need v6.10+ (memcg:memcg_flush_stats v6.13+) and CONFIG_TRACEPOINTS; without them use sampling and --probe") \
	X(KF_FEAT_BTF,							\
	  "no kernel BTF (CONFIG_DEBUG_INFO_BTF): BPF tools cannot attach by type; rstat-analyze itself does not need it") \
	X(KF_FEAT_VMLINUX,						\
	  "no vmlinux with debuginfo: install it (Debian: apt install linux-image-$(uname -r)-dbg; Fedora: kernel-debuginfo) for --probe FUNC:LINE; --probe FUNC works without") \
	X(KF_FEAT_CGROUP_V2,						\
	  "no cgroup v2 hierarchy: mount -t cgroup2 none /sys/fs/cgroup/unified for cpu.stat base statistics, or boot with systemd.unified_cgroup_hierarchy=1") \
	X(KF_FEAT_MEMCG,						\
	  "no memory controller: memory.stat flushes cannot happen; boot without cgroup_disable=memory, and on v2 echo +memory > cgroup.subtree_control")

#define KF_ADVICE_ENTRY(f, text) [f] = text,
#define KF_HINT_ENTRY(f, text) [f] = text KF_SEE_DOCTOR,

static const char *const advice_text[KF_NR_FEATURES] = {
	KF_ADVICE(KF_ADVICE_ENTRY)
};

static const char *const hint_text[KF_NR_FEATURES] = {
	KF_ADVICE(KF_HINT_ENTRY)
};

const char *kfeatures__advice(enum kf_feature f)
{
	if ((unsigned int)f >= KF_NR_FEATURES || !advice_text[f])
		return "";
	return advice_text[f];
}

const char *kfeatures__hint(enum kf_feature f)
{
	if ((unsigned int)f >= KF_NR_FEATURES || !hint_text[f])
		return "";
	return hint_text[f];
}

const char *kf_state__str(enum kf_state s)
{
	switch (s) {
	case KF_YES:
		return "yes";
	case KF_NO:
		return "no";
	default:
		return "unknown";
	}
}

const char *kf_cgroup_layout__str(enum kf_cgroup_layout l)
{
	switch (l) {
	case KF_CG_V1:
		return "v1";
	case KF_CG_V2:
		return "v2";
	case KF_CG_HYBRID:
		return "hybrid";
	default:
		return "none";
	}
}

int kfeatures__version(const char *release)
{
	unsigned int major, minor;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2 ||
	    major > 1000 || minor > 999)
		return -1;
	return major * 1000 + minor;
}

/*
 * Whether path exists. A permission error says nothing about absence
 * (tracefs is mode 0700), hence KF_UNKNOWN rather than KF_NO.
 */
static enum kf_state path_state(const char *path)
{
	struct stat st;

	if (!stat(path, &st))
		return KF_YES;
	if (errno == ENOENT || errno == ENOTDIR)
		return KF_NO;
	return KF_UNKNOWN;
}

/* Same, for a file under dir; KF_UNKNOWN without dir. */
static enum kf_state dir_file_state(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (!dir)
		return KF_UNKNOWN;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return KF_UNKNOWN;
	return path_state(path);
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "re");
	int v;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

static bool cap_effective(unsigned long long *caps)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", caps) == 1) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * kallsyms_show_value() prints zeros to readers who may not see kernel
 * addresses; the first text symbol tells which this process gets (data
 * symbols such as per-CPU ones are legitimately at 0).
 */
static enum kf_state probe_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	enum kf_state s = KF_UNKNOWN;
	unsigned long long addr;
	char type;
	char line[512];

	if (!f)
		return KF_UNKNOWN;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &addr, &type) != 2)
			continue;
		if (type != 'T' && type != 't')
			continue;
		s = addr ? KF_YES : KF_NO;
		break;
	}
	fclose(f);
	return s;
}

/*
 * User-space-only cycles, on this task, any CPU: allowed up to
 * perf_event_paranoid 2, so a failure means the event itself is missing,
 * except for EACCES/EPERM (paranoid 3 on Debian kernels, seccomp in a
 * container), which leave the answer open.
 */
static enum kf_state probe_pmu_cycles(int *err)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		*err = 0;
		return KF_YES;
	}
	*err = errno;
	switch (errno) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
	case ENOSYS:
		return KF_NO;
	default:
		return KF_UNKNOWN;
	}
}

static bool tracefs_in_filesystems(void)
{
	FILE *f = fopen("/proc/filesystems", "re");
	char line[128];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, '\t');

		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = '\0';
		if (!strcmp(name, "tracefs")) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Where tracefs is, as libtracefs (and so record) will use it. But
 * tracefs_tracing_dir() mounts tracefs, or debugfs, when /proc/mounts
 * lists none, and libtracefs 1.6's tracefs_tracing_dir_is_mounted() leaks
 * the path it returns on every call. So look in the mount table first and
 * ask libtracefs only when its answer cannot be a mount.
 */
static int probe_tracefs(struct kfeatures *kf)
{
	struct mntent *me, mbuf;
	char buf[4096];
	char *first = NULL;
	const char *path;
	FILE *f;

	kf->tracefs_mountable = tracefs_in_filesystems();
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return 0;
	while ((me = getmntent_r(f, &mbuf, buf, sizeof(buf)))) {
		if (!strcmp(me->mnt_type, "tracefs")) {
			first = strdup(me->mnt_dir);
			break;
		}
	}
	endmntent(f);
	if (!me)
		return 0;
	if (!first)
		return -ENOMEM;
	/*
	 * libtracefs prefers /sys/kernel/tracing when several are mounted;
	 * ask it only when we may read tracefs: as another user its
	 * tracefs_tracing_dir() leaks the path it could not check.
	 */
	path = geteuid() == 0 ? tracefs_tracing_dir() : NULL;
	if (path && strcmp(path, first)) {
		free(first);
		first = strdup(path);
		if (!first)
			return -ENOMEM;
	}
	kf->tracefs = first;
	return 0;
}

static void probe_tracepoints(struct kfeatures *kf)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < KF_NR_TRACEPOINTS; i++) {
		struct kf_tracepoint *tp = &kf->tracepoints[i];
		const char *colon;

		tp->name = rstat_tracepoints[i].name;
		tp->kernels = rstat_tracepoints[i].kernels;
		tp->since = rstat_tracepoints[i].since;
		tp->until = rstat_tracepoints[i].until;
		colon = strchr(tp->name, ':');
		if (kf->tracefs) {
			snprintf(path, sizeof(path), "%s/events/%.*s/%s",
				 kf->tracefs, (int)(colon - tp->name),
				 tp->name, colon + 1);
			tp->state = path_state(path);
		} else {
			/* No tracefs in the kernel: no trace events either. */
			tp->state = kf->tracefs_mountable ? KF_UNKNOWN : KF_NO;
		}
		tp->present = tp->state == KF_YES;
	}
}

/* Probe events need tracefs; a kernel without tracefs has none. */
static enum kf_state tracefs_file_state(const struct kfeatures *kf,
					const char *name)
{
	if (!kf->tracefs)
		return kf->tracefs_mountable ? KF_UNKNOWN : KF_NO;
	return dir_file_state(kf->tracefs, name);
}

static bool has_debuginfo(const char *path)
{
	bool found = false;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		/* A stripped image keeps the name with SHT_NOBITS. */
		if (name && sh.sh_type != SHT_NOBITS &&
		    (!strcmp(name, ".debug_info") ||
		     !strcmp(name, ".zdebug_info"))) {
			found = true;
			break;
		}
	}
out:
	elf_end(elf);
	close(fd);
	return found;
}

char *kfeatures__find_vmlinux(const char *release)
{
	static const char *const patterns[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/lib/modules/%s/build/vmlinux",
		"/boot/vmlinux-%s",
	};
	struct utsname u;
	size_t i;

	if (!release) {
		if (uname(&u)) {
			errno = ENOENT;
			return NULL;
		}
		release = u.release;
	}
	for (i = 0; i < ARRAY_SIZE(patterns); i++) {
		char *path;

		if (asprintf(&path, patterns[i], release) < 0) {
			errno = ENOMEM;
			return NULL;
		}
		if (has_debuginfo(path))
			return path;
		free(path);
	}
	errno = ENOENT;
	return NULL;
}

/* Append word to the space-separated list *list (NULL: start one). */
static int list_add(char **list, const char *word)
{
	size_t old = *list ? strlen(*list) : 0;
	size_t len = strlen(word);
	char *s = realloc(*list, old + len + 2);

	if (!s)
		return -ENOMEM;
	if (old)
		s[old++] = ' ';
	memcpy(s + old, word, len + 1);
	*list = s;
	return 0;
}

const char *kfeatures__v1_mount(const struct kfeatures *kf,
				const char *name)
{
	size_t i;

	for (i = 0; i < kf->nr_v1; i++)
		if (!strcmp(kf->v1[i].name, name))
			return kf->v1[i].mount;
	return NULL;
}

/*
 * The controllers a v1 hierarchy carries, among its mount options. The
 * names come from /proc/cgroups where it exists (every controller the
 * kernel has), so that new options such as favordynmods are not taken for
 * controllers; the fallback is the kernel's legacy names as of v6.18.
 */
static bool is_v1_controller(const char *opt, const char *known)
{
	static const char builtin[] =
		" cpuset cpu cpuacct blkio memory devices freezer net_cls"
		" perf_event net_prio hugetlb pids rdma misc debug ";
	const char *list = known ? known : builtin;
	char word[64];

	if (strlen(opt) + 3 > sizeof(word))
		return false;
	snprintf(word, sizeof(word), " %s ", opt);
	return strstr(list, word) != NULL;
}

/* " name1 name2 ... " from /proc/cgroups, NULL when unreadable. */
static char *known_controllers(void)
{
	FILE *f = fopen("/proc/cgroups", "re");
	char line[256], name[64];
	char *list = NULL;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%63s", name) != 1)
			continue;
		if (list_add(&list, name)) {
			free(list);
			list = NULL;
			break;
		}
	}
	fclose(f);
	if (list) {
		char *padded;

		if (asprintf(&padded, " %s ", list) < 0)
			padded = NULL;
		free(list);
		list = padded;
	}
	return list;
}

static int add_v1_controller(struct kfeatures *kf, const char *name,
			     const char *mount, size_t *cap)
{
	struct kf_v1_controller *c;

	/* Bind mounts show one hierarchy more than once: keep the first. */
	if (kfeatures__v1_mount(kf, name))
		return 0;
	if (grow_array((void **)&kf->v1, cap, kf->nr_v1 + 1, sizeof(*kf->v1)))
		return -ENOMEM;
	c = &kf->v1[kf->nr_v1];
	c->name = strdup(name);
	c->mount = strdup(mount);
	if (!c->name || !c->mount) {
		free(c->name);
		free(c->mount);
		return -ENOMEM;
	}
	kf->nr_v1++;
	return list_add(&kf->v1_controllers, name);
}

static int read_v2_controllers(struct kfeatures *kf)
{
	char path[PATH_MAX], buf[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.controllers",
		 kf->cgroup_v2_mount);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	kf->v2_controllers = strdup(buf);
	return kf->v2_controllers ? 0 : -ENOMEM;
}

static int probe_cgroups(struct kfeatures *kf)
{
	char *known = known_controllers();
	bool any_v1 = false;
	char *v2_first = NULL;
	size_t cap = 0;
	struct mntent *me, mbuf;
	char buf[4096];
	FILE *f;
	int err = 0;

	kf->v1_controllers = strdup("");
	if (!kf->v1_controllers) {
		free(known);
		return -ENOMEM;
	}
	f = setmntent("/proc/self/mounts", "re");
	if (!f) {
		free(known);
		return 0;
	}
	while (!err && (me = getmntent_r(f, &mbuf, buf, sizeof(buf)))) {
		if (!strcmp(me->mnt_type, "cgroup2")) {
			/* The usual places first, else the first mount. */
			if (!kf->cgroup_v2_mount &&
			    (!strcmp(me->mnt_dir, "/sys/fs/cgroup") ||
			     !strcmp(me->mnt_dir, "/sys/fs/cgroup/unified"))) {
				kf->cgroup_v2_mount = strdup(me->mnt_dir);
				if (!kf->cgroup_v2_mount)
					err = -ENOMEM;
			} else if (!v2_first) {
				v2_first = strdup(me->mnt_dir);
				if (!v2_first)
					err = -ENOMEM;
			}
		} else if (!strcmp(me->mnt_type, "cgroup")) {
			char *opts = me->mnt_opts, *opt, *save = NULL;

			any_v1 = true;
			for (opt = strtok_r(opts, ",", &save); opt && !err;
			     opt = strtok_r(NULL, ",", &save)) {
				if (is_v1_controller(opt, known))
					err = add_v1_controller(kf, opt,
								me->mnt_dir,
								&cap);
			}
		}
	}
	endmntent(f);
	free(known);
	if (!err && !kf->cgroup_v2_mount) {
		kf->cgroup_v2_mount = v2_first;
		v2_first = NULL;
	}
	free(v2_first);
	if (err)
		return err;
	if (kf->cgroup_v2_mount) {
		kf->cgroup_layout = kf->nr_v1 ? KF_CG_HYBRID : KF_CG_V2;
		return read_v2_controllers(kf);
	}
	kf->cgroup_layout = any_v1 ? KF_CG_V1 : KF_CG_NONE;
	return 0;
}

int kfeatures__probe(struct kfeatures *kf)
{
	unsigned long long caps;
	struct utsname u;
	int err;

	memset(kf, 0, sizeof(*kf));
	kf->root = geteuid() == 0;
	if (cap_effective(&caps))
		kf->cap_perfmon = (caps >> CAP_BIT_PERFMON & 1) ||
				  (caps >> CAP_BIT_SYS_ADMIN & 1);
	kf->paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid");
	kf->kptr_restrict = read_int_file("/proc/sys/kernel/kptr_restrict");
	kf->kallsyms_addrs = probe_kallsyms();
	kf->pmu_cycles = probe_pmu_cycles(&kf->pmu_cycles_errno);
	kf->kprobe_pmu = path_state(PMU_DEVICES "/kprobe");
	kf->uprobe_pmu = path_state(PMU_DEVICES "/uprobe");
	kf->btf = path_state("/sys/kernel/btf/vmlinux");
	kf->cgroup_layout = KF_CG_NONE;

	if (!uname(&u)) {
		kf->release = strdup(u.release);
		if (!kf->release)
			goto nomem;
	}
	err = probe_tracefs(kf);
	if (err)
		goto fail;
	kf->kprobe_events = tracefs_file_state(kf, "kprobe_events");
	kf->uprobe_events = tracefs_file_state(kf, "uprobe_events");
	probe_tracepoints(kf);

	if (kf->release) {
		kf->vmlinux = kfeatures__find_vmlinux(kf->release);
		if (!kf->vmlinux && errno == ENOMEM)
			goto nomem;
	}
	err = probe_cgroups(kf);
	if (err)
		goto fail;
	return 0;
nomem:
	err = -ENOMEM;
fail:
	kfeatures__free(kf);
	return err;
}

int kfeatures__probe_cgroups(struct kfeatures *kf)
{
	int err;

	memset(kf, 0, sizeof(*kf));
	kf->root = geteuid() == 0;
	kf->cgroup_layout = KF_CG_NONE;
	err = probe_cgroups(kf);
	if (err)
		kfeatures__free(kf);
	return err;
}

void kfeatures__free(struct kfeatures *kf)
{
	size_t i;

	for (i = 0; i < kf->nr_v1; i++) {
		free(kf->v1[i].name);
		free(kf->v1[i].mount);
	}
	free(kf->v1);
	free(kf->tracefs);
	free(kf->vmlinux);
	free(kf->cgroup_v2_mount);
	free(kf->v2_controllers);
	free(kf->v1_controllers);
	free(kf->release);
	memset(kf, 0, sizeof(*kf));
}

size_t kfeatures__has_functions(const char *const *names, size_t n,
				bool *found)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	size_t i, nr = 0;
	FILE *f;

	for (i = 0; i < n; i++)
		found[i] = false;
	f = n ? fopen("/proc/kallsyms", "re") : NULL;
	if (!f)
		return 0;
	while (nr < n && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3 ||
		    !strchr("tTwW", type))
			continue;
		for (i = 0; i < n; i++)
			if (!found[i] && !strcmp(sym, names[i])) {
				found[i] = true;
				nr++;
			}
	}
	fclose(f);
	return nr;
}

bool kfeatures__has_function(const char *name)
{
	bool found;

	kfeatures__has_functions(&name, 1, &found);
	return found;
}
