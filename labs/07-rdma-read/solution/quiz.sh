#!/bin/sh
# Lab 07's quiz, the parameters inferred from its capture with tshark: a READ response First
# carries the path MTU, and the READ requests sent before the first response are those the
# requester keeps outstanding.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# Opcodes (IBA Table 38): 12 READ Request; responses 13 First, 14 Middle, 15 Last, 16 Only.
# A First's payload: UDP length less UDP (8), BTH (12), AETH (4), ICRC (4) and the pad.
tshark -r "$CAP" -Y 'infiniband.bth.opcode >= 12 && infiniband.bth.opcode <= 16' -T fields -E separator=/t \
    -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt 2>/dev/null |
awk -F '\t' '
$1 == 12 && !resp { window++ }
$1 != 12 { resp = 1 }
$1 == 13 && !mtu { mtu = $2 - 8 - 12 - 4 - 4 - $3 }
END { printf "qmtu: %d\nqwindow: %d\n", mtu, window }'
