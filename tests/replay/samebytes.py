#!/usr/bin/env python3
"""usage: samebytes.py A.pcap B.pcap -- are the frames of two captures identical, in order?
Standard library only; reads microsecond and nanosecond pcaps of either byte order."""
import struct
import sys


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(end + "IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return out


a, b = frames(sys.argv[1]), frames(sys.argv[2])
if a == b:
    print("same %d frames, byte for byte" % len(a))
    sys.exit(0)
print("differ: %d frames vs %d" % (len(a), len(b)))
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        print("first difference in frame %d" % (i + 1))
        break
sys.exit(1)
