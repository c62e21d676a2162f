// SPDX-License-Identifier: GPL-2.0
/*
 * The VM layer's host-side parts that need no VM: the newc cpio writer
 * (checked by GNU cpio, which nobody here wrote, extracting it), the
 * program packer (what the dynamic loader needs for /bin/sh), the frames
 * of the data port, and the argv a guest runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "util.h"
#include "vm.h"
#include "../../src/vm/vm-internal.h"

static bool have_cpio(void)
{
	if (unit_sh("command -v cpio >/dev/null 2>&1") == 0)
		return true;
	SKIP("GNU cpio is not installed (Debian package cpio)");
	return false;
}

static void test_cpio_extracts(void)
{
	const char *img = unit_tmp_path("t.cpio");
	const char *src = unit_tmp_path("src.bin");
	const char *out = unit_tmp_path("x");
	char data[5000];
	struct cpio *c;
	FILE *f;
	size_t i;

	if (!have_cpio())
		return;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);
	f = fopen(src, "w");
	CHECK(f && fwrite(data, 1, sizeof(data), f) == sizeof(data));
	fclose(f);
	f = fopen(img, "w");
	CHECK(f != NULL);
	c = cpio__new(f);
	CHECK(c != NULL);
	CHECK_INT(cpio__add_dir(c, "/etc"), 0);
	/* Names of 1 to 4 bytes exercise every padding of the name. */
	CHECK_INT(cpio__add_data(c, "/a", 0644, "x", 1), 0);
	CHECK_INT(cpio__add_data(c, "/etc/ab", 0600, "yz", 2), 0);
	CHECK_INT(cpio__add_data(c, "/abc", 0644, "", 0), 0);
	/* Parents come on their own. */
	CHECK_INT(cpio__add_file(c, "/usr/lib/deep/abcd", 0755, src), 0);
	CHECK_INT(cpio__add_data(c, "/a", 0644, "x", 1), -EEXIST);
	CHECK(cpio__has(c, "usr/lib"));
	CHECK(!cpio__has(c, "usr/li"));
	CHECK_INT(cpio__finish(c), 0);
	cpio__delete(c);
	CHECK_INT(ftell(f) % 512, 0);
	fclose(f);

	CHECK_INT(unit_sh("mkdir -p '%s' && cd '%s' && cpio -id --quiet "
			  "--no-absolute-filenames <'%s'", out, out, img), 0);
	CHECK_INT(unit_sh("cmp -s '%s' '%s/usr/lib/deep/abcd'", src, out), 0);
	CHECK_INT(unit_sh("test \"$(cat '%s/a')\" = x && "
			  "test \"$(cat '%s/etc/ab')\" = yz && "
			  "test -f '%s/abc' && ! test -s '%s/abc'",
			  out, out, out, out), 0);
	/* Modes as written; cpio -t lists the members in order. */
	CHECK_INT(unit_sh("test \"$(stat -c %%a '%s/usr/lib/deep/abcd')\" = 755",
			  out), 0);
	CHECK_INT(unit_sh("test \"$(cpio -t --quiet <'%s' | tr '\\n' ' ')\" = "
			  "'etc a etc/ab abc usr usr/lib usr/lib/deep "
			  "usr/lib/deep/abcd '", img), 0);
}

static void test_cpio_chardev(void)
{
	const char *img = unit_tmp_path("dev.cpio");
	struct cpio *c;
	FILE *f;

	if (!have_cpio())
		return;
	f = fopen(img, "w");
	c = cpio__new(f);
	CHECK_INT(cpio__add_chardev(c, "/dev/console", 0600, 5, 1), 0);
	CHECK_INT(cpio__finish(c), 0);
	cpio__delete(c);
	fclose(f);
	/* "crw-------   1 root root 5, 1 ... dev/console" */
	CHECK_INT(unit_sh("cpio -tv --quiet <'%s' | grep -q "
			  "'^crw------- .* 5, *1 .*dev/console$'", img), 0);
}

static void test_pack_sh(void)
{
	const char *img = unit_tmp_path("sh.cpio");
	const char *out = unit_tmp_path("shx");
	struct vm_pack pack = { 0 };
	char err[512] = "";
	char sh[4096];
	FILE *f;
	size_t i;
	bool libc = false;

	if (!have_cpio())
		return;
	CHECK_INT(vm_find_program("sh", sh, sizeof(sh)), 0);
	f = fopen(img, "w");
	pack.cpio = cpio__new(f);
	CHECK_INT(vm_pack__program(&pack, sh, NULL, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	/* A script brings its interpreter. */
	CHECK_INT(vm_pack__program(&pack, "/usr/bin/ldd", NULL, err,
				   sizeof(err)), 0);
	CHECK(cpio__has(pack.cpio, "/usr/bin/ldd"));
	CHECK(cpio__has(pack.cpio, "/bin/bash"));
	CHECK_INT(cpio__finish(pack.cpio), 0);
	for (i = 0; i < pack.nlibdirs; i++)
		libc |= !strcmp(pack.libdirs[i], "/usr/lib/x86_64-linux-gnu");
	CHECK(libc);
	cpio__delete(pack.cpio);
	fclose(f);
	vm_pack__free(&pack);
	/*
	 * The oracle: the image's own loader runs the image's sh, with the
	 * image's libraries only (--inhibit-cache, --library-path).
	 */
	CHECK_INT(unit_sh("mkdir -p '%s' && cd '%s' && cpio -id --quiet "
			  "--no-absolute-filenames <'%s'", out, out, img), 0);
	CHECK_INT(unit_sh("cd '%s' && ./lib64/ld-linux-x86-64.so.2 "
			  "--inhibit-cache --library-path "
			  "./usr/lib/x86_64-linux-gnu .%s -c 'exit 7'",
			  out, sh), 7);
}

static void test_pack_errors(void)
{
	struct vm_pack pack = { 0 };
	char err[512] = "";
	FILE *f = fopen("/dev/null", "w");

	pack.cpio = cpio__new(f);
	CHECK_INT(vm_pack__program(&pack, "/nonexistent/x", NULL, err,
				   sizeof(err)), -ENOENT);
	CHECK(strstr(err, "/nonexistent/x") != NULL);
	CHECK_INT(vm_pack__program(&pack, "/etc/passwd", NULL, err,
				   sizeof(err)), -ENOEXEC);
	CHECK(strstr(err, "not an ELF file or a script") != NULL);
	cpio__delete(pack.cpio);
	vm_pack__free(&pack);
	fclose(f);
}

static void test_frames(void)
{
	const char *path = unit_tmp_path("frames");
	uint8_t bin[300];
	struct vm_frame fr;
	struct bytebuf b = { 0 };
	char chunk[4096];
	size_t pos = 0, i, len;
	ssize_t n;
	int fd;

	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (uint8_t)i;	/* "\n" and NUL inside */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_INT(vm_frame__write(fd, "HELLO", "release", "6.1.0", 5), 0);
	CHECK_INT(vm_frame__write(fd, "FILE", "out/a b.json", bin,
				  sizeof(bin)), 0);
	CHECK_INT(vm_frame__write(fd, "END", "end", "", 0), 0);
	CHECK_INT(vm_frame__write(fd, "FILE", "bad\nname", "", 0), -EINVAL);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		bytebuf__put(&b, chunk, n);
	close(fd);

	CHECK_INT(vm_frame__parse(b.p, b.len, &pos, &fr), 1);
	CHECK_STR(fr.type, "HELLO");
	CHECK_INT(fr.len, 5);
	CHECK(!memcmp(fr.data, "6.1.0", 5));
	CHECK_INT(vm_frame__parse(b.p, b.len, &pos, &fr), 1);
	CHECK_STR(fr.name, "out/a b.json");
	CHECK_INT(fr.len, sizeof(bin));
	CHECK(!memcmp(fr.data, bin, sizeof(bin)));
	CHECK_INT(vm_frame__parse(b.p, b.len, &pos, &fr), 1);
	CHECK_STR(fr.type, "END");
	CHECK_INT(pos, b.len);
	CHECK_INT(vm_frame__parse(b.p, b.len, &pos, &fr), 0);

	/* Every truncation is "not yet", never a frame or an error. */
	for (len = 0; len < b.len; len++) {
		size_t p = 0;
		int rc, frames = 0;

		while ((rc = vm_frame__parse(b.p, len, &p, &fr)) == 1)
			frames++;
		if (rc != 0 || frames > 2) {
			UNIT_FAIL("truncated at %zu: rc %d, %d frames", len,
				  rc, frames);
			break;
		}
	}
	/* A flipped payload byte fails the hash; garbage is no frame. */
	pos = 0;
	CHECK_INT(vm_frame__parse(b.p, b.len, &pos, &fr), 1);
	b.p[pos + 60] ^= 1;
	CHECK_INT(vm_frame__parse(b.p, b.len, &pos, &fr), -EBADMSG);
	pos = 0;
	CHECK_INT(vm_frame__parse((const uint8_t *)"[    0.0] x", 11, &pos,
				  &fr), -EBADMSG);
	free(b.p);
}

/*
 * record --kernel's line probes: each --probe value naming a line (by
 * pointer, as the parser left it) becomes EVENT=FUNC+OFF as resolved from
 * the "vmlinux" (here a user binary with DWARF: kernel mode only reads
 * symbol + offset), --vmlinux goes, the CMD after "--" stays as it is.
 */
static void test_line_probes(void)
{
	static const char loop[] = "build/workloads/loop";
	char spec1[32] = "loop_body:1", spec2[] = "--probe=loop_body:1";
	char entry[] = "loop_body", vml[] = "--vmlinux=x";
	char *argv[] = { "record", "-o", "/out/r", "--probe", spec1,
			 "--probe", entry, spec2, vml, "--", "sh",
			 "--probe", spec1, NULL };
	const char *probes[] = { spec1, entry, spec2 + 8 };
	static const char *const want[] = {
		"record", "-o", "/out/r", "--probe", "loop_body_L1=loop_body+0",
		"--probe", "loop_body", "--probe", "loop_body_L1=loop_body+0",
		"--", "sh", "--probe", "loop_body:1",
	};
	char err[256] = "";
	char **g;
	int n = 0, i;

	if (access(loop, R_OK)) {
		SKIP("build/workloads/loop not built (make tests)");
		return;
	}
	CHECK(vm_probe__is_line("f:3") && vm_probe__is_line("a.c:3") &&
	      !vm_probe__is_line("f%return") && !vm_probe__is_line("f+8"));
	/* The CMD's own "--probe loop_body:1" is CMD's: not a probe. */
	argv[12] = strdup("loop_body:1");
	g = vm_probe__guest_argv(13, argv, probes, 3, vml + 10, loop, &n,
				 err, sizeof(err));
	CHECK(g != NULL);
	CHECK_INT(n, (int)ARRAY_SIZE(want));
	for (i = 0; g && i < n && i < (int)ARRAY_SIZE(want); i++)
		CHECK_STR(g[i], want[i]);
	CHECK(g && g[n] == NULL);
	vm_probe__free_argv(argv, g, n);
	free(argv[12]);
	/* A line that is not there: NULL, and which spec says why. */
	probes[0] = spec1;
	strcpy(spec1, "loop_body:999");
	argv[12] = "x";
	g = vm_probe__guest_argv(13, argv, probes, 1, NULL, loop, &n, err,
				 sizeof(err));
	CHECK(g == NULL);
	CHECK(strstr(err, "--probe loop_body:999") != NULL);
	CHECK_INT(vm_probe__build_id(loop, err, sizeof(err), err,
				     sizeof(err)), 0);
	CHECK_INT(strspn(err, "0123456789abcdef"), strlen(err));
	CHECK(strlen(err) >= 16);
}

static void test_option_values(void)
{
	struct vm_opts o = { 0 };
	unsigned long mb = 0;
	enum vm_accel a;
	char err[256];

	CHECK_INT(vm_memory__parse("512M", &mb), 0);
	CHECK_INT(mb, 512);
	CHECK_INT(vm_memory__parse("2G", &mb), 0);
	CHECK_INT(mb, 2048);
	CHECK_INT(vm_memory__parse("1024", &mb), 0);
	CHECK_INT(mb, 1024);
	CHECK_INT(vm_memory__parse("64M", &mb), -EINVAL);
	CHECK_INT(vm_memory__parse("2T", &mb), -EINVAL);
	CHECK_INT(vm_memory__parse("-1G", &mb), -EINVAL);
	CHECK_INT(vm_accel__parse("tcg", &a), 0);
	CHECK_INT(a, VM_ACCEL_TCG);
	CHECK_INT(vm_accel__parse("xen", &a), -EINVAL);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_CPUS, "0", err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "--vm-cpus '0'") != NULL);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_CPUS, "8", err, sizeof(err)), 0);
	CHECK_INT(o.params.cpus, 8);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_KERNEL, "a", err, sizeof(err)), 0);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_KERNEL, "b", err, sizeof(err)), 0);
	CHECK_INT(o.nkernels, 2);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_CLOCK, "icount", err,
				 sizeof(err)), 0);
	CHECK(o.params.icount);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_CLOCK, "real", err, sizeof(err)),
		  0);
	CHECK(!o.params.icount);
	CHECK_INT(vm_opts__parse(&o, VM_OPT_CLOCK, "fast", err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "--vm-clock 'fast'") != NULL);
	unit_tmp_cleanup();
}

/* The drift, and where it stops being believable, worked by hand. */
static void test_clock_drift(void)
{
	struct vm_clock c = { .measured = true, .guest_s = 316,
			      .host_s = 73 };

	CHECK(fabs(vm_clock__drift(&c) - 3.3287671) < 1e-6);
	CHECK(vm_clock__bad(&c));
	c.guest_s = 10.4;
	c.host_s = 10;		/* +4%: within */
	CHECK(fabs(vm_clock__drift(&c) - 0.04) < 1e-9);
	CHECK(!vm_clock__bad(&c));
	c.guest_s = 9.4;	/* -6% */
	CHECK(vm_clock__bad(&c));
	c.host_s = 1.9;		/* too short to tell */
	c.guest_s = 0.5;
	CHECK(isnan(vm_clock__drift(&c)) && !vm_clock__bad(&c));
	c.measured = false;
	c.host_s = 10;
	CHECK(isnan(vm_clock__drift(&c)) && !vm_clock__bad(&c));
}

/*
 * A panic's report starts with the line that says what trapped; the
 * registers and call trace below it overflow a short tail (CI once showed
 * an int3 oops in __schedule without its first line).
 */
static void test_console_tail(void)
{
	char con[20000], *p = con;
	const char *t;
	int i;

	for (i = 0; i < 200; i++)
		p += sprintf(p, "[    1.%06d] boot line %d\n", i, i);
	p += sprintf(p, "[    7.9] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n");
	for (i = 0; i < 60; i++)
		p += sprintf(p, "[    8.%06d] R%02d: ffffffff\n", i, i);
	t = vm_console__tail(con, 1000);
	CHECK(!strncmp(t, "[    7.9] Oops: int3", 20));
	/* Too long a report: the last lines, from a line start. */
	t = vm_console__tail(con, 200);
	CHECK(strlen(t) <= 200 && t[-1] == '\n');
	CHECK(strstr(t, "R59: ffffffff\n") != NULL);
	/* No oops: the last lines. */
	con[0] = '\0';
	for (i = 0, p = con; i < 200; i++)
		p += sprintf(p, "line %d\n", i);
	t = vm_console__tail(con, 100);
	CHECK(t[-1] == '\n' && strstr(t, "line 199\n") && !strstr(t, "line 1\n"));
	CHECK(vm_console__tail("short", 100)[0] == 's');
}

UNIT_MAIN(UNIT(test_cpio_extracts), UNIT(test_cpio_chardev),
	  UNIT(test_pack_sh), UNIT(test_pack_errors), UNIT(test_frames),
	  UNIT(test_line_probes),
	  UNIT(test_option_values), UNIT(test_clock_drift),
	  UNIT(test_console_tail))
