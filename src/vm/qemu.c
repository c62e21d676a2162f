// SPDX-License-Identifier: GPL-2.0
/*
 * The host side: pack the initramfs, boot QEMU on it, watch the data port
 * for frames, enforce the timeouts, collect what the guest sent.
 *
 * Everything lives in one work directory (src/workdir.c): the initramfs,
 * the console log, the data port's file and QEMU's own messages. QEMU runs
 * in a process group of its own with PR_SET_PDEATHSIG, so that it dies
 * with us even when we are killed outright; on every other exit path we
 * kill and reap it and remove the directory before returning.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "util.h"
#include "vm.h"
#include "vm-internal.h"
#include "workdir.h"

#define QEMU_BIN "qemu-system-x86_64"
#define CONSOLE_KEEP (64 * 1024)	/* console bytes a result keeps */
#define KVM_BOOT_TIMEOUT_S 15		/* auto: long enough for any KVM boot */

struct vm_file {
	char *name;
	uint8_t *data;
	size_t len;
};

struct vm_result {
	char release[128];
	int status;
	bool tcg, fell_back;
	struct vm_clock clock;
	double hello_at;	/* the host's rs_now_s() at HELLO */
	char *console;
	struct vm_file *files;
	size_t nfiles, cap;
};

int vm_accel__parse(const char *s, enum vm_accel *accel)
{
	if (!strcmp(s, "auto"))
		*accel = VM_ACCEL_AUTO;
	else if (!strcmp(s, "kvm"))
		*accel = VM_ACCEL_KVM;
	else if (!strcmp(s, "tcg"))
		*accel = VM_ACCEL_TCG;
	else
		return -EINVAL;
	return 0;
}

int vm_memory__parse(const char *s, unsigned long *mb)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (!strcmp(end, "G") || !strcmp(end, "g") || !strcmp(end, "GiB"))
		v *= 1024;
	else if (*end && strcmp(end, "M") && strcmp(end, "m") &&
		 strcmp(end, "MiB"))
		return -EINVAL;
	/* QEMU's and the kernel's lower bound for a useful guest. */
	if (v < 128 || v > 1024ULL * 1024)
		return -EINVAL;
	*mb = v;
	return 0;
}

void vm_result__delete(struct vm_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nfiles; i++) {
		free(res->files[i].name);
		free(res->files[i].data);
	}
	free(res->files);
	free(res->console);
	free(res);
}

const char *vm_result__release(const struct vm_result *res)
{
	return res->release;
}

int vm_result__status(const struct vm_result *res)
{
	return res->status;
}

bool vm_result__tcg(const struct vm_result *res)
{
	return res->tcg;
}

bool vm_result__kvm_fell_back(const struct vm_result *res)
{
	return res->fell_back;
}

/*
 * The first line of a kernel oops or warning: what went wrong (an int3,
 * an invalid opcode...) is said there, above the registers and the call
 * trace that fill a short tail.
 */
static const char *oops_start(const char *c)
{
	static const char *const marks[] = {
		"------------[ cut here ]", "BUG: ", "Oops: ",
		"general protection fault", "invalid opcode",
	};
	const char *first = NULL, *m;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		m = strstr(c, marks[i]);
		if (m && (!first || m < first))
			first = m;
	}
	while (first && first > c && first[-1] != '\n')
		first--;
	return first;
}

const char *vm_console__tail(const char *c, size_t max)
{
	size_t len = strlen(c);
	const char *tail, *oops;

	if (len <= max)
		return c;
	/* A panic's report can be longer than max: show it from its start. */
	oops = oops_start(c);
	if (oops && (size_t)(c + len - oops) <= 4 * max)
		return oops;
	/* Start at a line. */
	tail = c + len - max;
	while (*tail && tail[-1] != '\n')
		tail++;
	return tail;
}

const char *vm_result__console(const struct vm_result *res, size_t max)
{
	return vm_console__tail(res->console ? res->console : "", max);
}

const void *vm_result__file(const struct vm_result *res, const char *name,
			    size_t *len)
{
	size_t i;

	for (i = 0; i < res->nfiles; i++)
		if (!strcmp(res->files[i].name, name)) {
			if (len)
				*len = res->files[i].len;
			return res->files[i].data;
		}
	return NULL;
}

const char *vm_result__file_name(const struct vm_result *res, size_t i)
{
	return i < res->nfiles ? res->files[i].name : NULL;
}

/* A frame's file; ZFILE payloads are one zstd frame of known size. */
static int result_add_file(struct vm_result *res, const struct vm_frame *f,
			   bool compressed)
{
	unsigned long long size = f->len;
	struct vm_file *vf;

	if (compressed) {
		size = ZSTD_getFrameContentSize(f->data, f->len);
		/* A guest's file lives in its RAM: more is a bad frame. */
		if (size == ZSTD_CONTENTSIZE_ERROR ||
		    size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ULL << 40))
			return -EBADMSG;
	}
	if (grow_array((void **)&res->files, &res->cap, res->nfiles + 1,
		       sizeof(*res->files)))
		return -ENOMEM;
	vf = &res->files[res->nfiles];
	vf->name = strdup(f->name);
	vf->data = malloc(size + 1);
	if (!vf->name || !vf->data) {
		free(vf->name);
		free(vf->data);
		return -ENOMEM;
	}
	if (!compressed) {
		memcpy(vf->data, f->data, f->len);
	} else if (ZSTD_decompress(vf->data, size, f->data, f->len) != size) {
		free(vf->name);
		free(vf->data);
		return -EBADMSG;
	}
	vf->data[size] = '\0';	/* text files read as strings */
	vf->len = size;
	res->nfiles++;
	return 0;
}

/* One boot: the state the watch loop keeps. */
struct boot {
	int dirfd;
	pid_t qemu;
	struct bytebuf port;	/* the data port's bytes so far */
	size_t parsed;
	bool hello, end;
	int bad;		/* a frame that did not parse */
};

/* A path for QEMU's -chardev, whose option syntax doubles commas. */
static int chardev_arg(char *buf, size_t len, const char *id,
		       const char *dir, const char *file)
{
	size_t o = snprintf(buf, len, "file,id=%s,path=", id);
	char path[4096];
	const char *p;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	for (p = path; *p && o + 3 < len; p++) {
		if (*p == ',')
			buf[o++] = ',';
		buf[o++] = *p;
	}
	if (*p)
		return -ENAMETOOLONG;
	buf[o] = '\0';
	return 0;
}

static void kill_qemu(struct boot *b)
{
	if (b->qemu <= 0)
		return;
	kill(-b->qemu, SIGKILL);
	kill(b->qemu, SIGKILL);
	while (waitpid(b->qemu, NULL, 0) < 0 && errno == EINTR)
		;
	b->qemu = 0;
}

/*
 * The guest's "CLOCK" frame, "NANOSECONDS CLOCKSOURCE": how long its
 * command took since HELLO by its own clock; timed here over the same
 * stretch (both ends seen within a port poll, 20 ms).
 */
static void parse_clock(struct vm_result *res, const struct vm_frame *f)
{
	char text[96], cs[32] = "";
	unsigned long long ns;

	snprintf(text, sizeof(text), "%.*s", (int)f->len,
		 (const char *)f->data);
	if (sscanf(text, "%llu %31s", &ns, cs) < 1)
		return;
	res->clock.guest_s = ns / 1e9;
	res->clock.host_s = rs_now_s() - res->hello_at;
	snprintf(res->clock.clocksource, sizeof(res->clock.clocksource),
		 "%s", cs);
	res->clock.measured = true;
}

void vm_result__clock(const struct vm_result *res, struct vm_clock *c)
{
	*c = res->clock;
}

double vm_clock__drift(const struct vm_clock *c)
{
	if (!c->measured || c->host_s < VM_CLOCK_MIN_S || c->guest_s <= 0)
		return NAN;
	return c->guest_s / c->host_s - 1;
}

bool vm_clock__bad(const struct vm_clock *c)
{
	double d = vm_clock__drift(c);

	return !isnan(d) && fabs(d) > VM_CLOCK_MAX_DRIFT;
}

/* Read what the data port got since last time, parse whole frames. */
static int poll_port(struct boot *b, struct vm_result *res)
{
	char chunk[65536];
	struct vm_frame f;
	ssize_t n;
	int fd, rc;

	fd = openat(b->dirfd, "port", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;	/* QEMU has not created it yet */
	while ((n = pread(fd, chunk, sizeof(chunk), b->port.len)) > 0)
		bytebuf__put(&b->port, chunk, n);
	close(fd);
	if (b->port.oom)
		return -ENOMEM;
	while (!b->bad && !b->end &&
	       (rc = vm_frame__parse(b->port.p, b->port.len, &b->parsed,
				     &f)) != 0) {
		if (rc < 0) {
			b->bad = rc;
			break;
		}
		if (!strcmp(f.type, "HELLO")) {
			snprintf(res->release, sizeof(res->release), "%.*s",
				 (int)f.len, (const char *)f.data);
			b->hello = true;
			res->hello_at = rs_now_s();
		} else if (!strcmp(f.type, "CLOCK") && b->hello) {
			parse_clock(res, &f);
		} else if (!strcmp(f.type, "FILE") ||
			   !strcmp(f.type, "ZFILE")) {
			rc = result_add_file(res, &f, f.type[0] == 'Z');
			if (rc == -EBADMSG) {
				b->bad = rc;
				break;
			}
			if (rc)
				return rc;
		} else if (!strcmp(f.type, "EXIT")) {
			res->status = atoi((const char *)f.data);
		} else if (!strcmp(f.type, "END")) {
			b->end = true;
		}
	}
	return 0;
}

static char *read_small(int dirfd, const char *name, size_t keep)
{
	struct bytebuf b = { 0 };
	char chunk[65536];
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return strdup("");
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		bytebuf__put(&b, chunk, n);
		/* Keep only the tail of a long console. */
		if (b.len > 4 * keep) {
			memmove(b.p, b.p + b.len - keep, keep);
			b.len = keep;
		}
	}
	close(fd);
	bytebuf__put(&b, "", 1);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	if (b.len > keep + 1) {
		memmove(b.p, b.p + b.len - keep - 1, keep + 1);
	}
	return (char *)b.p;
}

struct launch {
	const char *qemu, *kernel, *dir;
	const struct vm_params *p;
	const char *cmdline;
	bool kvm;
};

/* 0 or -errno; the caller says what failed. */
static int spawn_qemu(const struct launch *l, struct boot *b)
{
	char con[4200], port[4200], initrd[4200], smp[32], mem[32];
	const char *argv[40];
	int i = 0, fd;
	pid_t pid;

	if (chardev_arg(con, sizeof(con), "con", l->dir, "console") ||
	    chardev_arg(port, sizeof(port), "port", l->dir, "port"))
		return -ENAMETOOLONG;
	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", l->dir);
	snprintf(smp, sizeof(smp), "%u", l->p->cpus ? l->p->cpus : 2);
	snprintf(mem, sizeof(mem), "%luM",
		 l->p->memory_mb ? l->p->memory_mb : 1024);
	argv[i++] = l->qemu;
	argv[i++] = "-nodefaults";
	argv[i++] = "-no-user-config";
	argv[i++] = "-nographic";
	argv[i++] = "-no-reboot";	/* a panic (panic=-1) ends QEMU */
	argv[i++] = "-accel";
	/*
	 * One host thread runs every vCPU in turn under TCG. With one thread
	 * per vCPU (MTTCG) a guest that flips a static key while recording
	 * (perf's sched hooks) sometimes died of the int3 that text_poke_bp()
	 * plants: another vCPU still ran the stale translated code after the
	 * kernel's sync (6.12, 1 boot in 15 on two host CPUs).
	 */
	argv[i++] = l->kvm ? "kvm" : "tcg,thread=single";
	if (!l->kvm && l->p->icount) {
		/*
		 * 1 ns of guest time per instruction (shift=0), never
		 * catching up with the host's clock (sleep=off, align=off):
		 * time is then a function of what the guest executed.
		 */
		argv[i++] = "-icount";
		argv[i++] = "shift=0,sleep=off,align=off";
	}
	argv[i++] = "-cpu";
	argv[i++] = l->kvm ? "host" : "max";
	argv[i++] = "-smp";
	argv[i++] = smp;
	argv[i++] = "-m";
	argv[i++] = mem;
	argv[i++] = "-chardev";
	argv[i++] = con;
	argv[i++] = "-serial";
	argv[i++] = "chardev:con";
	argv[i++] = "-chardev";
	argv[i++] = port;
	argv[i++] = "-serial";
	argv[i++] = "chardev:port";
	argv[i++] = "-monitor";
	argv[i++] = "none";
	argv[i++] = "-kernel";
	argv[i++] = l->kernel;
	argv[i++] = "-initrd";
	argv[i++] = initrd;
	argv[i++] = "-append";
	argv[i++] = l->cmdline;
	argv[i] = NULL;

	/* A fresh console and port for each boot (auto may boot twice). */
	unlinkat(b->dirfd, "console", 0);
	unlinkat(b->dirfd, "port", 0);
	fd = openat(b->dirfd, "qemu.log", O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fd);
		return -errno;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Our parent may have died before the prctl. */
		if (getppid() == 1)
			_exit(127);
		/* Ctrl-C is the tool's to handle: it kills us. */
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(l->qemu, (char *const *)argv);
		_exit(127);
	}
	close(fd);
	setpgid(pid, pid);
	b->qemu = pid;
	return 0;
}

/* QEMU's own first message line, for a QEMU that would not start. */
static void qemu_message(int dirfd, char *buf, size_t len)
{
	char *log = read_small(dirfd, "qemu.log", 4096);
	char *nl;

	snprintf(buf, len, "%s", log ? log : "");
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	free(log);
}

/*
 * One boot and run. 0 when the guest sent END; -ETIMEDOUT, with b->hello
 * still false, when it never said HELLO within boot_s.
 */
static int boot_once(const struct launch *l, struct boot *b,
		     struct vm_result *res, unsigned int boot_s,
		     unsigned int run_s, char *errbuf, size_t errlen)
{
	double start = rs_now_s(), ended = 0;
	int status = 0, err;
	pid_t w;

	err = spawn_qemu(l, b);
	if (err) {
		errbuf_set(errbuf, errlen, "cannot start %s: %s", l->qemu,
			   strerror(-err));
		return err;
	}
	for (;;) {
		double t = rs_now_s() - start;

		w = waitpid(b->qemu, &status, WNOHANG);
		if (w == b->qemu)
			b->qemu = 0;
		err = poll_port(b, res);
		if (err)
			break;
		if (!b->qemu)
			break;
		if (l->p->stop && *l->p->stop) {
			err = -EINTR;
			errbuf_set(errbuf, errlen,
				   "interrupted; the VM was stopped");
			break;
		}
		if (b->end && !ended)
			ended = t;
		/* The guest powers off after END; a few seconds for it. */
		if (ended && t - ended > 5)
			break;
		if (!b->hello && t > boot_s) {
			err = -ETIMEDOUT;
			errbuf_set(errbuf, errlen,
				   "the %s guest did not boot within %u s",
				   l->kvm ? "KVM" : "TCG", boot_s);
			break;
		}
		if (t > run_s) {
			err = -ETIMEDOUT;
			errbuf_set(errbuf, errlen,
				   "the guest did not finish within %u s (--vm-timeout); it was killed",
				   run_s);
			break;
		}
		usleep(20000);
	}
	kill_qemu(b);
	if (!err)
		err = poll_port(b, res);
	free(res->console);
	res->console = read_small(b->dirfd, "console", CONSOLE_KEEP);
	if (err)
		return err;
	if (b->end)
		return 0;
	if (b->bad) {
		errbuf_set(errbuf, errlen,
			   "the guest's data port holds a bad frame at byte %zu",
			   b->parsed);
		return -EBADMSG;
	}
	if (!b->hello && (!res->console || !*res->console)) {
		char msg[512];

		qemu_message(b->dirfd, msg, sizeof(msg));
		errbuf_set(errbuf, errlen, "QEMU failed before the guest started%s%s",
			   *msg ? ": " : "", *msg ? msg : "(no message)");
		return -EIO;
	}
	if (res->console && strstr(res->console, "Kernel panic"))
		errbuf_set(errbuf, errlen,
			   "the guest kernel panicked%s (console above)",
			   b->hello ? "" : " while booting");
	else
		errbuf_set(errbuf, errlen,
			   "the guest stopped %s (console above)",
			   b->hello ? "before the command finished" :
			   "before /init started");
	return -EIO;
}

static int write_argv(struct cpio *c, int argc, char *const argv[])
{
	struct bytebuf b = { 0 };
	int i, err;

	for (i = 0; i < argc; i++)
		bytebuf__put(&b, argv[i], strlen(argv[i]) + 1);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	err = cpio__add_data(c, VM_GUEST_ARGV, 0644, b.p, b.len);
	free(b.p);
	return err;
}

static int write_fetch(struct cpio *c, const char *const *fetch)
{
	struct bytebuf b = { 0 };
	int err;

	for (; fetch && *fetch; fetch++)
		bytebuf__put(&b, *fetch, strlen(*fetch) + 1);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	err = cpio__add_data(c, VM_GUEST_DIR "/fetch", 0644, b.p, b.len);
	free(b.p);
	return err;
}

/* The initramfs: /init (this binary), its libraries, the programs. */
static int pack_initramfs(int dirfd, const struct vm_params *p, int argc,
			  char *const argv[], struct vm_pack *pack,
			  char *errbuf, size_t errlen)
{
	static const char *const dirs[] = {
		"/dev", "/proc", "/sys", "/tmp", "/out", "/root", "/etc",
		"/var/lib", "/var/tmp", "/run",
	};
	/*
	 * The running binary itself, even when a rebuild has replaced its
	 * file since it started (a multi-kernel bench packs once a kernel):
	 * by its name the path would be the new file, or "(deleted)".
	 */
	static const char self[] = "/proc/self/exe";
	char busybox[4096];
	size_t i;
	FILE *f;
	int fd, err = 0;

	fd = openat(dirfd, "initramfs.cpio", O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		errbuf_set(errbuf, errlen, "cannot write the initramfs: %s",
			   strerror(-err));
		return err;
	}
	pack->cpio = cpio__new(f);
	if (!pack->cpio) {
		fclose(f);
		return -ENOMEM;
	}
	for (i = 0; !err && i < ARRAY_SIZE(dirs); i++)
		err = cpio__add_dir(pack->cpio, dirs[i]);
	if (!err)
		err = cpio__add_chardev(pack->cpio, "/dev/console", 0600, 5, 1);
	if (!err)
		err = cpio__add_chardev(pack->cpio, "/dev/null", 0666, 1, 3);
	if (err) {
		errbuf_set(errbuf, errlen, "cannot write the initramfs: %s",
			   strerror(-err));
		goto out;
	}
	err = vm_pack__program(pack, self, "/init", errbuf, errlen);
	/*
	 * Scripts given as the command need the usual commands (cat, sed,
	 * sleep...): the host's busybox brings them all, when it has one.
	 */
	if (!err && !vm_find_program("busybox", busybox, sizeof(busybox)) &&
	    busybox[0] == '/')
		err = vm_pack__program(pack, busybox, VM_GUEST_BUSYBOX,
				       errbuf, errlen);
	for (i = 0; !err && p->programs && p->programs[i]; i++)
		err = vm_pack__program(pack, p->programs[i], NULL, errbuf,
				       errlen);
	if (err)
		goto out;
	err = write_argv(pack->cpio, argc, argv);
	if (!err)
		err = write_fetch(pack->cpio, p->fetch);
	if (!err && p->build_id)
		err = cpio__add_data(pack->cpio, VM_GUEST_BUILD_ID, 0644,
				     p->build_id, strlen(p->build_id));
	if (!err)
		err = cpio__finish(pack->cpio);
	if (err)
		errbuf_set(errbuf, errlen, "cannot write the initramfs: %s",
			   strerror(-err));
out:
	cpio__delete(pack->cpio);
	pack->cpio = NULL;
	if (fclose(f) && !err) {
		err = -EIO;
		errbuf_set(errbuf, errlen, "cannot write the initramfs");
	}
	return err;
}

/*
 * Under TCG the guest finds its CPUs' TSCs "unsynchronized" (the sync
 * check's CPUs do not run at once, one host thread emulates them all),
 * marks the TSC unstable and falls back to the HPET: each clock read is
 * then an emulated MMIO access, some 10 us, and every span BPF times
 * (bpf_ktime_get_ns) grows by it. QEMU's emulated TSC counts the host's
 * clock on every vCPU alike, so it is reliable in fact: say so, before
 * the user's --append, which may still say otherwise. Measured on 6.1 and
 * 6.12 (stat-read --record): flush and hold spans went from a median in
 * [8K,16K) and [64K,128K) ns to [4K,8K) on both.
 */
#define VM_TCG_CLOCK "tsc=reliable"

/* The kernel command line; the loader's directories go in as init's env. */
static int make_cmdline(char *buf, size_t len, const struct vm_pack *pack,
			const char *append, bool tcg)
{
	size_t o, i;

	o = snprintf(buf, len,
		     "console=ttyS0 rdinit=/init panic=-1 loglevel=4 "
		     "LD_LIBRARY_PATH=");
	for (i = 0; i < pack->nlibdirs && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s", i ? ":" : "",
			      pack->libdirs[i]);
	if (tcg && o < len)
		o += snprintf(buf + o, len - o, " " VM_TCG_CLOCK);
	if (append && *append && o < len)
		o += snprintf(buf + o, len - o, " %s", append);
	/* x86 takes 2048 bytes of command line. */
	return o < len && o < 2048 ? 0 : -E2BIG;
}

/* Entries a stale-run cleanup leaves alone are not ours to mention. */
static void ignore_note(void *ctx, const char *path, const char *why)
{
}

static bool kvm_usable(void)
{
	return access("/dev/kvm", R_OK | W_OK) == 0;
}

int vm__run(const struct vm_params *p, int argc, char *const argv[],
	    struct vm_result **resp, char *errbuf, size_t errlen)
{
	struct vm_pack pack = { 0 };
	struct workdir *wd = NULL;
	struct vm_result *res;
	struct boot b = { 0 };
	struct launch l = { 0 };
	char qemu[4096], cmdline[4096];
	unsigned int boot_s, run_s, removed = 0;
	int err, derr;

	if (resp)
		*resp = NULL;
	if (vm_find_program(QEMU_BIN, qemu, sizeof(qemu))) {
		errbuf_set(errbuf, errlen,
			   QEMU_BIN " is not on PATH: install the package " VM_QEMU_PACKAGE);
		return -ENOENT;
	}
	if (access(p->kernel, R_OK)) {
		err = -errno;
		errbuf_set(errbuf, errlen, "kernel image %s: %s", p->kernel,
			   strerror(errno));
		return err;
	}
	if (p->icount && p->accel == VM_ACCEL_KVM) {
		errbuf_set(errbuf, errlen,
			   "--vm-clock icount counts TCG's instructions: not with --accel kvm");
		return -EINVAL;
	}
	if (p->accel == VM_ACCEL_KVM && !kvm_usable()) {
		errbuf_set(errbuf, errlen,
			   "--accel kvm: /dev/kvm is not usable here; use --accel tcg");
		return -ENODEV;
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	/* What a run killed outright left (its QEMU died with it). */
	workdir__cleanup_stale("vm", NULL, &removed, ignore_note, NULL);
	err = workdir__new(&wd, "vm", NULL, errbuf, errlen);
	if (err)
		goto out;
	b.dirfd = workdir__fd(wd);
	err = pack_initramfs(b.dirfd, p, argc, argv, &pack, errbuf, errlen);
	if (err)
		goto out;
	/* The longer one, for TCG, decides whether --append fits. */
	err = make_cmdline(cmdline, sizeof(cmdline), &pack, p->append, true);
	if (err) {
		errbuf_set(errbuf, errlen,
			   "the kernel command line would pass 2048 bytes; shorten --append");
		goto out;
	}
	l.qemu = qemu;
	l.kernel = p->kernel;
	l.dir = workdir__path(wd);
	l.p = p;
	l.cmdline = cmdline;
	boot_s = p->boot_timeout_s ? p->boot_timeout_s : 60;
	run_s = p->timeout_s ? p->timeout_s : 1800;
	if (p->accel == VM_ACCEL_KVM ||
	    (p->accel == VM_ACCEL_AUTO && !p->icount && kvm_usable())) {
		l.kvm = true;
		make_cmdline(cmdline, sizeof(cmdline), &pack, p->append,
			     false);
		err = boot_once(&l, &b, res, p->accel == VM_ACCEL_AUTO &&
				boot_s > KVM_BOOT_TIMEOUT_S ?
				KVM_BOOT_TIMEOUT_S : boot_s, run_s, errbuf,
				errlen);
		if (p->accel == VM_ACCEL_AUTO && err &&
		    err != -EINTR && !b.hello) {
			/* A KVM guest that never reached /init: try TCG. */
			free(b.port.p);
			memset(&b.port, 0, sizeof(b.port));
			b.parsed = 0;
			b.bad = 0;
			b.end = false;
			free(res->console);
			res->console = NULL;
			res->fell_back = true;
			l.kvm = false;
		}
	}
	if (!l.kvm) {
		res->tcg = true;
		res->clock.icount = p->icount;
		make_cmdline(cmdline, sizeof(cmdline), &pack, p->append,
			     true);
		err = boot_once(&l, &b, res, boot_s, run_s, errbuf, errlen);
	}
out:
	kill_qemu(&b);
	free(b.port.p);
	vm_pack__free(&pack);
	derr = workdir__delete(wd);
	if (!err && derr) {
		err = derr;
		errbuf_set(errbuf, errlen, "cannot remove the VM's work directory: %s",
			   strerror(-derr));
	}
	if (err) {
		if (resp && res->console)
			*resp = res;
		else
			vm_result__delete(res);
		return err;
	}
	if (resp)
		*resp = res;
	else
		vm_result__delete(res);
	return 0;
}
