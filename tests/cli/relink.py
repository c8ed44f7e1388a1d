#!/usr/bin/env python3
"""Rewrite an Ethernet pcap as another link type (raw IP, Linux SLL, Linux SLL2),
the framings `tcpdump -i any` and raw-IP captures use. Standard library only."""
import struct
import sys

LINK = {"raw": 101, "sll": 113, "sll2": 276}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), "expected a little-endian pcap"
    return magic, data


def frames(data):
    off = 24
    while off < len(data):
        sec, frac, caplen, length = struct.unpack("<IIII", data[off:off + 16])
        yield sec, frac, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def relink(frame, kind):
    etype = frame[12:14]
    if etype == b"\x81\x00":
        etype, frame = frame[16:18], frame[:12] + frame[16:]
    body = frame[14:]
    if kind == "raw":
        return body
    if kind == "sll":   # pkttype, ARPHRD_ETHER, addr len, addr[8], protocol
        return struct.pack(">HHH", 0, 1, 6) + frame[6:12] + b"\0\0" + etype + body
    # sll2: protocol, reserved, ifindex, hatype, pkttype, addr len, addr[8]
    return etype + b"\0\0" + struct.pack(">IHBB", 3, 1, 4, 6) + frame[6:12] + b"\0\0" + body


def main():
    src, dst, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    magic, data = read(src)
    out = [struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 65535, LINK[kind])]
    for sec, frac, frame in frames(data):
        f = relink(frame, kind)
        out.append(struct.pack("<IIII", sec, frac, len(f), len(f)) + f)
    with open(dst, "wb") as f:
        f.write(b"".join(out))


if __name__ == "__main__":
    main()
