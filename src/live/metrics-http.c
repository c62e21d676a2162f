// SPDX-License-Identifier: GPL-2.0
/*
 * GET /metrics over libmicrohttpd (include/metrics-http.h).
 *
 * Built without libmicrohttpd (no libmicrohttpd-dev at build time) every
 * entry point still exists and start says so.
 *
 * The library is opened when the endpoint starts, not linked: it brings
 * gnutls and eight more libraries, whose loading and constructors cost
 * every command 1.2 ms at its start (a third of `--version`), for the one
 * that serves HTTP.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-http.h"
#include "util.h"

#ifdef RS_HAVE_MHD
#include <microhttpd.h>

#ifndef RS_MHD_SONAME
#define RS_MHD_SONAME "libmicrohttpd.so.12"
#endif

/* The library's entry points, typed by its header. */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_create_response_from_buffer) *response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	char err[160];		/* why it could not be opened */
} mhd;

static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;

static void *mhd_sym(void *lib, const char *name, bool *ok)
{
	void *p = dlsym(lib, name);

	if (!p && *ok) {
		snprintf(mhd.err, sizeof(mhd.err), "%s has no %s",
			 RS_MHD_SONAME, name);
		*ok = false;
	}
	return p;
}

/* Kept open to the end: the daemon's thread runs its code. */
static void mhd_open(void)
{
	void *lib = dlopen(RS_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	bool ok = true;

	if (!lib) {
		snprintf(mhd.err, sizeof(mhd.err),
			 "cannot load %s (install libmicrohttpd12): %s",
			 RS_MHD_SONAME, dlerror());
		return;
	}
	mhd.start_daemon = mhd_sym(lib, "MHD_start_daemon", &ok);
	mhd.stop_daemon = mhd_sym(lib, "MHD_stop_daemon", &ok);
	mhd.get_daemon_info = mhd_sym(lib, "MHD_get_daemon_info", &ok);
	mhd.response_from_buffer = mhd_sym(lib,
					   "MHD_create_response_from_buffer",
					   &ok);
	mhd.add_response_header = mhd_sym(lib, "MHD_add_response_header",
					  &ok);
	mhd.queue_response = mhd_sym(lib, "MHD_queue_response", &ok);
	mhd.destroy_response = mhd_sym(lib, "MHD_destroy_response", &ok);
	if (!ok) {
		mhd.start_daemon = NULL;
		dlclose(lib);
	}
}

/* Version 0.0.4 of the text format, as Prometheus asks for it. */
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;	/* resp, stats */
	/*
	 * The page, as one response every scrape queues: the library counts
	 * its references, so it is never copied per connection and goes
	 * when the last connection sending it is done.
	 */
	struct MHD_Response *resp;
	struct metrics_http_stats st;
};

bool metrics_http__available(void)
{
	pthread_once(&mhd_once, mhd_open);
	return mhd.start_daemon != NULL;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *body, bool allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd.response_from_buffer(strlen(body), (void *)body,
				     MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (allow)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	ret = mhd.queue_response(conn, code, r);
	mhd.destroy_response(r);
	return ret;
}

/*
 * Only the method and the path are looked at. The answer is queued on the
 * first call, before any body: the library then closes the connection
 * rather than read what the client sends after its headers.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct metrics_http *h = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (strcmp(method, MHD_HTTP_METHOD_GET)) {
		pthread_mutex_lock(&h->lock);
		h->st.bad_method++;
		pthread_mutex_unlock(&h->lock);
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
			     "only GET /metrics\n", true);
	}
	if (strcmp(url, "/metrics")) {
		pthread_mutex_lock(&h->lock);
		h->st.not_found++;
		pthread_mutex_unlock(&h->lock);
		return reply(conn, MHD_HTTP_NOT_FOUND, "only GET /metrics\n",
			     false);
	}
	pthread_mutex_lock(&h->lock);
	h->st.ok++;
	r = h->resp;
	/* Under the lock: publish cannot drop it meanwhile. */
	ret = r ? mhd.queue_response(conn, MHD_HTTP_OK, r) : MHD_NO;
	pthread_mutex_unlock(&h->lock);
	return ret;
}

/* The library's own messages: a daemon's stderr is its log, keep quiet. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
}

int metrics_http__start(const struct metrics_http_opts *o,
			struct metrics_http **out, char *errbuf, size_t errlen)
{
	struct metrics_http *h;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
		MHD_USE_ERROR_LOG;
	int err;

	*out = NULL;
	pthread_once(&mhd_once, mhd_open);
	if (!mhd.start_daemon) {
		errbuf_set(errbuf, errlen, "%s", mhd.err);
		return -ELIBACC;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		errbuf_set(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	if (o->addr->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = mhd.start_daemon(flags, 0, NULL, NULL, on_request, h,
		MHD_OPTION_SOCK_ADDR, o->addr,
		MHD_OPTION_CONNECTION_LIMIT,
		o->max_connections ? o->max_connections : 64u,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		o->max_request ? o->max_request : (size_t)8192,
		MHD_OPTION_CONNECTION_TIMEOUT,
		o->timeout_s ? o->timeout_s : 10u,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_END);
	if (!h->d) {
		err = errno ? errno : EADDRNOTAVAIL;
		errbuf_set(errbuf, errlen, "cannot listen: %s", strerror(err));
		pthread_mutex_destroy(&h->lock);
		free(h);
		return -err;
	}
	*out = h;
	return 0;
}

int metrics_http__port(struct metrics_http *h)
{
	const union MHD_DaemonInfo *i;

	i = mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	return i ? i->port : -1;
}

int metrics_http__publish(struct metrics_http *h, const char *text,
			  size_t len)
{
	struct MHD_Response *r, *old;
	char *copy = malloc(len + 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	r = mhd.response_from_buffer(len, copy, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(copy);
		return -ENOMEM;
	}
	if (mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    CONTENT_TYPE) == MHD_NO) {
		mhd.destroy_response(r);
		return -ENOMEM;
	}
	pthread_mutex_lock(&h->lock);
	old = h->resp;
	h->resp = r;
	pthread_mutex_unlock(&h->lock);
	/* Connections still sending it hold their own reference. */
	if (old)
		mhd.destroy_response(old);
	return 0;
}

void metrics_http__stats(struct metrics_http *h, struct metrics_http_stats *st)
{
	pthread_mutex_lock(&h->lock);
	*st = h->st;
	pthread_mutex_unlock(&h->lock);
}

void metrics_http__stop(struct metrics_http *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->d);
	if (h->resp)
		mhd.destroy_response(h->resp);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

#else /* !RS_HAVE_MHD */

bool metrics_http__available(void)
{
	return false;
}

int metrics_http__start(const struct metrics_http_opts *o,
			struct metrics_http **out, char *errbuf, size_t errlen)
{
	*out = NULL;
	errbuf_set(errbuf, errlen,
		"built without libmicrohttpd (libmicrohttpd-dev was missing at build time; scripts/install-deps.sh installs it)");
	return -EOPNOTSUPP;
}

int metrics_http__port(struct metrics_http *h)
{
	return -1;
}

int metrics_http__publish(struct metrics_http *h, const char *text,
			  size_t len)
{
	return -EOPNOTSUPP;
}

void metrics_http__stats(struct metrics_http *h, struct metrics_http_stats *st)
{
	memset(st, 0, sizeof(*st));
}

void metrics_http__stop(struct metrics_http *h)
{
}

#endif /* RS_HAVE_MHD */
