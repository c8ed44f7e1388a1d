#!/usr/bin/python3
"""A pcapng of two interfaces with options mergecap does not set: Ethernet with if_tsresol 10^-9 and
if_tsoffset 100 s, Linux cooked with if_tsresol 2^-20; frames from two nanosecond pcaps, alternating.
Usage: mkpcapng.py ETH.pcap SLL.pcap OUT.pcapng"""
import struct, sys
def blk(t, body):
    body += b"\0" * ((4 - len(body) % 4) % 4)
    L = 12 + len(body)
    return struct.pack("<II", t, L) + body + struct.pack("<I", L)
def opt(code, val):
    return struct.pack("<HH", code, len(val)) + val + b"\0" * ((4 - len(val) % 4) % 4)
def pcap_frames(p):
    d = open(p, "rb").read(); o = 24; out = []
    while o < len(d):
        s, us, cl, wl = struct.unpack("<IIII", d[o:o+16]); out.append((s, us, d[o+16:o+16+cl], wl)); o += 16 + cl
    return out
shb = blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
idb0 = blk(1, struct.pack("<HHI", 1, 0, 0) + opt(9, b"\x09") + opt(14, struct.pack("<q", 100)) + opt(0, b""))
idb1 = blk(1, struct.pack("<HHI", 113, 0, 0) + opt(9, b"\x94") + opt(0, b""))
out = shb + idb0 + idb1
for i, ((s, ns, data, wl), (s2, ns2, data2, wl2)) in enumerate(zip(pcap_frames(sys.argv[1]), pcap_frames(sys.argv[2]))):
    t = s * 10**9 + ns   # demo.pcap is nanosecond pcap
    out += blk(6, struct.pack("<IIIII", 0, t >> 32, t & 0xffffffff, len(data), wl) + data)
    t2 = (s2 * 2**20) + (ns2 * 2**20) // 10**9
    out += blk(6, struct.pack("<IIIII", 1, t2 >> 32, t2 & 0xffffffff, len(data2), wl2) + data2)
open(sys.argv[3], "wb").write(out)
