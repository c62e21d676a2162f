/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF programs loaded now, as far as naming their frames needs them:
 * where the JITed code of each of their functions lies. Library code:
 * never prints; 0 / -errno.
 */
#ifndef RS_BPF_PROGS_H
#define RS_BPF_PROGS_H

#include <stddef.h>
#include <stdint.h>

struct bpf_jited {
	uint64_t addr;
	uint32_t len;
};

/*
 * Every loaded program's functions (BPF_PROG_GET_NEXT_ID, then each
 * program's jited_ksyms and jited_func_lens), malloc'ed into *out, *nr of
 * them: what perf record reads to synthesize KSYMBOL records. Programs
 * that go away meanwhile or that the caller may not see (not root: none)
 * are left out. 0, or -ENOMEM with *out NULL.
 */
int bpf_progs__jited(struct bpf_jited **out, size_t *nr);

#endif
