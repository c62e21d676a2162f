// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader against perf's own reading of the bundled
 * recordings, and against hand-built buffers for every sample layout
 * bit, ordering, compression and bad input.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <zstd.h>

#include "perf-data.h"
#include "perf-format.h"
#include "session.h"
#include "unit.h"
#include "util.h"
/* the queue bounds, lowered below to test them at a small size */
#include "../../src/perf/data-int.h"

/*
 * strndup() that fails once, on the Nth call from when it is armed: the
 * reader must then report -ENOMEM, never leave an event without a name.
 */
static int strndup_fail_in = -1;

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d;

	if (strndup_fail_in >= 0 && !strndup_fail_in--) {
		errno = ENOMEM;
		return NULL;
	}
	d = malloc(len + 1);
	if (d) {
		memcpy(d, s, len);
		d[len] = 0;
	}
	return d;
}

/* ---- collecting events ---- */

#define MAX_EV 4096

struct got {
	struct rs_event ev[MAX_EV];
	char comm[MAX_EV][16];
	int nr;
	uint64_t kernel_markers, user_markers;
	int stop_after;
};

static int collect(void *ctx, const struct rs_event *ev)
{
	struct got *g = ctx;
	uint64_t i;

	if (ev->kind == RS_EV_SAMPLE) {
		for (i = 0; i < ev->sample.nr_callchain; i++) {
			uint64_t ip = rs_u64(ev->sample.callchain + i);

			if (ip == PERF_CONTEXT_KERNEL)
				g->kernel_markers++;
			else if (ip == PERF_CONTEXT_USER)
				g->user_markers++;
		}
	}
	if (g->nr < MAX_EV) {
		g->ev[g->nr] = *ev;
		if (ev->kind == RS_EV_COMM)
			snprintf(g->comm[g->nr], 16, "%s", ev->comm.comm);
		g->nr++;
	}
	if (g->stop_after && g->nr == g->stop_after)
		return 42;
	return 0;
}

static int count_only(void *ctx, const struct rs_event *ev)
{
	return 0;
}

static int count_samples(void *ctx, const struct rs_event *ev)
{
	if (ev->kind == RS_EV_SAMPLE)
		(*(uint64_t *)ctx)++;
	return 0;
}

static struct got *got_new(void)
{
	return calloc(1, sizeof(struct got));
}

static const char *fixture(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", unit_fixtures(), name);
	return path;
}

static struct rs_evsel *evsel_by_name(struct perf_data *pd, const char *n)
{
	uint32_t i;

	for (i = 0; i < perf_data__nr_evsel(pd); i++)
		if (!strcmp(perf_data__evsel(pd, i)->name, n))
			return perf_data__evsel(pd, i);
	return NULL;
}

/* ---- the recordings ---- */

/*
 * Expected counts come from `perf script -F event -i FILE | sort | uniq -c`
 * with Debian's perf 6.1; the header fields from
 * `perf report --header-only -i FILE`.
 */
static void test_flush_mixed(void)
{
	static const struct { const char *name; uint64_t n; } want[] = {
		{ "cpu-clock", 21047 },
		{ "cgroup:cgroup_rstat_locked", 439 },
		{ "cgroup:cgroup_rstat_unlock", 438 },
		{ "cgroup:cgroup_rstat_lock_contended", 0 },
		{ "memcg:memcg_flush_stats", 440 },
		{ "dummy:HG", 0 },
	};
	const struct perf_header_info *h;
	struct perf_data *pd;
	struct got *g = got_new();
	size_t i;
	int err;

	err = perf_data__open(&pd, fixture("flush-mixed.data"));
	CHECK_INT(err, 0);
	if (err) {
		perf_data__delete(pd);
		free(g);
		return;
	}
	h = perf_data__header(pd);
	CHECK_STR(h->hostname, "vm");
	CHECK_STR(h->os_release, "6.18.44-fc-v782");
	CHECK_STR(h->perf_version, "6.1.192");
	CHECK_STR(h->arch, "x86_64");
	CHECK_STR(h->cpudesc, "AMD EPYC");
	CHECK_INT(h->nr_cpus_online, 2);
	CHECK_INT(h->nr_cpus_avail, 2);
	/* perf prints the same words with a trailing space */
	CHECK_STR(h->cmdline, "/usr/bin/perf record -a -g -F 2999 -e cpu-clock -e cgroup:cgroup_rstat_locked -e cgroup:cgroup_rstat_unlock -e cgroup:cgroup_rstat_lock_contended -e memcg:memcg_flush_stats -o flush-mixed.data -- ./rdm 3000 /sys/fs/cgroup/unified/rsa-test/cpu.stat /sys/fs/cgroup/memory/process_api/c92a53df71096983e58350889ad37bbb/rsa-test/memory.stat /sys/fs/cgroup/unified/rsa-test/cgroup.stat");
	CHECK(!h->pipe_mode);
	CHECK_U64(h->data_offset, 1064);
	CHECK_U64(h->data_size, 2648680);
	/* time of first/last sample: 489.647942 / 493.173756 */
	CHECK_U64(h->sample_time_start / 1000, 489647942);
	CHECK_U64(h->sample_time_end / 1000, 493173756);
	CHECK(perf_data__tep(pd) != NULL);
	CHECK_INT(perf_data__nr_evsel(pd), ARRAY_SIZE(want));

	err = perf_data__process(pd, collect, g);
	CHECK_INT(err, 0);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct rs_evsel *e = evsel_by_name(pd, want[i].name);

		CHECK(e != NULL);
		if (e)
			CHECK_U64(e->nr_samples, want[i].n);
	}
	CHECK_U64(perf_data__stats(pd)->nr_samples, 22364);
	/* perf report -D: 23013 events in all, 18 FINISHED_ROUND */
	CHECK_U64(perf_data__stats(pd)->nr_records, 23013);
	CHECK_U64(perf_data__stats(pd)->nr_unknown_records, 0);
	CHECK(g->kernel_markers > 0);
	CHECK(perf_data__nr_build_ids(pd) > 0);
	perf_data__delete(pd);
	free(g);
}

/* Decode the first memcg_flush_stats sample's fields through the tep. */
static struct tep_event *memcg_tp;
static long long memcg_id = -1, memcg_updates = -1;

static int find_memcg(void *ctx, const struct rs_event *ev)
{
	struct tep_record r = { 0 };
	unsigned long long v;

	if (ev->kind != RS_EV_SAMPLE || ev->sample.evsel->tp != memcg_tp ||
	    memcg_id >= 0)
		return 0;
	r.data = (void *)ev->sample.raw;
	r.size = ev->sample.raw_size;
	if (!tep_get_field_val(NULL, memcg_tp, "id", &r, &v, 0))
		memcg_id = v;
	if (!tep_get_field_val(NULL, memcg_tp, "stats_updates", &r, &v, 0))
		memcg_updates = v;
	return 0;
}

static void test_tracepoint_fields(void)
{
	struct perf_data *pd;
	struct rs_evsel *e;

	if (perf_data__open(&pd, fixture("flush-mixed.data"))) {
		UNIT_FAIL("open: %s", perf_data__strerror(pd));
		perf_data__delete(pd);
		return;
	}
	e = evsel_by_name(pd, "memcg:memcg_flush_stats");
	CHECK(e && e->tp);
	if (e && e->tp) {
		CHECK_STR(e->tp->system, "memcg");
		CHECK_INT(e->tp->id, 0x2f8);
		memcg_tp = e->tp;
		CHECK_INT(perf_data__process(pd, find_memcg, NULL), 0);
		/*
		 * First line of flush-mixed.trace.txt.gz (perf script):
		 * "memcg_id=6272 stats_updates=192" prints the id field.
		 */
		CHECK_INT(memcg_id, 6272);
		CHECK_INT(memcg_updates, 192);
	}
	perf_data__delete(pd);
}

static void check_pipe_fixture(struct perf_data *pd)
{
	/* perf script -F event -i pipe-mode.data | sort | uniq -c */
	static const struct { const char *name; uint64_t n; } want[] = {
		{ "cpu-clock", 7 },
		{ "cgroup:cgroup_rstat_locked", 6 },
		{ "cgroup:cgroup_rstat_unlock", 5 },
		{ "memcg:memcg_flush_stats", 7 },
	};
	const struct perf_header_info *h = perf_data__header(pd);
	size_t i;

	CHECK(h->pipe_mode);
	CHECK_STR(h->hostname, "vm");
	CHECK_STR(h->os_release, "6.18.44-fc-v782");
	CHECK_STR(h->perf_version, "6.1.192");
	CHECK_STR(h->arch, "x86_64");
	CHECK_INT(h->nr_cpus_online, 2);
	CHECK_STR(h->cmdline, "/usr/bin/perf record -g -F 999 -e cpu-clock -e cgroup:cgroup_rstat_locked -e cgroup:cgroup_rstat_unlock -e memcg:memcg_flush_stats -o - -- ./rdm 500 /sys/fs/cgroup/memory/process_api/c92a53df71096983e58350889ad37bbb/rsa-test/memory.stat");
	CHECK_INT(perf_data__process(pd, count_only, NULL), 0);
	CHECK_INT(perf_data__nr_evsel(pd), 4);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct rs_evsel *e = evsel_by_name(pd, want[i].name);

		CHECK(e != NULL);
		if (e)
			CHECK_U64(e->nr_samples, want[i].n);
	}
	CHECK_U64(perf_data__stats(pd)->nr_samples, 25);
}

static void test_pipe_fixture(void)
{
	struct perf_data *pd;
	int err = perf_data__open(&pd, fixture("pipe-mode.data"));

	CHECK_INT(err, 0);
	if (!err)
		check_pipe_fixture(pd);
	perf_data__delete(pd);
}

/* The same bytes through a real pipe, with 8 bytes already sniffed. */
static void test_pipe_fd_prefix(void)
{
	struct perf_data *pd;
	char prefix[8];
	int fds[2], in, err;
	pid_t pid;

	in = open(fixture("pipe-mode.data"), O_RDONLY);
	CHECK(in >= 0);
	if (in < 0 || pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		char buf[4096];
		ssize_t n;

		close(fds[0]);
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(fds[1], buf, n) != n)
				break;
		_exit(0);
	}
	close(fds[1]);
	close(in);
	CHECK_INT(read(fds[0], prefix, 8), 8);
	CHECK(perf_format__sniff(prefix, 8) != PERF_LAYOUT_NONE);
	err = perf_data__open_fd(&pd, fds[0], prefix, 8);
	CHECK_INT(err, 0);
	if (!err)
		check_pipe_fixture(pd);
	perf_data__delete(pd);
	close(fds[0]);
	waitpid(pid, NULL, 0);
}

/* ---- building perf.data in memory ---- */

struct bb {
	uint8_t *p;
	size_t n, cap;
};

static void bput(struct bb *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
	}
	if (d)
		memcpy(b->p + b->n, d, n);
	else
		memset(b->p + b->n, 0, n);
	b->n += n;
}

static void b64(struct bb *b, uint64_t v) { bput(b, &v, 8); }
static void b32(struct bb *b, uint32_t v) { bput(b, &v, 4); }

static size_t rbegin(struct bb *b, uint32_t type, uint16_t misc)
{
	size_t at = b->n;
	uint16_t z = 0;

	b32(b, type);
	bput(b, &misc, 2);
	bput(b, &z, 2);
	return at;
}

static void rend(struct bb *b, size_t at)
{
	uint16_t size;

	while ((b->n - at) % 8)
		bput(b, NULL, 1);
	size = b->n - at;
	memcpy(b->p + at + 6, &size, 2);
}

static void pipe_header(struct bb *b)
{
	bput(b, "PERFILE2", 8);
	b64(b, 16);
}

static void pipe_attr(struct bb *b, const struct perf_event_attr *a,
		      const uint64_t *ids, int nr)
{
	struct perf_event_attr c = *a;
	size_t at = rbegin(b, 64, 0);
	int i;

	c.size = sizeof(c);
	bput(b, &c, sizeof(c));
	for (i = 0; i < nr; i++)
		b64(b, ids[i]);
	rend(b, at);
}

static void finished_round(struct bb *b)
{
	rend(b, rbegin(b, 68, 0));
}

static int open_bb(struct perf_data **pd, struct bb *b)
{
	return perf_data__open_mem(pd, b->p, b->n);
}

/* Every layout bit at once, each field with a value we can check. */
static void test_sample_all_bits(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	const struct rs_sample *s;
	size_t at;
	int i;

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
		PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
		PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
		PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
		PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
		PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |
		PERF_SAMPLE_AUX;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x7;	/* 3 regs */
	a.sample_regs_intr = 0x3;	/* 2 regs */

	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 77 }, 1);
	at = rbegin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	b64(&b, 77);			/* identifier */
	b64(&b, 0x1000);		/* ip */
	b32(&b, 10); b32(&b, 11);	/* pid, tid */
	b64(&b, 5000);			/* time */
	b64(&b, 0xdead);		/* addr */
	b64(&b, 77);			/* id */
	b64(&b, 78);			/* stream id */
	b32(&b, 3); b32(&b, 0);		/* cpu, res */
	b64(&b, 1234);			/* period */
	b64(&b, 1); b64(&b, 2); b64(&b, 3); b64(&b, 0); /* read */
	b64(&b, 3);			/* callchain */
	b64(&b, PERF_CONTEXT_USER); b64(&b, 0x1000); b64(&b, 0x2000);
	b32(&b, 12); bput(&b, "rawdata....", 12); /* raw: 4 + 12 = 16 */
	b64(&b, 2); b64(&b, 9);		/* branches, hw_idx */
	for (i = 0; i < 6; i++)
		b64(&b, 0x100 + i);
	b64(&b, 2);			/* regs user abi */
	b64(&b, 1); b64(&b, 2); b64(&b, 3);
	b64(&b, 16); bput(&b, NULL, 16); b64(&b, 8); /* stack user */
	b64(&b, 0xaaaa00000055ULL);	/* weight struct */
	b64(&b, 0x42);			/* data src */
	b64(&b, 0x43);			/* transaction */
	b64(&b, 2); b64(&b, 4); b64(&b, 5); /* regs intr */
	b64(&b, 0x9000);		/* phys */
	b64(&b, 0x77);			/* cgroup */
	b64(&b, 4096);			/* data page size */
	b64(&b, 2 << 20);		/* code page size */
	b64(&b, 8); b64(&b, 0);		/* aux */
	rend(&b, at);

	if (open_bb(&pd, &b)) {
		UNIT_FAIL("open: %s", perf_data__strerror(pd));
		goto out;
	}
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_STR(perf_data__strerror(pd), "");
	CHECK_INT(g->nr, 1);
	s = &g->ev[0].sample;
	CHECK_INT(g->ev[0].kind, RS_EV_SAMPLE);
	CHECK_U64(s->id, 77);
	CHECK_U64(s->ip, 0x1000);
	CHECK_INT(s->pid, 10);
	CHECK_INT(s->tid, 11);
	CHECK_U64(s->time, 5000);
	CHECK_U64(g->ev[0].time, 5000);
	CHECK_U64(s->addr, 0xdead);
	CHECK_U64(s->stream_id, 78);
	CHECK_INT(s->cpu, 3);
	CHECK_U64(s->period, 1234);
	CHECK_U64(s->nr_callchain, 3);
	CHECK_U64(g->user_markers, 1);
	CHECK_INT(s->raw_size, 12);
	CHECK(s->raw && !memcmp(s->raw, "rawdata", 7));
	CHECK_U64(s->nr_branches, 2);
	CHECK(s->branches && ((const uint64_t *)s->branches)[0] == 0x100);
	CHECK_U64(s->weight, 0x55);
	CHECK_U64(s->data_src, 0x42);
	CHECK_U64(s->transaction, 0x43);
	CHECK_U64(s->phys_addr, 0x9000);
	CHECK_U64(s->cgroup, 0x77);
	CHECK_U64(s->data_page_size, 4096);
	CHECK_U64(s->code_page_size, 2 << 20);
	CHECK_INT(s->cpumode, PERF_RECORD_MISC_USER);
out:
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/* Minimal layout: no period sampled means period 1, as perf says. */
static void test_sample_defaults(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	size_t at;

	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.precise_ip = 2;
	pipe_header(&b);
	pipe_attr(&b, &a, NULL, 0);
	at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
	b64(&b, 0x4242);
	rend(&b, at);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, 1);
	CHECK_U64(g->ev[0].sample.ip, 0x4242);
	CHECK_U64(g->ev[0].sample.period, 1);
	CHECK_U64(g->ev[0].time, 0);
	/* perf's evsel__name(): ":u" from the exclude bits, "pp" precise */
	CHECK_STR(perf_data__evsel(pd, 0)->name, "instructions:upp");
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

static void test_names(void)
{
	static const struct {
		uint32_t type;
		uint64_t config;
		int excl_user, excl_kernel, excl_guest;
		const char *name;
	} t[] = {
		/* cpu-clock as perf record sets it: exclude_guest */
		{ PERF_TYPE_SOFTWARE, 0, 0, 0, 1, "cpu-clock" },
		/* no exclude_guest: perf adds ":HG", e.g. dummy:HG */
		{ PERF_TYPE_SOFTWARE, 9, 0, 0, 0, "dummy:HG" },
		/* cpu-clock:u recorded, as `perf evlist` names it */
		{ PERF_TYPE_SOFTWARE, 0, 0, 1, 1, "cpu-clock:uH" },
		{ PERF_TYPE_SOFTWARE, 2, 1, 0, 0, "page-faults:k" },
		{ PERF_TYPE_SOFTWARE, 2, 1, 0, 1, "page-faults:kH" },
		{ PERF_TYPE_SOFTWARE, 11, 0, 0, 1, "cgroup-switches" },
		{ PERF_TYPE_SOFTWARE, 99, 0, 0, 1, "unknown-software" },
		{ PERF_TYPE_HARDWARE, 0, 0, 0, 1, "cycles" },
		{ PERF_TYPE_HARDWARE, 9, 0, 0, 1, "ref-cycles" },
		{ PERF_TYPE_RAW, 0x1a2, 0, 0, 1, "raw 0x1a2" },
		{ PERF_TYPE_HW_CACHE, 0x10000, 0, 0, 1, "L1-dcache-load-misses" },
		{ PERF_TYPE_HW_CACHE, 0x0, 0, 0, 1, "L1-dcache-loads" },
		{ PERF_TYPE_HW_CACHE, 0x10103, 0, 0, 1, "dTLB-store-misses" },
		{ PERF_TYPE_TRACEPOINT, 5, 0, 0, 1, "unknown tracepoint" },
		{ 42, 0, 0, 0, 1, "unknown attr type: 42" },
	};
	struct perf_data *pd;
	struct bb b = { 0 };
	size_t i;

	pipe_header(&b);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct perf_event_attr a = { 0 };

		a.type = t[i].type;
		a.config = t[i].config;
		a.exclude_user = t[i].excl_user;
		a.exclude_kernel = t[i].excl_kernel;
		a.exclude_guest = t[i].excl_guest;
		/* perf record's :u and :k also exclude the hypervisor */
		a.exclude_hv = t[i].excl_user || t[i].excl_kernel;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_IDENTIFIER;
		pipe_attr(&b, &a, (uint64_t[]){ i + 1 }, 1);
	}
	{
		struct perf_event_attr a = { 0 };

		a.type = PERF_TYPE_BREAKPOINT;
		a.bp_addr = 0x1234;
		a.bp_type = 3;	/* HW_BREAKPOINT_RW */
		a.exclude_guest = 1;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_IDENTIFIER;
		pipe_attr(&b, &a, (uint64_t[]){ 100 }, 1);
	}
	CHECK_INT(open_bb(&pd, &b), 0);
	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECK_STR(perf_data__evsel(pd, i)->name, t[i].name);
	CHECK_STR(perf_data__evsel(pd, i)->name, "mem:0x1234:rw");
	perf_data__delete(pd);
	free(b.p);
}

static void sample_ident(struct bb *b, uint64_t id, uint64_t ip,
			 uint64_t time)
{
	size_t at = rbegin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);

	b64(b, id);
	b64(b, ip);
	b32(b, 1); b32(b, 2);
	b64(b, time);
	rend(b, at);
}

static void test_multi_identifier(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 5, 6 }, 2);
	a.config = 1;
	pipe_attr(&b, &a, (uint64_t[]){ 7 }, 1);
	sample_ident(&b, 7, 0xa, 10);
	sample_ident(&b, 6, 0xb, 11);
	sample_ident(&b, 99, 0xc, 12);	/* no attr has it */
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, 2);
	CHECK_STR(g->ev[0].sample.evsel->name, "task-clock");
	CHECK_STR(g->ev[1].sample.evsel->name, "cpu-clock");
	CHECK_U64(perf_data__stats(pd)->nr_unknown_id, 1);
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/* PERF_SAMPLE_ID without IDENTIFIER: id found after IP, TID, TIME. */
static void test_multi_id(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	size_t at;
	int i;

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 20 }, 1);
	a.config = 2;
	pipe_attr(&b, &a, (uint64_t[]){ 21 }, 1);
	for (i = 0; i < 3; i++) {
		at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
		b64(&b, 0x10 + i);
		b32(&b, 1); b32(&b, 1);
		b64(&b, 100 + i);
		b64(&b, i == 1 ? 21 : 20);
		b64(&b, 1000);
		rend(&b, at);
	}
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, 3);
	CHECK_STR(g->ev[1].sample.evsel->name, "page-faults");
	CHECK_U64(perf_data__evsel(pd, 0)->nr_samples, 2);
	CHECK_U64(perf_data__evsel(pd, 0)->total_period, 2000);
	CHECK_U64(g->ev[1].sample.id, 21);
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/* Attrs without ids: ID_INDEX tells which id belongs to which attr. */
static void test_id_index(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	size_t at;

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	pipe_header(&b);
	pipe_attr(&b, &a, NULL, 0);
	a.config = 1;
	pipe_attr(&b, &a, NULL, 0);
	at = rbegin(&b, 69, 0);
	b64(&b, 2);
	b64(&b, 300); b64(&b, 1); b64(&b, 0); b64(&b, 0);
	b64(&b, 301); b64(&b, 0); b64(&b, 0); b64(&b, 0);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
	b64(&b, 300); b64(&b, 1);
	rend(&b, at);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, 1);
	CHECK_STR(g->ev[0].sample.evsel->name, "task-clock");
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/* READ group: one sample per counter, period = increase, as perf script. */
static void test_read_group(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	size_t at;
	int i;

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_LOST;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	a.config = 1;
	pipe_attr(&b, &a, (uint64_t[]){ 2 }, 1);
	for (i = 1; i <= 2; i++) {
		at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
		b64(&b, 1); b64(&b, 0x99);
		b64(&b, 2); b64(&b, 555);		/* nr, enabled */
		b64(&b, 100 * i); b64(&b, 1); b64(&b, 0); /* value id lost */
		b64(&b, 10); b64(&b, 2); b64(&b, 0);	/* unchanged later */
		rend(&b, at);
	}
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, 3);
	CHECK_U64(g->ev[0].sample.period, 100);
	CHECK_STR(g->ev[1].sample.evsel->name, "task-clock");
	CHECK_U64(g->ev[1].sample.period, 10);
	CHECK_U64(g->ev[2].sample.period, 100);
	CHECK_STR(g->ev[2].sample.evsel->name, "cpu-clock");
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/* Side-band records with sample_id_all trailers, mapped by id from the end. */
static void test_side_band(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	size_t at;

	a.type = PERF_TYPE_SOFTWARE;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	a.config = 1;
	pipe_attr(&b, &a, (uint64_t[]){ 2 }, 1);
#define TRAILER(t) do { b32(&b, 1); b32(&b, 2); b64(&b, t); b64(&b, 2); \
			b32(&b, 0); b32(&b, 0); } while (0)
	at = rbegin(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	b32(&b, 40); b32(&b, 41); bput(&b, "worker\0\0", 8);
	TRAILER(300);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID |
		    PERF_RECORD_MISC_USER);
	b32(&b, 40); b32(&b, 41);
	b64(&b, 0x400000); b64(&b, 0x1000); b64(&b, 0);
	b32(&b, 20 | 0xab00); /* size 20, reserved byte 0xab */
	bput(&b, "0123456789abcdefghij", 20);
	b32(&b, 5); b32(&b, 2);			/* prot, flags */
	bput(&b, "/bin/x\0\0", 8);
	TRAILER(200);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_FORK, 0);
	b32(&b, 50); b32(&b, 40); b32(&b, 51); b32(&b, 41); b64(&b, 7);
	TRAILER(100);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_LOST, 0);
	b64(&b, 2); b64(&b, 17);
	TRAILER(0);	/* time 0: delivered at once, like perf */
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_LOST_SAMPLES, 0);
	b64(&b, 3);
	TRAILER(400);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_THROTTLE, 0);
	b64(&b, 500); b64(&b, 2); b64(&b, 0);
	TRAILER(500);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_EXIT, 0);
	b32(&b, 50); b32(&b, 40); b32(&b, 51); b32(&b, 41); b64(&b, 7);
	TRAILER(600);
	rend(&b, at);
#undef TRAILER
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, 7);
	CHECK_INT(g->ev[0].kind, RS_EV_LOST);
	CHECK_U64(g->ev[0].lost.lost, 17);
	CHECK_INT(g->ev[1].kind, RS_EV_FORK);
	CHECK_U64(g->ev[1].time, 100);
	CHECK_INT(g->ev[1].task.ptid, 41);
	CHECK_INT(g->ev[2].kind, RS_EV_MMAP);
	CHECK_STR(g->ev[2].mmap.filename, "/bin/x");
	CHECK_INT(g->ev[2].mmap.build_id_size, 20);
	CHECK_INT(g->ev[2].mmap.build_id[0], '0');
	CHECK_INT(g->ev[2].mmap.prot, 5);
	CHECK_INT(g->ev[2].cpumode, PERF_RECORD_MISC_USER);
	CHECK_INT(g->ev[3].kind, RS_EV_COMM);
	CHECK_STR(g->comm[3], "worker");
	CHECK(g->ev[3].comm.exec);
	CHECK_INT(g->ev[3].comm.tid, 41);
	CHECK_INT(g->ev[4].kind, RS_EV_LOST);
	CHECK(g->ev[4].lost.samples);
	CHECK_INT(g->ev[5].kind, RS_EV_THROTTLE);
	CHECK_INT(g->ev[6].kind, RS_EV_EXIT);
	CHECK_U64(perf_data__stats(pd)->nr_lost, 17);
	CHECK_U64(perf_data__stats(pd)->nr_lost_samples, 3);
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/*
 * perf's rule: at each FINISHED_ROUND deliver what is not newer than the
 * highest time seen before the previous FINISHED_ROUND.
 */
static void test_ordering(void)
{
	static const uint64_t want_ip[] = { 6, 5, 10, 2, 20, 30, 7, 40 };
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 };
	size_t i;

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	sample_ident(&b, 1, 30, 30);
	sample_ident(&b, 1, 10, 10);
	sample_ident(&b, 1, 6, 0);	/* no time: at once */
	finished_round(&b);		/* flushes nothing, limit := 30 */
	sample_ident(&b, 1, 20, 20);
	sample_ident(&b, 1, 5, 5);
	sample_ident(&b, 1, 40, 40);
	sample_ident(&b, 1, 2, 10);	/* equal time: after ip 10 */
	finished_round(&b);		/* 5 10 2 20 30, limit := 40 */
	sample_ident(&b, 1, 7, 35);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, ARRAY_SIZE(want_ip));
	for (i = 0; i < ARRAY_SIZE(want_ip) && i < (size_t)g->nr; i++)
		CHECK_U64(g->ev[i].sample.ip, want_ip[i]);
	perf_data__delete(pd);
	free(b.p);
	free(g);
}

/* A pipe whose one event (id) samples ip, tid and time, as perf record. */
static void pipe_timed(struct bb *b, uint64_t id)
{
	struct perf_event_attr a = { 0 };

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	pipe_header(b);
	pipe_attr(b, &a, &id, 1);
}

/*
 * A round is sorted as a stable sort by time would: runs of one CPU
 * buffer each, merged run by run (a long run before a short one, equal
 * times across runs), many short runs, a run at every record. The
 * oracle is an insertion sort of the records as written.
 */
static void check_round_order(const uint64_t *time, size_t n)
{
	uint64_t *want = calloc(n, sizeof(*want));
	struct got *g = got_new();
	struct perf_data *pd;
	struct bb b = { 0 };
	size_t i, j;

	if (!want || !g) {
		UNIT_FAIL("setup");
		free(want);
		free(g);
		return;
	}
	pipe_timed(&b, 1);
	/* ip: the record's place in the file */
	for (i = 0; i < n; i++) {
		sample_ident(&b, 1, i, time[i]);
		for (j = i; j > 0 && time[want[j - 1]] > time[i]; j--)
			want[j] = want[j - 1];
		want[j] = i;
	}
	finished_round(&b);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 0);
	CHECK_INT(g->nr, (int)n);
	for (i = 0; i < n && i < (size_t)g->nr; i++)
		if (g->ev[i].sample.ip != want[i]) {
			UNIT_FAIL("record %zu: ip %" PRIu64 ", want %" PRIu64,
				  i, g->ev[i].sample.ip, want[i]);
			break;
		}
	perf_data__delete(pd);
	free(b.p);
	free(g);
	free(want);
}

static void test_ordering_runs(void)
{
	uint64_t t[MAX_EV];
	uint32_t x = 99;
	size_t i, n = 0;

	/* A long run, a short one inside it, one across it, with ties. */
	for (i = 0; i < 300; i++)
		t[n++] = 10 + i;
	for (i = 0; i < 40; i++)
		t[n++] = 100 + 2 * i;
	for (i = 0; i < 150; i++)
		t[n++] = 5 + 3 * i;
	check_round_order(t, n);
	/* A short run before a long one. */
	for (n = 0; n < 20; n++)
		t[n] = 50 + 5 * n;
	for (i = 0; i < 200; i++)
		t[n++] = 1 + i;
	check_round_order(t, n);
	/* Short runs, about 200 of them. */
	for (n = 0; n < 400; n++) {
		x = x * 1103515245 + 12345;
		t[n] = 1 + (x >> 16) % 97;
	}
	check_round_order(t, n);
	/* Falling, ties in pairs: a run of two or one at every record. */
	for (n = 0; n < 301; n++)
		t[n] = 1000 - n / 2;
	check_round_order(t, n);
}

/*
 * Recorded with `perf record -z` (file and pipe layout), see
 * tests/data/README.md; counts from `perf script -F event`.
 */
static void test_recorded_compressed(void)
{
	static const struct { const char *file; uint64_t n; bool pipe; } t[] = {
		{ "compressed.data", 615, false },
		{ "pipe-compressed.data", 530, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct perf_data *pd;
		struct rs_evsel *e;
		int err = perf_data__open(&pd, fixture(t[i].file));

		CHECK_INT(err, 0);
		if (!err) {
			CHECK_INT(perf_data__header(pd)->pipe_mode, t[i].pipe);
			CHECK_INT(perf_data__process(pd, count_only, NULL), 0);
			e = evsel_by_name(pd, "cpu-clock");
			CHECK(e && e->nr_samples == t[i].n);
			CHECK(perf_data__stats(pd)->nr_compressed > 0);
		}
		perf_data__delete(pd);
	}
}

/* A callback's non-zero return stops reading and is returned. */
static void test_stop(void)
{
	struct perf_data *pd;
	struct got *g = got_new();

	g->stop_after = 3;
	CHECK_INT(perf_data__open(&pd, fixture("pipe-mode.data")), 0);
	CHECK_INT(perf_data__process(pd, collect, g), 42);
	CHECK_INT(g->nr, 3);
	perf_data__delete(pd);
	free(g);
}

static void compressed_record(struct bb *b, const void *src, size_t n,
			      ZSTD_CCtx *cc)
{
	ZSTD_inBuffer in = { src, n, 0 };
	uint8_t out[8192];
	ZSTD_outBuffer o = { out, sizeof(out), 0 };
	size_t at = rbegin(b, 81, 0);

	uint16_t size;

	ZSTD_compressStream2(cc, &o, &in, ZSTD_e_flush);
	bput(b, out, o.pos);
	/* perf 6.1 does not pad COMPRESSED records: the size is exact */
	size = b->n - at;
	memcpy(b->p + at + 6, &size, 2);
}

static void test_compressed(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct got *g = got_new();
	struct bb b = { 0 }, inner = { 0 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t split, at;
	int i;

	a.type = PERF_TYPE_SOFTWARE;
	a.exclude_guest = 1;	/* as perf record sets it */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	for (i = 0; i < 50; i++)
		sample_ident(&inner, 1, 1000 + i, 100 - i);
	finished_round(&inner);
	at = rbegin(&inner, 0x7777, 0);	/* unknown: counted, skipped */
	rend(&inner, at);

	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	/* a record cut in two by the block boundary */
	split = inner.n / 2 + 4;
	compressed_record(&b, inner.p, split, cc);
	compressed_record(&b, inner.p + split, inner.n - split, cc);
	sample_ident(&b, 1, 2000, 1);	/* plain, after the blocks */

	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_STR(perf_data__process(pd, collect, g) ? perf_data__strerror(pd) :
		  "", "");
	CHECK_INT(g->nr, 51);
	CHECK_U64(g->ev[0].sample.ip, 2000);	/* time 1: first */
	CHECK_U64(g->ev[1].sample.ip, 1049);
	CHECK_U64(g->ev[50].sample.ip, 1000);
	CHECK_U64(perf_data__stats(pd)->nr_compressed, 2);
	CHECK_U64(perf_data__stats(pd)->nr_unknown_records, 1);
	perf_data__delete(pd);

	/* corrupt the second block: an error at that block's offset */
	{
		size_t off2 = 0, pos = 16;
		char want[64];

		while (pos < b.n) {
			uint16_t sz;

			memcpy(&sz, b.p + pos + 6, 2);
			if (b.p[pos] == 81)
				off2 = pos;
			pos += sz;
		}
		memset(b.p + off2 + 8, 0xff, 16);
		CHECK_INT(open_bb(&pd, &b), 0);
		CHECK_INT(perf_data__process(pd, count_only, NULL), -EINVAL);
		snprintf(want, sizeof(want), "offset %zu: corrupt compressed",
			 off2);
		CHECK(!strncmp(perf_data__strerror(pd), want, strlen(want)));
		perf_data__delete(pd);
	}
	ZSTD_freeCCtx(cc);
	free(inner.p);
	free(b.p);
	free(g);
}

/*
 * zstd windows up to 2^27 bytes are read, as perf reads them (perf record
 * --compression-level=22 writes that); a frame asking for more is refused
 * at its record's offset instead of allocating it.
 */
static void test_compressed_window(void)
{
	struct perf_event_attr a = { 0 };
	int wlog;

	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	for (wlog = 27; wlog <= 28; wlog++) {
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		struct bb b = { 0 }, inner = { 0 };
		struct perf_data *pd;
		struct got *g = got_new();
		int i, err;

		ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, wlog);
		for (i = 0; i < 10; i++)
			sample_ident(&inner, 1, 1000 + i, 10 + i);
		pipe_header(&b);
		pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
		compressed_record(&b, inner.p, inner.n, cc);
		CHECK_INT(open_bb(&pd, &b), 0);
		err = perf_data__process(pd, collect, g);
		if (wlog == 27) {
			CHECK_STR(err ? perf_data__strerror(pd) : "", "");
			CHECK_INT(g->nr, 10);
		} else {
			CHECK_INT(err, -EINVAL);
			CHECK(strstr(perf_data__strerror(pd),
				     "corrupt compressed block") != NULL);
		}
		perf_data__delete(pd);
		ZSTD_freeCCtx(cc);
		free(inner.p);
		free(b.p);
		free(g);
	}
}

/* Every COMPRESSED record with at most 16 KiB of the input. */
static void compressed_all(struct bb *b, const struct bb *inner,
			   ZSTD_CCtx *cc)
{
	size_t i, n;

	for (i = 0; i < inner->n; i += n) {
		n = inner->n - i < 16384 ? inner->n - i : 16384;
		compressed_record(b, inner->p + i, n, cc);
	}
}

struct qwatch {
	struct perf_data *pd;
	uint64_t ip[64];
	int nr;
	size_t max_q_nr, max_arena;
	const uint8_t *rec20;		/* where the time 20 record sits */
	bool moved;
};

static int watch_queue(void *ctx, const struct rs_event *ev)
{
	struct qwatch *w = ctx;
	struct perf_data *pd = w->pd;
	size_t i;

	if (pd->q_nr > w->max_q_nr)
		w->max_q_nr = pd->q_nr;
	if (pd->arena_bytes > w->max_arena)
		w->max_arena = pd->arena_bytes;
	if (w->nr < (int)ARRAY_SIZE(w->ip))
		w->ip[w->nr] = ev->sample.ip;
	w->nr++;
	if (ev->sample.ip == 10) {
		for (i = 0; i < pd->q_nr; i++)
			if (pd->q[i].time == 20)
				w->rec20 = pd->q[i].rec;
	}
	/* an empty callchain points at the end of the 48-byte sample */
	if (ev->sample.ip == 20 && w->rec20 &&
	    (const uint8_t *)ev->sample.callchain != w->rec20 + 48)
		w->moved = true;
	return 0;
}

/*
 * Without FINISHED_ROUND nothing would be delivered before the end: past
 * its bound the queue delivers its older half (perf's OE_FLUSH__HALF).
 */
static void test_queue_bound(void)
{
	static const uint64_t want_ip[] = {
		13, 14, 15, 16, 9, 10, 11, 12, 5, 6, 7, 8, 1, 2, 3, 4,
		17, 18, 19, 20,
	};
	struct perf_event_attr a = { 0 };
	struct qwatch w = { 0 };
	struct perf_data *pd;
	struct bb b = { 0 }, inner = { 0 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t at, i;

	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	for (i = 20; i >= 1; i--)
		sample_ident(&b, 1, i, i);
	CHECK_INT(open_bb(&pd, &b), 0);
	pd->q_max_nr = 8;
	w.pd = pd;
	CHECK_INT(perf_data__process(pd, watch_queue, &w), 0);
	CHECK_INT(w.nr, ARRAY_SIZE(want_ip));
	CHECK(w.max_q_nr <= 8);
	for (i = 0; i < ARRAY_SIZE(want_ip) && i < (size_t)w.nr; i++)
		CHECK_U64(w.ip[i], want_ip[i]);
	perf_data__delete(pd);

	/* copied records (here decompressed): the arena is bounded too */
	b.n = 0;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	for (i = 1000; i >= 1; i--) {
		at = rbegin(&inner, PERF_RECORD_SAMPLE, 0);
		b64(&inner, 1);
		b64(&inner, i);
		b32(&inner, 1); b32(&inner, 2);
		b64(&inner, i);
		bput(&inner, NULL, 4000);
		rend(&inner, at);
	}
	compressed_all(&b, &inner, cc);
	CHECK_INT(open_bb(&pd, &b), 0);
	pd->q_max_bytes = 2 << 20;
	memset(&w, 0, sizeof(w));
	w.pd = pd;
	CHECK_INT(perf_data__process(pd, watch_queue, &w), 0);
	CHECK_INT(w.nr, 1000);
	CHECK(w.max_arena > 0 && w.max_arena <= pd->q_max_bytes);
	CHECK_INT(pd->q_nr, 0);
	perf_data__delete(pd);
	ZSTD_freeCCtx(cc);
	free(inner.p);
	free(b.p);
}

/*
 * A copied record that stays queued over a FINISHED_ROUND stays where it
 * is: copying what is left at every flush makes long rounds quadratic.
 */
static void test_queue_no_recopy(void)
{
	static const uint64_t t[] = { 10, 15, 0, 12, 20, 0, 18, 25, 0 };
	static const uint64_t want_ip[] = { 10, 12, 15, 18, 20, 25 };
	struct perf_event_attr a = { 0 };
	struct qwatch w = { 0 };
	struct perf_data *pd;
	struct bb b = { 0 }, inner = { 0 };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t at, i;

	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (!t[i]) {
			finished_round(&inner);
			continue;
		}
		at = rbegin(&inner, PERF_RECORD_SAMPLE, 0);
		b64(&inner, 1);
		b64(&inner, t[i]);
		b32(&inner, 1); b32(&inner, 2);
		b64(&inner, t[i]);
		b64(&inner, 0);		/* callchain nr */
		rend(&inner, at);
	}
	compressed_all(&b, &inner, cc);
	CHECK_INT(open_bb(&pd, &b), 0);
	w.pd = pd;
	CHECK_INT(perf_data__process(pd, watch_queue, &w), 0);
	CHECK_INT(w.nr, ARRAY_SIZE(want_ip));
	for (i = 0; i < ARRAY_SIZE(want_ip) && i < (size_t)w.nr; i++)
		CHECK_U64(w.ip[i], want_ip[i]);
	CHECK(w.rec20 != NULL);
	CHECK(!w.moved);
	perf_data__delete(pd);
	ZSTD_freeCCtx(cc);
	free(inner.p);
	free(b.p);
}

/* Each HEADER_ATTR names its own evsel only: no quadratic renaming. */
static void test_pipe_many_attrs(void)
{
	struct perf_event_attr a = { 0 };
	struct timespec t0, t1;
	struct perf_data *pd;
	struct bb b = { 0 };
	double secs;
	uint32_t i;
	int err;

	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	pipe_header(&b);
	for (i = 0; i < 20000; i++)
		pipe_attr(&b, &a, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = open_bb(&pd, &b);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_INT(err, 0);
	/* 15 s and more when every attr renamed all the evsels before it */
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (secs > 3)
		UNIT_FAIL("20000 attrs took %.1f s", secs);
	if (!err) {
		CHECK_INT(perf_data__nr_evsel(pd), 20000);
		CHECK_STR(perf_data__evsel(pd, 19999)->name, "cpu-clock:HG");
	}
	perf_data__delete(pd);
	free(b.p);
}

static void test_unknown_records(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct bb b = { 0 };
	size_t at;

	a.sample_type = PERF_SAMPLE_IP;
	pipe_header(&b);
	pipe_attr(&b, &a, NULL, 0);
	at = rbegin(&b, 60, 0);		/* a kernel type from the future */
	b64(&b, 1);
	rend(&b, at);
	at = rbegin(&b, 200, 0);	/* a user type from the future */
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_BPF_EVENT, 0); /* known, unused */
	b64(&b, 0);
	rend(&b, at);
	at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
	b64(&b, 1);
	rend(&b, at);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, count_only, NULL), 0);
	CHECK_U64(perf_data__stats(pd)->nr_unknown_records, 2);
	CHECK_U64(perf_data__stats(pd)->nr_samples, 1);
	CHECK_U64(perf_data__stats(pd)->nr_records, 5);
	perf_data__delete(pd);
	free(b.p);
}

static int take_ksymbol(void *ctx, const struct rs_event *ev)
{
	struct rs_ksymbol *k = ctx;

	if (ev->kind != RS_EV_KSYMBOL)
		return 0;
	*k = ev->ksymbol;
	k->name = strdup(ev->ksymbol.name);
	return k->name ? 1 : -ENOMEM;
}

/*
 * KSYMBOL: u64 addr, u32 len, u16 ksym_type, u16 flags, char name[],
 * delivered as it is; one too short for its fixed part, or whose name
 * runs to the record's end, is an error that says so.
 */
static void test_ksymbol_records(void)
{
	static const struct {
		size_t name_len;	/* 0: no name at all */
		const char *err;
	} cases[] = {
		{ 5, NULL },
		{ 0, "KSYMBOL record of 24 bytes is too short" },
		{ 8, "ksymbol name is not terminated" },
	};
	struct perf_event_attr a = { 0 };
	struct rs_ksymbol k;
	struct perf_data *pd;
	unsigned int i;
	size_t at;
	int err;

	a.sample_type = PERF_SAMPLE_IP;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct bb b = { 0 };

		pipe_header(&b);
		pipe_attr(&b, &a, NULL, 0);
		at = rbegin(&b, PERF_RECORD_KSYMBOL, 0);
		b64(&b, 0xffffffffc0026f34ULL);
		b32(&b, 260);
		b32(&b, PERF_RECORD_KSYMBOL_TYPE_BPF |
			PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER << 16);
		/* "bpf_p" and a NUL; or 8 letters and no room for one */
		bput(&b, "bpf_prog", cases[i].name_len);
		rend(&b, at);
		memset(&k, 0, sizeof(k));
		CHECK_INT(open_bb(&pd, &b), 0);
		err = perf_data__process(pd, take_ksymbol, &k);
		if (cases[i].err) {
			CHECK_INT(err, -EINVAL);
			CHECK(strstr(perf_data__strerror(pd), cases[i].err));
		} else {
			CHECK_INT(err, 1);
			CHECK_U64(k.addr, 0xffffffffc0026f34ULL);
			CHECK_U64(k.len, 260);
			CHECK_INT(k.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
			CHECK(k.unregister);
			CHECK_STR(k.name ? k.name : "", "bpf_p");
		}
		free((char *)k.name);
		perf_data__delete(pd);
		free(b.p);
	}
}

/* ---- file layout built by hand ---- */

/*
 * One attr of attr_size bytes (older: shorter; newer: longer with junk
 * beyond our struct), ids {9}, a data section with one sample, and a
 * HOSTNAME feature.
 */
static void build_file(struct bb *b, uint32_t attr_size, uint64_t extra)
{
	struct perf_event_attr a = { 0 };
	uint8_t abuf[512] = { 0 };
	uint64_t ids_off, attrs_off, data_off, data_size, feat_tab;
	size_t at;

	a.type = PERF_TYPE_SOFTWARE;
	a.size = attr_size;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	memcpy(abuf, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	if (attr_size > sizeof(a))
		memset(abuf + sizeof(a), 0xee, attr_size - sizeof(a));

	bput(b, "PERFILE2", 8);
	b64(b, 104);
	b64(b, attr_size + 16);
	ids_off = 104;
	attrs_off = ids_off + 8;
	data_off = attrs_off + attr_size + 16;
	data_size = 24 + extra;
	b64(b, attrs_off); b64(b, attr_size + 16);
	b64(b, data_off); b64(b, data_size);
	b64(b, 0); b64(b, 0);
	b64(b, 1ULL << 3);	/* HOSTNAME */
	b64(b, 0); b64(b, 0); b64(b, 0);
	b64(b, 9);				/* ids */
	bput(b, abuf, attr_size);
	b64(b, ids_off); b64(b, 8);
	at = rbegin(b, PERF_RECORD_SAMPLE, 0);
	b64(b, 0x77);
	b32(b, 3); b32(b, 4);
	rend(b, at);
	bput(b, NULL, extra);
	feat_tab = b->n;
	b64(b, feat_tab + 16); b64(b, 4 + 8);
	b32(b, 8); bput(b, "myhost\0\0", 8);
}

static void test_file_attr_sizes(void)
{
	static const uint32_t sizes[] = { 64, 72, 104, 128, 136, 200 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct perf_data *pd;
		struct got *g = got_new();
		struct bb b = { 0 };
		int err;

		build_file(&b, sizes[i], 0);
		err = open_bb(&pd, &b);
		CHECK_INT(err, 0);
		if (!err) {
			CHECK_STR(perf_data__header(pd)->hostname, "myhost");
			CHECK_INT(perf_data__evsel(pd, 0)->nr_ids, 1);
			CHECK_U64(perf_data__evsel(pd, 0)->attr.sample_type,
				  PERF_SAMPLE_IP | PERF_SAMPLE_TID);
			CHECK_INT(perf_data__process(pd, collect, g), 0);
			CHECK_INT(g->nr, 1);
			CHECK_U64(g->ev[0].sample.ip, 0x77);
			CHECK_INT(g->ev[0].sample.tid, 4);
		}
		perf_data__delete(pd);
		free(b.p);
		free(g);
	}
}

/* An event name that cannot be allocated is -ENOMEM, never a NULL name. */
static void test_name_enomem(void)
{
	struct perf_event_attr a = { 0 };
	struct perf_data *pd;
	struct bb b = { 0 };
	size_t at;
	int k, err;

	/* file layout: names, then the HOSTNAME feature */
	build_file(&b, 128, 0);
	for (k = 0; k < 4; k++) {
		strndup_fail_in = k;
		err = open_bb(&pd, &b);
		strndup_fail_in = -1;
		if (err)
			CHECK_INT(err, -ENOMEM);
		else
			CHECK(perf_data__evsel(pd, 0)->name != NULL);
		perf_data__delete(pd);
	}
	free(b.p);

	/* EVENT_UPDATE naming an event among the data */
	memset(&b, 0, sizeof(b));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 5 }, 1);
	sample_ident(&b, 5, 1, 1);
	at = rbegin(&b, 78, 0);
	b64(&b, 2);			/* PERF_EVENT_UPDATE__NAME */
	b64(&b, 5);
	bput(&b, "renamed", 8);
	rend(&b, at);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, count_only, NULL), 0);
	CHECK_STR(perf_data__evsel(pd, 0)->name, "renamed");
	perf_data__delete(pd);
	free(b.p);
}

/*
 * A pipe renaming an event after some of its samples were delivered
 * (EVENT_UPDATE mid-stream, as a real perf pipe may carry): the name a
 * delivered sample carried must stay valid, and say what it said then,
 * until perf_data__delete(); consumers (attribution, the folder) keep it.
 */
struct names_seen {
	const char *name[8];
	int nr;
};

static int keep_names(void *ctx, const struct rs_event *ev)
{
	struct names_seen *n = ctx;

	if (ev->kind == RS_EV_SAMPLE && n->nr < 8)
		n->name[n->nr++] = ev->sample.evsel->name;
	return 0;
}

static void event_update_name(struct bb *b, uint64_t id, const char *name)
{
	size_t at = rbegin(b, 78, 0);

	b64(b, 2);			/* PERF_EVENT_UPDATE__NAME */
	b64(b, id);
	bput(b, name, strlen(name) + 1);
	rend(b, at);
}

static void test_rename_mid_stream(void)
{
	struct names_seen n = { 0 };
	struct perf_data *pd;
	struct bb b = { 0 };

	pipe_timed(&b, 5);
	sample_ident(&b, 5, 1, 1);
	finished_round(&b);
	finished_round(&b);		/* delivers the sample at time 1 */
	event_update_name(&b, 5, "first");
	sample_ident(&b, 5, 2, 2);
	finished_round(&b);
	finished_round(&b);
	event_update_name(&b, 5, "second");
	event_update_name(&b, 5, "first");	/* back: the same string */
	sample_ident(&b, 5, 3, 3);
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, keep_names, &n), 0);
	CHECK_INT(n.nr, 3);
	if (n.nr == 3) {
		/* under ASan, a freed name fails here */
		CHECK_STR(n.name[0], "cpu-clock");
		CHECK_STR(n.name[1], "first");
		CHECK_STR(n.name[2], "first");
		CHECK(n.name[1] == n.name[2]);
	}
	CHECK_STR(perf_data__evsel(pd, 0)->name, "first");
	perf_data__delete(pd);
	free(b.p);
}

/*
 * Tracepoint formats libtraceevent 1.7.1 crashes or hangs on (issue 14),
 * in the recordings tests/fuzz/gen-seeds.py wrote for the fuzz corpus:
 * the reader names each format it kept from the library, and the
 * events' samples (and, when the field list parsed, their fields) stay.
 */
static void test_bad_formats(void)
{
	static const struct {
		const char *file, *why;
		bool fields;
	} t[] = {
		{ "tracing-print-flags-no-field.data",
		  "cgroup:cgroup_rstat_locked: print fmt names field 'contende', which it does not have",
		  true },
		{ "tracing-print-symbolic-no-field.data",
		  "cgroup:cgroup_rstat_locked: print fmt names field 'lvl', which it does not have",
		  true },
		{ "tracing-string-with-no-end.data",
		  "cgroup:t: a string with no end", false },
	};
	char path[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct rs_evsel *ev;
		struct perf_data *pd;
		uint64_t n = 0;

		snprintf(path, sizeof(path),
			 "%s/../fuzz/corpus/fuzz-perf-data/%s",
			 unit_fixtures(), t[i].file);
		CHECK_INT(perf_data__open(&pd, path), 0);
		if (!pd)
			continue;
		CHECK_INT(perf_data__process(pd, count_samples, &n), 0);
		CHECK(n > 0);
		CHECK_INT(perf_data__nr_bad_formats(pd), 1);
		CHECK_STR(perf_data__bad_format(pd, 0) ?: "", t[i].why);
		CHECK(perf_data__bad_format(pd, 1) == NULL);
		if (t[i].fields) {
			ev = evsel_by_name(pd, "cgroup:cgroup_rstat_locked");
			CHECK(ev && ev->tp && tep_find_field(ev->tp, "root"));
			CHECK(ev && ev->nr_samples == 1);
			ev = evsel_by_name(pd, "cgroup:cgroup_rstat_unlock");
			CHECK(ev && ev->tp && tep_find_field(ev->tp, "root"));
		}
		perf_data__delete(pd);
	}
}

/* ---- bad input: an error with the right offset, never a crash ---- */

static void expect_err(const void *buf, size_t len, bool at_open,
		       const char *prefix)
{
	struct perf_data *pd;
	int err = perf_data__open_mem(&pd, buf, len);

	if (!at_open) {
		if (err)
			UNIT_FAIL("open: %s", perf_data__strerror(pd));
		if (!err)
			err = perf_data__process(pd, count_only, NULL);
	}
	CHECK(err < 0);
	CHECK(pd != NULL);
	if (pd && strncmp(perf_data__strerror(pd), prefix, strlen(prefix)))
		UNIT_FAIL("error \"%s\", expected \"%s...\"",
			  perf_data__strerror(pd), prefix);
	perf_data__delete(pd);
}

/* One sniffer for every layout: what each magic and header size says. */
static void test_format_sniff(void)
{
	uint8_t b[16];
	uint64_t size = PERF_PIPE_HEADER_SIZE;

	memcpy(b, "PERFILE2", 8);
	memcpy(b + 8, &size, 8);
	CHECK(perf_format__sniff(b, 16) == PERF_LAYOUT_PIPE);
	CHECK(perf_format__sniff(b, 8) == PERF_LAYOUT_FILE);
	CHECK(perf_format__sniff(b, 7) == PERF_LAYOUT_NONE);
	size = PERF_FILE_HEADER_SIZE;
	memcpy(b + 8, &size, 8);
	CHECK(perf_format__sniff(b, 16) == PERF_LAYOUT_FILE);
	memcpy(b, "2ELIFREP", 8);
	CHECK(perf_format__sniff(b, 16) == PERF_LAYOUT_SWAPPED);
	memcpy(b, "PERFFILE", 8);
	CHECK(perf_format__sniff(b, 16) == PERF_LAYOUT_V1);
	/* Not a recording the session opens: the reader's message says v1. */
	CHECK(session_kind__sniff(b, 16) != SESSION_PERF_DATA);
	memcpy(b, "PERFILE3", 8);
	CHECK(perf_format__sniff(b, 16) == PERF_LAYOUT_NONE);
}

static void test_bad_file(void)
{
	struct bb b = { 0 };
	uint8_t *c;
	char want[64];

	build_file(&b, 128, 0);
	c = malloc(b.n);

	memcpy(c, b.p, b.n);
	memcpy(c, "PERFILE3", 8);
	expect_err(c, b.n, true, "offset 0: not a perf.data file");
	memcpy(c, "2ELIFREP", 8);
	expect_err(c, b.n, true, "offset 0: other-endian");
	CHECK(perf_format__sniff(c, 8) != PERF_LAYOUT_NONE);
	CHECK(perf_format__sniff("PERFILE", 7) == PERF_LAYOUT_NONE);

	expect_err(b.p, 50, true, "offset 50: file header truncated");
	expect_err(b.p, 0, true, "offset 0: file too short");

	memcpy(c, b.p, b.n);
	memset(c + 16, 0, 8);			/* attr_size 0 */
	expect_err(c, b.n, true, "offset 16: impossible attr size 0");
	memcpy(c, b.p, b.n);
	memset(c + 16, 0x7f, 8);		/* attr_size absurd */
	expect_err(c, b.n, true, "offset 16: impossible attr size");

	memcpy(c, b.p, b.n);
	c[24 + 7] = 0x10;			/* attrs offset far away */
	expect_err(c, b.n, true, "offset 24: attrs section");

	/* truncated inside the data section */
	snprintf(want, sizeof(want), "offset 40: data section");
	expect_err(b.p, 270, true, want);

	/* truncated inside the feature section */
	expect_err(b.p, b.n - 3, true, "offset ");

	/* record size 0, at the start of the data (offset 256) */
	memcpy(c, b.p, b.n);
	memset(c + 256 + 6, 0, 2);
	expect_err(c, b.n, false, "offset 256: impossible record size 0");

	/* record longer than the data section */
	memcpy(c, b.p, b.n);
	c[256 + 6] = 0xf0;
	expect_err(c, b.n, false, "offset 256: record of 240 bytes goes beyond");
	free(c);
	free(b.p);
	memset(&b, 0, sizeof(b));

	/* a sample too short for IP|TID */
	build_file(&b, 128, 0);
	b.p[256 + 6] = 16;
	/* keep the data size: a zero filled 8-byte record follows */
	expect_err(b.p, b.n, false, "offset 256: sample (16 bytes");
	free(b.p);
}

/* Attrs all naming one ids section would copy and map it once each. */
static void test_ids_aliased(void)
{
	struct perf_event_attr a = { 0 };
	uint64_t attrs_off = 104, ids_off, i;
	struct perf_data *pd;
	struct bb b = { 0 };
	char want[96];
	int n;

	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID;
	for (n = 2; n <= 3; n++) {
		b.n = 0;
		ids_off = attrs_off + n * (sizeof(a) + 16);
		bput(&b, "PERFILE2", 8);
		b64(&b, 104);
		b64(&b, sizeof(a) + 16);
		b64(&b, attrs_off); b64(&b, n * (sizeof(a) + 16));
		b64(&b, ids_off + 48 * 8); b64(&b, 0);	/* empty data */
		b64(&b, 0); b64(&b, 0);
		bput(&b, NULL, 32);
		for (i = 0; i < (uint64_t)n; i++) {
			bput(&b, &a, sizeof(a));
			b64(&b, ids_off); b64(&b, 48 * 8);
		}
		for (i = 0; i < 48; i++)
			b64(&b, 100 + i);
		/* 2 x 48 ids fit in the file (776 bytes), 3 x 48 do not */
		if (n == 2) {
			CHECK_STR(open_bb(&pd, &b) ? perf_data__strerror(pd) :
				  "", "");
			perf_data__delete(pd);
			continue;
		}
		snprintf(want, sizeof(want),
			 "offset %" PRIu64 ": ids sections hold more ids",
			 attrs_off + 2 * (sizeof(a) + 16) + sizeof(a));
		expect_err(b.p, b.n, true, want);
	}
	free(b.p);
}

static void test_bad_pipe(void)
{
	struct perf_event_attr a = { 0 };
	struct bb b = { 0 };
	size_t at, hdr;
	char want[80];

	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	pipe_header(&b);
	pipe_attr(&b, &a, NULL, 0);
	hdr = b.n;
	at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
	b64(&b, 1);
	b64(&b, 1000000);		/* callchain nr */
	b64(&b, 1);
	rend(&b, at);
	snprintf(want, sizeof(want), "offset %zu: callchain of 1000000", hdr);
	expect_err(b.p, b.n, false, want);

	/* truncated in the middle of that record */
	snprintf(want, sizeof(want), "offset %zu: record of 32 bytes", hdr);
	expect_err(b.p, b.n - 5, true, want);

	/* no attrs at all */
	expect_err(b.p, 16, true, "offset 16: no event attributes");

	/* an attr with an impossible size */
	b.n = hdr;
	memset(b.p + 16 + 8 + 4, 0xff, 2);
	expect_err(b.p, b.n, true, "offset 16: impossible attr size");
	free(b.p);

	/* a tracepoint sample but no tracing data anywhere */
	memset(&b, 0, sizeof(b));
	a.type = PERF_TYPE_TRACEPOINT;
	a.sample_type = PERF_SAMPLE_RAW;
	pipe_header(&b);
	pipe_attr(&b, &a, NULL, 0);
	hdr = b.n;
	at = rbegin(&b, PERF_RECORD_SAMPLE, 0);
	b32(&b, 4); b32(&b, 0);
	rend(&b, at);
	snprintf(want, sizeof(want), "offset %zu: tracepoint sample", hdr);
	expect_err(b.p, b.n, false, want);
	free(b.p);
}

static void test_unreadable(void)
{
	struct perf_data *pd;
	int err = perf_data__open(&pd, "/nonexistent/perf.data");

	CHECK_INT(err, -ENOENT);
	CHECK(pd && strstr(perf_data__strerror(pd), "cannot open"));
	perf_data__delete(pd);
	err = perf_data__open(&pd, "/");
	CHECK(err < 0);
	perf_data__delete(pd);
}

/* Every prefix of the pipe fixture: an error or success, never a crash. */
static void test_truncations(void)
{
	FILE *f = fopen(fixture("pipe-mode.data"), "rb");
	static uint8_t buf[32768];
	size_t n, i;

	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (i = 0; i < n; i += 7) {
		struct perf_data *pd;
		uint8_t *copy = malloc(i + 1);

		memcpy(copy, buf, i);
		if (!perf_data__open_mem(&pd, copy, i))
			perf_data__process(pd, count_only, NULL);
		perf_data__delete(pd);
		free(copy);
	}
}

/* ---- two threads ---- */

/* What a callback saw: how many events and a hash of all their content. */
struct digest {
	uint64_t nr, h;
	int threads;		/* the process's, at the first event */
	uint64_t stop_at;	/* fail with -EIO on this event (1-based) */
	/* Samples the lookahead saw (-j 2), and those without the hash. */
	uint64_t ahead, ahead_unhashed;
	/* Samples whose hash or user marker was not their callchain's. */
	uint64_t bad_hash;
};

static void dig(struct digest *d, const void *p, size_t n)
{
	d->h = hash_u64(d->h ^ hash_bytes(p, n));
}

static int digest_event(void *ctx, const struct rs_event *ev)
{
	struct digest *d = ctx;
	const struct rs_sample *s = &ev->sample;
	uint64_t v[8] = { ev->kind, ev->cpumode, ev->time, ev->offset };

	if (!d->nr++)
		d->threads = unit_threads();
	dig(d, v, sizeof(v));
	switch (ev->kind) {
	case RS_EV_SAMPLE:
		dig(d, s->evsel->name, strlen(s->evsel->name));
		v[0] = s->ip, v[1] = s->pid, v[2] = s->tid, v[3] = s->period;
		v[4] = s->cpu, v[5] = s->nr_callchain, v[6] = s->raw_size;
		v[7] = s->nr_branches;
		dig(d, v, sizeof(v));
		dig(d, s->callchain, s->nr_callchain * 8);
		dig(d, s->raw, s->raw_size);
		dig(d, s->branches, s->nr_branches * 24);
		/*
		 * The reader's hash of the callchain is the callchain's,
		 * and so is its user marker, whichever thread took them
		 * (-j 2 leaves them to this one while it keeps up).
		 */
		if (s->nr_callchain) {
			uint64_t h[2], k;
			bool user = false;

			hash_words128(s->callchain, s->nr_callchain, h);
			for (k = 0; k < s->nr_callchain; k++)
				user |= rs_u64(&s->callchain[k]) ==
					PERF_CONTEXT_USER;
			if (!s->has_chain_hash || h[0] != s->chain_hash[0] ||
			    h[1] != s->chain_hash[1] ||
			    s->chain_has_user != user)
				d->bad_hash++;
		}
		break;
	case RS_EV_COMM:
		dig(d, ev->comm.comm, strlen(ev->comm.comm));
		break;
	case RS_EV_MMAP:
		dig(d, ev->mmap.filename, strlen(ev->mmap.filename));
		dig(d, &ev->mmap.start, sizeof(ev->mmap.start));
		break;
	default:
		break;
	}
	return d->nr == d->stop_at ? -EIO : 0;
}

/* The lookahead gets each sample as the callback will: hash and all. */
static int digest_ahead(void *ctx, const struct rs_event *ev)
{
	struct digest *d = ctx;

	if (ev->kind == RS_EV_SAMPLE && ev->sample.nr_callchain) {
		d->ahead++;
		d->ahead_unhashed += !ev->sample.has_chain_hash;
	}
	return 0;
}

static int digest_file(const char *name, unsigned int threads,
		       struct digest *d)
{
	struct perf_data *pd;
	int err = perf_data__open(&pd, fixture(name));
	cpu_set_t before, after;

	if (!err) {
		perf_data__set_threads(pd, threads);
		perf_data__set_lookahead(pd, digest_ahead);
		CHECK_INT(sched_getaffinity(0, sizeof(before), &before), 0);
		err = perf_data__process(pd, digest_event, d);
		/* Whatever -j 2 did with the CPUs, they are as they were. */
		CHECK_INT(sched_getaffinity(0, sizeof(after), &after), 0);
		CHECK(CPU_EQUAL(&before, &after));
		/* a callback's failure leaves no reader message behind */
		if (err == -EIO)
			CHECK_STR(perf_data__strerror(pd), "");
	}
	perf_data__delete(pd);
	return err;
}

/*
 * -j 2 reads on a thread of its own and hands the callback the same
 * events, content and order, as one thread does: every bundled layout
 * (file, pipe with features in the stream, compressed).
 */
static void test_threads_same_events(void)
{
	static const char *const files[] = {
		"flush-mixed.data", "pipe-mode.data", "compressed.data",
		"pipe-compressed.data",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		struct digest one = { 0 }, two = { 0 };

		CHECK_INT(digest_file(files[i], 1, &one), 0);
		CHECK_INT(digest_file(files[i], 2, &two), 0);
		CHECK(one.nr > 0);
		CHECK_U64(two.nr, one.nr);
		CHECK_U64(two.h, one.h);
		CHECK_U64(one.bad_hash, 0);
		CHECK_U64(two.bad_hash, 0);
		CHECK_INT(one.threads, 1);
		CHECK(two.ahead > 0);
		CHECK_U64(two.ahead_unhashed, 0);
	}
}

/*
 * Samples are decoded in the batch they go to (pd->event_slot); one whose
 * callchain no longer fits there moves to the next batch. Long chains of
 * varied lengths fill batches by their data, not their count, so that
 * happens again and again: the callback still gets what one thread gives
 * it, chains, hashes and all.
 */
static void test_threads_full_batches(void)
{
	struct perf_event_attr a = { 0 };
	struct digest one = { 0 }, two = { 0 };
	struct perf_data *pd;
	struct bb b = { 0 };
	uint64_t i, k, n;
	size_t at;

	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN;
	pipe_header(&b);
	pipe_attr(&b, &a, (uint64_t[]){ 1 }, 1);
	for (i = 0; i < 3000; i++) {
		n = 1 + i * 37 % 500;
		at = rbegin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		b64(&b, 0x400000 + i);
		b32(&b, 10); b32(&b, 10 + i % 3);
		b64(&b, 1000 + i);
		b64(&b, n);
		b64(&b, PERF_CONTEXT_USER);
		for (k = 1; k < n; k++)
			b64(&b, 0x400000 + i * k);
		rend(&b, at);
		if (i % 100 == 99)
			finished_round(&b);
	}
	CHECK_INT(open_bb(&pd, &b), 0);
	CHECK_INT(perf_data__process(pd, digest_event, &one), 0);
	perf_data__delete(pd);
	CHECK_INT(open_bb(&pd, &b), 0);
	perf_data__set_threads(pd, 2);
	CHECK_INT(perf_data__process(pd, digest_event, &two), 0);
	perf_data__delete(pd);
	CHECK_U64(one.nr, 3000);
	CHECK_INT(two.threads, 2);	/* not one thread in disguise */
	CHECK_U64(two.nr, one.nr);
	CHECK_U64(two.h, one.h);
	CHECK_U64(one.bad_hash, 0);
	CHECK_U64(two.bad_hash, 0);
	free(b.p);
}

/* The CPUs of this process's threads, seen from the callback. */
struct cpu_seen {
	struct digest d;
	bool looked;
	bool unpinned;			/* expected: one look, no wait */
	int nr_tasks;
	cpu_set_t mine, other;		/* the callback's, the other's */
};

/* The other threads' CPUs (the reader's), and how many threads. */
static int other_cpus(cpu_set_t *other)
{
	struct dirent *de;
	int n = 0;
	pid_t tid;
	DIR *dir;

	dir = opendir("/proc/self/task");
	while (dir && (de = readdir(dir))) {
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		n++;
		if (tid != gettid())
			sched_getaffinity(tid, sizeof(*other), other);
	}
	if (dir)
		closedir(dir);
	return n;
}

static int cpus_event(void *ctx, const struct rs_event *ev)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	struct cpu_seen *c = ctx;
	int i;

	/*
	 * Slow once, past the header's events (each waits for the callback
	 * to catch up), until the reader, its batches all full, has kept
	 * itself and this thread to one CPU each (it does the one, then the
	 * other): up to 10 s, under sanitizers or load too. Where nothing
	 * is to be pinned, half a second: the batches have filled by then.
	 */
	if (c->d.nr == 2000 && !c->looked) {
		c->looked = true;
		for (i = 0; i < (c->unpinned ? 50 : 1000); i++) {
			nanosleep(&nap, NULL);
			c->nr_tasks = other_cpus(&c->other);
			sched_getaffinity(0, sizeof(c->mine), &c->mine);
			if (!c->unpinned && CPU_COUNT(&c->other) == 1 &&
			    CPU_COUNT(&c->mine) == 1)
				break;
		}
	}
	return digest_event(&c->d, ev);
}

/*
 * Allowed two CPUs and no more, the two threads take one each once the
 * callback is the slower (the reader's batches all full): the reader the
 * CPU it was on, the callback's thread the other (the scheduler put the
 * reader, woken by the callback's thread, on that thread's CPU). The
 * callback's thread has both back afterwards; with three CPUs allowed
 * nothing is pinned.
 */
static void test_threads_cpus(void)
{
	cpu_set_t all, two, three, now;
	struct cpu_seen c = { 0 };
	struct perf_data *pd;
	int cpus[3], n = 0, k;

	CHECK_INT(sched_getaffinity(0, sizeof(all), &all), 0);
	for (k = 0; k < CPU_SETSIZE && n < 3; k++)
		if (CPU_ISSET(k, &all))
			cpus[n++] = k;
	if (n < 2) {
		SKIP("one CPU: nothing to split");
		return;
	}
	CPU_ZERO(&two);
	CPU_SET(cpus[0], &two);
	CPU_SET(cpus[1], &two);
	if (sched_setaffinity(0, sizeof(two), &two)) {
		SKIP("cannot keep this test to two CPUs here");
		return;
	}
	if (perf_data__open(&pd, fixture("flush-mixed.data"))) {
		UNIT_FAIL("open flush-mixed.data");
		sched_setaffinity(0, sizeof(all), &all);
		return;
	}
	perf_data__set_threads(pd, 2);
	CHECK_INT(perf_data__process(pd, cpus_event, &c), 0);
	perf_data__delete(pd);
	CHECK_INT(c.nr_tasks, 2);
	CHECK_INT(CPU_COUNT(&c.mine), 1);
	CHECK_INT(CPU_COUNT(&c.other), 1);
	CHECK(CPU_ISSET(cpus[0], &c.mine) || CPU_ISSET(cpus[1], &c.mine));
	CHECK(!CPU_EQUAL(&c.mine, &c.other));
	CHECK(CPU_ISSET(cpus[0], &c.other) || CPU_ISSET(cpus[1], &c.other));
	CHECK_INT(sched_getaffinity(0, sizeof(now), &now), 0);
	CHECK(CPU_EQUAL(&now, &two));
	if (n < 3) {
		SKIP_PART("two CPUs here: three left unpinned not checked");
	} else {
		memset(&c, 0, sizeof(c));
		c.unpinned = true;
		CPU_ZERO(&three);
		for (k = 0; k < 3; k++)
			CPU_SET(cpus[k], &three);
		CHECK_INT(sched_setaffinity(0, sizeof(three), &three), 0);
		CHECK_INT(perf_data__open(&pd, fixture("flush-mixed.data")),
			  0);
		perf_data__set_threads(pd, 2);
		if (pd)
			CHECK_INT(perf_data__process(pd, cpus_event, &c), 0);
		perf_data__delete(pd);
		CHECK(CPU_EQUAL(&c.mine, &three));
		CHECK(CPU_EQUAL(&c.other, &three));
	}
	CHECK_INT(sched_setaffinity(0, sizeof(all), &all), 0);
}

/*
 * A mapped file's pages are given back behind the reader, a MiB at a
 * time, so that resident memory stays near a round of records rather
 * than the whole file: flush-mixed.data is 2.6 MB.
 */
/* The resident kB of the mapping that starts at addr, -1 if not found. */
static long mapping_rss_kb(const void *addr)
{
	FILE *fp = fopen("/proc/self/smaps", "r");
	unsigned long start, end;
	bool in = false;
	char line[512];
	long kb = -1;

	while (fp && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = start == (uintptr_t)addr;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	if (fp)
		fclose(fp);
	return kb;
}

static void test_map_given_back(void)
{
	struct digest d = { 0 };
	struct perf_data *pd;
	long rss;

	CHECK_INT(perf_data__open(&pd, fixture("flush-mixed.data")), 0);
	CHECK(pd->map != NULL);
	CHECK_U64(pd->released, 0);
	CHECK_INT(perf_data__process(pd, digest_event, &d), 0);
	CHECK(d.nr > 20000);
	CHECK(pd->released >= (1u << 20));
	CHECK(pd->released <= pd->map_len);
	/* Given back, not only counted: what stays mapped is what is left. */
	rss = mapping_rss_kb(pd->map);
	CHECK(rss >= 0);
	CHECK(rss * 1024 <= (long)(pd->map_len - pd->released) + 4096);
	perf_data__delete(pd);
}

/*
 * flush-mixed.data holds more events than the batches in flight: the
 * reading thread is still at work when the callback sees the first one.
 */
static void test_threads_really_two(void)
{
	struct digest d = { 0 };

	CHECK_INT(digest_file("flush-mixed.data", 2, &d), 0);
	CHECK(d.nr > 20000);
	CHECK_INT(d.threads, 2);
}

/* The callback hands work to the reading thread now and then. */
struct idle_work {
	struct digest d;
	struct perf_data *pd;
	pid_t consumer;
	uint32_t posted, done;		/* atomic */
	uint32_t idle_calls, on_consumer;
	bool kick_waited;		/* the work at event 5000 got done */
};

static int idle_event(void *ctx, const struct rs_event *ev)
{
	struct idle_work *w = ctx;
	struct timespec nap = { 0, 20000 };

	if (!w->consumer)
		w->consumer = gettid();
	/*
	 * Once the reader sleeps (its batches full, no work), work handed
	 * over must wake it: the kick, as this batch is not given back.
	 */
	if (w->d.nr == 5000) {
		struct timespec settle = { 0, 20 * 1000 * 1000 };
		uint64_t until = rs_mono_ns() + 10000000000ULL;
		uint32_t want;

		nanosleep(&settle, NULL);
		want = __atomic_add_fetch(&w->posted, 1, __ATOMIC_SEQ_CST);
		perf_data__kick(w->pd);
		/* A clock's 10 s, not a count of naps: under load too. */
		while (__atomic_load_n(&w->done, __ATOMIC_SEQ_CST) < want &&
		       rs_mono_ns() < until)
			nanosleep(&nap, NULL);
		w->kick_waited = __atomic_load_n(&w->done, __ATOMIC_SEQ_CST) >=
				 want;
	}
	if (w->d.nr % 64 == 0) {
		__atomic_add_fetch(&w->posted, 1, __ATOMIC_SEQ_CST);
		perf_data__kick(w->pd);
	}
	/* Slower than the reader: its batches fill up, and it idles. */
	if (w->d.nr % 256 == 0)
		nanosleep(&nap, NULL);
	return digest_event(&w->d, ev);
}

static bool idle_run(void *ctx)
{
	struct idle_work *w = ctx;
	uint32_t done = __atomic_load_n(&w->done, __ATOMIC_SEQ_CST);

	w->idle_calls++;
	if (gettid() == w->consumer)
		w->on_consumer++;
	if (done == __atomic_load_n(&w->posted, __ATOMIC_SEQ_CST))
		return false;
	__atomic_store_n(&w->done, done + 1, __ATOMIC_SEQ_CST);
	return true;
}

/*
 * With two threads the reader, when its batches are all full, runs the
 * idle work the callback handed over (perf_data__set_idle()), on its own
 * thread, woken by perf_data__kick(): the events are the same as on one
 * thread, and the work handed over gets done.
 */
static void test_threads_idle(void)
{
	struct idle_work w = { 0 };
	struct digest one = { 0 };

	CHECK_INT(digest_file("flush-mixed.data", 1, &one), 0);
	CHECK_INT(perf_data__open(&w.pd, fixture("flush-mixed.data")), 0);
	if (!w.pd)
		return;
	perf_data__set_threads(w.pd, 2);
	perf_data__set_idle(w.pd, idle_run);
	CHECK_INT(perf_data__process(w.pd, idle_event, &w), 0);
	perf_data__delete(w.pd);
	CHECK_U64(w.d.nr, one.nr);
	CHECK_U64(w.d.h, one.h);
	CHECK(w.idle_calls > 0);
	CHECK_INT((int)w.on_consumer, 0);
	CHECK(w.kick_waited);
	/* Some of it (what was posted after the reader's end is left). */
	CHECK(w.done > 1);
}

/* Idle work that never comes, slow to say so. */
static bool idle_none(void *ctx)
{
	/* Long enough for the callback to empty every batch meanwhile. */
	struct timespec nap = { 0, 2 * 1000 * 1000 };

	nanosleep(&nap, NULL);
	return false;
}

/*
 * The reader looks for idle work with the batches' lock let go: a batch
 * the callback frees meanwhile must not be missed (the reader waiting
 * for a free batch, the callback for a full one, for ever).
 */
static void test_threads_idle_none(void)
{
	struct digest one = { 0 }, two = { 0 };
	struct perf_data *pd;
	int i;

	CHECK_INT(digest_file("flush-mixed.data", 1, &one), 0);
	for (i = 0; i < 5; i++) {
		two = (struct digest){ 0 };
		CHECK_INT(perf_data__open(&pd, fixture("flush-mixed.data")),
			  0);
		if (!pd)
			return;
		perf_data__set_threads(pd, 2);
		perf_data__set_idle(pd, idle_none);
		CHECK_INT(perf_data__process(pd, digest_event, &two), 0);
		perf_data__delete(pd);
		CHECK_U64(two.h, one.h);
	}
}

/*
 * A callback that fails stops both threads: the error comes back, the
 * callback saw the same events as on one thread, nothing hangs.
 */
static void test_threads_stop(void)
{
	static const uint64_t at[] = { 1, 1023, 1024, 1025, 9000, 22000 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		struct digest one = { .stop_at = at[i] };
		struct digest two = { .stop_at = at[i] };

		CHECK_INT(digest_file("flush-mixed.data", 1, &one), -EIO);
		CHECK_INT(digest_file("flush-mixed.data", 2, &two), -EIO);
		CHECK_U64(one.nr, at[i]);
		CHECK_U64(two.nr, at[i]);
		CHECK_U64(two.h, one.h);
	}
}

/*
 * A recording that breaks part-way: with two threads the callback still
 * gets every event before the break, and the reader's message is the
 * same.
 */
static void test_threads_truncated(void)
{
	struct perf_data *pd;
	struct digest one = { 0 }, two = { 0 };
	char msg1[256], msg2[256];
	uint8_t *buf;
	size_t len, pos;
	int err1, err2;
	FILE *f = fopen(fixture("flush-mixed.data"), "rb");

	CHECK(f != NULL);
	if (!f)
		return;
	buf = malloc(4 << 20);
	len = fread(buf, 1, 4 << 20, f);
	fclose(f);
	/* a record of size 0, mid-way through the data section */
	pos = pd_u64(buf + 40);
	while (pos < len / 2)
		pos += pd_u16(buf + pos + 6);
	memset(buf + pos, 0, 8);

	CHECK_INT(perf_data__open_mem(&pd, buf, len), 0);
	err1 = perf_data__process(pd, digest_event, &one);
	snprintf(msg1, sizeof(msg1), "%s", perf_data__strerror(pd));
	perf_data__delete(pd);
	CHECK_INT(perf_data__open_mem(&pd, buf, len), 0);
	perf_data__set_threads(pd, 2);
	err2 = perf_data__process(pd, digest_event, &two);
	snprintf(msg2, sizeof(msg2), "%s", perf_data__strerror(pd));
	perf_data__delete(pd);
	free(buf);

	CHECK(err1 != 0);
	CHECK_INT(err2, err1);
	CHECK_STR(msg2, msg1);
	CHECK(one.nr > 1000);
	CHECK_U64(two.nr, one.nr);
	CHECK_U64(two.h, one.h);
}

UNIT_MAIN(
	UNIT(test_ordering_runs),
	UNIT(test_flush_mixed),
	UNIT(test_tracepoint_fields),
	UNIT(test_pipe_fixture),
	UNIT(test_pipe_fd_prefix),
	UNIT(test_sample_all_bits),
	UNIT(test_sample_defaults),
	UNIT(test_names),
	UNIT(test_multi_identifier),
	UNIT(test_multi_id),
	UNIT(test_id_index),
	UNIT(test_read_group),
	UNIT(test_side_band),
	UNIT(test_ordering),
	UNIT(test_stop),
	UNIT(test_recorded_compressed),
	UNIT(test_compressed),
	UNIT(test_compressed_window),
	UNIT(test_queue_bound),
	UNIT(test_queue_no_recopy),
	UNIT(test_pipe_many_attrs),
	UNIT(test_unknown_records), UNIT(test_ksymbol_records),
	UNIT(test_file_attr_sizes),
	UNIT(test_name_enomem),
	UNIT(test_rename_mid_stream),
	UNIT(test_bad_formats),
	UNIT(test_format_sniff),
	UNIT(test_bad_file),
	UNIT(test_ids_aliased),
	UNIT(test_bad_pipe),
	UNIT(test_unreadable),
	UNIT(test_truncations),
	UNIT(test_threads_same_events), UNIT(test_threads_full_batches),
	UNIT(test_threads_cpus), UNIT(test_map_given_back),
	UNIT(test_threads_really_two),
	UNIT(test_threads_idle),
	UNIT(test_threads_idle_none),
	UNIT(test_threads_stop),
	UNIT(test_threads_truncated),
)
