// SPDX-License-Identifier: GPL-2.0
/*
 * compare's and plot's inputs: one reader, one set of messages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-input.h"
#include "profile.h"
#include "session.h"

/* What the inputs may be, for the messages. */
static const char *accepted(unsigned int flags)
{
	return flags & JSON_INPUT_RECORDINGS ?
	       "neither bench results, report --json output nor a recording" :
	       "neither bench results nor report --json output";
}

/* ARG, or ARG/results.json for the directory `bench -o` writes. */
static int resolve(struct json_input *in, const char *arg, char *err,
		   size_t errlen)
{
	struct stat sb;

	if (stat(arg, &sb)) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", arg, strerror(e));
		return -e;
	}
	if (!S_ISDIR(sb.st_mode)) {
		in->path = strdup(arg);
		return in->path ? 0 : -ENOMEM;
	}
	if (asprintf(&in->path, "%s%sresults.json", arg,
		     arg[strlen(arg) - 1] == '/' ? "" : "/") < 0) {
		in->path = NULL;
		return -ENOMEM;
	}
	if (stat(in->path, &sb) || S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen,
			 "%s: a directory without results.json: give a directory `bench -o` wrote, bench results or report --json output",
			 arg);
		return -ENOENT;
	}
	return 0;
}

/* Up to JSON_INPUT_MAX + 1 bytes: enough to tell the limit was passed. */
static int read_all(struct json_input *in, char *err, size_t errlen)
{
	size_t cap = 0, got;
	char *nb;
	int fd, e;
	ssize_t n;

	fd = open(in->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", in->path, strerror(e));
		return -e;
	}
	for (got = 0; got <= JSON_INPUT_MAX;) {
		if (got + 1 >= cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > JSON_INPUT_MAX + 2)
				cap = JSON_INPUT_MAX + 2;
			nb = realloc(in->buf, cap);
			if (!nb) {
				close(fd);
				return -ENOMEM;
			}
			in->buf = nb;
		}
		n = read(fd, in->buf + got, cap - got - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			snprintf(err, errlen, "%s: %s", in->path, strerror(e));
			return -e;
		}
		if (!n)
			break;
		got += n;
		/* A recording is told by its magic: not read on (it may be GBs). */
		if (got >= 8 && got - n < 8 &&
		    session_kind__sniff(in->buf, got) == SESSION_PERF_DATA)
			break;
	}
	close(fd);
	if (!in->buf) {
		in->buf = malloc(1);
		if (!in->buf)
			return -ENOMEM;
	}
	in->len = got;
	in->buf[got] = '\0';
	return 0;
}

/* Tell what in->buf holds; on failure, in is released. */
static int classify(struct json_input *in, unsigned int flags, char *err,
		    size_t errlen)
{
	const struct jv *member;
	char msg[160];
	const char *nul;
	size_t i;
	int ret;

	if (session_kind__sniff(in->buf, in->len) ==
	    SESSION_PERF_DATA) {
		if (flags & JSON_INPUT_RECORDINGS) {
			free(in->buf);
			in->buf = NULL;
			in->len = 0;
			in->kind = JSON_INPUT_RECORDING;
			return 0;
		}
		snprintf(err, errlen,
			 "%s: a recording (perf.data): give `rstat-analyze report --json` output of it",
			 in->path);
		ret = -EINVAL;
		goto fail;
	}
	if (in->len > JSON_INPUT_MAX) {
		snprintf(err, errlen, "%s: over %u MiB: %s", in->path,
			 JSON_INPUT_MAX >> 20, accepted(flags));
		ret = -EFBIG;
		goto fail;
	}
	/* Messages quote the input: a NUL would cut them short. */
	nul = memchr(in->buf, '\0', in->len);
	if (nul) {
		snprintf(err, errlen, "%s: offset %zu: a NUL byte: not JSON; %s",
			 in->path, (size_t)(nul - in->buf), accepted(flags));
		ret = -EINVAL;
		goto fail;
	}
	for (i = 0; i < in->len && strchr(" \t\r\n", in->buf[i]); i++)
		;
	if (i == in->len || (in->buf[i] != '{' && in->buf[i] != '[')) {
		snprintf(err, errlen, "%s: %s: %s", in->path,
			 i == in->len ? "empty" : "not JSON", accepted(flags));
		ret = -EINVAL;
		goto fail;
	}
	ret = jv__parse(in->buf, in->len, &in->doc, msg, sizeof(msg));
	if (ret == -ENOMEM)
		goto fail;
	if (ret) {
		/* A syntax error is the whole story: where, and what. */
		snprintf(err, errlen, "%s: %s", in->path, msg);
		goto fail;
	}
	ret = -EINVAL;
	if (jv__type(&in->doc) != J_OBJ) {
		snprintf(err, errlen, "%s: a JSON array, not an object: %s",
			 in->path, accepted(flags));
		goto fail;
	}
	if (jv__get(&in->doc, "schema")) {
		in->kind = JSON_INPUT_BENCH;
		return 0;
	}
	member = jv__get(&in->doc, "error");
	if (jv__type(member) == J_STR) {
		snprintf(err, errlen,
			 "%s: report failed when it was written: %s",
			 in->path, jv__string(member));
		goto fail;
	}
	if (jv__get(&in->doc, PROFILE_ATTRIBUTION) ||
	    jv__get(&in->doc, PROFILE_SPANS)) {
		in->kind = JSON_INPUT_PROFILE;
		return 0;
	}
	snprintf(err, errlen,
		 "%s: a JSON object without \"schema\" (bench results) or \"attribution\" (report --json output): %s",
		 in->path, accepted(flags));
fail:
	json_input__release(in);
	return ret;
}

int json_input__load(struct json_input *in, const char *arg,
		     unsigned int flags, char *err, size_t errlen)
{
	int ret;

	memset(in, 0, sizeof(*in));
	err[0] = '\0';
	ret = resolve(in, arg, err, errlen);
	if (!ret)
		ret = read_all(in, err, errlen);
	if (ret) {
		json_input__release(in);
		return ret;
	}
	return classify(in, flags, err, errlen);
}

int json_input__load_mem(struct json_input *in, const char *name,
			 const char *buf, size_t len, char *err,
			 size_t errlen)
{
	memset(in, 0, sizeof(*in));
	err[0] = '\0';
	in->path = strdup(name);
	in->buf = malloc(len + 1);
	if (!in->path || !in->buf) {
		json_input__release(in);
		return -ENOMEM;
	}
	memcpy(in->buf, buf, len);
	in->buf[len] = '\0';
	in->len = len;
	return classify(in, 0, err, errlen);
}

void json_input__release(struct json_input *in)
{
	jv__free(&in->doc);
	free(in->buf);
	free(in->path);
	memset(in, 0, sizeof(*in));
}

void json_input__free_paths(char **paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

static int cmp_release(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Does sub (a directory of dfd, no link) hold a regular results.json? */
static bool holds_results(int dfd, const char *sub)
{
	struct stat sb;
	bool ok;
	int fd;

	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = !fstatat(fd, "results.json", &sb, AT_SYMLINK_NOFOLLOW) &&
	     S_ISREG(sb.st_mode);
	close(fd);
	return ok;
}

int json_input__kernel_results(const char *dir, char ***paths, size_t *n)
{
	char **names = NULL, **nn, *path;
	size_t nr = 0, i;
	struct dirent *de;
	struct stat sb;
	int fd, err = 0;
	DIR *d;

	*paths = NULL;
	*n = 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR || errno == ENOENT ? 0 : -errno;
	if (!fstatat(fd, "results.json", &sb, 0)) {
		close(fd);
		return 0;
	}
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    fstatat(fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(sb.st_mode) || !holds_results(fd, de->d_name))
			continue;
		nn = realloc(names, (nr + 1) * sizeof(*names));
		if (!nn || !(nn[nr] = strdup(de->d_name))) {
			names = nn ? nn : names;
			err = -ENOMEM;
			break;
		}
		names = nn;
		nr++;
	}
	closedir(d);
	if (!err && nr)
		qsort(names, nr, sizeof(*names), cmp_release);
	for (i = 0; !err && i < nr; i++) {
		if (asprintf(&path, "%s%s%s/results.json", dir,
			     dir[strlen(dir) - 1] == '/' ? "" : "/",
			     names[i]) < 0) {
			err = -ENOMEM;
			break;
		}
		free(names[i]);
		names[i] = path;
	}
	if (err) {
		json_input__free_paths(names, nr);
		return err;
	}
	*paths = names;
	*n = nr;
	return 0;
}
