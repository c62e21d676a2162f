// SPDX-License-Identifier: GPL-2.0
/*
 * Bench workloads: children held on a pipe until their cgroup is set,
 * and the functions they run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench-workload.h"

enum proc_state { PROC_WAITING, PROC_RUNNING, PROC_REAPED };

struct bench_proc {
	pid_t pid;
	int go_fd;		/* start pipe's write end; -1 once used */
	enum proc_state state;
	bool started;
	struct timespec start, end;
	int status;
	struct rusage ru;
};

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static uint64_t ns_diff(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((int64_t)(b->tv_sec - a->tv_sec) * 1000000000 +
			  (b->tv_nsec - a->tv_nsec));
}

/*
 * In a fresh child: die with the parent, and undo what the caller's
 * process set up that would keep SIGTERM from ending a workload.
 */
static int child_setup(pid_t parent)
{
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return -1;
	/* The parent may have died before the prctl took effect. */
	if (getppid() != parent)
		return -1;
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	return 0;
}

struct bench_proc *bench_proc__spawn(int (*fn)(void *arg), void *arg)
{
	struct bench_proc *p = calloc(1, sizeof(*p));
	pid_t parent = getpid();
	int fds[2], err;
	ssize_t n;
	char c;

	if (!p)
		return NULL;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		err = errno;
		free(p);
		errno = err;
		return NULL;
	}
	p->pid = fork();
	if (p->pid < 0) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		free(p);
		errno = err;
		return NULL;
	}
	if (p->pid == 0) {
		close(fds[1]);
		if (child_setup(parent))
			_exit(127);
		do {
			n = read(fds[0], &c, 1);
		} while (n < 0 && errno == EINTR);
		/* EOF: deleted without being started. */
		if (n != 1)
			_exit(0);
		close(fds[0]);
		_exit(fn(arg) & 0xff);
	}
	close(fds[0]);
	p->go_fd = fds[1];
	p->state = PROC_WAITING;
	return p;
}

pid_t bench_proc__pid(const struct bench_proc *p)
{
	return p->pid;
}

int bench_proc__start(struct bench_proc *p)
{
	char c = 1;
	ssize_t n;

	if (p->state != PROC_WAITING || p->go_fd < 0)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	do {
		n = write(p->go_fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		return n < 0 ? -errno : -EIO;
	close(p->go_fd);
	p->go_fd = -1;
	p->started = true;
	p->state = PROC_RUNNING;
	return 0;
}

/* wait4(), 0 when reaped, 1 when still running (nohang), or -errno. */
static int proc_reap(struct bench_proc *p, bool nohang)
{
	pid_t r;

	/*
	 * A blocking wait returns -EINTR to the caller, whose signal
	 * handler may have asked the run to stop.
	 */
	do {
		r = wait4(p->pid, &p->status, nohang ? WNOHANG : 0, &p->ru);
	} while (r < 0 && errno == EINTR && nohang);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &p->end);
	p->state = PROC_REAPED;
	return 0;
}

int bench_proc__wait(struct bench_proc *p, int *status, struct rusage *ru,
		     double *real_s)
{
	int err;

	if (!p->started)
		return -EINVAL;
	if (p->state != PROC_REAPED) {
		err = proc_reap(p, false);
		if (err)
			return err;
	}
	if (status)
		*status = p->status;
	if (ru)
		*ru = p->ru;
	if (real_s)
		*real_s = ts_diff(&p->start, &p->end);
	return 0;
}

int bench_proc__poll(struct bench_proc *p)
{
	if (!p->started)
		return -EINVAL;
	return p->state == PROC_REAPED ? 0 : proc_reap(p, true);
}

int bench_proc__stop(struct bench_proc *p)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i, err;

	if (p->state == PROC_REAPED)
		return 0;
	if (p->go_fd >= 0) {
		close(p->go_fd);
		p->go_fd = -1;
	}
	kill(p->pid, SIGTERM);
	kill(p->pid, SIGCONT);	/* held (bench_proc__hold_all()) */
	/* A second for a clean exit, polled: most exit at once. */
	for (i = 0; i < 100; i++) {
		err = proc_reap(p, true);
		if (err <= 0)
			return err;
		nanosleep(&tick, NULL);
	}
	kill(p->pid, SIGKILL);
	return proc_reap(p, false);
}

void bench_proc__stop_all(struct bench_proc **procs, size_t n)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	size_t i, left = 0;
	int round;

	for (i = 0; i < n; i++) {
		struct bench_proc *p = procs[i];

		if (p->state == PROC_REAPED)
			continue;
		if (p->go_fd >= 0) {
			close(p->go_fd);
			p->go_fd = -1;
		}
		kill(p->pid, SIGTERM);
		kill(p->pid, SIGCONT);
		left++;
	}
	for (round = 0; left && round < 100; round++) {
		nanosleep(&tick, NULL);
		for (i = 0, left = 0; i < n; i++)
			if (procs[i]->state != PROC_REAPED &&
			    proc_reap(procs[i], true) > 0)
				left++;
	}
	for (i = 0; left && i < n; i++)
		if (procs[i]->state != PROC_REAPED)
			kill(procs[i]->pid, SIGKILL);
	for (i = 0; left && i < n; i++)
		while (procs[i]->state != PROC_REAPED &&
		       proc_reap(procs[i], false) == -EINTR)
			;
}

void bench_proc__hold_all(struct bench_proc **procs, size_t n, bool hold)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (procs[i]->state == PROC_RUNNING)
			kill(procs[i]->pid, hold ? SIGSTOP : SIGCONT);
}

void bench_proc__delete(struct bench_proc *p)
{
	if (!p)
		return;
	bench_proc__stop(p);
	if (p->go_fd >= 0)
		close(p->go_fd);
	free(p);
}

void *bench_shared__alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void bench_shared__free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

int wl_cpu_spin(void *arg)
{
	volatile uint64_t x = 0;

	for (;;)
		x++;
	return 0;
}

static size_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

static int churn_anon(size_t bytes, size_t ps)
{
	char *m;
	size_t i;

	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return errno;
	for (i = 0; i < bytes; i += ps)
		((volatile char *)m)[i] = 1;
	munmap(m, bytes);
	return 0;
}

static int churn_file(int fd, size_t bytes, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < bytes) {
		n = pread(fd, buf, bytes - off < len ? bytes - off : len,
			  (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		off += (size_t)n;
	}
	/* Uncharge now, so that the next pass charges again. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

int wl_memory_churn(void *arg)
{
	const struct wl_memory *w = arg;
	size_t ps = page_size(), len = 128 * 1024;
	char *buf = NULL;
	int fd = -1, err;

	if (!w->anon && !w->pagecache)
		return EINVAL;
	if (w->pagecache) {
		fd = openat(w->dirfd, w->file,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno;
		buf = malloc(len);
		if (!buf)
			return ENOMEM;
	}
	for (;;) {
		if (w->anon && w->anon_bytes) {
			err = churn_anon(w->anon_bytes, ps);
			if (err)
				return err;
		}
		if (fd >= 0) {
			err = churn_file(fd, w->file_bytes, buf, len);
			if (err)
				return err;
		}
	}
	return 0;
}

int bench_sparse_file(int dirfd, const char *name, size_t bytes)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC |
			O_NOFOLLOW | O_CLOEXEC, 0600);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)bytes) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/* One read as cat does it: from offset 0 until end of file. */
static int read_whole(int fd, char *buf, size_t len)
{
	off_t off = 0;
	ssize_t n;

	for (;;) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return 0;
		off += n;
	}
}

int wl_reader(void *arg)
{
	const struct wl_reader *w = arg;
	/* cat's buffer size: io.stat of a big machine fits one read. */
	size_t len = 128 * 1024;
	struct timespec t0, t1;
	uint64_t i, total;
	unsigned int f;
	char *buf;
	int *fds, err = 0;

	if (!w->nr_files)
		return 0;
	buf = malloc(len);
	fds = calloc(w->nr_files, sizeof(*fds));
	if (!buf || !fds) {
		err = ENOMEM;
		goto out;
	}
	for (f = 0; f < w->nr_files; f++)
		fds[f] = -1;
	for (f = 0; f < w->nr_files; f++) {
		fds[f] = open(w->files[f], O_RDONLY | O_CLOEXEC);
		if (fds[f] < 0) {
			err = errno;
			goto out;
		}
		/* Where the kernel's records of its reads say fd. */
		if (w->fds)
			w->fds[f] = fds[f];
	}
	total = w->reads * w->nr_files;
	for (i = 0; i < total; i++) {
		if (w->interleave)
			f = (unsigned int)(i % w->nr_files);
		else
			f = (unsigned int)(i / w->reads);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = read_whole(fds[f], buf, len);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (err)
			goto out;
		/* i is also the slot: interleaved or discrete, in order. */
		w->lat_ns[i] = ns_diff(&t0, &t1);
		__atomic_store_n(w->done, i + 1, __ATOMIC_RELEASE);
	}
out:
	if (err && w->err)
		*w->err = err;
	if (fds)
		for (f = 0; f < w->nr_files; f++)
			if (fds[f] >= 0)
				close(fds[f]);
	free(fds);
	free(buf);
	return err;
}

int wl_charge(void *arg)
{
	const struct wl_charge *w = arg;
	char buf[4096];
	size_t left = w->bytes, n;
	ssize_t k;
	int fd, err = 0;

	memset(buf, 'c', sizeof(buf));
	fd = openat(w->dirfd, w->file, O_WRONLY | O_CREAT | O_TRUNC |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	while (left) {
		n = left < sizeof(buf) ? left : sizeof(buf);
		k = write(fd, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			err = errno;
			break;
		}
		left -= (size_t)k;
	}
	if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

static int read_full(int fd, void *p, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, p, len);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

static int write_full(int fd, const void *p, size_t len)
{
	ssize_t n;

	do {
		n = write(fd, p, len);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

int wl_pipe_pingpong(void *arg)
{
	const struct wl_pipe *w = arg;
	pid_t self = getpid(), partner;
	int ping[2], pong[2], v = 0, err = 0, status;
	struct timespec t0, t1;
	uint64_t i;

	if (pipe(ping) < 0 || pipe(pong) < 0)
		return errno;
	partner = fork();
	if (partner < 0)
		return errno;
	if (partner == 0) {
		close(ping[1]);
		close(pong[0]);
		if (child_setup(self))
			_exit(127);
		/* Echo until the other end closes. */
		while (!read_full(ping[0], &v, sizeof(v)))
			if (write_full(pong[1], &v, sizeof(v)))
				_exit(EPIPE);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < w->round_trips; i++) {
		v = (int)i;
		if (write_full(ping[1], &v, sizeof(v)) ||
		    read_full(pong[0], &v, sizeof(v)) || v != (int)i) {
			err = EPIPE;
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!err && w->seconds)
		*w->seconds = ts_diff(&t0, &t1);
	close(ping[1]);
	close(pong[0]);
	while (waitpid(partner, &status, 0) < 0 && errno == EINTR)
		;
	return err;
}

int wl_fault(void *arg)
{
	const struct wl_fault *w = arg;
	size_t ps = page_size(), bytes, i;
	uint64_t pages;
	char *m;
	int fd;

	bytes = w->bytes / ps * ps;
	if (!bytes)
		bytes = ps;
	pages = bytes / ps;
	fd = memfd_create("rstat-bench-fault", MFD_CLOEXEC);
	if (fd < 0)
		return errno;
	if (ftruncate(fd, (off_t)bytes) < 0)
		return errno;
	while (!w->stop || !*w->stop) {
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 fd, 0);
		if (m == MAP_FAILED)
			return errno;
		for (i = 0; i < bytes; i += ps)
			((volatile char *)m)[i] = 0;
		munmap(m, bytes);
		if (w->faults)
			__atomic_fetch_add(w->faults, pages, __ATOMIC_RELAXED);
	}
	close(fd);
	return 0;
}

/* Differences above this go to one overflow count. */
#define OVERHEAD_SLOTS 10000
#define OVERHEAD_PAIRS 1000000

int bench_timer_overhead(uint64_t *ns_min, uint64_t *ns_median)
{
	/* Counts per ns: the median without sorting 1M values. */
	uint32_t *counts = calloc(OVERHEAD_SLOTS + 1, sizeof(*counts));
	struct timespec t0, t1;
	uint64_t d, min = UINT64_MAX, seen = 0;
	size_t i;

	if (!counts)
		return -ENOMEM;
	for (i = 0; i < OVERHEAD_PAIRS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		d = ns_diff(&t0, &t1);
		if (d < min)
			min = d;
		counts[d < OVERHEAD_SLOTS ? d : OVERHEAD_SLOTS]++;
	}
	for (i = 0; i <= OVERHEAD_SLOTS; i++) {
		seen += counts[i];
		/* Lower median: rank ceil(n / 2). */
		if (seen * 2 >= OVERHEAD_PAIRS)
			break;
	}
	free(counts);
	if (ns_min)
		*ns_min = min;
	if (ns_median)
		*ns_median = i;
	return 0;
}
