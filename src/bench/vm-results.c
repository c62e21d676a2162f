// SPDX-License-Identifier: GPL-2.0
/*
 * bench --kernel's results on this side (bench-vm.h): a directory per
 * guest, named by its release, and the files the guest sent back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bench-results.h"
#include "bench-vm.h"
#include "outfile.h"
#include "util.h"
#include "vm.h"

/* A guest's release as a directory name: nothing a path could make of it. */
bool bench_vm__release_ok(const char *r)
{
	const char *c;

	if (!*r || !strcmp(r, ".") || !strcmp(r, ".."))
		return false;
	for (c = r; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+-~", *c))
			return false;
	return true;
}

/* Write data at path (rotated to .old, as perf does). */
static int save_bytes(const char *path, const void *data, size_t len,
		      char *errbuf, size_t errlen)
{
	struct outfile *out;
	int err;

	err = outfile__open_at(&out, AT_FDCWD, path, NULL, OUTFILE_ROTATE,
			       0666);
	if (!err && fwrite(data, 1, len, outfile__stream(out)) != len) {
		/* The stream's own errno says why (ENOSPC, not EIO). */
		err = outfile__errno(out) ? outfile__errno(out) : -EIO;
		outfile__abort(out);
	} else if (!err) {
		err = outfile__commit(out);
	}
	if (err)
		errbuf_set(errbuf, errlen, "%s: cannot write: %s", path,
			   outfile__strerror(err));
	return err;
}

int bench_vm__save_results(const struct vm_result *res, const char *name,
			   const char *path,
			   char *errbuf, size_t errlen)
{
	struct bench_results *r = NULL;
	struct bench_vm_clock bc = { 0 };
	struct vm_clock c;
	const char *data;
	char shown[PATH_MAX];
	size_t len;
	int err;

	data = vm_result__file(res, name, &len);
	if (!data)
		return 0;
	snprintf(shown, sizeof(shown), "the guest's %s",
		 strncmp(name, "out/", 4) ? name : name + 4);
	err = bench_results__read_mem(&r, data, len, shown, errbuf, errlen);
	if (err)
		return err;
	vm_result__clock(res, &c);
	if (c.measured) {
		bc.icount = c.icount;
		bc.guest_s = c.guest_s;
		bc.host_s = c.host_s;
		bc.drift = vm_clock__drift(&c);
		bc.ok = !c.icount && !vm_clock__bad(&c);
		snprintf(bc.clocksource, sizeof(bc.clocksource), "%s",
			 c.clocksource);
		bench_results__set_vm_clock(r, &bc);
	}
	err = bench_results__save_at(r, AT_FDCWD, path, path);
	if (err)
		errbuf_set(errbuf, errlen, "%s: cannot write: %s", path,
			   outfile__strerror(err));
	bench_results__delete(r);
	return err;
}

int bench_vm__save_file(const struct vm_result *res, const char *name,
			const char *path, char *errbuf, size_t errlen)
{
	const void *data;
	size_t len;

	data = vm_result__file(res, name, &len);
	if (!data)
		return 0;
	return save_bytes(path, data, len, errbuf, errlen);
}

/*
 * DIR/<release>/ for one guest's results; a release seen before (the same
 * kernel twice, or a patched kernel built with the same version string)
 * gets -2, -3...
 */
int bench_vm__guest_dir(const char *outdir, const char *release,
			char (*seen)[PATH_MAX], size_t i, char *dir, size_t len,
			bool *again, char *errbuf, size_t errlen)
{
	unsigned int n;
	size_t j;
	int err;

	for (n = 1; ; n++) {
		bool dup = false;

		if (n == 1)
			snprintf(dir, len, "%s/%s", outdir, release);
		else
			snprintf(dir, len, "%s/%s-%u", outdir, release, n);
		for (j = 0; j < i; j++)
			dup |= !strcmp(seen[j], dir);
		if (!dup)
			break;
	}
	*again = n > 1;
	snprintf(seen[i], PATH_MAX, "%s", dir);
	err = outfile__dir(dir);
	if (err)
		errbuf_set(errbuf, errlen, "%s: %s", dir,
			   outfile__strerror(err));
	return err;
}

