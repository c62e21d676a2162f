// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the rule file parser: any text either loads or is
 * refused with a message, never a crash; what loads must dump, and the
 * table must still classify stacks.
 */
#include <stdint.h>
#include <stdio.h>

#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const stack[] = {
		"pvm_irq_enable", "_raw_spin_unlock_irq",
		"__css_rstat_lock.isra.0", "css_rstat_flush",
		"memcg1_stat_format", "memory_stat_show", "seq_read_iter",
		"bpf_prog_0123456789abcdef_x",
	};
	struct rs_stack_class cls;
	struct classifier *c;
	struct rules *r = rules__new();
	FILE *out;

	if (!r)
		return 0;
	if (rules__load_text(r, (const char *)data, size, "fuzz") == 0) {
		out = fopen("/dev/null", "w");
		if (out) {
			rules__dump(r, out);
			fclose(out);
		}
	} else {
		(void)rules__strerror(r);
	}
	c = classifier__new(r);
	if (c)
		classifier__classify(c, stack, sizeof(stack) / sizeof(*stack),
				     &cls);
	classifier__delete(c);
	rules__delete(r);
	return 0;
}
