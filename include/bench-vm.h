/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench --kernel's results on this side: DIR/<release>/ per guest, with
 * the results.json and rstat.data the guest sent back. 0 or -errno, with
 * what failed in errbuf.
 */
#ifndef RS_BENCH_VM_H
#define RS_BENCH_VM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct vm_result;

/* Whether a guest's release can name a directory (nothing a path makes). */
bool bench_vm__release_ok(const char *release);
/*
 * DIR/<release>/ for guest i (made), or -2, -3... (*again set) when an
 * earlier guest of seen[0..i) had the release; recorded in seen[i].
 */
int bench_vm__guest_dir(const char *outdir, const char *release,
			char (*seen)[PATH_MAX], size_t i, char *dir, size_t len,
			bool *again, char *errbuf, size_t errlen);
/* The guest's file name, to path (an earlier one becomes path.old). */
int bench_vm__save_file(const struct vm_result *res, const char *name,
			const char *path, char *errbuf, size_t errlen);
/*
 * The guest's results file name (out/results.json, or with --variant
 * out/<variant>/results.json) at path, with the guest's clock as the host
 * measured it in its provenance (vm_clock). 0 (also when the guest sent
 * none), or -errno with errbuf.
 */
int bench_vm__save_results(const struct vm_result *res, const char *name,
			   const char *path,
			   char *errbuf, size_t errlen);

#endif /* RS_BENCH_VM_H */
