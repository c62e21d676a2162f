// SPDX-License-Identifier: GPL-2.0
/*
 * The program runs the kernel skipped during a breakdown, for the
 * terminal (breakdown-out.h): so that a table whose reads do not pair
 * with the reader's says why.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "breakdown-out.h"

/* Words into lines of at most 78 columns, each indented by two. */
struct wrap {
	FILE *out;
	size_t col;
};

static void wrap_word(struct wrap *w, const char *word)
{
	size_t len = strlen(word);

	if (w->col && w->col + 1 + len > 78) {
		fputc('\n', w->out);
		w->col = 0;
	}
	fprintf(w->out, "%s%s", w->col ? " " : "  ", word);
	w->col += (w->col ? 1 : 2) + len;
}

static void wrap_text(struct wrap *w, const char *text)
{
	char word[96];
	size_t n;

	while (*text) {
		n = strcspn(text, " ");
		if (n && n < sizeof(word)) {
			memcpy(word, text, n);
			word[n] = '\0';
			wrap_word(w, word);
		}
		text += n;
		text += strspn(text, " ");
	}
}

static void wrap_end(struct wrap *w)
{
	if (w->col)
		fputc('\n', w->out);
	w->col = 0;
}

/* What a skipped run of a program leaves out, by what it times. */
static const char *consequence(const char *affects)
{
	if (!strcmp(affects, "syscalls"))
		return "a syscall's start or end, lost unless its twin ran (fentry and raw tracepoint programs come in twins)";
	if (!strcmp(affects, "off-cpu"))
		return "a switch not seen: its time stays in the part it interrupted";
	if (!strcmp(affects, "files"))
		return "an open, copy or close of a target's fd not seen (record): reads of that fd unnamed and left out, or named for what the fd was before";
	if (!strcmp(affects, "children"))
		return "a fork or exit of a target not seen (record): a child not followed, its reads missing, or its slot among the targets not freed";
	if (*affects)
		return "an entry or exit of that part not seen: its calls undercount, its time stays around it";
	return "not the breakdown's";
}

void bench_breakdown__print_skips(const struct bench_breakdown *bd,
				  FILE *out)
{
	const struct breakdown_skips *s = &bd->skips;
	struct wrap w = { out, 0 };
	uint64_t runs = 0;
	bool syscalls = false;
	char buf[128];
	unsigned int i;

	for (i = 0; i < s->nr && i < BD_MAX_SKIPS; i++) {
		runs += s->prog[i].recursion + s->prog[i].missed;
		if (!strcmp(breakdown_prog_affects(s->prog[i].prog),
			    "syscalls"))
			syscalls = true;
	}
	if (runs) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " program runs skipped by the kernel", runs);
		wrap_text(&w, buf);
		for (i = 0; i < s->nr && i < BD_MAX_SKIPS; i++) {
			const struct breakdown_skip *k = &s->prog[i];
			size_t l;

			l = snprintf(buf, sizeof(buf), "%s%s", i ? "" : "(",
				     k->prog);
			if (k->recursion && l < sizeof(buf))
				l += snprintf(buf + l, sizeof(buf) - l,
					      " recursion %" PRIu64,
					      k->recursion);
			if (k->missed && l < sizeof(buf))
				l += snprintf(buf + l, sizeof(buf) - l,
					      " kprobe-missed %" PRIu64,
					      k->missed);
			if (l < sizeof(buf))
				snprintf(buf + l, sizeof(buf) - l, "%s",
					 i + 1 < s->nr ? "," : "):");
			wrap_text(&w, buf);
		}
		wrap_text(&w, "the kernel runs no program while that program is running on the CPU already (a run preempted inside it), no classic tracepoint or kprobe program while any other is, no kprobe inside another");
		wrap_end(&w);
		for (i = 0; i < s->nr && i < BD_MAX_SKIPS; i++) {
			snprintf(buf, sizeof(buf), "%s:", s->prog[i].prog);
			wrap_text(&w, buf);
			wrap_text(&w, consequence(breakdown_prog_affects(
						s->prog[i].prog)));
			wrap_end(&w);
		}
	}
	if (s->reader_syscalls) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " of the reader's syscalls lost their start or end to a skipped run: reads missing, or merged with the next",
			 s->reader_syscalls);
		wrap_text(&w, buf);
		wrap_end(&w);
	} else if (syscalls) {
		wrap_text(&w, "none of the skipped syscalls was the reader's");
		wrap_end(&w);
	}
	if (!s->counted) {
		wrap_text(&w, "skipped runs of classic tracepoint and kprobe programs: this kernel does not count them (v6.7+ does)");
		wrap_end(&w);
	}
}
