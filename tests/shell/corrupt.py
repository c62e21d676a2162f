#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write corrupted copies of a file-layout perf.data, one per kind of damage
the reader must refuse with a clear message (never a crash or a hang).

usage: corrupt.py INPUT OUTDIR
Prints one line per file: NAME OFFSET, where OFFSET is the file offset the
error message must name ("-" when the offset is not pinned down).
"""
import os
import struct
import sys

src, outdir = sys.argv[1], sys.argv[2]
os.makedirs(outdir, exist_ok=True)
data = bytearray(open(src, "rb").read())
magic, hsize, attr_size = struct.unpack_from("<8sQQ", data, 0)
assert magic == b"PERFILE2", "needs a file-layout perf.data"
attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQ", data, 24)
sample_type = struct.unpack_from("<Q", data, attrs_off + 24)[0]
PERF_RECORD_SAMPLE = 9
SAMPLE_CALLCHAIN = 1 << 5


def records():
    off = data_off
    while off < data_off + data_size:
        typ, misc, size = struct.unpack_from("<IHH", data, off)
        yield off, typ, size
        if size == 0:
            return
        off += size


def first_sample():
    for off, typ, size in records():
        if typ == PERF_RECORD_SAMPLE:
            return off, size
    raise SystemExit("no sample")


def callchain_offset(off):
    # Fields before the callchain in kernel order, for the first attr.
    pos = off + 8
    order = [(1 << 16, 8), (1 << 0, 8), (1 << 1, 8), (1 << 2, 8),
             (1 << 3, 8), (1 << 6, 8), (1 << 9, 8), (1 << 7, 8),
             (1 << 8, 8)]
    for bit, size in order:
        if sample_type & bit:
            pos += size
    assert not sample_type & (1 << 4), "READ not handled here"
    return pos


def write(name, buf, offset):
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(buf)
    print(name, offset)


# Truncated in the middle of a record.
s_off, s_size = first_sample()
write("truncated.data", data[: s_off + 12], "-")
# Truncated inside the header.
write("short-header.data", data[:60], "-")
# Wrong magic.
bad = bytearray(data)
bad[0:8] = b"PERFXXXX"
write("bad-magic.data", bad, 0)
# attr_size 0.
bad = bytearray(data)
struct.pack_into("<Q", bad, 16, 0)
write("attr-size-zero.data", bad, "-")
# Data section beyond the end of the file.
bad = bytearray(data)
struct.pack_into("<Q", bad, 48, len(data) * 4)
write("data-beyond-file.data", bad, "-")
# A record of size 0 (would loop forever if not caught).
bad = bytearray(data)
struct.pack_into("<H", bad, s_off + 6, 0)
write("record-size-zero.data", bad, s_off)
# A record claiming to run past the data section.
bad = bytearray(data)
last = None
for off, typ, size in records():
    last = off
struct.pack_into("<H", bad, last + 6, 0xfff8)
write("record-beyond-data.data", bad, last)
# A sample shorter than its sample_type needs.
bad = bytearray(data)
struct.pack_into("<H", bad, s_off + 6, 16)
bad[s_off + 16 : s_off + s_size] = b"\0" * (s_size - 16)
# Keep the stream walkable: the rest of the old record becomes a record of
# an unknown type that spans the same bytes.
struct.pack_into("<IHH", bad, s_off + 16, 0x7777, 0, s_size - 16)
write("sample-too-short.data", bad, s_off)
# A callchain longer than its record.
if sample_type & SAMPLE_CALLCHAIN:
    bad = bytearray(data)
    struct.pack_into("<Q", bad, callchain_offset(s_off), 1 << 40)
    write("callchain-too-long.data", bad, s_off)
