// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze probe: what can be probed. --lines prints a function's
 * source with the lines a probe can go on numbered, as `perf probe -L`
 * does; --resolve shows where a probe spec lands, the points that
 * `record --probe/--uprobe` would place.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmds.h"
#include "probe.h"

struct probe_params {
	const char *lines;	/* --lines FUNC */
	const char *resolve;	/* --resolve SPEC */
	const char *binary;
	const char *vmlinux;
};

static const char probe_usage_text[] =
	"usage: rstat-analyze probe --lines FUNC [--binary PATH | --vmlinux PATH]\n"
	"       rstat-analyze probe --resolve SPEC [--binary PATH | --vmlinux PATH]\n";

static void probe_usage(FILE *out)
{
	fputs(probe_usage_text, out);
}

static void probe_help(void)
{
	probe_usage(stdout);
	fputs("\n"
	      "Show where probes can go, from the DWARF debuginfo of the running\n"
	      "kernel's vmlinux (the default) or of a user binary.\n"
	      "\n"
	      "  -L, --lines FUNC      FUNC's source, lines where a probe can go\n"
	      "                        numbered from FUNC's first line (0), byte\n"
	      "                        for byte as `perf probe -L FUNC`\n"
	      "  -R, --resolve SPEC    where SPEC lands: FUNC, FUNC%return,\n"
	      "                        FUNC:RLN, SRC:ALN or FUNC+OFF, one line per\n"
	      "                        point: type, event, function, address,\n"
	      "                        offset, source line\n"
	      "  -x, --binary PATH     a user binary (uprobes; offsets are file\n"
	      "                        offsets)\n"
	      "  -k, --vmlinux PATH    a kernel image with debuginfo (kprobes;\n"
	      "                        offsets are from the function's start);\n"
	      "                        default: the running kernel's, looked up\n"
	      "                        under /usr/lib/debug, /lib/modules, /boot\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	      "See rstat-analyze-probe(1).\n", stdout);
}

static const struct option probe_options[] = {
	{ "lines", required_argument, NULL, 'L' },
	{ "resolve", required_argument, NULL, 'R' },
	{ "binary", required_argument, NULL, 'x' },
	{ "vmlinux", required_argument, NULL, 'k' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int probe_parse_args(int argc, char **argv, struct probe_params *p)
{
	int c;

	memset(p, 0, sizeof(*p));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":L:R:x:k:h", probe_options,
				NULL)) != -1) {
		switch (c) {
		case 'L':
			p->lines = optarg;
			break;
		case 'R':
			p->resolve = optarg;
			break;
		case 'x':
			p->binary = optarg;
			break;
		case 'k':
			p->vmlinux = optarg;
			break;
		case 'h':
			probe_help();
			return -1;
		default:
			return rs_bad_option("probe", c, argv[optind - 1],
					     probe_usage);
		}
	}
	if (optind < argc) {
		rs_error("probe: unexpected argument '%s'", argv[optind]);
		probe_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (!p->lines == !p->resolve) {
		rs_error("probe: give one of --lines FUNC and --resolve SPEC");
		probe_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (p->binary && p->vmlinux) {
		rs_error("probe: --binary and --vmlinux do not go together");
		probe_usage(stderr);
		return RS_EXIT_USAGE;
	}
	return 0;
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
