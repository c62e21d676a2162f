// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader, its top layer (data-int.h): opening (mmap, memory,
 * stream), the file header and its attrs and features, accessors.
 *
 * Byte-swapped (other-endian) files are recognised and refused with a
 * clear message: perf only writes them on a big-endian machine and we
 * would have to swap every record, feature and tracepoint field.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "data-int.h"
#include "util.h"

#define MAX_ATTR_SIZE		4096

/* ---- file layout ---- */

static bool in_file(const struct perf_data *pd, uint64_t off, uint64_t size)
{
	return off <= pd->len && size <= pd->len - off;
}

static int read_attrs(struct perf_data *pd, uint64_t attr_size,
		      uint64_t off, uint64_t size)
{
	uint64_t nr, i, total_ids = 0;
	int err;

	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > MAX_ATTR_SIZE)
		return pd_err(pd, 16, "impossible attr size %" PRIu64, attr_size);
	if (!in_file(pd, off, size))
		return pd_err(pd, 24, "attrs section (%" PRIu64 " bytes at %"
			      PRIu64 ") is beyond the end of the file (%zu bytes)",
			      size, off, pd->len);
	nr = size / attr_size;
	if (!nr)
		return pd_err(pd, 24, "no event attributes in the file");
	for (i = 0; i < nr; i++) {
		uint64_t a = off + i * attr_size;
		const uint8_t *p = pd->buf + a;
		uint64_t ids_off = pd_u64(p + attr_size - 16);
		uint64_t ids_size = pd_u64(p + attr_size - 8);

		if (!in_file(pd, ids_off, ids_size))
			return pd_err(pd, a + attr_size - 16,
				      "ids of attr %" PRIu64 " are beyond the end of the file",
				      i);
		/*
		 * Attrs may all name the same ids; each would copy and map
		 * them, quadratic in the file size. perf writes each id once.
		 */
		total_ids += ids_size / 8;
		if (total_ids > pd->len / 8)
			return pd_err(pd, a + attr_size - 16,
				      "ids sections hold more ids than the file has room for");
		err = pd_add_attr(pd, p, attr_size - 16, pd->buf + ids_off,
				  ids_size / 8, a);
		if (err)
			return err;
	}
	return 0;
}

static int read_features(struct perf_data *pd, uint64_t table)
{
	unsigned int feat, n = 0;
	int err;

	for (feat = 0; feat < PERF_FEAT_BITS; feat++) {
		uint64_t so = table + n * 16, off, size;

		if (!(pd->feat_bitmap[feat / 64] & (1ULL << (feat % 64))))
			continue;
		n++;
		if (!in_file(pd, so, 16))
			return pd_err(pd, so, "feature table is beyond the end of the file");
		off = pd_u64(pd->buf + so);
		size = pd_u64(pd->buf + so + 8);
		if (!in_file(pd, off, size))
			return pd_err(pd, so, "feature %u section (%" PRIu64
				      " bytes at %" PRIu64 ") is beyond the end of the file",
				      feat, size, off);
		err = pd_feature(pd, feat, pd->buf + off, size, off);
		if (err)
			return err;
	}
	return 0;
}

static int open_file_layout(struct perf_data *pd)
{
	const uint8_t *b = pd->buf;
	uint64_t hsize, attr_size, data_off, data_size;
	int err;

	if (pd->len < PERF_FILE_HEADER_OLD_SIZE)
		return pd_err(pd, pd->len, "file header truncated (%zu of %d bytes)",
			      pd->len, PERF_FILE_HEADER_SIZE);
	hsize = pd_u64(b + 8);
	if (hsize == PERF_FILE_HEADER_SIZE) {
		if (pd->len < PERF_FILE_HEADER_SIZE)
			return pd_err(pd, pd->len, "file header truncated (%zu of %d bytes)",
				      pd->len, PERF_FILE_HEADER_SIZE);
		memcpy(pd->feat_bitmap, b + 72, sizeof(pd->feat_bitmap));
	} else if (hsize != PERF_FILE_HEADER_OLD_SIZE) {
		return pd_err(pd, 8, "unknown file header size %" PRIu64, hsize);
	}
	attr_size = pd_u64(b + 16);
	data_off = pd_u64(b + 40);
	data_size = pd_u64(b + 48);
	if (!in_file(pd, data_off, data_size))
		return pd_err(pd, 40, "data section (%" PRIu64 " bytes at %" PRIu64
			      ") is beyond the end of the file (%zu bytes): truncated?",
			      data_size, data_off, pd->len);
	pd->hdr.data_offset = data_off;
	pd->hdr.data_size = data_size;
	pd->pos = data_off;
	pd->end = data_off + data_size;

	err = read_attrs(pd, attr_size, pd_u64(b + 24), pd_u64(b + 32));
	if (err)
		return err;
	err = read_features(pd, data_off + data_size);
	if (err)
		return err;
	err = pd_finalize_evsels(pd);
	if (err)
		return err;
	pd->header_done = true;
	return 0;
}

/* The layout the magic says, or the error that refuses it. */
static int check_magic(struct perf_data *pd, const uint8_t *b, size_t len,
		       enum perf_layout *layout)
{
	if (len < 8)
		return pd_err(pd, len, "file too short for a perf.data header");
	*layout = perf_format__sniff(b, len);
	switch (*layout) {
	case PERF_LAYOUT_FILE:
	case PERF_LAYOUT_PIPE:
		return 0;
	case PERF_LAYOUT_SWAPPED:
		return pd_err_errno(pd, -ENOTSUP, 0,
				    "other-endian perf.data is not supported; convert it on a machine of that byte order");
	case PERF_LAYOUT_V1:
		return pd_err_errno(pd, -ENOTSUP, 0,
				    "perf.data version 1 (PERFFILE) is not supported");
	case PERF_LAYOUT_NONE:
		break;
	}
	return pd_err(pd, 0, "not a perf.data file (bad magic)");
}

static int open_in_memory(struct perf_data *pd)
{
	enum perf_layout layout;
	int err = check_magic(pd, pd->buf, pd->len, &layout);

	if (err)
		return err;
	if (layout == PERF_LAYOUT_PIPE) {
		pd->pipe = true;
		pd->hdr.pipe_mode = true;
		pd->pos = PERF_PIPE_HEADER_SIZE;
		pd->end = pd->len;
		return pd_read_pipe_header(pd);
	}
	return open_file_layout(pd);
}

static struct perf_data *pd_alloc(void)
{
	struct perf_data *pd = calloc(1, sizeof(*pd));

	if (pd) {
		pd->fd = -1;
		hashtab__init(&pd->ids, sizeof(struct pd_idmap));
		pd->q_max_nr = PD_QUEUE_MAX_NR;
		pd->q_max_bytes = PD_QUEUE_MAX_BYTES;
	}
	return pd;
}

static int finish_open(struct perf_data **pdp, struct perf_data *pd, int err)
{
	*pdp = pd;
	return err;
}

int perf_data__open_mem(struct perf_data **pdp, const void *buf, size_t len)
{
	struct perf_data *pd = pd_alloc();

	*pdp = NULL;
	if (!pd)
		return -ENOMEM;
	pd->buf = buf;
	pd->len = len;
	return finish_open(pdp, pd, open_in_memory(pd));
}

static int open_stream(struct perf_data *pd)
{
	enum perf_layout layout;
	uint8_t h[16];
	size_t n = 0;
	ssize_t r;

	r = pd_sread(pd, h, sizeof(h));
	if (r < 0)
		return pd_err_errno(pd, (int)r, 0, "read error: %s",
				    strerror((int)-r));
	n = r;
	r = check_magic(pd, h, n, &layout);
	if (r)
		return r;
	if (n < 16)
		return pd_err(pd, n, "header truncated");
	if (layout != PERF_LAYOUT_PIPE)
		return pd_err_errno(pd, -ENOTSUP, 8,
				    "file layout perf.data on a pipe: give the file name, or record with -o -");
	pd->pipe = true;
	pd->hdr.pipe_mode = true;
	return pd_read_pipe_header(pd);
}

static int open_fd(struct perf_data *pd, const void *prefix, size_t plen)
{
	struct stat st;

	if (fstat(pd->fd, &st))
		return pd_err_errno(pd, -errno, 0, "cannot stat: %s",
				    strerror(errno));
	if (S_ISREG(st.st_mode)) {
		if (!st.st_size)
			return pd_err(pd, 0, "empty file");
		pd->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE,
			       pd->fd, 0);
		if (pd->map == MAP_FAILED) {
			pd->map = NULL;
			return pd_err_errno(pd, -errno, 0, "cannot map: %s",
					    strerror(errno));
		}
		pd->map_len = st.st_size;
		madvise(pd->map, pd->map_len, MADV_SEQUENTIAL);
		pd->buf = pd->map;
		pd->len = pd->map_len;
		return open_in_memory(pd);
	}
	pd->stream = true;
	if (plen) {
		pd->prefix = malloc(plen);
		if (!pd->prefix)
			return -ENOMEM;
		memcpy(pd->prefix, prefix, plen);
		pd->prefix_len = plen;
	}
	return open_stream(pd);
}

int perf_data__open_fd(struct perf_data **pdp, int fd, const void *prefix,
		       size_t prefix_len)
{
	struct perf_data *pd = pd_alloc();

	*pdp = NULL;
	if (!pd)
		return -ENOMEM;
	pd->fd = fd;
	return finish_open(pdp, pd, open_fd(pd, prefix, prefix_len));
}

int perf_data__open(struct perf_data **pdp, const char *path)
{
	struct perf_data *pd = pd_alloc();

	*pdp = NULL;
	if (!pd)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		pd->fd = STDIN_FILENO;
	} else {
		pd->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (pd->fd < 0)
			return finish_open(pdp, pd, pd_err_errno(pd, -errno, 0,
					   "cannot open: %s", strerror(errno)));
		pd->own_fd = true;
	}
	return finish_open(pdp, pd, open_fd(pd, NULL, 0));
}

void perf_data__delete(struct perf_data *pd)
{
	uint32_t i;

	if (!pd)
		return;
	pd_process_free(pd);
	for (i = 0; i < pd->nr_evsel; i++) {
		free(pd->evsel[i]->ev.ids);
		free(pd->evsel[i]);
	}
	free(pd->evsel);
	strpool__delete(pd->names);
	hashtab__exit(&pd->ids);
	if (pd->tep)
		tep_free(pd->tep);
	free(pd->bids);
	for (i = 0; i < pd->nr_strs; i++)
		free(pd->strs[i]);
	free(pd->strs);
	free(pd->hdr.hostname);
	free(pd->rstat_spans);
	free(pd->rstat_breakdown);
	free(pd->hdr.os_release);
	free(pd->hdr.perf_version);
	free(pd->hdr.arch);
	free(pd->hdr.cpudesc);
	free(pd->hdr.cmdline);
	if (pd->map)
		munmap(pd->map, pd->map_len);
	if (pd->own_fd)
		close(pd->fd);
	free(pd->prefix);
	free(pd->ibuf);
	free(pd->rbuf);
	free(pd->pbuf);
	free(pd);
}

const struct perf_header_info *perf_data__header(const struct perf_data *pd)
{
	return &pd->hdr;
}

const struct perf_data_stats *perf_data__stats(const struct perf_data *pd)
{
	return &pd->stats;
}

uint32_t perf_data__nr_evsel(const struct perf_data *pd)
{
	return pd->nr_evsel;
}

struct rs_evsel *perf_data__evsel(const struct perf_data *pd, uint32_t idx)
{
	return idx < pd->nr_evsel ? &pd->evsel[idx]->ev : NULL;
}

struct tep_handle *perf_data__tep(const struct perf_data *pd)
{
	return pd->tep;
}

uint32_t perf_data__nr_build_ids(const struct perf_data *pd)
{
	return pd->nr_bids;
}

const struct perf_build_id *perf_data__build_id(const struct perf_data *pd,
						 uint32_t idx)
{
	return idx < pd->nr_bids ? &pd->bids[idx] : NULL;
}

const char *perf_data__strerror(const struct perf_data *pd)
{
	return pd ? pd->err : "";
}

