// SPDX-License-Identifier: GPL-2.0
/*
 * gnuplot scripts and running gnuplot on them (include/gnuplot.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"
#include "util.h"

static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');

	if (!dot || (slash && dot < slash) || dot == path ||
	    (slash && dot == slash + 1))
		return NULL;
	return dot;
}

int gnuplot__term_for(const char *image, enum gnuplot_term *term)
{
	const char *ext = extension(image);

	if (ext && !strcasecmp(ext, ".png")) {
		*term = GNUPLOT_PNG;
		return 0;
	}
	if (ext && !strcasecmp(ext, ".svg")) {
		*term = GNUPLOT_SVG;
		return 0;
	}
	return -EINVAL;
}

char *gnuplot__companion(const char *image, const char *ext)
{
	char *s;

	/*
	 * The whole image name: x.svg and x.png of the same data each keep
	 * their own script and data (x.svg.gp, x.png.gp), where a shared
	 * x.gp was overwritten by the second.
	 */
	if (asprintf(&s, "%s%s", image, ext) < 0)
		return NULL;
	return s;
}

void gnuplot__quote(FILE *out, const char *s)
{
	const unsigned char *p;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		if (fput_backslash_escape(out, *p))
			continue;
		/*
		 * gnuplot reads \ooo in double-quoted strings; a raw control
		 * character (a CR) would end or corrupt the script line.
		 */
		if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

int gnuplot__preamble(FILE *gp, enum gnuplot_term term, unsigned int width,
		      unsigned int height, const char *image,
		      const char *title)
{
	fprintf(gp, "set terminal %s noenhanced size %u,%u\n",
		term == GNUPLOT_PNG ? "pngcairo" : "svg", width, height);
	fputs("set output (exists(\"rs_output\") ? rs_output : ", gp);
	gnuplot__quote(gp, image);
	fputs(")\n", gp);
	if (title) {
		fputs("set title ", gp);
		gnuplot__quote(gp, title);
		fputc('\n', gp);
	}
	return ferror(gp) ? -EIO : 0;
}

/* The line of gnuplot's stderr worth showing, without its newline. */
static void pick_error_line(const char *text, char *errbuf, size_t errlen)
{
	const char *line = NULL, *p, *end;
	size_t len;

	/* gnuplot echoes the bad command first; its message names the line. */
	for (p = text; *p; p = end + (*end == '\n')) {
		end = strchrnul(p, '\n');
		if (end == p)
			continue;
		if (!line)
			line = p;
		if (memmem(p, end - p, "line ", 5) &&
		    memchr(p, ':', end - p)) {
			line = p;
			break;
		}
	}
	if (!line) {
		snprintf(errbuf, errlen, "gnuplot failed and printed nothing");
		return;
	}
	len = strchrnul(line, '\n') - line;
	/* Leading blanks of the echoed command say nothing. */
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	snprintf(errbuf, errlen, "%.*s", (int)len, line);
}

static void child(const char *script, const char *set_output, int err_fd,
		  int status_fd)
{
	char *argv[] = { "gnuplot", (char *)script, NULL, NULL, NULL };
	int null_fd = open("/dev/null", O_RDWR);
	int e;

	if (set_output) {
		argv[1] = "-e";
		argv[2] = (char *)set_output;
		argv[3] = (char *)script;
	}
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		dup2(null_fd, STDOUT_FILENO);
	}
	dup2(err_fd, STDERR_FILENO);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	/* status_fd is close-on-exec: reaching here means exec failed. */
	e = errno;
	if (write(status_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* "rs_output = <output as a gnuplot string>", malloc()ed, or NULL. */
static char *set_output_cmd(const char *output)
{
	char *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);

	if (!f)
		return NULL;
	fputs("rs_output = ", f);
	gnuplot__quote(f, output);
	if (fclose(f)) {
		free(cmd);
		return NULL;
	}
	return cmd;
}

int gnuplot__run(const char *script, const char *output, char *errbuf,
		 size_t errlen)
{
	int err_pipe[2], status_pipe[2];
	char *text = NULL, *set_output = NULL;
	size_t len = 0, cap = 0;
	int exec_errno = 0, wstatus = 0, ret = 0;
	ssize_t n;
	pid_t pid;

	if (errlen)
		errbuf[0] = '\0';
	if (output && !(set_output = set_output_cmd(output)))
		return -ENOMEM;
	if (pipe2(err_pipe, O_CLOEXEC)) {
		free(set_output);
		return -errno;
	}
	if (pipe2(status_pipe, O_CLOEXEC)) {
		ret = -errno;
		close(err_pipe[0]);
		close(err_pipe[1]);
		free(set_output);
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(err_pipe[0]);
		close(err_pipe[1]);
		close(status_pipe[0]);
		close(status_pipe[1]);
		free(set_output);
		return ret;
	}
	if (pid == 0)
		child(script, set_output, err_pipe[1], status_pipe[1]);
	free(set_output);
	close(err_pipe[1]);
	close(status_pipe[1]);

	/* All of stderr, so that gnuplot never blocks on a full pipe. */
	for (;;) {
		if (len + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *t = realloc(text, ncap);

			if (!t) {
				ret = -ENOMEM;
				break;
			}
			text = t;
			cap = ncap;
		}
		n = read(err_pipe[0], text + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* Only the start matters; keep reading but not storing. */
		if (len < 65536)
			len += n;
	}
	if (text)
		text[len] = '\0';
	close(err_pipe[0]);
	do {
		n = read(status_pipe[0], &exec_errno, sizeof(exec_errno));
	} while (n < 0 && errno == EINTR);
	if (n != sizeof(exec_errno))
		exec_errno = 0;
	close(status_pipe[0]);
	while (waitpid(pid, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			if (!ret)
				ret = -errno;
			break;
		}
	}
	if (ret)
		goto out;
	if (exec_errno) {
		ret = exec_errno == ENOENT ? -ENOENT : -exec_errno;
		goto out;
	}
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		if (WIFSIGNALED(wstatus) && (!text || !*text))
			snprintf(errbuf, errlen, "gnuplot killed by signal %d",
				 WTERMSIG(wstatus));
		else
			pick_error_line(text ? text : "", errbuf, errlen);
		ret = -EIO;
	}
out:
	free(text);
	return ret;
}
