#!/bin/sh
# Lab 06's quiz, the parameters inferred from its capture with tshark: a WRITE First packet's
# payload is the path MTU (IBA 9.7.5.1.4, C9-114), the RETH's DMA Length is the whole message's
# size (IBA 9.3.3), and each WRITE carries one RETH, in its first packet.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# RDMA WRITE opcodes (IBA Table 38): 6 First, 10 Only. A First's UDP length is UDP 8, BTH 12,
# RETH 16, the payload and its pad, and the ICRC 4.
tshark -r "$CAP" -Y 'infiniband.bth.opcode == 6 || infiniband.bth.opcode == 10' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt -e infiniband.reth.dmalen 2>/dev/null |
awk -F '\t' '
$1 == 6 && !mtu { mtu = $2 - 8 - 12 - 16 - 4 - $3 }
$4 != "" { n++; if (size == "") size = $4 }
END { printf "qmtu: %d\nqsize: %d\nqcount: %d\n", mtu ? mtu : size, size, n }'
