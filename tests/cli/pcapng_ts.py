#!/usr/bin/env python3
"""Write a pcapng holding a pcap's first frame, with an odd clock: the interface's
if_tsoffset (seconds, added to every stamp) and a 64-bit stamp given on the command line.
Usage: pcapng_ts.py IN.pcap OUT.pcapng TSOFFSET STAMP  (issue 22 D10)"""
import struct
import sys


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def option(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def main():
    src, dst, tsoffset, stamp = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 0)
    with open(src, "rb") as f:
        data = f.read()
    linktype = struct.unpack_from("<I", data, 20)[0]
    caplen, wirelen = struct.unpack_from("<II", data, 24 + 8)
    frame = data[40:40 + caplen]
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + option(0, b""))
    idb = block(1, struct.pack("<HHI", linktype, 0, 0) + option(14, struct.pack("<q", tsoffset)) + option(0, b""))
    epb = block(6, struct.pack("<IIIII", 0, stamp >> 32, stamp & 0xFFFFFFFF, caplen, wirelen) + frame)
    with open(dst, "wb") as f:
        f.write(shb + idb + epb)


main()
