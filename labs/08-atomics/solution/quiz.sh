#!/bin/sh
# Lab 08's quiz, the parameters inferred from its capture with tshark: each Fetch&Add has a PSN of
# its own however often go-back-N sends it, so the Fetch&Adds posted are the PSNs; the window is
# the Fetch&Adds that went out before the first answer came back; the NAK names the PSN the
# responder expected (IBA 9.7.5.2.1), so the lost packet is the requester's first that carried it.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# Opcode 20 is the RC FetchAdd; 17 the Acknowledge, 18 the ATOMIC Acknowledge; syndrome 0x60 (96)
# a PSN sequence error NAK (IBA 9.7.5.1).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
NR == 1 { requester = $1 }
$1 == requester && !answered { window++ }
$1 == requester && !($3 in seen) { seen[$3] = ++n }
$1 != requester { answered = 1 }
$1 != requester && $4 == 96 && nak == "" { nak = $3 }
END { printf "qcount: %d\nqwindow: %d\nqdrop: %d\n", n, window, seen[nak] }'
