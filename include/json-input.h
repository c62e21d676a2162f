/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inputs compare and plot share (src/output/json-input.c), read and
 * told apart in one place so that both accept the same things and word
 * the same errors alike: bench results (a results.json, or the directory
 * `bench -o` writes it into), report --json profiles and, for plot's
 * timeline, recordings.
 */
#ifndef RS_JSON_INPUT_H
#define RS_JSON_INPUT_H

#include <stddef.h>

#include "json-read.h"

/* Larger JSON inputs are refused (a recording need not be read whole). */
#define JSON_INPUT_MAX (64u << 20)

enum json_input_kind {
	JSON_INPUT_BENCH,	/* an object with "schema" */
	JSON_INPUT_PROFILE,	/* report --json: "attribution" or "spans" */
	JSON_INPUT_RECORDING,	/* perf.data, with JSON_INPUT_RECORDINGS */
};

/* Accept perf.data files too (not read: only their path is given). */
#define JSON_INPUT_RECORDINGS 1u

struct json_input {
	char *path;		/* the file: the argument, or DIR/results.json */
	enum json_input_kind kind;
	char *buf;		/* the JSON text, NUL-terminated; NULL else */
	size_t len;
	struct jv doc;		/* its tree */
};

/*
 * Read arg (a file, or a directory holding results.json) and tell what it
 * is. 0, or -errno with one message in err ("PATH: what is wrong", no
 * line break, never cut by a NUL of the input): missing, unreadable, too
 * large, a NUL byte, a JSON syntax error ("PATH: line N: what"), JSON of
 * another kind, the error object of a failed report --json, a recording
 * where none is accepted, or other text. -ENOMEM without a message.
 */
int json_input__load(struct json_input *in, const char *arg,
		     unsigned int flags, char *err, size_t errlen);
/*
 * The same for len bytes already in memory, called name in messages (the
 * fuzz targets' way in): JSON only, never a recording.
 */
int json_input__load_mem(struct json_input *in, const char *name,
			 const char *buf, size_t len, char *err,
			 size_t errlen);
void json_input__release(struct json_input *in);

/*
 * The folder a multi-kernel `bench --kernel A --kernel B -o DIR` writes:
 * no DIR/results.json, a DIR/<uname -r>/results.json per kernel. Sets
 * *paths to those files (malloc'ed, each "DIR/<release>/results.json",
 * in version order: strverscmp() of the releases) and *n to their
 * number; *n is 0 (and *paths NULL) when dir is no such folder (a file,
 * a directory with results.json, none below it). Entries that are
 * symbolic links or start with '.' are not followed. 0, or -errno.
 * json_input__free_paths() frees them.
 */
int json_input__kernel_results(const char *dir, char ***paths, size_t *n);
void json_input__free_paths(char **paths, size_t n);

#endif
