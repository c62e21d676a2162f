// SPDX-License-Identifier: GPL-2.0
/*
 * rstat-analyze diff-folded: two profiles as one differential input for
 * flamegraph.pl, "stack COUNT_A COUNT_B" per stack, with the rules of
 * FlameGraph's difffolded.pl: a line is "STACK<blank>COUNT" with COUNT
 * the digits (and an optional fraction) after the last blank, a stack
 * missing on one side counts 0, -n scales A to B's total with int(), -s
 * turns every 0x<hex> into "0x..." so that stacks differing only in
 * addresses merge (src/analysis/folded-diff.c).
 *
 * Either input may be a recording: it is folded in-process through a
 * session, exactly as `report --folded` prints it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fold.h"
#include "folded-diff.h"
#include "parse-options.h"
#include "session.h"

struct diff_params {
	const char *input[2];
	const char *kallsyms;
	bool normalize;
	bool strip_hex;
};

static const char diff_about[] =
	"Merge two profiles into the differential input of flamegraph.pl,\n"
	"as FlameGraph's difffolded.pl does: one line per stack of either,\n"
	"`stack COUNT_A COUNT_B`, 0 where one side lacks it, sorted bytewise.\n"
	"A and B are folded stack files (`stack COUNT` lines) or recordings\n"
	"(perf.data), folded as `rstat-analyze report --folded` does.\n"
	"Pipe into `flamegraph.pl`; swap A and B and add its --negate\n"
	"for the before widths.\n";

static const char diff_epilogue[] =
	"Exit status: 0 ok, 1 error (one line on stderr), 2 usage error.\n"
	"See rstat-analyze-diff-folded(1).\n";

/* Returns 0, RS_EXIT_USAGE, or -1 when --help was printed. */
static int diff_parse_args(int argc, char **argv, struct diff_params *p)
{
	const struct popt opts[] = {
		{ POPT_FLAG('n', "normalize", &p->normalize,
			    "scale A's counts so that its total is B's") },
		{ POPT_FLAG('s', "strip-hex", &p->strip_hex,
			    "turn 0x<hex> into 0x... and merge the stacks\n"
			    "that then read the same") },
		{ POPT_STRING(0, "kallsyms", &p->kallsyms, "FILE",
			      "kernel symbols for folding recordings") },
		POPT_HELP_ROW,
		POPT_END_ROW,
	};
	const struct popt_cmd cmd = {
		.name = "diff-folded",
		.opts = opts,
		.usage_long = true,
		/* Operands and options in any order; a third is refused. */
		.dashdash = POPT_IN_ORDER,
		.max_operands = 2,
		.synopsis_pre = "A B",
		.about = diff_about,
		.epilogue = diff_epilogue,
	};
	struct popt_args args;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = rs_parse_options(&cmd, argc, argv, &args);
	if (ret)
		return ret;
	if (args.nr != 2) {
		free(args.operands);
		rs_error("diff-folded: give two profiles, A and B");
		popt__usage(&cmd, stderr);
		return RS_EXIT_USAGE;
	}
	p->input[0] = args.operands[0];
	p->input[1] = args.operands[1];
	free(args.operands);
	return 0;
}

static void diff_error(const char *input, int err, uint64_t bad_line)
{
	if (err == -EINVAL)
		rs_error("%s:%" PRIu64 ": not a folded stack line 'STACK COUNT'",
			 input, bad_line);
	else if (err == -ENOMEM)
		rs_error("diff-folded: out of memory");
	else
		rs_error("%s: %s", input, strerror(-err));
}

/* Fold a recording as `report --folded` does, into a stream to read. */
static int fold_recording(struct session *s, char **buf, size_t *len)
{
	struct fold_opts o = { 0 };
	struct fold *fold;
	FILE *mem;
	int err;

	err = session__fold(s, &o, false, &fold);
	if (err)
		return err;
	mem = open_memstream(buf, len);
	if (!mem)
		err = -ENOMEM;
	else if (fold__write(fold, mem) == -ENOMEM)
		err = -ENOMEM;
	if (mem && fclose(mem) && !err)
		err = -ENOMEM;
	fold__delete(fold);
	return err;
}

/* One side: folded stacks, or a recording folded first. */
static int read_input(struct folded_diff *d, const struct diff_params *p,
		      int side)
{
	struct session_opts so = { .input = p->input[side],
				   .kallsyms = p->kallsyms };
	struct session *s;
	char *buf = NULL;
	size_t len = 0;
	uint64_t bad_line = 0;
	FILE *in = NULL;
	int err;

	err = session__open(&s, &so);
	if (!err && session__kind(s) == SESSION_PERF_DATA) {
		err = fold_recording(s, &buf, &len);
		if (!err && len)
			in = fmemopen(buf, len, "r");
	} else if (!err) {
		in = session__text(s);
	}
	if (!err && (len || session__kind(s) != SESSION_PERF_DATA) && !in)
		err = -ENOMEM;
	if (!err && in)
		err = folded_diff__read(d, in, side, &bad_line);
	/* The session's words first; what it did not say, ours. */
	if (!rs_say_session(s) && err)
		diff_error(so.input, err, bad_line);
	if (in && buf)
		fclose(in);
	free(buf);
	session__delete(s);
	return err ? RS_EXIT_FAIL : 0;
}

int cmd_diff_folded(int argc, char **argv)
{
	struct diff_params params;
	struct folded_diff *d;
	int ret;

	ret = diff_parse_args(argc, argv, &params);
	if (ret < 0)
		return rs_finish_stdout(RS_EXIT_OK);
	if (ret)
		return ret;
	d = folded_diff__new(params.strip_hex);
	if (!d) {
		rs_error("diff-folded: out of memory");
		return RS_EXIT_FAIL;
	}
	ret = read_input(d, &params, 0);
	if (!ret)
		ret = read_input(d, &params, 1);
	if (!ret) {
		if (params.normalize)
			folded_diff__normalize(d);
		folded_diff__write(d, stdout);
	}
	folded_diff__delete(d);
	return rs_finish_stdout(ret);
}
