// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's events: the sampling event (cycles, or cpu-clock where
 * the PMU has none), every rstat tracepoint this kernel has and the -e
 * ones, and the side band that names processes and their maps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kfeatures.h"
#include "perf-event.h"
#include "record-int.h"
#include "util.h"

/* --- events ------------------------------------------------------------- */

static const uint64_t sample_base = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

int rec_events__add(struct recorder *r, struct perf_event_attr *attr,
		    const char *name)
{
	struct evsel *e = evsel__new(attr, name);

	if (!e || evlist__add(r->el, e)) {
		evsel__delete(e);
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static bool is_sampling_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_SOFTWARE ||
	       type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

/* Once per event: samples at a rate, or every hit of a tracepoint/probe. */
void rec_events__set_sampling(struct recorder *r,
			      struct perf_event_attr *attr)
{
	attr->sample_type |= sample_base;
	if (attr->type == PERF_TYPE_TRACEPOINT)
		attr->sample_type |= PERF_SAMPLE_RAW;
	if (is_sampling_type(attr->type)) {
		attr->freq = 1;
		attr->sample_freq = r->o.freq;
	} else {
		/*
		 * Every hit: perf record -F would sample tracepoints too,
		 * and consecutive lock events would then belong to
		 * different rounds.
		 */
		attr->freq = 0;
		attr->sample_period = 1;
	}
	if (r->o.target == RECORDER_PID || r->o.target == RECORDER_CMD)
		attr->inherit = 1;
	if (r->o.target == RECORDER_CMD)
		attr->enable_on_exec = 1;
}

/*
 * Whether the PMU has the event, whatever this user may open: a refusal
 * (perf_event_paranoid) comes before the kernel looks for the PMU, so the
 * user-space-only spelling is tried too, which paranoid 2 allows.
 */
static bool pmu_lacks(const struct perf_event_attr *attr, int *err)
{
	struct perf_event_attr u = *attr;

	if (events__supported(attr, err))
		return false;
	if (*err == -EACCES || *err == -EPERM) {
		u.exclude_kernel = 1;
		u.exclude_hv = 1;
		if (events__supported(&u, err))
			return false;
	}
	return *err == -ENOENT || *err == -ENODEV || *err == -EOPNOTSUPP;
}

/* The sampling event: -e's, else cycles where the PMU has it. */
int rec_events__add_sampling(struct recorder *r)
{
	struct perf_event_attr attr;
	unsigned int i, added = 0;
	char *name = NULL;
	int err;

	for (i = 0; i < r->o.nr_events; i++) {
		err = events__parse(r->o.events[i], &attr, &name);
		if (err || !is_sampling_type(attr.type)) {
			free(name);
			name = NULL;
			continue;
		}
		rec_events__set_sampling(r, &attr);
		err = rec_events__add(r, &attr, name);
		free(name);
		name = NULL;
		if (err)
			return err;
		added++;
	}
	if (added)
		return 0;

	err = events__parse("cycles", &attr, &name);
	/*
	 * Only a PMU without cycles falls back; a refusal (EACCES under
	 * perf_event_paranoid) is reported when the events open.
	 */
	if (!err && pmu_lacks(&attr, &err)) {
		free(name);
		name = NULL;
		r->notes.no_cycles = true;
		err = events__parse("cpu-clock", &attr, &name);
	}
	if (err && err != -EACCES && err != -EPERM) {
		rec_error(r, "record: cannot set up the sampling event: %s",
			 strerror(-err));
		return err;
	}
	rec_events__set_sampling(r, &attr);
	err = rec_events__add(r, &attr, name);
	free(name);
	return err;
}

/*
 * The side band rides on the first event, as in perf: process names (and
 * renames at exec), memory maps with their build ids where the kernel
 * gives them, forks and exits, and the kernel code that kallsyms does not
 * name (KSYMBOL: BPF programs loaded or unloaded while recording, ours
 * too). Without them no user frame of a process started during the
 * recording would be named, nor any frame in a BPF program.
 */
void rec_events__set_side_band(struct recorder *r)
{
	struct evlist *el = r->el;
	struct perf_event_attr *attr;
	struct utsname u;
	int version;

	if (!evlist__nr(el))
		return;
	version = kfeatures__version(uname(&u) ? NULL : u.release);
	attr = evsel__attr(evlist__evsel(el, 0));
	attr->mmap = 1;
	attr->mmap2 = 1;
	/* 5.12+: each MMAP2 carries the file's build id, read at mmap. */
	attr->build_id = version >= 5012;
	/*
	 * 5.1+; a kernel that refuses it anyway gets the event without it
	 * (evlist.c). BPF_EVENT (bpf_event) is not asked for: it carries a
	 * program's id and tag, which name nothing KSYMBOL does not.
	 */
	attr->ksymbol = version >= 5001;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->mmap_data = 0;
}

static bool name_listed(char **names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/*
 * The tracepoints that open and close a lock hold or wait. When BPF times
 * the spans in the kernel, perf does not record them: perf's record of
 * either end would run inside the hold being timed.
 */
static bool is_lock_tracepoint(const char *name)
{
	return !strcmp(name, "cgroup:cgroup_rstat_locked") ||
	       !strcmp(name, "cgroup:cgroup_rstat_unlock") ||
	       !strcmp(name, "cgroup:cgroup_rstat_lock_contended") ||
	       !strncmp(name, "cgroup:cgroup_rstat_cpu_", 24);
}

/*
 * Every rstat tracepoint this kernel has, then the -e tracepoints; their
 * names go to r->tps for the TRACING_DATA feature.
 */
int rec_events__add_tracepoints(struct recorder *r)
{
	bool bpf_spans = r->bs != NULL;
	static const char *const globs[] = {
		"cgroup:cgroup_rstat_*", "memcg:memcg_flush_stats",
	};
	struct perf_event_attr attr;
	char **names = NULL, **all;
	size_t n, i, total = 0, nr_auto, found = 0;
	char *name;
	unsigned int g;
	int err;

	all = calloc(RECORDER_MAX_ARGS * 2 + 64, sizeof(*all));
	if (!all)
		goto nomem;
	for (g = 0; g < sizeof(globs) / sizeof(*globs); g++) {
		err = events__tracepoints(globs[g], &names, &n);
		if (err == -ENOENT && g == 0) {
			rec_error(r, "record: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing (see rstat-analyze doctor)");
			goto fail;
		}
		if ((err == -EACCES || err == -EPERM) && g == 0) {
			/*
			 * A permission, not the kernel's version: samples
			 * alone are still worth recording (-e cpu-clock:u
			 * as any user), unless a tracepoint was asked for.
			 */
			r->notes.tracefs_denied = true;
			break;
		}
		found += err ? 0 : n;
		for (i = 0; !err && i < n && total < 64; i++) {
			if (bpf_spans && is_lock_tracepoint(names[i]))
				continue;
			all[total] = strdup(names[i]);
			if (!all[total])
				goto nomem;
			total++;
		}
		events__free_names(names);
		names = NULL;
	}
	/* Those BPF times are not missing: no flush kprobes for them. */
	if (!found && !r->notes.tracefs_denied)
		r->notes.no_tracepoints = true;
	nr_auto = total;

	for (i = 0; i < r->o.nr_events; i++) {
		err = events__parse(r->o.events[i], &attr, &name);
		/* Counters parse without tracefs: this is a tracepoint. */
		if ((err == -EACCES || err == -EPERM || err == -ENOENT) &&
		    r->notes.tracefs_denied) {
			rec_error(r, "record: -e %s: tracefs is not readable by this user: run as root to record tracepoints (see rstat-analyze doctor)",
				 r->o.events[i]);
			goto fail;
		}
		if (err) {
			rec_error(r, "record: -e %s: %s; list tracepoints with `ls /sys/kernel/tracing/events`",
				 r->o.events[i], err == -ENOENT ?
				 "no such event on this kernel" :
				 "not an event name (sys:name, cycles, cpu-clock, rNNN)");
			goto fail;
		}
		if (attr.type != PERF_TYPE_TRACEPOINT ||
		    name_listed(all, total, name)) {
			free(name);
			continue;
		}
		all[total++] = name;
	}

	for (i = 0; i < total; i++) {
		err = events__parse(all[i], &attr, &name);
		if (err) {
			rec_error(r, "record: %s: cannot read its id from tracefs: %s",
				 all[i], strerror(-err));
			goto fail;
		}
		rec_events__set_sampling(r, &attr);
		/*
		 * A hold is timed from `locked` to `unlock`: a callchain
		 * taken at `locked` is walked inside that window and
		 * inflates every hold measured. The unlock's callchain,
		 * walked after its timestamp, names the subsystem instead
		 * (spans take it from there).
		 */
		if (!strcmp(name, "cgroup:cgroup_rstat_locked"))
			attr.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		/*
		 * The kernel frames name the subsystem and who asked; a
		 * user stack walked (and copied) at every hit of a hot
		 * tracepoint would add to what these events time and say
		 * nothing more. Events asked for with -e keep both.
		 */
		else if (i < nr_auto)
			attr.exclude_callchain_user = 1;
		err = rec_events__add(r, &attr, name);
		free(name);
		if (err)
			goto fail;
	}
	r->tps = all;
	r->nr_tps = total;
	return 0;
nomem:
	rec_error(r, "record: out of memory");
	err = -ENOMEM;
fail:
	events__free_names(names);
	for (i = 0; all && i < total; i++)
		free(all[i]);
	free(all);
	return err ? err : -EINVAL;
}

