// SPDX-License-Identifier: GPL-2.0
/*
 * Probe point resolution against build/workloads/loop, checked against
 * facts from tools nobody here wrote: nm for symbol values, readelf for
 * the PT_LOAD segments, objdump's decoded DWARF line table for line
 * addresses, and Debian's perf probe (-L, and -n dry runs) when present.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "unit.h"

#define LOOP_BIN "build/workloads/loop"
#define LOOP_SRC "tests/workloads/loop.c"

static char errbuf[512];

static bool have_loop(void)
{
	if (access(LOOP_BIN, R_OK)) {
		SKIP("build/workloads/loop not built (make tests)");
		return false;
	}
	return true;
}

/* First line of a command's output, or "" (static buffer). */
static const char *sh_line(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static const char *sh_line(const char *fmt, ...)
{
	static char out[512];
	char cmd[1024];
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return out;
	if (!fgets(out, sizeof(out), p))
		out[0] = '\0';
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static uint64_t nm_value(const char *sym)
{
	return strtoull(sh_line("nm %s | awk '$3 == \"%s\" { print $1 }'",
				LOOP_BIN, sym), NULL, 16);
}

/* Line of the marker comment in loop.c (1-based), 0 when absent. */
static int marker_line(const char *marker)
{
	char buf[512];
	int n = 0;
	FILE *f = fopen(LOOP_SRC, "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		char *m = strstr(buf, marker);

		n++;
		/* The marker ends the comment: "body" is not "body-end". */
		if (m && !strncmp(m + strlen(marker), " */", 3) &&
		    !strstr(buf, " *   ")) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

/* DW_AT_decl_line of a function, from the line perf -L and gdb show. */
static int decl_line(const char *func)
{
	char buf[512], pat[128];
	int n = 0;
	FILE *f = fopen(LOOP_SRC, "r");

	if (!f)
		return 0;
	snprintf(pat, sizeof(pat), " %s(", func);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, pat) && buf[0] != ' ' && buf[0] != '\t' &&
		    !strchr(buf, ';')) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

/* The lowest address objdump's decoded line table gives line. */
static uint64_t oracle_line_addr(int line)
{
	return strtoull(sh_line("objdump --dwarf=decodedline %s | awk '$1 == \"loop.c\" && $2 == %d && $NF == \"x\" { print $3; exit }'",
				LOOP_BIN, line), NULL, 16);
}

/* File offset of vaddr from readelf's program headers. */
static uint64_t oracle_file_offset(uint64_t vaddr)
{
	unsigned long long off, va, pa, fsz;
	char cmd[512], buf[512];
	uint64_t ret = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW %s", LOOP_BIN);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(buf, sizeof(buf), p))
		if (sscanf(buf, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va,
			   &pa, &fsz) == 4 && vaddr >= va && vaddr < va + fsz)
			ret = vaddr - va + off;
	pclose(p);
	return ret;
}

static int resolve(const char *path, const char *spec,
		   struct probe_point **pts, size_t *nr)
{
	return probe__resolve(path, false, spec, pts, nr, errbuf,
			      sizeof(errbuf));
}

static void test_markers_match_comment(void)
{
	int body, end, decl;
	char want[64];

	if (!have_loop())
		return;
	body = marker_line("PROBE: body");
	end = marker_line("PROBE: body-end");
	decl = decl_line("loop_body");
	CHECK(body > 0 && end > body && decl > 0);
	/* The header comment promises loop_body:5 and loop_body:7. */
	snprintf(want, sizeof(want), "loop_body:%d ", body - decl);
	CHECK_INT(unit_sh("grep -q ' \\*   %s' %s", want, LOOP_SRC), 0);
	snprintf(want, sizeof(want), "loop_body:%d ", end - decl);
	CHECK_INT(unit_sh("grep -q ' \\*   %s' %s", want, LOOP_SRC), 0);
	CHECK_INT(body - decl, 5);
	CHECK_INT(end - decl, 7);
}

static void test_func_entry(void)
{
	struct probe_point *p;
	size_t nr;

	if (!have_loop())
		return;
	CHECK_INT(resolve(LOOP_BIN, "loop_leaf", &p, &nr), 0);
	if (unit_failed)
		return;
	CHECK_INT(nr, 1);
	CHECK_U64(p[0].vaddr, nm_value("loop_leaf"));
	CHECK_U64(p[0].offset, oracle_file_offset(p[0].vaddr));
	CHECK_STR(p[0].event, "loop_leaf");
	CHECK_STR(p[0].group, "probe_loop");
	CHECK_STR(p[0].func, "loop_leaf");
	CHECK(!p[0].retprobe);
	probe__free_points(p, nr);
}

static void test_func_return(void)
{
	struct probe_point *p;
	size_t nr;

	if (!have_loop())
		return;
	CHECK_INT(resolve(LOOP_BIN, "loop_body%return", &p, &nr), 0);
	if (unit_failed)
		return;
	CHECK_INT(nr, 1);
	CHECK_U64(p[0].vaddr, nm_value("loop_body"));
	CHECK(p[0].retprobe);
	CHECK_STR(p[0].event, "loop_body__return");
	probe__free_points(p, nr);
}

static void test_func_offset(void)
{
	struct probe_point *p;
	size_t nr;

	if (!have_loop())
		return;
	CHECK_INT(resolve(LOOP_BIN, "loop_body+0x8", &p, &nr), 0);
	if (unit_failed)
		return;
	CHECK_U64(p[0].vaddr, nm_value("loop_body") + 8);
	CHECK_U64(p[0].offset, oracle_file_offset(p[0].vaddr));
	CHECK_STR(p[0].event, "loop_body");
	probe__free_points(p, nr);
	CHECK_INT(resolve(LOOP_BIN, "loop_body+12", &p, &nr), 0);
	if (!unit_failed)
		CHECK_U64(p[0].vaddr, nm_value("loop_body") + 12);
	probe__free_points(p, nr);
	CHECK_INT(resolve(LOOP_BIN, "loop_body+100000", &p, &nr), -ENOENT);
}

/* The marker lines: one point each, at the line's first row. */
static void test_func_line(void)
{
	static const char *const markers[] = { "PROBE: body",
					       "PROBE: body-end" };
	int decl = decl_line("loop_body");
	struct probe_point *p;
	char spec[64], ev[64];
	size_t nr, i;

	if (!have_loop())
		return;
	for (i = 0; i < 2; i++) {
		int line = marker_line(markers[i]);

		snprintf(spec, sizeof(spec), "loop_body:%d", line - decl);
		snprintf(ev, sizeof(ev), "loop_body_L%d", line - decl);
		if (resolve(LOOP_BIN, spec, &p, &nr)) {
			UNIT_FAIL("%s: %s", spec, errbuf);
			return;
		}
		CHECK_INT(nr, 1);
		CHECK_U64(p[0].vaddr, oracle_line_addr(line));
		CHECK_U64(p[0].offset, oracle_file_offset(p[0].vaddr));
		CHECK_INT(p[0].line, line);
		CHECK(p[0].file && strstr(p[0].file, "loop.c"));
		CHECK_STR(p[0].event, ev);
		CHECK_STR(p[0].func, "loop_body");
		probe__free_points(p, nr);
	}
}

static void test_src_line(void)
{
	int line = marker_line("PROBE: body");
	struct probe_point *p;
	char spec[64];
	size_t nr;

	if (!have_loop())
		return;
	snprintf(spec, sizeof(spec), "loop.c:%d", line);
	CHECK_INT(resolve(LOOP_BIN, spec, &p, &nr), 0);
	if (unit_failed)
		return;
	CHECK_INT(nr, 1);
	CHECK_U64(p[0].vaddr, oracle_line_addr(line));
	CHECK_STR(p[0].event, "loop_body");
	probe__free_points(p, nr);
	/* A path suffix works too, a partial name does not. */
	snprintf(spec, sizeof(spec), "workloads/loop.c:%d", line);
	CHECK_INT(resolve(LOOP_BIN, spec, &p, &nr), 0);
	probe__free_points(p, nr);
	snprintf(spec, sizeof(spec), "oop.c:%d", line);
	CHECK_INT(resolve(LOOP_BIN, spec, &p, &nr), -ENOENT);
}

static void test_errors(void)
{
	struct probe_point *p;
	size_t nr;

	if (!have_loop())
		return;
	CHECK_INT(resolve(LOOP_BIN, "loop_body:99", &p, &nr), -ENOENT);
	CHECK(strstr(errbuf, "no line 99 in loop_body (lines 0-"));
	/* Line 3 is blank. */
	CHECK_INT(resolve(LOOP_BIN, "loop_body:3", &p, &nr), -ENOENT);
	CHECK(strstr(errbuf, "has no code"));
	CHECK_INT(resolve(LOOP_BIN, "no_such_func", &p, &nr), -ENOENT);
	CHECK(strstr(errbuf, "no function no_such_func"));
	CHECK_INT(resolve(LOOP_BIN, "loop.c:99999", &p, &nr), -ENOENT);
	CHECK_INT(resolve(LOOP_BIN, "nosuch.c:3", &p, &nr), -ENOENT);
	CHECK_INT(resolve(LOOP_BIN, "loop_body%entry", &p, &nr), -EINVAL);
	CHECK_INT(resolve(LOOP_BIN, "loop_body:x", &p, &nr), -EINVAL);
	CHECK_INT(resolve(LOOP_BIN, "loop_body+", &p, &nr), -EINVAL);
	CHECK_INT(resolve(LOOP_BIN, "1abc", &p, &nr), -EINVAL);
	CHECK_INT(resolve(LOOP_BIN, "", &p, &nr), -EINVAL);
	CHECK_INT(resolve("/nonexistent/loop", "loop_body", &p, &nr),
		  -ENOENT);
	CHECK_INT(resolve(LOOP_SRC, "loop_body", &p, &nr), -ENOEXEC);
	CHECK(p == NULL && nr == 0);
}

static void test_no_dwarf(void)
{
	const char *copy = unit_tmp_path("loop-nodebug");
	struct probe_point *p;
	size_t nr;

	if (!have_loop())
		return;
	if (unit_sh("strip -g -o %s %s", copy, LOOP_BIN)) {
		SKIP("strip failed");
		return;
	}
	CHECK_INT(resolve(copy, "loop_body:5", &p, &nr), -ENODATA);
	CHECK(strstr(errbuf, "no debuginfo"));
	CHECK_INT(resolve(copy, "loop.c:37", &p, &nr), -ENODATA);
	CHECK_INT(probe__lines(copy, false, "loop_body", stdout, errbuf,
			       sizeof(errbuf)), -ENODATA);
	/* Function entries only need the symbol table, as in perf. */
	CHECK_INT(resolve(copy, "loop_leaf", &p, &nr), 0);
	if (!unit_failed) {
		CHECK_U64(p[0].vaddr, nm_value("loop_leaf"));
		/* perf cuts the group at the "-". */
		CHECK_STR(p[0].group, "probe_loop");
	}
	probe__free_points(p, nr);
}

/* perf's event names, which record also gives points it needs no DWARF for. */
static void test_event_name(void)
{
	static const struct {
		const char *func, *suffix, *want;
	} cases[] = {
		{ "css_rstat_flush", "", "css_rstat_flush" },
		{ "foo.isra.0", "", "foo" },
		{ "foo.constprop.0", "__return", "foo__return" },
		{ "memcpy@GLIBC_2.14", "_L3", "memcpy_L3" },
		{ ".hidden", "", "hidden" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = probe__event_name(cases[i].func, cases[i].suffix);

		CHECK_STR(got ? got : "(null)", cases[i].want);
		free(got);
	}
}

/* A name perf cuts: the group stops at the first odd character. */
static void test_group_name(void)
{
	const char *copy = unit_tmp_path("my-loop.x");
	struct probe_point *p;
	size_t nr;

	if (!have_loop())
		return;
	if (unit_sh("cp %s %s", LOOP_BIN, copy)) {
		SKIP("cp failed");
		return;
	}
	CHECK_INT(resolve(copy, "loop_leaf", &p, &nr), 0);
	if (!unit_failed)
		CHECK_STR(p[0].group, "probe_my");
	probe__free_points(p, nr);
}

static bool perf_works(void)
{
	return !unit_sh("perf probe -x %s -L loop_leaf >/dev/null 2>&1",
			LOOP_BIN);
}

/* perf probe -L output, byte for byte. */
static void test_lines_vs_perf(void)
{
	static const char *const funcs[] = { "loop_body", "loop_leaf", "main" };
	const char *ours = unit_tmp_path("ours.txt");
	const char *theirs = unit_tmp_path("perf.txt");
	size_t i;

	if (!have_loop())
		return;
	if (!perf_works()) {
		SKIP("perf probe -x -L does not work here");
		return;
	}
	for (i = 0; i < 3; i++) {
		FILE *f = fopen(ours, "w");

		CHECK(f);
		if (!f)
			return;
		CHECK_INT(probe__lines(LOOP_BIN, false, funcs[i], f, errbuf,
				       sizeof(errbuf)), 0);
		fclose(f);
		CHECK_INT(unit_sh("perf probe -x %s -L %s > %s 2>/dev/null",
				  LOOP_BIN, funcs[i], theirs), 0);
		CHECK_INT(unit_sh("cmp -s %s %s", ours, theirs), 0);
	}
}

/*
 * perf's dry run (-n: nothing is created) names the same event and puts
 * the first of its addresses where we put ours; it probes every row of a
 * line, we the first of a run, so we have one point where it may have two.
 */
static void test_resolve_vs_perf(void)
{
	static const char *const specs[] = { "loop_body:5", "loop_body:7",
					     "loop_leaf", "loop_body+8",
					     "loop_body%return" };
	struct probe_point *p;
	char want[128];
	size_t i, nr;

	if (!have_loop())
		return;
	if (!perf_works()) {
		SKIP("perf probe -x does not work here");
		return;
	}
	for (i = 0; i < 5; i++) {
		const char *line;

		CHECK_INT(resolve(LOOP_BIN, specs[i], &p, &nr), 0);
		if (unit_failed)
			return;
		line = sh_line("perf probe -x %s -n -v -a '%s' 2>&1 | grep -m1 'Writing event'",
			       LOOP_BIN, specs[i]);
		if (!*line) {
			probe__free_points(p, nr);
			SKIP("perf probe -n cannot write uprobe_events here");
			return;
		}
		/* "Writing event: p:probe_loop/loop_body_L5 /path:0x1187" */
		snprintf(want, sizeof(want), "%c:%s/%s ",
			 p[0].retprobe ? 'r' : 'p', p[0].group, p[0].event);
		if (!strstr(line, want))
			UNIT_FAIL("perf: '%s', expected '%s'", line, want);
		snprintf(want, sizeof(want), ":%#" PRIx64, p[0].offset);
		if (!strstr(line, want))
			UNIT_FAIL("perf: '%s', expected offset %s", line, want);
		probe__free_points(p, nr);
	}
}

static void test_find_vmlinux(void)
{
	char buf[4096], *v;

	CHECK_INT(probe__vmlinux_path(0, buf, sizeof(buf)), 0);
	CHECK(!strncmp(buf, "/usr/lib/debug/boot/vmlinux-", 28));
	CHECK_INT(probe__vmlinux_path(4, buf, sizeof(buf)), -ENOENT);
	v = probe__find_vmlinux();
	/* This machine has none; elsewhere it must be one of the four. */
	if (v)
		CHECK(strstr(v, "vmlinux"));
	free(v);
}

static void test_cleanup(void)
{
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_markers_match_comment), UNIT(test_func_entry),
	  UNIT(test_func_return), UNIT(test_func_offset),
	  UNIT(test_func_line), UNIT(test_src_line), UNIT(test_errors),
	  UNIT(test_no_dwarf), UNIT(test_event_name), UNIT(test_group_name),
	  UNIT(test_lines_vs_perf), UNIT(test_resolve_vs_perf),
	  UNIT(test_find_vmlinux), UNIT_CLEANUP(test_cleanup))
