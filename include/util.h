/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by every module: hashing and string interning.
 */
#ifndef RS_UTIL_H
#define RS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef ARRAY_SIZE	/* libiberty's headers define the same */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* 64-bit hash of a byte string (FNV-1a folded through a final mixer). */
uint64_t hash_bytes(const void *data, size_t len);

/*
 * 128-bit hash of a u64 array, for tables that keep only the hash of a
 * long key: two independent lanes, so that a false match needs both to
 * collide (about n^2 / 2^129 for n keys).
 */
void hash_words128(const uint64_t *words, size_t n, uint64_t out[2]);
/*
 * hash_words128(), and in the same pass whether marker is one of the
 * words (a callchain's PERF_CONTEXT_USER): one function for every
 * thread that hashes a chain, so the hashes agree whoever takes them.
 */
bool hash_words128_find(const uint64_t *words, size_t n, uint64_t marker,
			uint64_t out[2]);

/*
 * Write a message into a caller's error buffer (buf NULL or len 0: none),
 * as library functions that return -errno explain themselves.
 */
void errbuf_set(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * argv as a POSIX shell command line that gives it back: words with
 * anything but [A-Za-z0-9_@%+=:,./-] in single quotes (a quote inside as
 * '\''), an empty word as ''. Appended to buf after its first used
 * bytes, a space before each word when used > 0. The length the line
 * needs (as snprintf); buf holds what fits, NUL-terminated.
 */
size_t shell_words(char *buf, size_t len, size_t used, int argc,
		   char *const *argv);

/*
 * The backslash escapes of JSON strings for \" \\ \n \t. Writes c's
 * escape and returns true; false, writing nothing, for any other byte
 * (the caller's rule for the rest).
 */
bool fput_backslash_escape(FILE *out, unsigned char c);

/*
 * s as one CSV field (RFC 4180): as it is, or in double quotes, its own
 * doubled, when it holds a comma, a quote, CR or LF.
 */
void fput_csv_field(FILE *out, const char *s);

/*
 * write(2) all n bytes: 0, or -errno (-EIO for a write of nothing).
 * Waits for room on a descriptor someone made non-blocking.
 */
int fd_write_all(int fd, const void *p, size_t n);

/*
 * Control characters shown rather than sent, a byte at a time, for text
 * from input files on its way to a terminal or an error line: C0
 * controls but tab (and newline, unless lines: then "\n") and DEL as
 * \r or \ooo, and C1 controls too, raw (0x80-0x9f outside a UTF-8
 * character: a stray one, or one of a sequence that is no character,
 * overlong or cut short) or UTF-8 encoded (U+0080-U+009F); any other
 * byte, UTF-8 text included, as it is. A sequence's bytes are held until
 * it is whole or broken. ctl_show() writes what stands for c to out (at
 * most CTL_SHOW_MAX bytes; none while it holds) and returns its length;
 * ctl_show_end() gives back what is still held, shown, and starts over.
 */
struct ctl_show {
	unsigned char held[4];	/* a UTF-8 sequence begun */
	uint8_t nheld, need;	/* bytes held, of the need it makes */
};
#define CTL_SHOW_MAX 24
size_t ctl_show(struct ctl_show *st, unsigned char c, bool lines, char *out);
size_t ctl_show_end(struct ctl_show *st, char *out);
/*
 * A device's console text (a guest's) to out, for a person to read:
 * its terminal escapes ("ESC [ 2 J") and C0 controls but tab and
 * newline (the CR of its line ends) dropped, the rest through
 * ctl_show(), so that no byte of it acts on a terminal. True when
 * something was written that did not end a line.
 */
bool console_show(FILE *out, const char *text);

/*
 * A stream onto a terminal (fd) that shows what would act on it instead
 * of sending it: names and text from input files, which travel by mail,
 * may hold escape sequences (a window title, the clipboard, hidden
 * text). Every byte goes through ctl_show(), as error lines do, newlines
 * kept. Line-buffered; closing it
 * leaves fd open. NULL with errno when it cannot be made. For stdout on
 * a terminal only: a pipe or a file gets every byte as it was (a folded
 * profile for flamegraph.pl, a diff).
 */
FILE *term_stream(int fd);
/*
 * The tool's own control sequence s (a screen clear), sent as it is even
 * through a term_stream(); anywhere else, written as fputs() would.
 */
void term_control(FILE *f, const char *s);

/* Mixer for integer keys (splitmix64 finaliser). */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

/*
 * A 128-bit hash a word at a time, for a key made as it is hashed:
 * hash128__init() with the number of words, hash128__add() each,
 * hash128__end(). Not hash_words128()'s value (that one takes two words
 * at a time, in two pairs of lanes), nor meant to be: each caller keeps
 * to one of them.
 */
struct hash128 {
	uint64_t a, b;
};

static inline void hash128__init(struct hash128 *h, size_t n)
{
	h->a = 0x9e3779b97f4a7c15ULL ^ n;
	h->b = 0xc2b2ae3d27d4eb4fULL;
}

static inline void hash128__add(struct hash128 *h, uint64_t w)
{
	h->a = rotl64(h->a ^ (w * 0x87c37b91114253d5ULL), 31) *
	       0x4cf5ad432745937fULL;
	h->b = rotl64(h->b + w, 27) * 0x52dce729ULL + 0x38495ab5ULL;
	h->b ^= h->b >> 33;
}

static inline void hash128__end(const struct hash128 *h, uint64_t out[2])
{
	out[0] = hash_u64(h->a ^ rotl64(h->b, 17));
	out[1] = hash_u64(h->b + h->a);
}

/* Perl's \s, \d and \w on byte strings: ASCII only, whatever the locale. */
static inline bool ascii_is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static inline bool ascii_is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool ascii_is_xdigit(unsigned char c)
{
	return ascii_is_digit(c) || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static inline bool ascii_is_word(unsigned char c)
{
	return ascii_is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/*
 * Make room for need elements of size bytes in the array *p of *cap
 * elements, doubling (from 16); overflow-checked. 0 or -ENOMEM, and the
 * array is untouched on failure.
 */
int grow_array(void **p, size_t *cap, size_t need, size_t size);
/* Huge pages asked for the whole 2 MiB pages inside [p, p + len). */
void advise_huge(void *p, size_t len);
/*
 * len bytes, uninitialised, to be written front to back: from 2 MiB on,
 * in whole 2 MiB pages (aligned, rounded up: advise_huge() covers all
 * of it rather than the huge pages inside). free() frees it.
 */
void *malloc_huge(size_t len);
/*
 * calloc() for a large table that is about to be written all over (a hash
 * table probed at random): its pages are faulted in writable at once.
 */
void *calloc_table(size_t n, size_t size);

/*
 * In the n elements at base (size bytes each, sorted by the uint64_t at
 * byte offset off), how many have a key at or below x: the index one past
 * the last such element (its "upper bound"), 0 when there is none.
 */
static inline size_t upper_bound_u64(const void *base, size_t n,
				     size_t size, size_t off, uint64_t x)
{
	const char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;

		memcpy(&key, p + mid * size + off, sizeof(key));
		if (key <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Strings copied into chunks that are freed together: no malloc() per
 * string. Each chunk is twice its predecessor's size, from first up to
 * max (a longer string gets a chunk of its own size), so that many small
 * arenas hold little and a big one few chunks. Zero-initialise, set first
 * and max; strarena__free() empties it.
 */
struct strarena_chunk;
struct strarena {
	struct strarena_chunk *chunks;
	size_t first, max;
};

/* A NUL-terminated copy of the len bytes at s, or NULL (-ENOMEM). */
char *strarena__store(struct strarena *a, const char *s, size_t len);
void strarena__free(struct strarena *a);

/*
 * A string pool: each distinct string is stored once and named by a dense
 * id (0, 1, 2, ...). Strings never move once interned, so the pointers
 * strpool__str() returns stay valid until strpool__delete().
 */
struct strpool;

struct strpool *strpool__new(void);
void strpool__delete(struct strpool *sp);
/* Returns the id (>= 0) or -ENOMEM. */
int strpool__intern(struct strpool *sp, const char *s, size_t len);
const char *strpool__str(const struct strpool *sp, uint32_t id);
uint32_t strpool__count(const struct strpool *sp);

/*
 * A map from a two-word key to a 32-bit value: open addressing, at most
 * three quarters full. Keys are either exact (a pointer and an index) or
 * the 128-bit hash of a long key (hash_words128()), which tables keep
 * instead of the key itself.
 */
struct keymap;
struct keymap *keymap__new(void);
void keymap__delete(struct keymap *km);
/* 1 and *val set when the key is present, 0 when not. */
int keymap__find(const struct keymap *km, const uint64_t key[2],
		 uint32_t *val);
/* Set the key's value (replacing any); 0 or -ENOMEM. */
int keymap__set(struct keymap *km, const uint64_t key[2], uint32_t val);
uint32_t keymap__count(const struct keymap *km);

/*
 * A linear-probing table from a two-word key to a fixed-size value kept in
 * the slot: the hash table under the tools' maps of open state, threads
 * and caches (the keymap, which never removes, has a denser table of its
 * own). At most half full; removal shifts later entries back instead
 * of leaving tombstones (a long run of inserts and removes cannot fill it
 * with dead slots) and gives memory back once the table is mostly empty.
 * Embedded in its owner (init/exit) so that a lookup is one pointer away.
 * Value pointers are valid until the next insert, remove or clear.
 */
struct hashtab_slot {
	uint64_t k0, k1;
	uint32_t used;
	/* the value: at val_off, right here when it fits in 4 bytes */
};

struct hashtab {
	unsigned char *slots;
	size_t cap, nr;		/* cap: 0 or a power of two */
	size_t val_size, slot_size;
	size_t val_off;		/* 20 for values of 4 bytes or less, else 24 */
};

void hashtab__init(struct hashtab *t, size_t val_size);
void hashtab__exit(struct hashtab *t);
/* The key's value, zeroed when new (*fresh set); NULL on -ENOMEM. */
void *hashtab__get(struct hashtab *t, uint64_t k0, uint64_t k1, bool *fresh);
/* Remove the entry whose value val points to (from find or get). */
void hashtab__remove(struct hashtab *t, void *val);
/* Remove every entry, keeping the memory. */
void hashtab__clear(struct hashtab *t);

static inline struct hashtab_slot *hashtab__at(const struct hashtab *t,
					       size_t i)
{
	return (struct hashtab_slot *)(t->slots + i * t->slot_size);
}

static inline void *hashtab__val(const struct hashtab *t,
				 const struct hashtab_slot *e)
{
	return (char *)e + t->val_off;
}

/* Where the key's probe run starts (cap > 0). */
static inline size_t hashtab__home(const struct hashtab *t, uint64_t k0,
				   uint64_t k1)
{
	return hash_u64(k0 ^ (k1 << 32 | k1 >> 32)) & (t->cap - 1);
}

/* The key's value, or NULL. Inline: it is on every sample's path. */
static inline void *hashtab__find(const struct hashtab *t, uint64_t k0,
				  uint64_t k1)
{
	size_t i;

	if (!t->nr)
		return NULL;
	for (i = hashtab__home(t, k0, k1);; i = (i + 1) & (t->cap - 1)) {
		struct hashtab_slot *e = hashtab__at(t, i);

		if (!e->used)
			return NULL;
		if (e->k0 == k0 && e->k1 == k1)
			return hashtab__val(t, e);
	}
}

/*
 * A callchain's key (the 128-bit hash of its raw entries mixed with what
 * naming them depends on) to a 32-bit value, placed by where: the raw
 * entries' own hash, known as soon as the sample is read, before the
 * naming state it will be mixed with. The slot of a sample some places
 * ahead can then be fetched (chainmap__prefetch()) before its turn, as
 * most samples end at that one random read of a large table.
 *
 * 24-byte slots, at most three quarters full. The probe steps by one
 * slot (the next ones share its cache lines) three times, then by a
 * stride the key's own hash sets (odd: every slot is visited): one raw
 * callchain under many naming states (a kernel-only chain in every
 * process) has one home for all its keys, and stepping by one all along
 * would make a run that every later probe there walks to its end.
 * Embedded in its owner (init/exit): a lookup is one pointer away.
 */
struct chainmap_slot {
	uint64_t key[2];
	uint32_t where;		/* the home's low bits */
	uint32_t val1;		/* the value + 1; 0: empty */
};

struct chainmap {
	struct chainmap_slot *v;
	size_t nr, cap;		/* cap: 0 or a power of two, <= 2^32 */
};

static inline void chainmap__init(struct chainmap *cm)
{
	*cm = (struct chainmap){ NULL, 0, 0 };
}

void chainmap__exit(struct chainmap *cm);

/* The key's slot, or the empty one where it would go (cap > 0). */
static inline struct chainmap_slot *chainmap__slot(const struct chainmap *cm,
						   const uint64_t key[2],
						   uint64_t where)
{
	size_t mask = cm->cap - 1, j = where & mask, n, step = 1;

	for (n = 0; cm->v[j].val1; n++) {
		if (cm->v[j].key[0] == key[0] && cm->v[j].key[1] == key[1])
			break;
		/*
		 * Past the home's cache line, the key's own stride: both its
		 * halves mixed, as keys of one home may share either half
		 * or differ only in a few bits of one.
		 */
		if (n == 3)
			step = hash_u64(key[0] ^ rotl64(key[1], 29)) | 1;
		j = (j + step) & mask;
	}
	return &cm->v[j];
}

/* 1 and *val set when the key is present, 0 when not. */
static inline int chainmap__find(const struct chainmap *cm,
				 const uint64_t key[2], uint64_t where,
				 uint32_t *val)
{
	const struct chainmap_slot *c;

	if (!cm->nr)
		return 0;
	c = chainmap__slot(cm, key, where);
	if (!c->val1)
		return 0;
	*val = c->val1 - 1;
	return 1;
}

/*
 * Give a new key val (< UINT32_MAX): 1 when it now names val, 0 when it
 * was there already or is left out (the table cannot grow past 2^32
 * slots, or could not grow but has room: only the shortcut is lost),
 * -ENOMEM when it could not grow and is full. spurt: most keys looked
 * up are new, for now; the table grows four times over rather than
 * twice, so that it is grown (each time a table of fresh pages, and
 * every key placed again) half as often.
 */
int chainmap__insert(struct chainmap *cm, const uint64_t key[2],
		     uint64_t where, uint32_t val, bool spurt);

/*
 * The value in where's home slot, whatever its key: a guess at what a
 * key placed there names, for prefetching that. 0 when it is empty.
 */
static inline int chainmap__home(const struct chainmap *cm, uint64_t where,
				 uint32_t *val)
{
	const struct chainmap_slot *c;

	if (!cm->cap)
		return 0;
	c = &cm->v[where & (cm->cap - 1)];
	*val = c->val1 - 1;
	return c->val1 != 0;
}

/* Start bringing where's home slot into the cache. A hint only. */
static inline void chainmap__prefetch(const struct chainmap *cm,
				      uint64_t where)
{
	if (cm->cap)
		__builtin_prefetch(&cm->v[where & (cm->cap - 1)]);
}

#define hashtab__for_each(t, i, e)					\
	for ((i) = 0; (i) < (t)->cap; (i)++)				\
		if (!((e) = hashtab__at((t), (i)))->used) {} else

/*
 * A growable byte buffer that remembers running out of memory, so that a
 * writer can put many fields and check once (oom) at the end.
 */
struct bytebuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

void bytebuf__put(struct bytebuf *b, const void *src, size_t n);

static inline void bytebuf__put32(struct bytebuf *b, uint32_t v)
{
	bytebuf__put(b, &v, sizeof(v));
}

static inline void bytebuf__put64(struct bytebuf *b, uint64_t v)
{
	bytebuf__put(b, &v, sizeof(v));
}

/*
 * A thread of its own that runs fn on records one caller hands it, in
 * the order given, a block at a time: the caller reserves room for a few
 * records, fills them, and goes on; fn(ctx, recs, nr) runs on the thread
 * with what a block holds. Blocks are handed over under a lock, so what
 * the caller wrote before is the thread's to read. fn returns 0 or
 * -errno: after an error the later blocks are skipped, and the error is
 * what workq__drain() and workq__delete() return.
 */
struct workq;
typedef int (*workq_fn)(void *ctx, void *recs, uint32_t nr);

/* NULL when no thread or memory could be had: run the work in place. */
struct workq *workq__new(size_t rec_size, uint32_t block_recs, workq_fn fn,
			 void *ctx);
/*
 * The same without a thread of its own: a thread that would otherwise
 * wait runs the blocks, one per workq__help(), and the caller runs them
 * when it needs room or drains. notify(notify_ctx), if given, is called
 * on the caller's thread after each block is handed over, for the
 * helper to wake. NULL when no memory could be had.
 */
struct workq *workq__new_shared(size_t rec_size, uint32_t block_recs,
				workq_fn fn, void *ctx,
				void (*notify)(void *ctx), void *notify_ctx);
/* Run the next block of a shared workq, if one waits: true when one ran. */
bool workq__help(struct workq *q);
/*
 * Room for n records side by side, in the block being filled or, once
 * that is handed over, the next one. NULL once fn has failed (seen when
 * a block is handed over) or for more than block_recs records: then
 * workq__error() says why, and the caller stops.
 */
void *workq__reserve(struct workq *q, uint32_t n);
int workq__error(const struct workq *q);
/* Wait until fn has run on everything reserved: 0 or its error. */
int workq__drain(struct workq *q);
/* Drain, end the thread, free: 0 or fn's error. NULL is a no-op. */
int workq__delete(struct workq *q);

/*
 * Whether handing work to a workq pays, judged as the samples come. Its
 * runner builds what new callchains bring: where most were seen before,
 * it has little to build and only adds the handing over. Over each
 * window of samples, the share whose callchain was new turns it on (a
 * quarter or more) and off (less than an eighth); it starts on, as
 * every callchain is new at first. With watch_cpu, the runner is a
 * thread that would otherwise wait, sharing the CPUs: over spans of
 * OFFLOAD_SPAN_NS, the caller's thread must also have waited for a CPU
 * (runnable, not running: /proc/thread-self/schedstat) less than a
 * tenth of the time, else the CPUs are short (other processes) and the
 * caller does the work itself. Its own waits (for the records, for
 * symbols) say nothing of the CPUs and do not count. Where schedstat
 * cannot be read, only the callchains decide. docs/performance.md
 * (eighth round) has the figures.
 */
#define OFFLOAD_WINDOW 4096
#define OFFLOAD_SPAN_NS (20 * 1000 * 1000ULL)

struct offload {
	uint32_t seen, fresh;
	bool active;		/* the work is the workq's now */
	bool on;		/* hand the work over */
	bool fresh_on;		/* the new callchains would */
	bool cpu_ok;		/* the caller's thread had a CPU */
	bool watch_cpu;
	uint64_t span_wall, span_runq;	/* where the span began, ns */
	uint32_t nr_on, nr_off;	/* turns taken */
	uint32_t nr_short;	/* spans the caller's thread went short */
};

/* active: the workq has the work from the start (there is one). */
void offload__init(struct offload *o, bool active, bool watch_cpu);
/*
 * The end of a window, at wall_ns; with watch_cpu, runq_ns is the time
 * the caller's thread has waited for a CPU so far, ~0ULL: not known.
 */
void offload__judge(struct offload *o, uint64_t wall_ns, uint64_t runq_ns);
void offload__window(struct offload *o);

/* One more sample, fresh when its callchain was new: o->on as it is now. */
static inline bool offload__note(struct offload *o, bool fresh)
{
	o->fresh += fresh;
	if (++o->seen == OFFLOAD_WINDOW)
		offload__window(o);
	return o->on;
}

/*
 * At a sample's turn, where the work may change hands: to w, or back to
 * the caller once w has run all it was given, as o->on says. 0 or w's
 * error.
 */
static inline int offload__turn(struct offload *o, struct workq *w)
{
	int err = 0;

	if (w && o->active != o->on) {
		if (!o->on)
			err = workq__drain(w);
		if (!err)
			o->active = o->on;
	}
	return err;
}

/*
 * The tool's version ("git describe" of the checkout it was built in, else
 * the Makefile's VERSION) and the libraries it was built against.
 */
const char *rs_version(void);

/* Seconds on CLOCK_MONOTONIC: for timeouts and progress, not figures. */
double rs_now_s(void);
/* CLOCK_MONOTONIC in ns (bpf_ktime_get_ns()'s clock). */
uint64_t rs_mono_ns(void);
const char *rs_library_versions(void);

#endif
