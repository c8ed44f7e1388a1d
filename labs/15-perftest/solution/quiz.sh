#!/bin/sh
# Lab 15's quiz, the parameters inferred from its ib_write_bw-like capture with tshark: the RETH of
# a WRITE's first packet carries the whole message's length (IBA 9.3.3, 9.4.3), and the WRITEs are
# counted by their First (or Only) packets, a PSN sent again counted once.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# RDMA WRITE opcodes (IBA 9.2, Table 38): First 6, Only 10, Only with Immediate 11.
tshark -r "$CAP" -Y 'infiniband.bth.opcode == 6 || infiniband.bth.opcode == 10 || infiniband.bth.opcode == 11' \
    -T fields -E separator=/t -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.reth.dmalen 2>/dev/null |
awk -F '\t' '
($1, $2) in seen { next }
{ seen[$1, $2] = 1; n++ }
size == "" { size = $3 }
END { printf "qsize: %d\nqcount: %d\n", size, n }'
