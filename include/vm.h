/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels in throwaway VMs: run one command of the tool inside a QEMU guest
 * booted from any kernel image, and bring its output back.
 *
 * The guest has no disk, no network and no busybox: its initramfs (a newc
 * cpio we write) holds this very binary as /init, the shared libraries it
 * needs, and any programs the command runs (record -- CMD). As PID 1 the
 * binary mounts proc, sysfs, tracefs and a pure cgroup v2 hierarchy with
 * every controller enabled, runs the command in a child, and sends its
 * stdout, stderr, exit status and output files back in frames over the
 * second serial port (ttyS1; ttyS0 is the console), then powers off.
 *
 * Why a serial port: the 8250 UART is built into every distribution
 * kernel (Debian's 6.1 cloud kernel has virtio-console and virtio-pci only
 * as modules, and we load no modules), it needs nothing on the host but a
 * file QEMU writes to, and nothing but our frames is ever written to it.
 */
#ifndef RS_VM_H
#define RS_VM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The file that tells a PID 1 it is our guest's /init. */
#define VM_GUEST_ARGV_FILE "/rs-vm/argv"

/* The package that provides qemu-system-x86_64 on Debian. */
#define VM_QEMU_PACKAGE "qemu-system-x86"

enum vm_accel {
	VM_ACCEL_AUTO,	/* KVM when a KVM guest boots, TCG otherwise */
	VM_ACCEL_KVM,
	VM_ACCEL_TCG,
};

struct vm_params {
	const char *kernel;		/* the kernel image (bzImage) */
	unsigned int cpus;		/* 0: 2 */
	unsigned long memory_mb;	/* 0: 1024 */
	const char *append;		/* more kernel arguments, or NULL */
	enum vm_accel accel;
	unsigned int boot_timeout_s;	/* 0: 60 (10 for KVM under auto) */
	unsigned int timeout_s;		/* the whole run; 0: 1800 */
	/*
	 * Programs to pack besides the tool (record -- CMD): absolute host
	 * paths, packed at the same paths with their interpreters and
	 * shared libraries. NULL-terminated, or NULL.
	 */
	const char *const *programs;
	/* Guest files to send back after the command ("/proc/kallsyms"). */
	const char *const *fetch;
	/*
	 * The build id (hex) the guest kernel must have, or NULL: the guest
	 * refuses to run the command on another kernel (status 1, saying
	 * why on its stderr), as offsets resolved from a vmlinux would be
	 * wrong there.
	 */
	const char *build_id;
	/* Set by the caller's signal handler: stop, kill the guest. */
	volatile sig_atomic_t *stop;
	/*
	 * QEMU's instruction counting (TCG only): the guest's clock
	 * advances 1 ns per instruction executed, whatever the host does,
	 * so timed figures are instruction counts and repeat from run to
	 * run; they say nothing of cycles, caches or real time.
	 */
	bool icount;
};

/* Parse "kvm", "tcg" or "auto"; 0 or -EINVAL. */
int vm_accel__parse(const char *s, enum vm_accel *accel);
/* Parse "512M", "2G", "1024" (MiB); 0 or -EINVAL. */
int vm_memory__parse(const char *s, unsigned long *mb);

/*
 * The options every command with --kernel takes (their rows:
 * VM_CMD_OPTIONS in cmds.h), as vm_opts__parse() knows them.
 */
enum {
	VM_OPT_KERNEL = 0x1000,
	VM_OPT_CPUS,
	VM_OPT_MEMORY,
	VM_OPT_APPEND,
	VM_OPT_ACCEL,
	VM_OPT_TIMEOUT,
	VM_OPT_CLOCK,
};

#define VM_MAX_KERNELS 16

struct vm_opts {
	const char *kernels[VM_MAX_KERNELS];
	size_t nkernels;
	struct vm_params params;	/* .kernel set per run */
};

/*
 * Take one VM option (opt a VM_OPT_*, arg its value) into o.
 * 0, or -EINVAL with errbuf saying why (a usage error).
 */
int vm_opts__parse(struct vm_opts *o, int opt, const char *arg,
		   char *errbuf, size_t errlen);

struct vm_result;

/*
 * Boot params->kernel with the tool as /init and run `rstat-analyze
 * argv[0] argv[1] ...` in the guest, in the guest's directory /out. On
 * success (the guest ran the command, whatever its exit status) returns 0
 * and *resp. On failure returns -errno with errbuf saying what happened
 * (-ENOENT: no QEMU; -ETIMEDOUT: no boot or a hung guest; -EIO: the guest
 * died without finishing; -EINTR: params->stop), and *resp, when not NULL,
 * holds the console tail (vm_result__console()). Nothing is left behind:
 * no QEMU process, no temporary file.
 */
int vm__run(const struct vm_params *params, int argc, char *const argv[],
	    struct vm_result **resp, char *errbuf, size_t errlen);

void vm_result__delete(struct vm_result *res);
/* The guest's `uname -r`; "" when it never said. */
const char *vm_result__release(const struct vm_result *res);
/* The command's exit status in the guest (as a shell sees it). */
int vm_result__status(const struct vm_result *res);
/*
 * The guest's clock against the host's, over the same stretch: from the
 * guest's HELLO to the end of its command, as each side timed it.
 */
struct vm_clock {
	bool measured;		/* the guest said (and the host timed) both */
	double guest_s, host_s;
	char clocksource[32];	/* the guest's current_clocksource */
	bool icount;		/* params.icount: guest time is instructions */
};
/* A run shorter than this cannot tell a drift from the port's latency. */
#define VM_CLOCK_MIN_S 2.0
/* The drift past which a guest's timed figures are wrong. */
#define VM_CLOCK_MAX_DRIFT 0.05
void vm_result__clock(const struct vm_result *res, struct vm_clock *c);
/*
 * guest_s / host_s - 1 (0.10: the guest's clock ran 10% fast), or NAN
 * when not measured or too short (VM_CLOCK_MIN_S) to say.
 */
double vm_clock__drift(const struct vm_clock *c);
/* Whether the drift says the guest's times are not real ones. */
bool vm_clock__bad(const struct vm_clock *c);

/* Whether auto fell back from KVM to TCG, and which ran. */
bool vm_result__tcg(const struct vm_result *res);
bool vm_result__kvm_fell_back(const struct vm_result *res);
/*
 * The last lines of the guest console (at most max bytes; from the first
 * line of a kernel oops when there is one, up to 4 * max), "" if none.
 */
const char *vm_result__console(const struct vm_result *res, size_t max);
/*
 * A file the guest sent: "stdout", "stderr", "kallsyms", or a file the
 * command left in /out as "out/NAME". NULL when absent.
 */
const void *vm_result__file(const struct vm_result *res, const char *name,
			    size_t *len);
/* Iterate over the files: index from 0; NULL past the last. */
const char *vm_result__file_name(const struct vm_result *res, size_t i);

/*
 * The guest side: when the tool runs as PID 1 it is /init in one of our
 * VMs. Never returns: it powers the guest off. run is the command table
 * (main's dispatch), called in a child with the argv the host packed.
 */
void vm_guest__main(int (*run)(int argc, char **argv))
	__attribute__((noreturn));

/*
 * Source-line kprobes (--probe FUNC:RLN, SRC:ALN) for record --kernel:
 * resolved on the host against the guest kernel's vmlinux, passed to the
 * guest as EVENT=FUNC+OFF (see probe.c).
 */
/* Whether spec names a source line, which needs the kernel's DWARF. */
bool vm_probe__is_line(const char *spec);
/* vmlinux's build id as hex into hex[len]; 0, or -errno and errbuf. */
int vm_probe__build_id(const char *vmlinux, char *hex, size_t len,
		       char *errbuf, size_t errlen);
/*
 * argv (NULL-terminated, its options before a "--") with each --probe
 * value that is one of probes[] (by pointer, as the parser left them) and
 * names a line replaced by one "--probe EVENT=FUNC+OFF" per point vmlinux
 * resolves it to, and the --vmlinux option whose value is vmlinux_value
 * (by pointer; NULL: none) dropped. NULL with errbuf saying why on
 * failure. Free with vm_probe__free_argv(argv, result, *nargc).
 */
char **vm_probe__guest_argv(int argc, char *const argv[],
			    const char *const *probes, size_t nprobes,
			    const char *vmlinux_value, const char *vmlinux,
			    int *nargc, char *errbuf, size_t errlen);
void vm_probe__free_argv(char *const argv[], char **gargv, int gargc);
/*
 * All of it for record --kernel: when a probe names a line or vmlinux
 * (--vmlinux's value; NULL: the one beside kernel) is given, *out = the
 * guest argv as vm_probe__guest_argv() makes it and build_id[idlen] the
 * vmlinux's (for vm_params.build_id); else *out = NULL. 0, or -errno
 * with errbuf saying why.
 */
int vm_probe__record_argv(const char *kernel, const char *vmlinux,
			  const char *const *probes, size_t nprobes,
			  int argc, char *const argv[], char ***out,
			  int *nargc, char *build_id, size_t idlen,
			  char *errbuf, size_t errlen);

/* The newc cpio writer the initramfs is made with (exposed for tests). */
struct cpio;
struct cpio *cpio__new(FILE *out);
/* A directory (mode 0755); parents must have been added. 0 or -errno. */
int cpio__add_dir(struct cpio *c, const char *path);
/* A regular file from memory. 0 or -errno. */
int cpio__add_data(struct cpio *c, const char *path, unsigned int mode,
		   const void *data, size_t len);
/* A regular file copied from the host file src. 0 or -errno. */
int cpio__add_file(struct cpio *c, const char *path, unsigned int mode,
		   const char *src);
/* A character device node (the kernel opens /dev/console for /init). */
int cpio__add_chardev(struct cpio *c, const char *path, unsigned int mode,
		      unsigned int major, unsigned int minor);
/* Whether path was added already. */
bool cpio__has(const struct cpio *c, const char *path);
/* Write the trailer and pad; 0 or -errno (-EIO on a write error). */
int cpio__finish(struct cpio *c);
void cpio__delete(struct cpio *c);

/*
 * Where name (a command word: "sh", "./x", "/bin/ls") is, as execvp would
 * find it; 0 and out set, or -errno.
 */
int vm_find_program(const char *name, char *out, size_t outlen);

/*
 * The frames on the guest's data port: "RSVM <type> <len> <hash> <name>\n"
 * then len bytes; hash is hash_bytes() of the bytes, in hex. Types: HELLO
 * (the release), FILE, ZFILE (a file as one zstd frame), EXIT (the
 * status, decimal), END.
 */
struct vm_frame {
	char type[8];
	char name[256];
	const uint8_t *data;
	size_t len;
};

/*
 * Parse the frame at *pos of buf[0..len): 1 and *pos past it, 0 when the
 * buffer ends inside it (the guest is still writing, or died), -EBADMSG
 * for bytes that are no frame or a hash mismatch.
 */
int vm_frame__parse(const uint8_t *buf, size_t len, size_t *pos,
		    struct vm_frame *f);
/* Write one frame to fd; 0 or -errno. */
int vm_frame__write(int fd, const char *type, const char *name,
		    const void *data, size_t len);

#endif
