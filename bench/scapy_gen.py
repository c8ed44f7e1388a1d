#!/usr/bin/python3
# The scapy side of bench/run.sh part 4: write N RoCEv2 frames shaped like
# `rocelab gen write-bw --size 16384` at MTU 1024 to a pcap with PcapWriter.
# Per 16 KiB message: RDMA WRITE First (RETH + 1024 B), 14 x Middle (1024 B),
# Last (1024 B, AckReq), then an Acknowledge (AETH) the other way: 17 frames,
# the same bytes per frame as rocelab's (1098, 1082, 1082, 1062). Every frame
# is built by scapy (Ether/IP/UDP/BTH/Raw) with the ICRC left None, so that
# BTH.post_build computes it; the UDP checksum is 0, as in rocelab's frames.
# The frames are those of rocelab's capture (frames 1-16 byte for byte), only
# the ACK comes right after its message rather than one frame later.
# Usage: /usr/bin/python3 scapy_gen.py N OUT.pcap
# Prints "FRAMES SECONDS": the time from opening the pcap to closing it, so that
# neither the interpreter's start nor scapy's import (a few seconds) is counted.
import struct
import sys
import time

from scapy.all import IP, UDP, Ether, PcapWriter, Raw
from scapy.contrib.roce import BTH

MTU = 1024
MSG = 16384
SEG = MSG // MTU
FIRST, MIDDLE, LAST, ACK = 0x06, 0x07, 0x08, 0x11


def main():
    n = int(sys.argv[1])
    out = sys.argv[2]
    text = b"RoCE teaches itself: "
    data = (text * (MSG // len(text) + 1))[:MSG]
    reth = struct.pack("!QII", 0x7F0100000000, 0x1005A, MSG)
    a = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    b = dict(src="02:00:00:00:00:02", dst="02:00:00:00:00:01")
    ipa = dict(src="192.168.100.1", dst="192.168.100.2", tos=0x6A, flags="DF", id=0)
    ipb = dict(src="192.168.100.2", dst="192.168.100.1", tos=0x6A, flags="DF", id=0)
    t0 = time.perf_counter()
    w = PcapWriter(out, linktype=1, sync=False)
    psn, msn, sent, t = 0x9756CE, 0, 0, 0.0
    while sent < n:
        for i in range(SEG + 1):
            if sent >= n:
                break
            if i < SEG:
                op = FIRST if i == 0 else LAST if i == SEG - 1 else MIDDLE
                pay = data[i * MTU:(i + 1) * MTU]
                if op == FIRST:
                    pay = reth + pay
                p = (Ether(**a) / IP(**ipa) / UDP(sport=63793, dport=4791, chksum=0) /
                     BTH(opcode=op, dqpn=0x12, psn=psn, ackreq=int(op == LAST)) / Raw(pay))
                psn = (psn + 1) & 0xFFFFFF
            else:
                msn += 1
                p = (Ether(**b) / IP(**ipb) / UDP(sport=51700, dport=4791, chksum=0) /
                     BTH(opcode=ACK, dqpn=0x11, psn=(psn - 1) & 0xFFFFFF) /
                     Raw(struct.pack("!I", msn & 0xFFFFFF)))
            p.time = t
            t += 3e-7
            w.write(p)
            sent += 1
    w.close()
    print("%d %.3f" % (sent, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
