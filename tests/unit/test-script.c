// SPDX-License-Identifier: GPL-2.0
/*
 * The perf script text reader on the bundled recordings and on bad input.
 *
 * Facts about the fixtures (tests/data/README.fixtures.md, recounted with
 * grep/awk on the text):
 * - flush-mixed.script.gz: 22364 samples (blank-line terminated): 21047
 *   cpu-clock, each with period 333444, and 439 + 438 + 440 tracepoint
 *   samples; 109742 frame lines, all with a "(dso)".
 * - pipe-mode.script: 25 samples: 7 cpu-clock with period 1001001 and 18
 *   tracepoint samples whose 186 frame lines carry no "(dso)" (perf's
 *   tracepoint default fields), which stackcollapse-perf.pl ignores.
 * The tracepoint headers end with the formatted fields, not "event:", so
 * the script's event regex finds no event there: they are kept, count 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "perf-script.h"
#include "session.h"
#include "unit.h"

struct result {
	int ret;
	struct perf_script_stats st;
	uint64_t dropped, total;
	char *out;
	char event[64];
};

static void run(FILE *in, const struct fold_opts *opts, struct result *r)
{
	struct fold_opts none = { 0 };
	struct perf_script *ps = perf_script__new();
	struct fold *f = fold__new(opts ? opts : &none);
	struct perf_script_sink sink;
	size_t len = 0;
	FILE *o;
	char *line;

	memset(r, 0, sizeof(*r));
	if (!ps || !f) {
		UNIT_FAIL("setup");
		return;
	}
	fold__script_sink(f, &sink);
	r->ret = perf_script__fold(ps, in, &sink, &r->st);
	o = open_memstream(&r->out, &len);
	if (fold__write(f, o))
		UNIT_FAIL("fold__write");
	fclose(o);
	r->dropped = fold__nr_dropped(f);
	snprintf(r->event, sizeof(r->event), "%s",
		 fold__event(f) ? fold__event(f) : "");
	for (line = r->out; line && *line;) {
		char *nl = strchr(line, '\n'), *sp;

		if (!nl)
			break;
		*nl = '\0';
		sp = strrchr(line, ' ');
		if (sp)
			r->total += strtoull(sp + 1, NULL, 10);
		*nl = '\n';
		line = nl + 1;
	}
	fold__delete(f);
	perf_script__delete(ps);
}

static void run_buf(const void *buf, size_t len, struct result *r)
{
	FILE *in = fmemopen((void *)buf, len, "r");

	if (!in) {
		UNIT_FAIL("fmemopen");
		memset(r, 0, sizeof(*r));
		return;
	}
	run(in, NULL, r);
	fclose(in);
}

static FILE *open_fixture(const char *name, bool gz)
{
	char path[4096];

	if (gz) {
		snprintf(path, sizeof(path), "gzip -dc '%s/%s'", unit_fixtures(),
			 name);
		return popen(path, "r");
	}
	snprintf(path, sizeof(path), "%s/%s", unit_fixtures(), name);
	return fopen(path, "r");
}

static void test_pipe_mode(void)
{
	FILE *in = open_fixture("pipe-mode.script", false);
	struct result r;

	if (!in) {
		SKIP("tests/data/pipe-mode.script missing");
		return;
	}
	run(in, NULL, &r);
	fclose(in);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_samples, 25);
	CHECK_U64(r.st.nr_headers, 25);
	CHECK_U64(r.st.nr_frames, 61);
	CHECK_U64(r.st.nr_ignored, 186);
	CHECK_U64(r.st.nr_filtered, 0);
	CHECK_STR(r.event, "cpu-clock");
	CHECK_U64(r.total, 7ULL * 1001001 + 18);
	CHECK(r.out && strstr(r.out, "\nrdm;_dl_start_user;_dl_sysdep_start;"
			      "dl_main;asm_exc_page_fault;exc_page_fault;"
			      "__raw_callee_save_pvm_irq_enable;"
			      "pvm_irq_enable 1001001\n"));
	CHECK(r.out && !strncmp(r.out, "rdm 18\n", 7));
	free(r.out);
}

static void test_flush_mixed(void)
{
	struct fold_opts tp = { .event_filter = "cgroup:cgroup_rstat_locked" };
	FILE *in = open_fixture("flush-mixed.script.gz", true);
	struct result r;

	if (!in) {
		SKIP("cannot run gzip on flush-mixed.script.gz");
		return;
	}
	run(in, NULL, &r);
	CHECK_INT(pclose(in), 0);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_headers, 22364);
	CHECK_U64(r.st.nr_samples, 22364);
	CHECK_U64(r.st.nr_frames, 109742);
	CHECK_U64(r.st.nr_ignored, 0);
	CHECK_U64(r.st.nr_unterminated, 0);
	CHECK_STR(r.event, "cpu-clock");
	CHECK_U64(r.total, 21047ULL * 333444 + 439 + 438 + 440);
	/* The v1 memory.stat flush path is there. */
	CHECK(r.out && strstr(r.out, ";memcg1_stat_format;css_rstat_flush;"));
	free(r.out);

	/* Filtering for another event drops exactly the cpu-clock samples. */
	in = open_fixture("flush-mixed.script.gz", true);
	if (!in) {
		UNIT_FAIL("gzip");
		return;
	}
	run(in, &tp, &r);
	pclose(in);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_filtered, 21047);
	CHECK_U64(r.dropped, 21047);
	CHECK_U64(r.st.nr_samples, 439 + 438 + 440);
	CHECK_U64(r.total, 439 + 438 + 440);
	free(r.out);
}

static void test_sniff(void)
{
	static const char text[] = "rdm  6513   654.557012: 1 cpu-clock: \n";
	static const char colour[] =
		"rdm  6513   654.557012: 1 \033[31mcpu-clock\033[m: \n"
		"\t\033[34mffffffff8133c6a0\033[m css_rstat_flush\n";
	static const char bin[] = "PERFILE2\x68\0\0\0";
	char buf[4096];
	size_t n = 0;
	FILE *in;

	CHECK(perf_script__sniff(text, sizeof(text) - 1));
	CHECK(perf_script__sniff("", 0));
	/* Colour escapes (perf's color_fprintf, forced) are text, not binary. */
	CHECK(perf_script__sniff(colour, sizeof(colour) - 1));
	CHECK(!perf_script__sniff(bin, sizeof(bin) - 1));
	CHECK(!perf_script__sniff("ab\0cd", 5));
	CHECK(!perf_script__sniff("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
	in = open_fixture("pipe-mode.data", false);
	if (in) {
		n = fread(buf, 1, sizeof(buf), in);
		fclose(in);
		CHECK(!perf_script__sniff(buf, n));
	}
	in = open_fixture("pipe-mode.script", false);
	if (in) {
		n = fread(buf, 1, sizeof(buf), in);
		fclose(in);
		CHECK(perf_script__sniff(buf, n));
	}
}

/* Read a whole fixture's first bytes, as report sniffs them. */
static size_t fixture_head(const char *name, bool gz, char *buf, size_t len)
{
	FILE *in = open_fixture(name, gz);
	size_t n;

	if (!in)
		return 0;
	n = fread(buf, 1, len, in);
	if (gz)
		pclose(in);
	else
		fclose(in);
	return n;
}

/*
 * Text that is not perf script output (a README, JSON) is refused: its
 * lines would fold into junk stacks. Output of Debian's perf script (the
 * fixtures, in two -F layouts) and of perf 3.x-style headers is not.
 */
static void test_recognise(void)
{
	static const char json[] = "{\n  \"schema\": 1,\n  \"runs\": []\n}\n";
	static const char prose[] =
		"Measure 18 seconds of system time with 26 busy children\n"
		"reading cpu.stat 1000 times: 5.4 s.\n";
	static const char old[] = "perf 12/12 [000] 5.5: 9 cycles:u: \n\t1 f (k)\n";
	/* The layouts without a time column (perf script -F ...). */
	static const char no_time[] = "java 19983 cycles: \n\t7f1 f (k)\n";
	static const char no_event[] = "sleep 901 [000] \n\t ffff8110 f (k)\n";
	static const char tp[] =
		"kworker/1:2 132 [001] cgroup:cgroup_rstat_locked: root=0\n";
	static const char one_line[] = "java 1 7f2a1c0b3e40 main (/bin/x)\n";
	static const char header[] =
		"# ========\n# captured on: x\n# ========\n"
		"#\njava 19983 [001] 8521.418375: cycles: \n";
	/* Like no_event, but no frame follows: no perf prints that. */
	static const char words[] = "make 123 [000]\nall done (ok)\n";
	static const char words2[] = "make 123 all (ok)\n";
	char buf[4096];
	size_t n;

	CHECK(perf_script__recognise(no_time, sizeof(no_time) - 1));
	CHECK(perf_script__recognise(no_event, sizeof(no_event) - 1));
	/* The frame not yet read whole: undecided, so accepted. */
	CHECK(perf_script__recognise(no_event, 20));
	CHECK(perf_script__recognise(tp, sizeof(tp) - 1));
	CHECK(perf_script__recognise(one_line, sizeof(one_line) - 1));
	CHECK(perf_script__recognise(header, sizeof(header) - 1));
	CHECK(!perf_script__recognise(words, sizeof(words) - 1));
	CHECK(!perf_script__recognise(words2, sizeof(words2) - 1));
	CHECK(session_kind__sniff(no_time, sizeof(no_time) - 1) ==
	      SESSION_SCRIPT);
	CHECK(session_kind__sniff(words, sizeof(words) - 1) == SESSION_TEXT);

	CHECK(!perf_script__recognise(json, sizeof(json) - 1));
	CHECK(!perf_script__recognise(prose, sizeof(prose) - 1));
	CHECK(perf_script__recognise(old, sizeof(old) - 1));
	CHECK(perf_script__recognise("# only a comment, no newline", 28));
	n = fixture_head("README.md", false, buf, sizeof(buf));
	if (n)
		CHECK(!perf_script__recognise(buf, n));
	n = fixture_head("pipe-mode.script", false, buf, sizeof(buf));
	if (n)
		CHECK(perf_script__recognise(buf, n));
	n = fixture_head("flush-mixed.script.gz", true, buf, sizeof(buf));
	if (n)
		CHECK(perf_script__recognise(buf, n));
	n = fixture_head("flush-mixed.trace.txt.gz", true, buf, sizeof(buf));
	if (n)
		CHECK(perf_script__recognise(buf, n));
}

/* Garbage is ignored and counted; nothing is a sample. */
static void test_garbage(void)
{
	static const char junk[] = "hello world\n\x01\x02\xff\xfe\n))((\n"
				   "   \n::::\n->->\n\tabc\n";
	unsigned char bin[4096];
	struct result r;
	size_t i;

	run_buf(junk, sizeof(junk) - 1, &r);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_samples, 0);
	CHECK_U64(r.st.nr_ignored, 7);
	CHECK_STR(r.out, "");
	free(r.out);

	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (i * 2654435761u) >> 13;
	run_buf(bin, sizeof(bin), &r);
	CHECK_INT(r.ret, 0);
	free(r.out);

	run_buf("", 0, &r);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_lines, 0);
	free(r.out);
}

/* NUL bytes: the line is ignored (C strings can't carry them). */
static void test_nul(void)
{
	static const char in[] = "pp 1 1.0: 3 cycles:\n\t1 a\0b (/x)\n"
				 "\t2 c (/x)\n\n";
	struct result r;

	run_buf(in, sizeof(in) - 1, &r);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_nul, 1);
	CHECK_STR(r.out, "pp;c 3\n");
	free(r.out);
}

/*
 * A line of PERF_SCRIPT_MAX_LINE bytes or more is refused at its line
 * number, never cut or skipped: a frame line (the leaf would be lost)
 * and a header line (it would read as "no callchain").
 */
static void test_overlong(void)
{
	size_t big = PERF_SCRIPT_MAX_LINE + 100, n;
	static const char head[] = "pp 1 1.0: 3 cycles:\n\t1 a (/x)\n\t";
	static const char tail[] = " (/x)\n\t2 b (/x)\n\n";
	static const char rest[] = ": 1 cycles:\n\t1 a (/x)\n\n";
	static const char hdr[] = "pp 1 1.0: 3 cycles:\n";
	static const char frame[] = "\t1 ";
	char *buf = malloc(sizeof(head) + big + sizeof(tail));
	struct result r;

	if (!buf) {
		SKIP("no memory for the test");
		return;
	}
	memcpy(buf, head, sizeof(head) - 1);
	memset(buf + sizeof(head) - 1, 'x', big);
	memcpy(buf + sizeof(head) - 1 + big, tail, sizeof(tail) - 1);
	n = sizeof(head) - 1 + big + sizeof(tail) - 1;
	run_buf(buf, n, &r);
	CHECK_INT(r.ret, -E2BIG);
	CHECK_U64(r.st.err_line, 3);
	CHECK(r.st.err_msg && strstr(r.st.err_msg, "16 MiB"));
	free(r.out);

	/* A header just as long, first: the same error, at line 1. */
	memset(buf, 'y', PERF_SCRIPT_MAX_LINE);
	memcpy(buf + PERF_SCRIPT_MAX_LINE, rest, sizeof(rest) - 1);
	run_buf(buf, PERF_SCRIPT_MAX_LINE + sizeof(rest) - 1, &r);
	CHECK_INT(r.ret, -E2BIG);
	CHECK_U64(r.st.err_line, 1);
	free(r.out);

	/* One byte shorter (with its newline) is still read, whole. */
	n = PERF_SCRIPT_MAX_LINE - 1 - (sizeof(frame) - 1) - 5;
	memcpy(buf, hdr, sizeof(hdr) - 1);
	memcpy(buf + sizeof(hdr) - 1, frame, sizeof(frame) - 1);
	memset(buf + sizeof(hdr) - 1 + sizeof(frame) - 1, 'z', n);
	memcpy(buf + sizeof(hdr) - 1 + sizeof(frame) - 1 + n, " (/x)\n\n", 7);
	run_buf(buf, sizeof(hdr) - 1 + PERF_SCRIPT_MAX_LINE + 1, &r);
	CHECK_INT(r.ret, 0);
	CHECK_U64(r.st.nr_samples, 1);
	CHECK(r.out && strlen(r.out) == 3 + n + 3);
	free(r.out);
	free(buf);
}

/* CRLF and no final newline: '\r' is blank to \s; a lone last line. */
static void test_line_ends(void)
{
	static const char in[] = "pp 1 1.0: 3 cycles:\r\n\t1 a (/x)\r\n\n"
				 "pp 1 1.0: 3 cycles:\n\t1 b (/x)";
	struct result r;

	run_buf(in, sizeof(in) - 1, &r);
	CHECK_INT(r.ret, 0);
	CHECK_STR(r.out, "pp;a 3\n");
	CHECK_U64(r.st.nr_unterminated, 1);
	free(r.out);
}

/* A read error is reported with the line it happened at. */
static void test_read_error(void)
{
	FILE *in = fopen(unit_srcdir(), "r");	/* a directory: EISDIR */
	struct result r;

	if (!in) {
		SKIP("cannot open a directory as a FILE here");
		return;
	}
	run(in, NULL, &r);
	fclose(in);
	CHECK_INT(r.ret, -EIO);
	CHECK_U64(r.st.err_line, 1);
	CHECK(r.st.err_msg != NULL);
	free(r.out);
}

/* The reader can be reused; the fold keeps its strings meanwhile. */
static void test_reuse(void)
{
	static const char a[] = "pp 1 1.0: 3 cycles:\n\t1 a (/x)\n\n";
	static const char b[] = "pp 1 1.0: 4 cycles:\n\t1 a (/x)\n\n";
	struct fold_opts none = { 0 };
	struct perf_script *ps = perf_script__new();
	struct fold *f = fold__new(&none);
	struct perf_script_sink sink;
	FILE *in;
	char *out = NULL;
	size_t len = 0;
	FILE *o;

	if (!ps || !f) {
		UNIT_FAIL("setup");
		return;
	}
	fold__script_sink(f, &sink);
	in = fmemopen((void *)a, sizeof(a) - 1, "r");
	CHECK_INT(perf_script__fold(ps, in, &sink, NULL), 0);
	fclose(in);
	in = fmemopen((void *)b, sizeof(b) - 1, "r");
	CHECK_INT(perf_script__fold(ps, in, &sink, NULL), 0);
	fclose(in);
	o = open_memstream(&out, &len);
	CHECK_INT(fold__write(f, o), 0);
	fclose(o);
	CHECK_STR(out, "pp;a 7\n");
	free(out);
	fold__delete(f);
	perf_script__delete(ps);
}

UNIT_MAIN(UNIT(test_pipe_mode), UNIT(test_flush_mixed), UNIT(test_sniff),
	  UNIT(test_recognise),
	  UNIT(test_garbage), UNIT(test_nul), UNIT(test_overlong),
	  UNIT(test_line_ends), UNIT(test_read_error), UNIT(test_reuse))
