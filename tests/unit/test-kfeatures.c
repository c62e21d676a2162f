// SPDX-License-Identifier: GPL-2.0
/*
 * kfeatures against independent checks of the same facts: each field is
 * compared with what the test reads itself (the /proc and sysfs files, a
 * direct perf_event_open, the tracefs line of /proc/mounts), so that the
 * test holds on any machine, with or without a PMU, kprobes or cgroup v2.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kfeatures.h"
#include "unit.h"
#include "util.h"

static const char *const expected_tracepoints[] = {
	"cgroup:cgroup_rstat_lock_contended",
	"cgroup:cgroup_rstat_locked",
	"cgroup:cgroup_rstat_unlock",
	"cgroup:cgroup_rstat_cpu_lock_contended",
	"cgroup:cgroup_rstat_cpu_lock_contended_fastpath",
	"cgroup:cgroup_rstat_cpu_locked",
	"cgroup:cgroup_rstat_cpu_locked_fastpath",
	"cgroup:cgroup_rstat_cpu_unlock",
	"cgroup:cgroup_rstat_cpu_unlock_fastpath",
	"memcg:memcg_flush_stats",
};

/* The whole file, NUL-terminated (static buffer), or NULL. */
static const char *slurp(const char *path)
{
	static char buf[1 << 16];
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	while (got < sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return buf;
}

static int file_int(const char *path)
{
	const char *s = slurp(path);

	return s ? (int)strtol(s, NULL, 10) : INT_MIN;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static enum kf_state expect_state(const char *path)
{
	struct stat st;

	if (!stat(path, &st))
		return KF_YES;
	return errno == ENOENT ? KF_NO : KF_UNKNOWN;
}

/* Field 2 of the first /proc/mounts line of type type, into out. */
static bool first_mount(const char *type, char *out, size_t len)
{
	const char *s = slurp("/proc/mounts");
	char dev[256], dir[PATH_MAX], t[64];
	const char *line;

	for (line = s; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (sscanf(line, "%255s %4095s %63s", dev, dir, t) != 3)
			continue;
		if (!strcmp(t, type)) {
			snprintf(out, len, "%s", dir);
			return true;
		}
	}
	return false;
}

static struct kfeatures kf;
static bool probed;

static struct kfeatures *get_kf(void)
{
	if (!probed) {
		if (kfeatures__probe(&kf))
			return NULL;
		probed = true;
	}
	return &kf;
}

static void test_privileges(void)
{
	struct kfeatures *k = get_kf();
	const char *status, *cap;
	unsigned long long caps;

	CHECK(k);
	if (!k)
		return;
	CHECK_INT(k->root, geteuid() == 0);
	status = slurp("/proc/self/status");
	CHECK(status);
	cap = status ? strstr(status, "\nCapEff:") : NULL;
	CHECK(cap);
	if (!cap)
		return;
	caps = strtoull(cap + strlen("\nCapEff:"), NULL, 16);
	CHECK_INT(k->cap_perfmon, (caps & (1ULL << 38 | 1ULL << 21)) != 0);
	CHECK_INT(k->paranoid,
		  file_int("/proc/sys/kernel/perf_event_paranoid"));
	CHECK_INT(k->kptr_restrict, file_int("/proc/sys/kernel/kptr_restrict"));
}

static void test_kallsyms(void)
{
	struct kfeatures *k = get_kf();
	char line[512], type, name[256];
	unsigned long long addr;
	FILE *f;
	int want = KF_UNKNOWN;

	CHECK(k);
	if (!k)
		return;
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_stext")) {
			want = addr ? KF_YES : KF_NO;
			break;
		}
	}
	if (f)
		fclose(f);
	if (want == KF_UNKNOWN) {
		SKIP("no _stext in /proc/kallsyms");
		return;
	}
	CHECK_INT(k->kallsyms_addrs, want);
}

static void test_pmu_cycles(void)
{
	struct kfeatures *k = get_kf();
	struct perf_event_attr attr = { 0 };
	int fd, err;

	CHECK(k);
	if (!k)
		return;
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	err = errno;
	if (fd >= 0) {
		close(fd);
		CHECK_INT(k->pmu_cycles, KF_YES);
	} else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) {
		CHECK_INT(k->pmu_cycles, KF_NO);
		CHECK_INT(k->pmu_cycles_errno, err);
	} else {
		CHECK(k->pmu_cycles != KF_YES);
	}
}

static void test_probes(void)
{
	struct kfeatures *k = get_kf();
	char path[PATH_MAX];

	CHECK(k);
	if (!k)
		return;
	CHECK_INT(k->kprobe_pmu,
		  exists("/sys/bus/event_source/devices/kprobe") ?
		  KF_YES : KF_NO);
	CHECK_INT(k->uprobe_pmu,
		  exists("/sys/bus/event_source/devices/uprobe") ?
		  KF_YES : KF_NO);
	CHECK_INT(k->btf, exists("/sys/kernel/btf/vmlinux") ? KF_YES : KF_NO);
	if (!k->tracefs) {
		CHECK(k->kprobe_events != KF_YES);
		CHECK(k->uprobe_events != KF_YES);
		return;
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", k->tracefs);
	CHECK_INT(k->kprobe_events, expect_state(path));
	snprintf(path, sizeof(path), "%s/uprobe_events", k->tracefs);
	CHECK_INT(k->uprobe_events, expect_state(path));
}

static void test_tracefs(void)
{
	struct kfeatures *k = get_kf();
	char dir[PATH_MAX];
	bool mounted;

	CHECK(k);
	if (!k)
		return;
	mounted = first_mount("tracefs", dir, sizeof(dir));
	if (mounted)
		CHECK_STR(k->tracefs, dir);
	else if (first_mount("debugfs", dir, sizeof(dir)))
		CHECK(!k->tracefs || strstr(k->tracefs, "/tracing"));
	else
		CHECK(!k->tracefs);
	CHECK_INT(k->tracefs_mountable,
		  unit_sh("grep -qw tracefs /proc/filesystems") == 0);
}

static void test_tracepoints(void)
{
	struct kfeatures *k = get_kf();
	char path[PATH_MAX];
	size_t i;

	CHECK(k);
	if (!k)
		return;
	CHECK_INT(ARRAY_SIZE(expected_tracepoints), KF_NR_TRACEPOINTS);
	for (i = 0; i < KF_NR_TRACEPOINTS; i++) {
		const struct kf_tracepoint *tp = &k->tracepoints[i];
		const char *name = expected_tracepoints[i];
		const char *colon = strchr(name, ':');

		CHECK_STR(tp->name, name);
		CHECK(tp->kernels && tp->kernels[0] == 'v');
		CHECK(tp->since >= 6010);
		CHECK_INT(tp->present, tp->state == KF_YES);
		if (!k->tracefs) {
			CHECK(tp->state != KF_YES);
			continue;
		}
		snprintf(path, sizeof(path), "%s/events/%.*s/%s", k->tracefs,
			 (int)(colon - name), name, colon + 1);
		CHECK_INT(tp->state, expect_state(path));
	}
}

static bool has_debug_info(const char *path)
{
	return exists(path) &&
	       unit_sh("readelf -S '%s' 2>/dev/null | grep -q 'debug_info'",
		       path) == 0;
}

static void test_vmlinux(void)
{
	static const char *const fmts[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/lib/modules/%s/build/vmlinux",
		"/boot/vmlinux-%s",
	};
	struct kfeatures *k = get_kf();
	char path[PATH_MAX];
	const char *want = NULL;
	struct utsname u;
	char *p;
	size_t i;

	CHECK(k);
	if (!k)
		return;
	CHECK(!uname(&u));
	CHECK_STR(k->release, u.release);
	for (i = 0; i < ARRAY_SIZE(fmts) && !want; i++) {
		snprintf(path, sizeof(path), fmts[i], u.release);
		if (has_debug_info(path))
			want = path;
	}
	if (want)
		CHECK_STR(k->vmlinux, want);
	else
		CHECK(!k->vmlinux);
	errno = 0;
	p = kfeatures__find_vmlinux("0.0.0-rstat-analyze-none");
	CHECK(!p);
	CHECK_INT(errno, ENOENT);
	free(p);
}

/* Is word one of the space-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	char buf[4096], *w, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!strcmp(w, word))
			return true;
	return false;
}

static void test_cgroups(void)
{
	struct kfeatures *k = get_kf();
	const char *s;
	char known[4096] = " ", dir[PATH_MAX], path[PATH_MAX + 32];
	char line[1024], dev[256], mdir[PATH_MAX], type[64], opts[1024];
	bool v2 = false, v1_any = false;
	int nr_v1 = 0;
	FILE *f;
	size_t i;

	CHECK(k);
	if (!k)
		return;
	/* Controller names, from /proc/cgroups. */
	f = fopen("/proc/cgroups", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char name[64];

		if (line[0] != '#' && sscanf(line, "%63s", name) == 1) {
			strncat(known, name, sizeof(known) - strlen(known) - 2);
			strcat(known, " ");
		}
	}
	if (f)
		fclose(f);

	f = fopen("/proc/mounts", "r");
	CHECK(f);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *o, *save = NULL;

		if (sscanf(line, "%255s %4095s %63s %1023s", dev, mdir, type,
			   opts) != 4)
			continue;
		if (!strcmp(type, "cgroup2"))
			v2 = true;
		if (strcmp(type, "cgroup"))
			continue;
		v1_any = true;
		for (o = strtok_r(opts, ",", &save); o;
		     o = strtok_r(NULL, ",", &save)) {
			char w[80];

			snprintf(w, sizeof(w), " %s ", o);
			if (!strstr(known, w))
				continue;
			CHECK(has_word(k->v1_controllers, o));
			nr_v1++;
		}
	}
	fclose(f);
	/* Every name kfeatures lists came from a mount (no extras). */
	s = k->v1_controllers;
	CHECK(s);
	if (!s)
		return;
	CHECK_INT(k->nr_v1, nr_v1);
	for (i = 0; i < k->nr_v1; i++) {
		CHECK(has_word(s, k->v1[i].name));
		CHECK(k->v1[i].mount && k->v1[i].mount[0] == '/');
	}

	if (v2 && nr_v1)
		CHECK_INT(k->cgroup_layout, KF_CG_HYBRID);
	else if (v2)
		CHECK_INT(k->cgroup_layout, KF_CG_V2);
	else if (v1_any)
		CHECK_INT(k->cgroup_layout, KF_CG_V1);
	else
		CHECK_INT(k->cgroup_layout, KF_CG_NONE);

	if (!v2) {
		CHECK(!k->cgroup_v2_mount);
		CHECK(!k->v2_controllers);
		return;
	}
	CHECK(k->cgroup_v2_mount);
	if (!k->cgroup_v2_mount)
		return;
	snprintf(path, sizeof(path),
		 "grep -q '^[^ ]* %s cgroup2 ' /proc/mounts",
		 k->cgroup_v2_mount);
	CHECK_INT(unit_sh("%s", path), 0);
	/* The usual places win over other v2 mounts. */
	if (!unit_sh("grep -q '^[^ ]* /sys/fs/cgroup cgroup2 ' /proc/mounts"))
		CHECK_STR(k->cgroup_v2_mount, "/sys/fs/cgroup");
	snprintf(dir, sizeof(dir), "%s/cgroup.controllers", k->cgroup_v2_mount);
	s = slurp(dir);
	if (s) {
		char want[4096];

		snprintf(want, sizeof(want), "%s", s);
		want[strcspn(want, "\n")] = '\0';
		CHECK_STR(k->v2_controllers, want);
	}
}

static void test_hints(void)
{
	int f;

	for (f = 0; f < KF_NR_FEATURES; f++) {
		const char *h = kfeatures__hint(f);
		const char *a = kfeatures__advice(f);

		CHECK(h && *h && a && *a);
		CHECK(!strchr(h, '\n'));
		CHECK(strstr(h, "see `rstat-analyze doctor`"));
		CHECK(!strncmp(h, a, strlen(a)));
	}
	CHECK(strstr(kfeatures__hint(KF_FEAT_KPROBES), "--uprobe does"));
	CHECK(strstr(kfeatures__hint(KF_FEAT_KPROBES), "CONFIG_KPROBE_EVENTS"));
	CHECK_STR(kfeatures__hint(KF_NR_FEATURES), "");
	CHECK_STR(kfeatures__advice(-1), "");
	CHECK_INT(kfeatures__version("6.18.44-fc-v595"), 6018);
	CHECK_INT(kfeatures__version("4.15.0"), 4015);
	CHECK_INT(kfeatures__version("6.1"), 6001);
	CHECK_INT(kfeatures__version("garbage"), -1);
	CHECK_INT(kfeatures__version(NULL), -1);
	CHECK_STR(kf_state__str(KF_UNKNOWN), "unknown");
	CHECK_STR(kf_cgroup_layout__str(KF_CG_HYBRID), "hybrid");
}

/*
 * Run fn in a child and return its exit status; fn's checks are made
 * there, so it reports failures through the status (bit per check).
 */
static int in_child(int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn());
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* As nobody: not root, and an unreadable tracefs is no proof of absence. */
static int child_unprivileged(void)
{
	struct kfeatures k;
	int bad = 0;
	size_t i;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 100;
	if (kfeatures__probe(&k))
		return 101;
	if (k.root)
		bad |= 1;
	if (k.cap_perfmon)
		bad |= 2;
	if (k.tracefs && access(k.tracefs, X_OK)) {
		for (i = 0; i < KF_NR_TRACEPOINTS; i++)
			if (k.tracepoints[i].state != KF_UNKNOWN)
				bad |= 4;
		if (k.kprobe_events != KF_UNKNOWN ||
		    k.uprobe_events != KF_UNKNOWN)
			bad |= 8;
	}
	kfeatures__free(&k);
	return bad;
}

static void test_unprivileged(void)
{
	int r;

	if (geteuid() != 0) {
		SKIP("needs root to switch to nobody");
		return;
	}
	r = in_child(child_unprivileged);
	if (r == 100) {
		SKIP("cannot switch to uid 65534");
		return;
	}
	CHECK_INT(r, 0);
}

/*
 * Without tracefs mounted (in a private mount namespace): reported as
 * mountable, not mounted, and probing must not mount it.
 */
static int child_no_tracefs(void)
{
	struct kfeatures k;
	char dir[PATH_MAX];
	int bad = 0;
	size_t i;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 100;
	while (first_mount("tracefs", dir, sizeof(dir)))
		if (umount2(dir, MNT_DETACH))
			return 100;
	if (kfeatures__probe(&k))
		return 101;
	if (k.tracefs)
		bad |= 1;
	if (!k.tracefs_mountable)
		bad |= 2;
	for (i = 0; i < KF_NR_TRACEPOINTS; i++)
		if (k.tracepoints[i].state != KF_UNKNOWN)
			bad |= 4;
	if (first_mount("tracefs", dir, sizeof(dir)))
		bad |= 8;
	kfeatures__free(&k);
	return bad;
}

static void test_no_tracefs(void)
{
	int r;

	if (geteuid() != 0) {
		SKIP("needs root for a mount namespace");
		return;
	}
	if (unit_sh("grep -qw tracefs /proc/filesystems")) {
		SKIP("no tracefs in this kernel");
		return;
	}
	r = in_child(child_no_tracefs);
	if (r == 100) {
		SKIP("cannot unmount tracefs in a private mount namespace");
		return;
	}
	CHECK_INT(r, 0);
}

static void test_probe_twice(void)
{
	struct kfeatures a, b;

	CHECK_INT(kfeatures__probe(&a), 0);
	CHECK_INT(kfeatures__probe(&b), 0);
	CHECK_INT(a.cgroup_layout, b.cgroup_layout);
	CHECK_INT(a.nr_v1, b.nr_v1);
	kfeatures__free(&a);
	kfeatures__free(&b);
	/* Freeing twice is harmless: free() clears the struct. */
	kfeatures__free(&a);
	if (probed)
		kfeatures__free(&kf);
	probed = false;
}

/*
 * kfeatures__has_functions() against names read from /proc/kallsyms here:
 * a text symbol, a weak one, a data symbol (no function) and a name that
 * is none, in one pass, as kfeatures__has_function() finds each alone.
 */
static void test_has_functions(void)
{
	char line[512], sym[256];
	char text[256] = "", weak[256] = "", data[256] = "";
	const char *names[4];
	unsigned long long addr;
	bool found[4];
	size_t i;
	char type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		SKIP("no /proc/kallsyms");
		return;
	}
	while (fgets(line, sizeof(line), f) &&
	       (!*text || !*weak || !*data)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (type == 'T' && !*text)
			snprintf(text, sizeof(text), "%s", sym);
		else if (type == 'W' && !*weak)
			snprintf(weak, sizeof(weak), "%s", sym);
		else if (type == 'D' && !*data)
			snprintf(data, sizeof(data), "%s", sym);
	}
	fclose(f);
	CHECK(*text && *data);
	names[0] = text;
	names[1] = *weak ? weak : text;
	names[2] = data;
	names[3] = "rs_no_such_function_anywhere";
	CHECK_U64(kfeatures__has_functions(names, 4, found), 2);
	CHECK(found[0] && found[1] && !found[2] && !found[3]);
	for (i = 0; i < 4; i++)
		CHECK(kfeatures__has_function(names[i]) == found[i]);
	CHECK_U64(kfeatures__has_functions(names, 0, found), 0);
}

UNIT_MAIN(
	UNIT(test_privileges),
	UNIT(test_kallsyms),
	UNIT(test_has_functions),
	UNIT(test_pmu_cycles),
	UNIT(test_probes),
	UNIT(test_tracefs),
	UNIT(test_tracepoints),
	UNIT(test_vmlinux),
	UNIT(test_cgroups),
	UNIT(test_hints),
	UNIT(test_unprivileged),
	UNIT(test_no_tracefs),
	UNIT(test_probe_twice),
)
