// SPDX-License-Identifier: GPL-2.0
/*
 * gnuplot scripts and running gnuplot on them (include/gnuplot.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"
#include "json.h"
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

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

/*
 * The length of the UTF-8 character at p, 0 for invalid UTF-8; *shown
 * false for one an image may not show: C1 controls and U+FFFE/U+FFFF
 * (which an SVG, being XML, cannot hold).
 */
static int utf8_char(const unsigned char *p, bool *shown)
{
	/* p is NUL-terminated: the continuation check stops at the NUL. */
	int n = json__utf8_len(p, 4);

	*shown = !(n == 2 && p[0] == 0xc2 && p[1] < 0xa0) &&
		 !(n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
	return n;
}

/*
 * s as a gnuplot string expression. gnuplot substitutes `commands` in
 * double-quoted strings and expands @macros outside strings; inside
 * single quotes it does neither and knows no escape but '' (checked with
 * gnuplot 5.4). A raw line break would end the command, so what cannot
 * go in a single-quoted literal is joined on as a double-quoted one of
 * escapes only: "\n" for a label's line break, "\ooo" for each byte of
 * an exact path; a label's other such characters become U+FFFD.
 */
static void put_string(FILE *out, const char *s, bool exact)
{
	const unsigned char *p = (const unsigned char *)s;
	bool shown, octal = false;
	int n;

	fputc('\'', out);
	while (*p) {
		if (*p >= 0x80) {
			n = utf8_char(p, &shown);
			shown &= n > 0;
		} else {
			n = 1;
			shown = (*p >= 0x20 || *p == '\t') && *p != 0x7f;
		}
		if (!n)
			n = 1;
		if (octal && (shown || !exact)) {
			fputs("\" . '", out);
			octal = false;
		}
		if (shown) {
			if (*p == '\'')
				fputc('\'', out);
			fwrite(p, 1, n, out);
		} else if (exact) {
			if (!octal)
				fputs("' . \"", out);
			octal = true;
			while (n--)
				fprintf(out, "\\%03o", *p++);
			continue;
		} else if (*p == '\n') {
			fputs("' . \"\\n\" . '", out);
		} else {
			/* One U+FFFD per character, or per invalid byte. */
			fputs(REPLACEMENT, out);
		}
		p += n;
	}
	if (octal)
		fputs("\" . '", out);
	fputc('\'', out);
}

void gnuplot__string(FILE *out, const char *s)
{
	put_string(out, s, false);
}

void gnuplot__path(FILE *out, const char *s)
{
	put_string(out, s, true);
}

void gnuplot__comment_text(FILE *out, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
}

int gnuplot__preamble(FILE *gp, enum gnuplot_term term, unsigned int width,
		      unsigned int height, const char *image,
		      const char *title)
{
	fputs("set encoding utf8\n", gp);
	fprintf(gp, "set terminal %s noenhanced size %u,%u\n",
		term == GNUPLOT_PNG ? "pngcairo" : "svg", width, height);
	/* No argument: gnuplot's standard output, our pipe. */
	fputs("if (exists(\"rs_stdout\")) { set output } else { set output ",
	      gp);
	gnuplot__path(gp, image);
	fputs(" }\n", gp);
	if (title) {
		fputs("set title ", gp);
		gnuplot__string(gp, title);
		fputc('\n', gp);
	}
	return ferror(gp) ? -EIO : 0;
}

int gnuplot__datablock_check(const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	size_t n;

	/*
	 * gnuplot ends the block at the first line that starts with "EOD"
	 * (a prefix match); the writers' lines start with a number, a
	 * quote or '#', never a capital. Checked here all the same, with
	 * no line that could continue onto the next either.
	 */
	if (len && data[len - 1] != '\n')
		return -EINVAL;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		n = nl - p;
		if ((n && ((*p >= 'A' && *p <= 'Z') || *p == '$')) ||
		    memchr(p, '\r', n) || (n && p[n - 1] == '\\'))
			return -EINVAL;
	}
	return 0;
}

/* The line of gnuplot's stderr worth showing, without its newline. */
static void pick_error_line(const char *text, char *errbuf, size_t errlen)
{
	static const char stdin_name[] = "\"/dev/stdin\" ";
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
	/* The script came over our pipe: its line numbers are the .gp's. */
	if (len >= sizeof(stdin_name) - 1 &&
	    !memcmp(line, stdin_name, sizeof(stdin_name) - 1)) {
		line += sizeof(stdin_name) - 1;
		len -= sizeof(stdin_name) - 1;
	}
	snprintf(errbuf, errlen, "%.*s", (int)len, line);
}

/* Who gnuplot runs as. */
struct gp_cred {
	bool drop;	/* we are root: become uid:gid, without groups */
	uid_t uid;
	gid_t gid;
};

/* What the child reports when it cannot exec gnuplot. */
struct gp_fail {
	int exec;	/* 1: execvpe() failed; 0: setting up before it */
	int err;
};

/* nobody, or 65534 where the system has no such user. */
static void pick_cred(struct gp_cred *c)
{
	struct passwd *pw;

	c->drop = geteuid() == 0;
	c->uid = 65534;
	c->gid = 65534;
	if (!c->drop)
		return;
	pw = getpwnam("nobody");
	if (pw && pw->pw_uid) {
		c->uid = pw->pw_uid;
		c->gid = pw->pw_gid;
	}
}

static void child(const struct gp_cred *c, int in_fd, int out_fd, int err_fd,
		  int status_fd)
{
	/*
	 * -d: no ~/.gnuplot or other init file; the script is the pipe on
	 * stdin, read by a name that is this process's own descriptor (so
	 * that gnuplot's messages say "line N"); rs_stdout sends the
	 * image to stdout (gnuplot__preamble()).
	 */
	static char *const argv[] = {
		"gnuplot", "-d", "-e", "rs_stdout = 1", "/dev/stdin", NULL,
	};
	static char *const envp[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=/nonexistent",
		"LC_ALL=C.UTF-8",
		NULL,
	};
	struct gp_fail f = { 0, 0 };

	if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(err_fd, STDERR_FILENO) < 0)
		goto fail;
	/* A pipe that was made as 0, 1 or 2 (ours closed) keeps its flag. */
	fcntl(STDIN_FILENO, F_SETFD, 0);
	fcntl(STDOUT_FILENO, F_SETFD, 0);
	fcntl(STDERR_FILENO, F_SETFD, 0);
	signal(SIGPIPE, SIG_DFL);
	if (c->drop) {
		/*
		 * gnuplot opens /dev/stdin anew, which checks the pipe's
		 * owner: give it the pipe (ours alone until now).
		 */
		if (fchown(STDIN_FILENO, c->uid, c->gid) ||
		    setgroups(0, NULL) ||
		    setresgid(c->gid, c->gid, c->gid) ||
		    setresuid(c->uid, c->uid, c->uid))
			goto fail;
		/* No way back: a kernel that let it would be wrong. */
		if (!setuid(0)) {
			errno = EPERM;
			goto fail;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	/* Nothing of ours but the three pipes: status_fd closes on exec. */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	f.exec = 1;
	execvpe(argv[0], argv, envp);
fail:
	f.err = errno;
	if (write(status_fd, &f, sizeof(f)) < 0)
		_exit(127);
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The pipes between us and gnuplot, and what went through them. */
struct gp_io {
	int in, out, err;		/* our ends, -1 once closed */
	const struct iovec *script;	/* what is left to write */
	int nr;
	size_t off;			/* into script[0] */
	FILE *image;
	size_t image_bytes;
	bool image_failed;
	char *text;			/* the start of gnuplot's stderr */
	size_t text_len, text_cap;
};

static void feed_script(struct gp_io *io)
{
	size_t n;
	ssize_t w;

	while (io->nr && io->off == io->script->iov_len) {
		io->script++;
		io->nr--;
		io->off = 0;
	}
	if (!io->nr) {
		close_fd(&io->in);
		return;
	}
	n = io->script->iov_len - io->off;
	if (n > 65536)
		n = 65536;
	w = write(io->in, (const char *)io->script->iov_base + io->off, n);
	if (w < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		/* EPIPE: gnuplot stopped reading; its status says why. */
		close_fd(&io->in);
		return;
	}
	io->off += w;
}

static int take_image(struct gp_io *io)
{
	char buf[65536];
	ssize_t n = read(io->out, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close_fd(&io->out);
		return 0;
	}
	io->image_bytes += n;
	/* After a failed write, drain gnuplot so that it can finish. */
	if (!io->image_failed && fwrite(buf, 1, n, io->image) != (size_t)n)
		io->image_failed = true;
	return 0;
}

static int take_stderr(struct gp_io *io)
{
	char buf[4096];
	ssize_t n = read(io->err, buf, sizeof(buf));
	size_t keep;
	char *t;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close_fd(&io->err);
		return 0;
	}
	/* Only the start matters; keep reading but not storing. */
	keep = io->text_len < 65536 ? (size_t)n : 0;
	if (io->text_len + keep + 1 > io->text_cap) {
		t = realloc(io->text, io->text_len + keep + 1 + 4096);
		if (!t)
			return -ENOMEM;
		io->text = t;
		io->text_cap = io->text_len + keep + 1 + 4096;
	}
	memcpy(io->text + io->text_len, buf, keep);
	io->text_len += keep;
	io->text[io->text_len] = '\0';
	return 0;
}

/*
 * Feed the script and take the image and the messages at once, until
 * gnuplot closes both of its outputs: any of the three pipes may fill.
 */
static int exchange(struct gp_io *io)
{
	struct pollfd pfd[3];
	int ret = 0;

	while (io->out >= 0 || io->err >= 0) {
		pfd[0] = (struct pollfd){ .fd = io->in, .events = POLLOUT };
		pfd[1] = (struct pollfd){ .fd = io->out, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = io->err, .events = POLLIN };
		if (poll(pfd, 3, -1) < 0) {
			/* A stop signal: plot waits for gnuplot to end. */
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (pfd[0].revents)
			feed_script(io);
		if (pfd[1].revents && !ret)
			ret = take_image(io);
		if (pfd[2].revents && !ret)
			ret = take_stderr(io);
		if (ret)
			break;
	}
	close_fd(&io->in);
	close_fd(&io->out);
	close_fd(&io->err);
	return ret;
}

int gnuplot__run(const struct iovec *script, int nr, FILE *image,
		 char *errbuf, size_t errlen)
{
	int in_pipe[2] = { -1, -1 }, out_pipe[2] = { -1, -1 };
	int err_pipe[2] = { -1, -1 }, status_pipe[2] = { -1, -1 };
	struct gp_io io = { .in = -1, .out = -1, .err = -1 };
	struct gp_fail f = { 0, 0 };
	struct gp_cred cred;
	int wstatus = 0, ret = 0;
	ssize_t n;
	pid_t pid;

	if (errlen)
		errbuf[0] = '\0';
	pick_cred(&cred);
	if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) ||
	    pipe2(err_pipe, O_CLOEXEC) || pipe2(status_pipe, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0)
		child(&cred, in_pipe[0], out_pipe[1], err_pipe[1],
		      status_pipe[1]);
	close_fd(&in_pipe[0]);
	close_fd(&out_pipe[1]);
	close_fd(&err_pipe[1]);
	close_fd(&status_pipe[1]);
	io.in = in_pipe[1];
	io.out = out_pipe[0];
	io.err = err_pipe[0];
	in_pipe[1] = out_pipe[0] = err_pipe[0] = -1;
	io.script = script;
	io.nr = nr;
	io.image = image;
	fcntl(io.in, F_SETFL, O_NONBLOCK);
	ret = exchange(&io);

	do {
		n = read(status_pipe[0], &f, sizeof(f));
	} while (n < 0 && errno == EINTR);
	if (n != sizeof(f))
		f.err = 0;
	while (waitpid(pid, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			if (!ret)
				ret = -errno;
			break;
		}
	}
	if (ret)
		goto out;
	if (f.err) {
		/* Not found, or found where nobody may not run it. */
		if (f.exec && (f.err == ENOENT ||
			       (f.err == EACCES && cred.drop))) {
			ret = -f.err;
			goto out;
		}
		ret = f.err == ENOENT || f.err == EACCES ? -EPERM : -f.err;
		if (!f.exec && cred.drop)
			snprintf(errbuf, errlen, "cannot become uid %u gid %u (nobody) for it: %s",
				 (unsigned int)cred.uid,
				 (unsigned int)cred.gid, strerror(f.err));
		else
			snprintf(errbuf, errlen, "%s", strerror(f.err));
		goto out;
	}
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		if (WIFSIGNALED(wstatus) && !io.text_len)
			snprintf(errbuf, errlen, "gnuplot killed by signal %d",
				 WTERMSIG(wstatus));
		else
			pick_error_line(io.text ? io.text : "", errbuf, errlen);
		ret = -EIO;
	} else if (!io.image_bytes) {
		snprintf(errbuf, errlen, "gnuplot exited 0 without writing an image");
		ret = -EIO;
	}
out:
	close_fd(&in_pipe[0]);
	close_fd(&in_pipe[1]);
	close_fd(&out_pipe[0]);
	close_fd(&out_pipe[1]);
	close_fd(&err_pipe[0]);
	close_fd(&err_pipe[1]);
	close_fd(&status_pipe[0]);
	close_fd(&status_pipe[1]);
	free(io.text);
	return ret;
}
