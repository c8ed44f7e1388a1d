#!/bin/sh
# Lab 12, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the packets of the client's first RDMA WRITE (the
# one with the wrong R_Key), its RETH's DMA Length, and the first NAK's PSN past that WRITE's first.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# RDMA WRITE opcodes (IBA Table 38): 6 First, 7 Middle, 8 Last, 9 Last with Immediate, 10 Only,
# 11 Only with Immediate; 17 Acknowledge. A NAK's syndrome is 0x60-0x7f (96-127, IBA 9.7.5.1).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e ipv6.src -e infiniband.bth.destqp -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.reth.dmalen -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
{ src = $1 != "" ? $1 : $2; op = $4 + 0 }
op >= 6 && op <= 11 && first == "" { client = src; qp = $3; first = $5; len = $6 }
first == "" { next }
src == client && $3 == qp && op >= 6 && op <= 11 && !done && !(($5) in seen) {
    seen[$5] = 1; n++
    if (op != 6 && op != 7) done = 1
}
src != client && op == 17 && $7 >= 96 && $7 < 128 && nak == "" { nak = ($5 - first + 16777216) % 16777216 }
END { printf "p1: %d\np2: %d\np3: %d\n", n, len, nak }'
