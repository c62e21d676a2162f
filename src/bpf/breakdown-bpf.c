// SPDX-License-Identifier: GPL-2.0
/*
 * The loader and reader of rstat-breakdown.bpf.c (include/breakdown.h).
 *
 * Built without RS_HAVE_BPF, open says "built without BPF".
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "breakdown.h"
#include "kfeatures.h"
#include "symbols.h"
#include "util.h"

#ifdef RS_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <tracefs.h>

#include "bpf-int.h"
#include "rstat-breakdown.h"
#include "rstat-breakdown.skel.h"
#endif

#define MAX_LINKS 32

/*
 * The flush functions timed, by index: the walk, the waits (before
 * v6.10), each subsystem's callback (FN_CB + its part).
 */
enum { FN_WALK, FN_WAIT, FN_CB = FN_WAIT + 4, NR_FN = FN_CB + BD_PART__NR };
/* How a flush function is timed. */
enum { BY_NONE, BY_KPROBE, BY_FENTRY };

struct breakdown {
#ifdef RS_HAVE_BPF
	struct rstat_breakdown *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[MAX_LINKS];
	int ncpus;
#endif
	int kver;		/* the running kernel, kfeatures__version() */
	/* Each kprobe link's missed hits, read before it is destroyed. */
	uint64_t link_missed[MAX_LINKS];
	uint32_t link_prog[MAX_LINKS];	/* its program's id */
	unsigned int nr_links_seen;
	unsigned int nr_links;
	bool attached, lock_tps, cpu_lock_tps;
	bool have_kprobes;	/* the kernel has kprobes */
	bool funcs;		/* the flush functions timed (the walk) */
	bool split_trees;	/* v6.16+: a tree and a lock per subsystem */
	bool raw;		/* raw tracepoints, not the classic ones */
	bool fentry;		/* the syscalls by fentry/fexit */
	/* Functions found, attached at attach (NULL: none). */
	const char *walk_func;
	const char *wait_funcs[4];
	const char *cb_func[BD_PART__NR];
	bool in_btf[NR_FN];	/* in the kernel's BTF: fentry may take it */
	int by[NR_FN];		/* BY_*: how each is timed */
	int fentry_err[NR_FN];	/* fentry refused at attach: -errno */
	bool refused[NR_FN];	/* a callback refused at attach: said */
	struct breakdown_source src[BD_PART__NR];
	struct breakdown_syscall *sc;
	size_t nr_sc, cap_sc;
	/* Following (breakdown__set_follow()): opens and forks. */
	bool follow;
	struct breakdown_event *ev;
	size_t nr_ev, cap_ev;
	/* The kernel's symbols, for the stacks outside the reads. */
	struct machine *machine;
	bool kallsyms_tried;
	const char **frames;		/* every resolved stack's names */
	size_t nr_frames, cap_frames;
	int err;		/* the ring callback's */
#ifdef RS_HAVE_BPF
	struct follow_offs {
		int open_name, openat_name, open_ret, fork_child;
		int sendfile_in;	/* -1: reads only */
		int dup_old, fcntl_cmd, close_fd;
		bool dup2, dup3, fcntl;
	} foffs;
	bool foffs_ok;		/* the classic tracepoints can follow */
#endif
};

static const char *const part_names[BD_PART__NR] = {
	[BD_PART_MEMORY] = "memory",
	[BD_PART_IO] = "io",
	[BD_PART_BPF] = "bpf",
	[BD_PART_BASE] = "base",
	[BD_PART_WALK] = "walk",
	[BD_PART_WAIT] = "wait",
	[BD_PART_CPU_WAIT] = "cpu-wait",
	[BD_PART_OFF] = "off-cpu",
	[BD_PART_REST] = "rest",
};

const char *breakdown_part_name(int part)
{
	return part >= 0 && part < BD_PART__NR ? part_names[part] : "?";
}

int breakdown_part_of(const char *name)
{
	int i;

	for (i = 0; i < BD_PART__NR; i++)
		if (!strcmp(part_names[i], name))
			return i;
	return -1;
}

struct breakdown *breakdown__new(void)
{
	return calloc(1, sizeof(struct breakdown));
}

const struct breakdown_source *breakdown__source(const struct breakdown *b,
						 int part)
{
	return part >= 0 && part < BD_PART__NR ? &b->src[part] : NULL;
}

bool breakdown__split_trees(const struct breakdown *b)
{
	return b->split_trees;
}

const char *breakdown__method(const struct breakdown *b)
{
	/* The flush functions by fentry alone, or by both ways. */
	static const char *const fe[2][2] = {
		{ "BPF: fentry and raw tracepoints, flush functions by fentry",
		  "BPF: fentry and raw tracepoints, flush functions by fentry, no lock tracepoints" },
		{ "BPF: fentry, kprobes and raw tracepoints, flush functions by both",
		  "BPF: fentry, kprobes and raw tracepoints, flush functions by both, no lock tracepoints" },
	};
	static const char *const m[3][3] = {
		/* classic tracepoints, raw ones, raw and fentry */
		{ "BPF: kprobes and tracepoints",
		  "BPF: kprobes and raw tracepoints",
		  "BPF: kprobes, fentry and raw tracepoints" },
		{ "BPF: kprobes and tracepoints, no lock tracepoints",
		  "BPF: kprobes and raw tracepoints, no lock tracepoints",
		  "BPF: kprobes, fentry and raw tracepoints, no lock tracepoints" },
		{ "BPF: tracepoints only, no kprobes",
		  "BPF: raw tracepoints only, no kprobes",
		  "BPF: fentry and raw tracepoints, no kprobes" },
	};
	int how = b->fentry ? 2 : b->raw ? 1 : 0, k;
	bool by_fentry = false, by_kprobe = false;

	for (k = 0; b->funcs && k < NR_FN; k++) {
		by_fentry |= b->by[k] == BY_FENTRY;
		by_kprobe |= b->by[k] == BY_KPROBE;
	}
	if (by_fentry)
		return fe[by_kprobe][!b->lock_tps];
	if (b->funcs && b->lock_tps)
		return m[0][how];
	return m[b->funcs ? 1 : 2][how];
}

const struct breakdown_syscall *breakdown__syscalls(const struct breakdown *b,
						    size_t *nr)
{
	*nr = b->nr_sc;
	return b->sc;
}

void breakdown__set_follow(struct breakdown *b, bool follow)
{
	b->follow = follow;
}

const struct breakdown_event *breakdown__events(const struct breakdown *b,
						size_t *nr)
{
	*nr = b->nr_ev;
	return b->ev;
}

const char *breakdown_prog_affects(const char *prog)
{
	static const struct {
		const char *prefix, *affects;
	} map[] = {
		{ "bd_fl_fork", "children" }, { "bd_fl_raw_fork", "children" },
		{ "bd_fl_exit_task", "children" },
		{ "bd_fl_raw_exit_task", "children" },
		{ "bd_fl_", "files" },
		{ "bd_enter_", "syscalls" }, { "bd_exit_", "syscalls" },
		{ "bd_fentry_", "syscalls" }, { "bd_fexit_", "syscalls" },
		{ "bd_raw_enter", "syscalls" }, { "bd_raw_exit", "syscalls" },
		{ "bd_switch", "off-cpu" }, { "bd_raw_switch", "off-cpu" },
		{ "bd_cb_memory_", "memory" }, { "bd_cb_io_", "io" },
		{ "bd_cb_bpf_", "bpf" }, { "bd_cb_base_", "base" },
		{ "bd_inner_", "walk" }, { "bd_outer_", "wait" },
		{ "bd_raw_cpu_", "cpu-wait" }, { "bd_cpu_", "cpu-wait" },
		{ "bd_raw_contended", "wait" }, { "bd_contended", "wait" },
		{ "bd_raw_locked", "wait" }, { "bd_locked", "wait" },
		{ "bd_raw_unlock", "walk" }, { "bd_unlock", "walk" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(prog, map[i].prefix, strlen(map[i].prefix)))
			return map[i].affects;
	return "";
}

#ifndef RS_HAVE_BPF

void breakdown__delete(struct breakdown *b)
{
	if (b) {
		free(b->sc);
		free(b->ev);
	}
	free(b);
}

void breakdown__follow_stats(const struct breakdown *b,
			     struct breakdown_follow_stats *st)
{
	memset(st, 0, sizeof(*st));
}

int breakdown__open(struct breakdown *b, char *errbuf, size_t errlen)
{
	errbuf_set(errbuf, errlen,
		"built without BPF (clang, bpftool or libbpf-dev were missing at build time)");
	return -EOPNOTSUPP;
}

int breakdown__add_reader(struct breakdown *b, pid_t tgid)
{
	return -EOPNOTSUPP;
}

int breakdown__attach(struct breakdown *b, char *errbuf, size_t errlen)
{
	return breakdown__open(b, errbuf, errlen);
}

int breakdown__poll(struct breakdown *b, int timeout_ms)
{
	return -EOPNOTSUPP;
}

void breakdown__detach(struct breakdown *b)
{
}

void breakdown__losses(const struct breakdown *b, uint64_t *lost,
		       uint64_t *broken)
{
	*lost = *broken = 0;
}

void breakdown__cb_cost(const struct breakdown *b,
			struct breakdown_cb_cost *cost)
{
	memset(cost, 0, sizeof(*cost));
}

void breakdown__outside(const struct breakdown *b, int part,
			uint64_t *calls, uint64_t *ns)
{
	*calls = *ns = 0;
}

int breakdown__outside_by(struct breakdown *b, struct breakdown_outside **out,
			  size_t *nr)
{
	*out = NULL;
	*nr = 0;
	return 0;
}

void breakdown__skipped(const struct breakdown *b, struct breakdown_skips *s)
{
	memset(s, 0, sizeof(*s));
}

#else /* RS_HAVE_BPF */

/* Each subsystem's per-css flush callback, as kallsyms names it. */
static const char *const cb_names[BD_PART__NR] = {
	[BD_PART_MEMORY] = "mem_cgroup_css_rstat_flush",
	[BD_PART_IO] = "blkcg_rstat_flush",
	[BD_PART_BPF] = "bpf_rstat_flush",
	[BD_PART_BASE] = "cgroup_base_stat_flush",
};

void breakdown__delete(struct breakdown *b)
{
	if (!b)
		return;
	breakdown__detach(b);
	ring_buffer__free(b->rb);
	rstat_breakdown__destroy(b->skel);
	machine__delete(b->machine);
	free(b->frames);
	free(b->sc);
	free(b->ev);
	free(b);
}

/*
 * The offset of field in a tracepoint's format file (-1: no such event
 * or field). The format lines read "field:TYPE NAME;\toffset:N;...".
 */
static int field_offset(const char *sys, const char *event,
			const char *field)
{
	char line[512], *path;
	int off = -1;
	size_t flen = strlen(field);
	FILE *f;

	path = tracefs_event_get_file(NULL, sys, event, "format");
	if (!path)
		return -1;
	f = fopen(path, "re");
	tracefs_put_tracing_file(path);
	if (!f)
		return -1;
	while (off < 0 && fgets(line, sizeof(line), f)) {
		char *semi = strchr(line, ';'), *o;

		if (!strstr(line, "field:") || !semi)
			continue;
		/* The name ends the declaration, before the ';'. */
		if ((size_t)(semi - line) < flen + 1 ||
		    strncmp(semi - flen, field, flen) ||
		    (semi[-(int)flen - 1] != ' ' &&
		     semi[-(int)flen - 1] != '*'))
			continue;
		o = strstr(semi, "offset:");
		if (o)
			off = atoi(o + 7);
	}
	fclose(f);
	return off;
}

static bool event_exists(const char *sys, const char *event)
{
	return field_offset(sys, event, "common_type") == 0;
}

static void set_src(struct breakdown_source *s, bool timed, const char *how,
		    const char *why)
{
	s->timed = timed;
	snprintf(s->how, sizeof(s->how), "%s", how ? how : "");
	snprintf(s->why, sizeof(s->why), "%s", why ? why : "");
}

/*
 * The classic tracepoints' fields the following needs (the raw ones and
 * fentry read the syscalls' registers instead). false: not there.
 */
static bool follow_offsets(struct breakdown *b)
{
	struct follow_offs *o = &b->foffs;

	o->openat_name = field_offset("syscalls", "sys_enter_openat",
				      "filename");
	o->open_ret = field_offset("syscalls", "sys_exit_openat", "ret");
	o->fork_child = field_offset("sched", "sched_process_fork",
				     "child_pid");
	/* open(2) exists on x86-64, not on arm64: openat alone there. */
	o->open_name = field_offset("syscalls", "sys_enter_open", "filename");
	if (o->open_name >= 0 &&
	    field_offset("syscalls", "sys_exit_open", "ret") != o->open_ret)
		o->open_name = -1;
	/* sendfile(2)'s in_fd, where its exit is laid out as read's. */
	o->sendfile_in = field_offset("syscalls", "sys_enter_sendfile64",
				      "in_fd");
	if (o->sendfile_in >= 0 &&
	    field_offset("syscalls", "sys_exit_sendfile64", "ret") !=
	    field_offset("syscalls", "sys_exit_read", "ret"))
		o->sendfile_in = -1;
	/* Copies and closes of fds, where laid out as on x86-64. */
	o->dup_old = field_offset("syscalls", "sys_enter_dup2", "oldfd");
	if (o->dup_old < 0)
		o->dup_old = field_offset("syscalls", "sys_enter_dup3",
					  "oldfd");
	o->fcntl_cmd = field_offset("syscalls", "sys_enter_fcntl", "cmd");
	o->close_fd = field_offset("syscalls", "sys_enter_close", "fd");
	o->dup2 = o->dup_old >= 0 &&
		  field_offset("syscalls", "sys_enter_dup2", "oldfd") ==
		  o->dup_old &&
		  field_offset("syscalls", "sys_exit_dup2", "ret") == o->open_ret;
	o->dup3 = o->dup_old >= 0 &&
		  field_offset("syscalls", "sys_enter_dup3", "oldfd") ==
		  o->dup_old &&
		  field_offset("syscalls", "sys_exit_dup3", "ret") == o->open_ret;
	o->fcntl = o->dup_old >= 0 && o->fcntl_cmd >= 0 &&
		   field_offset("syscalls", "sys_enter_fcntl", "fd") ==
		   o->dup_old &&
		   field_offset("syscalls", "sys_exit_fcntl", "ret") ==
		   o->open_ret;
	return o->openat_name >= 0 && o->open_ret >= 0 && o->fork_child >= 0;
}

/*
 * The following programs and maps, loaded when asked for, the same way
 * in as the reads': fentry/fexit, or the raw syscall tracepoints (the
 * raw read programs, twins, take sendfile too), or the classic
 * tracepoints; fork and exit by raw tracepoints in the first two.
 */
static void set_follow(struct breakdown *b, struct rstat_breakdown *sk)
{
	const struct follow_offs *o = &b->foffs;
	bool f = b->follow, fentry = f && b->fentry;
	bool raw = f && b->raw && !b->fentry, classic = f && !b->raw;
	bool open = classic && o->open_name >= 0;
	bool sendfile = classic && o->sendfile_in >= 0;

	if (f) {
		bpf_map__set_max_entries(sk->maps.readers, RS_BD_MAX_READERS);
		bpf_map__set_max_entries(sk->maps.bd_events, 4u << 20);
	}
	if (classic) {
		sk->rodata->off_openat_name = (__u32)o->openat_name;
		sk->rodata->off_open_name = open ? (__u32)o->open_name : 0;
		sk->rodata->off_open_ret = (__u32)o->open_ret;
		sk->rodata->off_fork_child = (__u32)o->fork_child;
		sk->rodata->off_sendfile_in = sendfile ?
			(__u32)o->sendfile_in : 0;
		sk->rodata->off_dup_old = o->dup_old >= 0 ?
			(__u32)o->dup_old : 0;
		sk->rodata->off_fcntl_cmd = o->fcntl ? (__u32)o->fcntl_cmd : 0;
		sk->rodata->off_close_fd = o->close_fd >= 0 ?
			(__u32)o->close_fd : 0;
	}
#if defined(__x86_64__)
	if (raw) {
		sk->rodata->nr_sendfile = __NR_sendfile;
		sk->rodata->nr_open = __NR_open;
		sk->rodata->nr_openat = __NR_openat;
		sk->rodata->nr_dup2 = __NR_dup2;
		sk->rodata->nr_dup3 = __NR_dup3;
		sk->rodata->nr_fcntl = __NR_fcntl;
		sk->rodata->nr_close = __NR_close;
	}
#endif
#define FL_AUTOLOAD(name, on)						\
	bpf_program__set_autoload(sk->progs.bd_##name, on)
	FL_AUTOLOAD(fl_enter_openat, classic);
	FL_AUTOLOAD(fl_exit_openat, classic);
	FL_AUTOLOAD(fl_enter_open, open);
	FL_AUTOLOAD(fl_exit_open, open);
	FL_AUTOLOAD(enter_sendfile, sendfile);
	FL_AUTOLOAD(exit_sendfile, sendfile);
	FL_AUTOLOAD(fl_enter_dup2, classic && o->dup2);
	FL_AUTOLOAD(fl_exit_dup2, classic && o->dup2);
	FL_AUTOLOAD(fl_enter_dup3, classic && o->dup3);
	FL_AUTOLOAD(fl_exit_dup3, classic && o->dup3);
	FL_AUTOLOAD(fl_enter_fcntl, classic && o->fcntl);
	FL_AUTOLOAD(fl_exit_fcntl, classic && o->fcntl);
	FL_AUTOLOAD(fl_enter_close, classic && o->close_fd >= 0);
	FL_AUTOLOAD(fl_fork, classic);
	FL_AUTOLOAD(fl_exit_task, classic);
	FL_AUTOLOAD(fl_raw_fork, f && b->raw);
	FL_AUTOLOAD(fl_raw_exit_task, f && b->raw);
	FL_AUTOLOAD(fl_raw_enter, raw);
	FL_AUTOLOAD(fl_raw_exit, raw);
	FL_AUTOLOAD(fl_fentry_openat, fentry);
	FL_AUTOLOAD(fl_fexit_openat, fentry);
	FL_AUTOLOAD(fl_fentry_open, fentry);
	FL_AUTOLOAD(fl_fexit_open, fentry);
	FL_AUTOLOAD(fl_fentry_dup2, fentry);
	FL_AUTOLOAD(fl_fexit_dup2, fentry);
	FL_AUTOLOAD(fl_fentry_dup3, fentry);
	FL_AUTOLOAD(fl_fexit_dup3, fentry);
	FL_AUTOLOAD(fl_fentry_fcntl, fentry);
	FL_AUTOLOAD(fl_fexit_fcntl, fentry);
	FL_AUTOLOAD(fl_fentry_close, fentry);
	FL_AUTOLOAD(fentry_sendfile, fentry);
	FL_AUTOLOAD(fexit_sendfile, fentry);
	FL_AUTOLOAD(fentry_sendfile_twin, fentry);
	FL_AUTOLOAD(fexit_sendfile_twin, fentry);
#undef FL_AUTOLOAD
}

/* The flush function of index k (FN_*), NULL: none found. */
static const char *fn_name(const struct breakdown *b, int k)
{
	if (k == FN_WALK)
		return b->walk_func;
	if (k < FN_CB)
		return b->wait_funcs[k - FN_WAIT];
	return b->cb_func[k - FN_CB];
}

/* A flush function's programs: kprobe, kretprobe, fentry, fexit. */
struct fn_progs {
	struct bpf_program *kp, *kret, *fe, *fx;
};

static struct fn_progs fn_progs(struct rstat_breakdown *sk, int k)
{
	/* The waits share one kprobe pair, an fentry pair each. */
	struct bpf_program *const outer[4][2] = {
		{ sk->progs.bd_outer_fentry0, sk->progs.bd_outer_fexit0 },
		{ sk->progs.bd_outer_fentry1, sk->progs.bd_outer_fexit1 },
		{ sk->progs.bd_outer_fentry2, sk->progs.bd_outer_fexit2 },
		{ sk->progs.bd_outer_fentry3, sk->progs.bd_outer_fexit3 },
	};
	struct fn_progs none = { NULL };

#define FN_PROGS(name)							\
	(struct fn_progs){ sk->progs.bd_##name##_entry,			\
			   sk->progs.bd_##name##_return,		\
			   sk->progs.bd_##name##_fentry,		\
			   sk->progs.bd_##name##_fexit }
	if (k > FN_WALK && k < FN_CB)
		return (struct fn_progs){ sk->progs.bd_outer_entry,
					  sk->progs.bd_outer_return,
					  outer[k - FN_WAIT][0],
					  outer[k - FN_WAIT][1] };
	switch (k) {
	case FN_WALK:
		return FN_PROGS(inner);
	case FN_CB + BD_PART_BASE:
		return FN_PROGS(cb_base);
	case FN_CB + BD_PART_BPF:
		return FN_PROGS(cb_bpf);
	case FN_CB + BD_PART_MEMORY:
		return FN_PROGS(cb_memory);
	case FN_CB + BD_PART_IO:
		return FN_PROGS(cb_io);
	}
#undef FN_PROGS
	return none;	/* a part that is no callback */
}

/*
 * Each flush function by fentry/fexit where this load takes fentry and
 * the kernel's BTF has it, else by kprobes. The kprobe programs load
 * wherever the kernel has kprobes, beside fentry's too: where fentry is
 * refused at attach they stand in for that function alone.
 */
static void set_funcs(struct breakdown *b, struct rstat_breakdown *sk,
		      bool fentry)
{
	bool kprobes_out = false;
	int k;

	b->funcs = b->walk_func && (b->have_kprobes ||
				    (fentry && b->in_btf[FN_WALK]));
	for (k = 0; k < NR_FN; k++) {
		const char *func = fn_name(b, k);
		struct fn_progs p = fn_progs(sk, k);
		bool fe;

		b->fentry_err[k] = 0;
		b->refused[k] = false;
		b->by[k] = !b->funcs || !func ? BY_NONE :
			   fentry && b->in_btf[k] ? BY_FENTRY :
			   b->have_kprobes ? BY_KPROBE : BY_NONE;
		if (!p.fe)
			continue;
		fe = b->by[k] == BY_FENTRY;
		bpf_program__set_autoload(p.fe, fe);
		bpf_program__set_autoload(p.fx, fe);
		/* Attached one by one, the kprobes' way's fallback. */
		bpf_program__set_autoattach(p.fe, false);
		bpf_program__set_autoattach(p.fx, false);
		if (fe) {
			bpf_program__set_attach_target(p.fe, 0, func);
			bpf_program__set_attach_target(p.fx, 0, func);
		}
		if (k >= FN_WAIT && k < FN_CB) {
			kprobes_out |= b->by[k] != BY_NONE && b->have_kprobes;
			continue;	/* one kprobe pair for the waits */
		}
		bpf_program__set_autoload(p.kp, b->by[k] != BY_NONE &&
					  b->have_kprobes);
		bpf_program__set_autoload(p.kret, b->by[k] != BY_NONE &&
					  b->have_kprobes);
	}
	bpf_program__set_autoload(sk->progs.bd_outer_entry, kprobes_out);
	bpf_program__set_autoload(sk->progs.bd_outer_return, kprobes_out);
}

/* The kernel's BTF names func as a function (NULL BTF: no). */
static bool in_btf(const struct btf *btf, const char *func)
{
	return btf && *func && btf__find_by_name_kind(btf, func,
						      BTF_KIND_FUNC) > 0;
}

/* How flush function k is timed, with tail after its name. */
static void fn_how(const struct breakdown *b, int k, const char *tail,
		   char *how, size_t len)
{
	char refused[64] = "";

	if (b->fentry_err[k])
		snprintf(refused, sizeof(refused), " (fentry refused: %s)",
			 strerror(-b->fentry_err[k]));
	snprintf(how, len, "%s on %s%s%s", b->by[k] == BY_FENTRY ?
		 "fentry/fexit" : "kprobe+kretprobe", fn_name(b, k), tail,
		 refused);
}

/*
 * The flush functions' parts as loaded, and again as attached (where
 * fentry was refused, or a kprobe too, they say so).
 */
static void describe_funcs(struct breakdown *b)
{
	char how[128], why[192];
	bool fe = false, kp = false;
	int i, k;

	for (i = 0; i < BD_PART__NR; i++) {
		k = FN_CB + i;
		if (!cb_names[i] || b->refused[k])
			continue;	/* said at attach */
		if (b->by[k] != BY_NONE) {
			fn_how(b, k, "", how, sizeof(how));
			set_src(&b->src[i], true, how, NULL);
			continue;
		}
		/*
		 * A callback is timed only inside a timed walk function (its
		 * time is cut out of the walk's).
		 */
		snprintf(why, sizeof(why), "%s: in walk",
			 !b->cb_func[i] ?
			 "not in kallsyms (inlined or absent)" :
			 !b->have_kprobes && !b->funcs ?
			 "no kprobes on this kernel and fentry refused" :
			 !b->funcs ? "the flush function around it is not timed" :
			 "fentry refused");
		set_src(&b->src[i], false, NULL, why);
	}
	if (b->funcs) {
		fn_how(b, FN_WALK, ", callbacks out", how, sizeof(how));
		set_src(&b->src[BD_PART_WALK], true, how, NULL);
	} else if (b->lock_tps) {
		set_src(&b->src[BD_PART_WALK], true,
			"cgroup_rstat_locked -> unlock (lock held: callbacks included)",
			NULL);
	} else {
		set_src(&b->src[BD_PART_WALK], false, NULL,
			"no kprobes and no rstat lock tracepoints: in rest");
	}
	for (k = FN_WAIT; k < FN_CB; k++) {
		fe |= b->by[k] == BY_FENTRY;
		kp |= b->by[k] == BY_KPROBE;
	}
	if (b->lock_tps) {
		set_src(&b->src[BD_PART_WAIT], true,
			"cgroup_rstat_lock_contended -> locked", NULL);
	} else if (b->funcs && (fe || kp)) {
		snprintf(how, sizeof(how),
			 "%s: entry of %s%s -> entry of %s (lock taken between, re-takes in walk)",
			 fe && kp ? "fentry and kprobes" : fe ? "fentry/fexit" :
			 "kprobes", b->wait_funcs[0],
			 b->wait_funcs[1] ? ",..." : "", b->walk_func);
		set_src(&b->src[BD_PART_WAIT], true, how, NULL);
	} else {
		set_src(&b->src[BD_PART_WAIT], false, NULL,
			"no rstat lock tracepoints (v6.10+) and no kprobes: in rest");
	}
}

/* Some flush function was to be timed by fentry in the last load. */
static bool fentry_planned(const struct breakdown *b)
{
	int k;

	for (k = 0; k < NR_FN; k++)
		if (b->by[k] == BY_FENTRY)
			return true;
	return false;
}

/* Where the classic tracepoints keep their fields (-1: not there). */
struct bd_offsets {
	int fd, ret, prev, next;
};

/*
 * Open and load the programs: the tracepoints' raw or classic ones, the
 * syscalls' by fentry/fexit (with raw) or by their tracepoints.
 */
static int load(struct breakdown *b, const struct bd_offsets *o, bool raw,
		bool fentry, bool fentry_funcs, char *errbuf, size_t errlen)
{
	struct rstat_breakdown *sk;
	int err;

	if (b->follow && !raw && !b->foffs_ok) {
		errbuf_set(errbuf, errlen,
			"no syscalls:sys_enter_openat/sys_exit_openat or sched:sched_process_fork tracepoint: the files read and the children cannot be followed");
		return -EOPNOTSUPP;
	}
	sk = rstat_breakdown__open();
	if (!sk) {
		err = -errno;
		errbuf_set(errbuf, errlen, "BPF breakdown: open: %s",
			   strerror(err ? -err : EINVAL));
		return err ? err : -EINVAL;
	}
	b->skel = sk;
	b->raw = raw;
	b->fentry = fentry;
#if defined(__x86_64__)
	sk->rodata->off_regs_arg0 = offsetof(struct user_regs_struct, rdi);
	sk->rodata->off_regs_arg1 = offsetof(struct user_regs_struct, rsi);
	sk->rodata->off_regs_nr = offsetof(struct user_regs_struct, orig_rax);
	sk->rodata->nr_read = __NR_read;
	sk->rodata->nr_pread64 = __NR_pread64;
#endif
	sk->rodata->off_fd = (__u32)o->fd;
	sk->rodata->off_ret = (__u32)o->ret;
	sk->rodata->off_prev_pid = o->prev >= 0 ? (__u32)o->prev : 0;
	sk->rodata->off_next_pid = o->next >= 0 ? (__u32)o->next : 0;
	sk->rodata->outer_is_wait = !b->lock_tps;
	set_funcs(b, sk, fentry_funcs);
	/* Lock held as the walk only when no program times the walk. */
	sk->rodata->held_is_walk = !b->funcs;
	/* Each event by one of its two programs, raw or classic. */
#define TP_AUTOLOAD(name, on)						\
	bpf_program__set_autoload(sk->progs.bd_##name, !raw && (on));	\
	bpf_program__set_autoload(sk->progs.bd_raw_##name, raw && (on))
	bpf_program__set_autoload(sk->progs.bd_enter_read, !raw);
	bpf_program__set_autoload(sk->progs.bd_exit_read, !raw);
	bpf_program__set_autoload(sk->progs.bd_enter_pread, !raw);
	bpf_program__set_autoload(sk->progs.bd_exit_pread, !raw);
	/* Twins: each its own guard, a syscall lost only if both skip. */
	sk->rodata->twins = raw;
#define SYSCALL_AUTOLOAD(name, on)					\
	bpf_program__set_autoload(sk->progs.bd_##name, on);		\
	bpf_program__set_autoload(sk->progs.bd_##name##_twin, on)
	SYSCALL_AUTOLOAD(fentry_read, fentry);
	SYSCALL_AUTOLOAD(fexit_read, fentry);
	SYSCALL_AUTOLOAD(fentry_pread, fentry);
	SYSCALL_AUTOLOAD(fexit_pread, fentry);
	SYSCALL_AUTOLOAD(raw_enter, raw && !fentry);
	SYSCALL_AUTOLOAD(raw_exit, raw && !fentry);
#undef SYSCALL_AUTOLOAD
	TP_AUTOLOAD(switch, o->prev >= 0 && o->next >= 0);
	TP_AUTOLOAD(contended, b->lock_tps);
	TP_AUTOLOAD(locked, b->lock_tps);
	TP_AUTOLOAD(unlock, b->lock_tps);
	TP_AUTOLOAD(cpu_contended, b->cpu_lock_tps);
	TP_AUTOLOAD(cpu_locked, b->cpu_lock_tps);
#undef TP_AUTOLOAD
	bpf_map__set_max_entries(sk->maps.records, 8u << 20);
	set_follow(b, sk);
	err = rstat_breakdown__load(sk);
	if (err) {
		errbuf_set(errbuf, errlen, "BPF breakdown: load: %s: %s",
			   strerror(-err), *bpf_quiet__verdict() ?
			   bpf_quiet__verdict() : bpf_quiet__msg());
		return err == -EPERM || err == -EACCES ? -EOPNOTSUPP : err;
	}
	set_src(&b->src[BD_PART_REST], true, fentry ?
		"fentry -> fexit of __x64_sys_read/pread64 minus the parts" :
		raw ? "raw_syscalls:sys_enter -> sys_exit minus the parts" :
		"syscalls:sys_enter -> sys_exit minus the parts", NULL);
	describe_funcs(b);
	return 0;
}

static int do_open(struct breakdown *b, char *errbuf, size_t errlen)
{
	int fd_off, ret_off, prev_off, next_off, i, err;
	bool have_kprobes, pread_tp, read_tp;
	struct bd_offsets o;
	struct utsname u;
	struct btf *btf;

	if (geteuid() != 0) {
		errbuf_set(errbuf, errlen,
			"not permitted: timing reads in the kernel needs root (BPF, tracefs)");
		return -EOPNOTSUPP;
	}
	if (!tracefs_tracing_dir()) {
		errbuf_set(errbuf, errlen,
			"tracefs is not mounted (and could not be): the tracepoint layouts cannot be read");
		return -EOPNOTSUPP;
	}
	pread_tp = event_exists("syscalls", "sys_enter_pread64") &&
		   event_exists("syscalls", "sys_exit_pread64");
	read_tp = event_exists("syscalls", "sys_enter_read") &&
		  event_exists("syscalls", "sys_exit_read");
	fd_off = field_offset("syscalls", "sys_enter_pread64", "fd");
	ret_off = field_offset("syscalls", "sys_exit_pread64", "ret");
	prev_off = field_offset("sched", "sched_switch", "prev_pid");
	next_off = field_offset("sched", "sched_switch", "next_pid");
	if (!pread_tp || !read_tp || fd_off < 0 || ret_off < 0) {
		errbuf_set(errbuf, errlen,
			"no syscalls:sys_enter_pread64/sys_exit_pread64 tracepoints (CONFIG_FTRACE_SYSCALLS): a read's start and end cannot be timed");
		return -EOPNOTSUPP;
	}
	if (field_offset("syscalls", "sys_enter_read", "fd") != fd_off ||
	    field_offset("syscalls", "sys_exit_read", "ret") != ret_off) {
		errbuf_set(errbuf, errlen,
			"syscalls:sys_enter_read and sys_enter_pread64 differ in layout");
		return -EOPNOTSUPP;
	}
	b->lock_tps = event_exists("cgroup", "cgroup_rstat_locked") &&
		      event_exists("cgroup", "cgroup_rstat_unlock") &&
		      event_exists("cgroup", "cgroup_rstat_lock_contended");
	b->cpu_lock_tps =
		event_exists("cgroup", "cgroup_rstat_cpu_lock_contended") &&
		event_exists("cgroup", "cgroup_rstat_cpu_locked");
	have_kprobes = !access("/sys/bus/event_source/devices/kprobe", F_OK);

	/* The core flush: the function whose time is the walk. */
	{
		static const char *const walk[] = {
			"cgroup_rstat_flush_locked",	/* 4.18-6.14 */
			"css_rstat_flush",		/* 6.16+ */
			"cgroup_rstat_flush",		/* 6.15 */
		};
		/*
		 * cgroup_rstat_flush_hold is inlined into cpu.stat's
		 * cgroup_base_stat_cputime_show (one file): its entry
		 * starts that wait instead.
		 */
		static const char *const waits[] = {
			"cgroup_rstat_flush", "cgroup_rstat_flush_irqsafe",
			"cgroup_rstat_flush_hold",
			"cgroup_base_stat_cputime_show",
		};
		/*
		 * Every candidate in one read of kallsyms, with or without
		 * kprobes: css_rstat_flush came with the split trees.
		 */
		const char *names[3 + 4 + BD_PART__NR];
		bool found[3 + 4 + BD_PART__NR];
		unsigned int n = 0, k;

		for (k = 0; k < 3; k++)
			names[k] = walk[k];
		for (k = 0; k < 4; k++)
			names[3 + k] = waits[k];
		for (k = 0; k < BD_PART__NR; k++)
			names[7 + k] = cb_names[k] ? cb_names[k] : "";
		kfeatures__has_functions(names, 7 + BD_PART__NR, found);
		b->split_trees = found[1];
		/* Timed by kprobes, or by fentry: in the BTF. */
		btf = btf__load_vmlinux_btf();
		for (k = 0; k < 7 + BD_PART__NR; k++)
			found[k] = found[k] && (have_kprobes ||
						in_btf(btf, names[k]));
		for (i = 0; i < 3 && !b->walk_func; i++)
			if (found[i])
				b->walk_func = walk[i];
		if (!b->lock_tps && b->walk_func &&
		    !strcmp(b->walk_func, "cgroup_rstat_flush_locked"))
			for (i = 0; i < 4; i++)
				if (found[3 + i])
					b->wait_funcs[n++] = waits[i];
		for (i = 0; i < BD_PART__NR; i++)
			if (cb_names[i] && found[7 + i])
				b->cb_func[i] = cb_names[i];
	}
	b->have_kprobes = have_kprobes;
	for (i = 0; i < NR_FN; i++)
		b->in_btf[i] = fn_name(b, i) && in_btf(btf, fn_name(b, i));
	btf__free(btf);
	if (b->cpu_lock_tps)
		set_src(&b->src[BD_PART_CPU_WAIT], true,
			"cgroup_rstat_cpu_lock_contended -> cgroup_rstat_cpu_locked",
			NULL);
	else
		set_src(&b->src[BD_PART_CPU_WAIT], false, NULL,
			"no per-CPU lock tracepoints (v6.10-v6.16 only): in walk");
	if (prev_off >= 0 && next_off >= 0)
		set_src(&b->src[BD_PART_OFF], true,
			"sched:sched_switch (prev -> next of the reader)", NULL);
	else
		set_src(&b->src[BD_PART_OFF], false, NULL,
			"no sched:sched_switch pid fields: in the part it interrupted");

	if (b->follow)
		b->foffs_ok = follow_offsets(b);
	b->kver = kfeatures__version(uname(&u) ? NULL : u.release);
	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0) {
		errbuf_set(errbuf, errlen, "cannot count the possible CPUs");
		return -EINVAL;
	}
	o.fd = fd_off;
	o.ret = ret_off;
	o.prev = prev_off;
	o.next = next_off;
#if defined(__x86_64__)
	/*
	 * Raw tracepoints first, the syscalls by fentry/fexit, then by the
	 * raw syscall tracepoints (they need the registers' layout, x86-64's
	 * here; sched_switch's needs the kernel's BTF): a kernel that
	 * refuses both gets the classic tracepoints. With fentry, the flush
	 * functions by fentry too where the BTF has them; a load that
	 * fails for another reason than fentry's refusal (EPERM: none
	 * would load) is tried again with kprobes for them all, as a whole:
	 * libbpf does not say which program the kernel refused.
	 */
	err = load(b, &o, true, true, true, errbuf, errlen);
	if (!err)
		return 0;
	rstat_breakdown__destroy(b->skel);
	b->skel = NULL;
	if (err != -EOPNOTSUPP && fentry_planned(b)) {
		if (!load(b, &o, true, true, false, errbuf, errlen))
			return 0;
		rstat_breakdown__destroy(b->skel);
		b->skel = NULL;
	}
	if (!load(b, &o, true, false, false, errbuf, errlen))
		return 0;
	rstat_breakdown__destroy(b->skel);
	b->skel = NULL;
#endif
	return load(b, &o, false, false, false, errbuf, errlen);
}

int breakdown__open(struct breakdown *b, char *errbuf, size_t errlen)
{
	struct bpf_quiet q;
	int err;

	if (b->skel) {
		errbuf_set(errbuf, errlen, "BPF breakdown already open");
		return -EINVAL;
	}
	bpf_quiet__begin(&q);
	err = do_open(b, errbuf, errlen);
	bpf_quiet__end(&q);
	if (err && b->skel) {
		rstat_breakdown__destroy(b->skel);
		b->skel = NULL;
	}
	return err;
}

int breakdown__add_reader(struct breakdown *b, pid_t tgid)
{
	__u32 key = (__u32)tgid;
	__u8 one = 1;

	if (!b->skel)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.readers), &key,
				&one, BPF_ANY))
		return -errno;
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct breakdown *b = ctx;
	const struct rs_bd_rec *r = data;
	struct breakdown_syscall *s;

	if (size < sizeof(*r))
		return 0;
	if (grow_array((void **)&b->sc, &b->cap_sc, b->nr_sc + 1,
		       sizeof(*b->sc))) {
		b->err = -ENOMEM;
		return -ENOMEM;
	}
	s = &b->sc[b->nr_sc++];
	memset(s, 0, sizeof(*s));
	s->start = r->start;
	s->total = r->total;
	s->ret = r->ret;
	s->fd = r->fd;
	s->tid = r->tid;
	s->tgid = r->tgid;
	s->broken = r->broken;
	s->prev_tail_off = r->prev_tail_off;
	s->pread = r->pread;
	s->prev_tail_switches = r->prev_tail_switches;
	s->calls[BD_PART_REST] = 1;
	s->calls[BD_PART_WAIT] = r->calls[RS_BD_WAIT];
	s->calls[BD_PART_WALK] = r->calls[RS_BD_WALK] + r->calls[RS_BD_HELD];
	s->calls[BD_PART_OFF] = r->calls[RS_BD_OFF];
	s->calls[BD_PART_BASE] = r->calls[RS_BD_CB_BASE];
	s->calls[BD_PART_BPF] = r->calls[RS_BD_CB_BPF];
	s->calls[BD_PART_MEMORY] = r->calls[RS_BD_CB_MEMORY];
	s->calls[BD_PART_IO] = r->calls[RS_BD_CB_IO];
	s->ns[BD_PART_REST] = r->ns[RS_BD_REST];
	s->ns[BD_PART_WAIT] = r->ns[RS_BD_WAIT];
	s->ns[BD_PART_WALK] = r->ns[RS_BD_WALK] + r->ns[RS_BD_HELD];
	s->ns[BD_PART_OFF] = r->ns[RS_BD_OFF];
	s->ns[BD_PART_BASE] = r->ns[RS_BD_CB_BASE];
	s->ns[BD_PART_BPF] = r->ns[RS_BD_CB_BPF];
	s->ns[BD_PART_MEMORY] = r->ns[RS_BD_CB_MEMORY];
	s->ns[BD_PART_IO] = r->ns[RS_BD_CB_IO];
	s->ns[BD_PART_CPU_WAIT] = r->ns[RS_BD_CPU_WAIT];
	s->calls[BD_PART_CPU_WAIT] = r->calls[RS_BD_CPU_WAIT];
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct breakdown *b = ctx;
	const struct rs_bd_ev *e = data;
	struct breakdown_event *o;

	/* An open's record has the path; the others end before it. */
	if (size < RS_BD_EV_HEAD ||
	    (e->kind == RS_BD_EV_OPEN && size < sizeof(*e)))
		return 0;
	if (grow_array((void **)&b->ev, &b->cap_ev, b->nr_ev + 1,
		       sizeof(*b->ev))) {
		b->err = -ENOMEM;
		return -ENOMEM;
	}
	o = &b->ev[b->nr_ev++];
	memset(o, 0, sizeof(*o));
	o->ts = e->ts;
	o->tgid = e->tgid;
	o->fd = e->fd;
	o->oldfd = -1;
	switch (e->kind) {
	case RS_BD_EV_FORK:
		o->kind = BD_EV_FORK;
		o->child = (uint32_t)e->fd;
		o->fd = -1;
		break;
	case RS_BD_EV_DUP:
		o->kind = BD_EV_DUP;
		o->oldfd = e->oldfd;
		break;
	case RS_BD_EV_CLOSE:
		o->kind = BD_EV_CLOSE;
		break;
	case RS_BD_EV_OPEN:
		o->kind = BD_EV_OPEN;
		memcpy(o->path, e->path, sizeof(o->path));
		o->path[sizeof(o->path) - 1] = '\0';
		break;
	default:
		b->nr_ev--;	/* not ours to know */
		break;
	}
	return 0;
}

static int link_kprobe(struct breakdown *b, struct bpf_program *p,
		       bool ret, const char *func)
{
	struct bpf_link *l;

	if (b->nr_links >= MAX_LINKS)
		return -E2BIG;
	l = bpf_program__attach_kprobe(p, ret, func);
	if (!l)
		return -errno;
	b->links[b->nr_links++] = l;
	return 0;
}

/* Undo the last link (an entry's, its return's refused). */
static void unlink_last(struct breakdown *b)
{
	bpf_link__destroy(b->links[--b->nr_links]);
	b->links[b->nr_links] = NULL;
}

/* An fentry/fexit pair on its function. */
static int link_fentry(struct breakdown *b, const struct fn_progs *p)
{
	struct bpf_link *l;

	if (b->nr_links + 2 > MAX_LINKS)
		return -E2BIG;
	l = bpf_program__attach_trace(p->fe);
	if (!l)
		return -errno;
	b->links[b->nr_links++] = l;
	l = bpf_program__attach_trace(p->fx);
	if (!l) {
		int err = -errno;

		unlink_last(b);
		return err;
	}
	b->links[b->nr_links++] = l;
	return 0;
}

/*
 * Flush function k, the way it was loaded for: fentry, where it is
 * refused then by kprobes (loaded beside it where the kernel has them).
 * A callback that cannot be timed says why and is left in walk.
 */
static int attach_func(struct breakdown *b, int k)
{
	struct fn_progs p = fn_progs(b->skel, k);
	const char *func = fn_name(b, k);
	int err = 0;

	if (b->by[k] == BY_FENTRY) {
		err = link_fentry(b, &p);
		if (!err)
			return 0;
		b->fentry_err[k] = err;
		b->by[k] = b->have_kprobes ? BY_KPROBE : BY_NONE;
	}
	if (b->by[k] == BY_KPROBE) {
		err = link_kprobe(b, p.kp, false, func);
		if (!err) {
			err = link_kprobe(b, p.kret, true, func);
			if (err)
				unlink_last(b);
		}
		if (!err)
			return 0;
		b->by[k] = BY_NONE;
	}
	if (!err)
		return 0;	/* nothing to time it with: said at load */
	if (k < FN_CB)
		return err;
	/* Not probeable (notrace, blacklisted): say so. */
	b->refused[k] = true;
	b->src[k - FN_CB].timed = false;
	if (b->fentry_err[k] && err != b->fentry_err[k])
		snprintf(b->src[k - FN_CB].why, sizeof(b->src[k - FN_CB].why),
			 "fentry (%s) and kprobe (%s) on %s refused: in walk",
			 strerror(-b->fentry_err[k]), strerror(-err), func);
	else
		snprintf(b->src[k - FN_CB].why, sizeof(b->src[k - FN_CB].why),
			 "%s on %s refused (%s): in walk",
			 b->fentry_err[k] && !b->have_kprobes ? "fentry" :
			 "kprobe", func, strerror(-err));
	return 0;
}

static int do_attach(struct breakdown *b, char *errbuf, size_t errlen)
{
	struct rstat_breakdown *sk = b->skel;
	int err, k;

	err = rstat_breakdown__attach(sk);
	if (err) {
		errbuf_set(errbuf, errlen, "BPF breakdown: attach: %s%s%s",
			   strerror(-err), *bpf_quiet__msg() ? ": " : "",
			   bpf_quiet__msg());
		return err;
	}
	for (k = 0; k < NR_FN; k++) {
		err = attach_func(b, k);
		if (!err || k >= FN_CB)
			continue;
		errbuf_set(errbuf, errlen, "BPF breakdown: %s on %s: %s",
			   b->fentry_err[k] && !b->have_kprobes ? "fentry" :
			   "kprobe", fn_name(b, k), strerror(-err));
		return err;
	}
	describe_funcs(b);
	b->rb = ring_buffer__new(bpf_map__fd(sk->maps.records), on_record, b,
				 NULL);
	if (!b->rb) {
		err = -errno;
		errbuf_set(errbuf, errlen, "BPF breakdown: ring buffer: %s",
			   strerror(-err));
		return err;
	}
	if (b->follow && ring_buffer__add(b->rb,
					  bpf_map__fd(sk->maps.bd_events),
					  on_event, b)) {
		err = -errno;
		errbuf_set(errbuf, errlen, "BPF breakdown: ring buffer: %s",
			   strerror(-err));
		return err;
	}
	return 0;
}

int breakdown__attach(struct breakdown *b, char *errbuf, size_t errlen)
{
	struct bpf_quiet q;
	int err;

	if (!b->skel) {
		errbuf_set(errbuf, errlen, "BPF breakdown: attach before open");
		return -EINVAL;
	}
	if (b->attached)
		return 0;
	bpf_quiet__begin(&q);
	err = do_attach(b, errbuf, errlen);
	bpf_quiet__end(&q);
	if (err) {
		breakdown__detach(b);
		return err;
	}
	b->attached = true;
	return 0;
}

int breakdown__poll(struct breakdown *b, int timeout_ms)
{
	int n;

	if (!b->rb)
		return -EINVAL;
	/*
	 * Records wake the poller only when their ring is half full
	 * (rb_wakeup()): the wait ends then or at the timeout, and what
	 * the rings hold is taken either way.
	 */
	n = ring_buffer__poll(b->rb, timeout_ms);
	if (n >= 0 || n == -EINTR)
		n = ring_buffer__consume(b->rb);
	if (b->err)
		return b->err;
	return n < 0 && n != -EINTR ? n : 0;
}

static void *destroy_link(void *arg)
{
	bpf_link__destroy(arg);
	return NULL;
}

/*
 * Every link at once: each one's release waits for an RCU grace period
 * (tens of ms under load, 1.2 s for record's 18 one after the other);
 * released together they wait for about one.
 */
static void destroy_links(struct bpf_link **links, size_t n)
{
	pthread_t th[MAX_LINKS * 2];
	bool started[MAX_LINKS * 2] = { false };
	size_t i;

	for (i = 0; i < n; i++)
		started[i] = i < MAX_LINKS * 2 && links[i] &&
			     !pthread_create(&th[i], NULL, destroy_link,
					     links[i]);
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

/*
 * The head of the kernel's struct bpf_link_info for a perf event link
 * (v6.6+), as far as a kprobe's missed hits (v6.7+): libbpf 1.1's
 * headers predate it. An older kernel fills less and leaves them 0.
 */
struct bd_perf_link_info {
	__u32 type, id, prog_id, pad;
	__u32 perf_type, pad2;
	__u64 func_name;
	__u32 name_len, offset;
	__u64 addr, missed;
};

/* Each kprobe link's missed hits, before the links go. */
static void keep_link_missed(struct breakdown *b)
{
	unsigned int i;

	if (!b->nr_links)
		return;		/* detached already */
	b->nr_links_seen = b->nr_links;
	for (i = 0; i < b->nr_links; i++) {
		struct bd_perf_link_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_link__fd(b->links[i]), &info,
					   &len))
			continue;
		b->link_prog[i] = info.prog_id;
		b->link_missed[i] = info.missed;
	}
}

void breakdown__detach(struct breakdown *b)
{
	struct bpf_link *all[MAX_LINKS * 2];
	size_t n = 0;
	unsigned int i;

	keep_link_missed(b);
	for (i = 0; i < b->nr_links; i++)
		all[n++] = b->links[i];
	b->nr_links = 0;
	/* The skeleton's own links, taken from it (it destroys none then). */
	if (b->skel) {
		const struct bpf_object_skeleton *s = b->skel->skeleton;
		int k;

		for (k = 0; k < s->prog_cnt && n < MAX_LINKS * 2; k++) {
			const struct bpf_prog_skeleton *ps = (const void *)
				((const char *)s->progs + k * s->prog_skel_sz);

			if (*ps->link)
				all[n++] = *ps->link;
			*ps->link = NULL;
		}
	}
	destroy_links(all, n);
	if (b->skel)
		rstat_breakdown__detach(b->skel);
	/* What the ring still holds: every record of the readers. */
	if (b->rb)
		ring_buffer__consume(b->rb);
	b->attached = false;
}

/* A counter of a per-CPU array, summed over the CPUs. */
static uint64_t percpu_fold(const struct breakdown *b, struct bpf_map *map,
			    __u32 idx, bool least)
{
	uint64_t *v, r = 0;
	int c;

	v = calloc((size_t)b->ncpus, sizeof(*v));
	if (!v)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &idx, v)) {
		free(v);
		return 0;
	}
	for (c = 0; c < b->ncpus; c++) {
		if (!least)
			r += v[c];
		else if (v[c] && (!r || v[c] < r))
			r = v[c];
	}
	free(v);
	return r;
}

static uint64_t percpu_sum(const struct breakdown *b, struct bpf_map *map,
			   __u32 idx)
{
	return percpu_fold(b, map, idx, false);
}

static uint64_t counter(const struct breakdown *b, __u32 idx)
{
	return b->skel ? percpu_sum(b, b->skel->maps.counters, idx) : 0;
}

static uint64_t follow_counter(const struct breakdown *b, __u32 idx)
{
	if (!b->skel || !b->follow)
		return 0;
	return percpu_sum(b, b->skel->maps.bd_follow_counters, idx);
}

void breakdown__follow_stats(const struct breakdown *b,
			     struct breakdown_follow_stats *st)
{
	st->forks = follow_counter(b, RS_BD_F_FORKS);
	st->readers_full = follow_counter(b, RS_BD_F_READERS_FULL);
	st->events_lost = follow_counter(b, RS_BD_F_EV_LOST);
}

void breakdown__losses(const struct breakdown *b, uint64_t *lost,
		       uint64_t *broken)
{
	*lost = counter(b, RS_BD_C_LOST);
	*broken = counter(b, RS_BD_C_BROKEN);
}

void breakdown__cb_cost(const struct breakdown *b,
			struct breakdown_cb_cost *cost)
{
	memset(cost, 0, sizeof(*cost));
	if (!b->skel)
		return;
	cost->calls = counter(b, RS_BD_C_CB_TIMED);
	cost->programs_ns = counter(b, RS_BD_C_CB_PROG_NS);
	cost->programs_after_ns = counter(b, RS_BD_C_CB_PROG_AFTER_NS);
	/* The CPUs' minima: the least of those that timed one. */
	cost->shortest_ns = percpu_fold(b, b->skel->maps.cb_shortest, 0, true);
}

void breakdown__outside(const struct breakdown *b, int part,
			uint64_t *calls, uint64_t *ns)
{
	static const __u32 state[BD_PART__NR] = {
		[BD_PART_MEMORY] = RS_BD_CB_MEMORY,
		[BD_PART_IO] = RS_BD_CB_IO,
		[BD_PART_BPF] = RS_BD_CB_BPF,
		[BD_PART_BASE] = RS_BD_CB_BASE,
	};
	struct rs_bd_outside *v;
	__u32 idx;
	int c;

	*calls = *ns = 0;
	if (!b->skel || part < 0 || part > BD_PART_BASE)
		return;
	idx = state[part];
	v = calloc((size_t)b->ncpus, sizeof(*v));
	if (!v)
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.outside), &idx,
				 v))
		for (c = 0; c < b->ncpus; c++) {
			*calls += v[c].calls;
			*ns += v[c].ns;
		}
	free(v);
}

static int part_of_state(__u32 state)
{
	switch (state) {
	case RS_BD_CB_MEMORY:
		return BD_PART_MEMORY;
	case RS_BD_CB_IO:
		return BD_PART_IO;
	case RS_BD_CB_BPF:
		return BD_PART_BPF;
	case RS_BD_CB_BASE:
		return BD_PART_BASE;
	}
	return -1;
}

/*
 * Resolve a stack of the map into b->frames: *first, *nr (0 frames when
 * none or no kernel symbols). 0 or -ENOMEM.
 */
static int stack_frames(struct breakdown *b, __s32 id, size_t *first,
			uint32_t *nr)
{
	__u64 ips[RS_BD_STACK_DEPTH];
	uint32_t i;

	*first = b->nr_frames;
	*nr = 0;
	if (id < 0)
		return 0;
	if (!b->kallsyms_tried) {
		b->kallsyms_tried = true;
		b->machine = machine__new();
		if (!b->machine)
			return -ENOMEM;
		/* kptr_restrict: no names, every stack unnamed. */
		if (machine__load_kallsyms(b->machine, "/proc/kallsyms") ||
		    !machine__has_kernel_symbols(b->machine)) {
			machine__delete(b->machine);
			b->machine = NULL;
		}
	}
	if (!b->machine)
		return 0;
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.out_stacks), &id,
				ips))
		return 0;
	for (i = 0; i < RS_BD_STACK_DEPTH && ips[i]; i++) {
		struct rs_frame f;

		if (machine__resolve(b->machine, 0, 0,
				     PERF_RECORD_MISC_KERNEL, ips[i], &f))
			break;
		if (grow_array((void **)&b->frames, &b->cap_frames,
			       b->nr_frames + 1, sizeof(*b->frames)))
			return -ENOMEM;
		b->frames[b->nr_frames++] = f.sym;
		(*nr)++;
	}
	return 0;
}

int breakdown__outside_by(struct breakdown *b, struct breakdown_outside **out,
			  size_t *nr)
{
	struct rs_bd_out_key key, next, *prev = NULL;
	struct breakdown_outside *o = NULL;
	struct rs_bd_outside v;
	size_t n = 0, cap = 0, cap_ids = 0, i, *first = NULL;
	__s32 *ids = NULL;
	int fd, err = 0;

	*out = NULL;
	*nr = 0;
	if (!b->skel)
		return 0;
	fd = bpf_map__fd(b->skel->maps.outside_by);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		int part;

		key = next;
		prev = &key;
		part = part_of_state(key.state);
		if (part < 0 || bpf_map_lookup_elem(fd, &key, &v))
			continue;
		if (grow_array((void **)&o, &cap, n + 1, sizeof(*o)) ||
		    grow_array((void **)&ids, &cap_ids, n + 1,
			       sizeof(*ids))) {
			err = -ENOMEM;
			break;
		}
		ids[n] = key.stack_id;
		memset(&o[n], 0, sizeof(o[n]));
		o[n].part = part;
		o[n].calls = v.calls;
		o[n].ns = v.ns;
		n++;
	}
	/* Stacks last: b->frames may move while it grows. */
	first = err ? NULL : calloc(n ? n : 1, sizeof(*first));
	if (!err && !first)
		err = -ENOMEM;
	for (i = 0; !err && i < n; i++)
		err = stack_frames(b, ids[i], &first[i], &o[i].nr_frames);
	for (i = 0; !err && i < n; i++)
		o[i].frames = o[i].nr_frames ? b->frames + first[i] : NULL;
	free(first);
	free(ids);
	if (err) {
		free(o);
		return err;
	}
	*out = o;
	*nr = n;
	return 0;
}

void breakdown__skipped(const struct breakdown *b, struct breakdown_skips *s)
{
	struct bpf_program *p;

	memset(s, 0, sizeof(*s));
	s->counted = true;
	if (!b->skel)
		return;
	s->reader_syscalls = counter(b, RS_BD_C_NO_ENTER) +
			     counter(b, RS_BD_C_NO_EXIT);
	bpf_object__for_each_program(p, b->skel->obj) {
		enum bpf_prog_type t = bpf_program__type(p);
		struct breakdown_skip *k = &s->prog[s->nr];
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		uint64_t missed = 0;
		unsigned int i;
		int fd = bpf_program__fd(p);

		if (fd < 0)
			continue;
		/* trace_call_bpf() counts what it skips from v6.7. */
		if ((t == BPF_PROG_TYPE_KPROBE ||
		     t == BPF_PROG_TYPE_TRACEPOINT) && b->kver < 6007)
			s->counted = false;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		for (i = 0; i < b->nr_links_seen; i++)
			if (b->link_prog[i] == info.id)
				missed += b->link_missed[i];
		if ((!info.recursion_misses && !missed) ||
		    s->nr >= BD_MAX_SKIPS)
			continue;
		snprintf(k->prog, sizeof(k->prog), "%s", bpf_program__name(p));
		k->recursion = info.recursion_misses;
		k->missed = missed;
		s->nr++;
	}
}

#endif /* RS_HAVE_BPF */
