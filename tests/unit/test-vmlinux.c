// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from a vmlinux (machine__load_vmlinux), on a small fake
 * kernel image linked here like the real one: .text starting with _text
 * and _stext, ending with _etext, other sections after it.
 *
 * The oracle is the image itself, read by readelf: perf script -k needs a
 * recording whose kernel matches the image, which a fake cannot have (the
 * end-to-end comparison with perf on a recording of this machine's kernel
 * is test_e2e_vmlinux in test-symbols.c). Where readelf leaves a choice
 * open (aliases, labels) the expectations follow perf 6.1's rules:
 * dso__load_sym(), symbols__fixup_end(), choose_best_symbol().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "symbols.h"
#include "unit.h"
#include "util.h"

#define KTEXT 0xffffffff81000000ULL
#define SHIFT 0x2400000ULL	/* a KASLR slide */
#define MAX_SYMS 64
#define MAX_SECS 32


/*
 * The fake kernel. alias_weak shares alpha's address and size; the asm
 * labels sit at _text, where perf keeps the sized (by fix-up) visible one
 * of the four zero-sized names and drops the hidden one; start_kernel
 * goes to .init.text as in the kernel; names keep their GCC suffixes.
 */
static const char fake_c[] =
	"int counter_data = 1;\n"
	"const int table_ro[4] = { 1, 2, 3, 4 };\n"
	"__attribute__((noinline)) int alpha(int x)\n"
	"{ return x * 3 + counter_data; }\n"
	"__attribute__((noinline)) int beta(int x)\n"
	"{ return alpha(x) ^ 0x55; }\n"
	"int fts(int x) __asm__(\"finish_task_switch.isra.0\");\n"
	"__attribute__((noinline)) int fts(int x)\n"
	"{ int i, s = 0; for (i = 0; i < x; i++) s += beta(i); return s; }\n"
	"int alias_weak(int) __attribute__((weak, alias(\"alpha\")));\n"
	"__attribute__((noinline, section(\".init.text\")))\n"
	"int start_kernel(int x) { return fts(x) + 1; }\n"
	"asm(\".section .text.entry,\\\"ax\\\"\\n\"\n"
	"    \".globl entry_label\\nentry_label:\\n\\tnop\\n\\tnop\\n\"\n"
	"    \".globl hidden_label\\n.hidden hidden_label\\n\"\n"
	"    \"hidden_label:\\n\\tnop\\n\\tret\\n\\t.previous\\n\");\n";

static const char fake_lds[] =
	"ENTRY(_text)\n"
	"SECTIONS {\n"
	"\t. = 0xffffffff81000000;\n"
	"\t.text : {\n"
	"\t\t_text = .;\n"
	"\t\t_stext = .;\n"
	"\t\t*(.text.entry)\n"
	"\t\t*(.text .text.*)\n"
	"\t\t. = ALIGN(0x100);\n"
	"\t\t_etext = .;\n"
	"\t}\n"
	"\t. = ALIGN(0x1000);\n"
	"\t.rodata : { *(.rodata .rodata.*) }\n"
	"\t.notes : { *(.note.gnu.build-id) }\n"
	"\t.data : { *(.data .data.*) }\n"
	"\t. = ALIGN(0x1000);\n"
	"\t.init.text : { *(.init.text) }\n"
	"\t/DISCARD/ : { *(.comment) *(.note.GNU-stack) *(.eh_frame)\n"
	"\t\t*(.note.gnu.property) }\n"
	"}\n";

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return !fclose(f) && ok;
}

/* ld's --build-id choice (sha1, md5, none) makes a variant. */
static const char *fake_vmlinux(const char *build_id)
{
	static bool built;
	char name[64];
	const char *out;

	if (!built) {
		if (!write_file(unit_tmp_path("fake.c"), fake_c) ||
		    !write_file(unit_tmp_path("fake.lds"), fake_lds))
			return NULL;
		if (unit_sh("cd %s && gcc -O2 -fno-pic -mcmodel=kernel -ffreestanding -fno-stack-protector -fcf-protection=none -fno-asynchronous-unwind-tables -falign-functions=64 -c fake.c -o fake.o",
		       unit_tmpdir()))
			return NULL;
		built = true;
	}
	snprintf(name, sizeof(name), "vmlinux-%s", build_id);
	out = unit_tmp_path(name);
	if (access(out, R_OK) &&
	    unit_sh("cd %s && ld -T fake.lds --build-id=%s -o %s fake.o", unit_tmpdir(),
	       build_id, name))
		return NULL;
	return out;
}

/* ---- the image as readelf reads it ----------------------------------- */

struct esym {
	uint64_t value, size;
	char type[16], vis[16], name[64];
	int ndx;		/* -1: UND, ABS and the like */
};

struct image {
	struct esym syms[MAX_SYMS];
	int nr;
	char secs[MAX_SECS][32];	/* section names by index */
	uint64_t sec_addr[MAX_SECS];
	uint64_t text_start, text_end;
	uint8_t bid[20];
	size_t bid_size;
};

static bool read_image(const char *path, struct image *img)
{
	char cmd[512], line[512];
	FILE *p;

	memset(img, 0, sizeof(*img));
	snprintf(cmd, sizeof(cmd), "readelf -SWsn %s", path);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		struct esym *e = &img->syms[img->nr];
		unsigned long long v, s;
		char ndx[16], hex[64];
		int i, n;

		if (sscanf(line, " [%d] %31s %*s %llx %*x %llx", &i, hex, &v,
			   &s) == 4 && i > 0 && i < MAX_SECS) {
			strcpy(img->secs[i], hex);
			img->sec_addr[i] = v;
			if (!strcmp(hex, ".text")) {
				img->text_start = v;
				img->text_end = v + s;
			}
			continue;
		}
		/* -W puts it on the note's line. */
		if (strstr(line, "Build ID: ") &&
		    sscanf(strstr(line, "Build ID: "), "Build ID: %63s",
			   hex) == 1) {
			for (n = 0; hex[2 * n] && n < 20; n++)
				sscanf(hex + 2 * n, "%2hhx", &img->bid[n]);
			img->bid_size = n;
			continue;
		}
		if (img->nr == MAX_SYMS ||
		    sscanf(line, " %*d: %llx %llu %15s %*s %15s %15s %63s", &v,
			   &s, e->type, e->vis, ndx, e->name) != 6)
			continue;
		e->value = v;
		e->size = s;
		e->ndx = (ndx[0] >= '0' && ndx[0] <= '9') ? atoi(ndx) : -1;
		img->nr++;
	}
	pclose(p);
	return img->nr > 0 && img->text_end;
}

static const struct esym *sym_named(const struct image *img,
				    const char *name)
{
	int i;

	for (i = 0; i < img->nr; i++)
		if (!strcmp(img->syms[i].name, name))
			return &img->syms[i];
	UNIT_FAIL("readelf shows no %s", name);
	return NULL;
}

/* What perf keeps (elf_sym__filter, elf_sym__is_label) at value. */
static bool kept_at(const struct image *img, uint64_t value,
		    const char *name)
{
	int i;

	for (i = 0; i < img->nr; i++) {
		const struct esym *e = &img->syms[i];

		if (e->value != value || e->ndx <= 0 ||
		    !strcmp(e->vis, "HIDDEN"))
			continue;
		if (strcmp(e->type, "FUNC") && strcmp(e->type, "OBJECT") &&
		    strcmp(e->type, "NOTYPE"))
			continue;
		if (!name || !strcmp(e->name, name))
			return true;
	}
	return false;
}

static void expect(struct machine *m, uint64_t addr, const char *sym,
		   uint64_t off, const char *dso)
{
	struct rs_frame f;

	CHECK_INT(machine__resolve(m, 0, 0, PERF_RECORD_MISC_KERNEL, addr,
				   &f), 0);
	if (strcmp(f.sym, sym) || f.sym_off != off || strcmp(f.dso, dso))
		UNIT_FAIL("%#" PRIx64 ": %s+%#" PRIx64 " (%s), expected %s+%#"
			  PRIx64 " (%s)", addr, f.sym, f.sym_off, f.dso, sym,
			  off, dso);
	CHECK(f.known == (strcmp(sym, "[unknown]") != 0));
	CHECK_U64(f.map_addr, addr);
}

static void kernel_mmap(struct machine *m, uint64_t start, uint64_t pgoff,
			const char *name)
{
	struct rs_event ev = { .kind = RS_EV_MMAP,
			       .cpumode = PERF_RECORD_MISC_KERNEL };

	ev.mmap.pid = (uint32_t)-1;
	ev.mmap.start = start;
	ev.mmap.len = 0x1000000;
	ev.mmap.pgoff = pgoff;
	ev.mmap.filename = name;
	CHECK_INT(machine__process_event(m, &ev), 0);
}

static bool setup(const char *build_id, const char **path,
		  struct image *img)
{
	*path = fake_vmlinux(build_id);
	if (!*path) {
		UNIT_FAIL("cannot build the fake vmlinux (gcc, ld)");
		return false;
	}
	if (!read_image(*path, img)) {
		UNIT_FAIL("cannot read %s with readelf", *path);
		return false;
	}
	return true;
}

/*
 * Every function readelf lists resolves over its whole st_size to itself
 * (or to the alias perf prefers), in the dso of its section; right after
 * it, where no other symbol starts, lies [unknown]: no kallsyms-style
 * stretching to the next symbol.
 */
static void check_functions(struct machine *m, const struct image *img,
			    uint64_t shift)
{
	char dso[64];
	int i, n = 0;

	for (i = 0; i < img->nr; i++) {
		const struct esym *e = &img->syms[i];
		bool text;
		struct rs_frame f;

		if (strcmp(e->type, "FUNC") || !e->size || e->ndx <= 0)
			continue;
		text = e->value >= img->text_start && e->value < img->text_end;
		snprintf(dso, sizeof(dso), "[kernel.kallsyms]%s",
			 text ? "" : img->secs[e->ndx]);
		machine__resolve(m, 0, 0, PERF_RECORD_MISC_KERNEL,
				 e->value + shift, &f);
		if (!kept_at(img, e->value, f.sym))
			UNIT_FAIL("%s: got %s", e->name, f.sym);
		CHECK_U64(f.sym_off, 0);
		CHECK_STR(f.dso, dso);
		expect(m, e->value + e->size - 1 + shift, f.sym, e->size - 1,
		       dso);
		if (text && !kept_at(img, e->value + e->size, NULL) &&
		    e->value + e->size < img->text_end)
			expect(m, e->value + e->size + shift, "[unknown]", 0,
			       dso);
		n++;
	}
	CHECK(n >= 5);
}

/* The choices readelf leaves open, and the sections around .text. */
static void check_rules(struct machine *m, const struct image *img,
			uint64_t shift)
{
	const struct esym *entry = sym_named(img, "entry_label");
	const struct esym *hidden = sym_named(img, "hidden_label");
	const struct esym *alpha = sym_named(img, "alpha");
	const struct esym *fts = sym_named(img, "finish_task_switch.isra.0");
	const struct esym *data = sym_named(img, "counter_data");
	const struct esym *ro = sym_named(img, "table_ro");
	const struct esym *etext = sym_named(img, "_etext");
	uint64_t notes = 0;
	int i;

	if (!entry || !hidden || !alpha || !fts || !data || !ro || !etext)
		return;
	/* _text, _stext, entry_label: the one fixed up to a size wins. */
	CHECK_U64(entry->value, KTEXT);
	expect(m, KTEXT + shift, "entry_label", 0, "[kernel.kallsyms]");
	/* Hidden labels are dropped: entry_label reaches over them. */
	expect(m, hidden->value + 1 + shift, "entry_label",
	       hidden->value + 1 - KTEXT, "[kernel.kallsyms]");
	/* Global beats weak at one address. */
	expect(m, alpha->value + 3 + shift, "alpha", 3, "[kernel.kallsyms]");
	expect(m, fts->value + 7 + shift, "finish_task_switch.isra.0", 7,
	       "[kernel.kallsyms]");
	/* Data symbols live in their section's own map. */
	expect(m, data->value + 2 + shift, "counter_data", 2,
	       "[kernel.kallsyms].data");
	expect(m, ro->value + 4 + shift, "table_ro", 4,
	       "[kernel.kallsyms].rodata");
	/* The kernel map is .text: _etext is past it, as is .notes. */
	CHECK_U64(etext->value, img->text_end);
	expect(m, etext->value + shift, "[unknown]", 0, "[unknown]");
	/* Sections without symbols get no map. */
	for (i = 1; i < MAX_SECS; i++)
		if (!strcmp(img->secs[i], ".notes"))
			notes = img->sec_addr[i];
	CHECK(notes);
	expect(m, notes + 2 + shift, "[unknown]", 0, "[unknown]");
	expect(m, KTEXT - 1 + shift, "[unknown]", 0, "[unknown]");
}

static void test_vmlinux_symbols(void)
{
	struct machine *m = machine__new();
	struct machine_stats st;
	struct image img;
	const char *path;

	if (!setup("sha1", &path, &img))
		goto out;
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	CHECK(machine__has_kernel_symbols(m));
	/* Unrelocated: perf reads the image as is without a kernel MMAP. */
	check_functions(m, &img, 0);
	check_rules(m, &img, 0);
	/* The same again from the cache. */
	machine__stats(m, &st);
	check_rules(m, &img, 0);
	{
		struct machine_stats st2;

		machine__stats(m, &st2);
		CHECK(st2.cache_hits > st.cache_hits);
	}
	kernel_mmap(m, KTEXT, KTEXT, "[kernel.kallsyms]_text");
	check_functions(m, &img, 0);
out:
	machine__delete(m);
}

/* KASLR: the MMAP event's _text moves everything, before or after load. */
static void test_vmlinux_relocated(void)
{
	struct machine *m = machine__new();
	struct image img;
	const char *path;

	if (!setup("sha1", &path, &img))
		goto out;
	kernel_mmap(m, KTEXT + SHIFT, KTEXT + SHIFT, "[kernel.kallsyms]_text");
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	check_functions(m, &img, SHIFT);
	check_rules(m, &img, SHIFT);
	/* Unshifted addresses now fall below the relocated .text. */
	expect(m, sym_named(&img, "alpha")->value, "[unknown]", 0,
	       "[unknown]");
	machine__delete(m);

	m = machine__new();
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	kernel_mmap(m, KTEXT + SHIFT, KTEXT + SHIFT,
		    "[kernel.kallsyms]_stext");
	check_functions(m, &img, SHIFT);
	machine__delete(m);

	/* kptr_restrict hid _text (pgoff 0): perf does not relocate. */
	m = machine__new();
	kernel_mmap(m, KTEXT + SHIFT, 0, "[kernel.kallsyms]");
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	check_functions(m, &img, 0);
	machine__delete(m);

	/* A reference symbol the image lacks: perf reads it unrelocated. */
	m = machine__new();
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	kernel_mmap(m, KTEXT + SHIFT, KTEXT + SHIFT,
		    "[kernel.kallsyms]no_such_symbol");
	check_functions(m, &img, 0);
out:
	machine__delete(m);
}

static void test_vmlinux_build_id(void)
{
	static const uint8_t wrong[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct machine *m = machine__new();
	struct image img, md5, noid;
	const char *path, *p16, *none;
	uint8_t padded[20] = { 0 };

	if (!setup("sha1", &path, &img) || !setup("md5", &p16, &md5) ||
	    !setup("none", &none, &noid))
		goto out;
	CHECK_U64(img.bid_size, 20);
	CHECK_INT(machine__add_build_id(m, "[kernel.kallsyms]", img.bid,
					img.bid_size), 0);
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	/* Another kernel's image is refused; what was loaded stays. */
	CHECK_INT(machine__add_build_id(m, "[kernel.kallsyms]", wrong, 20), 0);
	CHECK_INT(machine__load_vmlinux(m, path), -EINVAL);
	CHECK(machine__has_kernel_symbols(m));
	check_functions(m, &img, 0);
	/* So is an image without a build id when the recording has one. */
	CHECK_INT(machine__load_vmlinux(m, none), -EINVAL);
	machine__delete(m);

	/* Old perf.data files pad shorter build ids to 20 bytes. */
	m = machine__new();
	CHECK_U64(md5.bid_size, 16);
	CHECK_U64(noid.bid_size, 0);
	memcpy(padded, md5.bid, 16);
	CHECK_INT(machine__add_build_id(m, "[kernel.kallsyms]", padded, 20),
		  0);
	CHECK_INT(machine__load_vmlinux(m, p16), 0);
	padded[19] = 1;
	CHECK_INT(machine__add_build_id(m, "[kernel.kallsyms]", padded, 20),
		  0);
	CHECK_INT(machine__load_vmlinux(m, p16), -EINVAL);
	machine__delete(m);

	/* No build id recorded: any image goes, as in perf. */
	m = machine__new();
	CHECK_INT(machine__add_build_id(m, "/usr/bin/true", wrong, 20), 0);
	CHECK_INT(machine__load_vmlinux(m, none), 0);
out:
	machine__delete(m);
}

static void test_vmlinux_refused(void)
{
	struct machine *m = machine__new();
	const char *path = fake_vmlinux("sha1");
	const char *text = unit_tmp_path("not-elf"), *strip = unit_tmp_path("stripped");

	if (!path) {
		UNIT_FAIL("cannot build the fake vmlinux (gcc, ld)");
		goto out;
	}
	CHECK_INT(machine__load_vmlinux(m, unit_tmp_path("missing")), -ENOENT);
	CHECK_INT(machine__load_vmlinux(m, unit_tmpdir()), -EISDIR);
	CHECK(write_file(text, "ffffffff81000000 T _text\n"));
	CHECK_INT(machine__load_vmlinux(m, text), -ENOEXEC);
	/* An ELF with symbols but no kernel image (no _text, no _stext). */
	CHECK_INT(machine__load_vmlinux(m, unit_tmp_path("fake.o")), -ENOEXEC);
	CHECK_INT(unit_sh("objcopy --strip-all %s %s", path, strip), 0);
	CHECK_INT(machine__load_vmlinux(m, strip), -ENODATA);
	CHECK(!machine__has_kernel_symbols(m));
out:
	machine__delete(m);
}

/* Either loader replaces the other's symbols, section maps included. */
static void test_vmlinux_then_kallsyms(void)
{
	struct machine *m = machine__new();
	const char *ks = unit_tmp_path("kallsyms");
	const struct esym *init, *alpha;
	struct image img;
	const char *path;
	char buf[256];

	if (!setup("sha1", &path, &img))
		goto out;
	init = sym_named(&img, "start_kernel");
	alpha = sym_named(&img, "alpha");
	if (!init || !alpha)
		goto out;
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	expect(m, init->value + 1, "start_kernel", 1,
	       "[kernel.kallsyms].init.text");
	snprintf(buf, sizeof(buf), "%016" PRIx64 " T _text\n%016" PRIx64
		 " T kallsyms_alpha\n", (uint64_t)KTEXT, alpha->value);
	CHECK(write_file(ks, buf));
	CHECK_INT(machine__load_kallsyms(m, ks), 0);
	/* kallsyms sizes alpha up to the page end: beyond its st_size. */
	expect(m, alpha->value + alpha->size + 1, "kallsyms_alpha",
	       alpha->size + 1, "[kernel.kallsyms]");
	/* No section maps any more: the MMAP-less kernel half. */
	expect(m, init->value + 1, "[unknown]", 0, "[kernel.kallsyms]");
	CHECK_INT(machine__load_vmlinux(m, path), 0);
	expect(m, init->value + 1, "start_kernel", 1,
	       "[kernel.kallsyms].init.text");
	expect(m, alpha->value + 1, "alpha", 1, "[kernel.kallsyms]");
out:
	machine__delete(m);
}

static void test_zz_cleanup(void)
{
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_vmlinux_symbols), UNIT(test_vmlinux_relocated),
	  UNIT(test_vmlinux_build_id), UNIT(test_vmlinux_refused),
	  UNIT(test_vmlinux_then_kallsyms), UNIT_CLEANUP(test_zz_cleanup))
