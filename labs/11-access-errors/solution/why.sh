#!/bin/sh
# Lab 11, the multiple-choice answers: w2 read off a capture with Wireshark's own InfiniBand
# dissector (tshark), the rest from why.txt (the IBA's clauses beside them).
# Usage: sh why.sh CAPTURE >> answers.txt
set -eu
CAP=${1:?usage: why.sh CAPTURE}
HERE=$(dirname "$0")
grep -o '^w[0-9]*: [a-f]' "$HERE/why.txt"
# w2: what the server did with the client's packets after the request its first NAK refused (an
# Acknowledge, opcode 17, whose syndrome's bits 6-5 are 11: 0x60 to 0x7f, IBA 9.3.5). The refused
# request is the client's last before the NAK with the NAK's PSN; at least one packet to its QP
# must follow it. The server's first Acknowledge to the NAK's QP after the NAK decides: an ACK
# (syndrome 0x00-0x1f) a, a NAK other than a sequence error b, a sequence error NAK (0x60) c, none
# d. The options, in lab.def's order. Responses are opcodes 13 to 18 (IBA Table 38).
tshark -r "$CAP" -Y 'infiniband.bth' -T fields -E separator=/t \
    -e ip.src -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.bth.opcode -e infiniband.aeth.syndrome 2>/dev/null |
awk -F '\t' '
{ resp = $4 >= 13 && $4 <= 18 }
!resp && client == "" { client = $1 }
!resp && $1 == client { n++; qp[n] = $2; psn[n] = $3; if (naked && $2 == rq) later = 1 }
resp && $4 == 17 && $5 >= 96 && $5 < 128 && !naked {
    naked = 1; nqp = $2
    for (i = n; i > 0 && rq == ""; i--) if (psn[i] == $3) rq = qp[i]
    for (j = i + 2; j <= n; j++) if (qp[j] == rq) later = 1
    next
}
naked && !done && $1 != client && $4 == 17 && $2 == nqp {
    done = 1
    if ($5 < 32) ans = "a"; else if ($5 == 96) ans = "c"; else if ($5 > 96 && $5 < 128) ans = "b"
}
END { if (rq != "" && later && (!done || ans != "")) print "w2: " (done ? ans : "d") }'
