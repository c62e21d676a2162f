// SPDX-License-Identifier: GPL-2.0
/*
 * Bench workloads on this machine (real files, real forks) and the
 * results file: written, validated against the schema, read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "bench-results.h"
#include "bench-workload.h"
#include "results-out.h"
#include "unit.h"
#include "util.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Returns the child's exit status, or -1 if it did not exit normally. */
static int run_proc(int (*fn)(void *), void *arg)
{
	struct bench_proc *p = bench_proc__spawn(fn, arg);
	int status = 0, err;
	double real = -1;

	if (!p)
		return -1;
	err = bench_proc__start(p);
	if (!err)
		err = bench_proc__wait(p, &status, NULL, &real);
	bench_proc__delete(p);
	if (err || real < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static const char *cgroup_stat_file(void)
{
	if (access("/sys/fs/cgroup/unified/cgroup.stat", R_OK) == 0)
		return "/sys/fs/cgroup/unified/cgroup.stat";
	if (access("/sys/fs/cgroup/cgroup.stat", R_OK) == 0)
		return "/sys/fs/cgroup/cgroup.stat";
	return NULL;
}

static void reader_order(bool interleave)
{
	char *files[3] = { "/proc/self/stat", "/proc/uptime", NULL };
	const uint64_t reads = 50;
	struct wl_reader w = { 0 };
	unsigned int nf = 2;
	uint64_t *lat, i;
	int *err;

	if (cgroup_stat_file())
		files[nf++] = (char *)cgroup_stat_file();
	lat = bench_shared__alloc(reads * nf * sizeof(*lat) + 64);
	CHECK(lat != NULL);
	if (!lat)
		return;
	w.files = files;
	w.nr_files = nf;
	w.reads = reads;
	w.interleave = interleave;
	w.lat_ns = lat;
	w.done = lat + reads * nf;
	err = (int *)(w.done + 1);
	w.err = err;
	/* Slots the reader does not write stay at this mark. */
	for (i = 0; i < reads * nf; i++)
		lat[i] = UINT64_MAX;
	CHECK_INT(run_proc(wl_reader, &w), 0);
	CHECK_U64(*w.done, reads * nf);
	CHECK_INT(*err, 0);
	for (i = 0; i < reads * nf; i++) {
		if (lat[i] == 0 || lat[i] == UINT64_MAX) {
			UNIT_FAIL("slot %" PRIu64 " = %" PRIu64, i, lat[i]);
			break;
		}
	}
	bench_shared__free(lat, reads * nf * sizeof(*lat) + 64);
}

static void test_reader_interleave(void)
{
	reader_order(true);
}

static void test_reader_discrete(void)
{
	reader_order(false);
}

/* The slot order: one slow file tells which slots are its. */
static void test_reader_slots(void)
{
	static char big[] = "/proc/self/smaps", small[] = "/proc/uptime";
	char *files[2] = { big, small };
	struct wl_reader w = { 0 };
	const uint64_t reads = 20;
	uint64_t *lat, big_sum[2] = { 0 }, small_sum[2] = { 0 }, i;
	int order, err = 0;

	lat = bench_shared__alloc(4096);
	CHECK(lat != NULL);
	if (!lat)
		return;
	for (order = 0; order < 2; order++) {
		w.files = files;
		w.nr_files = 2;
		w.reads = reads;
		w.interleave = order == 0;
		w.lat_ns = lat;
		w.done = lat + 2 * reads;
		w.err = &err;
		CHECK_INT(run_proc(wl_reader, &w), 0);
		for (i = 0; i < reads; i++) {
			/* interleave: even slots big; discrete: first half. */
			big_sum[order] += order == 0 ? lat[2 * i] : lat[i];
			small_sum[order] += order == 0 ? lat[2 * i + 1] :
					    lat[reads + i];
		}
		CHECK(big_sum[order] > small_sum[order]);
	}
	bench_shared__free(lat, 4096);
}

/*
 * A read at offset 0 formats a seq_file again: /proc/uptime read twice
 * 20 ms apart through one descriptor shows two different values.
 */
struct uptime_arg {
	char *out;	/* shared: two 64-byte slots */
};

static int read_uptime_twice(void *arg)
{
	struct uptime_arg *a = arg;
	int fd = open("/proc/uptime", O_RDONLY), i;
	ssize_t n;

	if (fd < 0)
		return errno;
	for (i = 0; i < 2; i++) {
		n = pread(fd, a->out + 64 * i, 63, 0);
		if (n <= 0)
			return EIO;
		sleep_ms(30);
	}
	close(fd);
	return 0;
}

static void test_reader_rereads(void)
{
	struct uptime_arg a;

	a.out = bench_shared__alloc(128);
	CHECK(a.out != NULL);
	if (!a.out)
		return;
	CHECK_INT(run_proc(read_uptime_twice, &a), 0);
	CHECK(a.out[0] && a.out[64]);
	CHECK(strcmp(a.out, a.out + 64) != 0);
	bench_shared__free(a.out, 128);
}

static void test_reader_missing_file(void)
{
	char *files[1] = { "/nonexistent/stat" };
	struct wl_reader w = { 0 };
	uint64_t *sh = bench_shared__alloc(4096);

	CHECK(sh != NULL);
	if (!sh)
		return;
	w.files = files;
	w.nr_files = 1;
	w.reads = 3;
	w.lat_ns = sh;
	w.done = sh + 3;
	w.err = (int *)(sh + 4);
	CHECK_INT(run_proc(wl_reader, &w), ENOENT);
	CHECK_U64(*w.done, 0);
	CHECK_INT(*w.err, ENOENT);
	bench_shared__free(sh, 4096);
}

static void test_pipe(void)
{
	double *sec = bench_shared__alloc(sizeof(double));
	struct wl_pipe w = { 2000, sec };

	CHECK(sec != NULL);
	if (!sec)
		return;
	CHECK_INT(run_proc(wl_pipe_pingpong, &w), 0);
	CHECK(*sec > 0);
	bench_shared__free(sec, sizeof(double));
}

static void test_fault(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t *sh = bench_shared__alloc(4096);
	struct wl_fault w = { 64 * ps, sh, (volatile int *)(sh + 1) };
	struct bench_proc *p;
	int status = -1;

	CHECK(sh != NULL);
	if (!sh)
		return;
	p = bench_proc__spawn(wl_fault, &w);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(bench_proc__start(p), 0);
	sleep_ms(200);
	CHECK(*w.faults > 0);
	CHECK_U64(*w.faults % 64, 0);
	/* The stop flag ends it cleanly, with status 0. */
	*w.stop = 1;
	CHECK_INT(bench_proc__wait(p, &status, NULL, NULL), 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_U64(*w.faults % 64, 0);
	bench_proc__delete(p);
	bench_shared__free(sh, 4096);
}

static bool is_zombie_or_gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

static void stop_cleanly(int (*fn)(void *), void *arg)
{
	struct bench_proc *p = bench_proc__spawn(fn, arg);
	struct rusage ru;
	int status = 0;
	double real = 0;
	pid_t pid;

	CHECK(p != NULL);
	if (!p)
		return;
	pid = bench_proc__pid(p);
	CHECK_INT(bench_proc__start(p), 0);
	sleep_ms(150);
	CHECK_INT(bench_proc__stop(p), 0);
	CHECK_INT(bench_proc__stop(p), 0);	/* idempotent */
	CHECK_INT(bench_proc__wait(p, &status, &ru, &real), 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	CHECK(real > 0.1);
	CHECK(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	      ru.ru_utime.tv_usec + ru.ru_stime.tv_usec > 0);
	/* Reaped: no zombie left. */
	CHECK(is_zombie_or_gone(pid));
	CHECK(waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD);
	bench_proc__delete(p);
}

static void test_cpu_spin_stop(void)
{
	stop_cleanly(wl_cpu_spin, NULL);
}

static void test_memory_churn_stop(void)
{
	const char *file = unit_tmp_path("sparse");
	struct wl_memory w = {
		.anon_bytes = 4 << 20, .dirfd = AT_FDCWD, .file = file,
		.file_bytes = 4 << 20, .anon = true, .pagecache = true,
	};

	CHECK_INT(bench_sparse_file(AT_FDCWD, file, 4 << 20), 0);
	stop_cleanly(wl_memory_churn, &w);
}

/*
 * /proc/PID/stat: its state letter and its CPU ticks (utime + stime);
 * '?' and 0 ticks when it cannot be read.
 */
static char proc_state(pid_t pid, unsigned long long *ticks)
{
	char path[64], buf[512], *p;
	unsigned long long ut = 0, st = 0;
	char state = '?';
	FILE *f;

	*ticks = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return '?';
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &state, &ut, &st) != 3)
		state = '?';
	fclose(f);
	*ticks = ut + st;
	return state;
}

/* The state a child reaches within a second, polled. */
static char wait_state(pid_t pid, char want, unsigned long long *ticks)
{
	char st = '?';
	int i;

	for (i = 0; i < 100; i++) {
		st = proc_state(pid, ticks);
		if (st == want)
			break;
		sleep_ms(10);
	}
	return st;
}

/*
 * Held children stop using the CPU and go on when let go; held ones
 * still end by SIGTERM (SIGCONT follows it), not by the SIGKILL a second
 * later.
 */
static void test_hold_all(void)
{
	struct bench_proc *p[2];
	unsigned long long t0, t1;
	struct timespec a, b;
	int i, status = 0;

	for (i = 0; i < 2; i++) {
		p[i] = bench_proc__spawn(wl_cpu_spin, NULL);
		CHECK(p[i] != NULL);
		if (!p[i])
			return;
		CHECK_INT(bench_proc__start(p[i]), 0);
	}
	bench_proc__hold_all(p, 2, true);
	for (i = 0; i < 2; i++) {
		CHECK(wait_state(bench_proc__pid(p[i]), 'T', &t0) == 'T');
		sleep_ms(100);
		CHECK(proc_state(bench_proc__pid(p[i]), &t1) != '?');
		CHECK_INT(t1 - t0, 0);
	}
	bench_proc__hold_all(p, 2, false);
	for (i = 0; i < 2; i++) {
		CHECK(wait_state(bench_proc__pid(p[i]), 'R', &t0) == 'R');
		sleep_ms(100);
		CHECK(proc_state(bench_proc__pid(p[i]), &t1) != '?');
		CHECK(t1 > t0);
	}
	bench_proc__hold_all(p, 2, true);
	CHECK(wait_state(bench_proc__pid(p[1]), 'T', &t0) == 'T');
	clock_gettime(CLOCK_MONOTONIC, &a);
	bench_proc__stop_all(p, 2);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < 0.9);
	for (i = 0; i < 2; i++) {
		CHECK_INT(bench_proc__wait(p[i], &status, NULL, NULL), 0);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
		bench_proc__delete(p[i]);
	}
}

static void test_never_started(void)
{
	struct bench_proc *p = bench_proc__spawn(wl_cpu_spin, NULL);
	int status = 0;

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(bench_proc__wait(p, &status, NULL, NULL), -EINVAL);
	CHECK_INT(bench_proc__stop(p), 0);
	bench_proc__delete(p);
}

/*
 * PDEATHSIG: an intermediate process spawns a workload and is SIGKILLed;
 * the workload must die too. Its pid comes back through shared memory.
 */
static int intermediate(void *arg)
{
	volatile pid_t *pid = arg;
	struct bench_proc *p = bench_proc__spawn(wl_cpu_spin, NULL);

	if (!p || bench_proc__start(p))
		return 1;
	*pid = bench_proc__pid(p);
	for (;;)
		pause();
	return 0;
}

static void test_pdeathsig(void)
{
	volatile pid_t *pid = bench_shared__alloc(4096);
	struct bench_proc *mid;
	int i;

	CHECK(pid != NULL);
	if (!pid)
		return;
	/* The orphan is reparented to us, so that we can reap it. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	mid = bench_proc__spawn(intermediate, (void *)pid);
	CHECK(mid != NULL);
	if (!mid)
		return;
	CHECK_INT(bench_proc__start(mid), 0);
	for (i = 0; i < 200 && !*pid; i++)
		sleep_ms(5);
	CHECK(*pid > 0);
	kill(bench_proc__pid(mid), SIGKILL);
	bench_proc__delete(mid);
	for (i = 0; i < 200; i++) {
		if (*pid <= 0 || waitpid(*pid, NULL, WNOHANG) == *pid ||
		    is_zombie_or_gone(*pid))
			break;
		sleep_ms(5);
	}
	CHECK(i < 200);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	bench_shared__free((void *)pid, 4096);
}

static void test_charge(void)
{
	struct wl_charge w = {
		.dirfd = AT_FDCWD, .file = unit_tmp_path("charge"),
		.bytes = 8192,
	};
	struct stat st;

	CHECK_INT(run_proc(wl_charge, &w), 0);
	CHECK(stat(w.file, &st) == 0 && st.st_size == 8192);
}

static void test_timer_overhead(void)
{
	uint64_t lo = 0, med = 0;

	CHECK_INT(bench_timer_overhead(&lo, &med), 0);
	CHECK(med > 0 && med < 10000);
	CHECK(lo <= med);
}

/* --- results --------------------------------------------------------- */

static struct bench_results *make_results(void)
{
	static const char *const files[] = { "cgroup.stat", "cpu.stat" };
	static const char *const v2[] = { "cpu", "pids" };
	static const char *const v1[] = { "memory" };
	struct bench_provenance prov = {
		.cgroup_layout = "hybrid",
		.v2_controllers = v2, .nr_v2_controllers = 2,
		.v1_controllers = v1, .nr_v1_controllers = 1,
		.before = { 12, 3, -1 }, .after = { 12, 40, 7 },
		.started = 1796068800, .finished = 1796068866,
		.command_line = "rstat-analyze bench stat-read -r 3 \"x\"",
	};
	struct bench_results *r = bench_results__new("stat-read");
	uint64_t vals[20000];
	struct hist *h;
	int rep, i, f;

	CHECK(r != NULL);
	if (!r)
		return NULL;
	CHECK_INT(bench_results__param_u64(r, "children", 26), 0);
	CHECK_INT(bench_results__param_u64(r, "depth", 1), 0);
	CHECK_INT(bench_results__param_str(r, "updater", "both"), 0);
	CHECK_INT(bench_results__param_strv(r, "files", files, 2), 0);
	CHECK_INT(bench_results__param_bool(r, "interleave", true), 0);
	CHECK_INT(bench_results__param_double(r, "memory_gb", 1.5), 0);
	/* Replaces the first. */
	CHECK_INT(bench_results__param_u64(r, "depth", 2), 0);
	CHECK_INT(bench_results__provenance(r, &prov), 0);
	CHECK_INT(bench_results__skip(r, "io.stat: no io controller"), 0);
	CHECK_INT(bench_results__rep_metric_value(r, "x", "1/s", false, 1),
		  -EINVAL);	/* before any repetition */
	for (rep = 0; rep < 3; rep++) {
		CHECK_INT(bench_results__rep_begin(r, 6.5 + rep, 0.25, 5.75),
			  0);
		for (f = 0; f < 2; f++) {
			/* 20000 values for cpu.stat: subsampled. */
			int n = f ? 20000 : 100;

			h = hist__new();
			for (i = 0; i < n; i++) {
				vals[i] = 1000 + (uint64_t)((i * 7919) % 5000) +
					  (uint64_t)rep;
				hist__add(h, vals[i]);
			}
			CHECK_INT(bench_results__rep_metric_hist(r, "read_ns",
					"ns", files[f], true, h, vals,
					(size_t)n), 0);
			CHECK_INT(bench_results__rep_metric_hist(r, "read_ns",
					"ns", files[f], true, h, vals,
					(size_t)n), -EEXIST);
			hist__delete(h);
		}
		CHECK_INT(bench_results__rep_metric_value(r, "reads_per_s",
				"1/s", false, 1234.5 + rep), 0);
	}
	CHECK_INT(bench_results__set_recording(r, "rstat.data"), 0);
	return r;
}

static bool same_strv(const char *const *a, size_t na, const char *const *b,
		      size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

static void compare_results(const struct bench_results *a,
			    const struct bench_results *b)
{
	const struct bench_provenance *pa, *pb;
	const struct bench_metric *ma, *mb;
	const struct bench_param *x, *y;
	char ta[256], tb[256];
	size_t i, j, k;

	CHECK_STR(bench_results__scenario(b), bench_results__scenario(a));
	CHECK_STR(bench_results__tool_version(b),
		  bench_results__tool_version(a));
	CHECK_INT(bench_results__nr_params(b), bench_results__nr_params(a));
	for (i = 0; i < bench_results__nr_params(a); i++) {
		x = bench_results__param(a, i);
		y = bench_results__param(b, i);
		CHECK_STR(y->key, x->key);
		bench_param__format(x, ta, sizeof(ta));
		bench_param__format(y, tb, sizeof(tb));
		CHECK_STR(tb, ta);
		if (x->type == BENCH_PARAM_U64)
			CHECK_U64(y->u64, x->u64);
	}
	x = bench_results__param_find(b, "memory_gb");
	CHECK(x && x->type == BENCH_PARAM_DOUBLE && x->dbl == 1.5);
	x = bench_results__param_find(b, "depth");
	CHECK(x && x->type == BENCH_PARAM_U64 && x->u64 == 2);
	pa = bench_results__get_provenance(a);
	pb = bench_results__get_provenance(b);
	CHECK(pa && pb);
	if (!pa || !pb)
		return;
	CHECK_STR(pb->hostname, pa->hostname);
	CHECK_STR(pb->kernel, pa->kernel);
	CHECK_STR(pb->kernel_version, pa->kernel_version);
	CHECK_STR(pb->arch, pa->arch);
	CHECK_INT(pb->cpus, pa->cpus);
	CHECK_STR(pb->cgroup_layout, "hybrid");
	CHECK(same_strv(pa->v2_controllers, pa->nr_v2_controllers,
			pb->v2_controllers, pb->nr_v2_controllers));
	CHECK(same_strv(pa->v1_controllers, pa->nr_v1_controllers,
			pb->v1_controllers, pb->nr_v1_controllers));
	CHECK(!memcmp(&pa->before, &pb->before, sizeof(pa->before)));
	CHECK(!memcmp(&pa->after, &pb->after, sizeof(pa->after)));
	CHECK_INT(pb->before.v1_memory, -1);
	CHECK_INT(pb->started, 1796068800);
	CHECK_INT(pb->finished, 1796068866);
	CHECK_STR(pb->command_line, pa->command_line);
	CHECK_INT(bench_results__nr_skipped(b), 1);
	CHECK_STR(bench_results__skipped(b, 0), "io.stat: no io controller");
	CHECK_STR(bench_results__recording(b), "rstat.data");
	CHECK_INT(bench_results__nr_reps(b), 3);
	for (i = 0; i < bench_results__nr_reps(a); i++) {
		CHECK(bench_results__rep_time(b, i)->real_s ==
		      bench_results__rep_time(a, i)->real_s);
		CHECK(bench_results__rep_time(b, i)->user_s == 0.25);
		CHECK_INT(bench_results__nr_metrics(b, i),
			  bench_results__nr_metrics(a, i));
		for (j = 0; j < bench_results__nr_metrics(a, i); j++) {
			ma = bench_results__metric(a, i, j);
			mb = bench_results__metric_find(b, i, ma->name,
							ma->file);
			CHECK(mb != NULL);
			if (!mb)
				return;
			CHECK_INT(mb->is_hist, ma->is_hist);
			CHECK_INT(mb->lower_is_better, ma->lower_is_better);
			CHECK_STR(mb->unit, ma->unit);
			if (!ma->is_hist) {
				CHECK(mb->value == ma->value);
				continue;
			}
			CHECK_U64(mb->count, ma->count);
			CHECK_U64(mb->min, ma->min);
			CHECK_U64(mb->p50, ma->p50);
			CHECK_U64(mb->p90, ma->p90);
			CHECK_U64(mb->p99, ma->p99);
			CHECK_U64(mb->max, ma->max);
			/* Written with 10 significant digits. */
			CHECK(fabs(mb->mean - ma->mean) <= 1e-9 * ma->mean);
			CHECK(fabs(mb->stddev - ma->stddev) <=
			      1e-9 * ma->stddev);
			CHECK_INT(mb->nr_buckets, ma->nr_buckets);
			for (k = 0; k < ma->nr_buckets; k++)
				CHECK(!memcmp(&mb->buckets[k], &ma->buckets[k],
					      sizeof(ma->buckets[k])));
			CHECK_INT(mb->nr_samples, ma->nr_samples);
			CHECK(!memcmp(mb->samples, ma->samples,
				      ma->nr_samples * sizeof(uint64_t)));
		}
	}
}

static bool have_python(void)
{
	return unit_sh("command -v python3 >/dev/null 2>&1") == 0;
}

static int validate_to(const char *path, const char *errors)
{
	return unit_sh("python3 '%s/shell/bench-schema.py' "
		       "'%s/../docs/bench-results.schema.json' '%s' 2>%s",
		       unit_srcdir(), unit_srcdir(), path, errors);
}

static int validate(const char *path)
{
	return validate_to(path, "&2");
}

static void test_results_roundtrip(void)
{
	const char *path = unit_tmp_path("results.json");
	const char *again = unit_tmp_path("again.json");
	struct bench_results *r = make_results(), *b = NULL;
	const struct bench_metric *m;
	char err[256];
	FILE *f;

	if (!r)
		return;
	m = bench_results__metric_find(r, 0, "read_ns", "cpu.stat");
	CHECK(m && m->count == 20000 && m->nr_samples == 10000);
	m = bench_results__metric_find(r, 0, "read_ns", "cgroup.stat");
	CHECK(m && m->count == 100 && m->nr_samples == 100);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		goto out;
	CHECK_INT(bench_results__write(r, f), 0);
	fclose(f);
	if (have_python())
		CHECK_INT(validate(path), 0);
	CHECK_INT(bench_results__read(&b, path, err, sizeof(err)), 0);
	if (!b) {
		UNIT_FAIL("%s", err);
		goto out;
	}
	compare_results(r, b);
	/* Read back and written again: the same bytes. */
	f = fopen(again, "w");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(bench_results__write(b, f), 0);
		fclose(f);
		CHECK_INT(unit_sh("cmp -s '%s' '%s'", path, again), 0);
	}
	f = fopen("/dev/null", "w");
	if (f) {
		CHECK_INT(bench_results__print(r, f, 1000, "usecs"), 0);
		CHECK_INT(bench_results__print(b, f, 1000, "usecs"), 0);
		fclose(f);
	}
out:
	bench_results__delete(b);
	bench_results__delete(r);
}

/* Terminal form: time(1) lines, funclatency rows, all in 80 columns. */
static void test_results_print(void)
{
	const char *path = unit_tmp_path("print.txt");
	struct bench_results *r = make_results();
	FILE *f;

	if (!r)
		return;
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(bench_results__print(r, f, 1000, "usecs"), 0);
		fclose(f);
	}
	CHECK_INT(unit_sh("grep -q '^real 0m6.500s$' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^sys 0m5.750s$' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^     usecs               : count     distribution$' '%s'",
			  path), 0);
	CHECK_INT(unit_sh("grep -q '^min = 1 usecs$' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^Summary of 3 repetitions' '%s'", path),
		  0);
	CHECK_INT(unit_sh("awk 'length > 80 { exit 1 }' '%s'", path), 0);
	bench_results__delete(r);
}

/*
 * With the unit left to it, a sub-microsecond read prints in nsecs (not
 * "p50 = 0 usecs"), a slower one in usecs; no figure takes an exponent.
 */
static void test_results_print_units(void)
{
	const char *path = unit_tmp_path("units.txt");
	struct bench_results *r = bench_results__new("stat-read");
	uint64_t fast[100], slow[100];
	struct hist *hf = hist__new(), *hs = hist__new();
	FILE *f;
	int i;

	CHECK(r && hf && hs);
	if (!r || !hf || !hs)
		goto out;
	for (i = 0; i < 100; i++) {
		fast[i] = 560 + i;	/* p50 609 ns */
		slow[i] = 8000 + 10 * i;
		hist__add(hf, fast[i]);
		hist__add(hs, slow[i]);
	}
	/* A skip line as long as the real ones (issue 14: 104 columns). */
	CHECK_INT(bench_results__skip(r, "PSI on/off: PSI can't be toggled per cgroup here (no cgroup.pressure: needs a v2 hierarchy, CONFIG_PSI and v6.x)"),
		  0);
	for (i = 0; i < 2; i++) {	/* two repetitions: a summary too */
		CHECK_INT(bench_results__rep_begin(r, 0.0000545, 0.0,
						   0.0000545), 0);
		CHECK_INT(bench_results__rep_metric_hist(r, "read_ns", "ns",
							 "cpu.stat", true, hf,
							 fast, 100), 0);
		CHECK_INT(bench_results__rep_metric_hist(r, "read_ns", "ns",
							 "memory.stat", true,
							 hs, slow, 100), 0);
		CHECK_INT(bench_results__rep_metric_value(r, "reads_per_s",
							  "1/s", false,
							  1234567.25), 0);
	}
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(bench_results__print(r, f, 0, NULL), 0);
		fclose(f);
	}
	CHECK_INT(unit_sh("grep -q '^p50 = 609 nsecs, ' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^min = 560 nsecs$' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^min = 8 usecs$' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^reads_per_s: 1234567 1/s' '%s'", path),
		  0);
	CHECK_INT(unit_sh("grep -q 'read_ns cpu.stat (nsecs)' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q 'read_ns memory.stat (usecs)' '%s'", path),
		  0);
	CHECK_INT(unit_sh("grep -q '0.000055' '%s'", path), 0);
	CHECK_INT(unit_sh("grep -q '^skipped: PSI on/off' '%s'", path), 0);
	/* Wrapped, not cut: the rest on an indented line. */
	CHECK_INT(unit_sh("grep -q '^  .*CONFIG_PSI and v6.x)$' '%s'", path),
		  0);
	CHECK_INT(unit_sh("grep -Eq '[0-9]e[-+][0-9]' '%s'", path), 1);
	CHECK_INT(unit_sh("grep -q ' 0 usecs' '%s'", path), 1);
	CHECK_INT(unit_sh("awk 'length > 80 { exit 1 }' '%s'", path), 0);
out:
	hist__delete(hf);
	hist__delete(hs);
	bench_results__delete(r);
}

/*
 * The recorded pass goes out under "recording" and comes back the same;
 * a /1 file may not carry one (it came with /2).
 */
static void test_results_recorded_pass(void)
{
	const char *path = unit_tmp_path("pass.json");
	const char *again = unit_tmp_path("pass2.json");
	struct bench_results *r = bench_results__new("stat-read"), *b = NULL;
	const struct bench_metric *m;
	uint64_t v[3] = { 600, 700, 800 };
	struct hist *h = hist__new();
	char err[256];
	FILE *f;
	int i;

	CHECK(r && h);
	if (!r || !h)
		goto out;
	for (i = 0; i < 3; i++)
		hist__add(h, v[i]);
	CHECK_INT(bench_results__rep_begin(r, 1, 0, 1), 0);
	CHECK_INT(bench_results__rep_metric_hist(r, "read_ns", "ns",
						 "cpu.stat", true, h, v, 3), 0);
	CHECK_INT(bench_results__set_recording(r, "rstat.data"), 0);
	CHECK_INT(bench_results__recorded_begin(r, 9, 1, 8), 0);
	CHECK_INT(bench_results__recorded_begin(r, 9, 1, 8), -EEXIST);
	hist__delete(h);
	h = hist__new();
	for (i = 0; i < 3 && h; i++) {
		v[i] *= 12;
		hist__add(h, v[i]);
	}
	CHECK_INT(bench_results__rep_metric_hist(r, "read_ns", "ns",
						 "cpu.stat", true, h, v, 3), 0);
	/* The repetition kept its own figures. */
	m = bench_results__metric_find(r, 0, "read_ns", "cpu.stat");
	CHECK(m && m->p50 == 700);
	m = bench_results__recorded_metric_find(r, "read_ns", "cpu.stat");
	CHECK(m && m->p50 == 8400);
	CHECK(bench_results__recorded_time(r) &&
	      bench_results__recorded_time(r)->real_s == 9);
	CHECK_INT(bench_results__nr_reps(r), 1);
	f = fopen(path, "w");
	if (f) {
		CHECK_INT(bench_results__write(r, f), 0);
		fclose(f);
	}
	if (have_python())
		CHECK_INT(validate(path), 0);
	if (bench_results__read(&b, path, err, sizeof(err)))
		UNIT_FAIL("%s", err);
	if (!b) {
		UNIT_FAIL("%s", err);
		goto out;
	}
	m = bench_results__recorded_metric_find(b, "read_ns", "cpu.stat");
	CHECK(m && m->p50 == 8400 && m->count == 3);
	f = fopen(again, "w");
	if (f) {
		CHECK_INT(bench_results__write(b, f), 0);
		fclose(f);
		CHECK_INT(unit_sh("cmp -s '%s' '%s'", path, again), 0);
	}
	/*
	 * Printed as what recording cost: the p50 12x, the real time 9 s
	 * against 1 s, 9x, each row with its 'slower by'.
	 */
	f = fopen(again, "w");
	if (f) {
		CHECK_INT(bench_results__print(b, f, 0, NULL), 0);
		fclose(f);
		CHECK_INT(unit_sh("grep -q '^read_ns cpu.stat p50 (us) .* 12.00x$' '%s'",
				  again), 0);
		CHECK_INT(unit_sh("grep -q '^real (s) .* 9.00x$' '%s'",
				  again), 0);
	}
	bench_results__delete(b);
	b = NULL;
	/* A /1 file with a pass is refused: /1 had none. */
	CHECK_INT(unit_sh("sed -i 's|rstat-analyze-bench/4|rstat-analyze-bench/1|' '%s'",
			  path), 0);
	CHECK(bench_results__read(&b, path, err, sizeof(err)) != 0);
	CHECK(strstr(err, "\"pass\"") != NULL);
out:
	hist__delete(h);
	bench_results__delete(b);
	bench_results__delete(r);
}

static void test_results_no_provenance_null(void)
{
	const char *path = unit_tmp_path("bare.json");
	struct bench_results *r = bench_results__new("pipe"), *b = NULL;
	char err[256];
	FILE *f;

	CHECK(r != NULL);
	if (!r)
		return;
	f = fopen(path, "w");
	/* No repetition yet. */
	CHECK_INT(bench_results__write(r, f), -EINVAL);
	CHECK_INT(bench_results__rep_begin(r, 1, 0, 0), 0);
	CHECK_INT(bench_results__rep_metric_value(r, "round_trips_per_s",
						  "1/s", false, 1e5), 0);
	rewind(f);
	CHECK_INT(bench_results__write(r, f), 0);
	fclose(f);
	if (have_python())
		CHECK_INT(validate(path), 0);
	CHECK_INT(bench_results__read(&b, path, err, sizeof(err)), 0);
	CHECK(b && !bench_results__get_provenance(b) &&
	      !bench_results__recording(b));
	bench_results__delete(b);
	bench_results__delete(r);
}

/*
 * A guest run's clock, as bench --kernel adds it: written, validated
 * against the schema, read back the same; a drift too short to measure
 * is null; a bad member is refused.
 */
/*
 * bench --variant: each run's repetition moves into the variant's
 * results; the first brings the parameters and provenance, later ones
 * the end of the span; a skipped part is said once; the whole writes,
 * validates and reads back with every repetition in order.
 */
static void test_results_take_reps(void)
{
	const char *path = unit_tmp_path("take.json");
	struct bench_results *acc = bench_results__new("stat-read");
	struct bench_results *a = make_results(), *b = make_results();
	struct bench_results *other = bench_results__new("pipe"), *back = NULL;
	const struct bench_provenance later = {
		.cgroup_layout = "v2", .before = { 1, 2, 3 },
		.after = { 12, 41, 7 }, .started = 1796068900,
		.finished = 1796069000,
	};
	const struct bench_provenance *prov;
	const struct bench_metric *m;
	char err[256];
	FILE *f;

	if (!acc || !a || !b || !other)
		goto out;
	/* A recorded pass is never a variant's repetition. */
	CHECK_INT(bench_results__recorded_begin(b, 1, 0, 0), 0);
	CHECK_INT(bench_results__take_reps(acc, b), -EINVAL);
	bench_results__delete(b);
	b = make_results();
	CHECK_INT(bench_results__take_reps(acc, other), -EINVAL);
	CHECK_INT(bench_results__take_reps(acc, a), 0);
	CHECK_INT(bench_results__nr_reps(a), 0);
	CHECK_INT(bench_results__nr_reps(acc), 3);
	CHECK(bench_results__param_find(acc, "updater") != NULL);
	CHECK_INT(bench_results__param_find(acc, "depth")->u64, 2);
	CHECK_INT(bench_results__nr_skipped(acc), 1);
	/* The second run: its span's end, the same skip not said again. */
	CHECK_INT(bench_results__provenance(b, &later), 0);
	CHECK_INT(bench_results__rep_begin(b, 99.5, 1, 2), 0);
	CHECK_INT(bench_results__rep_metric_value(b, "reads_per_s", "1/s",
						  false, 7), 0);
	CHECK_INT(bench_results__take_reps(acc, b), 0);
	CHECK_INT(bench_results__nr_reps(acc), 7);
	CHECK_INT(bench_results__nr_skipped(acc), 1);
	prov = bench_results__get_provenance(acc);
	CHECK(prov && prov->started == 1796068800 &&
	      prov->finished == 1796069000 && prov->after.v2_dying == 41 &&
	      prov->before.v2_dying == 3);
	CHECK_STR(prov->cgroup_layout, "hybrid");
	f = fopen(path, "w");
	CHECK_INT(bench_results__write(acc, f), 0);
	fclose(f);
	if (have_python())
		CHECK_INT(validate(path), 0);
	CHECK_INT(bench_results__read(&back, path, err, sizeof(err)), 0);
	if (back) {
		CHECK_INT(bench_results__nr_reps(back), 7);
		CHECK(bench_results__rep_time(back, 6)->real_s == 99.5);
		m = bench_results__metric_find(back, 6, "reads_per_s", NULL);
		CHECK(m && m->value == 7);
		m = bench_results__metric_find(back, 3, "read_ns",
					       "cpu.stat");
		CHECK(m && m->count == 20000);
	}
out:
	bench_results__delete(back);
	bench_results__delete(other);
	bench_results__delete(a);
	bench_results__delete(b);
	bench_results__delete(acc);
}

static void test_results_vm_clock(void)
{
	const char *path = unit_tmp_path("clock.json");
	const struct bench_vm_clock drifted = {
		.guest_s = 316.0, .host_s = 73.0, .drift = 316.0 / 73.0 - 1,
		.ok = false, .clocksource = "hpet",
	}, brief = {
		.icount = true, .guest_s = 1.5, .host_s = 1.2, .drift = NAN,
		.ok = false, .clocksource = "tsc",
	};
	const struct bench_vm_clock *got;
	struct bench_results *r = make_results(), *b = NULL;
	char err[256];
	FILE *f;

	if (!r)
		return;
	CHECK(bench_results__vm_clock(r) == NULL);
	CHECK_INT(bench_results__set_vm_clock(r, &drifted), 0);
	f = fopen(path, "w");
	CHECK_INT(bench_results__write(r, f), 0);
	fclose(f);
	if (have_python())
		CHECK_INT(validate(path), 0);
	CHECK_INT(bench_results__read(&b, path, err, sizeof(err)), 0);
	got = b ? bench_results__vm_clock(b) : NULL;
	CHECK(got != NULL);
	if (got) {
		CHECK(!got->icount && !got->ok);
		CHECK(got->guest_s == 316.0 && got->host_s == 73.0);
		CHECK(fabs(got->drift - (316.0 / 73.0 - 1)) < 1e-9);
		CHECK_STR(got->clocksource, "hpet");
	}
	bench_results__delete(b);
	b = NULL;
	CHECK_INT(bench_results__set_vm_clock(r, &brief), 0);
	f = fopen(path, "w");
	CHECK_INT(bench_results__write(r, f), 0);
	fclose(f);
	CHECK_INT(unit_sh("grep -q '\"drift\": null' '%s'", path), 0);
	CHECK_INT(bench_results__read(&b, path, err, sizeof(err)), 0);
	got = b ? bench_results__vm_clock(b) : NULL;
	CHECK(got && got->icount && isnan(got->drift));
	bench_results__delete(b);
	b = NULL;
	CHECK_INT(unit_sh("sed -i 's|\"clock\": \"icount\"|\"clock\": \"fast\"|' '%s'",
			  path), 0);
	CHECK_INT(bench_results__read(&b, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "\"clock\": expected real or icount") != NULL);
	bench_results__delete(b);
	bench_results__delete(r);
}

struct bad_case {
	const char *json;
	int line;
	const char *what;	/* part of the message */
};

static void test_results_bad(void)
{
	static const struct bad_case cases[] = {
		{ "", 1, "end of input" },
		{ "{\n\"schema\": \"rstat-analyze-bench/1\",\n\"scenario\": \"x", 3,
		  "unterminated" },
		{ "{\"schema\": \"rstat-analyze-bench/5\"}", 1, "schema" },
		{ "[1,\n2,\n]", 3, "unexpected" },
		{ "{\"a\":1,\"a\":2}", 1, "duplicate" },
		{ "{\"a\":1} x", 1, "trailing" },
		{ "1e999", 1, "out of range" },
		{ "18446744073709551616", 1, "out of range" },
		{ "-", 1, "invalid number" },
		{ "01", 1, "leading zero" },
		{ "\"\\u0000\"", 1, "escape" },
		{ "\"\\ud800\"", 1, "escape" },
		{ "\"\xff\"", 1, "UTF-8" },
		{ "nul", 1, "literal" },
		{ "{\"schema\": \"rstat-analyze-bench/1\", \"x\": 1}", 1,
		  "unknown member" },
	};
	struct bench_results *r;
	char err[256], deep[200], line[16];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = (struct bench_results *)1;
		ret = bench_results__read_mem(&r, cases[i].json,
					      strlen(cases[i].json), "t.json",
					      err, sizeof(err));
		snprintf(line, sizeof(line), "line %d:", cases[i].line);
		if (ret != -EINVAL || r || !strstr(err, cases[i].what) ||
		    !strstr(err, line) || strncmp(err, "t.json: ", 8))
			UNIT_FAIL("case %zu: %d \"%s\"", i, ret, err);
	}
	memset(deep, '[', sizeof(deep));
	ret = bench_results__read_mem(&r, deep, sizeof(deep), "t.json", err,
				      sizeof(err));
	CHECK_INT(ret, -EINVAL);
	CHECK(strstr(err, "nested deeper") != NULL);
	CHECK_INT(bench_results__read(&r, "/nonexistent.json", err,
				      sizeof(err)), -ENOENT);
}

/* A valid file with one thing wrong at a time: the reader names it. */
static void test_results_bad_fields(void)
{
	static const struct {
		const char *sed, *what;
	} cases[] = {
		{ "s/\"children\": 26/\"children\": null/", "param \"children\"" },
		{ "s/\"cpus\": [0-9]*/\"cpus\": \"2\"/", "\"cpus\"" },
		{ "s/\"cpus\": [0-9]*/\"cpus\": 0/", "\"cpus\"" },
		{ "0,/\"real_s\": 6.5/s//\"real_s\": -1/", "\"real_s\"" },
		{ "0,/\"index\": 1/s//\"index\": 2/", "\"index\"" },
		{ "0,/\"better\": \"lower\"/s//\"better\": \"less\"/",
		  "\"better\"" },
		{ "0,/\"kind\": \"hist\"/s//\"kind\": \"value\"/",
		  "unknown member" },
		{ "0,/\"count\": 100,/s//\"count\": 101,/", "hist" },
		{ "0,/\"p50\": /s//\"p5\": /", "unknown member" },
		{ "s/\"started\": \"\\([^\"]*\\)\"/\"started\": \"yesterday\"/",
		  "\"started\"" },
		{ "s/\"cgroup_layout\": \"hybrid\"/\"cgroup_layout\": \"v3\"/",
		  "cgroup_layout" },
		{ "0,/\"v1_memory\": null/s//\"v1_memory\": -1/", "v1_memory" },
		{ "s/\"file\": \"rstat.data\"/\"file\": 5/", "\"file\"" },
	};
	const char *good = unit_tmp_path("good.json");
	const char *bad = unit_tmp_path("bad.json");
	struct bench_results *r = make_results(), *b;
	char err[256];
	size_t i;
	FILE *f;

	if (!r)
		return;
	f = fopen(good, "w");
	CHECK(f != NULL);
	if (!f)
		goto out;
	CHECK_INT(bench_results__write(r, f), 0);
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (unit_sh("sed '%s' '%s' > '%s'", cases[i].sed, good, bad) ||
		    unit_sh("cmp -s '%s' '%s'", good, bad) == 0) {
			UNIT_FAIL("case %zu: sed did not change the file", i);
			continue;
		}
		b = NULL;
		if (bench_results__read(&b, bad, err, sizeof(err)) != -EINVAL ||
		    b || !strstr(err, cases[i].what) || !strstr(err, ": line "))
			UNIT_FAIL("case %zu: \"%s\"", i, err);
		bench_results__delete(b);
		if (have_python() && validate_to(bad, "/dev/null") == 0 &&
		    !strstr(cases[i].what, "index") &&
		    !strstr(cases[i].what, "hist"))
			UNIT_FAIL("case %zu: the schema accepts it", i);
	}
out:
	bench_results__delete(r);
}

static void test_cleanup(void)
{
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_reader_interleave), UNIT(test_reader_discrete),
	  UNIT(test_reader_slots), UNIT(test_reader_rereads),
	  UNIT(test_reader_missing_file), UNIT(test_pipe), UNIT(test_fault),
	  UNIT(test_cpu_spin_stop), UNIT(test_memory_churn_stop),
	  UNIT(test_hold_all), UNIT(test_never_started),
	  UNIT(test_pdeathsig), UNIT(test_charge),
	  UNIT(test_timer_overhead), UNIT(test_results_roundtrip),
	  UNIT(test_results_print), UNIT(test_results_print_units),
	  UNIT(test_results_recorded_pass),
	  UNIT(test_results_no_provenance_null), UNIT(test_results_vm_clock),
	  UNIT(test_results_take_reps),
	  UNIT(test_results_bad), UNIT(test_results_bad_fields),
	  UNIT_CLEANUP(test_cleanup))
