#!/usr/bin/env python3
"""Odd but legal (and some broken) pcapng files around a pcap's frames, for the
short mutation run (tests/fuzz/mutate.sh): big-endian sections, odd if_tsresol
and if_tsoffset, blocks a reader must skip (NRB, ISB, DSB, custom), Simple
Packet Blocks, a second section, an EPB for an interface that was never
described, caplen beyond the block, a last block cut short.
Usage: odd_pcapng.py IN.pcap OUTDIR   (writes OUTDIR/odd-*.pcapng)"""
import os
import struct
import sys


def frames(path):
    data = open(path, "rb").read()
    end = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" or data[:4] == b"\x4d\x3c\xb2\xa1" else ">"
    link = struct.unpack_from(end + "I", data, 20)[0]
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, cap, wire = struct.unpack_from(end + "IIII", data, off)
        out.append((sec, frac, data[off + 16:off + 16 + cap], wire))
        off += 16 + cap
    return link, out


class W:
    def __init__(self, e="<"):
        self.e, self.b = e, b""

    def block(self, btype, body, bad_len=None):
        body += b"\0" * (-len(body) % 4)
        n = 12 + len(body)
        self.b += struct.pack(self.e + "II", btype, bad_len or n) + body + struct.pack(self.e + "I", n)

    def opt(self, code, value):
        return struct.pack(self.e + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)

    def shb(self):
        self.block(0x0A0D0D0A, struct.pack(self.e + "IHHq", 0x1A2B3C4D, 1, 0, -1) +
                   self.opt(3, b"rocelab odd pcapng") + self.opt(0, b""))

    def idb(self, link, snap=0, opts=b""):
        self.block(1, struct.pack(self.e + "HHI", link, 0, snap) + opts + self.opt(0, b""))

    def epb(self, ifid, ts, frame, wire, cap=None, opts=b""):
        cap = len(frame) if cap is None else cap
        self.block(6, struct.pack(self.e + "IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF, cap, wire) + frame + opts)


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    link, fr = frames(src)
    variants = {}

    for name, e in (("be", ">"), ("le", "<")):
        w = W(e)
        w.shb()
        w.idb(link, 0, w.opt(9, b"\x09"))                    # if_tsresol 10^-9
        for i, (s, f, data, wire) in enumerate(fr):
            w.epb(0, s * 10**9 + f, data, wire, opts=w.opt(1, b"frame %d" % i) + w.opt(0, b""))
        variants["endian-" + name] = w.b

    for res in (b"\x00", b"\x80", b"\x9e", b"\x13", b"\xbf", b"\xff"):  # 10^0, 2^0, 2^-30, 10^-19, 2^-63, 2^-127
        w = W()
        w.shb()
        w.idb(link, 0, w.opt(9, res) + w.opt(14, struct.pack("<q", -(1 << 62))))
        for s, f, data, wire in fr:
            w.epb(0, (s << 20) | f, data, wire)
        variants["tsresol-%02x" % res[0]] = w.b

    w = W()
    w.shb()
    w.block(4, w.opt(1, b"\xc0\xa8\x64\x01host-a\0") + w.opt(0, b""))   # NRB (a broken record)
    w.idb(link, 64)
    w.block(0x00000BAD, b"\x00\x00\x7e\x6d" + b"custom data")           # custom block
    w.block(0x0000000A, b"TLSK" + struct.pack("<I", 3) + b"abc")       # DSB
    for s, f, data, wire in fr:
        w.block(3, struct.pack("<I", wire) + data)                     # SPB: snap 64 cuts it
        w.block(5, struct.pack("<III", 0, s, f) + w.opt(0, b""))       # ISB
    variants["skip-blocks-spb"] = w.b

    w = W()
    w.shb()
    w.idb(link)
    for s, f, data, wire in fr[: len(fr) // 2]:
        w.epb(0, s * 10**6 + f // 1000, data, wire)
    w.shb()                                                            # a second section
    w.idb(101)                                                         # raw IP
    w.idb(link)
    for s, f, data, wire in fr[len(fr) // 2:]:
        w.epb(1, s * 10**6, data, wire)
    variants["two-sections"] = w.b

    w = W()
    w.shb()
    w.idb(link)
    s, f, data, wire = fr[0]
    w.epb(0, 1, data, wire)
    w.epb(7, 2, data, wire)                                           # no interface 7
    w.epb(0, 3, data, wire, cap=len(data) + 4000)                      # caplen past the block
    variants["bad-epb"] = w.b

    w = W()
    w.shb()
    w.idb(link)
    w.block(3, b"")                                                    # an SPB of 12 bytes: no length field
    variants["short-spb"] = w.b

    w = W()
    w.shb()
    w.idb(link)
    for s, f, data, wire in fr:
        w.epb(0, s * 10**6 + f // 1000, data, wire)
    variants["cut-last-block"] = w.b[:-7]
    variants["huge-block-len"] = w.b + struct.pack("<II", 6, 0x7FFFFFF0) + b"\0" * 16

    for name, b in variants.items():
        with open(os.path.join(outdir, "odd-%s.pcapng" % name), "wb") as out:
            out.write(b)


main()
