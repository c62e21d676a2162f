// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's probe points: kernel probes and uprobes through the
 * kprobe and uprobe PMUs (the kernel removes them when their file
 * descriptors close, so no exit path leaves one behind), or, for events
 * a command's children inherit, through tracefs, with a guardian that
 * removes those even after a SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <tracefs.h>
#include <unistd.h>

#include "kfeatures.h"
#include "probe.h"
#include "record-int.h"
#include "util.h"

static char *keep_string(struct record_strings *rs, const char *s)
{
	char *copy;

	if (rs->n == ARRAY_SIZE(rs->s))
		return NULL;
	copy = strdup(s);
	if (copy)
		rs->s[rs->n++] = copy;
	return copy;
}

static bool have_event(const struct evlist *el, const char *name)
{
	struct evsel *e;
	uint32_t i;

	evlist__for_each_evsel(el, i, e)
		if (!strcmp(evsel__name(e), name))
			return true;
	return false;
}

/*
 * GROUP:EVENT, or GROUP:EVENT_1, _2... when the recording has it already,
 * as perf probe names a second probe that would take a used name (an
 * entry and FUNC+OFF, or the points of a source line in several copies).
 */
static void unique_probe_name(const struct evlist *el, char *name,
			      size_t size, const char *group,
			      const char *event)
{
	unsigned int k;

	snprintf(name, size, "%s:%s", group, event);
	for (k = 1; have_event(el, name) && k < 1024; k++)
		snprintf(name, size, "%s:%s_%u", group, event, k);
}

/* Events a command's (or a process's) children inherit. */
static bool inherited(struct recorder *r)
{
	return r->o.target == RECORDER_PID || r->o.target == RECORDER_CMD;
}

static int start_guardian(struct recorder *r);

/*
 * An inherited probe goes through tracefs (events__dynprobe_create() says
 * why), in a group of this process's own, "rstat_analyze_PID", which no
 * other run uses and which the end of the run removes.
 */
static int add_dynprobe(struct recorder *r,
			const struct probe_point *pt, bool kernel,
			const char *target, struct perf_event_attr *attr)
{
	struct record_strings *rs = &r->rs;
	char group[64], event[128], name[200];
	int err;

	if (r->rs.ndyn == ARRAY_SIZE(r->rs.dyn)) {
		rec_error(r, "record: too many probes");
		return -E2BIG;
	}
	/* Before the first probe, so that none outlives a SIGKILL. */
	err = start_guardian(r);
	if (err) {
		rec_error(r, "record: cannot start the process that removes the probes after a crash: %s",
			  strerror(-err));
		return err;
	}
	snprintf(group, sizeof(group), "rstat_analyze_%d", (int)getpid());
	/* Unique in the group: the same point may be asked for twice. */
	snprintf(event, sizeof(event), "%.100s_%u", pt->event, r->rs.ndyn);
	err = events__dynprobe_create(group, event, kernel, target,
				      pt->offset, pt->retprobe,
				      &r->rs.dyn[r->rs.ndyn], attr);
	if (err) {
		rec_error(r, "record: cannot create the probe %s:%s in tracefs (%s_events): %s",
			 group, event, kernel ? "kprobe" : "uprobe",
			 strerror(-err));
		return err == -ENOENT ? -EIO : err;
	}
	r->rs.ndyn++;
	/* Its format goes into the TRACING_DATA, as a tracepoint's. */
	snprintf(name, sizeof(name), "%s:%s", group, event);
	r->rs.dyn_name[r->rs.ndyn - 1] = keep_string(rs, name);
	if (!r->rs.dyn_name[r->rs.ndyn - 1]) {
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int add_probe_points(struct recorder *r,
			    struct probe_point *pts, size_t n,
			    const char *path, bool kernel)
{
	struct record_strings *rs = &r->rs;
	struct perf_event_attr attr;
	char name[512];
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		const char *target = kernel ? keep_string(rs, pts[i].func) :
				     path;

		if (!target) {
			rec_error(r, "record: out of memory");
			return -ENOMEM;
		}
		unique_probe_name(r->el, name, sizeof(name), pts[i].group,
				  pts[i].event);
		if (inherited(r))
			err = add_dynprobe(r, &pts[i], kernel, target,
					   &attr);
		else
			err = kernel ? events__kprobe_attr(target,
							   pts[i].offset,
							   pts[i].retprobe,
							   &attr) :
			      events__uprobe_attr(target, pts[i].offset,
						  pts[i].retprobe, &attr);
		if (err)
			return err;
		rec_events__set_sampling(r, &attr);
		err = rec_events__add(r, &attr, name);
		if (err)
			return err;
	}
	return 0;
}

static void no_kprobes(struct recorder *r, const char *spec)
{
	rec_error(r, "record: --probe %s: this kernel has no kprobe PMU (CONFIG_KPROBE_EVENTS), so kernel probes cannot be placed; --uprobe works for user space; see rstat-analyze doctor",
			 spec);
}

/*
 * FUNC, FUNC%return and FUNC+OFF need no debuginfo: the kprobe PMU takes
 * a symbol and an offset. Lines need the DWARF of the running kernel.
 */
int rec_probes__add_kernel(struct recorder *r, const char *spec)
{
	struct perf_event_attr probe_attr;
	struct probe_point *pts = NULL;
	char errbuf[256] = "", *vmlinux;
	size_t n = 0;
	int err;

	/* Whether kprobes exist at all, before asking for debuginfo. */
	if (events__kprobe_attr("schedule", 0, false, &probe_attr) == -ENOENT) {
		no_kprobes(r, spec);
		return -ENOENT;
	}
	vmlinux = r->o.vmlinux ? strdup(r->o.vmlinux) : probe__find_vmlinux();
	if (!vmlinux && (strchr(spec, ':') || strchr(spec, '@'))) {
		rec_error(r, "record: --probe %s: a source line needs the kernel's debuginfo: none found (install linux-image-$(uname -r)-dbg or give --vmlinux; see rstat-analyze doctor)",
			 spec);
		return -ENOENT;
	}
	if (vmlinux && !strchr(spec, '=')) {
		err = probe__resolve(vmlinux, true, spec, &pts, &n, errbuf,
				     sizeof(errbuf));
		if (err) {
			rec_error(r, "record: --probe %s: %s", spec,
				 *errbuf ? errbuf : strerror(-err));
			free(vmlinux);
			return err;
		}
	} else {
		/* Without DWARF: FUNC[%return] or FUNC+OFF, named as perf
		 * (perf probe names FUNC+OFF plain FUNC too), or EVENT=...
		 * as perf probe takes it (record --kernel's line probes). */
		struct probe_point pt = { 0 };
		char func[256], *ev;
		unsigned long long off = 0;
		const char *eq = strchr(spec, '=');
		const char *fs = eq ? eq + 1 : spec;
		const char *plus = strchr(fs, '+');
		const char *pct = strchr(fs, '%');
		size_t len = plus ? (size_t)(plus - fs) :
			     pct ? (size_t)(pct - fs) : strlen(fs);

		if (!len || len >= sizeof(func) || eq == spec ||
		    (pct && strcmp(pct, "%return")) ||
		    (plus && sscanf(plus + 1, "%lli", &off) != 1)) {
			rec_error(r, "record: --probe %s: give FUNC, FUNC%%return, FUNC+OFF, FUNC:RLN or SRC:ALN",
				 spec);
			return -EINVAL;
		}
		memcpy(func, fs, len);
		func[len] = '\0';
		ev = eq ? strndup(spec, eq - spec) :
		     probe__event_name(func, pct ? "__return" : "");
		if (!ev) {
			rec_error(r, "record: out of memory");
			return -ENOMEM;
		}
		pt.func = func;
		pt.event = ev;
		pt.group = "probe";
		pt.offset = off;
		pt.retprobe = pct != NULL;
		err = add_probe_points(r, &pt, 1, NULL, true);
		free(ev);
		return err;
	}
	err = add_probe_points(r, pts, n, NULL, true);
	if (err == -ENOENT)
		no_kprobes(r, spec);
	probe__free_points(pts, n);
	free(vmlinux);
	return err;
}

int rec_probes__add_user(struct recorder *r, const char *arg)
{
	const char *colon = strchr(arg, ':');
	struct probe_point *pts = NULL;
	char errbuf[256] = "", *bin, *path;
	size_t n = 0;
	int err;

	if (!colon || colon == arg || !colon[1]) {
		rec_error(r, "record: --uprobe %s: give BINARY:SPEC (e.g. ./loop:loop_body:5)",
			 arg);
		return -EINVAL;
	}
	bin = strndup(arg, colon - arg);
	if (!bin) {
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	/* The kernel resolves the path itself: make it absolute. */
	path = realpath(bin, NULL);
	if (!path) {
		rec_error(r, "record: --uprobe %s: %s: %s", arg, bin,
			 strerror(errno));
		free(bin);
		return -ENOENT;
	}
	free(bin);
	err = probe__resolve(path, false, colon + 1, &pts, &n, errbuf,
			     sizeof(errbuf));
	if (err) {
		rec_error(r, "record: --uprobe %s: %s", arg,
			 *errbuf ? errbuf : strerror(-err));
		free(path);
		return err;
	}
	if (!keep_string(&r->rs, path)) {
		rec_error(r, "record: out of memory");
		err = -ENOMEM;
	} else {
		err = add_probe_points(r, pts, n, r->rs.s[r->rs.n - 1],
				       false);
		if (err == -ENOENT)
			rec_error(r, "record: --uprobe %s: this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS); see rstat-analyze doctor",
				 arg);
	}
	probe__free_points(pts, n);
	free(path);
	return err;
}

/*
 * Before v6.10 there are no rstat tracepoints: probe the flush function's
 * entry and return instead, where kprobes can be placed, unless the user
 * chose probes. Quietly nothing where they cannot: the note says so.
 */
int rec_probes__add_flush(struct recorder *r)
{
	struct perf_event_attr attr;
	char *path;
	bool dyn_ok;
	int err;

	/*
	 * BPF times the flush function in the kernel already: a perf probe
	 * on it would write a record inside every span it times.
	 */
	if (!r->notes.no_tracepoints || r->o.nr_probes || r->notes.bpf_kprobes ||
	    events__kprobe_attr("schedule", 0, false, &attr) == -ENOENT ||
	    !kfeatures__has_function(FLUSH_FUNC))
		return 0;
	path = inherited(r) ? tracefs_get_tracing_file("kprobe_events") :
	       NULL;
	dyn_ok = !inherited(r) || (path && !access(path, W_OK));
	tracefs_put_tracing_file(path);
	if (!dyn_ok)
		return 0;
	err = rec_probes__add_kernel(r, FLUSH_FUNC);
	if (!err)
		err = rec_probes__add_kernel(r, FLUSH_FUNC "%return");
	if (!err)
		r->notes.flush_kprobes = true;
	return err;
}

/*
 * The guardian's end: every probe in our group (a group no other run
 * uses), each retried while the dying recorder's events still hold it.
 */
static void guardian_remove(const char *group)
{
	struct tracefs_dynevent **evs;
	unsigned int k, tries;

	evs = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE |
				       TRACEFS_DYNEVENT_KRETPROBE |
				       TRACEFS_DYNEVENT_UPROBE |
				       TRACEFS_DYNEVENT_URETPROBE, group);
	for (k = 0; evs && evs[k]; k++)
		for (tries = 0; tries < 200; tries++) {
			if (!tracefs_dynevent_destroy(evs[k], true) ||
			    errno == ENOENT)
				break;
			usleep(10000);
		}
	tracefs_dynevent_list_free(evs);
}

/*
 * Probes made in tracefs outlive a recorder killed with SIGKILL, unlike
 * perf events, which go with its file descriptors. A guardian removes
 * them then: a grandchild (reparented away from us before the command's
 * subreaper is set, so that stopping the command's descendants does not
 * stop it) that waits for EOF on a pipe whose write end only we hold,
 * which comes when we exit, however we exit. It is started before the
 * first probe is made, and removes whatever our group holds then: a
 * probe made a moment before a SIGKILL too. After a normal end we have
 * removed them already and it finds nothing to do. Once per run.
 */
static int start_guardian(struct recorder *r)
{
	char group[64];
	int fds[2], status, err = 0;
	pid_t pid, w;
	char c;

	if (r->rs.guardian_fd >= 0)
		return 0;
	snprintf(group, sizeof(group), "rstat_analyze_%d", (int)getpid());
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		pid = fork();
		/* No grandchild: say why, or probes would go unguarded. */
		if (pid != 0)
			_exit(pid < 0 ? errno : 0);
		/* The grandchild: nothing of ours but the pipe. */
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(fds[1]);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		guardian_remove(group);
		_exit(0);
	}
	close(fds[0]);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		err = -errno;
	else if (!WIFEXITED(status))
		err = -ECHILD;
	else if (WEXITSTATUS(status))
		err = -WEXITSTATUS(status);	/* the second fork's errno */
	if (err) {
		close(fds[1]);
		return err;
	}
	r->rs.guardian_fd = fds[1];
	return 0;
}

/* Probes made in tracefs go with the recording; the guardian is told. */
void rec_probes__remove(struct recorder *r)
{
	unsigned int k;

	for (k = 0; k < r->rs.ndyn; k++)
		events__dynprobe_remove(r->rs.dyn[k]);
	r->rs.ndyn = 0;
	/* The guardian sees EOF and finds them gone. */
	if (r->rs.guardian_fd >= 0)
		close(r->rs.guardian_fd);
	r->rs.guardian_fd = -1;
	for (k = 0; k < r->rs.n; k++)
		free(r->rs.s[k]);
	r->rs.n = 0;
}
