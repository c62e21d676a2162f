// SPDX-License-Identifier: GPL-2.0
/*
 * The frames the guest sends on its data port. A text header keeps the
 * stream readable with `less` when something goes wrong; the length says
 * where the payload ends (it is binary: perf.data); the hash catches a
 * stream that is not what the guest meant to write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "vm.h"

#define FRAME_MAGIC "RSVM "
#define FRAME_HEADER_MAX 512

int vm_frame__write(int fd, const char *type, const char *name,
		    const void *data, size_t len)
{
	char hdr[FRAME_HEADER_MAX];
	int n, err;

	if (strchr(name, '\n') || strchr(type, ' ') || strlen(type) >= 8 ||
	    strlen(name) >= 256)
		return -EINVAL;
	n = snprintf(hdr, sizeof(hdr), FRAME_MAGIC "%s %zu %016" PRIx64
		     " %s\n", type, len, hash_bytes(data, len), name);
	if (n < 0 || n >= (int)sizeof(hdr))
		return -EINVAL;
	err = fd_write_all(fd, hdr, n);
	return err ? err : fd_write_all(fd, data, len);
}

int vm_frame__parse(const uint8_t *buf, size_t len, size_t *pos,
		    struct vm_frame *f)
{
	const uint8_t *p = buf + *pos, *nl;
	size_t avail = len - *pos, hlen, plen, namelen;
	char hdr[FRAME_HEADER_MAX + 1], type[8];
	unsigned long long hash;
	int off = 0;

	if (avail < strlen(FRAME_MAGIC))
		return 0;
	if (memcmp(p, FRAME_MAGIC, strlen(FRAME_MAGIC)))
		return -EBADMSG;
	nl = memchr(p, '\n', avail < FRAME_HEADER_MAX ? avail :
		    FRAME_HEADER_MAX);
	if (!nl)
		return avail < FRAME_HEADER_MAX ? 0 : -EBADMSG;
	hlen = nl - p + 1;
	memcpy(hdr, p, hlen - 1);
	hdr[hlen - 1] = '\0';
	if (sscanf(hdr, FRAME_MAGIC "%7s %zu %16llx %n", type, &plen, &hash,
		   &off) != 3 || !off)
		return -EBADMSG;
	namelen = strlen(hdr + off);
	if (namelen >= sizeof(f->name))
		return -EBADMSG;
	if (plen > avail - hlen)
		return 0;
	if (hash_bytes(p + hlen, plen) != hash)
		return -EBADMSG;
	snprintf(f->type, sizeof(f->type), "%s", type);
	memcpy(f->name, hdr + off, namelen + 1);
	f->data = p + hlen;
	f->len = plen;
	*pos += hlen + plen;
	return 1;
}
