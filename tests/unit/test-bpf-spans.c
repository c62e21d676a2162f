// SPDX-License-Identifier: GPL-2.0
/*
 * Spans timed in the kernel (bpf-spans.h) on the real kernel: the holds
 * the BPF program counts for a known number of cpu.stat and memory.stat
 * reads of this test's own cgroups must equal what an independent oracle
 * sees (a tracefs instance of the test's own, filtered to its pid, on the
 * same cgroup_rstat_locked tracepoint) and what the kernel source says a
 * read costs on v6.15+: css_rstat_flush() locks once per possible CPU, and
 * cgroup_base_stat_cputime_show() once more with cpu = -1. The holds must
 * carry their subsystem (base for cpu.stat, memory for memory.stat).
 *
 * Cases SKIP with a reason where BPF cannot load (built without it, not
 * root, tracepoints missing). The cgroups (rs-bpf-test-<PID>) and the
 * tracefs instance are removed at the end of each case and at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <tracefs.h>
#include <unistd.h>

#include "bpf-spans.h"
#include "kfeatures.h"
#include "kernel-spans.h"
#include "rules.h"
#include "unit.h"

#define READS 200

static char cg_v2[256], cg_mem[256], inst_name[64];
static struct tracefs_instance *inst;

static void cleanup(void)
{
	if (inst) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		inst = NULL;
	}
	if (cg_v2[0] && rmdir(cg_v2) && errno != ENOENT)
		fprintf(stderr, "could not remove %s: %m\n", cg_v2);
	if (cg_mem[0] && rmdir(cg_mem) && errno != ENOENT)
		fprintf(stderr, "could not remove %s: %m\n", cg_mem);
	cg_v2[0] = cg_mem[0] = '\0';
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static struct kfeatures kf;
static int kf_state;	/* 0 unprobed, 1 ok, -1 failed */

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* Open a bpf_spans for this process, or SKIP saying why. */
static struct bpf_spans *open_spans(const struct bpf_spans_opts *o)
{
	static char why[512];
	char err[400] = "";
	struct bpf_spans *s;
	int r;

	if (!kf_state) {
		kf_state = kfeatures__probe(&kf) ? -1 : 1;
		atexit(cleanup);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	if (kf_state < 0) {
		SKIP("kfeatures__probe failed");
		return NULL;
	}
	s = bpf_spans__new(o);
	if (!s) {
		UNIT_FAIL("bpf_spans__new: out of memory");
		return NULL;
	}
	r = bpf_spans__open(s, err, sizeof(err));
	if (r == 0)
		r = bpf_spans__attach(s, err, sizeof(err));
	/*
	 * As root, with BPF built in, a refusal by the verifier or at
	 * attach is our program's fault, not a missing feature: a failure,
	 * never a skip that would hide it.
	 */
	if (r == -EOPNOTSUPP && geteuid() == 0 && bpf_spans__built() &&
	    (!strncmp(err, "BPF spans: load", 15) ||
	     !strncmp(err, "BPF spans: attach", 17))) {
		UNIT_FAIL("as root the program was refused: %s", err);
		bpf_spans__delete(s);
		return NULL;
	}
	if (r == -EOPNOTSUPP) {
		snprintf(why, sizeof(why), "BPF unavailable: %s", err);
		SKIP(why);
		bpf_spans__delete(s);
		return NULL;
	}
	if (r) {
		UNIT_FAIL("open/attach: %d: %s", r, err);
		bpf_spans__delete(s);
		return NULL;
	}
	return s;
}

/* How many CPUs are possible ("0-1", "0-3,5"). */
static int nr_possible(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	char buf[256], *p, *save = NULL;
	int n = 0, lo, hi;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (p = strtok_r(buf, ",\n", &save); p;
	     p = strtok_r(NULL, ",\n", &save)) {
		if (sscanf(p, "%d-%d", &lo, &hi) != 2) {
			if (sscanf(p, "%d", &lo) != 1)
				return -1;
			hi = lo;
		}
		n += hi - lo + 1;
	}
	return n;
}

/* A tracefs instance of ours counting cgroup_rstat_locked of pid. */
static int oracle_start(pid_t pid)
{
	char filter[64];

	snprintf(inst_name, sizeof(inst_name), "rs-bpf-test-%d", (int)pid);
	inst = tracefs_instance_create(inst_name);
	if (!inst)
		return -1;
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)pid);
	if (tracefs_event_file_write(inst, "cgroup", "cgroup_rstat_locked",
				     "filter", filter) < 0)
		return -1;
	if (tracefs_event_enable(inst, "cgroup", "cgroup_rstat_locked"))
		return -1;
	return tracefs_trace_on(inst) ? -1 : 0;
}

/* Events in the oracle's buffer: all, and those with root == root. */
static int oracle_count(int root, long *all, long *of_root, long *short_)
{
	char *text, *p, pat[32];
	int size;

	tracefs_event_disable(inst, NULL, NULL);
	text = tracefs_instance_file_read(inst, "trace", &size);
	if (!text)
		return -1;
	*all = *of_root = *short_ = 0;
	snprintf(pat, sizeof(pat), "root=%d ", root);
	for (p = text; (p = strstr(p, "cgroup_rstat_locked:")); p++) {
		char *eol = strchr(p, '\n');

		if (eol)
			*eol = '\0';
		(*all)++;
		if (strstr(p, pat))
			(*of_root)++;
		if (strstr(p, " cpu=-1 "))
			(*short_)++;
		if (eol)
			*eol = '\n';
	}
	free(text);
	return 0;
}

static int read_file(const char *path)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return r < 0 ? -errno : 0;
}

static void test_percentile(void)
{
	struct bpf_spans_hist h;
	uint64_t lo, hi;

	memset(&h, 0, sizeof(h));
	CHECK_U64(bpf_spans_hist__percentile(&h, 50, &lo, &hi), 0);
	CHECK_U64(hi, 0);
	/* 3 values in [256, 511], 1 in [1024, 2047]. */
	h.count = 4;
	h.slots[9] = 3;
	h.slots[11] = 1;
	CHECK_U64(bpf_spans_hist__percentile(&h, 50, &lo, &hi), 256);
	CHECK_U64(hi, 511);
	CHECK_U64(bpf_spans_hist__percentile(&h, 75, &lo, &hi), 256);
	CHECK_U64(bpf_spans_hist__percentile(&h, 76, &lo, &hi), 1024);
	CHECK_U64(hi, 2047);
	CHECK_U64(bpf_spans_hist__percentile(&h, 100, &lo, &hi), 1024);
	CHECK_U64(bpf_spans_hist__percentile(&h, 0, &lo, &hi), 256);
	/* Bucket 0 holds only 0. */
	memset(&h, 0, sizeof(h));
	h.count = 1;
	h.slots[0] = 1;
	CHECK_U64(bpf_spans_hist__percentile(&h, 50, &lo, &hi), 0);
	CHECK_U64(hi, 0);
	CHECK_STR(bpf_spans_kind_name(BPF_SPANS_MEMCG), "memcg-flush");
	CHECK_STR(bpf_spans_kind_name(BPF_SPANS__NR_KINDS), "?");
}

/* Without root the reason is given, and it is EOPNOTSUPP. */
static void test_unprivileged_reason(void)
{
	int status, fds[2];
	char msg[512] = "";
	ssize_t n;
	pid_t pid;

	if (!bpf_spans__built()) {
		struct bpf_spans *s = bpf_spans__new(NULL);
		char err[256] = "";

		CHECK(s);
		if (!s)
			return;
		CHECK_INT(bpf_spans__open(s, err, sizeof(err)), -EOPNOTSUPP);
		CHECK(strstr(err, "built without BPF") != NULL);
		bpf_spans__delete(s);
		return;
	}
	if (geteuid()) {
		SKIP("not root: cannot drop privileges to test the reason");
		return;
	}
	if (pipe(fds)) {
		UNIT_FAIL("pipe: %m");
		return;
	}
	pid = fork();
	if (pid < 0) {
		UNIT_FAIL("fork: %m");
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		struct bpf_spans *s;
		char err[400] = "";
		int r;

		close(fds[0]);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		s = bpf_spans__new(NULL);
		r = s ? bpf_spans__open(s, err, sizeof(err)) : -ENOMEM;
		if (dprintf(fds[1], "%d %s", r, err) < 0)
			_exit(4);
		bpf_spans__delete(s);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	msg[n > 0 ? n : 0] = '\0';
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* nobody may not read tracefs or load BPF: either reason will do. */
	if (atoi(msg) != -EOPNOTSUPP)
		UNIT_FAIL("as nobody: %s", msg);
	/* A permission: never taken for a missing tracepoint. */
	CHECK(strstr(msg, "not permitted") || strstr(msg, "tracefs"));
}

/* A row's subsystem and trigger, as analysis names them. */
static struct span_class class_of(const struct bpf_spans_row *row)
{
	struct span_classifier *sc = span_classifier__new(NULL);
	struct span_class c = { -1, -1 };

	CHECK(sc);
	if (sc)
		span_classifier__row(sc, row, &c);
	span_classifier__delete(sc);
	return c;
}

/* Every row of kind has subsys want; returns the rows' total count. */
static uint64_t rows_of(struct bpf_spans *s, enum bpf_spans_kind kind,
			int root, int want, bool *all_want)
{
	const struct bpf_spans_row *rows;
	uint64_t n = 0;
	size_t nr, i;

	*all_want = true;
	bpf_spans__rows(s, &rows, &nr);
	for (i = 0; i < nr; i++) {
		if (rows[i].kind != kind || rows[i].root != root)
			continue;
		n += rows[i].hist.count;
		if (class_of(&rows[i]).subsys != want)
			*all_want = false;
	}
	return n;
}

/*
 * The spans of a kind and subsystem (BPF_SPANS_ANY: all) as the recorder
 * stores them, classified; the holds no stack named in *unresolved.
 */
static struct bpf_spans_hist hist_of(struct bpf_spans *s,
				     enum bpf_spans_kind kind, int subsys,
				     uint64_t *unresolved)
{
	struct kernel_spans *ks = kernel_spans__from_bpf(s, "test");
	struct bpf_spans_hist h = { 0 };
	struct bpf_spans_counts c;

	CHECK(ks);
	if (!ks)
		return h;
	if (kernel_spans__hist(ks, kind, subsys))
		h = *kernel_spans__hist(ks, kind, subsys);
	kernel_spans__counts(ks, &c);
	if (unresolved)
		*unresolved = c.unresolved;
	kernel_spans__delete(ks);
	return h;
}

static void test_cpu_stat_holds(void)
{
	struct bpf_spans_opts o = { 0 };
	struct bpf_spans_hist h;
	const struct bpf_spans_row *rows;
	struct bpf_spans_counts c;
	long all, of_root, shorts;
	uint64_t shorts_bpf = 0, unresolved = 1;
	char path[300], err[256] = "";
	struct bpf_spans *s;
	pid_t me = getpid();
	size_t nr, i;
	bool ok;
	int ncpu, k;

	o.tgids = &me;
	o.nr_tgids = 1;
	s = open_spans(&o);
	if (!s)
		return;
	if (!kf.cgroup_v2_mount || !kernel_at_least(6, 15)) {
		SKIP("needs a v2 hierarchy and v6.15+ lock semantics");
		goto out;
	}
	ncpu = nr_possible();
	CHECK(ncpu > 0);
	snprintf(cg_v2, sizeof(cg_v2), "%s/rs-bpf-test-%d",
		 kf.cgroup_v2_mount, (int)me);
	if (mkdir(cg_v2, 0755)) {
		UNIT_FAIL("mkdir %s: %m", cg_v2);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/cpu.stat", cg_v2);
	if (oracle_start(me)) {
		UNIT_FAIL("tracefs instance %s: %m", inst_name);
		goto out;
	}
	CHECK_INT(bpf_spans__reset(s), 0);
	for (k = 0; k < READS; k++)
		if (read_file(path))
			break;
	CHECK_INT(k, READS);
	CHECK_INT(oracle_count(0, &all, &of_root, &shorts), 0);
	CHECK_INT(bpf_spans__read(s, err, sizeof(err)), 0);
	bpf_spans__counts(s, &c);

	/*
	 * The oracle and the kernel source agree (on v2: a flush this
	 * process causes elsewhere, a memcg one on a fault, is another
	 * root)...
	 */
	CHECK_INT(of_root, READS * (ncpu + 1));
	CHECK_INT(shorts, READS);
	/* ...and so does the BPF program, pair for pair. */
	CHECK_U64(c.locked, all);
	CHECK_U64(c.pairs, all);
	CHECK_U64(c.unmatched_start, 0);
	CHECK_U64(c.unmatched_end, 0);
	CHECK(c.flushes >= READS);
	CHECK_U64(c.flush_broken, 0);
	CHECK_U64(c.stack_errors, 0);
	h = hist_of(s, BPF_SPANS_HOLD, RS_CAT_BASE, &unresolved);
	CHECK_U64(unresolved, 0);
	CHECK(h.count == (uint64_t)of_root);
	h = hist_of(s, BPF_SPANS_HOLD, BPF_SPANS_ANY, NULL);
	CHECK(h.count == (uint64_t)all && h.min <= h.max &&
	      h.sum >= h.count * h.min);
	h = hist_of(s, BPF_SPANS_FLUSH, RS_CAT_BASE, NULL);
	CHECK(h.count == READS);
	CHECK_U64(rows_of(s, BPF_SPANS_HOLD, 0, RS_CAT_BASE, &ok), of_root);
	CHECK(ok);
	bpf_spans__rows(s, &rows, &nr);
	for (i = 0; i < nr; i++) {
		if (rows[i].kind != BPF_SPANS_HOLD || !rows[i].short_lock)
			continue;
		shorts_bpf += rows[i].hist.count;
		/* The short lock's stack names cpu.stat as its trigger. */
		CHECK_INT(class_of(&rows[i]).trigger, RS_TRIG_CPU_STAT);
		ok = rows[i].nr_frames > 0 &&
		     !strcmp(rows[i].frames[0],
			     "cgroup_base_stat_cputime_show");
		CHECK(ok);
		/* Which stack it was, when not: seen once under load. */
		for (k = 0; !ok && k < (int)rows[i].nr_frames; k++)
			fprintf(stderr, "  short lock's frame %d: %s (%llu)\n",
				k, rows[i].frames[k],
				(unsigned long long)rows[i].hist.count);
	}
	CHECK_U64(shorts_bpf, READS);

	/* A reset zeroes everything. */
	CHECK_INT(bpf_spans__reset(s), 0);
	CHECK_INT(bpf_spans__read(s, err, sizeof(err)), 0);
	bpf_spans__counts(s, &c);
	CHECK_U64(c.locked, 0);
	CHECK_U64(c.pairs, 0);
	h = hist_of(s, BPF_SPANS_HOLD, BPF_SPANS_ANY, NULL);
	CHECK(h.count == 0);
out:
	bpf_spans__delete(s);
	cleanup();
}

/* A cgroup filter of another cgroup leaves our reads out. */
static void test_cgroup_filter(void)
{
	struct bpf_spans_opts o = { 0 };
	struct bpf_spans_counts c;
	uint64_t other = 1;	/* the v2 root: never flushed by a read */
	uint64_t ours;
	char path[300], err[256] = "";
	struct bpf_spans *s;
	pid_t me = getpid();
	struct stat st;
	int k, ncpu = nr_possible();

	if (kf_state > 0 && (!kf.cgroup_v2_mount || !kernel_at_least(6, 15)))
		return (void)SKIP("needs a v2 hierarchy and v6.15+");
	o.tgids = &me;
	o.nr_tgids = 1;
	o.cgroup_ids = &other;
	o.nr_cgroup_ids = 1;
	s = open_spans(&o);
	if (!s)
		return;
	snprintf(cg_v2, sizeof(cg_v2), "%s/rs-bpf-test-%d",
		 kf.cgroup_v2_mount, (int)me);
	if (mkdir(cg_v2, 0755) || stat(cg_v2, &st)) {
		UNIT_FAIL("mkdir %s: %m", cg_v2);
		goto out;
	}
	ours = st.st_ino;	/* a v2 cgroup's id is its inode number */
	snprintf(path, sizeof(path), "%s/cpu.stat", cg_v2);
	for (k = 0; k < 20; k++)
		CHECK_INT(read_file(path), 0);
	CHECK_INT(bpf_spans__read(s, err, sizeof(err)), 0);
	bpf_spans__counts(s, &c);
	CHECK_U64(c.pairs, 0);
	/*
	 * At least our reads: a flush this process triggers elsewhere
	 * (a memcg flush on a page fault, say) is filtered out too.
	 */
	CHECK(c.filtered >= (uint64_t)(20 * (ncpu + 1)));
	bpf_spans__delete(s);

	o.cgroup_ids = &ours;
	s = open_spans(&o);
	if (!s)
		goto out;
	for (k = 0; k < 20; k++)
		CHECK_INT(read_file(path), 0);
	CHECK_INT(bpf_spans__read(s, err, sizeof(err)), 0);
	bpf_spans__counts(s, &c);
	CHECK_U64(c.pairs, 20 * (ncpu + 1));
out:
	bpf_spans__delete(s);
	cleanup();
}

/* A child in our memcg dirties and drops page cache: stats to flush. */
static int memcg_churn(const char *cg)
{
	char file[300];
	int status;
	pid_t pid;

	/*
	 * Named here: made in the child, the scratch directory would be
	 * the child's own, never removed.
	 */
	snprintf(file, sizeof(file), "%s", unit_tmp_path("churn"));
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char procs[300], buf[4096];
		int fd, i;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
		fd = open(procs, O_WRONLY);
		if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0)
			_exit(3);
		close(fd);
		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(4);
		memset(buf, 'x', sizeof(buf));
		for (i = 0; i < 2048; i++)	/* 8 MiB of page cache */
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				_exit(5);
		close(fd);
		unlink(file);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

static void test_memory_stat_holds(void)
{
	struct bpf_spans_opts o = { 0 };
	struct bpf_spans_counts c;
	long all, of_root, shorts;
	char path[300], err[256] = "", hid[64], line[256];
	const char *mem_mount = NULL;
	struct bpf_spans *s;
	pid_t me = getpid();
	int ncpu = nr_possible(), root = -1, k;
	size_t i;
	bool ok;
	FILE *f;

	o.tgids = &me;
	o.nr_tgids = 1;
	s = open_spans(&o);
	if (!s)
		return;
	for (i = 0; i < kf.nr_v1; i++)
		if (!strcmp(kf.v1[i].name, "memory"))
			mem_mount = kf.v1[i].mount;
	if (!mem_mount || !kernel_at_least(6, 16)) {
		SKIP("needs the memory controller on v1 and v6.16+ (the memory lock of its own)");
		goto out;
	}
	/* The hierarchy id, the tracepoint's root: /proc/cgroups column 2. */
	f = fopen("/proc/cgroups", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d", hid, &k) == 2 &&
		    !strcmp(hid, "memory"))
			root = k;
	if (f)
		fclose(f);
	CHECK(root > 0);
	snprintf(cg_mem, sizeof(cg_mem), "%s/rs-bpf-test-%d", mem_mount,
		 (int)me);
	if (mkdir(cg_mem, 0755)) {
		UNIT_FAIL("mkdir %s: %m", cg_mem);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/memory.stat", cg_mem);
	if (oracle_start(me)) {
		UNIT_FAIL("tracefs instance %s: %m", inst_name);
		goto out;
	}
	CHECK_INT(bpf_spans__reset(s), 0);
	for (k = 0; k < 10; k++) {
		if (memcg_churn(cg_mem)) {
			UNIT_FAIL("the memcg churn child failed");
			break;
		}
		CHECK_INT(read_file(path), 0);
	}
	CHECK_INT(oracle_count(root, &all, &of_root, &shorts), 0);
	CHECK_INT(bpf_spans__read(s, err, sizeof(err)), 0);
	bpf_spans__counts(s, &c);

	/* Our reads, and any flush a fault of ours asks for. */
	CHECK(c.memcg_requested >= 10);
	/* The periodic worker may flush first; most reads must flush. */
	CHECK(c.memcg_performed >= 5);
	CHECK_U64(c.memcg_spans, c.memcg_performed);
	/* Each flush performed locks the memory lock once per CPU. */
	CHECK_INT(of_root, (long)c.memcg_performed * ncpu);
	CHECK_INT(all, of_root);
	CHECK_U64(c.pairs, of_root);
	CHECK_U64(c.unmatched_start + c.unmatched_end, 0);
	CHECK_U64(rows_of(s, BPF_SPANS_HOLD, root, RS_CAT_MEMORY, &ok),
		  of_root);
	CHECK(ok);
	CHECK(hist_of(s, BPF_SPANS_HOLD, RS_CAT_MEMORY, NULL).count ==
	      (uint64_t)of_root);
	CHECK(hist_of(s, BPF_SPANS_MEMCG, RS_CAT_MEMORY, NULL).count ==
	      c.memcg_performed);
	CHECK(hist_of(s, BPF_SPANS_FLUSH, RS_CAT_MEMORY, NULL).count ==
	      c.memcg_performed);
out:
	bpf_spans__delete(s);
	cleanup();
	unit_tmp_cleanup();
}

UNIT_MAIN(UNIT(test_percentile), UNIT(test_unprivileged_reason),
	  UNIT(test_cpu_stat_holds), UNIT(test_cgroup_filter),
	  UNIT(test_memory_stat_holds))
