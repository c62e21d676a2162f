// SPDX-License-Identifier: GPL-2.0
/*
 * The bench run's cgroup tree on the real kernel: creation in every
 * hierarchy the layout needs (v2, v1, hybrid), joining, file mapping,
 * destruction of busy and forking trees, stale-run cleanup, keep, --root
 * and the non-root error. Every case checks at its end that no
 * rstat-analyze-bench-<PID> directory of this test is left in any
 * hierarchy, and removes what it finds by hand if one is, so that a
 * failing case leaves the machine clean too.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "bench-cgroup.h"
#include "kfeatures.h"
#include "unit.h"
#include "util.h"
#include "workdir.h"

#define ALL_CTRLS							\
	(BENCH_NEED(BENCH_CTRL_BASE) | BENCH_NEED(BENCH_CTRL_MEMORY) |	\
	 BENCH_NEED(BENCH_CTRL_IO) | BENCH_NEED(BENCH_CTRL_CPU))

static struct kfeatures kf;
static bool kf_ok;

/* Skip unless root with a cgroup file system; fills kf. */
static bool usable(void)
{
	if (!kf_ok) {
		if (kfeatures__probe(&kf)) {
			SKIP("kfeatures__probe failed");
			return false;
		}
		kf_ok = true;
	}
	if (geteuid()) {
		SKIP("not root: bench cgroups need root");
		return false;
	}
	if (kf.cgroup_layout == KF_CG_NONE) {
		SKIP("no cgroup file system mounted");
		return false;
	}
	return true;
}

static const char *slurp(const char *path)
{
	static char buf[1 << 16];
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	while (got < sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return path && !stat(path, &st);
}

/* A find(1) over every cgroup mount for the run parents of pid. */
static void find_cmd(char *cmd, size_t len, pid_t pid, const char *action)
{
	size_t i, n;

	n = snprintf(cmd, len, "find");
	if (kf.cgroup_v2_mount)
		n += snprintf(cmd + n, len - n, " %s", kf.cgroup_v2_mount);
	for (i = 0; i < kf.nr_v1 && n < len; i++)
		n += snprintf(cmd + n, len - n, " %s", kf.v1[i].mount);
	if (n < len)
		snprintf(cmd + n, len - n,
			 " -maxdepth 6 -type d -name '" BENCH_CG_PREFIX "%d' %s",
			 (int)pid, action);
}

/* How many run parents of pid exist in any hierarchy. */
static int leftovers(pid_t pid)
{
	char cmd[4096], line[PATH_MAX];
	int n = 0;
	FILE *f;

	find_cmd(cmd, sizeof(cmd), pid, "-print 2>/dev/null");
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	pclose(f);
	return n;
}

/*
 * Remove pid's run parents by hand (after a failure, or after keep):
 * kill what is inside, then rmdir leaves first.
 */
static void hand_remove(pid_t pid)
{
	char cmd[4096];

	find_cmd(cmd, sizeof(cmd), pid,
		 "-print 2>/dev/null | while read d; do for i in $(seq 50); do "
		 "p=$(find \"$d\" -name cgroup.procs -exec cat {} +); "
		 "[ -z \"$p\" ] && break; kill -9 $p 2>/dev/null; sleep 0.1; "
		 "done; find \"$d\" -depth -type d -exec rmdir {} + ; done");
	unit_sh("%s", cmd);
}

/* The end of every case: nothing of ours is left, whatever happened. */
static void check_clean(pid_t pid)
{
	int n = leftovers(pid);

	if (n) {
		hand_remove(pid);
		UNIT_FAIL("%d run parents of pid %d were left behind", n,
			  (int)pid);
	}
}

static pid_t fork_sleeper(void)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;)
			pause();
	}
	return pid;
}

/* 1 if pid died of SIGKILL (reaped here), 0 otherwise (then killed). */
static int reap_killed(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int st, i;

	for (i = 0; i < 300; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		if (r < 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}

/* /proc/pid/cgroup has a line for the hierarchy of root ending in rel. */
static bool in_cgroup(pid_t pid, const char *root, const char *rel)
{
	char path[64], want[PATH_MAX], line[PATH_MAX + 64];
	const char *slash = strrchr(root, '/');
	bool v2 = kf.cgroup_v2_mount &&
		  !strncmp(root, kf.cgroup_v2_mount,
			   strlen(kf.cgroup_v2_mount)) &&
		  root[strlen(kf.cgroup_v2_mount)] == '/';
	const char *ctrl = NULL;
	bool found = false;
	size_t i;
	FILE *f;

	if (!v2) {
		for (i = 0; i < kf.nr_v1; i++) {
			size_t n = strlen(kf.v1[i].mount);

			if (!strncmp(root, kf.v1[i].mount, n) &&
			    root[n] == '/')
				ctrl = kf.v1[i].name;
		}
		if (!ctrl)
			return false;
	}
	snprintf(want, sizeof(want), "%s/%s", slash, rel);
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2, *tok, *save = NULL;
		bool match = false;
		size_t n, w = strlen(want);

		if (!c1 || !(c2 = strchr(c1 + 1, ':')))
			continue;
		*c2++ = '\0';
		c2[strcspn(c2, "\n")] = '\0';
		if (v2) {
			match = !strcmp(line, "0:") && !c1[1];
		} else {
			for (tok = strtok_r(c1 + 1, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, ctrl))
					match = true;
		}
		n = strlen(c2);
		if (match && n >= w && !strcmp(c2 + n - w, want))
			found = true;
	}
	fclose(f);
	return found;
}

static bool v2_has(const char *ctrl)
{
	const char *l = kf.v2_controllers;
	size_t n = strlen(ctrl);

	while (l && (l = strstr(l, ctrl))) {
		if ((l == kf.v2_controllers || l[-1] == ' ') &&
		    (!l[n] || l[n] == ' ' || l[n] == '\n'))
			return true;
		l += n;
	}
	return false;
}

static bool v1_has(const char *ctrl)
{
	size_t i;

	for (i = 0; i < kf.nr_v1; i++)
		if (!strcmp(kf.v1[i].name, ctrl))
			return true;
	return false;
}

static void check_file_readable(struct bench_cg *cg, enum bench_ctrl c,
				const char *rel, const char *file)
{
	char *path = bench_cg__path(cg, c, rel, file);
	const char *s = path ? slurp(path) : NULL;

	if (!s || !*s)
		UNIT_FAIL("cannot read %s (%s)", path ? path : file,
			  path ? strerror(errno) : "no path");
	free(path);
}

/* has/why_not agree with the layout kfeatures sees. */
static void check_controllers(struct bench_cg *cg)
{
	enum bench_ctrl c;

	CHECK_STR(bench_cg__layout(cg),
		  kf_cgroup_layout__str(kf.cgroup_layout));
	CHECK(bench_cg__has(cg, BENCH_CTRL_BASE));
	if (kf.cgroup_v2_mount)
		CHECK(!strncmp(bench_cg__root(cg, BENCH_CTRL_BASE),
			       kf.cgroup_v2_mount,
			       strlen(kf.cgroup_v2_mount)));
	if (!v2_has("memory") && v1_has("memory"))
		CHECK(bench_cg__has(cg, BENCH_CTRL_MEMORY));
	if (!v2_has("memory") && !v1_has("memory"))
		CHECK(!bench_cg__has(cg, BENCH_CTRL_MEMORY));
	if (!v2_has("io")) {
		CHECK(!bench_cg__has(cg, BENCH_CTRL_IO));
		CHECK(strstr(bench_cg__why_not(cg, BENCH_CTRL_IO), "io"));
		if (v1_has("blkio"))
			CHECK(strstr(bench_cg__why_not(cg, BENCH_CTRL_IO),
				     "blkio"));
	}
	if (!v2_has("cpu") && v1_has("cpu"))
		CHECK(bench_cg__has(cg, BENCH_CTRL_CPU));
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		if (bench_cg__has(cg, c)) {
			CHECK_STR(bench_cg__why_not(cg, c), "");
			CHECK(exists(bench_cg__root(cg, c)));
		} else {
			CHECK(*bench_cg__why_not(cg, c));
			CHECK(!bench_cg__root(cg, c));
			CHECK(!bench_cg__path(cg, c, "", "cgroup.procs"));
		}
	}
}

static void test_tree(void)
{
	struct bench_cg_opts o = { .need = ALL_CTRLS };
	char err[512], *roots[BENCH_CTRL__NR] = { 0 }, *p;
	struct bench_cg_counts counts;
	struct bench_cg *cg = NULL;
	enum bench_ctrl c;
	pid_t child = -1;
	int r;

	if (!usable())
		return;
	r = bench_cg__new(&cg, &o, err, sizeof(err));
	if (r) {
		UNIT_FAIL("bench_cg__new: %d %s", r, err);
		goto out;
	}
	check_controllers(cg);
	for (c = 0; c < BENCH_CTRL__NR; c++)
		if (bench_cg__root(cg, c))
			roots[c] = strdup(bench_cg__root(cg, c));

	CHECK_INT(bench_cg__mkdir(cg, "c1"), 0);
	CHECK_INT(bench_cg__mkdir(cg, "l1/l2/l3"), 0);
	CHECK_INT(bench_cg__mkdir(cg, "l1/l2/l3"), 0);
	CHECK_INT(bench_cg__mkdir(cg, "../x"), -EINVAL);
	CHECK_INT(bench_cg__mkdir(cg, "/x"), -EINVAL);
	CHECK_INT(bench_cg__mkdir(cg, "a/../b"), -EINVAL);
	CHECK_INT(bench_cg__mkdir(cg, "a//b"), -EINVAL);
	CHECK_INT(bench_cg__mkdir(cg, ""), -EINVAL);
	CHECK(!bench_cg__path(cg, BENCH_CTRL_BASE, "..", "cgroup.procs"));
	CHECK(!bench_cg__path(cg, BENCH_CTRL_BASE, "c1", "../x"));
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		if (!roots[c])
			continue;
		p = bench_cg__path(cg, c, "l1/l2/l3", NULL);
		CHECK(exists(p));
		free(p);
	}

	child = fork_sleeper();
	if (child < 0) {
		UNIT_FAIL("fork: %s", strerror(errno));
		goto out;
	}
	CHECK_INT(bench_cg__join(cg, "c1", child), 0);
	CHECK_INT(bench_cg__join(cg, "c1", -1), -EINVAL);
	for (c = 0; c < BENCH_CTRL__NR; c++)
		if (roots[c] && !in_cgroup(child, roots[c], "c1"))
			UNIT_FAIL("/proc/%d/cgroup lacks %s/c1", (int)child,
				  roots[c]);

	check_file_readable(cg, BENCH_CTRL_BASE, "c1", "cpu.stat");
	check_file_readable(cg, BENCH_CTRL_BASE, "", "cpu.stat");
	if (kf.cgroup_v2_mount)
		check_file_readable(cg, BENCH_CTRL_BASE, "", "cgroup.stat");
	if (bench_cg__has(cg, BENCH_CTRL_MEMORY)) {
		const char *s;

		check_file_readable(cg, BENCH_CTRL_MEMORY, "", "memory.stat");
		check_file_readable(cg, BENCH_CTRL_MEMORY, "c1",
				    "memory.stat");
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_MEMORY, "c1",
					  "memory.max", "67108864"), 0);
		p = bench_cg__path(cg, BENCH_CTRL_MEMORY, "c1", "memory.max");
		s = p ? slurp(p) : NULL;
		CHECK(s && strtoull(s, NULL, 10) == 67108864);
		free(p);
		/* 0 swap: on v1 the memsw limit equals the memory limit. */
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_MEMORY, "c1",
					  "memory.swap.max", "0"), 0);
		/* Raising the limit keeps the swap allowance (v1 memsw). */
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_MEMORY, "c1",
					  "memory.max", "134217728"), 0);
		p = bench_cg__path(cg, BENCH_CTRL_MEMORY, "c1",
				   "memory.swap.max");
		if (p && strstr(p, "memsw")) {
			s = slurp(p);
			CHECK(s && strtoull(s, NULL, 10) == 134217728);
		}
		free(p);
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_MEMORY, "c1",
					  "memory.max", "max"), 0);
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_MEMORY, "c1",
					  "memory.swap.max", "max"), 0);
		p = bench_cg__path(cg, BENCH_CTRL_MEMORY, "c1", "memory.max");
		s = p ? slurp(p) : NULL;
		CHECK(s && (!strncmp(s, "max", 3) ||
			    strtoull(s, NULL, 10) > (1ULL << 60)));
		free(p);
	}
	if (bench_cg__has(cg, BENCH_CTRL_CPU))
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_CPU, "c1", "cpu.max",
					  "50000 100000"), 0);
	CHECK_INT(bench_cg__write(cg, BENCH_CTRL_BASE, "c1", "../cpu.stat",
				  "1"), -EINVAL);
	if (!bench_cg__has(cg, BENCH_CTRL_IO))
		CHECK_INT(bench_cg__write(cg, BENCH_CTRL_IO, "c1", "io.max",
					  "x"), -ENODEV);

	CHECK_INT(bench_cg__counts(cg, &counts), 0);
	if (kf.cgroup_v2_mount)
		CHECK(counts.v2_live >= 1 && counts.v2_dying >= 0);
	if (v1_has("memory"))
		CHECK(counts.v1_memory_cgroups >= 1);

	CHECK_INT(bench_cg__destroy(cg), 0);
	CHECK(reap_killed(child));
	child = -1;
	for (c = 0; c < BENCH_CTRL__NR; c++)
		if (roots[c] && exists(roots[c]))
			UNIT_FAIL("%s still exists", roots[c]);
	CHECK_INT(bench_cg__destroy(cg), 0);
	CHECK_INT(bench_cg__mkdir(cg, "c2"), -ENOENT);
out:
	bench_cg__destroy(cg);
	bench_cg__delete(cg);
	if (child > 0)
		reap_killed(child);
	for (c = 0; c < BENCH_CTRL__NR; c++)
		free(roots[c]);
	check_clean(getpid());
}

/* Fork in a loop, each child forking once more, until killed. */
static void forker(int go)
{
	char b;

	if (read(go, &b, 1) != 1)
		_exit(1);
	for (;;) {
		pid_t p = fork();

		if (!p) {
			fork();
			for (;;)
				pause();
		}
		usleep(500);
	}
}

static pid_t start_forker(struct bench_cg *cg, const char *rel,
			  const char *procs)
{
	int go[2];
	pid_t pid;
	int r;

	if (pipe(go))
		return -1;
	pid = fork();
	if (!pid) {
		close(go[1]);
		forker(go[0]);
	}
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		return -1;
	}
	if (procs) {
		char val[32];
		int fd = open(procs, O_WRONLY);

		snprintf(val, sizeof(val), "%d", (int)pid);
		r = fd < 0 || write(fd, val, strlen(val)) < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
	} else {
		r = bench_cg__join(cg, rel, pid);
	}
	if (r) {
		UNIT_FAIL("cannot put the forker %d in %s: %d", (int)pid,
			  procs ? procs : rel, r);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(go[1]);
		return -1;
	}
	if (write(go[1], "x", 1) != 1)
		UNIT_FAIL("cannot start the forker");
	close(go[1]);
	return pid;
}

static void test_destroy_forking(void)
{
	struct bench_cg_opts o = {
		.need = BENCH_NEED(BENCH_CTRL_MEMORY),
	};
	struct bench_cg *cg = NULL;
	pid_t f1 = -1, f2 = -1;
	struct timespec t0, t1, ts = { 0, 300 * 1000 * 1000 };
	char err[512], *procs = NULL;
	const char *mroot;
	long ms;
	int r;

	if (!usable())
		return;
	/* Grandchildren come back to us, so that they can be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	r = bench_cg__new(&cg, &o, err, sizeof(err));
	if (r) {
		UNIT_FAIL("bench_cg__new: %d %s", r, err);
		goto out;
	}
	CHECK_INT(bench_cg__mkdir(cg, "f1"), 0);
	CHECK_INT(bench_cg__mkdir(cg, "f2"), 0);
	f1 = start_forker(cg, "f1", NULL);
	/*
	 * A second forker in the v1 memory tree alone, where no cgroup.kill
	 * can reach it: the SIGKILL loop must catch every child.
	 */
	mroot = bench_cg__root(cg, BENCH_CTRL_MEMORY);
	if (mroot && kf.cgroup_v2_mount &&
	    strncmp(mroot, kf.cgroup_v2_mount, strlen(kf.cgroup_v2_mount))) {
		procs = bench_cg__path(cg, BENCH_CTRL_MEMORY, "f2",
				       "cgroup.procs");
		f2 = start_forker(cg, "f2", procs);
	}
	nanosleep(&ts, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = bench_cg__destroy(cg);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (r)
		UNIT_FAIL("destroy: %d %s", r, bench_cg__error(cg));
	CHECK(ms < 6000);
	if (f1 > 0)
		CHECK(reap_killed(f1));
	if (f2 > 0)
		CHECK(reap_killed(f2));
	f1 = f2 = -1;
out:
	bench_cg__destroy(cg);
	bench_cg__delete(cg);
	free(procs);
	if (f1 > 0)
		reap_killed(f1);
	if (f2 > 0)
		reap_killed(f2);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	check_clean(getpid());
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/*
 * Make dir/rstat-analyze-bench-<pid>/x beside our own run parent, stamped
 * as a bench run of pid's (stamp: true) or with no stamp at all.
 */
static char *fake_run(const char *live_root, pid_t pid, pid_t member,
		      bool stamp)
{
	char *fake, *x = NULL, val[32], boot[64] = "", st[OWNER_STAMP_MAX];
	const char *slash = strrchr(live_root, '/');
	int fd;

	if (asprintf(&fake, "%.*s/" BENCH_CG_PREFIX "%d",
		     (int)(slash - live_root), live_root, (int)pid) < 0)
		return NULL;
	if (mkdir(fake, 0755) || asprintf(&x, "%s/x", fake) < 0 ||
	    mkdir(x, 0755)) {
		UNIT_FAIL("cannot make %s: %s", fake, strerror(errno));
		free(x);
		return fake;
	}
	free(x);
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, boot, sizeof(boot) - 1) < 0)
			boot[0] = '\0';
		close(fd);
	}
	boot[strcspn(boot, "\n")] = '\0';
	snprintf(st, sizeof(st), "rstat-analyze bench pid=%d start=1 boot=%s\n",
		 (int)pid, boot);
	if (stamp && setxattr(fake, "trusted.rstat-analyze", st, strlen(st), 0))
		UNIT_FAIL("cannot stamp %s: %s", fake, strerror(errno));
	if (member <= 0 || asprintf(&x, "%s/x/cgroup.procs", fake) < 0)
		return fake;
	snprintf(val, sizeof(val), "%d", (int)member);
	fd = open(x, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		UNIT_FAIL("cannot move %d into %s", (int)member, x);
	if (fd >= 0)
		close(fd);
	free(x);
	return fake;
}

struct noted {
	char paths[8][PATH_MAX];
	int nr;
};

static void note_path(void *ctx, const char *path, const char *why)
{
	struct noted *n = ctx;

	if (n->nr < 8)
		snprintf(n->paths[n->nr++], PATH_MAX, "%s", path);
}

static bool was_noted(const struct noted *n, const char *path)
{
	int i;

	for (i = 0; i < n->nr; i++)
		if (!strcmp(n->paths[i], path))
			return true;
	return false;
}

static void test_cleanup_stale(void)
{
	struct bench_cg_opts o = { .need = BENCH_NEED(BENCH_CTRL_MEMORY) };
	char *fakes[BENCH_CTRL__NR] = { 0 }, err[512];
	char *unstamped[BENCH_CTRL__NR] = { 0 };
	struct bench_cg *cg = NULL;
	struct noted noted = { .nr = 0 };
	unsigned int removed = 99;
	pid_t dead, dead2, sleeper = -1;
	enum bench_ctrl c;
	int r;

	if (!usable())
		return;
	r = bench_cg__new(&cg, &o, err, sizeof(err));
	if (r) {
		UNIT_FAIL("bench_cg__new: %d %s", r, err);
		goto out;
	}
	dead = dead_pid();
	dead2 = dead_pid();
	sleeper = fork_sleeper();
	if (dead <= 0 || dead2 <= 0 || sleeper <= 0) {
		UNIT_FAIL("fork: %s", strerror(errno));
		goto out;
	}
	CHECK(kill(dead, 0) && errno == ESRCH);
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		const char *live = bench_cg__root(cg, c);
		enum bench_ctrl d;

		if (!live)
			continue;
		for (d = 0; d < c; d++)
			if (bench_cg__root(cg, d) &&
			    !strcmp(bench_cg__root(cg, d), live))
				break;
		if (d == c) {
			fakes[c] = fake_run(live, dead, sleeper, true);
			unstamped[c] = fake_run(live, dead2, -1, false);
		}
	}

	r = bench_cg__cleanup_stale(NULL, &removed, note_path, &noted, err,
				    sizeof(err));
	if (r)
		UNIT_FAIL("cleanup_stale: %d %s", r, err);
	/* Other dead runs may have been lying around: at least ours. */
	CHECK(removed >= 1);
	for (c = 0; c < BENCH_CTRL__NR; c++)
		if (fakes[c] && exists(fakes[c]))
			UNIT_FAIL("%s survived", fakes[c]);
	/* No stamp: not provably ours, left alone and named. */
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		if (!unstamped[c])
			continue;
		if (!exists(unstamped[c]))
			UNIT_FAIL("%s (no stamp) was removed", unstamped[c]);
		if (!was_noted(&noted, unstamped[c]))
			UNIT_FAIL("%s (no stamp) left alone silently",
				  unstamped[c]);
	}
	CHECK(reap_killed(sleeper));
	sleeper = -1;
	/* Our own, live run is left alone. */
	for (c = 0; c < BENCH_CTRL__NR; c++)
		if (bench_cg__root(cg, c))
			CHECK(exists(bench_cg__root(cg, c)));
	CHECK_INT(leftovers(dead), 0);
	CHECK_INT(bench_cg__destroy(cg), 0);
out:
	bench_cg__destroy(cg);
	bench_cg__delete(cg);
	if (sleeper > 0)
		reap_killed(sleeper);
	for (c = 0; c < BENCH_CTRL__NR; c++) {
		if (fakes[c] && exists(fakes[c]))
			unit_sh("rmdir '%s/x' '%s'", fakes[c], fakes[c]);
		free(fakes[c]);
		if (unstamped[c] && exists(unstamped[c]))
			unit_sh("rmdir '%s/x' '%s'", unstamped[c],
				unstamped[c]);
		free(unstamped[c]);
	}
	check_clean(getpid());
}

static void test_keep(void)
{
	struct bench_cg_opts o = {
		.need = BENCH_NEED(BENCH_CTRL_MEMORY), .keep = true,
	};
	struct bench_cg *cg = NULL;
	char err[512];
	int r;

	if (!usable())
		return;
	r = bench_cg__new(&cg, &o, err, sizeof(err));
	if (r) {
		UNIT_FAIL("bench_cg__new: %d %s", r, err);
		goto out;
	}
	CHECK_INT(bench_cg__mkdir(cg, "k1/k2"), 0);
	{
		char st[OWNER_STAMP_MAX];

		/* Stamped while the run holds it; the stamp goes with --keep. */
		CHECK(getxattr(bench_cg__root(cg, BENCH_CTRL_BASE),
			       "trusted.rstat-analyze", st, sizeof(st)) > 0 ||
		      errno == ENOTSUP);
		CHECK_INT(bench_cg__destroy(cg), 0);
		CHECK(getxattr(bench_cg__root(cg, BENCH_CTRL_BASE),
			       "trusted.rstat-analyze", st, sizeof(st)) < 0);
	}
	CHECK(exists(bench_cg__root(cg, BENCH_CTRL_BASE)));
	CHECK_INT(leftovers(getpid()), cg ? (int)(1 +
		  (bench_cg__root(cg, BENCH_CTRL_MEMORY) &&
		   strcmp(bench_cg__root(cg, BENCH_CTRL_MEMORY),
			  bench_cg__root(cg, BENCH_CTRL_BASE)))) : 0);
	/* A second run of the same PID refuses to adopt the kept tree. */
	{
		struct bench_cg *cg2 = NULL;
		struct bench_cg_opts o2 = { .need = 0 };

		CHECK_INT(bench_cg__new(&cg2, &o2, err, sizeof(err)), -EEXIST);
		CHECK(cg2 == NULL);
		CHECK(strstr(err, "already exists"));
	}
	CHECK(exists(bench_cg__root(cg, BENCH_CTRL_BASE)));
out:
	bench_cg__delete(cg);
	hand_remove(getpid());
	check_clean(getpid());
}

static void test_nonroot(void)
{
	struct bench_cg_opts o = { .need = ALL_CTRLS };
	pid_t pid;
	int st;

	if (!usable())
		return;
	pid = fork();
	if (!pid) {
		struct bench_cg *cg = NULL;
		char err[512] = "";
		int r;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		r = bench_cg__new(&cg, &o, err, sizeof(err));
		if (!r)
			_exit(11);
		if (r != -EACCES && r != -EPERM) {
			printf("    got %d: %s\n", r, err);
			_exit(12);
		}
		if (!strstr(err, "not root") || !strstr(err, "--root") ||
		    !strstr(err, "/")) {
			printf("    message: %s\n", err);
			_exit(13);
		}
		_exit(cg ? 14 : 0);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
	check_clean(pid);
	check_clean(getpid());
}

/* --root: relative and absolute forms, and the errors. */
static void test_root_option(void)
{
	struct bench_cg_opts o = { .need = BENCH_NEED(BENCH_CTRL_MEMORY) };
	char name[64], abs[PATH_MAX], err[512], *bases[8] = { 0 };
	const char *mounts[8];
	struct bench_cg *cg = NULL;
	size_t nm = 0, i;
	const char *r0;
	int r;

	if (!usable())
		return;
	/* Our own top-level cgroup in each hierarchy the run uses. */
	if (kf.cgroup_v2_mount)
		mounts[nm++] = kf.cgroup_v2_mount;
	for (i = 0; i < kf.nr_v1 && nm < ARRAY_SIZE(mounts); i++)
		if (!strcmp(kf.v1[i].name, "memory") ||
		    (!kf.cgroup_v2_mount && !strcmp(kf.v1[i].name, "cpuacct")))
			mounts[nm++] = kf.v1[i].mount;
	snprintf(name, sizeof(name), "rs-unit-root-%d", (int)getpid());
	for (i = 0; i < nm; i++) {
		if (asprintf(&bases[i], "%s/%s", mounts[i], name) < 0 ||
		    mkdir(bases[i], 0755)) {
			UNIT_FAIL("cannot make %s", name);
			goto out;
		}
	}

	o.root = name;
	r = bench_cg__new(&cg, &o, err, sizeof(err));
	if (r) {
		UNIT_FAIL("relative --root: %d %s", r, err);
		goto out;
	}
	r0 = bench_cg__root(cg, BENCH_CTRL_BASE);
	CHECK(r0 && strstr(r0, name));
	if (bench_cg__root(cg, BENCH_CTRL_MEMORY))
		CHECK(strstr(bench_cg__root(cg, BENCH_CTRL_MEMORY), name));
	CHECK_INT(bench_cg__mkdir(cg, "a/b"), 0);
	CHECK_INT(bench_cg__destroy(cg), 0);
	bench_cg__delete(cg);
	cg = NULL;

	/* Absolute, in the first hierarchy: the others get the same. */
	snprintf(abs, sizeof(abs), "%s/%s/", mounts[0], name);
	o.root = abs;
	r = bench_cg__new(&cg, &o, err, sizeof(err));
	if (r) {
		UNIT_FAIL("absolute --root: %d %s", r, err);
		goto out;
	}
	if (bench_cg__root(cg, BENCH_CTRL_MEMORY))
		CHECK(strstr(bench_cg__root(cg, BENCH_CTRL_MEMORY), name));
	CHECK_INT(bench_cg__destroy(cg), 0);
	bench_cg__delete(cg);
	cg = NULL;
	/* Whatever was delegated into our root was given back. */
	if (kf.cgroup_v2_mount) {
		char sc[PATH_MAX];
		const char *s;

		snprintf(sc, sizeof(sc), "%s/cgroup.subtree_control",
			 bases[0]);
		s = slurp(sc);
		CHECK(s && (!*s || *s == '\n'));
	}

	o.root = "rs-unit-no-such-cgroup";
	CHECK_INT(bench_cg__new(&cg, &o, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "does not exist"));
	o.root = "/tmp";
	CHECK_INT(bench_cg__new(&cg, &o, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not in a cgroup file system"));
	o.root = "../x";
	CHECK_INT(bench_cg__new(&cg, &o, err, sizeof(err)), -EINVAL);
	CHECK(cg == NULL);
out:
	bench_cg__destroy(cg);
	bench_cg__delete(cg);
	check_clean(getpid());
	for (i = 0; i < nm; i++) {
		if (bases[i] && exists(bases[i]) && rmdir(bases[i]))
			UNIT_FAIL("cannot remove %s: %s", bases[i],
				  strerror(errno));
		free(bases[i]);
	}
}

static void test_done(void)
{
	if (kf_ok)
		kfeatures__free(&kf);
	kf_ok = false;
}

UNIT_MAIN(UNIT(test_tree), UNIT(test_destroy_forking),
	  UNIT(test_cleanup_stale), UNIT(test_keep), UNIT(test_nonroot),
	  UNIT(test_root_option), UNIT_CLEANUP(test_done))
