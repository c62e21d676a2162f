/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommand entry points (one file per subcommand: src/cmd-<name>.c) and
 * the conventions they share: exit 0 ok, 1 failure (one line on stderr),
 * 2 usage error.
 */
#ifndef RS_CMDS_H
#define RS_CMDS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
	RS_EXIT_OK = 0,
	RS_EXIT_FAIL = 1,
	RS_EXIT_USAGE = 2,
};

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_diff_folded(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_watch(int argc, char **argv);

/*
 * What `compare F1 -- F2 -- ...` prints (text), in-process: one file per
 * side, the first the base, labelled labels[i]. Errors reported once;
 * returns compare's exit status.
 */
int compare_results(const char *const *files, const char *const *labels,
		    size_t n);

struct vm_opts;
struct vm_result;
struct popt;
struct popt_cmd;
/*
 * Run `rstat-analyze argv...` in a VM on kernel (src/cmd-vm.c), with the
 * programs packed and the guest files fetch brought back. On failure the
 * guest console's tail and one error line are printed and the exit status
 * returned (1; 130 when interrupted); on success RS_EXIT_OK and *resp.
 */
int vm_cmd__run(const char *cmd, const struct vm_opts *o, const char *kernel,
		int argc, char **argv, const char *const *programs,
		const char *const *fetch, struct vm_result **resp);
/*
 * The option rows of a command with --kernel (VM_CMD_OPTIONS below):
 * each hands its value to vm_opts__parse() on *vm through vm_cmd__option();
 * all are POPT_HOST, left out of the guest's argv. Needs vm.h and
 * parse-options.h.
 */
int vm_cmd__option(const struct popt *opt, const char *arg, char *err,
		   size_t errlen);
/* The words --accel and --vm-clock take (vm_opts__parse()'s). */
extern const char *const vm_cmd__accels[];
extern const char *const vm_cmd__clocks[];
#define VM_CMD_ROW(l, vm, a, opt, h)					\
	{ POPT_CALLBACK(0, l, vm, a, vm_cmd__option, h), .data = (opt),	\
	  .flags = POPT_HOST | POPT_ERR_USAGE, .usage = "" }
#define VM_CMD_OPTIONS(vm)						\
	POPT_GROUP("In a throwaway VM (QEMU, package " VM_QEMU_PACKAGE "):"), \
	{ POPT_CALLBACK(0, "kernel", vm, "IMAGE", vm_cmd__option,	\
			"run the command on that kernel image"),	\
	  .data = VM_OPT_KERNEL,					\
	  .flags = POPT_HOST | POPT_ERR_USAGE | POPT_REPEAT,		\
	  .usage = "[--kernel IMAGE [VM options]]" },			\
	VM_CMD_ROW("vm-cpus", vm, "N", VM_OPT_CPUS,			\
		   "the guest's CPUs (default 2)"),			\
	VM_CMD_ROW("vm-memory", vm, "SIZE", VM_OPT_MEMORY,		\
		   "its memory, as 1024M or 2G (default 1G)"),		\
	VM_CMD_ROW("append", vm, "ARGS", VM_OPT_APPEND,			\
		   "more kernel arguments (psi=1 ...)"),		\
	{ POPT_CALLBACK(0, "accel", vm, "MODE", vm_cmd__option,		\
			"kvm, tcg, or auto (default: KVM if a KVM\n"	\
			"guest boots, else TCG)"),			\
	  .data = VM_OPT_ACCEL, .choices = vm_cmd__accels,		\
	  .flags = POPT_HOST | POPT_ERR_USAGE, .usage = "" },		\
	VM_CMD_ROW("vm-timeout", vm, "SECONDS", VM_OPT_TIMEOUT,		\
		   "kill the guest after SECONDS seconds (1800)"),	\
	{ POPT_CALLBACK(0, "vm-clock", vm, "MODE", vm_cmd__option,	\
			"real (default), or icount: guest time\n"	\
			"counts instructions (TCG; repeatable)"),	\
	  .data = VM_OPT_CLOCK, .choices = vm_cmd__clocks,		\
	  .flags = POPT_HOST | POPT_ERR_USAGE, .usage = "" }
/* The guest command's stdout and stderr, copied to ours; its status. */
int vm_cmd__print_output(const struct vm_result *res);
/*
 * vm_cmd__run() on the one kernel of o, no programs or files, then
 * vm_cmd__print_output(): the guest's command as if it ran here; the exit
 * status.
 */
int vm_cmd__run_print(const char *cmd, const struct vm_opts *o, int argc,
		      char **argv);
/*
 * With --kernel in o, *gargv and *gargc: the guest's argv,
 * popt__guest_argv() of the command line, the error reported when it
 * fails; without, nothing. RS_EXIT_OK or RS_EXIT_FAIL.
 */
int vm_cmd__guest_argv(const struct popt_cmd *cmd, const struct vm_opts *o,
		       int argc, char **argv, char ***gargv, int *gargc);
/*
 * The same, with the guest's name of a file it made (guest, such as
 * "/out/rstat.data") said in its stderr as the name the user gave (host).
 */
int vm_cmd__print_output_as(const struct vm_result *res, const char *guest,
			    const char *host);

/* "rstat-analyze: <message>" on stderr: the one line a failure prints. */
void rs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The last rs_error() again, as {"error": "..."} on stdout: a command
 * asked for JSON fails in JSON too (bpftool's convention).
 */
void rs_error_json(void);
struct popt_cmd;
struct popt_args;
/*
 * Parse argv by cmd's option table (src/cmd-options.c): 0 with the
 * operands in *args (free(args->operands)); -1 when --help (or the
 * hidden --list-options) was printed: exit 0; or RS_EXIT_USAGE after
 * one error line (and the usage where the error calls for it), or
 * RS_EXIT_FAIL.
 */
int rs_parse_options(const struct popt_cmd *cmd, int argc, char **argv,
		     struct popt_args *args);
/* The cgroups top and watch are given (--cgroup PATH, repeatable). */
struct rs_cgroup_ids {
	uint64_t ids[64];
	size_t nr;
};
/*
 * A --cgroup PATH option row's callback (its value a struct
 * rs_cgroup_ids): the cgroup's id added, or err saying why not.
 */
int rs_cgroup_option(const struct popt *opt, const char *arg, char *err,
		     size_t errlen);
/* "rstat-analyze: note: <message>" on stderr. */
void rs_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct session;
/*
 * Print what a session queued, in its order (notes with rs_note(), the
 * error with rs_error()); whether an error was among them.
 */
bool rs_say_session(struct session *s);
/*
 * Flush stdout and report a write error (full disk, closed pipe) once.
 * Returns the exit status to use: status unchanged, or RS_EXIT_FAIL.
 */
int rs_finish_stdout(int status);
/*
 * handler for SIGINT, SIGTERM and SIGHUP, without SA_RESTART: a command's
 * waits (poll, ppoll) return at once to see the stop.
 */
void rs_on_stop_signals(void (*handler)(int sig));
/*
 * rs_on_stop_signals() with the handler a command that only stops needs:
 * from then on rs_stop_signal() is the number of the signal that came,
 * 0 until one does.
 */
void rs_catch_stop_signals(void);
int rs_stop_signal(void);

#endif
