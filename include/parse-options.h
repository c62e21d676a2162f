/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command's options declared once, as a table: one row per option with
 * its names, its argument, its type (and range, or choices), where its
 * value goes, its --help text and its exclusivity group. From the table
 * come the parsing, the usage line, the --help option list, the error
 * messages and a dump (--list-options) that the tests hold the man pages
 * and the bash completion against. Learnt from git's parse-options.h and
 * perf's tools/lib/subcmd/parse-options.h; nothing here prints on its
 * own: errors come back as text, help is written to the FILE given.
 *
 * A command declares
 *
 *	struct popt opts[] = {
 *		{ POPT_FLAG('n', "normalize", &p->normalize,
 *			    "scale A's counts so that its total is B's") },
 *		{ POPT_STRING(0, "kallsyms", &p->kallsyms, "FILE",
 *			      "kernel symbols for folding recordings") },
 *		POPT_HELP_ROW,
 *		POPT_END_ROW,
 *	};
 *	struct popt_cmd cmd = { .name = "diff-folded", .opts = opts, ... };
 *
 * (more fields after the macro: { POPT_FLAG(...), .excl = 1 }) and calls
 * popt__parse() (the command layer's rs_parse_options() reports
 * what it returns).
 */
#ifndef RS_PARSE_OPTIONS_H
#define RS_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum popt_type {
	POPT_T_END = 0,
	POPT_T_GROUP,		/* a heading in --help (help: its line) */
	POPT_T_OPERAND,		/* a line of --help about operands */
	POPT_T_HELP,		/* -h, --help */
	POPT_T_FLAG,		/* bool *value = true */
	POPT_T_STRING,		/* const char **value = the argument */
	POPT_T_INT,		/* int *value, in [min, max] */
	POPT_T_UINT,		/* unsigned int *value, in [min, max] */
	POPT_T_DOUBLE,		/* double *value, in [dmin, dmax] */
	POPT_T_ENUM,		/* int *value = the index in choices */
	POPT_T_LIST,		/* const char **value[*nr++], at most max */
	POPT_T_CALLBACK,	/* cb(row, argument or NULL, ...) */
};

/* Row flags. */
enum {
	POPT_HIDDEN = 1 << 0,	/* parsed; not in usage, --help, the dump */
	POPT_NOARG = 1 << 1,	/* CALLBACK: takes no argument */
	POPT_GT_MIN = 1 << 2,	/* DOUBLE: the value must exceed dmin */
	POPT_POW2 = 1 << 3,	/* UINT: a power of 2 */
	POPT_SAY_LONG = 1 << 4,	/* bad values are said of --long, not -s */
	POPT_ERR_USAGE = 1 << 5,	/* a bad value prints the usage too */
	POPT_HOST = 1 << 6,	/* dropped from popt__guest_argv() */
	POPT_REPEAT = 1 << 7,	/* CALLBACK: may be given more than once */
	POPT_INDENT = 1 << 8,	/* --help: a sub-option of the row above */
};

struct popt;

/*
 * A callback row's parser: arg is the value (NULL for POPT_NOARG). 0, or
 * -EINVAL with err holding the message (without the command's name), or
 * with err empty for the row's standard bad-value message.
 */
typedef int (*popt_cb)(const struct popt *opt, const char *arg,
		       char *err, size_t errlen);

struct popt {
	enum popt_type type;
	int short_name;		/* 0: none */
	const char *long_name;	/* NULL: none */
	void *value;		/* where the value goes (callback: data) */
	const char *argh;	/* the argument's name in usage and --help */
	const char *help;	/* --help text; '\n' starts an indented line */
	unsigned int flags;
	int excl;		/* exclusivity group (1..31), 0: none */
	long long min, max;	/* INT, UINT; LIST: max is the most items */
	double dmin, dmax;	/* DOUBLE */
	/* ENUM: its words, NULL-terminated; others: what the dump lists */
	const char *const *choices;
	unsigned int *nr;	/* LIST: the count of items */
	const char *hint;	/* bad value: "give ..." after "-x 'VAL': " */
	popt_cb cb;
	intptr_t data;		/* CALLBACK: for the callback */
	const char *usage;	/* the usage item instead ("": none) */
};

#define POPT_END_ROW { .type = POPT_T_END }
#define POPT_GROUP(h) { .type = POPT_T_GROUP, .help = (h) }
#define POPT_OPERAND(a, h) { .type = POPT_T_OPERAND, .argh = (a), .help = (h) }
#define POPT_HELP_ROW							\
	{ .type = POPT_T_HELP, .short_name = 'h', .long_name = "help",	\
	  .help = "this text" }
#define POPT_FLAG(s, l, v, h)						\
	.type = POPT_T_FLAG, .short_name = (s), .long_name = (l),	\
	.value = (v), .help = (h)
#define POPT_STRING(s, l, v, a, h)					\
	.type = POPT_T_STRING, .short_name = (s), .long_name = (l),	\
	.value = (v), .argh = (a), .help = (h)
#define POPT_INT(s, l, v, a, lo, hi, h)					\
	.type = POPT_T_INT, .short_name = (s), .long_name = (l),	\
	.value = (v), .argh = (a), .min = (lo), .max = (hi), .help = (h)
#define POPT_UINT(s, l, v, a, lo, hi, h)				\
	.type = POPT_T_UINT, .short_name = (s), .long_name = (l),	\
	.value = (v), .argh = (a), .min = (lo), .max = (hi), .help = (h)
#define POPT_DOUBLE(s, l, v, a, lo, hi, h)				\
	.type = POPT_T_DOUBLE, .short_name = (s), .long_name = (l),	\
	.value = (v), .argh = (a), .dmin = (lo), .dmax = (hi), .help = (h)
#define POPT_ENUM(s, l, v, a, ch, h)					\
	.type = POPT_T_ENUM, .short_name = (s), .long_name = (l),	\
	.value = (v), .argh = (a), .choices = (ch), .help = (h)
#define POPT_LIST(s, l, arr, n, a, h)					\
	.type = POPT_T_LIST, .short_name = (s), .long_name = (l),	\
	.value = (arr), .nr = (n), .max = sizeof(arr) / sizeof((arr)[0]), \
	.argh = (a), .help = (h)
#define POPT_CALLBACK(s, l, v, a, f, h)					\
	.type = POPT_T_CALLBACK, .short_name = (s), .long_name = (l),	\
	.value = (v), .argh = (a), .cb = (f), .help = (h)

/* What "--" and the words that are no options mean to a command. */
enum popt_dashdash {
	/*
	 * Operands and options in any order; "--" ends the options, every
	 * word after it is an operand.
	 */
	POPT_PERMUTE = 0,
	/*
	 * The same, but a word over max_operands is refused where it stands
	 * (before the options after it are looked at).
	 */
	POPT_IN_ORDER,
	/*
	 * The first operand ends the options: it and the words after it are
	 * the operands (a command to run, with its own options); "--" ends
	 * them too and is dropped.
	 */
	POPT_STOP,
};

/* An exclusivity group's own words; a list of them ends with excl 0. */
struct popt_excl {
	int excl;
	const char *msg;
};

struct popt_cmd {
	const char *name;		/* "diff-folded" */
	const struct popt *opts;	/* ended by POPT_END_ROW */
	enum popt_dashdash dashdash;
	int max_operands;		/* -1: any number */
	const char *synopsis_pre;	/* usage: operands before options */
	const char *synopsis_post;	/* usage: after them */
	const char *about;		/* --help: above the options */
	const char *epilogue;		/* --help: after the options */
	unsigned int required;		/* groups (1 << excl) needing one */
	/* Groups' own words for two of their options (ended by excl 0). */
	const struct popt_excl *excl_msg;
	bool excl_usage;		/* two of a group: show the usage too */
	int help_column;		/* --help: where option help is (24) */
	bool usage_long;		/* usage says --long, not -s */
};

enum popt_result {
	POPT_OK = 0,
	POPT_SHOW_HELP,		/* -h or --help was given */
	POPT_LIST_OPTIONS,	/* the hidden --list-options was given */
	POPT_USAGE_ERROR,	/* err says what; *usage: show the usage */
	POPT_NOMEM,
};

struct popt_args {
	char **operands;	/* NULL-terminated; free() it */
	int nr;
	bool dashdash;		/* a "--" ended the options */
	bool usage;		/* the error wants the usage below it */
};

/*
 * Parse argv[1..argc) (argv[0] is the command's name) into the table's
 * values; the operands, in their order, into out. Values not given are
 * left as the caller set them (the defaults). Two options of one group
 * are refused where the second stands; a required group is checked after
 * the last option. Returns a popt_result; for
 * POPT_USAGE_ERROR, err holds one line (without the command's name).
 */
int popt__parse(const struct popt_cmd *cmd, int argc, char **argv,
		struct popt_args *out, char *err, size_t errlen);

/* "usage: rstat-analyze NAME ...", wrapped at 80 columns. */
void popt__usage(const struct popt_cmd *cmd, FILE *out);
/*
 * The whole --help: usage, about, the option list (a group row first is a
 * heading right under about's blank line), epilogue.
 */
void popt__help(const struct popt_cmd *cmd, FILE *out);
/*
 * One line per option, for the tests:
 * "SHORT<tab>--LONG<tab>TYPE<tab>ARG<tab>EXCL<tab>CHOICES", "-" where
 * empty (CHOICES: comma-separated; an enum's, or a callback's words).
 */
void popt__dump(const struct popt_cmd *cmd, FILE *out);

/*
 * argv for running the same command elsewhere (a VM): without the options
 * flagged POPT_HOST and their values; the rest in its order. Room is left
 * for 4 more words. NULL-terminated; free() it; NULL on -ENOMEM.
 */
char **popt__guest_argv(const struct popt_cmd *cmd, int argc, char **argv,
			int *gargc);

/*
 * Whether the option word w ("--lab", "-x", "--x=v") is one of cmd's
 * whose value is the next word: for a command that picks its options out
 * of argv itself (compare, whose "--" separates operands).
 */
bool popt__value_next(const struct popt_cmd *cmd, const char *w);

/* The option as messages name it: "-x" or "--long". */
const char *popt__name(const struct popt *opt, char *buf, size_t len);

#endif
