// SPDX-License-Identifier: GPL-2.0
/*
 * The TRACING_DATA feature as perf's trace-event-info.c writes it, so
 * that perf and libtraceevent decode our tracepoint samples:
 *
 *   "\027\010Dtracing" "0.6\0" endian(1) sizeof(long)(1) page_size(4)
 *   "header_page\0" u64 size, text     "header_event\0" u64 size, text
 *   u32 nr ftrace formats (u64 size, text)...
 *   u32 nr systems, per system: "sys\0" u32 nr, (u64 size, format)...
 *   u32 size, kallsyms text            u32 size, printk formats
 *   u64 size, saved cmdlines
 *
 * perf stopped filling the kallsyms section (it skips what is there); we
 * fill it with the kernel's text symbols so that a report on another
 * machine can name kernel frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>

#include "perf-format.h"
#include "perf-writer.h"
#include "util.h"

static void put_cstr(struct bytebuf *b, const char *s)
{
	bytebuf__put(b, s, strlen(s) + 1);
}

/* A tracefs file of the top instance; NULL with *size 0 when absent. */
static char *read_top(const char *file, int *size)
{
	char *s = tracefs_instance_file_read(NULL, file, size);

	if (!s)
		*size = 0;
	return s;
}

/*
 * Text symbols only: they are what frames resolve to, and they keep the
 * section a quarter of the whole file. Module symbols stay ("\t[mod]").
 */
static int put_kallsyms(struct bytebuf *b)
{
	size_t start = b->len, cap = 0;
	bool have_text = false;
	char *line = NULL;
	ssize_t n;
	FILE *f;

	bytebuf__put32(b, 0);	/* size, patched below */
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;	/* an empty section, as perf writes */
	while ((n = getline(&line, &cap, f)) > 0) {
		char *sp = strchr(line, ' ');
		char type;

		if (!sp || !sp[1] || sp[2] != ' ')
			continue;
		type = sp[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (!have_text && strtoull(line, NULL, 16) &&
		    (!strncmp(sp + 3, "_text\n", 6) ||
		     !strncmp(sp + 3, "_stext\n", 7)))
			have_text = true;
		bytebuf__put(b, line, n);
	}
	free(line);
	fclose(f);
	/* all addresses zero (kptr_restrict): useless, leave it empty */
	if (!have_text || b->len - start - 4 > UINT32_MAX) {
		b->len = start + 4;
		return 0;
	}
	if (!b->oom) {
		uint32_t sz = b->len - start - 4;

		memcpy(b->p + start, &sz, sizeof(sz));
	}
	return 0;
}

static int put_format(struct bytebuf *b, const char *sys, const char *name,
		      char *err, size_t errlen)
{
	int size = 0;
	char *fmt;

	errno = 0;
	fmt = tracefs_event_file_read(NULL, sys, name, "format", &size);

	if (!fmt || size <= 0) {
		int e = errno ? errno : ENOENT;

		free(fmt);
		snprintf(err, errlen, "cannot read the format of %s:%s: %s",
			 sys, name, strerror(e));
		return -e;
	}
	bytebuf__put64(b, size);
	bytebuf__put(b, fmt, size);
	free(fmt);
	return 0;
}

/* The tracepoints of system sys, from index first on, not yet written. */
static int put_system(struct bytebuf *b, const char *const *tps, size_t n,
		      size_t first, bool *done, char *err, size_t errlen)
{
	size_t syslen = strchr(tps[first], ':') - tps[first], i;
	size_t count_at;
	uint32_t count = 0;
	char sys[256];
	int ret;

	if (syslen >= sizeof(sys))
		return -ENAMETOOLONG;
	memcpy(sys, tps[first], syslen);
	sys[syslen] = 0;
	put_cstr(b, sys);
	count_at = b->len;
	bytebuf__put32(b, 0);
	for (i = first; i < n; i++) {
		const char *name = tps[i] + syslen + 1;
		size_t j;
		bool dup = false;

		if (done[i] || strncmp(tps[i], sys, syslen) ||
		    tps[i][syslen] != ':')
			continue;
		done[i] = true;
		/* the same tracepoint twice would be parsed twice */
		for (j = first; j < i; j++)
			if (!strcmp(tps[j], tps[i]))
				dup = true;
		if (dup)
			continue;
		ret = put_format(b, sys, name, err, errlen);
		if (ret)
			return ret;
		count++;
	}
	if (!b->oom)
		memcpy(b->p + count_at, &count, sizeof(count));
	return 0;
}

int perf_tracing_data__build(const char *const *tps, size_t n,
			     bool kallsyms, uint8_t **out, size_t *len,
			     size_t *ksyms_off, size_t *ksyms_len,
			     char *err, size_t errlen)
{
	struct bytebuf b = { 0 };
	uint32_t nr_sys = 0;
	size_t nr_sys_at, i;
	bool *done;
	uint8_t u8;
	char *s;
	int size, ret = 0;

	*out = NULL;
	*len = 0;
	*ksyms_off = *ksyms_len = 0;
	for (i = 0; i < n; i++) {
		const char *c = strchr(tps[i], ':');

		if (!c || c == tps[i] || !c[1]) {
			snprintf(err, errlen,
				 "tracepoint '%s' is not system:name", tps[i]);
			return -EINVAL;
		}
	}
	done = calloc(n ? n : 1, sizeof(*done));
	if (!done)
		return -ENOMEM;

	bytebuf__put(&b, PERF_TRACING_MAGIC, PERF_TRACING_MAGIC_LEN);
	put_cstr(&b, "0.6");
	u8 = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	bytebuf__put(&b, &u8, 1);
	u8 = sizeof(long);
	bytebuf__put(&b, &u8, 1);
	bytebuf__put32(&b, sysconf(_SC_PAGESIZE));

	/* libtraceevent needs header_page to read ring-buffer pages */
	errno = 0;
	s = read_top("events/header_page", &size);
	if (!s && n) {
		ret = errno ? -errno : -ENOENT;
		snprintf(err, errlen, "cannot read events/header_page from tracefs: %s",
			 strerror(-ret));
		goto out;
	}
	put_cstr(&b, "header_page");
	bytebuf__put64(&b, size);
	bytebuf__put(&b, s, size);
	free(s);
	s = read_top("events/header_event", &size);
	put_cstr(&b, "header_event");
	bytebuf__put64(&b, size);
	bytebuf__put(&b, s, size);
	free(s);

	bytebuf__put32(&b, 0);	/* ftrace's own events: none recorded */

	nr_sys_at = b.len;
	bytebuf__put32(&b, 0);
	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		ret = put_system(&b, tps, n, i, done, err, errlen);
		if (ret)
			goto out;
		nr_sys++;
	}
	if (!b.oom)
		memcpy(b.p + nr_sys_at, &nr_sys, sizeof(nr_sys));

	*ksyms_off = b.len + 4;
	if (kallsyms)
		ret = put_kallsyms(&b);
	else
		bytebuf__put32(&b, 0);
	if (ret)
		goto out;
	*ksyms_len = b.len - *ksyms_off;

	s = read_top("printk_formats", &size);
	bytebuf__put32(&b, size);
	bytebuf__put(&b, s, size);
	free(s);
	s = read_top("saved_cmdlines", &size);
	bytebuf__put64(&b, size);
	bytebuf__put(&b, s, size);
	free(s);
out:
	free(done);
	if (!ret && b.oom) {
		snprintf(err, errlen, "out of memory building tracing data");
		ret = -ENOMEM;
	}
	if (ret) {
		free(b.p);
		return ret;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}
