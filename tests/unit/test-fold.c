// SPDX-License-Identifier: GPL-2.0
/*
 * Folding rules. Every expected output below was worked out by hand from
 * reading FlameGraph's stackcollapse-perf.pl (master) source: the rule it
 * exercises is named in the comment above each case.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "perf-script.h"
#include "symbols.h"
#include "unit.h"
#include "util.h"

/* Fold `text` as perf script output with opts; the folded lines. */
static char *fold_text(const char *text, const struct fold_opts *opts,
		       uint64_t *dropped)
{
	struct fold_opts none = { 0 };
	struct perf_script_stats st;
	struct perf_script *ps = perf_script__new();
	struct fold *f = fold__new(opts ? opts : &none);
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct perf_script_sink sink;
	char *out = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&out, &len);

	if (!ps || !f || !in || !o) {
		UNIT_FAIL("setup");
		return strdup("");
	}
	fold__script_sink(f, &sink);
	if (perf_script__fold(ps, in, &sink, &st))
		UNIT_FAIL("perf_script__fold failed at line %llu",
			  (unsigned long long)st.err_line);
	if (fold__write(f, o))
		UNIT_FAIL("fold__write failed");
	if (dropped)
		*dropped = fold__nr_dropped(f);
	fclose(o);
	fclose(in);
	fold__delete(f);
	perf_script__delete(ps);
	return out;
}

#define CHECK_FOLD(text, opts, expect)					\
	do {								\
		char *_o = fold_text(text, opts, NULL);			\
		CHECK_STR(_o, expect);					\
		free(_o);						\
	} while (0)

#define HDR "prog 1234 [001] 100.000001:     1000 cycles: \n"

/* comm is the first frame; spaces in it become '_' (tr/ /_/). */
static void test_comm(void)
{
	CHECK_FOLD("V8 WorkerThread 25607 [000] 1.5:  10 cycles: \n"
		   "\t  4005d0 main (/bin/v8)\n\n",
		   NULL, "V8_WorkerThread;main 10\n");
	/* Lazy comm: "a b 12 x" - the shortest comm before " DIGITS ". */
	CHECK_FOLD("a b 12 345 1.0: 7 cycles:\n\tff f (/x)\n\n",
		   NULL, "a_b;f 7\n");
}

/* --pid and --tid: comm-PID and comm-PID/TID; "?" when only TID shows. */
static void test_pid_tid(void)
{
	struct fold_opts pid = { .pid = true }, tid = { .tid = true };
	const char *both = "java 24636/25607 [000] 1.0: 1 cycles:\n"
			   "\t  ff f (/x)\n\n";
	const char *one = "java 25607 1.0: 1 cycles:\n\t  ff f (/x)\n\n";
	/* "0/0": $3 is "0", false in Perl, so pid becomes "?". */
	const char *zero = "swapper 0/0 [000] 1.0: 1 cycles:\n"
			   "\t  ff f (/x)\n\n";

	CHECK_FOLD(both, &pid, "java-24636;f 1\n");
	CHECK_FOLD(both, &tid, "java-24636/25607;f 1\n");
	CHECK_FOLD(one, &pid, "java-?;f 1\n");
	CHECK_FOLD(one, &tid, "java-?/25607;f 1\n");
	CHECK_FOLD(zero, &tid, "swapper-?/0;f 1\n");
	/* Digits kept as printed, leading zeros too. */
	CHECK_FOLD("p q 007/08 1.0: 1 cycles:\n\t  ff f (/x)\n\n", &tid,
		   "p_q-007/08;f 1\n");
}

/* COUNT: the period when the header shows one, else 1; "0" reads as 1. */
static void test_period(void)
{
	CHECK_FOLD(HDR "\t ff f (/x)\n\n" HDR "\t ff f (/x)\n\n", NULL,
		   "prog;f 2000\n");
	CHECK_FOLD("prog 1 [000] 1.0: cycles:\n\t ff f (/x)\n\n", NULL,
		   "prog;f 1\n");
	CHECK_FOLD("prog 1 [000] 1.0: 0 cycles:\n\t ff f (/x)\n\n", NULL,
		   "prog;f 1\n");
	/* "00" is true in Perl and numerically 0. */
	CHECK_FOLD("prog 1 [000] 1.0: 00 cycles:\n\t ff f (/x)\n\n", NULL,
		   "prog;f 0\n");
	/* --samples counts samples. */
	{
		struct fold_opts o = { .samples = true };

		CHECK_FOLD(HDR "\t ff f (/x)\n\n" HDR "\t ff f (/x)\n\n",
			   &o, "prog;f 2\n");
	}
}

/*
 * Only the first event seen is kept (or --event-filter). A tracepoint
 * header whose line doesn't end in "event:" shows no event to the script:
 * it is kept whatever the filter, with a count of 1.
 */
static void test_event_filter(void)
{
	const char *in =
		"pp 1 [000] 1.0: 5 cpu-clock:ppp: \n\t ff a (/x)\n\n"
		"pp 1 [000] 1.1: 7 cycles:u: \n\t ff b (/x)\n\n"
		"pp 1 [000] 1.2: sched:s: prev=1 next=2\n\t ff c (/x)\n\n"
		"pp 1 [000] 1.3: 9 cpu-clock:ppp: \n\t ff a (/x)\n\n";
	struct fold_opts o = { .event_filter = "cycles:u" };
	uint64_t dropped = 0;
	char *out;

	out = fold_text(in, NULL, &dropped);
	CHECK_STR(out, "pp;a 14\npp;c 1\n");
	CHECK_U64(dropped, 1);
	free(out);
	out = fold_text(in, &o, &dropped);
	CHECK_STR(out, "pp;b 7\npp;c 1\n");
	CHECK_U64(dropped, 2);
	free(out);
}

/*
 * A filtered header is skipped without ending the sample before it:
 * frames after it still join that sample (no blank line between).
 */
static void test_filtered_keeps_open_sample(void)
{
	CHECK_FOLD("pp 1 1.0: 5 cycles:\n\t ff a (/x)\n"
		   "qq 2 1.1: 7 instructions:\n\t ff b (/x)\n\n",
		   NULL, "pp;b;a 5\n");
}

/* A second kept header before the blank line retitles the sample. */
static void test_two_headers(void)
{
	CHECK_FOLD("pp 1 1.0: 5 cycles:\n\t ff a (/x)\n"
		   "qq 2 1.1: 7 cycles:\n\t ff b (/x)\n\n",
		   NULL, "qq;b;a 7\n");
}

/* Frames are leaf first in the input, root first in the output. */
static void test_order_and_sort(void)
{
	CHECK_FOLD(HDR "\t1 leaf (/x)\n\t2 mid (/x)\n\t3 root (/x)\n\n"
		   HDR "\t1 Zed (/x)\n\t3 root (/x)\n\n"
		   HDR "\t1 _u (/x)\n\t3 root (/x)\n\n",
		   NULL,
		   "prog;root;Zed 1000\nprog;root;_u 1000\n"
		   "prog;root;mid;leaf 1000\n");
}

/* "+0x..." (lowercase hex, at the end) is stripped; nothing else is. */
static void test_offset(void)
{
	CHECK_FOLD(HDR "\t1 a+0x1f (/x)\n\t2 b+0x1F (/x)\n\t3 c+0x (/x)\n"
		   "\t4 d+0x1+0x2 (/x)\n\n",
		   NULL, "prog;d+0x1;c+0x;b+0x1F;a 1000\n");
}

/* A symbol starting with '(' is skipped (after the offset strip). */
static void test_paren_skip(void)
{
	CHECK_FOLD(HDR "\t1 a (/x)\n\t2 (deleted)+0x10 (/x)\n\t3 b (/x)\n\n",
		   NULL, "prog;b;a 1000\n");
}

/* "a->b->c": separate frames, the later ones marked _[i] (once). */
static void test_inline(void)
{
	CHECK_FOLD(HDR "\t1 a->b->c_[i] (/x)\n\t2 r (/x)\n\n", NULL,
		   "prog;r;a;b_[i];c_[i] 1000\n");
	/* Perl split: a leading empty field stays, trailing ones go. */
	CHECK_FOLD(HDR "\t1 ->a-> (/x)\n\n", NULL, "prog;;a_[i] 1000\n");
	/* _[i] wins over _[k]: the annotations are if/elsif. */
	{
		struct fold_opts o = { .kernel = true };

		CHECK_FOLD(HDR "\t1 a->b ([kernel.kallsyms])\n\n", &o,
			   "prog;a_[k];b_[i] 1000\n");
	}
}

/* [unknown]: the dso's basename in brackets; --addrs adds <pc>. */
static void test_unknown(void)
{
	struct fold_opts o = { .addrs = true };
	const char *in = HDR "\t7f01 [unknown] (/usr/lib/libc.so.6)\n"
			 "\t  0 [unknown] ([unknown])\n"
			 "\t  5 [unknown]+0x10 ([vdso])\n\n";

	CHECK_FOLD(in, NULL,
		   "prog;[[vdso]];[unknown];[libc.so.6] 1000\n");
	CHECK_FOLD(in, &o,
		   "prog;[[vdso] <5>];[unknown <0>];[libc.so.6 <7f01>] 1000\n");
}

/* tidy generic: ';' -> ':', quotes dropped, cut at the first '('. */
static void test_tidy_generic(void)
{
	CHECK_FOLD(HDR "\t1 a;b (/x)\n\t2 \"it's\" (/x)\n"
		   "\t3 f(int, char) const (/x)\n\n",
		   NULL, "prog;f;its;a:b 1000\n");
}

/* ...except "(anonymous namespace)" and Go methods "pkg.(*T).M". */
static void test_anon_and_go(void)
{
	CHECK_FOLD(HDR "\t1 ns::(anonymous namespace)::g(int) (/x)\n"
		   "\t2 net/http.(*Client).Do (/x)\n\n",
		   NULL,
		   "prog;net/http.(*Client).Do;ns::(anonymous namespace)::g 1000\n");
}

/* For process names starting "java", a leading L goes when there's '/'. */
static void test_java(void)
{
	const char *sym = "\t1 Lorg/mozilla/javascript/MemberBox;.<init>"
			  "(Ljava/lang/reflect/Method;)V (/tmp/perf-9.map)\n"
			  "\t2 Lnoslash (/x)\n\n";
	char in[512];

	snprintf(in, sizeof(in), "java 9 1.0: 1 cycles:\n%s", sym);
	CHECK_FOLD(in, NULL,
		   "java;Lnoslash;org/mozilla/javascript/MemberBox:.<init> 1\n");
	snprintf(in, sizeof(in), "javac 9 1.0: 1 cycles:\n%s", sym);
	CHECK_FOLD(in, NULL,
		   "javac;Lnoslash;org/mozilla/javascript/MemberBox:.<init> 1\n");
	snprintf(in, sizeof(in), "jav 9 1.0: 1 cycles:\n%s", sym);
	CHECK_FOLD(in, NULL,
		   "jav;Lnoslash;Lorg/mozilla/javascript/MemberBox:.<init> 1\n");
}

/*
 * --kernel: _[k] when the dso starts with '[' or ends in "vmlinux" and
 * has no "unknown" in it.
 */
static void test_kernel(void)
{
	struct fold_opts o = { .kernel = true };

	CHECK_FOLD(HDR "\t1 a ([kernel.kallsyms])\n\t2 b ([nf_conntrack])\n"
		   "\t3 c (/boot/vmlinux)\n\t4 d (/boot/vmlinux.debug)\n"
		   "\t5 e ([unknown])\n\t6 [unknown] ([vdso])\n"
		   "\t7 f (/lib/unknown/vmlinux)\n\n",
		   &o,
		   "prog;f;[[vdso]]_[k];e;d;c_[k];b_[k];a_[k] 1000\n");
}

/* --jit: _[j] for dsos matching /tmp/perf-\d+\.map, not repeated. */
static void test_jit(void)
{
	struct fold_opts o = { .jit = true };

	CHECK_FOLD(HDR "\t1 a (/tmp/perf-123.map)\n\t2 b_[j] (/tmp/perf-1.map)\n"
		   "\t3 c (/tmp/perf-x.map)\n\t4 d (/x/tmp/perf-7.mapfile)\n\n",
		   &o, "prog;d_[j];c;b_[j];a_[j] 1000\n");
}

/*
 * Frame line: greedy (.+) ends at the last " (" with a ')' after it, the
 * dso runs to the last ')': spaces in the dso are fine, a nested " (" is
 * not (the sym then swallows the dso's start, and is cut at its '(').
 */
static void test_dso_parse(void)
{
	struct fold_opts o = { .addrs = true };

	CHECK_FOLD(HDR "\t1 [unknown] (/opt/my app/bin) junk\n\n", &o,
		   "prog;[bin <1>] 1000\n");
	CHECK_FOLD(HDR "\t1 [unknown] (/opt/bin (deleted))\n\n", &o,
		   "prog;[unknown]  1000\n");
	/* Perl backtracks into the address: "abc (x)" is pc ab, sym c. */
	CHECK_FOLD(HDR "\tabc (x)\n\n", NULL, "prog;c 1000\n");
}

/* Comments, unrecognized lines ignored; no blank line at EOF: lost. */
static void test_ignored_lines(void)
{
	CHECK_FOLD("# cmdline : perf record -g\n" HDR
		   "\tff __mem_cgroup_flush_stats\n\t1 a (/x)\n\n"
		   HDR "\t1 lost (/x)\n",
		   NULL, "prog;a 1000\n");
	/* A sample whose frames all went: the process name alone. */
	CHECK_FOLD(HDR "\tff no_dso\n\n", NULL, "prog 1000\n");
	/* Frames before any header are ignored. */
	CHECK_FOLD("\t1 a (/x)\n\n", NULL, "");
}

/* Different stacks that join to one string are one line. */
static void test_merge_equal_strings(void)
{
	CHECK_FOLD("ab;b 1 1.0: 1 cycles:\n\t1 f (/x)\n\n"
		   "ab 1 1.0: 2 cycles:\n\t1 f (/x)\n\t2 b (/x)\n\n",
		   NULL, "ab;b;f 3\n");
	/* A one-byte comm can't be: (\S.+?) takes two bytes at least. */
	CHECK_FOLD("a 1 1.0: 2 cycles:\n\t1 f (/x)\n\n", NULL,
		   "a_1_1.0:;f 2\n");
}

/* The numeric API used by the perf.data path. */
static void test_numeric_api(void)
{
	struct fold_opts o = { .tid = true, .addrs = true, .kernel = true };
	struct fold *f = fold__new(&o);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	CHECK(f && m);
	if (!f || !m)
		return;
	CHECK_INT(fold__begin(f, "cycles", "my comm", 10, 11, 5, true), 1);
	CHECK_INT(fold__frame(f, "leaf+0x10", "[kernel.kallsyms]", 1), 0);
	CHECK_INT(fold__frame(f, "[unknown]", "[unknown]", 0xabc), 0);
	CHECK_INT(fold__end(f), 0);
	CHECK_INT(fold__begin(f, "other", "x", 1, 1, 5, true), 0);
	CHECK_INT(fold__frame(f, "nope", "/x", 1), 0);
	CHECK_INT(fold__end(f), 0);
	/* Unknown pid; tid 0 with a pid reads as "?" like "0/0" text. */
	CHECK_INT(fold__begin(f, "cycles", "idle", UINT32_MAX, 3, 0, false), 1);
	CHECK_INT(fold__end(f), 0);
	CHECK_INT(fold__begin(f, "cycles", "sw", 0, 0, 0, false), 1);
	CHECK_INT(fold__end(f), 0);
	CHECK_INT(fold__write(f, m), 0);
	fclose(m);
	CHECK_STR(out, "idle-?/3 1\nmy_comm-10/11;[unknown <abc>];leaf_[k] 5\n"
		  "sw-?/0 1\n");
	CHECK_U64(fold__nr_kept(f), 3);
	CHECK_U64(fold__nr_dropped(f), 1);
	CHECK_STR(fold__event(f), "cycles");
	free(out);
	fold__delete(f);
}

/*
 * Recorded frames whose printed line the script splits differently from
 * (sym, dso): perf prints "addr [unknown] (/memfd:m (deleted))", and the
 * script's greedy regex takes "deleted" as the dso and "[unknown]
 * (/memfd:m" as the name, cut at its '(' to "[unknown] ". Where perf
 * prints no dso (pipe-layout tracepoint callchains), a plain name does
 * not match the frame regex and is skipped, while "f (x)" does, as f.
 */
static void test_recorded_frames_split_as_printed(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	struct fold_opts o = { 0 };
	struct fold *f = fold__new(&o);

	CHECK(f && m);
	if (!f || !m)
		return;
	CHECK_INT(fold__begin(f, "cpu-clock", "a", 1, 1, 3, true), 1);
	CHECK_INT(fold__frame(f, "[unknown]", "/memfd:m (deleted)", 1), 0);
	CHECK_INT(fold__frame(f, "main", "/bin/a", 2), 0);
	CHECK_INT(fold__end(f), 0);
	CHECK_INT(fold__begin(f, NULL, "b", 1, 1, 0, false), 1);
	CHECK_INT(fold__frame(f, "css_rstat_flush", NULL, 1), 0);
	CHECK_INT(fold__frame(f, "f (x)", NULL, 2), 0);
	CHECK_INT(fold__end(f), 0);
	CHECK_INT(fold__write(f, m), 0);
	fclose(m);
	CHECK_STR(out, "a;main;[unknown]  3\nb;f 1\n");
	fold__delete(f);
	free(out);
}

/*
 * fold__frame()'s memo of id-less frames is keyed by (sym, dso, java):
 * the same pointers in a java process and in another name the frame
 * differently, and with --addrs each unknown frame keeps its address.
 */
static void test_memo_java_and_addrs(void)
{
	static const char sym[] = "Lorg/a/B;.f", dso[] = "/tmp/perf-9.map";
	static const char unk[] = "[unknown]";
	struct fold_opts o = { 0 }, oa = { .addrs = true };
	struct fold *f = fold__new(&o), *fa = fold__new(&oa);
	char *out = NULL, *outa = NULL;
	size_t len = 0, lena = 0;
	FILE *m = open_memstream(&out, &len);
	FILE *ma = open_memstream(&outa, &lena);
	int i;

	CHECK(f && fa && m && ma);
	if (!f || !fa || !m || !ma)
		return;
	for (i = 0; i < 2; i++) {
		CHECK_INT(fold__begin(f, NULL, i ? "java" : "prog", 1, 1, 0,
				      false), 1);
		CHECK_INT(fold__frame_id(f, 0, sym, dso, 0x10), 0);
		CHECK_INT(fold__end(f), 0);
		CHECK_INT(fold__begin(fa, NULL, "prog", 1, 1, 0, false), 1);
		CHECK_INT(fold__frame_id(fa, 0, unk, unk, 0x10 + i), 0);
		CHECK_INT(fold__end(fa), 0);
	}
	CHECK_INT(fold__write(f, m), 0);
	CHECK_INT(fold__write(fa, ma), 0);
	fclose(m);
	fclose(ma);
	CHECK_STR(out, "java;org/a/B:.f 1\nprog;Lorg/a/B:.f 1\n");
	CHECK_STR(outa, "prog;[unknown <10>] 1\nprog;[unknown <11>] 1\n");
	fold__delete(f);
	fold__delete(fa);
	free(out);
	free(outa);
}

/* Folded lines of a fold fed the same stacks, written with jobs. */
static char *many_stacks(unsigned int jobs, uint64_t *total)
{
	struct fold_opts o = { .jobs = jobs };
	struct fold *f = fold__new(&o);
	uint32_t x = 12345, i, k, n;
	char *out = NULL, names[40][8];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (!f || !m) {
		UNIT_FAIL("setup");
		return strdup("");
	}
	/* Names that are prefixes of others, or sort around ';'. */
	for (i = 0; i < 40; i++)
		snprintf(names[i], sizeof(names[i]), "%c%s%u",
			 "ab:;<"[i % 5], i % 3 ? "" : "-", i / 7);
	snprintf(names[0], sizeof(names[0]), "x");
	*total = 0;
	for (i = 0; i < 20000; i++) {
		x = x * 1103515245 + 12345;
		n = 1 + (x >> 8) % 6;
		/* "p;x" and "p" then "x": one joined string, two stacks. */
		CHECK_INT(fold__begin(f, NULL, (x >> 20) % 2 ? "p;x" : "p", 1,
				      1, 0, false), 1);
		for (k = 0; k < n; k++) {
			x = x * 1103515245 + 12345;
			CHECK_INT(fold__frame(f, names[(x >> 10) % 40], "/d",
					      0), 0);
		}
		CHECK_INT(fold__end(f), 0);
		(*total)++;
	}
	CHECK_INT(fold__write(f, m), 0);
	fclose(m);
	fold__delete(f);
	return out;
}

/*
 * With jobs, half of the stacks are sorted on a second thread and the
 * halves merged: the same lines as one sort, in bytewise order of the
 * joined strings, stacks that join to one string on one line.
 */
static void test_two_thread_sort(void)
{
	uint64_t total1, total2, sum = 0;
	char *one = many_stacks(1, &total1), *two = many_stacks(2, &total2);
	char *line, *save = NULL, *prev = NULL;
	size_t lines = 0;

	CHECK_STR(two, one);
	for (line = strtok_r(one, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		CHECK(sp != NULL);
		if (!sp)
			break;
		*sp = '\0';
		sum += strtoull(sp + 1, NULL, 10);
		if (prev && strcmp(prev, line) >= 0)
			UNIT_FAIL("'%s' before '%s'", prev, line);
		prev = line;
		lines++;
	}
	CHECK(lines > 4096);	/* enough for the two-thread sort */
	CHECK_U64(sum, total1);
	free(one);
	free(two);
}

/*
 * 2049 pairs of stacks that join to one string ("p;x;fN;gM", made with
 * the comm "p;x", period 1, and with the comm "p" and a frame "x",
 * period 2): 4098 stacks, so that two threads write them. Pair 1024 is
 * in both halves of the sort and in the middle of the sorted stacks, at
 * 2048 and 2049, between the two threads' merges and their lines. Each
 * pair is still one line, counted once: 3.
 */
static char *split_pairs(unsigned int jobs)
{
	struct fold_opts o = { .jobs = jobs };
	struct fold *f = fold__new(&o);
	/* Names stay put for the fold's life (fold.h). */
	static char fn[2049][8], gn[2049][8];
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	uint32_t i;

	if (!f || !m) {
		UNIT_FAIL("setup");
		return strdup("");
	}
	for (i = 0; i < 2049; i++) {
		snprintf(fn[i], sizeof(fn[i]), "f%04u", i);
		snprintf(gn[i], sizeof(gn[i]), "g%u", i * 7919 % 2049);
	}
	for (i = 0; i < 2049; i++) {
		CHECK_INT(fold__begin(f, NULL, "p;x", 1, 1, 1, true), 1);
		CHECK_INT(fold__frame(f, gn[i], "/d", 0), 0);
		CHECK_INT(fold__frame(f, fn[i], "/d", 0), 0);
		CHECK_INT(fold__end(f), 0);
		CHECK_INT(fold__begin(f, NULL, "p", 1, 1, 2, true), 1);
		CHECK_INT(fold__frame(f, gn[i], "/d", 0), 0);
		CHECK_INT(fold__frame(f, fn[i], "/d", 0), 0);
		CHECK_INT(fold__frame(f, "x", "/d", 0), 0);
		CHECK_INT(fold__end(f), 0);
	}
	CHECK_INT(fold__write(f, m), 0);
	fclose(m);
	fold__delete(f);
	return out;
}

static void test_two_thread_split_pair(void)
{
	char *one = split_pairs(1), *two = split_pairs(2), *p;
	size_t lines = 0;

	CHECK_STR(two, one);
	for (p = two; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK_U64(lines, 2049);
	CHECK(strstr(two, "\np;x;f1024;g") != NULL);
	CHECK(strstr(two, " 3\n") != NULL && !strstr(two, " 1\n") &&
	      !strstr(two, " 2\n") && !strstr(two, " 4\n"));
	free(one);
	free(two);
}

/* The recorded callchains of chain_feed(): chain c's process and frames. */
#define NR_CHAINS 3000
#define NR_FNAMES 50

static void chain_parts(uint32_t c, char *pname, size_t len, uint32_t *n,
			uint32_t *frames)
{
	uint32_t k;

	snprintf(pname, len, "%s%u", c % 11 ? "p" : "java", c % 7);
	*n = 1 + c % 5;
	for (k = 0; k < *n; k++)
		frames[k] = (c * 7 + k * 13) % NR_FNAMES;
}

/* Chain c's n frames (chain_parts()), leaf first, fed all at once. */
static void feed_frames(struct fold *f, const uint32_t *frames, uint32_t n,
			char (*fnames)[8])
{
	struct rs_frame fr[8];
	uint32_t k;

	for (k = 0; k < n; k++)
		fr[k] = (struct rs_frame){ .id = frames[n - 1 - k] + 1,
					   .sym = fnames[frames[n - 1 - k]],
					   .dso = "/d" };
	CHECK_INT(fold__feed(f, fr, n, false), 0);
}

/*
 * Recorded samples, keyed as the perf.data path keys them, with a text
 * sample (folded as perf script prints it) and an exiting task's (its
 * name as text, its chain recorded) now and then: the folded lines with
 * jobs (the stacks built on the fold's own thread when 3).
 */
static char *chain_feed(unsigned int jobs, char (*fnames)[8])
{
	struct fold_opts o = { .jobs = jobs };
	struct fold *f = fold__new(&o);
	char pnames[7 * 2][16], pname[16];
	uint32_t x = 777, i, k, c, n, frames[8];
	uint64_t h[2];
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	int ret, threads = unit_threads();

	if (!f || !m) {
		UNIT_FAIL("setup");
		return strdup("");
	}
	/* Interned: one pointer per process name, as machine__comm() gives. */
	for (i = 0; i < 14; i++)
		snprintf(pnames[i], sizeof(pnames[i]), "%s%u",
			 i < 7 ? "p" : "java", i % 7);
	for (i = 0; i < 30000; i++) {
		if (i % 1000 == 999) {
			CHECK_INT(fold__begin_text(f, "t", NULL, "1", 1, false),
				  1);
			CHECK_INT(fold__frame_text(f, "g", "/x", NULL), 0);
			CHECK_INT(fold__end(f), 0);
		}
		/*
		 * An exiting task's sample, as the perf.data path folds it:
		 * its name as text, its recorded chain keyed and named.
		 */
		if (i % 1000 == 500) {
			struct rs_frame e = { .id = NR_FNAMES + 1, .sym = "e",
					      .dso = "/x" };

			h[0] = ~0ULL;
			h[1] = 7;
			CHECK_INT(fold__begin_text(f, "x", NULL, "2", 1, false),
				  1);
			ret = fold__begin_key(f, h, h[0]);
			if (ret == 0)
				CHECK_INT(fold__feed(f, &e, 1, false), 0);
			else if (ret != 1)
				UNIT_FAIL("fold__begin_key: %d", ret);
		}
		x = x * 1103515245 + 12345;
		c = (x >> 8) % NR_CHAINS;
		chain_parts(c, pname, sizeof(pname), &n, frames);
		CHECK_INT(fold__begin(f, NULL, pnames[(c % 11 ? 0 : 7) + c % 7],
				      1, 1, 1 + c % 3, true), 1);
		h[0] = c * 0x9e3779b97f4a7c15ULL;
		h[1] = c + 1;
		ret = fold__begin_key(f, h, h[0]);
		if (ret < 0 || ret > 1)
			UNIT_FAIL("fold__begin_key: %d", ret);
		if (ret == 1)
			continue;
		/*
		 * Leaf first; the name's index + 1 is its frame id. Frame
		 * by frame, or all at once as the perf.data path feeds them.
		 */
		if (i % 2) {
			for (k = n; k-- > 0;)
				CHECK_INT(fold__frame_id(f, frames[k] + 1,
							 fnames[frames[k]],
							 "/d", 0), 0);
			CHECK_INT(fold__end(f), 0);
			continue;
		}
		feed_frames(f, frames, n, fnames);
	}
	/* With jobs 3 the stacks were built on a thread of the fold's. */
	CHECK_INT(unit_threads(), threads + (jobs > 2));
	CHECK_INT(fold__flush(f), 0);
	CHECK_INT(fold__write(f, m), 0);
	CHECK_U64(fold__nr_kept(f), 30000 + 30 + 30);
	fclose(m);
	fold__delete(f);
	return out;
}

struct exp_line {
	char s[128];
	uint64_t count;
};

static int exp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct exp_line *)a)->s,
		      ((const struct exp_line *)b)->s);
}

/*
 * Known callchains counted, new ones named and folded on the fold's own
 * thread, text samples in between on the caller's: with jobs 3 the same
 * lines as with 1, and both the lines the test works out itself (each
 * chain's process and frames root first, equal lines merged).
 */
static void test_stacks_thread(void)
{
	static char fnames[NR_FNAMES][8];
	struct exp_line *exp = calloc(NR_CHAINS + 2, sizeof(*exp));
	uint32_t x = 777, i, k, c, n, frames[8], nr = 0;
	char *one, *two, *want = NULL;
	size_t len = 0;
	FILE *m;

	for (i = 0; i < NR_FNAMES; i++)
		snprintf(fnames[i], sizeof(fnames[i]), "f%u", i);
	if (!exp) {
		UNIT_FAIL("setup");
		return;
	}
	/* The oracle: the same draws, each chain's line and count. */
	for (i = 0; i < NR_CHAINS; i++) {
		chain_parts(i, exp[i].s, sizeof(exp[i].s), &n, frames);
		for (k = 0; k < n; k++)
			snprintf(exp[i].s + strlen(exp[i].s),
				 sizeof(exp[i].s) - strlen(exp[i].s), ";%s",
				 fnames[frames[k]]);
	}
	for (i = 0; i < 30000; i++) {
		x = x * 1103515245 + 12345;
		c = (x >> 8) % NR_CHAINS;
		exp[c].count += 1 + c % 3;
	}
	snprintf(exp[NR_CHAINS].s, sizeof(exp[NR_CHAINS].s), "t;g");
	exp[NR_CHAINS].count = 30;
	snprintf(exp[NR_CHAINS + 1].s, sizeof(exp[NR_CHAINS].s), "x;e");
	exp[NR_CHAINS + 1].count = 30;
	qsort(exp, NR_CHAINS + 2, sizeof(*exp), exp_cmp);
	m = open_memstream(&want, &len);
	for (i = 0; i <= NR_CHAINS + 1; i = k) {
		uint64_t sum = 0;

		for (k = i; k <= NR_CHAINS + 1 &&
		     !strcmp(exp[k].s, exp[i].s); k++)
			sum += exp[k].count;
		if (sum) {
			fprintf(m, "%s %" PRIu64 "\n", exp[i].s, sum);
			nr++;
		}
	}
	fclose(m);
	one = chain_feed(1, fnames);
	two = chain_feed(3, fnames);
	CHECK(nr > 100);
	CHECK_STR(one, want);
	CHECK_STR(two, want);
	free(one);
	free(two);
	free(want);
	free(exp);
}

/*
 * A callchain longer than a block of the fold's thread holds goes to it
 * in as many blocks as it takes: the line of jobs 1.
 */
static void test_long_chain_thread(void)
{
	static struct rs_frame fr[3000];
	static char names[3000][8];
	char *out[2] = { NULL, NULL };
	uint64_t h[2] = { 1, 2 };
	unsigned int j;
	uint32_t k;

	for (k = 0; k < 3000; k++) {
		snprintf(names[k], sizeof(names[k]), "f%u", k);
		fr[k] = (struct rs_frame){ .id = k + 1, .sym = names[k],
					   .dso = "/d" };
	}
	for (j = 0; j < 2; j++) {
		struct fold_opts o = { .jobs = j ? 3 : 1 };
		struct fold *f = fold__new(&o);
		size_t len = 0;
		FILE *m = open_memstream(&out[j], &len);

		if (!f || !m) {
			UNIT_FAIL("setup");
			if (m)
				fclose(m);
			fold__delete(f);
			continue;
		}
		CHECK_INT(fold__begin(f, NULL, "p", 1, 1, 1, true), 1);
		CHECK_INT(fold__begin_key(f, h, h[0]), 0);
		CHECK_INT(fold__feed(f, fr, 3000, false), 0);
		CHECK_INT(fold__flush(f), 0);
		CHECK_INT(fold__write(f, m), 0);
		fclose(m);
		fold__delete(f);
	}
	if (out[0] && out[1]) {
		CHECK_STR(out[1], out[0]);
		CHECK(!strncmp(out[0], "p;f2999;f2998;", 14));
		CHECK(strstr(out[0], ";f1;f0 1\n") != NULL);
	}
	free(out[0]);
	free(out[1]);
}

/*
 * The stand-in for the reading thread of jobs 2: it sleeps until kicked,
 * then runs the fold's blocks while there are any.
 */
struct turns_helper {
	struct fold *f;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool kicked, stop;
	uint32_t kicks, ran;
};

static void turns_kick(void *arg)
{
	struct turns_helper *h = arg;

	pthread_mutex_lock(&h->lock);
	h->kicked = true;
	h->kicks++;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

static void *turns_help(void *arg)
{
	struct turns_helper *h = arg;

	for (;;) {
		pthread_mutex_lock(&h->lock);
		while (!h->kicked && !h->stop)
			pthread_cond_wait(&h->cond, &h->lock);
		h->kicked = false;
		if (h->stop) {
			pthread_mutex_unlock(&h->lock);
			return NULL;
		}
		pthread_mutex_unlock(&h->lock);
		while (fold__help(h->f))
			__atomic_add_fetch(&h->ran, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Four phases of 8192 samples: new callchains, the same again, new
 * ones, the same again (each key new or seen, its frames those of one
 * of NR_CHAINS stacks): the folded lines, with jobs 1, 3 or 2 with a
 * helper thread, and how the stacks' side was handed over.
 */
/*
 * Where turns_feed() looks at the blocks handed over: the second half of
 * phases 1, 2 and 3, past the turn their first window brought.
 */
static const uint32_t turns_at[6] = { 12290, 16383, 20482, 24575, 28674,
				      32767 };

static char *turns_feed(unsigned int jobs, char (*fnames)[8],
			struct offload *turns, uint32_t *helped,
			uint32_t kicks_at[6])
{
	struct fold_opts o = { .jobs = jobs };
	struct fold *f = fold__new(&o);
	struct turns_helper h = { .f = f };
	uint32_t i, c, n, frames[8];
	pthread_t helper;
	char pname[16];
	uint64_t key[2];
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	bool threaded = false;
	unsigned int at = 0;
	int ret;

	if (!f || !m) {
		UNIT_FAIL("setup");
		if (m)
			fclose(m);
		free(out);
		fold__delete(f);
		return strdup("");
	}
	pthread_mutex_init(&h.lock, NULL);
	pthread_cond_init(&h.cond, NULL);
	if (jobs == 2) {
		CHECK(fold__set_helper(f, turns_kick, &h));
		threaded = !pthread_create(&helper, NULL, turns_help, &h);
		CHECK(threaded);
	}
	for (i = 0; i < 4 * 8192; i++) {
		/* Phases 0 and 2 new keys, 1 and 3 the keys of 0 again. */
		uint32_t j = i % 8192 + (i / 8192 == 2) * 8192;

		if (at < 6 && i == turns_at[at]) {
			pthread_mutex_lock(&h.lock);
			kicks_at[at++] = h.kicks;
			pthread_mutex_unlock(&h.lock);
		}
		c = (j * 2654435761u >> 7) % NR_CHAINS;
		chain_parts(c, pname, sizeof(pname), &n, frames);
		CHECK_INT(fold__begin(f, NULL, "p", 1, 1, 1, true), 1);
		key[0] = (j + 1) * 0x9e3779b97f4a7c15ULL;
		key[1] = c;
		ret = fold__begin_key(f, key, key[0]);
		if (ret < 0 || ret > 1)
			UNIT_FAIL("fold__begin_key: %d", ret);
		if (ret == 1)
			continue;
		feed_frames(f, frames, n, fnames);
	}
	/* As the reading thread: gone before the fold's flush. */
	if (threaded) {
		pthread_mutex_lock(&h.lock);
		h.stop = true;
		pthread_cond_signal(&h.cond);
		pthread_mutex_unlock(&h.lock);
		pthread_join(helper, NULL);
	}
	CHECK_INT(fold__flush(f), 0);
	*turns = fold__offload(f) ? *fold__offload(f) : (struct offload){ 0 };
	*helped = h.ran;
	/* Every block handed over kicked the helper. */
	if (jobs == 2)
		CHECK(h.kicks > 0);
	CHECK_INT(fold__write(f, m), 0);
	CHECK_U64(fold__nr_kept(f), 4 * 8192);
	fclose(m);
	pthread_cond_destroy(&h.cond);
	pthread_mutex_destroy(&h.lock);
	fold__delete(f);
	return out;
}

/*
 * The stacks' side goes to the other thread while most callchains are
 * new and comes back when they are not (util.h, struct offload), and
 * the lines are those of one thread whatever the turns: with jobs 3 it
 * goes off, on and off again exactly; with jobs 2 a helper thread runs
 * the blocks, unless the caller's thread went short of CPU (a busy
 * machine), which keeps them on the caller's.
 */
static void test_stacks_turns(void)
{
	static char fnames[NR_FNAMES][8];
	struct offload t1, t2, t3;
	char *one, *two, *three;
	uint32_t helped, i, k[6] = { 0 };

	for (i = 0; i < NR_FNAMES; i++)
		snprintf(fnames[i], sizeof(fnames[i]), "f%u", i);
	one = turns_feed(1, fnames, &t1, &helped, k);
	three = turns_feed(3, fnames, &t3, &helped, k);
	two = turns_feed(2, fnames, &t2, &helped, k);
	/*
	 * jobs 2: no block handed over while the callchains are known (the
	 * work back on this thread), and some while they are new.
	 */
	CHECK_INT((int)k[1], (int)k[0]);
	CHECK_INT((int)k[5], (int)k[4]);
	/* the 50 stacks chain_parts() makes */
	CHECK(strlen(one) > 500 && strchr(one, '\n'));
	CHECK_STR(three, one);
	CHECK_STR(two, one);
	CHECK_INT((int)t3.nr_off, 2);
	CHECK_INT((int)t3.nr_on, 1);
	CHECK(!t3.on);
	if (t2.nr_short) {
		SKIP_PART("the caller's thread went short of CPU in %u spans: the turns of jobs 2 were not checked",
			  t2.nr_short);
	} else {
		CHECK_INT((int)t2.nr_off, 2);
		CHECK_INT((int)t2.nr_on, 1);
		CHECK(k[3] > k[2]);
	}
	/* The helper's part is test_workq_shared's to check for certain. */
	if (!helped)
		SKIP_PART("the helper thread got no CPU while there were blocks: the caller ran them all");
	free(one);
	free(two);
	free(three);
}

UNIT_MAIN(UNIT(test_stacks_turns),
	  UNIT(test_stacks_thread), UNIT(test_long_chain_thread),
	  UNIT(test_recorded_frames_split_as_printed),
	  UNIT(test_memo_java_and_addrs), UNIT(test_two_thread_sort),
	  UNIT(test_two_thread_split_pair),
	  UNIT(test_comm), UNIT(test_pid_tid), UNIT(test_period),
	  UNIT(test_event_filter), UNIT(test_filtered_keeps_open_sample),
	  UNIT(test_two_headers), UNIT(test_order_and_sort),
	  UNIT(test_offset), UNIT(test_paren_skip), UNIT(test_inline),
	  UNIT(test_unknown), UNIT(test_tidy_generic), UNIT(test_anon_and_go),
	  UNIT(test_java), UNIT(test_kernel), UNIT(test_jit),
	  UNIT(test_dso_parse), UNIT(test_ignored_lines),
	  UNIT(test_merge_equal_strings), UNIT(test_numeric_api))
