/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF loaders (bpf-spans.c, breakdown-bpf.c) share: libbpf's
 * messages kept instead of printed while they call it. libbpf prints its
 * warnings to stderr unless told otherwise, and library code must not
 * print: the last warning, and the verifier's verdict on a program it
 * refused, go into the loader's error message instead.
 */
#ifndef RS_BPF_INT_H
#define RS_BPF_INT_H

#include <bpf/libbpf.h>

struct bpf_quiet {
	libbpf_print_fn_t old;
};

/* From here to bpf_quiet__end() libbpf's messages are kept, not printed. */
void bpf_quiet__begin(struct bpf_quiet *q);
void bpf_quiet__end(struct bpf_quiet *q);
/* The last warning libbpf gave since begin ("" when none). */
const char *bpf_quiet__msg(void);
/*
 * The last lines of the load log of a program the verifier refused since
 * begin, "PROG: lines" ("" when none).
 */
const char *bpf_quiet__verdict(void);

#endif
