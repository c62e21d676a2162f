// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder (include/recorder.h): its events are opened before the
 * output file is made, so a kernel that lacks something fails before
 * anything is written; the output gets its name once everything is
 * live, so whoever starts a workload when it appears misses nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf-progs.h"
#include "kernel-spans.h"
#include "outfile.h"
#include "perf-writer.h"
#include "record-int.h"
#include "util.h"

const char *recorder__strerror(const struct recorder *r)
{
	return r->err;
}

const struct recorder_notes *recorder__notes(const struct recorder *r)
{
	return &r->notes;
}

struct recorder *recorder__new(const struct recorder_opts *o)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->rs.guardian_fd = -1;
	r->child.go_fd = r->child.err_fd = -1;
	r->child.exit_status = -1;
	r->target.cgroup_fd = -1;
	return r;
}

static int open_target(struct recorder *r, struct evlist_target *t,
		       pid_t child)
{
	static const char *const mounts[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
		"/sys/fs/cgroup/perf_event",
	};
	char path[PATH_MAX];
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->cgroup_fd = -1;
	switch (r->o.target) {
	case RECORDER_ALL:
		t->kind = EVLIST_TARGET_CPUS;
		return 0;
	case RECORDER_PID:
		t->kind = EVLIST_TARGET_PID;
		t->pid = r->o.pid;
		if (kill(r->o.pid, 0) && errno == ESRCH) {
			rec_error(r, "record: -p %d: no such process", r->o.pid);
			return -ESRCH;
		}
		return 0;
	case RECORDER_CMD:
		t->kind = EVLIST_TARGET_PID;
		t->pid = child;
		return 0;
	case RECORDER_CGROUP:
		t->kind = EVLIST_TARGET_CGROUP;
		if (r->o.cgroup[0] == '/') {
			t->cgroup_fd = open(r->o.cgroup,
					    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			for (i = 0; i < sizeof(mounts) / sizeof(*mounts) &&
			     t->cgroup_fd < 0; i++) {
				snprintf(path, sizeof(path), "%s/%s",
					 mounts[i], r->o.cgroup);
				t->cgroup_fd = open(path, O_RDONLY |
						    O_DIRECTORY | O_CLOEXEC);
			}
		}
		if (t->cgroup_fd < 0) {
			rec_error(r, "record: --cgroup %s: %s; give the cgroup's directory (v2, or v1 perf_event)",
				 r->o.cgroup, strerror(errno));
			return -ENOENT;
		}
		return 0;
	}
	return -EINVAL;
}

/*
 * Load the BPF programs that time lock holds, waits and flushes in the
 * kernel. 0 with *bsp set; 0 with *bsp NULL when --spans auto falls back
 * to perf (why in r->notes.no_bpf); -1 when --spans bpf cannot be had.
 */
static int open_bpf_spans(struct recorder *r, struct bpf_spans **bsp)
{
	struct bpf_spans_opts o = { .nr_tgids = 0 };
	struct bpf_spans *bs;
	char errbuf[256] = "";
	pid_t pid = r->o.pid;
	int err;

	*bsp = NULL;
	if (r->o.spans == RECORDER_SPANS_PERF)
		return 0;
	/*
	 * Not root: BPF would be refused after tracefs was probed (whose
	 * library leaks on every refusal), so say it up front.
	 */
	if (geteuid()) {
		if (r->o.spans == RECORDER_SPANS_BPF) {
			rec_error(r, "record: --spans bpf: loading BPF programs needs root; use --spans perf");
			return -1;
		}
		snprintf(r->notes.no_bpf, sizeof(r->notes.no_bpf),
			 "loading BPF programs needs root");
		return 0;
	}
	if (r->o.target == RECORDER_PID) {
		o.tgids = &pid;
		o.nr_tgids = 1;
	}
	bs = bpf_spans__new(&o);
	if (!bs) {
		rec_error(r, "record: out of memory");
		return -1;
	}
	err = bpf_spans__open(bs, errbuf, sizeof(errbuf));
	if (err) {
		bpf_spans__delete(bs);
		if (r->o.spans == RECORDER_SPANS_BPF) {
			rec_error(r, "record: --spans bpf: %s; use --spans perf (holds then include the recorder's cost)",
				 errbuf);
			return -1;
		}
		snprintf(r->notes.no_bpf, sizeof(r->notes.no_bpf), "%s", errbuf);
		return 0;
	}
	r->notes.bpf_kprobes = strcmp(bpf_spans__method(bs), "rstat tracepoints");
	*bsp = bs;
	return 0;
}

/* Whose spans the BPF programs time, as the report says it. */
static const char *bpf_scope(const struct recorder *r, char *buf,
			     size_t len)
{
	if (r->o.target == RECORDER_PID) {
		snprintf(buf, len, "process %d", (int)r->o.pid);
		return buf;
	}
	return "every task";
}

/* The spans BPF timed, into the recording's own feature section. */
static int store_bpf_spans(struct recorder *r, struct bpf_spans *bs,
			   struct perf_writer *w)
{
	struct kernel_spans *ks;
	char errbuf[256] = "", scope[64];
	char *text = NULL;
	int err;

	const char *ktext;
	size_t klen;

	/* The recording has ended: so has the timing, for a whole read. */
	bpf_spans__detach(bs);
	/* The stacks are named as report will name their frames. */
	if (!perf_writer__kallsyms(w, &ktext, &klen))
		bpf_spans__set_kallsyms_text(bs, ktext, klen);
	err = bpf_spans__read(bs, errbuf, sizeof(errbuf));
	if (err) {
		rec_error(r, "record: reading the spans timed in the kernel: %s",
			 *errbuf ? errbuf : strerror(-err));
		return err;
	}
	ks = kernel_spans__from_bpf(bs, bpf_scope(r, scope, sizeof(scope)));
	err = ks ? kernel_spans__format(ks, &text) : -ENOMEM;
	if (!err)
		err = perf_writer__set_rstat_spans(w, text);
	free(text);
	kernel_spans__delete(ks);
	if (err)
		rec_error(r, "record: out of memory");
	return err;
}

/*
 * The events did not open. Refused to a user who is not root: say what
 * this user can record instead (user space only, of a command or a
 * process of theirs, which perf_event_paranoid 2 allows).
 */
static void open_error(struct recorder *r, const struct evlist *el, int err)
{
	const char *name = evsel__name(evlist__evsel(el, 0));
	const char *colon = strchr(name, ':');
	int len = colon ? (int)(colon - name) : (int)strlen(name);

	if ((err == -EACCES || err == -EPERM) && geteuid() &&
	    !(colon && strchr(colon, 'u') && !strchr(colon, 'k'))) {
		rec_error(r, "record: %s; or record user space only, as this user: -e %.*s:u%s; see rstat-analyze doctor",
			 evlist__strerror(el), len, name,
			 r->o.target == RECORDER_PID || r->o.target == RECORDER_CMD ?
			 "" : " with -p PID or -- CMD");
		return;
	}
	rec_error(r, "record: %s; see rstat-analyze doctor", evlist__strerror(el));
}

/* The names of the probes made in tracefs join the TRACING_DATA's. */
static int add_dynprobe_names(struct recorder *r)
{
	char **all;
	unsigned int k;

	if (!r->rs.ndyn)
		return 0;
	all = realloc(r->tps, (r->nr_tps + r->rs.ndyn) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	r->tps = all;
	for (k = 0; k < r->rs.ndyn; k++) {
		r->tps[r->nr_tps] = strdup(r->rs.dyn_name[k]);
		if (!r->tps[r->nr_tps])
			return -ENOMEM;
		r->nr_tps++;
	}
	return 0;
}

int recorder__open(struct recorder *r)
{
	struct rlimit nofile;
	unsigned int k;
	int err;

	/*
	 * One fd per event and CPU (and thread, with -p): on a big machine
	 * that passes the usual soft limit of 1024. Use the hard limit.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &nofile) &&
	    nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	r->el = evlist__new();
	if (!r->el) {
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	if (open_bpf_spans(r, &r->bs) || rec_events__add_sampling(r) ||
	    rec_events__add_tracepoints(r))
		return -EINVAL;
	for (k = 0; k < r->o.nr_probes; k++)
		if (rec_probes__add_kernel(r, r->o.probes[k]))
			return -EINVAL;
	for (k = 0; k < r->o.nr_uprobes; k++)
		if (rec_probes__add_user(r, r->o.uprobes[k]))
			return -EINVAL;
	if (rec_probes__add_flush(r))
		return -EINVAL;
	rec_events__set_side_band(r);
	if (add_dynprobe_names(r)) {
		rec_error(r, "record: out of memory");
		return -ENOMEM;
	}
	err = rec_child__start(r);
	if (err)
		return err;
	err = open_target(r, &r->target, r->child.pid);
	if (!err)
		err = rec_bd__open(r);
	if (err)
		return err;
	/* The wakeup watermark depends on the ring size: set it first. */
	err = evlist__set_mmap_pages(r->el, r->o.mmap_pages);
	if (!err)
		err = evlist__open(r->el, &r->target);
	if (err) {
		open_error(r, r->el, err);
		return err;
	}
	err = evlist__mmap(r->el, 0);
	if (err)
		rec_error(r, "record: cannot map the ring buffers: %s",
			  *evlist__strerror(r->el) ? evlist__strerror(r->el) :
			  strerror(-err));
	return err;
}

/* The output as messages name it. */
static const char *shown_output(const struct recorder *r)
{
	return r->o.output_shown ? r->o.output_shown : r->o.output;
}

/*
 * The output, never through anything another user planted (record runs
 * as root and may be told to write into /tmp): see outfile.h. It gets its
 * name in recorder__start(), once everything is live; an earlier one
 * becomes .old then, and comes back (with the .old before it) if the
 * recording fails.
 */
static int create_output(struct recorder *r)
{
	int fd, err;

	err = outfile__open_at(&r->out, r->o.output_at ? r->o.output_dirfd :
			       AT_FDCWD, r->o.output, r->o.output_shown,
			       OUTFILE_ROTATE | OUTFILE_UNNAMED, 0600);
	/* The writer gets its own descriptor; ours stays for the sync. */
	fd = err ? err : dup(outfile__fd(r->out));
	if (!err)
		err = fd < 0 ? -errno : perf_writer__open_fd(&r->w, fd);
	if (err) {
		outfile__abort(r->out);
		r->out = NULL;
		rec_error(r, "%s: cannot create: %s", shown_output(r),
			  outfile__strerror(err));
		return err;
	}
	return 0;
}

/*
 * KSYMBOL records for the BPF programs loaded now, ours among them (the
 * kernel reports only those loaded while the events are enabled), as
 * perf record synthesizes them: frames in them get their names.
 */
static int synthesize_bpf(struct perf_writer *w)
{
	struct synth_ksym *s = NULL;
	struct bpf_jited *v;
	size_t n, i;
	int err;

	err = bpf_progs__jited(&v, &n);
	if (!err && n && !(s = calloc(n, sizeof(*s))))
		err = -ENOMEM;
	for (i = 0; s && i < n; i++) {
		s[i].addr = v[i].addr;
		s[i].len = v[i].len;
	}
	if (!err)
		err = synthesize__bpf_ksymbols(w, s, n);
	free(s);
	free(v);
	return err;
}

/* The header: the events, the command line, tracing data, side band. */
static int write_header(struct recorder *r)
{
	struct perf_writer *w = r->w;
	pid_t pid = r->o.target == RECORDER_PID ? r->o.pid :
		    r->o.target == RECORDER_CMD ? r->child.pid : -1;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < evlist__nr(r->el); i++) {
		struct evsel *e = evlist__evsel(r->el, i);
		uint32_t nr_ids;
		const uint64_t *ids = evsel__ids(e, &nr_ids);

		err = perf_writer__add_event(w, evsel__attr(e), evsel__name(e),
					     ids, nr_ids);
	}
	if (!err)
		err = perf_writer__set_cmdline(w, r->o.cmdline_argc,
					       r->o.cmdline_argv);
	/*
	 * A user who cannot read tracefs has no tracepoints to describe and
	 * no kernel addresses (kptr_restrict): no TRACING_DATA, and tracefs
	 * is not touched (libtracefs leaks a string per failed lookup).
	 */
	if (!err)
		err = perf_writer__set_tracing(w, (const char *const *)r->tps,
					       r->nr_tps,
					       !r->notes.tracefs_denied);
	if (!err)
		err = synthesize__kernel_mmap(w);
	if (!err)
		err = synthesize_bpf(w);
	if (!err)
		err = synthesize__threads(w, pid);
	if (err)
		rec_error(r, "%s: %s", shown_output(r), *perf_writer__strerror(w) ?
			  perf_writer__strerror(w) : strerror(-err));
	return err;
}

int recorder__start(struct recorder *r)
{
	int err;

	err = create_output(r);
	if (!err)
		err = write_header(r);
	if (err)
		return err;
	if (r->bs) {
		char errbuf[256] = "";

		err = bpf_spans__attach(r->bs, errbuf, sizeof(errbuf));
		if (err) {
			rec_error(r, "record: timing spans in the kernel: %s; use --spans perf",
				  errbuf);
			return err;
		}
	}
	err = rec_bd__start(r);
	if (err)
		return err;
	/* A command alone enables the events at its exec. */
	if (r->o.target != RECORDER_CMD) {
		err = evlist__enable(r->el);
		if (err) {
			rec_error(r, "record: cannot enable the events: %s",
				  strerror(-err));
			return err;
		}
	}
	err = outfile__publish(r->out);
	if (err) {
		rec_error(r, "%s: cannot create: %s", shown_output(r),
			  outfile__strerror(err));
		return err;
	}
	return rec_child__go(r);
}

static int write_chunk(void *arg, const void *buf, size_t len)
{
	struct recorder *r = arg;

	r->write_err = perf_writer__write(r->w, buf, len);
	return r->write_err;
}

/* The rings into the file, and a round's end for the sort that reads it. */
static int drain_rings(struct recorder *r)
{
	if (!evlist__drain(r->el, write_chunk, r) &&
	    !perf_writer__finished_round(r->w))
		return 0;
	if (r->write_err || *perf_writer__strerror(r->w))
		rec_error(r, "record: %s: %s", shown_output(r), r->write_err ?
			  strerror(-r->write_err) :
			  perf_writer__strerror(r->w));
	else
		rec_error(r, "record: reading the ring buffers: %s",
			  *evlist__strerror(r->el) ? evlist__strerror(r->el) :
			  "corrupt ring (head ran past tail)");
	return r->write_err ? r->write_err : -EIO;
}

int recorder__drain(struct recorder *r, int timeout_ms, bool *ended)
{
	bool hup = false;
	int ret;

	ret = evlist__poll(r->el, timeout_ms, &hup);
	if (ret < 0 && ret != -EINTR) {
		rec_error(r, "record: poll: %s", strerror(-ret));
		return ret;
	}
	ret = drain_rings(r);
	if (!ret)
		ret = rec_bd__poll(r);
	if (ret)
		return ret;
	/*
	 * Every event hung up when the command's tasks exited, a moment
	 * before the command can be reaped: wait for that moment, so that
	 * its exit status is its own, not the one of our stopping it.
	 */
	if (hup && r->o.cmd)
		rec_child__settle(r, 500);
	*ended = hup || rec_child__exited(r);
	return 0;
}

int recorder__stop(struct recorder *r)
{
	int err;

	evlist__disable(r->el);
	err = drain_rings(r);
	/*
	 * The command is done with (its status kept if it ended on its
	 * own), so that recorder__stats() can say how it ended.
	 */
	rec_child__stop(r);
	if (!err && r->bs)
		err = store_bpf_spans(r, r->bs, r->w);
	if (!err)
		err = rec_bd__store(r);
	if (err)
		return err;
	err = perf_writer__finish(r->w);
	if (!err) {
		size_t nr;
		int e = rec_buildids__write(r, &nr);

		/*
		 * The file is whole without them unless the writer failed
		 * rewriting its features; a recording it could not read
		 * back just has no user-space build ids, as before.
		 */
		if (e == -ENOMEM || *perf_writer__strerror(r->w))
			err = e;
	}
	if (err) {
		rec_error(r, "%s: %s", shown_output(r),
			  *perf_writer__strerror(r->w) ?
			  perf_writer__strerror(r->w) : strerror(-err));
		return err;
	}
	/* On the disk, or the error that kept it off (ENOSPC, EIO). */
	err = outfile__sync(r->out);
	if (err) {
		rec_error(r, "%s: %s", shown_output(r), strerror(-err));
		return err;
	}
	r->finished = true;
	return 0;
}

void recorder__discard(struct recorder *r)
{
	r->discard = true;
}

bool recorder__rotated(const struct recorder *r)
{
	return r->out && outfile__rotated(r->out);
}

void recorder__stats(const struct recorder *r, struct recorder_stats *st)
{
	struct evlist_stats es = { 0 };

	if (r->el)
		evlist__stats(r->el, &es);
	st->samples = es.samples;
	st->lost = es.lost;
	st->lost_samples = es.lost_samples;
	st->data_size = r->w ? perf_writer__data_size(r->w) : 0;
	st->cmd_status = -1;
	if (r->child.exit_status >= 0) {
		if (WIFEXITED(r->child.exit_status))
			st->cmd_status = WEXITSTATUS(r->child.exit_status);
		else if (WIFSIGNALED(r->child.exit_status))
			st->cmd_status = 128 + WTERMSIG(r->child.exit_status);
	}
}

void recorder__delete(struct recorder *r)
{
	size_t i;

	if (!r)
		return;
	rec_child__stop(r);
	bpf_spans__delete(r->bs);
	rec_bd__delete(r->bd);
	evlist__delete(r->el);
	if (r->target.cgroup_fd >= 0 && r->o.target == RECORDER_CGROUP)
		close(r->target.cgroup_fd);
	perf_writer__delete(r->w);
	/*
	 * A file cut short by an error would mislead: remove it, and put
	 * back the recordings it had moved (FILE.old, and the .old before
	 * it, kept aside until now).
	 */
	if (r->out && r->finished && !r->discard)
		outfile__commit(r->out);	/* synced: nothing to fail */
	else
		outfile__abort(r->out);
	for (i = 0; i < r->nr_tps; i++)
		free(r->tps[i]);
	free(r->tps);
	rec_probes__remove(r);
	free(r);
}
