#!/bin/sh
# Lab 06, what the predictions should have said, read off the capture that followed them with
# Wireshark's own InfiniBand dissector (tshark): the first RDMA WRITE's packets, its RETH's DMA
# Length, and how many of its packets carry a RETH.
# Usage: sh predict.sh CAPTURE > predictions.txt
set -eu
CAP=${1:?usage: predict.sh CAPTURE}
# RDMA WRITE opcodes (IBA Table 38): 6 First, 7 Middle, 8 Last, 9 Last with Immediate, 10 Only,
# 11 Only with Immediate.
tshark -r "$CAP" -Y 'infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 11' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e infiniband.reth.dmalen 2>/dev/null |
awk -F '\t' '
{ n++ }
$2 != "" { reths++; if (len == "") len = $2 }
$1 >= 8 { printf "p1: %d\np2: %d\np3: %d\n", n, len, reths; exit }'
