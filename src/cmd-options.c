// SPDX-License-Identifier: GPL-2.0
/*
 * The command boundary of the option tables (include/parse-options.h):
 * what popt__parse() returns, said once, as every command says it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmds.h"
#include "live.h"
#include "parse-options.h"

int rs_parse_options(const struct popt_cmd *cmd, int argc, char **argv,
		     struct popt_args *args)
{
	char err[4096 + 256];	/* room for a path */
	int ret;

	ret = popt__parse(cmd, argc, argv, args, err, sizeof(err));
	switch (ret) {
	case POPT_OK:
		return 0;
	case POPT_SHOW_HELP:
		popt__help(cmd, stdout);
		break;
	case POPT_LIST_OPTIONS:
		popt__dump(cmd, stdout);
		break;
	case POPT_NOMEM:
		rs_error("%s: out of memory", cmd->name);
		return RS_EXIT_FAIL;
	default:
		rs_error("%s: %s", cmd->name, err);
		if (args->usage)
			popt__usage(cmd, stderr);
		free(args->operands);
		args->operands = NULL;
		return RS_EXIT_USAGE;
	}
	free(args->operands);
	args->operands = NULL;
	return -1;
}

int rs_cgroup_option(const struct popt *opt, const char *arg, char *err,
		     size_t errlen)
{
	struct rs_cgroup_ids *c = opt->value;

	return live_cgroup_arg(arg, c->ids, &c->nr,
			       sizeof(c->ids) / sizeof(c->ids[0]), err, errlen);
}
