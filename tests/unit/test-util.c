// SPDX-License-Identifier: GPL-2.0
/* String interning and the JSON writer. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gnuplot.h"
#include "json.h"
#include "unit.h"
#include "util.h"

static void test_strpool_ids_are_dense_and_stable(void)
{
	struct strpool *sp = strpool__new();
	const char *first;
	char buf[32];
	int i, id;

	CHECK(sp != NULL);
	CHECK_INT(strpool__intern(sp, "css_rstat_flush", 15), 0);
	CHECK_INT(strpool__intern(sp, "memcg1_stat_format", 18), 1);
	CHECK_INT(strpool__intern(sp, "css_rstat_flush", 15), 0);
	/* Length, not NUL, delimits: a prefix is another string. */
	CHECK_INT(strpool__intern(sp, "css_rstat_flush", 3), 2);
	CHECK_STR(strpool__str(sp, 2), "css");
	first = strpool__str(sp, 0);
	/* Grow well past the first table and chunk sizes. */
	for (i = 0; i < 100000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		id = strpool__intern(sp, buf, strlen(buf));
		if (id != i + 3) {
			CHECK_INT(id, i + 3);
			break;
		}
	}
	CHECK(strpool__str(sp, 0) == first);
	CHECK_STR(strpool__str(sp, 0), "css_rstat_flush");
	CHECK_INT(strpool__intern(sp, "sym_4242", 8), 4245);
	CHECK_STR(strpool__str(sp, 4245), "sym_4242");
	CHECK_U64(strpool__count(sp), 100003);
	CHECK(strpool__str(sp, 100003) == NULL);
	strpool__delete(sp);
}

/*
 * The hashtab under every table: values stay found through growth, removal
 * (backward shift) keeps the rest of each probe run reachable, shrinking
 * loses nothing; and the keymap keeps its set/find contract.
 */
/*
 * Copies stay where they were put while the arena grows: chunks double
 * up to max, and a string longer than max gets a chunk of its own.
 */
static void test_strarena(void)
{
	struct strarena a = { .first = 16, .max = 64 };
	char *copies[200], big[300], want[16];
	int i;

	for (i = 0; i < 200; i++) {
		snprintf(want, sizeof(want), "name%d", i);
		copies[i] = strarena__store(&a, want, strlen(want));
		CHECK(copies[i] != NULL);
	}
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_STR(strarena__store(&a, big, sizeof(big) - 1), big);
	/* Not NUL-terminated at the source: the copy is. */
	CHECK_STR(strarena__store(&a, "abcdef", 3), "abc");
	for (i = 0; i < 200; i++) {
		snprintf(want, sizeof(want), "name%d", i);
		CHECK_STR(copies[i], want);
	}
	strarena__free(&a);
	CHECK(a.chunks == NULL);
	strarena__free(&a);
}

static void test_hashtab_grow_remove(void)
{
	struct hashtab t;
	struct keymap *km = keymap__new();
	uint64_t k[2];
	uint32_t i, v, missing = 0;
	bool fresh;

	hashtab__init(&t, sizeof(uint32_t));
	for (i = 0; i < 5000; i++) {
		uint32_t *p = hashtab__get(&t, i * 7919ULL, i & 3, &fresh);

		CHECK(p && fresh);
		*p = i;
	}
	CHECK(t.nr == 5000);
	CHECK(!hashtab__find(&t, 5000 * 7919ULL, 0));
	for (i = 0; i < 5000; i += 2)
		hashtab__remove(&t, hashtab__find(&t, i * 7919ULL, i & 3));
	for (i = 0; i < 5000; i++) {
		uint32_t *p = hashtab__find(&t, i * 7919ULL, i & 3);

		if (i % 2 ? !p || *p != i : p != NULL)
			missing++;
	}
	CHECK(missing == 0);
	for (i = 1; i < 5000; i += 2)
		hashtab__remove(&t, hashtab__find(&t, i * 7919ULL, i & 3));
	CHECK(t.nr == 0 && t.cap == 64);
	hashtab__exit(&t);

	CHECK(km != NULL);
	k[0] = 1;
	k[1] = 2;
	CHECK(!keymap__find(km, k, &v));
	CHECK(keymap__set(km, k, 7) == 0 && keymap__set(km, k, 9) == 0);
	CHECK(keymap__find(km, k, &v) && v == 9 && keymap__count(km) == 1);
	keymap__delete(km);
}

/*
 * The keymap's own table: every key keeps its value through growth, keys
 * that share one home (k0 ^ k1 rotated by 32 is all the home depends on)
 * each keep a slot of their own past it, and a key never set is not
 * found.
 */
static void test_keymap_grow_shared_home(void)
{
	struct keymap *km = keymap__new();
	uint32_t i, v, missing = 0;
	uint64_t k[2];

	CHECK(km != NULL);
	for (i = 0; i < 6000; i++) {
		k[1] = i;
		/* Half of them at one home, the rest spread. */
		k[0] = i % 2 ? 0x1234 ^ ((uint64_t)i << 32) : i * 7919ULL;
		CHECK(keymap__set(km, k, i) == 0);
	}
	CHECK_U64(keymap__count(km), 6000);
	for (i = 0; i < 6000; i++) {
		k[1] = i;
		k[0] = i % 2 ? 0x1234 ^ ((uint64_t)i << 32) : i * 7919ULL;
		if (!keymap__find(km, k, &v) || v != i)
			missing++;
	}
	CHECK(missing == 0);
	k[0] = 0x1234 ^ (6001ULL << 32);
	k[1] = 6001;
	CHECK(!keymap__find(km, k, &v));
	k[0] = 0x1234 ^ (1ULL << 32);
	k[1] = 1;
	CHECK(keymap__set(km, k, 42) == 0);
	CHECK(keymap__find(km, k, &v) && v == 42);
	CHECK_U64(keymap__count(km), 6000);
	keymap__delete(km);
}

/*
 * The callchain table: keys placed by another hash (where), many keys on
 * one home (one raw chain under many naming states), growth twice and
 * four times over; a key put twice keeps its first value.
 */
static void test_chainmap(void)
{
	struct chainmap cm;
	uint64_t k[2];
	uint32_t v, i;

	chainmap__init(&cm);
	k[0] = 1;
	k[1] = 2;
	CHECK(!chainmap__find(&cm, k, 7, &v));
	CHECK(!chainmap__home(&cm, 7, &v));
	for (i = 0; i < 20000; i++) {
		k[0] = hash_u64(i);
		k[1] = hash_u64(k[0]);
		/* Half the keys on one home, the rest on homes of their own. */
		CHECK_INT(chainmap__insert(&cm, k, i % 2 ? 12345 : i, i * 3,
					   i > 10000), 1);
	}
	CHECK_U64(cm.nr, 20000);
	/*
	 * 4096 -> 8192 -> 16384 twice over while spurt was off, then four
	 * times over (32768 without it).
	 */
	CHECK_U64(cm.cap, 65536);
	for (i = 0; i < 20000; i++) {
		k[0] = hash_u64(i);
		k[1] = hash_u64(k[0]);
		CHECK(chainmap__find(&cm, k, i % 2 ? 12345 : i, &v) &&
		      v == i * 3);
		CHECK_INT(chainmap__insert(&cm, k, i % 2 ? 12345 : i, 1,
					   false), 0);
	}
	k[0] = hash_u64(1);
	k[1] = hash_u64(k[0]);
	CHECK(chainmap__find(&cm, k, 12345, &v) && v == 3);
	CHECK(chainmap__home(&cm, 12345, &v) && v % 2 == 1 && v % 3 == 0);
	k[1]++;
	CHECK(!chainmap__find(&cm, k, 12345, &v));
	chainmap__exit(&cm);
	CHECK(!cm.v && !cm.nr && !cm.cap);

	/*
	 * 40k keys on one home that share their second half (a crafted
	 * recording's empty callchains, one naming state): each probes a
	 * few slots, not all the keys before it: 879 ms without the
	 * sanitizers when the stride came from the second half alone, a
	 * few ms now, even with them.
	 */
	{
		struct timespec t0, t1;
		double ms;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < 40000; i++) {
			k[0] = (uint64_t)i << 24;
			k[1] = 77;
			CHECK_INT(chainmap__insert(&cm, k, 5, i, false), 1);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1e3 +
		     (t1.tv_nsec - t0.tv_nsec) / 1e6;
		CHECK(ms < 200);
		k[0] = (uint64_t)39999 << 24;
		CHECK(chainmap__find(&cm, k, 5, &v) && v == 39999);
		chainmap__exit(&cm);
	}
}

static void test_hash_bytes_differs_on_tail(void)
{
	CHECK(hash_bytes("abcdefghi", 9) != hash_bytes("abcdefghj", 9));
	CHECK(hash_bytes("abcdefgh", 8) == hash_bytes("abcdefgh", 8));
	CHECK(hash_bytes("", 0) != hash_bytes("a", 1));
}

/*
 * The callchain hash (two pairs of lanes, even and odd words): every word
 * counts in both halves, wherever it is, and so do order and length; the
 * marker is seen in either lane and in the odd word at the end.
 */
static void test_hash_words128_lanes(void)
{
	uint64_t w[10], base[2], h[2];
	size_t n, i;

	for (n = 0; n <= 9; n++) {
		for (i = 0; i < n; i++)
			w[i] = 0xffffffff81000000ULL + i * 0x40;
		CHECK(!hash_words128_find(w, n, 7, base));
		for (i = 0; i < n; i++) {
			w[i] ^= 1;
			hash_words128(w, n, h);
			CHECK(h[0] != base[0] && h[1] != base[1]);
			w[i] ^= 1;
			w[i] = 7;
			CHECK(hash_words128_find(w, n, 7, h));
			w[i] = 0xffffffff81000000ULL + i * 0x40;
		}
		if (n >= 2) {
			w[n - 2] = 0xffffffff81000000ULL + (n - 1) * 0x40;
			w[n - 1] = 0xffffffff81000000ULL + (n - 2) * 0x40;
			hash_words128(w, n, h);
			CHECK(h[0] != base[0] && h[1] != base[1]);
		}
	}
	/* A trailing zero word is a longer chain, not the same one. */
	w[0] = 5;
	w[1] = 0;
	hash_words128(w, 1, base);
	hash_words128(w, 2, h);
	CHECK(h[0] != base[0] && h[1] != base[1]);
	hash_words128(w, 1, h);
	CHECK(h[0] == base[0] && h[1] == base[1]);
}

/*
 * Text for a terminal: controls shown as errors show them, C1 controls
 * raw or UTF-8 encoded too, UTF-8 text as it is even cut between two
 * writes, and the tool's own sequence (term_control()) sent as it is.
 */
/*
 * A guest's console: its escapes and C0 controls (the CRs) dropped, DEL
 * and C1 controls shown, raw or in UTF-8, UTF-8 text as it is; an
 * escape cut short ends it.
 */
static void test_console_show(void)
{
	static const struct {
		const char *in, *want;
		bool open;
	} cases[] = {
		{ "a\033[2Jb\r\n", "ab\n", false },
		{ "\x7f\xc2\x9b\x9bz\t\x01\n", "\\177\\302\\233\\233z\t\n",
		  false },
		{ "caf\xc3\xa9 \xe2\x82\xac",
		  "caf\xc3\xa9 \xe2\x82\xac", true },
		{ "ok\033[1;3", "ok", true },
		{ "", "", false },
	};
	char *out;
	size_t i, len;
	bool open;
	FILE *m;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		out = NULL;
		m = open_memstream(&out, &len);
		CHECK(m != NULL);
		if (!m)
			return;
		open = console_show(m, cases[i].in);
		fclose(m);
		CHECK_STR(out, cases[i].want);
		CHECK_INT(open, cases[i].open);
		free(out);
	}
}

static void test_term_stream(void)
{
	static const char want[] =
		"a\\033]0;t\\007b\tc\n"		/* OSC title: shown */
		"\\r\\177\\233\\302\\233"	/* CR, DEL, C1 raw and UTF-8 */
		"\xc2\xb0 \xe2\x80\x9c\xc3\xa9\n"	/* degree, quote, e-acute */
		"\033[H\033[2J"			/* term_control(): as it is */
		"end\xc2";			/* a cut character at close */
	char got[256];
	int fds[2];
	ssize_t n;
	FILE *f;

	if (pipe(fds)) {
		UNIT_FAIL("pipe");
		return;
	}
	f = term_stream(fds[1]);
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("a\033]0;t\007b\tc\n", f);
	fputs("\r\177\233\302\233", f);
	/* An e-acute cut between two flushes, and a C2 lead likewise. */
	fputs("\xc2", f);
	fflush(f);
	fputs("\xb0 \xe2\x80\x9c\xc3", f);
	fflush(f);
	fputs("\xa9\n", f);
	term_control(f, "\033[H\033[2J");
	fputs("end\xc2", f);
	CHECK_INT(fclose(f), 0);
	/* The descriptor stays open: closing the stream is not closing it. */
	CHECK_INT(write(fds[1], "", 0), 0);
	close(fds[1]);
	n = read(fds[0], got, sizeof(got) - 1);
	close(fds[0]);
	CHECK(n == (ssize_t)strlen(want));
	got[n < 0 ? 0 : n] = '\0';
	CHECK_STR(got, want);
	/* A control sequence longer than the stream's buffer, whole. */
	if (pipe(fds) == 0) {
		static char big[2049], back[2100];
		size_t got_n = 0;

		memset(big, 'x', sizeof(big) - 1);
		big[0] = '\033';
		f = term_stream(fds[1]);
		CHECK(f != NULL);
		if (f) {
			term_control(f, big);
			CHECK_INT(fclose(f), 0);
		}
		close(fds[1]);
		while ((n = read(fds[0], back + got_n,
				 sizeof(back) - 1 - got_n)) > 0)
			got_n += n;
		close(fds[0]);
		back[got_n] = '\0';
		CHECK(got_n == sizeof(big) - 1 && !strcmp(back, big));
	}
	/*
	 * C1 bytes inside sequences that make no character: overlong
	 * (U+009B in three bytes), a bad second byte, a character cut by
	 * the next; a whole one with such a byte stays as it is (U+D7FF).
	 */
	{
		static const struct { const char *in, *want; } cases[] = {
			{ "\xe0\x82\x9b", "\xe0\\202\\233" },
			{ "\xe0\x9bx", "\xe0\\233x" },
			{ "\xed\x9bx", "\xed\\233x" },
			{ "\xed\x9f\xbf", "\xed\x9f\xbf" },
			{ "\xf4\x90\x80\x80", "\xf4\\220\\200\\200" },
			{ "\xe2\x80", "\xe2\\200" },	/* cut at the end */
		};
		size_t i, k, len;

		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			struct ctl_show st = { 0 };
			char out[64];

			for (k = len = 0; cases[i].in[k]; k++)
				len += ctl_show(&st, (unsigned char)cases[i].in[k],
						false, out + len);
			len += ctl_show_end(&st, out + len);
			out[len] = '\0';
			CHECK_STR(out, cases[i].want);
		}
	}
	/* Not a term_stream(): term_control() is fputs(). */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		term_control(m, "\033[H");
		fclose(m);
		CHECK_STR(buf, "\033[H");
		free(buf);
	}
}

static void test_json_writer(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer *jw = json_writer__new(f);

	json__object_begin(jw, NULL);
	json__string(jw, "name", "a\"b\\c\n\x01");
	json__array_begin(jw, "events");
	json__u64(jw, NULL, 18446744073709551615ULL);
	json__i64(jw, NULL, -1);
	json__array_end(jw);
	json__array_begin(jw, "empty");
	json__array_end(jw);
	json__bool(jw, "ok", true);
	json__string(jw, "none", NULL);
	json__double(jw, "half", 0.5);
	json__object_end(jw);
	json_writer__delete(jw);
	fclose(f);
	CHECK_STR(buf, "{\n"
		  "  \"name\": \"a\\\"b\\\\c\\n\\u0001\",\n"
		  "  \"events\": [\n"
		  "    18446744073709551615,\n"
		  "    -1\n"
		  "  ],\n"
		  "  \"empty\": [],\n"
		  "  \"ok\": true,\n"
		  "  \"none\": null,\n"
		  "  \"half\": 0.5\n"
		  "}\n");
	free(buf);
}

/* Any bytes in, valid UTF-8 out: bad sequences become U+FFFD. */
static void test_json_utf8(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_escape(f, "caf\xc3\xa9 \xff \xc0\xaf \xed\xa0\x80 \xe2\x82 \xf0\x9f\x98\x80");
	fclose(f);
	CHECK_STR(buf, "\"caf\xc3\xa9 \\ufffd \\ufffd\\ufffd "
		  "\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd "
		  "\xf0\x9f\x98\x80\"");
	free(buf);
}

/*
 * Quotes and backslashes, newline and tab take the JSON escapes; every
 * other control byte takes \r and \u00XX (DEL is left raw).
 */
static void test_quote_controls(void)
{
	char in[] = "a\"b\\c\nd\te\rf\001g\037h\177i";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_escape(f, in);
	fclose(f);
	CHECK_STR(buf, "\"a\\\"b\\\\c\\nd\\te\\rf\\u0001g\\u001fh\177i\"");
	free(buf);
}

/* RFC 4180: quoted only when it must be, a quote inside doubled. */
static void test_csv_field(void)
{
	static const char *const in[] = {
		"plain", "", "a,b", "say \"hi\"", "cr\rlf\n", "semi;tab\t",
	};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		UNIT_FAIL("open_memstream");
		return;
	}
	for (i = 0; i < sizeof(in) / sizeof(*in); i++) {
		fput_csv_field(f, in[i]);
		fputc('|', f);
	}
	fclose(f);
	CHECK_STR(buf, "plain||\"a,b\"|\"say \"\"hi\"\"\"|\"cr\rlf\n\"|"
		  "semi;tab\t|");
	free(buf);
}

#define FFFD "\xef\xbf\xbd"

/* s as gnuplot__string() writes it. */
static char *gp_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gnuplot__string(f, s);
	fclose(f);
	return buf;
}

/*
 * gnuplot strings from any text: single-quoted (gnuplot expands nothing
 * in them), a quote doubled, a backslash as it is, a line break as the
 * constant "\n" joined on; the other control characters, each byte of
 * invalid UTF-8 (a surrogate's three), C1 controls and U+FFFE/U+FFFF as
 * U+FFFD; tab and valid UTF-8 as they are.
 */
static void test_gnuplot_string(void)
{
	char *s;

	s = gp_string("a\"b\\c\nd\te\rf\001g\037h\177i");
	CHECK_STR(s, "'a\"b\\c' . \"\\n\" . 'd\te" FFFD "f" FFFD "g" FFFD
		  "h" FFFD "i'");
	free(s);
	s = gp_string("it's `id` $x @m ; # \\");
	CHECK_STR(s, "'it''s `id` $x @m ; # \\'");
	free(s);
	s = gp_string("\n'");
	CHECK_STR(s, "'' . \"\\n\" . ''''");
	free(s);
	s = gp_string("caf\xc3\xa9 \xff \xc3 \xc2\x85 \xef\xbf\xbf "
		      "\xed\xa0\x80 \xf0\x9f\x98\x80");
	CHECK_STR(s, "'caf\xc3\xa9 " FFFD " " FFFD " " FFFD " " FFFD " "
		  FFFD FFFD FFFD " \xf0\x9f\x98\x80'");
	free(s);
	s = gp_string("");
	CHECK_STR(s, "''");
	free(s);
}

/*
 * A path byte for byte: what a label replaces is joined on as "\ooo",
 * one constant per run of such bytes.
 */
static void test_gnuplot_path(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gnuplot__path(f, "a'`b`\n\r\xff\xc3\xa9\tc\xc2\x85");
	fclose(f);
	CHECK_STR(buf, "'a''`b`' . \"\\012\\015\\377\" . '\xc3\xa9\tc' . "
		  "\"\\302\\205\" . ''");
	free(buf);
}

/* Worked by hand, as sh reads them back. */
static void test_shell_words(void)
{
	char *argv[] = { "bench", "--json", "my results's.json", "",
			 "a,b=c:d/e.f-g_h@i%j+k", "$HOME", "x\ny" };
	const char *want = "cmd bench --json 'my results'\\''s.json' '' "
		"a,b=c:d/e.f-g_h@i%j+k '$HOME' 'x\ny'";
	char buf[128], small[12];
	size_t n;

	memcpy(buf, "cmd", 4);
	n = shell_words(buf, sizeof(buf), 3, 7, argv);
	CHECK_STR(buf, want);
	CHECK_INT((int)n, (int)strlen(want));
	/* Cut short: what fits, terminated; the length it needed. */
	n = shell_words(small, sizeof(small), 0, 3, argv);
	CHECK_STR(small, "bench --jso");
	CHECK_INT((int)n, (int)strlen("bench --json 'my results'\\''s.json'"));
	CHECK_INT((int)shell_words(NULL, 0, 0, 1, argv), 5);
}

/* workq's thread: checks each run of records continues the one before. */
struct wq_seen {
	uint32_t next;		/* the value expected next */
	uint32_t blocks;
	uint32_t fail_at;	/* fail on the block holding this value */
	uint32_t after_err;	/* blocks run after an error (none) */
	bool failed;
};

static int wq_run(void *arg, void *recs, uint32_t nr)
{
	struct wq_seen *w = arg;
	const uint32_t *v = recs;
	uint32_t i;

	if (w->failed)
		w->after_err++;
	w->blocks++;
	/*
	 * Each record: its number << 3 | the records left in its run,
	 * itself included; a block never ends inside a run.
	 */
	if (nr && (v[nr - 1] & 7) != 1)
		return -EPIPE;
	for (i = 0; i < nr; i++) {
		if (v[i] >> 3 != w->next)
			return -EILSEQ;
		if (v[i] >> 3 == w->fail_at) {
			w->failed = true;
			return -ENOSPC;
		}
		w->next++;
	}
	return 0;
}

/*
 * nr runs of 1 to 7 records numbered on from *v, each record its number
 * << 3 | the records left in its run; a drain after run drain_at must
 * leave every record run.
 */
static void wq_feed(struct workq *q, uint32_t nr, uint32_t drain_at,
		    const struct wq_seen *seen, uint32_t *v)
{
	uint32_t i, k, n, *r;

	for (i = 0; i < nr; i++) {
		n = 1 + i % 7;
		r = workq__reserve(q, n);
		for (k = 0; k < n; k++)
			r[k] = (*v)++ << 3 | (n - k);
		if (i == drain_at) {
			CHECK_INT(workq__drain(q), 0);
			CHECK_U64(seen->next, *v);
		}
	}
}

/*
 * q runs wq_run() on seen, set to fail at record 300: the caller hears
 * of the error at a block handed over after it, reserve says NULL, and
 * why, long before the 2000th record; later blocks are skipped.
 */
static void wq_check_error(struct workq *q, const struct wq_seen *seen)
{
	uint32_t v, *r;

	CHECK(q != NULL);
	if (!q)
		return;
	for (v = 0; v < 2000 && (r = workq__reserve(q, 1)); v++)
		*r = v << 3 | 1;
	CHECK(v < 2000);
	CHECK_INT(workq__error(q), -ENOSPC);
	CHECK_INT(workq__delete(q), -ENOSPC);
	CHECK_U64(seen->next, 300);
	CHECK_U64(seen->after_err, 0);
}

/*
 * Records reach the thread in the order reserved, runs of several never
 * split over two blocks; after a drain, what the thread wrote is the
 * caller's to read; an error skips later blocks, stops the caller at
 * its next block and is returned; a run longer than a block is refused.
 */
static void test_workq_order_and_error(void)
{
	struct wq_seen seen = { .fail_at = UINT32_MAX };
	struct workq *q = workq__new(sizeof(uint32_t), 64, wq_run, &seen);
	uint32_t v = 0;

	CHECK(q != NULL);
	if (!q)
		return;
	wq_feed(q, 5000, 2500, &seen, &v);
	CHECK_INT(workq__delete(q), 0);
	CHECK_U64(seen.next, v);
	CHECK(seen.blocks > 5000 * 4 / 64);

	seen = (struct wq_seen){ .fail_at = 300 };
	wq_check_error(workq__new(sizeof(uint32_t), 16, wq_run, &seen), &seen);
	CHECK(workq__delete(NULL) == 0);

	/* More records than a block holds: refused, not overrun. */
	seen = (struct wq_seen){ .fail_at = UINT32_MAX };
	q = workq__new(sizeof(uint32_t), 16, wq_run, &seen);
	CHECK(q != NULL);
	if (!q)
		return;
	CHECK(workq__reserve(q, 17) == NULL);
	CHECK_INT(workq__error(q), -E2BIG);
	CHECK_INT(workq__delete(q), -E2BIG);
}

struct wq_notified {
	uint32_t calls;
};

static void wq_notify(void *arg)
{
	((struct wq_notified *)arg)->calls++;
}

struct wq_helper {
	struct workq *q;
	bool stop;
	uint32_t ran;
};

static void *wq_help(void *arg)
{
	struct wq_helper *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
		if (workq__help(h->q))
			__atomic_add_fetch(&h->ran, 1, __ATOMIC_RELEASE);
		else
			sched_yield();
	return NULL;
}

/*
 * A workq without a thread: with nobody helping, the caller runs the
 * blocks when it needs room and when it drains; with a thread calling
 * workq__help(), blocks run there too, one at a time and in order
 * whoever runs them; notify is called once per block handed over, on
 * the caller's thread; an error stops the caller as with a thread.
 */
static void test_workq_shared(void)
{
	struct wq_seen seen = { .fail_at = UINT32_MAX };
	struct wq_notified nt = { 0 };
	struct wq_helper h = { 0 };
	uint32_t v = 0, i, *r;
	struct workq *q;
	pthread_t t;

	q = workq__new_shared(sizeof(uint32_t), 16, wq_run, &seen, wq_notify,
			      &nt);
	CHECK(q != NULL);
	if (!q)
		return;
	for (i = 0; i < 300; i++) {
		r = workq__reserve(q, 1);
		*r = v++ << 3 | 1;
	}
	/* Eight blocks of room: the caller ran the first ones itself. */
	CHECK(seen.next > 0 && seen.next < v);
	CHECK_INT(workq__drain(q), 0);
	CHECK_U64(seen.next, v);
	CHECK_INT((int)nt.calls, (int)seen.blocks);
	CHECK_INT(workq__delete(q), 0);

	seen = (struct wq_seen){ .fail_at = UINT32_MAX };
	v = 0;
	q = workq__new_shared(sizeof(uint32_t), 64, wq_run, &seen, NULL, NULL);
	CHECK(q != NULL);
	if (!q)
		return;
	h.q = q;
	if (pthread_create(&t, NULL, wq_help, &h)) {
		UNIT_FAIL("pthread_create");
		workq__delete(q);
		return;
	}
	/*
	 * A few blocks handed over, not enough to fill the ring: only the
	 * helper runs them, whenever it gets a CPU.
	 */
	wq_feed(q, 60, UINT32_MAX, &seen, &v);
	for (i = 0; i < 5000 && !__atomic_load_n(&h.ran, __ATOMIC_ACQUIRE);
	     i++)
		usleep(1000);
	CHECK(__atomic_load_n(&h.ran, __ATOMIC_ACQUIRE) > 0);
	wq_feed(q, 20000, 10000, &seen, &v);
	CHECK_INT(workq__drain(q), 0);
	__atomic_store_n(&h.stop, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK_U64(seen.next, v);
	CHECK_INT(workq__delete(q), 0);

	/* An error: the caller hears of it and stops. */
	seen = (struct wq_seen){ .fail_at = 300 };
	wq_check_error(workq__new_shared(sizeof(uint32_t), 16, wq_run, &seen,
					 NULL, NULL), &seen);
}

/*
 * When handing work over pays (struct offload): on while a quarter of
 * a window's callchains are new, off below an eighth, on again at a
 * quarter; with watch_cpu, a span in which the caller's thread waited
 * for a CPU a tenth of the time or more keeps it off until a span where
 * it waited less, the first span starting at the first window's end.
 */
static void test_offload_turns(void)
{
	const uint64_t ms = 1000000;
	struct offload o;

	offload__init(&o, false, false);
	CHECK(o.on);
	o.fresh = OFFLOAD_WINDOW / 8;
	offload__judge(&o, 0, 0);
	CHECK(o.on);
	o.fresh = OFFLOAD_WINDOW / 8 - 1;
	offload__judge(&o, 0, 0);
	CHECK(!o.on);
	o.fresh = OFFLOAD_WINDOW / 4 - 1;
	offload__judge(&o, 0, 0);
	CHECK(!o.on);
	o.fresh = OFFLOAD_WINDOW / 4;
	offload__judge(&o, 0, 0);
	CHECK(o.on);
	CHECK_INT((int)o.nr_on, 1);
	CHECK_INT((int)o.nr_off, 1);
	CHECK_INT((int)o.fresh, 0);

	/* A window is OFFLOAD_WINDOW notes. */
	offload__init(&o, false, false);
	for (int i = 0; i < OFFLOAD_WINDOW - 1; i++)
		CHECK(offload__note(&o, false));
	CHECK(!offload__note(&o, false));

	offload__init(&o, false, true);
	o.fresh = OFFLOAD_WINDOW;
	offload__judge(&o, 100 * ms, 1 * ms);	/* the span begins */
	CHECK(o.on);
	o.fresh = OFFLOAD_WINDOW;
	offload__judge(&o, 110 * ms, 3 * ms);	/* too short to judge */
	CHECK(o.on);
	o.fresh = OFFLOAD_WINDOW;
	offload__judge(&o, 120 * ms, 3 * ms);	/* 2 of 20 ms waiting */
	CHECK(!o.on);
	CHECK_INT((int)o.nr_short, 1);
	o.fresh = OFFLOAD_WINDOW;
	offload__judge(&o, 140 * ms, 4 * ms + ms / 2);	/* 1.5 of 20 */
	CHECK(o.on);
	/* Not known (no schedstat): the callchains alone. */
	o.fresh = OFFLOAD_WINDOW;
	offload__judge(&o, 200 * ms, ~0ULL);
	CHECK(o.on);
	o.fresh = 0;
	offload__judge(&o, 201 * ms, 5 * ms);
	CHECK(!o.on);
	CHECK_INT((int)o.nr_on, 1);
	CHECK_INT((int)o.nr_off, 2);
}

/*
 * offload__turn(): the work goes to the workq when o says on, and comes
 * back only once the workq has run all it was given; without a workq it
 * stays with the caller.
 */
static void test_offload_turn(void)
{
	struct wq_seen seen = { .fail_at = UINT32_MAX };
	struct workq *q = workq__new_shared(sizeof(uint32_t), 16, wq_run,
					    &seen, NULL, NULL);
	struct offload o;
	uint32_t v = 0;

	CHECK(q != NULL);
	if (!q)
		return;
	offload__init(&o, true, false);
	CHECK_INT(offload__turn(&o, q), 0);
	CHECK(o.active);
	wq_feed(q, 20, UINT32_MAX, &seen, &v);
	CHECK(seen.next < v);		/* blocks still waiting */
	o.on = false;
	CHECK_INT(offload__turn(&o, q), 0);
	CHECK(!o.active);
	CHECK_U64(seen.next, v);	/* all run before it came back */
	o.on = true;
	CHECK_INT(offload__turn(&o, q), 0);
	CHECK(o.active);
	CHECK_INT(workq__delete(q), 0);
	offload__init(&o, false, false);
	CHECK_INT(offload__turn(&o, NULL), 0);
	CHECK(!o.active);
}

/*
 * An array of megabytes asks for huge pages over the 2 MiB pages inside
 * it, and no further: the kernel marks such a range "hg" in its VmFlags
 * (a mapping of its own, split where the hint starts and ends).
 */
static void test_grow_array_huge(void)
{
	uintptr_t inside;
	uint8_t *v = NULL;
	size_t cap = 0;
	char line[512];
	bool in = false, hg = false;
	FILE *f;

	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK)) {
		SKIP("no transparent huge pages in this kernel");
		return;
	}
	CHECK_INT(grow_array((void **)&v, &cap, 8u << 20, 1), 0);
	if (!v)
		return;
	inside = ((uintptr_t)v + (2u << 20)) & ~(uintptr_t)((2u << 20) - 1);
	f = fopen("/proc/self/smaps", "r");
	if (!f) {
		SKIP("no /proc/self/smaps");
		free(v);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = inside >= lo && inside < hi;
			/* The hint's range: inside the array, no further. */
			if (in)
				CHECK(lo >= (uintptr_t)v &&
				      hi <= (uintptr_t)v + cap);
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			hg = strstr(line, " hg") != NULL;
		}
	}
	fclose(f);
	CHECK(hg);
	free(v);
}

UNIT_MAIN(UNIT(test_workq_order_and_error), UNIT(test_workq_shared),
	  UNIT(test_offload_turns), UNIT(test_offload_turn), UNIT(test_grow_array_huge),
	  UNIT(test_json_utf8), UNIT(test_strarena),
	  UNIT(test_shell_words),
	  UNIT(test_quote_controls), UNIT(test_csv_field),
	  UNIT(test_gnuplot_string),
	  UNIT(test_gnuplot_path),
	  UNIT(test_strpool_ids_are_dense_and_stable),
	  UNIT(test_hash_bytes_differs_on_tail), UNIT(test_hash_words128_lanes),
	  UNIT(test_chainmap), UNIT(test_term_stream),
	  UNIT(test_console_show),
	  UNIT(test_hashtab_grow_remove), UNIT(test_keymap_grow_shared_home),
	  UNIT(test_json_writer))
