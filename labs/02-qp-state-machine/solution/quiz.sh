#!/bin/sh
# Lab 02's quiz, what each side announced in the exchange inferred from its capture with tshark:
# a side sends its requests to the QPN the other announced (its dest_qp_num, set at RTR), and its
# first request carries the PSN it announced itself (its sq_psn, set at RTS); the client, which
# sends first, is the source of frame 1 (IBA 9.7.1, 11.2.4.2).
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t -E occurrence=f \
    -e ip.src -e ipv6.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn 2>/dev/null |
awk -F '\t' '
# RC responses are opcodes 13-18 (IBA 9.2, Table 38).
function response(op) { return op >= 13 && op <= 18 }
function dec(v,    s, i, x) {
    s = tolower(substr(v, 3)); x = 0
    for (i = 1; i <= length(s); i++) x = x * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return x
}
{ src = $1 != "" ? $1 : $2 }
NR == 1 { client = src }
response($3) { next }
src == client && server_qp == "" { server_qp = dec($4) }
src != client && client_qp == "" { client_qp = dec($4); psn = $5 }
END { printf "qclient: %d\nqserver: %d\nqpsn: %d\n", client_qp, server_qp, psn }'
