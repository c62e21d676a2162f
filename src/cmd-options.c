// SPDX-License-Identifier: GPL-2.0
/*
 * The command boundary of the option tables (include/parse-options.h):
 * what popt__parse() returns, said once, as every command says it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmds.h"
#include "parse-options.h"

int rs_parse_options(const struct popt_cmd *cmd, int argc, char **argv,
		     struct popt_args *args)
{
	char err[512];
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
