// SPDX-License-Identifier: GPL-2.0
/*
 * The perf_event_open + mmap ring layer (libperf's evsel/evlist/mmap in
 * one module): every evsel opened on every online CPU for a target, one
 * ring per CPU that the other fds of that CPU write into, and a drain
 * that hands the new bytes of each ring to the caller without copying.
 *
 * Ring protocol (include/uapi/linux/perf_event.h, struct
 * perf_event_mmap_page): the kernel writes records and then advances
 * data_head; we read data_head with acquire semantics (the smp_rmb() the
 * header asks for), use [data_tail, data_head), and publish data_tail after
 * a full barrier (smp_mb()) so that the kernel never overwrites bytes we
 * are still reading. Records are whole between tail and head: the kernel
 * moves data_head only past finished records.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "evlist.h"
#include "util.h"

/* 1 MiB per CPU: see evlist__mmap() in evlist.h. */
#define DEFAULT_RING_BYTES	(1024 * 1024)
#define MIN_DEFAULT_RING_BYTES	(64 * 1024)

struct evsel {
	struct perf_event_attr attr;
	char *name;
	char *filter;		/* NULL: none */
	int *fds;		/* [cpu index * nr_threads + thread], -1 */
	uint64_t *ids;		/* one per open fd */
	uint32_t nr_ids;
};

struct ring {
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size, mask;
	uint64_t tail;		/* our copy of data_tail */
	size_t map_len;
	int fd;
	int cpu;
};

struct evlist {
	struct evsel **evsels;
	size_t cap;
	uint32_t nr;

	struct evlist_target target;
	int *cpus;
	uint32_t nr_cpus;
	int *threads;		/* pids, or -1, or the cgroup fd */
	uint32_t nr_threads;
	bool open;
	bool enabled;

	unsigned int pages_hint;	/* evlist__set_mmap_pages() */
	unsigned int open_pages;	/* the watermark was sized for it */
	unsigned int mmap_pages;
	struct ring *rings;
	uint32_t nr_rings;

	struct pollfd *pfd;
	uint32_t nr_pfd, nr_hup;

	struct evlist_stats stats;
	unsigned char *rec;	/* a record that wraps, for drain_records */
	char err[512];
};

/* ---- evsel ---------------------------------------------------------- */

struct evsel *evsel__new(const struct perf_event_attr *attr,
			 const char *name)
{
	struct evsel *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->attr = *attr;
	e->attr.size = sizeof(e->attr);
	e->name = strdup(name ? name : "");
	if (!e->name) {
		free(e);
		return NULL;
	}
	return e;
}

void evsel__delete(struct evsel *e)
{
	if (!e)
		return;
	free(e->fds);
	free(e->ids);
	free(e->name);
	free(e->filter);
	free(e);
}

struct perf_event_attr *evsel__attr(struct evsel *e)
{
	return &e->attr;
}

const char *evsel__name(const struct evsel *e)
{
	return e->name;
}

int evsel__set_filter(struct evsel *e, const char *filter)
{
	char *f = NULL;

	if (e->fds)
		return -EBUSY;
	if (filter) {
		f = strdup(filter);
		if (!f)
			return -ENOMEM;
	}
	free(e->filter);
	e->filter = f;
	return 0;
}

const uint64_t *evsel__ids(const struct evsel *e, uint32_t *nr)
{
	*nr = e->nr_ids;
	return e->ids;
}

/* ---- evlist --------------------------------------------------------- */

#define FD(el, e, c, t) ((e)->fds[(size_t)(c) * (el)->nr_threads + (t)])

struct evlist *evlist__new(void)
{
	return calloc(1, sizeof(struct evlist));
}

uint32_t evlist__nr(const struct evlist *el)
{
	return el->nr;
}

struct evsel *evlist__evsel(const struct evlist *el, uint32_t i)
{
	return i < el->nr ? el->evsels[i] : NULL;
}

int evlist__add(struct evlist *el, struct evsel *e)
{
	if (!e)
		return -ENOMEM;	/* from evsel__new(), passed on */
	if (el->open) {
		evsel__delete(e);
		return -EBUSY;
	}
	if (grow_array((void **)&el->evsels, &el->cap, el->nr + 1,
		       sizeof(*el->evsels))) {
		evsel__delete(e);
		return -ENOMEM;
	}
	el->evsels[el->nr++] = e;
	return 0;
}

const char *evlist__strerror(const struct evlist *el)
{
	return el->err;
}

void evlist__stats(const struct evlist *el, struct evlist_stats *st)
{
	*st = el->stats;
}

static unsigned int page_size(void)
{
	static unsigned int ps;

	if (!ps)
		ps = (unsigned int)sysconf(_SC_PAGESIZE);
	return ps;
}

static bool is_pow2(unsigned int x)
{
	return x && !(x & (x - 1));
}

static unsigned int default_pages(unsigned int bytes)
{
	unsigned int pages = bytes / page_size();

	return pages ? pages : 1;
}

int evlist__set_mmap_pages(struct evlist *el, unsigned int pages)
{
	if (pages && !is_pow2(pages))
		return -EINVAL;
	el->pages_hint = pages;
	return 0;
}

unsigned int evlist__mmap_pages(const struct evlist *el)
{
	return el->mmap_pages;
}

static void unmap_rings(struct evlist *el)
{
	uint32_t i;

	for (i = 0; i < el->nr_rings; i++)
		if (el->rings[i].pg)
			munmap(el->rings[i].pg, el->rings[i].map_len);
	free(el->rings);
	el->rings = NULL;
	el->nr_rings = 0;
	el->mmap_pages = 0;
	free(el->pfd);
	el->pfd = NULL;
	el->nr_pfd = el->nr_hup = 0;
}

static void close_all(struct evlist *el)
{
	uint32_t i;
	size_t j, n = (size_t)el->nr_cpus * el->nr_threads;

	unmap_rings(el);
	for (i = 0; i < el->nr; i++) {
		struct evsel *e = el->evsels[i];

		for (j = 0; e->fds && j < n; j++)
			if (e->fds[j] >= 0)
				close(e->fds[j]);
		free(e->fds);
		e->fds = NULL;
		free(e->ids);
		e->ids = NULL;
		e->nr_ids = 0;
	}
	free(el->cpus);
	el->cpus = NULL;
	free(el->threads);
	el->threads = NULL;
	el->nr_cpus = el->nr_threads = 0;
	el->open = el->enabled = false;
}

static int ioctl_all(struct evlist *el, unsigned long req)
{
	size_t j, n = (size_t)el->nr_cpus * el->nr_threads;
	uint32_t i;

	for (i = 0; i < el->nr; i++) {
		struct evsel *e = el->evsels[i];

		for (j = 0; e->fds && j < n; j++) {
			if (e->fds[j] < 0 || !ioctl(e->fds[j], req, 0))
				continue;
			/* A task that exited leaves fds that refuse. */
			if (errno == ESRCH)
				continue;
			snprintf(el->err, sizeof(el->err),
				 "%s: cannot %s the event: %s", e->name,
				 req == PERF_EVENT_IOC_ENABLE ? "enable" :
				 "disable", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int evlist__enable(struct evlist *el)
{
	int err;

	if (!el->open)
		return -EINVAL;
	err = ioctl_all(el, PERF_EVENT_IOC_ENABLE);
	if (!err)
		el->enabled = true;
	return err;
}

int evlist__disable(struct evlist *el)
{
	int err;

	if (!el->open)
		return 0;
	err = ioctl_all(el, PERF_EVENT_IOC_DISABLE);
	if (!err)
		el->enabled = false;
	return err;
}

void evlist__delete(struct evlist *el)
{
	uint32_t i;

	if (!el)
		return;
	if (el->enabled)
		ioctl_all(el, PERF_EVENT_IOC_DISABLE);
	close_all(el);
	for (i = 0; i < el->nr; i++)
		evsel__delete(el->evsels[i]);
	free(el->evsels);
	free(el->rec);
	free(el);
}

/* ---- open ----------------------------------------------------------- */

/* "0-3,5,7-8" (the sysfs cpu list format) into a sorted array. */
/* A range list of alternate CPUs of a huge machine takes tens of KiB. */
#define ONLINE_MAX (64 << 10)

static int read_online_cpus(int **cpus, uint32_t *nr)
{
	static char buf[ONLINE_MAX];
	char *p, *end;
	size_t cap = 0;
	ssize_t len;
	int fd, err;

	*cpus = NULL;
	*nr = 0;
	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return -err;
	buf[len] = '\0';
	for (p = buf; *p && *p != '\n';) {
		long a, b;

		a = strtol(p, &end, 10);
		if (end == p || a < 0)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				goto bad;
			p = end;
		}
		for (; a <= b; a++) {
			if (grow_array((void **)cpus, &cap, *nr + 1,
				       sizeof(**cpus))) {
				free(*cpus);
				*cpus = NULL;
				*nr = 0;
				return -ENOMEM;
			}
			(*cpus)[(*nr)++] = (int)a;
		}
		if (*p == ',')
			p++;
	}
	if (*nr)
		return 0;
bad:
	free(*cpus);
	*cpus = NULL;
	*nr = 0;
	return -EINVAL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The threads of pid, as perf -p: every entry of /proc/PID/task. */
static int read_threads(pid_t pid, int **tids, uint32_t *nr)
{
	char path[64];
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	*tids = NULL;
	*nr = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((d = readdir(dir))) {
		char *end;
		long tid = strtol(d->d_name, &end, 10);

		if (!isdigit((unsigned char)d->d_name[0]) || *end || tid <= 0)
			continue;
		if (grow_array((void **)tids, &cap, *nr + 1,
			       sizeof(**tids))) {
			closedir(dir);
			free(*tids);
			*tids = NULL;
			*nr = 0;
			return -ENOMEM;
		}
		(*tids)[(*nr)++] = (int)tid;
	}
	closedir(dir);
	if (!*nr)
		return -ESRCH;
	qsort(*tids, *nr, sizeof(**tids), cmp_int);
	return 0;
}

static int read_proc_int(const char *path, int *val)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static const char *errname(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "?";
}

/* One line: the event, where, the errno's name, and what to do. */
static void set_open_error(struct evlist *el, const struct evsel *e,
			   int err, int cpu, int pid)
{
	const struct perf_event_attr *a = &e->attr;
	char where[64] = "";
	int v;

	if (cpu >= 0)
		snprintf(where, sizeof(where), " on CPU %d", cpu);

	switch (err) {
	case EACCES:
	case EPERM:
		if (read_proc_int("/proc/sys/kernel/perf_event_paranoid", &v))
			v = 2;
		snprintf(el->err, sizeof(el->err),
			 "%s: permission denied%s (%s): kernel.perf_event_paranoid is %d%s; run as root, or lower it with sysctl kernel.perf_event_paranoid=-1",
			 e->name, where, errname(err), v,
			 geteuid() ? " and this is not root" : "");
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(el->err, sizeof(el->err),
			 "%s: not supported on this machine (%s)%s",
			 e->name, errname(err),
			 a->type == PERF_TYPE_HARDWARE ||
			 a->type == PERF_TYPE_HW_CACHE ||
			 a->type == PERF_TYPE_RAW ?
			 ": no hardware PMU (a virtual machine?), use -e cpu-clock" :
			 ": see rstat-analyze doctor");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(el->err, sizeof(el->err),
			 "%s: too many open files (%s) for %u events x %u CPUs x %u threads; raise ulimit -n",
			 e->name, errname(err), el->nr, el->nr_cpus,
			 el->nr_threads);
		break;
	case ESRCH:
		snprintf(el->err, sizeof(el->err),
			 "%s: process %d does not exist (ESRCH)", e->name,
			 pid);
		break;
	case EBUSY:
		snprintf(el->err, sizeof(el->err),
			 "%s: busy%s (EBUSY): another tool holds the PMU exclusively",
			 e->name, where);
		break;
	case EOVERFLOW:
		snprintf(el->err, sizeof(el->err),
			 "%s: callchain deeper than kernel.perf_event_max_stack (EOVERFLOW)",
			 e->name);
		break;
	case EBADF:
		snprintf(el->err, sizeof(el->err),
			 "%s: bad file descriptor%s (EBADF): is the cgroup fd an open cgroup directory?",
			 e->name, where);
		break;
	case EINVAL:
		if (a->freq && !read_proc_int(
			"/proc/sys/kernel/perf_event_max_sample_rate", &v) &&
		    a->sample_freq > (uint64_t)v) {
			snprintf(el->err, sizeof(el->err),
				 "%s: frequency %" PRIu64 " Hz exceeds kernel.perf_event_max_sample_rate (%d) (EINVAL)",
				 e->name, (uint64_t)a->sample_freq, v);
			break;
		}
		snprintf(el->err, sizeof(el->err),
			 "%s: the kernel rejected the event's attributes%s (EINVAL)",
			 e->name, where);
		break;
	default:
		snprintf(el->err, sizeof(el->err), "%s: cannot open%s: %s (%s)",
			 e->name, where, strerror(err), errname(err));
		break;
	}
}

/* The bits every evsel needs for the drain and the perf.data writer. */
static void force_attr(struct perf_event_attr *a, uint32_t watermark)
{
	a->size = sizeof(*a);
	a->sample_id_all = 1;
	a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	a->read_format |= PERF_FORMAT_ID;
	/*
	 * Always disabled: enable_on_exec only enables events that are
	 * disabled at exec, and the others wait for evlist__enable().
	 */
	a->disabled = 1;
	a->watermark = 1;
	a->wakeup_watermark = watermark;
}

static int open_one(struct evlist *el, struct evsel *e, uint32_t c,
		    uint32_t t)
{
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	int pid = el->threads[t], fd;

	if (el->target.kind == EVLIST_TARGET_CGROUP)
		flags |= PERF_FLAG_PID_CGROUP;
	fd = (int)syscall(SYS_perf_event_open, &e->attr, pid, el->cpus[c],
			  -1, flags);
	/*
	 * A kernel without KSYMBOL records (before 5.1, or one that refuses
	 * them) opens the event without them, as perf does: the recording
	 * only names fewer frames.
	 */
	if (fd < 0 && errno == EINVAL && e->attr.ksymbol) {
		e->attr.ksymbol = 0;
		fd = (int)syscall(SYS_perf_event_open, &e->attr, pid,
				  el->cpus[c], -1, flags);
	}
	if (fd >= 0) {
		FD(el, e, c, t) = fd;	/* close_all() closes it */
		if (e->filter &&
		    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter)) {
			int err = errno;

			snprintf(el->err, sizeof(el->err),
				 "%s: the kernel rejected the filter \"%.200s\" on CPU %d (%s): check its fields in the tracepoint's format file",
				 e->name, e->filter, el->cpus[c], errname(err));
			return -err;
		}
		return 0;
	}
	/* A thread that exited since /proc/PID/task was listed. */
	if (errno == ESRCH && el->target.kind == EVLIST_TARGET_PID &&
	    pid != el->target.pid)
		return 0;
	set_open_error(el, e, errno, el->cpus[c],
		       el->target.kind == EVLIST_TARGET_CGROUP ? -1 : pid);
	return -errno;
}

static int read_ids(struct evlist *el, struct evsel *e)
{
	size_t j, n = (size_t)el->nr_cpus * el->nr_threads;

	e->ids = calloc(n, sizeof(*e->ids));
	if (!e->ids)
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		uint64_t id;

		if (e->fds[j] < 0)
			continue;
		if (ioctl(e->fds[j], PERF_EVENT_IOC_ID, &id)) {
			snprintf(el->err, sizeof(el->err),
				 "%s: cannot read the sample id: %s",
				 e->name, strerror(errno));
			return -errno;
		}
		e->ids[e->nr_ids++] = id;
	}
	return 0;
}

/* Open for t, with the wakeup watermark sized for a ring of pages. */
static int __evlist__open(struct evlist *el, const struct evlist_target *t,
			  unsigned int pages)
{
	size_t n, j;
	uint32_t i, c, th;
	uint64_t wm;
	int err;

	el->err[0] = '\0';
	if (el->open)
		return -EBUSY;
	if (!el->nr) {
		snprintf(el->err, sizeof(el->err), "no events to open");
		return -EINVAL;
	}
	el->target = *t;
	err = read_online_cpus(&el->cpus, &el->nr_cpus);
	if (err) {
		snprintf(el->err, sizeof(el->err),
			 "cannot read /sys/devices/system/cpu/online: %s",
			 strerror(-err));
		return err;
	}
	switch (t->kind) {
	case EVLIST_TARGET_PID:
		err = read_threads(t->pid, &el->threads, &el->nr_threads);
		if (err) {
			snprintf(el->err, sizeof(el->err),
				 "process %d: %s", (int)t->pid,
				 err == -ESRCH ? "no such process" :
				 strerror(-err));
			goto fail;
		}
		break;
	case EVLIST_TARGET_CPUS:
	case EVLIST_TARGET_CGROUP:
		el->threads = malloc(sizeof(*el->threads));
		if (!el->threads) {
			err = -ENOMEM;
			goto fail;
		}
		el->threads[0] = t->kind == EVLIST_TARGET_CPUS ? -1 :
				 t->cgroup_fd;
		el->nr_threads = 1;
		break;
	default:
		err = -EINVAL;
		goto fail;
	}

	el->open_pages = pages;
	wm = (uint64_t)el->open_pages * page_size() / 4;
	if (wm < 8 || wm > UINT32_MAX)
		wm = wm < 8 ? 8 : UINT32_MAX;

	n = (size_t)el->nr_cpus * el->nr_threads;
	for (i = 0; i < el->nr; i++) {
		struct evsel *e = el->evsels[i];

		force_attr(&e->attr, (uint32_t)wm);
		e->fds = malloc(n * sizeof(*e->fds));
		if (!e->fds) {
			err = -ENOMEM;
			goto fail;
		}
		for (j = 0; j < n; j++)
			e->fds[j] = -1;
	}
	for (c = 0; c < el->nr_cpus; c++)
		for (th = 0; th < el->nr_threads; th++)
			for (i = 0; i < el->nr; i++) {
				err = open_one(el, el->evsels[i], c, th);
				if (err)
					goto fail;
			}
	for (i = 0; i < el->nr; i++) {
		err = read_ids(el, el->evsels[i]);
		if (err)
			goto fail;
	}
	el->open = true;
	return 0;

fail:
	if (err == -ENOMEM && !el->err[0])
		snprintf(el->err, sizeof(el->err), "out of memory");
	close_all(el);
	return err;
}

int evlist__open(struct evlist *el, const struct evlist_target *t)
{
	return __evlist__open(el, t, el->pages_hint ? el->pages_hint :
				     default_pages(DEFAULT_RING_BYTES));
}

/*
 * The wakeup watermark is part of the attr: when the ring is to have
 * another size than the events were opened for, open them again (before
 * anything was enabled or read from them) so that wakeups still come at
 * a quarter of the ring instead of when it is full.
 */
static int reopen_for(struct evlist *el, unsigned int pages)
{
	struct evlist_target t = el->target;

	if (pages == el->open_pages)
		return 0;
	if (el->enabled) {
		snprintf(el->err, sizeof(el->err),
			 "ring size changed after the events were enabled: set it with evlist__set_mmap_pages() before evlist__open()");
		return -EBUSY;
	}
	close_all(el);
	return __evlist__open(el, &t, pages);
}

/* ---- rings ---------------------------------------------------------- */

/* The fd that owns the ring of CPU index c: its first open fd. */
static int ring_owner(const struct evlist *el, uint32_t c)
{
	uint32_t i, t;

	for (i = 0; i < el->nr; i++)
		for (t = 0; t < el->nr_threads; t++)
			if (FD(el, el->evsels[i], c, t) >= 0)
				return FD(el, el->evsels[i], c, t);
	return -1;
}

static int mmap_all(struct evlist *el, unsigned int pages)
{
	size_t len = (size_t)(pages + 1) * page_size();
	uint32_t c, i, t;

	el->rings = calloc(el->nr_cpus, sizeof(*el->rings));
	if (!el->rings)
		return -ENOMEM;
	el->mmap_pages = pages;
	for (c = 0; c < el->nr_cpus; c++) {
		int owner = ring_owner(el, c);
		struct ring *r;
		void *base;

		if (owner < 0)
			continue;
		base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    owner, 0);
		if (base == MAP_FAILED) {
			int err = errno;
			int v = 0;

			read_proc_int("/proc/sys/kernel/perf_event_mlock_kb",
				      &v);
			snprintf(el->err, sizeof(el->err),
				 "cannot map a %zu KiB ring for CPU %d (%s): over the locked-memory limit? (kernel.perf_event_mlock_kb = %d, ulimit -l); run as root or use a smaller ring",
				 len / 1024, el->cpus[c], errname(err), v);
			return -err;
		}
		r = &el->rings[el->nr_rings++];
		r->pg = base;
		r->map_len = len;
		r->fd = owner;
		r->cpu = el->cpus[c];
		/* data_offset/size exist since Linux 4.1; else page 1. */
		r->data = (unsigned char *)base +
			  (r->pg->data_offset ? r->pg->data_offset :
			   page_size());
		r->size = r->pg->data_size ? r->pg->data_size :
			  (uint64_t)pages * page_size();
		r->mask = r->size - 1;
		r->tail = __atomic_load_n(&r->pg->data_tail,
					  __ATOMIC_RELAXED);

		for (i = 0; i < el->nr; i++) {
			struct evsel *e = el->evsels[i];

			for (t = 0; t < el->nr_threads; t++) {
				int fd = FD(el, e, c, t);

				if (fd < 0 || fd == owner)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
					  owner)) {
					int err = errno;

					snprintf(el->err, sizeof(el->err),
						 "%s: cannot redirect into the ring of CPU %d: %s",
						 e->name, el->cpus[c],
						 strerror(err));
					return -err;
				}
			}
		}
	}
	return 0;
}

static int setup_poll(struct evlist *el)
{
	size_t j, n = (size_t)el->nr_cpus * el->nr_threads;
	uint32_t i;

	el->pfd = calloc(n * el->nr, sizeof(*el->pfd));
	if (!el->pfd)
		return -ENOMEM;
	/* Every fd: each reports its own POLLHUP when its task exits. */
	for (i = 0; i < el->nr; i++)
		for (j = 0; j < n; j++)
			if (el->evsels[i]->fds[j] >= 0) {
				el->pfd[el->nr_pfd].fd =
					el->evsels[i]->fds[j];
				el->pfd[el->nr_pfd++].events = POLLIN;
			}
	return 0;
}

int evlist__mmap(struct evlist *el, unsigned int pages)
{
	bool dflt = !pages && !el->pages_hint;
	unsigned int min = default_pages(MIN_DEFAULT_RING_BYTES);
	int err;

	el->err[0] = '\0';
	if (!el->open) {
		snprintf(el->err, sizeof(el->err), "mmap before open");
		return -EINVAL;
	}
	if (el->rings)
		return -EBUSY;
	if (!pages)
		pages = el->open_pages;
	if (!is_pow2(pages)) {
		snprintf(el->err, sizeof(el->err),
			 "ring of %u pages: not a power of 2", pages);
		return -EINVAL;
	}
	for (;;) {
		err = reopen_for(el, pages);
		if (err)
			return err;
		err = mmap_all(el, pages);
		if (!err)
			break;
		unmap_rings(el);
		/* The default may not fit a user's locked-memory limit. */
		if (!dflt || (err != -EPERM && err != -ENOMEM) ||
		    pages / 2 < min)
			return err;
		pages /= 2;
		el->err[0] = '\0';
	}
	err = setup_poll(el);
	if (err) {
		unmap_rings(el);
		snprintf(el->err, sizeof(el->err), "out of memory");
	}
	return err;
}

static bool ring_has_data(const struct ring *r)
{
	return __atomic_load_n(&r->pg->data_head, __ATOMIC_RELAXED) !=
	       r->tail;
}

int evlist__poll(struct evlist *el, int timeout_ms, bool *hup)
{
	bool woken = false;
	uint32_t i;
	int n;

	if (hup)
		*hup = false;
	n = poll(el->pfd, el->nr_pfd, timeout_ms);
	if (n < 0)
		return -errno;
	for (i = 0; n > 0 && i < el->nr_pfd; i++) {
		short re = el->pfd[i].revents;

		if (re & POLLIN)
			woken = true;
		/*
		 * A hung-up fd stays readable for poll(): stop polling it
		 * (a negative fd is skipped) or every later call returns
		 * at once.
		 */
		if (re & (POLLHUP | POLLERR) && el->pfd[i].fd >= 0) {
			el->pfd[i].fd = -1;
			el->nr_hup++;
		}
	}
	if (hup && el->target.kind == EVLIST_TARGET_PID && el->nr_pfd &&
	    el->nr_hup == el->nr_pfd)
		*hup = true;
	if (woken)
		return 1;
	for (i = 0; i < el->nr_rings; i++)
		if (ring_has_data(&el->rings[i]))
			return 1;
	return 0;
}

/* n bytes at ring position pos, across the wrap. */
static inline void ring_copy(const struct ring *r, uint64_t pos, void *dst,
			     size_t n)
{
	uint64_t off = pos & r->mask;

	if (off + n <= r->size) {
		memcpy(dst, r->data + off, n);
	} else {
		size_t first = (size_t)(r->size - off);

		memcpy(dst, r->data + off, first);
		memcpy((char *)dst + first, r->data, n - first);
	}
}

/* Count the records in [tail, head): headers only. */
static void ring_walk(struct evlist *el, const struct ring *r,
		      uint64_t tail, uint64_t head)
{
	struct evlist_stats *st = &el->stats;
	uint64_t pos = tail, v;

	while (head - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		ring_copy(r, pos, &h, sizeof(h));
		/* The kernel never writes these; stop rather than loop. */
		if (h.size < sizeof(h) || h.size > head - pos)
			break;
		st->records++;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			st->samples++;
			break;
		case PERF_RECORD_LOST:		/* header, id, lost */
			if (h.size >= sizeof(h) + 16) {
				ring_copy(r, pos + sizeof(h) + 8, &v,
					  sizeof(v));
				st->lost += v;
			}
			break;
		case PERF_RECORD_LOST_SAMPLES:	/* header, lost */
			if (h.size >= sizeof(h) + 8) {
				ring_copy(r, pos + sizeof(h), &v, sizeof(v));
				st->lost_samples += v;
			}
			break;
		case PERF_RECORD_THROTTLE:
			st->throttle++;
			break;
		default:
			break;
		}
		pos += h.size;
	}
}

/* The kernel's new data of r: head, or -EBADMSG. */
static int ring_head(struct evlist *el, const struct ring *r, uint64_t *head)
{
	/* Acquire: the record bytes are read after data_head. */
	*head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	if (*head - r->tail > r->size) {
		/* Only an overwrite-mode ring could do this. */
		snprintf(el->err, sizeof(el->err),
			 "ring of CPU %d: head %" PRIu64 " is %" PRIu64 " bytes past tail, more than the ring holds",
			 r->cpu, *head, *head - r->tail);
		return -EBADMSG;
	}
	return 0;
}

/* Count [tail, upto) into the stats and free it for the kernel. */
static void ring_consume(struct evlist *el, struct ring *r, uint64_t upto)
{
	ring_walk(el, r, r->tail, upto);
	el->stats.bytes += upto - r->tail;
	/* Full barrier: our reads complete before the kernel may reuse
	 * the space. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&r->pg->data_tail, upto, __ATOMIC_RELAXED);
	r->tail = upto;
}

int evlist__drain(struct evlist *el, evlist_chunk_fn fn, void *ctx)
{
	uint32_t i;
	int err;

	for (i = 0; i < el->nr_rings; i++) {
		struct ring *r = &el->rings[i];
		uint64_t head, off, len, first;

		err = ring_head(el, r, &head);
		if (err)
			return err;
		if (head == r->tail)
			continue;
		len = head - r->tail;
		off = r->tail & r->mask;
		first = len < r->size - off ? len : r->size - off;
		err = fn(ctx, r->data + off, (size_t)first);
		if (!err && len > first)
			err = fn(ctx, r->data, (size_t)(len - first));
		if (err)
			return err;
		ring_consume(el, r, head);
	}
	return 0;
}

int evlist__drain_records(struct evlist *el, evlist_record_fn fn,
			  void *ctx)
{
	struct perf_event_header h;
	const void *rec;
	uint64_t head, pos, off;
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < el->nr_rings; i++) {
		struct ring *r = &el->rings[i];

		err = ring_head(el, r, &head);
		if (err)
			return err;
		for (pos = r->tail; !err && head - pos >= sizeof(h);
		     pos += h.size) {
			ring_copy(r, pos, &h, sizeof(h));
			/* The kernel never writes these: skip the rest. */
			if (h.size < sizeof(h) || h.size > head - pos) {
				pos = head;
				break;
			}
			off = pos & r->mask;
			rec = r->data + off;
			if (off + h.size > r->size) {
				/* A header's size is 16 bits. */
				if (!el->rec)
					el->rec = malloc(UINT16_MAX + 1);
				if (!el->rec) {
					err = -ENOMEM;
					break;
				}
				ring_copy(r, pos, el->rec, h.size);
				rec = el->rec;
			}
			err = fn(ctx, rec);
		}
		ring_consume(el, r, pos);
	}
	return err;
}
