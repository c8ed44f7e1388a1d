#!/bin/sh
# Lab 14's quiz, the parameters inferred from its capture with tshark: the requester is whoever sent
# frame 1, its requests are its frames (the Acknowledges, opcode 17, come from the other end); each
# SEND Only is one packet whose UDP length is 8 (UDP) + 12 (BTH) + payload + pad + 4 (ICRC), IBA 9.2;
# the responder's QP is the requests' BTH DestQP.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e udp.length -e infiniband.bth.padcnt -e infiniband.bth.destqp 2>/dev/null |
awk -F '\t' '
# A number as tshark prints it: decimal, or hex with 0x.
function num(s,    v, i) {
    if (s !~ /^0[xX]/) return s + 0
    v = 0
    for (i = 3; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
    return v
}
NR == 1 { requester = $1; size = $2 - 8 - 12 - $3 - 4; qp = num($4) }
$1 == requester { sends++ }
END { printf "qsize: %d\nqcount: %d\nqqp: %d\n", size, sends, qp }'
