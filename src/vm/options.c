// SPDX-License-Identifier: GPL-2.0
/*
 * The options of --kernel runs, shared by doctor, bench, record and top
 * (the guest's argv, without them, is popt__guest_argv()'s).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vm.h"

static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}

int vm_opts__parse(struct vm_opts *o, int opt, const char *arg,
		   char *errbuf, size_t errlen)
{
	struct vm_params *p = &o->params;

	switch (opt) {
	case VM_OPT_KERNEL:
		if (o->nkernels == VM_MAX_KERNELS) {
			errbuf_set(errbuf, errlen,
				   "--kernel: at most %d kernels",
				   VM_MAX_KERNELS);
			return -EINVAL;
		}
		if (!*arg) {
			errbuf_set(errbuf, errlen, "--kernel: an empty path");
			return -EINVAL;
		}
		o->kernels[o->nkernels++] = arg;
		return 0;
	case VM_OPT_CPUS:
		if (parse_uint(arg, 1, 288, &p->cpus)) {
			errbuf_set(errbuf, errlen,
				   "--vm-cpus '%s': expected 1 to 288", arg);
			return -EINVAL;
		}
		return 0;
	case VM_OPT_MEMORY:
		if (vm_memory__parse(arg, &p->memory_mb)) {
			errbuf_set(errbuf, errlen,
				   "--vm-memory '%s': expected a size from 128M to 1024G, as 512M or 2G",
				   arg);
			return -EINVAL;
		}
		return 0;
	case VM_OPT_APPEND:
		p->append = arg;
		return 0;
	case VM_OPT_ACCEL:
		if (vm_accel__parse(arg, &p->accel)) {
			errbuf_set(errbuf, errlen,
				   "--accel '%s': expected kvm, tcg or auto",
				   arg);
			return -EINVAL;
		}
		return 0;
	case VM_OPT_TIMEOUT:
		if (parse_uint(arg, 1, 7 * 86400, &p->timeout_s)) {
			errbuf_set(errbuf, errlen,
				   "--vm-timeout '%s': expected seconds, 1 or more",
				   arg);
			return -EINVAL;
		}
		return 0;
	case VM_OPT_CLOCK:
		if (!strcmp(arg, "real") || !strcmp(arg, "icount")) {
			p->icount = arg[0] == 'i';
			return 0;
		}
		errbuf_set(errbuf, errlen,
			   "--vm-clock '%s': expected real or icount", arg);
		return -EINVAL;
	}
	errbuf_set(errbuf, errlen, "not a VM option");
	return -EINVAL;
}
