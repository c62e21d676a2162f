// SPDX-License-Identifier: GPL-2.0
/*
 * The JITed functions of the BPF programs loaded now, through the bpf
 * syscall as perf's perf_event__synthesize_bpf_events() reads them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf-progs.h"

/* Append prog fd's functions to *v; 0, or -ENOMEM. */
static int prog_funcs(int fd, struct bpf_jited **v, size_t *nr,
		      size_t *cap)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info), n, i;
	uint64_t *addrs;
	__u32 *lens;
	int err = 0;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	n = info.nr_jited_ksyms;
	if (!n || n != info.nr_jited_func_lens || n > 65536)
		return 0;
	addrs = calloc(n, sizeof(*addrs));
	lens = calloc(n, sizeof(*lens));
	if (!addrs || !lens) {
		err = -ENOMEM;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (__u64)(unsigned long)addrs;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (__u64)(unsigned long)lens;
	len = sizeof(info);
	/* a program replaced meanwhile may say more: keep what fits */
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		goto out;
	if (info.nr_jited_ksyms < n)
		n = info.nr_jited_ksyms;
	for (i = 0; i < n; i++) {
		if (*nr == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct bpf_jited *nv = realloc(*v, nc * sizeof(*nv));

			if (!nv) {
				err = -ENOMEM;
				goto out;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[*nr].addr = addrs[i];
		(*v)[*nr].len = lens[i];
		(*nr)++;
	}
out:
	free(addrs);
	free(lens);
	return err;
}

int bpf_progs__jited(struct bpf_jited **out, size_t *nr)
{
	struct bpf_jited *v = NULL;
	size_t n = 0, cap = 0;
	__u32 id = 0;
	int fd, err = 0;

	while (!err && !bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* unloaded since, or not ours to see */
		err = prog_funcs(fd, &v, &n, &cap);
		close(fd);
	}
	if (err) {
		free(v);
		v = NULL;
		n = 0;
	}
	*out = v;
	*nr = n;
	return err;
}
