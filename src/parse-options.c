// SPDX-License-Identifier: GPL-2.0
/*
 * Options from a table (include/parse-options.h): the parser, the usage
 * line, the --help option list and the dump, all walking the same rows.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse-options.h"

#define HELP_COLUMN 24		/* where an option's help text starts */
#define USAGE_WIDTH 80

struct popt_state {
	const struct popt_cmd *cmd;
	const struct popt *seen[32];	/* the first option of each group */
	char *err;
	size_t errlen;
	bool usage;
};

static bool is_option_row(const struct popt *o)
{
	return o->type != POPT_T_GROUP && o->type != POPT_T_OPERAND;
}

static bool takes_arg(const struct popt *o)
{
	switch (o->type) {
	case POPT_T_HELP:
	case POPT_T_FLAG:
		return false;
	case POPT_T_CALLBACK:
		return !(o->flags & POPT_NOARG);
	default:
		return true;
	}
}

const char *popt__name(const struct popt *opt, char *buf, size_t len)
{
	if (opt->short_name && !(opt->flags & POPT_SAY_LONG &&
				 opt->long_name))
		snprintf(buf, len, "-%c", opt->short_name);
	else
		snprintf(buf, len, "--%s", opt->long_name);
	return buf;
}

/* The long name where there is one: how exclusivity names options. */
static const char *long_first(const struct popt *opt, char *buf, size_t len)
{
	if (opt->long_name)
		snprintf(buf, len, "--%s", opt->long_name);
	else
		snprintf(buf, len, "-%c", opt->short_name);
	return buf;
}

static int fail(struct popt_state *st, bool usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct popt_state *st, bool usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->err, st->errlen, fmt, ap);
	va_end(ap);
	st->usage = usage;
	return POPT_USAGE_ERROR;
}

static const struct popt *find_short(const struct popt_cmd *cmd, int c)
{
	const struct popt *o;

	for (o = cmd->opts; o->type != POPT_T_END; o++)
		if (is_option_row(o) && o->short_name == c)
			return o;
	return NULL;
}

/*
 * The row of "--name" (len bytes of it): an exact match, else the one
 * option the name abbreviates (as getopt_long takes them). *ambiguous
 * when several do.
 */
static const struct popt *find_long(const struct popt_cmd *cmd,
				    const char *name, size_t len,
				    bool *ambiguous)
{
	const struct popt *o, *hit = NULL;
	int hits = 0;

	*ambiguous = false;
	for (o = cmd->opts; o->type != POPT_T_END; o++) {
		if (!is_option_row(o) || !o->long_name ||
		    strncmp(o->long_name, name, len))
			continue;
		if (!o->long_name[len])
			return o;
		hit = o;
		hits++;
	}
	if (hits > 1) {
		*ambiguous = true;
		return NULL;
	}
	return hit;
}

static int bad_value(struct popt_state *st, const struct popt *o,
		     const char *arg)
{
	char name[64], hint[256];
	const char *const *c;
	size_t n = 0;

	if (o->hint) {
		snprintf(hint, sizeof(hint), "%s", o->hint);
	} else if (o->type == POPT_T_ENUM) {
		n = snprintf(hint, sizeof(hint), "give");
		for (c = o->choices; *c && n < sizeof(hint); c++)
			n += snprintf(hint + n, sizeof(hint) - n, "%s %s",
				      c == o->choices ? "" :
				      c[1] ? "," : " or", *c);
	} else if (o->type == POPT_T_DOUBLE) {
		snprintf(hint, sizeof(hint), "give a number %s %g to %g",
			 o->flags & POPT_GT_MIN ? "above" : "from",
			 o->dmin, o->dmax);
	} else if (o->flags & POPT_POW2) {
		snprintf(hint, sizeof(hint), "give a power of 2 up to %lld",
			 o->max);
	} else if (o->type == POPT_T_INT || o->type == POPT_T_UINT) {
		snprintf(hint, sizeof(hint), "give an integer from %lld to %lld",
			 o->min, o->max);
	} else {
		snprintf(hint, sizeof(hint), "not a valid value");
	}
	return fail(st, o->flags & POPT_ERR_USAGE, "%s '%s': %s",
		    popt__name(o, name, sizeof(name)), arg, hint);
}

static int parse_ll(const char *s, bool unsig, long long *v)
{
	char *end;

	errno = 0;
	if (unsig) {
		unsigned long long u;

		if (*s == '-')
			return -EINVAL;
		u = strtoull(s, &end, 10);
		if (u > (unsigned long long)LLONG_MAX)
			return -EINVAL;
		*v = u;
	} else {
		*v = strtoll(s, &end, 10);
	}
	if (errno || end == s || *end)
		return -EINVAL;
	return 0;
}

/* Two of a group: the group's own words or the standard ones. */
static int check_excl(struct popt_state *st, const struct popt *o)
{
	const struct popt_excl *m;
	const struct popt *first;
	char a[64], b[64];

	if (o->excl <= 0 || o->excl >= 32)
		return 0;
	first = st->seen[o->excl];
	if (!first) {
		st->seen[o->excl] = o;
		return 0;
	}
	if (first == o)
		return 0;
	for (m = st->cmd->excl_msg; m && m->excl; m++)
		if (m->excl == o->excl)
			return fail(st, st->cmd->excl_usage, "%s", m->msg);
	return fail(st, st->cmd->excl_usage, "%s and %s do not go together",
		    long_first(first, a, sizeof(a)),
		    long_first(o, b, sizeof(b)));
}

/* Take option o with its value arg (NULL when it takes none). */
static int take(struct popt_state *st, const struct popt *o, const char *arg)
{
	long long v;
	double d;
	char *end;
	int i, ret;

	ret = check_excl(st, o);
	if (ret)
		return ret;
	switch (o->type) {
	case POPT_T_HELP:
		return POPT_SHOW_HELP;
	case POPT_T_FLAG:
		*(bool *)o->value = true;
		return 0;
	case POPT_T_STRING:
		*(const char **)o->value = arg;
		return 0;
	case POPT_T_INT:
	case POPT_T_UINT:
		if (parse_ll(arg, o->type == POPT_T_UINT, &v) ||
		    v < o->min || v > o->max ||
		    (o->flags & POPT_POW2 && (v <= 0 || (v & (v - 1)))))
			return bad_value(st, o, arg);
		if (o->type == POPT_T_INT)
			*(int *)o->value = v;
		else
			*(unsigned int *)o->value = v;
		return 0;
	case POPT_T_DOUBLE:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || isnan(d) ||
		    (o->flags & POPT_GT_MIN ? !(d > o->dmin) : d < o->dmin) ||
		    d > o->dmax)
			return bad_value(st, o, arg);
		*(double *)o->value = d;
		return 0;
	case POPT_T_ENUM:
		for (i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], arg)) {
				*(int *)o->value = i;
				return 0;
			}
		}
		return bad_value(st, o, arg);
	case POPT_T_LIST:
		if (*o->nr >= o->max) {
			char name[64];

			return fail(st, false, "at most %lld %s options",
				    o->max, popt__name(o, name, sizeof(name)));
		}
		((const char **)o->value)[(*o->nr)++] = arg;
		return 0;
	case POPT_T_CALLBACK:
		st->err[0] = '\0';
		if (!o->cb(o, arg, st->err, st->errlen))
			return 0;
		if (!st->err[0])
			return bad_value(st, o, arg);
		st->usage = o->flags & POPT_ERR_USAGE;
		return POPT_USAGE_ERROR;
	default:
		return fail(st, true, "internal: bad option row");
	}
}

/* "--name[=value]" at argv[*i]; *i moves past a value in the next word. */
static int parse_long(struct popt_state *st, int argc, char **argv, int *i)
{
	const char *w = argv[*i], *name = w + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct popt *o;
	bool ambiguous;
	char buf[64];

	o = find_long(st->cmd, name, len, &ambiguous);
	if (ambiguous)
		return fail(st, true, "option '%.*s' is ambiguous",
			    (int)len + 2, w);
	if (!o)
		return fail(st, true, "unknown option '%s'", w);
	if (!takes_arg(o)) {
		if (eq)
			return fail(st, true, "option '%s' takes no value",
				    long_first(o, buf, sizeof(buf)));
		return take(st, o, NULL);
	}
	if (eq)
		return take(st, o, eq + 1);
	if (*i + 1 >= argc)
		return fail(st, true, "option '%s' needs a value", w);
	return take(st, o, argv[++*i]);
}

/* "-abc", "-oFILE" or "-o FILE" at argv[*i]. */
static int parse_short(struct popt_state *st, int argc, char **argv, int *i)
{
	const char *p = argv[*i] + 1;
	const struct popt *o;
	int ret;

	for (; *p; p++) {
		o = find_short(st->cmd, *p);
		if (!o)
			return fail(st, true, "unknown option '-%c'", *p);
		if (!takes_arg(o)) {
			ret = take(st, o, NULL);
			if (ret)
				return ret;
			continue;
		}
		if (p[1])
			return take(st, o, p + 1);
		if (*i + 1 >= argc)
			return fail(st, true, "option '-%c' needs a value", *p);
		return take(st, o, argv[++*i]);
	}
	return 0;
}

/* "give one of --lines FUNC and --resolve SPEC". */
static int missing_group(struct popt_state *st, int g)
{
	const struct popt *o, *last = NULL;
	size_t n;
	int k = 0;

	for (o = st->cmd->opts; o->type != POPT_T_END; o++)
		if (is_option_row(o) && o->excl == g)
			last = o;
	n = snprintf(st->err, st->errlen, "give one of");
	for (o = st->cmd->opts; o->type != POPT_T_END && n < st->errlen; o++) {
		char buf[64];

		if (!is_option_row(o) || o->excl != g)
			continue;
		n += snprintf(st->err + n, st->errlen - n, "%s %s%s%s",
			      !k ? "" : o == last ? " and" : ",",
			      long_first(o, buf, sizeof(buf)),
			      o->argh ? " " : "", o->argh ? o->argh : "");
		k++;
	}
	st->usage = true;
	return POPT_USAGE_ERROR;
}

static int add_operand(struct popt_state *st, struct popt_args *out,
		       char *w, bool check)
{
	int max = st->cmd->max_operands;

	if (check && max >= 0 && out->nr >= max)
		return fail(st, true, "unexpected argument '%s'", w);
	out->operands[out->nr++] = w;
	return 0;
}

int popt__parse(const struct popt_cmd *cmd, int argc, char **argv,
		struct popt_args *out, char *err, size_t errlen)
{
	struct popt_state st = { .cmd = cmd, .err = err, .errlen = errlen };
	bool in_order = cmd->dashdash == POPT_IN_ORDER;
	bool rest = false;
	unsigned int g;
	int i, ret = 0;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	out->operands = calloc(argc + 1, sizeof(*out->operands));
	if (!out->operands)
		return POPT_NOMEM;
	for (i = 1; i < argc && !ret; i++) {
		char *w = argv[i];

		if (rest || w[0] != '-' || !w[1]) {
			if (cmd->dashdash == POPT_STOP)
				rest = true;
			ret = add_operand(&st, out, w, in_order);
		} else if (!strcmp(w, "--")) {
			rest = true;
			out->dashdash = true;
		} else if (!strcmp(w, "--list-options")) {
			ret = POPT_LIST_OPTIONS;
		} else if (w[1] == '-') {
			ret = parse_long(&st, argc, argv, &i);
		} else {
			ret = parse_short(&st, argc, argv, &i);
		}
	}
	/* Outside POPT_IN_ORDER, too many operands is said once all parsed. */
	if (!ret && !in_order && cmd->max_operands >= 0 &&
	    out->nr > cmd->max_operands)
		ret = fail(&st, true, "unexpected argument '%s'",
			   out->operands[cmd->max_operands]);
	for (g = 1; !ret && g < 32; g++)
		if (cmd->required & (1U << g) && !st.seen[g])
			ret = missing_group(&st, g);
	out->usage = st.usage;
	return ret;
}

/* The words of the usage line, wrapped under the first. */
struct usage_line {
	FILE *out;
	size_t col, indent;
};

static void usage_item(struct usage_line *u, const char *item)
{
	size_t len = strlen(item);

	if (u->col + 1 + len > USAGE_WIDTH && u->col > u->indent) {
		fprintf(u->out, "\n%*s", (int)u->indent, "");
		u->col = u->indent;
	} else {
		fputc(' ', u->out);
		u->col++;
	}
	fputs(item, u->out);
	u->col += len;
}

/*
 * "-s ARG" (or "--long ARG"), as usage shows one option; an enum's
 * argument is its choices, "--long a|b|c".
 */
static void usage_word(const struct popt_cmd *cmd, const struct popt *o,
		       char *buf, size_t len)
{
	const char *const *c;
	size_t n;

	if (cmd->usage_long || !o->short_name)
		long_first(o, buf, len);
	else
		snprintf(buf, len, "-%c", o->short_name);
	n = strlen(buf);

	if (o->type == POPT_T_ENUM) {
		for (c = o->choices; *c && n < len; c++)
			n += snprintf(buf + n, len - n, "%c%s",
				      c == o->choices ? ' ' : '|', *c);
	} else if (takes_arg(o) && o->argh) {
		snprintf(buf + n, len - n, " %s", o->argh);
	}
}

static void usage_group(const struct popt_cmd *cmd, const struct popt *first,
			char *buf, size_t len)
{
	bool required = cmd->required & (1U << first->excl);
	const struct popt *o;
	char word[128];
	size_t n;

	n = snprintf(buf, len, "%s", required ? "(" : "[");
	for (o = first; o->type != POPT_T_END && n < len; o++) {
		if (!is_option_row(o) || o->excl != first->excl ||
		    o->flags & POPT_HIDDEN || (o->usage && !*o->usage))
			continue;
		usage_word(cmd, o, word, sizeof(word));
		n += snprintf(buf + n, len - n, "%s%s", o == first ? "" :
			      " | ", word);
	}
	if (n < len)
		snprintf(buf + n, len - n, "%s", required ? ")" : "]");
}

static bool group_shown(const struct popt *first, const struct popt *o)
{
	const struct popt *p;

	for (p = first; p < o; p++)
		if (is_option_row(p) && p->excl == o->excl &&
		    !(p->flags & POPT_HIDDEN) && !(p->usage && !*p->usage))
			return true;
	return false;
}

void popt__usage(const struct popt_cmd *cmd, FILE *out)
{
	struct usage_line u = { .out = out };
	const struct popt *o;
	char buf[512], word[128];

	u.col = fprintf(out, "usage: rstat-analyze %s", cmd->name);
	u.indent = u.col + 1;
	if (cmd->synopsis_pre)
		usage_item(&u, cmd->synopsis_pre);
	for (o = cmd->opts; o->type != POPT_T_END; o++) {
		if (!is_option_row(o) || o->type == POPT_T_HELP ||
		    o->flags & POPT_HIDDEN || (o->usage && !*o->usage))
			continue;
		if (o->usage) {
			usage_item(&u, o->usage);
		} else if (o->excl) {
			if (group_shown(cmd->opts, o))
				continue;
			usage_group(cmd, o, buf, sizeof(buf));
			usage_item(&u, buf);
		} else {
			usage_word(cmd, o, word, sizeof(word));
			snprintf(buf, sizeof(buf), "[%s]%s", word,
				 o->type == POPT_T_LIST ||
				 o->flags & POPT_REPEAT ? "..." : "");
			usage_item(&u, buf);
		}
	}
	if (cmd->synopsis_post)
		usage_item(&u, cmd->synopsis_post);
	fputc('\n', out);
}

/* An option's help text from column hcol, its lines indented. */
static void help_text(FILE *out, int col, int hcol, const char *text)
{
	const char *nl;

	if (col > hcol - 2)
		fputs("  ", out);
	else
		fprintf(out, "%*s", hcol - col, "");
	while ((nl = strchr(text, '\n'))) {
		fprintf(out, "%.*s\n%*s", (int)(nl - text), text, hcol, "");
		text = nl + 1;
	}
	fprintf(out, "%s\n", text);
}

void popt__help(const struct popt_cmd *cmd, FILE *out)
{
	const struct popt *o;
	int col;

	int hcol = cmd->help_column ? cmd->help_column : HELP_COLUMN;

	popt__usage(cmd, out);
	if (cmd->about)
		fprintf(out, "\n%s", cmd->about);
	fputc('\n', out);
	for (o = cmd->opts; o->type != POPT_T_END; o++) {
		if (o->flags & POPT_HIDDEN)
			continue;
		if (o->type == POPT_T_GROUP) {
			fprintf(out, "%s%s\n", o == cmd->opts ? "" : "\n",
				o->help);
			/* Groups after the first keep the standard column. */
			if (o != cmd->opts)
				hcol = HELP_COLUMN;
			continue;
		}
		if (o->type == POPT_T_OPERAND) {
			col = fprintf(out, "  %s", o->argh);
		} else {
			if (o->flags & POPT_INDENT)
				col = fprintf(out, "        --%s", o->long_name);
			else if (o->short_name && o->long_name)
				col = fprintf(out, "  -%c, --%s",
					      o->short_name, o->long_name);
			else if (o->short_name)
				col = fprintf(out, "  -%c", o->short_name);
			else
				col = fprintf(out, "      --%s", o->long_name);
			if (takes_arg(o) && o->argh)
				col += fprintf(out, " %s", o->argh);
		}
		help_text(out, col, hcol, o->help ? o->help : "");
	}
	if (cmd->epilogue)
		fprintf(out, "\n%s", cmd->epilogue);
}

static const char *const type_names[] = {
	[POPT_T_HELP] = "help",
	[POPT_T_FLAG] = "flag",
	[POPT_T_STRING] = "string",
	[POPT_T_INT] = "int",
	[POPT_T_UINT] = "uint",
	[POPT_T_DOUBLE] = "double",
	[POPT_T_ENUM] = "enum",
	[POPT_T_LIST] = "list",
	[POPT_T_CALLBACK] = "callback",
};

void popt__dump(const struct popt_cmd *cmd, FILE *out)
{
	const struct popt *o;
	const char *const *c;

	for (o = cmd->opts; o->type != POPT_T_END; o++) {
		if (!is_option_row(o) || o->flags & POPT_HIDDEN)
			continue;
		if (o->short_name)
			fprintf(out, "-%c\t", o->short_name);
		else
			fputs("-\t", out);
		fprintf(out, "%s%s\t%s\t%s\t%d\t", o->long_name ? "--" : "",
			o->long_name ? o->long_name : "-",
			type_names[o->type],
			takes_arg(o) && o->argh ? o->argh : "-", o->excl);
		if (o->choices)
			for (c = o->choices; *c; c++)
				fprintf(out, "%s%s", c == o->choices ? "" :
					",", *c);
		else
			fputc('-', out);
		fputc('\n', out);
	}
}

/*
 * The row of an option word that decides its fate: the long option of
 * "--x[=v]"; in "-abc" the letter that takes a value (the rest of the word
 * or the next word), else the first. *value_next: the next word is its.
 */
static const struct popt *word_row(const struct popt_cmd *cmd, const char *w,
				   bool *value_next)
{
	const struct popt *o, *first;
	const char *p;
	bool ambiguous;

	*value_next = false;
	if (w[1] == '-') {
		o = find_long(cmd, w + 2, strcspn(w + 2, "="), &ambiguous);
		*value_next = o && takes_arg(o) && !strchr(w, '=');
		return o;
	}
	first = find_short(cmd, w[1]);
	for (p = w + 1; *p; p++) {
		o = find_short(cmd, *p);
		if (!o)
			return first;
		if (takes_arg(o)) {
			*value_next = !p[1];
			return o;
		}
	}
	return first;
}

bool popt__value_next(const struct popt_cmd *cmd, const char *w)
{
	bool value_next;

	if (w[0] != '-' || !w[1] || !strcmp(w, "--"))
		return false;
	word_row(cmd, w, &value_next);
	return value_next;
}

char **popt__guest_argv(const struct popt_cmd *cmd, int argc, char **argv,
			int *gargc)
{
	char **out = calloc(argc + 5, sizeof(*out));
	bool rest = false;
	int i, n = 0;

	if (!out)
		return NULL;
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];
		const struct popt *o;
		bool value_next;

		if (i == 0 || rest || w[0] != '-' || !w[1]) {
			if (i && cmd->dashdash == POPT_STOP)
				rest = true;
			out[n++] = argv[i];
			continue;
		}
		if (!strcmp(w, "--")) {
			rest = true;
			out[n++] = argv[i];
			continue;
		}
		o = word_row(cmd, w, &value_next);
		if (o && o->flags & POPT_HOST) {
			if (value_next)
				i++;
			continue;
		}
		out[n++] = argv[i];
		if (value_next && i + 1 < argc)
			out[n++] = argv[++i];
	}
	*gargc = n;
	return out;
}
