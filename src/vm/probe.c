// SPDX-License-Identifier: GPL-2.0
/*
 * Source-line kprobes for a guest kernel. The guest has no debuginfo (a
 * -dbg vmlinux is some 280 MB of DWARF; the initramfs holds no such
 * thing), so a FUNC:RLN or SRC:ALN spec is resolved here, on the host,
 * against the guest kernel's vmlinux, and the guest's record gets what
 * the kprobe PMU takes without DWARF: EVENT=FUNC+OFF, named as perf
 * names the line's event. The offsets are only right for the kernel that
 * vmlinux was built with: its build id goes into the initramfs, and the
 * guest refuses to run the command on a kernel with another one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "symbols.h"
#include "util.h"
#include "vm.h"

bool vm_probe__is_line(const char *spec)
{
	return strchr(spec, ':') || strchr(spec, '@');
}

/*
 * IMAGE's directory's "vmlinux" (scripts/fetch-kernels.sh --dbg puts it
 * there) if readable; malloc()ed, or NULL.
 */
static char *default_vmlinux(const char *kernel)
{
	const char *slash = strrchr(kernel, '/');
	char *path;

	if (asprintf(&path, "%.*svmlinux", slash ? (int)(slash - kernel + 1) :
		     0, kernel) < 0)
		return NULL;
	if (access(path, R_OK)) {
		free(path);
		return NULL;
	}
	return path;
}

int vm_probe__build_id(const char *vmlinux, char *hex, size_t len,
		       char *errbuf, size_t errlen)
{
	uint8_t bid[64];
	int n = elf__read_build_id(vmlinux, bid, sizeof(bid));
	size_t i, o = 0;

	if (n <= 0) {
		snprintf(errbuf, errlen,
			 "%s: no build id to check the guest kernel against (%s)",
			 vmlinux, n ? strerror(-n) : "none in the file");
		return n ? n : -ENODATA;
	}
	if ((size_t)n * 2 + 1 > len)
		return -ENOSPC;
	for (i = 0; i < (size_t)n; i++)
		o += snprintf(hex + o, len - o, "%02x", bid[i]);
	return 0;
}

/* Whether opt (a word of argv) holds value, as "--opt VALUE" or "=VALUE". */
static int value_word(char *const argv[], int i, const char *value)
{
	const char *eq;

	if (argv[i] == value)
		return 1;	/* the value; the option is argv[i - 1] */
	eq = strchr(argv[i], '=');
	if (argv[i][0] == '-' && eq && eq + 1 == value)
		return 2;	/* --opt=VALUE in one word */
	return 0;
}

static int add_point(char ***out, int *n, int *cap, const char *opt,
		     const struct probe_point *pt)
{
	char *w;

	if (*n + 2 >= *cap) {
		int ncap = *cap * 2 + 8;
		char **p = realloc(*out, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*out = p;
		*cap = ncap;
	}
	if (asprintf(&w, "%s=%s+%llu", pt->event, pt->func,
		     (unsigned long long)pt->offset) < 0)
		return -ENOMEM;
	(*out)[(*n)++] = (char *)opt;
	(*out)[(*n)++] = w;
	return 0;
}

char **vm_probe__guest_argv(int argc, char *const argv[],
			    const char *const *probes, size_t nprobes,
			    const char *vmlinux_value, const char *vmlinux,
			    int *nargc, char *errbuf, size_t errlen)
{
	struct probe_point *pts;
	char **out = NULL;
	int i, n = 0, cap = 0, err = 0;
	size_t k, j, npts;
	bool opts = true;

	for (i = 0; i < argc && !err; i++) {
		const char *spec = NULL;
		int how = 0;

		if (opts && !strcmp(argv[i], "--"))
			opts = false;
		for (k = 0; opts && !how && k < nprobes; k++) {
			how = value_word(argv, i, probes[k]);
			spec = probes[k];
		}
		if (how && vm_probe__is_line(spec)) {
			/* The option word went in already: take it back. */
			if (how == 1)
				n--;
			err = probe__resolve(vmlinux, true, spec, &pts, &npts,
					     errbuf, errlen);
			if (err) {
				if (*errbuf) {
					char why[256];

					snprintf(why, sizeof(why), "%s",
						 errbuf);
					snprintf(errbuf, errlen,
						 "--probe %s: %s", spec, why);
				}
				break;
			}
			for (j = 0; !err && j < npts; j++)
				err = add_point(&out, &n, &cap, "--probe",
						&pts[j]);
			probe__free_points(pts, npts);
			continue;
		}
		/* --vmlinux names a file here, not in the guest: dropped. */
		how = opts && vmlinux_value ?
		      value_word(argv, i, vmlinux_value) : 0;
		if (how) {
			if (how == 1)
				n--;
			continue;
		}
		if (n + 1 >= cap) {
			int ncap = cap * 2 + 8;
			char **p = realloc(out, ncap * sizeof(*p));

			if (!p) {
				err = -ENOMEM;
				break;
			}
			out = p;
			cap = ncap;
		}
		out[n++] = argv[i];
	}
	if (err) {
		if (!*errbuf)
			snprintf(errbuf, errlen, "%s", strerror(-err));
		vm_probe__free_argv(argv, out, n);
		return NULL;
	}
	if (n + 1 > cap) {
		char **p = realloc(out, (n + 1) * sizeof(*p));

		if (!p) {
			snprintf(errbuf, errlen, "%s", strerror(ENOMEM));
			vm_probe__free_argv(argv, out, n);
			return NULL;
		}
		out = p;
	}
	out[n] = NULL;
	*nargc = n;
	return out;
}

int vm_probe__record_argv(const char *kernel, const char *vmlinux,
			  const char *const *probes, size_t nprobes,
			  int argc, char *const argv[], char ***out,
			  int *nargc, char *build_id, size_t idlen,
			  char *errbuf, size_t errlen)
{
	char *path;
	size_t k;
	int err;

	*out = NULL;
	for (k = 0; k < nprobes; k++)
		if (vm_probe__is_line(probes[k]))
			break;
	if (k == nprobes && !vmlinux)
		return 0;
	path = vmlinux ? strdup(vmlinux) : default_vmlinux(kernel);
	if (!path && !vmlinux) {
		snprintf(errbuf, errlen,
			 "--probe %s: a source line needs that kernel's vmlinux with debuginfo: give --vmlinux, or put it beside the image as vmlinux (scripts/fetch-kernels.sh --dbg does for the test kernels)",
			 probes[k]);
		return -ENOENT;
	}
	if (!path)
		return -ENOMEM;
	err = vm_probe__build_id(path, build_id, idlen, errbuf, errlen);
	if (!err) {
		*out = vm_probe__guest_argv(argc, argv, probes, nprobes,
					    vmlinux, path, nargc, errbuf,
					    errlen);
		if (!*out)
			err = -EINVAL;
	}
	free(path);
	if (err && !*errbuf)
		snprintf(errbuf, errlen, "%s", strerror(-err));
	return err;
}

void vm_probe__free_argv(char *const argv[], char **gargv, int gargc)
{
	int i, k;

	if (!gargv)
		return;
	/* The words that are not argv's are the ones made here. */
	for (i = 0; i < gargc; i++) {
		if (!strcmp(gargv[i], "--probe"))
			continue;
		for (k = 0; argv[k]; k++)
			if (argv[k] == gargv[i])
				break;
		if (!argv[k])
			free(gargv[i]);
	}
	free(gargv);
}
