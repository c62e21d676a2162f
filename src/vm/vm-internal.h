/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the parts of src/vm/: what an initramfs is packed with. */
#ifndef RS_VM_INTERNAL_H
#define RS_VM_INTERNAL_H

#include <stddef.h>

#include "vm.h"

/* Paths the guest side reads, inside the initramfs. */
#define VM_GUEST_DIR "/rs-vm"
#define VM_GUEST_ARGV VM_GUEST_ARGV_FILE	/* NUL-separated argv */
#define VM_GUEST_BUILD_ID VM_GUEST_DIR "/build-id"	/* hex, if any */
#define VM_GUEST_OUT "/out"			/* the command's cwd */
/* Debian's busybox, when the host has it: the usual commands for scripts */
#define VM_GUEST_BUSYBOX VM_GUEST_DIR "/busybox"
#define VM_GUEST_TOOLBOX VM_GUEST_DIR "/bin"	/* its applets' links */
#define VM_DATA_PORT "/dev/ttyS1"

struct vm_pack {
	struct cpio *cpio;
	char **libdirs;		/* where packed libraries are */
	size_t nlibdirs, libdirs_cap;
};

/*
 * Add an executable (as the path as in the image; NULL: src) with what
 * the loader needs to run it: see program.c. 0 or -errno (errbuf says
 * which file).
 */
int vm_pack__program(struct vm_pack *pack, const char *src, const char *as,
		     char *errbuf, size_t errlen);
void vm_pack__free(struct vm_pack *pack);

/*
 * What a failure shows of the guest console c: its last lines (at most
 * max bytes, from a line start), or, when the kernel oopsed, everything
 * from the oops's first line if that is at most 4 * max bytes.
 */
const char *vm_console__tail(const char *c, size_t max);

#endif
