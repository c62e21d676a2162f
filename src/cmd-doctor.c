// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze doctor: what this kernel offers for measuring rstat flushes
 * (privileges, sampling, probes, tracing, cgroups) and what to do where
 * something is missing. It is a report: it exits 0 whatever it finds, and
 * changes nothing on the machine (no mounts, no probe events).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "doctor-out.h"
#include "parse-options.h"
#include "vm.h"
#include "kfeatures.h"

struct doctor_params {
	bool json;
	struct vm_opts vm;	/* --kernel: the doctor of a VM's kernel */
	char **gargv;		/* --kernel: the guest's argv */
	int gargc;
};

static const char doctor_about[] =
	"Say what this kernel and this user can do for `record` and\n"
	"`probe`: privileges, the cycles PMU event, kprobes (record\n"
	"--probe) and uprobes (record --uprobe), a vmlinux with debuginfo,\n"
	"tracefs and each rstat tracepoint, BTF, and the cgroup layout\n"
	"with where memory, cpu and io statistics live. Every missing item\n"
	"gets a line saying what to do. Nothing is changed: tracefs is not\n"
	"mounted, no probe is created.\n"
	"\n"
	"With --kernel, the same report for that kernel image, made\n"
	"inside a throwaway VM booted from it.\n";

static const char doctor_epilogue[] =
	"Exit status: 0 when the report was made (whatever it says),\n"
	"1 on an internal failure, 2 usage error.\n"
	"See rstat-analyze-doctor(1).\n";

/* Returns 0, RS_EXIT_USAGE or RS_EXIT_FAIL, or -1 when --help was printed. */
static int doctor_parse_args(int argc, char **argv, struct doctor_params *p)
{
	const struct popt opts[] = {
		{ POPT_FLAG(0, "json", &p->json,
			    "the same as one JSON object") },
		POPT_HELP_ROW,
		VM_CMD_OPTIONS(&p->vm),
		POPT_END_ROW,
	};
	const struct popt_cmd cmd = {
		.name = "doctor",
		.opts = opts,
		.max_operands = 0,
		.about = doctor_about,
		.epilogue = doctor_epilogue,
	};
	struct popt_args args;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (ret)
		return ret;
	free(args.operands);
	if (p->vm.nkernels > 1) {
		rs_error("doctor: one --kernel at a time");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	return vm_cmd__guest_argv(&cmd, &p->vm, argc, argv, &p->gargv,
				  &p->gargc);
}

/* The guest's doctor, printed as it printed it; its exit status. */
static int doctor_in_vm(struct doctor_params *p)
{
	int status = vm_cmd__run_print("doctor", &p->vm, p->gargc, p->gargv);

	free(p->gargv);
	return status;
}

static int __cmd_doctor(const struct doctor_params *p)
{
	struct kfeatures kf;
	int status = RS_EXIT_OK;
	int err;

	err = kfeatures__probe(&kf);
	if (err) {
		rs_error("doctor: probing the kernel's features: %s",
			 strerror(-err));
		return RS_EXIT_FAIL;
	}
	if (!p->json) {
		doctor_out__text(stdout, &kf);
	} else if (doctor_out__json(stdout, &kf)) {
		rs_error("doctor: out of memory");
		status = RS_EXIT_FAIL;
	}
	kfeatures__free(&kf);
	return status;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_params params;
	int ret;

	ret = doctor_parse_args(argc, argv, &params);
	if (ret == -1)
		return rs_finish_stdout(RS_EXIT_OK);
	if (ret)
		return ret;
	if (params.vm.nkernels)
		return rs_finish_stdout(doctor_in_vm(&params));
	ret = __cmd_doctor(&params);
	if (ret == RS_EXIT_FAIL && params.json)
		rs_error_json();
	return rs_finish_stdout(ret);
}
