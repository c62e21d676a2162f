// SPDX-License-Identifier: GPL-2.0
/*
 * GET /metrics over libmicrohttpd (include/metrics-http.h).
 *
 * Built without libmicrohttpd (no libmicrohttpd-dev at build time) every
 * entry point still exists and start says so.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-http.h"
#include "util.h"

#ifdef RS_HAVE_MHD
#include <microhttpd.h>

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

bool metrics_http__built(void)
{
	return true;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *body, bool allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
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
	ret = r ? MHD_queue_response(conn, MHD_HTTP_OK, r) : MHD_NO;
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
	h = calloc(1, sizeof(*h));
	if (!h) {
		errbuf_set(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	if (o->addr->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
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

	i = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
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
	r = MHD_create_response_from_buffer(len, copy, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(copy);
		return -ENOMEM;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    CONTENT_TYPE) == MHD_NO) {
		MHD_destroy_response(r);
		return -ENOMEM;
	}
	pthread_mutex_lock(&h->lock);
	old = h->resp;
	h->resp = r;
	pthread_mutex_unlock(&h->lock);
	/* Connections still sending it hold their own reference. */
	if (old)
		MHD_destroy_response(old);
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
	MHD_stop_daemon(h->d);
	if (h->resp)
		MHD_destroy_response(h->resp);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

#else /* !RS_HAVE_MHD */

bool metrics_http__built(void)
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
