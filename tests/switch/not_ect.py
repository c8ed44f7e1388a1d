#!/usr/bin/python3
"""not_ect.py IN OUT: copy a pcap (Ethernet, IPv4), setting each frame's ECN field to Not-ECT (00)
and recomputing the IPv4 header checksum (RFC 791). The ICRC masks the ECN bits (IBA A17.3.3), so it
stays valid. The frames RED must drop rather than mark, for tests/switch/run.sh."""
import struct
import sys


def ip_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    if struct.unpack("<I", data[:4])[0] not in (0xA1B2C3D4, 0xA1B23C4D):
        sys.exit("not_ect.py: %s is not a little-endian pcap" % src)
    out = bytearray(data[:24])
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        frame = bytearray(data[off + 16:off + 16 + incl])
        if len(frame) >= 34 and frame[12:14] == b"\x08\x00":
            ihl = (frame[14] & 0x0F) * 4
            frame[15] &= 0xFC
            frame[24:26] = b"\x00\x00"
            frame[24:26] = struct.pack("!H", ip_checksum(bytes(frame[14:14 + ihl])))
        out += data[off:off + 16] + frame
        off += 16 + incl
    with open(dst, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: not_ect.py IN OUT")
    main(sys.argv[1], sys.argv[2])
