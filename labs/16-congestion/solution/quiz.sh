#!/bin/sh
# Lab 16's quiz, the parameters inferred from its capture with tshark: each flow is a QP of the
# receiver's (its own DestQP); behind a queue the port sends frames back to back, so the time from
# one request to the next is the next one's bits at the port's rate. Taken over the requests of
# the commonest length (a full Middle), the commonest such time is that frame's time on the port.
# Usage: sh quiz.sh CAPTURE > quiz-answers.txt
set -eu
CAP=${1:?usage: quiz.sh CAPTURE}
# Requests: not RC responses (opcodes 13 to 18, IBA Table 38), not CNPs (129, IBA A17.9.2).
tshark -r "$CAP" -Y infiniband -T fields -E separator=/t \
    -e ip.src -e frame.time_relative -e infiniband.bth.opcode -e infiniband.bth.destqp -e frame.len 2>/dev/null |
awk -F '\t' '
NR == 1 { requester = $1 }
$1 != requester || ($3 >= 13 && $3 <= 18) || $3 == 129 { next }
!($4 in qps) { qps[$4] = 1; n++ }
{ t = int($2 * 1e9 + 0.5); lens[$5]++ }
prev != "" { gaps[$5, t - prev]++ }
{ prev = t }
END {
    for (l in lens) if (lens[l] > lens[full] + 0) full = l
    for (k in gaps) { split(k, x, SUBSEP); if (x[1] == full && gaps[k] > most) { most = gaps[k]; gap = x[2] } }
    printf "qn: %d\nqbn: %d\n", n, int(full * 8 / gap + 0.5)
}'
