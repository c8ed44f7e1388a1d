#!/bin/sh
# Lab 12's quiz, the parameters inferred from its capture with tshark: the NAK names the PSN of
# the packet whose R_Key failed, the First of the WRITE aimed wrong (IBA 9.7.5.2.4), so the WRITEs
# that begin up to that PSN count to it; a First's payload is the path MTU (IBA 9.7.5.1.4, C9-114);
# the RETH's DMA Length is each WRITE's size (IBA 9.3.3).
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# Opcodes (IBA Table 38): 6 RDMA WRITE First, 10 Only; 17 Acknowledge. A WRITE First's UDP length
# is UDP 8, BTH 12, RETH 16, the payload and its pad, and the ICRC 4.
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e udp.length -e infiniband.bth.padcnt \
    -e infiniband.reth.dmalen -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
NR == 1 { client = $1 }
$1 == client && ($2 == 6 || $2 == 10) && !(($3) in seen) {
    seen[$3] = 1; start[++n] = $3
    if (size == "") size = $6
    if ($2 == 6 && !mtu) mtu = $4 - 8 - 12 - 16 - 4 - $5
}
$1 != client && $2 == 17 && $7 >= 96 && $7 < 128 && nak == "" { nak = $3 }
END {
    for (k = 1; k <= n; k++) if ((nak - start[k] + 16777216) % 16777216 < 8388608) bad = k
    printf "qbad: %d\nqmtu: %d\nqsize: %d\n", bad, mtu ? mtu : size, size
}'
