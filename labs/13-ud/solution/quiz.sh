#!/bin/sh
# Lab 13's quiz, the parameters inferred from its capture with tshark: every frame is a UD SEND
# Only (opcode 100, IBA Table 38), one datagram each, nothing answers them; its UDP length is
# 8 (UDP) + 12 (BTH) + 8 (DETH) + message + pad + 4 (ICRC), IBA 9.2, 9.3.2; the DETH's Source QP
# is the sender's QP.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e infiniband.bth.opcode -e udp.length -e infiniband.bth.padcnt -e infiniband.deth.srcqp 2>/dev/null |
awk -F '\t' '
# A number as tshark prints it: decimal, or hex with 0x.
function num(s,    v, i) {
    if (s !~ /^0[xX]/) return s + 0
    v = 0
    for (i = 3; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
    return v
}
$1 == 100 || $1 == 101 {
    if (!sends++) { size = $2 - 8 - 12 - 8 - $3 - 4; qp = num($4) }
}
END { printf "qsize: %d\nqcount: %d\nqsrcqp: %d\n", size, sends, qp }'
