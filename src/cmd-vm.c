// SPDX-License-Identifier: GPL-2.0
/*
 * What doctor, bench and record share for --kernel: run the command's own
 * argv in a VM on one kernel and report a failure once, at the command
 * boundary, with the guest console's tail above the one error line.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "parse-options.h"
#include "util.h"
#include "vm.h"

#define CONSOLE_TAIL 3000	/* bytes of console a failure shows */

static volatile sig_atomic_t vm_stop;

static void on_stop_signal(int sig)
{
	vm_stop = 1;
}

/* The console's last lines, as text none of whose bytes acts on ours. */
static void print_console(const char *kernel, const char *tail)
{
	fprintf(stderr, "--- guest console (%s), last lines ---\n", kernel);
	if (console_show(stderr, tail))
		fputc('\n', stderr);
	fputs("--- end of guest console ---\n", stderr);
}

/*
 * Hold the guest's clock against ours: a guest whose clock drifted timed
 * everything wrong (a TCG guest on an emulated clocksource gained 3-5x
 * under load), and one counting instructions timed nothing real.
 */
static void say_clock(const char *kernel, const struct vm_result *res)
{
	struct vm_clock c;
	double drift;

	vm_result__clock(res, &c);
	drift = vm_clock__drift(&c);
	if (c.icount) {
		rs_note("%s: --vm-clock icount: the guest's clock counted instructions, 1 ns each (%.2f s of it in %.2f s here): timed figures are instruction counts, repeatable but not times",
			kernel, c.guest_s, c.host_s);
	} else if (vm_clock__bad(&c)) {
		rs_error("warning: %s: the guest's clock ran %.0f%% %s against this host's (%.2f s against %.2f s, clocksource %s): its timed figures are wrong",
			 kernel, fabs(drift) * 100, drift > 0 ? "fast" : "slow",
			 c.guest_s, c.host_s, c.clocksource);
	}
}

int vm_cmd__run(const char *cmd, const struct vm_opts *o, const char *kernel,
		int argc, char **argv, const char *const *programs,
		const char *const *fetch, struct vm_result **resp)
{
	struct sigaction sa, old_int, old_term, old_hup;
	struct vm_params p = o->params;
	struct vm_result *res = NULL;
	char err[1024];
	int rc;

	*resp = NULL;
	p.kernel = kernel;
	p.programs = programs;
	p.fetch = fetch;
	p.stop = &vm_stop;
	vm_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	err[0] = '\0';
	/* A guest takes seconds to boot: say so where someone is waiting. */
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "rstat-analyze: %s --kernel %s: starting a VM (QEMU)...\n",
			cmd, kernel);
	rc = vm__run(&p, argc, argv, &res, err, sizeof(err));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (rc) {
		if (res) {
			const char *tail = vm_result__console(res,
							      CONSOLE_TAIL);

			fflush(stdout);
			if (*tail)
				print_console(kernel, tail);
			vm_result__delete(res);
		}
		rs_error("%s --kernel %s: %s", cmd, kernel, err);
		return rc == -EINTR ? 130 : RS_EXIT_FAIL;
	}
	say_clock(kernel, res);
	if (vm_result__kvm_fell_back(res))
		rs_note("%s: a KVM guest did not boot here; ran under TCG (emulated, clock: the TSC, tsc=reliable): times are emulated, only ratios between kernels mean anything",
			kernel);
	*resp = res;
	return RS_EXIT_OK;
}

const char *const vm_cmd__accels[] = { "kvm", "tcg", "auto", NULL };
const char *const vm_cmd__clocks[] = { "real", "icount", NULL };

int vm_cmd__option(const struct popt *opt, const char *arg, char *err,
		   size_t errlen)
{
	return vm_opts__parse(opt->value, opt->data, arg, err, errlen);
}

int vm_cmd__print_output_as(const struct vm_result *res, const char *guest,
			    const char *host)
{
	const char *data, *end, *hit;
	size_t len, glen = guest ? strlen(guest) : 0;

	data = vm_result__file(res, "stdout", &len);
	if (data && len)
		fwrite(data, 1, len, stdout);
	fflush(stdout);
	data = vm_result__file(res, "stderr", &len);
	if (!data)
		return vm_result__status(res);
	for (end = data + len; glen && data < end; data = hit + glen) {
		hit = memmem(data, end - data, guest, glen);
		if (!hit)
			break;
		fwrite(data, 1, hit - data, stderr);
		fputs(host, stderr);
	}
	if (data < end)
		fwrite(data, 1, end - data, stderr);
	return vm_result__status(res);
}

int vm_cmd__print_output(const struct vm_result *res)
{
	return vm_cmd__print_output_as(res, NULL, NULL);
}

int vm_cmd__guest_argv(const struct popt_cmd *cmd, const struct vm_opts *o,
		       int argc, char **argv, char ***gargv, int *gargc)
{
	if (!o->nkernels)
		return RS_EXIT_OK;
	*gargv = popt__guest_argv(cmd, argc, argv, gargc);
	if (!*gargv) {
		rs_error("%s: out of memory", cmd->name);
		return RS_EXIT_FAIL;
	}
	return RS_EXIT_OK;
}

int vm_cmd__run_print(const char *cmd, const struct vm_opts *o, int argc,
		      char **argv)
{
	struct vm_result *res;
	int status;

	status = vm_cmd__run(cmd, o, o->kernels[0], argc, argv, NULL, NULL,
			     &res);
	if (status)
		return status;
	status = vm_cmd__print_output(res);
	vm_result__delete(res);
	return status;
}
