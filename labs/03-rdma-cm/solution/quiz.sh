#!/bin/sh
# Lab 03's quiz, rping's -C and -S inferred from its capture with tshark: each ping is one RDMA READ
# of the client's whole buffer by the server (a resent READ keeps its PSN), and the READ's RETH
# says how many bytes it asks for (IBA 9.3.3).
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y 'infiniband.bth.opcode == 12' -T fields -E separator=/t \
    -e infiniband.bth.psn -e infiniband.reth.dmalen 2>/dev/null |
awk -F '\t' '
!seen[$1]++ { reads++ }
size == "" { size = $2 }
END { printf "qcount: %d\nqsize: %d\n", reads, size }'
