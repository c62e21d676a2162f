// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

bool fput_backslash_escape(FILE *out, unsigned char c)
{
	static const char from[] = "\"\\\n\t", to[] = "\"\\nt";
	const char *p = c ? strchr(from, c) : NULL;

	if (!p)
		return false;
	fputc('\\', out);
	fputc(to[p - from], out);
	return true;
}

void fput_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void errbuf_set(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static void put_byte(char *buf, size_t len, size_t *at, char c)
{
	if (*at + 1 < len)
		buf[*at] = c;
	(*at)++;
}

size_t shell_words(char *buf, size_t len, size_t used, int argc,
		   char *const *argv)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
	size_t at = used;
	const char *s;
	int i;

	for (i = 0; i < argc; i++) {
		bool quote = !argv[i][0] ||
			     argv[i][strspn(argv[i], plain)] != '\0';

		if (at)
			put_byte(buf, len, &at, ' ');
		if (quote)
			put_byte(buf, len, &at, '\'');
		for (s = argv[i]; *s; s++) {
			if (*s == '\'') {
				/* End the quote, an escaped quote, reopen. */
				put_byte(buf, len, &at, '\'');
				put_byte(buf, len, &at, '\\');
				put_byte(buf, len, &at, '\'');
			}
			put_byte(buf, len, &at, *s);
		}
		if (quote)
			put_byte(buf, len, &at, '\'');
	}
	if (len)
		buf[at < len ? at : len - 1] = '\0';
	return at;
}

struct term_stream {
	int fd;
	FILE *f;		/* the stream made on it */
	struct ctl_show ctl;
	size_t n;
	char buf[512];
};

int fd_write_all(int fd, const void *p, size_t n)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	const char *c = p;
	ssize_t w;

	while (n) {
		w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		/* A descriptor someone made non-blocking: wait for room. */
		if (w < 0 && errno == EAGAIN) {
			poll(&pfd, 1, -1);
			continue;
		}
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= w;
	}
	return 0;
}

/* "\\r", or "\\ooo": what stands for control byte c; its length. */
static size_t ctl_escape(char *out, unsigned char c)
{
	if (c == '\r') {
		memcpy(out, "\\r", 2);
		return 2;
	}
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + (c >> 3 & 7));
	out[3] = (char)('0' + (c & 7));
	return 4;
}

/* Whether held[0..n) (n >= 2) begins a UTF-8 character (RFC 3629). */
static bool utf8_begins(const unsigned char *h, size_t n)
{
	size_t i;

	/* Overlong forms, surrogates, past U+10FFFF: the second byte says. */
	if ((h[0] == 0xe0 && h[1] < 0xa0) || (h[0] == 0xed && h[1] > 0x9f) ||
	    (h[0] == 0xf0 && h[1] < 0x90) || (h[0] == 0xf4 && h[1] > 0x8f))
		return false;
	for (i = 1; i < n; i++)
		if (h[i] < 0x80 || h[i] > 0xbf)
			return false;
	return true;
}

/* The bytes held, that make no character: C1 bytes shown, others as is. */
static size_t held_show(struct ctl_show *st, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < st->nheld; i++) {
		if (st->held[i] <= 0x9f)
			n += ctl_escape(out + n, st->held[i]);
		else
			out[n++] = (char)st->held[i];
	}
	st->nheld = 0;
	return n;
}

size_t ctl_show(struct ctl_show *st, unsigned char c, bool lines, char *out)
{
	size_t n = 0;

	if (st->nheld) {
		st->held[st->nheld++] = c;
		if (utf8_begins(st->held, st->nheld)) {
			if (st->nheld < st->need)
				return 0;
			/* U+0080-U+009F: a C1 control in UTF-8. */
			if (st->held[0] == 0xc2 && c <= 0x9f) {
				n = ctl_escape(out, 0xc2);
				st->nheld = 0;
				return n + ctl_escape(out + n, c);
			}
			n = st->nheld;
			memcpy(out, st->held, n);
			st->nheld = 0;
			return n;
		}
		/* No character: what was held shown, c taken alone. */
		st->nheld--;
		n = held_show(st, out);
	}
	if (c == '\n' && lines) {
		memcpy(out + n, "\\n", 2);
		return n + 2;
	}
	if ((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f))
		return n + ctl_escape(out + n, c);
	if (c >= 0xc2 && c <= 0xf4) {
		st->held[0] = c;
		st->nheld = 1;
		st->need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		return n;
	}
	out[n++] = (char)c;
	return n;
}

size_t ctl_show_end(struct ctl_show *st, char *out)
{
	size_t n = held_show(st, out);

	*st = (struct ctl_show){ 0 };
	return n;
}

bool console_show(FILE *out, const char *text)
{
	struct ctl_show st = { 0 };
	char shown[CTL_SHOW_MAX];
	const char *p;

	for (p = text; *p; p++) {
		if (*p == '\033' && p[1] == '[') {
			for (p += 2; *p && (*p < 0x40 || *p > 0x7e); p++)
				;
			if (!*p)
				break;
			continue;
		}
		if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
			continue;
		fwrite(shown, 1, ctl_show(&st, (unsigned char)*p, false, shown),
		       out);
	}
	fwrite(shown, 1, ctl_show_end(&st, shown), out);
	return p > text && p[-1] != '\n';
}

static int term_flush(struct term_stream *t)
{
	int err = fd_write_all(t->fd, t->buf, t->n);

	t->n = 0;
	return err ? (errno = -err, -1) : 0;
}

/* At most CTL_SHOW_MAX bytes. */
static int term_put(struct term_stream *t, const char *p, size_t n)
{
	if (t->n + n > sizeof(t->buf) && term_flush(t))
		return -1;
	memcpy(t->buf + t->n, p, n);
	t->n += n;
	return 0;
}

/* A byte of text for the terminal: as it is, or shown (ctl_show()). */
static int term_byte(struct term_stream *t, unsigned char c)
{
	char out[CTL_SHOW_MAX];
	size_t n = ctl_show(&t->ctl, c, false, out);

	return n ? term_put(t, out, n) : 0;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
	struct term_stream *t = cookie;
	size_t i;

	/* fopencookie(3): an error is 0 with errno set, never negative. */
	for (i = 0; i < size; i++)
		if (term_byte(t, (unsigned char)buf[i]))
			return 0;
	/* Line-buffered above: what stdio hands over goes out now. */
	return term_flush(t) ? 0 : (ssize_t)size;
}

/* The one term_stream() made, for term_control(). */
static struct term_stream *term_made;

/* A character still cut short, shown, and the buffer out. */
static int term_drain(struct term_stream *t)
{
	char held[CTL_SHOW_MAX];
	size_t n = ctl_show_end(&t->ctl, held);

	if (n && term_put(t, held, n))
		return -1;
	return term_flush(t);
}

static int term_close(void *cookie)
{
	struct term_stream *t = cookie;
	int err = term_drain(t);

	if (term_made == t)
		term_made = NULL;
	free(t);
	return err;
}

FILE *term_stream(int fd)
{
	cookie_io_functions_t io = { .write = term_write, .close = term_close };
	struct term_stream *t = calloc(1, sizeof(*t));
	FILE *f;

	if (!t)
		return NULL;
	t->fd = fd;
	f = fopencookie(t, "w", io);
	if (!f) {
		free(t);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	t->f = f;
	term_made = t;
	return f;
}

void term_control(FILE *f, const char *s)
{
	if (!term_made || f != term_made->f) {
		fputs(s, f);
		return;
	}
	/* The text before it through the filter, then s as it is. */
	fflush(f);
	if (!term_drain(term_made))
		fd_write_all(term_made->fd, s, strlen(s));
}

uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	/* Eight bytes at a time where possible: frame names are long. */
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return hash_u64(h);
}

/*
 * Two words at a time, in two pairs of lanes (even words, odd words):
 * each lane is hash128__add()'s, a chain of multiplies whose latency,
 * not the work, bound the loop; two pairs run side by side. The four
 * lanes are mixed into both halves of the result at the end.
 */
bool hash_words128_find(const uint64_t *words, size_t n, uint64_t marker,
			uint64_t out[2])
{
	struct hash128 h, g;
	uint64_t w, v, x, y;
	bool found = false;
	size_t i;

	hash128__init(&h, n);
	g.a = 0x6a09e667f3bcc909ULL ^ n;
	g.b = 0xbb67ae8584caa73bULL;
	for (i = 0; i + 1 < n; i += 2) {
		/* Callchains in a record buffer may be unaligned. */
		memcpy(&w, &words[i], sizeof(w));
		memcpy(&v, &words[i + 1], sizeof(v));
		hash128__add(&h, w);
		hash128__add(&g, v);
		found |= (w == marker) | (v == marker);
	}
	if (i < n) {
		memcpy(&w, &words[i], sizeof(w));
		hash128__add(&h, w);
		found |= w == marker;
	}
	x = hash_u64(h.a ^ rotl64(g.b, 17));
	y = hash_u64(g.a + rotl64(h.b, 29));
	out[0] = hash_u64(x ^ rotl64(y, 31));
	out[1] = hash_u64(y + x);
	return found;
}

void hash_words128(const uint64_t *words, size_t n, uint64_t out[2])
{
	hash_words128_find(words, n, 0, out);
}

#define HUGE_PAGE ((size_t)2 << 20)

/*
 * Arrays of megabytes written front to back (the kallsyms text, its
 * symbol tables, the fold's stacks) fault in a 4 KiB page at a time
 * where transparent huge pages are on for madvise() only (Debian's
 * default): 2 MiB pages take a fault each instead of 512. Loading
 * kallsyms (190k symbols, 5.4 MB) in a fresh process: 8.9 -> 7.6 ms.
 * Only the whole 2 MiB pages inside, so nothing of another allocation;
 * a hint, its failure changes nothing. The hint is the mapping's: once
 * the array is freed or moved, what malloc() puts there later may get
 * huge pages too (only its memory use can change).
 */
void advise_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t b = ((uintptr_t)p + len) & ~(HUGE_PAGE - 1);

	if (b > a)
		madvise((void *)a, b - a, MADV_HUGEPAGE);
#endif
}

void *malloc_huge(size_t len)
{
	size_t whole = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	void *p;

	if (len >= HUGE_PAGE && whole >= len &&
	    !posix_memalign(&p, HUGE_PAGE, whole)) {
		advise_huge(p, whole);
		return p;
	}
	return malloc(len);
}

int grow_array(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	advise_huge(q, n * size);
	*p = q;
	*cap = n;
	return 0;
}

void *calloc_table(size_t n, size_t size)
{
	void *p;

	/*
	 * Tables probed at random across megabytes miss the TLB on almost
	 * every probe with 4 KiB pages; a 2 MiB page covers 512 of them.
	 * Where transparent huge pages are off, the memset() populates the
	 * table as MADV_POPULATE_WRITE does below.
	 */
	if (size && n <= SIZE_MAX / size && n * size >= HUGE_PAGE &&
	    (p = malloc_huge(n * size))) {
		memset(p, 0, n * size);
		return p;
	}
	p = calloc(n, size);
#ifdef MADV_POPULATE_WRITE
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096, a, b;

	/*
	 * A large calloc() is fresh zero pages. Probed at random, each page
	 * would fault twice: a read maps the shared zero page, the first
	 * insert copies it. One populating call instead (Linux 5.14+;
	 * elsewhere, or on failure, the pages fault as before).
	 */
	if (p && n * size >= 16 * page) {
		a = ((uintptr_t)p + page - 1) & ~(page - 1);
		b = ((uintptr_t)p + n * size) & ~(page - 1);
		if (b > a)
			madvise((void *)a, b - a, MADV_POPULATE_WRITE);
	}
#endif
	return p;
}

struct strarena_chunk {
	struct strarena_chunk *next;
	size_t used, size;
	char data[];
};

char *strarena__store(struct strarena *a, const char *s, size_t len)
{
	struct strarena_chunk *c = a->chunks;
	char *dst;

	if (!c || c->size - c->used < len + 1) {
		size_t size = !c ? a->first : c->size < a->max ?
			      2 * c->size : a->max;

		if (size < len + 1)
			size = len + 1;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = a->chunks;
		a->chunks = c;
	}
	dst = c->data + c->used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	c->used += len + 1;
	return dst;
}

void strarena__free(struct strarena *a)
{
	struct strarena_chunk *c, *next;

	for (c = a->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	a->chunks = NULL;
}

/* Strings live in large chunks so that interning does not malloc per string. */
#define CHUNK_SIZE (64 * 1024)

struct strpool {
	struct strarena strs_arena;
	const char **strs;	/* id -> string */
	uint32_t *lens;
	uint32_t *hashes;	/* low bits of each string's hash, for growing */
	uint32_t count, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	uint32_t nr_slots;
};

struct strpool *strpool__new(void)
{
	struct strpool *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->strs_arena.first = CHUNK_SIZE;
	sp->strs_arena.max = CHUNK_SIZE;
	sp->nr_slots = 1024;
	sp->slots = calloc(sp->nr_slots, sizeof(*sp->slots));
	if (!sp->slots) {
		free(sp);
		return NULL;
	}
	return sp;
}

void strpool__delete(struct strpool *sp)
{
	if (!sp)
		return;
	strarena__free(&sp->strs_arena);
	free(sp->strs);
	free(sp->lens);
	free(sp->hashes);
	free(sp->slots);
	free(sp);
}

static int grow_slots(struct strpool *sp)
{
	uint32_t n = sp->nr_slots * 2, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	/* Tables stay below 2^32 slots: the stored low bits suffice. */
	for (i = 0; i < sp->count; i++) {
		uint32_t j = sp->hashes[i] & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = i + 1;
	}
	free(sp->slots);
	sp->slots = slots;
	sp->nr_slots = n;
	return 0;
}

static int strpool_reserve(struct strpool *sp)
{
	uint32_t cap = sp->cap ? sp->cap * 2 : 256;
	const char **strs;
	uint32_t *u32;

	if (sp->count < sp->cap)
		return 0;
	strs = realloc(sp->strs, cap * sizeof(*strs));
	if (!strs)
		return -ENOMEM;
	sp->strs = strs;
	u32 = realloc(sp->lens, cap * sizeof(*u32));
	if (!u32)
		return -ENOMEM;
	sp->lens = u32;
	u32 = realloc(sp->hashes, cap * sizeof(*u32));
	if (!u32)
		return -ENOMEM;
	sp->hashes = u32;
	sp->cap = cap;
	return 0;
}

static uint32_t strpool_find(const struct strpool *sp, const char *s,
			     size_t len, uint64_t h, bool *found)
{
	uint32_t j, id;

	for (j = h & (sp->nr_slots - 1); sp->slots[j];
	     j = (j + 1) & (sp->nr_slots - 1)) {
		id = sp->slots[j] - 1;
		if (sp->lens[id] == len && !memcmp(sp->strs[id], s, len)) {
			*found = true;
			return id;
		}
	}
	*found = false;
	return j;
}

int strpool__intern(struct strpool *sp, const char *s, size_t len)
{
	uint64_t h;
	uint32_t j, id;
	bool found;
	char *copy;

	if (len > UINT32_MAX - 1)
		return -EINVAL;
	h = hash_bytes(s, len);
	j = strpool_find(sp, s, len, h, &found);
	if (found)
		return j;
	/*
	 * Everything that can fail happens before the string goes in, so a
	 * failure leaves the pool as it was. The table stays under half full.
	 */
	if ((sp->count + 1) * 2 > sp->nr_slots) {
		if (grow_slots(sp))
			return -ENOMEM;
		j = strpool_find(sp, s, len, h, &found);
	}
	if (strpool_reserve(sp))
		return -ENOMEM;
	copy = strarena__store(&sp->strs_arena, s, len);
	if (!copy)
		return -ENOMEM;
	id = sp->count++;
	sp->strs[id] = copy;
	sp->lens[id] = len;
	sp->hashes[id] = (uint32_t)h;
	sp->slots[j] = id + 1;
	return id;
}

const char *strpool__str(const struct strpool *sp, uint32_t id)
{
	return id < sp->count ? sp->strs[id] : NULL;
}

uint32_t strpool__count(const struct strpool *sp)
{
	return sp->count;
}

/*
 * 24-byte slots, at most three quarters full: the fold's frame and
 * process caches and the attribution's rows (the callchain tables,
 * larger, are chainmaps). A probe steps by one slot three times (the
 * home's cache lines), then by a stride of the key's own (odd: every
 * slot is visited), so that keys with one home do not line up in a run
 * that every later probe there walks.
 */
struct keymap_slot {
	uint64_t k0, k1;
	uint32_t val;
	uint32_t used;
};

struct keymap {
	struct keymap_slot *v;
	size_t cap, nr;		/* cap: 0 or a power of two */
};

static size_t keymap_home(const struct keymap *km, uint64_t k0, uint64_t k1)
{
	return hash_u64(k0 ^ (k1 << 32 | k1 >> 32)) & (km->cap - 1);
}

/* The key's slot, or the empty one where it would go (cap > 0). */
static struct keymap_slot *keymap_slot(const struct keymap *km, uint64_t k0,
				       uint64_t k1)
{
	size_t mask = km->cap - 1, i = keymap_home(km, k0, k1), n;
	struct keymap_slot *e;

	for (n = 0;; n++) {
		e = &km->v[i];
		if (!e->used || (e->k0 == k0 && e->k1 == k1))
			return e;
		i = (i + (n < 3 ? 1 : (hash_u64(k1 + k0) | 1))) & mask;
	}
}

static int keymap_grow(struct keymap *km)
{
	struct keymap_slot *old = km->v, *e;
	size_t old_cap = km->cap, i;

	km->cap = old_cap ? old_cap * 2 : 64;
	km->v = calloc_table(km->cap, sizeof(*km->v));
	if (!km->v) {
		km->v = old;
		km->cap = old_cap;
		return -ENOMEM;
	}
	for (i = 0; i < old_cap; i++) {
		if (!old[i].used)
			continue;
		e = keymap_slot(km, old[i].k0, old[i].k1);
		*e = old[i];
	}
	free(old);
	return 0;
}

struct keymap *keymap__new(void)
{
	return calloc(1, sizeof(struct keymap));
}

void keymap__delete(struct keymap *km)
{
	if (!km)
		return;
	free(km->v);
	free(km);
}

int keymap__find(const struct keymap *km, const uint64_t key[2],
		 uint32_t *val)
{
	const struct keymap_slot *e;

	if (!km->nr)
		return 0;
	e = keymap_slot(km, key[0], key[1]);
	if (!e->used)
		return 0;
	*val = e->val;
	return 1;
}

int keymap__set(struct keymap *km, const uint64_t key[2], uint32_t val)
{
	struct keymap_slot *e;

	if ((km->nr + 1) * 4 > km->cap * 3 && keymap_grow(km))
		return -ENOMEM;
	e = keymap_slot(km, key[0], key[1]);
	if (!e->used) {
		*e = (struct keymap_slot){ key[0], key[1], 0, 1 };
		km->nr++;
	}
	e->val = val;
	return 0;
}

uint32_t keymap__count(const struct keymap *km)
{
	return km->nr;
}

void chainmap__exit(struct chainmap *cm)
{
	free(cm->v);
	chainmap__init(cm);
}

int chainmap__insert(struct chainmap *cm, const uint64_t key[2],
		     uint64_t where, uint32_t val, bool spurt)
{
	struct chainmap_slot *c;

	if ((cm->nr + 1) * 4 > cm->cap * 3) {
		struct chainmap_slot *old = cm->v;
		size_t i, n = cm->cap, to;

		/* where keeps 32 bits of the home: the table stops there. */
		to = !n ? 4096 : n * (spurt && n <= (size_t)1 << 30 ? 4 : 2);
		if (to > (size_t)1 << 32)
			return 0;
		cm->v = calloc_table(to, sizeof(*cm->v));
		if (!cm->v) {
			cm->v = old;
			/* Only the shortcut is lost while room remains. */
			return cm->nr + 1 < n ? 0 : -ENOMEM;
		}
		cm->cap = to;
		for (i = 0; i < n; i++)
			if (old[i].val1)
				*chainmap__slot(cm, old[i].key, old[i].where) =
					old[i];
		free(old);
	}
	c = chainmap__slot(cm, key, where);
	if (c->val1)
		return 0;
	*c = (struct chainmap_slot){ { key[0], key[1] }, (uint32_t)where,
				     val + 1 };
	cm->nr++;
	return 1;
}

void bytebuf__put(struct bytebuf *b, const void *src, size_t n)
{
	if (b->oom || !n)
		return;
	if (grow_array((void **)&b->p, &b->cap, b->len + n, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

/* ---- hashtab ---------------------------------------------------------- */

#define HASHTAB_MIN 64

void hashtab__init(struct hashtab *t, size_t val_size)
{
	memset(t, 0, sizeof(*t));
	t->val_size = val_size;
	t->val_off = val_size <= 4 ? offsetof(struct hashtab_slot, used) + 4 :
				     sizeof(struct hashtab_slot);
	t->slot_size = (t->val_off + val_size + 7) & ~7UL;
}

void hashtab__exit(struct hashtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->nr = 0;
}

static int hashtab_resize(struct hashtab *t, size_t cap)
{
	unsigned char *old = t->slots;
	size_t old_cap = t->cap, i, j;

	t->slots = calloc_table(cap, t->slot_size);
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->cap = cap;
	for (i = 0; i < old_cap; i++) {
		struct hashtab_slot *o;

		o = (struct hashtab_slot *)(old + i * t->slot_size);
		if (!o->used)
			continue;
		j = hashtab__home(t, o->k0, o->k1);
		while (hashtab__at(t, j)->used)
			j = (j + 1) & (cap - 1);
		memcpy(hashtab__at(t, j), o, t->slot_size);
	}
	free(old);
	return 0;
}

void *hashtab__get(struct hashtab *t, uint64_t k0, uint64_t k1, bool *fresh)
{
	struct hashtab_slot *e;
	size_t i;
	void *v = hashtab__find(t, k0, k1);

	*fresh = false;
	if (v)
		return v;
	if ((t->nr + 1) * 2 > t->cap &&
	    hashtab_resize(t, t->cap ? t->cap * 2 : HASHTAB_MIN))
		return NULL;
	for (i = hashtab__home(t, k0, k1); hashtab__at(t, i)->used;
	     i = (i + 1) & (t->cap - 1))
		;
	e = hashtab__at(t, i);
	memset(e, 0, t->slot_size);
	e->k0 = k0;
	e->k1 = k1;
	e->used = 1;
	t->nr++;
	*fresh = true;
	return hashtab__val(t, e);
}

void hashtab__remove(struct hashtab *t, void *val)
{
	struct hashtab_slot *e = (struct hashtab_slot *)((char *)val -
							 t->val_off);
	size_t mask = t->cap - 1;
	size_t i = ((unsigned char *)e - t->slots) / t->slot_size, j = i, h;

	/*
	 * Backward shift: move back each later entry of the probe run whose
	 * home slot does not lie cyclically in (i, j], so that every entry
	 * stays reachable from its home without tombstones.
	 */
	for (;;) {
		struct hashtab_slot *f;

		j = (j + 1) & mask;
		f = hashtab__at(t, j);
		if (!f->used)
			break;
		h = hashtab__home(t, f->k0, f->k1);
		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		memcpy(hashtab__at(t, i), f, t->slot_size);
		i = j;
	}
	hashtab__at(t, i)->used = 0;
	t->nr--;
	/* Give memory back after a burst of open keys has closed. */
	if (t->cap > HASHTAB_MIN && t->nr * 8 < t->cap)
		/* On failure the big table stays: no harm. */
		hashtab_resize(t, t->cap / 2);
}

void hashtab__clear(struct hashtab *t)
{
	if (t->slots)
		memset(t->slots, 0, t->cap * t->slot_size);
	t->nr = 0;
}

uint64_t rs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double rs_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- offload ---------------------------------------------------------- */

void offload__init(struct offload *o, bool active, bool watch_cpu)
{
	*o = (struct offload){ .active = active, .on = true, .fresh_on = true,
			       .cpu_ok = true, .watch_cpu = watch_cpu };
}

/* The span has run its length: time to read the run queue's wait. */
static bool offload_span_due(const struct offload *o, uint64_t wall_ns)
{
	return o->watch_cpu &&
	       (!o->span_wall || wall_ns - o->span_wall >= OFFLOAD_SPAN_NS);
}

void offload__judge(struct offload *o, uint64_t wall_ns, uint64_t runq_ns)
{
	bool on;

	o->fresh_on = o->fresh * (o->fresh_on ? 8 : 4) >= OFFLOAD_WINDOW;
	o->seen = 0;
	o->fresh = 0;
	/* The first span begins at the first window's end. */
	if (offload_span_due(o, wall_ns) && runq_ns != ~0ULL) {
		if (o->span_wall) {
			o->cpu_ok = (runq_ns - o->span_runq) * 10 <
				    wall_ns - o->span_wall;
			o->nr_short += !o->cpu_ok;
		}
		o->span_wall = wall_ns;
		o->span_runq = runq_ns;
	}
	on = o->fresh_on && o->cpu_ok;
	o->nr_on += on && !o->on;
	o->nr_off += !on && o->on;
	o->on = on;
}

/*
 * The time this thread has waited on a run queue, ns (the second field
 * of its schedstat); ~0ULL when it cannot be read.
 */
static uint64_t thread_runq_ns(void)
{
	char buf[96];
	unsigned long long run, wait;
	ssize_t n;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ~0ULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return ~0ULL;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return ~0ULL;
	return wait;
}

void offload__window(struct offload *o)
{
	uint64_t wall = rs_mono_ns();

	offload__judge(o, wall,
		       offload_span_due(o, wall) ? thread_runq_ns() : ~0ULL);
}

/* ---- workq ------------------------------------------------------------ */

/* Blocks in flight: the caller fills one while the thread runs others. */
#define WORKQ_BLOCKS 8

struct workq {
	workq_fn fn;
	void *ctx;
	size_t rec_size;
	uint32_t block_recs;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled;	/* a block was handed over, or done */
	pthread_cond_t freed;	/* a block was run */
	uint8_t *blk[WORKQ_BLOCKS];
	uint32_t nr[WORKQ_BLOCKS];
	uint32_t fill;		/* the block the caller fills */
	uint32_t used;		/* records in it */
	uint32_t head;		/* the next block to run */
	uint32_t count;		/* handed over, not yet run */
	bool done;
	bool shared;		/* no thread: helpers and the caller run it */
	bool running;		/* a block is being run */
	void (*notify)(void *ctx);	/* shared: a block was handed over */
	void *notify_ctx;
	int err;		/* fn's first error, the runner's side */
	int caller_err;		/* what the caller has heard of it */
};

/*
 * With q->lock held: run the next block, unless there is none or one is
 * being run (blocks run one at a time, in order); true when one ran.
 * After an error the later blocks are skipped.
 */
static bool workq_run_next(struct workq *q)
{
	bool skip = q->err != 0;
	uint32_t nr;
	void *recs;
	int err;

	if (!q->count || q->running)
		return false;
	q->running = true;
	recs = q->blk[q->head];
	nr = q->nr[q->head];
	pthread_mutex_unlock(&q->lock);

	err = skip ? 0 : q->fn(q->ctx, recs, nr);

	pthread_mutex_lock(&q->lock);
	if (err && !q->err)
		q->err = err;
	q->head = (q->head + 1) % WORKQ_BLOCKS;
	q->count--;
	q->running = false;
	pthread_cond_broadcast(&q->freed);
	return true;
}

static void *workq_main(void *arg)
{
	struct workq *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->count && !q->done)
			pthread_cond_wait(&q->filled, &q->lock);
		if (!workq_run_next(q))
			break;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static void workq_free(struct workq *q)
{
	uint32_t i;

	for (i = 0; i < WORKQ_BLOCKS; i++)
		free(q->blk[i]);
	free(q);
}

static struct workq *workq_new(size_t rec_size, uint32_t block_recs,
			       workq_fn fn, void *ctx, bool shared)
{
	struct workq *q = calloc(1, sizeof(*q));
	uint32_t i;

	if (!q)
		return NULL;
	for (i = 0; i < WORKQ_BLOCKS; i++) {
		q->blk[i] = malloc(rec_size * block_recs);
		if (!q->blk[i]) {
			workq_free(q);
			return NULL;
		}
	}
	q->fn = fn;
	q->ctx = ctx;
	q->rec_size = rec_size;
	q->block_recs = block_recs;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->filled, NULL);
	pthread_cond_init(&q->freed, NULL);
	q->shared = shared;
	if (!shared && pthread_create(&q->thread, NULL, workq_main, q)) {
		pthread_cond_destroy(&q->freed);
		pthread_cond_destroy(&q->filled);
		pthread_mutex_destroy(&q->lock);
		workq_free(q);
		return NULL;
	}
	return q;
}

struct workq *workq__new(size_t rec_size, uint32_t block_recs, workq_fn fn,
			 void *ctx)
{
	return workq_new(rec_size, block_recs, fn, ctx, false);
}

struct workq *workq__new_shared(size_t rec_size, uint32_t block_recs,
				workq_fn fn, void *ctx,
				void (*notify)(void *ctx), void *notify_ctx)
{
	struct workq *q = workq_new(rec_size, block_recs, fn, ctx, true);

	if (q) {
		q->notify = notify;
		q->notify_ctx = notify_ctx;
	}
	return q;
}

/* With q->lock held: until cond holds, run blocks (shared) or wait. */
#define WORKQ_WAIT(q, cond)						\
	while (!(cond))							\
		if (!(q)->shared || !workq_run_next(q))			\
			pthread_cond_wait(&(q)->freed, &(q)->lock)

/*
 * Hand the block being filled over; the next one must be free. The
 * runner's error comes back here, so that the caller stops at its next
 * block rather than at the end.
 */
static void workq_publish(struct workq *q)
{
	bool handed = false;

	pthread_mutex_lock(&q->lock);
	if (q->used) {
		q->nr[q->fill] = q->used;
		q->count++;
		q->fill = (q->fill + 1) % WORKQ_BLOCKS;
		pthread_cond_signal(&q->filled);
		handed = true;
	}
	WORKQ_WAIT(q, q->count < WORKQ_BLOCKS);
	/* The runner's, or this thread's own (shared). */
	if (q->err && !q->caller_err)
		q->caller_err = q->err;
	pthread_mutex_unlock(&q->lock);
	q->used = 0;
	if (handed && q->notify)
		q->notify(q->notify_ctx);
}

bool workq__help(struct workq *q)
{
	bool ran;

	pthread_mutex_lock(&q->lock);
	ran = q->shared && workq_run_next(q);
	pthread_mutex_unlock(&q->lock);
	return ran;
}

void *workq__reserve(struct workq *q, uint32_t n)
{
	void *p;

	if (n > q->block_recs && !q->caller_err)
		q->caller_err = -E2BIG;
	if (q->used + n > q->block_recs && !q->caller_err)
		workq_publish(q);
	if (q->caller_err)
		return NULL;
	p = q->blk[q->fill] + q->used * q->rec_size;
	q->used += n;
	return p;
}

int workq__drain(struct workq *q)
{
	int err;

	workq_publish(q);
	pthread_mutex_lock(&q->lock);
	WORKQ_WAIT(q, !q->count && !q->running);
	err = q->err ? q->err : q->caller_err;
	pthread_mutex_unlock(&q->lock);
	return err;
}

int workq__error(const struct workq *q)
{
	return q->caller_err;
}

int workq__delete(struct workq *q)
{
	int err;

	if (!q)
		return 0;
	err = workq__drain(q);
	pthread_mutex_lock(&q->lock);
	q->done = true;
	pthread_cond_signal(&q->filled);
	pthread_mutex_unlock(&q->lock);
	if (!q->shared)
		pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->freed);
	pthread_cond_destroy(&q->filled);
	pthread_mutex_destroy(&q->lock);
	workq_free(q);
	return err;
}
