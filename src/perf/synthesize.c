// SPDX-License-Identifier: GPL-2.0
/*
 * Records perf record synthesizes before the ring data (perf's
 * synthetic-events.c): the kernel and module maps, and for what already
 * runs a COMM per thread and an MMAP2 per executable mapping. The kernel
 * only reports maps and names that change while recording; without these
 * the frames of a process started earlier would not symbolize.
 *
 * Like perf's, the sample_id_all trailer of these records is zeroed: id 0
 * means the first event to perf and to our reader, time 0 sorts first.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf-writer.h"

#define KERNEL_MMAP_NAME	"[kernel.kallsyms]"

/* Big enough for an MMAP2 with a PATH_MAX name and any trailer. */
struct rec {
	union {
		struct perf_event_header h;
		uint64_t align;
		uint8_t b[8192];
	};
};

/* Finish a record whose fixed part and name take n bytes, and write it. */
static int emit(struct perf_writer *w, struct rec *r, size_t n)
{
	size_t id = perf_writer__id_hdr_size(w);

	n = (n + 7) & ~(size_t)7;
	if (n + id > sizeof(r->b) || n + id > UINT16_MAX)
		return 0;	/* cannot happen for names we build; skip */
	memset(r->b + n, 0, id);
	r->h.size = n + id;
	return perf_writer__write(w, r->b, n + id);
}

/*
 * Copy the len bytes of a name at off, NUL-terminated and zero-padded to
 * 8 bytes as the kernel and perf do; returns the end.
 */
static size_t put_name_n(struct rec *r, size_t off, const char *name,
			 size_t len)
{
	size_t n = len + 1, end;

	if (n > 4096)
		n = 4096;
	end = (off + n + 7) & ~(size_t)7;
	memset(r->b + off, 0, end - off);
	memcpy(r->b + off, name, n - 1);
	return end;
}

static size_t put_name(struct rec *r, size_t off, const char *name)
{
	return put_name_n(r, off, name, strlen(name));
}

/* The header, then the pid and tid COMM, MMAP and MMAP2 all start with. */
static void rec_start(struct rec *r, uint32_t type, uint16_t misc,
		      uint32_t pid, uint32_t tid)
{
	memset(&r->h, 0, sizeof(r->h));
	r->h.type = type;
	r->h.misc = misc;
	memcpy(r->b + 8, &pid, 4);
	memcpy(r->b + 12, &tid, 4);
}

/* MMAP's fields, which MMAP2 starts with too; MMAP2's own follow at 40. */
static void map_start(struct rec *r, uint32_t type, uint16_t misc,
		      uint32_t pid, uint32_t tid, uint64_t start,
		      uint64_t len, uint64_t pgoff)
{
	rec_start(r, type, misc, pid, tid);
	memcpy(r->b + 16, &start, 8);
	memcpy(r->b + 24, &len, 8);
	memcpy(r->b + 32, &pgoff, 8);
}

static int mmap_kernel(struct perf_writer *w, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *name)
{
	struct rec r;

	map_start(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
		  (uint32_t)-1, 0, start, len, pgoff);
	return emit(w, &r, put_name(&r, 40, name));
}

/* The kernel's reference symbols, from kallsyms lines. */
struct kref {
	uint64_t text, stext, etext;
	bool have_text, have_stext;
};

static void kref_line(struct kref *k, const char *line)
{
	const char *sp = strchr(line, ' ');
	uint64_t addr;

	if (!sp || !sp[1] || sp[2] != ' ' ||
	    (toupper((unsigned char)sp[1]) != 'T' &&
	     toupper((unsigned char)sp[1]) != 'W'))
		return;
	addr = strtoull(line, NULL, 16);
	if (!k->have_text && !strcmp(sp + 3, "_text\n")) {
		k->text = addr;
		k->have_text = true;
	} else if (!k->have_stext && !strcmp(sp + 3, "_stext\n")) {
		k->stext = addr;
		k->have_stext = true;
	} else if (!k->etext && !strcmp(sp + 3, "_etext\n")) {
		k->etext = addr;
	}
}

/*
 * The reference symbols from the kallsyms text the writer already holds
 * for its tracing data (the same T/W lines), else from /proc/kallsyms:
 * reading that file costs the kernel some 20 ms of formatting each time.
 */
static void kref_read(struct perf_writer *w, struct kref *k)
{
	const char *text, *p, *end, *nl;
	char *line = NULL, buf[256];
	size_t cap = 0, len;
	FILE *f;

	if (!perf_writer__kallsyms(w, &text, &len)) {
		for (p = text, end = text + len; p < end; p = nl + 1) {
			nl = memchr(p, '\n', end - p);
			if (!nl)
				break;
			/* the names looked for are short: longer lines skip */
			if ((size_t)(nl - p) + 2 > sizeof(buf))
				continue;
			memcpy(buf, p, nl - p + 1);
			buf[nl - p + 1] = '\0';
			kref_line(k, buf);
		}
		return;
	}
	f = fopen("/proc/kallsyms", "re");
	while (f && getline(&line, &cap, f) > 0)
		kref_line(k, line);
	free(line);
	if (f)
		fclose(f);
}

int synthesize__kernel_mmap(struct perf_writer *w)
{
	struct kref k = { 0 };
	uint64_t text, start, len;
	char *line = NULL, name[64];
	size_t cap = 0;
	FILE *f;
	int err;

	kref_read(w, &k);
	text = k.text;
	/* perf's reference symbols, in its order of preference */
	if (!k.have_text && k.have_stext)
		text = k.stext;
	snprintf(name, sizeof(name), "%s%s", KERNEL_MMAP_NAME,
		 !k.have_text && k.have_stext ? "_stext" : "_text");
	start = text;
	/* perf ends the map at _etext, else at the end of the space */
	len = k.etext > text ? k.etext - text : ~0ULL - text;
	err = mmap_kernel(w, start, len, text, name);
	if (err)
		return err;

	f = fopen("/proc/modules", "re");
	if (!f)
		return 0;	/* no modules (built without them) */
	line = NULL;
	cap = 0;
	while (getline(&line, &cap, f) > 0) {
		char mod[64], mname[80];
		unsigned long size;
		uint64_t addr;

		if (sscanf(line, "%63s %lu %*s %*s %*s %" SCNx64, mod, &size,
			   &addr) != 3 || !addr)
			continue;	/* hidden by kptr_restrict */
		snprintf(mname, sizeof(mname), "[%s]", mod);
		err = mmap_kernel(w, addr, size, 0, mname);
		if (err)
			break;
	}
	free(line);
	fclose(f);
	return err;
}

/* ---- threads ---- */

static int comm_rec(struct perf_writer *w, uint32_t pid, uint32_t tid,
		    const char *comm)
{
	struct rec r;

	rec_start(&r, PERF_RECORD_COMM, 0, pid, tid);
	return emit(w, &r, put_name(&r, 16, comm));
}

static int mmap2_rec(struct perf_writer *w, uint32_t pid, uint64_t start,
		     uint64_t end, const char *perm, uint64_t pgoff,
		     uint32_t maj, uint32_t min, uint64_t ino,
		     const char *name)
{
	uint32_t prot = 0, flags;
	uint64_t gen = 0;
	struct rec r;

	if (perm[0] == 'r')
		prot |= PROT_READ;
	if (perm[1] == 'w')
		prot |= PROT_WRITE;
	if (perm[2] == 'x')
		prot |= PROT_EXEC;
	flags = perm[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	map_start(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, pid, pid,
		  start, end - start, pgoff);
	memcpy(r.b + 40, &maj, 4);
	memcpy(r.b + 44, &min, 4);
	memcpy(r.b + 48, &ino, 8);
	memcpy(r.b + 56, &gen, 8);
	memcpy(r.b + 64, &prot, 4);
	memcpy(r.b + 68, &flags, 4);
	return emit(w, &r, put_name(&r, 72, name));
}

/* Executable mappings of tgid; a vanished process has none. */
static int process_maps(struct perf_writer *w, int tgid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", tgid, tgid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && (n = getline(&line, &cap, f)) > 0) {
		uint64_t start, end, pgoff, ino;
		unsigned int maj, min;
		char perm[5];
		const char *name;
		int at = 0;

		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64
			   " %x:%x %" SCNu64 " %n", &start, &end, perm, &pgoff,
			   &maj, &min, &ino, &at) < 7 || !at)
			continue;
		if (strlen(perm) < 4 || perm[2] != 'x' || end <= start)
			continue;
		name = line + at;
		/* perf's names for what has no file */
		if (!*name || !strncmp(name, "/anon_hugepage", 14))
			name = "//anon";
		err = mmap2_rec(w, tgid, start, end, perm, pgoff, maj, min,
				ino, name);
	}
	free(line);
	fclose(f);
	return err;
}

static bool read_comm(int tgid, int tid, char *comm, size_t size)
{
	char path[64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(comm, 1, size - 1, f);
	fclose(f);
	if (!n)
		return false;
	comm[n] = 0;
	if (comm[n - 1] == '\n')
		comm[n - 1] = 0;
	return true;
}

static int numeric(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	return *end || v <= 0 || v > INT32_MAX ? -1 : (int)v;
}

/* COMM for each thread of tgid, then its maps, as perf orders them. */
static int process(struct perf_writer *w, int tgid)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return 0;	/* gone meanwhile */
	while (!err && (de = readdir(d))) {
		int tid = numeric(de->d_name);

		if (tid < 0 || !read_comm(tgid, tid, comm, sizeof(comm)))
			continue;
		err = comm_rec(w, tgid, tid, comm);
	}
	closedir(d);
	if (err)
		return err;
	return process_maps(w, tgid);
}

/* The process (thread group) pid belongs to; -ESRCH when none. */
static int tgid_of(pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int tgid = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = atoi(line + 5);
			break;
		}
	}
	free(line);
	fclose(f);
	return tgid > 0 ? tgid : -ESRCH;
}

int synthesize__threads(struct perf_writer *w, pid_t pid)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (pid != -1) {
		int tgid = tgid_of(pid);

		return tgid < 0 ? tgid : process(w, tgid);
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		int tgid = numeric(de->d_name);

		if (tgid > 0)
			err = process(w, tgid);
	}
	closedir(d);
	return err;
}

/* A [bpf] line of the kallsyms text: a loaded program's function. */
struct bpf_name {
	uint64_t addr;
	const char *name;	/* into the text, not terminated */
	size_t len;
};

static int cmp_bpf_name(const void *a, const void *b)
{
	const struct bpf_name *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "addr t name\t[bpf]" lines of text, sorted by address. */
static int bpf_names(const char *text, size_t len, struct bpf_name **out,
		     size_t *nr)
{
	const char *p, *end = text + len, *nl, *tab, *sp;
	struct bpf_name *v = NULL, *nv;
	size_t n = 0, cap = 0;

	for (p = text; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		tab = memchr(p, '\t', nl - p);
		sp = memchr(p, ' ', nl - p);
		if (!tab || nl - tab != 6 || memcmp(tab, "\t[bpf]", 6) || !sp ||
		    tab - sp < 4 || sp[2] != ' ')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n].addr = strtoull(p, NULL, 16);
		v[n].name = sp + 3;
		v[n].len = tab - (sp + 3);
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_bpf_name);
	*out = v;
	*nr = n;
	return 0;
}

int synthesize__bpf_ksymbols(struct perf_writer *w,
			     const struct synth_ksym *s, size_t n)
{
	struct bpf_name *names = NULL, key, *hit;
	const char *text;
	size_t len, nr = 0, i, end;
	uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF, flags = 0;
	struct rec r;
	int err;

	if (!n || perf_writer__kallsyms(w, &text, &len))
		return 0;
	err = bpf_names(text, len, &names, &nr);
	for (i = 0; !err && nr && i < n; i++) {
		key.addr = s[i].addr;
		hit = bsearch(&key, names, nr, sizeof(*names), cmp_bpf_name);
		/* kallsyms names it as the kernel's own KSYMBOL would */
		if (!hit || !s[i].len || hit->len >= 512)
			continue;
		memset(&r.h, 0, sizeof(r.h));
		r.h.type = PERF_RECORD_KSYMBOL;
		memcpy(r.b + 8, &s[i].addr, 8);
		memcpy(r.b + 16, &s[i].len, 4);
		memcpy(r.b + 20, &type, 2);
		memcpy(r.b + 22, &flags, 2);
		end = put_name_n(&r, 24, hit->name, hit->len);
		err = emit(w, &r, end);
	}
	free(names);
	return err;
}
