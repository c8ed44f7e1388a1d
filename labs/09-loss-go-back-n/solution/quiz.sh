#!/bin/sh
# Lab 09's quiz, the parameters inferred from its capture with tshark: the NAK names the PSN the
# responder expected (IBA 9.7.5.2.1), so the lost packet is the requester's first that carried it;
# each one-packet WRITE has a PSN of its own, however often go-back-N sends it.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# Opcode 17 is the Acknowledge; syndrome 0x60 (96) a PSN sequence error NAK (IBA 9.7.5.1).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
NR == 1 { requester = $1 }
$1 == requester && !($3 in seen) { seen[$3] = ++n }
$1 != requester && $4 == 96 && nak == "" { nak = $3 }
END { printf "qdrop: %d\nqcount: %d\n", seen[nak], n }'
