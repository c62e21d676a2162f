// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze doctor: what this kernel offers for measuring rstat flushes
 * (privileges, sampling, probes, tracing, cgroups) and what to do where
 * something is missing. It is a report: it exits 0 whatever it finds, and
 * changes nothing on the machine (no mounts, no probe events).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "doctor-out.h"
#include "vm.h"
#include "kfeatures.h"

struct doctor_params {
	bool json;
	struct vm_opts vm;	/* --kernel: the doctor of a VM's kernel */
	int nopts;		/* optind after the options */
};

static const char doctor_usage_text[] =
	"usage: rstat-analyze doctor [--json] [--kernel IMAGE [VM options]]\n";

static void doctor_usage(FILE *out)
{
	fputs(doctor_usage_text, out);
}

static void doctor_help(void)
{
	doctor_usage(stdout);
	fputs("\n"
	      "Say what this kernel and this user can do for `record` and\n"
	      "`probe`: privileges, the cycles PMU event, kprobes (record\n"
	      "--probe) and uprobes (record --uprobe), a vmlinux with debuginfo,\n"
	      "tracefs and each rstat tracepoint, BTF, and the cgroup layout\n"
	      "with where memory, cpu and io statistics live. Every missing item\n"
	      "gets a line saying what to do. Nothing is changed: tracefs is not\n"
	      "mounted, no probe is created.\n"
	      "\n"
	      "With --kernel, the same report for that kernel image, made\n"
	      "inside a throwaway VM booted from it.\n"
	      "\n"
	      "      --json            the same as one JSON object\n"
	      "  -h, --help            this text\n"
	      "\n"
	      VM_HELP_TEXT
	      "\n"
	      "Exit status: 0 when the report was made (whatever it says),\n"
	      "1 on an internal failure, 2 usage error.\n"
	      "See rstat-analyze-doctor(1).\n", stdout);
}

enum {
	OPT_JSON = 256,
};

static const struct option doctor_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	VM_LONG_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int doctor_parse_args(int argc, char **argv, struct doctor_params *p)
{
	char err[256];
	int c;

	memset(p, 0, sizeof(*p));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", doctor_options,
				NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			p->json = true;
			break;
		VM_OPT_CASES:
			if (vm_opts__parse(&p->vm, c, optarg, err,
					   sizeof(err))) {
				rs_error("doctor: %s", err);
				doctor_usage(stderr);
				return RS_EXIT_USAGE;
			}
			break;
		case 'h':
			doctor_help();
			return -1;
		default:
			return rs_bad_option("doctor", c, argv[optind - 1],
					     doctor_usage);
		}
	}
	if (optind < argc) {
		rs_error("doctor: unexpected argument '%s'", argv[optind]);
		doctor_usage(stderr);
		return RS_EXIT_USAGE;
	}
	if (p->vm.nkernels > 1) {
		rs_error("doctor: one --kernel at a time");
		doctor_usage(stderr);
		return RS_EXIT_USAGE;
	}
	p->nopts = optind;
	return 0;
}

/* The guest's doctor, printed as it printed it; its exit status. */
static int doctor_in_vm(const struct doctor_params *p, int argc, char **argv)
{
	struct vm_result *res;
	char **gargv;
	int gargc, status;

	gargv = vm_guest_argv(argc, argv, p->nopts, doctor_options, NULL,
			      &gargc);
	if (!gargv) {
		rs_error("doctor: out of memory");
		return RS_EXIT_FAIL;
	}
	status = vm_cmd__run("doctor", &p->vm, p->vm.kernels[0], gargc, gargv,
			     NULL, NULL, &res);
	free(gargv);
	if (status)
		return status;
	status = vm_cmd__print_output(res);
	vm_result__delete(res);
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
		return rs_finish_stdout(doctor_in_vm(&params, argc, argv));
	ret = __cmd_doctor(&params);
	if (ret == RS_EXIT_FAIL && params.json)
		rs_error_json();
	return rs_finish_stdout(ret);
}
