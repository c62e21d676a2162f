// SPDX-License-Identifier: GPL-2.0
/*
 * The guest side: the tool as /init (PID 1) of one of our VMs.
 *
 * It sets up what the tool expects of a machine (proc, sysfs, tracefs,
 * debugfs, a pure cgroup v2 hierarchy with every controller enabled for
 * children, a /tmp), runs the command in a child, since PID 1 must never
 * exit and the command may die of a signal, sends back its stdout,
 * stderr, the files it left in /out and those the host asked for, then
 * its status, and powers off. Messages of its own go to the console,
 * which the host prints when a run fails: there is nobody else to tell.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "util.h"
#include "vm.h"
#include "vm-internal.h"

#define GUEST_STDOUT "/tmp/.rs-vm-stdout"
#define GUEST_STDERR "/tmp/.rs-vm-stderr"

static void say(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "rstat-analyze (vm /init): ");
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

static bool dir_is_empty(const char *path)
{
	struct dirent *de;
	bool empty = true;
	DIR *d = opendir(path);

	if (!d)
		return true;
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static void mount_one(const char *src, const char *dir, const char *type,
		      bool needed)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) < 0 && (needed || errno != ENODEV))
		say("cannot mount %s", dir, errno);
}

/* Every controller the hierarchy has, enabled for its children. */
static void enable_controllers(void)
{
	char buf[512], *tok, *save = NULL;
	ssize_t n;
	int fd;

	fd = open("/sys/fs/cgroup/cgroup.controllers", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	fd = open("/sys/fs/cgroup/cgroup.subtree_control",
		  O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		char word[64];
		int len = snprintf(word, sizeof(word), "+%s", tok);

		/* One at a time: one that cannot be enabled spoils none. */
		if (write(fd, word, len) < 0)
			say("cannot enable the %s controller", tok, errno);
	}
	close(fd);
}

static void setup_machine(void)
{
	mount_one("devtmpfs", "/dev", "devtmpfs", true);
	mount_one("proc", "/proc", "proc", true);
	mount_one("sysfs", "/sys", "sysfs", true);
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs", false);
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", false);
	mount_one("cgroup2", "/sys/fs/cgroup", "cgroup2", true);
	mount_one("bpf", "/sys/fs/bpf", "bpf", false);
	/*
	 * A command packed under /tmp (its host path) must stay visible:
	 * the root is in memory already, so /tmp needs no file system of
	 * its own then, only /tmp's mode.
	 */
	if (dir_is_empty("/tmp"))
		mount_one("tmpfs", "/tmp", "tmpfs", true);
	chmod("/tmp", 01777);
	enable_controllers();
}

/*
 * The toolbox: links to every applet of the packed busybox, in a
 * directory last on PATH, so that `sh -c '... cat ...'` finds cat while
 * any program packed by its own path comes first.
 */
static void install_toolbox(void)
{
	int status, fd;
	pid_t pid;

	if (access(VM_GUEST_BUSYBOX, X_OK))
		return;
	mkdir(VM_GUEST_TOOLBOX, 0755);
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(VM_GUEST_BUSYBOX, "busybox", "--install", "-s",
		      VM_GUEST_TOOLBOX, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
}

/* A whole file (also /proc files, whose size says 0) into *buf. */
static int slurp(const char *path, struct bytebuf *b)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		bytebuf__put(b, chunk, n);
	close(fd);
	if (n < 0)
		return -errno;
	return b->oom ? -ENOMEM : 0;
}

/*
 * Files go compressed (ZFILE): a UART moves a few hundred KB a second
 * under TCG, and kallsyms and perf.data shrink five to ten times.
 */
static void send_file(int port, const char *name, const char *path)
{
	struct bytebuf b = { 0 };
	size_t cap, n;
	void *z = NULL;
	int err = slurp(path, &b);

	if (err) {
		say("cannot read %s", path, -err);
		goto out;
	}
	cap = ZSTD_compressBound(b.len);
	z = malloc(cap);
	n = z ? ZSTD_compress(z, cap, b.p, b.len, 3) : 0;
	if (z && !ZSTD_isError(n))
		err = vm_frame__write(port, "ZFILE", name, z, n);
	else
		err = vm_frame__write(port, "FILE", name, b.p, b.len);
	if (err)
		say("cannot send %s", path, -err);
out:
	free(z);
	free(b.p);
}

/* The files the command left in dir, as "out/..." names, recursively. */
static void send_tree(int port, const char *dir, const char *name,
		      int depth)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4096], sub[4096];
		struct stat st;

		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path) ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", name,
				     de->d_name) >= 256 ||
		    lstat(path, &st) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			send_file(port, sub, path);
		else if (S_ISDIR(st.st_mode) && depth < 4)
			send_tree(port, path, sub, depth + 1);
	}
	closedir(d);
}

static int open_port(void)
{
	struct termios tio;
	int fd = open(VM_DATA_PORT, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		say("cannot open %s", VM_DATA_PORT, errno);
		return -1;
	}
	/* Raw: no "\n" -> "\r\n", the payloads are binary. */
	if (tcgetattr(fd, &tio) == 0) {
		cfmakeraw(&tio);
		cfsetospeed(&tio, B115200);
		tcsetattr(fd, TCSANOW, &tio);
	}
	return fd;
}

/* The argv the host packed: NUL-separated words after "rstat-analyze". */
static char **read_argv(struct bytebuf *b, int *argcp)
{
	char **argv;
	size_t i, n = 1;
	int argc = 0;

	if (slurp(VM_GUEST_ARGV, b) || !b->len || b->p[b->len - 1])
		return NULL;
	for (i = 0; i < b->len; i++)
		n += !b->p[i];
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[argc++] = "rstat-analyze";
	for (i = 0; i < b->len; i += strlen((char *)b->p + i) + 1)
		argv[argc++] = (char *)b->p + i;
	*argcp = argc;
	return argv;
}

static int run_command(int (*run)(int, char **), int argc, char **argv)
{
	int status, fd;
	pid_t pid, w;

	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		fd = open(GUEST_STDOUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 1);
		fd = open(GUEST_STDERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		setsid();
		if (chdir(VM_GUEST_OUT) < 0)
			_exit(127);
		exit(run(argc, argv));
	}
	/* PID 1 reaps every orphan until its own child ends. */
	while ((w = wait(&status)) != pid)
		if (w < 0 && errno != EINTR)
			return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * The build id of the running kernel, from its notes (/sys/kernel/notes:
 * ELF notes, 4-byte aligned), as hex into hex[len]; 0 or -1.
 */
static int kernel_build_id(char *hex, size_t len)
{
	struct bytebuf b = { 0 };
	size_t off = 0, o = 0, i;
	int ret = -1;

	if (slurp("/sys/kernel/notes", &b))
		goto out;
	while (off + 12 <= b.len) {
		uint32_t namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, b.p + off, 4);
		memcpy(&descsz, b.p + off + 4, 4);
		memcpy(&type, b.p + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3) & ~3u);
		if (desc < name || desc + descsz > b.len)
			break;
		if (type == 3 && namesz == 4 && !memcmp(b.p + name, "GNU", 4) &&
		    descsz * 2 < len) {	/* NT_GNU_BUILD_ID */
			for (i = 0; i < descsz; i++)
				o += snprintf(hex + o, len - o, "%02x",
					      b.p[desc + i]);
			ret = 0;
			break;
		}
		off = desc + ((descsz + 3) & ~3u);
	}
out:
	free(b.p);
	return ret;
}

/*
 * When the host resolved probes against a vmlinux, this kernel must be
 * that vmlinux's: else the offsets point into other code. The refusal
 * goes where the command's errors go, for the host to print.
 */
static bool kernel_is_expected(void)
{
	struct bytebuf want = { 0 };
	char have[160] = "";
	bool ok = true;
	FILE *f;

	if (slurp(VM_GUEST_BUILD_ID, &want) || !want.len)
		goto out;
	bytebuf__put(&want, "", 1);
	if (want.oom)
		goto out;
	kernel_build_id(have, sizeof(have));
	if (!strcmp((char *)want.p, have))
		goto out;
	ok = false;
	f = fopen(GUEST_STDERR, "w");
	if (f) {
		fprintf(f, "rstat-analyze: the vmlinux the probes were resolved with is not this kernel's: its build id is %s, the guest kernel's %s (give the vmlinux of the -dbg package of this very kernel)\n",
			(char *)want.p, *have ? have : "unknown");
		fclose(f);
	}
out:
	free(want.p);
	return ok;
}

static void send_fetches(int port)
{
	struct bytebuf b = { 0 };
	size_t i;

	if (slurp(VM_GUEST_DIR "/fetch", &b) == 0) {
		for (i = 0; i < b.len; i += strlen((char *)b.p + i) + 1)
			if (i + strlen((char *)b.p + i) < b.len)
				send_file(port, (char *)b.p + i,
					  (char *)b.p + i);
	}
	free(b.p);
}

/*
 * How long the command took since HELLO by this guest's clock, and the
 * clocksource behind it, for the host to hold against its own clock: a
 * guest whose clock drifts (an emulated clocksource losing or gaining
 * ticks) times everything wrong.
 */
static void send_clock(int port, const struct timespec *hello)
{
	struct timespec now;
	char cs[32] = "", text[96];
	int fd, n;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (now.tv_sec - hello->tv_sec) * 1000000000LL +
	     (now.tv_nsec - hello->tv_nsec);
	fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cs, sizeof(cs) - 1);
		cs[n > 0 ? n : 0] = '\0';
		cs[strcspn(cs, "\n ")] = '\0';
		close(fd);
	}
	n = snprintf(text, sizeof(text), "%lld %s", ns, *cs ? cs : "unknown");
	vm_frame__write(port, "CLOCK", "clock", text, n);
}

void vm_guest__main(int (*run)(int argc, char **argv))
{
	struct bytebuf argbuf = { 0 };
	struct utsname u;
	struct timespec hello;
	char status[16];
	char **argv;
	int port, argc = 0, rc;

	setup_machine();
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
	       "/sbin:/bin:" VM_GUEST_TOOLBOX, 1);
	install_toolbox();
	setenv("HOME", "/", 1);
	setenv("TMPDIR", "/tmp", 1);
	port = open_port();
	if (port < 0)
		goto off;
	uname(&u);
	clock_gettime(CLOCK_MONOTONIC, &hello);
	vm_frame__write(port, "HELLO", "release", u.release,
			strlen(u.release));
	mkdir(VM_GUEST_OUT, 0755);
	argv = read_argv(&argbuf, &argc);
	if (!argv) {
		say("%s holds no command", VM_GUEST_ARGV, 0);
		rc = 127;
	} else if (!kernel_is_expected()) {
		rc = 1;
	} else {
		rc = run_command(run, argc, argv);
	}
	send_clock(port, &hello);
	send_file(port, "stdout", GUEST_STDOUT);
	send_file(port, "stderr", GUEST_STDERR);
	send_tree(port, VM_GUEST_OUT, "out", 0);
	send_fetches(port);
	snprintf(status, sizeof(status), "%d", rc);
	vm_frame__write(port, "EXIT", "status", status, strlen(status));
	vm_frame__write(port, "END", "end", "", 0);
	tcdrain(port);
	close(port);
	free(argv);
	free(argbuf.p);
off:
	sync();
	reboot(RB_POWER_OFF);
	/* Only if power-off failed: the host's timeout ends the VM. */
	for (;;)
		pause();
}
