// SPDX-License-Identifier: GPL-2.0
/*
 * The recorded machine as perf's machine/thread/map model sees it: threads
 * keyed by tid with their comm, processes' map sets shared by their
 * threads, dsos shared by every map of one file, kernel maps from the
 * kernel MMAP events. Names follow perf 6.1's `perf script`.
 *
 * Hot path: machine__resolve() finds the thread (last-hit, then a hash),
 * the map (binary search), then looks (dso, map-relative address) up in an
 * open-addressing cache; a hit allocates nothing.
 *
 * Per process: a new task costs a hash probe for its thread and one for
 * each dso it maps (by interned name, then build id), whatever the number
 * of processes and dsos seen before; a dso's symbols are loaded once, at
 * the first sample in it, and shared by every process that maps it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <elf.h>
#include <linux/perf_event.h>

#include "symbols.h"
#include "sym-internal.h"
#include "util.h"

#define KERNEL_MMAP_PREFIX "[kernel.kallsyms]"
#define NO_PID ((uint32_t)-1)
#define MACHINE_RECENT 16
/* callchain_hash()'s memo of naming states; a power of two. */
#define MACHINE_MIX_MEMO 4

enum dso_kind {
	DSO_ELF,	/* a file: ELF symbols, debug files by build id */
	DSO_VDSO,
	DSO_JIT,	/* /tmp/perf-PID.map */
	DSO_NOSYMS,	/* non-exec anon, heap, stack: no symbols ever */
	DSO_KERNEL,
	DSO_MODULE,
	DSO_KSECTION,	/* a vmlinux section other than .text */
	DSO_KSYMBOL,	/* a PERF_RECORD_KSYMBOL: JITed BPF, ... */
};

/* Where a dso stands with the loader (machine__load_dsos_ahead()). */
enum dso_ahead {
	AHEAD_NONE,	/* not queued, or taken back by dso_load() */
	AHEAD_QUEUED,
	AHEAD_LOADING,
	AHEAD_DONE,	/* own holds the loaded table */
};

struct dso {
	const char *name;	/* interned, as perf prints it */
	enum dso_kind kind;
	enum dso_ahead ahead;	/* under the loader's lock */
	struct dso *ahead_next;	/* the loader's queue */
	bool queued;		/* given to the loader (the caller's own) */
	uint8_t bid[BUILD_ID_MAX];
	uint8_t bid_size;
	bool loaded;
	bool stale;		/* the file has another build id */
	struct symtab own;	/* ELF and JIT symbols */
	const struct symtab *syms;
	struct dso *next;	/* all dsos, for cleanup */
	struct dso *next_name;	/* older dsos of the same name */
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
	bool identity;		/* anon memory: perf maps addresses 1:1 */
};

/*
 * Sorted, non-overlapping maps; shared copy-on-write by forked processes.
 * The version names the contents (machine__maps_version()): a new one at
 * every change, kept by every process sharing them, so that the children
 * of one shell, until they map something, share its callchains' names.
 */
struct map_vec {
	struct map *v;
	size_t nr, cap;
	int refcnt;
	uint64_t version;
};

/* A process's maps, shared by its threads. */
struct maps {
	struct map_vec *mv;
	int refcnt;
};

struct thread {
	uint32_t pid, tid;
	const char *comm;
	bool comm_set;
	struct maps *maps;
};

/* The symbol cache's value for a (dso, addr). */
struct cache_ent {
	const char *sym;	/* NULL: no symbol */
	uint64_t start;
	uint32_t id;		/* rs_frame.id */
};

/* A naming state (key0, user maps version, kernel version) and its mix. */
struct mix_memo {
	uint64_t key0;		/* ~0: empty (a key0 has bits 33-63 clear) */
	uint64_t uv0, v1;
	uint64_t mix, mix2;
};

struct bid_note {
	const char *name;	/* interned */
	uint8_t id[BUILD_ID_MAX];
	uint8_t size;
	bool sampled;		/* machine__sampled_file() */
	struct dso *ahead;	/* made for the loader before any MMAP */
	struct bid_note *next;
};

struct machine {
	struct strpool *sp;
	const char *s_unknown, *s_kernel;

	struct hashtab threads;		/* tid -> struct thread * */
	/*
	 * The threads found last, by tid: samples of a system-wide
	 * recording alternate between the CPUs' current tasks, which one
	 * "last" pointer missed every other time.
	 */
	struct thread *recent[MACHINE_RECENT];

	struct dso *dsos;
	struct hashtab dso_names;	/* name -> newest struct dso * */
	struct bid_note *bids;
	bool sampled_known;		/* machine__sampled_file() was told */
	/* Symbol files refused (machine__refused()): the first, how many. */
	const char *refused_name;	/* interned */
	int refused_err;
	uint64_t nr_refused;
	struct hashtab bid_names;	/* name -> struct bid_note * */

	/* Kernel. */
	struct ksyms ks;
	bool has_ksyms;
	struct dso kernel;
	bool kmap_set;			/* a kernel MMAP event was seen */
	uint64_t kstart, kend;
	bool kfixed;			/* the map spans the symbols now */
	const char *ref_name;		/* ref_reloc_sym, NULL if none */
	uint64_t ref_addr;
	bool kdelta_ok;
	uint64_t kdelta;		/* file address - runtime address */
	struct map *kmods;		/* module maps, sorted */
	size_t nr_kmods, kmods_cap;
	/* PERF_RECORD_KSYMBOL code (BPF programs...), sorted */
	struct map *ksmaps;
	size_t nr_ksmaps, ksmaps_cap;
	struct dso **ksec;		/* dsos of ks.secs[] (vmlinux) */
	/*
	 * The texts of kallsyms replaced by another load: their names were
	 * handed out, and stay valid until machine__delete().
	 */
	char **old_ktext;
	size_t nr_old_ktext, old_ktext_cap;

	struct hashtab cache;		/* (addr, dso) -> cache_ent */
	struct ksyms_prefetch *kpf;	/* machine__prefetch_kallsyms() */
	struct dso_loader *loader;	/* machine__load_dsos_ahead() */
	struct strpool *ahead_sp;	/* the names the loader interned */

	struct mix_memo mix_memo[MACHINE_MIX_MEMO];
	uint32_t last_frame_id;		/* rs_frame.id handed out last */
	uint64_t version;		/* last version handed out */
	uint64_t kversion;		/* the kernel maps' and symbols' */

	struct machine_stats stats;
};

/* ---- threads ---------------------------------------------------------- */

static void map_vec__put(struct map_vec *mv)
{
	if (mv && --mv->refcnt == 0) {
		free(mv->v);
		free(mv);
	}
}

static struct maps *maps__new(void)
{
	struct maps *ms = calloc(1, sizeof(*ms));

	if (!ms)
		return NULL;
	ms->mv = calloc(1, sizeof(*ms->mv));
	if (!ms->mv) {
		free(ms);
		return NULL;
	}
	ms->refcnt = 1;
	ms->mv->refcnt = 1;
	return ms;
}

static void maps__put(struct maps *ms)
{
	if (ms && --ms->refcnt == 0) {
		map_vec__put(ms->mv);
		free(ms);
	}
}

static struct thread *find_thread(struct machine *m, uint32_t tid)
{
	struct thread **th = hashtab__find(&m->threads, tid, 0);

	return th ? *th : NULL;
}

static const char *default_comm(struct machine *m, uint32_t tid)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), ":%d", (int)tid);

	return sym_intern(m->sp, buf, n);
}

static struct thread *findnew_thread(struct machine *m, uint32_t pid,
				     uint32_t tid);

/* A thread joins its leader's maps once its pid is known (perf does too). */
static int thread_set_pid(struct machine *m, struct thread *th, uint32_t pid)
{
	struct thread *leader;

	th->pid = pid;
	if (pid == th->tid || pid == NO_PID)
		return 0;
	leader = findnew_thread(m, pid, pid);
	if (!leader)
		return -ENOMEM;
	if (th->maps == leader->maps)
		return 0;
	maps__put(th->maps);
	th->maps = leader->maps;
	th->maps->refcnt++;
	return 0;
}

static struct thread *findnew_thread(struct machine *m, uint32_t pid,
				     uint32_t tid)
{
	struct thread **recent = &m->recent[tid % MACHINE_RECENT];
	struct thread *th, **slot;
	bool fresh;

	th = *recent;
	if (th && th->tid == tid && (th->pid == pid || pid == NO_PID))
		return th;
	th = find_thread(m, tid);
	if (th) {
		if (th->pid == NO_PID && pid != NO_PID &&
		    thread_set_pid(m, th, pid))
			return NULL;
		*recent = th;
		return th;
	}
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	th->pid = NO_PID;
	th->comm = default_comm(m, tid);
	th->maps = maps__new();
	if (!th->comm || !th->maps) {
		maps__put(th->maps);
		free(th);
		return NULL;
	}
	slot = hashtab__get(&m->threads, tid, 0, &fresh);
	if (!slot) {
		maps__put(th->maps);
		free(th);
		return NULL;
	}
	th->maps->mv->version = ++m->version;
	*slot = th;
	m->stats.threads++;
	if (pid != NO_PID && thread_set_pid(m, th, pid))
		return NULL;
	*recent = th;
	return th;
}

/* FORK onto an existing tid: perf drops the old thread first. */
static void remove_thread(struct machine *m, struct thread *th)
{
	hashtab__remove(&m->threads, hashtab__find(&m->threads, th->tid, 0));
	if (m->recent[th->tid % MACHINE_RECENT] == th)
		m->recent[th->tid % MACHINE_RECENT] = NULL;
	maps__put(th->maps);
	free(th);
}

/* ---- dsos ------------------------------------------------------------- */

static struct bid_note *find_bid(struct machine *m, const char *name)
{
	struct bid_note **b = hashtab__find(&m->bid_names, (uintptr_t)name,
					    0);

	return b ? *b : NULL;
}

int machine__add_build_id(struct machine *m, const char *filename,
			  const uint8_t *id, size_t size)
{
	const char *name;
	struct bid_note *b;

	if (!size || size > BUILD_ID_MAX)
		return -EINVAL;
	name = sym_intern(m->sp, filename, strlen(filename));
	if (!name)
		return -ENOMEM;
	b = find_bid(m, name);
	if (!b) {
		struct bid_note **slot;
		bool fresh;

		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		slot = hashtab__get(&m->bid_names, (uintptr_t)name, 0, &fresh);
		if (!slot) {
			free(b);
			return -ENOMEM;
		}
		*slot = b;
		b->name = name;
		b->next = m->bids;
		m->bids = b;
	}
	memcpy(b->id, id, size);
	b->size = size;
	return 0;
}

int machine__sampled_file(struct machine *m, const char *filename)
{
	const char *name;
	struct bid_note *b;

	if (filename[0] != '/')
		return -EINVAL;
	name = sym_intern(m->sp, filename, strlen(filename));
	if (!name)
		return -ENOMEM;
	b = find_bid(m, name);
	if (!b)
		return -ENOENT;
	b->sampled = true;
	m->sampled_known = true;
	return 0;
}

static struct dso *dso_new(const char *name, enum dso_kind kind,
			   const uint8_t *bid, size_t bid_size)
{
	struct dso *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->name = name;
	d->kind = kind;
	if (bid_size)
		memcpy(d->bid, bid, bid_size);
	d->bid_size = bid_size;
	d->syms = &d->own;
	return d;
}

/*
 * The dso that queue_sampled() made for the loader, for an MMAP that no
 * dso of its name matched: an ELF file with the noted build id.
 */
static struct dso *take_ahead(struct bid_note *note, enum dso_kind kind,
			      const uint8_t *bid, size_t bid_size)
{
	struct dso *d;

	if (!note || !note->ahead || kind != DSO_ELF ||
	    bid_size != note->size || memcmp(bid, note->id, bid_size))
		return NULL;
	d = note->ahead;
	note->ahead = NULL;
	return d;
}

static struct dso *findnew_dso(struct machine *m, const char *name,
			       enum dso_kind kind, const uint8_t *bid,
			       size_t bid_size)
{
	struct bid_note *note;
	struct dso *d, **slot;
	bool fresh, ahead;

	/* Names are interned: the dsos of one file are one probe away. */
	slot = hashtab__find(&m->dso_names, (uintptr_t)name, 0);
	for (d = slot ? *slot : NULL; d; d = d->next_name) {
		/* Either may be the other padded (sym_bid_equal()). */
		if (bid_size && d->bid_size &&
		    !sym_bid_equal(d->bid, d->bid_size, bid, bid_size) &&
		    !sym_bid_equal(bid, bid_size, d->bid, d->bid_size))
			continue;
		return d;
	}
	note = find_bid(m, name);
	/* No build id in the MMAP: the one the recording noted. */
	if (!bid_size && note) {
		bid = note->id;
		bid_size = note->size;
	}
	d = take_ahead(note, kind, bid, bid_size);
	ahead = d != NULL;
	if (!d)
		d = dso_new(name, kind, bid, bid_size);
	if (!d)
		return NULL;
	slot = hashtab__get(&m->dso_names, (uintptr_t)name, 0, &fresh);
	if (!slot) {
		if (ahead)
			note->ahead = d;
		else
			free(d);
		return NULL;
	}
	d->next_name = *slot;
	*slot = d;
	d->next = m->dsos;
	m->dsos = d;
	return d;
}

/*
 * The running process's vdso, copied: perf uses its own vdso image too.
 * A recording from another kernel had another vdso: when it gave one
 * build id for [vdso], elf__load_mem() takes only an image with that id.
 */
static int load_own_vdso(struct machine *m, struct dso *d)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	void *copy;
	int err;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || size > (1 << 24))
		return -ENOENT;
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, eh, size);
	err = elf__load_mem(&d->own, copy, size, d->bid, d->bid_size, m->sp);
	free(copy);
	return err;
}

/* The PID of a "/tmp/perf-PID.map" name (made in machine__mmap...()). */
static int jit_pid(const char *name)
{
	int pid;

	return sscanf(name, "/tmp/perf-%d.map", &pid) == 1 ? pid : -1;
}

/* A file that anyone could have planted, not read: for the note. */
static void note_refused(struct machine *m, const char *name, int err)
{
	if (err != -EINVAL && err != -ELOOP && err != -EPERM)
		return;
	if (!m->nr_refused++) {
		m->refused_name = name;
		m->refused_err = err;
	}
}

/*
 * The loader: a thread that reads the ELF symbols of each file as soon as
 * an MMAP event maps it, in the order they were mapped; or, when the
 * recording named the files its samples ran in (machine__sampled_file()),
 * those files from the start, and no other. It touches only
 * the queued dso's own table (which nothing reads before dso_load() has
 * taken it back from the loader), its name and build id, which never
 * change, and a string pool of its own: where symbols share an address,
 * loading interns names to choose one (symtab__finish_elf()), and the
 * machine's pool is the caller's. A table taken back interns into the
 * machine's pool from then on. A name may then be in both pools: names
 * are compared by their text, their pointers only key caches.
 */
struct dso_loader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;	/* queued, or stop */
	pthread_cond_t done;	/* a dso is loaded */
	struct dso *head, *tail;
	bool stop;
	struct strpool *sp;	/* kept in the tables, for symtab__name() */
	uint64_t nr_read;	/* files read: machine_stats.dsos_read_ahead */
};

static void *loader_main(void *arg)
{
	struct dso_loader *l = arg;
	struct dso *d;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->head && !l->stop)
			pthread_cond_wait(&l->work, &l->lock);
		if (l->stop)
			break;
		d = l->head;
		l->head = d->ahead_next;
		if (!l->head)
			l->tail = NULL;
		d->ahead = AHEAD_LOADING;
		pthread_mutex_unlock(&l->lock);
		elf__load_dso(&d->own, d->name, d->bid, d->bid_size, l->sp);
		pthread_mutex_lock(&l->lock);
		l->nr_read++;
		d->ahead = AHEAD_DONE;
		pthread_cond_broadcast(&l->done);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static void loader_stop(struct machine *m)
{
	struct dso_loader *l = m->loader;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_signal(&l->work);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->done);
	pthread_cond_destroy(&l->work);
	pthread_mutex_destroy(&l->lock);
	free(l);
	m->loader = NULL;
}

/* A file just mapped: its symbols are read ahead, if there is a loader. */
static void loader_queue(struct machine *m, struct dso *d)
{
	struct dso_loader *l = m->loader;

	if (!l || d->kind != DSO_ELF || d->loaded || d->queued)
		return;
	/*
	 * Told which files the samples ran in: the others wait for a
	 * lookup. perf 6.1 lists only the files of the samples' own
	 * addresses, not those met only further up a callchain: the main
	 * thread reads those itself (a few, on the compile recording).
	 * Queueing every file mapped, behind the listed ones, cost more:
	 * 7-9 ms of CPU and 1-4 ms of wall time on both recordings of
	 * scripts/bench-report-speed.sh.
	 */
	if (m->sampled_known) {
		const struct bid_note *b = find_bid(m, d->name);

		if (!b || !b->sampled)
			return;
	}
	d->queued = true;
	m->stats.dsos_queued++;
	pthread_mutex_lock(&l->lock);
	d->ahead = AHEAD_QUEUED;
	d->ahead_next = NULL;
	if (l->tail)
		l->tail->ahead_next = d;
	else
		l->head = d;
	l->tail = d;
	pthread_cond_signal(&l->work);
	pthread_mutex_unlock(&l->lock);
}

struct sampled_file {
	struct bid_note *note;
	off_t size;
	size_t seq;		/* in the recording's table */
};

static int sampled_file_cmp(const void *pa, const void *pb)
{
	const struct sampled_file *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * At most this many files are read ahead from the build id table: a
 * recording that lists more (a crafted one could list a hundred
 * thousand) has the biggest read ahead, and the others as their MMAP
 * events come.
 */
#define SAMPLED_AHEAD_MAX 1024

/*
 * The files the recording's samples ran in, queued as the loader starts,
 * before any MMAP event maps them (the events come in time order, and
 * the first sample's files used to be read as the main thread reached
 * it). The biggest first: the main thread takes a file still queued back
 * when it needs it (a small one costs it little), but waits for one the
 * loader is reading. Their dsos wait in the notes until an MMAP event of
 * the same file makes a dso (findnew_dso()).
 */
static void queue_sampled(struct machine *m)
{
	struct sampled_file *v;
	struct bid_note *b;
	size_t n = 0, i;
	struct stat st;

	for (b = m->bids; b; b = b->next)
		n += b->sampled && !b->ahead;
	v = n ? calloc(n, sizeof(*v)) : NULL;
	if (!v)
		return;
	/*
	 * The notes' list is in reverse: the table's order, restored. The
	 * biggest first, but a table longer than the cap is taken in its
	 * order, without a stat() of each name.
	 */
	for (b = m->bids, i = n; b; b = b->next) {
		if (!b->sampled || b->ahead)
			continue;
		i--;
		v[i].note = b;
		v[i].seq = i;
		/* Only an order: a file gone reads as empty, and fails later. */
		v[i].size = n > SAMPLED_AHEAD_MAX || stat(b->name, &st) ? 0 :
			    st.st_size;
	}
	qsort(v, n, sizeof(*v), sampled_file_cmp);
	for (i = 0; i < n && i < SAMPLED_AHEAD_MAX; i++) {
		b = v[i].note;
		b->ahead = dso_new(b->name, DSO_ELF, b->id, b->size);
		if (!b->ahead)
			break;
		loader_queue(m, b->ahead);
	}
	free(v);
}

int machine__load_dsos_ahead(struct machine *m)
{
	struct dso_loader *l;

	if (m->loader)
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (!m->ahead_sp)
		m->ahead_sp = strpool__new();
	if (!m->ahead_sp) {
		free(l);
		return -ENOMEM;
	}
	l->sp = m->ahead_sp;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->work, NULL);
	pthread_cond_init(&l->done, NULL);
	if (pthread_create(&l->thread, NULL, loader_main, l)) {
		pthread_cond_destroy(&l->done);
		pthread_cond_destroy(&l->work);
		pthread_mutex_destroy(&l->lock);
		free(l);
		return -EAGAIN;
	}
	m->loader = l;
	queue_sampled(m);
	return 0;
}

/*
 * Whether the loader has read d's symbols: waits while it reads them;
 * one still queued is taken off the queue (false: the caller reads it
 * now rather than wait for the files queued before it).
 */
static bool loader_take(struct machine *m, struct dso *d)
{
	struct dso_loader *l = m->loader;
	struct dso **pp;
	bool loaded;

	if (!l || !d->queued)
		return false;
	pthread_mutex_lock(&l->lock);
	if (d->ahead == AHEAD_QUEUED) {
		for (pp = &l->head; *pp != d; pp = &(*pp)->ahead_next)
			;
		*pp = d->ahead_next;
		if (l->tail == d) {
			struct dso *t = l->head;

			while (t && t->ahead_next)
				t = t->ahead_next;
			l->tail = t;
		}
		d->ahead = AHEAD_NONE;
	}
	while (d->ahead == AHEAD_LOADING)
		pthread_cond_wait(&l->done, &l->lock);
	loaded = d->ahead == AHEAD_DONE;
	pthread_mutex_unlock(&l->lock);
	/* The loader's pool is the loader's: names go to the machine's. */
	if (loaded && d->own.sp)
		d->own.sp = m->sp;
	return loaded;
}

static void dso_load(struct machine *m, struct dso *d)
{
	char path[4096];

	d->loaded = true;
	m->stats.dsos_loaded++;
	switch (d->kind) {
	case DSO_ELF:
		if (loader_take(m, d))
			m->stats.dsos_from_loader++;
		else
			elf__load_dso(&d->own, d->name, d->bid, d->bid_size,
				      m->sp);
		/*
		 * No image with the recorded build id (none in the build id
		 * cache either) and the file there now has another one: it
		 * was rebuilt since, and its symbols would name the wrong
		 * code. Say so, once, rather than let the frames just go
		 * unnamed.
		 */
		if (d->bid_size && !d->own.nr) {
			uint8_t got[BUILD_ID_MAX];
			int n = elf__read_build_id(d->name, got, sizeof(got));

			d->stale = n > 0 &&
				   !sym_bid_equal(d->bid, d->bid_size, got, n);
		}
		break;
	case DSO_JIT:
		note_refused(m, d->name, jitmap__load(&d->own, d->name,
						      jit_pid(d->name), m->sp));
		break;
	case DSO_VDSO:
		if (!elf__build_id_cache_path(path, sizeof(path), d->bid,
					      d->bid_size, "vdso") &&
		    !elf__load_dso(&d->own, path, d->bid, d->bid_size,
				   m->sp) && d->own.nr)
			break;
		load_own_vdso(m, d);
		break;
	default:
		break;
	}
}

/* ---- maps ------------------------------------------------------------- */

static struct map *maps__find(struct map *v, size_t nr, uint64_t addr)
{
	size_t lo = upper_bound_u64(v, nr, sizeof(*v),
				    offsetof(struct map, start), addr);

	if (lo && addr < v[lo - 1].end)
		return &v[lo - 1];
	return NULL;
}

static int maps__reserve(struct map **v, size_t *cap, size_t want)
{
	struct map *nv;
	size_t nc;

	if (want <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	while (nc < want)
		nc *= 2;
	nv = realloc(*v, nc * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

/*
 * Insert as perf's maps__fixup_overlappings() + insert: whatever the new
 * map covers is cut out of older maps, keeping their parts before and
 * after it.
 */
static int maps_insert(struct map **vp, size_t *nrp, size_t *capp,
		       const struct map *nm)
{
	size_t lo, hi, i, nr = *nrp, keep = 0;
	struct map before, after;
	bool has_before = false, has_after = false;
	struct map *v;

	if (maps__reserve(vp, capp, nr + 2))
		return -ENOMEM;
	v = *vp;
	/* Most new mappings land above the others: keep an MMAP storm O(n). */
	if (!nr || v[nr - 1].end <= nm->start) {
		v[nr] = *nm;
		*nrp = nr + 1;
		return 0;
	}
	/*
	 * First map that may overlap: the first ending above the new start
	 * (maps do not overlap, so their ends are sorted too).
	 */
	lo = 0;
	hi = nr;
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (v[i].end <= nm->start)
			lo = i + 1;
		else
			hi = i;
	}
	for (hi = lo; hi < nr && v[hi].start < nm->end; hi++) {
		if (v[hi].start < nm->start) {
			before = v[hi];
			before.end = nm->start;
			has_before = true;
		}
		if (v[hi].end > nm->end) {
			after = v[hi];
			after.pgoff += nm->end - v[hi].start;
			after.start = nm->end;
			has_after = true;
		}
	}
	/* Replace v[lo..hi) by [before] nm [after]. */
	keep = has_before + 1 + has_after;
	memmove(&v[lo + keep], &v[hi], (nr - hi) * sizeof(*v));
	i = lo;
	if (has_before)
		v[i++] = before;
	v[i++] = *nm;
	if (has_after)
		v[i++] = after;
	*nrp = nr - (hi - lo) + keep;
	return 0;
}

/* Before a process's maps change: a copy of its own if forks share them. */
static int maps__unshare(struct maps *ms)
{
	struct map_vec *mv = ms->mv, *nv;

	if (mv->refcnt == 1)
		return 0;
	nv = calloc(1, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	/* Room for the insert that follows (it may split a map). */
	if (maps__reserve(&nv->v, &nv->cap, mv->nr + 2)) {
		free(nv);
		return -ENOMEM;
	}
	if (mv->nr)
		memcpy(nv->v, mv->v, mv->nr * sizeof(*nv->v));
	nv->nr = mv->nr;
	nv->refcnt = 1;
	mv->refcnt--;
	ms->mv = nv;
	return 0;
}

/* ---- events ----------------------------------------------------------- */

static void cache_clear(struct machine *m)
{
	hashtab__clear(&m->cache);
}

static void kernel_update_delta(struct machine *m)
{
	uint64_t file_addr;

	m->kdelta = 0;
	m->kdelta_ok = m->has_ksyms;
	if (m->has_ksyms && m->ref_name) {
		/*
		 * Without the reference symbol perf gives up on kallsyms
		 * but reads a vmlinux unrelocated (its ref_reloc() is 0).
		 */
		if (ksyms__ref_addr(&m->ks, m->ref_name, &file_addr))
			m->kdelta_ok = m->ks.vmlinux;
		else
			m->kdelta = file_addr - m->ref_addr;
	}
	cache_clear(m);
}

/* "/lib/modules/.../nf_nat-foo.ko.xz" -> "[nf_nat_foo]", as perf names it. */
static const char *module_name(struct machine *m, const char *filename)
{
	const char *base = strrchr(filename, '/');
	char buf[256];
	size_t n, i;
	char *dot;

	if (filename[0] == '[')
		return sym_intern(m->sp, filename, strlen(filename));
	base = base ? base + 1 : filename;
	n = snprintf(buf, sizeof(buf), "[%s", base);
	if (n >= sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	buf[n] = '\0';
	dot = strstr(buf, ".ko");
	if (dot)
		*dot = '\0';
	for (i = 1; buf[i]; i++)
		if (buf[i] == '-')
			buf[i] = '_';
	n = strlen(buf);
	buf[n++] = ']';
	return sym_intern(m->sp, buf, n);
}

static int kernel_mmap(struct machine *m, const struct rs_mmap *mm)
{
	size_t plen = strlen(KERNEL_MMAP_PREFIX) - 1;
	struct map km;
	struct dso *d;
	const char *name;

	m->kversion = ++m->version;
	if (!strncmp(mm->filename, KERNEL_MMAP_PREFIX, plen)) {
		const char *ref = strchr(mm->filename, ']');

		m->kmap_set = true;
		m->kstart = mm->start;
		m->kend = mm->start + mm->len;
		if (!mm->start && !mm->len)
			m->kend = ~0ULL;
		/* pgoff 0 means kptr_restrict hid it: no relocation. */
		if (mm->pgoff) {
			ref = ref ? ref + 1 : "";
			m->ref_name = sym_intern(m->sp, ref, strlen(ref));
			if (!m->ref_name)
				return -ENOMEM;
			m->ref_addr = mm->pgoff;
		}
		kernel_update_delta(m);
		return 0;
	}
	if (mm->filename[0] != '/' && mm->filename[0] != '[')
		return 0;
	name = module_name(m, mm->filename);
	if (!name)
		return -ENOMEM;
	d = findnew_dso(m, name, DSO_MODULE, NULL, 0);
	if (!d)
		return -ENOMEM;
	d->loaded = true;
	d->syms = m->has_ksyms ? ksyms__module(&m->ks, name) : NULL;
	km = (struct map){ .start = mm->start, .end = mm->start + mm->len,
			   .dso = d, .identity = true };
	cache_clear(m);
	return maps_insert(&m->kmods, &m->nr_kmods, &m->kmods_cap, &km);
}

/*
 * PERF_RECORD_KSYMBOL as perf's machine__process_ksymbol() takes it. A
 * register gives [addr, addr + len) a kernel map and a dso of its own,
 * both named by the record (perf script prints such a frame as
 * "bpf_prog_<tag>_<name>+0x1c (bpf_prog_<tag>_<name>)"), with one symbol
 * of that name over the whole map; an unregister drops the map holding
 * addr. Records are taken in record order, so a sample names the program
 * that was there when it was taken.
 *
 * Where a register's addr already lies in a kernel map (an earlier
 * ksymbol not unregistered, a module, the kernel's text), perf adds the
 * symbol to that map's dso, at the map's start, behind the symbols it
 * has: for an earlier ksymbol it can never be found, and no kernel puts
 * one inside its text or a module. It is left out. Ksymbols that overlap
 * without that cut each other, the newest whole, as user maps do (perf
 * keeps both and finds either). A len of 0 covers nothing, and so does a
 * range past the end of the address space (perf's end wraps below its
 * start).
 */
static int ksymbol_event(struct machine *m, const struct rs_ksymbol *ks)
{
	uint64_t addr = ks->addr, end = addr + ks->len;
	struct map *km, nm;
	const char *name;
	struct dso *d;

	km = maps__find(m->ksmaps, m->nr_ksmaps, addr);
	if (ks->unregister) {
		if (!km)
			return 0;
		memmove(km, km + 1,
			(m->ksmaps + m->nr_ksmaps - (km + 1)) * sizeof(*km));
		m->nr_ksmaps--;
		m->kversion = ++m->version;
		return 0;
	}
	if (!ks->len || end < addr || km ||
	    maps__find(m->kmods, m->nr_kmods, addr) ||
	    (m->kmap_set && m->kend != ~0ULL && addr >= m->kstart &&
	     addr < m->kend))
		return 0;
	name = sym_intern(m->sp, ks->name, strlen(ks->name));
	d = name ? calloc(1, sizeof(*d)) : NULL;
	if (!d)
		return -ENOMEM;
	d->name = name;
	d->kind = DSO_KSYMBOL;
	d->loaded = true;
	d->syms = &d->own;
	/* Freed with the machine: the symbol cache keys on the dso. */
	d->next = m->dsos;
	m->dsos = d;
	if (symtab__push(&d->own, addr, end - addr, name, SYM_GLOBAL, false))
		return -ENOMEM;
	nm = (struct map){ .start = addr, .end = end, .dso = d,
			   .identity = true };
	m->kversion = ++m->version;
	return maps_insert(&m->ksmaps, &m->nr_ksmaps, &m->ksmaps_cap, &nm);
}

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int user_mmap(struct machine *m, const struct rs_mmap *mm)
{
	const char *fn = mm->filename;
	bool anon, no_dso, vdso;
	enum dso_kind kind = DSO_ELF;
	struct thread *th;
	struct map_vec *mv;
	struct dso *d;
	struct map nm;
	uint64_t pgoff = mm->pgoff;
	const char *name;
	char buf[32];

	th = findnew_thread(m, mm->pid, mm->tid);
	if (!th)
		return -ENOMEM;
	anon = !strcmp(fn, "//anon") || prefix(fn, "/dev/zero") ||
	       prefix(fn, "/anon_hugepage") || (mm->flags & MAP_HUGETLB);
	vdso = !strcmp(fn, "[vdso]") || !strcmp(fn, "[vdso32]") ||
	       !strcmp(fn, "[vdsox32]");
	no_dso = prefix(fn, "[stack") || prefix(fn, "/SYSV") ||
		 !strcmp(fn, "[heap]");
	if ((anon || no_dso) && (mm->prot & PROT_EXEC)) {
		/* JIT code: perf looks for the JIT's symbol map. */
		snprintf(buf, sizeof(buf), "/tmp/perf-%d.map",
			 (int)(th->pid != NO_PID ? th->pid : mm->pid));
		fn = buf;
		kind = DSO_JIT;
	} else if (anon || no_dso) {
		kind = DSO_NOSYMS;
	} else if (vdso) {
		kind = DSO_VDSO;
		pgoff = 0;
		fn = "[vdso]";
	}
	name = sym_intern(m->sp, fn, strlen(fn));
	if (!name)
		return -ENOMEM;
	d = findnew_dso(m, name, kind, mm->build_id, mm->build_id_size);
	if (!d)
		return -ENOMEM;
	if (kind == DSO_NOSYMS)
		d->loaded = true;
	loader_queue(m, d);
	nm = (struct map){ .start = mm->start, .end = mm->start + mm->len,
			   .pgoff = pgoff, .dso = d,
			   .identity = anon || no_dso };
	if (maps__unshare(th->maps))
		return -ENOMEM;
	mv = th->maps->mv;
	mv->version = ++m->version;
	return maps_insert(&mv->v, &mv->nr, &mv->cap, &nm);
}

static int do_fork(struct machine *m, const struct rs_task *t, uint16_t misc)
{
	struct thread *th, *parent;
	struct map_vec *pv, *mv;
	size_t i;

	parent = findnew_thread(m, t->ppid, t->ptid);
	if (!parent)
		return -ENOMEM;
	th = find_thread(m, t->tid);
	if (th) {
		if (th == parent)
			return 0;	/* broken record; perf complains too */
		remove_thread(m, th);
	}
	th = findnew_thread(m, t->pid, t->tid);
	if (!th)
		return -ENOMEM;
	if (parent->comm_set) {
		th->comm = parent->comm;
		th->comm_set = true;
	}
	if (th->pid == parent->pid || th->maps == parent->maps)
		return 0;
	/* Synthesized FORKs are followed by their own MMAPs: no copy. */
	if (misc & PERF_RECORD_MISC_FORK_EXEC)
		return 0;
	pv = parent->maps->mv;
	/*
	 * The child's maps are the parent's as they are now: share them, the
	 * first MMAP into either side copies (maps__unshare()). A fork is
	 * O(1), and a fork storm of a big process costs no memory.
	 */
	if (!th->maps->mv->nr) {
		map_vec__put(th->maps->mv);
		th->maps->mv = pv;
		pv->refcnt++;
		return 0;
	}
	/* The child joined a process that has maps already: merge. */
	if (maps__unshare(th->maps))
		return -ENOMEM;
	mv = th->maps->mv;
	mv->version = ++m->version;
	if (maps__reserve(&mv->v, &mv->cap, mv->nr + pv->nr))
		return -ENOMEM;
	for (i = 0; i < pv->nr; i++)
		if (maps_insert(&mv->v, &mv->nr, &mv->cap, &pv->v[i]))
			return -ENOMEM;
	return 0;
}

int machine__process_event(struct machine *m, const struct rs_event *ev)
{
	struct thread *th;
	const char *comm;
	uint16_t mode = ev->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;

	switch (ev->kind) {
	case RS_EV_COMM:
		th = findnew_thread(m, ev->comm.pid, ev->comm.tid);
		if (!th)
			return -ENOMEM;
		comm = sym_intern(m->sp, ev->comm.comm, strlen(ev->comm.comm));
		if (!comm)
			return -ENOMEM;
		th->comm = comm;
		th->comm_set = true;
		return 0;
	case RS_EV_FORK:
		return do_fork(m, &ev->task, ev->cpumode);
	case RS_EV_EXIT:
		/* perf keeps exited threads: later samples still name them. */
		return 0;
	case RS_EV_MMAP:
		if (!ev->mmap.filename)
			return 0;
		if (mode == PERF_RECORD_MISC_KERNEL ||
		    mode == PERF_RECORD_MISC_GUEST_KERNEL)
			return kernel_mmap(m, &ev->mmap);
		return user_mmap(m, &ev->mmap);
	case RS_EV_KSYMBOL:
		return ksymbol_event(m, &ev->ksymbol);
	default:
		return 0;
	}
}

const char *machine__comm(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *th = findnew_thread(m, pid, tid);

	return th ? th->comm : m->s_unknown;
}

/* ---- resolution ------------------------------------------------------- */

/* Symbol of (dso, addr in the dso's symbol space), cached. */
static int lookup(struct machine *m, struct dso *d, uint64_t addr,
		  const char **sym, uint64_t *start, uint32_t *id)
{
	const struct sym_entry *e;
	struct cache_ent *c;
	bool fresh;

	c = hashtab__find(&m->cache, addr, (uintptr_t)d);
	if (c) {
		m->stats.cache_hits++;
		*sym = c->sym;
		*start = c->start;
		*id = c->id;
		return 0;
	}
	if (!d->loaded)
		dso_load(m, d);
	e = d->syms ? symtab__find(d->syms, addr) : NULL;
	*sym = e ? e->name : NULL;
	/* Only ELF symbols, in the dso's own table, keep raw names. */
	if (e && e->raw != SYM_NAME) {
		*sym = symtab__name(&d->own, e);
		if (!*sym)
			return -ENOMEM;
	}
	*start = e ? e->start : 0;
	c = hashtab__get(&m->cache, addr, (uintptr_t)d, &fresh);
	if (!c)
		return -ENOMEM;
	/* Ids are never reused, not even after the cache is emptied. */
	*id = m->last_frame_id < UINT32_MAX ? ++m->last_frame_id : 0;
	*c = (struct cache_ent){ .sym = *sym, .start = *start, .id = *id };
	return 0;
}

static void set_unknown(struct machine *m, struct rs_frame *f, uint64_t addr,
			const char *dso)
{
	f->addr = addr;
	f->map_addr = addr;
	f->sym = m->s_unknown;
	f->sym_off = 0;
	f->dso = dso;
	f->known = false;
	f->id = 0;
}

/* addr (in the dso's symbol space) falls in sym, which starts at start. */
static void set_sym(struct rs_frame *f, const char *sym, uint64_t addr,
		    uint64_t start)
{
	if (sym) {
		f->sym = sym;
		f->sym_off = addr - start;
		f->known = true;
	}
}

/*
 * Loading a vmlinux, perf remaps the kernel map onto the image's .text and
 * gives each other section with symbols a map of its own: the extent of
 * the kernel MMAP event no longer counts, only its relocation.
 */
static int resolve_vmlinux(struct machine *m, uint64_t addr,
			   struct rs_frame *f)
{
	uint64_t a = addr + m->kdelta, start;
	struct dso *d = &m->kernel;
	const char *sym;
	int i, err;

	if (a < m->ks.text_start || a >= m->ks.text_end) {
		i = ksyms__section(&m->ks, a);
		if (i < 0) {
			set_unknown(m, f, addr, m->s_unknown);
			return 0;
		}
		d = m->ksec[i];
	}
	set_unknown(m, f, addr, d->name);
	err = lookup(m, d, a, &sym, &start, &f->id);
	if (err)
		return err;
	set_sym(f, sym, a, start);
	return 0;
}

static int resolve_kernel(struct machine *m, uint64_t addr,
			  struct rs_frame *f)
{
	uint64_t kstart = m->kstart, kend = m->kend, a;
	const char *sym;
	uint64_t start;
	struct map *km;
	int err;

	if (!m->kmap_set) {
		/* No kernel MMAP: the whole kernel half, from the symbols. */
		kstart = m->has_ksyms ? m->ks.first : 0;
		kend = ~0ULL;
	} else if (m->has_ksyms && !m->ks.vmlinux && m->ks.kernel.nr) {
		/*
		 * perf loads kallsyms at its first lookup inside the MMAP
		 * range (_text.._etext), then stretches the map over the
		 * symbols (map__fixup_start/end): init text past _etext
		 * (start_kernel) names too, but not before that first load.
		 */
		if (!m->kfixed && addr >= kstart && addr < kend) {
			m->kfixed = true;
			m->kversion = ++m->version;
		}
		if (m->kfixed) {
			kstart = m->ks.first - m->kdelta;
			kend = m->ks.kernel.v[m->ks.kernel.nr - 1].end -
			       m->kdelta;
		}
	}
	/* Most kernel frames lie outside every module: no search for them. */
	km = m->nr_kmods && addr >= m->kmods[0].start &&
	     addr < m->kmods[m->nr_kmods - 1].end ?
	     maps__find(m->kmods, m->nr_kmods, addr) : NULL;
	/* Then the BPF programs and other code that ksymbols named. */
	if (!km && m->nr_ksmaps && addr >= m->ksmaps[0].start &&
	    addr < m->ksmaps[m->nr_ksmaps - 1].end)
		km = maps__find(m->ksmaps, m->nr_ksmaps, addr);
	if (km) {
		set_unknown(m, f, addr, km->dso->name);
		err = lookup(m, km->dso, addr, &sym, &start, &f->id);
		goto found;
	}
	if (m->has_ksyms && m->ks.vmlinux)
		return resolve_vmlinux(m, addr, f);
	if (addr < kstart || addr >= kend) {
		set_unknown(m, f, addr, m->s_unknown);
		return 0;
	}
	set_unknown(m, f, addr, m->s_kernel);
	if (!m->kdelta_ok)
		return 0;
	a = addr + m->kdelta;
	err = lookup(m, &m->kernel, a, &sym, &start, &f->id);
	addr = a;
found:
	if (err)
		return err;
	set_sym(f, sym, addr, start);
	return 0;
}

/* A user frame in the maps of its thread. */
static int resolve_user(struct machine *m, const struct map_vec *mv,
			uint64_t addr, struct rs_frame *f)
{
	const char *sym;
	uint64_t start, a;
	struct map *mp;
	int err;

	set_unknown(m, f, addr, m->s_unknown);
	mp = maps__find(mv->v, mv->nr, addr);
	if (!mp)
		return 0;
	a = mp->identity ? addr : addr - mp->start + mp->pgoff;
	f->map_addr = a;
	f->dso = mp->dso->name;
	err = lookup(m, mp->dso, a, &sym, &start, &f->id);
	if (err)
		return err;
	set_sym(f, sym, a, start);
	return 0;
}

const char *machine__user_dso(struct machine *m, uint32_t pid, uint32_t tid,
			      uint64_t addr)
{
	struct thread *th = findnew_thread(m, pid, tid);
	struct map *mp;

	if (!th)
		return NULL;
	mp = maps__find(th->maps->mv->v, th->maps->mv->nr, addr);
	return mp ? mp->dso->name : NULL;
}

int machine__resolve(struct machine *m, uint32_t pid, uint32_t tid,
		     uint16_t cpumode, uint64_t addr, struct rs_frame *f)
{
	struct thread *th;

	m->stats.lookups++;
	cpumode &= PERF_RECORD_MISC_CPUMODE_MASK;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return resolve_kernel(m, addr, f);
	if (cpumode != PERF_RECORD_MISC_USER) {
		set_unknown(m, f, addr, m->s_unknown);
		return 0;	/* guests and hypervisor: perf has no map */
	}
	th = findnew_thread(m, pid, tid);
	if (!th)
		return -ENOMEM;
	return resolve_user(m, th->maps->mv, addr, f);
}

int machine__resolve_callchain(struct machine *m, uint32_t pid, uint32_t tid,
			       uint16_t cpumode, const uint64_t *chain,
			       uint64_t nr, struct rs_frame *frames,
			       uint32_t max)
{
	struct thread *th = NULL;
	uint32_t n = 0;
	uint64_t i;
	int err;

	/* perf starts a callchain walk in user mode whatever the sample. */
	(void)cpumode;
	cpumode = PERF_RECORD_MISC_USER;
	for (i = 0; i < nr && n < max; i++) {
		uint64_t ip = rs_u64(&chain[i]);

		if (ip >= PERF_CONTEXT_MAX) {
			switch (ip) {
			case PERF_CONTEXT_HV:
				cpumode = PERF_RECORD_MISC_HYPERVISOR;
				break;
			case PERF_CONTEXT_KERNEL:
				cpumode = PERF_RECORD_MISC_KERNEL;
				break;
			case PERF_CONTEXT_USER:
				cpumode = PERF_RECORD_MISC_USER;
				break;
			default:
				/* perf drops the whole chain here. */
				return 0;
			}
			continue;
		}
		/*
		 * A user frame: the thread is found once per chain (no
		 * event comes between the frames of one sample).
		 */
		if (cpumode == PERF_RECORD_MISC_USER) {
			m->stats.lookups++;
			if (!th && !(th = findnew_thread(m, pid, tid)))
				return -ENOMEM;
			err = resolve_user(m, th->maps->mv, ip, &frames[n]);
		} else {
			err = machine__resolve(m, pid, tid, cpumode, ip,
					       &frames[n]);
		}
		if (err)
			return err;
		n++;
	}
	return n;
}

/* ---- lifetime --------------------------------------------------------- */

struct machine *machine__new(void)
{
	struct machine *m = calloc(1, sizeof(*m));
	struct thread *idle;
	size_t i;

	if (!m)
		return NULL;
	for (i = 0; i < MACHINE_MIX_MEMO; i++)
		m->mix_memo[i].key0 = ~0ULL;
	hashtab__init(&m->threads, sizeof(struct thread *));
	hashtab__init(&m->dso_names, sizeof(struct dso *));
	hashtab__init(&m->bid_names, sizeof(struct bid_note *));
	hashtab__init(&m->cache, sizeof(struct cache_ent));
	m->sp = strpool__new();
	if (!m->sp)
		goto fail;
	m->s_unknown = sym_intern(m->sp, "[unknown]", 9);
	m->s_kernel = sym_intern(m->sp, "[kernel.kallsyms]", 17);
	if (!m->s_unknown || !m->s_kernel)
		goto fail;
	m->kernel.name = m->s_kernel;
	m->kernel.kind = DSO_KERNEL;
	m->kernel.loaded = true;
	m->kend = ~0ULL;
	/* perf registers the idle task before reading any event. */
	idle = findnew_thread(m, 0, 0);
	if (!idle)
		goto fail;
	idle->comm = sym_intern(m->sp, "swapper", 7);
	idle->comm_set = true;
	if (!idle->comm)
		goto fail;
	return m;
fail:
	machine__delete(m);
	return NULL;
}

static void drop_prefetch(struct machine *m);

void machine__delete(struct machine *m)
{
	struct bid_note *b, *bn;
	struct hashtab_slot *e;
	struct dso *d, *dn;
	size_t i;

	if (!m)
		return;
	drop_prefetch(m);
	/* Before the dsos go: the loader may be reading one. */
	loader_stop(m);
	hashtab__for_each(&m->threads, i, e) {
		struct thread *th;

		memcpy(&th, hashtab__val(&m->threads, e), sizeof(th));
		maps__put(th->maps);
		free(th);
	}
	hashtab__exit(&m->threads);
	for (d = m->dsos; d; d = dn) {
		dn = d->next;
		symtab__exit(&d->own);
		free(d);
	}
	hashtab__exit(&m->dso_names);
	for (b = m->bids; b; b = bn) {
		bn = b->next;
		/* Read ahead for an MMAP that never came. */
		if (b->ahead)
			symtab__exit(&b->ahead->own);
		free(b->ahead);
		free(b);
	}
	hashtab__exit(&m->bid_names);
	ksyms__exit(&m->ks);
	for (i = 0; i < m->nr_old_ktext; i++)
		free(m->old_ktext[i]);
	free(m->old_ktext);
	free(m->ksec);
	free(m->kmods);
	free(m->ksmaps);
	hashtab__exit(&m->cache);
	strpool__delete(m->sp);
	strpool__delete(m->ahead_sp);
	free(m);
}

/*
 * Make ks the kernel symbols, replacing the old ones: module and section
 * dsos are pointed at the new tables and the cache, which holds results
 * from the old ones, is emptied. On failure nothing changes.
 */
static int kernel_install(struct machine *m, struct ksyms *ks)
{
	struct dso **ksec = NULL;
	struct dso *d;
	size_t i;

	/* Room for the old text first, so that keeping it cannot fail. */
	if (m->ks.text_buf &&
	    grow_array((void **)&m->old_ktext, &m->old_ktext_cap,
		       m->nr_old_ktext + 1, sizeof(*m->old_ktext)))
		return -ENOMEM;
	m->kversion = ++m->version;
	m->kfixed = false;
	if (ks->nr_secs) {
		ksec = calloc(ks->nr_secs, sizeof(*ksec));
		if (!ksec)
			return -ENOMEM;
	}
	for (i = 0; i < ks->nr_secs; i++) {
		ksec[i] = findnew_dso(m, ks->secs[i].dso_name, DSO_KSECTION,
				      NULL, 0);
		if (!ksec[i]) {
			free(ksec);
			return -ENOMEM;
		}
	}
	/* Section dsos stay listed; only the new ones get symbols. */
	for (d = m->dsos; d; d = d->next)
		if (d->kind == DSO_KSECTION)
			d->syms = NULL;
	free(m->ksec);
	/* Names of the old kallsyms point into its text: keep it. */
	if (m->ks.text_buf) {
		m->old_ktext[m->nr_old_ktext++] = m->ks.text_buf;
		m->ks.text_buf = NULL;
	}
	ksyms__exit(&m->ks);
	m->ks = *ks;
	m->ksec = ksec;
	m->has_ksyms = true;
	m->kernel.syms = &m->ks.kernel;
	for (i = 0; i < m->ks.nr_secs; i++) {
		ksec[i]->syms = &m->ks.secs[i].syms;
		ksec[i]->loaded = true;
	}
	for (d = m->dsos; d; d = d->next)
		if (d->kind == DSO_MODULE)
			d->syms = ksyms__module(&m->ks, d->name);
	kernel_update_delta(m);
	return 0;
}

/*
 * Reading a kallsyms file touches nothing the machine holds (the names
 * stay in the file's text), so it can run beside the caller: parsing
 * 120k symbols is a few tens of milliseconds that a report otherwise
 * spends before its first sample. The caller, once it needs them, parses
 * a part itself rather than wait (take_prefetch()).
 */
struct ksyms_prefetch {
	pthread_t thread;
	char *path;		/* or NULL: text */
	const char *text;
	size_t len;
	struct ksyms ks;
	int err;
	/*
	 * The load while the caller may take a part (stage 1: the text
	 * read, 2: no part left to take), and the caller's help.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stage;
	struct ksyms_load *load;
	unsigned int helpers;
};

static void prefetch_stage(struct ksyms_prefetch *p, int stage)
{
	pthread_mutex_lock(&p->lock);
	p->stage = stage;
	pthread_cond_broadcast(&p->cond);
	/* No more helpers; those at work finish their part. */
	while (stage == 2 && p->helpers)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

static void *prefetch_kallsyms(void *arg)
{
	struct ksyms_prefetch *p = arg;
	struct ksyms_load *l;

	p->err = p->path ? ksyms__load_begin(&l, p->path) :
		 ksyms__load_begin_buf(&l, p->text, p->len);
	if (p->err) {
		prefetch_stage(p, 2);
		return NULL;
	}
	p->load = l;
	prefetch_stage(p, 1);
	while (ksyms__load_help(l))
		;
	prefetch_stage(p, 2);
	p->err = ksyms__load_end(l, &p->ks);
	return NULL;
}

int machine__prefetch_kallsyms(struct machine *m, const char *path,
			       const char *text, size_t len)
{
	struct ksyms_prefetch *p;

	if (m->kpf)
		return -EBUSY;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->text = text;
	p->len = len;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if ((path && !(p->path = strdup(path))) ||
	    pthread_create(&p->thread, NULL, prefetch_kallsyms, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p->path);
		free(p);
		return -EAGAIN;
	}
	m->kpf = p;
	return 0;
}

/*
 * The prefetched symbols when they are the ones asked for (*ks filled,
 * the read's result returned), else 1; asked for anything else, the
 * prefetch is dropped.
 */
static int take_prefetch(struct machine *m, const char *path,
			 const char *text, size_t len, struct ksyms *ks)
{
	struct ksyms_prefetch *p = m->kpf;
	struct ksyms_load *l;
	bool same;
	int err = 1;

	if (!p)
		return 1;
	m->kpf = NULL;
	same = path ? p->path && !strcmp(p->path, path) :
	       !p->path && p->text == text && p->len == len;
	/*
	 * The symbols asked for: once the text is read, a part of their
	 * parsing rather than a wait for all of it.
	 */
	pthread_mutex_lock(&p->lock);
	while (same && !p->stage)
		pthread_cond_wait(&p->cond, &p->lock);
	l = same && p->stage == 1 ? p->load : NULL;
	p->helpers += l != NULL;
	pthread_mutex_unlock(&p->lock);
	if (l) {
		ksyms__load_help(l);
		pthread_mutex_lock(&p->lock);
		p->helpers--;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	if (same) {
		err = p->err;
		if (!err)
			*ks = p->ks;
	} else if (!p->err) {
		ksyms__exit(&p->ks);
	}
	free(p->path);
	free(p);
	return err;
}

/* Wait for a prefetch nobody asked for, and free what it read. */
static void drop_prefetch(struct machine *m)
{
	struct ksyms ks;

	if (m->kpf && !take_prefetch(m, m->kpf->path, m->kpf->text,
				     m->kpf->len, &ks))
		ksyms__exit(&ks);
}

/* kernel_install(), or ks freed when that fails: a loader's last step. */
static int kernel_take(struct machine *m, struct ksyms *ks)
{
	int err = kernel_install(m, ks);

	if (err)
		ksyms__exit(ks);
	return err;
}

/* kallsyms from the file path, or from text when path is NULL. */
static int load_kallsyms(struct machine *m, const char *path,
			 const char *text, size_t len)
{
	struct ksyms ks;
	int err;

	err = take_prefetch(m, path, text, len, &ks);
	if (err > 0)
		err = path ? ksyms__load(&ks, path) :
			     ksyms__load_buf(&ks, text, len);
	if (err)
		return err;
	return kernel_take(m, &ks);
}

int machine__load_kallsyms(struct machine *m, const char *path)
{
	return load_kallsyms(m, path, NULL, 0);
}

int machine__load_kallsyms_buf(struct machine *m, const char *text,
			       size_t len)
{
	return load_kallsyms(m, NULL, text, len);
}

int machine__load_vmlinux(struct machine *m, const char *path)
{
	const struct bid_note *note = find_bid(m, m->s_kernel);
	struct ksyms ks;
	int err;

	/* perf keys the kernel's build id on "[kernel.kallsyms]". */
	err = ksyms__load_vmlinux(&ks, path, note ? note->id : NULL,
				  note ? note->size : 0, m->sp);
	if (err)
		return err;
	return kernel_take(m, &ks);
}

bool machine__has_kernel_symbols(const struct machine *m)
{
	return m->has_ksyms;
}

const char *machine__stale_dso(const struct machine *m, size_t i)
{
	const struct dso *d;

	for (d = m->dsos; d; d = d->next)
		if (d->stale && !i--)
			return d->name;
	return NULL;
}

void machine__stats(const struct machine *m, struct machine_stats *st)
{
	*st = m->stats;
	if (m->loader) {
		pthread_mutex_lock(&m->loader->lock);
		st->dsos_read_ahead = m->loader->nr_read;
		pthread_mutex_unlock(&m->loader->lock);
	}
}

uint64_t machine__refused(const struct machine *m, const char **name,
			  int *err)
{
	*name = m->refused_name;
	*err = m->refused_err;
	return m->nr_refused;
}

void machine__maps_version(struct machine *m, uint32_t pid, uint32_t tid,
			   uint64_t version[2])
{
	struct thread *th = findnew_thread(m, pid, tid);

	/* Without a thread (no memory), nothing may be taken as unchanged. */
	version[0] = th ? th->maps->mv->version : ++m->version;
	version[1] = m->kversion;
}

/*
 * The mix of a key's naming state, remembered: few states repeat from
 * sample to sample, and each costs four hash_u64().
 */
static void callchain_hash(const struct rs_sample *s, uint16_t tag,
			   const uint64_t version[2], struct mix_memo *memo,
			   uint64_t h[2])
{
	bool user = (s->cpumode & PERF_RECORD_MISC_CPUMODE_MASK) ==
		    PERF_RECORD_MISC_USER;
	uint64_t raw[2] = { s->ip, 0 }, key0, uv0, mix, mix2;
	struct mix_memo *e;

	if (s->nr_callchain) {
		/* Entries before the first marker take the sample's cpumode. */
		if (rs_u64(&s->callchain[0]) >= PERF_CONTEXT_MAX)
			user = false;
		if (s->has_chain_hash) {
			user = user || s->chain_has_user;
			raw[0] = s->chain_hash[0];
			raw[1] = s->chain_hash[1];
		} else {
			user = hash_words128_find(s->callchain,
						  s->nr_callchain,
						  PERF_CONTEXT_USER, raw) ||
			       user;
		}
	}
	/*
	 * What naming the frames depends on, mixed into the raw chain's
	 * hash (taken as the sample was read) rather than hashed again
	 * with it: a false match still needs both lanes to collide.
	 */
	key0 = s->cpumode | (uint64_t)tag << 16 |
	       (uint64_t)!s->nr_callchain << 32;
	uv0 = user ? version[0] : 0;
	e = &memo[(key0 ^ uv0 ^ version[1]) % MACHINE_MIX_MEMO];
	if (e->key0 == key0 && e->uv0 == uv0 && e->v1 == version[1]) {
		mix = e->mix;
		mix2 = e->mix2;
	} else {
		mix = hash_u64(key0 ^ hash_u64(uv0 ^ hash_u64(version[1])));
		mix2 = hash_u64(mix + 0x9e3779b97f4a7c15ULL);
		*e = (struct mix_memo){ key0, uv0, version[1], mix, mix2 };
	}
	h[0] = raw[0] ^ mix;
	h[1] = raw[1] + mix2;
}

void machine__callchain_hash(struct machine *m, const struct rs_sample *s,
			     uint16_t tag, uint64_t h[2])
{
	uint64_t version[2];

	machine__maps_version(m, s->pid, s->tid, version);
	callchain_hash(s, tag, version, m->mix_memo, h);
}

