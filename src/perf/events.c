// SPDX-License-Identifier: GPL-2.0
/*
 * Event names to perf_event_attr, the way perf's parse-events does for the
 * names a recording of cgroup statistics needs: hardware and software
 * counters, raw PMU codes, tracepoints (ids from tracefs via libtracefs)
 * and the kprobe/uprobe PMUs.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tracefs.h>

#include "evlist.h"
#include "util.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CGROUP_SWITCHES },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

static const struct named_event *find_named(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(named_events); i++)
		if (strlen(named_events[i].name) == len &&
		    !strncmp(named_events[i].name, s, len))
			return &named_events[i];
	return NULL;
}

/*
 * perf's modifier letters; a string of them after the last ':' is a
 * modifier, not a tracepoint name (no tracepoint is named like that).
 */
static int parse_modifiers(const char *s, struct perf_event_attr *attr)
{
	bool u = false, k = false, h = false;
	int p = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		switch (*s) {
		case 'u':
			u = true;
			break;
		case 'k':
			k = true;
			break;
		case 'h':
			h = true;
			break;
		case 'p':
			if (++p > 3)
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
	}
	/* As perf: naming any of u/k/h excludes the modes not named. */
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	attr->precise_ip = p;
	return 0;
}

/* Tracepoint system and event names: what tracefs directories allow. */
static bool valid_tp_part(const char *s, size_t len)
{
	size_t i;

	if (!len || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

/*
 * The id of tracepoint sys:name. The file is located through libtracefs
 * (which finds, or mounts, tracefs) but read here, so that errno says
 * whether it is missing or unreadable.
 */
static int tracepoint_id(const char *sys, const char *name, uint64_t *id)
{
	char buf[32], *path, *end;
	ssize_t len;
	int fd, err;

	if (!tracefs_tracing_dir())
		return -ENOENT;
	path = tracefs_event_get_file(NULL, sys, name, "id");
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = errno;
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return err == ENOTDIR ? -ENOENT : -err;
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (len <= 0)
		return len < 0 ? -err : -EINVAL;
	buf[len] = '\0';
	errno = 0;
	*id = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* rNNN: hex digits only, as perf's raw event syntax. */
static int parse_raw(const char *s, size_t len, uint64_t *config)
{
	uint64_t v = 0;
	size_t i;

	if (len < 2 || len > 17 || s[0] != 'r')
		return -ENOENT;
	for (i = 1; i < len; i++) {
		int c = tolower((unsigned char)s[i]);

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -ENOENT;
	}
	*config = v;
	return 0;
}

int events__parse(const char *spec, struct perf_event_attr *attr,
		  char **name)
{
	const struct named_event *ne;
	struct perf_event_attr tmp;
	uint64_t raw = 0;
	const char *c1, *c2, *mods = NULL;
	size_t len1;
	int err;

	if (name)
		*name = NULL;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (!spec || !*spec)
		return -EINVAL;

	c1 = strchr(spec, ':');
	len1 = c1 ? (size_t)(c1 - spec) : strlen(spec);
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2 && strchr(c2 + 1, ':'))
		return -EINVAL;

	ne = find_named(spec, len1);
	/*
	 * rNNN with no modifier after it may still be a tracepoint system
	 * that happens to be spelled in hex digits.
	 */
	if (ne || (spec[0] == 'r' && !parse_raw(spec, len1, &raw) &&
		   (!c1 || (!c2 && !parse_modifiers(c1 + 1, &tmp))))) {
		/* A counter: at most one ':', and modifiers after it. */
		if (c2)
			return -EINVAL;
		mods = c1 ? c1 + 1 : NULL;
		if (ne) {
			attr->type = ne->type;
			attr->config = ne->config;
		} else {
			attr->type = PERF_TYPE_RAW;
			attr->config = raw;
		}
	} else if (c1) {
		/* A tracepoint sys:name, maybe with modifiers. */
		const char *ev = c1 + 1;
		size_t evlen = c2 ? (size_t)(c2 - ev) : strlen(ev);
		char sys[256], evn[256];
		uint64_t id = 0;

		if (!valid_tp_part(spec, len1) || !valid_tp_part(ev, evlen) ||
		    len1 >= sizeof(sys) || evlen >= sizeof(evn))
			return -EINVAL;
		memcpy(sys, spec, len1);
		sys[len1] = '\0';
		memcpy(evn, ev, evlen);
		evn[evlen] = '\0';
		if (c2 && parse_modifiers(c2 + 1, attr))
			return -EINVAL;
		err = tracepoint_id(sys, evn, &id);
		if (err)
			return err;
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = id;
		attr->sample_period = 1;
		/* perf evlist prints tracepoints without modifiers. */
		if (name && asprintf(name, "%s:%s", sys, evn) < 0) {
			*name = NULL;
			return -ENOMEM;
		}
		return 0;
	} else {
		/* A bare word that names nothing we know. */
		for (size_t i = 0; i < len1; i++)
			if (!isalnum((unsigned char)spec[i]) &&
			    spec[i] != '-' && spec[i] != '_')
				return -EINVAL;
		return -ENOENT;
	}

	if (mods && parse_modifiers(mods, attr))
		return -EINVAL;
	if (!name)
		return 0;
	/* perf keeps the spelling given: "cs", "faults:u", "cycles:uk". */
	*name = strdup(spec);
	return *name ? 0 : -ENOMEM;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
			       int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

bool events__supported(const struct perf_event_attr *attr, int *err)
{
	struct perf_event_attr a = *attr;
	int fd, e;

	a.size = sizeof(a);
	a.disabled = 1;
	a.enable_on_exec = 0;
	/* The task first; events that only count per CPU need a CPU. */
	fd = sys_perf_event_open(&a, 0, -1);
	if (fd < 0) {
		e = errno;
		fd = sys_perf_event_open(&a, -1, 0);
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			e = errno;
	}
	if (fd < 0) {
		if (err)
			*err = -e;
		return false;
	}
	close(fd);
	if (err)
		*err = 0;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void events__free_names(char **names)
{
	char **p;

	if (!names)
		return;
	for (p = names; *p; p++)
		free(*p);
	free(names);
}

/* Append "sys:ev" for each event of sys matching glob. */
static int add_system(const char *sys, const char *glob, char ***v,
		      size_t *n, size_t *cap)
{
	char **evs = tracefs_system_events(NULL, sys);
	char **p;
	int err = 0;

	if (!evs)
		return 0;
	for (p = evs; *p; p++) {
		char *s;

		if (asprintf(&s, "%s:%s", sys, *p) < 0) {
			err = -ENOMEM;
			break;
		}
		if (fnmatch(glob, s, 0)) {
			free(s);
			continue;
		}
		if (grow_array((void **)v, cap, *n + 2, sizeof(**v))) {
			free(s);
			err = -ENOMEM;
			break;
		}
		(*v)[(*n)++] = s;
	}
	tracefs_list_free(evs);
	return err;
}

static bool has_glob(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

int events__tracepoints(const char *glob, char ***names, size_t *n)
{
	const char *colon = strchr(glob, ':');
	char **v = NULL, **systems = NULL;
	size_t nr = 0, cap = 0, i, j;
	const char *dir;
	int err = 0;

	*names = NULL;
	if (n)
		*n = 0;
	dir = tracefs_tracing_dir();
	if (!dir)
		return -ENOENT;
	/*
	 * libtracefs lists nothing from a tracefs this user cannot read
	 * (mode 0700 as a rule): that is a permission, not a kernel without
	 * the events.
	 */
	if (access(dir, R_OK | X_OK))
		return errno == EACCES || errno == EPERM ? -errno : -ENOENT;

	if (colon && !has_glob(glob, (size_t)(colon - glob))) {
		/* One system named: read only its directory. */
		char *sys = strndup(glob, (size_t)(colon - glob));

		if (!sys)
			return -ENOMEM;
		err = add_system(sys, glob, &v, &nr, &cap);
		free(sys);
	} else {
		systems = tracefs_event_systems(NULL);
		for (i = 0; systems && systems[i] && !err; i++)
			err = add_system(systems[i], glob, &v, &nr, &cap);
		tracefs_list_free(systems);
	}
	if (!err && !v && grow_array((void **)&v, &cap, 1, sizeof(*v)))
		err = -ENOMEM;
	if (err) {
		while (nr)
			free(v[--nr]);
		free(v);
		return err;
	}

	qsort(v, nr, sizeof(*v), cmp_str);
	for (i = j = 0; i < nr; i++) {
		if (j && !strcmp(v[j - 1], v[i]))
			free(v[i]);
		else
			v[j++] = v[i];
	}
	v[j] = NULL;
	*names = v;
	if (n)
		*n = j;
	return 0;
}

/* A small sysfs file of the PMU, read into buf. */
static int read_pmu_file(const char *pmu, const char *file, char *buf,
			 size_t size)
{
	char path[256];
	ssize_t len;
	int fd, err;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/%s",
		 pmu, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return -err;
	buf[len] = '\0';
	return 0;
}

/* type, and the config bit format/retprobe names ("config:N"). */
static int probe_pmu_attr(const char *pmu, bool retprobe,
			  struct perf_event_attr *attr)
{
	char buf[64];
	unsigned int bit;
	int type, err;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	err = read_pmu_file(pmu, "type", buf, sizeof(buf));
	if (err)
		return err == -ENOENT || err == -ENOTDIR ? -ENOENT : err;
	if (sscanf(buf, "%d", &type) != 1 || type < 0)
		return -EINVAL;
	attr->type = (uint32_t)type;
	attr->sample_period = 1;
	if (!retprobe)
		return 0;
	err = read_pmu_file(pmu, "format/retprobe", buf, sizeof(buf));
	if (err)
		return err == -ENOENT ? -EOPNOTSUPP : err;
	if (sscanf(buf, "config:%u", &bit) != 1 || bit > 63)
		return -EINVAL;
	attr->config |= 1ULL << bit;
	return 0;
}

int events__uprobe_attr(const char *path, uint64_t offset, bool retprobe,
			struct perf_event_attr *attr)
{
	int err;

	if (!path)
		return -EINVAL;
	err = probe_pmu_attr("uprobe", retprobe, attr);
	if (err)
		return err;
	attr->config1 = (uint64_t)(uintptr_t)path;	/* uprobe_path */
	attr->config2 = offset;			/* probe_offset */
	return 0;
}

int events__kprobe_attr(const char *func, uint64_t addr_or_offset,
			bool retprobe, struct perf_event_attr *attr)
{
	int err = probe_pmu_attr("kprobe", retprobe, attr);

	if (err)
		return err;
	/* kprobe_func, then probe_offset; or kprobe_addr with no func. */
	attr->config1 = (uint64_t)(uintptr_t)func;
	attr->config2 = addr_or_offset;
	return 0;
}

int events__dynprobe_create(const char *group, const char *event,
			    bool kernel, const char *target, uint64_t offset,
			    bool retprobe, struct tracefs_dynevent **dev,
			    struct perf_event_attr *attr)
{
	struct tracefs_dynevent *d;
	char addr[512], idfile[512], *path;
	unsigned long long id;
	int err = 0;

	*dev = NULL;
	if (kernel) {
		if (offset)
			snprintf(addr, sizeof(addr), "%s+%llu", target,
				 (unsigned long long)offset);
		else
			snprintf(addr, sizeof(addr), "%s", target);
		d = retprobe ? tracefs_kretprobe_alloc(group, event, addr,
						       NULL, 0) :
			       tracefs_kprobe_alloc(group, event, addr, NULL);
	} else {
		d = retprobe ? tracefs_uretprobe_alloc(group, event, target,
						       offset, NULL) :
			       tracefs_uprobe_alloc(group, event, target,
						    offset, NULL);
	}
	if (!d)
		return -ENOMEM;
	if (tracefs_dynevent_create(d)) {
		err = errno ? -errno : -EINVAL;
		tracefs_dynevent_free(d);
		return err;
	}
	snprintf(idfile, sizeof(idfile), "events/%s/%s/id", group, event);
	path = tracefs_get_tracing_file(idfile);
	if (path) {
		FILE *f = fopen(path, "re");

		if (!f || fscanf(f, "%llu", &id) != 1)
			err = -ENOENT;
		if (f)
			fclose(f);
	} else {
		err = -ENOMEM;
	}
	tracefs_put_tracing_file(path);
	if (err) {
		events__dynprobe_remove(d);
		return err;
	}
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	attr->sample_period = 1;
	*dev = d;
	return 0;
}

void events__dynprobe_remove(struct tracefs_dynevent *dev)
{
	if (!dev)
		return;
	tracefs_dynevent_destroy(dev, true);
	tracefs_dynevent_free(dev);
}
