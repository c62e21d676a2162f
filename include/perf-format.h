/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data format as it is on disk, defined once for the reader
 * (perf/data*.c) and the writer (perf/writer.c, perf/tracing-data.c).
 * Names follow perf's own (tools/perf/util/header.h, tools/lib/perf's
 * event.h) so that they can be looked up there.
 *
 * Layouts: a file starts with a 104-byte header (magic, header size,
 * attr size, the attrs, data and event-types sections, a 256-bit feature
 * map); a pipe starts with magic and a header size of 16, and carries
 * attrs, features and tracing data as user records in the stream.
 */
#ifndef RS_PERF_FORMAT_H
#define RS_PERF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PERF_MAGIC2		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_MAGIC2_SWAPPED	0x50455246494c4532ULL	/* other byte order */
#define PERF_MAGIC1		0x454c494646524550ULL	/* "PERFFILE" */

#define PERF_FILE_HEADER_SIZE	104	/* with the 256-bit feature map */
#define PERF_FILE_HEADER_OLD_SIZE 72	/* before features existed */
#define PERF_PIPE_HEADER_SIZE	16

/* perf pads header strings to this (NAME_ALIGN in header.c) */
#define PERF_NAME_ALIGN		64

/* Build-id record whose size byte is valid (perf's event.h) */
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)

/* Start of the tracing data (TRACING_DATA feature or record) */
#define PERF_TRACING_MAGIC	"\027\010Dtracing"
#define PERF_TRACING_MAGIC_LEN	10

/* User record types perf writes (tools/lib/perf/include/perf/event.h) */
enum perf_user_record_type {
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_COMPRESSED2 = 83,
	PERF_RECORD_HEADER_MAX = 84,
};

/* Feature bits (perf's HEADER_* enum in tools/perf/util/header.h) */
enum perf_feature {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_SAMPLE_TIME = 21,
	/*
	 * Ours, not perf's: the spans timed in the kernel by BPF during the
	 * recording (kernel-spans.h). The last bit, far above any perf has
	 * assigned (33 in 2026): perf skips a feature it does not know, and
	 * the last section's removal cannot shift the ones before it.
	 */
	PERF_FEAT_RSTAT_SPANS = 255,
	/*
	 * Ours too: the reads of record's targets decomposed in the kernel
	 * (docs/breakdown.md), a JSON document ({"breakdown": ...}).
	 */
	PERF_FEAT_RSTAT_BREAKDOWN = 254,
	PERF_FEAT_BITS = 256,
};

/* What the first bytes of an input say it is. */
enum perf_layout {
	PERF_LAYOUT_NONE = 0,	/* not perf.data (or under 8 bytes) */
	PERF_LAYOUT_FILE,	/* PERFILE2, header size not the pipe's */
	PERF_LAYOUT_PIPE,	/* PERFILE2 then header size 16 */
	PERF_LAYOUT_SWAPPED,	/* PERFILE2 written on the other byte order */
	PERF_LAYOUT_V1,		/* PERFFILE: perf's first format */
};

/*
 * The layout of the perf.data that starts at buf, from its magic and
 * header size. With fewer than 16 bytes a PERFILE2 start is FILE: the
 * header size that would say PIPE is not there yet.
 */
enum perf_layout perf_format__sniff(const void *buf, size_t len);

#endif
