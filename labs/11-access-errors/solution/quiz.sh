#!/bin/sh
# Lab 11's quiz, the parameters inferred from its capture with tshark: the NAK of the remote access
# error names the PSN of the packet it refused (IBA 9.7.5.2.4), the First of the WRITE aimed wrong;
# every WRITE begins with a First, those the requester sent after the NAK too.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# Opcodes (IBA Table 38): 6 RDMA WRITE First, 10 Only; a NAK's syndrome is 0x60-0x7f (96-127).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
NR == 1 { requester = $1 }
$1 == requester && ($2 == 6 || $2 == 10) && !($3 in write) { write[$3] = ++n }
$1 != requester && $4 != "" && $4 >= 96 && $4 < 128 && nak == "" { nak = $3 }
END { printf "qbad: %d\nqcount: %d\n", write[nak], n }'
