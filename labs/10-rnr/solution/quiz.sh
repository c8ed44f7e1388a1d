#!/bin/sh
# Lab 10's quiz, the parameters inferred from its capture with tshark: the RNR NAK's syndrome is
# 001 and the responder's timer code (IBA 9.7.5.1), and every try after the first of the same PSN
# is one of the requester's RNR retries (IBA 9.7.5.2.8).
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
NR == 1 { requester = $1; first = $2 }
$1 == requester && $2 == first { tries++ }
$1 != requester && $3 != "" && $3 >= 32 && $3 < 64 && timer == "" { timer = $3 - 32 }
END { printf "qtimer: %d\nqretry: %d\n", timer, tries - 1 }'
