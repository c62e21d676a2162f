// SPDX-License-Identifier: GPL-2.0
/*
 * The build ids of the user-space DSOs that samples hit, as perf record
 * writes them at its end (HEADER_BUILD_ID): the finished recording is
 * read back, its samples' addresses (callchains included) are mapped to
 * the files they ran in, and each such file's build id is taken from its
 * MMAP2 record (attr.build_id, 5.12+) or else read from the ELF file.
 * A reader can then tell a file rebuilt since from the one recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "perf-data.h"
#include "perf-writer.h"
#include "record-int.h"
#include "symbols.h"
#include "util.h"

#define BID_MAX 20

struct bid_dso {
	char *name;
	uint8_t id[BID_MAX];
	uint8_t size;		/* from an MMAP2 record; 0: none seen */
	bool hit;
};

struct bid_ctx {
	struct machine *m;
	struct bid_dso *d;
	size_t nr, cap;
	const char *last;	/* the name marked last: most frames repeat */
};

static struct bid_dso *dso_find(struct bid_ctx *c, const char *name,
				bool add)
{
	struct bid_dso *d;
	size_t i;
	void *p;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->d[i].name, name))
			return &c->d[i];
	if (!add)
		return NULL;
	p = c->d;
	if (grow_array(&p, &c->cap, c->nr + 1, sizeof(*c->d)))
		return NULL;
	c->d = p;
	d = &c->d[c->nr];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (!d->name)
		return NULL;
	c->nr++;
	return d;
}

/* A file a process ran code from: a path, not "[vdso]" or a JIT map. */
static bool is_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '/' &&
	       !(n > 4 && !strcmp(name + n - 4, ".map") &&
		 !strncmp(name, "/tmp/perf-", 10));
}

/* The file at a user-space address, marked hit; no symbol is loaded. */
static int mark(struct bid_ctx *c, const struct rs_sample *s, uint64_t ip)
{
	const char *name = machine__user_dso(c->m, s->pid, s->tid, ip);
	struct bid_dso *d;

	if (!name || name == c->last)
		return 0;
	c->last = name;
	if (!is_file(name))
		return 0;
	d = dso_find(c, name, true);
	if (!d)
		return -ENOMEM;
	d->hit = true;
	return 0;
}

/* Each user-space address of the sample: its callchain's, or its ip. */
static int on_sample(struct bid_ctx *c, const struct rs_sample *s)
{
	bool user = (s->cpumode & PERF_RECORD_MISC_CPUMODE_MASK) ==
		    PERF_RECORD_MISC_USER;
	uint64_t i, ip;
	int err;

	if (!s->nr_callchain)
		return user ? mark(c, s, s->ip) : 0;
	/* As perf walks a chain: user mode until a context says else. */
	user = true;
	for (i = 0; i < s->nr_callchain; i++) {
		ip = rs_u64(&s->callchain[i]);
		if (ip >= PERF_CONTEXT_MAX) {
			user = ip == PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		err = mark(c, s, ip);
		if (err)
			return err;
	}
	return 0;
}

static int on_event(void *arg, const struct rs_event *ev)
{
	struct bid_ctx *c = arg;
	struct bid_dso *d;

	if (ev->kind == RS_EV_SAMPLE)
		return on_sample(c, &ev->sample);
	if (ev->kind == RS_EV_MMAP && ev->mmap.build_id_size &&
	    ev->mmap.build_id_size <= BID_MAX && ev->mmap.filename &&
	    is_file(ev->mmap.filename)) {
		d = dso_find(c, ev->mmap.filename, true);
		if (!d)
			return -ENOMEM;
		memcpy(d->id, ev->mmap.build_id, ev->mmap.build_id_size);
		d->size = ev->mmap.build_id_size;
	}
	return machine__process_event(c->m, ev);
}

int rec_buildids__write(struct recorder *r, size_t *nr_written)
{
	struct bid_ctx *c = calloc(1, sizeof(*c));
	struct perf_data *pd = NULL;
	char path[64];
	uint8_t id[BID_MAX];
	size_t i, added = 0;
	int err, n;

	*nr_written = 0;
	if (!c)
		return -ENOMEM;
	c->m = machine__new();
	if (!c->m) {
		err = -ENOMEM;
		goto out;
	}
	/* Our own descriptor of the file just finished: no path to race. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", outfile__fd(r->out));
	err = perf_data__open(&pd, path);
	if (!err)
		err = perf_data__process(pd, on_event, c);
	if (err)
		goto out;
	for (i = 0; !err && i < c->nr; i++) {
		struct bid_dso *d = &c->d[i];

		if (!d->hit)
			continue;
		if (d->size) {
			err = perf_writer__add_build_id(r->w, -1,
							PERF_RECORD_MISC_USER,
							d->id, d->size,
							d->name);
		} else {
			/* perf reads it from the file at its end, too. */
			n = elf__read_build_id(d->name, id, sizeof(id));
			if (n <= 0)
				continue;
			err = perf_writer__add_build_id(r->w, -1,
							PERF_RECORD_MISC_USER,
							id, n, d->name);
		}
		added += !err;
	}
	if (!err && added)
		err = perf_writer__refinish(r->w);
	*nr_written = added;
out:
	perf_data__delete(pd);
	machine__delete(c->m);
	for (i = 0; i < c->nr; i++)
		free(c->d[i].name);
	free(c->d);
	free(c);
	return err;
}
