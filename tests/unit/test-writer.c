// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data writer against two readers: ours, and Debian's perf 6.1,
 * which must read what we write without a word on stderr and count the
 * same samples. Records are built by hand (the ring layer is tested on
 * its own); the side band comes from the synthesis of this very process,
 * so a user frame inside a function of this file must symbolize.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <tracefs.h>

#include "unit.h"
#include "perf-data.h"
#include "perf-writer.h"
#include "symbols.h"

#define TP_NAME		"cgroup:cgroup_rstat_locked"
#define ST_CLOCK	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			 PERF_SAMPLE_CALLCHAIN)
#define ST_TP		(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			 PERF_SAMPLE_RAW)

static const uint64_t clock_ids[] = { 101, 102 };
static const uint64_t tp_ids[] = { 201, 202 };
/* A user DSO's BUILD_ID entry, which perf buildid-list must list. */
#define DSO_NAME	"/usr/lib/rstat-analyze-test/libmarker.so"
static const uint8_t dso_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
	0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
};
#define DSO_ID_HEX	"deadbeef0123456789abcdeffedcba9876543210"

/* The user frame every cpu-clock sample carries; kept out of line. */
__attribute__((noinline)) int writer_marker_fn(int n)
{
	volatile int s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i * 3;
	return s;
}

static uint64_t user_addr(void)
{
	return (uint64_t)(uintptr_t)&writer_marker_fn + 4;
}

/* Address of a kernel text symbol, 0 when unknown or hidden. */
static uint64_t ksym_addr(const char *name)
{
	char line[512], want[128];
	uint64_t addr = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), " T %s\n", name);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (sp && !strcmp(sp, want)) {
			addr = strtoull(line, NULL, 16);
			break;
		}
	}
	fclose(f);
	return addr;
}

static long tp_id(void)
{
	char *s = tracefs_event_file_read(NULL, "cgroup", "cgroup_rstat_locked",
					  "id", NULL);
	long id = s ? atol(s) : -1;

	free(s);
	return id;
}

struct rb {
	uint8_t b[512];
	size_t n;
};

static void r64(struct rb *r, uint64_t v)
{
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

static void r32(struct rb *r, uint32_t a, uint32_t b)
{
	memcpy(r->b + r->n, &a, 4);
	memcpy(r->b + r->n + 4, &b, 4);
	r->n += 8;
}

static void rhead(struct rb *r, uint16_t misc)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, misc, 0 };

	memcpy(r->b, &h, sizeof(h));
	r->n = sizeof(h);
}

static void rdone(struct rb *r)
{
	uint16_t sz = r->n;

	memcpy(r->b + 6, &sz, 2);
}

/* cpu-clock: a kernel frame under a user frame, or a user frame only. */
static void clock_sample(struct rb *r, uint32_t cpu, uint64_t t,
			 uint64_t kaddr)
{
	rhead(r, kaddr ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	r64(r, clock_ids[cpu]);
	r64(r, kaddr ? kaddr : user_addr());
	r32(r, getpid(), getpid());
	r64(r, t);
	r32(r, cpu, 0);
	r64(r, 250000);
	if (kaddr) {
		r64(r, 4);
		r64(r, PERF_CONTEXT_KERNEL);
		r64(r, kaddr);
	} else {
		r64(r, 2);
	}
	r64(r, PERF_CONTEXT_USER);
	r64(r, user_addr());
	rdone(r);
}

/* cgroup_rstat_locked, its RAW laid out as the tracefs format says. */
static void tp_sample(struct rb *r, uint32_t cpu, uint64_t t, int level)
{
	uint8_t raw[36] = { 0 };
	uint16_t type = tp_id();
	int32_t pid = getpid(), root = 1, tcpu = cpu;
	uint64_t id = 4242;
	uint32_t sz = sizeof(raw);

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pid, 4);
	memcpy(raw + 8, &root, 4);
	memcpy(raw + 12, &level, 4);
	memcpy(raw + 16, &id, 8);
	memcpy(raw + 24, &tcpu, 4);
	raw[28] = level & 1;	/* contended */
	rhead(r, PERF_RECORD_MISC_KERNEL);
	r64(r, tp_ids[cpu]);
	r64(r, ksym_addr("schedule"));
	r32(r, getpid(), getpid());
	r64(r, t);
	r32(r, cpu, 0);
	r64(r, 1);
	/* RAW: u32 size, data; the kernel pads the two to u64 */
	memcpy(r->b + r->n, &sz, 4);
	memcpy(r->b + r->n + 4, raw, sizeof(raw));
	r->n += 4 + sizeof(raw);
	rdone(r);
}

struct plan {
	int rounds, per_round;	/* cpu-clock samples per round */
	bool tracepoint;
	bool no_tracing;	/* no set_tracing() at all */
	const char *rstat_spans;	/* our own feature section */
	uint64_t nr_clock, nr_tp;
};

static int write_file(const char *path, struct plan *p)
{
	static const char *const tps[] = { TP_NAME };
	char *argv[] = { "rstat-analyze", "record", "-o", (char *)path };
	struct perf_event_attr a = { 0 };
	struct perf_writer *w;
	uint64_t t0 = 1000000000ULL, t = 0, kaddr = ksym_addr("schedule");
	struct rb r;
	int err, i, j;

	p->nr_clock = p->nr_tp = 0;
	err = perf_writer__open(&w, path);
	if (err)
		return err;
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 250000;
	a.sample_type = ST_CLOCK;
	a.sample_id_all = 1;
	a.exclude_guest = 1;
	a.mmap = a.comm = a.task = a.mmap2 = 1;
	err = perf_writer__add_event(w, &a, "cpu-clock", clock_ids, 1);
	if (!err && p->tracepoint) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = tp_id();
		a.sample_period = 1;
		a.sample_type = ST_TP;
		a.sample_id_all = 1;
		a.exclude_guest = 1;
		err = perf_writer__add_event(w, &a, TP_NAME, tp_ids, 2);
	}
	/* ids of the second CPU arrive late */
	if (!err)
		err = perf_writer__set_ids(w, 0, clock_ids, 2);
	if (!err)
		err = synthesize__kernel_mmap(w);
	if (!err)
		err = synthesize__threads(w, getpid());
	for (i = 0; !err && i < p->rounds; i++) {
		for (j = 0; !err && j < p->per_round; j += 2) {
			/* two CPUs' rings drained one after the other */
			t = t0 + (uint64_t)(i * p->per_round + j) * 1000;
			clock_sample(&r, 1, t + 500, j % 4 ? 0 : kaddr);
			err = perf_writer__write(w, r.b, r.n);
			clock_sample(&r, 0, t, j % 4 ? kaddr : 0);
			if (!err)
				err = perf_writer__write(w, r.b, r.n);
			p->nr_clock += 2;
			if (!err && p->tracepoint && j % 10 == 0) {
				tp_sample(&r, j % 20 ? 1 : 0, t + 700, j);
				err = perf_writer__write(w, r.b, r.n);
				p->nr_tp++;
			}
		}
		if (!err)
			err = perf_writer__finished_round(w);
	}
	if (!err)
		err = perf_writer__set_cmdline(w, 4, argv);
	if (!err)
		err = perf_writer__add_build_id(w, getpid(),
						PERF_RECORD_MISC_USER, dso_id,
						sizeof(dso_id), DSO_NAME);
	if (!err)
		err = perf_writer__set_sample_time(w, t0, t + 700);
	if (!err && !p->no_tracing)
		err = perf_writer__set_tracing(w, tps, p->tracepoint, true);
	if (!err && p->rstat_spans)
		err = perf_writer__set_rstat_spans(w, p->rstat_spans);
	if (!err)
		err = perf_writer__finish(w);
	if (err)
		printf("# writer: %s\n", perf_writer__strerror(w));
	perf_writer__delete(w);
	return err;
}

static bool have_perf(void)
{
	return !unit_sh("perf --version >/dev/null 2>&1");
}

static char *slurp(const char *path)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len), *in = fopen(path, "re");
	char buf[4096];
	size_t n;

	if (in) {
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, f);
		fclose(in);
	}
	fclose(f);
	return s;
}

static uint64_t count_lines(const char *text, const char *needle)
{
	uint64_t n = 0;
	const char *p = text;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* Run perf on the file; stdout to out, and stderr must stay empty. */
static int run_perf(const char *args, const char *file, char **out)
{
	char o[256], e[256], *err;
	int rc;

	/* not unit_tmp_path(): its few buffers would recycle file's */
	snprintf(o, sizeof(o), "%s/perf.out", unit_tmpdir());
	snprintf(e, sizeof(e), "%s/perf.err", unit_tmpdir());

	rc = unit_sh("perf %s -i '%s' >'%s' 2>'%s'", args, file, o, e);
	err = slurp(e);
	if (err && *err) {
		UNIT_FAIL("perf %s: stderr: %.300s", args, err);
		rc = -1;
	}
	free(err);
	*out = slurp(o);
	return rc;
}

struct seen {
	struct machine *m;
	uint64_t clock, tp, user_ok, kernel_ok, comms, mmaps, bad_field;
	uint64_t kaddr;
	struct tep_handle *tep;
};

static int on_event(void *ctx, const struct rs_event *ev)
{
	struct seen *s = ctx;
	const struct rs_sample *sm = &ev->sample;
	struct rs_frame fr[8];
	int n, i;

	if (ev->kind == RS_EV_COMM)
		s->comms++;
	if (ev->kind == RS_EV_MMAP)
		s->mmaps++;
	if (ev->kind != RS_EV_SAMPLE)
		return machine__process_event(s->m, ev);
	if (sm->evsel->attr.type == PERF_TYPE_TRACEPOINT) {
		struct tep_format_field *f;
		unsigned long long v = 0;

		s->tp++;
		f = sm->evsel->tp ? tep_find_field(sm->evsel->tp, "id") : NULL;
		if (!f || tep_read_number_field(f, sm->raw, &v) || v != 4242)
			s->bad_field++;
		return 0;
	}
	s->clock++;
	n = machine__resolve_callchain(s->m, sm->pid, sm->tid, sm->cpumode,
				       sm->callchain, sm->nr_callchain, fr, 8);
	for (i = 0; i < n; i++) {
		if (fr[i].addr == user_addr() && fr[i].known &&
		    !strcmp(fr[i].sym, "writer_marker_fn"))
			s->user_ok++;
		if (fr[i].addr == s->kaddr && fr[i].known &&
		    !strcmp(fr[i].sym, "schedule"))
			s->kernel_ok++;
	}
	return 0;
}

static void check_ours(const char *path, const struct plan *p)
{
	struct seen s = { 0 };
	const struct perf_header_info *h;
	struct perf_data *pd = NULL;
	const char *ks;
	size_t kslen;

	if (perf_data__open(&pd, path)) {
		UNIT_FAIL("open: %s", perf_data__strerror(pd));
		perf_data__delete(pd);
		return;
	}
	CHECK_INT(perf_data__nr_evsel(pd), p->tracepoint ? 2 : 1);
	CHECK_STR(perf_data__evsel(pd, 0)->name, "cpu-clock");
	CHECK_INT(perf_data__evsel(pd, 0)->nr_ids, 2);
	if (p->tracepoint) {
		CHECK_STR(perf_data__evsel(pd, 1)->name, TP_NAME);
		CHECK(perf_data__evsel(pd, 1)->tp != NULL);
	}
	h = perf_data__header(pd);
	CHECK(h->hostname && *h->hostname);
	CHECK(h->os_release && *h->os_release);
	CHECK(h->arch && *h->arch);
	/*
	 * The version itself comes from `git describe` when writer.o was
	 * built, which need not be when this test was: check the form.
	 */
	CHECK(h->perf_version &&
	      !strncmp(h->perf_version, "rstat-analyze ", 14) &&
	      h->perf_version[14]);
	CHECK(h->nr_cpus_online > 0);
	CHECK_U64(h->sample_time_start, 1000000000ULL);
	if (!strstr(h->cmdline ? h->cmdline : "", "rstat-analyze record -o"))
		UNIT_FAIL("cmdline %s", h->cmdline ? h->cmdline : "(null)");
	if (!p->no_tracing) {
		CHECK_INT(perf_data__kallsyms(pd, &ks, &kslen), 0);
		CHECK(kslen > 1000 && strstr(ks, " T schedule\n"));
	} else {
		CHECK_INT(perf_data__kallsyms(pd, &ks, &kslen), -ENOENT);
	}

	s.m = machine__new();
	s.kaddr = ksym_addr("schedule");
	if (!p->no_tracing)
		CHECK_INT(machine__load_kallsyms_buf(s.m, ks, kslen), 0);
	CHECK_INT(perf_data__process(pd, on_event, &s), 0);
	CHECK_U64(s.clock, p->nr_clock);
	CHECK_U64(s.tp, p->nr_tp);
	CHECK_U64(s.bad_field, 0);
	CHECK_U64(perf_data__stats(pd)->nr_unknown_id, 0);
	CHECK_U64(perf_data__stats(pd)->nr_unknown_features, 0);
	CHECK(s.comms >= 1 && s.mmaps >= 2);
	/* every clock sample has the user frame */
	CHECK_U64(s.user_ok, p->nr_clock);
	if (!p->no_tracing)
		CHECK_U64(s.kernel_ok, p->nr_clock / 2);
	machine__delete(s.m);
	perf_data__delete(pd);
}

/* The line of out that starts with prefix, or NULL (its end cut). */
static char *line_of(char *out, const char *prefix, char *buf, size_t len)
{
	char *p = out;

	while (p && *p) {
		if (!strncmp(p, prefix, strlen(prefix))) {
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return buf;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/*
 * What perf itself makes of the header, field by field: the EVENT_DESC
 * ids of each event (as written, not the first event's for all), the
 * CPU counts, the command line, the attrs, the build ids (ours, and the
 * kernel's as `perf buildid-list -k` reads it from the running kernel).
 */
static void check_perf_header(const char *path, const struct plan *p)
{
	char *out = NULL, want[512], got[512], kid[128] = "";
	FILE *k;

	CHECK_INT(run_perf("report --header-only", path, &out), 0);
	if (out) {
		if (!strstr(out, "# event : name = cpu-clock, , id = { 101, 102 },"))
			UNIT_FAIL("cpu-clock's EVENT_DESC ids: %s",
				  line_of(out, "# event : name = cpu-clock",
					  got, sizeof(got)));
		if (p->tracepoint &&
		    !strstr(out, "# event : name = " TP_NAME ", , id = { 201, 202 },"))
			UNIT_FAIL(TP_NAME "'s EVENT_DESC ids: %s",
				  line_of(out, "# event : name = " TP_NAME,
					  got, sizeof(got)));
		snprintf(want, sizeof(want), "# nrcpus online : %ld",
			 sysconf(_SC_NPROCESSORS_ONLN));
		CHECK_STR(line_of(out, "# nrcpus online", got, sizeof(got)),
			  want);
		snprintf(want, sizeof(want), "# nrcpus avail : %ld",
			 sysconf(_SC_NPROCESSORS_CONF));
		CHECK_STR(line_of(out, "# nrcpus avail", got, sizeof(got)),
			  want);
		snprintf(want, sizeof(want),
			 "# cmdline : rstat-analyze record -o %s ", path);
		CHECK_STR(line_of(out, "# cmdline", got, sizeof(got)), want);
	}
	free(out);

	CHECK_INT(run_perf("evlist -v", path, &out), 0);
	if (out) {
		CHECK(strstr(out, "cpu-clock: type: 1, size: ") != NULL);
		CHECK(strstr(out, "{ sample_period, sample_freq }: 250000, sample_type: IP|TID|TIME|CALLCHAIN|CPU|PERIOD|IDENTIFIER,") != NULL);
		if (p->tracepoint)
			CHECK(strstr(out, "sample_type: IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER,") != NULL);
	}
	free(out);

	/* The running kernel's build id, read by perf, not by us. */
	k = popen("perf buildid-list -k 2>/dev/null", "r");
	if (k) {
		if (!fgets(kid, sizeof(kid), k))
			kid[0] = '\0';
		kid[strcspn(kid, "\n")] = '\0';
		pclose(k);
	}
	CHECK_INT(run_perf("buildid-list", path, &out), 0);
	if (out) {
		CHECK(strstr(out, DSO_ID_HEX " " DSO_NAME "\n") != NULL);
		snprintf(want, sizeof(want), "%s [kernel.kallsyms]\n", kid);
		if (!*kid || !strstr(out, want))
			UNIT_FAIL("kernel build id %s not in: %.300s", kid, out);
	}
	free(out);
}

static void check_perf(const char *path, const struct plan *p)
{
	char *out = NULL;
	char want[64];

	CHECK_INT(run_perf("script -F event", path, &out), 0);
	if (out) {
		CHECK_U64(count_lines(out, "cpu-clock:"), p->nr_clock);
		CHECK_U64(count_lines(out, TP_NAME ":"), p->nr_tp);
	}
	free(out);

	/* user frames name this file's function, kernel ones too */
	CHECK_INT(run_perf("script -F ip,sym", path, &out), 0);
	if (out) {
		CHECK_U64(count_lines(out, " writer_marker_fn\n"),
			  p->nr_clock);
		CHECK_U64(count_lines(out, " schedule\n"),
			  p->nr_clock / 2 + p->nr_tp);
	}
	free(out);

	CHECK_INT(run_perf("report --stdio", path, &out), 0);
	if (out)
		CHECK(strstr(out, "writer_marker_fn") != NULL);
	free(out);

	CHECK_INT(run_perf("report --header-only", path, &out), 0);
	if (out) {
		CHECK(strstr(out, "# hostname : ") != NULL);
		CHECK(strstr(out, "# os release : ") != NULL);
		CHECK(strstr(out, "# arch : ") != NULL);
		CHECK(strstr(out, "# nrcpus online : ") != NULL);
		CHECK(strstr(out, "# cmdline : rstat-analyze record -o"));
		CHECK(strstr(out, "# event : name = cpu-clock,"));
		snprintf(want, sizeof(want), "# perf version : rstat-analyze ");
		CHECK(strstr(out, want) != NULL);
	}
	free(out);

	CHECK_INT(run_perf("evlist", path, &out), 0);
	if (out) {
		CHECK(strstr(out, "cpu-clock\n") != NULL);
		if (p->tracepoint)
			CHECK(strstr(out, TP_NAME "\n") != NULL);
	}
	free(out);
	check_perf_header(path, p);
}

static bool can_record(void)
{
	if (geteuid()) {
		SKIP("not root: tracefs formats and kallsyms need it");
		return false;
	}
	if (tp_id() < 0) {
		SKIP("no " TP_NAME " in tracefs");
		return false;
	}
	if (!ksym_addr("schedule")) {
		SKIP("kallsyms addresses hidden (kptr_restrict)");
		return false;
	}
	return true;
}

static void test_tracepoint_file(void)
{
	struct plan p = { .rounds = 3, .per_round = 40, .tracepoint = true };
	const char *path = unit_tmp_path("tp.data");
	struct stat st;

	if (!can_record())
		return;
	CHECK_INT(write_file(path, &p), 0);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600);
	check_ours(path, &p);
	if (!have_perf()) {
		SKIP("perf is not installed: checked by our reader only");
		return;
	}
	check_perf(path, &p);
}

/* Many samples over many rounds, and no tracepoint recorded. */
static void test_many_rounds(void)
{
	struct plan p = { .rounds = 25, .per_round = 60 };
	const char *path = unit_tmp_path("many.data");

	if (!can_record())
		return;
	CHECK_INT(write_file(path, &p), 0);
	CHECK(p.nr_clock >= 1000);
	check_ours(path, &p);
	if (!have_perf()) {
		SKIP("perf is not installed: checked by our reader only");
		return;
	}
	check_perf(path, &p);
}

/* No TRACING_DATA at all. */
static void test_no_tracing(void)
{
	struct plan p = { .rounds = 2, .per_round = 10, .no_tracing = true };
	const char *path = unit_tmp_path("plain.data");

	if (!can_record())
		return;
	CHECK_INT(write_file(path, &p), 0);
	check_ours(path, &p);
	if (!have_perf()) {
		SKIP("perf is not installed: checked by our reader only");
		return;
	}
	check_perf(path, &p);
}

/*
 * The spans timed in the kernel ride in a feature section of our own (bit
 * 255): our reader gives the text back byte for byte, and perf reads the
 * file (script, report, the header) without a word about it.
 */
static void test_rstat_spans(void)
{
	static const char text[] =
		"{\"schema\": \"rstat-analyze-spans/1\", \"spans\": []}\n";
	struct plan p = { .rounds = 2, .per_round = 10, .tracepoint = true,
			  .rstat_spans = text };
	const char *path = unit_tmp_path("spans.data");
	struct perf_data *pd = NULL;
	const char *got = NULL;

	if (!can_record())
		return;
	CHECK_INT(write_file(path, &p), 0);
	check_ours(path, &p);
	CHECK_INT(perf_data__open(&pd, path), 0);
	if (pd) {
		CHECK_INT(perf_data__rstat_spans(pd, &got), 0);
		CHECK_STR(got, text);
		CHECK_U64(perf_data__stats(pd)->nr_unknown_features, 0);
	}
	perf_data__delete(pd);
	if (!have_perf()) {
		SKIP("perf is not installed: checked by our reader only");
		return;
	}
	check_perf(path, &p);
}

static void test_full_disk(void)
{
	static uint8_t chunk[256 << 10];
	struct perf_event_attr a = { 0 };
	struct perf_writer *w;
	uint64_t id = 1;
	int err = 0, i;

	if (access("/dev/full", W_OK)) {
		SKIP("no writable /dev/full");
		return;
	}
	CHECK_INT(perf_writer__open(&w, "/dev/full"), 0);
	if (!w)
		return;
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = ST_CLOCK;
	CHECK_INT(perf_writer__add_event(w, &a, "cpu-clock", &id, 1), 0);
	/* more than the buffer: a write has to reach the device */
	for (i = 0; i < 16 && !err; i++)
		err = perf_writer__write(w, chunk, sizeof(chunk));
	CHECK_INT(err, -ENOSPC);
	CHECK_INT(perf_writer__finish(w), -ENOSPC);
	CHECK(strstr(perf_writer__strerror(w), "No space") != NULL);
	perf_writer__delete(w);

	/* a pipe cannot hold the file layout */
	{
		int fds[2];
		char path[64];

		if (pipe(fds))
			return;
		CHECK_INT(perf_writer__open_fd(&w, dup(fds[1])), -ESPIPE);
		CHECK(w == NULL);
		/* By name: /proc/self/fd/N is a link, never followed. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
		CHECK_INT(perf_writer__open(&w, path), -ELOOP);
		CHECK(w == NULL);
		close(fds[0]);
		close(fds[1]);
	}
}

static void test_misuse(void)
{
	struct perf_event_attr a = { 0 };
	const char *path = unit_tmp_path("misuse.data");
	struct perf_writer *w;
	uint64_t id = 7;

	CHECK_INT(perf_writer__open(&w, path), 0);
	if (!w)
		return;
	/* finish without events refuses */
	CHECK_INT(perf_writer__finish(w), -EINVAL);
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = ST_CLOCK;
	CHECK_INT(perf_writer__add_event(w, &a, "cpu-clock", &id, 1), 0);
	CHECK_INT(perf_writer__set_ids(w, 3, &id, 1), -EINVAL);
	if (!geteuid()) {
		static const char *const bad[] = { "nosuch:tracepoint" };
		static const char *const odd[] = { "nocolon" };

		CHECK(perf_writer__set_tracing(w, bad, 1, false) < 0);
		CHECK(strstr(perf_writer__strerror(w), "nosuch:tracepoint"));
		CHECK_INT(perf_writer__set_tracing(w, odd, 1, false), -EINVAL);
	}
	CHECK_INT(perf_writer__finished_round(w), 0);
	CHECK_U64(perf_writer__data_size(w), 8);
	/* events come before the data */
	CHECK_INT(perf_writer__add_event(w, &a, "x", &id, 1), -EINVAL);
	CHECK_INT(perf_writer__finish(w), 0);
	CHECK_INT(perf_writer__write(w, &id, 8), -EINVAL);
	perf_writer__delete(w);
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_tracepoint_file), UNIT(test_many_rounds),
	  UNIT(test_no_tracing), UNIT(test_rstat_spans), UNIT(test_full_disk),
	  UNIT(test_misuse))
