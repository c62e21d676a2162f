/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP endpoint watch serves its metrics on (src/live/metrics-http.c),
 * on Debian's libmicrohttpd: one internal polling thread, GET /metrics
 * and nothing else (404 for another path, 405 with Allow: GET for another
 * method, HEAD included), no input read beyond the request line (headers
 * are parsed by the library and never looked at, a body is never read),
 * bounded request size, connection count and idle time.
 *
 * The text served is the last one published: the caller renders it and
 * hands it over; a scrape only copies it, so scrapers never touch the
 * BPF maps and cost the same however many come.
 */
#ifndef RS_METRICS_HTTP_H
#define RS_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct metrics_http_opts {
	const struct sockaddr *addr;	/* where to listen (v4 or v6) */
	socklen_t addrlen;
	unsigned int max_connections;	/* 0: 64 */
	size_t max_request;		/* line + headers; 0: 8 KiB */
	unsigned int timeout_s;		/* idle ones closed; 0: 10 */
};

struct metrics_http_stats {
	uint64_t ok, not_found, bad_method;
};

struct metrics_http;

/*
 * Whether the tool was built with libmicrohttpd and the library loads
 * (the first call loads it; start then says why it did not).
 */
bool metrics_http__available(void);

/*
 * Bind and start serving (an empty text until the first publish). 0 or
 * -errno with one line in errbuf (-EADDRINUSE, -EACCES, -EOPNOTSUPP when
 * built without libmicrohttpd, -ELIBACC when it does not load).
 */
int metrics_http__start(const struct metrics_http_opts *o,
			struct metrics_http **out, char *errbuf, size_t errlen);

/* The port listened on (the one the kernel chose for port 0); -1. */
int metrics_http__port(struct metrics_http *h);

/* Serve text (copied) from now on. 0 or -ENOMEM (the old text stays). */
int metrics_http__publish(struct metrics_http *h, const char *text,
			  size_t len);

void metrics_http__stats(struct metrics_http *h,
			 struct metrics_http_stats *st);

/* Close the socket and every connection; NULL is fine. */
void metrics_http__stop(struct metrics_http *h);

#endif
