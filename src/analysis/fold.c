// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks with the rules of FlameGraph's stackcollapse-perf.pl.
 *
 * The hot path never allocates per sample: a raw frame (sym, dso pointers,
 * plus the address only when a rule prints it) is processed once into a
 * short list of interned names and cached; a sample becomes an array of u32
 * name ids that is hashed once into an open-addressing table holding the
 * counts. Strings are joined only when the table is written.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "perf-script.h"
#include "symbols.h"
#include "util.h"

/* Kinds of keys, so that the two caches can never alias. */
enum {
	KEY_FRAME	= 1,
	KEY_PNAME_NUM	= 2,
	KEY_PNAME_TEXT	= 3,
};

/* Where a frame came from: a recording or perf script text. */
enum {
	FRAME_RECORDED	= 1,
	FRAME_TEXT	= 2,
};

/* One processed raw frame: n names at fc_ids[off]. */
struct frame_ent {
	uint32_t off, n;
};

/*
 * A distinct stack: its ids at st_ids[off], found by the 128-bit hash of
 * them. The ids are not compared again: they lie anywhere in megabytes,
 * and most new callchains fold onto a stack there already (fork-800k:
 * 559k onto 51k), each comparison a read of memory not in the cache. A
 * false match needs both 64-bit lanes to collide, as for callchains.
 */
struct stack_ent {
	uint64_t hash, hash2;
	uint64_t count;
	size_t off;		/* into st_ids */
	uint32_t len;
};

/*
 * fold__frame()'s memo of recorded frames without an id ("[unknown]" of
 * no map, anything named without its address): the frame_ent index of
 * (sym, dso, java), which fcache would give after hashing four words.
 */
#define FOLD_UMEMO 64

struct umemo_ent {
	const char *sym, *dso;
	uint32_t idx1;		/* frame_ent index + 1; 0: empty */
	bool java;
};

#define FOLD_MAX_SEEN 32
/* Direct-mapped front of pcache for recorded samples: a few busy tasks. */
#define FOLD_PFAST 1024

struct pfast_ent {
	const char *comm;	/* NULL: empty */
	uint32_t pid, tid;
	uint32_t id;
	bool java;		/* the name starts "java" */
};

/*
 * What the caller's thread asks of the stacks' side, in order: with
 * opts.jobs > 2 the stacks are built on a thread of their own (the
 * caller's thread names the frames of new callchains, this one turns
 * them into stacks), else at once. The same operations in the same
 * order either way, so the stacks are the same.
 */
enum {
	OP_BEGIN,	/* a new callchain: a = pname, java, b = count */
	OP_FRAMES,	/* a = n: the next n records are fold_frames */
	OP_END,		/* a = chain number + 1, 0: none */
	OP_COUNT,	/* a callchain seen before: a = number, b = count */
};

struct fold_op {
	uint8_t op;
	bool java;
	uint32_t a;
	uint64_t b;
};

/* A frame of fold__feed() on its way: the arguments of fold__frame_id(). */
struct fold_frame {
	uint32_t id;
	const char *sym, *dso;
	uint64_t addr;
};

/* A block holds operations, and the frames of fold__feed(). */
union fold_rec {
	struct fold_op op;
	struct fold_frame fr;
};

/* Records in a block of the fold's thread (64 KiB). */
#define FW_RECS		2048

struct fold {
	struct fold_opts opts;
	char *filter;		/* owned copy of opts.event_filter */
	const char *event;	/* kept event, interned in events */
	struct strpool *events;
	/* the distinct events seen, kept or not, for fold__events_seen() */
	const char *seen[FOLD_MAX_SEEN];
	unsigned int nr_seen;
	const char *last_seen;	/* the caller's pointer last counted */
	bool filter_hit;	/* a sample's event matched the filter */
	/*
	 * Process names, the first id of every stack: the caller's thread
	 * interns them, while the frames' names below may be made on the
	 * fold's own thread (worker_start()).
	 */
	struct strpool *pnames;
	char *pscratch;		/* a process name being built */
	size_t cap_pscratch;

	struct keymap *pcache;	/* (comm, pid, tid) -> pnames id */
	struct pfast_ent pfast[FOLD_PFAST];

	/* the sample being fed, on the caller's side */
	bool in_sample;
	bool java;
	bool begun;		/* its OP_BEGIN is out */
	bool direct;		/* a text sample: folded on this thread */
	uint32_t pname;
	uint64_t count;

	/*
	 * A callchain seen before: the 128-bit hash of (pname, key) -> its
	 * stack or, when the stacks are built on another thread, its
	 * number, which chain_stack there turns into its stack. Where most
	 * samples bring a new callchain (a process per read), the table is
	 * most of the memory the fold touches. A sample that repeats a
	 * callchain is counted on its stack; the stacks are few and hot
	 * (one per distinct folded line).
	 */
	struct chainmap chains;
	uint32_t nr_chain_ids;	/* chain numbers handed out */
	bool pending;		/* the open sample's key awaits its chain */
	uint64_t pending_h[2], pending_where;

	uint64_t nr_kept, nr_dropped;
	/* Kept samples whose event the filter matched by name, and whether
	 * the open sample is one: the rest (tracepoints) pass any filter. */
	uint64_t nr_kept_named;
	bool sample_named;

	/* opts.jobs > 2: the stacks are built on a thread of their own */
	struct workq *w;
	bool w_tried;
	/* whether w has the stacks' side now, and when it pays */
	struct offload off;
	bool chain_numbers;	/* the keys name chains, not stacks */

	/*
	 * The rest is the stacks' side: the caller's thread without a
	 * worker, else the worker's, fed in order by the fold_ops.
	 */
	struct strpool *names;	/* processed names; the id is the frame id */
	struct keymap *fcache;	/* (sym, dso, pc, flags) -> frame_ent index */
	struct umemo_ent umemo[FOLD_UMEMO];
	uint32_t *idmap;	/* fold__frame_id(): id -> frame_ent index + 1 */
	size_t nr_idmap;
	struct frame_ent *frames;
	size_t nr_frames, cap_frames;
	uint32_t *fc_ids;
	size_t nr_fc_ids, cap_fc_ids;

	/* the sample being folded */
	bool w_java;
	uint32_t w_pname;
	uint64_t w_count;
	uint32_t *groups;	/* frame_ent indexes, leaf first */
	size_t nr_groups, cap_groups;
	uint32_t *key;
	size_t cap_key;

	/* the stack table */
	struct stack_ent *stacks;
	size_t nr_stacks, cap_stacks;
	uint32_t *slots;	/* stack index + 1, 0 = empty */
	size_t nr_slots;
	uint32_t *st_ids;
	size_t nr_st_ids, cap_st_ids;
	uint32_t *chain_stack;	/* chain number -> stack index */
	size_t nr_chain_stack, cap_chain_stack;

	char *scratch;		/* name being built on a cache miss */
	size_t cap_scratch;
};

/*
 * The caches' four-word keys are kept as their 128-bit hash (util.h's
 * keymap): a false match needs both 64-bit lanes to collide.
 */
static int64_t kmap_get(const struct keymap *m, const uint64_t k[4])
{
	uint64_t h[2];
	uint32_t val;

	hash_words128(k, 4, h);
	return keymap__find(m, h, &val) ? (int64_t)val : -1;
}

static int kmap_put(struct keymap *m, const uint64_t k[4], uint32_t val)
{
	uint64_t h[2];

	hash_words128(k, 4, h);
	return keymap__set(m, h, val);
}

static void feed_begin(struct fold *f, uint32_t pname, bool java,
		       uint64_t count);
static int emit(struct fold *f, const struct fold_op *op);
static inline int emit_begin(struct fold *f);
static int queue_frames(struct fold *f, const struct fold_frame *fr,
			const struct rs_frame *rs, uint32_t n, bool no_dso);
static int worker_drain(struct fold *f);

/* The stacks' side is the worker's now (text samples never are). */
static inline bool to_worker(const struct fold *f)
{
	return f->off.active && !f->direct;
}

struct fold *fold__new(const struct fold_opts *opts)
{
	struct fold *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (opts)
		f->opts = *opts;
	if (f->opts.event_filter) {
		f->filter = strdup(f->opts.event_filter);
		if (!f->filter)
			goto err;
		f->opts.event_filter = f->filter;
	}
	f->events = strpool__new();
	f->names = strpool__new();
	f->pnames = strpool__new();
	f->nr_slots = 1024;
	f->slots = calloc(f->nr_slots, sizeof(*f->slots));
	if (!f->events || !f->names || !f->pnames || !f->slots ||
	    !(f->pcache = keymap__new()) || !(f->fcache = keymap__new()))
		goto err;
	return f;
err:
	fold__delete(f);
	return NULL;
}

void fold__delete(struct fold *f)
{
	if (!f)
		return;
	workq__delete(f->w);
	free(f->filter);
	strpool__delete(f->events);
	strpool__delete(f->names);
	strpool__delete(f->pnames);
	free(f->pscratch);
	free(f->chain_stack);
	keymap__delete(f->pcache);
	keymap__delete(f->fcache);
	free(f->idmap);
	free(f->frames);
	free(f->fc_ids);
	free(f->groups);
	free(f->key);
	free(f->stacks);
	free(f->slots);
	free(f->st_ids);
	chainmap__exit(&f->chains);
	free(f->scratch);
	free(f);
}

/* ---- building names on a cache miss ------------------------------------ */

/* A name built in *buf: the stacks' side's scratch, or the caller's. */
struct sbuf {
	char **buf;
	size_t *cap;
	size_t len;
	int err;
};

#define SBUF(f)		{ .buf = &(f)->scratch, .cap = &(f)->cap_scratch }
#define PSBUF(f)	{ .buf = &(f)->pscratch, .cap = &(f)->cap_pscratch }

static void sb_add(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->err)
		return;
	if (grow_array((void **)sb->buf, sb->cap, sb->len + n + 1, 1)) {
		sb->err = -ENOMEM;
		return;
	}
	memcpy(*sb->buf + sb->len, s, n);
	sb->len += n;
	(*sb->buf)[sb->len] = '\0';
}

static void sb_str(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

static int intern_sbuf(struct strpool *sp, const struct sbuf *sb)
{
	return strpool__intern(sp, *sb->buf ? *sb->buf : "", sb->len);
}

static bool has_substr(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* Perl: $mod =~ m:/tmp/perf-\d+\.map: (anywhere in the dso) */
static bool is_jit_dso(const char *dso)
{
	const char *p = dso;

	while ((p = strstr(p, "/tmp/perf-"))) {
		const char *q = p + 10;

		if (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			if (!strncmp(q, ".map", 4))
				return true;
		}
		p++;
	}
	return false;
}

/* Perl: $mod =~ m/(^\[|vmlinux$)/ && $mod !~ /unknown/ */
static bool is_kernel_dso(const char *dso)
{
	size_t n = strlen(dso);

	if (strstr(dso, "unknown"))
		return false;
	return dso[0] == '[' || (n >= 7 && !strcmp(dso + n - 7, "vmlinux"));
}

/* Perl: $func =~ m/\.\(.*\)\./, a Go method such as "net/http.(*Client).Do" */
static bool looks_like_go(const char *s, size_t n)
{
	const char *a = memmem(s, n, ".(", 2);
	size_t i;

	if (!a)
		return false;
	for (i = n; i >= 2; i--) {
		if (s[i - 2] == ')' && s[i - 1] == '.')
			return (size_t)(&s[i - 2] - a) >= 2;
	}
	return false;
}

/*
 * The per-name part of the rules, in the script's order: [unknown] -> dso
 * basename (or the address with --addrs), tidy generic (';' -> ':', cut at
 * the first '(' unless Go method or "(anonymous namespace)", drop quotes),
 * tidy java, then one of the _[i] / _[k] / _[j] annotations.
 */
static int process_name(struct fold *f, const char *s, size_t n,
			const char *dso, const char *pc, bool java, bool inl)
{
	struct sbuf sb = SBUF(f);
	char *t;
	size_t i, o, len;

	if (n == 9 && !memcmp(s, "[unknown]", 9)) {
		const char *base = "unknown";

		if (strcmp(dso, "[unknown]")) {
			base = strrchr(dso, '/');
			base = base ? base + 1 : dso;
		}
		sb_str(&sb, "[");
		sb_str(&sb, base);
		if (f->opts.addrs) {
			sb_str(&sb, " <");
			sb_str(&sb, pc);
			sb_str(&sb, ">");
		}
		sb_str(&sb, "]");
	} else {
		sb_add(&sb, s, n);
	}
	if (sb.err)
		return sb.err;
	t = f->scratch;
	len = sb.len;

	for (i = 0; i < len; i++)
		if (t[i] == ';')
			t[i] = ':';
	if (!looks_like_go(t, len)) {
		static const char anon[] = "anonymous namespace)";

		for (i = 0; i < len; i++) {
			if (t[i] != '(')
				continue;
			if (len - i - 1 >= sizeof(anon) - 1 &&
			    !memcmp(t + i + 1, anon, sizeof(anon) - 1))
				continue;
			len = i;
			break;
		}
	}
	for (i = o = 0; i < len; i++)
		if (t[i] != '"' && t[i] != '\'')
			t[o++] = t[i];
	len = o;
	if (java && len && t[0] == 'L' && memchr(t, '/', len)) {
		memmove(t, t + 1, len - 1);
		len--;
	}
	t[len] = '\0';
	sb.len = len;

	if (inl) {
		if (!has_substr(t, len, "_[i]"))
			sb_str(&sb, "_[i]");
	} else if (f->opts.kernel && is_kernel_dso(dso)) {
		sb_str(&sb, "_[k]");
	} else if (f->opts.jit && is_jit_dso(dso)) {
		if (!has_substr(t, len, "_[j]"))
			sb_str(&sb, "_[j]");
	}
	if (sb.err)
		return sb.err;
	return intern_sbuf(f->names, &sb);
}

/*
 * A raw frame: strip a trailing "+0x<hex>", skip names starting with '(',
 * split "a->b" inline chains (Perl split: trailing empty fields dropped),
 * then process each piece. Appends the ids to fc_ids.
 */
static int process_frame(struct fold *f, const char *sym, const char *dso,
			 const char *pc, bool java, struct frame_ent *fe)
{
	size_t n = strlen(sym), start, end, nf = 0;
	const char *plus = memrchr(sym, '+', n);
	int id;

	fe->off = f->nr_fc_ids;
	fe->n = 0;
	if (plus && n - (plus - sym) > 3 && !strncmp(plus, "+0x", 3)) {
		const char *h = plus + 3;

		while (*h && ((*h >= '0' && *h <= '9') ||
			      (*h >= 'a' && *h <= 'f')))
			h++;
		if (!*h)
			n = plus - sym;
	}
	if (n && sym[0] == '(')
		return 0;

	/* Field count without trailing empty fields. */
	for (end = n; end >= 2 && sym[end - 2] == '-' && sym[end - 1] == '>';)
		end -= 2;
	if (!end)
		return 0;
	for (start = 0; start <= end; nf++) {
		const char *arrow = memmem(sym + start, end - start, "->", 2);
		size_t stop = arrow ? (size_t)(arrow - sym) : end;

		id = process_name(f, sym + start, stop - start, dso, pc, java,
				  nf > 0);
		if (id < 0)
			return id;
		if (grow_array((void **)&f->fc_ids, &f->cap_fc_ids,
			 f->nr_fc_ids + 1, sizeof(*f->fc_ids)))
			return -ENOMEM;
		f->fc_ids[f->nr_fc_ids++] = id;
		fe->n++;
		if (!arrow)
			break;
		start = stop + 2;
	}
	return 0;
}

/* ---- samples ----------------------------------------------------------- */

const char *fold__event(const struct fold *f)
{
	return f->event;
}

/* Modifier letters perf accepts after an event name (perf list). */
static const char event_modifiers[] = "ukhIGHpPSDWeb";

bool fold__event_match(const char *event, const char *name)
{
	size_t len = strlen(name);

	if (!strcmp(event, name))
		return true;
	/* "cpu-clock" names "cpu-clock:pppH", "cycles" names "cycles:u". */
	return !strncmp(event, name, len) && event[len] == ':' &&
	       event[len + 1] &&
	       strspn(event + len + 1, event_modifiers) ==
	       strlen(event + len + 1);
}

int fold__event_seen(struct fold *f, const char *event)
{
	unsigned int i;
	int id;

	/*
	 * Callers pass interned names: a run of samples of one event costs
	 * one pointer compare, not a scan of the names seen.
	 */
	if (event == f->last_seen)
		return 0;
	f->last_seen = event;
	if (f->filter && fold__event_match(event, f->filter))
		f->filter_hit = true;
	for (i = 0; i < f->nr_seen; i++)
		if (!strcmp(f->seen[i], event))
			return 0;
	if (f->nr_seen == FOLD_MAX_SEEN)
		return 0;
	id = strpool__intern(f->events, event, strlen(event));
	if (id < 0)
		return id;
	f->seen[f->nr_seen++] = strpool__str(f->events, id);
	return 0;
}

bool fold__filter_hit(const struct fold *f)
{
	return f->filter_hit;
}

unsigned int fold__events_seen(const struct fold *f, const char **names,
			       unsigned int max)
{
	unsigned int i;

	for (i = 0; i < f->nr_seen && i < max; i++)
		names[i] = f->seen[i];
	return f->nr_seen;
}

int fold__event_keep(struct fold *f, const char *event)
{
	int id, err;

	if (!event)
		return 1;
	if (f->event)
		goto compare;
	if (f->filter) {
		id = strpool__intern(f->events, f->filter, strlen(f->filter));
	} else {
		/* By default the first event seen is the one kept. */
		id = strpool__intern(f->events, event, strlen(event));
	}
	if (id < 0)
		return id;
	f->event = strpool__str(f->events, id);
compare:
	if (event == f->event || !strcmp(event, f->event) ||
	    (f->filter && fold__event_match(event, f->filter))) {
		err = fold__event_seen(f, event);
		if (err)
			return err;
		f->sample_named = true;
		return 1;
	}
	err = fold__event_seen(f, event);
	if (err)
		return err;
	f->nr_dropped++;
	return 0;
}

static bool is_java(const char *pname)
{
	return !strncmp(pname, "java", 4);
}

/* The caller's side of a new sample; its stack's side starts with OP_BEGIN. */
static int start_sample(struct fold *f, uint32_t pname_id, bool java,
			uint64_t period, bool has_period)
{
	f->in_sample = true;
	f->begun = false;
	f->direct = false;
	f->pending = false;
	f->pname = pname_id;
	f->java = java;
	f->count = f->opts.samples || !has_period ? 1 : period;
	return 1;
}

static int pname_build(struct fold *f, const char *comm, const char *pid,
		       const char *tid)
{
	struct sbuf sb = PSBUF(f);
	size_t i;

	sb_str(&sb, comm);
	if (f->opts.tid || f->opts.pid) {
		sb_str(&sb, "-");
		sb_str(&sb, pid ? pid : "?");
		if (f->opts.tid) {
			sb_str(&sb, "/");
			sb_str(&sb, tid);
		}
	}
	if (sb.err)
		return sb.err;
	for (i = 0; i < sb.len; i++)
		if (f->pscratch[i] == ' ')
			f->pscratch[i] = '_';
	return intern_sbuf(f->pnames, &sb);
}

int fold__begin(struct fold *f, const char *event, const char *comm,
		uint32_t pid, uint32_t tid, uint64_t period, bool has_period)
{
	uint64_t k[4] = { (uintptr_t)comm, pid, tid, KEY_PNAME_NUM };
	struct pfast_ent *pf;
	int64_t id;
	int ret;

	f->in_sample = false;
	ret = fold__event_keep(f, event);
	if (ret <= 0)
		return ret;
	if (!comm)
		comm = "";
	k[0] = (uintptr_t)comm;
	/*
	 * Without --pid and --tid the name is the comm's alone: one entry
	 * for all the processes of one program, not one built per thread.
	 */
	if (!f->opts.pid && !f->opts.tid)
		k[1] = k[2] = 0;
	pf = &f->pfast[hash_u64((uint64_t)pid << 32 | tid) % FOLD_PFAST];
	if (pf->comm == comm && pf->pid == pid && pf->tid == tid)
		return start_sample(f, pf->id, pf->java, period, has_period);
	id = kmap_get(f->pcache, k);
	if (id < 0) {
		char pbuf[16], tbuf[16] = "";
		const char *ps = NULL;

		/*
		 * Mirror what the script makes of perf script's "comm
		 * PID/TID" or "comm TID": a TID of 0 reads as absent.
		 */
		if (!f->opts.pid && !f->opts.tid) {
			/* No number in the name. */
		} else if (pid != UINT32_MAX && tid != 0) {
			snprintf(pbuf, sizeof(pbuf), "%" PRIu32, pid);
			ps = pbuf;
			snprintf(tbuf, sizeof(tbuf), "%" PRIu32, tid);
		} else if (pid != UINT32_MAX) {
			snprintf(tbuf, sizeof(tbuf), "%" PRIu32, pid);
		} else {
			snprintf(tbuf, sizeof(tbuf), "%" PRIu32, tid);
		}
		ret = pname_build(f, comm, ps, tbuf);
		if (ret < 0 || (ret = kmap_put(f->pcache, k, ret)) < 0)
			return ret;
		id = kmap_get(f->pcache, k);
	}
	*pf = (struct pfast_ent){ comm, pid, tid, id,
				  is_java(strpool__str(f->pnames, id)) };
	return start_sample(f, id, pf->java, period, has_period);
}

int fold__begin_text(struct fold *f, const char *comm, const char *pid,
		     const char *tid, uint64_t period, bool has_period)
{
	uint64_t k[4] = { (uintptr_t)comm, (uintptr_t)pid, (uintptr_t)tid,
			  KEY_PNAME_TEXT };
	size_t nr_groups;
	int64_t id;
	int ret;

	/*
	 * Text is folded on this thread: first the worker (a recording's
	 * exiting tasks come this way) folds what it was given.
	 */
	ret = worker_drain(f);
	if (ret)
		return ret;
	nr_groups = f->in_sample ? f->nr_groups : 0;
	id = kmap_get(f->pcache, k);
	if (id < 0) {
		ret = pname_build(f, comm, pid, tid);
		if (ret < 0 || (ret = kmap_put(f->pcache, k, ret)) < 0)
			return ret;
		id = kmap_get(f->pcache, k);
	}
	ret = start_sample(f, id, is_java(strpool__str(f->pnames, id)), period,
			   has_period);
	f->direct = true;
	f->begun = true;
	feed_begin(f, f->pname, f->java, f->count);
	/*
	 * The script keeps the frames read so far when a second header
	 * comes before the blank line: only the process name and the period
	 * change.
	 */
	f->nr_groups = nr_groups;
	return ret;
}

void fold__cancel(struct fold *f)
{
	f->in_sample = false;
	f->sample_named = false;
	f->pending = false;
}

/*
 * A recorded frame whose printed line ("addr sym (dso)", or "addr sym"
 * where perf prints no dso) would not split back into this sym and dso:
 * a dso with blanks or parentheses ("/memfd:x (deleted)"), a name with
 * parentheses, or no dso at all.
 */
static bool resplit_needed(const char *sym, const char *dso)
{
	return !dso || strpbrk(sym, "()") || strpbrk(dso, " ()");
}

/*
 * Build the line perf script prints for a recorded frame and let the
 * script's frame regex split it, so that the recorded path names the
 * frame as `perf script | stackcollapse-perf.pl` would. The symbol offset
 * is left out: the regex never splits inside it and the rules strip it.
 */
static int process_printed(struct fold *f, const char *sym, const char *dso,
			   const char *pc, struct frame_ent *fe)
{
	struct perf_script_frame fr;
	struct sbuf sb = SBUF(f);
	char *line, *s, *d;
	int ret;

	fe->off = f->nr_fc_ids;
	fe->n = 0;
	sb_str(&sb, "0 ");
	sb_str(&sb, sym);
	if (dso) {
		sb_str(&sb, " (");
		sb_str(&sb, dso);
		sb_str(&sb, ")");
	}
	if (sb.err)
		return sb.err;
	/* No frame for the script: the line is skipped. */
	if (!perf_script__split_frame(f->scratch, sb.len, &fr))
		return 0;
	line = strndup(f->scratch, sb.len);
	if (!line)
		return -ENOMEM;
	s = line + fr.sym_off;
	s[fr.sym_len] = '\0';
	d = line + fr.dso_off;
	d[fr.dso_len] = '\0';
	ret = process_frame(f, s, d, pc, f->w_java, fe);
	free(line);
	return ret;
}

static int push_group(struct fold *f, uint32_t idx)
{
	/* Once per frame of every new callchain: no call while there is room. */
	if (f->nr_groups == f->cap_groups &&
	    grow_array((void **)&f->groups, &f->cap_groups, f->nr_groups + 1,
		 sizeof(*f->groups)))
		return -ENOMEM;
	f->groups[f->nr_groups++] = idx;
	return 0;
}

static int add_frame(struct fold *f, const char *sym, const char *dso,
		     uint64_t pckey, uint32_t flags, const char *pc)
{
	uint64_t k[4] = { (uintptr_t)sym, (uintptr_t)dso, pckey,
			  KEY_FRAME | flags << 8 | (uint64_t)f->w_java << 16 };
	int64_t idx = kmap_get(f->fcache, k);
	int ret;

	if (idx < 0) {
		struct frame_ent fe;

		if (grow_array((void **)&f->frames, &f->cap_frames,
			 f->nr_frames + 1, sizeof(*f->frames)))
			return -ENOMEM;
		if (flags == FRAME_RECORDED && resplit_needed(sym, dso))
			ret = process_printed(f, sym, dso, pc, &fe);
		else
			ret = process_frame(f, sym, dso ? dso : "[unknown]",
					    pc, f->w_java, &fe);
		if (ret < 0)
			return ret;
		idx = f->nr_frames;
		f->frames[f->nr_frames++] = fe;
		ret = kmap_put(f->fcache, k, idx);
		if (ret < 0)
			return ret;
	}
	return push_group(f, idx);
}

/* A recorded frame, on the stacks' side (fold__frame()). */
static int feed_frame(struct fold *f, const char *sym, const char *dso,
		      uint64_t addr)
{
	struct umemo_ent *um;
	char pc[24];
	bool need_pc;
	int ret;

	if (!sym)
		sym = "[unknown]";
	/* The address matters only where the rules print it. */
	need_pc = f->opts.addrs && strstr(sym, "[unknown]");
	pc[0] = '\0';
	if (need_pc) {
		snprintf(pc, sizeof(pc), "%" PRIx64, addr);
		return add_frame(f, sym, dso, addr, FRAME_RECORDED, pc);
	}
	um = &f->umemo[(((uintptr_t)sym >> 3) ^ ((uintptr_t)dso >> 5)) %
		       FOLD_UMEMO];
	if (um->idx1 && um->sym == sym && um->dso == dso &&
	    um->java == f->w_java)
		return push_group(f, um->idx1 - 1);
	ret = add_frame(f, sym, dso, 0, FRAME_RECORDED, pc);
	if (!ret)
		*um = (struct umemo_ent){ sym, dso,
					  f->groups[f->nr_groups - 1] + 1,
					  f->w_java };
	return ret;
}

/* fold__frame_id() on the stacks' side. */
static int feed_frame_id(struct fold *f, uint32_t id, const char *sym,
			 const char *dso, uint64_t addr)
{
	size_t cap;
	int ret;

	/* Java processes name the same frame differently. */
	if (!id || f->w_java)
		return feed_frame(f, sym, dso, addr);
	if (id < f->nr_idmap && f->idmap[id])
		return push_group(f, f->idmap[id] - 1);
	ret = feed_frame(f, sym, dso, addr);
	if (ret)
		return ret;
	if (id >= f->nr_idmap) {
		cap = f->nr_idmap;
		if (grow_array((void **)&f->idmap, &cap, (size_t)id + 1,
			 sizeof(*f->idmap)))
			return -ENOMEM;
		memset(f->idmap + f->nr_idmap, 0,
		       (cap - f->nr_idmap) * sizeof(*f->idmap));
		f->nr_idmap = cap;
	}
	f->idmap[id] = f->groups[f->nr_groups - 1] + 1;
	return 0;
}

int fold__frame(struct fold *f, const char *sym, const char *dso,
		uint64_t addr)
{
	if (!f->in_sample)
		return 0;
	return fold__frame_id(f, 0, sym, dso, addr);
}

int fold__frame_id(struct fold *f, uint32_t id, const char *sym,
		   const char *dso, uint64_t addr)
{
	struct fold_frame fr = { id, sym, dso, addr };
	int ret;

	if (!f->in_sample)
		return 0;
	ret = emit_begin(f);
	if (ret)
		return ret;
	if (to_worker(f))
		return queue_frames(f, &fr, NULL, 1, false);
	return feed_frame_id(f, id, sym, dso, addr);
}

int fold__frame_text(struct fold *f, const char *sym, const char *dso,
		     const char *pc)
{
	bool need_pc;

	if (!f->in_sample)
		return 0;
	/* Text is folded on this thread, begun (fold__begin_text()). */
	if (!f->direct)
		return -EINVAL;
	need_pc = f->opts.addrs && pc && strstr(sym, "[unknown]");
	return add_frame(f, sym, dso, need_pc ? (uintptr_t)pc : 0, FRAME_TEXT,
			 need_pc ? pc : "");
}

static int stack_insert(struct fold *f, const uint32_t *key, uint32_t len,
			uint64_t count, uint32_t *index)
{
	size_t mask = f->nr_slots - 1, j;
	struct stack_ent *s;
	struct hash128 hs;
	uint64_t hh[2], h;
	uint32_t i;

	hash128__init(&hs, len);
	for (i = 0; i + 1 < len; i += 2)
		hash128__add(&hs, key[i] | (uint64_t)key[i + 1] << 32);
	if (i < len)
		hash128__add(&hs, key[i]);
	hash128__end(&hs, hh);
	h = hh[0];
	for (j = h & mask; f->slots[j]; j = (j + 1) & mask) {
		s = &f->stacks[f->slots[j] - 1];
		if (s->hash == h && s->hash2 == hh[1] && s->len == len) {
			s->count += count;
			*index = f->slots[j] - 1;
			return 0;
		}
	}
	if (f->nr_stacks >= UINT32_MAX - 1)
		return -ENOMEM;
	if (grow_array((void **)&f->stacks, &f->cap_stacks, f->nr_stacks + 1,
		 sizeof(*f->stacks)) ||
	    grow_array((void **)&f->st_ids, &f->cap_st_ids, f->nr_st_ids + len,
		 sizeof(*f->st_ids)))
		return -ENOMEM;
	s = &f->stacks[f->nr_stacks];
	s->hash = h;
	s->hash2 = hh[1];
	s->count = count;
	s->off = f->nr_st_ids;
	s->len = len;
	memcpy(f->st_ids + f->nr_st_ids, key, len * sizeof(*key));
	f->nr_st_ids += len;
	f->slots[j] = ++f->nr_stacks;
	*index = f->nr_stacks - 1;

	if (f->nr_stacks * 2 > f->nr_slots) {
		size_t n = f->nr_slots * 2, i;
		uint32_t *slots = calloc_table(n, sizeof(*slots));

		if (!slots)
			return 0;	/* still room: retry on the next one */
		for (i = 0; i < f->nr_stacks; i++) {
			for (j = f->stacks[i].hash & (n - 1); slots[j];
			     j = (j + 1) & (n - 1))
				;
			slots[j] = i + 1;
		}
		free(f->slots);
		f->slots = slots;
		f->nr_slots = n;
	}
	return 0;
}

void fold__prefetch(const struct fold *f, uint64_t where)
{
	chainmap__prefetch(&f->chains, where);
}

/* 1 when the key now names val, 0 when it is left out, -ENOMEM. */
static int chain_insert(struct fold *f, const uint64_t h[2], uint64_t where,
			uint32_t val)
{
	/* Most callchains new for now: grown four times over. */
	return chainmap__insert(&f->chains, h, where, val,
				f->w && f->off.fresh_on);
}

/* ---- the stacks' side --------------------------------------------------- */

static void feed_begin(struct fold *f, uint32_t pname, bool java,
		       uint64_t count)
{
	f->w_pname = pname;
	f->w_java = java;
	f->w_count = count;
	f->nr_groups = 0;
}

/* The sample's stack from its frames, counted: its index in *stack. */
static int feed_stack(struct fold *f, uint32_t *stack)
{
	size_t len = 1, i, g;

	for (g = 0; g < f->nr_groups; g++)
		len += f->frames[f->groups[g]].n;
	if (len > UINT32_MAX)
		return -E2BIG;
	if (grow_array((void **)&f->key, &f->cap_key, len, sizeof(*f->key)))
		return -ENOMEM;
	/* Root first: the last raw frame's pieces come first, in order. */
	f->key[0] = f->w_pname;
	i = 1;
	for (g = f->nr_groups; g-- > 0;) {
		const struct frame_ent *fe = &f->frames[f->groups[g]];

		/* Skipped frames ("(...)" names) have no pieces. */
		if (!fe->n)
			continue;
		if (fe->n == 1) {	/* most: no memcpy() call */
			f->key[i++] = f->fc_ids[fe->off];
			continue;
		}
		memcpy(f->key + i, f->fc_ids + fe->off,
		       fe->n * sizeof(*f->key));
		i += fe->n;
	}
	return stack_insert(f, f->key, len, f->w_count, stack);
}

/* feed_stack(); chain1: the number the chain gets + 1, 0: none. */
static int feed_end(struct fold *f, uint32_t chain1)
{
	uint32_t stack;
	int ret;

	ret = feed_stack(f, &stack);
	if (ret < 0 || !chain1)
		return ret;
	/* Chains are numbered in the order their stacks are made. */
	if (chain1 - 1 != f->nr_chain_stack)
		return -EINVAL;
	if (grow_array((void **)&f->chain_stack, &f->cap_chain_stack,
		       f->nr_chain_stack + 1, sizeof(*f->chain_stack)))
		return -ENOMEM;
	f->chain_stack[f->nr_chain_stack++] = stack;
	return 0;
}

/* The operation at rec, and the frames after it: how many records it took. */
static int run_op(struct fold *f, const union fold_rec *rec, uint32_t *nr)
{
	const struct fold_op *op = &rec->op;
	uint32_t i;
	int ret;

	*nr = 1;
	switch (op->op) {
	case OP_BEGIN:
		feed_begin(f, op->a, op->java, op->b);
		return 0;
	case OP_FRAMES:
		*nr += op->a;
		for (i = 1; i <= op->a; i++) {
			ret = feed_frame_id(f, rec[i].fr.id, rec[i].fr.sym,
					    rec[i].fr.dso, rec[i].fr.addr);
			if (ret)
				return ret;
		}
		return 0;
	case OP_END:
		return feed_end(f, op->a);
	case OP_COUNT:
		if (op->a >= f->nr_chain_stack)
			return -EINVAL;
		f->stacks[f->chain_stack[op->a]].count += op->b;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The fold's thread: a block of records, in order. */
static int run_block(void *arg, void *recs, uint32_t nr)
{
	const union fold_rec *rec = recs;
	uint32_t i, took;
	int err = 0;

	for (i = 0; i < nr && !err; i += took)
		err = run_op(arg, &rec[i], &took);
	return err;
}

/*
 * The stacks' side is w's, from now on and while it pays (f->off). The
 * keys are then chain numbers, whoever has the stacks' side, so that
 * the stacks come out the same whatever the turns.
 */
static void worker_use(struct fold *f, struct workq *w, bool watch_cpu)
{
	f->w_tried = true;
	f->w = w;
	f->chain_numbers = w != NULL;
	offload__init(&f->off, w != NULL, watch_cpu);
}

/* With opts.jobs > 2, the thread that builds the stacks, once. */
static void worker_start(struct fold *f)
{
	worker_use(f, f->opts.jobs > 2 ?
		   workq__new(sizeof(union fold_rec), FW_RECS, run_block, f) :
		   NULL, false);
}

bool fold__set_helper(struct fold *f, void (*kick)(void *), void *kick_ctx)
{
	if (f->opts.jobs != 2 || f->w_tried)
		return false;
	worker_use(f, workq__new_shared(sizeof(union fold_rec), FW_RECS,
					run_block, f, kick, kick_ctx), true);
	return f->w != NULL;
}

bool fold__help(struct fold *f)
{
	return f->w && workq__help(f->w);
}

const struct offload *fold__offload(const struct fold *f)
{
	return f->w_tried && f->chain_numbers ? &f->off : NULL;
}

/* Until the next operation given to it, the stacks' side is this thread's. */
static int worker_drain(struct fold *f)
{
	return f->w ? workq__drain(f->w) : 0;
}

/* An operation for the stacks' side: to the worker, or run now. */
static int emit(struct fold *f, const struct fold_op *op)
{
	union fold_rec *rec;
	uint32_t took;

	if (!to_worker(f))
		return run_op(f, (const union fold_rec *)op, &took);
	rec = workq__reserve(f->w, 1);
	if (!rec)
		return workq__error(f->w);
	rec->op = *op;
	return 0;
}

/* The open sample's OP_BEGIN, before its first frame or its end. */
static inline int emit_begin(struct fold *f)
{
	if (f->begun)
		return 0;
	f->begun = true;
	if (!to_worker(f)) {
		feed_begin(f, f->pname, f->java, f->count);
		return 0;
	}
	return emit(f, &(struct fold_op){ .op = OP_BEGIN, .java = f->java,
					  .a = f->pname, .b = f->count });
}

/* A named frame as fold__frame_id() takes it; no_dso: named without. */
static struct fold_frame frame_of(const struct rs_frame *fr, bool no_dso)
{
	return (struct fold_frame){ no_dso ? 0 : fr->id, fr->sym,
				    no_dso ? NULL : fr->dso, fr->map_addr };
}

/*
 * The open sample's frames for the fold's thread, from fr (n
 * fold_frames) or rs (n named frames): OP_FRAMES records, as many
 * blocks as they take.
 */
static int queue_frames(struct fold *f, const struct fold_frame *fr,
			const struct rs_frame *rs, uint32_t n, bool no_dso)
{
	union fold_rec *rec;
	uint32_t i, k;

	for (; n; n -= k) {
		k = n < FW_RECS - 1 ? n : FW_RECS - 1;
		rec = workq__reserve(f->w, 1 + k);
		if (!rec)
			return workq__error(f->w);
		rec->op = (struct fold_op){ .op = OP_FRAMES, .a = k };
		for (i = 0; i < k; i++)
			rec[1 + i].fr = rs ? frame_of(rs++, no_dso) : *fr++;
	}
	return 0;
}

/* The open sample's named frames, to the stacks' side on this thread. */
static int feed_frames(struct fold *f, const struct rs_frame *fr,
		       uint32_t n, bool no_dso)
{
	struct fold_frame x;
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		x = frame_of(&fr[i], no_dso);
		ret = feed_frame_id(f, x.id, x.sym, x.dso, x.addr);
		if (ret)
			return ret;
	}
	return 0;
}

int fold__feed(struct fold *f, const struct rs_frame *fr, uint32_t n,
	       bool no_dso)
{
	int ret;

	if (!f->in_sample)
		return 0;
	ret = emit_begin(f);
	if (!ret && to_worker(f))
		ret = queue_frames(f, NULL, fr, n, no_dso);
	else if (!ret)
		ret = feed_frames(f, fr, n, no_dso);
	return ret ? ret : fold__end(f);
}

int fold__flush(struct fold *f)
{
	int err = workq__delete(f->w);

	f->w = NULL;
	f->off.active = false;
	return err;
}

/*
 * Only the 128-bit hash of a key is kept: a false match, which would
 * count a sample on another stack, needs both 64-bit lanes to collide.
 * Keys are placed by the hash of the raw callchain alone, taken before
 * the sample's turn (by the reader, or as the batch's lookahead reaches
 * it): the slot of a sample still in the batch can be fetched before
 * its turn (fold__prefetch()).
 */
int fold__begin_key(struct fold *f, const uint64_t in[2], uint64_t where)
{
	uint64_t h[2] = { in[0], in[1] };
	uint32_t val;
	int ret;

	if (!f->in_sample)
		return 0;
	if (!f->w_tried)
		worker_start(f);
	ret = offload__turn(&f->off, f->w);
	if (ret)
		return ret;
	h[0] ^= hash_u64(f->pname + 1);
	h[1] += f->pname;
	if (chainmap__find(&f->chains, h, where, &val)) {
		if (f->w)
			offload__note(&f->off, false);
		f->nr_kept++;
		f->nr_kept_named += f->sample_named;
		f->sample_named = false;
		f->in_sample = false;
		if (!f->chain_numbers) {
			f->stacks[val].count += f->count;
			return 1;
		}
		ret = emit(f, &(struct fold_op){ .op = OP_COUNT, .a = val,
						 .b = f->count });
		return ret ? ret : 1;
	}
	if (f->w)
		offload__note(&f->off, true);
	f->pending = true;
	f->pending_h[0] = h[0];
	f->pending_h[1] = h[1];
	f->pending_where = where;
	return 0;
}

int fold__end(struct fold *f)
{
	uint32_t chain1 = 0, stack;
	int ret;

	if (!f->in_sample)
		return 0;
	f->in_sample = false;
	ret = emit_begin(f);
	if (ret)
		return ret;
	f->nr_kept++;
	f->nr_kept_named += f->sample_named;
	f->sample_named = false;
	if (!f->chain_numbers) {
		/* One thread: the key names the stack itself. */
		ret = feed_stack(f, &stack);
		if (ret < 0 || !f->pending)
			return ret;
		f->pending = false;
		ret = chain_insert(f, f->pending_h, f->pending_where, stack);
		return ret < 0 ? ret : 0;
	}
	if (f->pending && f->nr_chain_ids < UINT32_MAX - 1) {
		f->pending = false;
		ret = chain_insert(f, f->pending_h, f->pending_where,
				   f->nr_chain_ids);
		if (ret < 0)
			return ret;
		if (ret)
			chain1 = ++f->nr_chain_ids;
	}
	return emit(f, &(struct fold_op){ .op = OP_END, .a = chain1 });
}

/* ---- the perf script reader's sink -------------------------------------- */

static int sink_event_keep(void *ctx, const char *event)
{
	return fold__event_keep(ctx, event);
}

static int sink_event_seen(void *ctx, const char *event)
{
	return fold__event_seen(ctx, event);
}

static int sink_begin(void *ctx, const char *comm, const char *pid,
		      const char *tid, uint64_t period, bool has_period)
{
	return fold__begin_text(ctx, comm, pid, tid, period, has_period);
}

static int sink_frame(void *ctx, const char *sym, const char *dso,
		      const char *pc)
{
	return fold__frame_text(ctx, sym, dso, pc);
}

static int sink_end(void *ctx)
{
	return fold__end(ctx);
}

static void sink_cancel(void *ctx)
{
	fold__cancel(ctx);
}

void fold__script_sink(struct fold *f, struct perf_script_sink *sink)
{
	*sink = (struct perf_script_sink){
		.ctx = f,
		.event_keep = sink_event_keep,
		.event_seen = sink_event_seen,
		.begin = sink_begin,
		.frame = sink_frame,
		.end = sink_end,
		.cancel = sink_cancel,
	};
}

/* ---- output ------------------------------------------------------------ */

/* A cursor over the joined string of a stack, from frame k on. */
struct cursor {
	const struct fold *f;
	const uint32_t *ids;
	uint32_t len, k;
	const char *p;
};

/* The name of a stack's k-th id: the first is the process name. */
static const char *stack_name(const struct fold *f, const uint32_t *ids,
			      uint32_t k)
{
	return strpool__str(k ? f->names : f->pnames, ids[k]);
}

/* Next byte; -1 at the end of the joined string. */
static int cursor_next(struct cursor *c)
{
	while (!*c->p) {
		if (++c->k >= c->len)
			return -1;
		c->p = stack_name(c->f, c->ids, c->k);
		return ';';
	}
	return (unsigned char)*c->p++;
}

/* Bytewise order of the joined strings, as Perl's sort with cmp. */
static int stack_cmp(const void *pa, const void *pb, void *arg)
{
	const struct fold *f = arg;
	const struct stack_ent *a = &f->stacks[*(const uint32_t *)pa];
	const struct stack_ent *b = &f->stacks[*(const uint32_t *)pb];
	const uint32_t *ia = f->st_ids + a->off, *ib = f->st_ids + b->off;
	struct cursor ca, cb;
	uint32_t k = 0;
	int x, y;

	/* Equal ids mean equal names: skip the shared prefix cheaply. */
	while (k < a->len && k < b->len && ia[k] == ib[k])
		k++;
	if (k == a->len && k == b->len)
		return 0;
	if (k == a->len || k == b->len) {
		/* One joined string is a prefix of the other. */
		return k == a->len ? -1 : 1;
	}
	ca = (struct cursor){ f, ia, a->len, k, stack_name(f, ia, k) };
	cb = (struct cursor){ f, ib, b->len, k, stack_name(f, ib, k) };
	do {
		x = cursor_next(&ca);
		y = cursor_next(&cb);
	} while (x == y && x >= 0);
	return x < y ? -1 : x > y;
}

/*
 * The lines go out through a buffer of their own: a fputs() for each
 * frame's name and a putc() for each ';' were a third of the writing.
 * With mem, full buffers are kept there instead, to be written later.
 */
struct line_buf {
	FILE *out;
	struct bytebuf *mem;
	size_t used;
	char buf[16384];
};

/* n bytes to where the lines go: the stream, or memory. */
static void lb_out(struct line_buf *lb, const char *s, size_t n)
{
	if (lb->mem)
		bytebuf__put(lb->mem, s, n);
	else
		fwrite_unlocked(s, 1, n, lb->out);
}

static void lb_flush(struct line_buf *lb)
{
	lb_out(lb, lb->buf, lb->used);
	lb->used = 0;
}

/* Inline, so that a separator is a store and a name one memcpy(). */
static inline void lb_put(struct line_buf *lb, const char *s, size_t n)
{
	if (n > sizeof(lb->buf) - lb->used) {
		lb_flush(lb);
		if (n > sizeof(lb->buf)) {
			lb_out(lb, s, n);
			return;
		}
	}
	memcpy(lb->buf + lb->used, s, n);
	lb->used += n;
}

/* " COUNT\n" without printf's parsing of its format on every line. */
static void lb_count(struct line_buf *lb, uint64_t count)
{
	char num[24];
	size_t i = sizeof(num);

	num[--i] = '\n';
	do {
		num[--i] = '0' + count % 10;
		count /= 10;
	} while (count);
	num[--i] = ' ';
	lb_put(lb, num + i, sizeof(num) - i);
}

/*
 * The lines of order[from, to), stacks in the order of their joined
 * strings. Different id arrays can join to one string (a comm with ';'
 * in it): the script keys on the string, so those are one line.
 */
static void put_lines(const struct fold *f, const uint32_t *order,
		      size_t from, size_t to, struct line_buf *lb)
{
	size_t i, j, k;

	for (i = from; i < to; i = j) {
		const struct stack_ent *s = &f->stacks[order[i]];
		uint64_t count = s->count;

		for (j = i + 1;
		     j < to && !stack_cmp(&order[i], &order[j], (void *)f);
		     j++)
			count += f->stacks[order[j]].count;
		for (k = 0; k < s->len; k++) {
			const char *name = stack_name(f, f->st_ids + s->off,
						      k);

			if (k)
				lb_put(lb, ";", 1);
			lb_put(lb, name, strlen(name));
		}
		lb_count(lb, count);
	}
}

/*
 * With jobs, the output's work in two halves, one per thread: each sorts
 * half the stacks, then merges the two from its end (this one smallest
 * first, the other largest first: between them, one stable merge), then
 * formats its part of the lines, the other's kept in memory and written
 * after this one's. The parts meet where two joined strings differ, so
 * that stacks that join to one string stay on one line.
 */
struct out_half {
	struct fold *f;
	uint32_t *in;		/* order: two sorted halves */
	uint32_t *out;		/* the merged order */
	size_t n;
	pthread_barrier_t sorted, merged;
	struct bytebuf mem;	/* the second part's lines */
	struct line_buf lb[2];	/* the first part's (out), the second's */
};

/* Where the second part starts: past n / 2, where two strings differ. */
static size_t second_part(const struct out_half *o)
{
	size_t b = o->n / 2;

	while (b < o->n && !stack_cmp(&o->out[b - 1], &o->out[b], o->f))
		b++;
	return b;
}

/* The first half's sort, the merge from the top, the second part. */
static void *out_second(void *arg)
{
	struct out_half *o = arg;
	size_t h = o->n / 2, a = h, b = o->n, i;

	qsort_r(o->in, h, sizeof(*o->in), stack_cmp, o->f);
	pthread_barrier_wait(&o->sorted);
	/* On a tie the second half's goes last, as in a stable merge. */
	for (i = o->n; i-- > h;) {
		bool second = a == 0 ||
			      (b > h && stack_cmp(&o->in[a - 1],
						  &o->in[b - 1], o->f) <= 0);

		o->out[i] = second ? o->in[--b] : o->in[--a];
	}
	pthread_barrier_wait(&o->merged);
	put_lines(o->f, o->out, second_part(o), o->n, &o->lb[1]);
	lb_flush(&o->lb[1]);
	return NULL;
}

/*
 * Written on two threads: true; false when that could not be set up
 * (short of memory for it, or of a thread), nothing written.
 */
static bool write_halves(struct fold *f, FILE *out)
{
	size_t n = f->nr_stacks, h = n / 2, a = 0, b = h, i;
	struct line_buf *lb;
	struct out_half *o;
	bool done = false;
	pthread_t t;

	o = calloc(1, sizeof(*o));
	if (o) {
		o->in = malloc(n * sizeof(*o->in));
		o->out = malloc(n * sizeof(*o->out));
	}
	/* Short of memory for this, one thread with half as much. */
	if (!o || !o->in || !o->out)
		goto out;
	for (i = 0; i < n; i++)
		o->in[i] = i;
	o->f = f;
	o->n = n;
	lb = &o->lb[0];
	lb->out = out;
	o->lb[1].mem = &o->mem;
	pthread_barrier_init(&o->sorted, NULL, 2);
	pthread_barrier_init(&o->merged, NULL, 2);
	if (pthread_create(&t, NULL, out_second, o)) {
		pthread_barrier_destroy(&o->sorted);
		pthread_barrier_destroy(&o->merged);
		goto out;
	}
	qsort_r(o->in + h, n - h, sizeof(*o->in), stack_cmp, f);
	pthread_barrier_wait(&o->sorted);
	for (i = 0; i < h; i++) {
		bool first = b == n ||
			     (a < h && stack_cmp(&o->in[a], &o->in[b], f) <= 0);

		o->out[i] = first ? o->in[a++] : o->in[b++];
	}
	pthread_barrier_wait(&o->merged);
	/* One writer: the stream's lock once is enough. */
	flockfile(out);
	put_lines(f, o->out, 0, second_part(o), lb);
	lb_flush(lb);
	pthread_join(t, NULL);
	/* The second part's text did not fit in memory: made here. */
	if (o->mem.oom) {
		put_lines(f, o->out, second_part(o), n, lb);
		lb_flush(lb);
	} else {
		fwrite_unlocked(o->mem.p, 1, o->mem.len, out);
	}
	funlockfile(out);
	pthread_barrier_destroy(&o->sorted);
	pthread_barrier_destroy(&o->merged);
	done = true;
out:
	if (o) {
		free(o->in);
		free(o->out);
		free(o->mem.p);
	}
	free(o);
	return done;
}

/* The lines sorted and written on this thread alone: 0 or -ENOMEM. */
static int write_one(struct fold *f, FILE *out)
{
	size_t n = f->nr_stacks, i;
	uint32_t *order = malloc(n * sizeof(*order));
	struct line_buf *lb = malloc(sizeof(*lb));

	if (!order || !lb) {
		free(order);
		free(lb);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), stack_cmp, f);
	*lb = (struct line_buf){ .out = out };
	flockfile(out);
	put_lines(f, order, 0, n, lb);
	lb_flush(lb);
	funlockfile(out);
	free(order);
	free(lb);
	return 0;
}

int fold__write(struct fold *f, FILE *out)
{
	int err = fold__flush(f);

	if (err)
		return err;
	if (!f->nr_stacks)
		return ferror(out) ? -EIO : 0;
	if (f->opts.jobs < 2 || f->nr_stacks < 4096 || !write_halves(f, out))
		err = write_one(f, out);
	if (err)
		return err;
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

uint64_t fold__nr_kept(const struct fold *f)
{
	return f->nr_kept;
}

uint64_t fold__nr_kept_unnamed(const struct fold *f)
{
	return f->nr_kept - f->nr_kept_named;
}

uint64_t fold__nr_dropped(const struct fold *f)
{
	return f->nr_dropped;
}
