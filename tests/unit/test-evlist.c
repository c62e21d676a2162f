// SPDX-License-Identifier: GPL-2.0
/*
 * Event names, and the perf_event_open + mmap ring layer against the
 * running kernel: exact tracepoint and uprobe sample counts from a forked
 * child, a ring small enough to wrap many times (drained in chunks and
 * record by record), tracepoint filters, and LOST records from a ring
 * that is not drained. The live cases skip when not root.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

#include "evlist.h"
#include "unit.h"

/* ---- helpers -------------------------------------------------------- */

/*
 * Where tracefs is, found as root as the evlist layer finds it: through
 * libtracefs, which mounts tracefs when a freshly booted machine has not
 * yet. Looking at /sys/kernel/tracing itself would skip every live case
 * there though the code under test works. Other users cannot mount, and
 * libtracefs leaks the path it cannot check, so they look themselves.
 */
static const char *tracing_dir(void)
{
	static const char *dir;
	char path[PATH_MAX];

	if (!dir)
		dir = geteuid() ? "/sys/kernel/tracing" :
				  tracefs_tracing_dir();
	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/events", dir);
	return access(path, R_OK) ? NULL : dir;
}

static bool have_tracefs(void)
{
	return tracing_dir() != NULL;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static uint64_t read_u64_file(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void spin_ms(unsigned int ms)
{
	uint64_t end = now_ns() + ms * 1000000ULL;
	volatile unsigned long x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * What the drain handed us, parsed after each drain: the chunks of one
 * drain, concatenated, must be whole records.
 */
#define MAX_EV 4
struct collect {
	unsigned char *buf;
	size_t len, cap;
	unsigned int calls;	/* chunk callbacks in this drain */
	unsigned int wraps;	/* drains that came in two chunks */
	uint64_t bytes, records, samples, lost, bad;
	uint64_t ev_samples[MAX_EV];	/* per evsel, all tids */
	uint64_t tid_samples[MAX_EV];	/* per evsel, tid == tid */
	const uint64_t *ids[MAX_EV];
	uint32_t nr_ids[MAX_EV];
	int nr_ev;
	pid_t tid;
	int raw_getppid_ev;	/* evsel whose RAW holds a syscall id */
	uint64_t raw_offset;	/* offset of RAW in its samples */
};

static void collect_init(struct collect *c, struct evlist *el, pid_t tid)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->raw_getppid_ev = -1;
	c->nr_ev = (int)evlist__nr(el);
	for (i = 0; i < evlist__nr(el) && i < MAX_EV; i++)
		c->ids[i] = evsel__ids(evlist__evsel(el, i), &c->nr_ids[i]);
}

static int collect_chunk(void *ctx, const void *buf, size_t len)
{
	struct collect *c = ctx;

	c->calls++;
	if (c->len + len > c->cap) {
		size_t cap = (c->len + len) * 2;
		unsigned char *p = realloc(c->buf, cap);

		if (!p)
			return -ENOMEM;
		c->buf = p;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, buf, len);
	c->len += len;
	return 0;
}

static int evsel_of(const struct collect *c, uint64_t id)
{
	for (int i = 0; i < c->nr_ev && i < MAX_EV; i++)
		for (uint32_t j = 0; j < c->nr_ids[i]; j++)
			if (c->ids[i][j] == id)
				return i;
	return -1;
}

/*
 * Samples are IDENTIFIER|IP|TID|...: id at 8, tid at 28. Every record
 * must have a sane size and type and the walk must end at the end.
 */
static void collect_parse(struct collect *c)
{
	size_t pos = 0;

	while (pos + 8 <= c->len) {
		struct perf_event_header h;

		memcpy(&h, c->buf + pos, sizeof(h));
		if (h.size < 8 || h.size % 8 || pos + h.size > c->len ||
		    h.type == 0 || h.type >= 64) {
			c->bad++;
			break;
		}
		c->records++;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 32) {
			const unsigned char *r = c->buf + pos;
			int ev = evsel_of(c, get_u64(r + 8));
			uint32_t tid;

			c->samples++;
			memcpy(&tid, r + 28, sizeof(tid));
			if (ev < 0) {
				c->bad++;
			} else {
				bool count = tid == (uint32_t)c->tid;

				if (ev == c->raw_getppid_ev) {
					/* raw_syscalls:sys_enter: id at 8 */
					uint64_t o = c->raw_offset + 4 + 8;

					count = count && o + 8 <= h.size &&
						get_u64(r + o) == SYS_getppid;
				}
				c->ev_samples[ev]++;
				if (count)
					c->tid_samples[ev]++;
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			c->lost += get_u64(c->buf + pos + 16);
		}
		pos += h.size;
	}
	if (pos != c->len)
		c->bad++;
	c->bytes += c->len;
	c->len = 0;
}

static int drain(struct evlist *el, struct collect *c)
{
	int err;

	c->calls = 0;
	err = evlist__drain(el, collect_chunk, c);
	if (c->calls > 1)
		c->wraps++;
	collect_parse(c);
	return err;
}

/* Drain until the task target hangs up (or 3 s pass). */
static int drain_until_hup(struct evlist *el, struct collect *c)
{
	uint64_t end = now_ns() + 3000000000ULL;
	bool hup = false;
	int err;

	while (!hup && now_ns() < end) {
		err = evlist__poll(el, 100, &hup);
		if (err < 0 && err != -EINTR)
			return err;
		err = drain(el, c);
		if (err)
			return err;
	}
	return hup ? drain(el, c) : -ETIMEDOUT;
}

/*
 * A child that waits for a byte on go, then runs body(byte); with loop,
 * each byte read runs body once and answers on ack, and 'q' ends.
 */
struct child {
	pid_t pid;
	int go, ack;
	bool loop;
};

static int child_start(struct child *ch, void (*body)(char), bool loop,
		       int cpu)
{
	int go[2], ack[2];

	if (pipe(go) || pipe(ack))
		return -errno;
	ch->loop = loop;
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (!ch->pid) {
		char b;

		close(go[1]);
		close(ack[0]);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		while (read(go[0], &b, 1) == 1 && b != 'q') {
			body(b);
			if (!loop)
				break;
			if (write(ack[1], &b, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(go[0]);
	close(ack[1]);
	ch->go = go[1];
	ch->ack = ack[0];
	return 0;
}

/* Run body(b) once more in a looping child and wait for it. */
static int child_round(struct child *ch, char b)
{
	if (write(ch->go, &b, 1) != 1 || read(ch->ack, &b, 1) != 1)
		return -EIO;
	return 0;
}

static void child_end(struct child *ch)
{
	char b = 'q';

	if (ch->pid <= 0)
		return;
	/* A child that ran once has exited: no reader, no write. */
	if (ch->loop && write(ch->go, &b, 1) != 1)
		kill(ch->pid, SIGKILL);
	close(ch->go);
	close(ch->ack);
	waitpid(ch->pid, NULL, 0);
	ch->pid = 0;
}

static void child_kill(struct child *ch)
{
	if (ch->pid <= 0)
		return;
	kill(ch->pid, SIGKILL);
	close(ch->go);
	close(ch->ack);
	waitpid(ch->pid, NULL, 0);
	ch->pid = 0;
}

static int first_cpu(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int cpu = 0;

	if (f) {
		if (fscanf(f, "%d", &cpu) != 1)
			cpu = 0;
		fclose(f);
	}
	return cpu;
}

/* Why live cases cannot run here, or NULL. */
static const char *live_skip(void)
{
	if (geteuid())
		return "not root";
	if (!have_tracefs())
		return "no tracefs (libtracefs found or mounted none)";
	return NULL;
}

/* Add spec to el with the sample_type of every live case. */
static int add_event(struct evlist *el, const char *spec, uint64_t extra)
{
	struct perf_event_attr a;
	char *name;
	int err = events__parse(spec, &a, &name);

	if (err)
		return err;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | extra;
	err = evlist__add(el, evsel__new(&a, name));
	free(name);
	return err;
}

/* ---- event names ---------------------------------------------------- */

static void check_parse(const char *spec, uint32_t type, uint64_t config,
			const char *canon, int xu, int xk, int xh)
{
	struct perf_event_attr a;
	char *name = NULL;
	int err = events__parse(spec, &a, &name);

	if (err) {
		UNIT_FAIL("events__parse(\"%s\") = %d", spec, err);
		return;
	}
	CHECK_INT(a.size, sizeof(a));
	CHECK_INT(a.type, type);
	CHECK_U64(a.config, config);
	CHECK_STR(name, canon);
	CHECK_INT(a.exclude_user, xu);
	CHECK_INT(a.exclude_kernel, xk);
	CHECK_INT(a.exclude_hv, xh);
	free(name);
}

static void test_parse_names(void)
{
	struct perf_event_attr a;
	char *name = (char *)"x";

	check_parse("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		    "cycles", 0, 0, 0);
	check_parse("cpu-cycles", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles", 0, 0, 0);
	check_parse("instructions", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_INSTRUCTIONS, "instructions", 0, 0, 0);
	check_parse("cache-references", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_CACHE_REFERENCES, "cache-references",
		    0, 0, 0);
	check_parse("cache-misses", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_CACHE_MISSES, "cache-misses", 0, 0, 0);
	check_parse("branches", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches", 0, 0, 0);
	check_parse("branch-misses", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", 0, 0, 0);
	check_parse("bus-cycles", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_BUS_CYCLES, "bus-cycles", 0, 0, 0);
	check_parse("ref-cycles", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles", 0, 0, 0);

	check_parse("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
		    "cpu-clock", 0, 0, 0);
	check_parse("task-clock", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_TASK_CLOCK, "task-clock", 0, 0, 0);
	check_parse("page-faults", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_PAGE_FAULTS, "page-faults", 0, 0, 0);
	check_parse("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
		    "faults", 0, 0, 0);
	check_parse("context-switches", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches",
		    0, 0, 0);
	check_parse("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
		    "cs", 0, 0, 0);
	check_parse("cpu-migrations", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", 0, 0, 0);
	check_parse("minor-faults", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", 0, 0, 0);
	check_parse("major-faults", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults", 0, 0, 0);
	check_parse("alignment-faults", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults",
		    0, 0, 0);
	check_parse("emulation-faults", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults",
		    0, 0, 0);
	check_parse("dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
		    "dummy", 0, 0, 0);

	check_parse("r1a8", PERF_TYPE_RAW, 0x1a8, "r1a8", 0, 0, 0);
	check_parse("rC0", PERF_TYPE_RAW, 0xc0, "rC0", 0, 0, 0);
	check_parse("r1a8:u", PERF_TYPE_RAW, 0x1a8, "r1a8:u", 0, 1, 1);

	/* perf: naming a mode excludes the others; the name is as given. */
	check_parse("cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		    "cycles:u", 0, 1, 1);
	check_parse("cycles:k", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		    "cycles:k", 1, 0, 1);
	check_parse("cycles:uk", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_CPU_CYCLES, "cycles:uk", 0, 0, 1);
	check_parse("cpu-clock:h", PERF_TYPE_SOFTWARE,
		    PERF_COUNT_SW_CPU_CLOCK, "cpu-clock:h", 1, 1, 0);
	CHECK_INT(events__parse("cycles:pp", &a, NULL), 0);
	CHECK_INT(a.precise_ip, 2);

	CHECK_INT(events__parse("no-such-event", &a, &name), -ENOENT);
	CHECK(name == NULL);
	CHECK_INT(events__parse("cyclesx", &a, NULL), -ENOENT);
	CHECK_INT(events__parse("rxyz", &a, NULL), -ENOENT);
	CHECK_INT(events__parse("", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("cycles:", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("cycles:x", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("cycles:u:k", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("cycles:pppp", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("a:b:c:d", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("bad name", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("../x:id", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("sched:..", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("sched:", &a, NULL), -EINVAL);
}

static void test_parse_tracepoint(void)
{
	struct perf_event_attr a;
	char path[PATH_MAX];
	char *name = NULL;
	uint64_t id;
	const char *why = live_skip();

	if (why) {
		SKIP(why);
		return;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id",
		 tracing_dir());
	id = read_u64_file(path);
	if (!id) {
		SKIP("no sched:sched_switch tracepoint");
		return;
	}
	CHECK_INT(events__parse("sched:sched_switch", &a, &name), 0);
	CHECK_INT(a.type, PERF_TYPE_TRACEPOINT);
	CHECK_U64(a.config, id);
	CHECK_U64(a.sample_period, 1);
	CHECK_STR(name, "sched:sched_switch");
	free(name);

	CHECK_INT(events__parse("sched:sched_switch:u", &a, &name), 0);
	CHECK_U64(a.config, id);
	CHECK_INT(a.exclude_kernel, 1);
	CHECK_STR(name, "sched:sched_switch");
	free(name);

	CHECK_INT(events__parse("sched:no_such_tracepoint", &a, NULL),
		  -ENOENT);
	CHECK_INT(events__parse("no_such_system:foo", &a, NULL), -ENOENT);
	CHECK_INT(events__parse("sched:sched_switch:x", &a, NULL), -EINVAL);
	CHECK_INT(events__parse("sched:no_such:x", &a, NULL), -EINVAL);
}

static void test_supported(void)
{
	struct perf_event_attr a;
	bool direct;
	int err = 1, fd;

	CHECK_INT(events__parse("cycles", &a, NULL), 0);
	a.disabled = 1;
	fd = perf_open(&a, 0, -1);
	if (fd < 0)
		fd = perf_open(&a, -1, 0);
	direct = fd >= 0;
	if (fd >= 0)
		close(fd);
	CHECK_INT(events__supported(&a, &err), direct);
	if (direct)
		CHECK_INT(err, 0);
	else
		CHECK(err < 0);

	CHECK_INT(events__parse("cpu-clock", &a, NULL), 0);
	a.freq = 1;
	a.sample_freq = 999;
	fd = perf_open(&a, 0, -1);
	if (fd < 0) {
		SKIP("perf_event_open(cpu-clock) not allowed here");
		return;
	}
	close(fd);
	CHECK(events__supported(&a, &err));
	CHECK_INT(err, 0);
}

static void test_tracepoints_glob(void)
{
	char **names = NULL;
	size_t n = 0, i;
	bool locked = false, unlock = false, contended = false;
	int err;

	if (!have_tracefs()) {
		SKIP("no tracefs (libtracefs found or mounted none)");
		return;
	}
	err = events__tracepoints("cgroup:cgroup_rstat_*", &names, &n);
	if (err == -EACCES) {
		SKIP("tracefs not readable (not root)");
		return;
	}
	CHECK_INT(err, 0);
	if (err)
		return;
	for (i = 0; i < n; i++) {
		CHECK(!strncmp(names[i], "cgroup:cgroup_rstat_", 20));
		if (i)
			CHECK(strcmp(names[i - 1], names[i]) < 0);
		locked |= !strcmp(names[i], "cgroup:cgroup_rstat_locked");
		unlock |= !strcmp(names[i], "cgroup:cgroup_rstat_unlock");
		contended |= !strcmp(names[i],
				     "cgroup:cgroup_rstat_lock_contended");
	}
	CHECK(names[n] == NULL);
	events__free_names(names);
	if (!locked && !unlock && !contended) {
		SKIP("no cgroup_rstat tracepoints on this kernel");
		return;
	}
	CHECK(locked && unlock && contended);

	/* A glob over systems too, and one that matches nothing. */
	CHECK_INT(events__tracepoints("*:sched_switch", &names, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(names[0], "sched:sched_switch");
	events__free_names(names);
	CHECK_INT(events__tracepoints("nosuch:*", &names, &n), 0);
	CHECK_INT(n, 0);
	CHECK(names && !names[0]);
	events__free_names(names);
}

static void test_probe_attrs(void)
{
	struct perf_event_attr a;
	const char *path = "/bin/true";
	uint64_t type;
	int err;

	type = read_u64_file("/sys/bus/event_source/devices/uprobe/type");
	err = events__uprobe_attr(path, 0x1234, false, &a);
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK)) {
		CHECK_INT(err, -ENOENT);
	} else {
		CHECK_INT(err, 0);
		CHECK_U64(a.type, type);
		CHECK_U64(a.config1, (uintptr_t)path);
		CHECK_U64(a.config2, 0x1234);
		CHECK_U64(a.config, 0);
		CHECK_U64(a.sample_period, 1);
		CHECK_INT(events__uprobe_attr(path, 0x1234, true, &a), 0);
		CHECK(a.config != 0);	/* config:0 on x86 and arm64 */
	}

	err = events__kprobe_attr("cgroup_rstat_flush", 4, false, &a);
	if (access("/sys/bus/event_source/devices/kprobe/type", R_OK)) {
		CHECK_INT(err, -ENOENT);
	} else {
		CHECK_INT(err, 0);
		CHECK_U64(a.type, read_u64_file(
			"/sys/bus/event_source/devices/kprobe/type"));
		CHECK(a.config1 != 0);
		CHECK_U64(a.config2, 4);
		CHECK_INT(events__kprobe_attr(NULL, 0xffffffff81000000ULL,
					      true, &a), 0);
		CHECK_U64(a.config1, 0);
		CHECK_U64(a.config2, 0xffffffff81000000ULL);
	}
}

/* ---- live recordings ------------------------------------------------ */

#define NR_GETPPID 20000

static void body_getppid(char b)
{
	for (int i = 0; i < NR_GETPPID; i++)
		syscall(SYS_getppid);
	/* Long enough for cpu-clock at 999 Hz to fire. */
	spin_ms(40);
}

static void test_record_task(void)
{
	const char *why = live_skip();
	struct evlist_target t = { .kind = EVLIST_TARGET_PID };
	struct evlist_stats st;
	struct collect c;
	struct child ch = { 0 };
	struct evlist *el;
	bool raw = false;
	uint32_t i, nr;
	int err;

	if (why) {
		SKIP(why);
		return;
	}
	el = evlist__new();
	CHECK(el != NULL);
	if (!el)
		return;
	CHECK_INT(add_event(el, "cpu-clock", PERF_SAMPLE_CALLCHAIN), 0);
	evsel__attr(evlist__evsel(el, 0))->freq = 1;
	evsel__attr(evlist__evsel(el, 0))->sample_freq = 999;
	err = add_event(el, "syscalls:sys_enter_getppid", 0);
	if (err == -ENOENT) {
		/* No syscall tracepoints: count the id in raw_syscalls. */
		raw = true;
		err = add_event(el, "raw_syscalls:sys_enter", PERF_SAMPLE_RAW);
	}
	if (err) {
		evlist__delete(el);
		SKIP("no syscall tracepoints");
		return;
	}
	for (i = 0; i < 2; i++) {
		evsel__attr(evlist__evsel(el, i))->inherit = 1;
		evsel__attr(evlist__evsel(el, i))->enable_on_exec = 1;
	}
	CHECK_INT(child_start(&ch, body_getppid, false, -1), 0);
	t.pid = ch.pid;
	err = evlist__open(el, &t);
	if (err == -EACCES || err == -EPERM) {
		SKIP("perf_event_paranoid forbids");
		goto out;
	}
	CHECK_INT(err, 0);
	if (err) {
		printf("# %s\n", evlist__strerror(el));
		goto out;
	}
	CHECK_STR(evlist__strerror(el), "");
	for (i = 0; i < 2; i++) {
		struct perf_event_attr *a = evsel__attr(evlist__evsel(el, i));

		CHECK(a->sample_id_all);
		CHECK(a->sample_type & PERF_SAMPLE_IDENTIFIER);
		CHECK(a->read_format & PERF_FORMAT_ID);
		CHECK(a->disabled);
		evsel__ids(evlist__evsel(el, i), &nr);
		CHECK_INT(nr, sysconf(_SC_NPROCESSORS_ONLN));
	}
	CHECK_INT(evlist__mmap(el, 0), 0);
	CHECK_INT(evlist__enable(el), 0);

	collect_init(&c, el, ch.pid);
	if (raw) {
		c.raw_getppid_ev = 1;
		c.raw_offset = 8 + 5 * 8;	/* header, id, ip..period */
	}
	CHECK_INT(write(ch.go, "n", 1), 1);
	CHECK_INT(drain_until_hup(el, &c), 0);
	child_end(&ch);

	evlist__stats(el, &st);
	/*
	 * The kernel throttles an event that overflows too often in one
	 * tick (THROTTLE records, no LOST ones): then the exact count says
	 * nothing of the reader, and is not held to it.
	 */
	if (st.throttle) {
		CHECK(c.tid_samples[1] > 0 &&
		      c.tid_samples[1] <= NR_GETPPID);
		SKIP_PART("the kernel throttled the events (%llu THROTTLE records): %llu of %d getppid samples, not compared exactly",
			       (unsigned long long)st.throttle,
			       (unsigned long long)c.tid_samples[1],
			       NR_GETPPID);
	} else {
		CHECK_U64(c.tid_samples[1], NR_GETPPID);
	}
	CHECK(c.tid_samples[0] > 0);
	CHECK_U64(c.bad, 0);
	CHECK_U64(c.lost, 0);
	CHECK_U64(st.lost, 0);
	CHECK_U64(st.lost_samples, 0);
	CHECK_U64(st.bytes, c.bytes);
	CHECK_U64(st.records, c.records);
	CHECK_U64(st.samples, c.samples);
	CHECK_U64(st.samples, c.ev_samples[0] + c.ev_samples[1]);
	free(c.buf);
out:
	child_kill(&ch);
	evlist__delete(el);
}

static void test_record_cpus(void)
{
	struct evlist_target t = { .kind = EVLIST_TARGET_CPUS };
	struct evlist_stats st;
	struct collect c;
	struct evlist *el;
	bool hup = true;
	uint32_t nr;
	int err;

	if (geteuid()) {
		SKIP("not root");
		return;
	}
	el = evlist__new();
	CHECK_INT(add_event(el, "cpu-clock", PERF_SAMPLE_CALLCHAIN), 0);
	evsel__attr(evlist__evsel(el, 0))->freq = 1;
	evsel__attr(evlist__evsel(el, 0))->sample_freq = 999;
	CHECK_INT(evlist__set_mmap_pages(el, 3), -EINVAL);
	CHECK_INT(evlist__set_mmap_pages(el, 16), 0);
	err = evlist__open(el, &t);
	CHECK_INT(err, 0);
	if (err) {
		printf("# %s\n", evlist__strerror(el));
		evlist__delete(el);
		return;
	}
	/* Another size than the events were opened for: opened again. */
	CHECK_INT(evlist__mmap(el, 32), 0);
	CHECK_INT(evlist__mmap_pages(el), 32);
	CHECK_INT(evlist__mmap(el, 32), -EBUSY);
	CHECK_U64(evsel__attr(evlist__evsel(el, 0))->wakeup_watermark,
		  32 * sysconf(_SC_PAGESIZE) / 4);
	evsel__ids(evlist__evsel(el, 0), &nr);
	CHECK_INT(nr, sysconf(_SC_NPROCESSORS_ONLN));
	CHECK_INT(evlist__enable(el), 0);
	spin_ms(60);
	CHECK_INT(evlist__disable(el), 0);
	CHECK_INT(evlist__poll(el, 0, &hup), 1);
	CHECK(!hup);
	collect_init(&c, el, (pid_t)syscall(SYS_gettid));
	CHECK_INT(drain(el, &c), 0);
	evlist__stats(el, &st);
	CHECK(c.ev_samples[0] > 0);
	CHECK(c.tid_samples[0] > 0);	/* we were spinning */
	CHECK_U64(c.bad, 0);
	CHECK_U64(st.samples, c.samples);
	/* Nothing new: the next drain hands nothing. */
	c.calls = 0;
	CHECK_INT(evlist__drain(el, collect_chunk, &c), 0);
	CHECK_INT(c.calls, 0);
	free(c.buf);
	evlist__delete(el);
}

/* The uprobe target: kept out of line and unique, so the probe hits. */
__attribute__((noinline, noclone, used)) int evlist_test_uprobe_fn(int x)
{
	__asm__ volatile("" : : "r"(x) : "memory");
	return x * 3 + 1;
}

#define NR_UPROBE 777

static void body_uprobe(char b)
{
	int (*volatile fn)(int) = evlist_test_uprobe_fn;
	volatile int sum = 0;

	for (int i = 0; i < NR_UPROBE; i++)
		sum += fn(i);
}

/* File offset of sym in the ELF file at path: via its PT_LOAD. */
static int elf_sym_offset(const char *path, const char *sym, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	bool found = false;
	size_t nph, i;
	int fd, err = -ENOENT;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, sym) && s.st_value) {
				value = s.st_value;
				found = true;
				break;
			}
		}
	}
	if (found && !elf_getphdrnum(elf, &nph)) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || value < ph.p_vaddr ||
			    value >= ph.p_vaddr + ph.p_filesz)
				continue;
			*off = value - ph.p_vaddr + ph.p_offset;
			err = 0;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return err;
}

static void test_record_uprobe(void)
{
	struct evlist_target t = { .kind = EVLIST_TARGET_PID };
	struct perf_event_attr a;
	char exe[PATH_MAX];
	struct child ch = { 0 };
	struct collect c;
	struct evlist *el;
	uint64_t off;
	ssize_t len;
	int err;

	if (geteuid()) {
		SKIP("not root");
		return;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	if (len <= 0)
		return;
	exe[len] = '\0';
	err = elf_sym_offset(exe, "evlist_test_uprobe_fn", &off);
	CHECK_INT(err, 0);
	if (err)
		return;
	err = events__uprobe_attr(exe, off, false, &a);
	if (err == -ENOENT) {
		SKIP("no uprobe PMU on this kernel");
		return;
	}
	CHECK_INT(err, 0);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	el = evlist__new();
	CHECK_INT(evlist__add(el, evsel__new(&a, "probe_test:uprobe_fn")), 0);
	CHECK_INT(child_start(&ch, body_uprobe, false, -1), 0);
	t.pid = ch.pid;
	err = evlist__open(el, &t);
	if (err == -EACCES || err == -EPERM) {
		SKIP("perf_event_paranoid forbids uprobes");
		goto out;
	}
	CHECK_INT(err, 0);
	if (err) {
		printf("# %s\n", evlist__strerror(el));
		goto out;
	}
	CHECK_INT(evlist__mmap(el, 0), 0);
	CHECK_INT(evlist__enable(el), 0);
	collect_init(&c, el, ch.pid);
	CHECK_INT(write(ch.go, "n", 1), 1);
	CHECK_INT(drain_until_hup(el, &c), 0);
	child_end(&ch);
	CHECK_U64(c.tid_samples[0], NR_UPROBE);
	CHECK_U64(c.bad, 0);
	CHECK_U64(c.lost, 0);
	free(c.buf);
out:
	child_kill(&ch);
	evlist__delete(el);
}

#define BATCH 20
#define NR_BATCHES 60
#define FLOOD 5000

/* 'b': a batch, 'f': a flood, '1': one call. */
static void body_batch(char b)
{
	int n = b == 'b' ? BATCH : b == 'f' ? FLOOD : 1;

	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/*
 * A getppid tracepoint evlist on a one-page ring for child ch, with the
 * tracepoint filter (or none).
 */
static struct evlist *small_ring_filter(struct child *ch, const char *filter,
					const char **why)
{
	struct evlist_target t = { .kind = EVLIST_TARGET_PID };
	struct evlist *el = evlist__new();
	int err;

	*why = NULL;
	err = add_event(el, "syscalls:sys_enter_getppid", 0);
	if (!err)
		err = evlist__set_mmap_pages(el, 1);
	if (err) {
		*why = "no syscalls:sys_enter_getppid tracepoint";
		evlist__delete(el);
		return NULL;
	}
	CHECK_INT(evsel__set_filter(evlist__evsel(el, 0), filter), 0);
	t.pid = ch->pid;
	err = evlist__open(el, &t);
	if (err == -EACCES || err == -EPERM)
		*why = "perf_event_paranoid forbids";
	if (!err)
		err = evlist__mmap(el, 1);
	if (!err)
		err = evlist__enable(el);
	if (err) {
		if (!*why)
			UNIT_FAIL("small ring: %d: %s", err,
				  evlist__strerror(el));
		evlist__delete(el);
		return NULL;
	}
	return el;
}

static struct evlist *small_ring(struct child *ch, const char **why)
{
	return small_ring_filter(ch, NULL, why);
}

static void test_ring_wrap(void)
{
	const char *why = live_skip();
	struct evlist_stats st;
	struct child ch = { 0 };
	struct collect c;
	struct evlist *el;
	int i;

	if (why) {
		SKIP(why);
		return;
	}
	CHECK_INT(child_start(&ch, body_batch, true, first_cpu()), 0);
	el = small_ring(&ch, &why);
	if (!el) {
		if (why)
			SKIP(why);
		goto out;
	}
	collect_init(&c, el, ch.pid);
	/* Each batch (20 x 56 bytes) fits the 4 KiB ring: drain between. */
	for (i = 0; i < NR_BATCHES; i++) {
		CHECK_INT(child_round(&ch, 'b'), 0);
		CHECK_INT(drain(el, &c), 0);
	}
	child_end(&ch);
	CHECK_INT(drain(el, &c), 0);
	evlist__stats(el, &st);
	CHECK_U64(c.tid_samples[0], BATCH * NR_BATCHES);
	CHECK_U64(c.bad, 0);
	CHECK_U64(c.lost, 0);
	CHECK_U64(st.lost, 0);
	CHECK_U64(st.samples, BATCH * NR_BATCHES);
	CHECK_U64(st.bytes, c.bytes);
	CHECK(st.bytes > 8 * 4096);	/* went round the ring many times */
	CHECK(c.wraps > 0);		/* and came in two chunks */
	free(c.buf);
	evlist__delete(el);
out:
	child_kill(&ch);
}

/* What evlist__drain_records() handed over, in ring order. */
struct records {
	pid_t tid;
	uint64_t pos;		/* bytes so far: where in the ring */
	uint64_t records, samples, tid_samples, split, bad;
};

static int count_record(void *ctx, const struct perf_event_header *h)
{
	const unsigned char *r = (const void *)h;
	struct records *rs = ctx;
	uint32_t tid;

	rs->records++;
	if (h->size < sizeof(*h) || h->size % 8)
		rs->bad++;
	/* It went round the one-page ring's end: handed over as a copy. */
	if (rs->pos % 4096 + h->size > 4096)
		rs->split++;
	rs->pos += h->size;
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	rs->samples++;
	/* identifier, ip, then pid and tid */
	if (h->size < 32) {
		rs->bad++;
		return 0;
	}
	memcpy(&tid, r + 28, sizeof(tid));
	if (tid == (uint32_t)rs->tid)
		rs->tid_samples++;
	return 0;
}

/*
 * Record by record round the same small ring: every record whole where it
 * wraps (a torn copy would lose the tid, or the next header).
 */
static void test_ring_records(void)
{
	const char *why = live_skip();
	struct evlist_stats st;
	struct child ch = { 0 };
	struct records rs = { 0 };
	struct evlist *el;
	int i;

	if (why) {
		SKIP(why);
		return;
	}
	CHECK_INT(child_start(&ch, body_batch, true, first_cpu()), 0);
	el = small_ring(&ch, &why);
	if (!el) {
		if (why)
			SKIP(why);
		goto out;
	}
	rs.tid = ch.pid;
	for (i = 0; i < NR_BATCHES; i++) {
		CHECK_INT(child_round(&ch, 'b'), 0);
		CHECK_INT(evlist__drain_records(el, count_record, &rs), 0);
	}
	child_end(&ch);
	CHECK_INT(evlist__drain_records(el, count_record, &rs), 0);
	evlist__stats(el, &st);
	CHECK_U64(rs.tid_samples, BATCH * NR_BATCHES);
	CHECK_U64(rs.samples, st.samples);
	CHECK_U64(rs.records, st.records);
	CHECK_U64(rs.pos, st.bytes);
	CHECK_U64(rs.bad, 0);
	CHECK_U64(st.lost, 0);
	CHECK(rs.split > 0);
	evlist__delete(el);
out:
	child_kill(&ch);
}

/*
 * The tracepoint filter on every fd: one that no hit passes, one that
 * every hit passes, one the kernel rejects.
 */
static void test_filter(void)
{
	const char *why = live_skip();
	struct records rs = { 0 };
	struct child ch = { 0 };
	struct evlist *el;
	char f[64];
	int pass;

	if (why) {
		SKIP(why);
		return;
	}
	CHECK_INT(child_start(&ch, body_batch, true, first_cpu()), 0);
	for (pass = 0; pass < 2; pass++) {
		snprintf(f, sizeof(f), "common_pid %s %d", pass ? "==" : "!=",
			 (int)ch.pid);
		el = small_ring_filter(&ch, f, &why);
		if (!el) {
			if (why)
				SKIP(why);
			goto out;
		}
		CHECK_INT(evsel__set_filter(evlist__evsel(el, 0), NULL),
			  -EBUSY);
		rs = (struct records){ .tid = ch.pid };
		CHECK_INT(child_round(&ch, 'b'), 0);
		CHECK_INT(evlist__drain_records(el, count_record, &rs), 0);
		CHECK_U64(rs.tid_samples, pass ? BATCH : 0);
		CHECK_U64(rs.samples, rs.tid_samples);
		evlist__delete(el);
	}

	el = evlist__new();
	CHECK_INT(add_event(el, "syscalls:sys_enter_getppid", 0), 0);
	CHECK_INT(evsel__set_filter(evlist__evsel(el, 0),
				    "no_such_field == 1"), 0);
	{
		struct evlist_target t = { .kind = EVLIST_TARGET_PID,
					   .pid = ch.pid };

		CHECK_INT(evlist__open(el, &t), -EINVAL);
	}
	CHECK(strstr(evlist__strerror(el), "no_such_field") != NULL);
	evlist__delete(el);
out:
	child_kill(&ch);
}

static void test_ring_lost(void)
{
	const char *why = live_skip();
	struct evlist_stats st;
	struct child ch = { 0 };
	struct collect c;
	struct evlist *el;

	if (why) {
		SKIP(why);
		return;
	}
	CHECK_INT(child_start(&ch, body_batch, true, first_cpu()), 0);
	el = small_ring(&ch, &why);
	if (!el) {
		if (why)
			SKIP(why);
		goto out;
	}
	collect_init(&c, el, ch.pid);
	/* FLOOD samples into a ring that holds ~70: most are lost. */
	CHECK_INT(child_round(&ch, 'f'), 0);
	CHECK_INT(drain(el, &c), 0);
	/*
	 * The kernel writes the LOST record in front of the next record
	 * that fits: one more sample, on the same CPU (pinned).
	 */
	CHECK_INT(child_round(&ch, '1'), 0);
	child_end(&ch);
	CHECK_INT(drain(el, &c), 0);
	evlist__stats(el, &st);
	CHECK(st.lost > 0);
	CHECK_U64(st.lost, c.lost);
	CHECK_U64(c.tid_samples[0] + c.lost, FLOOD + 1);
	CHECK_U64(c.bad, 0);
	CHECK_U64(st.bytes, c.bytes);
	free(c.buf);
	evlist__delete(el);
out:
	child_kill(&ch);
}

static void test_strerror(void)
{
	struct evlist_target t = { .kind = EVLIST_TARGET_CPUS };
	struct perf_event_attr a;
	struct evlist *el;
	int err;

	/* An event that cannot open: cycles without a PMU, else bogus. */
	el = evlist__new();
	CHECK_STR(evlist__strerror(el), "");
	CHECK_INT(evlist__open(el, &t), -EINVAL);	/* no events */
	CHECK(evlist__strerror(el)[0] != '\0');
	CHECK_INT(events__parse("cycles", &a, NULL), 0);
	if (!events__supported(&a, NULL)) {
		CHECK_INT(evlist__add(el, evsel__new(&a, "cycles")), 0);
		err = evlist__open(el, &t);
		CHECK(err < 0);
		CHECK(strstr(evlist__strerror(el), "cycles") != NULL);
		evlist__delete(el);
		el = evlist__new();
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = 0xfffffff0;
	a.sample_period = 1;
	CHECK_INT(evlist__add(el, evsel__new(&a, "bogus:tracepoint")), 0);
	err = evlist__open(el, &t);
	CHECK(err < 0);
	CHECK(strstr(evlist__strerror(el), "bogus:tracepoint") != NULL);
	/* Nothing stays open: mmap refuses, delete is clean. */
	CHECK_INT(evlist__mmap(el, 1), -EINVAL);
	evlist__delete(el);

	/* A process that does not exist. */
	el = evlist__new();
	CHECK_INT(events__parse("cpu-clock", &a, NULL), 0);
	CHECK_INT(evlist__add(el, evsel__new(&a, "cpu-clock")), 0);
	t.kind = EVLIST_TARGET_PID;
	t.pid = INT_MAX - 1;
	CHECK_INT(evlist__open(el, &t), -ESRCH);
	CHECK(strstr(evlist__strerror(el), "no such process") != NULL);
	evlist__delete(el);
}

UNIT_MAIN(UNIT(test_parse_names), UNIT(test_parse_tracepoint),
	  UNIT(test_supported), UNIT(test_tracepoints_glob),
	  UNIT(test_probe_attrs), UNIT(test_record_task),
	  UNIT(test_record_cpus), UNIT(test_record_uprobe),
	  UNIT(test_ring_wrap), UNIT(test_ring_records), UNIT(test_filter),
	  UNIT(test_ring_lost), UNIT(test_strerror))
