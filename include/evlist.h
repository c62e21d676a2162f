/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live side of recording: event names to perf_event_attr, and the
 * perf_event_open + mmap ring layer, modelled on libperf (tools/lib/perf)
 * so that it can be swapped for libperf once that is packaged:
 *
 *   events__*  names, tracepoints and probe PMUs -> attr   (src/perf/events.c)
 *   evsel      one event to record: attr, name, its fds and sample ids
 *   evlist     the evsels, opened on every online CPU for one target, one
 *              ring per CPU, poll, drain          (src/perf/evlist.c)
 *
 * Every function returns 0 or -errno unless it says otherwise, and never
 * prints: after a failing evlist__open()/evlist__mmap(), evlist__strerror()
 * says which event failed and what to do about it.
 */
#ifndef RS_EVLIST_H
#define RS_EVLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* ---- event names ---------------------------------------------------- */

/*
 * Parse an event name into *attr (zeroed first, attr.size set):
 *   hardware  cycles instructions cache-references cache-misses branches
 *             branch-misses bus-cycles ref-cycles stalled-cycles-frontend
 *             stalled-cycles-backend (and perf's aliases: cpu-cycles, ...)
 *   software  cpu-clock task-clock page-faults|faults context-switches|cs
 *             cpu-migrations|migrations minor-faults major-faults
 *             alignment-faults emulation-faults cgroup-switches dummy
 *   raw       rNNN (hex config of the CPU's PMU)
 *   tracepoint SYS:NAME (config = its id in tracefs; sample_period = 1,
 *             as perf sets it: every hit is a sample)
 * each optionally followed by perf's modifiers :[ukhp]+ (u, k, h: count
 * only in user, kernel, hypervisor mode; p: precise_ip). When name is not
 * NULL, *name is malloc()ed: the name as `perf evlist` prints it, which
 * (perf 6.1) is the spelling given for counters ("cycles", "cycles:u",
 * "cs", "faults:u") and SYS:NAME without modifiers for tracepoints
 * ("cgroup:cgroup_rstat_locked").
 * 0, -ENOENT (no such event or tracepoint; tracefs not mounted), -EACCES
 * (tracefs not readable), -EINVAL (bad syntax), -ENOMEM.
 */
int events__parse(const char *spec, struct perf_event_attr *attr,
		  char **name);

/*
 * True when this kernel can open the event: tries perf_event_open() for
 * the calling task, then for CPU 0, and closes it at once. Used to choose
 * cycles or cpu-clock. Otherwise false and *err (when not NULL) = -errno.
 */
bool events__supported(const struct perf_event_attr *attr, int *err);

/*
 * The tracepoints of this kernel whose "SYS:NAME" matches glob (fnmatch),
 * sorted, without duplicates. *names is NULL-terminated, to be freed with
 * events__free_names(); *n (when not NULL) is their number, and may be 0.
 * -ENOENT when tracefs is not mounted, -EACCES when this user cannot read
 * it.
 */
int events__tracepoints(const char *glob, char ***names, size_t *n);
void events__free_names(char **names);

/*
 * Probe PMUs. Fill *attr (zeroed first; sample_period = 1) for a uprobe at
 * the file offset of path, or for a kprobe at func + addr_or_offset, or
 * at the address addr_or_offset when func is NULL. The type comes from
 * /sys/bus/event_source/devices/{uprobe,kprobe}/type and the retprobe bit
 * from its format/retprobe. path and func are passed to the kernel by
 * pointer (config1): they must stay valid until evlist__open() returns.
 * -ENOENT when the PMU does not exist on this kernel, -EOPNOTSUPP when
 * it has no retprobe format.
 */
int events__uprobe_attr(const char *path, uint64_t offset, bool retprobe,
			struct perf_event_attr *attr);
int events__kprobe_attr(const char *func, uint64_t addr_or_offset,
			bool retprobe, struct perf_event_attr *attr);

/*
 * The same probe as a tracefs dynamic event (kprobe_events or
 * uprobe_events) named group:event, opened as a tracepoint: *attr filled
 * as above, *dev to give to events__dynprobe_remove() on every exit path.
 *
 * Needed for inherited events (a command and its children): the probe
 * PMUs take the function name or path by user pointer (config1), and a
 * fork of the recorded task copies each inherited event by reading that
 * pointer again, in the forking task's address space, where it is
 * garbage: fork() fails with EFAULT ("sh: can't fork: Bad address" on
 * 6.12). A tracepoint's config is its id, which copies as it is; perf
 * records its probes this way. 0 or -errno (-ENOENT: no such events file).
 */
struct tracefs_dynevent;
int events__dynprobe_create(const char *group, const char *event,
			    bool kernel, const char *target, uint64_t offset,
			    bool retprobe, struct tracefs_dynevent **dev,
			    struct perf_event_attr *attr);
/* Remove the event from tracefs and free dev (NULL: nothing). */
void events__dynprobe_remove(struct tracefs_dynevent *dev);

/* ---- evsel ---------------------------------------------------------- */

struct evsel;

/* A copy of attr and of name; NULL on -ENOMEM. */
struct evsel *evsel__new(const struct perf_event_attr *attr,
			 const char *name);
void evsel__delete(struct evsel *e);
/*
 * Editable until evlist__open(), which then writes the bits it forces
 * (see there) into it: after open it is the attr the kernel was given,
 * the one a perf.data header must carry.
 */
struct perf_event_attr *evsel__attr(struct evsel *e);
const char *evsel__name(const struct evsel *e);
/*
 * A tracepoint filter (perf's --filter: PERF_EVENT_IOC_SET_FILTER) that
 * evlist__open() sets on each of the evsel's fds; filter is copied, NULL
 * removes it. 0, -ENOMEM, or -EBUSY once the evsel is open.
 */
int evsel__set_filter(struct evsel *e, const char *filter);
/*
 * After evlist__open(): the sample id (PERF_EVENT_IOC_ID) of each of its
 * fds, which PERF_SAMPLE_IDENTIFIER puts first in every sample. Final
 * after evlist__mmap() (which may open the events again).
 */
const uint64_t *evsel__ids(const struct evsel *e, uint32_t *nr);

/* ---- evlist --------------------------------------------------------- */

struct evlist;

struct evlist *evlist__new(void);
/* Disables, unmaps, closes every fd and deletes its evsels. NULL is ok. */
void evlist__delete(struct evlist *el);
/*
 * Takes ownership of e, also on failure (-ENOMEM, -EBUSY once open); e
 * may be NULL (a failed evsel__new()): -ENOMEM.
 */
int evlist__add(struct evlist *el, struct evsel *e);
uint32_t evlist__nr(const struct evlist *el);
struct evsel *evlist__evsel(const struct evlist *el, uint32_t i);

#define evlist__for_each_evsel(el, i, e)				\
	for ((i) = 0; (i) < evlist__nr(el) &&				\
		      ((e) = evlist__evsel(el, i)); (i)++)

enum evlist_target_kind {
	EVLIST_TARGET_CPUS,
	EVLIST_TARGET_PID,
	EVLIST_TARGET_CGROUP,
};

struct evlist_target {
	enum evlist_target_kind kind;
	pid_t pid;		/* PID: a process; its threads, and children
				 * when attr.inherit */
	int cgroup_fd;		/* CGROUP: open fd of its directory */
};

/*
 * Ring size in data pages (a power of 2; 0 = the default, see
 * evlist__mmap()), for evlist__open() to size the wakeup watermark: it is
 * part of the attr, so it is fixed when the events are opened.
 */
int evlist__set_mmap_pages(struct evlist *el, unsigned int pages);

/*
 * Open every evsel on every online CPU for the target: pid -1 (CPUS), each
 * thread of /proc/PID/task (PID, as perf -p; threads that exit meanwhile
 * are skipped), or the cgroup fd with PERF_FLAG_PID_CGROUP (CGROUP). Forces
 * sample_id_all, PERF_SAMPLE_IDENTIFIER, PERF_FORMAT_ID, disabled (the
 * kernel enables enable_on_exec events at exec; others wait for
 * evlist__enable()), and the wakeup watermark; PERF_FLAG_FD_CLOEXEC. Reads
 * the sample ids. On failure nothing stays open.
 */
int evlist__open(struct evlist *el, const struct evlist_target *t);

/*
 * One ring per CPU, every other fd of that CPU redirected into it
 * (PERF_EVENT_IOC_SET_OUTPUT); wakeups when a quarter of it is full.
 * pages: data pages, a power of 2; 0 = the value of
 * evlist__set_mmap_pages(), or by default 1 MiB per CPU, which holds more
 * than 100 ms of 4999 Hz samples with deep callchains (when the default
 * exceeds the locked-memory limit of a user that is not root, it is halved
 * until it fits, down to 64 KiB). When pages differs from the size the
 * events were opened for, they are opened again first (-EBUSY once
 * enabled), which changes their ids: read evsel__ids() after this.
 */
int evlist__mmap(struct evlist *el, unsigned int pages);
/* Data pages of each ring after evlist__mmap(). */
unsigned int evlist__mmap_pages(const struct evlist *el);

int evlist__enable(struct evlist *el);
int evlist__disable(struct evlist *el);

/*
 * Wait up to timeout_ms (-1: forever) for a ring wakeup. 1 when a wakeup
 * came or, at the timeout, some ring holds data; 0 when nothing; -EINTR
 * when a signal interrupted. *hup (may be NULL) is set when every fd of a
 * PID target reported POLLHUP/POLLERR: the target and its inherited
 * children exited (drain once more, then stop). Hung-up fds are no longer
 * polled, so a loop never spins on them.
 */
int evlist__poll(struct evlist *el, int timeout_ms, bool *hup);

/*
 * Hand each ring's new data to fn in at most two contiguous chunks (the
 * part before the wrap, then the part after): the chunks of one ring,
 * concatenated, are whole records. Then frees that space for the kernel.
 * No copies. Counts records into the stats on the way. 0, or fn's
 * non-zero return (that ring's data is then not consumed).
 */
typedef int (*evlist_chunk_fn)(void *ctx, const void *buf, size_t len);
int evlist__drain(struct evlist *el, evlist_chunk_fn fn, void *ctx);

/*
 * The same drain record by record, for readers that look into them:
 * fn gets each record whole and contiguous (one that wraps round the
 * ring's end is copied first), valid until fn returns; counted into the
 * stats. A non-zero return from fn stops the drain and is returned, that
 * record and those before it consumed. 0, -ENOMEM, -EBADMSG.
 */
typedef int (*evlist_record_fn)(void *ctx,
				const struct perf_event_header *rec);
int evlist__drain_records(struct evlist *el, evlist_record_fn fn,
			  void *ctx);

struct evlist_stats {
	uint64_t bytes, records, samples;
	uint64_t lost;		/* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_samples;	/* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t throttle;	/* PERF_RECORD_THROTTLE records */
};

void evlist__stats(const struct evlist *el, struct evlist_stats *st);

/* Why the last evlist__open()/mmap()/enable() failed; "" if none. */
const char *evlist__strerror(const struct evlist *el);

#endif
