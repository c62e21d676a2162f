// SPDX-License-Identifier: GPL-2.0
/*
 * The option tables (src/parse-options.c): every row type, ranges,
 * exclusivity, the "--" policies, the usage errors, --opt=value and
 * --opt value, short clusters, and what usage, --help, the dump and the
 * guest's argv make of a table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse-options.h"
#include "unit.h"

struct vals {
	bool flag, other;
	const char *str;
	int i;
	unsigned int u, pow;
	double d, gt;
	int mode;
	const char *list[3];
	unsigned int nr_list;
	int cb_calls;
	const char *cb_arg;
	bool a, b, c;
};

static const char *const modes[] = { "auto", "bpf", "perf", NULL };

static int cb_even(const struct popt *opt, const char *arg, char *err,
		   size_t errlen)
{
	struct vals *v = opt->value;

	v->cb_calls++;
	v->cb_arg = arg;
	if (!arg)
		return 0;
	if (!strcmp(arg, "odd")) {
		snprintf(err, errlen, "--cb '%s': odd (data %d)", arg,
			 (int)opt->data);
		return -EINVAL;
	}
	if (!strcmp(arg, "bad"))
		return -EINVAL;	/* the row's standard words */
	return 0;
}

enum { G_AB = 1, G_C };

/* The table over v: the same rows for every case. */
#define TEST_ROWS(v)							\
	{ POPT_FLAG('f', "flag", &(v)->flag, "a flag") },		\
	{ POPT_FLAG('o', "other", &(v)->other, "another") },		\
	{ POPT_STRING('s', "str", &(v)->str, "TEXT", "a string\non two lines") }, \
	{ POPT_INT('i', "int", &(v)->i, "N", -5, 5, "an int") },	\
	{ POPT_UINT('u', "uint", &(v)->u, "N", 1, 100, "a uint"),	\
	  .hint = "give 1 to 100" },					\
	{ POPT_UINT(0, "pow", &(v)->pow, "N", 1, 1024, "a power of 2"), \
	  .flags = POPT_POW2 },						\
	{ POPT_DOUBLE('d', "double", &(v)->d, "X", 0, 10, "a double") }, \
	{ POPT_DOUBLE(0, "gt", &(v)->gt, "X", 0, 10, "above 0"),	\
	  .flags = POPT_GT_MIN },					\
	{ POPT_ENUM('m', "mode", &(v)->mode, "MODE", modes, "a mode"),	\
	  .flags = POPT_SAY_LONG },					\
	{ POPT_LIST('e', "event", (v)->list, &(v)->nr_list, "EV", "events") }, \
	{ POPT_CALLBACK(0, "cb", v, "ARG", cb_even, "a callback"),	\
	  .data = 7, .hint = "give something even" },			\
	{ POPT_CALLBACK(0, "cb-noarg", v, NULL, cb_even, "no argument"), \
	  .flags = POPT_NOARG },					\
	{ POPT_FLAG('a', "aa", &(v)->a, "a of group 1"), .excl = G_AB }, \
	{ POPT_FLAG('b', "bb", &(v)->b, "b of group 1"), .excl = G_AB }, \
	{ POPT_STRING(0, "host", &(v)->str, "H", "host only"),		\
	  .flags = POPT_HOST | POPT_HIDDEN },				\
	POPT_HELP_ROW,							\
	POPT_END_ROW

static char err[512];

/* Parse the words (NULL-terminated, the command's name first). */
static int parse(const struct popt_cmd *cmd, struct popt_args *out, ...)
{
	char *argv[32];
	va_list ap;
	int argc = 0, ret;

	va_start(ap, out);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	ret = popt__parse(cmd, argc, argv, out, err, sizeof(err));
	return ret;
}

#define CMD(v, pol, max)						\
	struct popt opts[] = { TEST_ROWS(v) };				\
	struct popt_cmd cmd = { .name = "t", .opts = opts,		\
				.dashdash = (pol), .max_operands = (max) }

static void test_every_type(void)
{
	struct vals v = { .i = 99 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	CHECK_INT(parse(&cmd, &a, "t", "-f", "--str", "x", "-i", "-5",
			"--uint=100", "--pow", "64", "-d", "2.5", "--gt=0.5",
			"--mode", "perf", "-e", "e1", "--event=e2", "--cb",
			"two", "--cb-noarg", NULL), POPT_OK);
	CHECK(v.flag);
	CHECK(!v.other);
	CHECK_STR(v.str, "x");
	CHECK_INT(v.i, -5);
	CHECK_INT(v.u, 100);
	CHECK_INT(v.pow, 64);
	CHECK(v.d == 2.5);
	CHECK(v.gt == 0.5);
	CHECK_INT(v.mode, 2);
	CHECK_INT(v.nr_list, 2);
	CHECK_STR(v.list[0], "e1");
	CHECK_STR(v.list[1], "e2");
	/* The callback got "two", then NULL for the argumentless row. */
	CHECK_INT(v.cb_calls, 2);
	CHECK(v.cb_arg == NULL);
	CHECK_INT(a.nr, 0);
	free(a.operands);
}

static void test_defaults_stay(void)
{
	struct vals v = { .i = 3, .str = "default", .mode = 1 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	CHECK_INT(parse(&cmd, &a, "t", NULL), POPT_OK);
	CHECK_INT(v.i, 3);
	CHECK_STR(v.str, "default");
	CHECK_INT(v.mode, 1);
	free(a.operands);
}

static void test_value_forms(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	/* --opt=value, --opt value, -ovalue, -o value; = in the value kept. */
	CHECK_INT(parse(&cmd, &a, "t", "--str=a=b", NULL), POPT_OK);
	CHECK_STR(v.str, "a=b");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--str", "--flag", NULL), POPT_OK);
	CHECK_STR(v.str, "--flag");	/* a value, even one like an option */
	CHECK(!v.flag);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-sjoined", NULL), POPT_OK);
	CHECK_STR(v.str, "joined");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-i", "-3", NULL), POPT_OK);
	CHECK_INT(v.i, -3);
	free(a.operands);
	/* An empty value is a value. */
	CHECK_INT(parse(&cmd, &a, "t", "--str=", NULL), POPT_OK);
	CHECK_STR(v.str, "");
	free(a.operands);
}

static void test_short_clusters(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	CHECK_INT(parse(&cmd, &a, "t", "-fos", "x", NULL), POPT_OK);
	CHECK(v.flag && v.other);
	CHECK_STR(v.str, "x");
	free(a.operands);
	memset(&v, 0, sizeof(v));
	CHECK_INT(parse(&cmd, &a, "t", "-fsvalue", NULL), POPT_OK);
	CHECK(v.flag);
	CHECK_STR(v.str, "value");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-fz", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "unknown option '-z'");
	CHECK(a.usage);
	free(a.operands);
}

static void test_long_abbreviations(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	/* As getopt_long: a unique prefix is the option; an exact name wins. */
	CHECK_INT(parse(&cmd, &a, "t", "--fl", "--ot", NULL), POPT_OK);
	CHECK(v.flag && v.other);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--cb", "x", NULL), POPT_OK);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--cb-", NULL), POPT_OK);
	CHECK(v.cb_arg == NULL);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--g", "1", NULL), POPT_OK);
	free(a.operands);
	/* --e: --event only; --a: --aa only; --s: --str only. */
	CHECK_INT(parse(&cmd, &a, "t", "--p", "2", NULL), POPT_OK);
	CHECK_INT(v.pow, 2);
	free(a.operands);
}

static void test_usage_errors(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, 0);

	CHECK_INT(parse(&cmd, &a, "t", "--bogus", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "unknown option '--bogus'");
	CHECK(a.usage);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--str", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "option '--str' needs a value");
	CHECK(a.usage);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-s", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "option '-s' needs a value");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--flag=1", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "option '--flag' takes no value");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--o", NULL), POPT_OK);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "--c", "x", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "option '--c' is ambiguous");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "extra", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "unexpected argument 'extra'");
	CHECK(a.usage);
	free(a.operands);
	/* The hidden dump and --help stop the parse. */
	CHECK_INT(parse(&cmd, &a, "t", "--list-options", "--bogus", NULL),
		  POPT_LIST_OPTIONS);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-h", "--bogus", NULL), POPT_SHOW_HELP);
	free(a.operands);
}

static void test_ranges_and_values(void)
{
	static const struct { const char *opt, *arg, *msg; } bad[] = {
		{ "-i", "6", "-i '6': give an integer from -5 to 5" },
		{ "-i", "-6", "-i '-6': give an integer from -5 to 5" },
		{ "-i", "1x", "-i '1x': give an integer from -5 to 5" },
		{ "-i", "", "-i '': give an integer from -5 to 5" },
		{ "-i", "99999999999999999999", "-i '99999999999999999999': give an integer from -5 to 5" },
		{ "-u", "0", "-u '0': give 1 to 100" },
		{ "-u", "-1", "-u '-1': give 1 to 100" },
		{ "--pow", "3", "--pow '3': give a power of 2 up to 1024" },
		{ "--pow", "2048", "--pow '2048': give a power of 2 up to 1024" },
		{ "-d", "10.5", "-d '10.5': give a number from 0 to 10" },
		{ "-d", "-0.1", "-d '-0.1': give a number from 0 to 10" },
		{ "-d", "nan", "-d 'nan': give a number from 0 to 10" },
		{ "-d", "inf", "-d 'inf': give a number from 0 to 10" },
		{ "--gt", "0", "--gt '0': give a number above 0 to 10" },
		{ "-m", "bogus", "--mode 'bogus': give auto, bpf or perf" },
		{ "--cb", "bad", "--cb 'bad': give something even" },
		{ "--cb", "odd", "--cb 'odd': odd (data 7)" },
	};
	struct vals v = { 0 };
	struct popt_args a;
	size_t k;
	CMD(&v, POPT_PERMUTE, -1);

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		CHECK_INT(parse(&cmd, &a, "t", bad[k].opt, bad[k].arg, NULL),
			  POPT_USAGE_ERROR);
		CHECK_STR(err, bad[k].msg);
		/* A bad value is no misuse of the syntax: no usage. */
		CHECK(!a.usage);
		free(a.operands);
	}
	/* The bounds themselves are in. */
	CHECK_INT(parse(&cmd, &a, "t", "-i", "5", "-u", "1", "-d", "0",
			"--gt", "10", "--pow", "1", NULL), POPT_OK);
	CHECK_INT(v.i, 5);
	CHECK_INT(v.u, 1);
	CHECK_INT(v.pow, 1);
	free(a.operands);
}

static void test_list_overflow(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	CHECK_INT(parse(&cmd, &a, "t", "-e", "1", "-e", "2", "-e", "3",
			"-e", "4", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "at most 3 -e options");
	CHECK_INT(v.nr_list, 3);
	free(a.operands);
}

static void test_exclusivity(void)
{
	static const struct popt_excl msg[] = {
		{ G_C, "c's own words" },
		{ 0, NULL },
	};
	struct vals v = { 0 };
	struct popt_args a;
	struct popt opts[] = {
		{ POPT_FLAG('a', "aa", &v.a, "a"), .excl = G_AB },
		{ POPT_FLAG('b', "bb", &v.b, "b"), .excl = G_AB },
		{ POPT_FLAG('c', "cc", &v.c, "c"), .excl = G_C },
		{ POPT_FLAG('f', "flag", &v.flag, "f"), .excl = G_C },
		POPT_END_ROW,
	};
	struct popt_cmd cmd = { .name = "t", .opts = opts,
				.max_operands = -1, .excl_msg = msg };

	/* The same option twice is no conflict. */
	CHECK_INT(parse(&cmd, &a, "t", "-a", "--aa", "-c", "-c", NULL),
		  POPT_OK);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-b", "-a", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "--bb and --aa do not go together");
	CHECK(!a.usage);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-ab", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "--aa and --bb do not go together");
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-f", "-c", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "c's own words");
	free(a.operands);
	/* A required group: one of it is due; the usage comes too. */
	cmd.required = 1U << G_AB;
	cmd.excl_usage = true;
	CHECK_INT(parse(&cmd, &a, "t", "-c", NULL), POPT_USAGE_ERROR);
	CHECK_STR(err, "give one of --aa and --bb");
	CHECK(a.usage);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-a", "-b", NULL), POPT_USAGE_ERROR);
	CHECK(a.usage);
	free(a.operands);
	CHECK_INT(parse(&cmd, &a, "t", "-b", NULL), POPT_OK);
	free(a.operands);
}

static void test_dashdash_permute(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_PERMUTE, -1);

	/* Operands anywhere; after "--", "-f" is an operand. */
	CHECK_INT(parse(&cmd, &a, "t", "x", "-f", "y", "--", "-o", "-", NULL),
		  POPT_OK);
	CHECK(v.flag && !v.other);
	CHECK_INT(a.nr, 4);
	CHECK_STR(a.operands[0], "x");
	CHECK_STR(a.operands[1], "y");
	CHECK_STR(a.operands[2], "-o");
	CHECK_STR(a.operands[3], "-");
	CHECK(a.operands[4] == NULL);
	CHECK(a.dashdash);
	free(a.operands);
}

static void test_dashdash_max_operands(void)
{
	struct vals v = { 0 };
	struct popt_args a;

	{
		CMD(&v, POPT_PERMUTE, 1);

		/* Permute: the options are all read first. */
		CHECK_INT(parse(&cmd, &a, "t", "a", "b", "--bogus", NULL),
			  POPT_USAGE_ERROR);
		CHECK_STR(err, "unknown option '--bogus'");
		free(a.operands);
		CHECK_INT(parse(&cmd, &a, "t", "a", "b", NULL),
			  POPT_USAGE_ERROR);
		CHECK_STR(err, "unexpected argument 'b'");
		free(a.operands);
	}
	{
		CMD(&v, POPT_IN_ORDER, 1);

		/* In order: the extra operand is refused where it stands. */
		CHECK_INT(parse(&cmd, &a, "t", "a", "b", "--bogus", NULL),
			  POPT_USAGE_ERROR);
		CHECK_STR(err, "unexpected argument 'b'");
		free(a.operands);
		CHECK_INT(parse(&cmd, &a, "t", "--", "a", "b", NULL),
			  POPT_USAGE_ERROR);
		CHECK_STR(err, "unexpected argument 'b'");
		free(a.operands);
	}
}

static void test_dashdash_stop(void)
{
	struct vals v = { 0 };
	struct popt_args a;
	CMD(&v, POPT_STOP, -1);

	/* The first operand ends the options: the rest is a command's. */
	CHECK_INT(parse(&cmd, &a, "t", "-f", "cmd", "-o", "--", NULL),
		  POPT_OK);
	CHECK(v.flag && !v.other);
	CHECK_INT(a.nr, 3);
	CHECK_STR(a.operands[0], "cmd");
	CHECK_STR(a.operands[1], "-o");
	CHECK_STR(a.operands[2], "--");
	CHECK(!a.dashdash);
	free(a.operands);
	memset(&v, 0, sizeof(v));
	CHECK_INT(parse(&cmd, &a, "t", "-f", "--", "-o", "x", NULL), POPT_OK);
	CHECK(!v.other);
	CHECK_INT(a.nr, 2);
	CHECK_STR(a.operands[0], "-o");
	CHECK(a.dashdash);
	free(a.operands);
}

/* What f writes to a string. */
static char *render(void (*f)(const struct popt_cmd *, FILE *),
		    const struct popt_cmd *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	f(cmd, m);
	fclose(m);
	return buf;
}

static void test_usage_and_help(void)
{
	struct vals v = { 0 };
	struct popt opts[] = {
		{ POPT_FLAG('n', "normalize", &v.flag, "scale A") },
		{ POPT_STRING('x', "binary", &v.str, "PATH",
			      "a user binary\nsecond line"), .excl = 1 },
		{ POPT_STRING('k', "vmlinux", &v.str, "PATH", "a kernel"),
		  .excl = 1 },
		{ POPT_ENUM(0, "spans", &v.mode, "MODE", modes, "how") },
		{ POPT_LIST('e', "event", v.list, &v.nr_list, "EVENT",
			    "add one") },
		{ POPT_STRING(0, "a-very-long-option", &v.str, "WITH-ARG",
			      "past the column") },
		{ POPT_STRING(0, "secret", &v.str, "S", "hidden"),
		  .flags = POPT_HIDDEN },
		POPT_HELP_ROW,
		POPT_GROUP("Elsewhere:"),
		{ POPT_FLAG(0, "far", &v.other, "in the group"),
		  .usage = "[--far [more]]" },
		POPT_END_ROW,
	};
	struct popt_cmd cmd = { .name = "demo", .opts = opts,
				.synopsis_pre = "A B",
				.synopsis_post = "[-- CMD]",
				.about = "About it.\n", .epilogue = "The end.\n" };
	char *s;

	s = render(popt__usage, &cmd);
	/* Wrapped at 80 columns (the first line is 78), under the first. */
	CHECK_STR(s, "usage: rstat-analyze demo A B [-n] [-x PATH | -k PATH] [--spans auto|bpf|perf]\n"
		  "                          [-e EVENT]... [--a-very-long-option WITH-ARG]\n"
		  "                          [--far [more]] [-- CMD]\n");
	free(s);
	cmd.usage_long = true;
	cmd.required = 1U << 1;
	s = render(popt__usage, &cmd);
	CHECK_STR(s, "usage: rstat-analyze demo A B [--normalize] (--binary PATH | --vmlinux PATH)\n"
		  "                          [--spans auto|bpf|perf] [--event EVENT]...\n"
		  "                          [--a-very-long-option WITH-ARG] [--far [more]]\n"
		  "                          [-- CMD]\n");
	free(s);
	s = render(popt__help, &cmd);
	CHECK(strstr(s, "\n\nAbout it.\n\n"
		      "  -n, --normalize       scale A\n"
		      "  -x, --binary PATH     a user binary\n"
		      "                        second line\n"
		      "  -k, --vmlinux PATH    a kernel\n"
		      "      --spans MODE      how\n"
		      "  -e, --event EVENT     add one\n"
		      "      --a-very-long-option WITH-ARG  past the column\n"
		      "  -h, --help            this text\n"
		      "\nElsewhere:\n"
		      "      --far             in the group\n"
		      "\nThe end.\n") != NULL);
	CHECK(!strstr(s, "secret"));
	free(s);
	s = render(popt__dump, &cmd);
	CHECK_STR(s, "-n\t--normalize\tflag\t-\t0\t-\n"
		  "-x\t--binary\tstring\tPATH\t1\t-\n"
		  "-k\t--vmlinux\tstring\tPATH\t1\t-\n"
		  "-\t--spans\tenum\tMODE\t0\tauto,bpf,perf\n"
		  "-e\t--event\tlist\tEVENT\t0\t-\n"
		  "-\t--a-very-long-option\tstring\tWITH-ARG\t0\t-\n"
		  "-h\t--help\thelp\t-\t0\t-\n"
		  "-\t--far\tflag\t-\t0\t-\n");
	free(s);
}

static void test_guest_argv(void)
{
	struct vals v = { 0 };
	char *argv[] = { "t", "--host", "h1", "-f", "--host=h2", "-s", "x",
			 "op", "--", "--host", "y", NULL };
	int gargc = 0, k;
	char **g;
	static const char *const want[] = { "t", "-f", "-s", "x", "op", "--",
					    "--host", "y" };
	CMD(&v, POPT_PERMUTE, -1);

	g = popt__guest_argv(&cmd, 11, argv, &gargc);
	CHECK(g != NULL);
	CHECK_INT(gargc, 8);
	for (k = 0; k < gargc && k < 8; k++)
		CHECK_STR(g[k], want[k]);
	CHECK(g[gargc] == NULL);
	free(g);
}

/*
 * A host option with a short name and a value goes in every spelling
 * (bench's -o DIR, which the guest replaces with its own), the words
 * around it stay; popt__value_next() says which words take the next.
 */
static void test_guest_argv_host_value(void)
{
	const char *out = NULL;
	bool json = false;
	const struct popt opts[] = {
		{ POPT_STRING('o', "output-dir", &out, "DIR", "output"),
		  .flags = POPT_HOST },
		{ POPT_FLAG(0, "json", &json, "json") },
		POPT_END_ROW,
	};
	const struct popt_cmd cmd = { .name = "t", .opts = opts,
				      .max_operands = -1 };
	char *argv[] = { "t", "op", "-oX", "--output-dir", "Y", "--json",
			 "-o", "Z", "--out=W", "--outp", "V", NULL };
	static const char *const want[] = { "t", "op", "--json" };
	int gargc = 0, k;
	char **g;

	g = popt__guest_argv(&cmd, 11, argv, &gargc);
	CHECK(g != NULL);
	CHECK_INT(gargc, 3);
	for (k = 0; k < gargc && k < 3; k++)
		CHECK_STR(g[k], want[k]);
	CHECK(g[gargc] == NULL);
	free(g);

	CHECK(popt__value_next(&cmd, "-o"));
	CHECK(popt__value_next(&cmd, "--out"));
	CHECK(!popt__value_next(&cmd, "-oX"));
	CHECK(!popt__value_next(&cmd, "--out=W"));
	CHECK(!popt__value_next(&cmd, "--json"));
	CHECK(!popt__value_next(&cmd, "--"));
	CHECK(!popt__value_next(&cmd, "-"));
	CHECK(!popt__value_next(&cmd, "op"));
	CHECK(!popt__value_next(&cmd, "--bogus"));
}

UNIT_MAIN(UNIT(test_every_type), UNIT(test_defaults_stay),
	  UNIT(test_value_forms), UNIT(test_short_clusters),
	  UNIT(test_long_abbreviations), UNIT(test_usage_errors),
	  UNIT(test_ranges_and_values), UNIT(test_list_overflow),
	  UNIT(test_exclusivity), UNIT(test_dashdash_permute),
	  UNIT(test_dashdash_max_operands), UNIT(test_dashdash_stop),
	  UNIT(test_usage_and_help), UNIT(test_guest_argv),
	  UNIT(test_guest_argv_host_value))
