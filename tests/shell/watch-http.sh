#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 29: watch's HTTP endpoint takes what a network can send it. After
# a warm-up (20 scrapes, 100 concurrent), its RSS is taken; then:
# - GET /metrics is the page (text format 0.0.4), promtool finds it
#   valid where promtool is installed; another path is 404, POST and HEAD
#   are 405 with Allow: GET;
# - a malformed request line, an oversized one (100 KiB) and oversized
#   headers get an error or a closed connection, never a page;
# - a client that sends a request and never reads, one that pipelines a
#   thousand and never reads, and one that never finishes its request
#   stay connected while others are served;
# - 100 concurrent scrapers, three times over, each get the whole page;
# and after all that it still serves, its RSS within 1 MiB of the
# baseline, and SIGINT stops it with nothing left in the kernel.
. tests/shell/lib.sh
. tests/shell/live-lib.sh
[ "$(id -u)" -eq 0 ] || skip "loading BPF programs needs root"
[ -d /sys/kernel/tracing/events/cgroup/cgroup_rstat_unlock ] ||
	skip "no cgroup_rstat_unlock tracepoint (v6.10+)"
command -v python3 >/dev/null || skip "python3 is not installed"

# The unsanitized build: ASan's allocator would make RSS mean little.
bin=${RS_PLAIN_BIN:-$PWD/rstat-analyze}
[ -x "$bin" ] || fail "no $bin: run make"
"$bin" watch --listen 127.0.0.1:0 --interval 0.2 2>"$TMP/err" &
wpid=$!
trap 'kill -KILL $wpid 2>/dev/null; wait; rm -rf "$TMP"' EXIT
port=$(watch_port "$TMP/err" $wpid)
[ -n "$port" ] || {
	# Only a build without it: a library that does not load fails.
	grep -q "built without libmicrohttpd" "$TMP/err" &&
		skip "built without libmicrohttpd: $(cat "$TMP/err")"
	fail "watch did not start: $(cat "$TMP/err")"
}
bpf_objects $wpid >"$TMP/objs"

python3 - "$port" "$wpid" <<'PY' || fail "the endpoint did not hold"
import socket, sys, threading, time
port, pid = int(sys.argv[1]), int(sys.argv[2])

def rss_kb():
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def talk(raw, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw)
    except (BrokenPipeError, ConnectionResetError):
        pass
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    return data

def get(path="/metrics", method="GET"):
    return talk(("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                 % (method, path)).encode())

def status(resp):
    line = resp.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 else None

def body(resp):
    return resp.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in resp else b""

def good_page(resp):
    b = body(resp)
    return (status(resp) == 200 and b.startswith(b"# HELP ") and
            b.rstrip().split(b"\n")[-1].startswith(b"rstat_exporter_"))

def burst(n):
    ok = [0] * n
    def one(i):
        for _ in range(5):		# a refused connection may retry
            try:
                if good_page(get()):
                    ok[i] = 1
                    return
            except OSError:
                time.sleep(0.05)
    ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(ok)

# Warm-up, then the baseline.
for _ in range(20):
    assert good_page(get())
assert burst(100) == 100
time.sleep(0.5)
base = rss_kb()

r = get()
assert good_page(r), r[:300]
assert b"Content-Type: text/plain; version=0.0.4" in r, r[:300]
r = get("/nope")
assert status(r) == 404, r[:200]
for m in ("POST", "HEAD", "PUT", "DELETE"):
    r = get(method=m)
    assert status(r) == 405, (m, r[:200])
    assert b"Allow: GET" in r, (m, r[:300])

# Malformed and oversized: an error or a closed connection, no page.
bad = [b"GARBAGE\r\n\r\n", b"\x00\xff\xfe\r\n\r\n",
       b"GET /metrics\r\n\r\n" * 1,
       b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
       b"GET /metrics HTTP/1.1\r\n" + b"X-Pad: " + b"b" * 60000 +
       b"\r\n\r\n"]
for raw in bad:
    r = talk(raw)
    assert not good_page(r), (raw[:40], r[:200])
    print("%r... -> %s" % (raw[:20], r.split(b"\r\n", 1)[0][:60] or
                           b"closed"))

# Clients that never read or never finish, kept open meanwhile.
idle = []
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
idle.append(s)
s = socket.create_connection(("127.0.0.1", port))
s.setblocking(False)
try:
    for _ in range(1000):
        s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
except (BlockingIOError, BrokenPipeError, ConnectionResetError):
    # Full buffers, or the server hung up on a client that never reads:
    # both are the server holding up.
    pass
idle.append(s)
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
idle.append(s)
for _ in range(3):
    assert burst(100) == 100, "100 concurrent scrapers"
for s in idle:
    s.close()
time.sleep(1)
for _ in range(20):
    assert good_page(get())
after = rss_kb()
print("RSS %d kB at the baseline, %d kB after" % (base, after))
assert after - base <= 1024, (base, after)
PY
kill -0 $wpid 2>/dev/null || fail "watch died"
kill -INT $wpid
wait $wpid || fail "watch exited $? on SIGINT: $(cat "$TMP/err")"
left=$(bpf_objects_left "$TMP/objs")
[ -z "$left" ] || fail "BPF objects left after SIGINT: $left"
exit 0
