// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze probe: what can be probed. --lines prints a function's
 * source with the lines a probe can go on numbered, as `perf probe -L`
 * does; --resolve shows where a probe spec lands, the points that
 * `record --probe/--uprobe` would place.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmds.h"
#include "parse-options.h"
#include "probe.h"

struct probe_params {
	const char *lines;	/* --lines FUNC */
	const char *resolve;	/* --resolve SPEC */
	const char *binary;
	const char *vmlinux;
};

static const char probe_about[] =
	"Show where probes can go, from the DWARF debuginfo of the running\n"
	"kernel's vmlinux (the default) or of a user binary.\n";

static const char probe_epilogue[] =
	"Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	"See rstat-analyze-probe(1).\n";

/* The exclusivity groups: what to show, and where from. */
enum {
	PROBE_WHAT = 1,
	PROBE_FROM,
};

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int probe_parse_args(int argc, char **argv, struct probe_params *p)
{
	const struct popt opts[] = {
		{ POPT_STRING('L', "lines", &p->lines, "FUNC",
			      "FUNC's source, lines where a probe can go\n"
			      "numbered from FUNC's first line (0), byte\n"
			      "for byte as `perf probe -L FUNC`"),
		  .excl = PROBE_WHAT },
		{ POPT_STRING('R', "resolve", &p->resolve, "SPEC",
			      "where SPEC lands: FUNC, FUNC%return,\n"
			      "FUNC:RLN, SRC:ALN or FUNC+OFF, one line per\n"
			      "point: type, event, function, address,\n"
			      "offset, source line"),
		  .excl = PROBE_WHAT },
		{ POPT_STRING('x', "binary", &p->binary, "PATH",
			      "a user binary (uprobes; offsets are file\n"
			      "offsets)"),
		  .excl = PROBE_FROM },
		{ POPT_STRING('k', "vmlinux", &p->vmlinux, "PATH",
			      "a kernel image with debuginfo (kprobes;\n"
			      "offsets are from the function's start);\n"
			      "default: the running kernel's, looked up\n"
			      "under /usr/lib/debug, /lib/modules, /boot"),
		  .excl = PROBE_FROM },
		POPT_HELP_ROW,
		POPT_END_ROW,
	};
	/* The one message for none and for both of --lines and --resolve. */
	static const struct popt_excl excl_msg[] = {
		{ PROBE_WHAT,
		  "give one of --lines FUNC and --resolve SPEC" },
		{ 0, NULL },
	};
	const struct popt_cmd cmd = {
		.name = "probe",
		.opts = opts,
		.usage_long = true,
		.max_operands = 0,
		.required = 1U << PROBE_WHAT,
		.excl_msg = excl_msg,
		.excl_usage = true,
		.about = probe_about,
		.epilogue = probe_epilogue,
	};
	struct popt_args args;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (!ret)
		free(args.operands);
	return ret;
}

/* The one line saying where kernel debuginfo was looked for. */
static void no_vmlinux_error(void)
{
	char paths[4 * PATH_MAX] = "", buf[PATH_MAX];
	struct utsname u;
	unsigned int i;
	size_t len = 0;

	for (i = 0; !probe__vmlinux_path(i, buf, sizeof(buf)); i++)
		len += snprintf(paths + len, sizeof(paths) - len, "%s%s",
				i ? ", " : "", buf);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "$(uname -r)");
	rs_error("probe: no kernel debuginfo (a vmlinux with DWARF) in %s; install linux-image-%s-dbg (Debian) or give --vmlinux FILE; see rstat-analyze doctor",
		 paths, u.release);
}

static void print_point(const struct probe_point *pt)
{
	printf("%c %s:%s func=%s vaddr=%#" PRIx64 " offset=%#" PRIx64,
	       pt->retprobe ? 'r' : 'p', pt->group, pt->event, pt->func,
	       pt->vaddr, pt->offset);
	if (pt->file)
		printf(" source=%s:%d", pt->file, pt->line);
	putchar('\n');
}

static int __cmd_probe(const struct probe_params *p, const char *path,
		       bool kernel)
{
	struct probe_point *pts = NULL;
	char err[1024];
	size_t nr = 0, i;
	int ret;

	if (p->lines)
		ret = probe__lines(path, kernel, p->lines, stdout, err,
				   sizeof(err));
	else
		ret = probe__resolve(path, kernel, p->resolve, &pts, &nr, err,
				     sizeof(err));
	if (ret) {
		rs_error("probe: %s", err[0] ? err : strerror(-ret));
		return ret == -EINVAL ? RS_EXIT_USAGE : RS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++)
		print_point(&pts[i]);
	probe__free_points(pts, nr);
	return RS_EXIT_OK;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_params p;
	char *found = NULL;
	const char *path;
	int ret;

	ret = probe_parse_args(argc, argv, &p);
	if (ret)
		return ret < 0 ? rs_finish_stdout(RS_EXIT_OK) : ret;
	path = p.binary ? p.binary : p.vmlinux;
	if (!path) {
		found = probe__find_vmlinux();
		if (!found) {
			no_vmlinux_error();
			return RS_EXIT_FAIL;
		}
		path = found;
	}
	ret = __cmd_probe(&p, path, !p.binary);
	free(found);
	return rs_finish_stdout(ret);
}
